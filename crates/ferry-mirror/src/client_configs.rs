//! The Kafka client settings each MirrorMaker client gets from a connector's config, as Java's
//! `MirrorConnectorConfig` derives them: the cluster's connection settings from
//! `source.cluster.`/`target.cluster.` (only the client keys: bootstrap, security, SSL, SASL),
//! then `producer.`/`consumer.`/`admin.`, then `source.consumer.`, `target.producer.` and the
//! like, later ones winning; consumers never auto-commit and start from the earliest offset
//! unless told otherwise; `client.id` names the flow, the connector and the client's role.

use ferry_api::ConfigMap;

pub const SOURCE_CLUSTER_ALIAS: &str = "source.cluster.alias";
pub const TARGET_CLUSTER_ALIAS: &str = "target.cluster.alias";
pub const TARGET_CLUSTER_ALIAS_DEFAULT: &str = "target";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cluster {
    Source,
    Target,
}

impl Cluster {
    fn prefix(self) -> &'static str {
        match self {
            Cluster::Source => "source",
            Cluster::Target => "target",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    Producer,
    Consumer,
    Admin,
}

impl Client {
    fn prefix(self) -> &'static str {
        match self {
            Client::Producer => "producer",
            Client::Consumer => "consumer",
            Client::Admin => "admin",
        }
    }
}

/// The keys of Java's `MirrorClientConfig.CLIENT_CONFIG_DEF`: the connection, with its SSL and
/// SASL settings.
fn is_client_connection_key(key: &str) -> bool {
    key == "bootstrap.servers"
        || key == "security.protocol"
        || key.starts_with("ssl.")
        || key.starts_with("sasl.")
}

fn with_prefix<'a>(
    props: &'a ConfigMap,
    prefix: &'a str,
) -> impl Iterator<Item = (String, String)> + 'a {
    props.iter().filter_map(move |(k, v)| {
        k.strip_prefix(prefix)
            .filter(|rest| !rest.is_empty())
            .map(|rest| (rest.to_owned(), v.clone()))
    })
}

/// `<source>-><target>|<connector name>`, and for a task `-<task.index>` (`-?` when unset).
pub fn entity_label(props: &ConfigMap, task: bool) -> String {
    let source = props.get(SOURCE_CLUSTER_ALIAS).map_or("", String::as_str);
    let target = props
        .get(TARGET_CLUSTER_ALIAS)
        .map_or(TARGET_CLUSTER_ALIAS_DEFAULT, String::as_str);
    let name = props.get("name").map_or("", String::as_str);
    let mut label = format!("{source}->{target}|{name}");
    if task {
        let index = props
            .get(crate::task_assignment::TASK_INDEX)
            .map_or("?", String::as_str);
        label.push('-');
        label.push_str(index);
    }
    label
}

/// The settings of one client of a connector (or, with `task`, of one of its tasks).
pub fn client_config(
    props: &ConfigMap,
    cluster: Cluster,
    client: Client,
    role: Option<&str>,
    task: bool,
) -> ConfigMap {
    let cluster_prefix = format!("{}.cluster.", cluster.prefix());
    let client_prefix = format!("{}.", client.prefix());
    let cluster_client_prefix = format!("{}.{}.", cluster.prefix(), client.prefix());
    let mut config: ConfigMap = with_prefix(props, &cluster_prefix)
        .filter(|(k, _)| is_client_connection_key(k))
        .collect();
    config.extend(with_prefix(props, &client_prefix));
    config.extend(with_prefix(props, &cluster_client_prefix));
    if client == Client::Consumer {
        config.insert("enable.auto.commit".to_owned(), "false".to_owned());
        config
            .entry("auto.offset.reset".to_owned())
            .or_insert_with(|| "earliest".to_owned());
    }
    let mut client_id = config
        .get("client.id")
        .map(|user| format!("{user}|"))
        .unwrap_or_default();
    client_id.push_str(&entity_label(props, task));
    if let Some(role) = role {
        client_id.push('|');
        client_id.push_str(role);
    }
    config.insert("client.id".to_owned(), client_id);
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::props;

    #[test]
    fn a_source_consumer_takes_the_cluster_s_connection_and_the_consumer_overrides() {
        let connector = props(&[
            ("name", "ConnectorName"),
            (SOURCE_CLUSTER_ALIAS, "source1"),
            (TARGET_CLUSTER_ALIAS, "target2"),
            ("source.cluster.bootstrap.servers", "a:9092"),
            ("source.cluster.security.protocol", "SASL_SSL"),
            ("source.cluster.sasl.mechanism", "PLAIN"),
            ("source.cluster.linger.ms", "5"),
            ("target.cluster.bootstrap.servers", "b:9092"),
            ("consumer.max.poll.records", "100"),
            ("source.consumer.max.poll.records", "200"),
            ("source.consumer.auto.offset.reset", "latest"),
            ("consumer.enable.auto.commit", "true"),
        ]);
        let c = client_config(
            &connector,
            Cluster::Source,
            Client::Consumer,
            Some("test"),
            false,
        );
        assert_eq!(c["bootstrap.servers"], "a:9092");
        assert_eq!(c["security.protocol"], "SASL_SSL");
        assert_eq!(c["sasl.mechanism"], "PLAIN");
        assert!(
            !c.contains_key("linger.ms"),
            "only connection keys come from source.cluster."
        );
        assert_eq!(
            c["max.poll.records"], "200",
            "source.consumer. wins over consumer."
        );
        assert_eq!(c["auto.offset.reset"], "latest", "kept when given");
        assert_eq!(c["enable.auto.commit"], "false", "always off");
        assert_eq!(c["client.id"], "source1->target2|ConnectorName|test");
    }

    #[test]
    fn a_target_producer_of_a_task_names_its_task_and_keeps_the_user_s_client_id() {
        let connector = props(&[
            ("name", "mirror"),
            (SOURCE_CLUSTER_ALIAS, "A"),
            ("target.cluster.bootstrap.servers", "b:9092"),
            ("target.producer.client.id", "mine"),
            ("task.index", "3"),
        ]);
        let p = client_config(&connector, Cluster::Target, Client::Producer, None, true);
        assert_eq!(p["bootstrap.servers"], "b:9092");
        assert_eq!(p["client.id"], "mine|A->target|mirror-3");
        assert!(!p.contains_key("auto.offset.reset"));
        let consumer = client_config(&connector, Cluster::Source, Client::Consumer, None, false);
        assert_eq!(consumer["auto.offset.reset"], "earliest");
        assert!(!consumer.contains_key("bootstrap.servers"));
    }
}
