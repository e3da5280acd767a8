//! The acking producer against a real broker: acknowledgements, and its poller, which sleeps
//! while nothing is in flight and must wake up for the next send. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

use std::time::{Duration, Instant};

use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;

fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .expect("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with scripts/kafka start")
}

fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

async fn wait_until(what: &str, within: Duration, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_send_wakes_the_sleeping_poller_and_its_acknowledgement_comes_at_once() {
    let topic = unique("acking");
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("allow.auto.create.topics", "true");
    let (producer, mut acks) = AckingProducer::new(&config).unwrap();
    let record = OutgoingRecord {
        topic: &topic,
        value: Some(b"first"),
        ..Default::default()
    };
    // The first record also waits for the topic to be created.
    producer.send(&record, 0).unwrap();
    let first = tokio::time::timeout(Duration::from_secs(30), acks.recv())
        .await
        .expect("the first acknowledgement")
        .unwrap();
    assert_eq!(first.seq, 0);
    assert!(first.result.is_ok(), "{:?}", first.result);

    for seq in 1..=3 {
        wait_until("the poller to sleep", Duration::from_secs(10), || {
            producer.idle()
        })
        .await;
        let sent = Instant::now();
        producer.send(&record, seq).unwrap();
        let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
            .await
            .expect("an acknowledgement")
            .unwrap();
        assert_eq!(ack.seq, seq);
        assert!(ack.result.is_ok(), "{:?}", ack.result);
        // A poller left asleep would look again only after a second.
        assert!(
            sent.elapsed() < Duration::from_millis(900),
            "acknowledged {:?} after the send",
            sent.elapsed()
        );
    }
    assert_eq!(producer.in_flight(), 0);
}
