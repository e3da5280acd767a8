//! The contract every converter in this crate must keep, checked through the trait objects the
//! runtime will hold: configure for each role, round-trip representative values, keep null as
//! null, and turn a tombstone (null payload) into a null value that writes back as a tombstone.

use ferry_api::converter::{Converter, HeaderConverter};
use ferry_api::data::{Schema, SchemaAndValue, SchemaBuilder, SchemaRef, Value};
use ferry_api::ConfigMap;
use ferry_converters::{
    BooleanConverter, ByteArrayConverter, DoubleConverter, FloatConverter, IntegerConverter,
    LongConverter, ShortConverter, SimpleHeaderConverter, StringConverter,
};

const TOPIC: &str = "compliance-topic";
const HEADER: &str = "compliance-header";

/// A value to write and what reading its bytes must give.
struct Case {
    schema: Option<SchemaRef>,
    value: Value,
    expected: SchemaAndValue,
}

/// A value the converter reads back unchanged, with `read_schema`.
fn same(schema: Option<SchemaRef>, value: Value, read_schema: &SchemaRef) -> Case {
    Case {
        schema,
        expected: SchemaAndValue::new(Some(read_schema.clone()), value.clone()),
        value,
    }
}

fn check_converter(converter: &mut dyn Converter, cases: &[Case]) {
    for is_key in [true, false] {
        converter
            .configure(&ConfigMap::new(), is_key)
            .expect("empty config is valid");
        for case in cases {
            let bytes = converter
                .from_connect_data(TOPIC, case.schema.as_ref(), &case.value)
                .expect("write")
                .expect("a non-null value gives a payload");
            let back = converter
                .to_connect_data(TOPIC, Some(&bytes))
                .expect("read");
            assert_eq!(back, case.expected, "{:?}", case.value);
            // What was read must write the same bytes again.
            let again = converter
                .from_connect_data(TOPIC, back.schema.as_ref(), &back.value)
                .expect("rewrite");
            assert_eq!(again.as_deref(), Some(&bytes[..]));
        }
        let tombstone = converter.to_connect_data(TOPIC, None).expect("tombstone");
        assert_eq!(tombstone.value, Value::Null);
        if let Some(schema) = &tombstone.schema {
            assert!(schema.optional, "a tombstone's schema must allow null");
        }
        let rewritten = converter
            .from_connect_data(TOPIC, tombstone.schema.as_ref(), &tombstone.value)
            .expect("null write");
        assert_eq!(rewritten, None, "null must stay a tombstone");
        assert_eq!(
            converter
                .from_connect_data(TOPIC, None, &Value::Null)
                .expect("null write"),
            None
        );
    }
}

fn check_header_converter(converter: &mut dyn HeaderConverter, cases: &[Case]) {
    converter
        .configure(&ConfigMap::new())
        .expect("empty config is valid");
    for case in cases {
        let bytes = converter
            .from_connect_header(TOPIC, HEADER, case.schema.as_ref(), &case.value)
            .expect("write")
            .expect("a non-null value gives a payload");
        let back = converter
            .to_connect_header(TOPIC, HEADER, Some(&bytes))
            .expect("read");
        assert_eq!(back, case.expected, "{:?}", case.value);
        let again = converter
            .from_connect_header(TOPIC, HEADER, back.schema.as_ref(), &back.value)
            .expect("rewrite");
        assert_eq!(again.as_deref(), Some(&bytes[..]));
    }
    let null = converter
        .to_connect_header(TOPIC, HEADER, None)
        .expect("null");
    assert_eq!(null.value, Value::Null);
    let rewritten = converter
        .from_connect_header(TOPIC, HEADER, null.schema.as_ref(), &null.value)
        .expect("null write");
    assert_eq!(rewritten, None);
}

fn string_cases() -> Vec<Case> {
    let read = Schema::optional_string();
    let mut cases: Vec<Case> = ["", "a string", "ünï©ødé ✓", "{\"json\": [1, 2]}"]
        .into_iter()
        .map(|s| same(Some(Schema::string()), s.into(), &read))
        .collect();
    // Non-strings are written as their Java text and read back as that text.
    cases.push(Case {
        schema: Some(Schema::int32()),
        value: Value::Int32(42),
        expected: SchemaAndValue::new(Some(read.clone()), "42".into()),
    });
    cases.push(Case {
        schema: None,
        value: Value::Float64(1e10),
        expected: SchemaAndValue::new(Some(read), "1.0E10".into()),
    });
    cases
}

fn byte_cases() -> Vec<Case> {
    let read = Schema::optional_bytes();
    [vec![], vec![0, 1, 255], b"sample string".to_vec()]
        .into_iter()
        .flat_map(|b| {
            [
                same(Some(Schema::bytes()), Value::Bytes(b.clone()), &read),
                same(None, Value::Bytes(b), &read),
            ]
        })
        .collect()
}

fn number_cases(read: &SchemaRef, values: Vec<Value>) -> Vec<Case> {
    values
        .into_iter()
        .map(|v| same(Some(read.clone()), v, read))
        .collect()
}

/// Runs both contracts on fresh instances of a converter that is also a header converter.
fn check_both<C: Converter + HeaderConverter + Default>(cases: &[Case]) {
    check_converter(&mut C::default(), cases);
    check_header_converter(&mut C::default(), cases);
}

#[test]
fn string_converter() {
    check_both::<StringConverter>(&string_cases());
}

#[test]
fn byte_array_converter() {
    check_both::<ByteArrayConverter>(&byte_cases());
}

#[test]
fn number_and_boolean_converters() {
    check_both::<ShortConverter>(&number_cases(
        &Schema::optional_int16(),
        vec![
            Value::Int16(i16::MIN),
            Value::Int16(123),
            Value::Int16(i16::MAX),
        ],
    ));
    check_both::<IntegerConverter>(&number_cases(
        &Schema::optional_int32(),
        vec![
            Value::Int32(i32::MIN),
            Value::Int32(0),
            Value::Int32(i32::MAX),
        ],
    ));
    check_both::<LongConverter>(&number_cases(
        &Schema::optional_int64(),
        vec![
            Value::Int64(i64::MIN),
            Value::Int64(-1),
            Value::Int64(i64::MAX),
        ],
    ));
    check_both::<FloatConverter>(&number_cases(
        &Schema::optional_float32(),
        vec![
            Value::Float32(f32::MIN_POSITIVE),
            Value::Float32(1234.31),
            Value::Float32(f32::MAX),
        ],
    ));
    check_both::<DoubleConverter>(&number_cases(
        &Schema::optional_float64(),
        vec![
            Value::Float64(f64::MIN_POSITIVE),
            Value::Float64(-0.5),
            Value::Float64(f64::MAX),
        ],
    ));
    check_both::<BooleanConverter>(&number_cases(
        &Schema::optional_boolean(),
        vec![Value::Boolean(true), Value::Boolean(false)],
    ));
}

#[test]
fn simple_header_converter() {
    let int_list = SchemaBuilder::array(Schema::int32()).build();
    let string_map = SchemaBuilder::map(Schema::string(), Schema::int16()).build();
    let cases = vec![
        same(Some(Schema::string()), "simple".into(), &Schema::string()),
        same(Some(Schema::string()), "".into(), &Schema::string()),
        same(None, Value::Boolean(true), &Schema::boolean()),
        same(Some(Schema::int8()), Value::Int8(-5), &Schema::int8()),
        same(
            Some(Schema::int64()),
            Value::Int64(1 << 40),
            &Schema::int64(),
        ),
        same(
            Some(Schema::float32()),
            Value::Float32(2.5),
            &Schema::float32(),
        ),
        same(
            Some(int_list.clone()),
            Value::Array(vec![Value::Int32(100_000), Value::Int32(-1)]),
            &int_list,
        ),
        same(
            Some(string_map.clone()),
            Value::Map(vec![("a".into(), Value::Int16(300))]),
            &string_map,
        ),
        same(
            Some(ferry_api::data::timestamp().build()),
            Value::Int64(1_566_570_894_346),
            &ferry_api::data::timestamp().build(),
        ),
    ];
    check_header_converter(&mut SimpleHeaderConverter::new(), &cases);
}

#[test]
fn class_names_match_java() {
    let names = [
        (
            StringConverter::CLASS_NAME,
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        (
            ByteArrayConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.ByteArrayConverter",
        ),
        (
            ShortConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.ShortConverter",
        ),
        (
            IntegerConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.IntegerConverter",
        ),
        (
            LongConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.LongConverter",
        ),
        (
            FloatConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.FloatConverter",
        ),
        (
            DoubleConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.DoubleConverter",
        ),
        (
            BooleanConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.BooleanConverter",
        ),
        (
            SimpleHeaderConverter::CLASS_NAME,
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        ),
    ];
    for (ours, java) in names {
        assert_eq!(ours, java);
    }
}
