//! What the broker tests of this crate share.

use std::time::{Duration, Instant};

use ferry_kafka::admin::{Admin, TopicSpec};
use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;

/// The broker the tests run against.
pub fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .expect("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with scripts/kafka start")
}

/// A topic or group name no earlier run used.
pub fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// Waits until `condition` holds, checking every 10 ms; fails the test after `within`.
#[allow(dead_code)] // not every test file that shares this module waits
pub async fn wait_until(what: &str, within: Duration, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A new topic with `partitions` partitions.
#[allow(dead_code)] // not every test file that shares this module makes topics
pub async fn topic_with_partitions(partitions: i32) -> String {
    let topic = unique("consumer-test");
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    let admin = Admin::new(&config).unwrap();
    let spec = TopicSpec {
        name: topic.clone(),
        partitions,
        replication_factor: -1,
        configs: Vec::new(),
    };
    assert!(admin.create_topic(&spec).await.unwrap());
    topic
}

/// Writes `values` to `partition` of `topic` and waits for their acknowledgements.
#[allow(dead_code)]
pub async fn produce(topic: &str, partition: i32, values: &[&str]) {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    let (producer, mut acks) = AckingProducer::new(&config).unwrap();
    for (seq, value) in values.iter().enumerate() {
        let record = OutgoingRecord {
            topic,
            partition: Some(partition),
            value: Some(value.as_bytes()),
            ..Default::default()
        };
        producer.send(&record, seq).unwrap();
    }
    for _ in values {
        let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
            .await
            .expect("an acknowledgement")
            .unwrap();
        assert!(ack.result.is_ok(), "{:?}", ack.result);
    }
}
