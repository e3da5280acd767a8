//! Failures: every one is a DataException in Java, with the message Java produces.

use ferry_api::converter::Converter;
use ferry_api::data::{
    decimal, time, Decimal, Schema, SchemaBuilder, SchemaRef, Struct, Type, Value,
};
use ferry_api::{ConfigMap, ConnectError};
use ferry_json::JsonConverter;

const ENVELOPE: &str = "JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.";

fn converter(config: &[(&str, &str)]) -> JsonConverter {
    let props: ConfigMap = config
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut c = JsonConverter::new();
    Converter::configure(&mut c, &props, false).unwrap();
    c
}

fn data_message(err: ConnectError) -> String {
    match err {
        ConnectError::Data { message } => message,
        other => panic!("expected a data error, got {other:?}"),
    }
}

fn read_error(json: &str) -> String {
    data_message(
        converter(&[])
            .to_connect_data("topic", Some(json.as_bytes()))
            .expect_err(json),
    )
}

fn write_error(schema: Option<SchemaRef>, value: Value) -> String {
    write_error_with(&[], schema, value)
}

fn write_error_with(config: &[(&str, &str)], schema: Option<SchemaRef>, value: Value) -> String {
    data_message(
        converter(config)
            .from_connect_data("topic", schema.as_ref(), &value)
            .expect_err("should fail"),
    )
}

#[test]
fn bad_envelopes() {
    for json in [
        r#"{"schema":null}"#,
        r#"{"payload":1}"#,
        r#"{"schema":null,"payload":1,"extra":2}"#,
        r#"{"schema":null,"other":1}"#,
        r#"{"a":1}"#,
        "[1]",
        "\"plain\"",
        "12",
        "",
    ] {
        assert_eq!(read_error(json), ENVELOPE, "{json}");
    }
}

#[test]
fn invalid_json() {
    let message = read_error(r#"{"schema":null,"payload":}"#);
    assert!(
        message.starts_with(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ),
        "{message}"
    );
}

#[test]
fn bad_schemas() {
    let cases = [
        (
            r#"{"schema":{"optional":true},"payload":1}"#,
            "Schema must contain 'type' field",
        ),
        (
            r#"{"schema":"int32","payload":1}"#,
            "Schema must contain 'type' field",
        ),
        (
            r#"{"schema":{"type":"uuid"},"payload":1}"#,
            "Unknown schema type: uuid",
        ),
        (
            r#"{"schema":{"type":"array"},"payload":[]}"#,
            "Array schema did not specify the element type",
        ),
        (
            r#"{"schema":{"type":"map","values":{"type":"int32"}},"payload":{}}"#,
            "Map schema did not specify the key type",
        ),
        (
            r#"{"schema":{"type":"map","keys":{"type":"int32"}},"payload":{}}"#,
            "Map schema did not specify the value type",
        ),
        (
            r#"{"schema":{"type":"struct","fields":{}},"payload":{}}"#,
            "Struct schema's \"fields\" argument is not an array.",
        ),
        (
            r#"{"schema":{"type":"struct","fields":[{"type":"int32"}]},"payload":{}}"#,
            "Struct schema's field name not specified properly",
        ),
        (
            r#"{"schema":{"type":"int32","parameters":{"a":1}},"payload":1}"#,
            "Schema parameters must have string values.",
        ),
        (
            r#"{"schema":{"type":"int32","default":null},"payload":1}"#,
            "Invalid null value for required INT32 field",
        ),
        (
            r#"{"schema":{"type":"string","default":5},"payload":"x"}"#,
            "Invalid default value",
        ),
    ];
    for (json, want) in cases {
        assert_eq!(read_error(json), want, "{json}");
    }
}

#[test]
fn bad_payloads() {
    let cases = [
        (
            r#"{"schema":{"type":"int32"},"payload":null}"#,
            "Invalid null value for required INT32 field",
        ),
        (
            r#"{"schema":{"type":"map","keys":{"type":"string"},"values":{"type":"int32"}},"payload":[]}"#,
            "Maps with string fields should be encoded as JSON objects, but found ARRAY",
        ),
        (
            r#"{"schema":{"type":"map","keys":{"type":"int32"},"values":{"type":"int32"}},"payload":{}}"#,
            "Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT",
        ),
        (
            r#"{"schema":{"type":"map","keys":{"type":"int32"},"values":{"type":"int32"}},"payload":[1]}"#,
            "Found invalid map entry instead of array tuple: NUMBER",
        ),
        (
            r#"{"schema":{"type":"map","keys":{"type":"int32"},"values":{"type":"int32"}},"payload":[[1]]}"#,
            "Found invalid map entry, expected length 2 but found :1",
        ),
        (
            r#"{"schema":{"type":"struct","fields":[]},"payload":"x"}"#,
            "Structs should be encoded as JSON objects, but found STRING",
        ),
        (
            r#"{"schema":{"type":"struct","fields":[{"field":"a","type":"string"}]},"payload":{}}"#,
            "Invalid null value for required STRING field",
        ),
        (
            r#"{"schema":{"type":"struct","fields":[{"field":"a","type":"string"}]},"payload":{"a":5}}"#,
            "Invalid value: null used for required field: \"a\", schema type: STRING",
        ),
        (r#"{"schema":{"type":"bytes"},"payload":"AJw"}"#, "Invalid bytes field"),
        (
            r#"{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},"payload":"!!"}"#,
            "Invalid bytes for Decimal field",
        ),
        (
            r#"{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},"payload":true}"#,
            "Invalid type for Decimal, underlying representation should be numeric or bytes but was BOOLEAN",
        ),
        (
            r#"{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Date"},"payload":"2020-01-01"}"#,
            "Invalid type for Date, underlying representation should be integer but was STRING",
        ),
        (
            r#"{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Time"},"payload":86400001}"#,
            "Time values must use number of milliseconds greater than 0 and less than 86400000",
        ),
        (
            r#"{"schema":{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"},"payload":1.5}"#,
            "Invalid type for Timestamp, underlying representation should be integral but was NUMBER",
        ),
    ];
    for (json, want) in cases {
        assert_eq!(read_error(json), want, "{json}");
    }
}

#[test]
fn type_mismatches_on_write() {
    // mismatchSchemaJson.
    assert_eq!(
        write_error(Some(Schema::float64()), Value::Boolean(true)),
        "Invalid type for FLOAT64: class java.lang.Boolean"
    );
    assert_eq!(
        write_error(Some(Schema::int64()), Value::Int32(1)),
        "Invalid type for INT64: class java.lang.Integer"
    );
    assert_eq!(
        write_error(Some(Schema::bytes()), Value::String("x".into())),
        "Invalid type for bytes type: class java.lang.String"
    );
    assert_eq!(
        write_error(
            Some(SchemaBuilder::array(Schema::int32()).build()),
            Value::Map(vec![])
        ),
        "Invalid type for ARRAY: class java.util.HashMap"
    );
    assert_eq!(
        write_error(
            Some(SchemaBuilder::array(Schema::int32()).build()),
            Value::Array(vec![Value::String("x".into())])
        ),
        "Invalid type for INT32: class java.lang.String"
    );
    assert_eq!(
        write_error(
            Some(SchemaBuilder::map(Schema::string(), Schema::int32()).build()),
            Value::Map(vec![(Value::Int32(1), Value::Int32(1))])
        ),
        "Invalid type for STRING: class java.lang.Integer"
    );
}

#[test]
fn nulls_and_structs_on_write() {
    assert_eq!(
        write_error(Some(Schema::int32()), Value::Null),
        "Conversion error: null value for field that is required and has no default value"
    );
    let schema = SchemaBuilder::struct_().field("a", Schema::int32()).build();
    let other = SchemaBuilder::struct_().field("b", Schema::int32()).build();
    let mut st = Struct::new(other).unwrap();
    st.put("b", 1).unwrap();
    assert_eq!(
        write_error(Some(schema.clone()), Value::Struct(st.clone())),
        "Mismatching schema."
    );
    assert_eq!(
        write_error(Some(schema.clone()), Value::Int32(1)),
        "Invalid type for STRUCT: class java.lang.Integer"
    );
    // An unset required field fails when it is reached.
    let empty = Struct::new(schema.clone()).unwrap();
    assert_eq!(
        write_error(Some(schema), Value::Struct(empty)),
        "Conversion error: null value for field that is required and has no default value"
    );
    // Java compares a schemaless struct's schema with null and fails.
    assert_eq!(write_error(None, Value::Struct(st)), "Mismatching schema.");
}

#[test]
fn logical_types_on_write() {
    // decimalToJsonWithoutSchema.
    assert_eq!(
        write_error(None, Value::Decimal(Decimal::new(156, 2))),
        "Java class class java.math.BigDecimal does not have corresponding schema type."
    );
    assert_eq!(
        write_error(Some(decimal(2).build()), Value::Decimal(Decimal::new(156, 3))),
        "Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, value has scale 3."
    );
    assert_eq!(
        write_error(Some(decimal(2).build()), Value::Bytes(vec![1])),
        "Invalid type for Decimal, expected BigDecimal but was class [B"
    );
    let no_scale = SchemaBuilder::new(Type::Bytes)
        .name("org.apache.kafka.connect.data.Decimal")
        .build();
    assert_eq!(
        write_error(Some(no_scale), Value::Decimal(Decimal::new(1, 0))),
        "Invalid Decimal schema: scale parameter not found."
    );
    assert_eq!(
        write_error(Some(time().build()), Value::Int32(86_400_001)),
        "Kafka Connect Time type should not have any date fields set to non-zero values."
    );
    assert_eq!(
        write_error(Some(time().build()), Value::Int64(1)),
        "Invalid type for Time, expected Date but was class java.lang.Long"
    );
    // NUMERIC skips the scale check, as Java does.
    let ok = converter(&[("decimal.format", "NUMERIC")])
        .from_connect_data(
            "topic",
            Some(&decimal(2).build()),
            &Value::Decimal(Decimal::new(15, 1)),
        )
        .unwrap()
        .unwrap();
    assert!(String::from_utf8(ok).unwrap().ends_with("\"payload\":1.5}"));
    // A mismatch inside the schema's default is reported too.
    assert_eq!(
        write_error_with(
            &[],
            Some(
                SchemaBuilder::new(Type::Int32)
                    .default_value(Value::String("x".into()))
                    .build()
            ),
            Value::Int32(1)
        ),
        "Invalid type for INT32: class java.lang.String"
    );
}

#[test]
fn bad_configuration() {
    let mut c = JsonConverter::new();
    let props: ConfigMap = [("decimal.format".to_owned(), "HEX".to_owned())].into();
    let err = Converter::configure(&mut c, &props, false).unwrap_err();
    assert!(matches!(err, ConnectError::Config(_)));
    assert_eq!(
        err.to_string(),
        "Invalid value HEX for configuration decimal.format: String must be one of (case insensitive): BASE64, NUMERIC"
    );
}
