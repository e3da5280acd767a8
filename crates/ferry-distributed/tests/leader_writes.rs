//! KIP-618's fencable leader (`exactly.once.source.support` preparing or enabled): the leader
//! writes the config topic through a transactional producer whose id every leader of the group
//! shares, so a newer leader fences out the writes of an older one. Needs a broker.
#![cfg(feature = "kafka-integration-tests")]

use std::time::Duration;

use ferry_distributed::stores::leader_writer::{leader_transactional_id, LeaderWriter};
use ferry_distributed::stores::{KafkaConfigStore, StoreError};
use ferry_kafka::admin::{Admin, TopicSpec};
use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::{client_config, ClientSettings};

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

fn client(role: ClientRole, id: &str) -> ClientConfig {
    let settings = ClientSettings::new().layer(vec![("bootstrap.servers".to_owned(), bootstrap())]);
    let mut config = client_config(role, &settings, &[]).unwrap();
    config.set("client.id", id);
    config
}

/// A worker's config store; with `group`, its privileged writes go through the leader writer.
async fn store(topic: &str, worker: &str, group: Option<&str>) -> KafkaConfigStore {
    let producer = client(ClientRole::Producer, &format!("{worker}-configs"));
    let (store, _events) = KafkaConfigStore::start(
        topic,
        &client(ClientRole::Consumer, &format!("{worker}-configs")),
        &producer,
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    match group {
        Some(group) => store.with_leader_writer(LeaderWriter::new(topic, group, &producer)),
        None => store,
    }
}

fn config(name: &str) -> ferry_api::ConfigMap {
    [
        ("name", name),
        ("connector.class", "FileStreamSource"),
        ("topic", "t"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_newer_leader_fences_out_the_config_writes_of_an_older_one() {
    let topic = unique("leader-writes");
    let group = unique("leader-group");
    assert_eq!(
        leader_transactional_id(&group),
        format!("connect-cluster-{group}"),
        "Java's id, shared with Java leaders"
    );
    Admin::new(&client(ClientRole::Admin, "leader-writes-admin"))
        .unwrap()
        .create_topic(&TopicSpec {
            name: topic.clone(),
            partitions: 1,
            replication_factor: 1,
            configs: vec![],
        })
        .await
        .unwrap();
    let old = store(&topic, "old", Some(&group)).await;
    let new = store(&topic, "new", Some(&group)).await;

    let unclaimed = old
        .put_connector_config("early", config("early"), None)
        .await;
    assert!(
        matches!(unclaimed, Err(StoreError::Fenced(_))),
        "a leader writes only after claiming: {unclaimed:?}"
    );
    old.claim_write_privileges().await.unwrap();
    old.put_connector_config("first", config("first"), None)
        .await
        .unwrap();

    new.claim_write_privileges().await.unwrap();
    let zombie = old
        .put_connector_config("zombie", config("zombie"), None)
        .await;
    assert!(
        matches!(zombie, Err(StoreError::Fenced(_))),
        "the older leader is fenced out: {zombie:?}"
    );
    tokio::time::timeout(Duration::from_secs(5), old.fenced())
        .await
        .expect("a fenced write wakes the herder's loop");
    new.put_connector_config("second", config("second"), None)
        .await
        .unwrap();
    new.put_task_configs("second", vec![config("second")])
        .await
        .unwrap();

    // A worker that reads the topic afterwards (read_committed, as Java's with exactly-once
    // enabled) sees the leaders' writes and nothing of the zombie's.
    let reader = store(&topic, "reader", None).await;
    assert_eq!(reader.snapshot().connectors(), ["first", "second"]);
    assert_eq!(reader.snapshot().tasks("second").len(), 1);

    // The old worker leads again: it claims once more, and the other is fenced in turn.
    old.claim_write_privileges().await.unwrap();
    old.remove_connector("first").await.unwrap();
    assert!(matches!(
        new.remove_connector("second").await,
        Err(StoreError::Fenced(_))
    ));
    reader.read_to_end(Duration::from_secs(30)).await.unwrap();
    assert_eq!(reader.snapshot().connectors(), ["second"]);
}
