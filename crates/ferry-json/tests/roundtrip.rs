//! to_connect_data(from_connect_data(x)) == x for values the JSON form can carry exactly,
//! plus the schemaless helpers the runtime uses for offsets.

use ferry_api::converter::Converter;
use ferry_api::data::{
    date, decimal, time, timestamp, Decimal, Schema, SchemaAndValue, SchemaBuilder, SchemaRef,
    Struct, Type, Value,
};
use ferry_api::ConfigMap;
use ferry_json::{json_bytes_to_schemaless, schemaless_to_json_bytes, JsonConverter};

fn converter(config: &[(&str, &str)]) -> JsonConverter {
    let props: ConfigMap = config
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut c = JsonConverter::new();
    Converter::configure(&mut c, &props, false).unwrap();
    c
}

fn round_trip(c: &JsonConverter, schema: &SchemaRef, value: Value) {
    let bytes = c
        .from_connect_data("topic", Some(schema), &value)
        .unwrap()
        .unwrap();
    let back = c.to_connect_data("topic", Some(&bytes)).unwrap();
    assert_eq!(
        back,
        SchemaAndValue::new(Some(schema.clone()), value),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
}

/// A deterministic stream of bit patterns covering normals, subnormals and extremes.
fn bit_patterns(count: usize) -> impl Iterator<Item = u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..count).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    })
}

#[test]
fn doubles_and_floats_survive_exactly() {
    let c = converter(&[]);
    let doubles: Vec<Value> = bit_patterns(3000)
        .map(f64::from_bits)
        .chain([
            0.1,
            1.0 / 3.0,
            1e300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            -2.5e-8,
        ])
        .filter(|v| v.is_finite())
        .map(Value::Float64)
        .collect();
    round_trip(
        &c,
        &SchemaBuilder::array(Schema::float64()).build(),
        Value::Array(doubles),
    );
    let floats: Vec<Value> = bit_patterns(3000)
        .map(|b| f32::from_bits(b as u32))
        .chain([0.1f32, 1.0 / 3.0, f32::MAX, 1.4e-45, f32::MIN_POSITIVE])
        .filter(|v| v.is_finite())
        .map(Value::Float32)
        .collect();
    round_trip(
        &c,
        &SchemaBuilder::array(Schema::float32()).build(),
        Value::Array(floats),
    );
}

#[test]
fn decimals_in_both_formats() {
    let values = [
        (0i64, 2),
        (156, 2),
        (-156, 2),
        (i64::MAX, 0),
        (i64::MIN, 3),
        (5, 8),
        (12, -2),
        (127, 0),
        (128, 0),
        (-128, 0),
        (-129, 0),
    ];
    for format in ["BASE64", "NUMERIC"] {
        let c = converter(&[("decimal.format", format)]);
        for (unscaled, scale) in values {
            round_trip(
                &c,
                &decimal(scale).build(),
                Value::Decimal(Decimal::new(unscaled, scale)),
            );
        }
    }
}

#[test]
fn every_type_in_one_struct() {
    let inner = SchemaBuilder::struct_()
        .field("x", Schema::optional_int16())
        .optional()
        .build();
    let schema = SchemaBuilder::struct_()
        .name("all.Types")
        .version(1)
        .doc("every type")
        .parameter("p", "v")
        .field("b", Schema::boolean())
        .field("i8", Schema::int8())
        .field("i16", Schema::int16())
        .field("i32", Schema::int32())
        .field("i64", Schema::int64())
        .field("f32", Schema::float32())
        .field("f64", Schema::float64())
        .field("s", Schema::string())
        .field("bytes", Schema::bytes())
        .field(
            "arr",
            SchemaBuilder::array(Schema::optional_string()).build(),
        )
        .field(
            "smap",
            SchemaBuilder::map(Schema::string(), Schema::int64()).build(),
        )
        .field(
            "imap",
            SchemaBuilder::map(Schema::int8(), inner.clone()).build(),
        )
        .field("inner", inner.clone())
        .field("dec", decimal(3).build())
        .field("date", date().build())
        .field("time", time().build())
        .field("ts", timestamp().optional().build())
        .field(
            "defaulted",
            SchemaBuilder::new(Type::Int32)
                .default_value(Value::Int32(5))
                .build(),
        )
        .build();
    let mut inner_value = Struct::new(inner).unwrap();
    inner_value.put("x", Value::Int16(-2)).unwrap();
    let mut st = Struct::new(schema.clone()).unwrap();
    st.put("b", true).unwrap();
    st.put("i8", Value::Int8(-128)).unwrap();
    st.put("i16", Value::Int16(32767)).unwrap();
    st.put("i32", Value::Int32(i32::MIN)).unwrap();
    st.put("i64", Value::Int64(i64::MAX)).unwrap();
    st.put("f32", Value::Float32(-1.25e-7)).unwrap();
    st.put("f64", Value::Float64(6.02214076e23)).unwrap();
    st.put("s", "tab\there \"quoted\" ünïcode \u{1}").unwrap();
    st.put("bytes", Value::Bytes((0..=255).collect())).unwrap();
    st.put("arr", Value::Array(vec!["a".into(), Value::Null]))
        .unwrap();
    st.put(
        "smap",
        Value::Map(vec![
            ("k".into(), Value::Int64(1)),
            ("".into(), Value::Int64(-1)),
        ]),
    )
    .unwrap();
    st.put(
        "imap",
        Value::Map(vec![
            (Value::Int8(1), Value::Struct(inner_value.clone())),
            (Value::Int8(2), Value::Null),
        ]),
    )
    .unwrap();
    st.put("inner", Value::Struct(inner_value)).unwrap();
    st.put("dec", Value::Decimal(Decimal::new(-123456, 3)))
        .unwrap();
    st.put("date", Value::Int32(19000)).unwrap();
    st.put("time", Value::Int32(86_400_000)).unwrap();
    st.put("defaulted", Value::Int32(9)).unwrap();
    let value = Value::Struct(st);
    round_trip(&converter(&[]), &schema, value.clone());
    round_trip(
        &converter(&[("replace.null.with.default", "false")]),
        &schema,
        value,
    );
}

#[test]
fn tombstones() {
    for enable in ["true", "false"] {
        let c = converter(&[("schemas.enable", enable)]);
        assert_eq!(
            c.from_connect_data("topic", None, &Value::Null).unwrap(),
            None
        );
        assert_eq!(
            c.to_connect_data("topic", None).unwrap(),
            SchemaAndValue::NULL
        );
    }
}

#[test]
fn schema_cache_reuses_translations() {
    let c = converter(&[]);
    let schema = SchemaBuilder::struct_().field("a", Schema::int32()).build();
    let mut st = Struct::new(schema.clone()).unwrap();
    st.put("a", 1).unwrap();
    let first = c
        .from_connect_data("t", Some(&schema), &Value::Struct(st.clone()))
        .unwrap();
    let second = c
        .from_connect_data("t", Some(&schema), &Value::Struct(st))
        .unwrap();
    assert_eq!(first, second);
}

#[test]
fn schemaless_helpers_match_the_converter() {
    let offset = Value::Array(vec![
        Value::String("my-connector".into()),
        Value::Map(vec![
            (
                Value::String("filename".into()),
                Value::String("/tmp/a.txt".into()),
            ),
            (Value::String("position".into()), Value::Int64(1234)),
            (Value::String("ratio".into()), Value::Float64(0.5)),
        ]),
    ]);
    let bytes = schemaless_to_json_bytes(&offset);
    assert_eq!(
        bytes,
        br#"["my-connector",{"filename":"/tmp/a.txt","position":1234,"ratio":0.5}]"#
    );
    let via_converter = converter(&[("schemas.enable", "false")])
        .from_connect_data("t", None, &offset)
        .unwrap()
        .unwrap();
    assert_eq!(bytes, via_converter);
    assert_eq!(json_bytes_to_schemaless(&bytes).unwrap(), offset);
    assert_eq!(json_bytes_to_schemaless(b"").unwrap(), Value::Null);
    assert!(json_bytes_to_schemaless(b"{").is_err());
    // Values Java cannot write without a schema still get a sensible form here.
    assert_eq!(
        schemaless_to_json_bytes(&Value::Decimal(Decimal::new(156, 2))),
        b"1.56"
    );
}
