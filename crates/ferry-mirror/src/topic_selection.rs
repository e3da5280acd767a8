//! Which source topics a MirrorSourceConnector replicates, as Java's `shouldReplicateTopic`:
//! those the topic filter takes (and heartbeats, unless `heartbeats.replication.enabled` is
//! off), never internal topics, and never a topic that came from the target cluster (a cycle).

use crate::replication_policy::ReplicationPolicy;
use crate::topic_filter::NameFilter;

pub struct TopicSelection<'a> {
    pub policy: &'a dyn ReplicationPolicy,
    pub filter: &'a NameFilter,
    pub heartbeats_replication_enabled: bool,
    pub target_alias: &'a str,
}

impl TopicSelection<'_> {
    pub fn replicates(&self, topic: &str) -> bool {
        (self.filter.accepts(topic)
            || (self.heartbeats_replication_enabled && self.policy.is_heartbeats_topic(topic)))
            && !self.policy.is_internal_topic(topic)
            && !self.is_cycle(topic)
    }

    /// Whether the topic passed through the target cluster on its way here.
    pub fn is_cycle(&self, topic: &str) -> bool {
        let Some(source) = self.policy.topic_source(topic) else {
            return false;
        };
        if source == self.target_alias {
            return true;
        }
        match self.policy.upstream_topic(topic) {
            // The identity policy cannot tell.
            Some(upstream) if upstream != topic => self.is_cycle(&upstream),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication_policy::{DefaultReplicationPolicy, IdentityReplicationPolicy};

    use crate::test_support::props;

    #[test]
    fn cycles_internal_topics_and_excluded_ones_are_not_replicated() {
        let policy = DefaultReplicationPolicy::default();
        let filter = NameFilter::topics(&props(&[("topics", "orders.*, C.*")])).unwrap();
        let selection = TopicSelection {
            policy: &policy,
            filter: &filter,
            heartbeats_replication_enabled: true,
            target_alias: "B",
        };
        assert!(selection.replicates("orders"));
        assert!(!selection.replicates("payments"), "not in topics");
        assert!(
            selection.replicates("heartbeats"),
            "heartbeats replicate regardless"
        );
        assert!(selection.replicates("C.heartbeats"));
        assert!(
            !selection.replicates("B.orders"),
            "from the target: a cycle"
        );
        assert!(
            !selection.replicates("C.B.orders"),
            "through the target: a cycle"
        );
        assert!(selection.replicates("C.orders"));
        assert!(!selection.replicates("mm2-offset-syncs.B.internal"));

        let no_heartbeats = TopicSelection {
            heartbeats_replication_enabled: false,
            ..selection
        };
        assert!(!no_heartbeats.replicates("heartbeats"));
    }

    #[test]
    fn the_identity_policy_sees_no_cycles() {
        let policy =
            IdentityReplicationPolicy::configured(&props(&[("source.cluster.alias", "A")]));
        let filter = NameFilter::topics(&props(&[])).unwrap();
        let selection = TopicSelection {
            policy: &policy,
            filter: &filter,
            heartbeats_replication_enabled: true,
            target_alias: "B",
        };
        assert!(selection.replicates("orders"));
        assert!(!selection.is_cycle("orders"));
        assert!(
            selection.is_cycle("B.heartbeats"),
            "heartbeats keep their prefix"
        );
    }
}
