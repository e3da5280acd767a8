//! How MirrorMaker names remote topics and recognises its own: Java's `ReplicationPolicy`,
//! `DefaultReplicationPolicy` (`<source>.<topic>`) and `IdentityReplicationPolicy` (names kept),
//! configured by the same keys.

use ferry_api::ConfigMap;

pub const REPLICATION_POLICY_CLASS: &str = "replication.policy.class";
pub const SEPARATOR: &str = "replication.policy.separator";
pub const SEPARATOR_DEFAULT: &str = ".";
pub const INTERNAL_TOPIC_SEPARATOR_ENABLED: &str =
    "replication.policy.internal.topic.separator.enabled";
pub const SOURCE_CLUSTER_ALIAS: &str = "source.cluster.alias";
pub const DEFAULT_POLICY_CLASS: &str = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy";
pub const IDENTITY_POLICY_CLASS: &str = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PolicyError {
    #[error("Invalid value {0} for configuration replication.policy.class: Class {0} could not be found (Ferry's MirrorMaker knows DefaultReplicationPolicy and IdentityReplicationPolicy)")]
    UnknownClass(String),
}

/// Java's `ReplicationPolicy` with its default methods.
pub trait ReplicationPolicy: Send + Sync {
    /// The name `topic` of cluster `source_alias` gets downstream.
    fn format_remote_topic(&self, source_alias: &str, topic: &str) -> String;

    /// The cluster a remote topic came from; `None` for a topic that is not remote.
    fn topic_source(&self, topic: &str) -> Option<String>;

    /// The name of a remote topic one hop upstream; `None` for a topic that is not remote.
    fn upstream_topic(&self, topic: &str) -> Option<String>;

    /// The topic's name where it was first produced, through every hop.
    fn original_topic(&self, topic: &str) -> String {
        match self.upstream_topic(topic) {
            Some(upstream) if upstream != topic => self.original_topic(&upstream),
            _ => topic.to_owned(),
        }
    }

    fn heartbeats_topic(&self) -> String {
        "heartbeats".to_owned()
    }

    fn offset_syncs_topic(&self, cluster_alias: &str) -> String {
        format!("mm2-offset-syncs.{cluster_alias}.internal")
    }

    fn checkpoints_topic(&self, cluster_alias: &str) -> String {
        format!("{cluster_alias}.checkpoints.internal")
    }

    fn is_heartbeats_topic(&self, topic: &str) -> bool {
        self.heartbeats_topic() == self.original_topic(topic)
    }

    fn is_checkpoints_topic(&self, topic: &str) -> bool {
        topic.ends_with(".checkpoints.internal")
    }

    /// MirrorMaker's own topics, never replicated (KAFKA-17200: user topics named
    /// `*.internal` may be).
    fn is_mm2_internal_topic(&self, topic: &str) -> bool {
        topic.starts_with("mm2") && topic.ends_with(".internal") || self.is_checkpoints_topic(topic)
    }

    fn is_internal_topic(&self, topic: &str) -> bool {
        self.is_mm2_internal_topic(topic) || topic.starts_with("__") || topic.starts_with('.')
    }
}

/// `<source><separator><topic>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultReplicationPolicy {
    separator: String,
    internal_topic_separator_enabled: bool,
}

impl Default for DefaultReplicationPolicy {
    fn default() -> Self {
        DefaultReplicationPolicy {
            separator: SEPARATOR_DEFAULT.to_owned(),
            internal_topic_separator_enabled: true,
        }
    }
}

impl DefaultReplicationPolicy {
    /// As Java's `configure`: the internal-topic flag is read only when a separator is set.
    pub fn configured(props: &ConfigMap) -> Self {
        let mut policy = DefaultReplicationPolicy::default();
        if let Some(separator) = props.get(SEPARATOR) {
            policy.separator = separator.clone();
            if let Some(enabled) = props.get(INTERNAL_TOPIC_SEPARATOR_ENABLED) {
                // Java's Boolean.parseBoolean: anything but "true" (any case) is false.
                policy.internal_topic_separator_enabled = enabled.eq_ignore_ascii_case("true");
            }
        }
        policy
    }

    fn internal_separator(&self) -> &str {
        if self.internal_topic_separator_enabled {
            &self.separator
        } else {
            "."
        }
    }

    fn internal_suffix(&self) -> String {
        format!("{}internal", self.internal_separator())
    }

    fn checkpoints_topic_suffix(&self) -> String {
        format!(
            "{}checkpoints{}",
            self.internal_separator(),
            self.internal_suffix()
        )
    }

    /// Java's `Pattern.quote(separator).split(topic)`: a leading empty part is kept, trailing
    /// empty parts are dropped.
    fn split<'a>(&self, topic: &'a str) -> Vec<&'a str> {
        if self.separator.is_empty() {
            return vec![topic];
        }
        let mut parts: Vec<&str> = topic.split(self.separator.as_str()).collect();
        while parts.len() > 1 && parts.last() == Some(&"") {
            parts.pop();
        }
        if parts == [""] {
            parts.clear();
        }
        parts
    }
}

impl ReplicationPolicy for DefaultReplicationPolicy {
    fn format_remote_topic(&self, source_alias: &str, topic: &str) -> String {
        format!("{source_alias}{}{topic}", self.separator)
    }

    fn topic_source(&self, topic: &str) -> Option<String> {
        let parts = self.split(topic);
        (parts.len() >= 2).then(|| parts[0].to_owned())
    }

    fn upstream_topic(&self, topic: &str) -> Option<String> {
        let source = self.topic_source(topic)?;
        Some(topic[source.len() + self.separator.len()..].to_owned())
    }

    fn offset_syncs_topic(&self, cluster_alias: &str) -> String {
        format!(
            "mm2-offset-syncs{}{cluster_alias}{}",
            self.internal_separator(),
            self.internal_suffix()
        )
    }

    fn checkpoints_topic(&self, cluster_alias: &str) -> String {
        format!("{cluster_alias}{}", self.checkpoints_topic_suffix())
    }

    fn is_checkpoints_topic(&self, topic: &str) -> bool {
        topic.ends_with(&self.checkpoints_topic_suffix())
    }

    fn is_mm2_internal_topic(&self, topic: &str) -> bool {
        topic.starts_with("mm2") && topic.ends_with(&self.internal_suffix())
            || self.is_checkpoints_topic(topic)
    }
}

/// Remote topics keep their names (only heartbeats are prefixed, so cycles stay visible there).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdentityReplicationPolicy {
    base: DefaultReplicationPolicy,
    source_cluster_alias: Option<String>,
}

impl IdentityReplicationPolicy {
    pub fn configured(props: &ConfigMap) -> Self {
        IdentityReplicationPolicy {
            base: DefaultReplicationPolicy::configured(props),
            source_cluster_alias: props.get(SOURCE_CLUSTER_ALIAS).cloned(),
        }
    }

    /// Java's plain suffix test.
    fn looks_like_heartbeat(&self, topic: &str) -> bool {
        topic.ends_with(&self.heartbeats_topic())
    }
}

impl ReplicationPolicy for IdentityReplicationPolicy {
    fn format_remote_topic(&self, source_alias: &str, topic: &str) -> String {
        if self.looks_like_heartbeat(topic) {
            self.base.format_remote_topic(source_alias, topic)
        } else {
            topic.to_owned()
        }
    }

    fn topic_source(&self, topic: &str) -> Option<String> {
        if self.looks_like_heartbeat(topic) {
            self.base.topic_source(topic)
        } else {
            self.source_cluster_alias.clone()
        }
    }

    fn upstream_topic(&self, topic: &str) -> Option<String> {
        if self.looks_like_heartbeat(topic) {
            self.base.upstream_topic(topic)
        } else {
            Some(topic.to_owned())
        }
    }

    fn offset_syncs_topic(&self, cluster_alias: &str) -> String {
        self.base.offset_syncs_topic(cluster_alias)
    }

    fn checkpoints_topic(&self, cluster_alias: &str) -> String {
        self.base.checkpoints_topic(cluster_alias)
    }

    fn is_checkpoints_topic(&self, topic: &str) -> bool {
        self.base.is_checkpoints_topic(topic)
    }

    fn is_mm2_internal_topic(&self, topic: &str) -> bool {
        self.base.is_mm2_internal_topic(topic)
    }
}

/// The policy a connector's config names (`replication.policy.class`, Java's class names and
/// simple names), configured with the connector's properties as Java configures it.
pub fn from_config(props: &ConfigMap) -> Result<Box<dyn ReplicationPolicy>, PolicyError> {
    let class = props
        .get(REPLICATION_POLICY_CLASS)
        .map(|c| c.trim())
        .unwrap_or(DEFAULT_POLICY_CLASS);
    match class {
        DEFAULT_POLICY_CLASS | "DefaultReplicationPolicy" => {
            Ok(Box::new(DefaultReplicationPolicy::configured(props)))
        }
        IDENTITY_POLICY_CLASS | "IdentityReplicationPolicy" => {
            Ok(Box::new(IdentityReplicationPolicy::configured(props)))
        }
        other => Err(PolicyError::UnknownClass(other.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::props;

    /// topic, topicSource, upstreamTopic, originalTopic, then four flags.
    type DefaultRow = (
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        &'static str,
        bool,
        bool,
        bool,
        bool,
    );
    /// topic, topicSource, upstreamTopic, formatRemoteTopic, isHeartbeatsTopic.
    type IdentityRow = (
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        &'static str,
        bool,
    );

    /// Each row as Java's DefaultReplicationPolicy of Kafka 4.3.1 answered it (jshell):
    /// topic, topicSource, upstreamTopic, originalTopic, isInternalTopic, isMM2InternalTopic,
    /// isHeartbeatsTopic, isCheckpointsTopic.
    #[test]
    fn the_default_policy_answers_as_java_s() {
        #[rustfmt::skip]
        let rows: &[DefaultRow] = &[
            ("a.b", Some("a"), Some("b"), "b", false, false, false, false),
            ("a.b.c", Some("a"), Some("b.c"), "c", false, false, false, false),
            ("topic", None, None, "topic", false, false, false, false),
            ("a.", None, None, "a.", false, false, false, false),
            ("a..", None, None, "a..", false, false, false, false),
            (".hidden", Some(""), Some("hidden"), "hidden", true, false, false, false),
            ("a..b", Some("a"), Some(".b"), "b", false, false, false, false),
            (".", None, None, ".", true, false, false, false),
            ("", None, None, "", false, false, false, false),
            ("__consumer_offsets", None, None, "__consumer_offsets", true, false, false, false),
            ("mm2-offsets.A.internal", Some("mm2-offsets"), Some("A.internal"), "internal", true, true, false, false),
            ("mm2-offsets-A-internal", None, None, "mm2-offsets-A-internal", false, false, false, false),
            ("x-internal", None, None, "x-internal", false, false, false, false),
            ("B.checkpoints.internal", Some("B"), Some("checkpoints.internal"), "internal", true, true, false, true),
            ("heartbeats", None, None, "heartbeats", false, false, true, false),
            ("A.heartbeats", Some("A"), Some("heartbeats"), "heartbeats", false, false, true, false),
            ("B.A.heartbeats", Some("B"), Some("A.heartbeats"), "heartbeats", false, false, true, false),
            ("A.heartbeats!", Some("A"), Some("heartbeats!"), "heartbeats!", false, false, false, false),
        ];
        let p = DefaultReplicationPolicy::default();
        for &(topic, source, upstream, original, internal, mm2, heartbeats, checkpoints) in rows {
            assert_eq!(
                p.topic_source(topic).as_deref(),
                source,
                "topicSource({topic})"
            );
            assert_eq!(
                p.upstream_topic(topic).as_deref(),
                upstream,
                "upstreamTopic({topic})"
            );
            assert_eq!(p.original_topic(topic), original, "originalTopic({topic})");
            assert_eq!(
                p.is_internal_topic(topic),
                internal,
                "isInternalTopic({topic})"
            );
            assert_eq!(
                p.is_mm2_internal_topic(topic),
                mm2,
                "isMM2InternalTopic({topic})"
            );
            assert_eq!(
                p.is_heartbeats_topic(topic),
                heartbeats,
                "isHeartbeatsTopic({topic})"
            );
            assert_eq!(
                p.is_checkpoints_topic(topic),
                checkpoints,
                "isCheckpointsTopic({topic})"
            );
        }
        assert_eq!(p.format_remote_topic("A", "t"), "A.t");
        assert_eq!(p.offset_syncs_topic("B"), "mm2-offset-syncs.B.internal");
        assert_eq!(p.checkpoints_topic("A"), "A.checkpoints.internal");
        assert_eq!(p.heartbeats_topic(), "heartbeats");
    }

    #[test]
    fn a_separator_names_internal_topics_only_when_the_flag_says_so() {
        let enabled = DefaultReplicationPolicy::configured(&props(&[
            (SEPARATOR, "__"),
            (INTERNAL_TOPIC_SEPARATOR_ENABLED, "true"),
        ]));
        assert_eq!(
            enabled.offset_syncs_topic("C"),
            "mm2-offset-syncs__C__internal"
        );
        assert_eq!(enabled.checkpoints_topic("C"), "C__checkpoints__internal");
        assert_eq!(enabled.format_remote_topic("A", "t"), "A__t");
        // Java's split is left to right and non-overlapping.
        assert_eq!(enabled.topic_source("a___b").as_deref(), Some("a"));
        assert_eq!(enabled.upstream_topic("a___b").as_deref(), Some("_b"));
        assert!(enabled.is_checkpoints_topic("C__checkpoints__internal"));
        assert!(enabled.is_mm2_internal_topic("mm2-offset-syncs__C__internal"));

        let disabled = DefaultReplicationPolicy::configured(&props(&[
            (SEPARATOR, "__"),
            (INTERNAL_TOPIC_SEPARATOR_ENABLED, "false"),
        ]));
        assert_eq!(
            disabled.offset_syncs_topic("C"),
            "mm2-offset-syncs.C.internal"
        );
        assert_eq!(disabled.checkpoints_topic("C"), "C.checkpoints.internal");
        assert!(disabled.is_checkpoints_topic("C.checkpoints.internal"));

        // Without a separator, the flag is not read at all (Java's configure).
        let ignored = DefaultReplicationPolicy::configured(&props(&[(
            INTERNAL_TOPIC_SEPARATOR_ENABLED,
            "false",
        )]));
        assert_eq!(ignored, DefaultReplicationPolicy::default());
    }

    #[test]
    fn the_identity_policy_answers_as_java_s() {
        let p = IdentityReplicationPolicy::configured(&props(&[(SOURCE_CLUSTER_ALIAS, "primary")]));
        // topic, topicSource, upstreamTopic, formatRemoteTopic("primary", topic), isHeartbeatsTopic
        #[rustfmt::skip]
        let rows: &[IdentityRow] = &[
            ("topic1", Some("primary"), Some("topic1"), "topic1", false),
            ("backup.heartbeats", Some("backup"), Some("heartbeats"), "primary.backup.heartbeats", true),
            ("heartbeats", None, None, "primary.heartbeats", true),
            ("xheartbeats", None, None, "primary.xheartbeats", false),
        ];
        for &(topic, source, upstream, remote, heartbeats) in rows {
            assert_eq!(
                p.topic_source(topic).as_deref(),
                source,
                "topicSource({topic})"
            );
            assert_eq!(
                p.upstream_topic(topic).as_deref(),
                upstream,
                "upstreamTopic({topic})"
            );
            assert_eq!(
                p.format_remote_topic("primary", topic),
                remote,
                "formatRemoteTopic({topic})"
            );
            assert_eq!(
                p.is_heartbeats_topic(topic),
                heartbeats,
                "isHeartbeatsTopic({topic})"
            );
        }
        assert_eq!(p.original_topic("topic1"), "topic1");
    }

    #[test]
    fn the_class_is_chosen_by_java_s_names() {
        let identity = from_config(&props(&[
            (REPLICATION_POLICY_CLASS, IDENTITY_POLICY_CLASS),
            (SOURCE_CLUSTER_ALIAS, "A"),
        ]))
        .unwrap();
        assert_eq!(identity.format_remote_topic("A", "t"), "t");
        let default = from_config(&props(&[])).unwrap();
        assert_eq!(default.format_remote_topic("A", "t"), "A.t");
        let unknown = from_config(&props(&[(REPLICATION_POLICY_CLASS, "com.example.Mine")]));
        assert!(matches!(unknown, Err(PolicyError::UnknownClass(c)) if c == "com.example.Mine"));
    }
}
