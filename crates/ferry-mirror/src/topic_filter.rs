//! Which topics, groups and topic configs are replicated: Java's `DefaultTopicFilter`,
//! `DefaultGroupFilter` and `DefaultConfigPropertyFilter`. Lists of regular expressions, each
//! matched against the whole name; an exclude wins over an include, and an empty include list
//! matches nothing.

use ferry_api::ConfigMap;

use regex::Regex;

pub const TOPICS: &str = "topics";
pub const TOPICS_DEFAULT: &str = ".*";
pub const TOPICS_EXCLUDE: &str = "topics.exclude";
/// Kafka 4.x's default (3.x excluded every `.*[\-\.]internal`; 4.x only MirrorMaker's own
/// `mm2…internal` topics: its other internal topics are left out by the replication policy).
pub const TOPICS_EXCLUDE_DEFAULT: &str = r"mm2.*\.internal,.*\.replica,__.*";
pub const GROUPS: &str = "groups";
pub const GROUPS_DEFAULT: &str = ".*";
pub const GROUPS_EXCLUDE: &str = "groups.exclude";
pub const GROUPS_EXCLUDE_DEFAULT: &str = "console-consumer-.*,connect-.*,__.*";
pub const CONFIG_PROPERTIES_EXCLUDE: &str = "config.properties.exclude";
/// Kafka 4.3's default (the names unescaped, so their dots match any character, as Java's do).
pub const CONFIG_PROPERTIES_EXCLUDE_DEFAULT: &str = "follower.replication.throttled.replicas,leader.replication.throttled.replicas,message.timestamp.difference.max.ms,log.message.timestamp.before.max.ms,log.message.timestamp.after.max.ms,message.timestamp.type,unclean.leader.election.enable,min.insync.replicas";

#[derive(Debug, thiserror::Error)]
#[error("Invalid value {value} for configuration {key}: {reason}")]
pub struct FilterError {
    pub key: &'static str,
    pub value: String,
    pub reason: String,
}

/// Java's `ConfigDef` list parsing, then `String.join("|")` and `Pattern.compile`; `None` for
/// an empty list.
fn pattern(
    props: &ConfigMap,
    key: &'static str,
    default: &str,
) -> Result<Option<Regex>, FilterError> {
    let value = props.get(key).map_or(default, String::as_str);
    let items: Vec<&str> = value
        .trim()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{})$", items.join("|")))
        .map(Some)
        .map_err(|e| FilterError {
            key,
            value: value.to_owned(),
            reason: e.to_string(),
        })
}

/// An include and an exclude list.
#[derive(Debug, Clone)]
pub struct NameFilter {
    include: Option<Regex>,
    exclude: Option<Regex>,
}

impl NameFilter {
    pub fn accepts(&self, name: &str) -> bool {
        self.include.as_ref().is_some_and(|r| r.is_match(name))
            && !self.exclude.as_ref().is_some_and(|r| r.is_match(name))
    }

    /// `topics` and `topics.exclude`.
    pub fn topics(props: &ConfigMap) -> Result<Self, FilterError> {
        Ok(NameFilter {
            include: pattern(props, TOPICS, TOPICS_DEFAULT)?,
            exclude: pattern(props, TOPICS_EXCLUDE, TOPICS_EXCLUDE_DEFAULT)?,
        })
    }

    /// `groups` and `groups.exclude`.
    pub fn groups(props: &ConfigMap) -> Result<Self, FilterError> {
        Ok(NameFilter {
            include: pattern(props, GROUPS, GROUPS_DEFAULT)?,
            exclude: pattern(props, GROUPS_EXCLUDE, GROUPS_EXCLUDE_DEFAULT)?,
        })
    }
}

/// Topic config properties that are not replicated (`config.properties.exclude`).
#[derive(Debug, Clone)]
pub struct ConfigPropertyFilter {
    exclude: Option<Regex>,
    source_defaults: bool,
}

/// `use.defaults.from`: whose defaults a remote topic gets, the target's (Java's default) or
/// the source's.
pub const USE_DEFAULTS_FROM: &str = "use.defaults.from";

impl ConfigPropertyFilter {
    pub fn new(props: &ConfigMap) -> Result<Self, FilterError> {
        Ok(ConfigPropertyFilter {
            exclude: pattern(
                props,
                CONFIG_PROPERTIES_EXCLUDE,
                CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
            )?,
            source_defaults: props
                .get(USE_DEFAULTS_FROM)
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("source")),
        })
    }

    /// Java's `shouldReplicateSourceDefault`: whether a source topic's default value is set
    /// on its remote topic too.
    pub fn replicates_source_default(&self, _property: &str) -> bool {
        self.source_defaults
    }

    pub fn should_replicate(&self, property: &str) -> bool {
        !self.exclude.as_ref().is_some_and(|r| r.is_match(property))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::props;

    #[test]
    fn default_topic_filter_skips_internal_and_replica_topics() {
        let f = NameFilter::topics(&props(&[])).unwrap();
        // As Kafka 4.4's DefaultTopicFilter answers (checked with jshell).
        for topic in [
            "orders",
            "A.orders",
            "heartbeats",
            "x-internal",
            "x.internal",
        ] {
            assert!(f.accepts(topic), "{topic}");
        }
        for topic in ["__consumer_offsets", "mm2-offsets.A.internal", "t.replica"] {
            assert!(!f.accepts(topic), "{topic}");
        }
    }

    #[test]
    fn includes_match_whole_names_and_excludes_win() {
        let f = NameFilter::topics(&props(&[
            (TOPICS, "orders, pay.*"),
            (TOPICS_EXCLUDE, "payroll"),
        ]))
        .unwrap();
        assert!(f.accepts("orders"));
        assert!(!f.accepts("orders2"), "a whole-name match");
        assert!(f.accepts("payments"));
        assert!(!f.accepts("payroll"));
        let none = NameFilter::topics(&props(&[(TOPICS, "")])).unwrap();
        assert!(
            !none.accepts("orders"),
            "an empty include list matches nothing"
        );
        let all = NameFilter::topics(&props(&[(TOPICS_EXCLUDE, "")])).unwrap();
        assert!(
            all.accepts("__consumer_offsets"),
            "an empty exclude list excludes nothing"
        );
    }

    #[test]
    fn default_group_filter_skips_console_and_connect_groups() {
        let f = NameFilter::groups(&props(&[])).unwrap();
        assert!(f.accepts("billing"));
        assert!(!f.accepts("console-consumer-123"));
        assert!(!f.accepts("connect-my-sink"));
    }

    #[test]
    fn topic_configs_that_do_not_travel_are_filtered() {
        let f = ConfigPropertyFilter::new(&props(&[])).unwrap();
        assert!(f.should_replicate("retention.ms"));
        assert!(f.should_replicate("cleanup.policy"));
        assert!(!f.should_replicate("min.insync.replicas"));
        assert!(!f.should_replicate("message.timestamp.type"));
    }

    #[test]
    fn a_bad_pattern_names_its_key() {
        let error = NameFilter::topics(&props(&[(TOPICS, "(")])).unwrap_err();
        assert_eq!(error.key, TOPICS);
    }
}
