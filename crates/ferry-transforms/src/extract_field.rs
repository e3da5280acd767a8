//! `ExtractField$Key` / `ExtractField$Value`: replaces the key or value with one of its fields
//! (a nested one with `field.syntax.version=V2`).

use ferry_api::config::{
    ConfigDef, ConfigError, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
};
use ferry_api::data::{Field, Schema, Struct, Type, Value};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::{require_map, require_struct, struct_field_value, Part};

pub const FIELD_CONFIG: &str = "field";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";
pub const FIELD_SYNTAX_VERSION_CONFIG: &str = "field.syntax.version";

const PURPOSE: &str = "field extraction";
const NESTED_PURPOSE: &str = "nested field access";

const FIELD_SYNTAX_VERSION_DOC: &str = "Defines the version of the syntax to access fields. \
    If set to `V1`, then the field paths are limited to access the elements at the root level of the struct or map. \
    If set to `V2`, the syntax will support accessing nested elements. \
    To access nested elements, dotted notation is used. \
    If dots are already included in the field name, \
    then backtick pairs can be used to wrap field names containing dots. \
    E.g. to access the subfield `baz` from a field named \"foo.bar\" in a struct/map \
    the following format can be used to access its elements: \"`foo.bar`.baz\".";

/// How field paths are read (Java's `FieldSyntaxVersion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldSyntaxVersion {
    /// The whole text names one top-level field.
    V1,
    /// Dotted paths into nested structs and maps; backticks quote names holding dots.
    V2,
}

/// A path of field names, outermost first (Java's `SingleFieldPath`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath {
    steps: Vec<String>,
}

fn incomplete_backtick(path: &str, at: usize) -> String {
    format!(
        "Incomplete backtick pair in path: [{path}], consider adding a backslash before backtick at position {at} to escape it"
    )
}

impl FieldPath {
    /// Reads `text` under `version`; the error is Java's `ConfigException` message.
    pub(crate) fn parse(text: &str, version: FieldSyntaxVersion) -> Result<Self, String> {
        match version {
            FieldSyntaxVersion::V1 => Ok(FieldPath {
                steps: vec![text.to_owned()],
            }),
            FieldSyntaxVersion::V2 => Self::parse_v2(text),
        }
    }

    fn parse_v2(text: &str) -> Result<Self, String> {
        let chars: Vec<char> = text.chars().collect();
        let len = chars.len();
        let find = |ch: char, from: usize| (from..len).find(|&i| chars[i] == ch);
        let slice = |from: usize, to: usize| chars[from..to].iter().collect::<String>();
        let mut steps = Vec::new();
        let mut idx = 0;
        while idx < len {
            if chars[idx] != '`' {
                // A plain step runs up to the next dot.
                match find('.', idx) {
                    Some(dot) => {
                        steps.push(slice(idx, dot));
                        idx = dot + 1;
                    }
                    None => {
                        steps.push(slice(idx, len));
                        idx = len;
                    }
                }
                continue;
            }
            // A quoted step ends at a backtick that is followed by a dot or ends the text and
            // is not escaped by a backslash.
            let opened_at = idx;
            idx += 1;
            let mut name = String::new();
            let mut start = idx;
            loop {
                let Some(close) = find('`', idx) else {
                    return Err(incomplete_backtick(text, opened_at));
                };
                idx = close;
                let escaped = chars[idx - 1] == '\\';
                if idx + 1 >= len {
                    if escaped {
                        return Err(incomplete_backtick(text, opened_at));
                    }
                    name.push_str(&slice(start, idx));
                    steps.push(std::mem::take(&mut name));
                    idx += 1;
                    break;
                }
                if chars[idx + 1] != '.' {
                    idx += 1;
                    continue;
                }
                if escaped {
                    name.push_str(&slice(start, idx - 1));
                    name.push('`');
                    idx += 1;
                    start = idx;
                    continue;
                }
                name.push_str(&slice(start, idx));
                steps.push(std::mem::take(&mut name));
                idx += 2;
                break;
            }
        }
        if text.ends_with('.') {
            steps.push(String::new());
        }
        Ok(FieldPath { steps })
    }

    #[cfg(test)]
    pub(crate) fn steps(&self) -> &[String] {
        &self.steps
    }

    /// The steps before the last one, and the last one. Java fails with an index error on an
    /// empty V2 path; so does this, without panicking.
    fn split(&self) -> Result<(&[String], &str), ConnectError> {
        match self.steps.split_last() {
            Some((last, parents)) => Ok((parents, last)),
            None => Err(ConnectError::other("fromIndex(0) > toIndex(-1)")),
        }
    }

    /// The field the path names within `schema`, if there is one.
    pub(crate) fn field_from<'a>(
        &self,
        schema: &'a Schema,
    ) -> Result<Option<&'a Field>, ConnectError> {
        let (parents, last) = self.split()?;
        let mut current = schema;
        for step in parents {
            match struct_schema_field(current, step)? {
                Some(f) => current = &f.schema,
                None => return Ok(None),
            }
        }
        struct_schema_field(current, last)
    }

    /// The value at the path within a struct (null when any step is missing or null).
    pub(crate) fn value_from_struct<'a>(
        &self,
        value: &'a Struct,
        with_default: bool,
    ) -> Result<&'a Value, ConnectError> {
        let (parents, last) = self.split()?;
        let mut current = value;
        for step in parents {
            let Some(field) = current.schema().field(step) else {
                return Ok(&Value::Null);
            };
            // Java reads intermediate steps with their defaults applied.
            match struct_field_value(current, field, true) {
                Value::Null => return Ok(&Value::Null),
                other => current = require_struct(other, NESTED_PURPOSE)?,
            }
        }
        Ok(match current.schema().field(last) {
            Some(field) => struct_field_value(current, field, with_default),
            None => &Value::Null,
        })
    }

    /// The value at the path within a schemaless map (null when any step is missing or null).
    pub(crate) fn value_from_map<'a>(&self, value: &'a Value) -> Result<&'a Value, ConnectError> {
        let (parents, last) = self.split()?;
        let mut current = value;
        for step in parents {
            match current.map_get(step) {
                None | Some(Value::Null) => return Ok(&Value::Null),
                Some(next) => {
                    require_map(next, NESTED_PURPOSE)?;
                    current = next;
                }
            }
        }
        Ok(current.map_get(last).unwrap_or(&Value::Null))
    }
}

/// Java's `Schema.field(name)`, which refuses to look into anything but a struct.
fn struct_schema_field<'a>(
    schema: &'a Schema,
    name: &str,
) -> Result<Option<&'a Field>, ConnectError> {
    if schema.kind != Type::Struct {
        return Err(ConnectError::data(
            "Cannot look up fields on non-struct type",
        ));
    }
    Ok(schema.field(name))
}

/// The `field.syntax.version` key, as the transforms that take field paths declare it.
pub(crate) fn field_syntax_version_key() -> ConfigKey {
    ConfigKey::new(
        FIELD_SYNTAX_VERSION_CONFIG,
        ConfigType::String,
        DefaultValue::Value("V1".to_owned()),
        Importance::High,
        FIELD_SYNTAX_VERSION_DOC,
    )
    .validator(Validator::one_of_ignore_case(&["V1", "V2"]))
}

/// Reads `field.syntax.version` from a parsed config.
pub(crate) fn field_syntax_version(text: &str) -> Result<FieldSyntaxVersion, ConfigError> {
    match text.to_uppercase().as_str() {
        "V1" => Ok(FieldSyntaxVersion::V1),
        "V2" => Ok(FieldSyntaxVersion::V2),
        _ => Err(ConfigError::invalid_value(
            FIELD_SYNTAX_VERSION_CONFIG,
            text,
            "Unrecognized field syntax version",
        )),
    }
}

#[derive(Debug, Clone)]
struct ExtractConfig {
    original: String,
    path: FieldPath,
    replace_null_with_default: bool,
}

/// Java's `ExtractField` transform for one part of the record.
pub struct ExtractField {
    part: Part,
    config: Option<ExtractConfig>,
}

impl ExtractField {
    pub fn new(part: Part) -> Self {
        ExtractField { part, config: None }
    }
}

impl Transformation for ExtractField {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = self.config_def().parse(configs)?;
        let original = parsed.string(FIELD_CONFIG)?.unwrap_or_default();
        let version = field_syntax_version(
            &parsed
                .string(FIELD_SYNTAX_VERSION_CONFIG)?
                .unwrap_or_default(),
        )?;
        let path = FieldPath::parse(&original, version)
            .map_err(|message| ConfigError::single(FIELD_CONFIG, message))?;
        self.config = Some(ExtractConfig {
            original,
            path,
            replace_null_with_default: parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?,
        });
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
            .define(ConfigKey::new(
                FIELD_CONFIG,
                ConfigType::String,
                DefaultValue::Required,
                Importance::Medium,
                "Field name to extract.",
            ))
            .define(ConfigKey::new(
                REPLACE_NULL_WITH_DEFAULT_CONFIG,
                ConfigType::Boolean,
                DefaultValue::Value("true".to_owned()),
                Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. \
                 When set to true, the default value is used, otherwise null is used.",
            ))
            .define(field_syntax_version_key())
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let cfg = self.config.as_ref().ok_or_else(|| {
            ConnectError::other("ExtractField transformation used before it was configured")
        })?;
        let value = self.part.value(record);
        let (schema, extracted) = match self.part.schema(record) {
            None => {
                let extracted = match value {
                    Value::Null => Value::Null,
                    map => {
                        require_map(map, PURPOSE)?;
                        cfg.path.value_from_map(map)?.clone()
                    }
                };
                (None, extracted)
            }
            Some(schema) => {
                let current = match value {
                    Value::Null => None,
                    other => Some(require_struct(other, PURPOSE)?),
                };
                let Some(field) = cfg.path.field_from(schema)? else {
                    // Java raises IllegalArgumentException here.
                    return Err(ConnectError::other(format!(
                        "Unknown field: {}",
                        cfg.original
                    )));
                };
                let extracted = match current {
                    None => Value::Null,
                    Some(s) => cfg
                        .path
                        .value_from_struct(s, cfg.replace_null_with_default)?
                        .clone(),
                };
                (Some(field.schema.clone()), extracted)
            }
        };
        self.part.set(record, schema, extracted);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
