//! Records sent but not yet committed, so that a source offset is committed only once every
//! earlier record of the same source partition has been acknowledged (Java's
//! `SubmittedRecords`).

use std::collections::VecDeque;
use std::sync::Arc;

use ferry_api::record::{OffsetMap, SourceRecord};

struct Entry {
    record: SourceRecord,
    acked: bool,
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
}

/// The latest committable offset of one source partition.
pub type PartitionOffset = (Arc<OffsetMap>, OffsetMap);

impl SubmittedRecords {
    /// The sequence number the next submitted record will get.
    pub fn next_seq(&self) -> usize {
        self.base + self.entries.len()
    }

    pub fn submit(&mut self, record: SourceRecord) -> usize {
        let seq = self.next_seq();
        self.entries.push_back(Entry {
            record,
            acked: false,
        });
        seq
    }

    /// Marks a record acknowledged and returns it; `None` for an unknown sequence number.
    pub fn ack(&mut self, seq: usize) -> Option<&SourceRecord> {
        let entry = self.entries.get_mut(seq.checked_sub(self.base)?)?;
        entry.acked = true;
        Some(&entry.record)
    }

    pub fn outstanding(&self) -> usize {
        self.entries.iter().filter(|e| !e.acked).count()
    }

    /// For each source partition, the offset of its last record whose predecessors in that
    /// partition are all acknowledged; then forgets the acknowledged prefix.
    pub fn committable(&mut self) -> Vec<PartitionOffset> {
        let mut partitions: Vec<Progress<'_>> = Vec::new();
        for entry in &self.entries {
            let partition = entry.record.source_partition.as_ref();
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
            if entry.acked {
                if let Some(offset) = entry.record.source_offset.as_ref() {
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

    /// Forgets the acknowledged prefix (an exactly-once task, once its transaction committed).
    pub fn forget_acknowledged(&mut self) {
        while self.entries.front().is_some_and(|e| e.acked) {
            self.entries.pop_front();
            self.base += 1;
        }
    }
}

impl SubmittedRecords {
    /// For each source partition, the offset of its last submitted record, acknowledged or not:
    /// what an exactly-once task writes in the transaction that carries those records.
    pub fn latest(&self) -> Vec<PartitionOffset> {
        let mut latest: Vec<PartitionOffset> = Vec::new();
        for entry in &self.entries {
            let (Some(partition), Some(offset)) = (
                entry.record.source_partition.as_ref(),
                entry.record.source_offset.as_ref(),
            ) else {
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
        s.ack(a2);
        s.ack(b1);
        // a1 is not acknowledged, so nothing of partition a may be committed; b may.
        let c = s.committable();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1.get("position"), Some(&Value::Int64(10)));
        s.ack(a1);
        let c = s.committable();
        let a_offset = c.iter().find(|(p, _)| p.as_ref() == a.as_ref()).unwrap();
        assert_eq!(a_offset.1.get("position"), Some(&Value::Int64(2)));
        assert_eq!(s.outstanding(), 0);
        assert_eq!(s.next_seq(), 3);
    }

    #[test]
    fn unknown_ack_is_ignored() {
        let mut s = SubmittedRecords::default();
        assert!(s.ack(5).is_none());
    }
}
