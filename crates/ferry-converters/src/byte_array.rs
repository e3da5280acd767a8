//! `ByteArrayConverter`: raw bytes through unchanged.

use ferry_api::config::ConfigDef;
use ferry_api::converter::{Converter, HeaderConverter};
use ferry_api::data::{Schema, SchemaAndValue, SchemaRef, Type, Value};
use ferry_api::error::{ConnectError, Result};
use ferry_api::ConfigMap;

use crate::config::converter_config_def;
use ferry_api::java::java_class_name;

/// Accepts only byte values (with no schema or a BYTES schema); reads as optional bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct ByteArrayConverter;

impl ByteArrayConverter {
    pub const CLASS_NAME: &'static str = "org.apache.kafka.connect.converters.ByteArrayConverter";

    pub fn new() -> Self {
        ByteArrayConverter
    }

    /// Java declares `converter.type` but never reads it: configuring cannot fail.
    pub fn config_def() -> ConfigDef {
        converter_config_def()
    }

    fn write(schema: Option<&SchemaRef>, value: &Value) -> Result<Option<Vec<u8>>> {
        // The schema is checked first, so even a null with a non-BYTES schema is refused.
        if let Some(schema) = schema {
            if schema.kind != Type::Bytes {
                return Err(ConnectError::data(format!(
                    "Invalid schema type for ByteArrayConverter: {}",
                    schema.kind.java_name()
                )));
            }
        }
        match value {
            Value::Null => Ok(None),
            Value::Bytes(bytes) => Ok(Some(bytes.clone())),
            other => Err(ConnectError::data(format!(
                "ByteArrayConverter is not compatible with objects of type class {}",
                java_class_name(other)
            ))),
        }
    }

    fn read(bytes: Option<&[u8]>) -> SchemaAndValue {
        let value = bytes.map_or(Value::Null, |b| Value::Bytes(b.to_vec()));
        SchemaAndValue::new(Some(Schema::optional_bytes()), value)
    }
}

impl Converter for ByteArrayConverter {
    fn configure(&mut self, _configs: &ConfigMap, _is_key: bool) -> Result<()> {
        Ok(())
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
        Ok(Self::read(bytes))
    }
}

impl HeaderConverter for ByteArrayConverter {
    fn configure(&mut self, _configs: &ConfigMap) -> Result<()> {
        Ok(())
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
        Ok(Self::read(bytes))
    }
}

#[cfg(test)]
mod tests {
    use ferry_api::data::Decimal;

    use super::*;

    const TOPIC: &str = "topic";
    const SAMPLE: &[u8] = b"sample string";

    fn write(schema: Option<&SchemaRef>, value: &Value) -> Result<Option<Vec<u8>>> {
        ByteArrayConverter.from_connect_data(TOPIC, schema, value)
    }

    #[test]
    fn bytes_pass_through_with_or_without_schema() {
        let v = Value::Bytes(SAMPLE.to_vec());
        assert_eq!(
            write(Some(&Schema::bytes()), &v).unwrap().as_deref(),
            Some(SAMPLE)
        );
        assert_eq!(write(None, &v).unwrap().as_deref(), Some(SAMPLE));
        assert_eq!(write(None, &Value::Bytes(vec![])).unwrap(), Some(vec![]));
    }

    #[test]
    fn a_non_bytes_schema_is_refused_with_javas_message() {
        let err = write(Some(&Schema::int32()), &Value::Bytes(SAMPLE.to_vec())).unwrap_err();
        assert!(matches!(err, ConnectError::Data { .. }));
        assert_eq!(
            err.to_string(),
            "Invalid schema type for ByteArrayConverter: INT32"
        );
        assert!(write(Some(&Schema::optional_int32()), &Value::Null).is_err());
    }

    #[test]
    fn a_non_bytes_value_is_refused_with_javas_message() {
        let err = write(Some(&Schema::bytes()), &Value::Int32(12)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ByteArrayConverter is not compatible with objects of type class java.lang.Integer"
        );
        // A decimal is a BigDecimal in Java even though its schema is BYTES.
        let decimal = ferry_api::data::decimal(2).build();
        assert!(write(Some(&decimal), &Value::Decimal(Decimal::new(1, 2))).is_err());
    }

    #[test]
    fn null_stays_null() {
        assert_eq!(write(Some(&Schema::bytes()), &Value::Null).unwrap(), None);
        let back = ByteArrayConverter.to_connect_data(TOPIC, None).unwrap();
        assert_eq!(back.schema, Some(Schema::optional_bytes()));
        assert_eq!(back.value, Value::Null);
    }

    #[test]
    fn reads_give_optional_bytes() {
        let back = ByteArrayConverter
            .to_connect_data(TOPIC, Some(SAMPLE))
            .unwrap();
        assert_eq!(back.schema, Some(Schema::optional_bytes()));
        assert_eq!(back.value, Value::Bytes(SAMPLE.to_vec()));
        let header = ByteArrayConverter
            .to_connect_header(TOPIC, "h", Some(SAMPLE))
            .unwrap();
        assert_eq!(back, header);
    }
}
