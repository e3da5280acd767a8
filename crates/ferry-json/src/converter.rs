//! The converter itself: envelope handling and the plugin traits.

use std::sync::{Arc, Mutex};

use ferry_api::config::ConfigDef;
use ferry_api::converter::{Converter, ConverterType, HeaderConverter};
use ferry_api::data::{SchemaAndValue, SchemaRef, Value};
use ferry_api::{ConfigMap, ConnectError};

use crate::cache::BoundedCache;
use crate::config::{JsonConverterConfig, CONVERTER_TYPE_CONFIG};
use crate::node::JsonNode;
use crate::schema_json::{schema_to_json, SchemaReader};
use crate::write::Writer;
use crate::{emit, parse, read};

fn serialization_error(why: String) -> ConnectError {
    ConnectError::data(format!(
        "Converting byte[] to Kafka Connect data failed due to serialization error: {why}"
    ))
}

const ENVELOPE_ERROR: &str = "JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.";

/// Java's `org.apache.kafka.connect.json.JsonConverter`, usable for keys, values and headers.
/// Unconfigured it behaves as a value converter with every setting at its default.
pub struct JsonConverter {
    config: JsonConverterConfig,
    /// Schema JSON text by schema identity; the `SchemaRef` is kept so the address stays valid.
    from_connect_cache: BoundedCache<usize, (SchemaRef, Arc<str>)>,
    to_connect_cache: BoundedCache<String, SchemaRef>,
    /// The schema text of the last envelope read, as sent, and its schema: records of a topic
    /// mostly carry the same one, which then needs no parsing. Apart from the cache above,
    /// which holds what Java's does.
    last_envelope_schema: Mutex<Option<(String, SchemaRef)>>,
    /// The schema of `schema.content`, which every message read then has.
    fixed_schema: Option<SchemaRef>,
}

impl Default for JsonConverter {
    fn default() -> Self {
        Self::with_config(JsonConverterConfig::default())
    }
}

impl std::fmt::Debug for JsonConverter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonConverter")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl JsonConverter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_config(config: JsonConverterConfig) -> Self {
        JsonConverter {
            from_connect_cache: BoundedCache::new(config.schemas_cache_size),
            to_connect_cache: BoundedCache::new(config.schemas_cache_size),
            last_envelope_schema: Mutex::default(),
            fixed_schema: None,
            config,
        }
    }

    /// Reads `schema.content` once, as Java's `configure` does.
    fn read_fixed_schema(&mut self) -> Result<(), ConnectError> {
        let Some(text) = self.config.schema_content.as_deref() else {
            return Ok(());
        };
        let node = parse::parse(text.as_bytes())
            .map_err(|why| {
                ConnectError::data(format!(
                    "Failed to parse schema in converter config due to serialization error: {why}"
                ))
            })?
            .unwrap_or(JsonNode::Null);
        let reader = SchemaReader {
            cache: &self.to_connect_cache,
            replace_null_with_default: self.config.replace_null_with_default,
        };
        self.fixed_schema = reader.read(&node)?;
        Ok(())
    }

    pub fn config(&self) -> &JsonConverterConfig {
        &self.config
    }

    /// How many parsed schemas are cached (for tests and metrics).
    pub fn cached_schema_count(&self) -> usize {
        self.to_connect_cache.len()
    }

    fn writer(&self) -> Writer {
        Writer {
            decimal_format: self.config.decimal_format,
            replace_null_with_default: self.config.replace_null_with_default,
            lenient_schemaless: false,
        }
    }

    fn schema_text(&self, schema: &SchemaRef) -> Result<Arc<str>, ConnectError> {
        let key = Arc::as_ptr(schema) as usize;
        if let Some((cached, text)) = self.from_connect_cache.get(&key) {
            if Arc::ptr_eq(&cached, schema) {
                return Ok(text);
            }
        }
        let text: Arc<str> = emit::to_text(&schema_to_json(schema, &self.writer())?).into();
        self.from_connect_cache
            .put(key, (schema.clone(), text.clone()));
        Ok(text)
    }

    fn serialize(
        &self,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, ConnectError> {
        if schema.is_none() && value.is_null() {
            return Ok(None);
        }
        if !self.config.schemas_enable {
            let payload = self.writer().convert(schema.map(|s| s.as_ref()), value)?;
            return Ok(Some(emit::to_bytes(&payload)));
        }
        // Java translates the schema before the value, so its errors take precedence.
        let schema_text = match schema {
            Some(schema) => self.schema_text(schema)?,
            None => Arc::from("null"),
        };
        let payload = self.writer().convert(schema.map(|s| s.as_ref()), value)?;
        let mut out = String::from("{\"schema\":");
        out.push_str(&schema_text);
        out.push_str(",\"payload\":");
        emit::write_node(&payload, &mut out);
        out.push('}');
        Ok(Some(out.into_bytes()))
    }

    fn deserialize(&self, bytes: Option<&[u8]>) -> Result<SchemaAndValue, ConnectError> {
        let Some(bytes) = bytes else {
            return Ok(SchemaAndValue::NULL);
        };
        let replace = self.config.replace_null_with_default;
        if let (true, Some(schema)) = (self.config.schemas_enable, &self.fixed_schema) {
            let root = parse::parse(bytes).map_err(serialization_error)?;
            let value = read::to_connect(Some(schema), root.as_ref(), replace)?;
            return Ok(SchemaAndValue::new(Some(schema.clone()), value));
        }
        if self.config.schemas_enable {
            if let Some(envelope) = parse::envelope(bytes).filter(|e| e.schema.starts_with('{')) {
                let schema = self.envelope_schema(envelope.schema, replace)?;
                let value = read::to_connect(Some(&schema), Some(&envelope.payload), replace)?;
                return Ok(SchemaAndValue::new(Some(schema), value));
            }
        }
        let root = parse::parse(bytes).map_err(serialization_error)?;
        if !self.config.schemas_enable {
            let value = read::to_connect(None, root.as_ref(), replace)?;
            return Ok(SchemaAndValue::new(None, value));
        }
        let (schema_node, payload) = match &root {
            Some(JsonNode::Object(map)) if map.len() == 2 => {
                match (map.get("schema"), map.get("payload")) {
                    (Some(schema), Some(payload)) => (schema, payload),
                    _ => return Err(ConnectError::data(ENVELOPE_ERROR)),
                }
            }
            _ => return Err(ConnectError::data(ENVELOPE_ERROR)),
        };
        let reader = SchemaReader {
            cache: &self.to_connect_cache,
            replace_null_with_default: replace,
        };
        let schema = reader.read(schema_node)?;
        let value = read::to_connect(schema.as_ref(), Some(payload), replace)?;
        Ok(SchemaAndValue::new(schema, value))
    }

    /// The schema written as `text` (an object) in an envelope.
    fn envelope_schema(&self, text: &str, replace: bool) -> Result<SchemaRef, ConnectError> {
        let mut last = self
            .last_envelope_schema
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((last_text, schema)) = last.as_ref() {
            if last_text == text {
                return Ok(schema.clone());
            }
        }
        let node = parse::parse(text.as_bytes())
            .map_err(serialization_error)?
            .unwrap_or(JsonNode::Null);
        let reader = SchemaReader {
            cache: &self.to_connect_cache,
            replace_null_with_default: replace,
        };
        let schema = reader
            .read(&node)?
            .ok_or_else(|| ConnectError::data(ENVELOPE_ERROR))?;
        *last = Some((text.to_owned(), schema.clone()));
        Ok(schema)
    }

    fn reconfigure(
        &mut self,
        configs: &ConfigMap,
        kind: Option<ConverterType>,
    ) -> Result<(), ConnectError> {
        let config = match kind {
            Some(kind) => JsonConverterConfig::parse_as(configs, kind)?,
            None => JsonConverterConfig::parse(configs)?,
        };
        *self = Self::with_config(config);
        self.read_fixed_schema()
    }
}

impl Converter for JsonConverter {
    fn configure(&mut self, configs: &ConfigMap, is_key: bool) -> Result<(), ConnectError> {
        let kind = if is_key {
            ConverterType::Key
        } else {
            ConverterType::Value
        };
        self.reconfigure(configs, Some(kind))
    }

    fn config_def(&self) -> ConfigDef {
        JsonConverterConfig::config_def()
    }

    fn from_connect_data(
        &self,
        _topic: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, ConnectError> {
        self.serialize(schema, value)
    }

    fn to_connect_data(
        &self,
        _topic: &str,
        bytes: Option<&[u8]>,
    ) -> Result<SchemaAndValue, ConnectError> {
        self.deserialize(bytes)
    }
}

impl HeaderConverter for JsonConverter {
    /// Java's runtime always supplies `converter.type=header`; it is assumed when absent.
    fn configure(&mut self, configs: &ConfigMap) -> Result<(), ConnectError> {
        let kind = (!configs.contains_key(CONVERTER_TYPE_CONFIG)).then_some(ConverterType::Header);
        self.reconfigure(configs, kind)
    }

    fn config_def(&self) -> ConfigDef {
        JsonConverterConfig::config_def()
    }

    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, ConnectError> {
        self.serialize(schema, value)
    }

    fn to_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<SchemaAndValue, ConnectError> {
        self.deserialize(bytes)
    }
}
