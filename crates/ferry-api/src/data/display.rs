//! Java's `toString()` forms of Connect values, which sinks such as FileStreamSink write.

use std::fmt;

use crate::data::Value;

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Int8(v) => write!(f, "{v}"),
            Value::Int16(v) => write!(f, "{v}"),
            Value::Int32(v) => write!(f, "{v}"),
            Value::Int64(v) => write!(f, "{v}"),
            Value::Float32(v) => write!(f, "{v:?}"),
            Value::Float64(v) => write!(f, "{v:?}"),
            Value::String(s) => f.write_str(s),
            // Java prints an array identity here, which is useless; the bytes' length says more.
            Value::Bytes(b) => write!(f, "[B@{}", b.len()),
            Value::Decimal(d) => f.write_str(&d.to_plain_string()),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}={v}")?;
                }
                f.write_str("}")
            }
            Value::Struct(s) => {
                // Java's Struct.toString lists only the fields that are set, without spaces.
                f.write_str("Struct{")?;
                let mut first = true;
                for field in &s.schema().fields {
                    let v = s.get_index(field.index);
                    if v.is_null() {
                        continue;
                    }
                    if !first {
                        f.write_str(",")?;
                    }
                    first = false;
                    write!(f, "{}={v}", field.name)?;
                }
                f.write_str("}")
            }
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
