//! Connect schemas to and from their JSON form (Java's `asJsonSchema` / `asConnectSchema`).
//! Key order on write is Java's: type, items | keys, values | fields, optional, name,
//! version, doc, parameters, default, and `field` last inside a struct's field list.

use std::sync::Arc;

use ferry_api::data::{Field, Schema, SchemaRef, Type, Value};
use ferry_api::ConnectError;
use indexmap::IndexMap;

use crate::cache::BoundedCache;
use crate::emit;
use crate::node::JsonNode;
use crate::read;
use crate::write::Writer;

fn data(message: impl Into<String>) -> ConnectError {
    ConnectError::data(message)
}

fn type_name(kind: Type) -> &'static str {
    match kind {
        Type::Boolean => "boolean",
        Type::Int8 => "int8",
        Type::Int16 => "int16",
        Type::Int32 => "int32",
        Type::Int64 => "int64",
        Type::Float32 => "float",
        Type::Float64 => "double",
        Type::Bytes => "bytes",
        Type::String => "string",
        Type::Array => "array",
        Type::Map => "map",
        Type::Struct => "struct",
    }
}

fn type_from_name(name: &str) -> Option<Type> {
    Some(match name {
        "boolean" => Type::Boolean,
        "int8" => Type::Int8,
        "int16" => Type::Int16,
        "int32" => Type::Int32,
        "int64" => Type::Int64,
        "float" => Type::Float32,
        "double" => Type::Float64,
        "bytes" => Type::Bytes,
        "string" => Type::String,
        "array" => Type::Array,
        "map" => Type::Map,
        "struct" => Type::Struct,
        _ => return None,
    })
}

/// The JSON object describing `schema`; a missing element schema is written as `null`.
pub(crate) fn schema_to_json(schema: &Schema, writer: &Writer) -> Result<JsonNode, ConnectError> {
    let mut obj = IndexMap::new();
    obj.insert(
        "type".to_owned(),
        JsonNode::Text(type_name(schema.kind).to_owned()),
    );
    let nested = |s: &Option<SchemaRef>| -> Result<JsonNode, ConnectError> {
        s.as_deref()
            .map_or(Ok(JsonNode::Null), |s| schema_to_json(s, writer))
    };
    match schema.kind {
        Type::Array => {
            obj.insert("items".to_owned(), nested(&schema.value_schema)?);
        }
        Type::Map => {
            obj.insert("keys".to_owned(), nested(&schema.key_schema)?);
            obj.insert("values".to_owned(), nested(&schema.value_schema)?);
        }
        Type::Struct => {
            let mut fields = Vec::with_capacity(schema.fields.len());
            for field in &schema.fields {
                let mut field_json = schema_to_json(&field.schema, writer)?;
                if let JsonNode::Object(map) = &mut field_json {
                    map.insert("field".to_owned(), JsonNode::Text(field.name.clone()));
                }
                fields.push(field_json);
            }
            obj.insert("fields".to_owned(), JsonNode::Array(fields));
        }
        _ => {}
    }
    obj.insert("optional".to_owned(), JsonNode::Bool(schema.optional));
    if let Some(name) = &schema.name {
        obj.insert("name".to_owned(), JsonNode::Text(name.clone()));
    }
    if let Some(version) = schema.version {
        obj.insert("version".to_owned(), JsonNode::Int(i64::from(version)));
    }
    if let Some(doc) = &schema.doc {
        obj.insert("doc".to_owned(), JsonNode::Text(doc.clone()));
    }
    if let Some(params) = &schema.parameters {
        let params = params
            .iter()
            .map(|(k, v)| (k.clone(), JsonNode::Text(v.clone())))
            .collect();
        obj.insert("parameters".to_owned(), JsonNode::Object(params));
    }
    if let Some(default) = &schema.default {
        obj.insert("default".to_owned(), writer.convert(Some(schema), default)?);
    }
    Ok(JsonNode::Object(obj))
}

/// Reads schema JSON, caching each translation by its (canonical) JSON text so that only
/// identical JSON shares an entry, as Java's cache keyed by the JSON tree does.
pub(crate) struct SchemaReader<'a> {
    pub(crate) cache: &'a BoundedCache<String, SchemaRef>,
    pub(crate) replace_null_with_default: bool,
}

impl SchemaReader<'_> {
    /// `Ok(None)` for a JSON `null` schema (schemaless data).
    pub(crate) fn read(&self, node: &JsonNode) -> Result<Option<SchemaRef>, ConnectError> {
        if matches!(node, JsonNode::Null) {
            return Ok(None);
        }
        let key = emit::to_text(node);
        if let Some(cached) = self.cache.get(&key) {
            return Ok(Some(cached));
        }
        let schema = self.build(node)?;
        self.cache.put(key, schema.clone());
        Ok(Some(schema))
    }

    fn required(&self, node: &JsonNode, what: &str) -> Result<SchemaRef, ConnectError> {
        self.read(node)?
            .ok_or_else(|| data(format!("{what} cannot be null.")))
    }

    fn build(&self, node: &JsonNode) -> Result<SchemaRef, ConnectError> {
        let Some(JsonNode::Text(type_text)) = node.get("type") else {
            return Err(data("Schema must contain 'type' field"));
        };
        let kind = type_from_name(type_text)
            .ok_or_else(|| data(format!("Unknown schema type: {type_text}")))?;
        let mut schema = Schema::new(kind);
        match kind {
            Type::Array => {
                let items = match node.get("items") {
                    None | Some(JsonNode::Null) => {
                        return Err(data("Array schema did not specify the element type"))
                    }
                    Some(items) => items,
                };
                schema.value_schema = Some(self.required(items, "valueSchema")?);
            }
            Type::Map => {
                let keys = node
                    .get("keys")
                    .ok_or_else(|| data("Map schema did not specify the key type"))?;
                let values = node
                    .get("values")
                    .ok_or_else(|| data("Map schema did not specify the value type"))?;
                schema.key_schema = Some(self.required(keys, "keySchema")?);
                schema.value_schema = Some(self.required(values, "valueSchema")?);
            }
            Type::Struct => schema.fields = self.fields(node)?,
            _ => {}
        }
        schema.optional = matches!(node.get("optional"), Some(JsonNode::Bool(true)));
        if let Some(JsonNode::Text(name)) = node.get("name") {
            schema.name = Some(name.clone());
        }
        if let Some(version) = node.get("version").filter(|v| v.is_integral()) {
            schema.version = Some(version.int_value());
        }
        if let Some(JsonNode::Text(doc)) = node.get("doc") {
            schema.doc = Some(doc.clone());
        }
        if let Some(JsonNode::Object(params)) = node.get("parameters") {
            for (key, value) in params {
                let JsonNode::Text(value) = value else {
                    return Err(data("Schema parameters must have string values."));
                };
                schema
                    .parameters
                    .get_or_insert_with(IndexMap::new)
                    .insert(key.clone(), value.clone());
            }
        }
        if let Some(default) = node.get("default") {
            schema.default = self.default_value(&schema, default)?;
        }
        Ok(Arc::new(schema))
    }

    fn fields(&self, node: &JsonNode) -> Result<Vec<Field>, ConnectError> {
        let Some(JsonNode::Array(items)) = node.get("fields") else {
            return Err(data("Struct schema's \"fields\" argument is not an array."));
        };
        let mut fields: Vec<Field> = Vec::with_capacity(items.len());
        for item in items {
            let Some(JsonNode::Text(name)) = item.get("field") else {
                return Err(data("Struct schema's field name not specified properly"));
            };
            if fields.iter().any(|f| &f.name == name) {
                return Err(data(format!(
                    "Cannot create field because of field name duplication {name}"
                )));
            }
            let schema = self.required(item, &format!("fieldSchema for field {name}"))?;
            fields.push(Field {
                name: name.clone(),
                index: fields.len(),
                schema,
            });
        }
        Ok(fields)
    }

    /// Java reads the default against the schema built so far and then validates it; a null
    /// default on an optional schema means "no default", and a struct default can never pass
    /// Java's validation (its struct's schema is never equal to the builder).
    fn default_value(
        &self,
        schema: &Schema,
        node: &JsonNode,
    ) -> Result<Option<Value>, ConnectError> {
        let so_far: SchemaRef = Arc::new(schema.clone());
        let value = read::to_connect(Some(&so_far), Some(node), self.replace_null_with_default)?;
        let invalid = || data("Invalid default value");
        match &value {
            Value::Null if schema.optional => Ok(None),
            Value::Null | Value::Struct(_) => Err(invalid()),
            _ => {
                so_far.validate_value(&value).map_err(|_| invalid())?;
                Ok(Some(value))
            }
        }
    }
}
