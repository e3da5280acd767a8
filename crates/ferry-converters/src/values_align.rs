//! Finding one schema for the elements of a parsed array or map, and converting the elements to
//! it (Java's `Values.SchemaMerger`, `mergeSchemas` and the `convertTo` it aligns with).
//!
//! Numbers widen (int8 < int16 < int32 < int64 < float32 < float64); any other mix of types has no
//! common schema. Parsed schemas are always required, so a null element next to a typed one makes
//! the conversion fail, and with it the whole collection, exactly as in Java.

use std::sync::Arc;

use ferry_api::data::{Schema, SchemaRef, Type, Value, DECIMAL_LOGICAL_NAME};

use crate::values_text::convert_to_string;
use ferry_api::java::temporal::Temporal;

/// A value parsed from text with its inferred schema. Java keeps parsed dates as
/// `java.util.Date` objects, which convert differently from plain numbers, so their instant is
/// remembered alongside the physical value.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub schema: SchemaRef,
    pub value: Value,
    pub instant: Option<i64>,
}

impl Parsed {
    pub fn new(schema: SchemaRef, value: Value) -> Self {
        Parsed {
            schema,
            value,
            instant: None,
        }
    }
}

/// Tracks the schema shared by every non-null element seen so far.
#[derive(Debug)]
pub struct SchemaMerger {
    common: Option<SchemaRef>,
    /// False once two elements had no common schema; `common` is then `None` for good.
    compatible: bool,
}

impl Default for SchemaMerger {
    fn default() -> Self {
        SchemaMerger {
            common: None,
            compatible: true,
        }
    }
}

impl SchemaMerger {
    pub fn merge(&mut self, latest: Option<&Parsed>) {
        let Some(latest) = latest else { return };
        if !self.compatible {
            return;
        }
        self.common = match &self.common {
            None => Some(latest.schema.clone()),
            Some(common) => merge_schemas(common, &latest.schema),
        };
        self.compatible = self.common.is_some();
    }

    pub fn common(&self) -> Option<&SchemaRef> {
        self.common.as_ref()
    }
}

fn numeric_rank(kind: Type) -> Option<u8> {
    Some(match kind {
        Type::Int8 => 0,
        Type::Int16 => 1,
        Type::Int32 => 2,
        Type::Int64 => 3,
        Type::Float32 => 4,
        Type::Float64 => 5,
        _ => return None,
    })
}

fn merge_schemas(previous: &SchemaRef, latest: &SchemaRef) -> Option<SchemaRef> {
    if previous.kind != latest.kind {
        let (p, l) = (numeric_rank(previous.kind)?, numeric_rank(latest.kind)?);
        return Some(if l > p { latest } else { previous }.clone());
    }
    // Same type: Java keeps the newer schema, so a later logical type wins over a plain one.
    (previous.optional == latest.optional).then(|| {
        if previous.optional {
            previous.clone()
        } else {
            latest.clone()
        }
    })
}

/// Converts a parsed element to `target` (Java's `Values.convertTo` with no source schema).
pub fn convert_to(target: &SchemaRef, item: Option<&Parsed>) -> Result<Value, String> {
    let Some(item) = item else {
        return if target.optional {
            Ok(Value::Null)
        } else {
            Err("Unable to convert a null value to a schema that requires a value".to_owned())
        };
    };
    let value = &item.value;
    let fail = || format!("Unable to convert {value:?} to {:?}", target.kind);
    if let Some(kind) = Temporal::of(Some(target)) {
        return to_temporal(kind, item).ok_or_else(fail);
    }
    let converted = match target.kind {
        Type::Bytes if target.name.as_deref() == Some(DECIMAL_LOGICAL_NAME) => {
            matches!(value, Value::Decimal(_) | Value::Bytes(_)).then(|| value.clone())
        }
        Type::Bytes => matches!(value, Value::Bytes(_)).then(|| value.clone()),
        Type::String => Some(match value {
            Value::String(_) => value.clone(),
            other => {
                Value::String(convert_to_string(Some(&item.schema), other).unwrap_or_default())
            }
        }),
        Type::Boolean => match value {
            Value::Boolean(_) => Some(value.clone()),
            _ => as_long(item).map(|n| Value::Boolean(n != 0)),
        },
        // Java narrows through a long, wrapping like a C cast.
        Type::Int8 => as_long(item).map(|n| Value::Int8(n as i8)),
        Type::Int16 => as_long(item).map(|n| Value::Int16(n as i16)),
        Type::Int32 => as_long(item).map(|n| Value::Int32(n as i32)),
        Type::Int64 => as_long(item).map(Value::Int64),
        Type::Float32 => as_double(item).map(|d| Value::Float32(d as f32)),
        Type::Float64 => as_double(item).map(Value::Float64),
        // Nested collections are kept as they are, even if their own element types differ.
        Type::Array => matches!(value, Value::Array(_)).then(|| value.clone()),
        Type::Map => matches!(value, Value::Map(_)).then(|| value.clone()),
        Type::Struct => None,
    };
    converted.ok_or_else(fail)
}

/// A parsed date keeps its instant; a plain number is taken as the logical type's unit.
fn to_temporal(kind: Temporal, item: &Parsed) -> Option<Value> {
    if let Some(ms) = item.instant {
        return kind.physical(ms);
    }
    let n = as_long(item)?;
    match kind {
        Temporal::Date => Some(Value::Int32(n as i32)),
        Temporal::Time => {
            let ms = n as i32;
            (0..=86_400_000).contains(&ms).then_some(Value::Int32(ms))
        }
        Temporal::Timestamp => Some(Value::Int64(n)),
    }
}

/// Java's `asLong` without a source schema: numbers only, and never a parsed date.
fn as_long(item: &Parsed) -> Option<i64> {
    if item.instant.is_some() {
        return None;
    }
    match item.value {
        Value::Float32(f) => Some(f as i64),
        Value::Float64(f) => Some(f as i64),
        ref v => v.as_i64(),
    }
}

fn as_double(item: &Parsed) -> Option<f64> {
    if item.instant.is_some() {
        return None;
    }
    match item.value {
        Value::Float32(f) => Some(f64::from(f)),
        Value::Float64(f) => Some(f),
        ref v => v.as_i64().map(|n| n as f64),
    }
}

/// A map schema where either side may be unknown (Java's `mapWithNullValues`/`mapOfNull`).
pub fn map_schema(keys: Option<SchemaRef>, values: Option<SchemaRef>) -> SchemaRef {
    let mut schema = Schema::new(Type::Map);
    schema.key_schema = keys;
    schema.value_schema = values;
    Arc::new(schema)
}

/// An array schema whose element schema may be unknown (Java's `arrayOfNull`).
pub fn array_schema(items: Option<SchemaRef>) -> SchemaRef {
    let mut schema = Schema::new(Type::Array);
    schema.value_schema = items;
    Arc::new(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(schema: SchemaRef, value: Value) -> Parsed {
        Parsed::new(schema, value)
    }

    #[test]
    fn numbers_widen_to_the_larger_type_in_any_order() {
        let mut m = SchemaMerger::default();
        m.merge(Some(&parsed(Schema::int8(), Value::Int8(1))));
        m.merge(Some(&parsed(Schema::int32(), Value::Int32(70_000))));
        m.merge(Some(&parsed(Schema::int16(), Value::Int16(300))));
        assert_eq!(m.common().map(|s| s.kind), Some(Type::Int32));
        m.merge(Some(&parsed(Schema::float64(), Value::Float64(0.5))));
        assert_eq!(m.common().map(|s| s.kind), Some(Type::Float64));
    }

    #[test]
    fn a_mismatch_ends_the_search_for_good() {
        let mut m = SchemaMerger::default();
        m.merge(Some(&parsed(Schema::int8(), Value::Int8(1))));
        m.merge(Some(&parsed(Schema::string(), "x".into())));
        assert!(m.common().is_none());
        m.merge(Some(&parsed(Schema::int8(), Value::Int8(1))));
        assert!(m.common().is_none());
    }

    #[test]
    fn nulls_do_not_take_part() {
        let mut m = SchemaMerger::default();
        m.merge(None);
        assert!(m.common().is_none());
        m.merge(Some(&parsed(Schema::boolean(), Value::Boolean(true))));
        m.merge(None);
        assert_eq!(m.common().map(|s| s.kind), Some(Type::Boolean));
    }

    #[test]
    fn conversions_narrow_widen_and_refuse() {
        let int32 = Schema::int32();
        let item = parsed(Schema::int8(), Value::Int8(5));
        assert_eq!(convert_to(&int32, Some(&item)), Ok(Value::Int32(5)));
        let f = parsed(Schema::float32(), Value::Float32(2.5));
        assert_eq!(
            convert_to(&Schema::float64(), Some(&f)),
            Ok(Value::Float64(2.5))
        );
        assert!(convert_to(&int32, None).is_err());
        assert_eq!(convert_to(&Schema::optional_int32(), None), Ok(Value::Null));
    }

    #[test]
    fn dates_convert_by_instant_and_numbers_by_unit() {
        let ts = Temporal::Timestamp.schema();
        let date = Parsed {
            schema: Temporal::Date.schema(),
            value: Value::Int32(2),
            instant: Some(2 * 86_400_000),
        };
        assert_eq!(
            convert_to(&ts, Some(&date)),
            Ok(Value::Int64(2 * 86_400_000))
        );
        let n = parsed(Schema::int8(), Value::Int8(3));
        assert_eq!(convert_to(&ts, Some(&n)), Ok(Value::Int64(3)));
        assert_eq!(
            convert_to(&Temporal::Date.schema(), Some(&n)),
            Ok(Value::Int32(3))
        );
        // A parsed date is not a number to Java.
        assert!(convert_to(&Schema::int64(), Some(&date)).is_err());
    }
}
