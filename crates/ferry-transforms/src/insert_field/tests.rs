use std::sync::Arc;

use ferry_api::data::{Type, TIMESTAMP_LOGICAL_NAME};
use ferry_api::record::{SinkRecord, SourceRecord};

use super::*;

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

const ALL: [(&str, &str); 5] = [
    (TOPIC_FIELD, "topic_field!"),
    (PARTITION_FIELD, "partition_field"),
    (TIMESTAMP_FIELD, "timestamp_field?"),
    (STATIC_FIELD, "instance_id"),
    (STATIC_VALUE, "my-instance-id"),
];

fn insert(part: Part, pairs: &[(&str, &str)]) -> InsertField {
    let mut t = InsertField::new(part);
    t.configure(&props(pairs)).expect("valid config");
    t
}

fn config_error(pairs: &[(&str, &str)]) -> String {
    InsertField::new(Part::Value)
        .configure(&props(pairs))
        .unwrap_err()
        .to_string()
}

fn record(
    key_schema: Option<SchemaRef>,
    key: Value,
    value_schema: Option<SchemaRef>,
    value: Value,
    timestamp: Option<i64>,
) -> SourceRecord {
    SourceRecord {
        topic: "test".to_owned(),
        kafka_partition: Some(0),
        key_schema,
        key,
        value_schema,
        value,
        timestamp,
        ..Default::default()
    }
}

fn apply(t: &InsertField, mut rec: SourceRecord) -> SourceRecord {
    assert!(t.apply(&mut rec).expect("insert succeeds"));
    rec
}

fn get<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    match value {
        Value::Struct(s) => s.get(name).ok(),
        Value::Map(_) => value.map_get(name),
        other => panic!("not a struct or map: {other:?}"),
    }
}

fn simple_schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic", Schema::optional_int64())
        .build()
}

#[test]
fn value_must_be_a_struct_with_a_schema() {
    let t = insert(Part::Value, &[(TOPIC_FIELD, "topic_field")]);
    let mut rec = record(
        None,
        Value::Null,
        Some(Schema::int32()),
        Value::Int32(42),
        None,
    );
    assert_eq!(
        t.apply(&mut rec).unwrap_err().to_string(),
        "Only Struct objects supported for [field insertion], found: java.lang.Integer"
    );
}

#[test]
fn schema_is_copied_and_fields_inserted() {
    let t = insert(Part::Value, &ALL);
    let schema = simple_schema();
    let mut value = Struct::new(schema.clone()).unwrap();
    value.put("magic", Value::Int64(42)).unwrap();
    let out = apply(
        &t,
        record(
            None,
            Value::Null,
            Some(schema.clone()),
            Value::Struct(value),
            Some(789),
        ),
    );
    let out_schema = out.value_schema.clone().unwrap();
    assert_eq!(out_schema.name.as_deref(), Some("name"));
    assert_eq!(out_schema.version, Some(1));
    assert_eq!(out_schema.doc.as_deref(), Some("doc"));
    let field_schema = |n: &str| out_schema.field(n).unwrap().schema.clone();

    assert_eq!(field_schema("magic"), Schema::optional_int64());
    assert_eq!(get(&out.value, "magic"), Some(&Value::Int64(42)));
    assert_eq!(field_schema("topic_field"), Schema::string());
    assert_eq!(get(&out.value, "topic_field"), Some(&Value::from("test")));
    assert_eq!(field_schema("partition_field"), Schema::optional_int32());
    assert_eq!(get(&out.value, "partition_field"), Some(&Value::Int32(0)));
    let ts = field_schema("timestamp_field");
    assert_eq!(ts, timestamp().optional().build());
    assert_eq!(ts.name.as_deref(), Some(TIMESTAMP_LOGICAL_NAME));
    assert_eq!(get(&out.value, "timestamp_field"), Some(&Value::Int64(789)));
    assert_eq!(field_schema("instance_id"), Schema::optional_string());
    assert_eq!(
        get(&out.value, "instance_id"),
        Some(&Value::from("my-instance-id"))
    );

    // The same input schema gives the same output schema.
    let again = apply(
        &t,
        record(
            None,
            Value::Null,
            Some(schema.clone()),
            Value::Struct(Struct::new(schema).unwrap()),
            None,
        ),
    );
    assert!(Arc::ptr_eq(
        out.value_schema.as_ref().unwrap(),
        again.value_schema.as_ref().unwrap()
    ));
    // Without a timestamp the field stays null.
    assert_eq!(get(&again.value, "timestamp_field"), Some(&Value::Null));
}

#[test]
fn schemaless_fields_are_inserted() {
    let t = insert(Part::Value, &ALL);
    let value = Value::Map(vec![("magic".into(), Value::Int64(42))]);
    let out = apply(&t, record(None, Value::Null, None, value, Some(123)));
    let v = &out.value;
    assert_eq!(out.value_schema, None);
    assert_eq!(get(v, "magic"), Some(&Value::Int64(42)));
    assert_eq!(get(v, "topic_field"), Some(&Value::from("test")));
    assert_eq!(get(v, "partition_field"), Some(&Value::Int32(0)));
    assert_eq!(get(v, "timestamp_field"), Some(&Value::Int64(123)));
    assert_eq!(get(v, "instance_id"), Some(&Value::from("my-instance-id")));
}

#[test]
fn tombstones_are_left_unchanged() {
    let t = insert(Part::Value, &ALL);
    let out = apply(&t, record(None, Value::Null, None, Value::Null, None));
    assert_eq!((out.value_schema, out.value), (None, Value::Null));

    let out = apply(
        &t,
        record(None, Value::Null, Some(simple_schema()), Value::Null, None),
    );
    assert_eq!(out.value, Value::Null);
    assert_eq!(out.value_schema, Some(simple_schema()));
}

#[test]
fn key_variant_works_on_tombstones() {
    let t = insert(Part::Key, &ALL);
    let key = Value::Map(vec![("magic".into(), Value::Int64(42))]);
    let out = apply(&t, record(None, key, None, Value::Null, None));
    let k = &out.key;
    assert_eq!(get(k, "magic"), Some(&Value::Int64(42)));
    assert_eq!(get(k, "topic_field"), Some(&Value::from("test")));
    assert_eq!(get(k, "partition_field"), Some(&Value::Int32(0)));
    assert_eq!(get(k, "timestamp_field"), None);
    assert_eq!(get(k, "instance_id"), Some(&Value::from("my-instance-id")));
    assert_eq!(out.value, Value::Null);
}

#[test]
fn null_key_leaves_the_record_unchanged() {
    let t = insert(Part::Key, &ALL);
    let rec = record(
        None,
        Value::Null,
        None,
        Value::Map(vec![("magic".into(), Value::Int64(42))]),
        None,
    );
    assert_eq!(apply(&t, rec.clone()), rec);
}

#[test]
fn null_with_default_honours_replace_null_with_default() {
    let magic = SchemaBuilder::new(Type::Int64)
        .optional()
        .default_value(Value::Int64(42))
        .build();
    let schema = SchemaBuilder::struct_()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic_with_default", magic.clone())
        .build();
    for (replace, expected) in [("false", Value::Null), ("true", Value::Int64(42))] {
        let mut cfg = ALL.to_vec();
        cfg.push((REPLACE_NULL_WITH_DEFAULT, replace));
        let t = insert(Part::Value, &cfg);
        let value = Struct::new(schema.clone()).unwrap();
        let out = apply(
            &t,
            record(
                None,
                Value::Null,
                Some(schema.clone()),
                Value::Struct(value),
                Some(789),
            ),
        );
        let out_schema = out.value_schema.unwrap();
        assert_eq!(
            out_schema.field("magic_with_default").unwrap().schema,
            magic
        );
        let Value::Struct(s) = &out.value else {
            panic!()
        };
        assert_eq!(
            s.get_without_default("magic_with_default").unwrap(),
            &expected
        );
    }
}

#[test]
fn config_errors() {
    assert_eq!(config_error(&[]), "No field insertion configured");
    assert_eq!(
        config_error(&[(STATIC_FIELD, "instance_id")]),
        "Invalid value null for configuration static.value: No value specified for static field: instance_id"
    );
    assert_eq!(
        config_error(&[(TOPIC_FIELD, "t"), (REPLACE_NULL_WITH_DEFAULT, "nope")]),
        "Invalid value nope for configuration replace.null.with.default: Expected value to be either true or false"
    );
    let def = InsertField::new(Part::Value).config_def();
    let names: Vec<&str> = def.keys().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            TOPIC_FIELD,
            PARTITION_FIELD,
            OFFSET_FIELD,
            TIMESTAMP_FIELD,
            STATIC_FIELD,
            STATIC_VALUE,
            REPLACE_NULL_WITH_DEFAULT
        ]
    );
    assert!(def
        .keys()
        .filter(|k| k.name != REPLACE_NULL_WITH_DEFAULT)
        .all(|k| k.default == DefaultValue::Null));
}

#[test]
fn insertion_specs_read_their_suffix() {
    let spec = |s: &str| InsertionSpec::parse(Some(s.to_owned())).unwrap();
    assert_eq!(
        spec("a!"),
        InsertionSpec {
            name: "a".to_owned(),
            optional: false
        }
    );
    assert_eq!(
        spec("a?"),
        InsertionSpec {
            name: "a".to_owned(),
            optional: true
        }
    );
    assert_eq!(
        spec("a"),
        InsertionSpec {
            name: "a".to_owned(),
            optional: true
        }
    );
    assert_eq!(InsertionSpec::parse(None), None);
}

#[test]
fn existing_field_names_collide_with_schema_only() {
    let t = insert(Part::Value, &[(TOPIC_FIELD, "magic")]);
    let mut rec = record(
        None,
        Value::Null,
        Some(simple_schema()),
        Value::Struct(Struct::new(simple_schema()).unwrap()),
        None,
    );
    assert_eq!(
        t.apply(&mut rec).unwrap_err().to_string(),
        "Cannot create field because of field name duplication magic"
    );
    let value = Value::Map(vec![
        ("magic".into(), Value::Int64(42)),
        ("x".into(), Value::Int32(1)),
    ]);
    let out = apply(&t, record(None, Value::Null, None, value, None));
    assert_eq!(
        out.value,
        Value::Map(vec![
            ("magic".into(), "test".into()),
            ("x".into(), Value::Int32(1))
        ])
    );
}

#[test]
fn missing_partition_adds_nothing() {
    let t = insert(Part::Value, &[(PARTITION_FIELD, "p")]);
    let mut rec = record(None, Value::Null, None, Value::Map(Vec::new()), None);
    rec.kafka_partition = None;
    let out = apply(&t, rec);
    assert_eq!(out.value, Value::Map(Vec::new()));
}

#[test]
fn offset_field_needs_a_sink_record_offset() {
    let t = insert(Part::Value, &[(OFFSET_FIELD, "offset")]);
    let mut rec = record(None, Value::Null, None, Value::Map(Vec::new()), None);
    assert_eq!(
        t.apply(&mut rec).unwrap_err().to_string(),
        "Only SinkRecord supported for [field insertion], found: org.apache.kafka.connect.source.SourceRecord"
    );
    // The offset field's schema is an int64 all the same.
    let cfg = InsertConfig {
        topic: None,
        partition: None,
        offset: InsertionSpec::parse(Some("offset!".to_owned())),
        timestamp: None,
        static_field: None,
        static_value: None,
        replace_null_with_default: true,
    };
    let schema = InsertField::updated_schema(&cfg, &simple_schema()).unwrap();
    assert_eq!(schema.field("offset").unwrap().schema, Schema::int64());
    // Sink records work for every insertion.
    let sink_t = insert(Part::Value, &[(TOPIC_FIELD, "t")]);
    let mut sink = SinkRecord {
        topic: "sunk".to_owned(),
        value: Value::Map(Vec::new()),
        ..Default::default()
    };
    assert!(sink_t.apply(&mut sink).unwrap());
    assert_eq!(sink.value, Value::Map(vec![("t".into(), "sunk".into())]));
}

#[test]
fn offset_field_takes_a_sink_records_offset() {
    let t = insert(Part::Value, &[(OFFSET_FIELD, "offset")]);
    let mut sink = SinkRecord {
        topic: "t".to_owned(),
        kafka_offset: 42,
        value: Value::Map(Vec::new()),
        ..Default::default()
    };
    assert!(t.apply(&mut sink).unwrap());
    assert_eq!(
        sink.value,
        Value::Map(vec![("offset".into(), Value::Int64(42))])
    );
}
