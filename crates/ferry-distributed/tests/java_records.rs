//! Records written by a real Java Connect 4.1.1 worker (`testdata/java-topics/`): Ferry writes the
//! same offset keys, and (with a broker) puts every key in the partition Java chose.

use std::path::PathBuf;

use ferry_api::data::Value;
use ferry_api::record::OffsetMap;
use ferry_runtime::storage::offset_codec::{decode_key, decode_offset, encode_key};

struct Line {
    #[cfg_attr(not(feature = "kafka-integration-tests"), allow(dead_code))]
    partition: i32,
    key: String,
    value: Option<String>,
}

fn read(name: &str) -> Vec<Line> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/java-topics")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Line {
                partition: i32::try_from(v["partition"].as_i64().unwrap()).unwrap(),
                key: v["key"].as_str().unwrap().to_owned(),
                value: v["value"].as_str().map(str::to_owned),
            }
        })
        .collect()
}

#[test]
fn offset_keys_written_by_java_are_the_bytes_ferry_writes() {
    let lines = read("offsets.jsonl");
    assert!(!lines.is_empty());
    for line in &lines {
        let (connector, partition) =
            decode_key(line.key.as_bytes()).expect("a [connector, partition] key");
        assert_eq!(connector, "file-src");
        // Looking the partition up again must produce Java's exact key bytes.
        assert_eq!(
            encode_key(&connector, &partition).unwrap(),
            line.key.as_bytes(),
            "key bytes differ"
        );
    }
    // The last record for the key wins: position 31.
    let last = lines.last().unwrap().value.as_deref().unwrap();
    let offset = decode_offset(last.as_bytes()).unwrap();
    let mut want = OffsetMap::new();
    want.insert("position".to_owned(), Value::Int64(31));
    assert_eq!(offset, want);
}

/// Every key of Java's status and offsets topics (5 partitions each), written by Ferry's
/// internal-topic writer into a fresh 5-partition topic, lands in the partition Java used.
#[cfg(feature = "kafka-integration-tests")]
#[tokio::test(flavor = "multi_thread")]
async fn internal_topic_keys_land_in_javas_partitions() {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use ferry_kafka::admin::{Admin, TopicSpec};
    use ferry_kafka::rdkafka::ClientConfig;
    use ferry_kafka::topic_log::{LogRecord, TopicLog};

    let bootstrap = std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .expect("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with scripts/kafka start");
    let mut client = ClientConfig::new();
    client.set("bootstrap.servers", &bootstrap);
    let topic = format!(
        "java-partitions-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    Admin::new(&client)
        .unwrap()
        .create_topic(&TopicSpec {
            name: topic.clone(),
            partitions: 5,
            replication_factor: 1,
            configs: vec![],
        })
        .await
        .unwrap();
    let mut producer = ferry_kafka::client_config(
        ferry_kafka::client_properties::ClientRole::Producer,
        &ferry_kafka::ClientSettings::new()
            .layer(vec![("bootstrap.servers".to_owned(), bootstrap.clone())]),
        &[],
    )
    .unwrap();
    producer.set("client.id", "java-partitions");
    let seen: Arc<Mutex<Vec<(String, i32)>>> = Arc::default();
    let sink = seen.clone();
    let log = TopicLog::start(
        &topic,
        &client,
        &producer,
        Box::new(move |r: LogRecord| {
            let key = String::from_utf8(r.key.unwrap_or_default()).unwrap();
            sink.lock().unwrap().push((key, r.partition));
        }),
    )
    .unwrap();
    let mut expected = Vec::new();
    for line in read("status.jsonl")
        .into_iter()
        .chain(read("offsets.jsonl"))
    {
        log.send(line.key.as_bytes(), Some(b"x")).await.unwrap();
        expected.push((line.key, line.partition));
    }
    log.read_to_end(Duration::from_secs(30)).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), expected.len());
    for (key, partition) in &expected {
        assert!(
            seen.contains(&(key.clone(), *partition)),
            "{key} should be in partition {partition}, as Java put it; Ferry's records: {seen:?}"
        );
    }
    let distinct: std::collections::BTreeSet<i32> = expected.iter().map(|(_, p)| *p).collect();
    assert!(
        distinct.len() > 1,
        "the fixture should spread over partitions: {distinct:?}"
    );
}
