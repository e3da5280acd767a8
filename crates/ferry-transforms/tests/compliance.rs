//! Every registered transform and predicate meets Connect's contracts: it configures from its
//! documented keys, handles records with a schema and without one, survives null values and
//! tombstones without panicking, and leaves headers alone unless headers are its job.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ferry_api::data::{timestamp, Schema, SchemaBuilder, Struct, Value};
use ferry_api::header::Headers;
use ferry_api::record::{SinkRecord, SourceRecord};
use ferry_api::transform::Record;
use ferry_api::ConfigMap;
use ferry_transforms::{predicates, transformations};

/// A working config for each transform class (without its `$Key`/`$Value` suffix).
fn config(class: &str) -> ConfigMap {
    let base = class.rsplit('.').next().unwrap().split('$').next().unwrap();
    let pairs: &[(&str, &str)] = match base {
        "Cast" => &[("spec", "n:int64")],
        "ExtractField" => &[("field", "n")],
        "Flatten" | "Filter" | "TimestampRouter" => &[],
        "HoistField" => &[("field", "wrapped")],
        "InsertField" => &[("static.field", "origin"), ("static.value", "x")],
        "MaskField" => &[("fields", "n")],
        "ReplaceField" => &[("renames", "n:m")],
        "SetSchemaMetadata" => &[("schema.name", "renamed")],
        "TimestampConverter" => &[("field", "ts"), ("target.type", "unix")],
        "HeaderFrom" => &[
            ("fields", "n"),
            ("headers", "copied"),
            ("operation", "copy"),
        ],
        "RegexRouter" => &[("regex", "(.*)"), ("replacement", "$1-x")],
        "ValueToKey" => &[("fields", "n")],
        "DropHeaders" => &[("headers", "dropped")],
        "InsertHeader" => &[("header", "inserted"), ("value.literal", "v")],
        other => panic!("no compliance config for {other}: add one when registering a transform"),
    };
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn headers() -> Headers {
    let mut h = Headers::new();
    h.add("keep", Some(Schema::string()), Value::from("1"));
    h.add("dropped", Some(Schema::string()), Value::from("2"));
    h
}

fn with_schema() -> SourceRecord {
    let schema = SchemaBuilder::struct_()
        .field("n", Schema::int32())
        .field("ts", timestamp().build())
        .build();
    let mut s = Struct::new(schema.clone()).unwrap();
    s.put("n", 7)
        .unwrap()
        .put("ts", Value::Int64(1_000))
        .unwrap();
    SourceRecord {
        topic: "t".into(),
        key_schema: Some(schema.clone()),
        key: Value::Struct(s.clone()),
        value_schema: Some(schema),
        value: Value::Struct(s),
        timestamp: Some(1_000),
        headers: headers(),
        ..Default::default()
    }
}

fn schemaless() -> SourceRecord {
    let map = Value::Map(vec![
        ("n".into(), Value::Int64(7)),
        ("ts".into(), Value::Int64(1_000)),
    ]);
    SourceRecord {
        topic: "t".into(),
        key: map.clone(),
        value: map,
        timestamp: Some(1_000),
        headers: headers(),
        ..Default::default()
    }
}

fn tombstone() -> SinkRecord {
    SinkRecord {
        topic: "t".into(),
        timestamp: Some(1_000),
        headers: headers(),
        ..Default::default()
    }
}

fn header_keys(r: &dyn Record) -> Vec<String> {
    r.headers().iter().map(|h| h.key.clone()).collect()
}

#[test]
fn every_transform_meets_the_contracts() {
    let plugins = transformations();
    assert_eq!(
        plugins.len(),
        26,
        "every built-in transform and its $Key/$Value forms"
    );
    for plugin in plugins {
        let class = plugin.class_name;
        let mut t = (plugin.create)();
        t.configure(&config(class))
            .unwrap_or_else(|e| panic!("{class} refused its config: {e}"));
        assert!(
            !t.config_def().keys().collect::<Vec<_>>().is_empty()
                || class.ends_with("Filter")
                || class.contains("Flatten")
                || class.contains("TimestampRouter"),
            "{class} declares its keys"
        );
        let header_job = ["HeaderFrom", "DropHeaders", "InsertHeader"]
            .iter()
            .any(|h| class.contains(h));
        for (what, mut record) in [
            ("with a schema", with_schema()),
            ("schemaless", schemaless()),
        ] {
            let before = header_keys(&record);
            let outcome = catch_unwind(AssertUnwindSafe(|| t.apply(&mut record)));
            let outcome = outcome.unwrap_or_else(|_| panic!("{class} panicked on a record {what}"));
            // Java's SetSchemaMetadata needs a schema and says so.
            if what == "schemaless" && class.contains("SetSchemaMetadata") {
                assert!(outcome.unwrap_err().to_string().contains("Schema required"));
                continue;
            }
            outcome.unwrap_or_else(|e| panic!("{class} failed on a record {what}: {e}"));
            if !header_job {
                assert_eq!(
                    header_keys(&record),
                    before,
                    "{class} changed headers of a record {what}"
                );
            }
        }
        let mut record = tombstone();
        let before = header_keys(&record);
        let outcome = catch_unwind(AssertUnwindSafe(|| t.apply(&mut record)));
        let outcome = outcome.unwrap_or_else(|_| panic!("{class} panicked on a tombstone"));
        if outcome.is_ok() && !header_job {
            assert_eq!(
                header_keys(&record),
                before,
                "{class} changed a tombstone's headers"
            );
        }
    }
}

#[test]
fn every_predicate_configures_and_tests_without_panicking() {
    let configs: &[(&str, &[(&str, &str)])] = &[
        ("HasHeaderKey", &[("name", "keep")]),
        ("RecordIsTombstone", &[]),
        ("TopicNameMatches", &[("pattern", "t.*")]),
    ];
    for plugin in predicates() {
        let base = plugin.class_name.rsplit('.').next().unwrap();
        let (_, pairs) = configs
            .iter()
            .find(|(n, _)| *n == base)
            .unwrap_or_else(|| panic!("no config for {base}"));
        let mut p = (plugin.create)();
        p.configure(
            &pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
        .unwrap();
        // Every predicate is true of the tombstone fixture (it has the header, a matching topic, no value).
        assert!(p.test(&tombstone()), "{base}");
        if base == "RecordIsTombstone" {
            assert!(!p.test(&with_schema()));
        }
    }
}
