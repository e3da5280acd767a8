//! FileStreamSinkConnector: appends each record's value to a file (or standard output).

use std::sync::Arc;

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance};
use ferry_api::connector::{Connector, ConnectorContext, SinkConnector};
use ferry_api::error::Result;
use ferry_api::record::OffsetMap;
use ferry_api::task::SinkTask;
use ferry_api::ConfigMap;

use crate::sink_task::FileStreamSinkTask;
use crate::{FILE_CONFIG, VERSION};

pub const SINK_CLASS_NAME: &str = "org.apache.kafka.connect.file.FileStreamSinkConnector";

#[derive(Default)]
pub struct FileStreamSinkConnector {
    props: ConfigMap,
}

pub(crate) fn sink_config_def() -> ConfigDef {
    ConfigDef::new().define(ConfigKey::new(
        FILE_CONFIG,
        ConfigType::String,
        DefaultValue::Null,
        Importance::High,
        "Destination filename. If not specified, the standard output will be used",
    ))
}

impl Connector for FileStreamSinkConnector {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    fn config_def(&self) -> ConfigDef {
        sink_config_def()
    }

    fn start(&mut self, props: &ConfigMap, _context: Arc<dyn ConnectorContext>) -> Result<()> {
        sink_config_def().parse(props)?;
        self.props = props.clone();
        Ok(())
    }

    /// Every task gets the same config: all of them append to the one file.
    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>> {
        Ok(vec![self.props.clone(); max_tasks.max(1)])
    }

    fn stop(&mut self) -> Result<()> {
        Ok(())
    }

    /// The sink keeps no offsets of its own, so whatever Kafka holds is all there is.
    fn alter_offsets(
        &self,
        _config: &ConfigMap,
        _offsets: &[(OffsetMap, Option<OffsetMap>)],
    ) -> Result<bool> {
        Ok(true)
    }
}

impl SinkConnector for FileStreamSinkConnector {
    fn create_task(&self) -> Box<dyn SinkTask> {
        Box::new(FileStreamSinkTask::default())
    }
}
