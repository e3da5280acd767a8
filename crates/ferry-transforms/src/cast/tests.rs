use std::sync::Arc;

use ferry_api::data::{date, decimal, time, timestamp, Schema, SchemaBuilder, SchemaRef};
use ferry_api::record::SourceRecord;

use super::*;

const DAY: i64 = 86_400_000;
const HOUR: i64 = 3_600_000;

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn cast(part: Part, pairs: &[(&str, &str)]) -> Cast {
    let mut t = Cast::new(part);
    t.configure(&props(pairs)).expect("valid config");
    t
}

fn spec(part: Part, spec: &str) -> Cast {
    cast(part, &[(SPEC_CONFIG, spec)])
}

fn config_error(spec: &str) -> String {
    Cast::new(Part::Key)
        .configure(&props(&[(SPEC_CONFIG, spec)]))
        .unwrap_err()
        .to_string()
}

fn record(
    key_schema: Option<SchemaRef>,
    key: Value,
    value_schema: Option<SchemaRef>,
    value: Value,
) -> SourceRecord {
    SourceRecord {
        topic: "topic".to_owned(),
        kafka_partition: Some(0),
        key_schema,
        key,
        value_schema,
        value,
        ..Default::default()
    }
}

fn value_record(schema: Option<SchemaRef>, value: Value) -> SourceRecord {
    record(None, Value::Null, schema, value)
}

fn apply(t: &Cast, mut rec: SourceRecord) -> SourceRecord {
    assert!(t.apply(&mut rec).expect("cast succeeds"));
    rec
}

fn apply_err(t: &Cast, mut rec: SourceRecord) -> String {
    t.apply(&mut rec).unwrap_err().to_string()
}

fn field<'a>(value: &'a Value, name: &str) -> &'a Value {
    match value {
        Value::Struct(s) => s.get(name).unwrap(),
        Value::Map(_) => value.map_get(name).unwrap(),
        other => panic!("not a struct or map: {other:?}"),
    }
}

fn field_schema(schema: &Option<SchemaRef>, name: &str) -> SchemaRef {
    schema.as_ref().unwrap().field(name).unwrap().schema.clone()
}

#[test]
fn config_errors_use_javas_messages() {
    assert_eq!(config_error(""), "Must specify at least one field to cast.");
    assert_eq!(
        config_error("foo:faketype"),
        "Invalid type found in casting spec: faketype"
    );
    let to_array = "Cast transformation does not support casting to ARRAY; supported types are \
                    [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";
    assert_eq!(config_error("foo:array"), to_array);
    assert_eq!(config_error("array"), to_array);
    assert!(config_error("foo:bytes")
        .starts_with("Cast transformation does not support casting to BYTES;"));
    assert_eq!(
        config_error("foo:int8:extra"),
        "Invalid value [foo:int8:extra] for configuration renames: Invalid rename mapping: foo:int8:extra"
    );
    assert_eq!(
        config_error("foo:int8,int32"),
        "Cast transformations that specify a type to cast the entire value to may only specify a \
         single cast in their spec"
    );
    let missing = Cast::new(Part::Value).configure(&props(&[])).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "Missing required configuration \"spec\" which has no default value."
    );
    let bad_flag = Cast::new(Part::Value)
        .configure(&props(&[
            (SPEC_CONFIG, "int8"),
            (REPLACE_NULL_WITH_DEFAULT_CONFIG, "maybe"),
        ]))
        .unwrap_err();
    assert_eq!(
        bad_flag.to_string(),
        "Invalid value maybe for configuration replace.null.with.default: Expected value to be either true or false"
    );
}

#[test]
fn config_def_reports_bad_specs_when_validating() {
    let def = Cast::new(Part::Value).config_def();
    let reports = def.validate(&props(&[(SPEC_CONFIG, "foo:nope")]));
    let spec_report = reports.iter().find(|r| r.name == SPEC_CONFIG).unwrap();
    assert_eq!(spec_report.errors.len(), 1);
    assert!(spec_report.errors[0].contains("Invalid type found in casting spec: nope"));
    let ok = def.validate(&props(&[(SPEC_CONFIG, "a:int8,b:string")]));
    assert!(ok.iter().all(|r| r.errors.is_empty()));
    assert_eq!(
        def.key(REPLACE_NULL_WITH_DEFAULT_CONFIG).unwrap().default,
        DefaultValue::Value("true".to_owned())
    );
}

#[test]
fn spec_parsing_follows_java_string_split() {
    assert_eq!(split_colon("a"), vec!["a"]);
    assert_eq!(split_colon(""), vec![""]);
    assert_eq!(split_colon("a:b:"), vec!["a", "b"]);
    assert_eq!(split_colon("::"), Vec::<&str>::new());
    // "foo:" loses its empty type and so reads as a whole-value cast to "foo".
    assert_eq!(
        config_error("foo:"),
        "Invalid type found in casting spec: foo"
    );
    let parsed = parse_spec(&[
        " a : INT8 ".to_owned(),
        "b:Float64".to_owned(),
        "a:string".to_owned(),
    ])
    .unwrap();
    assert_eq!(parsed.whole, None);
    assert_eq!(
        parsed.fields,
        vec![
            ("a".to_owned(), Type::String),
            ("b".to_owned(), Type::Float64)
        ]
    );
}

#[test]
fn null_keys_and_values_pass_through() {
    let value_cast = spec(Part::Value, "foo:int64");
    let with_schema = record(
        Some(Schema::string()),
        "key".into(),
        Some(Schema::string()),
        Value::Null,
    );
    assert_eq!(apply(&value_cast, with_schema.clone()), with_schema);
    let schemaless = record(Some(Schema::string()), "key".into(), None, Value::Null);
    assert_eq!(apply(&value_cast, schemaless.clone()), schemaless);

    let key_cast = spec(Part::Key, "foo:int64");
    let null_key = record(
        Some(Schema::string()),
        Value::Null,
        Some(Schema::string()),
        "value".into(),
    );
    assert_eq!(apply(&key_cast, null_key.clone()), null_key);
    let null_key_schemaless = record(None, Value::Null, Some(Schema::string()), "value".into());
    assert_eq!(
        apply(&key_cast, null_key_schemaless.clone()),
        null_key_schemaless
    );
}

#[test]
fn null_field_with_default_honours_replace_null_with_default() {
    let schema = SchemaBuilder::struct_()
        .field(
            "magic",
            SchemaBuilder::new(Type::Int32)
                .optional()
                .default_value(Value::Int32(10))
                .build(),
        )
        .build();
    for (replace, expected) in [("true", Value::from("10")), ("false", Value::Null)] {
        let t = cast(
            Part::Value,
            &[
                (SPEC_CONFIG, "magic:string"),
                (REPLACE_NULL_WITH_DEFAULT_CONFIG, replace),
            ],
        );
        let value = Struct::new(schema.clone()).unwrap();
        let out = apply(&t, value_record(Some(schema.clone()), Value::Struct(value)));
        assert_eq!(field_schema(&out.value_schema, "magic").kind, Type::String);
        let Value::Struct(s) = &out.value else {
            panic!()
        };
        assert_eq!(s.get_without_default("magic").unwrap(), &expected);
    }
}

#[test]
fn whole_key_with_schema() {
    let t = spec(Part::Key, "int8");
    let out = apply(
        &t,
        record(
            Some(Schema::int32()),
            Value::Int32(42),
            Some(Schema::string()),
            "bogus".into(),
        ),
    );
    assert_eq!(out.key_schema.as_ref().unwrap().kind, Type::Int8);
    assert_eq!(out.key, Value::Int8(42));
    assert_eq!(out.value, Value::from("bogus"));
    assert_eq!(out.value_schema, Some(Schema::string()));
}

#[test]
fn whole_value_to_every_type_with_and_without_schema() {
    let cases = [
        ("int8", Type::Int8, Value::Int8(42)),
        ("int16", Type::Int16, Value::Int16(42)),
        ("int32", Type::Int32, Value::Int32(42)),
        ("int64", Type::Int64, Value::Int64(42)),
        ("float32", Type::Float32, Value::Float32(42.0)),
        ("float64", Type::Float64, Value::Float64(42.0)),
        ("boolean", Type::Boolean, Value::Boolean(true)),
        ("string", Type::String, Value::from("42")),
    ];
    for (name, kind, expected) in cases {
        let t = spec(Part::Value, name);
        let out = apply(&t, value_record(Some(Schema::int32()), Value::Int32(42)));
        assert_eq!(out.value_schema.as_ref().unwrap().kind, kind, "{name}");
        assert_eq!(out.value, expected, "{name}");
        let out = apply(&t, value_record(None, Value::Int32(42)));
        assert_eq!(out.value_schema, None, "{name}");
        assert_eq!(out.value, expected, "{name}");
    }
    let t = spec(Part::Value, "boolean");
    assert_eq!(
        apply(&t, value_record(Some(Schema::int32()), Value::Int32(0))).value,
        Value::Boolean(false)
    );
    assert_eq!(
        apply(&t, value_record(None, Value::Int32(0))).value,
        Value::Boolean(false)
    );
    let key_t = spec(Part::Key, "int8");
    let out = apply(
        &key_t,
        record(
            None,
            Value::Int32(42),
            Some(Schema::string()),
            "bogus".into(),
        ),
    );
    assert_eq!(out.key_schema, None);
    assert_eq!(out.key, Value::Int8(42));
}

#[test]
fn whole_decimal_and_timestamp_to_string() {
    let t = spec(Part::Value, "string");
    let out = apply(
        &t,
        value_record(
            Some(decimal(0).build()),
            Value::Decimal(Decimal::new(42, 0)),
        ),
    );
    assert_eq!(out.value_schema.as_ref().unwrap().kind, Type::String);
    assert_eq!(out.value, Value::from("42"));
    // Java copies the schema's name and parameters onto the new schema.
    assert_eq!(
        out.value_schema.as_ref().unwrap().name.as_deref(),
        Some(ferry_api::data::DECIMAL_LOGICAL_NAME)
    );

    let out = apply(
        &t,
        value_record(Some(timestamp().build()), Value::Int64(DAY + 1)),
    );
    assert_eq!(out.value_schema.as_ref().unwrap().kind, Type::String);
    assert_eq!(out.value, Value::from("1970-01-02T00:00:00.001Z"));
}

#[test]
fn whole_value_default_is_cast_too() {
    let t = spec(Part::Value, "int32");
    let schema = SchemaBuilder::new(Type::Float32)
        .default_value(Value::Float32(-42.125))
        .build();
    let out = apply(&t, value_record(Some(schema), Value::Float32(42.125)));
    let out_schema = out.value_schema.unwrap();
    assert_eq!(out_schema.kind, Type::Int32);
    assert_eq!(out.value, Value::Int32(42));
    assert_eq!(out_schema.default, Some(Value::Int32(-42)));
}

#[test]
fn schemaless_whole_value_of_unsupported_type_fails() {
    let t = spec(Part::Value, "int8");
    let err = apply_err(&t, value_record(None, Value::Array(vec!["foo".into()])));
    assert_eq!(
        err,
        "Cast transformation does not support casting from ARRAY; supported types are \
         [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"
    );
    let err = apply_err(&t, value_record(None, Value::Decimal(Decimal::new(1, 0))));
    assert_eq!(
        err,
        "Cast transformation was passed a value of type class java.math.BigDecimal which is not \
         supported by Connect's data API"
    );
}

#[test]
fn logical_types_cast_from_their_physical_form() {
    let t = spec(
        Part::Value,
        "date_to_int32:int32,timestamp_to_int64:int64,time_to_int64:int64,decimal_to_int32:int32,\
         timestamp_to_float64:float64,null_timestamp_to_int32:int32",
    );
    let schema = SchemaBuilder::struct_()
        .field("date_to_int32", date().build())
        .field("timestamp_to_int64", timestamp().build())
        .field("time_to_int64", time().build())
        .field("decimal_to_int32", decimal(0).build())
        .field("timestamp_to_float64", timestamp().build())
        .field("null_timestamp_to_int32", timestamp().optional().build())
        .build();
    let mut value = Struct::new(schema.clone()).unwrap();
    value
        .put("date_to_int32", Value::Int32(1))
        .unwrap()
        .put("timestamp_to_int64", Value::Int64(0))
        .unwrap()
        .put("time_to_int64", Value::Int32(1))
        .unwrap()
        .put(
            "decimal_to_int32",
            Value::Decimal(Decimal::new(i64::from(i32::MAX) + 1, 0)),
        )
        .unwrap()
        .put("timestamp_to_float64", Value::Int64(i64::MAX))
        .unwrap();
    let out = apply(&t, value_record(Some(schema), Value::Struct(value)));
    assert_eq!(field(&out.value, "date_to_int32"), &Value::Int32(1));
    assert_eq!(field(&out.value, "timestamp_to_int64"), &Value::Int64(0));
    assert_eq!(field(&out.value, "time_to_int64"), &Value::Int64(1));
    assert_eq!(
        field(&out.value, "decimal_to_int32"),
        &Value::Int32(i32::MIN)
    );
    assert_eq!(
        field(&out.value, "timestamp_to_float64"),
        &Value::Float64(9.223372036854776E18)
    );
    assert_eq!(field(&out.value, "null_timestamp_to_int32"), &Value::Null);
    for (name, kind) in [
        ("date_to_int32", Type::Int32),
        ("timestamp_to_int64", Type::Int64),
        ("time_to_int64", Type::Int64),
        ("decimal_to_int32", Type::Int32),
        ("timestamp_to_float64", Type::Float64),
        ("null_timestamp_to_int32", Type::Int32),
    ] {
        let s = field_schema(&out.value_schema, name);
        assert_eq!(s.kind, kind, "{name}");
        assert_eq!(s.name, None, "{name}");
    }
}

#[test]
fn logical_types_to_string_use_iso_text() {
    let t = spec(
        Part::Value,
        "date:string,decimal:string,time:string,timestamp:string",
    );
    let schema = SchemaBuilder::struct_()
        .field("date", date().build())
        .field("decimal", decimal(0).build())
        .field("time", time().build())
        .field("timestamp", timestamp().build())
        .build();
    let mut value = Struct::new(schema.clone()).unwrap();
    value
        .put("date", Value::Int32(1))
        .unwrap()
        .put("decimal", Value::Decimal(Decimal::new(1982, 0)))
        .unwrap()
        .put("time", Value::Int32(HOUR as i32))
        .unwrap()
        .put("timestamp", Value::Int64(1_700_000_000_123))
        .unwrap();
    let out = apply(&t, value_record(Some(schema), Value::Struct(value)));
    assert_eq!(field(&out.value, "date"), &Value::from("1970-01-02"));
    assert_eq!(field(&out.value, "decimal"), &Value::from("1982"));
    assert_eq!(field(&out.value, "time"), &Value::from("01:00:00.000Z"));
    assert_eq!(
        field(&out.value, "timestamp"),
        &Value::from("2023-11-14T22:13:20.123Z")
    );
    for name in ["date", "decimal", "time", "timestamp"] {
        assert_eq!(field_schema(&out.value_schema, name).kind, Type::String);
    }
}

#[test]
fn struct_fields_with_schema() {
    let t = spec(
        Part::Value,
        "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,\
         boolean:int8,string:int32,bigdecimal:string,date:string,optional:int32,bytes:string",
    );
    let schema = SchemaBuilder::struct_()
        .field("int8", Schema::int8())
        .field("int16", Schema::optional_int16())
        .field(
            "int32",
            SchemaBuilder::new(Type::Int32)
                .default_value(Value::Int32(2))
                .build(),
        )
        .field("int64", Schema::int64())
        .field("float32", Schema::float32())
        .field(
            "float64",
            SchemaBuilder::new(Type::Float64)
                .default_value(Value::Float64(-1.125))
                .build(),
        )
        .field("boolean", Schema::boolean())
        .field("string", Schema::string())
        .field("bigdecimal", decimal(0).build())
        .field("date", date().build())
        .field("optional", Schema::optional_float32())
        .field("timestamp", timestamp().build())
        .field("bytes", Schema::bytes())
        .build();
    let mut value = Struct::new(schema.clone()).unwrap();
    value
        .put("int8", Value::Int8(8))
        .unwrap()
        .put("int16", Value::Int16(16))
        .unwrap()
        .put("int32", Value::Int32(32))
        .unwrap()
        .put("int64", Value::Int64(64))
        .unwrap()
        .put("float32", Value::Float32(32.0))
        .unwrap()
        .put("float64", Value::Float64(-64.0))
        .unwrap()
        .put("boolean", Value::Boolean(true))
        .unwrap()
        .put("bigdecimal", Value::Decimal(Decimal::new(42, 0)))
        .unwrap()
        .put("date", Value::Int32(1))
        .unwrap()
        .put("string", "42")
        .unwrap()
        .put("timestamp", Value::Int64(0))
        .unwrap()
        .put(
            "bytes",
            Value::Bytes(vec![0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10]),
        )
        .unwrap();
    let out = apply(&t, value_record(Some(schema), Value::Struct(value)));
    let v = &out.value;
    assert_eq!(field(v, "int8"), &Value::Int16(8));
    assert_eq!(field(v, "int16"), &Value::Int32(16));
    assert!(field_schema(&out.value_schema, "int16").optional);
    assert_eq!(field(v, "int32"), &Value::Int64(32));
    assert_eq!(
        field_schema(&out.value_schema, "int32").default,
        Some(Value::Int64(2))
    );
    assert_eq!(field(v, "int64"), &Value::Boolean(true));
    assert_eq!(field(v, "float32"), &Value::Float64(32.0));
    assert_eq!(field(v, "float64"), &Value::Boolean(true));
    assert_eq!(
        field_schema(&out.value_schema, "float64").default,
        Some(Value::Boolean(true))
    );
    assert_eq!(field(v, "boolean"), &Value::Int8(1));
    assert_eq!(field(v, "string"), &Value::Int32(42));
    assert_eq!(field(v, "bigdecimal"), &Value::from("42"));
    assert_eq!(field(v, "date"), &Value::from("1970-01-02"));
    assert_eq!(field(v, "timestamp"), &Value::Int64(0));
    assert_eq!(field(v, "bytes"), &Value::from("/ty6mHZUMhA="));
    assert_eq!(field(v, "optional"), &Value::Null);

    let kinds = [
        ("int8", Type::Int16),
        ("int16", Type::Int32),
        ("int32", Type::Int64),
        ("int64", Type::Boolean),
        ("float32", Type::Float64),
        ("float64", Type::Boolean),
        ("boolean", Type::Int8),
        ("string", Type::Int32),
        ("bigdecimal", Type::String),
        ("date", Type::String),
        ("optional", Type::Int32),
        ("bytes", Type::String),
    ];
    for (name, kind) in kinds {
        assert_eq!(field_schema(&out.value_schema, name).kind, kind, "{name}");
    }
    // Fields outside the spec keep their schema.
    assert_eq!(
        field_schema(&out.value_schema, "timestamp"),
        timestamp().build()
    );
    assert!(field_schema(&out.value_schema, "optional").optional);
}

#[test]
fn map_fields_without_schema() {
    let t = spec(
        Part::Value,
        "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,\
         boolean:int8,string:int32,absent:string",
    );
    let value = Value::Map(vec![
        ("int8".into(), Value::Int8(8)),
        ("int16".into(), Value::Int16(16)),
        ("int32".into(), Value::Int32(32)),
        ("int64".into(), Value::Int64(64)),
        ("float32".into(), Value::Float32(32.0)),
        ("float64".into(), Value::Float64(-64.0)),
        ("boolean".into(), Value::Boolean(true)),
        ("string".into(), "42".into()),
        ("untouched".into(), "x".into()),
    ]);
    let out = apply(&t, value_record(None, value));
    assert_eq!(out.value_schema, None);
    let v = &out.value;
    assert_eq!(field(v, "int8"), &Value::Int16(8));
    assert_eq!(field(v, "int16"), &Value::Int32(16));
    assert_eq!(field(v, "int32"), &Value::Int64(32));
    assert_eq!(field(v, "int64"), &Value::Boolean(true));
    assert_eq!(field(v, "float32"), &Value::Float64(32.0));
    assert_eq!(field(v, "float64"), &Value::Boolean(true));
    assert_eq!(field(v, "boolean"), &Value::Int8(1));
    assert_eq!(field(v, "string"), &Value::Int32(42));
    assert_eq!(field(v, "untouched"), &Value::from("x"));
    // Java's map put adds the spec's missing fields with null.
    assert_eq!(field(v, "absent"), &Value::Null);
}

#[test]
fn non_map_schemaless_value_is_refused() {
    let t = spec(Part::Value, "a:int8");
    assert_eq!(
        apply_err(&t, value_record(None, Value::Int32(1))),
        "Only Map objects supported in absence of schema for [cast types], found: java.lang.Integer"
    );
    assert_eq!(
        apply_err(&t, value_record(Some(Schema::int32()), Value::Int32(1))),
        "Cannot list fields on non-struct type"
    );
}

#[test]
fn struct_schema_with_a_default_cannot_be_cast() {
    let inner = SchemaBuilder::struct_().field("a", Schema::int32()).build();
    let mut default = Struct::new(inner.clone()).unwrap();
    default.put("a", 1).unwrap();
    let schema = SchemaBuilder::struct_()
        .field("a", Schema::int32())
        .default_value(Value::Struct(default.clone()))
        .build();
    let t = spec(Part::Value, "a:int64");
    let err = apply_err(&t, value_record(Some(schema), Value::Struct(default)));
    assert!(
        err.starts_with("Cast transformation does not support casting from STRUCT"),
        "{err}"
    );
}

#[test]
fn string_parsing_follows_java() {
    let to = |target: Type, text: &str| cast_value(None, &Value::from(text), target);
    assert_eq!(to(Type::Int8, "+12").unwrap(), Value::Int8(12));
    assert_eq!(
        to(Type::Int8, "300").unwrap_err().to_string(),
        "Value (300) was out of range for requested data type"
    );
    assert!(to(Type::Int32, " 1").is_err());
    assert!(to(Type::Int64, "1.5").is_err());
    assert_eq!(to(Type::Float32, " 1.5f ").unwrap(), Value::Float32(1.5));
    assert_eq!(
        to(Type::Float64, "-Infinity").unwrap(),
        Value::Float64(f64::NEG_INFINITY)
    );
    assert_eq!(to(Type::Float64, "1e3").unwrap(), Value::Float64(1000.0));
    assert_eq!(to(Type::Float64, ".5").unwrap(), Value::Float64(0.5));
    assert!(to(Type::Float64, "inf").is_err());
    assert!(to(Type::Float64, "1_0").is_err());
    assert!(matches!(to(Type::Float64, "NaN").unwrap(), Value::Float64(v) if v.is_nan()));
    assert_eq!(to(Type::Boolean, "TRUE").unwrap(), Value::Boolean(true));
    assert_eq!(to(Type::Boolean, "yes").unwrap(), Value::Boolean(false));
}

#[test]
fn number_narrowing_follows_java() {
    let to = |target: Type, v: Value| cast_value(None, &v, target).unwrap();
    assert_eq!(to(Type::Int8, Value::Int32(300)), Value::Int8(44));
    assert_eq!(to(Type::Int8, Value::Float64(300.7)), Value::Int8(44));
    assert_eq!(
        to(Type::Int32, Value::Float64(1e20)),
        Value::Int32(i32::MAX)
    );
    assert_eq!(to(Type::Int64, Value::Float32(f32::NAN)), Value::Int64(0));
    assert_eq!(
        to(Type::Boolean, Value::Float64(0.5)),
        Value::Boolean(false)
    );
    assert_eq!(
        to(Type::String, Value::Float64(1e10)),
        Value::from("1.0E10")
    );
    assert_eq!(to(Type::String, Value::Boolean(true)), Value::from("true"));
    assert_eq!(
        cast_value(None, &Value::Bytes(vec![1]), Type::Int8)
            .unwrap_err()
            .to_string(),
        "Unexpected type in Cast transformation: class [B"
    );
    let dec = |unscaled: i64, scale: i32| Decimal::new(unscaled, scale);
    assert_eq!(decimal_long_value(&dec(-12345, 2)), -123);
    assert_eq!(decimal_long_value(&dec(5, -3)), 5000);
    assert_eq!(decimal_long_value(&dec(1, -70)), 0);
    assert_eq!(decimal_double_value(&dec(125, 3)), 0.125);
    assert_eq!(parse_java_big_decimal("-1.50"), Some(dec(-150, 2)));
    assert_eq!(parse_java_big_decimal("1E+3"), Some(dec(1, -3)));
    assert_eq!(parse_java_big_decimal("+.5"), Some(dec(5, 1)));
    assert_eq!(parse_java_big_decimal("1_0"), None);
    assert_eq!(parse_java_big_decimal("."), None);
    assert_eq!(parse_java_big_decimal("1e99999999999"), None);
}

#[test]
fn derived_schema_is_cached_per_input_schema() {
    let t = spec(Part::Value, "a:string");
    let schema = SchemaBuilder::struct_().field("a", Schema::int32()).build();
    let make = |s: &SchemaRef| {
        let mut v = Struct::new(s.clone()).unwrap();
        v.put("a", 1).unwrap();
        value_record(Some(s.clone()), Value::Struct(v))
    };
    let first = apply(&t, make(&schema)).value_schema.unwrap();
    let second = apply(&t, make(&schema)).value_schema.unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    // An equal schema in another allocation finds the same entry.
    let copy = Arc::new((*schema).clone());
    let third = apply(&t, make(&copy)).value_schema.unwrap();
    assert!(Arc::ptr_eq(&first, &third));
}

#[test]
fn unconfigured_transform_fails_cleanly() {
    let t = Cast::new(Part::Value);
    assert!(apply_err(&t, value_record(None, Value::Int32(1))).contains("configured"));
}
