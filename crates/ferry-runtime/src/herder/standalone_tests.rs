//! The standalone herder and its worker without a broker (in the spirit of Java's
//! StandaloneHerderTest): FileStream connectors whose tasks run on in-memory clients.

use std::sync::Arc;
use std::time::Duration;

use ferry_api::ConfigMap;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::StandaloneHerder;
use crate::config::worker::WorkerConfig;
use crate::herder::{Herder, HerderError};
use crate::plugins::Registry;
use crate::status::{MemoryStatusStore, State, TaskId};
use crate::worker::fakes::{worker_props, FakeClients, MemoryOffsetStore};
use crate::worker::{TargetState, Worker};

pub(super) struct Setup {
    pub(super) herder: Arc<StandaloneHerder>,
    pub(super) clients: Arc<FakeClients>,
    pub(super) dir: tempfile::TempDir,
}

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn setup() -> Setup {
    setup_with(Registry::builtin())
}

/// A standalone herder over in-memory clients with `registry`'s plugins (graceful timeout 2 s).
pub(super) fn setup_with(registry: Registry) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let settings = worker_props(100, &[("task.shutdown.graceful.timeout.ms", "2000")]);
    let clients = Arc::new(FakeClients::default());
    let (tx, rx) = mpsc::unbounded_channel();
    let worker = Worker::new(
        "test:8083".to_owned(),
        Arc::new(WorkerConfig::standalone(&settings).unwrap()),
        Arc::new(registry),
        Arc::new(MemoryOffsetStore::default()),
        Arc::new(MemoryStatusStore::default()),
        CancellationToken::new(),
        tx,
    )
    .with_clients(clients.clone());
    let herder = StandaloneHerder::new(Arc::new(worker), "cluster".to_owned(), rx);
    Setup {
        herder,
        clients,
        dir,
    }
}

pub(super) async fn until(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !condition().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

impl Setup {
    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    async fn put(&self, name: &str, config: &[(&str, &str)]) {
        let mut config = props(config);
        config.insert("name".to_owned(), name.to_owned());
        self.herder
            .put_connector_config(name, config, true, TargetState::Started)
            .await
            .unwrap();
    }

    /// The connector's state and its tasks' states.
    async fn states(&self, name: &str) -> (State, Vec<State>) {
        let status = self.herder.connector_status(name).await.unwrap();
        (
            status.connector.state,
            status.tasks.iter().map(|(_, t)| t.state).collect(),
        )
    }

    /// Values sent to `topic`.
    fn sent_to(&self, topic: &str) -> Vec<String> {
        self.clients
            .sent()
            .into_iter()
            .filter(|s| s.topic == topic)
            .filter_map(|s| s.value)
            .collect()
    }
}

#[tokio::test]
async fn a_config_update_while_paused_keeps_the_paused_tasks_until_the_resume() {
    let s = setup();
    std::fs::write(s.file("in.txt"), "a\nb\n").unwrap();
    let file = s.file("in.txt");
    s.put(
        "src",
        &[
            ("connector.class", "FileStreamSource"),
            ("file", &file),
            ("topic", "t1"),
        ],
    )
    .await;
    until("a and b sent to t1", async || s.sent_to("t1") == ["a", "b"]).await;

    s.herder.pause_connector("src").await.unwrap();
    until("the connector and its task paused", async || {
        s.states("src").await == (State::Paused, vec![State::Paused])
    })
    .await;
    s.put(
        "src",
        &[
            ("connector.class", "FileStreamSource"),
            ("file", &file),
            ("topic", "t2"),
        ],
    )
    .await;
    let config = s.herder.connector_info("src").await.unwrap().config;
    assert_eq!(config.get("topic").map(String::as_str), Some("t2"));
    assert_eq!(
        s.states("src").await,
        (State::Paused, vec![State::Paused]),
        "still paused"
    );
    // As Java's updateConnectorTasks: task configs are recomputed only for a started connector.
    let configs = s.herder.task_configs("src").await.unwrap();
    assert_eq!(configs[0].1.get("topic").map(String::as_str), Some("t1"));

    s.herder.resume_connector("src").await.unwrap();
    // As in Java, the resumed connector's old task runs again for a moment before the herder
    // replaces it; a line written before the replacement could go either way.
    until("the task configs updated", async || {
        let configs = s.herder.task_configs("src").await.unwrap();
        configs[0].1.get("topic").map(String::as_str) == Some("t2")
    })
    .await;
    std::fs::write(s.file("in.txt"), "a\nb\nc\n").unwrap();
    until("c sent to t2", async || s.sent_to("t2") == ["c"]).await;
    assert_eq!(
        s.sent_to("t1"),
        ["a", "b"],
        "the offsets survive the update: nothing twice"
    );
    assert_eq!(
        s.states("src").await,
        (State::Running, vec![State::Running])
    );
    s.herder.stop().await;
}

#[tokio::test]
async fn a_task_count_change_starts_and_forgets_tasks() {
    let s = setup();
    let out = s.file("out.txt");
    let sink = |max: &'static str| {
        [
            ("connector.class", "FileStreamSink"),
            ("file", out.as_str()),
            ("topics", "t"),
            ("tasks.max", max),
        ]
    };
    s.put("sink", &sink("1")).await;
    until("one running task", async || {
        s.states("sink").await == (State::Running, vec![State::Running])
    })
    .await;

    s.put("sink", &sink("3")).await;
    until("three running tasks", async || {
        s.states("sink").await == (State::Running, vec![State::Running; 3])
    })
    .await;
    let consumers = s.clients.consumer_ids();
    for task in 0..3 {
        let id = format!("connector-consumer-sink-{task}");
        assert!(consumers.contains(&id), "{id} made: {consumers:?}");
    }

    s.put("sink", &sink("1")).await;
    until("one task again", async || {
        s.states("sink").await.1.len() == 1
    })
    .await;
    let gone = s
        .herder
        .task_status(&TaskId {
            connector: "sink".to_owned(),
            task: 2,
        })
        .await;
    assert!(matches!(gone, Err(HerderError::NotFound(_))), "{gone:?}");
    s.herder.stop().await;
}

#[tokio::test]
async fn a_request_whose_client_gives_up_is_still_carried_out_whole() {
    let s = setup();
    let out = s.file("out.txt");
    let sink = |max: &'static str| {
        let mut config = props(&[
            ("connector.class", "FileStreamSink"),
            ("file", out.as_str()),
            ("topics", "t"),
            ("tasks.max", max),
        ]);
        config.insert("name".to_owned(), "sink".to_owned());
        config
    };
    s.put(
        "sink",
        &[
            ("connector.class", "FileStreamSink"),
            ("file", out.as_str()),
            ("topics", "t"),
            ("tasks.max", "3"),
        ],
    )
    .await;
    until("three running tasks", async || {
        s.states("sink").await == (State::Running, vec![State::Running; 3])
    })
    .await;

    // The client (a REST request timing out) drops the update after its first poll.
    let update = s
        .herder
        .put_connector_config("sink", sink("1"), true, TargetState::Started);
    let given_up = futures::FutureExt::now_or_never(update);
    assert!(
        given_up.is_none(),
        "the update was done at its first poll: {given_up:?}"
    );

    until("the update done all the same", async || {
        s.states("sink").await == (State::Running, vec![State::Running])
    })
    .await;
    let info = s.herder.connector_info("sink").await.expect("still there");
    assert_eq!(info.config.get("tasks.max").map(String::as_str), Some("1"));
    assert_eq!(info.tasks.len(), 1);
    s.herder.stop().await;
}
