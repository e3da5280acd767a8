//! Schemas: the type of a Connect value, with optionality, defaults, names and parameters.

use std::fmt;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;

use crate::data::Value;
use crate::error::{ConnectError, Result};

/// Schemas are immutable once built and shared between records.
pub type SchemaRef = Arc<Schema>;

/// The physical types of Connect data (Java's `Schema.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Type {
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Boolean,
    String,
    Bytes,
    Array,
    Map,
    Struct,
}

impl Type {
    /// Java's enum constant name, as used in error messages and in `Cast`.
    pub fn java_name(self) -> &'static str {
        match self {
            Type::Int8 => "INT8",
            Type::Int16 => "INT16",
            Type::Int32 => "INT32",
            Type::Int64 => "INT64",
            Type::Float32 => "FLOAT32",
            Type::Float64 => "FLOAT64",
            Type::Boolean => "BOOLEAN",
            Type::String => "STRING",
            Type::Bytes => "BYTES",
            Type::Array => "ARRAY",
            Type::Map => "MAP",
            Type::Struct => "STRUCT",
        }
    }

    pub fn is_primitive(self) -> bool {
        !matches!(self, Type::Array | Type::Map | Type::Struct)
    }
}

/// A field of a struct schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub index: usize,
    pub schema: SchemaRef,
}

/// A Connect schema (Java's `ConnectSchema`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Schema {
    pub kind: Type,
    pub optional: bool,
    pub default: Option<Value>,
    pub name: Option<String>,
    pub version: Option<i32>,
    pub doc: Option<String>,
    pub parameters: Option<IndexMap<String, String>>,
    pub fields: Vec<Field>,
    pub key_schema: Option<SchemaRef>,
    pub value_schema: Option<SchemaRef>,
    /// Field positions by name, built on first lookup: transforms look fields up by name for
    /// every record, and a linear search makes wide structs quadratic. (Change `fields` only on
    /// a schema not yet looked into, such as a fresh clone.)
    field_index: FieldIndex,
}

/// A cache that never affects equality or cloning semantics.
#[derive(Default)]
struct FieldIndex(OnceLock<std::collections::HashMap<String, usize>>);

impl Clone for FieldIndex {
    /// Cloned schemas may be changed before use, so the copy starts without an index.
    fn clone(&self) -> Self {
        FieldIndex::default()
    }
}

impl PartialEq for FieldIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for FieldIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FieldIndex")
    }
}

macro_rules! shared_schemas {
    ($($fn_name:ident, $opt_name:ident => $ty:expr;)*) => {
        $(
            #[doc = concat!("The shared required `", stringify!($ty), "` schema.")]
            pub fn $fn_name() -> SchemaRef {
                static S: OnceLock<SchemaRef> = OnceLock::new();
                S.get_or_init(|| Arc::new(Schema::new($ty))).clone()
            }
            #[doc = concat!("The shared optional `", stringify!($ty), "` schema.")]
            pub fn $opt_name() -> SchemaRef {
                static S: OnceLock<SchemaRef> = OnceLock::new();
                S.get_or_init(|| Arc::new(Schema { optional: true, ..Schema::new($ty) })).clone()
            }
        )*
    };
}

impl Schema {
    pub fn new(kind: Type) -> Self {
        Schema {
            kind,
            optional: false,
            default: None,
            name: None,
            version: None,
            doc: None,
            parameters: None,
            fields: Vec::new(),
            key_schema: None,
            value_schema: None,
            field_index: FieldIndex::default(),
        }
    }

    shared_schemas! {
        int8, optional_int8 => Type::Int8;
        int16, optional_int16 => Type::Int16;
        int32, optional_int32 => Type::Int32;
        int64, optional_int64 => Type::Int64;
        float32, optional_float32 => Type::Float32;
        float64, optional_float64 => Type::Float64;
        boolean, optional_boolean => Type::Boolean;
        string, optional_string => Type::String;
        bytes, optional_bytes => Type::Bytes;
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        // Small structs are searched directly; wide ones through the index.
        if self.fields.len() <= 8 {
            return self.fields.iter().find(|f| f.name == name);
        }
        let index = self.field_index.0.get_or_init(|| {
            self.fields
                .iter()
                .enumerate()
                .rev()
                .map(|(i, f)| (f.name.clone(), i))
                .collect()
        });
        index.get(name).map(|&i| &self.fields[i])
    }

    pub fn parameter(&self, key: &str) -> Option<&str> {
        self.parameters
            .as_ref()
            .and_then(|p| p.get(key))
            .map(String::as_str)
    }

    /// Checks that `value` fits this schema (Java's `ConnectSchema.validateValue`).
    pub fn validate_value(&self, value: &Value) -> Result<()> {
        if value.is_null() {
            if self.optional || self.default.is_some() {
                return Ok(());
            }
            return Err(ConnectError::data(
                "Invalid value: null used for required field",
            ));
        }
        let fits = match (self.kind, value) {
            (Type::Int8, Value::Int8(_))
            | (Type::Int16, Value::Int16(_))
            | (Type::Float32, Value::Float32(_))
            | (Type::Float64, Value::Float64(_))
            | (Type::Boolean, Value::Boolean(_))
            | (Type::String, Value::String(_))
            | (Type::Int32, Value::Int32(_))
            | (Type::Int64, Value::Int64(_))
            | (Type::Bytes, Value::Bytes(_)) => true,
            (Type::Bytes, Value::Decimal(_)) => {
                self.name.as_deref() == Some(crate::data::DECIMAL_LOGICAL_NAME)
            }
            (Type::Array, Value::Array(items)) => {
                let item_schema = self.value_schema.as_ref();
                return items.iter().try_for_each(|v| match item_schema {
                    Some(s) => s.validate_value(v),
                    None => Ok(()),
                });
            }
            (Type::Map, Value::Map(entries)) => {
                for (k, v) in entries {
                    if let Some(s) = &self.key_schema {
                        s.validate_value(k)?;
                    }
                    if let Some(s) = &self.value_schema {
                        s.validate_value(v)?;
                    }
                }
                true
            }
            // The same schema object is by far the common case; equality is a deep comparison.
            (Type::Struct, Value::Struct(s)) => {
                std::ptr::eq(s.schema().as_ref(), self) || s.schema().as_ref() == self
            }
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(ConnectError::data(format!(
                "Invalid Java object for schema with type {}: {}",
                self.kind.java_name(),
                value.type_description()
            )))
        }
    }
}

/// Builds schemas fluently, as Java's `SchemaBuilder` does.
#[derive(Debug, Clone)]
pub struct SchemaBuilder {
    schema: Schema,
}

impl SchemaBuilder {
    pub fn new(kind: Type) -> Self {
        SchemaBuilder {
            schema: Schema::new(kind),
        }
    }

    pub fn struct_() -> Self {
        Self::new(Type::Struct)
    }

    pub fn array(items: SchemaRef) -> Self {
        let mut b = Self::new(Type::Array);
        b.schema.value_schema = Some(items);
        b
    }

    pub fn map(keys: SchemaRef, values: SchemaRef) -> Self {
        let mut b = Self::new(Type::Map);
        b.schema.key_schema = Some(keys);
        b.schema.value_schema = Some(values);
        b
    }

    pub fn optional(mut self) -> Self {
        self.schema.optional = true;
        self
    }

    pub fn required(mut self) -> Self {
        self.schema.optional = false;
        self
    }

    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.schema.name = Some(name.into());
        self
    }

    pub fn version(mut self, version: i32) -> Self {
        self.schema.version = Some(version);
        self
    }

    pub fn doc(mut self, doc: impl Into<String>) -> Self {
        self.schema.doc = Some(doc.into());
        self
    }

    pub fn parameter(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.schema
            .parameters
            .get_or_insert_with(IndexMap::new)
            .insert(key.into(), value.into());
        self
    }

    pub fn default_value(mut self, value: Value) -> Self {
        self.schema.default = Some(value);
        self
    }

    pub fn field(mut self, name: impl Into<String>, schema: SchemaRef) -> Self {
        let index = self.schema.fields.len();
        self.schema.fields.push(Field {
            name: name.into(),
            index,
            schema,
        });
        self
    }

    pub fn build(self) -> SchemaRef {
        Arc::new(self.schema)
    }
}
