//! `Cast$Key` / `Cast$Value`: changes the type of the whole key or value, or of named top-level
//! fields of a struct or map, to another primitive type.

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::data::{
    check_field_value, check_null_allowed, Decimal, Schema, SchemaBuilder, SchemaRef, Struct, Type,
    Value,
};
use ferry_api::java::{calendar, java_to_string, temporal::instant_of};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::{
    class_name, copy_schema_basics, rebuilt_values, require_map, require_struct,
    struct_field_value, Part, SchemaCache,
};

pub const SPEC_CONFIG: &str = "spec";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

const PURPOSE: &str = "cast types";

const INPUT_TYPES: [Type; 9] = [
    Type::Int8,
    Type::Int16,
    Type::Int32,
    Type::Int64,
    Type::Float32,
    Type::Float64,
    Type::Boolean,
    Type::String,
    Type::Bytes,
];

/// Every input type except bytes.
const OUTPUT_TYPES: [Type; 8] = [
    Type::Int8,
    Type::Int16,
    Type::Int32,
    Type::Int64,
    Type::Float32,
    Type::Float64,
    Type::Boolean,
    Type::String,
];

const ALL_TYPES: [Type; 12] = [
    Type::Int8,
    Type::Int16,
    Type::Int32,
    Type::Int64,
    Type::Float32,
    Type::Float64,
    Type::Boolean,
    Type::String,
    Type::Bytes,
    Type::Array,
    Type::Map,
    Type::Struct,
];

const MILLIS_PER_DAY: i64 = 24 * 60 * 60 * 1000;

/// What `spec` asks for: one type for the whole value, or a type per field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CastSpec {
    whole: Option<Type>,
    /// Field casts in spec order; a field named twice keeps its last type.
    fields: Vec<(String, Type)>,
}

impl CastSpec {
    fn field_type(&self, name: &str) -> Option<Type> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }
}

#[derive(Debug, Clone)]
struct CastConfig {
    spec: CastSpec,
    replace_null_with_default: bool,
}

/// Java's `Cast` transform for one part of the record.
pub struct Cast {
    part: Part,
    config: Option<CastConfig>,
    schemas: SchemaCache,
}

impl Cast {
    pub fn new(part: Part) -> Self {
        Cast {
            part,
            config: None,
            schemas: SchemaCache::new(),
        }
    }

    fn config_def_with(spec_validator: Option<Validator>) -> ConfigDef {
        let mut spec = ConfigKey::new(
            SPEC_CONFIG,
            ConfigType::List,
            DefaultValue::Required,
            Importance::High,
            "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of \
             Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, \
             int64, float32, float64, boolean, and string. Note that binary fields can only be cast to string.",
        );
        if let Some(v) = spec_validator {
            spec = spec.validator(v);
        }
        ConfigDef::new().define(spec).define(ConfigKey::new(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType::Boolean,
            DefaultValue::Value("true".to_owned()),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the default value. \
             When set to true, the default value is used, otherwise null is used.",
        ))
    }

    fn configured(&self) -> Result<&CastConfig, ConnectError> {
        self.config
            .as_ref()
            .ok_or_else(|| ConnectError::other("Cast transformation used before it was configured"))
    }

    fn schemaless(&self, cfg: &CastConfig, value: &Value) -> Result<Value, ConnectError> {
        if let Some(target) = cfg.spec.whole {
            return cast_value(None, value, target);
        }
        let mut entries = require_map(value, PURPOSE)?.to_vec();
        for (name, target) in &cfg.spec.fields {
            let slot = entries.iter().position(|(k, _)| k.as_str() == Some(name));
            let current = slot.map_or(&Value::Null, |i| &entries[i].1);
            let cast = cast_value(None, current, *target)?;
            match slot {
                Some(i) => entries[i].1 = cast,
                // Java's HashMap.put adds the key even when there was nothing to cast.
                None => entries.push((Value::String(name.clone()), cast)),
            }
        }
        Ok(Value::Map(entries))
    }

    fn with_schema(&self, cfg: &CastConfig, record: &mut dyn Record) -> Result<(), ConnectError> {
        let Some(schema) = self.part.schema(record).cloned() else {
            return Ok(());
        };
        let updated = self
            .schemas
            .get_or_build(&schema, || build_schema(&cfg.spec, &schema))?;
        let value = self.part.value(record);
        if let Some(target) = cfg.spec.whole {
            let cast = cast_value(Some(&schema), value, target)?;
            self.part.set(record, Some(updated), cast);
            return Ok(());
        }
        let original = require_struct(value, PURPOSE)?;
        let input = original.schema().clone();
        let with_default = cfg.replace_null_with_default;
        // Casts and Java's checks of every put come first: nothing is moved out of a record
        // that fails.
        let mut casts = Vec::with_capacity(cfg.spec.fields.len());
        for (field, out) in input.fields.iter().zip(&updated.fields) {
            let current = struct_field_value(original, field, with_default);
            match cfg.spec.field_type(&field.name) {
                Some(target) => {
                    let cast = cast_value(Some(&field.schema), current, target)?;
                    check_field_value(out, &cast)?;
                    casts.push((field.index, cast));
                }
                None => check_null_allowed(out, current)?,
            }
        }
        let result = rebuilt_values(self.part, record, &input, with_default, casts);
        let value = Struct::from_values(updated.clone(), result)?;
        self.part.set(record, Some(updated), Value::Struct(value));
        Ok(())
    }
}

impl Transformation for Cast {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = Self::config_def_with(None).parse(configs)?;
        let spec = parse_spec(&parsed.list(SPEC_CONFIG)?)
            .map_err(|message| ConfigError::single(SPEC_CONFIG, message))?;
        self.config = Some(CastConfig {
            spec,
            replace_null_with_default: parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?,
        });
        self.schemas = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        Self::config_def_with(Some(Validator::Custom {
            description: "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
                .to_owned(),
            check: std::sync::Arc::new(|value| match value {
                ferry_api::config::ConfigValue::List(items) => parse_spec(items).map(|_| ()),
                _ => parse_spec(&[]).map(|_| ()),
            }),
        }))
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let cfg = self.configured()?;
        let value = self.part.value(record);
        if value.is_null() {
            return Ok(true);
        }
        if self.part.schema(record).is_none() {
            let value = self.schemaless(cfg, value)?;
            self.part.set(record, None, value);
        } else {
            self.with_schema(cfg, record)?;
        }
        Ok(true)
    }
}

/// Java's `String.split(":")`: no separator gives the whole text, otherwise trailing empty
/// pieces are dropped.
fn split_colon(text: &str) -> Vec<&str> {
    if !text.contains(':') {
        return vec![text];
    }
    let mut parts: Vec<&str> = text.split(':').collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

fn type_list(types: &[Type]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.java_name()).collect();
    format!("[{}]", names.join(", "))
}

fn parse_type(text: &str) -> Result<Type, String> {
    let trimmed = text.trim();
    let upper = trimmed.to_uppercase();
    ALL_TYPES
        .into_iter()
        .find(|t| t.java_name() == upper)
        .ok_or_else(|| format!("Invalid type found in casting spec: {trimmed}"))
}

fn output_type(t: Type) -> Result<Type, String> {
    if OUTPUT_TYPES.contains(&t) {
        Ok(t)
    } else {
        Err(format!(
            "Cast transformation does not support casting to {}; supported types are {}",
            t.java_name(),
            type_list(&OUTPUT_TYPES)
        ))
    }
}

/// Parses the `spec` list; the error is Java's `ConfigException` message.
pub(crate) fn parse_spec(mappings: &[String]) -> Result<CastSpec, String> {
    if mappings.is_empty() {
        return Err("Must specify at least one field to cast.".to_owned());
    }
    let mut spec = CastSpec {
        whole: None,
        fields: Vec::new(),
    };
    let mut whole_seen = false;
    for mapping in mappings {
        let parts = split_colon(mapping);
        match parts.as_slice() {
            [ty] => {
                spec.whole = Some(output_type(parse_type(ty)?)?);
                whole_seen = true;
            }
            [field, ty] => {
                let target = output_type(parse_type(ty)?)?;
                let name = field.trim();
                match spec.fields.iter_mut().find(|(n, _)| n == name) {
                    Some(entry) => entry.1 = target,
                    None => spec.fields.push((name.to_owned(), target)),
                }
            }
            [] => {}
            _ => {
                // Java reports this under ReplaceField's key name, with the whole list.
                return Err(format!(
                    "Invalid value [{}] for configuration renames: Invalid rename mapping: {mapping}",
                    mappings.join(", ")
                ));
            }
        }
    }
    if whole_seen && mappings.len() > 1 {
        return Err(
            "Cast transformations that specify a type to cast the entire value to may only \
                    specify a single cast in their spec"
                .to_owned(),
        );
    }
    Ok(spec)
}

fn primitive_builder(t: Type) -> SchemaBuilder {
    SchemaBuilder::new(t)
}

fn build_schema(spec: &CastSpec, schema: &Schema) -> Result<SchemaRef, ConnectError> {
    let mut builder = match spec.whole {
        Some(target) => copy_schema_basics(schema, primitive_builder(target)),
        None => {
            if schema.kind != Type::Struct {
                return Err(ConnectError::data("Cannot list fields on non-struct type"));
            }
            let mut builder = copy_schema_basics(schema, SchemaBuilder::struct_());
            for field in &schema.fields {
                let field_schema = match spec.field_type(&field.name) {
                    Some(target) => {
                        let mut fb = primitive_builder(target);
                        if field.schema.optional {
                            fb = fb.optional();
                        }
                        if let Some(default) = &field.schema.default {
                            fb =
                                fb.default_value(cast_value(Some(&field.schema), default, target)?);
                        }
                        fb.build()
                    }
                    None => field.schema.clone(),
                };
                builder = builder.field(field.name.clone(), field_schema);
            }
            builder
        }
    };
    if schema.optional {
        builder = builder.optional();
    }
    if let Some(default) = &schema.default {
        let target = spec.whole.unwrap_or(Type::Struct);
        builder = builder.default_value(cast_value(Some(schema), default, target)?);
    }
    Ok(builder.build())
}

/// A number as Java's `Number` methods see it.
#[derive(Clone, Copy)]
enum Num<'a> {
    Int(i64),
    F32(f32),
    F64(f64),
    Dec(&'a Decimal),
}

impl Num<'_> {
    fn of(value: &Value) -> Option<Num<'_>> {
        Some(match value {
            Value::Int8(v) => Num::Int((*v).into()),
            Value::Int16(v) => Num::Int((*v).into()),
            Value::Int32(v) => Num::Int((*v).into()),
            Value::Int64(v) => Num::Int(*v),
            Value::Float32(v) => Num::F32(*v),
            Value::Float64(v) => Num::F64(*v),
            Value::Decimal(d) => Num::Dec(d),
            _ => return None,
        })
    }

    /// `intValue()`: floats saturate, wider integers keep their low bits.
    fn int_value(self) -> i32 {
        match self {
            Num::Int(v) => v as i32,
            Num::F32(v) => v as i32,
            Num::F64(v) => v as i32,
            Num::Dec(d) => decimal_long_value(d) as i32,
        }
    }

    fn long_value(self) -> i64 {
        match self {
            Num::Int(v) => v,
            Num::F32(v) => v as i64,
            Num::F64(v) => v as i64,
            Num::Dec(d) => decimal_long_value(d),
        }
    }

    fn float_value(self) -> f32 {
        match self {
            Num::Int(v) => v as f32,
            Num::F32(v) => v,
            Num::F64(v) => v as f32,
            Num::Dec(d) => decimal_float_value(d),
        }
    }

    fn double_value(self) -> f64 {
        match self {
            Num::Int(v) => v as f64,
            Num::F32(v) => v.into(),
            Num::F64(v) => v,
            Num::Dec(d) => decimal_double_value(d),
        }
    }
}

/// The schema type Java infers for a schemaless value (`ConnectSchema.schemaType`); decimals
/// have none, as `BigDecimal` is only known through a schema.
fn schemaless_type(value: &Value) -> Option<Type> {
    match value {
        Value::Decimal(_) => None,
        other => other.inferred_type(),
    }
}

/// Java's `getClass().toString()` of a value, as some messages show it.
pub(crate) fn java_class_text(value: &Value) -> String {
    format!("class {}", class_name(value))
}

fn out_of_range(value: &Value) -> ConnectError {
    let text = java_to_string(None, value).unwrap_or_else(|| "null".to_owned());
    ConnectError::data(format!(
        "Value ({text}) was out of range for requested data type"
    ))
}

fn unexpected(value: &Value) -> ConnectError {
    ConnectError::data(format!(
        "Unexpected type in Cast transformation: {}",
        java_class_text(value)
    ))
}

/// Java's `castValueToType`: `schema` is the value's schema, absent for schemaless data.
pub(crate) fn cast_value(
    schema: Option<&Schema>,
    value: &Value,
    target: Type,
) -> Result<Value, ConnectError> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let inferred = match schema {
        Some(s) => Some(s.kind),
        None => schemaless_type(value),
    };
    let Some(inferred) = inferred else {
        return Err(ConnectError::data(format!(
            "Cast transformation was passed a value of type {} which is not supported by Connect's data API",
            java_class_text(value)
        )));
    };
    if !INPUT_TYPES.contains(&inferred) {
        return Err(ConnectError::data(format!(
            "Cast transformation does not support casting from {}; supported types are {}",
            inferred.java_name(),
            type_list(&INPUT_TYPES)
        )));
    }
    // Dates, times and timestamps are already in their physical form, which is what Java encodes
    // them to before any cast but the one to string.
    let num = Num::of(value);
    let as_bool = match value {
        Value::Boolean(b) => Some(*b),
        _ => None,
    };
    let text = value.as_str();
    Ok(match target {
        Type::Int8 => Value::Int8(match (num, as_bool, text) {
            (Some(n), ..) => n.int_value() as i8,
            (_, Some(b), _) => i8::from(b),
            (.., Some(s)) => s.parse().map_err(|_| out_of_range(value))?,
            _ => return Err(unexpected(value)),
        }),
        Type::Int16 => Value::Int16(match (num, as_bool, text) {
            (Some(n), ..) => n.int_value() as i16,
            (_, Some(b), _) => i16::from(b),
            (.., Some(s)) => s.parse().map_err(|_| out_of_range(value))?,
            _ => return Err(unexpected(value)),
        }),
        Type::Int32 => Value::Int32(match (num, as_bool, text) {
            (Some(n), ..) => n.int_value(),
            (_, Some(b), _) => i32::from(b),
            (.., Some(s)) => s.parse().map_err(|_| out_of_range(value))?,
            _ => return Err(unexpected(value)),
        }),
        Type::Int64 => Value::Int64(match (num, as_bool, text) {
            (Some(n), ..) => n.long_value(),
            (_, Some(b), _) => i64::from(b),
            (.., Some(s)) => s.parse().map_err(|_| out_of_range(value))?,
            _ => return Err(unexpected(value)),
        }),
        Type::Float32 => Value::Float32(match (num, as_bool, text) {
            (Some(n), ..) => n.float_value(),
            (_, Some(b), _) => f32::from(u8::from(b)),
            (.., Some(s)) => java_parse_f32(s).ok_or_else(|| out_of_range(value))?,
            _ => return Err(unexpected(value)),
        }),
        Type::Float64 => Value::Float64(match (num, as_bool, text) {
            (Some(n), ..) => n.double_value(),
            (_, Some(b), _) => f64::from(u8::from(b)),
            (.., Some(s)) => java_parse_f64(s).ok_or_else(|| out_of_range(value))?,
            _ => return Err(unexpected(value)),
        }),
        Type::Boolean => Value::Boolean(match (num, as_bool, text) {
            (Some(n), ..) => n.long_value() != 0,
            (_, Some(b), _) => b,
            (.., Some(s)) => s.eq_ignore_ascii_case("true"),
            _ => return Err(unexpected(value)),
        }),
        Type::String => Value::String(match instant_of(schema, value) {
            Some(ms) => iso_text_for(ms),
            None => java_to_string(None, value).unwrap_or_default(),
        }),
        other => {
            return Err(ConnectError::data(format!(
                "{} is not supported in the Cast transformation.",
                other.java_name()
            )))
        }
    })
}

/// Java's `Values.dateFormatFor(date).format(date)` in UTC: a time for instants within the
/// first day, a date for whole days, otherwise a full timestamp.
fn iso_text_for(epoch_ms: i64) -> String {
    if epoch_ms < MILLIS_PER_DAY {
        calendar::iso_time(epoch_ms)
    } else if epoch_ms % MILLIS_PER_DAY == 0 {
        calendar::iso_date(epoch_ms)
    } else {
        calendar::iso_timestamp(epoch_ms)
    }
}

/// Java's `BigDecimal.longValue()`: the integer part (fraction dropped), keeping its low 64 bits.
pub(crate) fn decimal_long_value(d: &Decimal) -> i64 {
    let text = d.unscaled.to_string();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let int_digits = match usize::try_from(d.scale) {
        Ok(scale) if scale > 0 => &digits[..digits.len().saturating_sub(scale)],
        _ => digits,
    };
    let mut acc: i64 = 0;
    for b in int_digits.bytes() {
        acc = acc.wrapping_mul(10).wrapping_add(i64::from(b - b'0'));
    }
    if d.scale < 0 {
        // Past 64 factors of ten the low 64 bits are all zero.
        for _ in 0..i64::from(d.scale).unsigned_abs().min(64) {
            acc = acc.wrapping_mul(10);
        }
    }
    if negative {
        acc.wrapping_neg()
    } else {
        acc
    }
}

/// Java's `BigDecimal.doubleValue()`: the nearest double.
pub(crate) fn decimal_double_value(d: &Decimal) -> f64 {
    ferry_api::java::java_big_decimal(d)
        .parse()
        .unwrap_or(f64::NAN)
}

/// Java's `BigDecimal.floatValue()`: the nearest float.
pub(crate) fn decimal_float_value(d: &Decimal) -> f32 {
    ferry_api::java::java_big_decimal(d)
        .parse()
        .unwrap_or(f32::NAN)
}

fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Java's `new BigDecimal(text)`; `None` where Java throws `NumberFormatException`.
pub(crate) fn parse_java_big_decimal(text: &str) -> Option<Decimal> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac.is_empty() {
        return None;
    }
    if !(int_part.is_empty() || all_digits(int_part)) || !(frac.is_empty() || all_digits(frac)) {
        return None;
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            if !all_digits(e.strip_prefix(['+', '-']).unwrap_or(e)) {
                return None;
            }
            e.parse().ok()?
        }
    };
    let scale = i32::try_from(i64::try_from(frac.len()).ok()? - exponent).ok()?;
    let digits = Decimal::parse(&format!("{int_part}{frac}"))?;
    let unscaled = if negative {
        -digits.unscaled
    } else {
        digits.unscaled
    };
    Some(Decimal { unscaled, scale })
}

/// The text Java's `Double.parseDouble` / `Float.parseFloat` accept, rewritten for Rust's
/// parser: `NaN` / `Infinity` (with a sign), decimal digits with an optional exponent, and an
/// optional `f`/`d` suffix, around any whitespace. Hexadecimal floats are not accepted.
fn java_float_text(text: &str) -> Option<String> {
    let trimmed = text.trim_matches(|c: char| c <= ' ');
    let (sign, body) = match trimmed.as_bytes().first()? {
        b'-' => ("-", &trimmed[1..]),
        b'+' => ("", &trimmed[1..]),
        _ => ("", trimmed),
    };
    match body {
        "NaN" => return Some("NaN".to_owned()),
        "Infinity" => return Some(format!("{sign}inf")),
        _ => {}
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac.is_empty() {
        return None;
    }
    if !(int_part.is_empty() || all_digits(int_part)) || !(frac.is_empty() || all_digits(frac)) {
        return None;
    }
    if let Some(e) = exponent {
        if !all_digits(e.strip_prefix(['+', '-']).unwrap_or(e)) {
            return None;
        }
    }
    Some(format!("{sign}{body}"))
}

/// Java's `Double.parseDouble`.
pub(crate) fn java_parse_f64(text: &str) -> Option<f64> {
    java_float_text(text)?.parse().ok()
}

/// Java's `Float.parseFloat`.
pub(crate) fn java_parse_f32(text: &str) -> Option<f32> {
    java_float_text(text)?.parse().ok()
}

#[cfg(test)]
mod tests;
