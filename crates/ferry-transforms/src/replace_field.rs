//! `ReplaceField$Key` / `ReplaceField$Value`: keeps, drops and renames the top-level fields of a
//! struct (with a schema) or map (without one).
//!
//! `exclude` wins over `include`; an empty `include` keeps every field not excluded. `renames` is
//! a list of `old:new` pairs. The pre-3.0 names `blacklist` and `whitelist` are still accepted for
//! `exclude` and `include`, and are ignored when the new name is also set. Null keys or values
//! (tombstones) pass through untouched.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ferry_api::config::{
    ConfigDef, ConfigKey, ConfigType, ConfigValue, DefaultValue, Importance, Validator,
};
use ferry_api::data::{check_null_allowed, SchemaBuilder, SchemaRef, Struct, Value};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::util::{
    class_name, copy_schema_basics, moved_field_value, require_map, require_struct,
    struct_field_value, take_struct_values, Part, SchemaCache, StructFields,
};

pub const EXCLUDE_CONFIG: &str = "exclude";
pub const INCLUDE_CONFIG: &str = "include";
pub const RENAMES_CONFIG: &str = "renames";
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";
/// Deprecated alias of `exclude`.
pub const BLACKLIST_CONFIG: &str = "blacklist";
/// Deprecated alias of `include`.
pub const WHITELIST_CONFIG: &str = "whitelist";

const PURPOSE: &str = "field replacement";

/// Splits `text` on `sep` as Java's `String.split` does: trailing empty pieces are dropped.
fn java_split(text: &str, sep: char) -> Vec<&str> {
    let mut parts: Vec<&str> = text.split(sep).collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

/// Reads `old:new` pairs; a later pair for the same old name wins.
fn parse_renames(mappings: &[String]) -> Result<HashMap<String, String>, String> {
    let mut renames = HashMap::new();
    for mapping in mappings {
        match java_split(mapping, ':').as_slice() {
            [from, to] => {
                renames.insert((*from).to_owned(), (*to).to_owned());
            }
            _ => return Err(format!("Invalid rename mapping: {mapping}")),
        }
    }
    Ok(renames)
}

fn renames_validator() -> Validator {
    Validator::Custom {
        description: "comma-separated old:new name pairs, such as <code>a:b,c:d</code>".to_owned(),
        check: Arc::new(|value| match value {
            ConfigValue::List(mappings) => parse_renames(mappings).map(|_| ()),
            _ => Ok(()),
        }),
    }
}

/// The keys `ReplaceField` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                EXCLUDE_CONFIG,
                ConfigType::List,
                DefaultValue::Value(String::new()),
                Importance::Medium,
                "Names of fields to drop; a field listed here is dropped even when it is also included.",
            )
            .validator(Validator::distinct_list(true, false)),
        )
        .define(ConfigKey::new(
            BLACKLIST_CONFIG,
            ConfigType::List,
            DefaultValue::Null,
            Importance::Low,
            "Deprecated: use exclude.",
        ))
        .define(
            ConfigKey::new(
                INCLUDE_CONFIG,
                ConfigType::List,
                DefaultValue::Value(String::new()),
                Importance::Medium,
                "Names of fields to keep; when set, every other field is dropped.",
            )
            .validator(Validator::distinct_list(true, false)),
        )
        .define(ConfigKey::new(
            WHITELIST_CONFIG,
            ConfigType::List,
            DefaultValue::Null,
            Importance::Low,
            "Deprecated: use include.",
        ))
        .define(
            ConfigKey::new(
                RENAMES_CONFIG,
                ConfigType::List,
                DefaultValue::Value(String::new()),
                Importance::Medium,
                "Field renames as old:new pairs.",
            )
            .validator(renames_validator()),
        )
        .define(ConfigKey::new(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType::Boolean,
            DefaultValue::Value("true".to_owned()),
            Importance::Medium,
            "When true, a null field whose schema has a default comes out as that default; \
             when false it stays null.",
        ))
}

/// Moves a deprecated alias onto its replacement unless the replacement is set itself (Java's
/// `ConfigUtils.translateDeprecatedConfigs`).
fn translate_alias(props: &mut ConfigMap, key: &str, alias: &str) {
    if let Some(value) = props.remove(alias) {
        if !props.contains_key(key) {
            props.insert(key.to_owned(), value);
        }
    }
}

pub struct ReplaceField {
    part: Part,
    exclude: HashSet<String>,
    include: HashSet<String>,
    renames: HashMap<String, String>,
    reverse_renames: HashMap<String, String>,
    replace_null_with_default: bool,
    cache: SchemaCache<Arc<Replacement>>,
}

/// The output schema for one input schema, and the input field each output field takes its
/// value from.
struct Replacement {
    schema: SchemaRef,
    sources: Vec<usize>,
}

impl ReplaceField {
    pub fn new(part: Part) -> Self {
        ReplaceField {
            part,
            exclude: HashSet::new(),
            include: HashSet::new(),
            renames: HashMap::new(),
            reverse_renames: HashMap::new(),
            replace_null_with_default: true,
            cache: SchemaCache::new(),
        }
    }

    fn keeps(&self, name: &str) -> bool {
        !self.exclude.contains(name) && (self.include.is_empty() || self.include.contains(name))
    }

    fn renamed<'a>(&'a self, name: &'a str) -> &'a str {
        self.renames.get(name).map_or(name, String::as_str)
    }

    fn original_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.reverse_renames.get(name).map_or(name, String::as_str)
    }

    fn apply_schemaless(&self, value: &Value) -> Result<Value, ConnectError> {
        let entries = require_map(value, PURPOSE)?;
        let mut updated: Vec<(Value, Value)> = Vec::with_capacity(entries.len());
        for (key, field_value) in entries {
            let Some(name) = key.as_str() else {
                return Err(ConnectError::other(format!(
                    "class {} cannot be cast to class java.lang.String",
                    class_name(key)
                )));
            };
            if !self.keeps(name) {
                continue;
            }
            let new_name = self.renamed(name);
            match updated
                .iter_mut()
                .find(|(k, _)| k.as_str() == Some(new_name))
            {
                Some(entry) => entry.1 = field_value.clone(),
                None => updated.push((Value::from(new_name), field_value.clone())),
            }
        }
        Ok(Value::Map(updated))
    }

    fn replacement(&self, schema: &SchemaRef) -> Result<Arc<Replacement>, ConnectError> {
        let mut fields = StructFields::new(copy_schema_basics(schema, SchemaBuilder::struct_()));
        for field in &schema.fields {
            if self.keeps(&field.name) {
                fields.add(self.renamed(&field.name), field.schema.clone())?;
            }
        }
        let updated = fields.into_builder().build();
        // Java reads each output field from the input by its reverse-renamed name.
        let sources = updated
            .fields
            .iter()
            .map(|f| {
                let source = self.original_name(&f.name);
                schema.field(source).map(|s| s.index).ok_or_else(|| {
                    ConnectError::data(format!("{source} is not a valid field name"))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Arc::new(Replacement {
            schema: updated,
            sources,
        }))
    }

    fn apply_with_schema(&self, record: &mut dyn Record) -> Result<(), ConnectError> {
        let original = require_struct(self.part.value(record), PURPOSE)?;
        let input = original.schema().clone();
        let plan = self
            .cache
            .get_or_build(&input, || self.replacement(&input))?;
        // Every check that can fail comes before the input's values are moved out.
        for (field, &source) in plan.schema.fields.iter().zip(&plan.sources) {
            let value = struct_field_value(
                original,
                &input.fields[source],
                self.replace_null_with_default,
            );
            check_null_allowed(field, value)?;
        }
        let mut values = take_struct_values(self.part, record);
        let updated: Vec<Value> = plan
            .sources
            .iter()
            .map(|&source| {
                moved_field_value(
                    &mut values,
                    &input.fields[source],
                    self.replace_null_with_default,
                )
            })
            .collect();
        let value = Struct::from_values(plan.schema.clone(), updated)?;
        self.part
            .set(record, Some(plan.schema.clone()), Value::Struct(value));
        Ok(())
    }
}

impl Transformation for ReplaceField {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let mut props = configs.clone();
        translate_alias(&mut props, EXCLUDE_CONFIG, BLACKLIST_CONFIG);
        translate_alias(&mut props, INCLUDE_CONFIG, WHITELIST_CONFIG);
        let parsed = config_def().parse(&props)?;
        self.exclude = parsed.list(EXCLUDE_CONFIG)?.into_iter().collect();
        self.include = parsed.list(INCLUDE_CONFIG)?.into_iter().collect();
        self.renames = parse_renames(&parsed.list(RENAMES_CONFIG)?).map_err(ConnectError::other)?;
        self.reverse_renames = self
            .renames
            .iter()
            .map(|(from, to)| (to.clone(), from.clone()))
            .collect();
        self.replace_null_with_default = parsed.boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG)?;
        self.cache = SchemaCache::new();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let value = self.part.value(record);
        if value.is_null() {
            return Ok(true);
        }
        if self.part.schema(record).is_none() {
            let updated = self.apply_schemaless(value)?;
            self.part.set(record, None, updated);
        } else {
            self.apply_with_schema(record)?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::Schema;
    use ferry_api::record::SinkRecord;

    fn configured(part: Part, pairs: &[(&str, &str)]) -> ReplaceField {
        let mut xform = ReplaceField::new(part);
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        xform.configure(&props).unwrap();
        xform
    }

    fn config_error(pairs: &[(&str, &str)]) -> String {
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        ReplaceField::new(Part::Value)
            .configure(&props)
            .unwrap_err()
            .to_string()
    }

    fn sample_map() -> Value {
        Value::Map(vec![
            ("dont".into(), "whatever".into()),
            ("abc".into(), Value::Int32(42)),
            ("foo".into(), Value::Boolean(true)),
            ("etc".into(), "etc".into()),
        ])
    }

    fn sample_schema() -> SchemaRef {
        SchemaBuilder::struct_()
            .field("dont", Schema::string())
            .field("abc", Schema::int32())
            .field("foo", Schema::boolean())
            .field("etc", Schema::string())
            .build()
    }

    fn sample_struct() -> Struct {
        let mut s = Struct::new(sample_schema()).unwrap();
        s.put("dont", "whatever")
            .unwrap()
            .put("abc", 42)
            .unwrap()
            .put("foo", true)
            .unwrap()
            .put("etc", "etc")
            .unwrap();
        s
    }

    fn value_record(schema: Option<SchemaRef>, value: Value) -> SinkRecord {
        SinkRecord {
            topic: "test".to_owned(),
            value_schema: schema,
            value,
            ..Default::default()
        }
    }

    #[test]
    fn tombstones_pass_through_with_or_without_schema() {
        let xform = configured(
            Part::Value,
            &[("include", "abc,foo"), ("renames", "abc:xyz,foo:bar")],
        );
        let mut record = value_record(None, Value::Null);
        assert!(xform.apply(&mut record).unwrap());
        assert_eq!(record, value_record(None, Value::Null));

        let mut record = value_record(Some(sample_schema()), Value::Null);
        xform.apply(&mut record).unwrap();
        assert_eq!(record.value_schema, Some(sample_schema()));
        assert!(record.value.is_null());
    }

    #[test]
    fn schemaless_exclude_and_rename() {
        let xform = configured(
            Part::Value,
            &[("exclude", "dont"), ("renames", "abc:xyz,foo:bar")],
        );
        let mut record = value_record(None, sample_map());
        xform.apply(&mut record).unwrap();
        assert!(record.value_schema.is_none());
        assert_eq!(
            record.value,
            Value::Map(vec![
                ("xyz".into(), Value::Int32(42)),
                ("bar".into(), Value::Boolean(true)),
                ("etc".into(), "etc".into()),
            ])
        );
    }

    #[test]
    fn with_schema_include_and_rename() {
        let xform = configured(
            Part::Value,
            &[("include", "abc,foo"), ("renames", "abc:xyz,foo:bar")],
        );
        let mut record = value_record(Some(sample_schema()), Value::Struct(sample_struct()));
        xform.apply(&mut record).unwrap();
        let Value::Struct(updated) = &record.value else {
            panic!("not a struct: {:?}", record.value)
        };
        assert_eq!(updated.schema().fields.len(), 2);
        assert_eq!(updated.get("xyz").unwrap(), &Value::Int32(42));
        assert_eq!(updated.get("bar").unwrap(), &Value::Boolean(true));
        assert_eq!(record.value_schema.as_ref(), Some(updated.schema()));
    }

    #[test]
    fn exclude_wins_over_include_and_schema_basics_are_kept() {
        let schema = SchemaBuilder::struct_()
            .name("my.Record")
            .version(3)
            .doc("docs")
            .optional()
            .field("a", Schema::int32())
            .field("b", Schema::int32())
            .build();
        let mut value = Struct::new(schema.clone()).unwrap();
        value.put("a", 1).unwrap().put("b", 2).unwrap();
        let xform = configured(Part::Value, &[("include", "a,b"), ("exclude", "b")]);
        let mut record = value_record(Some(schema), Value::Struct(value));
        xform.apply(&mut record).unwrap();
        let updated = record.value_schema.unwrap();
        assert_eq!(updated.name.as_deref(), Some("my.Record"));
        assert_eq!(updated.version, Some(3));
        assert_eq!(updated.doc.as_deref(), Some("docs"));
        // Java's copySchemaBasics leaves optionality behind.
        assert!(!updated.optional);
        assert_eq!(
            updated
                .fields
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>(),
            vec!["a"]
        );
    }

    #[test]
    fn repeated_schemas_reuse_the_derived_schema() {
        let xform = configured(Part::Value, &[("exclude", "dont")]);
        let mut first = value_record(Some(sample_schema()), Value::Struct(sample_struct()));
        let mut second = first.clone();
        xform.apply(&mut first).unwrap();
        xform.apply(&mut second).unwrap();
        assert!(Arc::ptr_eq(
            first.value_schema.as_ref().unwrap(),
            second.value_schema.as_ref().unwrap()
        ));
    }

    fn default_schema() -> SchemaRef {
        SchemaBuilder::struct_()
            .field(
                "abc",
                SchemaBuilder::new(ferry_api::data::Type::Int32)
                    .optional()
                    .default_value(Value::Int32(42))
                    .build(),
            )
            .build()
    }

    #[test]
    fn null_with_default_on_value_and_key() {
        for (replace, expected) in [("false", Value::Null), ("true", Value::Int32(42))] {
            let props = [
                ("include", "abc"),
                ("renames", "abc:optional_with_default"),
                ("replace.null.with.default", replace),
            ];
            let value = Struct::new(default_schema()).unwrap();

            let xform = configured(Part::Value, &props);
            let mut record = value_record(Some(default_schema()), Value::Struct(value.clone()));
            xform.apply(&mut record).unwrap();
            let Value::Struct(updated) = &record.value else {
                panic!()
            };
            assert_eq!(updated.schema().fields.len(), 1);
            assert_eq!(
                updated
                    .get_without_default("optional_with_default")
                    .unwrap(),
                &expected
            );

            let xform = configured(Part::Key, &props);
            let mut record = SinkRecord {
                key_schema: Some(default_schema()),
                key: Value::Struct(value),
                ..Default::default()
            };
            xform.apply(&mut record).unwrap();
            let Value::Struct(updated) = &record.key else {
                panic!()
            };
            assert_eq!(
                updated
                    .get_without_default("optional_with_default")
                    .unwrap(),
                &expected
            );
            assert!(record.value.is_null());
        }
    }

    #[test]
    fn deprecated_names_still_work() {
        let xform = configured(
            Part::Value,
            &[("blacklist", "dont"), ("renames", "abc:xyz,foo:bar")],
        );
        let mut record = value_record(None, sample_map());
        xform.apply(&mut record).unwrap();
        assert_eq!(
            record.value,
            Value::Map(vec![
                ("xyz".into(), Value::Int32(42)),
                ("bar".into(), Value::Boolean(true)),
                ("etc".into(), "etc".into()),
            ])
        );

        let xform = configured(Part::Value, &[("whitelist", "abc,foo")]);
        let mut record = value_record(None, sample_map());
        xform.apply(&mut record).unwrap();
        assert_eq!(
            record.value,
            Value::Map(vec![
                ("abc".into(), Value::Int32(42)),
                ("foo".into(), Value::Boolean(true))
            ])
        );

        // The new name wins when both are given.
        let xform = configured(Part::Value, &[("include", "etc"), ("whitelist", "abc,foo")]);
        let mut record = value_record(None, sample_map());
        xform.apply(&mut record).unwrap();
        assert_eq!(record.value, Value::Map(vec![("etc".into(), "etc".into())]));
    }

    #[test]
    fn bad_rename_mappings_are_config_errors() {
        assert_eq!(
            config_error(&[("renames", "abc:xyz,foo")]),
            "Invalid value [abc:xyz, foo] for configuration renames: Invalid rename mapping: foo"
        );
        assert_eq!(
            config_error(&[("renames", "a:b:c")]),
            "Invalid value [a:b:c] for configuration renames: Invalid rename mapping: a:b:c"
        );
        assert!(config_error(&[("renames", "a:")]).ends_with("Invalid rename mapping: a:"));
        // Java's split drops trailing empty pieces, so a trailing colon after a pair is fine.
        configured(Part::Value, &[("renames", "a:b:")]);
        assert!(config_error(&[("replace.null.with.default", "maybe")])
            .contains("Expected value to be either true or false"));
    }

    #[test]
    fn not_a_map_or_struct() {
        let xform = configured(Part::Value, &[("exclude", "a")]);
        let mut record = value_record(None, Value::Int32(1));
        assert_eq!(
            xform.apply(&mut record).unwrap_err().to_string(),
            "Only Map objects supported in absence of schema for [field replacement], found: java.lang.Integer"
        );
        let mut record = value_record(Some(Schema::int32()), Value::Int32(1));
        assert_eq!(
            xform.apply(&mut record).unwrap_err().to_string(),
            "Only Struct objects supported for [field replacement], found: java.lang.Integer"
        );
    }

    #[test]
    fn renaming_onto_an_existing_field() {
        let xform = configured(Part::Value, &[("renames", "abc:etc")]);
        // Without a schema one entry is left under the name (which one depends on Java's HashMap
        // order there).
        let mut record = value_record(None, sample_map());
        xform.apply(&mut record).unwrap();
        let Value::Map(entries) = &record.value else {
            panic!()
        };
        assert_eq!(entries.len(), 3);
        // With one, Java's SchemaBuilder refuses the duplicate name.
        let mut record = value_record(Some(sample_schema()), Value::Struct(sample_struct()));
        assert_eq!(
            xform.apply(&mut record).unwrap_err().to_string(),
            "Cannot create field because of field name duplication etc"
        );
    }
}
