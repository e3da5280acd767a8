//! Translating a consumer group's upstream offsets to downstream ones from the offset syncs, as
//! Java's `OffsetSyncStore` does, so Ferry's checkpoints equal Java's for the same syncs. Each
//! source partition keeps 64 syncs spaced exponentially: recent offsets translate precisely,
//! older ones coarsely, and a translation never goes more than one offset past a sync.
//!
//! Java compares stored syncs by identity, not value; each sync applied here gets an id of its
//! own so the same comparisons come out the same.

use std::collections::HashMap;

/// Java's `SYNCS_PER_PARTITION` (`Long.SIZE`).
pub const SYNCS_PER_PARTITION: usize = 64;

#[derive(Debug, Clone, Copy)]
struct Sync {
    /// Which record it came from: Java's object identity.
    id: u64,
    upstream: i64,
    downstream: i64,
}

impl Sync {
    fn same(&self, other: &Sync) -> bool {
        self.id == other.id
    }
}

type Syncs = [Sync; SYNCS_PER_PARTITION];

/// What [`OffsetSyncStore::translate_downstream`] answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Translation {
    /// Nothing to go on yet: the initial read of the topic is not done, or the partition has
    /// no sync. No checkpoint is written.
    Unknown,
    /// The offset is older than the earliest sync kept (Java's -1): no checkpoint either.
    TooOld,
    Downstream(i64),
}

#[derive(Debug, Default)]
pub struct OffsetSyncStore {
    syncs: HashMap<(String, i32), Box<Syncs>>,
    read_to_end: bool,
    initialization_must_read_to_end: bool,
    next_id: u64,
}

impl OffsetSyncStore {
    /// A store about to read the offset-syncs topic from its start. When
    /// `initialization_must_read_to_end` (the task could not load its earlier checkpoints),
    /// each sync read before the end replaces all earlier ones, so only the latest is used.
    pub fn new(initialization_must_read_to_end: bool) -> Self {
        OffsetSyncStore {
            initialization_must_read_to_end,
            ..Default::default()
        }
    }

    /// The initial read reached the end of the topic: translations may start.
    pub fn initial_read_done(&mut self) {
        self.read_to_end = true;
    }

    /// A record of the offset-syncs topic.
    pub fn apply(&mut self, topic: &str, partition: i32, upstream: i64, downstream: i64) {
        let sync = Sync {
            id: self.next_id,
            upstream,
            downstream,
        };
        self.next_id += 1;
        let clear = !self.read_to_end && self.initialization_must_read_to_end;
        match self.syncs.get_mut(&(topic.to_owned(), partition)) {
            None => {
                self.syncs.insert(
                    (topic.to_owned(), partition),
                    Box::new([sync; SYNCS_PER_PARTITION]),
                );
            }
            Some(syncs) => {
                let original = **syncs;
                update_sync_array(syncs, &original, sync, clear);
            }
        }
    }

    pub fn translate_downstream(&self, topic: &str, partition: i32, upstream: i64) -> Translation {
        if !self.read_to_end {
            return Translation::Unknown;
        }
        let Some(syncs) = self.syncs.get(&(topic.to_owned(), partition)) else {
            return Translation::Unknown;
        };
        let sync = syncs
            .iter()
            .find(|s| s.upstream <= upstream)
            .unwrap_or(&syncs[SYNCS_PER_PARTITION - 1]);
        if sync.upstream > upstream {
            return Translation::TooOld;
        }
        let step = if upstream == sync.upstream { 0 } else { 1 };
        Translation::Downstream(sync.downstream + step)
    }

    #[cfg(test)]
    fn sync_at(&self, topic: &str, partition: i32, index: usize) -> Sync {
        self.syncs[&(topic.to_owned(), partition)][index]
    }
}

/// Java's `updateSyncArray`: `syncs` starts as a copy of `original`.
fn update_sync_array(syncs: &mut Syncs, original: &Syncs, sync: Sync, clear: bool) {
    // An upstream rewind makes every earlier sync invalid.
    if clear || syncs[0].upstream > sync.upstream {
        *syncs = [sync; SYNCS_PER_PARTITION];
        return;
    }
    let mut replacement = sync;
    let mut replacement_index = 0;
    syncs[0] = replacement;
    for current in 1..SYNCS_PER_PARTITION {
        let previous = current - 1;
        loop {
            let old = original[replacement_index];
            let is_recent = invariant_b(&syncs[previous], &old, previous, current);
            let separated_from_previous = invariant_c(&syncs[previous], &old, previous);
            let next = current + 1;
            let separated_from_next =
                next >= SYNCS_PER_PARTITION || invariant_c(&old, &syncs[next], current);
            let duplicate = replacement_index + 1 < SYNCS_PER_PARTITION
                && old.same(&original[replacement_index + 1]);
            let promote = is_recent && separated_from_previous && separated_from_next;
            if promote {
                replacement = old;
            }
            let skip = duplicate || !separated_from_previous;
            if promote || skip {
                replacement_index += 1;
            }
            if !(replacement_index < current && skip) {
                break;
            }
        }
        if invariant_b(&syncs[previous], &syncs[current], previous, current) {
            break;
        }
        syncs[current] = replacement;
    }
}

/// Java's invariant B: `syncs[i].up <= syncs[j].up + 2^j - 2^i` (an overflowing bound holds).
fn invariant_b(i_sync: &Sync, j_sync: &Sync, i: usize, j: usize) -> bool {
    let bound = j_sync
        .upstream
        .wrapping_add(1i64.wrapping_shl(j as u32))
        .wrapping_sub(1i64.wrapping_shl(i as u32));
    i_sync.same(j_sync) || bound < 0 || i_sync.upstream <= bound
}

/// Java's invariant C: `syncs[i].up >= syncs[j].up + 2^max(i-2,0)` (an overflowing bound fails).
fn invariant_c(i_sync: &Sync, j_sync: &Sync, i: usize) -> bool {
    let bound = j_sync
        .upstream
        .wrapping_add(1i64.wrapping_shl(i.saturating_sub(2) as u32));
    i_sync.same(j_sync) || (bound >= 0 && i_sync.upstream >= bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Ported from Kafka's OffsetSyncStoreTest (tp = topic1-2).
    const T: &str = "topic1";
    const P: i32 = 2;

    fn started() -> OffsetSyncStore {
        let mut store = OffsetSyncStore::new(true);
        store.initial_read_done();
        store
    }

    fn translate(store: &OffsetSyncStore, upstream: i64) -> Translation {
        store.translate_downstream(T, P, upstream)
    }

    use Translation::{Downstream, TooOld, Unknown};

    #[test]
    fn offsets_translate_as_java_s_test_offset_translation() {
        let mut store = started();
        store.apply(T, P, 100, 200);
        assert_eq!(translate(&store, 150), Downstream(201), "no dead reckoning");
        store.apply(T, P, 150, 251);
        assert_eq!(translate(&store, 150), Downstream(251), "exact");
        assert_eq!(translate(&store, 5), TooOld, "before any sync");
        store.apply(T, P, 200, 10);
        assert_eq!(translate(&store, 200), Downstream(10), "downstream reset");
        store.apply(T, P, 20, 20);
        assert_eq!(translate(&store, 20), Downstream(20), "upstream reset");
    }

    #[test]
    fn nothing_translates_before_the_initial_read_is_done() {
        let mut store = OffsetSyncStore::new(true);
        for offset in [0, 100, 200] {
            assert_eq!(translate(&store, offset), Unknown);
        }
        store.apply(T, P, 100, 200);
        for offset in [0, 100, 200] {
            assert_eq!(translate(&store, offset), Unknown);
        }
        store.initial_read_done();
        assert_eq!(translate(&store, 0), TooOld);
        assert_eq!(translate(&store, 100), Downstream(200));
        assert_eq!(translate(&store, 200), Downstream(201));
    }

    #[test]
    fn a_partition_without_syncs_does_not_translate() {
        assert_eq!(translate(&started(), 0), Unknown);
    }

    fn assert_sparse_sync(store: &OffsetSyncStore, sync: i64, previous: i64) {
        let before = if previous == -1 {
            TooOld
        } else {
            Downstream(previous + 1)
        };
        assert_eq!(translate(store, sync - 1), before, "just before {sync}");
        assert_eq!(translate(store, sync), Downstream(sync));
        assert_eq!(translate(store, sync + 1), Downstream(sync + 1));
        assert_eq!(translate(store, sync + 2), Downstream(sync + 1));
    }

    /// Every pair of stored syncs keeps invariants B and C (Java's assertSparseSyncInvariant).
    fn assert_sparse_sync_invariant(store: &OffsetSyncStore) {
        for j in 0..SYNCS_PER_PARTITION {
            for i in 0..j {
                let j_up = store.sync_at(T, P, j).upstream;
                let i_up = store.sync_at(T, P, i).upstream;
                if j_up == i_up {
                    continue;
                }
                let lower = j_up.wrapping_add(1i64 << i.saturating_sub(2));
                if lower < 0 {
                    continue;
                }
                assert!(i_up >= lower, "invariant C({i},{j}): {i_up} >= {lower}");
                let upper = j_up
                    .wrapping_add(1i64.wrapping_shl(j as u32))
                    .wrapping_sub(1i64 << i);
                if upper < 0 {
                    continue;
                }
                assert!(i_up <= upper, "invariant B({i},{j}): {i_up} <= {upper}");
            }
        }
    }

    #[test]
    fn past_offsets_translate_with_falling_precision_as_java_s() {
        let mut store = OffsetSyncStore::new(true);
        let mut offset = 0;
        while offset <= 1000 {
            store.apply(T, P, offset, offset);
            assert_sparse_sync_invariant(&store);
            offset += 10;
        }
        store.initial_read_done();
        // Only the latest sync of the initial read translates.
        assert_sparse_sync(&store, 1000, -1);
        while offset <= 10000 {
            store.apply(T, P, offset, offset);
            assert_sparse_sync_invariant(&store);
            offset += 10;
        }
        // Invariant D: the last sync of the initial read stays the earliest.
        assert_sparse_sync(&store, 1000, -1);
        for (sync, previous) in [
            (4840, 1000),
            (6760, 4840),
            (8680, 6760),
            (9160, 8680),
            (9640, 9160),
            (9880, 9640),
            (9940, 9880),
            (9970, 9940),
            (9990, 9970),
            (10000, 9990),
        ] {
            assert_sparse_sync(&store, sync, previous);
        }
        // An upstream rewind clears the history.
        store.apply(T, P, 1500, 11000);
        assert_sparse_sync_invariant(&store);
        assert_eq!(translate(&store, 1499), TooOld);
        assert_eq!(translate(&store, 1500), Downstream(11000));
        assert_eq!(translate(&store, 2000), Downstream(11001));
    }

    fn distinct(store: &OffsetSyncStore) -> Vec<i64> {
        let mut kept = vec![store.sync_at(T, P, 0)];
        for i in 1..SYNCS_PER_PARTITION {
            let s = store.sync_at(T, P, i);
            if !s.same(&store.sync_at(T, P, i - 1)) {
                kept.push(s);
            }
        }
        kept.iter().rev().map(|s| s.upstream).collect()
    }

    #[test]
    fn with_earlier_checkpoints_loaded_the_initial_read_keeps_history() {
        let mut store = OffsetSyncStore::new(false);
        let mut offset = 0;
        while offset <= 1000 {
            store.apply(T, P, offset, offset);
            offset += 10;
        }
        store.initial_read_done();
        assert_sparse_sync(&store, 480, 0);
        assert_sparse_sync(&store, 720, 480);
        assert_sparse_sync(&store, 1000, 990);
        while offset <= 10000 {
            store.apply(T, P, offset, offset);
            offset += 10;
        }
        assert_eq!(
            distinct(&store),
            [0, 3840, 7680, 8640, 9120, 9600, 9840, 9900, 9960, 9990, 10000]
        );
        assert_eq!(translate(&store, 3839), Downstream(1));
    }

    /// Java's assertSyncSpacingHasBoundedExpirations.
    fn assert_bounded_expirations(first: i64, steps: impl Iterator<Item = i64>, max: usize) {
        let mut store = started();
        store.apply(T, P, first, first);
        let mut offset = first;
        let mut last_count = 1;
        for step in steps {
            offset += step;
            assert!(offset >= 0, "the test overflowed");
            store.apply(T, P, offset, offset);
            assert_eq!(store.sync_at(T, P, 0).upstream, offset, "invariant A");
            assert_eq!(store.sync_at(T, P, 63).upstream, first, "invariant D");
            let count = distinct(&store).len();
            let expired = last_count + 1 - count;
            assert!(expired <= max, "{expired} syncs expired at {offset}");
            last_count = count;
        }
    }

    #[test]
    fn consistently_spaced_syncs_expire_one_sync_at_a_time() {
        let iterations = 100;
        let max_step = i64::MAX / iterations;
        let mut step = 1;
        while step < max_step {
            for first in 0..30 {
                assert_bounded_expirations(first, std::iter::repeat_n(step, 100), 1);
            }
            step = step * 2 + 1;
        }
    }

    #[test]
    fn syncs_with_every_other_one_dropped_expire_at_most_two() {
        // Gaps of the lag or twice it, from a fixed pseudo-random sequence.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let steps = (0..10_000).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 2 == 0 {
                200
            } else {
                100
            }
        });
        assert_bounded_expirations(0, steps, 2);
    }
}
