//! Native connectors that hang in the call their config names, the native twins of the Java
//! test plugin's `HangingSourceConnector`: the stuck plugins of the tests that show one
//! connector never holds up the worker. Built into `ferry` only for the broker tests (feature
//! `kafka-integration-tests`) and registered only when `FERRY_TEST_CONNECTORS` is set.
//!
//! `hang.in` is one of none, start, taskConfigs, stop, alterOffsets (blocking the calling
//! thread, as a plugin stuck in a blocking call does), poll or put (a task's call that does
//! not return);
//! `hang.ms` is how long (default 45000).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator};
use ferry_api::connector::{Connector, ConnectorContext, SinkConnector, SourceConnector};
use ferry_api::record::{OffsetMap, SinkRecord, SourceRecord};
use ferry_api::task::{SinkTask, SinkTaskContext, SourceTask, SourceTaskContext};
use ferry_api::ConfigMap;

pub const SOURCE_CLASS_NAME: &str = "dev.ferry.test.HangingSourceConnector";
pub const SINK_CLASS_NAME: &str = "dev.ferry.test.HangingSinkConnector";
pub const VERSION: &str = "0.1.0";
pub const HANG_IN: &str = "hang.in";
pub const HANG_MS: &str = "hang.ms";

static ENTERED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Whether a connector named `name` has entered its hanging call.
pub fn entered(name: &str) -> bool {
    ENTERED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .is_some_and(|s| s.contains(name))
}

fn enter(name: &str) {
    ENTERED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(name.to_owned());
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                HANG_IN,
                ConfigType::String,
                DefaultValue::Value("none".into()),
                Importance::High,
                "The call that hangs.",
            )
            .validator(Validator::OneOf(
                [
                    "none",
                    "start",
                    "taskConfigs",
                    "stop",
                    "alterOffsets",
                    "poll",
                    "put",
                ]
                .map(String::from)
                .to_vec(),
            )),
        )
        .define(ConfigKey::new(
            HANG_MS,
            ConfigType::Long,
            DefaultValue::Value("45000".into()),
            Importance::Medium,
            "How long it hangs, in milliseconds.",
        ))
}

/// The call a config hangs in, and for how long.
#[derive(Debug, Clone, Default)]
struct Hang {
    name: String,
    call: String,
    time: Duration,
}

impl Hang {
    fn of(props: &ConfigMap) -> Self {
        Hang {
            name: props.get("name").cloned().unwrap_or_default(),
            call: props
                .get(HANG_IN)
                .cloned()
                .unwrap_or_else(|| "none".to_owned()),
            time: Duration::from_millis(
                props
                    .get(HANG_MS)
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(45_000),
            ),
        }
    }

    /// Blocks the calling thread, as a plugin stuck in a blocking call does.
    fn block_if(&self, call: &str) {
        if self.call == call {
            enter(&self.name);
            std::thread::sleep(self.time);
        }
    }

    /// A task's call that does not return for the hang's time.
    async fn wait_if(&self, call: &str) {
        if self.call == call {
            enter(&self.name);
            tokio::time::sleep(self.time).await;
        }
    }
}

/// The connector of either kind.
#[derive(Default)]
pub struct HangingConnector {
    props: ConfigMap,
    hang: Hang,
}

impl Connector for HangingConnector {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn start(
        &mut self,
        props: &ConfigMap,
        _: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        self.props = props.clone();
        self.hang = Hang::of(props);
        self.hang.block_if("start");
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        self.hang.block_if("taskConfigs");
        Ok(if max_tasks >= 1 {
            vec![self.props.clone()]
        } else {
            Vec::new()
        })
    }

    fn stop(&mut self) -> ferry_api::error::Result<()> {
        self.hang.block_if("stop");
        Ok(())
    }

    /// Asked of a new instance, with the stopped connector's config.
    fn alter_offsets(
        &self,
        config: &ConfigMap,
        _: &[(OffsetMap, Option<OffsetMap>)],
    ) -> ferry_api::error::Result<bool> {
        Hang::of(config).block_if("alterOffsets");
        Ok(true)
    }
}

impl SourceConnector for HangingConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::new(HangingTask::default())
    }
}

impl SinkConnector for HangingConnector {
    fn create_task(&self) -> Box<dyn SinkTask> {
        Box::new(HangingTask::default())
    }
}

#[derive(Default)]
struct HangingTask {
    hang: Hang,
}

#[async_trait]
impl SourceTask for HangingTask {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        _: SourceTaskContext,
    ) -> ferry_api::error::Result<()> {
        self.hang = Hang::of(props);
        Ok(())
    }

    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        self.hang.wait_if("poll").await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(Vec::new())
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

#[async_trait]
impl SinkTask for HangingTask {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    async fn start(
        &mut self,
        props: &ConfigMap,
        _: Arc<dyn SinkTaskContext>,
    ) -> ferry_api::error::Result<()> {
        self.hang = Hang::of(props);
        Ok(())
    }

    async fn put(&mut self, records: &[SinkRecord]) -> ferry_api::error::Result<()> {
        if !records.is_empty() {
            self.hang.wait_if("put").await;
        }
        Ok(())
    }

    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}
