//! The FileStream connectors: Apache Kafka's smallest end-to-end example, under the same class
//! names and config keys.

mod file_io;
mod sink;
mod sink_task;
mod source;
mod source_task;

pub use sink::{FileStreamSinkConnector, SINK_CLASS_NAME};
pub use source::{FileStreamSourceConnector, SOURCE_CLASS_NAME};

/// The version the FileStream plugins report.
pub const VERSION: &str = ferry_api::KAFKA_CONNECT_VERSION;

pub const FILE_CONFIG: &str = "file";
pub const TOPIC_CONFIG: &str = "topic";
pub const TASK_BATCH_SIZE_CONFIG: &str = "batch.size";
pub const DEFAULT_TASK_BATCH_SIZE: i32 = 2000;

/// Source partition key and source offset key, as Java's FileStreamSourceTask stores them.
pub const FILENAME_FIELD: &str = "filename";
pub const POSITION_FIELD: &str = "position";
