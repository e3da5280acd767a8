//! The group-less consumer of chosen partitions (MirrorMaker's source tasks) against a real
//! broker: each partition read from the offset given, or from `auto.offset.reset` without one.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ferry_kafka::assigned_consumer::AssignedConsumer;
use ferry_kafka::rdkafka::ClientConfig;
use support::{bootstrap, produce, topic_with_partitions};

/// Polls until `count` records came, or fails after 30 s.
async fn read(consumer: &AssignedConsumer, count: usize) -> BTreeMap<(i32, i64), String> {
    let mut seen = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while seen.len() < count {
        assert!(
            Instant::now() < deadline,
            "only {} of {count} records: {seen:?}",
            seen.len()
        );
        for r in consumer
            .poll_batch(100, Duration::from_millis(500))
            .await
            .unwrap()
        {
            let value = String::from_utf8(r.value.unwrap_or_default()).unwrap();
            seen.insert((r.partition, r.offset), value);
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn partitions_are_read_from_the_offsets_given_or_from_the_reset_policy() {
    let topic = topic_with_partitions(2).await;
    produce(&topic, 0, &["a0", "a1", "a2", "a3"]).await;
    produce(&topic, 1, &["b0", "b1"]).await;
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest");
    let consumer = AssignedConsumer::new(&config).unwrap();
    consumer
        .assign(&[((topic.clone(), 0), Some(2)), ((topic.clone(), 1), None)])
        .unwrap();
    let seen = read(&consumer, 4).await;
    let expected: BTreeMap<(i32, i64), String> = [
        ((0, 2), "a2"),
        ((0, 3), "a3"),
        ((1, 0), "b0"),
        ((1, 1), "b1"),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_owned()))
    .collect();
    assert_eq!(seen, expected);

    // Records written later come too, and an empty poll answers after its timeout.
    produce(&topic, 1, &["b2"]).await;
    assert_eq!(
        read(&consumer, 1).await.into_values().collect::<Vec<_>>(),
        ["b2"]
    );
    let started = Instant::now();
    let empty = consumer
        .poll_batch(10, Duration::from_millis(300))
        .await
        .unwrap();
    assert!(empty.is_empty(), "{empty:?}");
    assert!(started.elapsed() >= Duration::from_millis(250));
}
