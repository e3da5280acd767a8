//! A connector's chain of transforms, each optionally guarded by a predicate (Java's
//! `TransformationChain` and `TransformationStage`).

use ferry_api::config::{split_list, ConfigError, KeyProblem};
use ferry_api::transform::{Predicate, Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::config::connector::{PREDICATES, TRANSFORMS};
use crate::plugins::Registry;

struct Stage {
    class: String,
    transform: Box<dyn Transformation>,
    predicate: Option<(Box<dyn Predicate>, bool)>,
}

/// The stages in configured order; empty when the connector has no transforms.
#[derive(Default)]
pub struct TransformationChain {
    stages: Vec<Stage>,
}

/// A stage that failed: the transform's class and the error.
#[derive(Debug)]
pub struct StageFailure<'a> {
    pub class: &'a str,
    pub error: ConnectError,
}

/// The settings under `prefix`, without the keys the framework itself reads.
fn plugin_settings(props: &ConfigMap, prefix: &str, framework_keys: &[&str]) -> ConfigMap {
    props
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix(prefix)
                .map(|rest| (rest.to_owned(), v.clone()))
        })
        .filter(|(k, _)| !framework_keys.contains(&k.as_str()))
        .collect()
}

fn missing(key: &str) -> KeyProblem {
    KeyProblem {
        key: key.to_owned(),
        message: format!("Missing required configuration \"{key}\" which has no default value."),
    }
}

fn not_found(key: &str, class: &str) -> KeyProblem {
    KeyProblem {
        key: key.to_owned(),
        message: format!(
            "Invalid value {class} for configuration {key}: Class {class} could not be found."
        ),
    }
}

fn plugin_problem(key: &str, class: &str, error: &ConnectError) -> Vec<KeyProblem> {
    match error {
        ConnectError::Config(e) => e.problems.clone(),
        other => vec![KeyProblem {
            key: key.to_owned(),
            message: format!("Invalid value {class} for configuration {key}: {other}"),
        }],
    }
}

impl TransformationChain {
    /// Builds and configures every stage, naming every problem.
    pub fn from_config(registry: &Registry, props: &ConfigMap) -> Result<Self, ConfigError> {
        let aliases = props
            .get(TRANSFORMS)
            .map(|t| split_list(t))
            .unwrap_or_default();
        let predicates = props
            .get(PREDICATES)
            .map(|p| split_list(p))
            .unwrap_or_default();
        let mut problems = Vec::new();
        let mut seen = Vec::new();
        for alias in aliases.iter().chain(&predicates) {
            if seen.contains(&alias) {
                problems.push(KeyProblem {
                    key: TRANSFORMS.to_owned(),
                    message: format!("Duplicate alias provided: {alias}"),
                });
            }
            seen.push(alias);
        }
        let mut stages = Vec::new();
        for alias in &aliases {
            let type_key = format!("transforms.{alias}.type");
            let Some(class) = props.get(&type_key).map(|c| c.trim().to_owned()) else {
                problems.push(missing(&type_key));
                continue;
            };
            let Some(plugin) = registry.transformation(&class) else {
                problems.push(not_found(&type_key, &class));
                continue;
            };
            let mut transform = (plugin.create)();
            let settings = plugin_settings(
                props,
                &format!("transforms.{alias}."),
                &["type", "predicate", "negate"],
            );
            if let Err(e) = transform.configure(&settings) {
                problems.extend(plugin_problem(&type_key, &class, &e));
                continue;
            }
            let predicate = match props
                .get(&format!("transforms.{alias}.predicate"))
                .map(|p| p.trim().to_owned())
            {
                None => None,
                Some(p) if p.is_empty() => None,
                Some(p) => {
                    let negate_key = format!("transforms.{alias}.negate");
                    let negate = props
                        .get(&negate_key)
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
                    match Self::predicate(registry, props, &p, &predicates) {
                        Ok(pred) => Some((pred, negate)),
                        Err(p) => {
                            problems.extend(p);
                            continue;
                        }
                    }
                }
            };
            stages.push(Stage {
                class: plugin.class_name.to_owned(),
                transform,
                predicate,
            });
        }
        if problems.is_empty() {
            Ok(TransformationChain { stages })
        } else {
            Err(ConfigError { problems })
        }
    }

    fn predicate(
        registry: &Registry,
        props: &ConfigMap,
        alias: &str,
        declared: &[String],
    ) -> Result<Box<dyn Predicate>, Vec<KeyProblem>> {
        if !declared.iter().any(|d| d == alias) {
            return Err(vec![KeyProblem {
                key: PREDICATES.to_owned(),
                message: format!("Invalid value {alias} for configuration predicates: the predicate alias is not declared in predicates"),
            }]);
        }
        let type_key = format!("predicates.{alias}.type");
        let class = props
            .get(&type_key)
            .map(|c| c.trim().to_owned())
            .ok_or_else(|| vec![missing(&type_key)])?;
        let plugin = registry
            .predicate(&class)
            .ok_or_else(|| vec![not_found(&type_key, &class)])?;
        let mut predicate = (plugin.create)();
        predicate
            .configure(&plugin_settings(
                props,
                &format!("predicates.{alias}."),
                &["type"],
            ))
            .map_err(|e| plugin_problem(&type_key, &class, &e))?;
        Ok(predicate)
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// Runs the stages in order; `Ok(false)` when one dropped the record.
    pub fn apply(&self, record: &mut dyn Record) -> Result<bool, StageFailure<'_>> {
        for stage in &self.stages {
            if let Some((predicate, negate)) = &stage.predicate {
                if predicate.test(record) == *negate {
                    continue;
                }
            }
            match stage.transform.apply(record) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(error) => {
                    return Err(StageFailure {
                        class: &stage.class,
                        error,
                    })
                }
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use ferry_api::config::ConfigDef;
    use ferry_api::data::Value;
    use ferry_api::record::SourceRecord;
    use ferry_transforms::{PredicatePlugin, TransformPlugin};

    use super::*;

    /// Appends its `suffix` setting to the topic; fails on topic "bad"; drops topic "drop".
    #[derive(Default)]
    struct Suffix(String);

    impl Transformation for Suffix {
        fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
            self.0 = configs.get("suffix").cloned().ok_or_else(|| {
                ConnectError::Config(ConfigError::single(
                    "suffix",
                    "Missing required configuration \"suffix\" which has no default value.",
                ))
            })?;
            Ok(())
        }
        fn config_def(&self) -> ConfigDef {
            ConfigDef::new()
        }
        fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
            match record.topic() {
                "bad" => Err(ConnectError::data("bad topic")),
                "drop" => Ok(false),
                t => {
                    let topic = format!("{t}{}", self.0);
                    record.set_topic(topic);
                    Ok(true)
                }
            }
        }
    }

    /// True for records whose value is null.
    #[derive(Default)]
    struct NullValue;

    impl Predicate for NullValue {
        fn configure(&mut self, _: &ConfigMap) -> ferry_api::error::Result<()> {
            Ok(())
        }
        fn config_def(&self) -> ConfigDef {
            ConfigDef::new()
        }
        fn test(&self, record: &dyn Record) -> bool {
            record.value().is_null()
        }
    }

    fn registry() -> Registry {
        let mut r = Registry::builtin();
        r.transformations.push(TransformPlugin {
            class_name: "test.Suffix",
            create: || Box::new(Suffix::default()),
        });
        r.predicates.push(PredicatePlugin {
            class_name: "test.NullValue",
            create: || Box::new(NullValue),
        });
        r
    }

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn record(topic: &str, value: Value) -> SourceRecord {
        SourceRecord::new(None, None, topic, None, value)
    }

    #[test]
    fn stages_run_in_order_guarded_by_predicates() {
        let chain = TransformationChain::from_config(
            &registry(),
            &props(&[
                ("transforms", "a, b"),
                ("transforms.a.type", "test.Suffix"),
                ("transforms.a.suffix", "-a"),
                ("transforms.b.type", "Suffix"),
                ("transforms.b.suffix", "-b"),
                ("transforms.b.predicate", "isNull"),
                ("transforms.b.negate", "true"),
                ("predicates", "isNull"),
                ("predicates.isNull.type", "test.NullValue"),
            ]),
        )
        .unwrap();
        let mut r = record("t", Value::from("x"));
        assert!(chain.apply(&mut r).unwrap());
        assert_eq!(r.topic, "t-a-b");
        // b is negated: it skips records with a null value.
        let mut tombstone = record("t", Value::Null);
        assert!(chain.apply(&mut tombstone).unwrap());
        assert_eq!(tombstone.topic, "t-a");
        assert!(!chain.apply(&mut record("drop", Value::Null)).unwrap());
        let failure = chain.apply(&mut record("bad", Value::Null)).unwrap_err();
        assert_eq!(failure.class, "test.Suffix");
        assert_eq!(failure.error.to_string(), "bad topic");
    }

    #[test]
    fn every_problem_is_named() {
        let err = TransformationChain::from_config(
            &registry(),
            &props(&[
                ("transforms", "a,b,c,d"),
                ("transforms.b.type", "com.example.Nope"),
                ("transforms.c.type", "test.Suffix"),
                ("transforms.d.type", "test.Suffix"),
                ("transforms.d.suffix", "x"),
                ("transforms.d.predicate", "undeclared"),
            ]),
        )
        .err()
        .unwrap();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            vec![
                "transforms.a.type",
                "transforms.b.type",
                "suffix",
                "predicates"
            ]
        );
        assert_eq!(
            err.problems[0].message,
            "Missing required configuration \"transforms.a.type\" which has no default value."
        );
        assert_eq!(
            err.problems[1].message,
            "Invalid value com.example.Nope for configuration transforms.b.type: Class com.example.Nope could not be found."
        );
    }
}
