//! `ferry standalone` end to end on a real Kafka broker.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use support::*;

/// A file source and sink through `topic`. The connectors are named after the topic: the sink's
/// consumer group is `connect-<name>`, and tests running at once must not share a group.
fn pipeline(dir: &std::path::Path, topic: &str) -> Vec<std::path::PathBuf> {
    vec![
        connector_file(dir, &format!("{topic}-src"), &format!("connector.class=FileStreamSource\nfile={}\ntopic={topic}\n", dir.join("in.txt").display())),
        connector_file(
            dir,
            &format!("{topic}-sink"),
            &format!("connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector\nfile={}\ntopics={topic}\n", dir.join("out.txt").display()),
        ),
    ]
}

#[test]
fn lines_flow_in_order_and_a_restart_resumes_from_stored_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("pipeline"), port());
    let total = 200_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = worker_properties(dir.path(), port, 1000);
    let connectors = pipeline(dir.path(), &topic);
    let out = dir.path().join("out.txt");

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until(
        "200,000 lines in the sink file",
        Duration::from_secs(180),
        || lines(&out).len() >= total,
    );
    let expected: Vec<String> = numbered_lines(0, total)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines(&out),
        expected,
        "the sink file must hold every line once, in order"
    );
    assert_eq!(topic_records(&topic), total as i64);
    // The test broker has no client telemetry receiver: the worker found that at start, and
    // its clients do not keep librdkafka's KIP-714 push state.
    assert!(
        ferry.log_text().contains("takes no client telemetry"),
        "{}",
        ferry.log_text()
    );
    ferry.stop();

    // More lines arrive while the worker is down; the restart must pick up exactly there.
    let more = numbered_lines(total, total + 1000);
    let mut input = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("in.txt"))
        .unwrap();
    std::io::Write::write_all(&mut input, more.as_bytes()).unwrap();
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until(
        "the appended lines in the sink file",
        Duration::from_secs(60),
        || lines(&out).len() >= total + 1000,
    );
    let expected: Vec<String> = numbered_lines(0, total + 1000)
        .lines()
        .map(str::to_owned)
        .collect();
    // A graceful stop commits both sides, so nothing is read or written twice.
    assert_eq!(lines(&out), expected);
    assert_eq!(topic_records(&topic), (total + 1000) as i64);
    ferry.stop();
}

#[test]
fn kill_dash_nine_mid_stream_loses_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("crash"), port());
    let total = 150_000;
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, total));
    let worker = worker_properties(dir.path(), port, 200);
    let connectors = pipeline(dir.path(), &topic);
    let out = dir.path().join("out.txt");

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    // The whole input can go through between two of wait_until's 100 ms looks, so the sink
    // file's size is watched every millisecond (its lines are all as long) to kill mid-stream.
    let some_lines = 10_000 * numbered_lines(0, 1).len() as u64;
    let mut looks = 0u64;
    wait_until_every(
        "some lines in the sink file",
        Duration::from_secs(120),
        Duration::from_millis(1),
        || {
            looks += 1;
            if looks % 500 == 0 && ferry.get("/").is_none() {
                panic!("ferry is not answering; log: {}", ferry.log_text());
            }
            std::fs::metadata(&out).map_or(0, |m| m.len()) >= some_lines
        },
    );
    ferry.kill9();
    let at_crash = lines(&out).len();
    assert!(
        at_crash < total,
        "the crash should happen mid-stream (had {at_crash} lines)"
    );

    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    let expected: Vec<String> = numbered_lines(0, total)
        .lines()
        .map(str::to_owned)
        .collect();
    wait_until(
        "every line in the sink file after the restart",
        Duration::from_secs(180),
        || {
            let got: std::collections::HashSet<String> = lines(&out).into_iter().collect();
            expected.iter().all(|l| got.contains(l))
        },
    );
    // Duplicates are allowed (at-least-once), but no line may be missing or invented. The kill
    // may cut the last write short: that fragment of a line (its record comes again) stands on
    // a line of its own, and is the only thing allowed besides the input's lines.
    let got = lines(&out);
    let wanted: std::collections::HashSet<&String> = expected.iter().collect();
    let extra: Vec<&String> = got.iter().filter(|l| !wanted.contains(l)).collect();
    assert!(
        extra.len() <= 1
            && extra
                .iter()
                .all(|l| expected.iter().any(|e| e.starts_with(l.as_str()))),
        "only the input's lines, and at most one torn by the kill: {extra:?}"
    );
    let distinct: std::collections::BTreeSet<&String> =
        got.iter().filter(|l| wanted.contains(l)).collect();
    assert_eq!(
        distinct.len(),
        total,
        "every line exactly once after removing duplicates"
    );
    ferry.stop();
}

#[test]
fn a_failing_task_is_failed_with_its_trace_and_the_other_connector_keeps_running() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("healthy"), port());
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, 100));
    let worker = worker_properties(dir.path(), port, 1000);
    let healthy = connector_file(
        dir.path(),
        "healthy",
        &format!(
            "connector.class=FileStreamSource\nfile={}\ntopic={topic}\n",
            dir.path().join("in.txt").display()
        ),
    );
    // Reading a directory fails in the task's poll.
    let broken = connector_file(
        dir.path(),
        "broken",
        &format!(
            "connector.class=FileStreamSource\nfile={}\ntopic={}\n",
            dir.path().display(),
            unique("never")
        ),
    );
    let ferry = Ferry::start(dir.path(), port, &worker, &[healthy, broken]);

    wait_until(
        "the broken task to be FAILED",
        Duration::from_secs(60),
        || ferry.task_state("broken", 0).as_deref() == Some("FAILED"),
    );
    let status = ferry.status("broken");
    let trace = status["tasks"][0]["trace"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        trace.contains("Error while reading from the source file"),
        "trace: {trace}"
    );
    assert_eq!(status["connector"]["state"], "RUNNING");
    wait_until(
        "the healthy connector's records",
        Duration::from_secs(60),
        || topic_records(&topic) == 100,
    );
    // Lines appended later still flow: the worker and the healthy task were not harmed.
    let mut input = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("in.txt"))
        .unwrap();
    std::io::Write::write_all(&mut input, numbered_lines(100, 150).as_bytes()).unwrap();
    wait_until("the appended records", Duration::from_secs(60), || {
        topic_records(&topic) == 150
    });
    assert_eq!(ferry.task_state("healthy", 0).as_deref(), Some("RUNNING"));
    ferry.stop();
}

#[test]
fn bad_input_stops_start_up_naming_the_file_key_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let worker = worker_properties(dir.path(), port, 1000);

    let malformed = dir.path().join("malformed.properties");
    write_file(
        &malformed,
        "name=x\nconnector.class=FileStreamSource\ntopic=\\u12zz\n",
    );
    let err = start_fails(dir.path(), &worker, std::slice::from_ref(&malformed));
    assert!(
        err.contains("malformed.properties") && err.contains("\\uxxxx"),
        "{err}"
    );

    let unknown = connector_file(
        dir.path(),
        "unknown",
        "connector.class=com.example.NoSuchConnector\n",
    );
    let err = start_fails(dir.path(), &worker, std::slice::from_ref(&unknown));
    assert!(
        err.contains("unknown.properties") && err.contains("com.example.NoSuchConnector"),
        "{err}"
    );

    let missing = connector_file(dir.path(), "missing", "connector.class=FileStreamSource\n");
    let err = start_fails(dir.path(), &worker, std::slice::from_ref(&missing));
    assert!(
        err.contains("missing.properties")
            && err.contains("Missing required configuration \"topic\" which has no default value."),
        "{err}"
    );

    let bad_worker = dir.path().join("bad-worker.properties");
    write_file(&bad_worker, "offset.flush.interval.ms=often\n");
    let err = start_fails(dir.path(), &bad_worker, &[]);
    for expected in [
        "bad-worker.properties",
        "key.converter",
        "value.converter",
        "offset.storage.file.filename",
        "Invalid value often for configuration offset.flush.interval.ms",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in {err}");
    }
}

/// The compression codecs of the record batches in partition 0 of `topic`, read from the
/// broker's log segment (scripts/kafka keeps its data beside FERRY_KAFKA_TLS): each batch's
/// length is at byte 8, its attributes at byte 21, the codec in their low three bits.
fn batch_codecs(topic: &str) -> Vec<u8> {
    let tls = std::env::var("FERRY_KAFKA_TLS").expect(
        "FERRY_KAFKA_TLS must name the broker's state (scripts/test sets it from scripts/kafka tls)",
    );
    let segment = std::path::Path::new(&tls)
        .parent()
        .unwrap()
        .join(format!("data/{topic}-0/00000000000000000000.log"));
    let bytes = std::fs::read(&segment).unwrap_or_else(|e| panic!("{}: {e}", segment.display()));
    let mut codecs = Vec::new();
    let mut at = 0;
    while at + 23 <= bytes.len() {
        let length = i32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        codecs.push((i16::from_be_bytes([bytes[at + 21], bytes[at + 22]]) & 0x7) as u8);
        at += 12 + length;
    }
    codecs
}

#[test]
fn topics_written_with_every_codec_are_read_and_producers_compress_as_configured() {
    use ferry_kafka::rdkafka::producer::{
        BaseRecord, DefaultProducerContext, Producer, ThreadedProducer,
    };
    let dir = tempfile::tempdir().unwrap();
    let (base, port) = (unique("codec"), port());
    let codecs = [("gzip", 1), ("snappy", 2), ("lz4", 3), ("zstd", 4)];
    for (codec, _) in codecs {
        let producer: ThreadedProducer<DefaultProducerContext> =
            ferry_kafka::rdkafka::ClientConfig::new()
                .set("bootstrap.servers", bootstrap())
                .set("compression.codec", codec)
                .set("linger.ms", "50")
                .create()
                .unwrap();
        let topic = format!("{base}-{codec}");
        for i in 0..50 {
            let value = format!("{codec} record {i} {}", "compressible ".repeat(20));
            producer
                .send(BaseRecord::<(), str>::to(&topic).payload(value.as_str()))
                .map_err(|(e, _)| e)
                .unwrap();
        }
        producer.flush(Duration::from_secs(30)).unwrap();
    }
    let mut text = std::fs::read_to_string(worker_properties(dir.path(), port, 1000)).unwrap();
    // Java's key for the connectors' producers.
    text.push_str("producer.compression.type=zstd\n");
    let worker = dir.path().join("worker.properties");
    write_file(&worker, &text);
    let mut connectors: Vec<std::path::PathBuf> = codecs
        .iter()
        .map(|(codec, _)| {
            connector_file(
                dir.path(),
                &format!("{base}-{codec}-sink"),
                &format!(
                    "connector.class=FileStreamSink\nfile={}\ntopics={base}-{codec}\n",
                    dir.path().join(format!("{codec}.txt")).display()
                ),
            )
        })
        .collect();
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, 200));
    connectors.push(connector_file(
        dir.path(),
        &format!("{base}-src"),
        &format!(
            "connector.class=FileStreamSource\nfile={}\ntopic={base}-written\n",
            dir.path().join("in.txt").display()
        ),
    ));
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    for (codec, id) in codecs {
        let out = dir.path().join(format!("{codec}.txt"));
        wait_until(
            &format!("the {codec} topic's records"),
            Duration::from_secs(60),
            || lines(&out).len() >= 50,
        );
        let expected: Vec<String> = (0..50)
            .map(|i| format!("{codec} record {i} {}", "compressible ".repeat(20)))
            .collect();
        assert_eq!(lines(&out), expected);
        let written = batch_codecs(&format!("{base}-{codec}"));
        assert!(
            written.contains(&id),
            "{codec} was written compressed: {written:?}"
        );
    }
    wait_until(
        "the source's lines in Kafka",
        Duration::from_secs(60),
        || topic_records(&format!("{base}-written")) >= 200,
    );
    let written = batch_codecs(&format!("{base}-written"));
    assert!(
        !written.is_empty() && written.iter().all(|c| *c == 4),
        "producer.compression.type=zstd writes zstd batches: {written:?}"
    );
    ferry.stop();
}

#[test]
fn source_topics_are_created_by_the_connector_s_topic_creation_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (base, port) = (unique("kip158"), port());
    let worker = worker_properties(dir.path(), port, 1000);
    write_file(&dir.path().join("in.txt"), &numbered_lines(0, 20));
    let (orders, other) = (format!("orders-{base}"), format!("other-{base}"));
    // Keys from the lines, so the compacted topic takes the records.
    let keyed = "transforms=hoist,key\n\
                 transforms.hoist.type=org.apache.kafka.connect.transforms.HoistField$Value\n\
                 transforms.hoist.field=line\n\
                 transforms.key.type=org.apache.kafka.connect.transforms.ValueToKey\n\
                 transforms.key.fields=line\n";
    let creation = "topic.creation.groups=orders\n\
                    topic.creation.default.replication.factor=-1\n\
                    topic.creation.default.partitions=6\n\
                    topic.creation.orders.include=orders-.*\n\
                    topic.creation.orders.partitions=3\n\
                    topic.creation.orders.cleanup.policy=compact\n";
    let connectors = vec![
        connector_file(
            dir.path(),
            &format!("{base}-orders"),
            &format!(
                "connector.class=FileStreamSource\nfile={}\ntopic={orders}\n{keyed}{creation}",
                dir.path().join("in.txt").display()
            ),
        ),
        connector_file(
            dir.path(),
            &format!("{base}-other"),
            &format!(
                "connector.class=FileStreamSource\nfile={}\ntopic={other}\n{creation}",
                dir.path().join("in.txt").display()
            ),
        ),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    for topic in [&orders, &other] {
        wait_until(
            &format!("the lines in {topic}"),
            Duration::from_secs(60),
            || topic_records(topic) >= 20,
        );
    }
    let mut config = ferry_kafka::rdkafka::ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    let admin = ferry_kafka::admin::Admin::new(&config).unwrap();
    assert_eq!(
        admin
            .partition_count(&orders, Duration::from_secs(10))
            .unwrap(),
        Some(3)
    );
    assert_eq!(
        admin
            .partition_count(&other, Duration::from_secs(10))
            .unwrap(),
        Some(6)
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(
        rt.block_on(admin.topic_config(&orders, "cleanup.policy"))
            .as_deref(),
        Some("compact")
    );
    assert_eq!(
        rt.block_on(admin.topic_config(&other, "cleanup.policy"))
            .as_deref(),
        Some("delete")
    );
    // Validation names a bad group setting.
    let (code, validated) = ferry.call(
        "PUT",
        "/connector-plugins/FileStreamSource/config/validate",
        Some(r#"{"connector.class":"FileStreamSource","name":"v","topic":"t","topic.creation.default.replication.factor":"0","topic.creation.default.partitions":"1"}"#),
    );
    assert_eq!(code, 200, "{validated}");
    assert_eq!(validated["error_count"], 1, "{validated}");
    ferry.stop();
}

#[test]
fn failed_tasks_restart_automatically_with_growing_delays_up_to_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("autorestart"), port());
    let worker = worker_properties(dir.path(), port, 1000);
    let text = std::fs::read_to_string(&worker).unwrap();
    write_file(
        &worker,
        &format!(
            "{text}ferry.task.restart.enable=true\nferry.task.restart.backoff.initial.ms=300\n\
             ferry.task.restart.backoff.max.ms=1000\nferry.task.restart.max.attempts=3\n"
        ),
    );
    let (never, later) = (format!("{topic}-never"), format!("{topic}-later"));
    let connectors = vec![
        // Its directory never appears: it fails on every start.
        connector_file(
            dir.path(),
            &never,
            &format!(
                "connector.class=FileStreamSink\nfile={}\ntopics={topic}\n",
                dir.path().join("missing/out.txt").display()
            ),
        ),
        // Its directory appears after the first failure: an automatic restart recovers it.
        connector_file(
            dir.path(),
            &later,
            &format!(
                "connector.class=FileStreamSink\nfile={}\ntopics={topic}\n",
                dir.path().join("later/out.txt").display()
            ),
        ),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until("the first failures", Duration::from_secs(60), || {
        ferry.task_state(&later, 0).as_deref() == Some("FAILED")
            || ferry
                .log_text()
                .contains("Restarting the failed task automatically")
    });
    std::fs::create_dir(dir.path().join("later")).unwrap();
    wait_until(
        "the recovered task RUNNING without a human",
        Duration::from_secs(60),
        || ferry.task_state(&later, 0).as_deref() == Some("RUNNING"),
    );
    wait_until(
        "the hopeless task given up on",
        Duration::from_secs(60),
        || {
            ferry
                .log_text()
                .contains("Task failed on every automatic restart")
        },
    );
    let log = ferry.log_text();
    let attempts: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(&never) && l.contains("Restarting the failed task automatically"))
        .collect();
    assert_eq!(attempts.len(), 3, "three attempts for {never}:\n{log}");
    let delays: Vec<u64> = attempts
        .iter()
        .filter_map(|l| {
            l.split("delay_ms=")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(delays.len(), 3, "{attempts:?}");
    assert!(
        delays[0] < delays[1] && delays[1] <= delays[2] && delays[2] <= 1200,
        "growing, capped: {delays:?}"
    );
    assert_eq!(ferry.task_state(&never, 0).as_deref(), Some("FAILED"));
    ferry.stop();
}

/// As Java's `onPartitionsRevoked`, a sink commits what its task processed when the group takes
/// its partitions away, so their next owner starts after it rather than at the last periodic
/// commit. Periodic commits are an hour apart here: only the revocation can commit.
fn revoked_partitions_are_committed(assignor: Option<(&str, &str)>) {
    use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
    use ferry_kafka::rdkafka::{ClientConfig, Offset};

    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("revoked"), port());
    let first = 1_000;
    // Both partitions hold records whichever one the other member takes: a source's keyless
    // records could all land on one partition (sticky partitioning), leaving nothing to commit.
    create_topic(&topic, 2);
    produce_to_both_partitions(&topic, 0, first);
    let worker = worker_properties(dir.path(), port, 3_600_000);
    let override_line = assignor.map_or(String::new(), |(java, _)| {
        format!("consumer.override.partition.assignment.strategy={java}\n")
    });
    let out = dir.path().join("out.txt");
    let connectors = vec![connector_file(
        dir.path(),
        &format!("{topic}-sink"),
        &format!(
            "connector.class=FileStreamSink\nfile={}\ntopics={topic}\n{override_line}",
            out.display()
        ),
    )];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    wait_until(
        "the first lines in the sink file",
        Duration::from_secs(60),
        || lines(&out).len() >= first,
    );

    // Another member joins the sink's group and takes one of the two partitions.
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap())
        .set("group.id", format!("connect-{topic}-sink"))
        .set("enable.auto.commit", "false");
    if let Some((_, librdkafka)) = assignor {
        config.set("partition.assignment.strategy", librdkafka);
    }
    let member: BaseConsumer = config.create().unwrap();
    member.subscribe(&[&topic]).unwrap();
    let mut last = String::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        // Polling drives the member's join; nothing it reads is committed.
        let _ = member.poll(Duration::from_millis(100));
        let taken = member.assignment().unwrap_or_default();
        let committed = member
            .committed_offsets(taken.clone(), Duration::from_secs(10))
            .unwrap_or_default();
        let ends: Vec<i64> = committed
            .elements()
            .iter()
            .map(|e| {
                member
                    .fetch_watermarks(e.topic(), e.partition(), Duration::from_secs(10))
                    .map_or(-1, |(_, end)| end)
            })
            .collect();
        let done = taken.count() > 0
            && committed
                .elements()
                .iter()
                .zip(&ends)
                .all(|(e, end)| e.offset() == Offset::Offset(*end));
        if done {
            break;
        }
        last = format!("assigned {taken:?}, committed {committed:?}, ends {ends:?}");
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for the member's partition committed up to its end by the task: {last}\nferry log:\n{}",
            ferry.log_text()
        );
    }
    let _ = last;
    let during = lines(&out).len();
    drop(member);

    // The task gets the partition back and goes on from the committed offset: nothing twice.
    produce_to_both_partitions(&topic, first, first + 500);
    wait_until(
        "the later lines in the sink file",
        Duration::from_secs(90),
        || lines(&out).len() >= first + 500,
    );
    let mut got = lines(&out);
    got.sort();
    let mut expected: Vec<String> = numbered_lines(0, first + 500)
        .lines()
        .map(str::to_owned)
        .collect();
    expected.sort();
    assert_eq!(
        during, first,
        "no line written twice while the member held a partition"
    );
    assert_eq!(got, expected, "every line once");
    ferry.stop();
}

/// Writes the numbered lines `from..to` to partitions 0 and 1 of `topic`, alternately.
fn produce_to_both_partitions(topic: &str, from: usize, to: usize) {
    use ferry_kafka::rdkafka::producer::{
        BaseRecord, DefaultProducerContext, Producer, ThreadedProducer,
    };
    let producer: ThreadedProducer<DefaultProducerContext> =
        ferry_kafka::rdkafka::ClientConfig::new()
            .set("bootstrap.servers", bootstrap())
            .create()
            .unwrap();
    for (i, line) in numbered_lines(from, to).lines().enumerate() {
        producer
            .send(
                BaseRecord::<(), str>::to(topic)
                    .partition((i % 2) as i32)
                    .payload(line),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }
    producer.flush(Duration::from_secs(30)).unwrap();
}

#[test]
fn an_eager_sink_commits_what_it_processed_when_its_partitions_are_revoked() {
    revoked_partitions_are_committed(None);
}

#[test]
fn a_cooperative_sink_commits_the_partitions_it_gives_up() {
    revoked_partitions_are_committed(Some((
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
        "cooperative-sticky",
    )));
}

/// A sink reads as Java's consumer does by default (`read_uncommitted`): records of an aborted
/// transaction reach it too, unless its consumer is set to `read_committed`.
#[test]
fn a_sink_reads_uncommitted_records_as_java_s_does_unless_told_to_read_committed() {
    use ferry_kafka::rdkafka::producer::{
        BaseRecord, DefaultProducerContext, Producer, ThreadedProducer,
    };
    let dir = tempfile::tempdir().unwrap();
    let (topic, port) = (unique("isolation"), port());
    create_topic(&topic, 1);
    let transactional: ThreadedProducer<DefaultProducerContext> =
        ferry_kafka::rdkafka::ClientConfig::new()
            .set("bootstrap.servers", bootstrap())
            .set("transactional.id", unique("isolation-txn"))
            .create()
            .unwrap();
    let timeout = Duration::from_secs(30);
    transactional.init_transactions(timeout).unwrap();
    transactional.begin_transaction().unwrap();
    transactional
        .send(BaseRecord::<(), str>::to(&topic).payload("aborted"))
        .map_err(|(e, _)| e)
        .unwrap();
    transactional.flush(timeout).unwrap();
    transactional.abort_transaction(timeout).unwrap();
    transactional.begin_transaction().unwrap();
    transactional
        .send(BaseRecord::<(), str>::to(&topic).payload("committed"))
        .map_err(|(e, _)| e)
        .unwrap();
    transactional.commit_transaction(timeout).unwrap();

    let worker = worker_properties(dir.path(), port, 1000);
    let sink = |name: &str, extra: &str| {
        connector_file(
            dir.path(),
            name,
            &format!(
                "connector.class=FileStreamSink\nfile={}\ntopics={topic}\n{extra}",
                dir.path().join(format!("{name}.txt")).display()
            ),
        )
    };
    let connectors = [
        sink("java-default", ""),
        sink(
            "committed-only",
            "consumer.override.isolation.level=read_committed\n",
        ),
    ];
    let ferry = Ferry::start(dir.path(), port, &worker, &connectors);
    let read = |name: &str| lines(&dir.path().join(format!("{name}.txt")));
    wait_until(
        "both sinks at the committed record",
        Duration::from_secs(60),
        || {
            read("java-default").contains(&"committed".to_owned())
                && read("committed-only").contains(&"committed".to_owned())
        },
    );
    assert_eq!(read("java-default"), ["aborted", "committed"]);
    assert_eq!(read("committed-only"), ["committed"]);
    ferry.stop();
}
