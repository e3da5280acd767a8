use ferry_api::data::{Schema, SchemaBuilder, SchemaRef};
use ferry_api::record::SinkRecord;

use super::*;

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn extract(part: Part, pairs: &[(&str, &str)]) -> ExtractField {
    let mut t = ExtractField::new(part);
    t.configure(&props(pairs)).expect("valid config");
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

fn value_record(schema: Option<SchemaRef>, value: Value) -> SinkRecord {
    SinkRecord {
        topic: "test".to_owned(),
        value_schema: schema,
        value,
        ..Default::default()
    }
}

fn apply(t: &ExtractField, mut rec: SinkRecord) -> SinkRecord {
    assert!(t.apply(&mut rec).expect("extraction succeeds"));
    rec
}

fn apply_err(t: &ExtractField, mut rec: SinkRecord) -> String {
    t.apply(&mut rec).unwrap_err().to_string()
}

fn map(entries: Vec<(&str, Value)>) -> Value {
    Value::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

fn nested_key() -> (SchemaRef, Value) {
    let foo = SchemaBuilder::struct_()
        .field("foo", Schema::int32())
        .build();
    let schema = SchemaBuilder::struct_().field("magic", foo.clone()).build();
    let mut inner = Struct::new(foo).unwrap();
    inner.put("foo", 42).unwrap();
    let mut outer = Struct::new(schema.clone()).unwrap();
    outer.put("magic", Value::Struct(inner)).unwrap();
    (schema, Value::Struct(outer))
}

const V2: (&str, &str) = (FIELD_SYNTAX_VERSION_CONFIG, "V2");

#[test]
fn schemaless_top_level_field() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic")]);
    let out = apply(&t, key_record(None, map(vec![("magic", Value::Int32(42))])));
    assert_eq!(out.key_schema, None);
    assert_eq!(out.key, Value::Int32(42));
}

#[test]
fn schemaless_nested_path() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic.foo"), V2]);
    let key = map(vec![("magic", map(vec![("foo", Value::Int32(42))]))]);
    let out = apply(&t, key_record(None, key));
    assert_eq!(out.key_schema, None);
    assert_eq!(out.key, Value::Int32(42));
}

#[test]
fn schemaless_null_stays_null() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic")]);
    let out = apply(&t, key_record(None, Value::Null));
    assert_eq!(out.key_schema, None);
    assert_eq!(out.key, Value::Null);
}

#[test]
fn with_schema_top_level_field() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic")]);
    let schema = SchemaBuilder::struct_()
        .field("magic", Schema::int32())
        .build();
    let mut key = Struct::new(schema.clone()).unwrap();
    key.put("magic", 42).unwrap();
    let out = apply(&t, key_record(Some(schema), Value::Struct(key)));
    assert_eq!(out.key_schema, Some(Schema::int32()));
    assert_eq!(out.key, Value::Int32(42));
}

#[test]
fn with_schema_nested_path() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic.foo"), V2]);
    let (schema, key) = nested_key();
    let out = apply(&t, key_record(Some(schema), key));
    assert_eq!(out.key_schema, Some(Schema::int32()));
    assert_eq!(out.key, Value::Int32(42));
}

#[test]
fn with_schema_null_value_takes_the_field_schema() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic")]);
    let schema = SchemaBuilder::struct_()
        .field("magic", Schema::int32())
        .optional()
        .build();
    let out = apply(&t, key_record(Some(schema), Value::Null));
    assert_eq!(out.key_schema, Some(Schema::int32()));
    assert_eq!(out.key, Value::Null);
}

#[test]
fn missing_schemaless_fields_give_null() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "nonexistent")]);
    let out = apply(&t, key_record(None, map(vec![("magic", Value::Int32(42))])));
    assert_eq!(out.key_schema, None);
    assert_eq!(out.key, Value::Null);

    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic.nonexistent"), V2]);
    let key = map(vec![("magic", map(vec![("foo", Value::Int32(42))]))]);
    let out = apply(&t, key_record(None, key));
    assert_eq!(out.key, Value::Null);
}

#[test]
fn missing_fields_with_schema_fail() {
    let t = extract(Part::Key, &[(FIELD_CONFIG, "nonexistent")]);
    let schema = SchemaBuilder::struct_()
        .field("magic", Schema::int32())
        .build();
    let mut key = Struct::new(schema.clone()).unwrap();
    key.put("magic", 42).unwrap();
    let rec = key_record(Some(schema), Value::Struct(key));
    assert_eq!(apply_err(&t, rec.clone()), "Unknown field: nonexistent");
    // The record is left as it was.
    let mut unchanged = rec.clone();
    let _ = t.apply(&mut unchanged);
    assert_eq!(unchanged, rec);

    let t = extract(Part::Key, &[(FIELD_CONFIG, "magic.nonexistent"), V2]);
    let (schema, key) = nested_key();
    assert_eq!(
        apply_err(&t, key_record(Some(schema), key)),
        "Unknown field: magic.nonexistent"
    );
}

#[test]
fn null_with_default_honours_replace_null_with_default() {
    let schema = SchemaBuilder::struct_()
        .field(
            "optional_with_default",
            SchemaBuilder::new(Type::Int32)
                .optional()
                .default_value(Value::Int32(42))
                .build(),
        )
        .build();
    for (replace, expected) in [("false", Value::Null), ("true", Value::Int32(42))] {
        let cfg = [
            (FIELD_CONFIG, "optional_with_default"),
            (REPLACE_NULL_WITH_DEFAULT_CONFIG, replace),
        ];
        let value = Value::Struct(Struct::new(schema.clone()).unwrap());
        let key_t = extract(Part::Key, &cfg);
        let out = apply(&key_t, key_record(Some(schema.clone()), value.clone()));
        assert_eq!(out.key, expected);
        let value_t = extract(Part::Value, &cfg);
        let out = apply(&value_t, value_record(Some(schema.clone()), value));
        assert_eq!(out.value, expected);
        assert_eq!(out.key, Value::Null);
    }
}

#[test]
fn value_variant_leaves_the_key_alone() {
    let t = extract(Part::Value, &[(FIELD_CONFIG, "a")]);
    let mut rec = value_record(None, map(vec![("a", "x".into())]));
    rec.key = "k".into();
    let out = apply(&t, rec);
    assert_eq!(out.key, Value::from("k"));
    assert_eq!(out.value, Value::from("x"));
}

#[test]
fn wrong_shapes_are_refused_with_javas_messages() {
    let t = extract(Part::Value, &[(FIELD_CONFIG, "a")]);
    assert_eq!(
        apply_err(&t, value_record(None, Value::Int32(1))),
        "Only Map objects supported in absence of schema for [field extraction], found: java.lang.Integer"
    );
    assert_eq!(
        apply_err(&t, value_record(Some(Schema::int32()), Value::Int32(1))),
        "Only Struct objects supported for [field extraction], found: java.lang.Integer"
    );
    // With a null value the schema is still consulted.
    assert_eq!(
        apply_err(
            &t,
            value_record(Some(Schema::optional_int32()), Value::Null)
        ),
        "Cannot look up fields on non-struct type"
    );
    let nested = extract(Part::Value, &[(FIELD_CONFIG, "a.b"), V2]);
    assert_eq!(
        apply_err(&nested, value_record(None, map(vec![("a", Value::Int32(1))]))),
        "Only Map objects supported in absence of schema for [nested field access], found: java.lang.Integer"
    );
}

#[test]
fn config_keys_and_errors() {
    let missing = ExtractField::new(Part::Value)
        .configure(&props(&[]))
        .unwrap_err();
    assert_eq!(
        missing.to_string(),
        "Missing required configuration \"field\" which has no default value."
    );
    let bad_version = ExtractField::new(Part::Value)
        .configure(&props(&[
            (FIELD_CONFIG, "a"),
            (FIELD_SYNTAX_VERSION_CONFIG, "v3"),
        ]))
        .unwrap_err();
    assert_eq!(
        bad_version.to_string(),
        "Invalid value v3 for configuration field.syntax.version: String must be one of (case insensitive): V1, V2"
    );
    // Lower case is accepted.
    extract(
        Part::Value,
        &[(FIELD_CONFIG, "a.b"), (FIELD_SYNTAX_VERSION_CONFIG, "v2")],
    );
    let bad_path = ExtractField::new(Part::Value)
        .configure(&props(&[(FIELD_CONFIG, "`a.b"), V2]))
        .unwrap_err();
    assert_eq!(
        bad_path.to_string(),
        "Incomplete backtick pair in path: [`a.b], consider adding a backslash before backtick at position 0 to escape it"
    );
    let def = ExtractField::new(Part::Value).config_def();
    let names: Vec<&str> = def.keys().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            FIELD_CONFIG,
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            FIELD_SYNTAX_VERSION_CONFIG
        ]
    );
    assert_eq!(
        def.key(FIELD_SYNTAX_VERSION_CONFIG).unwrap().default,
        DefaultValue::Value("V1".to_owned())
    );
}

fn steps(text: &str) -> Vec<String> {
    FieldPath::parse(text, FieldSyntaxVersion::V2)
        .unwrap()
        .steps()
        .to_vec()
}

#[test]
fn v2_paths_split_on_dots_and_honour_backticks() {
    assert_eq!(steps("foo"), vec!["foo"]);
    assert_eq!(steps("foo.bar.baz"), vec!["foo", "bar", "baz"]);
    assert_eq!(steps("`foo.bar`.baz"), vec!["foo.bar", "baz"]);
    assert_eq!(steps("foo.`bar.baz`"), vec!["foo", "bar.baz"]);
    assert_eq!(steps("`foo`bar`.baz"), vec!["foo`bar", "baz"]);
    assert_eq!(steps("`foo\\`.bar`.baz"), vec!["foo`.bar", "baz"]);
    assert_eq!(steps("foo."), vec!["foo", ""]);
    assert_eq!(steps(".foo"), vec!["", "foo"]);
    assert_eq!(steps("foo..bar"), vec!["foo", "", "bar"]);
    assert_eq!(steps("``"), vec![""]);
    assert!(FieldPath::parse("`foo\\`", FieldSyntaxVersion::V2).is_err());
    assert!(FieldPath::parse("foo.`bar", FieldSyntaxVersion::V2).is_err());
    // V1 keeps the text whole.
    assert_eq!(
        FieldPath::parse("a.b", FieldSyntaxVersion::V1)
            .unwrap()
            .steps(),
        ["a.b".to_owned()]
    );
}

#[test]
fn v1_reads_dotted_names_as_one_field() {
    let t = extract(Part::Value, &[(FIELD_CONFIG, "a.b")]);
    let out = apply(&t, value_record(None, map(vec![("a.b", Value::Int32(7))])));
    assert_eq!(out.value, Value::Int32(7));
}

#[test]
fn empty_v2_path_fails_without_panicking() {
    let t = extract(Part::Value, &[(FIELD_CONFIG, ""), V2]);
    let mut rec = value_record(None, map(vec![("a", Value::Int32(1))]));
    assert!(t.apply(&mut rec).is_err());
}
