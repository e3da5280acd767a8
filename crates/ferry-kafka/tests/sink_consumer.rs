//! The sink tasks' group consumer against a real broker: where a partition's reading starts,
//! with and without a committed offset, for each `auto.offset.reset`. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ferry_kafka::consumer::{ConsumedRecord, RebalanceEvent, SinkConsumer, Subscription};
use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;
use support::{bootstrap, produce, topic_with_partitions, unique};
use tokio::sync::mpsc::UnboundedReceiver;

/// Writes `{prefix}{i}` for i in 0..count to `partition` of `topic`.
async fn produce_numbered(topic: &str, partition: i32, prefix: &str, count: usize) {
    let values: Vec<String> = (0..count).map(|i| format!("{prefix}{i}")).collect();
    let refs: Vec<&str> = values.iter().map(String::as_str).collect();
    produce(topic, partition, &refs).await;
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

#[tokio::test]
async fn records_keep_their_topic_partition_key_timestamp_and_headers() {
    let (first, second) = (
        topic_with_partitions(2).await,
        topic_with_partitions(1).await,
    );
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    let (producer, mut acks) = AckingProducer::new(&config).unwrap();
    let sent = [
        (
            &first,
            1,
            Some(&b"k1"[..]),
            Some(&b"v1"[..]),
            1_700_000_000_001,
        ),
        (&second, 0, None, Some(&b"v2"[..]), 1_700_000_000_002),
        (&first, 0, Some(&b"k3"[..]), None, 1_700_000_000_003),
    ];
    for (seq, (topic, partition, key, value, timestamp)) in sent.iter().enumerate() {
        let record = OutgoingRecord {
            topic,
            partition: Some(*partition),
            key: *key,
            value: *value,
            timestamp: Some(*timestamp),
            headers: if seq == 0 {
                vec![
                    ("h-a", Some(&b"one"[..])),
                    ("h-null", None),
                    ("h-a", Some(&b""[..])),
                ]
            } else {
                Vec::new()
            },
        };
        producer.send(&record, seq).unwrap();
    }
    for _ in &sent {
        let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
            .await
            .expect("an acknowledgement")
            .unwrap();
        assert!(ack.result.is_ok(), "{:?}", ack.result);
    }
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("g"))
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest");
    let (consumer, _events) = SinkConsumer::new(
        &config,
        &Subscription::Topics(vec![first.clone(), second.clone()]),
    )
    .unwrap();
    let mut records = read(&consumer, 3).await;
    records.sort_by_key(|r| r.timestamp);
    for (record, (topic, partition, key, value, timestamp)) in records.iter().zip(&sent) {
        assert_eq!(&record.topic, *topic);
        assert_eq!(record.partition, *partition);
        assert_eq!(record.offset, 0);
        assert_eq!(record.key.as_deref(), *key);
        assert_eq!(record.value.as_deref(), *value);
        assert_eq!(record.timestamp, Some(*timestamp));
        assert!(!record.log_append_time);
    }
    let headers: Vec<(&str, Option<&[u8]>)> = records[0]
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect();
    assert_eq!(
        headers,
        [
            ("h-a", Some(&b"one"[..])),
            ("h-null", None),
            ("h-a", Some(&b""[..]))
        ]
    );
    assert!(records[1].headers.is_empty() && records[2].headers.is_empty());
    consumer.close(&HashMap::new()).unwrap();
}

/// Applies a consumer's rebalance events to what it owns, completing its revocations.
fn follow(
    consumer: &SinkConsumer,
    events: &mut UnboundedReceiver<RebalanceEvent>,
    owned: &mut Vec<i32>,
) {
    while let Ok(event) = events.try_recv() {
        match event {
            RebalanceEvent::Assigned(parts) => owned.extend(parts.iter().map(|(_, p)| *p)),
            RebalanceEvent::Revoked(parts) => {
                owned.retain(|p| !parts.iter().any(|(_, q)| q == p));
                consumer.finish_revocation();
            }
            RebalanceEvent::Lost(parts) => owned.retain(|p| !parts.iter().any(|(_, q)| q == p)),
        }
        owned.sort_unstable();
        owned.dedup();
    }
}

#[tokio::test]
async fn a_member_that_joins_takes_partitions_over_and_each_record_is_read_once_by_its_owner() {
    let topic = topic_with_partitions(4).await;
    for p in 0..4 {
        produce_numbered(&topic, p, &format!("old-{p}-"), 10).await;
    }
    let group = unique("g");
    let (a, mut a_events) = consumer(&group, &topic, "earliest");
    let old = read(&a, 40).await;
    let next: HashMap<(String, i32), i64> = (0..4).map(|p| ((topic.clone(), p), 10)).collect();
    a.commit(&next, true).unwrap();
    let (mut a_owns, mut b_owns) = (Vec::new(), Vec::new());
    follow(&a, &mut a_events, &mut a_owns);
    assert_eq!(a_owns, [0, 1, 2, 3]);
    assert_eq!(old.len(), 40);

    // A second member joins: the partitions are split between the two, and both go on reading.
    let (b, mut b_events) = consumer(&group, &topic, "earliest");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut read_by: Vec<(char, ConsumedRecord)> = Vec::new();
    loop {
        assert!(
            Instant::now() < deadline,
            "no split of the partitions: a owns {a_owns:?}, b owns {b_owns:?}"
        );
        for (name, c) in [('a', &a), ('b', &b)] {
            let batch = c.poll_batch(500, Duration::from_millis(100)).await.unwrap();
            read_by.extend(batch.into_iter().map(|r| (name, r)));
        }
        follow(&a, &mut a_events, &mut a_owns);
        follow(&b, &mut b_events, &mut b_owns);
        let mut all: Vec<i32> = a_owns.iter().chain(&b_owns).copied().collect();
        all.sort_unstable();
        if !a_owns.is_empty() && !b_owns.is_empty() && all == [0, 1, 2, 3] {
            break;
        }
    }
    assert!(read_by.is_empty(), "read again: {read_by:?}");

    for p in 0..4 {
        produce_numbered(&topic, p, &format!("new-{p}-"), 10).await;
    }
    while read_by.len() < 40 {
        assert!(
            Instant::now() < deadline,
            "read {} of 40 new records",
            read_by.len()
        );
        for (name, c) in [('a', &a), ('b', &b)] {
            let batch = c.poll_batch(500, Duration::from_millis(100)).await.unwrap();
            read_by.extend(batch.into_iter().map(|r| (name, r)));
        }
        follow(&a, &mut a_events, &mut a_owns);
        follow(&b, &mut b_events, &mut b_owns);
    }
    let mut values: Vec<String> = read_by.iter().map(|(_, r)| value(r)).collect();
    values.sort();
    let mut expected: Vec<String> = (0..4)
        .flat_map(|p| (0..10).map(move |i| format!("new-{p}-{i}")))
        .collect();
    expected.sort();
    assert_eq!(values, expected);
    for (name, record) in &read_by {
        let owner = if a_owns.contains(&record.partition) {
            'a'
        } else {
            'b'
        };
        assert_eq!(*name, owner, "{record:?} read by {name}");
    }
    b.close(&HashMap::new()).unwrap();
    a.close(&HashMap::new()).unwrap();
}

#[tokio::test]
async fn after_a_seek_the_next_record_is_the_one_sought_and_none_fetched_before_it() {
    let topic = topic_with_partitions(1).await;
    produce_numbered(&topic, 0, "v", 200).await;
    let (consumer, _events) = consumer(&unique("g"), &topic, "earliest");
    // A small first batch, so records after it are still waiting in the client.
    let deadline = Instant::now() + Duration::from_secs(30);
    let first = loop {
        assert!(Instant::now() < deadline, "nothing read");
        let batch = consumer
            .poll_batch(5, Duration::from_millis(200))
            .await
            .unwrap();
        if !batch.is_empty() {
            break batch;
        }
    };
    assert_eq!(first[0].offset, 0);
    consumer.seek(&topic, 0, 3).unwrap();
    let after = read(&consumer, 197).await;
    let offsets: Vec<i64> = after.iter().map(|r| r.offset).collect();
    assert_eq!(offsets, (3..200).collect::<Vec<i64>>());
    consumer.close(&HashMap::new()).unwrap();
}

#[tokio::test]
async fn records_fetched_together_are_taken_in_one_batch() {
    let topic = topic_with_partitions(1).await;
    produce_numbered(&topic, 0, "v", 100).await;
    let (consumer, _events) = consumer(&unique("g"), &topic, "earliest");
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut read, mut largest) = (0, 0);
    while read < 100 {
        assert!(Instant::now() < deadline, "read {read} of 100");
        let batch = consumer
            .poll_batch(500, Duration::from_millis(200))
            .await
            .unwrap();
        read += batch.len();
        largest = largest.max(batch.len());
    }
    // One fetch brings all 100 and they are taken together. A partition whose records were
    // left on the consumer's queue (not sent to the fetch queue) gives one or two per poll.
    assert!(largest >= 50, "the largest batch held {largest} records");
    consumer.close(&HashMap::new()).unwrap();
}

#[tokio::test]
async fn a_consumer_dropped_without_closing_leaves_its_group_without_waiting() {
    let topic = topic_with_partitions(2).await;
    produce(&topic, 0, &["a"]).await;
    let (consumer, events) = consumer(&unique("g"), &topic, "earliest");
    read(&consumer, 1).await;
    // As after a panic in the task: no close(), no finish_revocation for the drop's revocation.
    // A thread of its own, so a drop that never ends fails the test instead of hanging it.
    let (done, dropped) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop((consumer, events));
        let _ = done.send(());
    });
    dropped
        .recv_timeout(Duration::from_secs(30))
        .expect("the drop still waits after 30 s");
}
