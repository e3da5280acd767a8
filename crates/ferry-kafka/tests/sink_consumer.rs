//! The sink tasks' group consumer against a real broker: where a partition's reading starts,
//! with and without a committed offset, for each `auto.offset.reset`. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ferry_kafka::admin::{Admin, TopicSpec};
use ferry_kafka::consumer::{ConsumedRecord, RebalanceEvent, SinkConsumer, Subscription};
use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;
use support::{bootstrap, unique};
use tokio::sync::mpsc::UnboundedReceiver;

async fn topic_with_partitions(partitions: i32) -> String {
    let topic = unique("sink-consumer");
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
async fn produce(topic: &str, partition: i32, values: &[&str]) {
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

/// A consumer, and its rebalance events (unread here, but kept open with it).
fn consumer(
    group: &str,
    topic: &str,
    reset: &str,
) -> (SinkConsumer, UnboundedReceiver<RebalanceEvent>) {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", reset);
    SinkConsumer::new(&config, &Subscription::Topics(vec![topic.to_owned()])).unwrap()
}

fn value(record: &ConsumedRecord) -> String {
    String::from_utf8(record.value.clone().unwrap_or_default()).unwrap()
}

/// Polls until `count` records arrived (failing after 30 s).
async fn read(consumer: &SinkConsumer, count: usize) -> Vec<ConsumedRecord> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut records = Vec::new();
    while records.len() < count {
        assert!(
            Instant::now() < deadline,
            "read {} of {count} records",
            records.len()
        );
        records.extend(
            consumer
                .poll_batch(500, Duration::from_millis(200))
                .await
                .unwrap(),
        );
    }
    records
}

#[tokio::test]
async fn a_new_group_reads_a_partition_from_its_first_record_with_earliest() {
    let topic = topic_with_partitions(1).await;
    produce(&topic, 0, &["a", "b", "c"]).await;
    let (consumer, _events) = consumer(&unique("g"), &topic, "earliest");
    let records = read(&consumer, 3).await;
    let values: Vec<String> = records.iter().map(value).collect();
    assert_eq!(values, ["a", "b", "c"]);
    assert_eq!(records[0].offset, 0);
    consumer.close(&HashMap::new()).unwrap();
}

#[tokio::test]
async fn a_new_group_skips_what_was_written_before_it_joined_with_latest() {
    let topic = topic_with_partitions(1).await;
    produce(&topic, 0, &["old-1", "old-2"]).await;
    let (consumer, _events) = consumer(&unique("g"), &topic, "latest");
    // Whenever the consumer's position is set, a record written after it is read: write until
    // one arrives.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut received = Vec::new();
    let mut written = 0;
    while received.is_empty() {
        assert!(Instant::now() < deadline, "no record arrived");
        written += 1;
        produce(&topic, 0, &[&format!("new-{written}")]).await;
        received.extend(
            consumer
                .poll_batch(500, Duration::from_millis(200))
                .await
                .unwrap(),
        );
    }
    let values: Vec<String> = received.iter().map(value).collect();
    assert!(
        values.iter().all(|v| v.starts_with("new-")),
        "read {values:?}"
    );
    assert!(
        received[0].offset >= 2,
        "started at offset {}",
        received[0].offset
    );
    consumer.close(&HashMap::new()).unwrap();
}

#[tokio::test]
async fn a_committed_offset_wins_over_the_reset_and_only_uncommitted_partitions_reset() {
    let topic = topic_with_partitions(2).await;
    produce(&topic, 0, &["p0-0", "p0-1", "p0-2", "p0-3"]).await;
    produce(&topic, 1, &["p1-0", "p1-1"]).await;
    let group = unique("g");
    // A first member commits partition 0 at offset 2 only.
    let (first, _first_events) = consumer(&group, &topic, "earliest");
    read(&first, 6).await;
    first
        .close(&HashMap::from([((topic.clone(), 0), 2)]))
        .unwrap();

    // The next member, with latest: partition 0 resumes at its committed offset, partition 1
    // (nothing committed) starts at its end, after what is already there.
    let (second, _second_events) = consumer(&group, &topic, "latest");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut values = Vec::new();
    let mut written = 0;
    let done = |values: &[String]| {
        values.iter().any(|v| v.starts_with("p1-new"))
            && values.iter().filter(|v| v.starts_with("p0-")).count() >= 2
    };
    while !done(&values) {
        assert!(Instant::now() < deadline, "read only {values:?}");
        if !values.iter().any(|v| v.starts_with("p1-new")) {
            written += 1;
            produce(&topic, 1, &[&format!("p1-new-{written}")]).await;
        }
        let batch = second
            .poll_batch(500, Duration::from_millis(200))
            .await
            .unwrap();
        values.extend(batch.iter().map(value));
    }
    let from_p0: Vec<&String> = values.iter().filter(|v| v.starts_with("p0-")).collect();
    assert_eq!(from_p0, ["p0-2", "p0-3"], "read {values:?}");
    assert!(
        !values.iter().any(|v| v == "p1-0" || v == "p1-1"),
        "read {values:?}"
    );
    second.close(&HashMap::new()).unwrap();
}
