//! Recognising Date, Time and Timestamp values.
//!
//! Java hands converters a `java.util.Date` for these logical types, and the text converters print
//! it as a date. Ferry keeps them in physical form (Int32 days, Int32 milliseconds of the day,
//! Int64 epoch milliseconds), so only the schema tells a date from a plain number.

use crate::data::{
    Schema, SchemaRef, Type, Value, DATE_LOGICAL_NAME, TIMESTAMP_LOGICAL_NAME, TIME_LOGICAL_NAME,
};

use crate::java::calendar::MILLIS_PER_DAY;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Temporal {
    Date,
    Time,
    Timestamp,
}

impl Temporal {
    pub fn of(schema: Option<&Schema>) -> Option<Temporal> {
        let schema = schema?;
        match (schema.kind, schema.name.as_deref()?) {
            (Type::Int32, DATE_LOGICAL_NAME) => Some(Temporal::Date),
            (Type::Int32, TIME_LOGICAL_NAME) => Some(Temporal::Time),
            (Type::Int64, TIMESTAMP_LOGICAL_NAME) => Some(Temporal::Timestamp),
            _ => None,
        }
    }

    /// The instant a physical value stands for, in epoch milliseconds.
    pub fn epoch_millis(self, value: &Value) -> Option<i64> {
        match (self, value) {
            (Temporal::Date, Value::Int32(days)) => Some(i64::from(*days) * MILLIS_PER_DAY),
            (Temporal::Time, Value::Int32(ms)) => Some(i64::from(*ms)),
            (Temporal::Timestamp, Value::Int64(ms)) => Some(*ms),
            _ => None,
        }
    }

    /// The physical value for an instant; `None` when it does not fit the physical type.
    pub fn physical(self, epoch_ms: i64) -> Option<Value> {
        match self {
            Temporal::Date => i32::try_from(epoch_ms.div_euclid(MILLIS_PER_DAY))
                .ok()
                .map(Value::Int32),
            Temporal::Time => i32::try_from(epoch_ms).ok().map(Value::Int32),
            Temporal::Timestamp => Some(Value::Int64(epoch_ms)),
        }
    }

    /// The required schema Java's `Values` gives a parsed date, time or timestamp.
    pub fn schema(self) -> SchemaRef {
        match self {
            Temporal::Date => crate::data::date().build(),
            Temporal::Time => crate::data::time().build(),
            Temporal::Timestamp => crate::data::timestamp().build(),
        }
    }
}

/// The instant of `value` when `schema` marks it as a date, time or timestamp.
pub fn instant_of(schema: Option<&Schema>, value: &Value) -> Option<i64> {
    Temporal::of(schema)?.epoch_millis(value)
}
