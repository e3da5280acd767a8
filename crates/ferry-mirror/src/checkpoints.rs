//! What a checkpoint task decides, as Java's `MirrorCheckpointTask` does: which of a group's
//! upstream offsets become checkpoints (translated through the offset syncs, for the topic's
//! downstream name, never older than the last one unless the group rewound upstream), and which
//! translated offsets are written to the group on the target (never moving it backwards).

use std::collections::BTreeMap;

use crate::offset_sync_store::{OffsetSyncStore, Translation};
use crate::records::Checkpoint;
use crate::replication_policy::ReplicationPolicy;
use crate::topic_filter::NameFilter;

/// A source partition or its downstream twin.
pub type Partition = (String, i32);

/// A consumer group's committed offset upstream (Java's `OffsetAndMetadata`; `None` for a
/// partition listed without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    pub offset: i64,
    pub metadata: String,
}

/// The downstream name of an upstream topic: a topic that came from the target cluster gets
/// its original name back, any other the source's prefix.
pub fn rename_topic(
    policy: &dyn ReplicationPolicy,
    source_alias: &str,
    target_alias: &str,
    topic: &str,
) -> String {
    if policy.topic_source(topic).as_deref() == Some(target_alias) {
        policy.original_topic(topic)
    } else {
        policy.format_remote_topic(source_alias, topic)
    }
}

/// A new checkpoint replaces the last one when there was none, when the group rewound
/// upstream, or when it moved forward downstream.
pub fn is_more_recent(previous: Option<&Checkpoint>, new: &Checkpoint) -> bool {
    match previous {
        None => true,
        Some(last) => {
            new.upstream_offset < last.upstream_offset
                || new.downstream_offset > last.downstream_offset
        }
    }
}

/// Everything a checkpoint of a group needs.
pub struct GroupCheckpoints<'a> {
    pub policy: &'a dyn ReplicationPolicy,
    pub topics: &'a NameFilter,
    pub syncs: &'a OffsetSyncStore,
    pub source_alias: &'a str,
    pub target_alias: &'a str,
}

impl GroupCheckpoints<'_> {
    /// The checkpoints to emit for `group`, given its upstream offsets and the last checkpoint
    /// of each downstream partition.
    pub fn for_group(
        &self,
        group: &str,
        upstream: &BTreeMap<Partition, Option<Committed>>,
        last: &BTreeMap<Partition, Checkpoint>,
    ) -> Vec<Checkpoint> {
        let mut checkpoints = Vec::new();
        for ((topic, partition), committed) in upstream {
            if !self.topics.accepts(topic) {
                continue;
            }
            let Some(committed) = committed else {
                continue;
            };
            let downstream =
                match self
                    .syncs
                    .translate_downstream(topic, *partition, committed.offset)
                {
                    Translation::Downstream(offset) => offset,
                    Translation::TooOld | Translation::Unknown => continue,
                };
            let checkpoint = Checkpoint {
                group: group.to_owned(),
                topic: rename_topic(self.policy, self.source_alias, self.target_alias, topic),
                partition: *partition,
                upstream_offset: committed.offset,
                downstream_offset: downstream,
                metadata: committed.metadata.clone(),
            };
            let key = (checkpoint.topic.clone(), checkpoint.partition);
            if is_more_recent(last.get(&key), &checkpoint) {
                checkpoints.push(checkpoint);
            }
        }
        checkpoints
    }
}

/// The translated offsets to write to a group on the target. `target` is the group's
/// offsets there when it is empty (no active members); `None` when it is absent, dead or
/// active (then all are written, and the broker refuses them for an active group).
pub fn offsets_to_sync(
    checkpoints: &BTreeMap<Partition, Checkpoint>,
    target: Option<&BTreeMap<Partition, Option<i64>>>,
) -> BTreeMap<Partition, Committed> {
    checkpoints
        .iter()
        .filter(
            |(partition, checkpoint)| match target.map(|t| t.get(*partition)) {
                None | Some(None) | Some(Some(None)) => true,
                Some(Some(Some(offset))) => *offset < checkpoint.downstream_offset,
            },
        )
        .map(|(partition, checkpoint)| {
            (
                partition.clone(),
                Committed {
                    offset: checkpoint.downstream_offset,
                    metadata: checkpoint.metadata.clone(),
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication_policy::DefaultReplicationPolicy;
    use ferry_api::ConfigMap;

    fn tp(t: &str, p: i32) -> Partition {
        (t.to_owned(), p)
    }

    fn checkpoint(topic: &str, up: i64, down: i64) -> Checkpoint {
        Checkpoint {
            group: "g".into(),
            topic: topic.into(),
            partition: 0,
            upstream_offset: up,
            downstream_offset: down,
            metadata: String::new(),
        }
    }

    /// Kafka's MirrorCheckpointTaskTest.testDownstreamTopicRenaming.
    #[test]
    fn topics_are_renamed_for_the_target_as_java_s() {
        let p = DefaultReplicationPolicy::default();
        assert_eq!(
            rename_topic(&p, "source1", "target2", "topic3"),
            "source1.topic3"
        );
        assert_eq!(
            rename_topic(&p, "source1", "target2", "target2.topic3"),
            "topic3"
        );
        assert_eq!(
            rename_topic(&p, "source1", "target2", "source6.topic7"),
            "source1.source6.topic7"
        );
    }

    #[test]
    fn a_checkpoint_is_emitted_only_when_it_moves_on_or_the_group_rewound() {
        let last = checkpoint("A.t", 10, 100);
        assert!(is_more_recent(None, &last));
        assert!(
            !is_more_recent(Some(&last), &checkpoint("A.t", 10, 100)),
            "a repeat"
        );
        assert!(
            is_more_recent(Some(&last), &checkpoint("A.t", 11, 101)),
            "forward"
        );
        assert!(
            !is_more_recent(Some(&last), &checkpoint("A.t", 12, 99)),
            "a downstream rewind"
        );
        assert!(
            is_more_recent(Some(&last), &checkpoint("A.t", 5, 50)),
            "an upstream rewind"
        );
    }

    #[test]
    fn a_group_s_offsets_become_checkpoints_through_the_offset_syncs() {
        let policy = DefaultReplicationPolicy::default();
        let topics = NameFilter::topics(&ConfigMap::new()).unwrap();
        let mut syncs = OffsetSyncStore::new(false);
        syncs.initial_read_done();
        syncs.apply("t", 0, 100, 200);
        syncs.apply("u", 0, 50, 60);
        let checkpoints = GroupCheckpoints {
            policy: &policy,
            topics: &topics,
            syncs: &syncs,
            source_alias: "A",
            target_alias: "B",
        };
        let committed = |offset| {
            Some(Committed {
                offset,
                metadata: "m".into(),
            })
        };
        let upstream = BTreeMap::from([
            (tp("t", 0), committed(150)),
            (tp("u", 0), committed(10)),
            (tp("v", 0), committed(5)),
            (tp("t", 1), None),
            (tp("__consumer_offsets", 0), committed(1)),
        ]);
        let emitted = checkpoints.for_group("g", &upstream, &BTreeMap::new());
        assert_eq!(
            emitted,
            vec![Checkpoint {
                group: "g".into(),
                topic: "A.t".into(),
                partition: 0,
                upstream_offset: 150,
                downstream_offset: 201,
                metadata: "m".into(),
            }],
            "u is older than its first sync, v has no sync, t-1 no offset, internal topics no checkpoint"
        );
        let last = BTreeMap::from([(tp("A.t", 0), emitted[0].clone())]);
        assert!(
            checkpoints.for_group("g", &upstream, &last).is_empty(),
            "nothing new"
        );
    }

    #[test]
    fn translated_offsets_never_move_a_target_group_backwards() {
        let checkpoints = BTreeMap::from([
            (tp("A.t", 0), checkpoint("A.t", 10, 100)),
            (tp("A.t", 1), checkpoint("A.t", 10, 100)),
            (tp("A.t", 2), checkpoint("A.t", 10, 100)),
            (tp("A.t", 3), checkpoint("A.t", 10, 100)),
        ]);
        let target = BTreeMap::from([
            (tp("A.t", 0), Some(150)),
            (tp("A.t", 1), Some(50)),
            (tp("A.t", 2), None),
        ]);
        let synced: Vec<i32> = offsets_to_sync(&checkpoints, Some(&target))
            .keys()
            .map(|(_, p)| *p)
            .collect();
        assert_eq!(synced, [1, 2, 3], "ahead on the target: left alone");
        assert_eq!(
            offsets_to_sync(&checkpoints, None).len(),
            4,
            "an absent group gets all"
        );
    }
}
