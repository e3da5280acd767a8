//! Topic creation for source connectors (KIP-158): `topic.creation.groups` and their
//! `include`/`exclude` patterns, `replication.factor`, `partitions` and topic configs, with the
//! `default` group for everything else. Active when the worker allows it
//! (`topic.creation.enable`, true by default) and the connector sets both
//! `topic.creation.default.replication.factor` and `topic.creation.default.partitions`, as in
//! Java. A task creates each topic before its first record to it.

use std::collections::HashSet;

use ferry_api::config::split_list;
use ferry_api::ConfigMap;
use regex::Regex;

pub const TOPIC_CREATION_ENABLE: &str = "topic.creation.enable";
pub const TOPIC_CREATION_GROUPS: &str = "topic.creation.groups";
const PREFIX: &str = "topic.creation.";
const DEFAULT_GROUP: &str = "default";

/// One group's rules.
#[derive(Debug, Clone)]
pub struct TopicGroup {
    pub name: String,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
    /// -1: the broker's default.
    pub replication_factor: i32,
    pub partitions: i32,
    /// Topic configs (`cleanup.policy`, …).
    pub configs: Vec<(String, String)>,
}

impl TopicGroup {
    fn matches(&self, topic: &str) -> bool {
        self.include.iter().any(|r| r.is_match(topic))
            && !self.exclude.iter().any(|r| r.is_match(topic))
    }
}

/// A connector's topic creation rules.
#[derive(Debug, Clone)]
pub struct TopicCreation {
    /// The groups named by `topic.creation.groups`, in order, then `default`.
    groups: Vec<TopicGroup>,
    created: HashSet<String>,
}

fn whole_match(pattern: &str) -> Result<Regex, String> {
    Regex::new(&format!("^(?:{pattern})$")).map_err(|e| e.to_string())
}

/// A group's `replication.factor` or `partitions`: -1 or more than 0, as Java checks them.
fn count(config: &ConfigMap, key: &str, required: bool, errors: &mut Vec<(String, String)>) -> i32 {
    match config.get(key).map(|v| v.trim()) {
        None | Some("") if required => {
            errors.push((
                key.to_owned(),
                format!("Missing required configuration \"{key}\" which has no default value."),
            ));
            -1
        }
        None | Some("") => -1,
        Some(v) => match v.parse::<i32>() {
            Ok(n) if n == -1 || n > 0 => n,
            Ok(n) => {
                errors.push((
                    key.to_owned(),
                    format!("Invalid value {n} for configuration {key}: Number of {} must be -1 or at least 1", if key.ends_with("partitions") { "partitions" } else { "replicas" }),
                ));
                -1
            }
            Err(_) => {
                errors.push((
                    key.to_owned(),
                    format!("Invalid value {v} for configuration {key}: Not a number of type INT"),
                ));
                -1
            }
        },
    }
}

fn group(config: &ConfigMap, name: &str, errors: &mut Vec<(String, String)>) -> TopicGroup {
    let prefix = format!("{PREFIX}{name}.");
    let default = name == DEFAULT_GROUP;
    let patterns = |what: &str, errors: &mut Vec<(String, String)>| -> Vec<Regex> {
        let key = format!("{prefix}{what}");
        config
            .get(&key)
            .map(|v| split_list(v))
            .unwrap_or_default()
            .iter()
            .filter_map(|p| {
                whole_match(p)
                    .map_err(|why| {
                        errors.push((
                            key.clone(),
                            format!("Invalid value {p} for configuration {key}: {why}"),
                        ))
                    })
                    .ok()
            })
            .collect()
    };
    let include = if default {
        vec![whole_match(".*").expect("matches every topic")]
    } else {
        patterns("include", errors)
    };
    let exclude = patterns("exclude", errors);
    let replication_factor = count(
        config,
        &format!("{prefix}replication.factor"),
        default,
        errors,
    );
    let partitions = count(config, &format!("{prefix}partitions"), default, errors);
    let configs = config
        .iter()
        .filter_map(|(k, v)| {
            let rest = k.strip_prefix(&prefix)?;
            (!matches!(
                rest,
                "include" | "exclude" | "replication.factor" | "partitions"
            ))
            .then(|| (rest.to_owned(), v.clone()))
        })
        .collect();
    TopicGroup {
        name: name.to_owned(),
        include,
        exclude,
        replication_factor,
        partitions,
        configs,
    }
}

impl TopicCreation {
    /// Whether the connector asks for topic creation: both default settings present.
    pub fn requested(config: &ConfigMap) -> bool {
        config.contains_key("topic.creation.default.replication.factor")
            && config.contains_key("topic.creation.default.partitions")
    }

    /// The rules of a source connector's config; `None` when topic creation is off for it.
    /// Errors are `(key, message)` pairs, as validation reports them.
    pub fn from_config(
        worker_enabled: bool,
        config: &ConfigMap,
    ) -> Result<Option<Self>, Vec<(String, String)>> {
        if !worker_enabled || !Self::requested(config) {
            return Ok(None);
        }
        let mut errors = Vec::new();
        let mut groups: Vec<TopicGroup> = config
            .get(TOPIC_CREATION_GROUPS)
            .map(|v| split_list(v))
            .unwrap_or_default()
            .iter()
            .filter(|g| g.as_str() != DEFAULT_GROUP)
            .map(|g| group(config, g, &mut errors))
            .collect();
        groups.push(group(config, DEFAULT_GROUP, &mut errors));
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Some(TopicCreation {
            groups,
            created: HashSet::new(),
        }))
    }

    /// The group for `topic` the first time it is seen; `None` once it was handled.
    pub fn first_use(&mut self, topic: &str) -> Option<&TopicGroup> {
        if !self.created.insert(topic.to_owned()) {
            return None;
        }
        self.groups.iter().find(|g| g.matches(topic))
    }

    /// Forgets `topic`, so the next record tries again (its creation failed).
    pub fn retry(&mut self, topic: &str) {
        self.created.remove(topic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn groups_match_in_order_and_default_takes_the_rest() {
        let mut tc = TopicCreation::from_config(
            true,
            &props(&[
                ("topic.creation.groups", "orders, logs"),
                ("topic.creation.default.replication.factor", "-1"),
                ("topic.creation.default.partitions", "6"),
                ("topic.creation.orders.include", "orders.*"),
                ("topic.creation.orders.exclude", "orders-test"),
                ("topic.creation.orders.partitions", "3"),
                ("topic.creation.orders.cleanup.policy", "compact"),
                ("topic.creation.logs.include", "logs-.*"),
            ]),
        )
        .unwrap()
        .unwrap();
        let orders = tc.first_use("orders-eu").unwrap().clone();
        assert_eq!(
            (
                orders.name.as_str(),
                orders.partitions,
                orders.replication_factor
            ),
            ("orders", 3, -1)
        );
        assert_eq!(
            orders.configs,
            vec![("cleanup.policy".to_owned(), "compact".to_owned())]
        );
        assert!(tc.first_use("orders-eu").is_none(), "once per topic");
        assert_eq!(tc.first_use("orders-test").unwrap().name, "default");
        assert_eq!(tc.first_use("logs-app").unwrap().partitions, -1);
        assert_eq!(tc.first_use("other").unwrap().partitions, 6);
    }

    #[test]
    fn off_unless_both_defaults_are_set_and_bad_counts_are_named() {
        assert!(TopicCreation::from_config(
            true,
            &props(&[("topic.creation.default.partitions", "3")])
        )
        .unwrap()
        .is_none());
        let both = props(&[
            ("topic.creation.default.replication.factor", "0"),
            ("topic.creation.default.partitions", "x"),
        ]);
        assert!(
            TopicCreation::from_config(false, &both).unwrap().is_none(),
            "the worker switched it off"
        );
        let errors = TopicCreation::from_config(true, &both).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].0 == "topic.creation.default.replication.factor"
                || errors[1].0 == "topic.creation.default.replication.factor"
        );
    }
}
