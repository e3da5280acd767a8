//! What MirrorMaker's connectors add to the validation of their keys: a replication policy
//! class Ferry has, and topic, group and property lists that compile as patterns (Java's
//! connectors would fail at start on either).

use ferry_api::config::KeyReport;
use ferry_api::ConfigMap;

use crate::replication_policy::{from_config, REPLICATION_POLICY_CLASS};
use crate::topic_filter::{ConfigPropertyFilter, FilterError, NameFilter};

fn add_error(reports: &mut [KeyReport], key: &str, message: String) {
    if let Some(report) = reports.iter_mut().find(|r| r.name == key) {
        report.errors.push(message);
    }
}

/// The plugin classes MirrorMaker's connectors take, with the one Ferry has of each: Kafka's.
const PLUGGABLE_CLASSES: [(&str, &str); 4] = [
    (
        "topic.filter.class",
        "org.apache.kafka.connect.mirror.DefaultTopicFilter",
    ),
    (
        "group.filter.class",
        "org.apache.kafka.connect.mirror.DefaultGroupFilter",
    ),
    (
        "config.property.filter.class",
        "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter",
    ),
    (
        "forwarding.admin.class",
        "org.apache.kafka.clients.admin.ForwardingAdmin",
    ),
];

/// A plugin class other than Kafka's default, which Ferry's connectors cannot load: the key
/// and why.
pub fn unsupported_classes(props: &ConfigMap) -> Vec<(&'static str, String)> {
    PLUGGABLE_CLASSES
        .iter()
        .filter_map(|(key, default)| {
            let value = props.get(*key)?.trim();
            (value != *default).then(|| {
                (
                    *key,
                    format!(
                        "Invalid value {value} for configuration {key}: Ferry's MirrorMaker \
                         connectors run only {default}; run Kafka's connectors with \
                         ferry.plugin.preference=plugin.path for other classes"
                    ),
                )
            })
        })
        .collect()
}

/// The first unsupported plugin class, as the error a connector's start fails with.
pub fn check_classes(props: &ConfigMap) -> Result<(), ferry_api::ConnectError> {
    match unsupported_classes(props).into_iter().next() {
        Some((_, message)) => Err(ferry_api::ConnectError::other(message)),
        None => Ok(()),
    }
}

/// `reports` with the replication policy's and the plugin classes' errors on their keys.
pub fn with_policy(mut reports: Vec<KeyReport>, props: &ConfigMap) -> Vec<KeyReport> {
    if let Err(error) = from_config(props) {
        add_error(&mut reports, REPLICATION_POLICY_CLASS, error.to_string());
    }
    for (key, message) in unsupported_classes(props) {
        add_error(&mut reports, key, message);
    }
    reports
}

/// [`with_policy`], and for a source connector (`topics`) or else a checkpoint connector's
/// groups, the filters' errors on their keys.
pub fn with_policy_and_filters(
    reports: Vec<KeyReport>,
    props: &ConfigMap,
    topics: bool,
) -> Vec<KeyReport> {
    let mut reports = with_policy(reports, props);
    let filters: [Result<(), FilterError>; 2] = if topics {
        [
            NameFilter::topics(props).map(|_| ()),
            ConfigPropertyFilter::new(props).map(|_| ()),
        ]
    } else {
        [
            NameFilter::groups(props).map(|_| ()),
            NameFilter::topics(props).map(|_| ()),
        ]
    };
    for error in filters.into_iter().filter_map(Result::err) {
        add_error(&mut reports, error.key, error.to_string());
    }
    reports
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::source_config_def;
    use crate::test_support::props;

    #[test]
    fn a_plugin_class_other_than_kafka_s_is_named_in_validation_and_stops_start() {
        let custom = props(&[
            ("source.cluster.alias", "A"),
            ("topic.filter.class", "com.example.MyFilter"),
            (
                "config.property.filter.class",
                "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter",
            ),
        ]);
        let reports = with_policy_and_filters(source_config_def().validate(&custom), &custom, true);
        let errors = |key: &str| {
            reports
                .iter()
                .find(|r| r.name == key)
                .unwrap()
                .errors
                .clone()
        };
        assert_eq!(
            errors("topic.filter.class").len(),
            1,
            "{:?}",
            errors("topic.filter.class")
        );
        assert!(errors("topic.filter.class")[0].contains("com.example.MyFilter"));
        assert!(errors("config.property.filter.class").is_empty());
        assert!(check_classes(&custom).is_err());
        assert!(check_classes(&props(&[("source.cluster.alias", "A")])).is_ok());
    }
}
