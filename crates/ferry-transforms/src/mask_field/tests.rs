use ferry_api::data::{date, decimal, time, timestamp, SchemaBuilder, SchemaRef, Type};
use ferry_api::record::SinkRecord;

use super::*;

fn schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .field("magic", Schema::int32())
        .field("bool", Schema::boolean())
        .field("byte", Schema::int8())
        .field("short", Schema::int16())
        .field("int", Schema::int32())
        .field("long", Schema::int64())
        .field("float", Schema::float32())
        .field("double", Schema::float64())
        .field("string", Schema::string())
        .field("date", date().build())
        .field("time", time().build())
        .field("timestamp", timestamp().build())
        .field("decimal", decimal(0).build())
        .field("array", SchemaBuilder::array(Schema::int32()).build())
        .field(
            "map",
            SchemaBuilder::map(Schema::string(), Schema::string()).build(),
        )
        .field(
            "withDefault",
            SchemaBuilder::new(Type::String)
                .optional()
                .default_value("default".into())
                .build(),
        )
        .build()
}

fn struct_value() -> Value {
    let mut s = Struct::new(schema()).unwrap();
    s.put("magic", 42)
        .unwrap()
        .put("bool", true)
        .unwrap()
        .put("byte", Value::Int8(42))
        .unwrap()
        .put("short", Value::Int16(42))
        .unwrap()
        .put("int", 42)
        .unwrap()
        .put("long", Value::Int64(42))
        .unwrap()
        .put("float", Value::Float32(42.0))
        .unwrap()
        .put("double", Value::Float64(42.0))
        .unwrap()
        .put("string", "hmm")
        .unwrap()
        .put("date", Value::Int32(19_000))
        .unwrap()
        .put("time", Value::Int32(3_600_000))
        .unwrap()
        .put("timestamp", Value::Int64(1_700_000_000_000))
        .unwrap()
        .put("decimal", Value::Decimal(Decimal::new(42, 0)))
        .unwrap()
        .put(
            "array",
            Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)]),
        )
        .unwrap()
        .put("map", Value::Map(vec![("what".into(), "what".into())]))
        .unwrap();
    Value::Struct(s)
}

fn map_value() -> Value {
    Value::Map(vec![
        ("magic".into(), Value::Int32(42)),
        ("bool".into(), Value::Boolean(true)),
        ("byte".into(), Value::Int8(42)),
        ("short".into(), Value::Int16(42)),
        ("int".into(), Value::Int32(42)),
        ("long".into(), Value::Int64(42)),
        ("float".into(), Value::Float32(42.0)),
        ("double".into(), Value::Float64(42.0)),
        ("string".into(), "55.121.20.20".into()),
        ("bigdec".into(), Value::Decimal(Decimal::new(420, 1))),
        ("list".into(), Value::Array(vec![Value::Int32(42)])),
        (
            "map".into(),
            Value::Map(vec![("key".into(), "value".into())]),
        ),
    ])
}

fn props(fields: &[&str], replacement: Option<&str>) -> ConfigMap {
    let mut p = ConfigMap::new();
    p.insert(FIELDS_CONFIG.to_owned(), fields.join(","));
    if let Some(r) = replacement {
        p.insert(REPLACEMENT_CONFIG.to_owned(), r.to_owned());
    }
    p.insert(
        REPLACE_NULL_WITH_DEFAULT_CONFIG.to_owned(),
        "false".to_owned(),
    );
    p
}

fn mask(fields: &[&str], replacement: Option<&str>) -> MaskField {
    let mut t = MaskField::new(Part::Value);
    t.configure(&props(fields, replacement))
        .expect("valid config");
    t
}

fn record(schema: Option<SchemaRef>, value: Value) -> SinkRecord {
    SinkRecord {
        topic: String::new(),
        value_schema: schema,
        value,
        ..Default::default()
    }
}

fn try_apply(t: &MaskField, schema: Option<SchemaRef>, value: Value) -> Result<Value, String> {
    let mut rec = record(schema, value);
    t.apply(&mut rec).map_err(|e| e.to_string())?;
    Ok(rec.value)
}

fn get<'a>(value: &'a Value, name: &str) -> &'a Value {
    match value {
        Value::Struct(s) => s.get(name).unwrap(),
        Value::Map(_) => value.map_get(name).unwrap(),
        other => panic!("not a struct or map: {other:?}"),
    }
}

#[test]
fn schemaless_fields_become_empty_values() {
    let fields = [
        "bool", "byte", "short", "int", "long", "float", "double", "string", "bigdec", "list",
        "map",
    ];
    let out = try_apply(&mask(&fields, None), None, map_value()).unwrap();
    assert_eq!(get(&out, "magic"), &Value::Int32(42));
    assert_eq!(get(&out, "bool"), &Value::Boolean(false));
    assert_eq!(get(&out, "byte"), &Value::Int8(0));
    assert_eq!(get(&out, "short"), &Value::Int16(0));
    assert_eq!(get(&out, "int"), &Value::Int32(0));
    assert_eq!(get(&out, "long"), &Value::Int64(0));
    assert_eq!(get(&out, "float"), &Value::Float32(0.0));
    assert_eq!(get(&out, "double"), &Value::Float64(0.0));
    assert_eq!(get(&out, "string"), &Value::from(""));
    assert_eq!(get(&out, "bigdec"), &Value::Decimal(Decimal::new(0, 0)));
    assert_eq!(get(&out, "list"), &Value::Array(Vec::new()));
    assert_eq!(get(&out, "map"), &Value::Map(Vec::new()));
}

#[test]
fn struct_fields_become_empty_values() {
    let all: Vec<String> = schema()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .filter(|n| n != "magic")
        .collect();
    let names: Vec<&str> = all.iter().map(String::as_str).collect();
    let out = try_apply(&mask(&names, None), Some(schema()), struct_value()).unwrap();
    assert_eq!(get(&out, "magic"), &Value::Int32(42));
    assert_eq!(get(&out, "bool"), &Value::Boolean(false));
    assert_eq!(get(&out, "byte"), &Value::Int8(0));
    assert_eq!(get(&out, "short"), &Value::Int16(0));
    assert_eq!(get(&out, "int"), &Value::Int32(0));
    assert_eq!(get(&out, "long"), &Value::Int64(0));
    assert_eq!(get(&out, "float"), &Value::Float32(0.0));
    assert_eq!(get(&out, "double"), &Value::Float64(0.0));
    assert_eq!(get(&out, "string"), &Value::from(""));
    // The epoch, in physical form.
    assert_eq!(get(&out, "date"), &Value::Int32(0));
    assert_eq!(get(&out, "time"), &Value::Int32(0));
    assert_eq!(get(&out, "timestamp"), &Value::Int64(0));
    assert_eq!(get(&out, "decimal"), &Value::Decimal(Decimal::new(0, 0)));
    assert_eq!(get(&out, "array"), &Value::Array(Vec::new()));
    assert_eq!(get(&out, "map"), &Value::Map(Vec::new()));
    let Value::Struct(s) = &out else { panic!() };
    assert_eq!(s.get_without_default("withDefault").unwrap(), &Value::Null);
}

#[test]
fn schemaless_replacements_take_the_field_type() {
    let cases = [
        ("short", Value::Int16(123)),
        ("byte", Value::Int8(123)),
        ("int", Value::Int32(123)),
        ("long", Value::Int64(123)),
        ("float", Value::Float32(123.0)),
        ("double", Value::Float64(123.0)),
        ("string", Value::from("123")),
        ("bigdec", Value::Decimal(Decimal::new(1230, 1))),
    ];
    for (name, expected) in cases {
        let replacement = if name == "bigdec" { "123.0" } else { "123" };
        let out = try_apply(&mask(&[name], Some(replacement)), None, map_value()).unwrap();
        assert_eq!(get(&out, name), &expected, "{name}");
    }
    // Fractions are dropped for integer fields, as Java's Values conversions do.
    let out = try_apply(&mask(&["int"], Some("123.9")), None, map_value()).unwrap();
    assert_eq!(get(&out, "int"), &Value::Int32(123));
}

#[test]
fn struct_replacements_take_the_field_type() {
    let cases = [
        ("short", Value::Int16(123)),
        ("byte", Value::Int8(123)),
        ("int", Value::Int32(123)),
        ("long", Value::Int64(123)),
        ("float", Value::Float32(123.0)),
        ("double", Value::Float64(123.0)),
        ("string", Value::from("123")),
        ("decimal", Value::Decimal(Decimal::new(1230, 1))),
    ];
    for (name, expected) in cases {
        let replacement = if name == "decimal" { "123.0" } else { "123" };
        let out = try_apply(
            &mask(&[name], Some(replacement)),
            Some(schema()),
            struct_value(),
        )
        .unwrap();
        assert_eq!(get(&out, name), &expected, "{name}");
    }
}

#[test]
fn unsupported_replacement_targets_fail() {
    let err = try_apply(&mask(&["bool"], Some("false")), None, map_value()).unwrap_err();
    assert_eq!(
        err,
        "Cannot mask value of type class java.lang.Boolean with custom replacement."
    );
    let err = try_apply(&mask(&["list"], Some("123")), None, map_value()).unwrap_err();
    assert!(err.starts_with("Cannot mask value of type"), "{err}");
    let err = try_apply(&mask(&["map"], Some("123")), None, map_value()).unwrap_err();
    assert!(err.starts_with("Cannot mask value of type"), "{err}");
    for name in ["date", "time", "timestamp"] {
        let err =
            try_apply(&mask(&[name], Some("123")), Some(schema()), struct_value()).unwrap_err();
        assert_eq!(
            err, "Cannot mask value of type class java.util.Date with custom replacement.",
            "{name}"
        );
    }
    let err = try_apply(
        &mask(&["array"], Some("123")),
        Some(schema()),
        struct_value(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        "Cannot mask value of type class java.util.ArrayList with custom replacement."
    );
}

#[test]
fn replacement_that_is_not_a_number_fails() {
    for name in ["byte", "short", "int", "long", "float", "double"] {
        let err = try_apply(&mask(&[name], Some("foo")), None, map_value()).unwrap_err();
        assert_eq!(
            err, "Unable to convert foo (class java.lang.String) to a number",
            "{name}"
        );
    }
    let err = try_apply(&mask(&["bigdec"], Some("foo")), None, map_value()).unwrap_err();
    assert_eq!(
        err,
        "Unable to convert foo (class java.lang.String) to number"
    );
    let err = try_apply(&mask(&["string", "int"], Some("foo")), None, map_value()).unwrap_err();
    assert!(err.starts_with("Unable to convert foo"), "{err}");
}

#[test]
fn unmaskable_types_without_replacement_fail() {
    let schema = SchemaBuilder::struct_().field("b", Schema::bytes()).build();
    let mut s = Struct::new(schema.clone()).unwrap();
    s.put("b", Value::Bytes(vec![1])).unwrap();
    let err = try_apply(&mask(&["b"], None), Some(schema), Value::Struct(s)).unwrap_err();
    assert_eq!(err, "Cannot mask value of type: class [B");
}

#[test]
fn config_errors_use_javas_messages() {
    let mut t = MaskField::new(Part::Value);
    let err = t.configure(&props(&["short"], Some(""))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid value  for configuration replacement: String must be non-empty"
    );
    let err = t.configure(&props(&[], None)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Configuration 'fields' must not be empty. Valid values include: any non-empty value"
    );
    let err = t.configure(&ConfigMap::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Missing required configuration \"fields\" which has no default value."
    );
}

#[test]
fn empty_list_and_map_masks_are_fresh_values() {
    let out = try_apply(
        &mask(&["array", "map"], None),
        Some(schema()),
        struct_value(),
    )
    .unwrap();
    assert_eq!(get(&out, "array"), &Value::Array(Vec::new()));
    assert_eq!(get(&out, "map"), &Value::Map(Vec::new()));
}

#[test]
fn nulls_are_refused_as_in_java() {
    let t = mask(&["a"], None);
    assert_eq!(
        try_apply(&t, None, Value::Null).unwrap_err(),
        "Only Map objects supported in absence of schema for [mask fields], found: null"
    );
    assert_eq!(
        try_apply(&t, Some(schema()), Value::Null).unwrap_err(),
        "Only Struct objects supported for [mask fields], found: null"
    );
}

#[test]
fn missing_schemaless_fields_are_added_as_null() {
    let t = mask(&["absent"], None);
    let out = try_apply(&t, None, Value::Map(vec![("a".into(), Value::Int32(1))])).unwrap();
    assert_eq!(
        out,
        Value::Map(vec![
            ("a".into(), Value::Int32(1)),
            ("absent".into(), Value::Null)
        ])
    );
}

#[test]
fn default_stands_in_for_null_when_replacing_nulls_with_defaults() {
    let mut t = MaskField::new(Part::Value);
    let mut p = props(&["withDefault"], None);
    p.insert(
        REPLACE_NULL_WITH_DEFAULT_CONFIG.to_owned(),
        "true".to_owned(),
    );
    t.configure(&p).unwrap();
    let out = try_apply(&t, Some(schema()), struct_value()).unwrap();
    let Value::Struct(s) = &out else { panic!() };
    assert_eq!(
        s.get_without_default("withDefault").unwrap(),
        &Value::from("")
    );
}

#[test]
fn key_variant_masks_the_key() {
    let mut t = MaskField::new(Part::Key);
    t.configure(&props(&["int"], None)).unwrap();
    let mut rec = record(None, "value".into());
    rec.key = map_value();
    assert!(t.apply(&mut rec).unwrap());
    assert_eq!(get(&rec.key, "int"), &Value::Int32(0));
    assert_eq!(rec.value, Value::from("value"));
}
