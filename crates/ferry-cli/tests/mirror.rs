//! MirrorMaker 2 replicating from a second broker (the source cluster) to the main one: Ferry's
//! native connectors side by side with Kafka's (the connect-mirror jar, on Java Connect and on
//! Ferry's plugin host with `ferry.plugin.preference=plugin.path`).
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use ferry_kafka::rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use ferry_kafka::rdkafka::message::Message;
use ferry_kafka::rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use ferry_kafka::rdkafka::{ClientConfig, Offset, TopicPartitionList};
use support::*;

const SLOW: Duration = Duration::from_secs(120);

/// The source cluster's address (scripts/test starts it and names it in FERRY_KAFKA_B).
fn source_cluster() -> String {
    std::env::var("FERRY_KAFKA_B").expect(
        "FERRY_KAFKA_B must name a second broker: KAFKA_PORT=9292 FERRY_STATE=tmp/kafka-2 scripts/kafka start (scripts/test does)",
    )
}

fn mirror_plugin_path() -> String {
    std::env::var("FERRY_MIRROR_PLUGIN_PATH").expect(
        "FERRY_MIRROR_PLUGIN_PATH must name the plugin.path `scripts/plugins fetch mirror` prints (scripts/test sets it)",
    )
}

fn client(bootstrap: &str) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", bootstrap);
    c
}

/// Every record of `topic` on `bootstrap`: (partition, key, value).
fn read(bootstrap: &str, topic: &str, count: usize) -> Vec<(i32, String, String)> {
    let consumer: BaseConsumer = client(bootstrap)
        .set("group.id", unique("mirror-reader"))
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while out.len() < count && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            out.push((m.partition(), text(m.key()), text(m.payload())));
        }
    }
    out
}

fn partitions(bootstrap: &str, topic: &str) -> usize {
    let consumer: BaseConsumer = client(bootstrap).create().unwrap();
    consumer
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .ok()
        .and_then(|m| m.topics().first().map(|t| t.partitions().len()))
        .unwrap_or(0)
}

#[test]
fn mirror_maker_2_replicates_topics_emits_heartbeats_and_checkpoints_and_syncs_group_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (source, target) = (source_cluster(), bootstrap());
    let topic = unique("orders");
    let group = unique("billing");

    // The source cluster: a topic of three partitions, 300 keyed records, and a consumer group
    // that has read the first 100 records of each partition.
    let admin = ferry_kafka::admin::Admin::new(&client(&source)).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // The internal topics named after the aliases, as on a cluster MirrorMaker never ran on,
    // so that the checkpoint task starts before the offset-syncs topic exists.
    delete_topics(
        &runtime,
        &source,
        &[
            "mm2-offset-syncs.dst.internal",
            "mm2-offset-syncs.dstj.internal",
        ],
    );
    delete_topics(
        &runtime,
        &target,
        &["src.checkpoints.internal", "srcj.checkpoints.internal"],
    );
    runtime
        .block_on(admin.create_topic(&ferry_kafka::admin::TopicSpec {
            name: topic.clone(),
            partitions: 3,
            replication_factor: 1,
            configs: vec![("retention.ms".to_owned(), "3600000".to_owned())],
        }))
        .unwrap();
    let producer: BaseProducer = client(&source).create().unwrap();
    for i in 0..300 {
        let (key, value) = (format!("k{i}"), format!("v{i}"));
        producer
            .send(
                BaseRecord::to(&topic)
                    .partition(i % 3)
                    .key(&key)
                    .payload(&value),
            )
            .unwrap();
    }
    producer.flush(Duration::from_secs(30)).unwrap();
    let committer: BaseConsumer = client(&source).set("group.id", &group).create().unwrap();
    let mut offsets = TopicPartitionList::new();
    for p in 0..3 {
        offsets
            .add_partition_offset(&topic, p, Offset::Offset(100))
            .unwrap();
    }
    committer.commit(&offsets, CommitMode::Sync).unwrap();

    // Ferry with the three connectors, configured as Kafka's documentation configures them
    // for a Connect cluster (source and target aliases, the clusters' addresses).
    let port = port();
    let worker = dir.path().join("worker.properties");
    write_file(
        &worker,
        &format!(
            "bootstrap.servers={target}\n\
             key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
             value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
             offset.storage.file.filename={}\noffset.flush.interval.ms=1000\n\
             listeners=http://127.0.0.1:{port}\nplugin.path={}\n",
            dir.path().join("connect.offsets").display(),
            mirror_plugin_path()
        ),
    );
    let common = format!(
        "source.cluster.alias=src\ntarget.cluster.alias=dst\n\
         source.cluster.bootstrap.servers={source}\ntarget.cluster.bootstrap.servers={target}\n\
         replication.factor=1\noffset-syncs.topic.replication.factor=1\n\
         checkpoints.topic.replication.factor=1\nheartbeats.topic.replication.factor=1\n\
         sync.topic.acls.enabled=false\n"
    );
    let name = unique("mm2");
    let connectors = [
        connector_file(
            dir.path(),
            &format!("{name}-source"),
            &format!(
                "connector.class=org.apache.kafka.connect.mirror.MirrorSourceConnector\n{common}\
                 topics={topic}\nrefresh.topics.interval.seconds=2\n"
            ),
        ),
        connector_file(
            dir.path(),
            &format!("{name}-checkpoint"),
            &format!(
                "connector.class=org.apache.kafka.connect.mirror.MirrorCheckpointConnector\n{common}\
                 groups={group}\nemit.checkpoints.interval.seconds=1\n\
                 sync.group.offsets.enabled=true\nsync.group.offsets.interval.seconds=1\n\
                 refresh.groups.interval.seconds=2\n"
            ),
        ),
        connector_file(
            dir.path(),
            &format!("{name}-heartbeat"),
            &format!(
                "connector.class=org.apache.kafka.connect.mirror.MirrorHeartbeatConnector\n{common}\
                 emit.heartbeats.interval.seconds=1\n"
            ),
        ),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    // Ferry's own connectors, though Kafka's jar is on plugin.path: each one's scheduler
    // thread names it in the log.
    for connector in ["source", "checkpoint", "heartbeat"] {
        wait_until(&format!("the native {connector} connector"), SLOW, || {
            ferry.log_text().contains(&format!(
                "mirror_scheduler{{connector=src->dst|{name}-{connector}}}"
            ))
        });
    }

    // DefaultReplicationPolicy: `src.<topic>`, with the source's partitions and records, each
    // in the partition it had.
    let remote = format!("src.{topic}");
    wait_until("the replicated records", SLOW, || {
        topic_records(&remote) == 300
    });
    assert_eq!(partitions(&target, &remote), 3);
    let mut got = read(&target, &remote, 300);
    got.sort();
    let mut expected: Vec<(i32, String, String)> = (0..300)
        .map(|i: i32| (i % 3, format!("k{i}"), format!("v{i}")))
        .collect();
    expected.sort();
    assert_eq!(got, expected);

    // Heartbeats on the target, and checkpoints of the group.
    wait_until("heartbeats", SLOW, || topic_records("heartbeats") > 0);
    // The checkpoints topic outlives a run on the same broker: wait for this group's own.
    wait_until("checkpoints of the group for every partition", SLOW, || {
        topic_records("src.checkpoints.internal") > 0
            && latest_checkpoints(&target, "src.checkpoints.internal", &group).len() == 3
    });
    // The group's offsets, translated to the replica and committed on the target cluster.
    let target_group: BaseConsumer = client(&target).set("group.id", &group).create().unwrap();
    // The first checkpoints may translate through the first records' syncs only (to 1); once
    // the syncs of the last records are in, the group's offset 100 translates to 100 on the
    // replica, and no checkpoint goes past the source offset.
    let caught_up: BTreeMap<i32, Offset> = (0..3).map(|p| (p, Offset::Offset(100))).collect();
    wait_until(
        "the group's offsets synced to the replica's end",
        SLOW,
        || synced_offsets(&target_group, &remote) == caught_up,
    );
    let synced = caught_up;
    for connector in ["source", "checkpoint", "heartbeat"] {
        let status = ferry.status(&format!("{name}-{connector}"));
        assert_eq!(status["connector"]["state"], "RUNNING", "{status}");
        assert!(
            status["tasks"]
                .as_array()
                .is_some_and(|t| !t.is_empty() && t.iter().all(|t| t["state"] == "RUNNING")),
            "{status}"
        );
    }
    // The source topic's config is replicated too.
    let ferry_config = topic_config(&runtime, &target, &remote, "retention.ms");
    assert_eq!(ferry_config.as_deref(), Some("3600000"));
    // The replication metrics, named as Strimzi's rules name Java's MBeans: per replicated
    // partition every record and its value's bytes, and a checkpoint latency per partition of
    // the group.
    let value_bytes = |p: i32| -> f64 {
        (0..300)
            .filter(|i| i % 3 == p)
            .map(|i| format!("v{i}").len() as f64)
            .sum()
    };
    wait_until("Ferry's record counts", SLOW, || {
        let series = mirror_series(&scrape(port), &topic, "src", "dst");
        (0..3).all(|p| {
            series.get(&source_series("record_count", p)) == Some(&100.0)
                && series.get(&source_series("byte_count", p)) == Some(&value_bytes(p))
        })
    });
    let ferry_metrics = scrape(port);
    let ferry_series = mirror_series(&ferry_metrics, &topic, "src", "dst");
    // 12 source attributes and 4 checkpoint ones, for each of the 3 partitions.
    assert_eq!(ferry_series.len(), 48, "{ferry_series:?}");
    for p in 0..3 {
        let latency = ferry_series[&source_series("replication_latency_ms_max", p)];
        assert!((0.0..600_000.0).contains(&latency), "{latency}");
        assert!(ferry_series[&source_series("record_age_ms_avg", p)] >= 0.0);
        let checkpoint = ferry_series[&checkpoint_series("checkpoint_latency_ms", &group, p)];
        assert!(checkpoint >= 0.0, "{checkpoint}");
    }
    ferry.stop();

    // The same three connectors on Java Connect (which has connect-mirror on its class
    // path), as `srcj -> dstj` so that none of their topics collides with Ferry's.
    let java_common = common
        .replace("source.cluster.alias=src", "source.cluster.alias=srcj")
        .replace("target.cluster.alias=dst", "target.cluster.alias=dstj");
    let java_port = support::port();
    let java_worker = dir.path().join("java-worker.properties");
    write_file(
        &java_worker,
        &format!(
            "bootstrap.servers={target}\n\
             key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
             value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
             offset.storage.file.filename={}\noffset.flush.interval.ms=1000\n\
             listeners=http://127.0.0.1:{java_port}\n",
            dir.path().join("java.offsets").display()
        ),
    );
    let java_connectors: Vec<_> = connectors
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file)
                .unwrap()
                .replace(&common, &java_common)
                .replace(&format!("name={name}-"), &format!("name={name}-java-"));
            let path = file.with_file_name(format!(
                "java-{}",
                file.file_name().unwrap().to_string_lossy()
            ));
            write_file(&path, &text);
            path
        })
        .collect();
    let java_metrics_port = support::port();
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/jmx-exporter-mirror-maker-2.yml");
    let java = java_standalone_worker_with_exporter(
        dir.path(),
        java_port,
        &java_worker,
        &java_connectors,
        &rules,
        java_metrics_port,
    );
    let java_remote = format!("srcj.{topic}");
    wait_until("Java's replicated records", SLOW, || {
        topic_records(&java_remote) == 300
    });
    assert_eq!(partitions(&target, &java_remote), 3);
    let mut java_got = read(&target, &java_remote, 300);
    java_got.sort();
    assert_eq!(java_got, got, "the same records in the same partitions");
    assert_eq!(
        topic_config(&runtime, &target, &java_remote, "retention.ms"),
        ferry_config,
        "the source topic's config replicated alike"
    );
    wait_until("Java's checkpoints", SLOW, || {
        topic_records("srcj.checkpoints.internal") > 0
            && latest_checkpoints(&target, "srcj.checkpoints.internal", &group).len() == 3
    });
    // Java's translation catches up the same way, to the same offsets.
    wait_until("Java's synced offsets equal to Ferry's", SLOW, || {
        synced_offsets(&target_group, &java_remote) == synced
    });
    // The checkpoints themselves, record for record once both have caught up.
    let ours = latest_checkpoints(&target, "src.checkpoints.internal", &group);
    assert_eq!(ours.len(), 3, "{ours:?}");
    let theirs = || -> BTreeMap<_, _> {
        latest_checkpoints(&target, "srcj.checkpoints.internal", &group)
            .into_iter()
            .map(|((topic, p), c)| ((topic.replacen("srcj.", "src.", 1), p), c))
            .collect()
    };
    wait_until("Java's checkpoints equal to Ferry's", SLOW, || {
        theirs() == ours
    });
    // Java's metrics: the same series (names, labels, types), and the same counts.
    wait_until("Java's record counts equal to Ferry's", SLOW, || {
        let series = mirror_series(&scrape(java_metrics_port), &topic, "srcj", "dstj");
        (0..3).all(|p| {
            ["record_count", "byte_count"].iter().all(|name| {
                let key = source_series(name, p);
                series.get(&key) == ferry_series.get(&key)
            })
        })
    });
    let java_metrics = scrape(java_metrics_port);
    let java_series = mirror_series(&java_metrics, &topic, "srcj", "dstj");
    assert_eq!(
        java_series.keys().collect::<Vec<_>>(),
        ferry_series.keys().collect::<Vec<_>>(),
        "the same MirrorMaker series"
    );
    for (name, _) in java_series.keys() {
        assert_eq!(
            family_type(&java_metrics, name),
            family_type(&ferry_metrics, name),
            "{name}"
        );
    }
    java.terminate();
}

/// A series of one of the test's replicated partitions: its family and its labels.
type Series = (String, Vec<(String, String)>);

fn source_series(attribute: &str, partition: i32) -> Series {
    (
        format!("kafka_connect_mirror_mirrorsourceconnector_{attribute}"),
        vec![
            ("partition".into(), partition.to_string()),
            ("source".into(), "src".into()),
            ("target".into(), "dst".into()),
            ("topic".into(), "src.TOPIC".into()),
        ],
    )
}

fn checkpoint_series(attribute: &str, group: &str, partition: i32) -> Series {
    (
        format!("kafka_connect_mirror_mirrorcheckpointconnector_{attribute}"),
        vec![
            ("group".into(), group.to_owned()),
            ("partition".into(), partition.to_string()),
            ("source".into(), "src".into()),
            ("target".into(), "dst".into()),
            ("topic".into(), "src.TOPIC".into()),
        ],
    )
}

/// The `kafka_connect_mirror_*` samples of a scrape for the replica of `topic` replicated
/// `source -> target`, labels sorted, with the aliases written `src` and `dst` and the topic
/// `TOPIC`, so two runs under other aliases compare.
fn mirror_series(text: &str, topic: &str, source: &str, target: &str) -> BTreeMap<Series, f64> {
    let remote = format!("{source}.{topic}");
    let mut out = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| l.starts_with("kafka_connect_mirror_"))
    {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let Some((name, labels)) = series.split_once('{') else {
            continue;
        };
        let mut labels: Vec<(String, String)> = labels
            .trim_end_matches('}')
            .split("\",")
            .filter_map(|pair| pair.split_once("=\""))
            .map(|(k, v)| (k.to_owned(), v.trim_end_matches('"').to_owned()))
            .collect();
        let label = |key: &str| {
            labels
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        if label("topic").as_deref() != Some(remote.as_str())
            || label("source").as_deref() != Some(source)
            || label("target").as_deref() != Some(target)
        {
            continue;
        }
        for (k, v) in &mut labels {
            *v = match k.as_str() {
                "source" => "src".to_owned(),
                "target" => "dst".to_owned(),
                "topic" => "src.TOPIC".to_owned(),
                _ => v.clone(),
            };
        }
        labels.sort();
        out.insert((name.to_owned(), labels), value.parse().unwrap_or(f64::NAN));
    }
    out
}

/// The type a scrape's `# TYPE` line gives the family `name`.
fn family_type(text: &str, name: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("# TYPE {name} ")))
        .map(str::to_owned)
}

/// The last checkpoint of each downstream partition of `group` in `topic`: (upstream,
/// downstream, metadata), decoded as Java's `Checkpoint.deserializeRecord` does.
fn latest_checkpoints(
    bootstrap: &str,
    topic: &str,
    group: &str,
) -> BTreeMap<(String, i32), (i64, i64, String)> {
    let consumer: BaseConsumer = client(bootstrap)
        .set("group.id", unique("checkpoint-reader"))
        .create()
        .unwrap();
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, 0, Offset::Beginning)
        .unwrap();
    consumer.assign(&tpl).unwrap();
    let (_, end) = consumer
        .fetch_watermarks(topic, 0, Duration::from_secs(10))
        .unwrap();
    let mut latest = BTreeMap::new();
    let (mut position, deadline) = (0, std::time::Instant::now() + Duration::from_secs(30));
    while position < end && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            position = m.offset() + 1;
            let c = ferry_mirror::records::Checkpoint::read(
                m.key().unwrap_or_default(),
                m.payload().unwrap_or_default(),
            )
            .expect("a checkpoint as Java writes it");
            if c.group == group {
                latest.insert(
                    (c.topic, c.partition),
                    (c.upstream_offset, c.downstream_offset, c.metadata),
                );
            }
        }
    }
    latest
}

/// The offsets `group` has committed on the target for the three partitions of `replica`, once
/// the checkpoint connector has synced all of them.
fn synced_offsets(group: &BaseConsumer, replica: &str) -> BTreeMap<i32, Offset> {
    let mut partitions = TopicPartitionList::new();
    for p in 0..3 {
        partitions.add_partition(replica, p);
    }
    let mut synced = BTreeMap::new();
    wait_until(
        &format!("the group's offsets of {replica} synced"),
        SLOW,
        || {
            synced = group
                .committed_offsets(partitions.clone(), Duration::from_secs(10))
                .map(|tpl| {
                    tpl.elements()
                        .iter()
                        .map(|e| (e.partition(), e.offset()))
                        .collect()
                })
                .unwrap_or_default();
            synced.len() == 3 && synced.values().all(|o| matches!(o, Offset::Offset(_)))
        },
    );
    synced
}

/// One config value of `topic`, as the broker describes it.
fn topic_config(
    runtime: &tokio::runtime::Runtime,
    bootstrap: &str,
    topic: &str,
    key: &str,
) -> Option<String> {
    use ferry_kafka::rdkafka::admin::{AdminClient, AdminOptions, ResourceSpecifier};
    use ferry_kafka::rdkafka::client::DefaultClientContext;
    let admin: AdminClient<DefaultClientContext> = client(bootstrap).create().unwrap();
    let described = runtime
        .block_on(admin.describe_configs(&[ResourceSpecifier::Topic(topic)], &AdminOptions::new()))
        .unwrap();
    described
        .into_iter()
        .flatten()
        .flat_map(|r| r.entries)
        .find(|e| e.name == key)
        .and_then(|e| e.value)
}

/// Deletes `topics` on `bootstrap` if they exist, once the broker no longer lists them.
fn delete_topics(runtime: &tokio::runtime::Runtime, bootstrap: &str, topics: &[&str]) {
    use ferry_kafka::rdkafka::admin::{AdminClient, AdminOptions};
    use ferry_kafka::rdkafka::client::DefaultClientContext;
    let admin: AdminClient<DefaultClientContext> = client(bootstrap).create().unwrap();
    // A topic that does not exist answers an error per topic, which is what is wanted.
    runtime
        .block_on(admin.delete_topics(topics, &AdminOptions::new()))
        .unwrap();
    for topic in topics {
        wait_until(&format!("{topic} deleted"), SLOW, || {
            partitions(bootstrap, topic) == 0
        });
    }
}

/// Writes records `from..to` (`k<i>`/`v<i>`, partition `i % partitions`) to `topic` on `bootstrap`.
/// Records 2000..4000 of `topic` on two partitions, 100 every 50 ms, from another thread.
fn trickle_in(bootstrap: &str, topic: &str) -> std::thread::JoinHandle<()> {
    let (bootstrap, topic) = (bootstrap.to_owned(), topic.to_owned());
    std::thread::spawn(move || {
        for chunk in 0..20 {
            let from = 2000 + chunk * 100;
            produce(&bootstrap, &topic, from, from + 100, 2);
            std::thread::sleep(Duration::from_millis(50));
        }
    })
}

fn produce(bootstrap: &str, topic: &str, from: i32, to: i32, partitions: i32) {
    let producer: BaseProducer = client(bootstrap).create().unwrap();
    for i in from..to {
        let (key, value) = (format!("k{i}"), format!("v{i}"));
        producer
            .send(
                BaseRecord::to(topic)
                    .partition(i % partitions)
                    .key(&key)
                    .payload(&value),
            )
            .unwrap();
    }
    producer.flush(Duration::from_secs(30)).unwrap();
}

/// Every offset sync of `topic` in the offset-syncs topic on `bootstrap`: (partition, upstream,
/// downstream), decoded as Java's `OffsetSync.deserializeRecord` does.
fn offset_syncs(bootstrap: &str, syncs_topic: &str, topic: &str) -> Vec<(i32, i64, i64)> {
    let consumer: BaseConsumer = client(bootstrap)
        .set("group.id", unique("sync-reader"))
        .create()
        .unwrap();
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(syncs_topic, 0, Offset::Beginning)
        .unwrap();
    consumer.assign(&tpl).unwrap();
    let (_, end) = consumer
        .fetch_watermarks(syncs_topic, 0, Duration::from_secs(10))
        .unwrap();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut position = 0;
    while position < end && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            position = m.offset() + 1;
            let sync = ferry_mirror::records::OffsetSync::read(
                m.key().unwrap_or_default(),
                m.payload().unwrap_or_default(),
            )
            .expect("an offset sync as Java writes it");
            if sync.topic == topic {
                out.push((sync.partition, sync.upstream_offset, sync.downstream_offset));
            }
        }
    }
    out
}

/// A replication moved between Kafka's MirrorSourceConnector (the jar on plugin.path, with
/// `ferry.plugin.preference=plugin.path`) and Ferry's native one, twice, on the same offsets:
/// each side resumes where the other stopped, so every record is on the target exactly once,
/// in its partition and order, and every offset sync either side wrote maps an upstream offset
/// to the downstream offset its record really got.
#[test]
fn a_replication_moves_from_java_to_native_and_back_with_every_record_once() {
    let dir = tempfile::tempdir().unwrap();
    let (source, target) = (source_cluster(), bootstrap());
    let topic = unique("moves");
    create_topic_on(&source, &topic, 2);
    let alias = unique("mv");
    let connector = connector_file(
        dir.path(),
        &unique("mover"),
        &format!(
            "connector.class=MirrorSourceConnector\nsource.cluster.alias={alias}\n\
             source.cluster.bootstrap.servers={source}\ntarget.cluster.bootstrap.servers={target}\n\
             topics={topic}\nreplication.factor=1\noffset-syncs.topic.replication.factor=1\n\
             offset-syncs.topic.location=target\noffset.lag.max=10\nsync.topic.acls.enabled=false\n"
        ),
    );
    let remote = format!("{alias}.{topic}");
    let worker_props = |preference: &str| {
        let path = dir.path().join(format!("worker-{preference}.properties"));
        write_file(
            &path,
            &format!(
                "bootstrap.servers={target}\n\
                 key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
                 value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
                 offset.storage.file.filename={}\noffset.flush.interval.ms=500\n\
                 plugin.path={}\nferry.plugin.preference={preference}\n",
                dir.path().join("connect.offsets").display(),
                mirror_plugin_path()
            ),
        );
        path
    };
    // On the target, the offset-syncs topic is named after the source.
    let syncs_topic = format!("mm2-offset-syncs.{alias}.internal");
    let phases = [
        ("plugin.path", 0, 60),
        ("native", 60, 120),
        ("plugin.path", 120, 180),
    ];
    for (preference, from, to) in phases {
        produce(&source, &topic, from, to, 2);
        let port = port();
        let worker = worker_props(preference);
        let text = std::fs::read_to_string(&worker).unwrap();
        write_file(
            &worker,
            &format!("{text}listeners=http://127.0.0.1:{port}\n"),
        );
        let ferry = Ferry::start(dir.path(), port, &worker, std::slice::from_ref(&connector));
        wait_until(
            &format!("records up to {to} replicated ({preference})"),
            SLOW,
            || topic_records(&remote) >= i64::from(to),
        );
        // Java's task logs the same line through the plugin host, which names its logger. (How
        // many partitions it names depends on the heartbeat topics other tests left on the
        // shared source cluster, which MirrorSource replicates too.)
        let native = ferry.log_text().lines().any(|l| {
            l.contains(" replicating ")
                && l.contains(" topic-partitions ")
                && !l.contains("logger=")
        });
        assert_eq!(
            native,
            preference == "native",
            "which MirrorSourceConnector ran ({preference}); log:\n{}",
            ferry.log_text()
        );
        // Java's task writes its syncs only as the worker shows it acknowledged records (between
        // polls), so its phases wait for them; Ferry's also writes those of the records
        // acknowledged while it stops, so its phase stops at once.
        if preference == "plugin.path" {
            let phase = i64::from(from / 2);
            wait_until(&format!("the syncs of records {from}..{to}"), SLOW, || {
                let syncs = offset_syncs(&target, &syncs_topic, &topic);
                (0..2).all(|p| syncs.iter().any(|s| s.0 == p && s.1 >= phase))
            });
        }
        ferry.stop();
    }
    assert_eq!(topic_records(&remote), 180, "no record replicated twice");
    let mut got = read(&target, &remote, 180);
    got.sort();
    let mut expected: Vec<(i32, String, String)> = (0..180)
        .map(|i: i32| (i % 2, format!("k{i}"), format!("v{i}")))
        .collect();
    expected.sort();
    assert_eq!(got, expected);
    // The remote partitions started empty and got every record in order, so a true sync maps
    // each upstream offset to itself.
    let syncs = offset_syncs(&target, &syncs_topic, &topic);
    // Each phase replicated 30 records of each partition: upstream offsets 0-29, 30-59, 60-89.
    for phase in 0..3 {
        for partition in 0..2 {
            assert!(
                syncs
                    .iter()
                    .any(|s| s.0 == partition && s.1 / 30 == phase),
                "a sync of partition {partition} in phase {phase}: {syncs:?} ({} records in {syncs_topic})",
                topic_records(&syncs_topic)
            );
        }
    }
    for (partition, upstream, downstream) in &syncs {
        assert_eq!(upstream, downstream, "partition {partition}: {syncs:?}");
    }
}

/// `kill -9` of a worker while records stream in: restarted on the same offsets file, Ferry's
/// native MirrorSourceConnector resumes where the last stored offsets say, so every record
/// reaches the target (the few after the last stored offset twice, as Java's at-least-once
/// replication does) and none is lost.
#[test]
fn a_worker_killed_mid_replication_loses_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let (source, target) = (source_cluster(), bootstrap());
    let topic = unique("killed");
    create_topic_on(&source, &topic, 2);
    let alias = unique("k9");
    let remote = format!("{alias}.{topic}");
    let connector = connector_file(
        dir.path(),
        &unique("killed"),
        &format!(
            "connector.class=MirrorSource\nsource.cluster.alias={alias}\n\
             source.cluster.bootstrap.servers={source}\ntarget.cluster.bootstrap.servers={target}\n\
             topics={topic}\nreplication.factor=1\noffset-syncs.topic.replication.factor=1\n\
             sync.topic.acls.enabled=false\n"
        ),
    );
    let worker = |port: u16| {
        let path = dir.path().join(format!("worker-{port}.properties"));
        write_file(
            &path,
            &format!(
                "bootstrap.servers={target}\n\
                 key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
                 value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
                 offset.storage.file.filename={}\noffset.flush.interval.ms=200\n\
                 listeners=http://127.0.0.1:{port}\n",
                dir.path().join("connect.offsets").display()
            ),
        );
        path
    };
    produce(&source, &topic, 0, 2000, 2);
    let port = port();
    let ferry = Ferry::start(
        dir.path(),
        port,
        &worker(port),
        std::slice::from_ref(&connector),
    );
    wait_until("the first records replicated", SLOW, || {
        topic_records(&remote) >= 2000
    });
    // More records arrive while the worker dies.
    let trickle = trickle_in(&source, &topic);
    wait_until("records replicated while more arrive", SLOW, || {
        topic_records(&remote) >= 2300
    });
    ferry.kill9();
    trickle.join().unwrap();
    let port = support::port();
    let again = Ferry::start(dir.path(), port, &worker(port), &[connector]);
    wait_until("every record replicated after the restart", SLOW, || {
        topic_records(&remote) >= 4000
    });
    // Settle on a stable count, then check that every key is there.
    let mut last = -1;
    wait_until_every(
        "the replication to settle",
        SLOW,
        Duration::from_millis(500),
        || {
            let now = topic_records(&remote);
            let settled = now == last;
            last = now;
            settled
        },
    );
    let got = read(&target, &remote, usize::try_from(last).unwrap());
    let keys: std::collections::BTreeSet<&str> = got.iter().map(|(_, k, _)| k.as_str()).collect();
    assert_eq!(
        keys.len(),
        4000,
        "every record once at least ({} read)",
        got.len()
    );
    for (partition, key, value) in &got {
        let i: i32 = key[1..].parse().unwrap();
        assert_eq!(*partition, i % 2, "{key}");
        assert_eq!(value, &format!("v{i}"));
    }
    again.stop();
}

/// Whether one of the last 200 records of `heartbeats` on `bootstrap` is a heartbeat of
/// `source->target` (other tests' flows emit there too).
fn recent_heartbeat(bootstrap: &str, source: &str, target: &str) -> bool {
    let key = ferry_mirror::records::Heartbeat {
        source_cluster_alias: source.to_owned(),
        target_cluster_alias: target.to_owned(),
        timestamp: 0,
    }
    .key()
    .unwrap();
    let consumer: BaseConsumer = client(bootstrap)
        .set("group.id", unique("heartbeat-reader"))
        .create()
        .unwrap();
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset("heartbeats", 0, Offset::OffsetTail(200))
        .unwrap();
    consumer.assign(&tpl).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) if m.key() == Some(key.as_slice()) => return true,
            _ => {}
        }
    }
    false
}

/// Creates `topic` with `partitions` (replication factor 1) on `bootstrap`.
fn create_topic_on(bootstrap: &str, topic: &str, partitions: i32) {
    let admin = ferry_kafka::admin::Admin::new(&client(bootstrap)).unwrap();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(admin.create_topic(&ferry_kafka::admin::TopicSpec {
            name: topic.to_owned(),
            partitions,
            replication_factor: 1,
            configs: vec![],
        }))
        .unwrap();
}

/// Creates `topic` with `partitions` on `bootstrap` and writes `count` records to it.
fn topic_with_records(bootstrap: &str, topic: &str, partitions: i32, count: i32) {
    create_topic_on(bootstrap, topic, partitions);
    produce(bootstrap, topic, 0, count, partitions);
}

#[test]
fn kafka_s_shipped_mirror_maker_properties_run_in_dedicated_mode_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (source_cluster(), bootstrap());
    let (topic_a, topic_b) = (unique("dedicated-a"), unique("dedicated-b"));
    topic_with_records(&a, &topic_a, 2, 100);
    topic_with_records(&b, &topic_b, 2, 50);

    // Kafka's config/connect-mirror-maker.properties as shipped, with the clusters' addresses
    // filled in; the flows' `topics = .*` narrowed to this test's topics (a later key wins, as
    // in Java's Properties), so that the brokers' other topics stay where they are; and no
    // heartbeat topics replicated (MirrorSource copies those whatever `topics` says): on brokers
    // the other tests share, B->A would copy their flows' heartbeat topics back to A, where they
    // replicate to B again, in chains growing with every run.
    let shipped = include_str!("fixtures/connect-mirror-maker.properties");
    assert!(shipped.contains("A_host1:9092, A_host2:9092, A_host3:9092"));
    let mm2 = dir.path().join("connect-mirror-maker.properties");
    write_file(
        &mm2,
        &format!(
            "{}\nA->B.topics = {topic_a}\nB->A.topics = {topic_b}\nheartbeats.replication.enabled = false\n",
            shipped
                .replace("A_host1:9092, A_host2:9092, A_host3:9092", &a)
                .replace("B_host1:9092, B_host2:9092, B_host3:9092", &b)
        ),
    );
    let mm = Ferry::mirror_maker(dir.path(), &mm2, &[]);

    // A->B and B->A, with DefaultReplicationPolicy's names and the records in their partitions.
    let expect = |count: i32| {
        let mut v: Vec<_> = (0..count)
            .map(|i| (i % 2, format!("k{i}"), format!("v{i}")))
            .collect();
        v.sort();
        v
    };
    for (cluster, remote, count) in [
        (&b, format!("A.{topic_a}"), 100),
        (&a, format!("B.{topic_b}"), 50),
    ] {
        wait_until(&format!("{remote} on its target"), SLOW, || {
            partitions(cluster, &remote) == 2
        });
        let mut got = read(cluster, &remote, count as usize);
        got.sort();
        assert_eq!(got, expect(count), "{remote}");
    }
    // Java's names for each flow's worker topics, on the flow's target cluster, and the
    // heartbeats each flow emits there.
    for (cluster, source) in [(&b, "A"), (&a, "B")] {
        for kind in ["configs", "offsets", "status"] {
            let topic = format!("mm2-{kind}.{source}.internal");
            assert!(partitions(cluster, &topic) > 0, "{topic} on the target");
        }
        let target = if source == "A" { "B" } else { "A" };
        wait_until(&format!("heartbeats of {source}->{target}"), SLOW, || {
            recent_heartbeat(cluster, source, target)
        });
    }
    let log = mm.log_text();
    assert!(
        log.contains("Kafka MirrorMaker starting with 2 herders."),
        "{log}"
    );
    for flow in ["A->B", "B->A"] {
        assert!(
            log.contains(&format!(
                "Connector MirrorSourceConnector configured for {flow}."
            )) || log.contains(&format!("This worker is a follower for {flow}.")),
            "{log}"
        );
    }
    // SIGTERM stops every flow and exits 0.
    mm.stop();
}

#[test]
fn dedicated_mode_refuses_what_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = |text: &str, extra: &[&str]| {
        let path = dir.path().join("mm2.properties");
        write_file(&path, text);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferry"))
            .arg("mirror-maker")
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{text} started");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(run("A.bootstrap.servers=x:1\n", &[]).contains("\"clusters\""));
    assert!(run("clusters=A, B\n", &["--clusters", "C"]).contains("C"));
}

/// KIP-618 for MirrorMaker: with `exactly.once.source.support=enabled` and a source consumer
/// that reads committed records, MirrorSourceConnector supports exactly-once; a worker killed
/// mid-replication leaves every record exactly once on the target for a read_committed reader.
#[test]
fn an_exactly_once_replication_killed_mid_stream_has_every_record_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let (source, target) = (source_cluster(), bootstrap());
    let topic = unique("eos-mirror");
    create_topic_on(&source, &topic, 2);
    let alias = unique("eos");
    let remote = format!("{alias}.{topic}");
    let cluster = unique("eos-mm2");
    let extra = "exactly.once.source.support=enabled\n\
                 key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n\
                 value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n";
    let worker = || {
        let port = port();
        let props = distributed_properties(dir.path(), port, &cluster, extra);
        let worker = Ferry::distributed(dir.path(), port, &props);
        wait_until("the worker to join its group", SLOW, || {
            worker.get("/health").is_some_and(|(code, _)| code == 200)
        });
        worker
    };
    produce(&source, &topic, 0, 2000, 2);
    let first = worker();
    let name = unique("eos-mirror-source");
    let body = format!(
        r#"{{"name":"{name}","config":{{"connector.class":"MirrorSource","source.cluster.alias":"{alias}",
        "source.cluster.bootstrap.servers":"{source}","target.cluster.bootstrap.servers":"{target}",
        "topics":"{topic}","replication.factor":"1","offset-syncs.topic.replication.factor":"1",
        "sync.topic.acls.enabled":"false","exactly.once.support":"required",
        "source.consumer.isolation.level":"read_committed"}}}}"#
    );
    let mut code = 0;
    wait_until("the connector created", SLOW, || {
        code = first.call("POST", "/connectors", Some(&body)).0;
        code != 409
    });
    assert_eq!(code, 201, "{}", first.log_text());
    wait_until("the first records replicated", SLOW, || {
        topic_records(&remote) >= 2000
    });
    let trickle = trickle_in(&source, &topic);
    wait_until("records replicated while more arrive", SLOW, || {
        topic_records(&remote) >= 2300
    });
    first.kill9();
    trickle.join().unwrap();
    let second = worker();
    let got = read_committed_from(&target, &remote, 4000);
    let mut keys: Vec<&str> = got.iter().map(|(_, k, _)| k.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(
        (got.len(), keys.len()),
        (4000, 4000),
        "every record exactly once for a read_committed reader\n{}",
        second.log_text()
    );
    for (partition, key, value) in &got {
        let i: i32 = key[1..].parse().unwrap();
        assert_eq!(*partition, i % 2, "{key}");
        assert_eq!(value, &format!("v{i}"));
    }
    second.stop();
}

/// KIP-710: two dedicated MirrorMaker nodes of one flow, each serving the internal REST API on
/// its own listener. The flow's connectors are spread over both nodes, so the follower's
/// connectors hand their task configs to the leader through it: at start, and when a new topic
/// and a new group appear upstream. Without it, the follower's connectors never get tasks.
#[test]
fn dedicated_nodes_of_one_flow_hand_task_configs_to_the_leader_over_the_internal_rest_api() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (source_cluster(), bootstrap());
    // Aliases of this run only: the flow's group and internal topics are new.
    let (source, target) = (unique("S"), unique("T"));
    let prefix = unique("kip710");
    let (first, later) = (format!("{prefix}-first"), format!("{prefix}-later"));
    topic_with_records(&a, &first, 2, 40);
    let group = format!("{prefix}-group");
    let node = |listener_port: u16| {
        let path = dir.path().join(format!("mm2-{listener_port}.properties"));
        write_file(
            &path,
            &format!(
                "clusters = {source}, {target}\n\
                 {source}.bootstrap.servers = {a}\n{target}.bootstrap.servers = {b}\n\
                 {source}->{target}.enabled = true\n{source}->{target}.topics = {prefix}-.*\n\
                 {source}->{target}.groups = {prefix}-.*\n\
                 {target}->{source}.enabled = false\n{target}->{source}.emit.heartbeats.enabled = false\n\
                 dedicated.mode.enable.internal.rest = true\nlisteners = http://127.0.0.1:{listener_port}\n\
                 replication.factor = 1\ncheckpoints.topic.replication.factor = 1\n\
                 heartbeats.topic.replication.factor = 1\noffset-syncs.topic.replication.factor = 1\n\
                 offset.storage.replication.factor = 1\nstatus.storage.replication.factor = 1\n\
                 config.storage.replication.factor = 1\nsync.topic.acls.enabled = false\n\
                 heartbeats.replication.enabled = false\nrefresh.topics.interval.seconds = 1\n\
                 refresh.groups.interval.seconds = 1\nemit.checkpoints.interval.seconds = 1\n"
            ),
        );
        path
    };
    let (one, two) = (node(port()), node(port()));
    let leader = Ferry::mirror_maker(dir.path(), &one, &[]);
    let flow = format!("{source}->{target}");
    wait_until("the first node to lead", SLOW, || {
        leader
            .log_text()
            .contains(&format!("This worker leads {flow};"))
    });
    let follower = Ferry::mirror_maker(dir.path(), &two, &[]);
    wait_until("the second node to follow", SLOW, || {
        follower
            .log_text()
            .contains(&format!("This worker is a follower for {flow}."))
    });
    let remote = |topic: &str| format!("{source}.{topic}");
    wait_until("the first topic replicated", SLOW, || {
        partitions(&b, &remote(&first)) == 2 && read(&b, &remote(&first), 40).len() == 40
    });
    // The rebalance gives the follower a connector of its own.
    let runs = |node: &Ferry, class: &str| {
        node.log_text()
            .contains(&format!("connector={flow}|{class}"))
    };
    wait_until("a connector on the follower", SLOW, || {
        [
            "MirrorSourceConnector",
            "MirrorCheckpointConnector",
            "MirrorHeartbeatConnector",
        ]
        .iter()
        .any(|c| runs(&follower, c))
    });
    // New task configs for the source and the checkpoint connectors, wherever they run.
    topic_with_records(&a, &later, 3, 30);
    let committer: BaseConsumer = client(&a).set("group.id", &group).create().unwrap();
    let mut offsets = TopicPartitionList::new();
    offsets
        .add_partition_offset(&first, 0, Offset::Offset(10))
        .unwrap();
    committer.commit(&offsets, CommitMode::Sync).unwrap();
    wait_until("the later topic replicated", SLOW, || {
        partitions(&b, &remote(&later)) == 3 && read(&b, &remote(&later), 30).len() == 30
    });
    let checkpoints = format!("{source}.checkpoints.internal");
    wait_until("a checkpoint of the new group", SLOW, || {
        topic_records(&checkpoints) > 0 && !latest_checkpoints(&b, &checkpoints, &group).is_empty()
    });
    let (leader_log, follower_log) = (leader.log_text(), follower.log_text());
    assert!(
        ["MirrorSourceConnector", "MirrorCheckpointConnector"]
            .iter()
            .any(|c| runs(&follower, c)),
        "the follower ran neither connector whose task configs change; nothing was handed to the leader:\n{follower_log}"
    );
    for log in [&leader_log, &follower_log] {
        assert!(!log.contains("could not reach the leader"), "{log}");
    }
    follower.stop();
    leader.stop();
}

/// `scripts/java-connect mirror-maker <mm2.properties>`: Java's dedicated MirrorMaker 2, once
/// its log says it started.
fn java_mirror_maker(dir: &std::path::Path, mm2: &std::path::Path) -> Ferry {
    let log = dir.join(format!("java-mm2-{}.log", unique("run")));
    let out = std::fs::File::create(dir.join(format!("{}.out", unique("java-mm2")))).unwrap();
    let child = std::process::Command::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/java-connect"),
    )
    .arg("mirror-maker")
    .arg(mm2)
    .current_dir(dir)
    .env("CONNECT_LOG_FILE", &log)
    .env("KAFKA_HEAP_OPTS", "-Xms128M -Xmx1G")
    .stdout(std::process::Stdio::null())
    .stderr(out)
    .spawn()
    .expect("scripts/java-connect runs");
    let java = Ferry {
        child,
        port: 0,
        log,
    };
    wait_until(
        "Java's MirrorMaker started",
        Duration::from_secs(180),
        || java.log_text().contains("Kafka MirrorMaker started"),
    );
    java
}

/// The distinct keys of the first `count` records of `topic` on `bootstrap`.
fn distinct_keys(bootstrap: &str, topic: &str, count: usize) -> usize {
    let keys: std::collections::BTreeSet<String> = read(bootstrap, topic, count)
        .into_iter()
        .map(|(_, key, _)| key)
        .collect();
    keys.len()
}

#[test]
fn a_dedicated_mirror_maker_moves_from_java_to_ferry_and_back_replicating_every_record_once() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (source_cluster(), bootstrap());
    // Aliases of this test's own, so that its group and internal topics are its own.
    let (alias_a, alias_b) = (unique("swa"), unique("swb"));
    let topic = unique("switched");
    topic_with_records(&a, &topic, 2, 200);
    let mm2 = dir.path().join("mm2.properties");
    write_file(
        &mm2,
        &format!(
            "clusters = {alias_a}, {alias_b}\n\
             {alias_a}.bootstrap.servers = {a}\n{alias_b}.bootstrap.servers = {b}\n\
             {alias_a}->{alias_b}.enabled = true\n{alias_a}->{alias_b}.topics = {topic}\n\
             emit.heartbeats.enabled = false\nsync.topic.acls.enabled = false\n\
             replication.factor=1\ncheckpoints.topic.replication.factor=1\n\
             heartbeats.topic.replication.factor=1\noffset-syncs.topic.replication.factor=1\n\
             offset.storage.replication.factor=1\nstatus.storage.replication.factor=1\n\
             config.storage.replication.factor=1\n"
        ),
    );
    let remote = format!("{alias_a}.{topic}");
    let every_key_once = |count: i32| {
        wait_until(&format!("{count} records on {remote}"), SLOW, || {
            distinct_keys(&b, &remote, count as usize) == count as usize
        });
        // Every key is there; a record replicated twice would be one more in the topic.
        assert_eq!(
            topic_records(&remote),
            i64::from(count),
            "every record once on {remote}"
        );
    };

    let java = java_mirror_maker(dir.path(), &mm2);
    every_key_once(200);
    java.terminate();
    produce(&a, &topic, 200, 300, 2);

    // Ferry, on Java's group, internal topics and stored offsets: only the new records.
    let ferry = Ferry::mirror_maker(dir.path(), &mm2, &[]);
    every_key_once(300);
    // The connector configs Java's leader wrote are the ones Ferry derives from the same file:
    // Ferry's leader, which rewrites any that differ, left them alone.
    let mut log = String::new();
    wait_until("Ferry's leader to check the stored configs", SLOW, || {
        log = ferry.log_text();
        log.contains("the stored connector configurations are the file's")
            || log.contains("configured for")
    });
    assert!(
        !log.contains("configured for"),
        "Ferry's connector configs differ from Java's for the same file:\n{log}"
    );
    ferry.stop();
    produce(&a, &topic, 300, 400, 2);

    // And back to Java, which goes on from Ferry's offsets.
    let java = java_mirror_maker(dir.path(), &mm2);
    every_key_once(400);
    java.terminate();
}
