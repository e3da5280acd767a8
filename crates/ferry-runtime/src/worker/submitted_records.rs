//! Records sent but not yet committed, so that a source offset is committed only once every
//! earlier record of the same source partition has been acknowledged (Java's
//! `SubmittedRecords`).

use std::collections::VecDeque;
use std::sync::Arc;

use ferry_api::record::{OffsetMap, SourceRecord};

/// One sent record: the record itself until it is acknowledged (the task sees it again in
/// `commit_record`), then only its source partition and offset, as Java's `SubmittedRecord`.
/// A task that never looks at its records again gives only the partition and offset from the
/// start. Acknowledged entries at the front are folded away at once (see `folded`), so the
/// queue holds about the records in flight, not every record since the last offset commit.
struct Entry {
    partition: Option<Arc<OffsetMap>>,
    offset: Option<OffsetMap>,
    /// Boxed: a queue grown by a burst keeps its capacity until the next offset commit, and
    /// small entries keep that small.
    record: Option<Box<SourceRecord>>,
    pending: bool,
}

impl Entry {
    fn acked(&self) -> bool {
        !self.pending
    }

    fn offset(&self) -> Option<&OffsetMap> {
        match &self.record {
            Some(record) => record.source_offset.as_ref(),
            None => self.offset.as_ref(),
        }
    }
}

/// How far one source partition can be committed during a scan.
struct Progress<'a> {
    partition: Option<&'a Arc<OffsetMap>>,
    /// An unacknowledged record of this partition was seen; later ones must wait.
    blocked: bool,
    offset: Option<&'a OffsetMap>,
}

/// Sequence numbers are contiguous, so an acknowledgement finds its record by index.
#[derive(Default)]
pub struct SubmittedRecords {
    base: usize,
    entries: VecDeque<Entry>,
    /// For each source partition, the offset of the last acknowledged record already taken off
    /// the front of the queue (every record before it is acknowledged too), until a commit
    /// takes it.
    folded: Vec<(Option<Arc<OffsetMap>>, Option<OffsetMap>)>,
    /// Entries not yet acknowledged, counted rather than searched: the task reports it after
    /// every batch.
    unacked: usize,
}

/// The latest committable offset of one source partition.
pub type PartitionOffset = (Arc<OffsetMap>, OffsetMap);

impl SubmittedRecords {
    /// The sequence number the next submitted record will get.
    pub fn next_seq(&self) -> usize {
        self.base + self.entries.len()
    }

    /// Holds a sent record until its acknowledgement shows it to the task again.
    pub fn submit(&mut self, record: SourceRecord) -> usize {
        self.push(Entry {
            partition: record.source_partition.clone(),
            offset: None,
            record: Some(Box::new(record)),
            pending: true,
        })
    }

    /// Holds only where a sent record came from, for a task that is not shown its records
    /// again: the record itself can go as soon as it is sent.
    pub fn submit_position(
        &mut self,
        partition: Option<Arc<OffsetMap>>,
        offset: Option<OffsetMap>,
    ) -> usize {
        self.push(Entry {
            partition,
            offset,
            record: None,
            pending: true,
        })
    }

    fn push(&mut self, entry: Entry) -> usize {
        let seq = self.next_seq();
        self.entries.push_back(entry);
        self.unacked += 1;
        seq
    }

    /// Marks a record acknowledged, shows it to `f` (the task's `commit_record`; `None` when
    /// only its position was held), then keeps only its source offset; `None` for an unknown or
    /// already acknowledged sequence number.
    pub fn ack<R>(&mut self, seq: usize, f: impl FnOnce(Option<&SourceRecord>) -> R) -> Option<R> {
        let entry = self.entries.get_mut(seq.checked_sub(self.base)?)?;
        if !entry.pending {
            return None;
        }
        entry.pending = false;
        self.unacked -= 1;
        let result = match entry.record.take() {
            Some(mut record) => {
                let result = f(Some(&record));
                entry.offset = record.source_offset.take();
                result
            }
            None => f(None),
        };
        self.fold_acknowledged_prefix();
        Some(result)
    }

    pub fn outstanding(&self) -> usize {
        self.unacked
    }

    fn fold_acknowledged_prefix(&mut self) {
        while self.entries.front().is_some_and(Entry::acked) {
            let Some(entry) = self.entries.pop_front() else {
                break;
            };
            self.base += 1;
            let slot = match self
                .folded
                .iter()
                .position(|(p, _)| same_partition(p.as_ref(), entry.partition.as_ref()))
            {
                Some(i) => &mut self.folded[i],
                None => {
                    self.folded.push((entry.partition, None));
                    let last = self.folded.len() - 1;
                    &mut self.folded[last]
                }
            };
            if entry.offset.is_some() {
                slot.1 = entry.offset;
            }
        }
    }

    /// For each source partition, the offset of its last record whose predecessors in that
    /// partition are all acknowledged; then forgets the acknowledged records.
    pub fn committable(&mut self) -> Vec<PartitionOffset> {
        let mut partitions: Vec<Progress<'_>> = self
            .folded
            .iter()
            .map(|(partition, offset)| Progress {
                partition: partition.as_ref(),
                blocked: false,
                offset: offset.as_ref(),
            })
            .collect();
        for entry in &self.entries {
            let partition = entry.partition.as_ref();
            let idx = match partitions
                .iter()
                .position(|p| same_partition(p.partition, partition))
            {
                Some(i) => i,
                None => {
                    partitions.push(Progress {
                        partition,
                        blocked: false,
                        offset: None,
                    });
                    partitions.len() - 1
                }
            };
            let progress = &mut partitions[idx];
            if progress.blocked {
                continue;
            }
            if entry.acked() {
                if let Some(offset) = entry.offset() {
                    progress.offset = Some(offset);
                }
            } else {
                progress.blocked = true;
            }
        }
        let result = partitions
            .into_iter()
            .filter_map(|p| Some((p.partition?.clone(), p.offset?.clone())))
            .collect();
        self.forget_acknowledged();
        result
    }

    /// Forgets the acknowledged records (an exactly-once task, once its transaction committed
    /// their offsets).
    pub fn forget_acknowledged(&mut self) {
        self.fold_acknowledged_prefix();
        self.folded.clear();
        // A burst grows the queue; an idle task should not keep its peak.
        if self.entries.capacity() > 4 * Self::KEPT_CAPACITY.max(self.entries.len()) {
            self.entries
                .shrink_to(Self::KEPT_CAPACITY.max(self.entries.len()));
        }
    }

    const KEPT_CAPACITY: usize = 64;
}

impl SubmittedRecords {
    /// For each source partition, the offset of its last submitted record, acknowledged or not:
    /// what an exactly-once task writes in the transaction that carries those records.
    pub fn latest(&self) -> Vec<PartitionOffset> {
        let mut latest: Vec<PartitionOffset> = Vec::new();
        let folded = self.folded.iter().map(|(p, o)| (p.as_ref(), o.as_ref()));
        let queued = self
            .entries
            .iter()
            .map(|e| (e.partition.as_ref(), e.offset()));
        for (partition, offset) in folded.chain(queued) {
            let (Some(partition), Some(offset)) = (partition, offset) else {
                continue;
            };
            match latest
                .iter_mut()
                .find(|(p, _)| same_partition(Some(p), Some(partition)))
            {
                Some(slot) => slot.1 = offset.clone(),
                None => latest.push((partition.clone(), offset.clone())),
            }
        }
        latest
    }
}

fn same_partition(a: Option<&Arc<OffsetMap>>, b: Option<&Arc<OffsetMap>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use ferry_api::data::Value;

    use super::*;

    fn record(partition: &Arc<OffsetMap>, position: i64) -> SourceRecord {
        let offset = OffsetMap::from([("position".to_owned(), Value::Int64(position))]);
        SourceRecord::new(
            Some(partition.clone()),
            Some(offset),
            "t",
            None,
            Value::Null,
        )
    }

    fn partition(name: &str) -> Arc<OffsetMap> {
        Arc::new(OffsetMap::from([(
            "filename".to_owned(),
            Value::from(name),
        )]))
    }

    #[test]
    fn offset_waits_for_earlier_records_of_its_partition() {
        let (a, b) = (partition("a"), partition("b"));
        let mut s = SubmittedRecords::default();
        let a1 = s.submit(record(&a, 1));
        let b1 = s.submit(record(&b, 10));
        let a2 = s.submit(record(&a, 2));
        let shown = s.ack(a2, |r| r.and_then(|r| r.source_offset.clone()));
        assert_eq!(
            shown.flatten().and_then(|o| o.get("position").cloned()),
            Some(Value::Int64(2)),
            "the task sees the record with its offset"
        );
        s.ack(b1, |_| ());
        // a1 is not acknowledged, so nothing of partition a may be committed; b may.
        let c = s.committable();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1.get("position"), Some(&Value::Int64(10)));
        s.ack(a1, |_| ());
        let c = s.committable();
        let a_offset = c.iter().find(|(p, _)| p.as_ref() == a.as_ref()).unwrap();
        assert_eq!(a_offset.1.get("position"), Some(&Value::Int64(2)));
        assert_eq!(s.outstanding(), 0);
        assert_eq!(s.next_seq(), 3);
    }

    #[test]
    fn a_position_alone_commits_in_order_as_a_held_record_does() {
        let a = partition("a");
        let at = |position: i64| {
            Some(OffsetMap::from([(
                "position".to_owned(),
                Value::Int64(position),
            )]))
        };
        let mut s = SubmittedRecords::default();
        let a1 = s.submit_position(Some(a.clone()), at(1));
        let a2 = s.submit(record(&a, 2));
        let a3 = s.submit_position(Some(a.clone()), at(3));
        assert_eq!(s.ack(a3, |r| r.is_some()), Some(false), "no record to show");
        assert_eq!(s.ack(a2, |r| r.is_some()), Some(true));
        assert!(
            s.committable().is_empty(),
            "the first record is still in flight"
        );
        assert_eq!(s.outstanding(), 1);
        assert!(s.ack(a1, |_| ()).is_some());
        assert!(s.ack(a1, |_| ()).is_none(), "a second report is ignored");
        let c = s.committable();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1.get("position"), Some(&Value::Int64(3)));
        assert_eq!(s.outstanding(), 0);
    }

    #[test]
    fn unknown_ack_is_ignored() {
        let mut s = SubmittedRecords::default();
        assert!(s.ack(5, |_| ()).is_none());
    }

    #[test]
    fn a_record_is_acknowledged_once_and_its_latest_offset_is_kept() {
        let a = partition("a");
        let mut s = SubmittedRecords::default();
        let a1 = s.submit(record(&a, 1));
        let a2 = s.submit(record(&a, 2));
        assert!(s.ack(a1, |_| ()).is_some());
        assert!(s.ack(a1, |_| ()).is_none(), "a second report is ignored");
        // Acknowledged or not, the latest offset of each partition is known.
        assert_eq!(s.latest()[0].1.get("position"), Some(&Value::Int64(2)));
        s.ack(a2, |_| ());
        assert_eq!(s.latest()[0].1.get("position"), Some(&Value::Int64(2)));
    }

    #[test]
    fn acknowledged_records_leave_the_queue_before_the_commit() {
        let (a, b) = (partition("a"), partition("b"));
        let mut s = SubmittedRecords::default();
        let seqs: Vec<usize> = (0..1_000)
            .map(|i| s.submit(record(if i % 2 == 0 { &a } else { &b }, i)))
            .collect();
        for &seq in &seqs[..600] {
            s.ack(seq, |_| ());
        }
        assert_eq!(
            s.entries.len(),
            400,
            "only the records still in flight are queued"
        );
        let c = s.committable();
        let offset = |p: &Arc<OffsetMap>| {
            c.iter()
                .find(|(q, _)| q == p)
                .and_then(|(_, o)| o.get("position").cloned())
        };
        assert_eq!(offset(&a), Some(Value::Int64(598)));
        assert_eq!(offset(&b), Some(Value::Int64(599)));
        assert!(s.committable().is_empty(), "a commit takes what it returns");
        for &seq in &seqs[600..] {
            s.ack(seq, |_| ());
        }
        assert_eq!(s.entries.len(), 0);
        assert_eq!(s.committable().len(), 2);
    }

    #[test]
    fn an_emptied_queue_gives_back_its_peak_capacity() {
        let a = partition("a");
        let mut s = SubmittedRecords::default();
        let seqs: Vec<usize> = (0..10_000).map(|i| s.submit(record(&a, i))).collect();
        for seq in seqs {
            s.ack(seq, |_| ());
        }
        assert_eq!(s.committable().len(), 1);
        assert!(
            s.entries.capacity() <= 4 * SubmittedRecords::KEPT_CAPACITY,
            "{}",
            s.entries.capacity()
        );
    }
}
