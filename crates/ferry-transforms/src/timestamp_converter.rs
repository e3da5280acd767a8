//! `TimestampConverter$Key` / `TimestampConverter$Value`: converts a timestamp (the whole key or
//! value, or one top-level field of it) between text, Unix epoch numbers and Connect's Date, Time
//! and Timestamp types, in UTC.
//!
//! With a schema, the source kind comes from the schema: the Date/Time/Timestamp logical names,
//! else a string schema is text and an int64 schema is a Unix time. Without one it comes from the
//! value: a string is text and a long is a Unix time.
//!
//! Ferry holds Date, Time and Timestamp values in their physical form (int32 days, int32
//! milliseconds of the day, int64 epoch milliseconds) and writes them the same way without a
//! schema. Java hands a `java.util.Date` around instead; a schemaless Java `Date` input has no
//! counterpart here (a schemaless long is read as a Unix time, which with the default
//! `unix.precision` is the same instant).

use std::sync::OnceLock;

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::data::{
    date, time, timestamp, Schema, SchemaBuilder, SchemaRef, Struct, Type, Value,
    DATE_LOGICAL_NAME, TIMESTAMP_LOGICAL_NAME, TIME_LOGICAL_NAME,
};
use ferry_api::java::calendar::MILLIS_PER_DAY;
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::date_format::DateFormat;
use crate::util::{
    class_name, copy_schema_basics, put_struct_field, require_map, struct_field_value, Part,
    SchemaCache, StructFields,
};

pub const FIELD_CONFIG: &str = "field";
pub const TARGET_TYPE_CONFIG: &str = "target.type";
pub const FORMAT_CONFIG: &str = "format";
pub const UNIX_PRECISION_CONFIG: &str = "unix.precision";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

const PURPOSE: &str = "converting timestamp formats";

/// A representation of a timestamp (Java's translator names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Unix,
    Date,
    Time,
    Timestamp,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::String,
        Kind::Unix,
        Kind::Date,
        Kind::Time,
        Kind::Timestamp,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Unix => "unix",
            Kind::Date => "Date",
            Kind::Time => "Time",
            Kind::Timestamp => "Timestamp",
        }
    }

    fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The schema of a value converted to this kind.
    fn schema(self, optional: bool) -> SchemaRef {
        static LOGICAL: OnceLock<[SchemaRef; 6]> = OnceLock::new();
        let logical = LOGICAL.get_or_init(|| {
            [
                date().build(),
                date().optional().build(),
                time().build(),
                time().optional().build(),
                timestamp().build(),
                timestamp().optional().build(),
            ]
        });
        let pick = |i: usize| logical[i + usize::from(optional)].clone();
        match (self, optional) {
            (Kind::String, false) => Schema::string(),
            (Kind::String, true) => Schema::optional_string(),
            (Kind::Unix, false) => Schema::int64(),
            (Kind::Unix, true) => Schema::optional_int64(),
            (Kind::Date, _) => pick(0),
            (Kind::Time, _) => pick(2),
            (Kind::Timestamp, _) => pick(4),
        }
    }

    /// The kind a schema describes (Java's `timestampTypeFromSchema`).
    fn of_schema(schema: &Schema) -> Result<Kind, ConnectError> {
        match schema.name.as_deref() {
            Some(TIMESTAMP_LOGICAL_NAME) => return Ok(Kind::Timestamp),
            Some(DATE_LOGICAL_NAME) => return Ok(Kind::Date),
            Some(TIME_LOGICAL_NAME) => return Ok(Kind::Time),
            _ => {}
        }
        match schema.kind {
            Type::String => Ok(Kind::String),
            Type::Int64 => Ok(Kind::Unix),
            _ => Err(ConnectError::other(format!(
                "Schema {} does not correspond to a known timestamp type format",
                java_schema_string(schema)
            ))),
        }
    }

    /// The kind of a schemaless value (Java's `inferTimestampType`).
    fn of_value(value: &Value) -> Result<Kind, ConnectError> {
        match value {
            Value::Int64(_) => Ok(Kind::Unix),
            Value::String(_) => Ok(Kind::String),
            other => Err(ConnectError::data(format!(
                "TimestampConverter does not support class {} objects as timestamps",
                class_name(other)
            ))),
        }
    }
}

/// Java's `ConnectSchema.toString()`.
fn java_schema_string(schema: &Schema) -> String {
    match &schema.name {
        Some(name) => format!("Schema{{{name}:{}}}", schema.kind.java_name()),
        None => format!("Schema{{{}}}", schema.kind.java_name()),
    }
}

/// The unit of Unix times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Precision {
    Seconds,
    Milliseconds,
    Microseconds,
    Nanoseconds,
}

impl Precision {
    fn from_name(name: &str) -> Precision {
        match name {
            "seconds" => Precision::Seconds,
            "microseconds" => Precision::Microseconds,
            "nanoseconds" => Precision::Nanoseconds,
            _ => Precision::Milliseconds,
        }
    }

    /// Epoch milliseconds of a Unix time: finer units are truncated toward zero and coarser ones
    /// saturate, as Java's `TimeUnit` does.
    fn to_millis(self, time: i64) -> i64 {
        match self {
            Precision::Seconds => time.saturating_mul(1000),
            Precision::Milliseconds => time,
            Precision::Microseconds => time / 1000,
            Precision::Nanoseconds => time / 1_000_000,
        }
    }

    fn millis_in_unit(self, millis: i64) -> i64 {
        match self {
            Precision::Seconds => millis / 1000,
            Precision::Milliseconds => millis,
            Precision::Microseconds => millis.saturating_mul(1000),
            Precision::Nanoseconds => millis.saturating_mul(1_000_000),
        }
    }
}

/// The keys `TimestampConverter` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            FIELD_CONFIG,
            ConfigType::String,
            DefaultValue::Value(String::new()),
            Importance::High,
            "The field holding the timestamp; empty when the whole key or value is the timestamp.",
        ))
        .define(
            ConfigKey::new(
                TARGET_TYPE_CONFIG,
                ConfigType::String,
                DefaultValue::Required,
                Importance::High,
                "What to convert the timestamp to: string, unix, Date, Time or Timestamp.",
            )
            .validator(Validator::one_of(&[
                "string",
                "unix",
                "Date",
                "Time",
                "Timestamp",
            ])),
        )
        .define(ConfigKey::new(
            FORMAT_CONFIG,
            ConfigType::String,
            DefaultValue::Value(String::new()),
            Importance::Medium,
            "A java.text.SimpleDateFormat pattern: how timestamps are written when converting to \
             string, and how text timestamps are read.",
        ))
        .define(
            ConfigKey::new(
                UNIX_PRECISION_CONFIG,
                ConfigType::String,
                DefaultValue::Value("milliseconds".to_owned()),
                Importance::Low,
                "The unit of Unix times, both written (target unix) and read (long inputs): \
                 seconds, milliseconds, microseconds or nanoseconds. Anything finer than a \
                 millisecond is lost in conversion.",
            )
            .validator(Validator::one_of(&[
                "nanoseconds",
                "microseconds",
                "milliseconds",
                "seconds",
            ])),
        )
        .define(ConfigKey::new(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType::Boolean,
            DefaultValue::Value("true".to_owned()),
            Importance::Medium,
            "When true, a null field whose schema has a default comes out as that default; \
             when false it stays null.",
        ))
}

pub struct TimestampConverter {
    part: Part,
    field: String,
    target: Kind,
    format: Option<DateFormat>,
    precision: Precision,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl TimestampConverter {
    pub fn new(part: Part) -> Self {
        TimestampConverter {
            part,
            field: String::new(),
            target: Kind::Timestamp,
            format: None,
            precision: Precision::Milliseconds,
            replace_null_with_default: true,
            cache: SchemaCache::new(),
        }
    }

    /// Epoch milliseconds of a value of kind `kind`.
    fn to_millis(&self, kind: Kind, value: &Value) -> Result<i64, ConnectError> {
        let found = || format!("class {}", class_name(value));
        match (kind, value) {
            (Kind::String, Value::String(text)) => {
                let Some(format) = &self.format else {
                    return Err(ConnectError::data(format!(
                        "Could not parse timestamp: value ({text}) cannot be read without a {FORMAT_CONFIG}"
                    )));
                };
                format.parse(text).ok_or_else(|| {
                    ConnectError::data(format!(
                        "Could not parse timestamp: value ({text}) does not match pattern ({})",
                        format.pattern()
                    ))
                })
            }
            (Kind::String, _) => Err(ConnectError::data(format!(
                "Expected string timestamp to be a String, but found {}",
                found()
            ))),
            (Kind::Unix, Value::Int64(time)) => Ok(self.precision.to_millis(*time)),
            (Kind::Unix, _) => Err(ConnectError::data(format!(
                "Expected Unix timestamp to be a Long, but found {}",
                found()
            ))),
            (Kind::Date, Value::Int32(days)) => Ok(i64::from(*days) * MILLIS_PER_DAY),
            (Kind::Time, Value::Int32(millis)) => Ok(i64::from(*millis)),
            (Kind::Timestamp, Value::Int64(millis)) => Ok(*millis),
            (Kind::Date | Kind::Time | Kind::Timestamp, _) => Err(ConnectError::data(format!(
                "Expected {} to be a java.util.Date, but found {}",
                kind.name(),
                found()
            ))),
        }
    }

    /// The target kind's value for an instant.
    fn target_value(&self, millis: i64) -> Result<Value, ConnectError> {
        Ok(match self.target {
            Kind::String => match &self.format {
                Some(format) => Value::String(format.format(millis)),
                None => {
                    return Err(ConnectError::data(
                        "TimestampConverter requires format option to be specified when using string timestamps",
                    ))
                }
            },
            Kind::Unix => Value::Int64(self.precision.millis_in_unit(millis)),
            Kind::Date => {
                let days = millis.div_euclid(MILLIS_PER_DAY);
                Value::Int32(i32::try_from(days).map_err(|_| {
                    ConnectError::data(format!(
                        "Timestamp {millis} is too far from the epoch for a Connect Date"
                    ))
                })?)
            }
            Kind::Time => Value::Int32(millis.rem_euclid(MILLIS_PER_DAY) as i32),
            Kind::Timestamp => Value::Int64(millis),
        })
    }

    /// Converts `value` (of `kind`, or inferred from the value when `None`); null stays null.
    fn convert(&self, value: &Value, kind: Option<Kind>) -> Result<Value, ConnectError> {
        if value.is_null() {
            return Ok(Value::Null);
        }
        let kind = match kind {
            Some(k) => k,
            None => Kind::of_value(value)?,
        };
        let millis = self.to_millis(kind, value)?;
        self.target_value(millis)
    }

    fn updated_struct_schema(&self, schema: &Schema) -> Result<SchemaRef, ConnectError> {
        if schema.kind != Type::Struct {
            return Err(ConnectError::data("Cannot list fields on non-struct type"));
        }
        let mut fields = StructFields::new(copy_schema_basics(schema, SchemaBuilder::struct_()));
        for field in &schema.fields {
            if field.name == self.field {
                fields.add(&field.name, self.target.schema(field.schema.optional))?;
            } else {
                fields.add(&field.name, field.schema.clone())?;
            }
        }
        let mut builder = fields.into_builder();
        if schema.optional {
            builder = builder.optional();
        }
        if let Some(Value::Struct(default)) = &schema.default {
            let without_default = builder.clone().build();
            let converted = self.convert_struct(default, &without_default)?;
            builder = builder.default_value(Value::Struct(converted));
        }
        Ok(builder.build())
    }

    /// `value` rebuilt over `schema` with the configured field converted.
    fn convert_struct(&self, value: &Struct, schema: &SchemaRef) -> Result<Struct, ConnectError> {
        let mut updated = Struct::new(schema.clone())?;
        for field in &value.schema().fields {
            let field_value = struct_field_value(value, field, self.replace_null_with_default);
            let field_value = if field.name == self.field {
                let kind = Kind::of_schema(&field.schema)?;
                self.convert(field_value, Some(kind))?
            } else {
                field_value.clone()
            };
            put_struct_field(&mut updated, &field.name, field_value)?;
        }
        Ok(updated)
    }

    fn apply_with_schema(
        &self,
        schema: &SchemaRef,
        value: &Value,
    ) -> Result<(SchemaRef, Value), ConnectError> {
        if self.field.is_empty() {
            let updated_schema = self.target.schema(schema.optional);
            let kind = Kind::of_schema(schema)?;
            return Ok((updated_schema, self.convert(value, Some(kind))?));
        }
        let original = match value {
            Value::Null => None,
            Value::Struct(s) => Some(s),
            other => {
                return Err(ConnectError::data(format!(
                    "Only Struct objects supported for [{PURPOSE}], found: {}",
                    class_name(other)
                )))
            }
        };
        let updated_schema = self
            .cache
            .get_or_build(schema, || self.updated_struct_schema(schema))?;
        let updated = match original {
            Some(s) => Value::Struct(self.convert_struct(s, &updated_schema)?),
            None => Value::Null,
        };
        Ok((updated_schema, updated))
    }

    fn apply_schemaless(&self, value: &Value) -> Result<Value, ConnectError> {
        if value.is_null() || self.field.is_empty() {
            return self.convert(value, None);
        }
        let entries = require_map(value, PURPOSE)?;
        let mut updated = entries.to_vec();
        let position = updated
            .iter()
            .position(|(k, _)| k.as_str() == Some(self.field.as_str()));
        match position {
            Some(i) => updated[i].1 = self.convert(&updated[i].1, None)?,
            // Java puts the (null) result under the field name even when the field is absent.
            None => updated.push((Value::from(self.field.as_str()), Value::Null)),
        }
        Ok(Value::Map(updated))
    }
}

impl Transformation for TimestampConverter {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.field = parsed.string(FIELD_CONFIG)?.unwrap_or_default();
        let target = parsed.string(TARGET_TYPE_CONFIG)?.unwrap_or_default();
        self.target = Kind::from_name(&target).unwrap_or(Kind::Timestamp);
        let pattern = parsed.string(FORMAT_CONFIG)?.unwrap_or_default();
        self.precision =
            Precision::from_name(&parsed.string(UNIX_PRECISION_CONFIG)?.unwrap_or_default());
        self.replace_null_with_default = parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?;
        self.cache = SchemaCache::new();

        let blank = pattern.trim().is_empty();
        if self.target == Kind::String && blank {
            return Err(ConfigError::single(
                FORMAT_CONFIG,
                "TimestampConverter requires format option to be specified when using string timestamps",
            )
            .into());
        }
        self.format = if blank {
            None
        } else {
            Some(DateFormat::new(&pattern).map_err(|_| {
                ConfigError::single(
                    FORMAT_CONFIG,
                    format!(
                        "TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: {pattern}"
                    ),
                )
            })?)
        };
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let value = self.part.value(record);
        match self.part.schema(record) {
            None => {
                let updated = self.apply_schemaless(value)?;
                self.part.set(record, None, updated);
            }
            Some(schema) => {
                let (schema, updated) = self.apply_with_schema(schema, value)?;
                self.part.set(record, Some(schema), updated);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::record::SourceRecord;

    /// 1970-01-02T00:00:01.234Z.
    const DATE_PLUS_TIME: i64 = 86_401_234;
    const DATE_PLUS_TIME_MICROS: i64 = DATE_PLUS_TIME * 1000 + 123;
    const DATE_PLUS_TIME_NANOS: i64 = DATE_PLUS_TIME_MICROS * 1000 + 456;
    const DATE_PLUS_TIME_SECONDS: i64 = 86_401;
    /// Day 1 as a Connect Date (days since the epoch).
    const DATE_DAYS: i32 = 1;
    /// 00:00:01.234 as a Connect Time.
    const TIME_MILLIS: i32 = 1234;
    const STRING_FORMAT: &str = "yyyy MM dd HH mm ss SSS z";
    const DATE_PLUS_TIME_STRING: &str = "1970 01 02 00 00 01 234 UTC";

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn value_xform(pairs: &[(&str, &str)]) -> TimestampConverter {
        let mut xform = TimestampConverter::new(Part::Value);
        xform.configure(&props(pairs)).unwrap();
        xform
    }

    fn config_error(pairs: &[(&str, &str)]) -> ConnectError {
        TimestampConverter::new(Part::Value)
            .configure(&props(pairs))
            .unwrap_err()
    }

    fn record(schema: Option<SchemaRef>, value: Value) -> SourceRecord {
        SourceRecord::new(None, None, "topic", schema, value)
    }

    /// Applies `xform` to a value with `schema`, returning the new schema and value.
    fn run(
        xform: &TimestampConverter,
        schema: Option<SchemaRef>,
        value: Value,
    ) -> (Option<SchemaRef>, Value) {
        let mut r = record(schema, value);
        assert!(xform.apply(&mut r).unwrap());
        (r.value_schema, r.value)
    }

    #[test]
    fn config_errors() {
        assert_eq!(
            config_error(&[]).to_string(),
            "Missing required configuration \"target.type\" which has no default value."
        );
        assert_eq!(
            config_error(&[("target.type", "invalid")]).to_string(),
            "Invalid value invalid for configuration target.type: String must be one of: string, unix, Date, Time, Timestamp"
        );
        assert_eq!(
            config_error(&[("target.type", "unix"), ("unix.precision", "invalid")]).to_string(),
            "Invalid value invalid for configuration unix.precision: String must be one of: nanoseconds, microseconds, milliseconds, seconds"
        );
        value_xform(&[("target.type", "unix"), ("unix.precision", "seconds")]);
        let missing_format = config_error(&[("target.type", "string")]);
        assert!(matches!(missing_format, ConnectError::Config(_)));
        assert_eq!(
            missing_format.to_string(),
            "TimestampConverter requires format option to be specified when using string timestamps"
        );
        assert_eq!(
            config_error(&[("target.type", "string"), ("format", "bad-format")]).to_string(),
            "TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: bad-format"
        );
        // A pattern is checked whatever the target type.
        assert!(matches!(
            config_error(&[("target.type", "unix"), ("format", "bad-format")]),
            ConnectError::Config(_)
        ));
    }

    #[test]
    fn schemaless_from_unix_time() {
        let cases = [
            ("Timestamp", Value::Int64(DATE_PLUS_TIME)),
            ("Date", Value::Int32(DATE_DAYS)),
            ("Time", Value::Int32(TIME_MILLIS)),
            ("unix", Value::Int64(DATE_PLUS_TIME)),
        ];
        for (target, expected) in cases {
            let xform = value_xform(&[("target.type", target)]);
            assert_eq!(
                run(&xform, None, Value::Int64(DATE_PLUS_TIME)),
                (None, expected),
                "{target}"
            );
        }
        let xform = value_xform(&[("target.type", "string"), ("format", STRING_FORMAT)]);
        assert_eq!(
            run(&xform, None, Value::Int64(DATE_PLUS_TIME)),
            (None, DATE_PLUS_TIME_STRING.into())
        );
    }

    #[test]
    fn schemaless_from_string() {
        let xform = value_xform(&[("target.type", "Timestamp"), ("format", STRING_FORMAT)]);
        assert_eq!(
            run(&xform, None, DATE_PLUS_TIME_STRING.into()),
            (None, Value::Int64(DATE_PLUS_TIME))
        );
        // Sub-millisecond parts cannot come back.
        for (precision, expected) in [
            ("microseconds", 86_401_234_000),
            ("nanoseconds", 86_401_234_000_000),
            ("seconds", DATE_PLUS_TIME_SECONDS),
        ] {
            let xform = value_xform(&[
                ("target.type", "unix"),
                ("unix.precision", precision),
                ("format", STRING_FORMAT),
            ]);
            assert_eq!(
                run(&xform, None, DATE_PLUS_TIME_STRING.into()),
                (None, Value::Int64(expected))
            );
        }
        let err = {
            let mut r = record(None, "not a date".into());
            xform.apply(&mut r).unwrap_err()
        };
        assert!(matches!(err, ConnectError::Data { .. }));
        assert_eq!(
            err.to_string(),
            "Could not parse timestamp: value (not a date) does not match pattern (yyyy MM dd HH mm ss SSS z)"
        );
    }

    #[test]
    fn schemaless_values_of_other_types_are_refused() {
        let xform = value_xform(&[("target.type", "Timestamp")]);
        let mut r = record(None, Value::Int32(5));
        assert_eq!(
            xform.apply(&mut r).unwrap_err().to_string(),
            "TimestampConverter does not support class java.lang.Integer objects as timestamps"
        );
        // Text without a format cannot be read.
        let mut r = record(None, "1970".into());
        assert!(xform.apply(&mut r).is_err());
    }

    #[test]
    fn with_schema_from_timestamp() {
        let ts_schema = timestamp().build();
        let cases = [
            (
                "Timestamp",
                timestamp().build(),
                Value::Int64(DATE_PLUS_TIME),
            ),
            ("Date", date().build(), Value::Int32(DATE_DAYS)),
            ("Time", time().build(), Value::Int32(TIME_MILLIS)),
            ("unix", Schema::int64(), Value::Int64(DATE_PLUS_TIME)),
        ];
        for (target, schema, expected) in cases {
            let xform = value_xform(&[("target.type", target)]);
            assert_eq!(
                run(
                    &xform,
                    Some(ts_schema.clone()),
                    Value::Int64(DATE_PLUS_TIME)
                ),
                (Some(schema), expected),
                "{target}"
            );
        }
        let xform = value_xform(&[("target.type", "string"), ("format", STRING_FORMAT)]);
        assert_eq!(
            run(&xform, Some(ts_schema), Value::Int64(DATE_PLUS_TIME)),
            (Some(Schema::string()), DATE_PLUS_TIME_STRING.into())
        );
    }

    #[test]
    fn with_schema_to_timestamp() {
        let xform = value_xform(&[("target.type", "Timestamp"), ("format", STRING_FORMAT)]);
        let target = Some(timestamp().build());
        // Coarser sources come out as the same instant.
        assert_eq!(
            run(&xform, Some(date().build()), Value::Int32(DATE_DAYS)),
            (target.clone(), Value::Int64(86_400_000))
        );
        assert_eq!(
            run(&xform, Some(time().build()), Value::Int32(TIME_MILLIS)),
            (target.clone(), Value::Int64(1234))
        );
        assert_eq!(
            run(&xform, Some(Schema::int64()), Value::Int64(DATE_PLUS_TIME)),
            (target.clone(), Value::Int64(DATE_PLUS_TIME))
        );
        assert_eq!(
            run(&xform, Some(Schema::string()), DATE_PLUS_TIME_STRING.into()),
            (target, Value::Int64(DATE_PLUS_TIME))
        );
    }

    #[test]
    fn with_schema_of_unknown_kind() {
        let xform = value_xform(&[("target.type", "Timestamp")]);
        let mut r = record(Some(Schema::optional_int32()), Value::Null);
        let err = xform.apply(&mut r).unwrap_err();
        assert!(matches!(err, ConnectError::Other { .. }));
        assert_eq!(
            err.to_string(),
            "Schema Schema{INT32} does not correspond to a known timestamp type format"
        );
    }

    #[test]
    fn schemaless_nulls() {
        for target in ["string", "Date", "Timestamp", "unix", "Time"] {
            let xform = value_xform(&[("target.type", target), ("format", STRING_FORMAT)]);
            assert_eq!(run(&xform, None, Value::Null), (None, Value::Null));
            let xform = value_xform(&[
                ("target.type", target),
                ("format", STRING_FORMAT),
                ("field", "ts"),
            ]);
            assert_eq!(run(&xform, None, Value::Null), (None, Value::Null));
        }
    }

    fn optional_sources() -> Vec<SchemaRef> {
        vec![
            Schema::optional_int64(),
            time().optional().build(),
            date().optional().build(),
            Schema::optional_string(),
            timestamp().optional().build(),
        ]
    }

    #[test]
    fn with_schema_nulls() {
        let targets = [
            ("Timestamp", timestamp().optional().build()),
            ("Time", time().optional().build()),
            ("Date", date().optional().build()),
            ("string", Schema::optional_string()),
            ("unix", Schema::optional_int64()),
        ];
        for (target, expected) in targets {
            for source in optional_sources() {
                // The whole value is null.
                let xform = value_xform(&[("target.type", target), ("format", STRING_FORMAT)]);
                assert_eq!(
                    run(&xform, Some(source.clone()), Value::Null),
                    (Some(expected.clone()), Value::Null)
                );

                // A null field, then a null struct.
                let xform = value_xform(&[
                    ("target.type", target),
                    ("format", STRING_FORMAT),
                    ("field", "ts"),
                ]);
                let struct_schema = SchemaBuilder::struct_()
                    .field("ts", source.clone())
                    .field("other", Schema::string());
                let expected_struct = SchemaBuilder::struct_()
                    .field("ts", expected.clone())
                    .field("other", Schema::string());
                let mut original = Struct::new(struct_schema.clone().build()).unwrap();
                original.put("other", "test").unwrap();
                let (schema, value) = run(
                    &xform,
                    Some(struct_schema.clone().build()),
                    Value::Struct(original),
                );
                assert_eq!(schema, Some(expected_struct.clone().build()));
                let Value::Struct(s) = value else { panic!() };
                assert_eq!(s.get("ts").unwrap(), &Value::Null);
                assert_eq!(s.get("other").unwrap(), &Value::from("test"));

                let (schema, value) =
                    run(&xform, Some(struct_schema.optional().build()), Value::Null);
                assert_eq!(schema, Some(expected_struct.optional().build()));
                assert_eq!(value, Value::Null);
            }
        }
    }

    #[test]
    fn schemaless_field() {
        let xform = value_xform(&[("target.type", "Date"), ("field", "ts")]);
        let value = Value::Map(vec![
            ("ts".into(), Value::Int64(DATE_PLUS_TIME)),
            ("other".into(), "x".into()),
        ]);
        assert_eq!(
            run(&xform, None, value),
            (
                None,
                Value::Map(vec![
                    ("ts".into(), Value::Int32(DATE_DAYS)),
                    ("other".into(), "x".into())
                ])
            )
        );
        // A missing field comes back as a null entry, as Java's map put does.
        let (_, value) = run(
            &xform,
            None,
            Value::Map(vec![("a".into(), Value::Int32(1))]),
        );
        assert_eq!(
            value,
            Value::Map(vec![
                ("a".into(), Value::Int32(1)),
                ("ts".into(), Value::Null)
            ])
        );
        let mut r = record(None, Value::Int64(1));
        assert_eq!(
            xform.apply(&mut r).unwrap_err().to_string(),
            "Only Map objects supported in absence of schema for [converting timestamp formats], found: java.lang.Long"
        );
    }

    fn ts_struct_schema(ts: SchemaRef) -> SchemaRef {
        SchemaBuilder::struct_()
            .field("ts", ts)
            .field("other", Schema::string())
            .build()
    }

    #[test]
    fn with_schema_field() {
        let xform = value_xform(&[("target.type", "Timestamp"), ("field", "ts")]);
        let schema = ts_struct_schema(Schema::int64());
        let mut original = Struct::new(schema.clone()).unwrap();
        original
            .put("ts", DATE_PLUS_TIME)
            .unwrap()
            .put("other", "test")
            .unwrap();
        let (new_schema, value) = run(&xform, Some(schema), Value::Struct(original));
        assert_eq!(new_schema, Some(ts_struct_schema(timestamp().build())));
        let Value::Struct(s) = value else { panic!() };
        assert_eq!(s.get("ts").unwrap(), &Value::Int64(DATE_PLUS_TIME));
        assert_eq!(s.get("other").unwrap(), &Value::from("test"));

        let mut r = record(Some(Schema::optional_int64()), Value::Null);
        assert_eq!(
            xform.apply(&mut r).unwrap_err().to_string(),
            "Cannot list fields on non-struct type"
        );
        let mut r = record(Some(ts_struct_schema(Schema::int64())), Value::Int64(1));
        assert_eq!(
            xform.apply(&mut r).unwrap_err().to_string(),
            "Only Struct objects supported for [converting timestamp formats], found: java.lang.Long"
        );
    }

    #[test]
    fn with_schema_field_in_other_units() {
        for (precision, input, expected) in [
            ("microseconds", DATE_PLUS_TIME_MICROS, DATE_PLUS_TIME),
            ("nanoseconds", DATE_PLUS_TIME_NANOS, DATE_PLUS_TIME),
            ("seconds", DATE_PLUS_TIME_SECONDS, 86_401_000),
        ] {
            let xform = value_xform(&[
                ("target.type", "Timestamp"),
                ("field", "ts"),
                ("unix.precision", precision),
            ]);
            let schema = SchemaBuilder::struct_()
                .field("ts", Schema::int64())
                .build();
            let mut original = Struct::new(schema.clone()).unwrap();
            original.put("ts", input).unwrap();
            let (new_schema, value) = run(&xform, Some(schema), Value::Struct(original));
            assert_eq!(
                new_schema,
                Some(
                    SchemaBuilder::struct_()
                        .field("ts", timestamp().build())
                        .build()
                )
            );
            let Value::Struct(s) = value else { panic!() };
            assert_eq!(s.get("ts").unwrap(), &Value::Int64(expected), "{precision}");
        }
    }

    #[test]
    fn null_field_with_default() {
        let ts = SchemaBuilder::new(Type::Int64)
            .optional()
            .default_value(Value::Int64(0))
            .build();
        for (replace, expected) in [("false", Value::Null), ("true", Value::Int64(0))] {
            let xform = value_xform(&[
                ("target.type", "Timestamp"),
                ("field", "ts"),
                ("replace.null.with.default", replace),
            ]);
            let schema = ts_struct_schema(ts.clone());
            let mut original = Struct::new(schema.clone()).unwrap();
            original.put("other", "test").unwrap();
            let (new_schema, value) = run(&xform, Some(schema), Value::Struct(original));
            // The converted field keeps its optionality but not its default.
            assert_eq!(
                new_schema,
                Some(ts_struct_schema(timestamp().optional().build()))
            );
            let Value::Struct(s) = value else { panic!() };
            assert_eq!(s.get("ts").unwrap(), &expected, "{replace}");
            assert_eq!(s.get("other").unwrap(), &Value::from("test"));
        }
    }

    #[test]
    fn struct_default_is_converted_too() {
        let xform = value_xform(&[("target.type", "Date"), ("field", "ts")]);
        let inner = ts_struct_schema(Schema::int64());
        let mut default = Struct::new(inner.clone()).unwrap();
        default
            .put("ts", DATE_PLUS_TIME)
            .unwrap()
            .put("other", "d")
            .unwrap();
        let mut schema = (*inner).clone();
        schema.optional = true;
        schema.default = Some(Value::Struct(default));
        let (new_schema, value) = run(&xform, Some(std::sync::Arc::new(schema)), Value::Null);
        assert_eq!(value, Value::Null);
        let new_schema = new_schema.unwrap();
        assert!(new_schema.optional);
        let Some(Value::Struct(d)) = &new_schema.default else {
            panic!("no default")
        };
        assert_eq!(d.get("ts").unwrap(), &Value::Int32(DATE_DAYS));
    }

    #[test]
    fn dates_before_the_epoch() {
        let xform = value_xform(&[("target.type", "Date")]);
        assert_eq!(
            run(&xform, Some(Schema::int64()), Value::Int64(-1)),
            (Some(date().build()), Value::Int32(-1))
        );
        let xform = value_xform(&[("target.type", "Time")]);
        assert_eq!(
            run(&xform, Some(Schema::int64()), Value::Int64(-1)),
            (Some(time().build()), Value::Int32(86_399_999))
        );
        // Java's TimeUnit truncates toward zero.
        let xform = value_xform(&[("target.type", "unix"), ("unix.precision", "seconds")]);
        assert_eq!(
            run(&xform, Some(timestamp().build()), Value::Int64(-1500)),
            (Some(Schema::int64()), Value::Int64(-1))
        );
    }

    #[test]
    fn key_variant() {
        let mut xform = TimestampConverter::new(Part::Key);
        xform
            .configure(&props(&[("target.type", "Timestamp")]))
            .unwrap();
        let mut r = record(None, Value::Null);
        r.key = Value::Int64(DATE_PLUS_TIME);
        xform.apply(&mut r).unwrap();
        assert_eq!(r.key_schema, None);
        assert_eq!(r.key, Value::Int64(DATE_PLUS_TIME));
        assert_eq!(r.value, Value::Null);
    }
}
