//! The Connect group protocol: member metadata and assignments (V0, V1, V2).
//!
//! Byte layouts follow Kafka's classic protocol types (big-endian integers, `INT16`-prefixed UTF-8
//! strings, `INT32`-prefixed arrays and nullable bytes); see `internals.md` §4.2.
//!
//! * Metadata V0 (protocol `default`): `version, url, config-offset`.
//! * Metadata V1/V2 (`compatible`/`sessioned`): V0 plus `allocation`, a nullable byte string
//!   holding a complete serialized assignment (what the worker currently owns).
//! * Assignment V0: `version, error, leader, leader-url, config-offset, [connector, [task]]`.
//! * Assignment V1/V2: V0 plus a nullable revoked array and an `INT32` delay. One tolerant parser
//!   reads all three (missing trailing fields take their defaults, null arrays read as empty).
//!
//! Encoding reproduces Java's bytes exactly, including the order of the per-connector groups: Java
//! first walks the assigned connectors through a `java.util.HashSet`, so their order is the
//! set's bucket order; [`java_hash_order`] re-creates it. Revoked connectors keep their order.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use ferry_runtime::status::TaskId;
use indexmap::IndexMap;

/// Protocol version of `default` (eager).
pub const CONNECT_PROTOCOL_V0: i16 = 0;
/// Protocol version of `compatible` (incremental cooperative).
pub const CONNECT_PROTOCOL_V1: i16 = 1;
/// Protocol version of `sessioned` (incremental cooperative with session keys).
pub const CONNECT_PROTOCOL_V2: i16 = 2;
/// Task index that stands for the connector instance itself inside an assignment entry.
pub const CONNECTOR_TASK: i32 = -1;
/// Assignment error code: none.
pub const NO_ERROR: i16 = 0;
/// Assignment error code: the leader's config is behind a member's; read the config topic and rejoin.
pub const CONFIG_MISMATCH: i16 = 1;

/// Errors from decoding or encoding protocol bytes, or from parsing protocol names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("unsupported Connect protocol version: {0}")]
    UnsupportedVersion(i16),
    #[error("truncated {what}: needed {needed} bytes, only {available} available")]
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    #[error("{what} length {len} cannot be negative")]
    NegativeLength { what: &'static str, len: i32 },
    #[error("invalid task index {task} for connector {connector}")]
    InvalidTaskIndex { connector: String, task: i32 },
    #[error("{what} is too long to encode ({len} bytes)")]
    TooLong { what: &'static str, len: usize },
    #[error("task index {0} does not fit in an INT32")]
    TaskIndexTooLarge(usize),
    #[error("Unknown Connect protocol compatibility mode: {0}")]
    UnknownCompatibility(String),
    #[error("Not found Connect protocol compatibility mode for protocol: {0}")]
    UnknownProtocol(String),
    #[error("Unknown Connect protocol version: {0}")]
    UnknownProtocolVersion(i16),
}

// -------------------------------------------------------------------------------------------------
// Compatibility modes and protocol names

/// The worker setting `connect.protocol`: which group protocols a worker offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConnectProtocolCompatibility {
    /// Protocol `default`, version 0: stop-the-world rebalances.
    Eager,
    /// Protocol `compatible`, version 1: incremental cooperative rebalancing.
    Compatible,
    /// Protocol `sessioned`, version 2: cooperative plus signed internal requests.
    Sessioned,
}

impl ConnectProtocolCompatibility {
    /// All modes, oldest first.
    pub const ALL: [ConnectProtocolCompatibility; 3] =
        [Self::Eager, Self::Compatible, Self::Sessioned];

    /// Parses a `connect.protocol` value (`eager`, `compatible`, `sessioned`; any case).
    pub fn from_config(value: &str) -> Result<Self, ProtocolError> {
        Self::ALL
            .into_iter()
            .find(|m| m.config_name().eq_ignore_ascii_case(value))
            .ok_or_else(|| ProtocolError::UnknownCompatibility(value.to_owned()))
    }

    /// The mode behind a JoinGroup protocol name (`default`, `compatible`, `sessioned`; any case).
    pub fn from_protocol(name: &str) -> Result<Self, ProtocolError> {
        Self::ALL
            .into_iter()
            .find(|m| m.protocol().eq_ignore_ascii_case(name))
            .ok_or_else(|| ProtocolError::UnknownProtocol(name.to_owned()))
    }

    /// The mode for a protocol version (0, 1, 2).
    pub fn from_version(version: i16) -> Result<Self, ProtocolError> {
        match version {
            CONNECT_PROTOCOL_V0 => Ok(Self::Eager),
            CONNECT_PROTOCOL_V1 => Ok(Self::Compatible),
            CONNECT_PROTOCOL_V2 => Ok(Self::Sessioned),
            other => Err(ProtocolError::UnknownProtocolVersion(other)),
        }
    }

    /// The `connect.protocol` spelling: `eager`, `compatible`, `sessioned`.
    pub fn config_name(self) -> &'static str {
        match self {
            Self::Eager => "eager",
            Self::Compatible => "compatible",
            Self::Sessioned => "sessioned",
        }
    }

    /// The protocol name used in JoinGroup: `default`, `compatible`, `sessioned`.
    pub fn protocol(self) -> &'static str {
        match self {
            Self::Eager => "default",
            Self::Compatible => "compatible",
            Self::Sessioned => "sessioned",
        }
    }

    /// The protocol (and metadata/assignment) version: 0, 1, 2.
    pub fn version(self) -> i16 {
        match self {
            Self::Eager => CONNECT_PROTOCOL_V0,
            Self::Compatible => CONNECT_PROTOCOL_V1,
            Self::Sessioned => CONNECT_PROTOCOL_V2,
        }
    }

    /// Whether rebalances are incremental cooperative (versions 1 and 2).
    pub fn is_cooperative(self) -> bool {
        self != Self::Eager
    }

    /// The modes a worker configured with `self` offers in JoinGroup, most preferred first.
    pub fn offered(self) -> &'static [ConnectProtocolCompatibility] {
        match self {
            Self::Eager => &[Self::Eager],
            Self::Compatible => &[Self::Compatible, Self::Eager],
            Self::Sessioned => &[Self::Sessioned, Self::Compatible, Self::Eager],
        }
    }

    /// `(protocol name, metadata version)` pairs offered in JoinGroup, most preferred first.
    pub fn offered_protocols(self) -> Vec<(&'static str, i16)> {
        self.offered()
            .iter()
            .map(|m| (m.protocol(), m.version()))
            .collect()
    }
}

impl Default for ConnectProtocolCompatibility {
    /// `connect.protocol` defaults to `sessioned`.
    fn default() -> Self {
        Self::Sessioned
    }
}

impl fmt::Display for ConnectProtocolCompatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.config_name())
    }
}

impl FromStr for ConnectProtocolCompatibility {
    type Err = ProtocolError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_config(s)
    }
}

/// The version of a JoinGroup protocol name (`default`→0, `compatible`→1, `sessioned`→2).
pub fn protocol_version(protocol: &str) -> Option<i16> {
    ConnectProtocolCompatibility::from_protocol(protocol)
        .ok()
        .map(|m| m.version())
}

// -------------------------------------------------------------------------------------------------
// Data types

/// What one worker sends in JoinGroup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerMetadata {
    /// 0, 1 or 2. Version 0 has no allocation field.
    pub version: i16,
    /// The worker's advertised REST URL.
    pub url: String,
    /// The worker's config-topic position (last read + 1), or -1.
    pub config_offset: i64,
    /// Everything the worker owns right now (its last assignment snapshot); `None` = never assigned
    /// (null on the wire).
    pub allocation: Option<Assignment>,
}

/// What the leader sends to one member in SyncGroup (and what members report as `allocation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// 0 (eager, no revocations/delay on the wire), 1 or 2.
    pub version: i16,
    /// [`NO_ERROR`] or [`CONFIG_MISMATCH`].
    pub error: i16,
    /// The leader's member id.
    pub leader: String,
    /// The leader's REST URL.
    pub leader_url: String,
    /// The config offset the assignment was computed at.
    pub config_offset: i64,
    /// Connector instances (newly) assigned.
    pub connectors: Vec<String>,
    /// Tasks (newly) assigned.
    pub tasks: Vec<TaskId>,
    /// Connector instances to stop now (V1/V2).
    pub revoked_connectors: Vec<String>,
    /// Tasks to stop now (V1/V2).
    pub revoked_tasks: Vec<TaskId>,
    /// Milliseconds until the next scheduled rebalance, 0 for none (V1/V2).
    pub delay: i32,
}

impl Assignment {
    /// The "nothing assigned yet" assignment (Java's `ExtendedAssignment.empty()`): version 1, no
    /// leader, offset -1. Note that a worker's metadata reports a never-assigned state as
    /// `allocation: None` (null), not as this value.
    pub fn empty() -> Self {
        Self::new(
            CONNECT_PROTOCOL_V1,
            NO_ERROR,
            String::new(),
            String::new(),
            -1,
        )
    }

    /// An assignment without any connectors, tasks, revocations or delay.
    pub fn new(
        version: i16,
        error: i16,
        leader: String,
        leader_url: String,
        config_offset: i64,
    ) -> Self {
        Self {
            version,
            error,
            leader,
            leader_url,
            config_offset,
            connectors: Vec::new(),
            tasks: Vec::new(),
            revoked_connectors: Vec::new(),
            revoked_tasks: Vec::new(),
            delay: 0,
        }
    }

    /// A `CONFIG_MISMATCH` assignment (empty lists, no delay).
    pub fn config_mismatch(
        version: i16,
        leader: String,
        leader_url: String,
        config_offset: i64,
    ) -> Self {
        Self::new(version, CONFIG_MISMATCH, leader, leader_url, config_offset)
    }

    /// True when nothing is assigned and nothing is revoked.
    pub fn is_empty(&self) -> bool {
        self.connectors.is_empty()
            && self.tasks.is_empty()
            && self.revoked_connectors.is_empty()
            && self.revoked_tasks.is_empty()
    }

    /// True when the assignment carries an error (the leader could not assign).
    pub fn failed(&self) -> bool {
        self.error != NO_ERROR
    }

    /// True when the assignment revokes anything.
    pub fn has_revocations(&self) -> bool {
        !self.revoked_connectors.is_empty() || !self.revoked_tasks.is_empty()
    }
}

// -------------------------------------------------------------------------------------------------
// Metadata

/// Serializes member metadata. Version 0 writes no allocation; versions ≥ 1 write the allocation
/// as nullable bytes, encoded (as Java does) with the *metadata's* version in its header.
pub fn encode_metadata(metadata: &WorkerMetadata) -> Result<Vec<u8>, ProtocolError> {
    if metadata.version < 0 {
        return Err(ProtocolError::UnsupportedVersion(metadata.version));
    }
    let mut out = Vec::with_capacity(64);
    put_i16(&mut out, metadata.version);
    put_string(&mut out, "url", &metadata.url)?;
    put_i64(&mut out, metadata.config_offset);
    if metadata.version >= CONNECT_PROTOCOL_V1 {
        match &metadata.allocation {
            None => put_i32(&mut out, -1),
            Some(allocation) => {
                let bytes = encode_assignment_with_version(allocation, metadata.version)?;
                put_len(&mut out, "allocation", bytes.len())?;
                out.extend_from_slice(&bytes);
            }
        }
    }
    Ok(out)
}

/// Parses member metadata of any version (the V1 layout, tolerating a missing allocation, which
/// is how V0 bytes look). Trailing bytes are ignored, as in Java.
pub fn decode_metadata(bytes: &[u8]) -> Result<WorkerMetadata, ProtocolError> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    if version < 0 {
        return Err(ProtocolError::UnsupportedVersion(version));
    }
    let url = r.string("url")?;
    let config_offset = r.i64("config-offset")?;
    let allocation = if r.has_remaining() {
        match r.nullable_bytes("allocation")? {
            Some(inner) => Some(decode_assignment(inner)?),
            None => None,
        }
    } else {
        None
    };
    Ok(WorkerMetadata {
        version,
        url,
        config_offset,
        allocation,
    })
}

/// The JoinGroup protocols (name, metadata bytes) a worker offers, most preferred first.
pub fn metadata_protocols(
    compatibility: ConnectProtocolCompatibility,
    url: &str,
    config_offset: i64,
    allocation: Option<&Assignment>,
) -> Result<Vec<(&'static str, Vec<u8>)>, ProtocolError> {
    compatibility
        .offered()
        .iter()
        .map(|mode| {
            let metadata = WorkerMetadata {
                version: mode.version(),
                url: url.to_owned(),
                config_offset,
                allocation: allocation.cloned(),
            };
            Ok((mode.protocol(), encode_metadata(&metadata)?))
        })
        .collect()
}

// -------------------------------------------------------------------------------------------------
// Assignments

/// Serializes an assignment: the V0 layout for version 0, the V1 layout (with `version` in the
/// header) otherwise.
pub fn encode_assignment(assignment: &Assignment) -> Result<Vec<u8>, ProtocolError> {
    encode_assignment_with_version(assignment, assignment.version)
}

fn encode_assignment_with_version(
    assignment: &Assignment,
    version: i16,
) -> Result<Vec<u8>, ProtocolError> {
    if version < 0 {
        return Err(ProtocolError::UnsupportedVersion(version));
    }
    if let Some(bad) = assignment
        .tasks
        .iter()
        .chain(&assignment.revoked_tasks)
        .find(|t| i32::try_from(t.task).is_err())
    {
        return Err(ProtocolError::TaskIndexTooLarge(bad.task));
    }
    let mut out = Vec::with_capacity(128);
    put_i16(&mut out, version);
    put_i16(&mut out, assignment.error);
    put_string(&mut out, "leader", &assignment.leader)?;
    put_string(&mut out, "leader-url", &assignment.leader_url)?;
    put_i64(&mut out, assignment.config_offset);
    put_groups(
        &mut out,
        &assigned_groups(&assignment.connectors, &assignment.tasks),
    )?;
    if version >= CONNECT_PROTOCOL_V1 {
        put_groups(
            &mut out,
            &revoked_groups(&assignment.revoked_connectors, &assignment.revoked_tasks),
        )?;
        put_i32(&mut out, assignment.delay);
    }
    Ok(out)
}

/// Parses an assignment of any version with the tolerant V1 layout: fields missing at the end
/// take their defaults (empty lists, delay 0), null arrays read as empty, and any version ≥ 0 is
/// accepted. Trailing bytes are ignored, as in Java.
pub fn decode_assignment(bytes: &[u8]) -> Result<Assignment, ProtocolError> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    if version < 0 {
        return Err(ProtocolError::UnsupportedVersion(version));
    }
    let mut a = Assignment::new(
        version,
        r.i16("error")?,
        r.string("leader")?,
        r.string("leader-url")?,
        0,
    );
    a.config_offset = r.i64("config-offset")?;
    if r.has_remaining() {
        read_groups(&mut r, "assignment", &mut a.connectors, &mut a.tasks)?;
    }
    if r.has_remaining() {
        read_groups(
            &mut r,
            "revoked",
            &mut a.revoked_connectors,
            &mut a.revoked_tasks,
        )?;
    }
    if r.has_remaining() {
        a.delay = r.i32("delay")?;
    }
    Ok(a)
}

type Groups<'a> = IndexMap<&'a str, Vec<i32>>;

/// Groups assigned work per connector the way Java does: connector instances first, in
/// `java.util.HashSet` order, then tasks in list order (new connectors appended).
fn assigned_groups<'a>(connectors: &'a [String], tasks: &'a [TaskId]) -> Groups<'a> {
    let mut seen = HashSet::new();
    let distinct: Vec<&str> = connectors
        .iter()
        .map(String::as_str)
        .filter(|c| seen.insert(*c))
        .collect();
    let ordered = java_hash_order(
        distinct,
        |c| java_string_hash(c),
        hash_set_copy_capacity(connectors.len()),
    );
    let mut groups = Groups::new();
    for connector in ordered {
        groups.entry(connector).or_default().push(CONNECTOR_TASK);
    }
    add_tasks(&mut groups, tasks);
    groups
}

/// Groups revoked work per connector: connector instances in list order (duplicates dropped),
/// then tasks.
fn revoked_groups<'a>(connectors: &'a [String], tasks: &'a [TaskId]) -> Groups<'a> {
    let mut groups = Groups::new();
    for connector in connectors {
        let entry = groups.entry(connector.as_str()).or_default();
        if !entry.contains(&CONNECTOR_TASK) {
            entry.push(CONNECTOR_TASK);
        }
    }
    add_tasks(&mut groups, tasks);
    groups
}

fn add_tasks<'a>(groups: &mut Groups<'a>, tasks: &'a [TaskId]) {
    for task in tasks {
        // Indices were checked to fit an INT32 before grouping.
        groups
            .entry(task.connector.as_str())
            .or_default()
            .push(task.task as i32);
    }
}

fn put_groups(out: &mut Vec<u8>, groups: &Groups<'_>) -> Result<(), ProtocolError> {
    put_len(out, "assignment array", groups.len())?;
    for (connector, tasks) in groups {
        put_string(out, "connector", connector)?;
        put_len(out, "task array", tasks.len())?;
        for &task in tasks {
            put_i32(out, task);
        }
    }
    Ok(())
}

fn read_groups(
    r: &mut Reader<'_>,
    what: &'static str,
    connectors: &mut Vec<String>,
    tasks: &mut Vec<TaskId>,
) -> Result<(), ProtocolError> {
    let Some(count) = r.array_len(what, true)? else {
        return Ok(());
    };
    for _ in 0..count {
        let connector = r.string("connector")?;
        let n = r.array_len("tasks", false)?.unwrap_or(0);
        for _ in 0..n {
            let task = r.i32("task")?;
            if task == CONNECTOR_TASK {
                connectors.push(connector.clone());
            } else {
                let index = usize::try_from(task).map_err(|_| ProtocolError::InvalidTaskIndex {
                    connector: connector.clone(),
                    task,
                })?;
                tasks.push(TaskId {
                    connector: connector.clone(),
                    task: index,
                });
            }
        }
    }
    Ok(())
}

// -------------------------------------------------------------------------------------------------
// Primitive encoding

fn put_i16(out: &mut Vec<u8>, v: i16) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put_len(out: &mut Vec<u8>, what: &'static str, len: usize) -> Result<(), ProtocolError> {
    let len = i32::try_from(len).map_err(|_| ProtocolError::TooLong { what, len })?;
    put_i32(out, len);
    Ok(())
}

fn put_string(out: &mut Vec<u8>, what: &'static str, s: &str) -> Result<(), ProtocolError> {
    let len = i16::try_from(s.len()).map_err(|_| ProtocolError::TooLong { what, len: s.len() })?;
    put_i16(out, len);
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn has_remaining(&self) -> bool {
        self.remaining() > 0
    }

    fn take(&mut self, what: &'static str, n: usize) -> Result<&'a [u8], ProtocolError> {
        if n > self.remaining() {
            return Err(ProtocolError::Truncated {
                what,
                needed: n,
                available: self.remaining(),
            });
        }
        let slice = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ProtocolError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(what, N)?);
        Ok(a)
    }

    fn i16(&mut self, what: &'static str) -> Result<i16, ProtocolError> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }

    fn i32(&mut self, what: &'static str) -> Result<i32, ProtocolError> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    fn i64(&mut self, what: &'static str) -> Result<i64, ProtocolError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    /// `STRING`: not nullable; invalid UTF-8 is replaced like Java's decoder does.
    fn string(&mut self, what: &'static str) -> Result<String, ProtocolError> {
        let len = self.i16(what)?;
        if len < 0 {
            return Err(ProtocolError::NegativeLength {
                what,
                len: len.into(),
            });
        }
        let bytes = self.take(what, len as usize)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    /// `NULLABLE_BYTES`: any negative length is null.
    fn nullable_bytes(&mut self, what: &'static str) -> Result<Option<&'a [u8]>, ProtocolError> {
        let len = self.i32(what)?;
        if len < 0 {
            return Ok(None);
        }
        self.take(what, len as usize).map(Some)
    }

    /// An array count. Negative = null when `nullable`, an error otherwise. Like Java, a count
    /// larger than the remaining bytes is rejected before reading any element.
    fn array_len(
        &mut self,
        what: &'static str,
        nullable: bool,
    ) -> Result<Option<usize>, ProtocolError> {
        let len = self.i32(what)?;
        if len < 0 {
            return if nullable {
                Ok(None)
            } else {
                Err(ProtocolError::NegativeLength { what, len })
            };
        }
        let len = len as usize;
        if len > self.remaining() {
            return Err(ProtocolError::Truncated {
                what,
                needed: len,
                available: self.remaining(),
            });
        }
        Ok(Some(len))
    }
}

// -------------------------------------------------------------------------------------------------
// java.util.HashMap / HashSet iteration order

/// `java.lang.String#hashCode`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 code units, wrapping.
pub(crate) fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// Table size of `new HashSet<>(collection)` with `len` elements (JDK 17:
/// `max((int) (len / .75f) + 1, 16)` rounded up to a power of two).
pub(crate) fn hash_set_copy_capacity(len: usize) -> usize {
    let wanted = ((len as f32 / 0.75f32) as usize + 1).max(16);
    wanted.next_power_of_two()
}

/// Table size of a `HashMap`/`HashSet` built with the default constructor and `len` puts: 16,
/// doubled whenever the size passes three quarters of the table.
pub(crate) fn hash_map_put_capacity(len: usize) -> usize {
    let mut capacity = 16usize;
    while len > capacity / 4 * 3 {
        capacity *= 2;
    }
    capacity
}

/// Orders distinct `items` (given in insertion order) the way a `java.util.HashMap` with a table of
/// `capacity` buckets iterates them: by bucket (`(h ^ h >>> 16) & (capacity - 1)`), then insertion
/// order within a bucket. Tree bins (8+ collisions in one bucket) are not modelled.
pub(crate) fn java_hash_order<T>(
    items: Vec<T>,
    hash: impl Fn(&T) -> i32,
    capacity: usize,
) -> Vec<T> {
    debug_assert!(capacity.is_power_of_two());
    let mask = (capacity - 1) as u32;
    let mut keyed: Vec<(u32, T)> = items
        .into_iter()
        .map(|item| {
            let h = hash(&item) as u32;
            ((h ^ (h >> 16)) & mask, item)
        })
        .collect();
    keyed.sort_by_key(|(bucket, _)| *bucket); // stable: keeps insertion order inside a bucket
    keyed.into_iter().map(|(_, item)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const FIXTURES: &str = include_str!("../testdata/protocol/fixtures.json");

    fn hex_decode(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn hex_encode(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn strings(v: &Value) -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    }

    fn tasks(v: &Value) -> Vec<TaskId> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| TaskId {
                connector: p[0].as_str().unwrap().to_owned(),
                task: p[1].as_u64().unwrap() as usize,
            })
            .collect()
    }

    fn assignment_from_json(v: &Value) -> Assignment {
        Assignment {
            version: v["version"].as_i64().unwrap() as i16,
            error: v["error"].as_i64().unwrap() as i16,
            leader: v["leader"].as_str().unwrap().to_owned(),
            leader_url: v["leader_url"].as_str().unwrap().to_owned(),
            config_offset: v["config_offset"].as_i64().unwrap(),
            connectors: strings(&v["connectors"]),
            tasks: tasks(&v["tasks"]),
            revoked_connectors: strings(&v["revoked_connectors"]),
            revoked_tasks: tasks(&v["revoked_tasks"]),
            delay: v["delay"].as_i64().unwrap() as i32,
        }
    }

    fn metadata_from_json(v: &Value, version: i16) -> WorkerMetadata {
        WorkerMetadata {
            version,
            url: v["url"].as_str().unwrap().to_owned(),
            config_offset: v["config_offset"].as_i64().unwrap(),
            allocation: if v["allocation"].is_null() {
                None
            } else {
                Some(assignment_from_json(&v["allocation"]))
            },
        }
    }

    fn cases() -> Vec<Value> {
        serde_json::from_str::<Value>(FIXTURES)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    #[test]
    fn protocol_java_fixtures_decode_and_reencode() {
        let cases = cases();
        assert!(cases.len() >= 40, "fixtures missing");
        for case in &cases {
            let name = case["name"].as_str().unwrap();
            let bytes = hex_decode(case["hex"].as_str().unwrap());
            let roundtrip = case["roundtrip"].as_bool().unwrap();
            match case["kind"].as_str().unwrap() {
                "assignment" => {
                    let decoded = decode_assignment(&bytes);
                    if case.get("error").is_some() {
                        assert!(
                            decoded.is_err(),
                            "{name}: Java rejects these bytes, got {decoded:?}"
                        );
                        continue;
                    }
                    let decoded = decoded.unwrap_or_else(|e| panic!("{name}: {e}"));
                    let expected = assignment_from_json(&case["decoded"]);
                    assert_eq!(decoded, expected, "{name}: decoded fields");
                    if roundtrip {
                        let encoded = encode_assignment(&expected).unwrap();
                        assert_eq!(
                            hex_encode(&encoded),
                            hex_encode(&bytes),
                            "{name}: re-encoded bytes"
                        );
                    }
                }
                "metadata" => {
                    let decoded = decode_metadata(&bytes);
                    if case.get("error").is_some() {
                        assert!(
                            decoded.is_err(),
                            "{name}: Java rejects these bytes, got {decoded:?}"
                        );
                        continue;
                    }
                    let decoded = decoded.unwrap_or_else(|e| panic!("{name}: {e}"));
                    let version = i16::from_be_bytes([bytes[0], bytes[1]]);
                    let expected = metadata_from_json(&case["decoded"], version);
                    assert_eq!(decoded, expected, "{name}: decoded fields");
                    if roundtrip {
                        let encoded = encode_metadata(&expected).unwrap();
                        assert_eq!(
                            hex_encode(&encoded),
                            hex_encode(&bytes),
                            "{name}: re-encoded bytes"
                        );
                    }
                }
                other => panic!("{name}: unknown kind {other}"),
            }
        }
    }

    #[test]
    fn protocol_spec_example_v2_no_allocation() {
        let metadata = WorkerMetadata {
            version: 2,
            url: "http://w1:8083/".to_owned(),
            config_offset: 42,
            allocation: None,
        };
        let expected = "0002000f687474703a2f2f77313a383038332f000000000000002affffffff";
        assert_eq!(hex_encode(&encode_metadata(&metadata).unwrap()), expected);
        assert_eq!(decode_metadata(&hex_decode(expected)).unwrap(), metadata);
    }

    #[test]
    fn protocol_v0_metadata_drops_allocation() {
        let metadata = WorkerMetadata {
            version: 0,
            url: "u".to_owned(),
            config_offset: 3,
            allocation: Some(Assignment::empty()),
        };
        let bytes = encode_metadata(&metadata).unwrap();
        assert_eq!(bytes.len(), 2 + 3 + 8);
        assert_eq!(decode_metadata(&bytes).unwrap().allocation, None);
    }

    #[test]
    fn protocol_metadata_allocation_takes_metadata_version() {
        let mut allocation = Assignment::new(1, NO_ERROR, "l".into(), "u".into(), 4);
        allocation.connectors.push("c".into());
        let metadata = WorkerMetadata {
            version: 2,
            url: "u".into(),
            config_offset: 4,
            allocation: Some(allocation),
        };
        let decoded = decode_metadata(&encode_metadata(&metadata).unwrap()).unwrap();
        assert_eq!(decoded.allocation.unwrap().version, 2);
    }

    #[test]
    fn protocol_v0_assignment_has_no_revocations_or_delay() {
        let mut a = Assignment::new(0, NO_ERROR, "l".into(), "u".into(), 1);
        a.connectors.push("c".into());
        a.revoked_connectors.push("r".into());
        a.delay = 7;
        let decoded = decode_assignment(&encode_assignment(&a).unwrap()).unwrap();
        assert_eq!(decoded.connectors, vec!["c".to_owned()]);
        assert!(decoded.revoked_connectors.is_empty());
        assert_eq!(decoded.delay, 0);
        assert_eq!(decoded.version, 0);
    }

    #[test]
    fn protocol_rejects_bad_input() {
        assert!(matches!(
            decode_assignment(&[]),
            Err(ProtocolError::Truncated { .. })
        ));
        assert!(matches!(
            decode_metadata(&[0xff, 0xff]),
            Err(ProtocolError::UnsupportedVersion(-1))
        ));
        // Array count far beyond the buffer: rejected without allocating.
        let mut b = vec![0, 1, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&0i64.to_be_bytes());
        b.extend_from_slice(&i32::MAX.to_be_bytes());
        assert!(matches!(
            decode_assignment(&b),
            Err(ProtocolError::Truncated { .. })
        ));
        // A negative task index other than -1.
        let mut b = vec![0, 1, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&0i64.to_be_bytes());
        b.extend_from_slice(&1i32.to_be_bytes());
        b.extend_from_slice(&[0, 1, b'c']);
        b.extend_from_slice(&1i32.to_be_bytes());
        b.extend_from_slice(&(-2i32).to_be_bytes());
        assert!(matches!(
            decode_assignment(&b),
            Err(ProtocolError::InvalidTaskIndex { task: -2, .. })
        ));
    }

    #[test]
    fn protocol_encode_rejects_unencodable_values() {
        let mut a = Assignment::new(2, NO_ERROR, "x".repeat(40_000), "u".into(), 1);
        assert!(matches!(
            encode_assignment(&a),
            Err(ProtocolError::TooLong { what: "leader", .. })
        ));
        a.leader = "l".into();
        a.tasks.push(TaskId {
            connector: "c".into(),
            task: usize::MAX,
        });
        assert!(matches!(
            encode_assignment(&a),
            Err(ProtocolError::TaskIndexTooLarge(_))
        ));
    }

    #[test]
    fn protocol_compatibility_names() {
        use ConnectProtocolCompatibility::*;
        assert_eq!(
            ConnectProtocolCompatibility::from_config("EAGER").unwrap(),
            Eager
        );
        assert_eq!(
            "Sessioned".parse::<ConnectProtocolCompatibility>().unwrap(),
            Sessioned
        );
        assert!(ConnectProtocolCompatibility::from_config("default").is_err());
        assert_eq!(
            ConnectProtocolCompatibility::from_protocol("default").unwrap(),
            Eager
        );
        assert_eq!(
            ConnectProtocolCompatibility::from_protocol("COMPATIBLE").unwrap(),
            Compatible
        );
        assert!(ConnectProtocolCompatibility::from_protocol("eager").is_err());
        assert_eq!(protocol_version("sessioned"), Some(2));
        assert_eq!(protocol_version("default"), Some(0));
        assert_eq!(protocol_version("range"), None);
        assert_eq!(
            ConnectProtocolCompatibility::from_version(1).unwrap(),
            Compatible
        );
        assert_eq!(Eager.offered_protocols(), vec![("default", 0)]);
        assert_eq!(
            Compatible.offered_protocols(),
            vec![("compatible", 1), ("default", 0)]
        );
        assert_eq!(
            Sessioned.offered_protocols(),
            vec![("sessioned", 2), ("compatible", 1), ("default", 0)]
        );
        assert_eq!(ConnectProtocolCompatibility::default(), Sessioned);
        assert_eq!(Compatible.to_string(), "compatible");
    }

    #[test]
    fn protocol_metadata_protocols_per_mode() {
        let offered = metadata_protocols(
            ConnectProtocolCompatibility::Sessioned,
            "http://w1:8083/",
            42,
            None,
        )
        .unwrap();
        let names: Vec<_> = offered.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["sessioned", "compatible", "default"]);
        assert_eq!(
            hex_encode(&offered[0].1),
            "0002000f687474703a2f2f77313a383038332f000000000000002affffffff"
        );
        assert_eq!(
            hex_encode(&offered[1].1),
            "0001000f687474703a2f2f77313a383038332f000000000000002affffffff"
        );
        assert_eq!(
            hex_encode(&offered[2].1),
            "0000000f687474703a2f2f77313a383038332f000000000000002a"
        );
    }

    #[test]
    fn protocol_java_hash_helpers() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        // Surrogate pairs hash as two UTF-16 units.
        assert_eq!(java_string_hash("\u{1F680}"), 0xD83D * 31 + 0xDE80);
        assert_eq!(hash_set_copy_capacity(0), 16);
        assert_eq!(hash_set_copy_capacity(11), 16);
        assert_eq!(hash_set_copy_capacity(12), 32);
        assert_eq!(hash_set_copy_capacity(24), 64);
        assert_eq!(hash_map_put_capacity(12), 16);
        assert_eq!(hash_map_put_capacity(13), 32);
        assert_eq!(hash_map_put_capacity(25), 64);
    }
}
