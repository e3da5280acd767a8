//! The records of MirrorMaker's internal topics, byte for byte as Java writes them with Kafka's
//! protocol `Schema`s: fields in order, big-endian integers, strings as an INT16 length and UTF-8.
//! Heartbeat and checkpoint values start with an INT16 version (0); offset syncs have none.

/// Why bytes could not be read as a record.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecordError {
    #[error("Error reading field '{field}': {reason}")]
    Field { field: &'static str, reason: String },
    #[error("Error writing field '{field}': the string is longer than 32767 bytes")]
    TooLong { field: &'static str },
}

pub const VERSION: i16 = 0;

struct Writer(Vec<u8>);

impl Writer {
    fn new() -> Self {
        Writer(Vec::new())
    }

    fn string(mut self, field: &'static str, s: &str) -> Result<Self, RecordError> {
        let len = i16::try_from(s.len()).map_err(|_| RecordError::TooLong { field })?;
        self.0.extend_from_slice(&len.to_be_bytes());
        self.0.extend_from_slice(s.as_bytes());
        Ok(self)
    }

    fn i16(mut self, v: i16) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    fn i64(mut self, v: i64) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
}

/// Reads fields in order; trailing bytes are ignored, as Java's `Schema.read` ignores them.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, field: &'static str, n: usize) -> Result<&'a [u8], RecordError> {
        if self.0.len() < n {
            return Err(RecordError::Field {
                field,
                reason: format!("needs {n} bytes, {} remain", self.0.len()),
            });
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn string(&mut self, field: &'static str) -> Result<String, RecordError> {
        let len = self.i16(field)?;
        let len = usize::try_from(len).map_err(|_| RecordError::Field {
            field,
            reason: format!("String length {len} cannot be negative"),
        })?;
        let bytes = self.take(field, len)?;
        String::from_utf8(bytes.to_vec()).map_err(|e| RecordError::Field {
            field,
            reason: e.to_string(),
        })
    }

    fn i16(&mut self, field: &'static str) -> Result<i16, RecordError> {
        let b = self.take(field, 2)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }

    fn i32(&mut self, field: &'static str) -> Result<i32, RecordError> {
        let b = self.take(field, 4)?;
        Ok(i32::from_be_bytes(b.try_into().expect("4 bytes")))
    }

    fn i64(&mut self, field: &'static str) -> Result<i64, RecordError> {
        let b = self.take(field, 8)?;
        Ok(i64::from_be_bytes(b.try_into().expect("8 bytes")))
    }
}

/// A record of the `heartbeats` topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heartbeat {
    pub source_cluster_alias: String,
    pub target_cluster_alias: String,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
}

impl Heartbeat {
    pub fn key(&self) -> Result<Vec<u8>, RecordError> {
        Ok(Writer::new()
            .string("sourceClusterAlias", &self.source_cluster_alias)?
            .string("targetClusterAlias", &self.target_cluster_alias)?
            .0)
    }

    pub fn value(&self) -> Vec<u8> {
        Writer::new().i16(VERSION).i64(self.timestamp).0
    }

    /// Any version is read as version 0, as Java (whose check is an assertion) reads it.
    pub fn read(key: &[u8], value: &[u8]) -> Result<Self, RecordError> {
        let mut k = Reader(key);
        let mut v = Reader(value);
        v.i16("version")?;
        Ok(Heartbeat {
            source_cluster_alias: k.string("sourceClusterAlias")?,
            target_cluster_alias: k.string("targetClusterAlias")?,
            timestamp: v.i64("timestamp")?,
        })
    }
}

/// A record of `<source>.checkpoints.internal`: a group's offset upstream and its translation
/// for the downstream (renamed) topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub group: String,
    /// The downstream topic.
    pub topic: String,
    pub partition: i32,
    pub upstream_offset: i64,
    pub downstream_offset: i64,
    pub metadata: String,
}

impl Checkpoint {
    pub fn key(&self) -> Result<Vec<u8>, RecordError> {
        Ok(Writer::new()
            .string("group", &self.group)?
            .string("topic", &self.topic)?
            .i32(self.partition)
            .0)
    }

    pub fn value(&self) -> Result<Vec<u8>, RecordError> {
        Ok(Writer::new()
            .i16(VERSION)
            .i64(self.upstream_offset)
            .i64(self.downstream_offset)
            .string("metadata", &self.metadata)?
            .0)
    }

    pub fn read(key: &[u8], value: &[u8]) -> Result<Self, RecordError> {
        let mut k = Reader(key);
        let mut v = Reader(value);
        v.i16("version")?;
        Ok(Checkpoint {
            group: k.string("group")?,
            topic: k.string("topic")?,
            partition: k.i32("partition")?,
            upstream_offset: v.i64("upstreamOffset")?,
            downstream_offset: v.i64("offset")?,
            metadata: v.string("metadata")?,
        })
    }
}

/// A record of the offset-syncs topic: an upstream offset of a source partition and the offset
/// its record got downstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetSync {
    /// The source topic, not renamed.
    pub topic: String,
    pub partition: i32,
    pub upstream_offset: i64,
    pub downstream_offset: i64,
}

impl OffsetSync {
    pub fn key(&self) -> Result<Vec<u8>, RecordError> {
        Ok(Writer::new()
            .string("topic", &self.topic)?
            .i32(self.partition)
            .0)
    }

    pub fn value(&self) -> Vec<u8> {
        Writer::new()
            .i64(self.upstream_offset)
            .i64(self.downstream_offset)
            .0
    }

    pub fn read(key: &[u8], value: &[u8]) -> Result<Self, RecordError> {
        let mut k = Reader(key);
        let mut v = Reader(value);
        Ok(OffsetSync {
            topic: k.string("topic")?,
            partition: k.i32("partition")?,
            upstream_offset: v.i64("upstreamOffset")?,
            downstream_offset: v.i64("offset")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    // The expected bytes were printed by Kafka 4.3.1's own classes (connect-mirror-client and
    // connect-mirror jars, through jshell), for the values of Kafka's HeartbeatTest,
    // CheckpointTest and OffsetSyncTest.

    #[test]
    fn a_heartbeat_is_written_and_read_as_java_s() {
        let heartbeat = Heartbeat {
            source_cluster_alias: "source-1".into(),
            target_cluster_alias: "target-2".into(),
            timestamp: 1_234_567_890,
        };
        let key = "0008736f757263652d3100087461726765742d32";
        let value = "000000000000499602d2";
        assert_eq!(hex(&heartbeat.key().unwrap()), key);
        assert_eq!(hex(&heartbeat.value()), value);
        assert_eq!(
            Heartbeat::read(&unhex(key), &unhex(value)).unwrap(),
            heartbeat
        );
    }

    #[test]
    fn a_checkpoint_is_written_and_read_as_java_s() {
        let checkpoint = Checkpoint {
            group: "group-1".into(),
            topic: "topic-2".into(),
            partition: 3,
            upstream_offset: 4,
            downstream_offset: 5,
            metadata: "metadata-6".into(),
        };
        let key = "000767726f75702d310007746f7069632d3200000003";
        let value = "000000000000000000040000000000000005000a6d657461646174612d36";
        assert_eq!(hex(&checkpoint.key().unwrap()), key);
        assert_eq!(hex(&checkpoint.value().unwrap()), value);
        assert_eq!(
            Checkpoint::read(&unhex(key), &unhex(value)).unwrap(),
            checkpoint
        );

        // Lengths count UTF-8 bytes; empty metadata is an empty string.
        let other = Checkpoint {
            group: "grüppe".into(),
            topic: "A.t".into(),
            partition: 0,
            upstream_offset: 0,
            downstream_offset: 0,
            metadata: String::new(),
        };
        assert_eq!(
            hex(&other.key().unwrap()),
            "00076772c3bc7070650003412e7400000000"
        );
        assert_eq!(
            hex(&other.value().unwrap()),
            "0000000000000000000000000000000000000000"
        );
    }

    #[test]
    fn an_offset_sync_is_written_and_read_as_java_s() {
        let sync = OffsetSync {
            topic: "topic-1".into(),
            partition: 2,
            upstream_offset: 3,
            downstream_offset: 4,
        };
        let key = "0007746f7069632d3100000002";
        let value = "00000000000000030000000000000004";
        assert_eq!(hex(&sync.key().unwrap()), key);
        assert_eq!(hex(&sync.value()), value);
        assert_eq!(OffsetSync::read(&unhex(key), &unhex(value)).unwrap(), sync);
    }

    #[test]
    fn short_or_bad_bytes_are_an_error_naming_the_field() {
        let error = Checkpoint::read(&unhex("0007676f"), &[]).unwrap_err();
        assert!(
            matches!(
                error,
                RecordError::Field {
                    field: "version",
                    ..
                }
            ),
            "{error}"
        );
        let error = OffsetSync::read(&unhex("ffff"), &[0; 16]).unwrap_err();
        assert!(
            matches!(error, RecordError::Field { field: "topic", .. }),
            "{error}"
        );
        let long = "x".repeat(40_000);
        let error = OffsetSync {
            topic: long,
            partition: 0,
            upstream_offset: 0,
            downstream_offset: 0,
        }
        .key()
        .unwrap_err();
        assert_eq!(error, RecordError::TooLong { field: "topic" });
    }

    #[test]
    fn a_newer_version_is_read_as_version_0_and_trailing_bytes_are_ignored() {
        let value = unhex("0001000000000000000a00");
        let heartbeat = Heartbeat::read(&unhex("000141000142"), &value).unwrap();
        assert_eq!(heartbeat.timestamp, 10);
        assert_eq!(heartbeat.source_cluster_alias, "A");
    }
}
