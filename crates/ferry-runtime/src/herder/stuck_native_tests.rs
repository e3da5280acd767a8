//! Native plugins that never return from a call (a sink's put, a source's poll, a connector's
//! taskConfigs) hold up nothing else in a standalone worker: the herder answers, another
//! connector runs, and the stuck one is deleted within the graceful timeout.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::config::ConfigDef;
use ferry_api::connector::{
    AnyConnector, Connector, ConnectorContext, SinkConnector, SourceConnector,
};
use ferry_api::record::{SinkRecord, SourceRecord};
use ferry_api::task::{SinkTask, SinkTaskContext, SourceTask, SourceTaskContext};
use ferry_api::ConfigMap;

use super::tests::{setup_with, until, Setup};
use crate::herder::Herder;
use crate::plugins::{ConnectorPlugin, PluginKind, Registry};
use crate::status::State;
use crate::worker::TargetState;

/// The graceful timeout of the workers `setup_with` makes.
const GRACEFUL: Duration = Duration::from_secs(2);

static PUT_ENTERED: AtomicBool = AtomicBool::new(false);
static POLL_ENTERED: AtomicBool = AtomicBool::new(false);
static TASK_CONFIGS_ENTERED: AtomicBool = AtomicBool::new(false);

/// A connector whose `stuck.in` call (put, poll or taskConfigs) never returns.
struct StuckConnector {
    props: ConfigMap,
}

impl StuckConnector {
    fn stuck_in(&self, call: &str) -> bool {
        self.props.get("stuck.in").map(String::as_str) == Some(call)
    }
}

impl Connector for StuckConnector {
    fn version(&self) -> String {
        "1".to_owned()
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn start(
        &mut self,
        props: &ConfigMap,
        _: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        self.props = props.clone();
        Ok(())
    }
    fn task_configs(&self, _: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        if self.stuck_in("taskConfigs") {
            TASK_CONFIGS_ENTERED.store(true, Ordering::SeqCst);
            // Blocks its connector's thread for longer than any test runs.
            std::thread::sleep(Duration::from_secs(600));
        }
        Ok(vec![self.props.clone()])
    }
    fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

impl SinkConnector for StuckConnector {
    fn create_task(&self) -> Box<dyn SinkTask> {
        Box::new(StuckTask)
    }
}

impl SourceConnector for StuckConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::new(StuckTask)
    }
}

struct StuckTask;

#[async_trait]
impl SinkTask for StuckTask {
    fn version(&self) -> String {
        "1".to_owned()
    }
    async fn start(
        &mut self,
        _: &ConfigMap,
        _: Arc<dyn SinkTaskContext>,
    ) -> ferry_api::error::Result<()> {
        Ok(())
    }
    async fn put(&mut self, _: &[SinkRecord]) -> ferry_api::error::Result<()> {
        PUT_ENTERED.store(true, Ordering::SeqCst);
        std::future::pending().await
    }
    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

#[async_trait]
impl SourceTask for StuckTask {
    fn version(&self) -> String {
        "1".to_owned()
    }
    async fn start(&mut self, _: &ConfigMap, _: SourceTaskContext) -> ferry_api::error::Result<()> {
        Ok(())
    }
    async fn poll(&mut self) -> ferry_api::error::Result<Vec<SourceRecord>> {
        POLL_ENTERED.store(true, Ordering::SeqCst);
        std::future::pending().await
    }
    async fn stop(&mut self) -> ferry_api::error::Result<()> {
        Ok(())
    }
}

fn setup() -> Setup {
    let mut registry = Registry::builtin();
    registry.add_hosted(
        vec![
            ConnectorPlugin::native("test.StuckSink", PluginKind::Sink, "1", || {
                AnyConnector::Sink(Box::new(StuckConnector {
                    props: ConfigMap::new(),
                }))
            }),
            ConnectorPlugin::native("test.StuckSource", PluginKind::Source, "1", || {
                AnyConnector::Source(Box::new(StuckConnector {
                    props: ConfigMap::new(),
                }))
            }),
        ],
        Vec::new(),
        false,
    );
    setup_with(registry)
}

impl Setup {
    /// Creates a connector; the answer must come within `within`.
    async fn create_within(&self, name: &str, config: &[(&str, &str)], within: Duration) {
        let mut config: ConfigMap = config
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        config.insert("name".to_owned(), name.to_owned());
        let put = self
            .herder
            .put_connector_config(name, config, true, TargetState::Started);
        tokio::time::timeout(within, put)
            .await
            .unwrap_or_else(|_| panic!("creating {name} took over {within:?}"))
            .unwrap();
    }

    async fn states_if_any(&self, name: &str) -> Option<(State, Vec<State>)> {
        let status = self.herder.connector_status(name).await.ok()?;
        Some((
            status.connector.state,
            status.tasks.iter().map(|(_, t)| t.state).collect(),
        ))
    }

    /// While something is stuck: the herder lists connectors within a second, and a
    /// FileStream source created now runs, with its task, within 5 s.
    async fn worker_stays_free(&self, other: &str) {
        let listed = tokio::time::timeout(Duration::from_secs(1), self.herder.connectors())
            .await
            .expect("the connectors listed within a second");
        assert!(!listed.is_empty());
        let file = self.dir.path().join(format!("{other}.txt"));
        std::fs::write(&file, "").unwrap();
        let file = file.display().to_string();
        let config = [
            ("connector.class", "FileStreamSource"),
            ("file", file.as_str()),
            ("topic", "other"),
        ];
        self.create_within(other, &config, Duration::from_secs(5))
            .await;
        until(&format!("{other} and its task running"), async || {
            self.states_if_any(other).await == Some((State::Running, vec![State::Running]))
        })
        .await;
    }

    /// The stuck connector goes within the graceful timeout plus 5 s.
    async fn delete(&self, name: &str) {
        tokio::time::timeout(
            GRACEFUL + Duration::from_secs(5),
            self.herder.delete_connector(name),
        )
        .await
        .expect("the delete answered within the graceful timeout plus 5 s")
        .unwrap();
        assert!(self.herder.connector_status(name).await.is_err());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_sink_whose_put_never_returns_holds_up_nothing() {
    let s = setup();
    let config = [
        ("connector.class", "test.StuckSink"),
        ("topics", "t"),
        ("stuck.in", "put"),
    ];
    s.create_within("stuck", &config, Duration::from_secs(5))
        .await;
    until("the consumer made", async || {
        !s.clients.consumer_ids().is_empty()
    })
    .await;
    let consumer = s.clients.consumers.lock().unwrap()[0].1.clone();
    consumer.assign(&[("t", 0)]);
    consumer.add_records("t", 0, 0, 3);
    until("put entered", async || PUT_ENTERED.load(Ordering::SeqCst)).await;
    assert_eq!(
        s.states_if_any("stuck").await,
        Some((State::Running, vec![State::Running]))
    );
    s.worker_stays_free("other").await;
    s.delete("stuck").await;
    s.herder.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_source_whose_poll_never_returns_holds_up_nothing() {
    let s = setup();
    let config = [
        ("connector.class", "test.StuckSource"),
        ("topic", "t"),
        ("stuck.in", "poll"),
    ];
    s.create_within("stuck", &config, Duration::from_secs(5))
        .await;
    until("poll entered", async || POLL_ENTERED.load(Ordering::SeqCst)).await;
    s.worker_stays_free("other").await;
    s.delete("stuck").await;
    s.herder.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_connector_stuck_in_task_configs_holds_up_nothing() {
    let s = setup();
    let config = [
        ("connector.class", "test.StuckSource"),
        ("topic", "t"),
        ("stuck.in", "taskConfigs"),
    ];
    // The create waits for the first task configs at most 5 s, as Java's waits for them.
    s.create_within("stuck", &config, Duration::from_secs(7))
        .await;
    until("taskConfigs entered", async || {
        TASK_CONFIGS_ENTERED.load(Ordering::SeqCst)
    })
    .await;
    assert_eq!(
        s.states_if_any("stuck").await,
        Some((State::Running, vec![]))
    );
    s.worker_stays_free("other").await;
    s.delete("stuck").await;
    s.herder.stop().await;
}
