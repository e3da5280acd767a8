//! Where the worker keeps source offsets (and, in distributed mode, configs and statuses).

pub mod connector_offsets;
pub mod file_offsets;
pub mod java_serialized_map;
pub mod offset_codec;
pub mod offsets;
