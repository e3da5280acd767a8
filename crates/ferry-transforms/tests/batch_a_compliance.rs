//! Runs every `$Key`/`$Value` variant of Cast, ExtractField, Flatten, HoistField, InsertField and
//! MaskField, as listed by `transformations()`, over the same records: headers, topic and the
//! untouched part must survive, and null keys or values must never panic.

use ferry_api::data::{Schema, SchemaBuilder, SchemaRef, Struct, Value};
use ferry_api::header::Headers;
use ferry_api::record::{SinkRecord, SourceRecord};
use ferry_api::transform::{Record, Transformation};
use ferry_api::ConfigMap;
use ferry_transforms::transformations;

const PREFIX: &str = "org.apache.kafka.connect.transforms.";

/// Each transform of the batch with a small valid config.
fn batch() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        ("Cast", vec![("spec", "a:string")]),
        ("ExtractField", vec![("field", "a")]),
        ("Flatten", vec![]),
        ("HoistField", vec![("field", "a")]),
        ("InsertField", vec![("topic.field", "t")]),
        ("MaskField", vec![("fields", "a")]),
    ]
}

fn create(class_name: &str, config: &[(&str, &str)]) -> Box<dyn Transformation> {
    let plugins = transformations();
    let matching: Vec<_> = plugins
        .iter()
        .filter(|p| p.class_name == class_name)
        .collect();
    assert_eq!(matching.len(), 1, "{class_name} registered once");
    let mut t = (matching[0].create)();
    let props: ConfigMap = config
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    t.configure(&props)
        .unwrap_or_else(|e| panic!("{class_name} accepts {props:?}: {e}"));
    t
}

fn variants() -> Vec<(String, bool, Box<dyn Transformation>)> {
    let mut out = Vec::new();
    for (name, config) in batch() {
        for (suffix, is_key) in [("$Key", true), ("$Value", false)] {
            let class = format!("{PREFIX}{name}{suffix}");
            let t = create(&class, &config);
            out.push((class, is_key, t));
        }
    }
    out
}

fn headers() -> Headers {
    let mut h = Headers::new();
    h.add("trace", Some(Schema::string()), "abc".into());
    h.add("trace", None, Value::Int32(7));
    h
}

fn nested_schema() -> SchemaRef {
    let inner = SchemaBuilder::struct_().field("c", Schema::int32()).build();
    SchemaBuilder::struct_()
        .field("a", Schema::int32())
        .field("b", inner)
        .build()
}

fn nested_struct() -> Value {
    let schema = nested_schema();
    let inner_schema = schema.field("b").unwrap().schema.clone();
    let mut inner = Struct::new(inner_schema).unwrap();
    inner.put("c", 2).unwrap();
    let mut outer = Struct::new(schema).unwrap();
    outer
        .put("a", 1)
        .unwrap()
        .put("b", Value::Struct(inner))
        .unwrap();
    Value::Struct(outer)
}

fn nested_map() -> Value {
    Value::Map(vec![
        ("a".into(), Value::Int32(1)),
        ("b".into(), Value::Map(vec![("c".into(), Value::Int32(2))])),
    ])
}

fn source(schema: Option<SchemaRef>, key: Value, value: Value) -> SourceRecord {
    SourceRecord {
        topic: "orders".to_owned(),
        kafka_partition: Some(3),
        key_schema: schema.clone(),
        key,
        value_schema: schema,
        value,
        timestamp: Some(1_000),
        headers: headers(),
        ..Default::default()
    }
}

fn sink(schema: Option<SchemaRef>, key: Value, value: Value) -> SinkRecord {
    SinkRecord {
        topic: "orders".to_owned(),
        kafka_partition: 3,
        kafka_offset: 42,
        key_schema: schema.clone(),
        key,
        value_schema: schema,
        value,
        timestamp: Some(1_000),
        headers: headers(),
        original_topic: "orders".to_owned(),
        original_kafka_partition: 3,
        original_kafka_offset: 42,
        ..Default::default()
    }
}

/// What a transform of one part must not touch.
fn untouched(
    record: &dyn Record,
    is_key: bool,
) -> (
    String,
    Option<i32>,
    Option<i64>,
    Headers,
    Option<SchemaRef>,
    Value,
) {
    let (schema, value) = if is_key {
        (record.value_schema().cloned(), record.value().clone())
    } else {
        (record.key_schema().cloned(), record.key().clone())
    };
    (
        record.topic().to_owned(),
        record.kafka_partition(),
        record.timestamp(),
        record.headers().clone(),
        schema,
        value,
    )
}

#[test]
fn all_twelve_classes_are_registered() {
    let names: Vec<&str> = transformations().iter().map(|p| p.class_name).collect();
    for (name, _) in batch() {
        for suffix in ["$Key", "$Value"] {
            let class = format!("{PREFIX}{name}{suffix}");
            assert_eq!(names.iter().filter(|n| **n == class).count(), 1, "{class}");
        }
    }
}

#[test]
fn records_keep_headers_and_the_other_part() {
    for (class, is_key, t) in variants() {
        let records: Vec<Box<dyn Fn() -> Box<dyn Record>>> = vec![
            Box::new(|| {
                Box::new(source(
                    Some(nested_schema()),
                    nested_struct(),
                    nested_struct(),
                ))
            }),
            Box::new(|| Box::new(source(None, nested_map(), nested_map()))),
            Box::new(|| {
                Box::new(sink(
                    Some(nested_schema()),
                    nested_struct(),
                    nested_struct(),
                ))
            }),
            Box::new(|| Box::new(sink(None, nested_map(), nested_map()))),
        ];
        for (i, make) in records.iter().enumerate() {
            let mut record = make();
            let before = untouched(record.as_ref(), is_key);
            let kept = t
                .apply(record.as_mut())
                .unwrap_or_else(|e| panic!("{class} on record {i}: {e}"));
            assert!(kept, "{class} keeps record {i}");
            assert_eq!(
                untouched(record.as_ref(), is_key),
                before,
                "{class} on record {i}"
            );
            assert_eq!(record.headers().len(), 2, "{class} on record {i}");
        }
    }
}

#[test]
fn null_parts_never_panic_and_keep_headers() {
    for (class, _, t) in variants() {
        for schema in [None, Some(nested_schema())] {
            let optional = schema.as_ref().map(|_| {
                SchemaBuilder::struct_()
                    .optional()
                    .field("a", Schema::optional_int32())
                    .build()
            });
            let cases: Vec<Box<dyn Record>> = vec![
                Box::new(source(optional.clone(), Value::Null, Value::Null)),
                Box::new(sink(optional.clone(), Value::Null, Value::Null)),
                Box::new(source(schema.clone(), Value::Null, Value::Null)),
            ];
            for mut record in cases {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let result = t.apply(record.as_mut());
                    (result.map_err(|e| e.to_string()), record.headers().clone())
                }));
                let (result, headers) =
                    outcome.unwrap_or_else(|_| panic!("{class} panicked on a null part"));
                assert_eq!(headers, self::headers(), "{class}");
                if let Ok(kept) = result {
                    assert!(kept, "{class} never drops records");
                }
            }
        }
    }
}

#[test]
fn tombstone_values_pass_through_where_java_passes_them() {
    // Java passes a null value through unchanged in these value transforms.
    for name in ["Cast", "ExtractField", "Flatten", "InsertField"] {
        let config = batch().into_iter().find(|(n, _)| *n == name).unwrap().1;
        let t = create(&format!("{PREFIX}{name}$Value"), &config);
        let mut record = source(None, "key".into(), Value::Null);
        assert!(t.apply(&mut record).unwrap(), "{name}");
        assert_eq!(record.value, Value::Null, "{name}");
        assert_eq!(record.key, Value::from("key"), "{name}");
    }
    // MaskField refuses null, as Java's does.
    let t = create(&format!("{PREFIX}MaskField$Value"), &[("fields", "a")]);
    let mut record = source(None, "key".into(), Value::Null);
    assert!(t.apply(&mut record).is_err());
    // HoistField wraps the null.
    let t = create(&format!("{PREFIX}HoistField$Value"), &[("field", "a")]);
    let mut record = source(None, "key".into(), Value::Null);
    assert!(t.apply(&mut record).unwrap());
    assert_eq!(record.value, Value::Map(vec![("a".into(), Value::Null)]));
}

#[test]
fn config_defs_list_javas_keys() {
    let expected: [(&str, &[&str]); 6] = [
        ("Cast", &["spec", "replace.null.with.default"]),
        (
            "ExtractField",
            &["field", "replace.null.with.default", "field.syntax.version"],
        ),
        ("Flatten", &["delimiter"]),
        ("HoistField", &["field"]),
        (
            "InsertField",
            &[
                "topic.field",
                "partition.field",
                "offset.field",
                "timestamp.field",
                "static.field",
                "static.value",
                "replace.null.with.default",
            ],
        ),
        (
            "MaskField",
            &["fields", "replacement", "replace.null.with.default"],
        ),
    ];
    let plugins = transformations();
    for (name, keys) in expected {
        for suffix in ["$Key", "$Value"] {
            let class = format!("{PREFIX}{name}{suffix}");
            let plugin = plugins.iter().find(|p| p.class_name == class).unwrap();
            let def = (plugin.create)().config_def();
            let names: Vec<&str> = def.keys().map(|k| k.name.as_str()).collect();
            assert_eq!(names, keys, "{class}");
        }
    }
}
