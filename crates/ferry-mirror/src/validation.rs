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

/// `reports` with the policy's and, for a source connector (`topics`) or else a checkpoint
/// connector's groups, the filters' errors on their keys.
pub fn with_policy_and_filters(
    mut reports: Vec<KeyReport>,
    props: &ConfigMap,
    topics: bool,
) -> Vec<KeyReport> {
    if let Err(error) = from_config(props) {
        add_error(&mut reports, REPLICATION_POLICY_CLASS, error.to_string());
    }
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
