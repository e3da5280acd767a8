//! The acking producer against a real broker: acknowledgements, and its poller, which sleeps
//! while nothing is in flight and must wake up for the next send. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::{Duration, Instant};

use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;
use support::{bootstrap, unique, wait_until};

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
