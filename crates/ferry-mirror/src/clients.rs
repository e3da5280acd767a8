//! Kafka clients of a MirrorMaker connector or task, built from its config with the prefixes
//! and roles of [`client_configs`](crate::client_configs).

use ferry_api::{ConfigMap, ConnectError};
use ferry_kafka::admin::Admin;
use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::rdkafka::ClientConfig;
use ferry_kafka::{ClientSettings, KafkaClientError};

use crate::client_configs::{
    client_config, Client, Cluster, SOURCE_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS,
    TARGET_CLUSTER_ALIAS_DEFAULT,
};
use crate::config::OFFSET_SYNCS_TOPIC_LOCATION;
use crate::replication_policy::ReplicationPolicy;

/// A librdkafka config for one client of `props`.
pub fn kafka_config(
    props: &ConfigMap,
    cluster: Cluster,
    client: Client,
    role: &str,
    task: bool,
) -> Result<ClientConfig, ConnectError> {
    let java: Vec<(String, String)> = client_config(props, cluster, client, Some(role), task)
        .into_iter()
        .collect();
    let kind = match client {
        Client::Producer => ClientRole::Producer,
        Client::Consumer => ClientRole::Consumer,
        Client::Admin => ClientRole::Admin,
    };
    ferry_kafka::client_config(kind, &ClientSettings::new().layer(java), &[])
        .map_err(|e| kafka_error(&format!("The {role} settings are not usable"), e))
}

pub fn admin(props: &ConfigMap, cluster: Cluster, role: &str) -> Result<Admin, ConnectError> {
    let config = kafka_config(props, cluster, Client::Admin, role, false)?;
    Admin::new(&config).map_err(|e| kafka_error(&format!("Could not create the {role}"), e))
}

/// The cluster of the offset-syncs topic (`offset-syncs.topic.location`) and the word Java's
/// client roles name it by.
pub fn offset_syncs_cluster(props: &ConfigMap) -> (Cluster, &'static str) {
    match props.get(OFFSET_SYNCS_TOPIC_LOCATION).map(|v| v.trim()) {
        Some(v) if v.eq_ignore_ascii_case("target") => (Cluster::Target, "target"),
        _ => (Cluster::Source, "source"),
    }
}

/// The offset-syncs topic's name: it carries the alias of the cluster it is not on (Java's
/// `MirrorSourceConfig.offsetSyncsTopic`), so each source's syncs on a shared target cluster
/// have a topic of their own.
pub fn offset_syncs_topic(props: &ConfigMap, policy: &dyn ReplicationPolicy) -> String {
    let other = match offset_syncs_cluster(props).0 {
        Cluster::Source => props
            .get(TARGET_CLUSTER_ALIAS)
            .map_or(TARGET_CLUSTER_ALIAS_DEFAULT, String::as_str),
        Cluster::Target => props.get(SOURCE_CLUSTER_ALIAS).map_or("", String::as_str),
    };
    policy.offset_syncs_topic(other)
}

pub fn kafka_error(context: &str, error: KafkaClientError) -> ConnectError {
    ConnectError::with_source(format!("{context}: {error}"), error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication_policy::DefaultReplicationPolicy;
    use crate::test_support::props;

    #[test]
    fn the_offset_syncs_topic_is_named_after_the_cluster_it_is_not_on() {
        let policy = DefaultReplicationPolicy::default();
        let on_source = props(&[("source.cluster.alias", "A"), ("target.cluster.alias", "B")]);
        assert_eq!(
            offset_syncs_topic(&on_source, &policy),
            "mm2-offset-syncs.B.internal"
        );
        let on_target = props(&[
            ("source.cluster.alias", "A"),
            ("target.cluster.alias", "B"),
            ("offset-syncs.topic.location", "target"),
        ]);
        assert_eq!(
            offset_syncs_topic(&on_target, &policy),
            "mm2-offset-syncs.A.internal"
        );
        assert_eq!(offset_syncs_cluster(&on_target).0, Cluster::Target);
        let defaults = props(&[("source.cluster.alias", "A")]);
        assert_eq!(
            offset_syncs_topic(&defaults, &policy),
            "mm2-offset-syncs.target.internal"
        );
    }
}
