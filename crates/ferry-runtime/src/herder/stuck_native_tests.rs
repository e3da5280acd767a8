//! Native plugins that never return from a call (a sink's put, a source's poll, a connector's
//! taskConfigs) hold up nothing else in a standalone worker: the herder answers, another
//! connector runs, and the stuck one is deleted within the graceful timeout.

use std::time::Duration;

use ferry_api::connector::AnyConnector;
use ferry_api::ConfigMap;
use ferry_test_connectors as hanging;

use super::tests::{setup_with, until, Setup};
use crate::herder::Herder;
use crate::plugins::{ConnectorPlugin, PluginKind, Registry};
use crate::status::State;
use crate::worker::TargetState;

/// The graceful timeout of the workers `setup_with` makes.
const GRACEFUL: Duration = Duration::from_secs(2);

fn setup() -> Setup {
    let mut registry = Registry::builtin();
    registry.add_hosted(
        vec![
            ConnectorPlugin::native(hanging::SINK_CLASS_NAME, PluginKind::Sink, "1", || {
                AnyConnector::Sink(Box::<hanging::HangingConnector>::default())
            }),
            ConnectorPlugin::native(hanging::SOURCE_CLASS_NAME, PluginKind::Source, "1", || {
                AnyConnector::Source(Box::<hanging::HangingConnector>::default())
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
        ("connector.class", hanging::SINK_CLASS_NAME),
        ("topics", "t"),
        ("hang.in", "put"),
        ("hang.ms", "600000"),
    ];
    s.create_within("stuck-put", &config, Duration::from_secs(5))
        .await;
    until("the consumer made", async || {
        !s.clients.consumer_ids().is_empty()
    })
    .await;
    let consumer = s.clients.consumers.lock().unwrap()[0].1.clone();
    consumer.assign(&[("t", 0)]);
    consumer.add_records("t", 0, 0, 3);
    until("put entered", async || hanging::entered("stuck-put")).await;
    assert_eq!(
        s.states_if_any("stuck-put").await,
        Some((State::Running, vec![State::Running]))
    );
    s.worker_stays_free("other").await;
    s.delete("stuck-put").await;
    s.herder.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_source_whose_poll_never_returns_holds_up_nothing() {
    let s = setup();
    let config = [
        ("connector.class", hanging::SOURCE_CLASS_NAME),
        ("topic", "t"),
        ("hang.in", "poll"),
        ("hang.ms", "600000"),
    ];
    s.create_within("stuck-poll", &config, Duration::from_secs(5))
        .await;
    until("poll entered", async || hanging::entered("stuck-poll")).await;
    s.worker_stays_free("other").await;
    s.delete("stuck-poll").await;
    s.herder.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_connector_stuck_in_task_configs_holds_up_nothing() {
    let s = setup();
    let config = [
        ("connector.class", hanging::SOURCE_CLASS_NAME),
        ("topic", "t"),
        ("hang.in", "taskConfigs"),
        ("hang.ms", "600000"),
    ];
    // The create waits for the first task configs at most 5 s, as Java's waits for them.
    s.create_within("stuck-task-configs", &config, Duration::from_secs(7))
        .await;
    until("taskConfigs entered", async || {
        hanging::entered("stuck-task-configs")
    })
    .await;
    assert_eq!(
        s.states_if_any("stuck-task-configs").await,
        Some((State::Running, vec![]))
    );
    s.worker_stays_free("other").await;
    s.delete("stuck-task-configs").await;
    s.herder.stop().await;
}
