//! Which configs of a source topic its remote topic gets, as Java's
//! `MirrorSourceConnector.targetConfig`: never read-only, sensitive or static broker settings,
//! nor those `config.properties.exclude` names; a source default only when the property filter
//! replicates source defaults. At creation only the kept values are set; a later sync also
//! takes back to the target's default what the source left at its default.
//!
//! Java syncs with IncrementalAlterConfigs (SET the kept values, DELETE the defaults); librdkafka's
//! client offers only AlterConfigs, which replaces a topic's whole config, so the sync keeps
//! the remote topic's own values of every property it does not replicate.

use ferry_kafka::admin::TopicConfigEntry;

use crate::topic_filter::ConfigPropertyFilter;

fn replicable(entry: &TopicConfigEntry, filter: &ConfigPropertyFilter) -> bool {
    !entry.read_only
        && !entry.sensitive
        && !entry.static_broker
        && filter.should_replicate(&entry.name)
}

/// The configs a new remote topic is created with.
pub fn for_new_topic(
    source: &[TopicConfigEntry],
    filter: &ConfigPropertyFilter,
) -> Vec<(String, String)> {
    source
        .iter()
        .filter(|e| replicable(e, filter))
        .filter(|e| !e.is_default || filter.replicates_source_default(&e.name))
        .filter_map(|e| Some((e.name.clone(), e.value.clone()?)))
        .collect()
}

/// The whole set of topic-level configs the remote topic should have after a sync, or `None`
/// when it has them already.
pub fn synced(
    source: &[TopicConfigEntry],
    target: &[TopicConfigEntry],
    filter: &ConfigPropertyFilter,
) -> Option<Vec<(String, String)>> {
    let replicated: std::collections::HashSet<&str> = source
        .iter()
        .filter(|e| replicable(e, filter))
        .map(|e| e.name.as_str())
        .collect();
    let mut wanted: Vec<(String, String)> = for_new_topic(source, filter);
    wanted.extend(
        target
            .iter()
            .filter(|e| e.dynamic_topic && !replicated.contains(e.name.as_str()))
            .filter_map(|e| Some((e.name.clone(), e.value.clone()?))),
    );
    wanted.sort();
    let mut current: Vec<(String, String)> = target
        .iter()
        .filter(|e| e.dynamic_topic)
        .filter_map(|e| Some((e.name.clone(), e.value.clone()?)))
        .collect();
    current.sort();
    (wanted != current).then_some(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::props;

    fn entry(name: &str, value: &str, default: bool) -> TopicConfigEntry {
        TopicConfigEntry {
            name: name.into(),
            value: Some(value.into()),
            is_default: default,
            read_only: false,
            sensitive: false,
            static_broker: false,
            dynamic_topic: !default,
        }
    }

    #[test]
    fn a_new_remote_topic_gets_the_source_s_own_values_but_not_excluded_or_locked_ones() {
        let filter = ConfigPropertyFilter::new(&props(&[])).unwrap();
        let mut read_only = entry("segment.bytes", "1024", false);
        read_only.read_only = true;
        let mut sensitive = entry("secret", "x", false);
        sensitive.sensitive = true;
        let mut static_broker = entry("max.message.bytes", "5", false);
        static_broker.static_broker = true;
        let source = vec![
            entry("retention.ms", "1000", false),
            entry("cleanup.policy", "delete", true),
            entry("min.insync.replicas", "2", false),
            read_only,
            sensitive,
            static_broker,
        ];
        assert_eq!(
            for_new_topic(&source, &filter),
            vec![("retention.ms".to_owned(), "1000".to_owned())]
        );
        let from_source =
            ConfigPropertyFilter::new(&props(&[("use.defaults.from", "source")])).unwrap();
        assert_eq!(
            for_new_topic(&source, &from_source),
            vec![
                ("retention.ms".to_owned(), "1000".to_owned()),
                ("cleanup.policy".to_owned(), "delete".to_owned())
            ]
        );
    }

    #[test]
    fn a_sync_sets_changed_values_drops_source_defaults_and_keeps_the_target_s_excluded_ones() {
        let filter = ConfigPropertyFilter::new(&props(&[])).unwrap();
        let source = vec![
            entry("retention.ms", "2000", false),
            entry("segment.ms", "100", true),
            entry("min.insync.replicas", "1", true),
        ];
        let target = vec![
            entry("retention.ms", "1000", false),
            entry("segment.ms", "555", false),
            entry("min.insync.replicas", "2", false),
        ];
        assert_eq!(
            synced(&source, &target, &filter),
            Some(vec![
                ("min.insync.replicas".to_owned(), "2".to_owned()),
                ("retention.ms".to_owned(), "2000".to_owned()),
            ])
        );
        let in_sync = vec![
            entry("retention.ms", "2000", false),
            entry("segment.ms", "604800000", true),
            entry("min.insync.replicas", "2", false),
        ];
        assert_eq!(synced(&source, &in_sync, &filter), None);
    }
}
