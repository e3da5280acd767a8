use std::sync::Arc;

use ferry_api::data::{Schema, SchemaRef, Type};
use ferry_api::record::SinkRecord;

use super::*;

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn hoist(part: Part, field: &str) -> HoistField {
    let mut t = HoistField::new(part);
    t.configure(&props(&[(FIELD_CONFIG, field)]))
        .expect("valid config");
    t
}

fn key_record(schema: Option<SchemaRef>, key: Value) -> SinkRecord {
    SinkRecord {
        topic: "test".to_owned(),
        key_schema: schema,
        key,
        ..Default::default()
    }
}

fn apply(t: &HoistField, mut rec: SinkRecord) -> SinkRecord {
    assert!(t.apply(&mut rec).expect("hoist succeeds"));
    rec
}

fn apply_err(t: &HoistField, mut rec: SinkRecord) -> String {
    t.apply(&mut rec).unwrap_err().to_string()
}

#[test]
fn schemaless_value_is_wrapped_in_a_map() {
    let t = hoist(Part::Key, "magic");
    let out = apply(&t, key_record(None, Value::Int32(42)));
    assert_eq!(out.key_schema, None);
    assert_eq!(
        out.key,
        Value::Map(vec![("magic".into(), Value::Int32(42))])
    );
}

#[test]
fn value_with_schema_is_wrapped_in_a_struct() {
    let t = hoist(Part::Key, "magic");
    let out = apply(&t, key_record(Some(Schema::int32()), Value::Int32(42)));
    let schema = out.key_schema.unwrap();
    assert_eq!(schema.kind, Type::Struct);
    assert!(!schema.optional);
    assert_eq!(schema.field("magic").unwrap().schema, Schema::int32());
    let Value::Struct(s) = &out.key else { panic!() };
    assert_eq!(s.get("magic").unwrap(), &Value::Int32(42));
}

#[test]
fn value_variant_hoists_the_value_only() {
    let t = hoist(Part::Value, "wrapped");
    let mut rec = key_record(Some(Schema::string()), "k".into());
    rec.value_schema = Some(Schema::string());
    rec.value = "v".into();
    let out = apply(&t, rec);
    assert_eq!(out.key, Value::from("k"));
    assert_eq!(out.key_schema, Some(Schema::string()));
    let Value::Struct(s) = &out.value else {
        panic!()
    };
    assert_eq!(s.get("wrapped").unwrap(), &Value::from("v"));
}

#[test]
fn nulls_are_hoisted_too() {
    let t = hoist(Part::Value, "wrapped");
    let mut out = key_record(None, Value::Null);
    assert!(t.apply(&mut out).unwrap());
    assert_eq!(out.value, Value::Map(vec![("wrapped".into(), Value::Null)]));

    let mut rec = key_record(None, Value::Null);
    rec.value_schema = Some(Schema::optional_string());
    assert!(t.apply(&mut rec).unwrap());
    let Value::Struct(s) = &rec.value else {
        panic!()
    };
    assert_eq!(s.get("wrapped").unwrap(), &Value::Null);

    // A required schema cannot hold the null, as in Java; the record is left alone.
    let mut rec = key_record(None, Value::Null);
    rec.value_schema = Some(Schema::string());
    let before = rec.clone();
    let err = t.apply(&mut rec).unwrap_err().to_string();
    assert_eq!(
        err,
        "Invalid value: null used for required field: \"wrapped\", schema type: STRING"
    );
    assert_eq!(rec, before);
}

#[test]
fn mismatched_value_leaves_the_record_alone() {
    let t = hoist(Part::Key, "magic");
    let rec = key_record(Some(Schema::int32()), "not a number".into());
    let mut after = rec.clone();
    assert!(t.apply(&mut after).is_err());
    assert_eq!(after, rec);
}

#[test]
fn schema_is_cached() {
    let t = hoist(Part::Key, "magic");
    let a = apply(&t, key_record(Some(Schema::int32()), Value::Int32(1)));
    let b = apply(&t, key_record(Some(Schema::int32()), Value::Int32(2)));
    assert!(Arc::ptr_eq(
        a.key_schema.as_ref().unwrap(),
        b.key_schema.as_ref().unwrap()
    ));
}

#[test]
fn config_requires_field_and_refuses_empty_names_on_use() {
    let err = HoistField::new(Part::Key)
        .configure(&props(&[]))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Missing required configuration \"field\" which has no default value."
    );
    let t = hoist(Part::Key, "");
    assert_eq!(
        apply_err(&t, key_record(Some(Schema::int32()), Value::Int32(1))),
        "fieldName cannot be null."
    );
    // Schemaless data takes the empty name as it is.
    let out = apply(&t, key_record(None, Value::Int32(1)));
    assert_eq!(out.key, Value::Map(vec![("".into(), Value::Int32(1))]));
}
