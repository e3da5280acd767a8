//! Cases from Java's `ValuesTest`, restated.

use ferry_api::data::{
    Decimal, SchemaRef, Type, DATE_LOGICAL_NAME, TIMESTAMP_LOGICAL_NAME, TIME_LOGICAL_NAME,
};

use super::*;
use crate::values_text::convert_to_string;
use ferry_api::java::calendar::{days_from_civil, MILLIS_PER_DAY};

fn parse(text: &str) -> SchemaAndValue {
    parse_string(text).unwrap()
}

fn schema_of(sv: &SchemaAndValue) -> &SchemaRef {
    sv.schema.as_ref().expect("a schema")
}

fn assert_string(text: &str) {
    let sv = parse(text);
    assert_eq!(schema_of(&sv).kind, Type::String, "{text}");
    assert_eq!(sv.value, Value::String(text.into()), "{text}");
}

fn int8s(values: &[i8]) -> Value {
    Value::Array(values.iter().map(|v| Value::Int8(*v)).collect())
}

#[test]
fn empty_text_is_an_empty_string() {
    let sv = parse("");
    assert_eq!(sv.schema, Some(Schema::string()));
    assert_eq!(sv.value, Value::String(String::new()));
}

#[test]
fn null_literal_is_null_even_with_whitespace() {
    assert_eq!(parse("null"), SchemaAndValue::NULL);
    assert_eq!(parse(" \t null \n"), SchemaAndValue::NULL);
}

#[test]
fn boolean_literals() {
    let sv = parse("  true  ");
    assert_eq!(sv.schema, Some(Schema::boolean()));
    assert_eq!(sv.value, Value::Boolean(true));
    assert_eq!(parse("false").value, Value::Boolean(false));
}

#[test]
fn literals_followed_by_more_text_are_strings() {
    assert_string("null=");
    assert_string("true}");
    assert_string("false]");
}

#[test]
fn plain_text_stays_text() {
    for text in [
        "  ",
        "simple",
        "simple string",
        "'simple' string",
        "si\\mple",
        "a, b",
    ] {
        assert_string(text);
    }
    // U+FFFF once sent Java's parser into a loop; it is just text.
    assert_string("\u{FFFF}");
}

#[test]
fn unquoted_words_inside_collections_make_the_whole_text_a_string() {
    assert_string("{foo: 3}");
    assert_string("{3: foo}");
    assert_string("[foo]");
    assert_string("{null: 3}");
    assert_string("{6:9 4:20}");
    assert_string("[0 1 2]");
    assert_string("[1, 2, 3,,,]");
}

#[test]
fn a_null_next_to_typed_elements_makes_the_array_a_string() {
    assert_string("[1, null]");
    assert_string("[null, 1]");
}

#[test]
fn integers_take_the_smallest_type() {
    let cases: &[(&str, SchemaRef, Value)] = &[
        ("127", Schema::int8(), Value::Int8(127)),
        ("-128", Schema::int8(), Value::Int8(-128)),
        ("32767", Schema::int16(), Value::Int16(i16::MAX)),
        ("-32768", Schema::int16(), Value::Int16(i16::MIN)),
        ("2147483647", Schema::int32(), Value::Int32(i32::MAX)),
        ("-2147483648", Schema::int32(), Value::Int32(i32::MIN)),
        (
            "9223372036854775807",
            Schema::int64(),
            Value::Int64(i64::MAX),
        ),
        (
            "-9223372036854775808",
            Schema::int64(),
            Value::Int64(i64::MIN),
        ),
        ("1.0", Schema::int8(), Value::Int8(1)),
        ("300.0", Schema::int16(), Value::Int16(300)),
        ("66000.0", Schema::int32(), Value::Int32(66_000)),
        ("1.5E+3", Schema::int16(), Value::Int16(1500)),
        ("+7", Schema::int8(), Value::Int8(7)),
        ("-0.000", Schema::int8(), Value::Int8(0)),
    ];
    for (text, schema, value) in cases {
        assert_eq!(
            parse(text),
            SchemaAndValue::new(Some(schema.clone()), value.clone()),
            "{text}"
        );
    }
}

#[test]
fn fractions_are_float32_when_finite_else_float64() {
    assert_eq!(
        parse("1.1"),
        SchemaAndValue::new(Some(Schema::float32()), Value::Float32(1.1))
    );
    assert_eq!(parse("300.01").value, Value::Float32(300.01));
    assert_eq!(parse("66000.0008").value, Value::Float32(66000.0008));
    assert_eq!(parse("3.4028235E38").value, Value::Float32(f32::MAX));
    assert_eq!(parse("-3.4028235E38").value, Value::Float32(f32::MIN));
    let max = parse("1.7976931348623157E308");
    assert_eq!(max.schema, Some(Schema::float64()));
    assert_eq!(max.value, Value::Float64(f64::MAX));
    assert_eq!(
        parse("-1.7976931348623157E308").value,
        Value::Float64(f64::MIN)
    );
}

#[test]
fn integers_beyond_a_long_are_decimals_with_scale_zero() {
    for text in ["9223372036854775808", "-9223372036854775809"] {
        let sv = parse(text);
        assert_eq!(sv.schema, Some(ferry_api::data::decimal(0).build()));
        assert_eq!(sv.value, Value::Decimal(Decimal::parse(text).unwrap()));
    }
    let huge = parse("1e400");
    assert_eq!(huge.schema, Some(ferry_api::data::decimal(-400).build()));
}

#[test]
fn things_that_look_numeric_but_are_not() {
    for text in [
        "1_000",
        "0x10",
        "-",
        "+",
        "1e",
        "1.2.3",
        "-Infinity",
        "12 apples",
    ] {
        assert_string(text);
    }
}

#[test]
fn only_the_first_top_level_value_is_read() {
    assert_eq!(parse("12,13").value, Value::Int8(12));
    assert_eq!(parse("[1] trailing").value, int8s(&[1]));
}

#[test]
fn dates_times_and_timestamps() {
    let day = days_from_civil(2019, 8, 23);
    let ms_of_day = ((14 * 60 + 34) * 60 + 54) * 1000 + 346;

    let ts = parse("2019-08-23T14:34:54.346Z");
    assert_eq!(schema_of(&ts).kind, Type::Int64);
    assert_eq!(schema_of(&ts).name.as_deref(), Some(TIMESTAMP_LOGICAL_NAME));
    assert_eq!(ts.value, Value::Int64(day * MILLIS_PER_DAY + ms_of_day));

    let date = parse("2019-08-23");
    assert_eq!(schema_of(&date).kind, Type::Int32);
    assert_eq!(schema_of(&date).name.as_deref(), Some(DATE_LOGICAL_NAME));
    assert_eq!(date.value, Value::Int32(i32::try_from(day).unwrap()));

    let time = parse("14:34:54.346Z");
    assert_eq!(schema_of(&time).name.as_deref(), Some(TIME_LOGICAL_NAME));
    assert_eq!(time.value, Value::Int32(i32::try_from(ms_of_day).unwrap()));

    assert_eq!(parse("2019-08-23T14\\:34\\:54.346Z"), ts);
    assert_eq!(parse("14\\:34\\:54.346Z"), time);
}

#[test]
fn dates_inside_collections() {
    let list = parse("[2019-08-23]");
    let items = schema_of(&list).value_schema.clone().unwrap();
    assert_eq!(items.name.as_deref(), Some(DATE_LOGICAL_NAME));

    let three =
        parse("[2019-08-23T14:34:54.346Z,2019-01-23T15:12:34.567Z,   2019-04-23T19:12:34.567Z]");
    let items = schema_of(&three).value_schema.clone().unwrap();
    assert_eq!(items.name.as_deref(), Some(TIMESTAMP_LOGICAL_NAME));
    let Value::Array(values) = &three.value else {
        panic!()
    };
    assert_eq!(values.len(), 3);

    for text in ["{\"k1\":\"14:34:54.346Z\"}", "{\"k1\":14:34:54.346Z}"] {
        let map = parse(text);
        let schema = schema_of(&map);
        assert_eq!(schema.key_schema.as_ref().unwrap().kind, Type::String);
        assert_eq!(
            schema.value_schema.as_ref().unwrap().name.as_deref(),
            Some(TIME_LOGICAL_NAME)
        );
    }
}

#[test]
fn arrays_and_maps_of_one_type() {
    let bools = parse("[true, false]");
    assert_eq!(schema_of(&bools).value_schema, Some(Schema::boolean()));
    assert_eq!(
        bools.value,
        Value::Array(vec![Value::Boolean(true), Value::Boolean(false)])
    );

    let map = parse("{true: false, false: true}");
    assert_eq!(schema_of(&map).key_schema, Some(Schema::boolean()));
    assert_eq!(schema_of(&map).value_schema, Some(Schema::boolean()));

    let shorts = parse(" { \"foo\" :  12345 , \"bar\" : 0,  \"baz\" : -4321 }  ");
    assert_eq!(
        shorts.schema,
        Some(ferry_api::data::SchemaBuilder::map(Schema::string(), Schema::int16()).build())
    );
    assert_eq!(
        shorts.value,
        Value::Map(vec![
            ("foo".into(), Value::Int16(12345)),
            ("bar".into(), Value::Int16(0)),
            ("baz".into(), Value::Int16(-4321)),
        ])
    );
}

#[test]
fn numeric_elements_widen_to_the_largest_type() {
    let ints = parse("[1, 2, 32768]");
    assert_eq!(schema_of(&ints).value_schema, Some(Schema::int32()));
    assert_eq!(
        ints.value,
        Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(32768)])
    );
    let floats = parse("[1, 2, 3.4028235E38]");
    assert_eq!(schema_of(&floats).value_schema, Some(Schema::float32()));
    let doubles = parse("[1, 2, 1.7976931348623157E308]");
    assert_eq!(
        doubles.value,
        Value::Array(vec![
            Value::Float64(1.0),
            Value::Float64(2.0),
            Value::Float64(f64::MAX)
        ])
    );
}

#[test]
fn mixed_elements_have_no_element_schema_in_any_order() {
    let expected = [
        (
            "[1, 2, 300, \"four\"]",
            vec![
                Value::Int8(1),
                Value::Int8(2),
                Value::Int16(300),
                "four".into(),
            ],
        ),
        (
            "[\"four\", 1, 2, 300]",
            vec![
                "four".into(),
                Value::Int8(1),
                Value::Int8(2),
                Value::Int16(300),
            ],
        ),
    ];
    for (text, values) in expected {
        let sv = parse(text);
        assert_eq!(schema_of(&sv).kind, Type::Array);
        assert_eq!(schema_of(&sv).value_schema, None);
        assert_eq!(sv.value, Value::Array(values));
    }
}

#[test]
fn maps_with_mixed_keys_or_values() {
    let mixed_keys = parse("{1:1, 2:1, 300:300, \"four\":1}");
    assert_eq!(schema_of(&mixed_keys).key_schema, None);
    assert_eq!(schema_of(&mixed_keys).value_schema, None);
    assert_eq!(
        mixed_keys.value,
        Value::Map(vec![
            (Value::Int8(1), Value::Int8(1)),
            (Value::Int8(2), Value::Int8(1)),
            (Value::Int16(300), Value::Int16(300)),
            ("four".into(), Value::Int8(1)),
        ])
    );
    // Keys agree (and are widened); values do not, so they are left alone.
    let mixed_values = parse("{1:1, 2:1, 300:300, 4:\"four\"}");
    assert_eq!(schema_of(&mixed_values).key_schema, Some(Schema::int16()));
    assert_eq!(schema_of(&mixed_values).value_schema, None);
    assert_eq!(
        mixed_values.value,
        Value::Map(vec![
            (Value::Int16(1), Value::Int8(1)),
            (Value::Int16(2), Value::Int8(1)),
            (Value::Int16(300), Value::Int16(300)),
            (Value::Int16(4), "four".into()),
        ])
    );
}

#[test]
fn nulls_alone_in_collections() {
    let list = parse("[null]");
    assert_eq!(schema_of(&list).value_schema, None);
    assert_eq!(list.value, Value::Array(vec![Value::Null]));
    let map = parse("{3: null}");
    assert_eq!(schema_of(&map).key_schema, Some(Schema::int8()));
    assert_eq!(map.value, Value::Map(vec![(Value::Int8(3), Value::Null)]));
}

#[test]
fn empty_and_nested_collections() {
    assert_eq!(parse("{}").value, Value::Map(vec![]));
    assert_eq!(parse("[]").value, Value::Array(vec![]));
    assert_eq!(
        schema_of(&parse("[[]]"))
            .value_schema
            .as_ref()
            .unwrap()
            .kind,
        Type::Array
    );
    assert_eq!(
        schema_of(&parse("[{}]"))
            .value_schema
            .as_ref()
            .unwrap()
            .kind,
        Type::Map
    );
    assert_eq!(
        schema_of(&parse("{\"a\":{}}"))
            .value_schema
            .as_ref()
            .unwrap()
            .kind,
        Type::Map
    );
    assert_eq!(
        schema_of(&parse("{\"a\":[]}"))
            .value_schema
            .as_ref()
            .unwrap()
            .kind,
        Type::Array
    );
}

#[test]
fn quoted_strings_keep_their_backslashes() {
    let sv = parse("[\"a\\\"b\", \"c,d\"]");
    assert_eq!(sv.value, Value::Array(vec!["a\\\"b".into(), "c,d".into()]));
}

#[test]
fn decimals_and_other_values_in_one_list() {
    let sv = parse("[\"1.0\", 9223372036854775808, -9223372036854775809, 1, 1]");
    assert_eq!(schema_of(&sv).value_schema, None);
    let Value::Array(items) = &sv.value else {
        panic!()
    };
    assert_eq!(items[0], Value::String("1.0".into()));
    assert!(matches!(items[1], Value::Decimal(_)));
    assert_eq!(items[4], Value::Int8(1));

    let only = parse("[9223372036854775808, -9223372036854775809]");
    assert_eq!(
        schema_of(&only).value_schema,
        Some(ferry_api::data::decimal(0).build())
    );
}

#[test]
fn broken_collections_are_strings() {
    for text in [
        "[1, 2",
        "[1, 2,",
        "{\"a\": 1",
        "[\"abc]",
        "{\"a\": 1,, \"b\": 2}",
    ] {
        assert_string(text);
    }
    // After a failed collection Java rereads the first token, so leading blanks are all that is
    // left of the text.
    for text in [
        " { \"foo\" :  1234567890 ,, \"bar\" : 0 }  ",
        " { \"foo\" :  1234567890 , \"a\", \"bar\" : 0 }  ",
        " { ,,  , , }  ",
    ] {
        assert_eq!(
            parse(text),
            SchemaAndValue::new(Some(Schema::string()), " ".into())
        );
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert!(parse_string(&deep).is_err());
    let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert_eq!(schema_of(&parse(&fine)).kind, Type::Array);
}

/// Text written by `convert_to_string` must read back as the same value and schema.
#[test]
fn written_text_reads_back() {
    let list = ferry_api::data::SchemaBuilder::array(Schema::int32()).build();
    let map = ferry_api::data::SchemaBuilder::map(Schema::string(), Schema::string()).build();
    let cases: Vec<(SchemaRef, Value)> = vec![
        (Schema::string(), "simple".into()),
        (Schema::string(), "three\"blind\\\"mice".into()),
        (
            Schema::string(),
            "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':".into(),
        ),
        (Schema::string(), "null".into()),
        (Schema::boolean(), Value::Boolean(false)),
        (Schema::int8(), Value::Int8(1)),
        (Schema::int64(), Value::Int64(1 << 40)),
        (Schema::float32(), Value::Float32(1.5)),
        (
            list,
            Value::Array(vec![
                Value::Int32(1_234_567_890),
                Value::Int32(-987_654_321),
            ]),
        ),
        (
            map,
            Value::Map(vec![
                ("foo".into(), "123".into()),
                ("bar".into(), "baz".into()),
            ]),
        ),
        (
            ferry_api::data::timestamp().build(),
            Value::Int64(1_566_570_894_346),
        ),
        (ferry_api::data::date().build(), Value::Int32(18_131)),
        (ferry_api::data::time().build(), Value::Int32(52_494_346)),
    ];
    for (schema, value) in cases {
        let text = convert_to_string(Some(&schema), &value).unwrap();
        let back = parse(&text);
        // A lone "null" string cannot survive: it reads back as the null literal.
        if value == Value::String("null".into()) {
            assert_eq!(back, SchemaAndValue::NULL);
            continue;
        }
        assert_eq!(back, SchemaAndValue::new(Some(schema), value), "{text}");
    }
    // Java reads any finite fraction back as a float32, so a float64 header loses precision.
    let text = convert_to_string(None, &Value::Float64(0.1)).unwrap();
    assert_eq!(parse(&text).value, Value::Float32(0.1));
}
