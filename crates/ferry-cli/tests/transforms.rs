//! Chains of built-in transforms and predicates in real pipelines.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::time::Duration;

use support::*;

#[test]
fn a_source_chain_reshapes_and_routes_records() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let ferry = Ferry::start(
        dir.path(),
        port,
        &worker_properties(dir.path(), port, 500),
        &[],
    );
    let base = unique("chain");
    std::fs::write(dir.path().join("in.txt"), "one\ntwo\nthree\n").unwrap();
    let body = format!(
        r#"{{"name":"{base}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{base}-src",
          "value.converter":"org.apache.kafka.connect.json.JsonConverter","value.converter.schemas.enable":"false",
          "transforms":"hoist,insert,rename,route",
          "transforms.hoist.type":"org.apache.kafka.connect.transforms.HoistField$Value","transforms.hoist.field":"line",
          "transforms.insert.type":"org.apache.kafka.connect.transforms.InsertField$Value",
          "transforms.insert.static.field":"origin","transforms.insert.static.value":"ferry",
          "transforms.rename.type":"org.apache.kafka.connect.transforms.ReplaceField$Value","transforms.rename.renames":"line:text",
          "transforms.route.type":"RegexRouter","transforms.route.regex":"(.*)-src","transforms.route.replacement":"$1-routed"}}}}"#,
        dir.path().join("in.txt").display()
    );
    assert_eq!(ferry.call("POST", "/connectors", Some(&body)).0, 201);
    let records = read_all(&format!("{base}-routed"), 3);
    let values: Vec<_> = records
        .iter()
        .map(|(v, _)| v.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        values,
        vec![
            r#"{"text":"one","origin":"ferry"}"#,
            r#"{"text":"two","origin":"ferry"}"#,
            r#"{"text":"three","origin":"ferry"}"#
        ]
    );
    assert_eq!(
        topic_records(&format!("{base}-src")),
        0,
        "nothing may reach the unrouted topic"
    );
    let (_, topics) = ferry.call("GET", &format!("/connectors/{base}/topics"), None);
    assert_eq!(
        topics[&base]["topics"],
        serde_json::json!([format!("{base}-routed")]),
        "the topic after transforms is tracked"
    );
    ferry.stop();
}

#[test]
fn a_sink_chain_with_timestamp_routing_and_a_filter_predicate() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let ferry = Ferry::start(
        dir.path(),
        port,
        &worker_properties(dir.path(), port, 500),
        &[],
    );
    let (a, b) = (unique("keep"), unique("drop"));
    for (topic, file, text) in [(&a, "a.txt", "alpha\n"), (&b, "b.txt", "beta\n")] {
        std::fs::write(dir.path().join(file), text).unwrap();
        let body = format!(
            r#"{{"name":"{}","config":{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}}}"#,
            unique("src"),
            dir.path().join(file).display()
        );
        assert_eq!(ferry.call("POST", "/connectors", Some(&body)).0, 201);
    }
    wait_until("both source records", Duration::from_secs(60), || {
        topic_records(&a) == 1 && topic_records(&b) == 1
    });
    let out = dir.path().join("out.txt");
    let sink_name = unique("sink");
    let sink = format!(
        r#"{{"name":"{}","config":{{"connector.class":"FileStreamSink","file":"{}","topics":"{a},{b}",
          "transforms":"route,hoist,insert,rename,drop",
          "transforms.route.type":"TimestampRouter","transforms.route.topic.format":"${{topic}}-r-${{timestamp}}",
          "transforms.route.timestamp.format":"yyyy",
          "transforms.hoist.type":"org.apache.kafka.connect.transforms.HoistField$Value","transforms.hoist.field":"line",
          "transforms.insert.type":"org.apache.kafka.connect.transforms.InsertField$Value","transforms.insert.topic.field":"topic",
          "transforms.insert.static.field":"origin","transforms.insert.static.value":"ferry",
          "transforms.rename.type":"org.apache.kafka.connect.transforms.ReplaceField$Value","transforms.rename.renames":"line:text",
          "transforms.drop.type":"Filter","transforms.drop.predicate":"fromB",
          "predicates":"fromB","predicates.fromB.type":"org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
          "predicates.fromB.pattern":"{b}-r-.*"}}}}"#,
        sink_name,
        out.display()
    );
    assert_eq!(
        ferry.call("POST", "/connectors", Some(&sink)).0,
        201,
        "{}",
        ferry.log_text()
    );
    wait_until("a's record in the file", Duration::from_secs(90), || {
        !lines(&out).is_empty()
    });
    // Stopping commits what the sink consumed: both records, b's dropped by the filter.
    assert_eq!(
        ferry
            .call("PUT", &format!("/connectors/{sink_name}/stop"), None)
            .0,
        204
    );
    wait_until(
        "both records consumed and committed",
        Duration::from_secs(60),
        || {
            let (_, offsets) = ferry.call("GET", &format!("/connectors/{sink_name}/offsets"), None);
            let committed: Vec<i64> = offsets["offsets"]
                .as_array()
                .map(|o| {
                    o.iter()
                        .filter_map(|e| e["offset"]["kafka_offset"].as_i64())
                        .collect()
                })
                .unwrap_or_default();
            committed == vec![1, 1]
        },
    );
    let written = lines(&out);
    assert_eq!(written.len(), 1, "{written:?}");
    let line = &written[0];
    assert!(
        line.starts_with(&format!("Struct{{text=alpha,topic={a}-r-20")),
        "{line}"
    );
    assert!(line.ends_with(",origin=ferry}"), "{line}");
    ferry.stop();
}
