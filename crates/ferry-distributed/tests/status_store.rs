//! The status topic's store against a real broker. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

use std::time::{Duration, Instant};

use ferry_distributed::stores::KafkaStatusStore;
use ferry_kafka::admin::{Admin, TopicSpec};
use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::{client_config, ClientSettings};
use ferry_runtime::status::{StatusStore, TopicStatus};

fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .expect("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with scripts/kafka start")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_s_own_topic_reset_shows_at_once_and_stays_after_its_tombstones_come_back() {
    let topic = format!(
        "status-reset-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let settings = ClientSettings::new().layer(vec![("bootstrap.servers".to_owned(), bootstrap())]);
    let consumer = client_config(ClientRole::Consumer, &settings, &[]).unwrap();
    let producer = client_config(ClientRole::Producer, &settings, &[]).unwrap();
    Admin::new(&producer)
        .unwrap()
        .create_topic(&TopicSpec {
            name: topic.clone(),
            partitions: 1,
            replication_factor: 1,
            configs: vec![("cleanup.policy".to_owned(), "compact".to_owned())],
        })
        .await
        .unwrap();
    let store = KafkaStatusStore::start(
        &topic,
        &consumer,
        &producer,
        "worker-1".to_owned(),
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    for name in ["topic-a", "topic-b"] {
        store.put_topic(TopicStatus {
            topic: name.to_owned(),
            connector: "sink".to_owned(),
            task: 0,
            discover_timestamp: 1,
        });
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while store.topics("sink").len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the topic records never came back"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    store.reset_topics("sink");
    assert!(
        store.topics("sink").is_empty(),
        "{:?}",
        store.topics("sink")
    );

    // Once the store has read its own tombstones back, the topics are still gone.
    let resets = store.topic_resets();
    let deadline = Instant::now() + Duration::from_secs(30);
    while store.topic_resets() < resets + 2 {
        assert!(Instant::now() < deadline, "the tombstones never came back");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        store.topics("sink").is_empty(),
        "{:?}",
        store.topics("sink")
    );
}
