//! FileStreamSourceConnector: reads lines from one file (or standard input) into one topic.

use std::sync::Arc;

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};
use ferry_api::connector::{Connector, ConnectorContext, ExactlyOnceSupport, SourceConnector};
use ferry_api::error::Result;
use ferry_api::record::OffsetMap;
use ferry_api::task::SourceTask;
use ferry_api::{ConfigMap, ConnectError};

use crate::source_task::FileStreamSourceTask;
use crate::{
    DEFAULT_TASK_BATCH_SIZE, FILENAME_FIELD, FILE_CONFIG, POSITION_FIELD, TASK_BATCH_SIZE_CONFIG,
    TOPIC_CONFIG, VERSION,
};

pub const SOURCE_CLASS_NAME: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";

#[derive(Default)]
pub struct FileStreamSourceConnector {
    props: ConfigMap,
}

pub(crate) fn source_config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            FILE_CONFIG,
            ConfigType::String,
            DefaultValue::Null,
            Importance::High,
            "Source filename. If not specified, the standard input will be used",
        ))
        .define(
            ConfigKey::new(TOPIC_CONFIG, ConfigType::String, DefaultValue::Required, Importance::High, "The topic to publish data to")
                .validator(Validator::NonEmptyString),
        )
        .define(
            ConfigKey::new(
                TASK_BATCH_SIZE_CONFIG,
                ConfigType::Int,
                DefaultValue::Value(DEFAULT_TASK_BATCH_SIZE.to_string()),
                Importance::Low,
                "The maximum number of records the source task can read from the file each time it is polled",
            ),
        )
}

impl Connector for FileStreamSourceConnector {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    fn config_def(&self) -> ConfigDef {
        source_config_def()
    }

    fn start(&mut self, props: &ConfigMap, _context: Arc<dyn ConnectorContext>) -> Result<()> {
        source_config_def().parse(props)?;
        self.props = props.clone();
        Ok(())
    }

    /// One task whatever `max_tasks` says: a single file cannot be read in parallel.
    fn task_configs(&self, _max_tasks: usize) -> Result<Vec<ConfigMap>> {
        Ok(vec![self.props.clone()])
    }

    fn stop(&mut self) -> Result<()> {
        Ok(())
    }

    /// Offsets are positions in the file, so any non-negative whole number will do.
    fn alter_offsets(
        &self,
        _config: &ConfigMap,
        offsets: &[(OffsetMap, Option<OffsetMap>)],
    ) -> Result<bool> {
        // Java's checks, in Java's order: the offset (tombstones always pass, so stale
        // partitions can be cleaned up), then the partition.
        for (partition, offset) in offsets {
            let Some(offset) = offset else { continue };
            let Some(position) = offset.get(POSITION_FIELD) else {
                return Err(ConnectError::other(format!(
                    "Offset objects should either be null or contain the key '{POSITION_FIELD}'"
                )));
            };
            let Some(position) = position.as_i64() else {
                return Err(ConnectError::other(format!(
                    "The value for the '{POSITION_FIELD}' key in the offset is expected to be a Long value"
                )));
            };
            if position < 0 {
                return Err(ConnectError::other(format!(
                    "The value for the '{POSITION_FIELD}' key in the offset should be a non-negative value"
                )));
            }
            if !partition.contains_key(FILENAME_FIELD) {
                return Err(ConnectError::other(format!(
                    "Partition objects should contain the key '{FILENAME_FIELD}'"
                )));
            }
        }
        Ok(true)
    }
}

impl SourceConnector for FileStreamSourceConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::new(FileStreamSourceTask::default())
    }

    /// As Java's: a file appended to only is read again from a stored position exactly; standard
    /// input keeps no offsets.
    fn exactly_once_support(
        &self,
        props: &ConfigMap,
    ) -> ferry_api::error::Result<Option<ExactlyOnceSupport>> {
        Ok(Some(if props.get("file").is_some_and(|f| !f.is_empty()) {
            ExactlyOnceSupport::Supported
        } else {
            ExactlyOnceSupport::Unsupported
        }))
    }
}
