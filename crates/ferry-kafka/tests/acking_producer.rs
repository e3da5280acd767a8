//! The acking producer against a real broker: acknowledgements, and its poller, which sleeps
//! while nothing is in flight and must wake up for the next send. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::{Duration, Instant};

use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;
use support::{bootstrap, unique, wait_until};

/// A producer of the test broker that creates the topics it writes to.
fn producer() -> (
    AckingProducer,
    tokio::sync::mpsc::UnboundedReceiver<ferry_kafka::producer::Ack>,
) {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("allow.auto.create.topics", "true");
    AckingProducer::new(&config).unwrap()
}

#[tokio::test]
async fn a_send_wakes_the_sleeping_poller_and_its_acknowledgement_comes_at_once() {
    let topic = unique("acking");
    let (producer, mut acks) = producer();
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
    // librdkafka counts a record as queued until its delivery callback returns, and the
    // callback is what sends the acknowledgement, so the count drops just after the ack.
    wait_until(
        "nothing queued or in flight",
        Duration::from_secs(5),
        || producer.in_flight() == 0,
    )
    .await;
}

#[tokio::test]
async fn an_internal_topic_s_writer_sleeps_while_idle_and_wakes_for_each_write() {
    use ferry_kafka::admin::{Admin, TopicSpec};
    use ferry_kafka::topic_log::{LogRecord, TopicLog};
    use std::sync::{Arc, Mutex};

    let topic = unique("topic-log");
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    Admin::new(&config)
        .unwrap()
        .create_topic(&TopicSpec {
            name: topic.clone(),
            partitions: 1,
            replication_factor: 1,
            configs: Vec::new(),
        })
        .await
        .unwrap();
    let seen: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let sink = seen.clone();
    let log = TopicLog::start(
        &topic,
        &config,
        &config,
        Box::new(move |r: LogRecord| sink.lock().unwrap().push(r.value.unwrap_or_default())),
    )
    .unwrap();
    for i in 0..3u8 {
        wait_until(
            "the writer's poller to sleep",
            Duration::from_secs(10),
            || log.writer_idle(),
        )
        .await;
        let sent = Instant::now();
        log.send(b"key", Some(&[i])).await.unwrap();
        // A poller left asleep would look again only after a second.
        assert!(
            sent.elapsed() < Duration::from_millis(900),
            "write {i} acknowledged {:?} after the send",
            sent.elapsed()
        );
    }
    log.read_to_end(Duration::from_secs(30)).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![vec![0], vec![1], vec![2]]);
}

/// Reads `count` records of partition 0 of `topic` from its start.
fn read_partition_zero(
    topic: &str,
    count: usize,
) -> Vec<ferry_kafka::rdkafka::message::OwnedMessage> {
    use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
    use ferry_kafka::rdkafka::{Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("acking-reader"))
        .create()
        .unwrap();
    let mut assignment = TopicPartitionList::new();
    assignment
        .add_partition_offset(topic, 0, Offset::Beginning)
        .unwrap();
    consumer.assign(&assignment).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut read = Vec::new();
    while read.len() < count {
        assert!(
            Instant::now() < deadline,
            "read {} of {count} records of {topic}",
            read.len()
        );
        if let Some(message) = consumer.poll(Duration::from_millis(100)) {
            read.push(message.unwrap().detach());
        }
    }
    read
}

#[tokio::test]
async fn records_keep_their_key_headers_timestamp_and_partition_across_topics() {
    use ferry_kafka::rdkafka::message::Headers;
    use ferry_kafka::rdkafka::{Message, Timestamp};
    let topics = [unique("acking-a"), unique("acking-b")];
    let (producer, mut acks) = producer();
    // Alternating topics: every record changes the producer's current topic.
    for seq in 0..6 {
        let key = format!("key-{seq}");
        let value = format!("value-{seq}");
        let record = OutgoingRecord {
            topic: &topics[seq % 2],
            partition: Some(0),
            key: Some(key.as_bytes()),
            value: (seq != 4).then_some(value.as_bytes()),
            timestamp: Some(1_700_000_000_000 + seq as i64),
            headers: vec![("origin", Some(b"ferry".as_slice())), ("empty", None)],
        };
        producer.send(&record, seq).unwrap();
    }
    for _ in 0..6 {
        let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
            .await
            .expect("an acknowledgement")
            .unwrap();
        assert!(ack.result.is_ok(), "{:?}", ack.result);
        assert_eq!(ack.topic, None);
    }
    for (t, topic) in topics.iter().enumerate() {
        let read = read_partition_zero(topic, 3);
        for (i, message) in read.iter().enumerate() {
            let seq = t + 2 * i;
            assert_eq!(message.key(), Some(format!("key-{seq}").as_bytes()));
            let value = format!("value-{seq}");
            assert_eq!(
                message.payload(),
                (seq != 4).then_some(value.as_bytes()),
                "seq {seq}"
            );
            assert_eq!(
                message.timestamp(),
                Timestamp::CreateTime(1_700_000_000_000 + seq as i64)
            );
            let headers = message.headers().expect("headers");
            assert_eq!(headers.count(), 2);
            assert_eq!(headers.get(0).key, "origin");
            assert_eq!(headers.get(0).value, Some(b"ferry".as_slice()));
            assert_eq!(headers.get(1).key, "empty");
            assert_eq!(headers.get(1).value, None);
        }
    }
}

#[tokio::test]
async fn a_record_that_cannot_be_delivered_is_reported_with_its_topic() {
    let topic = unique("acking-missing-partition");
    let (producer, mut acks) = producer();
    // The topic is new, so the producer learns only later that it has no partition 7.
    let record = OutgoingRecord {
        topic: &topic,
        partition: Some(7),
        value: Some(b"lost"),
        ..Default::default()
    };
    producer.send(&record, 42).unwrap();
    let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
        .await
        .expect("a delivery report")
        .unwrap();
    assert_eq!(ack.seq, 42);
    assert!(ack.result.is_err(), "{:?}", ack.result);
    assert_eq!(ack.topic.as_deref(), Some(topic.as_str()));
    // A topic name librdkafka cannot take fails the send itself.
    let bad = OutgoingRecord {
        topic: "bad\0name",
        value: Some(b"x"),
        ..Default::default()
    };
    assert!(matches!(
        producer.send(&bad, 43),
        Err(ferry_kafka::producer::SendError::Fatal(_))
    ));
}

/// The sequence numbers of the next `count` acknowledgements, in order, each a delivery.
async fn delivered_seqs(
    acks: &mut tokio::sync::mpsc::UnboundedReceiver<ferry_kafka::producer::Ack>,
    count: usize,
) -> Vec<usize> {
    let mut seqs = Vec::new();
    for _ in 0..count {
        let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
            .await
            .expect("an acknowledgement")
            .unwrap();
        assert!(ack.result.is_ok(), "{:?}", ack.result);
        seqs.push(ack.seq);
    }
    seqs.sort_unstable();
    seqs
}

#[tokio::test]
async fn a_batch_keeps_each_record_s_key_value_and_partition_and_acknowledges_each_seq() {
    use ferry_kafka::producer::BatchRecord;
    use ferry_kafka::rdkafka::{Message, Timestamp};
    let topic = unique("acking-batch");
    let (producer, mut acks) = producer();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // Partition 0 named or left to the partitioner (the topic has one); a null key and value.
    let records: Vec<BatchRecord> = (0..6)
        .map(|i| BatchRecord {
            partition: (i % 2 == 0).then_some(0),
            key: (i != 3).then(|| format!("key-{i}").into_bytes()),
            value: (i != 4).then(|| format!("value-{i}").into_bytes()),
            seq: 100 + i,
        })
        .collect();
    producer.send_batch(&topic, &records).unwrap();
    let seqs = delivered_seqs(&mut acks, records.len()).await;
    assert_eq!(seqs, [100, 101, 102, 103, 104, 105]);
    let read = read_partition_zero(&topic, records.len());
    for (record, message) in records.iter().zip(&read) {
        assert_eq!(message.key(), record.key.as_deref(), "seq {}", record.seq);
        assert_eq!(
            message.payload(),
            record.value.as_deref(),
            "seq {}",
            record.seq
        );
        match message.timestamp() {
            Timestamp::CreateTime(at) => assert!(at >= before, "{at} < {before}"),
            other => panic!("the time of sending as a create time, not {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_full_queue_refuses_the_rest_of_a_batch_and_queues_what_fits() {
    use ferry_kafka::producer::{BatchError, BatchRecord, SendError};
    let topic = unique("acking-batch-full");
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("allow.auto.create.topics", "true")
        .set("queue.buffering.max.messages", "3");
    let (producer, mut acks) = AckingProducer::new(&config).unwrap();
    let records: Vec<BatchRecord> = (0..5)
        .map(|seq| BatchRecord {
            value: Some(format!("value-{seq}").into_bytes()),
            seq,
            ..Default::default()
        })
        .collect();
    match producer.send_batch(&topic, &records) {
        Err(BatchError {
            index: 3,
            error: SendError::QueueFull,
        }) => {}
        other => panic!("the fourth record finds the queue full, not {other:?}"),
    }
    let seqs = delivered_seqs(&mut acks, 3).await;
    assert_eq!(seqs, [0, 1, 2], "exactly the records that fit were queued");
    wait_until("the queue drained", Duration::from_secs(30), || {
        producer.in_flight() == 0
    })
    .await;
    producer.send_batch(&topic, &records[3..]).unwrap();
    assert_eq!(delivered_seqs(&mut acks, 2).await, [3, 4]);
    let read = read_partition_zero(&topic, 5);
    let values: Vec<_> = read
        .iter()
        .map(|m| {
            String::from_utf8_lossy(ferry_kafka::rdkafka::Message::payload(m).unwrap()).into_owned()
        })
        .collect();
    assert_eq!(
        values,
        ["value-0", "value-1", "value-2", "value-3", "value-4"]
    );
    // A topic name librdkafka cannot take fails the first record, and queues none.
    match producer.send_batch("bad\0name", &records[..1]) {
        Err(BatchError {
            index: 0,
            error: SendError::Fatal(_),
        }) => {}
        other => panic!("a fatal error, not {other:?}"),
    }
    // The refused records were never counted as awaiting acknowledgement: the poller, which
    // keeps its thread while any is, goes back to sleep.
    wait_until("the poller asleep", Duration::from_secs(30), || {
        producer.idle()
    })
    .await;
}
