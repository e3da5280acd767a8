//! Java's text forms of Connect data: `Double.toString`, `BigDecimal.toString`, `Object.toString`
//! of values, and the calendar arithmetic dates need. Converters, sinks and transforms that write
//! text must print exactly what the JVM would, so they all share these.

pub mod calendar;
mod class_name;
pub mod numbers;
pub mod temporal;
pub mod to_string;

pub use class_name::java_class_name;
pub use numbers::{java_big_decimal, java_double, java_float};
pub use to_string::java_to_string;
