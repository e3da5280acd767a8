//! `InsertField$Key` / `InsertField$Value`: adds fields holding the record's topic, partition,
//! offset (sink records) or timestamp, or a fixed string, to a struct or map.

use ferry_api::config::{ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance};
use ferry_api::data::{
    check_null_allowed, timestamp, Schema, SchemaBuilder, SchemaRef, Struct, Value,
};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::{
    copy_schema_basics, rebuilt_values, require_map, require_struct, struct_field_value, Part,
    SchemaCache, StructFields,
};

pub const TOPIC_FIELD: &str = "topic.field";
pub const PARTITION_FIELD: &str = "partition.field";
pub const OFFSET_FIELD: &str = "offset.field";
pub const TIMESTAMP_FIELD: &str = "timestamp.field";
pub const STATIC_FIELD: &str = "static.field";
pub const STATIC_VALUE: &str = "static.value";
pub const REPLACE_NULL_WITH_DEFAULT: &str = "replace.null.with.default";

const PURPOSE: &str = "field insertion";
const OPTIONALITY_DOC: &str =
    "Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).";

/// A field to insert: its name and whether its schema is optional (`?` suffix or none) or
/// required (`!` suffix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InsertionSpec {
    name: String,
    optional: bool,
}

impl InsertionSpec {
    fn parse(spec: Option<String>) -> Option<Self> {
        let spec = spec?;
        Some(if let Some(name) = spec.strip_suffix('?') {
            InsertionSpec {
                name: name.to_owned(),
                optional: true,
            }
        } else if let Some(name) = spec.strip_suffix('!') {
            InsertionSpec {
                name: name.to_owned(),
                optional: false,
            }
        } else {
            InsertionSpec {
                name: spec,
                optional: true,
            }
        })
    }

    fn schema(&self, required: SchemaRef, optional: SchemaRef) -> SchemaRef {
        if self.optional {
            optional
        } else {
            required
        }
    }
}

#[derive(Debug, Clone)]
struct InsertConfig {
    topic: Option<InsertionSpec>,
    partition: Option<InsertionSpec>,
    offset: Option<InsertionSpec>,
    timestamp: Option<InsertionSpec>,
    static_field: Option<InsertionSpec>,
    static_value: Option<String>,
    replace_null_with_default: bool,
}

/// Java's `InsertField` transform for one part of the record.
pub struct InsertField {
    part: Part,
    config: Option<InsertConfig>,
    schemas: SchemaCache,
}

/// The values to insert, read from the record before its key or value is rebuilt.
struct Inserts {
    topic: Option<String>,
    partition: Option<i32>,
    offset: Option<i64>,
    timestamp: Option<i64>,
}

/// The Kafka offset of a sink record; `None` for a source record.
fn kafka_offset(record: &dyn Record) -> Option<i64> {
    record.kafka_offset()
}

impl InsertField {
    pub fn new(part: Part) -> Self {
        InsertField {
            part,
            config: None,
            schemas: SchemaCache::new(),
        }
    }

    fn inserts(cfg: &InsertConfig, record: &dyn Record) -> Result<Inserts, ConnectError> {
        let offset = match cfg.offset {
            None => None,
            Some(_) => Some(kafka_offset(record).ok_or_else(|| {
                ConnectError::data(format!(
                    "Only SinkRecord supported for [{PURPOSE}], found: org.apache.kafka.connect.source.SourceRecord"
                ))
            })?),
        };
        Ok(Inserts {
            topic: cfg.topic.as_ref().map(|_| record.topic().to_owned()),
            partition: record.kafka_partition(),
            offset,
            timestamp: record.timestamp(),
        })
    }

    fn updated_schema(cfg: &InsertConfig, schema: &Schema) -> Result<SchemaRef, ConnectError> {
        let mut fields = StructFields::new(copy_schema_basics(schema, SchemaBuilder::struct_()));
        for field in &schema.fields {
            fields.add(&field.name, field.schema.clone())?;
        }
        if let Some(spec) = &cfg.topic {
            fields.add(
                &spec.name,
                spec.schema(Schema::string(), Schema::optional_string()),
            )?;
        }
        if let Some(spec) = &cfg.partition {
            fields.add(
                &spec.name,
                spec.schema(Schema::int32(), Schema::optional_int32()),
            )?;
        }
        if let Some(spec) = &cfg.offset {
            fields.add(
                &spec.name,
                spec.schema(Schema::int64(), Schema::optional_int64()),
            )?;
        }
        if let Some(spec) = &cfg.timestamp {
            fields.add(
                &spec.name,
                spec.schema(timestamp().build(), timestamp().optional().build()),
            )?;
        }
        if let Some(spec) = &cfg.static_field {
            fields.add(
                &spec.name,
                spec.schema(Schema::string(), Schema::optional_string()),
            )?;
        }
        Ok(fields.into_builder().build())
    }

    /// The fields to add, in Java's order, each with its value; a missing partition or
    /// timestamp has none (the field is left unset).
    fn additions(cfg: &InsertConfig, inserts: Inserts) -> Vec<(&InsertionSpec, Option<Value>)> {
        let mut out = Vec::with_capacity(5);
        if let Some(spec) = &cfg.topic {
            out.push((spec, inserts.topic.map(Value::String)));
        }
        if let Some(spec) = &cfg.partition {
            out.push((spec, inserts.partition.map(Value::Int32)));
        }
        if let Some(spec) = &cfg.offset {
            out.push((spec, inserts.offset.map(Value::Int64)));
        }
        if let Some(spec) = &cfg.timestamp {
            out.push((spec, inserts.timestamp.map(Value::Int64)));
        }
        if let Some(spec) = &cfg.static_field {
            out.push((spec, cfg.static_value.clone().map(Value::String)));
        }
        out
    }
}

fn string_key(name: &str, doc: &str) -> ConfigKey {
    ConfigKey::new(
        name,
        ConfigType::String,
        DefaultValue::Null,
        Importance::Medium,
        doc,
    )
}

impl Transformation for InsertField {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = self.config_def().parse(configs)?;
        let cfg = InsertConfig {
            topic: InsertionSpec::parse(parsed.string(TOPIC_FIELD)?),
            partition: InsertionSpec::parse(parsed.string(PARTITION_FIELD)?),
            offset: InsertionSpec::parse(parsed.string(OFFSET_FIELD)?),
            timestamp: InsertionSpec::parse(parsed.string(TIMESTAMP_FIELD)?),
            static_field: InsertionSpec::parse(parsed.string(STATIC_FIELD)?),
            static_value: parsed.string(STATIC_VALUE)?,
            replace_null_with_default: parsed.boolean(REPLACE_NULL_WITH_DEFAULT)?,
        };
        if cfg.topic.is_none()
            && cfg.partition.is_none()
            && cfg.offset.is_none()
            && cfg.timestamp.is_none()
            && cfg.static_field.is_none()
        {
            // Java names no key for this; the first of the field keys stands in.
            return Err(ConfigError::single(TOPIC_FIELD, "No field insertion configured").into());
        }
        if let (Some(spec), None) = (&cfg.static_field, &cfg.static_value) {
            // Java prints its spec object's identity here; the field name is more use.
            return Err(ConfigError::invalid_value(
                STATIC_VALUE,
                "null",
                &format!("No value specified for static field: {}", spec.name),
            )
            .into());
        }
        self.config = Some(cfg);
        self.schemas = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
            .define(string_key(
                TOPIC_FIELD,
                &format!("Field name for Kafka topic. {OPTIONALITY_DOC}"),
            ))
            .define(string_key(
                PARTITION_FIELD,
                &format!("Field name for Kafka partition. {OPTIONALITY_DOC}"),
            ))
            .define(string_key(
                OFFSET_FIELD,
                &format!(
                    "Field name for Kafka offset - only applicable to sink connectors.<br/>{OPTIONALITY_DOC}"
                ),
            ))
            .define(string_key(
                TIMESTAMP_FIELD,
                &format!("Field name for record timestamp. {OPTIONALITY_DOC}"),
            ))
            .define(string_key(
                STATIC_FIELD,
                &format!("Field name for static data field. {OPTIONALITY_DOC}"),
            ))
            .define(string_key(
                STATIC_VALUE,
                "Static field value, if field name configured.",
            ))
            .define(ConfigKey::new(
                REPLACE_NULL_WITH_DEFAULT,
                ConfigType::Boolean,
                DefaultValue::Value("true".to_owned()),
                Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. \
                 When set to true, the default value is used, otherwise null is used.",
            ))
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let cfg = self.config.as_ref().ok_or_else(|| {
            ConnectError::other("InsertField transformation used before it was configured")
        })?;
        let value = self.part.value(record);
        if value.is_null() {
            return Ok(true);
        }
        let (schema, updated) = match self.part.schema(record) {
            None => {
                let mut entries = require_map(value, PURPOSE)?.to_vec();
                let inserts = Self::inserts(cfg, record)?;
                for (spec, v) in Self::additions(cfg, inserts) {
                    let Some(v) = v else { continue };
                    match entries
                        .iter()
                        .position(|(k, _)| k.as_str() == Some(&spec.name))
                    {
                        Some(i) => entries[i].1 = v,
                        None => entries.push((Value::String(spec.name.clone()), v)),
                    }
                }
                (None, Value::Map(entries))
            }
            Some(_) => {
                let original = require_struct(value, PURPOSE)?;
                let inserts = Self::inserts(cfg, record)?;
                // Java derives the new schema from the struct's own schema.
                let source = original.schema().clone();
                let updated = self
                    .schemas
                    .get_or_build(&source, || Self::updated_schema(cfg, &source))?;
                // Java puts every input field into the new struct: a required one holding null
                // fails here, before any value is moved out of the record.
                for field in &source.fields {
                    check_null_allowed(
                        field,
                        struct_field_value(original, field, cfg.replace_null_with_default),
                    )?;
                }
                let mut values = rebuilt_values(
                    self.part,
                    record,
                    &source,
                    cfg.replace_null_with_default,
                    Vec::new(),
                );
                values.extend(
                    Self::additions(cfg, inserts)
                        .into_iter()
                        .map(|(_, v)| v.unwrap_or_default()),
                );
                (
                    Some(updated.clone()),
                    Value::Struct(Struct::from_values(updated, values)?),
                )
            }
        };
        self.part.set(record, schema, updated);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
