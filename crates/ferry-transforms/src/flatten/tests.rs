use ferry_api::data::{decimal, Decimal};
use ferry_api::record::SourceRecord;

use super::*;

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn flatten(part: Part, pairs: &[(&str, &str)]) -> Flatten {
    let mut t = Flatten::new(part);
    t.configure(&props(pairs)).expect("valid config");
    t
}

fn value_record(schema: Option<SchemaRef>, value: Value) -> SourceRecord {
    SourceRecord {
        topic: "topic".to_owned(),
        kafka_partition: Some(0),
        value_schema: schema,
        value,
        ..Default::default()
    }
}

fn apply(t: &Flatten, mut rec: SourceRecord) -> SourceRecord {
    assert!(t.apply(&mut rec).expect("flatten succeeds"));
    rec
}

fn apply_err(t: &Flatten, mut rec: SourceRecord) -> String {
    t.apply(&mut rec).unwrap_err().to_string()
}

fn map(entries: Vec<(&str, Value)>) -> Value {
    Value::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

fn get<'a>(value: &'a Value, name: &str) -> &'a Value {
    match value {
        Value::Struct(s) => s.get(name).unwrap(),
        Value::Map(_) => value.map_get(name).unwrap(),
        other => panic!("not a struct or map: {other:?}"),
    }
}

fn all_types_schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .field("int8", Schema::int8())
        .field("int16", Schema::int16())
        .field("int32", Schema::int32())
        .field("int64", Schema::int64())
        .field("float32", Schema::float32())
        .field("float64", Schema::float64())
        .field("boolean", Schema::boolean())
        .field("string", Schema::string())
        .field("bytes", Schema::bytes())
        .build()
}

fn all_types_values() -> Vec<(&'static str, Value)> {
    vec![
        ("int8", Value::Int8(8)),
        ("int16", Value::Int16(16)),
        ("int32", Value::Int32(32)),
        ("int64", Value::Int64(64)),
        ("float32", Value::Float32(32.0)),
        ("float64", Value::Float64(64.0)),
        ("boolean", Value::Boolean(true)),
        ("string", "stringy".into()),
        ("bytes", Value::Bytes(b"bytes".to_vec())),
    ]
}

#[test]
fn top_level_must_be_a_struct_or_map() {
    let t = flatten(Part::Value, &[]);
    assert_eq!(
        apply_err(&t, value_record(Some(Schema::int32()), Value::Int32(42))),
        "Only Struct objects supported for [flattening], found: java.lang.Integer"
    );
    assert_eq!(
        apply_err(&t, value_record(None, Value::Int32(42))),
        "Only Map objects supported in absence of schema for [flattening], found: java.lang.Integer"
    );
}

#[test]
fn nested_structs_are_flattened() {
    let t = flatten(Part::Value, &[]);
    let leaf_schema = all_types_schema();
    let b_schema = SchemaBuilder::struct_()
        .field("B", leaf_schema.clone())
        .build();
    let a_schema = SchemaBuilder::struct_()
        .field("A", b_schema.clone())
        .build();
    let mut leaf = Struct::new(leaf_schema).unwrap();
    for (name, v) in all_types_values() {
        leaf.put(name, v).unwrap();
    }
    let mut b = Struct::new(b_schema).unwrap();
    b.put("B", Value::Struct(leaf)).unwrap();
    let mut a = Struct::new(a_schema.clone()).unwrap();
    a.put("A", Value::Struct(b)).unwrap();

    let out = apply(&t, value_record(Some(a_schema), Value::Struct(a)));
    let schema = out.value_schema.as_ref().unwrap();
    assert_eq!(schema.kind, Type::Struct);
    assert_eq!(schema.fields.len(), 9);
    for (name, v) in all_types_values() {
        assert_eq!(get(&out.value, &format!("A.B.{name}")), &v, "{name}");
    }
}

#[test]
fn nested_maps_are_flattened_with_a_custom_delimiter() {
    let t = flatten(Part::Value, &[(DELIMITER_CONFIG, "#")]);
    let value = map(vec![("A", map(vec![("B", map(all_types_values()))]))]);
    let out = apply(&t, value_record(None, value));
    assert_eq!(out.value_schema, None);
    let Value::Map(entries) = &out.value else {
        panic!()
    };
    assert_eq!(entries.len(), 9);
    for (name, v) in all_types_values() {
        assert_eq!(get(&out.value, &format!("A#B#{name}")), &v, "{name}");
    }
}

#[test]
fn optional_fields_and_structs() {
    let t = flatten(Part::Value, &[]);
    // A null optional leaf.
    let leaf_schema = SchemaBuilder::struct_()
        .field("opt_int32", Schema::optional_int32())
        .build();
    let outer_schema = SchemaBuilder::struct_()
        .field("B", leaf_schema.clone())
        .build();
    let mut outer = Struct::new(outer_schema.clone()).unwrap();
    outer
        .put("B", Value::Struct(Struct::new(leaf_schema).unwrap()))
        .unwrap();
    let out = apply(&t, value_record(Some(outer_schema), Value::Struct(outer)));
    assert_eq!(get(&out.value, "B.opt_int32"), &Value::Null);

    // A null optional nested struct.
    let opt_leaf = SchemaBuilder::struct_()
        .optional()
        .field("opt_int32", Schema::optional_int32())
        .build();
    let outer_schema = SchemaBuilder::struct_().field("B", opt_leaf).build();
    let outer = Struct::new(outer_schema.clone()).unwrap();
    let out = apply(&t, value_record(Some(outer_schema), Value::Struct(outer)));
    assert_eq!(out.value_schema.as_ref().unwrap().kind, Type::Struct);
    assert_eq!(get(&out.value, "B.opt_int32"), &Value::Null);

    // A null optional map entry.
    let value = map(vec![("B", map(vec![("opt_int32", Value::Null)]))]);
    let out = apply(&t, value_record(None, value));
    assert_eq!(get(&out.value, "B.opt_int32"), &Value::Null);
}

#[test]
fn tombstones_pass_through_untouched() {
    let t = flatten(Part::Value, &[]);
    let out = apply(&t, value_record(None, Value::Null));
    assert_eq!((out.value_schema, out.value), (None, Value::Null));

    let schema = SchemaBuilder::struct_()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic", Schema::optional_int64())
        .optional()
        .build();
    let out = apply(&t, value_record(Some(schema.clone()), Value::Null));
    assert_eq!(out.value, Value::Null);
    assert_eq!(out.value_schema, Some(schema));
}

#[test]
fn key_variant_flattens_the_key() {
    let t = flatten(Part::Key, &[]);
    let mut rec = value_record(None, "v".into());
    rec.key = map(vec![("A", map(vec![("B", Value::Int32(12))]))]);
    let out = apply(&t, rec);
    assert_eq!(out.key_schema, None);
    assert_eq!(get(&out.key, "A.B"), &Value::Int32(12));
    assert_eq!(out.value, Value::from("v"));
}

#[test]
fn arrays_are_left_alone() {
    let t = flatten(Part::Value, &[]);
    let value = map(vec![(
        "foo",
        Value::Array(vec![
            "bar".into(),
            map(vec![("baz", map(vec![("lfg", "lfg".into())]))]),
        ]),
    )]);
    let out = apply(&t, value_record(None, value.clone()));
    assert_eq!(out.value, value);

    let nested = SchemaBuilder::struct_()
        .field("lfg", Schema::string())
        .build();
    let inner = SchemaBuilder::struct_()
        .field("baz", nested.clone())
        .build();
    let schema = SchemaBuilder::struct_()
        .field(
            "foo",
            SchemaBuilder::array(inner.clone()).doc("durk").build(),
        )
        .build();
    let mut n = Struct::new(nested).unwrap();
    n.put("lfg", "lfg").unwrap();
    let mut i = Struct::new(inner).unwrap();
    i.put("baz", Value::Struct(n)).unwrap();
    let mut v = Struct::new(schema.clone()).unwrap();
    v.put("foo", Value::Array(vec![Value::Struct(i)])).unwrap();
    let out = apply(
        &t,
        value_record(Some(schema.clone()), Value::Struct(v.clone())),
    );
    assert_eq!(out.value, Value::Struct(v));
    assert_eq!(out.value_schema, Some(schema));
}

#[test]
fn optionality_and_defaults_come_down_from_parents() {
    let t = flatten(Part::Value, &[]);
    let child_fields = SchemaBuilder::struct_()
        .optional()
        .field("req_field", Schema::string())
        .field(
            "opt_field",
            SchemaBuilder::new(Type::String)
                .optional()
                .default_value("child_default".into())
                .build(),
        );
    let mut child_default = Struct::new(child_fields.clone().build()).unwrap();
    child_default.put("req_field", "req_default").unwrap();
    let schema = child_fields
        .default_value(Value::Struct(child_default))
        .build();
    let value = Struct::new(schema.clone()).unwrap();
    let out = apply(&t, value_record(Some(schema), Value::Struct(value)));
    let out_schema = out.value_schema.unwrap();
    assert_eq!(out_schema.kind, Type::Struct);
    assert_eq!(out_schema.fields.len(), 2);
    assert_eq!(
        out_schema.field("req_field").unwrap().schema,
        SchemaBuilder::new(Type::String)
            .optional()
            .default_value("req_default".into())
            .build()
    );
    assert_eq!(
        out_schema.field("opt_field").unwrap().schema,
        SchemaBuilder::new(Type::String)
            .optional()
            .default_value("child_default".into())
            .build()
    );
}

#[test]
fn null_entries_keep_their_place() {
    let t = flatten(Part::Value, &[]);
    let value = map(vec![
        ("firstNull", Value::Null),
        ("firstNonNull", "nonNull".into()),
        ("secondNull", Value::Null),
        ("secondNonNull", "alsoNonNull".into()),
        ("thirdNonNull", Value::Null),
    ]);
    let out = apply(&t, value_record(None, value.clone()));
    assert_eq!(out.value, value);

    let schema = SchemaBuilder::struct_()
        .field("firstNull", Schema::optional_string())
        .field("firstNonNull", Schema::optional_string())
        .field("secondNull", Schema::optional_string())
        .field("secondNonNull", Schema::optional_string())
        .field("thirdNonNull", Schema::optional_string())
        .build();
    let mut s = Struct::new(schema.clone()).unwrap();
    s.put("firstNonNull", "nonNull")
        .unwrap()
        .put("secondNonNull", "alsoNonNull")
        .unwrap();
    let out = apply(&t, value_record(Some(schema), Value::Struct(s.clone())));
    assert_eq!(out.value, Value::Struct(s));
}

#[test]
fn colliding_names() {
    let t = flatten(Part::Value, &[]);
    // Schemaless: the later value wins, in the first one's place.
    let value = map(vec![
        ("a.b", Value::Int32(1)),
        ("x", Value::Int32(0)),
        ("a", map(vec![("b", Value::Int32(2))])),
    ]);
    let out = apply(&t, value_record(None, value));
    assert_eq!(
        out.value,
        map(vec![("a.b", Value::Int32(2)), ("x", Value::Int32(0))])
    );
    // With a schema Java's SchemaBuilder refuses the second field.
    let inner = SchemaBuilder::struct_().field("b", Schema::int32()).build();
    let schema = SchemaBuilder::struct_()
        .field("a.b", Schema::int32())
        .field("a", inner.clone())
        .build();
    let mut i = Struct::new(inner).unwrap();
    i.put("b", 2).unwrap();
    let mut v = Struct::new(schema.clone()).unwrap();
    v.put("a.b", 1).unwrap().put("a", Value::Struct(i)).unwrap();
    assert_eq!(
        apply_err(&t, value_record(Some(schema), Value::Struct(v))),
        "Cannot create field because of field name duplication a.b"
    );
}

#[test]
fn unsupported_shapes_fail_with_javas_messages() {
    let t = flatten(Part::Value, &[]);
    let schema = SchemaBuilder::struct_()
        .field(
            "m",
            SchemaBuilder::map(Schema::string(), Schema::string()).build(),
        )
        .build();
    let v = Struct::new(schema.clone()).unwrap();
    assert_eq!(
        apply_err(&t, value_record(Some(schema), Value::Struct(v))),
        "Flatten transformation does not support MAP for record with schemas (for field m)."
    );
    let dec = map(vec![("d", Value::Decimal(Decimal::new(1, 0)))]);
    assert_eq!(
        apply_err(&t, value_record(None, dec)),
        "Flatten transformation was passed a value of type class java.math.BigDecimal which is not \
         supported by Connect's data API"
    );
    let inner = SchemaBuilder::struct_().field("b", Schema::int32()).build();
    let s = map(vec![("s", Value::Struct(Struct::new(inner).unwrap()))]);
    assert_eq!(
        apply_err(&t, value_record(None, s)),
        "Flatten transformation does not support class org.apache.kafka.connect.data.Struct for \
         record without schemas (for field s)."
    );
}

#[test]
fn leaf_schemas_keep_names_and_parameters() {
    let t = flatten(Part::Value, &[(DELIMITER_CONFIG, "_")]);
    let inner = SchemaBuilder::struct_()
        .optional()
        .field("amount", decimal(2).build())
        .build();
    let schema = SchemaBuilder::struct_()
        .name("outer")
        .field("price", inner.clone())
        .build();
    let mut i = Struct::new(inner).unwrap();
    i.put("amount", Value::Decimal(Decimal::new(201, 2)))
        .unwrap();
    let mut v = Struct::new(schema.clone()).unwrap();
    v.put("price", Value::Struct(i)).unwrap();
    let out = apply(&t, value_record(Some(schema), Value::Struct(v)));
    let out_schema = out.value_schema.unwrap();
    assert_eq!(out_schema.name.as_deref(), Some("outer"));
    assert!(!out_schema.optional);
    let amount = &out_schema.field("price_amount").unwrap().schema;
    assert_eq!(amount.kind, Type::Bytes);
    assert_eq!(amount.parameter("scale"), Some("2"));
    assert!(amount.optional, "optional because its parent is");
    assert_eq!(
        get(&out.value, "price_amount"),
        &Value::Decimal(Decimal::new(201, 2))
    );
}

#[test]
fn config_def_has_the_delimiter_with_its_default() {
    let def = Flatten::new(Part::Value).config_def();
    let key = def.key(DELIMITER_CONFIG).unwrap();
    assert_eq!(key.default, DefaultValue::Value(".".to_owned()));
    assert_eq!(def.keys().count(), 1);
}
