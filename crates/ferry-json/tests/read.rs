//! Reading JSON written by hand, mostly the inputs of Kafka's `JsonConverterTest`
//! (`*ToConnect` cases), which use spaces and key orders Java itself never writes.

use ferry_api::converter::Converter;
use ferry_api::data::{
    date, decimal, time, timestamp, Decimal, Schema, SchemaAndValue, SchemaBuilder, Struct, Type,
    Value,
};
use ferry_api::ConfigMap;
use ferry_json::JsonConverter;

fn converter(config: &[(&str, &str)]) -> JsonConverter {
    let props: ConfigMap = config
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut c = JsonConverter::new();
    Converter::configure(&mut c, &props, false).unwrap();
    c
}

fn read(c: &JsonConverter, json: &str) -> SchemaAndValue {
    c.to_connect_data("topic", Some(json.as_bytes()))
        .unwrap_or_else(|e| panic!("{json}: {e}"))
}

fn read_default(json: &str) -> SchemaAndValue {
    read(&converter(&[]), json)
}

fn sv(schema: ferry_api::data::SchemaRef, value: Value) -> SchemaAndValue {
    SchemaAndValue::new(Some(schema), value)
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

#[test]
fn schema_metadata() {
    assert_eq!(
        read_default(r#"{ "schema": { "type": "boolean" }, "payload": true }"#),
        sv(Schema::boolean(), Value::Boolean(true))
    );
    assert_eq!(
        read_default(r#"{ "schema": { "type": "boolean", "optional": true }, "payload": null }"#),
        sv(Schema::optional_boolean(), Value::Null)
    );
    assert_eq!(
        read_default(r#"{ "schema": { "type": "boolean", "default": true }, "payload": null }"#),
        sv(
            SchemaBuilder::new(Type::Boolean)
                .default_value(Value::Boolean(true))
                .build(),
            Value::Boolean(true)
        )
    );
    assert_eq!(
        read_default(
            r#"{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2, "doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }"#
        ),
        sv(
            SchemaBuilder::new(Type::Boolean)
                .name("bool")
                .version(2)
                .doc("the documentation")
                .parameter("foo", "bar")
                .build(),
            Value::Boolean(true)
        )
    );
}

#[test]
fn primitives() {
    let cases = [
        (
            r#"{ "schema": { "type": "int8" }, "payload": 12 }"#,
            sv(Schema::int8(), Value::Int8(12)),
        ),
        (
            r#"{ "schema": { "type": "int16" }, "payload": 12 }"#,
            sv(Schema::int16(), Value::Int16(12)),
        ),
        (
            r#"{ "schema": { "type": "int32" }, "payload": 12 }"#,
            sv(Schema::int32(), Value::Int32(12)),
        ),
        (
            r#"{ "schema": { "type": "int64" }, "payload": 4398046511104 }"#,
            sv(Schema::int64(), Value::Int64(4398046511104)),
        ),
        // numberWithLeadingZerosToConnect: Connect enables ALLOW_LEADING_ZEROS_FOR_NUMBERS.
        (
            r#"{ "schema": { "type": "int8" }, "payload": 0012 }"#,
            sv(Schema::int8(), Value::Int8(12)),
        ),
        (
            r#"{ "schema": { "type": "int64" }, "payload": 00000123456789 }"#,
            sv(Schema::int64(), Value::Int64(123456789)),
        ),
        (
            r#"{ "schema": { "type": "float" }, "payload": 12.34 }"#,
            sv(Schema::float32(), Value::Float32(12.34)),
        ),
        (
            r#"{ "schema": { "type": "double" }, "payload": 12.34 }"#,
            sv(Schema::float64(), Value::Float64(12.34)),
        ),
        (
            r#"{ "schema": { "type": "bytes" }, "payload": "dGVzdC1zdHJpbmc=" }"#,
            sv(Schema::bytes(), Value::Bytes(b"test-string".to_vec())),
        ),
        (
            r#"{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }"#,
            sv(Schema::string(), s("foo-bar-baz")),
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(read_default(json), expected, "{json}");
    }
}

#[test]
fn containers() {
    assert_eq!(
        read_default(
            r#"{ "schema": { "type": "array", "items": { "type" : "int32" } }, "payload": [1, 2, 3] }"#
        ),
        sv(
            SchemaBuilder::array(Schema::int32()).build(),
            Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)])
        )
    );
    assert_eq!(
        read_default(
            r#"{ "schema": { "type": "map", "keys": { "type" : "string" }, "values": { "type" : "int32" } }, "payload": { "key1": 12, "key2": 15} }"#
        ),
        sv(
            SchemaBuilder::map(Schema::string(), Schema::int32()).build(),
            Value::Map(vec![
                (s("key1"), Value::Int32(12)),
                (s("key2"), Value::Int32(15))
            ])
        )
    );
    assert_eq!(
        read_default(
            r#"{ "schema": { "type": "map", "keys": { "type" : "int32" }, "values": { "type" : "int32" } }, "payload": [ [1, 12], [2, 15] ] }"#
        ),
        sv(
            SchemaBuilder::map(Schema::int32(), Schema::int32()).build(),
            Value::Map(vec![
                (Value::Int32(1), Value::Int32(12)),
                (Value::Int32(2), Value::Int32(15))
            ])
        )
    );
}

#[test]
fn structs() {
    let read1 = read_default(
        r#"{ "schema": { "type": "struct", "fields": [{ "field": "field1", "type": "boolean" }, { "field": "field2", "type": "string" }] }, "payload": { "field1": true, "field2": "string" } }"#,
    );
    let schema = SchemaBuilder::struct_()
        .field("field1", Schema::boolean())
        .field("field2", Schema::string())
        .build();
    let mut expected = Struct::new(schema.clone()).unwrap();
    expected.put("field1", true).unwrap();
    expected.put("field2", "string").unwrap();
    assert_eq!(read1, sv(schema, Value::Struct(expected)));

    // structWithOptionalFieldToConnect: a missing optional field is null.
    let read2 = read_default(
        r#"{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", "optional": true }, {  "field": "required", "type": "string" }] }, "payload": { "required": "required" } }"#,
    );
    let schema = SchemaBuilder::struct_()
        .field("optional", Schema::optional_string())
        .field("required", Schema::string())
        .build();
    let mut expected = Struct::new(schema.clone()).unwrap();
    expected.put("required", "required").unwrap();
    assert_eq!(read2, sv(schema, Value::Struct(expected)));
}

#[test]
fn nulls_and_schemaless() {
    let c = converter(&[]);
    // nullToConnect: a tombstone.
    assert_eq!(
        c.to_connect_data("topic", None).unwrap(),
        SchemaAndValue::NULL
    );
    assert_eq!(
        read_default(r#"{ "schema": null, "payload": null }"#),
        SchemaAndValue::NULL
    );
    // nullSchemaPrimitiveToConnect: integral -> int64, other numbers -> float64.
    let cases = [
        (
            r#"{ "schema": null, "payload": true }"#,
            Value::Boolean(true),
        ),
        (r#"{ "schema": null, "payload": 12 }"#, Value::Int64(12)),
        (
            r#"{ "schema": null, "payload": 12.24 }"#,
            Value::Float64(12.24),
        ),
        (
            r#"{ "schema": null, "payload": "a string" }"#,
            s("a string"),
        ),
        (
            r#"{ "schema": null, "payload": [1, "2", 3] }"#,
            Value::Array(vec![Value::Int64(1), s("2"), Value::Int64(3)]),
        ),
        (
            r#"{ "schema": null, "payload": { "field1": 1, "field2": 2} }"#,
            Value::Map(vec![
                (s("field1"), Value::Int64(1)),
                (s("field2"), Value::Int64(2)),
            ]),
        ),
    ];
    for (json, value) in cases {
        assert_eq!(
            read_default(json),
            SchemaAndValue::new(None, value),
            "{json}"
        );
    }

    let schemaless = converter(&[("schemas.enable", "false")]);
    // emptyBytesToConnect.
    assert_eq!(read(&schemaless, ""), SchemaAndValue::NULL);
    // noSchemaToConnect.
    assert_eq!(
        read(&schemaless, "true"),
        SchemaAndValue::new(None, Value::Boolean(true))
    );
    // schemalessWithEmptyFieldValueToConnect.
    assert_eq!(
        read(&schemaless, r#"{ "a": "", "b": null}"#),
        SchemaAndValue::new(
            None,
            Value::Map(vec![(s("a"), s("")), (s("b"), Value::Null)])
        )
    );
}

const DECIMAL_2: &str = r#"{ "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "2" }"#;

#[test]
fn decimals() {
    let d156 = Value::Decimal(Decimal::new(156, 2));
    assert_eq!(
        read_default(&format!(
            r#"{{ "schema": {DECIMAL_2} }}, "payload": "AJw=" }}"#
        )),
        sv(decimal(2).build(), d156.clone())
    );
    assert_eq!(
        read_default(&format!(
            r#"{{ "schema": {DECIMAL_2} }}, "payload": 1.56 }}"#
        )),
        sv(decimal(2).build(), d156.clone())
    );
    assert_eq!(
        read_default(&format!(
            r#"{{ "schema": {DECIMAL_2}, "optional": true }}, "payload": null }}"#
        )),
        sv(decimal(2).optional().build(), Value::Null)
    );
    assert_eq!(
        read_default(&format!(
            r#"{{ "schema": {DECIMAL_2}, "default": "AJw=" }}, "payload": null }}"#
        )),
        sv(decimal(2).default_value(d156.clone()).build(), d156.clone())
    );
    // numericDecimalWithTrailingZerosToConnect.
    assert_eq!(
        read_default(
            r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "4" } }, "payload": 1.5600 }"#
        ),
        sv(decimal(4).build(), Value::Decimal(Decimal::new(15600, 4)))
    );
    // highPrecisionNumericDecimalToConnect: more digits than a double holds.
    let high = read_default(
        r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "17" } }, "payload": 1.23456789123456789 }"#,
    );
    assert_eq!(
        high.value,
        Value::Decimal(Decimal::new(123456789123456789i64, 17))
    );
}

#[test]
fn dates_times_timestamps() {
    let cases = [
        (
            r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1 }, "payload": 10000 }"#,
            sv(date().build(), Value::Int32(10000)),
        ),
        (
            r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1, "optional": true, "default": 0 }, "payload": null }"#,
            sv(
                date().optional().default_value(Value::Int32(0)).build(),
                Value::Int32(0),
            ),
        ),
        (
            r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1 }, "payload": 14400000 }"#,
            sv(time().build(), Value::Int32(14_400_000)),
        ),
        (
            r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1, "optional": true }, "payload": null }"#,
            sv(time().optional().build(), Value::Null),
        ),
        (
            r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1 }, "payload": 4000000000 }"#,
            sv(timestamp().build(), Value::Int64(4_000_000_000)),
        ),
        (
            r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1,  "optional": true, "default": 42 }, "payload": null }"#,
            sv(
                timestamp()
                    .optional()
                    .default_value(Value::Int64(42))
                    .build(),
                Value::Int64(42),
            ),
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(read_default(json), expected, "{json}");
    }
}

#[test]
fn replace_null_with_default() {
    let value =
        r#"{"schema":{"type":"string","optional":true,"default":"default"},"payload":null}"#;
    assert_eq!(read_default(value).value, s("default"));
    let keep = converter(&[("replace.null.with.default", "false")]);
    assert_eq!(read(&keep, value).value, Value::Null);

    let field = r#"{"schema":{"type":"struct","fields":[{"field":"field1","type":"string","optional":true,"default":"default"}],"optional":false},"payload":{"field1":null}}"#;
    let Value::Struct(replaced) = read_default(field).value else {
        panic!("not a struct")
    };
    assert_eq!(
        replaced.get_without_default("field1").unwrap(),
        &s("default")
    );
    let Value::Struct(kept) = read(&keep, field).value else {
        panic!("not a struct")
    };
    assert_eq!(kept.get_without_default("field1").unwrap(), &Value::Null);
}

#[test]
fn schema_cache_is_keyed_by_json() {
    // testCacheSchemaToConnectConversion: equivalent but differently written schemas get
    // separate entries.
    let c = converter(&[]);
    assert_eq!(c.cached_schema_count(), 0);
    read(
        &c,
        r#"{ "schema": { "type": "boolean" }, "payload": true }"#,
    );
    assert_eq!(c.cached_schema_count(), 1);
    read(
        &c,
        r#"{ "schema": { "type": "boolean" }, "payload": true }"#,
    );
    assert_eq!(c.cached_schema_count(), 1);
    read(
        &c,
        r#"{ "schema": { "type": "boolean", "optional": true }, "payload": true }"#,
    );
    assert_eq!(c.cached_schema_count(), 2);
    read(
        &c,
        r#"{ "schema": { "type": "boolean", "optional": false }, "payload": true }"#,
    );
    assert_eq!(c.cached_schema_count(), 3);

    let small = converter(&[("schemas.cache.size", "1")]);
    read(
        &small,
        r#"{ "schema": { "type": "boolean" }, "payload": true }"#,
    );
    read(&small, r#"{ "schema": { "type": "int32" }, "payload": 1 }"#);
    assert_eq!(small.cached_schema_count(), 1);
}

#[test]
fn lenient_scalars_match_jackson_accessors() {
    // Java reads scalars with Jackson's intValue()/textValue()/…, which give 0 or null for a
    // JSON value of the wrong kind instead of failing.
    let cases = [
        (
            r#"{"schema":{"type":"int32"},"payload":"7"}"#,
            sv(Schema::int32(), Value::Int32(0)),
        ),
        (
            r#"{"schema":{"type":"int32"},"payload":12.9}"#,
            sv(Schema::int32(), Value::Int32(12)),
        ),
        (
            r#"{"schema":{"type":"int32"},"payload":4294967297}"#,
            sv(Schema::int32(), Value::Int32(1)),
        ),
        (
            r#"{"schema":{"type":"boolean"},"payload":1}"#,
            sv(Schema::boolean(), Value::Boolean(false)),
        ),
        (
            r#"{"schema":{"type":"string"},"payload":5}"#,
            sv(Schema::string(), Value::Null),
        ),
        (
            r#"{"schema":{"type":"double"},"payload":"NaN"}"#,
            sv(Schema::float64(), Value::Float64(0.0)),
        ),
        (
            r#"{"schema":{"type":"array","items":{"type":"int64"}},"payload":{"a":1,"b":2}}"#,
            sv(
                SchemaBuilder::array(Schema::int64()).build(),
                Value::Array(vec![Value::Int64(1), Value::Int64(2)]),
            ),
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(read_default(json), expected, "{json}");
    }
}

#[test]
fn envelopes_read_alike_whether_their_schema_was_seen_before_or_not() {
    let boolean = r#"{"schema":{"type":"boolean"},"payload":true}"#;
    let int = r#"{ "schema" : { "type": "int32" }, "payload": 7 }"#;
    let field = r#"{"schema":{"type":"struct","fields":[{"type":"string","field":"a"}]},"payload":{"a":"x"}}"#;
    let later_schema_wins = r#"{"schema":{"type":"int32"},"schema":{"type":"int64"},"payload":7}"#;
    let payload_first = r#"{"payload":"v","schema":{"type":"string"}}"#;
    let seen = converter(&[]);
    for json in [
        boolean,
        int,
        boolean,
        boolean,
        field,
        field,
        later_schema_wins,
        payload_first,
        int,
    ] {
        assert_eq!(read(&seen, json), read_default(json), "{json}");
    }
    assert_eq!(
        read(&seen, later_schema_wins).schema.unwrap().kind,
        Type::Int64
    );
    let extra = r#"{"schema":{"type":"boolean"},"payload":true,"other":1}"#;
    read(&seen, boolean);
    let error = seen
        .to_connect_data("topic", Some(extra.as_bytes()))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("may not contain additional fields"),
        "{error}"
    );
    for odd in [
        r#"{"schema":{"type":"struct","fields":[]},"payload":5}"#,
        r#"{"schema":{"type":"nope"},"payload":5}"#,
        r#"{"schema":{"type":"int32"},"payload":[}"#,
        r#"{"schema":{"type":"int32"}}"#,
    ] {
        read(&seen, boolean);
        assert_eq!(
            format!("{:?}", seen.to_connect_data("topic", Some(odd.as_bytes()))),
            format!(
                "{:?}",
                converter(&[]).to_connect_data("topic", Some(odd.as_bytes()))
            ),
            "{odd}"
        );
    }
}

/// `schema.content` (Kafka 4.2, KIP-1054): the configured schema types every message, which is
/// plain JSON without an envelope; as Kafka's `JsonConverterTest` schema-content cases.
#[test]
fn schema_content_types_plain_messages() {
    let schema_text = r#"{"type":"struct","fields":[{"field":"a","type":"int32"},{"field":"b","type":"string","optional":true}],"optional":false}"#;
    let c = converter(&[("schema.content", schema_text)]);
    let SchemaAndValue { schema, value } = read(&c, r#"{"a": 1, "b": "x"}"#);
    let schema = schema.expect("the configured schema");
    let names: Vec<_> = schema.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b"]);
    let Value::Struct(st) = value else {
        panic!("{value:?}")
    };
    assert_eq!(st.get("a").unwrap(), &Value::Int32(1));
    assert_eq!(st.get("b").unwrap(), &s("x"));

    let ints = converter(&[("schema.content", r#"{"type":"int64"}"#)]);
    assert_eq!(read(&ints, "42"), sv(Schema::int64(), Value::Int64(42)));

    // Without schemas.enable the setting does nothing.
    let plain = converter(&[("schema.content", schema_text), ("schemas.enable", "false")]);
    assert_eq!(
        read(&plain, "42"),
        SchemaAndValue::new(None, Value::Int64(42))
    );

    // An empty value means unset: envelopes again.
    let unset = converter(&[("schema.content", "")]);
    assert_eq!(
        read(&unset, r#"{"schema":{"type":"int32"},"payload":5}"#),
        sv(Schema::int32(), Value::Int32(5))
    );

    let mut bad = JsonConverter::new();
    let err = Converter::configure(
        &mut bad,
        &[("schema.content".to_owned(), "{".to_owned())]
            .into_iter()
            .collect(),
        false,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("Failed to parse schema in converter config due to serialization error"),
        "{err}"
    );
}
