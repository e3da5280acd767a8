//! Producers with nothing in flight give their polling thread back and share one; a send gives
//! a producer a thread again. Its own test binary, so the threads it counts are its own. Needs
//! a broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;
use support::{bootstrap, unique, wait_until};

/// The threads of this process with the given name.
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim_end() == name)
        .count()
}

#[tokio::test]
async fn idle_producers_share_one_polling_thread_and_a_send_brings_a_thread_back() {
    const PRODUCERS: usize = 8;
    let topic = unique("idle-producers");
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("allow.auto.create.topics", "true");
    let record = OutgoingRecord {
        topic: &topic,
        value: Some(b"v"),
        ..Default::default()
    };
    let mut producers = Vec::new();
    for _ in 0..PRODUCERS {
        producers.push(AckingProducer::new(&config).unwrap());
    }

    for round in 0..2 {
        for (seq, (producer, _)) in producers.iter().enumerate() {
            producer.send(&record, seq).unwrap();
        }
        // While records are in flight, producers have threads of their own (at most one each).
        assert!(threads_named("producer poller") <= PRODUCERS);
        for (seq, (_, acks)) in producers.iter_mut().enumerate() {
            let ack = tokio::time::timeout(Duration::from_secs(30), acks.recv())
                .await
                .expect("an acknowledgement")
                .unwrap();
            assert_eq!(ack.seq, seq);
            assert!(ack.result.is_ok(), "round {round}: {:?}", ack.result);
        }
        wait_until(
            "every producer to give its thread back",
            Duration::from_secs(10),
            || producers.iter().all(|(p, _)| p.idle()) && threads_named("producer poller") == 0,
        )
        .await;
        assert_eq!(threads_named("idle producers"), 1);
    }

    // The shared thread still serves an idle producer: its statistics keep coming.
    let mut config = config.clone();
    config.set("statistics.interval.ms", "100");
    let (producer, mut acks) = AckingProducer::new(&config).unwrap();
    producer.send(&record, 0).unwrap();
    acks.recv().await.unwrap().result.unwrap();
    wait_until("the producer to be idle", Duration::from_secs(10), || {
        producer.idle()
    })
    .await;
    let before = producer.stats().reports().0.map(|r| r.at);
    wait_until(
        "a statistics report while idle",
        Duration::from_secs(10),
        || producer.stats().reports().0.map(|r| r.at) != before,
    )
    .await;
    assert!(producer.idle());
}
