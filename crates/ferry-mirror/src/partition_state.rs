//! When a source task writes an offset sync, as Java's `OffsetSyncWriter` decides: per source
//! partition, a sync is due on the first record, when the downstream offset drifted
//! `offset.lag.max` past the last sync, or when offsets jumped (a skipped upstream offset, a
//! downstream reset). Others are delayed until the next offset commit. At most
//! `MAX_OUTSTANDING_OFFSET_SYNCS` are in flight.

use std::collections::HashMap;

use indexmap::IndexMap;

/// Java's `MAX_OUTSTANDING_OFFSET_SYNCS`.
pub const MAX_OUTSTANDING_OFFSET_SYNCS: usize = 10;

/// Java's `PartitionState`.
#[derive(Debug, Clone)]
pub struct PartitionState {
    max_offset_lag: i64,
    previous_upstream: i64,
    previous_downstream: i64,
    last_sync_downstream: i64,
    should_sync: bool,
}

impl PartitionState {
    pub fn new(max_offset_lag: i64) -> Self {
        PartitionState {
            max_offset_lag,
            previous_upstream: -1,
            previous_downstream: -1,
            last_sync_downstream: -1,
            should_sync: false,
        }
    }

    /// Takes the offsets of a replicated record; answers whether a sync is due (and stays due
    /// until [`reset`](Self::reset)).
    pub fn update(&mut self, upstream: i64, downstream: i64) -> bool {
        let no_sync_yet = self.last_sync_downstream == -1;
        let translation_stale = downstream - (self.last_sync_downstream + 1) >= self.max_offset_lag;
        let upstream_skipped = upstream - self.previous_upstream != 1;
        let downstream_reset = downstream < self.previous_downstream;
        if no_sync_yet || translation_stale || upstream_skipped || downstream_reset {
            self.last_sync_downstream = downstream;
            self.should_sync = true;
        }
        self.previous_upstream = upstream;
        self.previous_downstream = downstream;
        self.should_sync
    }

    pub fn reset(&mut self) {
        self.should_sync = false;
    }
}

/// A sync for a source partition, to be written to the offset-syncs topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuedSync {
    pub upstream_offset: i64,
    pub downstream_offset: i64,
}

/// Java's pending and delayed maps, keyed by source partition in insertion order; a newer sync
/// of a partition replaces the older.
#[derive(Debug)]
pub struct OffsetSyncQueue {
    max_offset_lag: i64,
    states: HashMap<(String, i32), PartitionState, FastHash>,
    pending: IndexMap<(String, i32), QueuedSync, FastHash>,
    delayed: IndexMap<(String, i32), QueuedSync, FastHash>,
}

/// These maps are read for every replicated record; their keys come from the task itself.
type FastHash = foldhash::fast::RandomState;

impl OffsetSyncQueue {
    pub fn new(max_offset_lag: i64) -> Self {
        OffsetSyncQueue {
            max_offset_lag,
            states: HashMap::default(),
            pending: IndexMap::default(),
            delayed: IndexMap::default(),
        }
    }

    /// A record of `partition` was acknowledged downstream.
    pub fn record_replicated(&mut self, partition: &(String, i32), upstream: i64, downstream: i64) {
        let lag = self.max_offset_lag;
        // A key is cloned only the first time: this runs for every replicated record.
        if !self.states.contains_key(partition) {
            self.states
                .insert(partition.clone(), PartitionState::new(lag));
        }
        let Some(state) = self.states.get_mut(partition) else {
            return;
        };
        let sync = QueuedSync {
            upstream_offset: upstream,
            downstream_offset: downstream,
        };
        let queue = if state.update(upstream, downstream) {
            state.reset();
            self.delayed.shift_remove(partition);
            &mut self.pending
        } else {
            &mut self.delayed
        };
        match queue.get_mut(partition) {
            Some(slot) => *slot = sync,
            None => {
                queue.insert(partition.clone(), sync);
            }
        }
    }

    /// At an offset commit, the delayed syncs are due too.
    pub fn promote_delayed(&mut self) {
        for (partition, sync) in self.delayed.drain(..) {
            self.pending.insert(partition, sync);
        }
    }

    /// The pending syncs to send now, oldest first, given how many are in flight.
    pub fn take_pending(&mut self, in_flight: usize) -> Vec<((String, i32), QueuedSync)> {
        let room = MAX_OUTSTANDING_OFFSET_SYNCS.saturating_sub(in_flight);
        let n = room.min(self.pending.len());
        self.pending.drain(..n).collect()
    }

    /// A partition this task no longer replicates.
    pub fn forget(&mut self, partition: &(String, i32)) {
        self.states.remove(partition);
        self.pending.shift_remove(partition);
        self.delayed.shift_remove(partition);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's OffsetSyncWriterTest.testUpdate, step for step.
    #[test]
    fn syncs_are_due_as_java_s_partition_state_says() {
        let mut s = PartitionState::new(50);
        assert!(s.update(0, 100), "always emit offset sync on first update");
        assert!(s.should_sync);
        s.reset();
        assert!(!s.should_sync);
        assert!(s.update(2, 102), "upstream offset skipped -> resync");
        s.reset();
        assert!(!s.update(3, 152), "no sync");
        s.reset();
        assert!(s.update(4, 153), "one past target offset");
        s.reset();
        assert!(!s.update(5, 154), "no sync");
        s.reset();
        assert!(!s.update(6, 203), "no sync");
        s.reset();
        assert!(s.update(7, 204), "one past target offset");
        s.reset();
        assert!(s.update(2, 206), "upstream reset");
        s.reset();
        assert!(!s.update(3, 207), "no sync");
        s.reset();
        assert!(s.update(4, 3), "downstream reset");
        s.reset();
        assert!(!s.update(5, 4), "no sync");
        assert!(s.update(7, 6), "sync");
        assert!(s.update(7, 6), "sync");
        assert!(s.update(8, 7), "sync");
        assert!(s.update(10, 57), "sync");
        s.reset();
        assert!(!s.update(11, 58), "sync");
        assert!(!s.should_sync);
    }

    /// Kafka's testZeroOffsetSync: with no lag allowed every record syncs.
    #[test]
    fn with_no_lag_allowed_every_record_syncs() {
        let mut s = PartitionState::new(0);
        for (up, down) in [(0, 100), (2, 102), (3, 153), (4, 154), (5, 155), (6, 156)] {
            assert!(s.update(up, down), "({up}, {down})");
            s.reset();
        }
    }

    #[test]
    fn delayed_syncs_wait_for_the_commit_and_in_flight_ones_are_bounded() {
        let mut q = OffsetSyncQueue::new(100);
        let tp = |p: i32| ("t".to_owned(), p);
        q.record_replicated(&tp(0), 0, 0);
        q.record_replicated(&tp(0), 1, 1);
        q.record_replicated(&tp(0), 2, 2);
        let due = q.take_pending(0);
        assert_eq!(due.len(), 1, "only the first record's sync is due: {due:?}");
        assert_eq!(due[0].1.upstream_offset, 0);
        assert!(q.take_pending(0).is_empty());
        q.promote_delayed();
        let due = q.take_pending(0);
        assert_eq!(
            due,
            vec![(
                tp(0),
                QueuedSync {
                    upstream_offset: 2,
                    downstream_offset: 2
                }
            )],
            "the latest delayed sync replaced the older one"
        );

        for p in 1..=12 {
            q.record_replicated(&tp(p), 0, 0);
        }
        assert_eq!(q.take_pending(3).len(), 7, "ten in flight at most");
        let rest: Vec<i32> = q.take_pending(0).iter().map(|(tp, _)| tp.1).collect();
        assert_eq!(rest, vec![8, 9, 10, 11, 12], "in the order they came");
    }
}
