//! The fixed-width converters: one generic converter, parameterised by what Kafka's matching
//! serializer does (`ShortSerializer`, …, `BooleanSerializer`).

use std::marker::PhantomData;

use ferry_api::config::ConfigDef;
use ferry_api::converter::{Converter, HeaderConverter};
use ferry_api::data::{Schema, SchemaAndValue, SchemaRef, Type, Value};
use ferry_api::error::{ConnectError, Result};
use ferry_api::ConfigMap;

use crate::config::{converter_config_def, parse_for_data, parse_for_header};
use ferry_api::java::java_class_name;

/// One fixed-width wire type: its Connect type, its big-endian encoding and Java's wording.
pub trait FixedWidth: Send + Sync + 'static {
    const CLASS_NAME: &'static str;
    /// The width every payload must have.
    const WIDTH: usize;
    /// How Java's deserializer names itself when the width is wrong.
    const DESERIALIZER: &'static str;
    /// The name used in "Failed to (de)serialize …" messages.
    const TYPE_NAME: &'static str;

    /// The optional schema given to every value read.
    fn schema() -> SchemaRef;

    /// The payload for a value of the right type, or `None` for any other value.
    fn encode(value: &Value) -> Option<Vec<u8>>;

    /// Decodes exactly `WIDTH` bytes; the error is the deserializer's reason.
    fn decode(bytes: &[u8]) -> Result<Value, String>;

    /// Java's number converters ignore the schema entirely; only the boolean one checks it.
    fn check_schema(_schema: Option<&SchemaRef>) -> Result<()> {
        Ok(())
    }

    fn wrong_type(value: &Value) -> ConnectError {
        ConnectError::data(format!(
            "Failed to serialize to {} (was class {})",
            Self::TYPE_NAME,
            java_class_name(value)
        ))
    }
}

/// A converter for one [`FixedWidth`] type; see the aliases [`ShortConverter`] and friends.
pub struct FixedWidthConverter<K: FixedWidth> {
    kind: PhantomData<fn() -> K>,
}

pub type ShortConverter = FixedWidthConverter<ShortType>;
pub type IntegerConverter = FixedWidthConverter<IntegerType>;
pub type LongConverter = FixedWidthConverter<LongType>;
pub type FloatConverter = FixedWidthConverter<FloatType>;
pub type DoubleConverter = FixedWidthConverter<DoubleType>;
pub type BooleanConverter = FixedWidthConverter<BooleanType>;

impl<K: FixedWidth> FixedWidthConverter<K> {
    pub const CLASS_NAME: &'static str = K::CLASS_NAME;

    pub fn new() -> Self {
        FixedWidthConverter { kind: PhantomData }
    }

    pub fn config_def() -> ConfigDef {
        converter_config_def()
    }

    fn write(schema: Option<&SchemaRef>, value: &Value) -> Result<Option<Vec<u8>>> {
        K::check_schema(schema)?;
        if value.is_null() {
            return Ok(None);
        }
        K::encode(value)
            .map(Some)
            .ok_or_else(|| K::wrong_type(value))
    }

    fn read(bytes: Option<&[u8]>) -> Result<SchemaAndValue> {
        let value = match bytes {
            None => Value::Null,
            Some(b) if b.len() != K::WIDTH => {
                return Err(Self::read_error(&format!(
                    "Size of data received by {} is not {}",
                    K::DESERIALIZER,
                    K::WIDTH
                )))
            }
            Some(b) => K::decode(b).map_err(|why| Self::read_error(&why))?,
        };
        Ok(SchemaAndValue::new(Some(K::schema()), value))
    }

    fn read_error(why: &str) -> ConnectError {
        ConnectError::data(format!("Failed to deserialize {}: {why}", K::TYPE_NAME))
    }
}

impl<K: FixedWidth> Default for FixedWidthConverter<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: FixedWidth> std::fmt::Debug for FixedWidthConverter<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(K::CLASS_NAME)
    }
}

impl<K: FixedWidth> Converter for FixedWidthConverter<K> {
    fn configure(&mut self, configs: &ConfigMap, is_key: bool) -> Result<()> {
        parse_for_data(&Self::config_def(), configs, is_key).map(drop)
    }

    fn config_def(&self) -> ConfigDef {
        Self::config_def()
    }

    fn from_connect_data(
        &self,
        _topic: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Self::write(schema, value)
    }

    fn to_connect_data(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<SchemaAndValue> {
        Self::read(bytes)
    }
}

impl<K: FixedWidth> HeaderConverter for FixedWidthConverter<K> {
    fn configure(&mut self, configs: &ConfigMap) -> Result<()> {
        parse_for_header(&Self::config_def(), configs).map(drop)
    }

    fn config_def(&self) -> ConfigDef {
        Self::config_def()
    }

    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Self::write(schema, value)
    }

    fn to_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        Self::read(bytes)
    }
}

/// Declares a number type whose Connect value variant wraps a Rust primitive.
macro_rules! number_type {
    ($name:ident, $class:literal, $deser:literal, $type_name:literal, $variant:ident, $prim:ty, $schema:ident) => {
        #[derive(Debug, Clone, Copy)]
        pub struct $name;

        impl FixedWidth for $name {
            const CLASS_NAME: &'static str = $class;
            const WIDTH: usize = std::mem::size_of::<$prim>();
            const DESERIALIZER: &'static str = $deser;
            const TYPE_NAME: &'static str = $type_name;

            fn schema() -> SchemaRef {
                Schema::$schema()
            }

            fn encode(value: &Value) -> Option<Vec<u8>> {
                match value {
                    Value::$variant(v) => Some(v.to_be_bytes().to_vec()),
                    _ => None,
                }
            }

            fn decode(bytes: &[u8]) -> Result<Value, String> {
                let array = bytes.try_into().map_err(|_| "wrong width".to_owned())?;
                Ok(Value::$variant(<$prim>::from_be_bytes(array)))
            }
        }
    };
}

number_type!(
    ShortType,
    "org.apache.kafka.connect.converters.ShortConverter",
    "ShortDeserializer",
    "short",
    Int16,
    i16,
    optional_int16
);
number_type!(
    IntegerType,
    "org.apache.kafka.connect.converters.IntegerConverter",
    "IntegerDeserializer",
    "integer",
    Int32,
    i32,
    optional_int32
);
number_type!(
    LongType,
    "org.apache.kafka.connect.converters.LongConverter",
    "LongDeserializer",
    "long",
    Int64,
    i64,
    optional_int64
);
// Kafka's float and double deserializers call themselves plain "Deserializer".
number_type!(
    FloatType,
    "org.apache.kafka.connect.converters.FloatConverter",
    "Deserializer",
    "float",
    Float32,
    f32,
    optional_float32
);
number_type!(
    DoubleType,
    "org.apache.kafka.connect.converters.DoubleConverter",
    "Deserializer",
    "double",
    Float64,
    f64,
    optional_float64
);

/// A single byte, 1 for true and 0 for false; any other byte is an error.
#[derive(Debug, Clone, Copy)]
pub struct BooleanType;

impl FixedWidth for BooleanType {
    const CLASS_NAME: &'static str = "org.apache.kafka.connect.converters.BooleanConverter";
    const WIDTH: usize = 1;
    const DESERIALIZER: &'static str = "BooleanDeserializer";
    const TYPE_NAME: &'static str = "boolean";

    fn schema() -> SchemaRef {
        Schema::optional_boolean()
    }

    fn encode(value: &Value) -> Option<Vec<u8>> {
        match value {
            Value::Boolean(b) => Some(vec![u8::from(*b)]),
            _ => None,
        }
    }

    fn decode(bytes: &[u8]) -> Result<Value, String> {
        match bytes {
            [0] => Ok(Value::Boolean(false)),
            [1] => Ok(Value::Boolean(true)),
            // Java prints the byte signed.
            [b, ..] => Err(format!(
                "Unexpected byte received by BooleanDeserializer: {}",
                i8::from_be_bytes([*b])
            )),
            [] => Err("Size of data received by BooleanDeserializer is not 1".to_owned()),
        }
    }

    fn check_schema(schema: Option<&SchemaRef>) -> Result<()> {
        match schema {
            Some(s) if s.kind != Type::Boolean => Err(ConnectError::data(format!(
                "Invalid schema type for BooleanConverter: {}",
                s.kind.java_name()
            ))),
            _ => Ok(()),
        }
    }

    fn wrong_type(value: &Value) -> ConnectError {
        ConnectError::data(format!(
            "BooleanConverter is not compatible with objects of type class {}",
            java_class_name(value)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOPIC: &str = "topic";

    /// Each sample written must match the serializer's bytes and read back with the schema.
    fn check_samples<K: FixedWidth>(samples: &[(Value, Vec<u8>)]) {
        let c = FixedWidthConverter::<K>::new();
        for (value, bytes) in samples {
            let schema = K::schema();
            let written = c.from_connect_data(TOPIC, Some(&schema), value).unwrap();
            assert_eq!(written.as_ref(), Some(bytes), "{value:?}");
            let back = c.to_connect_data(TOPIC, Some(bytes)).unwrap();
            assert_eq!(
                back,
                SchemaAndValue::new(Some(schema.clone()), value.clone())
            );
            let header = c
                .from_connect_header(TOPIC, "h", Some(&schema), value)
                .unwrap();
            assert_eq!(header.as_ref(), Some(bytes));
            assert_eq!(c.to_connect_header(TOPIC, "h", Some(bytes)).unwrap(), back);
        }
    }

    /// The behaviours every number converter shares.
    fn check_common<K: FixedWidth>() {
        let c = FixedWidthConverter::<K>::new();
        let too_long = c.to_connect_data(TOPIC, Some(&[0; 10])).unwrap_err();
        assert!(matches!(too_long, ConnectError::Data { .. }));
        assert!(c.to_connect_header(TOPIC, "h", Some(&[0; 10])).is_err());
        let wrong = Value::String("not a valid number".into());
        assert!(c
            .from_connect_data(TOPIC, Some(&K::schema()), &wrong)
            .is_err());
        assert!(c
            .from_connect_header(TOPIC, "h", Some(&K::schema()), &wrong)
            .is_err());
        assert_eq!(
            c.from_connect_data(TOPIC, Some(&K::schema()), &Value::Null)
                .unwrap(),
            None
        );
        let null = c.to_connect_data(TOPIC, None).unwrap();
        assert_eq!(null, SchemaAndValue::new(Some(K::schema()), Value::Null));
    }

    #[test]
    fn shorts() {
        check_samples::<ShortType>(&[
            (Value::Int16(i16::MIN), vec![0x80, 0]),
            (Value::Int16(123), vec![0, 123]),
            (Value::Int16(i16::MAX), vec![0x7F, 0xFF]),
        ]);
        check_common::<ShortType>();
    }

    #[test]
    fn integers() {
        check_samples::<IntegerType>(&[
            (Value::Int32(i32::MIN), vec![0x80, 0, 0, 0]),
            (Value::Int32(123), vec![0, 0, 0, 123]),
            (Value::Int32(i32::MAX), vec![0x7F, 0xFF, 0xFF, 0xFF]),
        ]);
        check_common::<IntegerType>();
    }

    #[test]
    fn longs() {
        check_samples::<LongType>(&[
            (Value::Int64(i64::MIN), vec![0x80, 0, 0, 0, 0, 0, 0, 0]),
            (Value::Int64(123), vec![0, 0, 0, 0, 0, 0, 0, 123]),
        ]);
        check_common::<LongType>();
    }

    #[test]
    fn floats() {
        check_samples::<FloatType>(&[
            (Value::Float32(f32::from_bits(1)), vec![0, 0, 0, 1]),
            (Value::Float32(1.0), vec![0x3F, 0x80, 0, 0]),
            (Value::Float32(f32::MAX), vec![0x7F, 0x7F, 0xFF, 0xFF]),
        ]);
        check_common::<FloatType>();
    }

    #[test]
    fn doubles() {
        check_samples::<DoubleType>(&[
            (
                Value::Float64(f64::from_bits(1)),
                vec![0, 0, 0, 0, 0, 0, 0, 1],
            ),
            (Value::Float64(1.0), vec![0x3F, 0xF0, 0, 0, 0, 0, 0, 0]),
        ]);
        check_common::<DoubleType>();
    }

    #[test]
    fn booleans() {
        check_samples::<BooleanType>(&[
            (Value::Boolean(true), vec![1]),
            (Value::Boolean(false), vec![0]),
        ]);
        check_common::<BooleanType>();
    }

    #[test]
    fn number_converters_ignore_the_schema_but_not_the_value_type() {
        let c = IntegerConverter::new();
        let out = c.from_connect_data(TOPIC, Some(&Schema::string()), &Value::Int32(1));
        assert_eq!(out.unwrap(), Some(vec![0, 0, 0, 1]));
        // No widening: a Long is not an Integer.
        let err = c
            .from_connect_data(TOPIC, None, &Value::Int64(1))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Failed to serialize to integer (was class java.lang.Long)"
        );
    }

    #[test]
    fn wrong_widths_use_the_deserializers_words() {
        let err = ShortConverter::new()
            .to_connect_data(TOPIC, Some(&[1]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Failed to deserialize short: Size of data received by ShortDeserializer is not 2"
        );
        let err = DoubleConverter::new()
            .to_connect_data(TOPIC, Some(&[1]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Failed to deserialize double: Size of data received by Deserializer is not 8"
        );
    }

    #[test]
    fn boolean_checks_schema_and_bytes() {
        let c = BooleanConverter::new();
        assert_eq!(
            c.from_connect_data(TOPIC, None, &Value::Boolean(true))
                .unwrap(),
            Some(vec![1])
        );
        let err = c
            .from_connect_data(TOPIC, Some(&Schema::int32()), &Value::Boolean(false))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid schema type for BooleanConverter: INT32"
        );
        let err = c
            .from_connect_data(TOPIC, Some(&Schema::boolean()), &"true".into())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "BooleanConverter is not compatible with objects of type class java.lang.String"
        );
        let err = c.to_connect_data(TOPIC, Some(b"42")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1"
        );
        let err = c.to_connect_data(TOPIC, Some(&[0xFF])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: -1"
        );
    }

    #[test]
    fn class_names() {
        assert_eq!(
            LongConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.LongConverter"
        );
        assert_eq!(
            BooleanConverter::CLASS_NAME,
            "org.apache.kafka.connect.converters.BooleanConverter"
        );
    }
}
