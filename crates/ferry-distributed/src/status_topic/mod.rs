//! The status topic: record formats and the status cache with its read rules.

pub mod cache;
pub mod records;

pub use cache::StatusCache;
pub use records::{StatusKey, StatusRecord, StatusRecordError, StatusValue};
