//! The Connect data model: schemas, values, structs and the logical types.

mod display;
mod logical;
mod schema;
mod value;

pub use logical::{
    date, decimal, time, timestamp, Decimal, DATE_LOGICAL_NAME, DECIMAL_LOGICAL_NAME,
    DECIMAL_SCALE_PARAMETER, TIMESTAMP_LOGICAL_NAME, TIME_LOGICAL_NAME,
};
pub use schema::{Field, Schema, SchemaBuilder, SchemaRef, Type};
pub use value::{check_field_value, check_null_allowed, SchemaAndValue, Struct, Value};
