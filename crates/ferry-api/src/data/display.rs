//! Java's `toString()` forms of Connect values, which sinks such as FileStreamSink write.

use std::fmt;

use crate::data::Value;

impl fmt::Display for Value {
    /// Java's `toString()` without a schema (so logical dates print as their numbers; use
    /// [`crate::java::java_to_string`] with the schema for Java's date text).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match crate::java::java_to_string(None, self) {
            Some(text) => f.write_str(&text),
            None => f.write_str("null"),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::data::{Schema, SchemaBuilder, Struct, Value};

    #[test]
    fn java_like_strings() {
        assert_eq!(Value::from("line").to_string(), "line");
        assert_eq!(Value::Float64(1.0).to_string(), "1.0");
        assert_eq!(
            Value::Array(vec![Value::Int32(1), Value::Int32(2)]).to_string(),
            "[1, 2]"
        );
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::int32())
            .field("b", Schema::optional_string())
            .field("c", Schema::string())
            .build();
        let mut s = Struct::new(schema).unwrap();
        s.put("a", 1).unwrap().put("c", "x").unwrap();
        assert_eq!(Value::Struct(s).to_string(), "Struct{a=1,c=x}");
    }
}
