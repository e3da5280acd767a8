//! The herder loop without a broker: its real stores on topics in memory, its real worker with
//! tasks on in-memory clients, and a scripted group (`fake_group`) in which it leads.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use ferry_api::ConfigMap;
use ferry_group::RejoinReason;
use ferry_runtime::herder::{Herder, HerderError, RestartRequest};
use ferry_runtime::plugins::Registry;
use ferry_runtime::status::{State, StatusStore, TaskId};
use ferry_runtime::worker::{TargetState, Worker};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::fake_group::FakeGroup;
use super::tick::Tick;
use super::DistributedHerder;
use crate::config::DistributedConfig;
use crate::config_topic::records::{ConfigRecord, ConnectorRestart};
use crate::status_topic::records::StatusRecord;
use crate::stores::memory_log::MemoryTopic;
use crate::stores::{KafkaConfigStore, KafkaOffsetStore, KafkaStatusStore};

const WORKER: &str = "127.0.0.1:18083";
const LEADER: &str = "worker-1";
const WAIT: Duration = Duration::from_secs(10);

/// The cluster's three internal topics.
struct Topics {
    configs: Arc<MemoryTopic>,
    offsets: Arc<MemoryTopic>,
    statuses: Arc<MemoryTopic>,
}

impl Topics {
    fn new() -> Self {
        Topics {
            configs: MemoryTopic::new("connect-configs"),
            offsets: MemoryTopic::new("connect-offsets"),
            statuses: MemoryTopic::new("connect-status"),
        }
    }

    /// Every state written for a task, in order.
    fn task_states(&self, id: &TaskId) -> Vec<(State, String)> {
        self.statuses
            .records()
            .into_iter()
            .filter_map(|r| {
                let key = String::from_utf8(r.key?).ok()?;
                match StatusRecord::parse(&key, r.value.as_deref()).ok()?? {
                    StatusRecord::Task {
                        id: task,
                        status: Some(value),
                    } if task == *id => Some((value.status.state, value.status.worker_id)),
                    _ => None,
                }
            })
            .collect()
    }

    fn starts_of(&self, id: &TaskId) -> usize {
        self.task_states(id)
            .iter()
            .filter(|(state, _)| *state == State::Running)
            .count()
    }
}

struct TestWorker {
    herder: Arc<DistributedHerder>,
    shutdown: CancellationToken,
    tick: JoinHandle<()>,
}

impl TestWorker {
    async fn start(topics: &Topics, group: &Arc<FakeGroup>) -> Self {
        let props: ConfigMap = [
            ("bootstrap.servers", "unused:9092"),
            ("group.id", "connect-cluster"),
            ("config.storage.topic", "connect-configs"),
            ("offset.storage.topic", "connect-offsets"),
            ("status.storage.topic", "connect-status"),
            (
                "key.converter",
                "org.apache.kafka.connect.storage.StringConverter",
            ),
            (
                "value.converter",
                "org.apache.kafka.connect.storage.StringConverter",
            ),
            ("scheduled.rebalance.max.delay.ms", "0"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let config = Arc::new(DistributedConfig::parse(&props).expect("worker config"));
        let offsets = KafkaOffsetStore::start_on(topics.offsets.opener(), WAIT)
            .await
            .expect("offset store");
        let statuses = Arc::new(
            KafkaStatusStore::start_on(topics.statuses.opener(), WORKER.to_owned(), WAIT)
                .await
                .expect("status store"),
        );
        let (configs, events) = KafkaConfigStore::start_on(topics.configs.opener(), WAIT)
            .await
            .expect("config store");
        let shutdown = CancellationToken::new();
        let (reconfigure_tx, reconfigure_rx) = mpsc::unbounded_channel();
        let status_store: Arc<dyn StatusStore> = statuses.clone();
        let worker = Arc::new(
            Worker::new(
                WORKER.to_owned(),
                Arc::new(config.worker.clone()),
                Arc::new(Registry::builtin()),
                Arc::new(offsets),
                status_store,
                shutdown.child_token(),
                reconfigure_tx.clone(),
            )
            .with_in_memory_clients(),
        );
        let (herder, commands) = DistributedHerder::new(
            config,
            worker,
            Arc::new(configs),
            statuses,
            format!("http://{WORKER}/"),
            reconfigure_tx,
            "cluster".to_owned(),
            shutdown.clone(),
            None,
        );
        let tick = Tick::new(
            herder.clone(),
            group.member(),
            events,
            reconfigure_rx,
            commands,
        );
        let tick = tokio::spawn(tick.run());
        let leading = herder.clone();
        until("the first round", move || leading.view().is_leader()).await;
        TestWorker {
            herder,
            shutdown,
            tick,
        }
    }

    /// A FileStreamSink of `tasks` tasks (a sink has as many as tasks.max), running here.
    async fn create_sink(&self, dir: &std::path::Path, name: &str, tasks: usize) {
        let file = dir.join(format!("{name}.txt"));
        let config: ConfigMap = [
            ("connector.class", "FileStreamSink".to_owned()),
            ("tasks.max", tasks.to_string()),
            ("file", file.display().to_string()),
            ("topics", "lines".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        self.herder
            .put_connector_config(name, config, false, TargetState::Started)
            .await
            .expect("connector created");
        let herder = self.herder.clone();
        let name = name.to_owned();
        // Started here, and each has reported RUNNING (what the tests count starts by).
        until("the connector's tasks running here", move || {
            (0..tasks).all(|task| {
                let id = TaskId {
                    connector: name.clone(),
                    task,
                };
                herder.view().running.tasks.contains(&id)
                    && herder
                        .statuses
                        .task(&id)
                        .is_some_and(|s| s.state == State::Running)
            })
        })
        .await;
    }

    async fn stop(self) {
        self.shutdown.cancel();
        tokio::time::timeout(WAIT, self.tick)
            .await
            .expect("the loop stops")
            .expect("the loop ends cleanly");
        self.herder.worker().stop_all().await;
    }
}

async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !condition() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The coordinator starts a round (with a second worker joining, when `joining_beside` is
/// given) and holds it open: the herder's loop is inside it until `group.release()`.
async fn hold_a_round(group: &FakeGroup, joining_beside: Option<&TestWorker>) {
    let joins = group.joins();
    group.hold();
    if let Some(worker) = joining_beside {
        let offset = worker.herder.configs.snapshot().offset();
        group.add_member("worker-2", "http://127.0.0.1:18084/", offset);
    }
    group.trigger(RejoinReason::RebalanceInProgress);
    tokio::time::timeout(WAIT, group.joined(joins + 1))
        .await
        .expect("the loop rejoins");
}

fn task(connector: &str, task: usize) -> TaskId {
    TaskId {
        connector: connector.to_owned(),
        task,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_restart_asked_during_a_rebalance_waits_for_it_then_restarts_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let (topics, group) = (Topics::new(), FakeGroup::new(LEADER));
    let worker = TestWorker::start(&topics, &group).await;
    worker.create_sink(dir.path(), "sink", 1).await;
    let id = task("sink", 0);
    let starts = topics.starts_of(&id);
    assert!(starts >= 1, "{:?}", topics.task_states(&id));

    // The coordinator starts a round; the herder's loop is inside it until released.
    hold_a_round(&group, None).await;
    let herder = worker.herder.clone();
    let restart_id = id.clone();
    let restart = tokio::spawn(async move { herder.restart_task(&restart_id).await });
    // An absence is checked over a window: a loop that did not wait for the round would have
    // answered well within it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !restart.is_finished(),
        "the restart waits for the round in progress: {:?}",
        restart.await
    );
    assert_eq!(topics.starts_of(&id), starts, "nothing restarted mid-round");

    group.release();
    let answer = tokio::time::timeout(WAIT, restart)
        .await
        .expect("the restart is answered")
        .unwrap();
    assert_eq!(answer, Ok(()));
    until("the task restarted once", || {
        topics.starts_of(&id) == starts + 1
    })
    .await;
    assert!(worker.herder.view().running.tasks.contains(&id));
    worker.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_requested_while_a_round_revokes_a_task_restarts_only_what_stays_here() {
    let dir = tempfile::tempdir().unwrap();
    let (topics, group) = (Topics::new(), FakeGroup::new(LEADER));
    let worker = TestWorker::start(&topics, &group).await;
    worker.create_sink(dir.path(), "sink", 2).await;
    let ids = [task("sink", 0), task("sink", 1)];
    let starts: Vec<usize> = ids.iter().map(|id| topics.starts_of(id)).collect();

    // A second worker joins; while the round is held, another worker writes a restart request
    // of the connector and all its tasks to the config topic.
    hold_a_round(&group, Some(&worker)).await;
    let (key, value) = ConfigRecord::RestartRequest(ConnectorRestart::new(
        "sink",
        RestartRequest {
            include_tasks: true,
            only_failed: false,
        },
    ))
    .encode();
    topics.configs.append(key.as_bytes(), value.as_deref());
    let before: Vec<usize> = ids.iter().map(|id| topics.task_states(id).len()).collect();
    group.release();

    // The leader revokes one unit of work to balance the two workers, then (in the round that
    // follows at once) gives it to worker-2.
    until("worker-2 is given work", || {
        group
            .assignment_of("worker-2")
            .is_some_and(|a| !a.tasks.is_empty() || !a.connectors.is_empty())
    })
    .await;
    let moved = group.assignment_of("worker-2").unwrap();
    let (gone, kept): (Vec<&TaskId>, Vec<&TaskId>) =
        ids.iter().partition(|id| moved.tasks.contains(id));
    assert!(
        !gone.is_empty() || moved.connectors.contains(&"sink".to_owned()),
        "{moved:?}"
    );

    // Tasks still here restart; a task given away neither restarts here nor shows RESTARTING
    // from this worker.
    for (i, id) in ids.iter().enumerate() {
        if kept.contains(&id) {
            until("a kept task restarted", || topics.starts_of(id) > starts[i]).await;
        }
    }
    // The loop carries out a restart request in one go: once it answers a health check, the
    // request that restarted the kept tasks is done with every task it chose here.
    worker.herder.health_check().await;
    for (i, id) in ids.iter().enumerate() {
        if !gone.contains(&id) {
            continue;
        }
        let view = worker.herder.view();
        assert!(!view.running.tasks.contains(id), "{id} still runs here");
        assert!(!view.owned.tasks.contains(id), "{id} still owned here");
        drop(view);
        let states = topics.task_states(id);
        assert!(
            !states[before[i]..]
                .iter()
                .any(|(s, _)| matches!(s, State::Restarting | State::Running)),
            "{id} restarted here after it was given away: {states:?}"
        );
    }
    worker.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_of_a_task_given_away_in_the_round_it_waited_for_names_its_new_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (topics, group) = (Topics::new(), FakeGroup::new(LEADER));
    let worker = TestWorker::start(&topics, &group).await;
    worker.create_sink(dir.path(), "sink", 2).await;

    hold_a_round(&group, Some(&worker)).await;
    // Both tasks are asked for while the round that moves one of them is in progress.
    // One poll queues each request on the loop, which is inside the round.
    let mut asked: Vec<_> = (0..2)
        .map(|i| {
            let herder = worker.herder.clone();
            Box::pin(async move { herder.restart_task(&task("sink", i)).await })
        })
        .collect();
    let mut cx = std::task::Context::from_waker(futures::task::noop_waker_ref());
    for request in &mut asked {
        assert!(request.as_mut().poll(&mut cx).is_pending());
    }
    group.release();
    let mut answers = Vec::new();
    for request in asked {
        answers.push(tokio::time::timeout(WAIT, request).await.expect("answered"));
    }
    let moved = group.assignment_of("worker-2").expect("a second round");
    for (i, answer) in answers.iter().enumerate() {
        if moved.tasks.contains(&task("sink", i)) {
            // The leader answers with the task's owner, and REST forwards the request there.
            assert!(
                matches!(answer, Err(HerderError::NotAssigned { .. })),
                "task {i} moved to worker-2; the answer was {answer:?}"
            );
        } else {
            assert_eq!(answer, &Ok(()), "task {i} stayed here");
        }
    }
    worker.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_connector_resets_its_active_topics_before_the_rebalance() {
    let dir = tempfile::tempdir().unwrap();
    let (topics, group) = (Topics::new(), FakeGroup::new(LEADER));
    let worker = TestWorker::start(&topics, &group).await;
    worker.create_sink(dir.path(), "sink", 1).await;
    // What the sink task records when it first reads "lines".
    worker
        .herder
        .statuses
        .put_topic(ferry_runtime::status::TopicStatus {
            topic: "lines".to_owned(),
            connector: "sink".to_owned(),
            task: 0,
            discover_timestamp: 1,
        });
    let key = "status-topic-lines:connector-sink";
    let tombstoned = || {
        topics
            .statuses
            .records()
            .iter()
            .any(|r| r.key.as_deref() == Some(key.as_bytes()) && r.value.is_none())
    };
    assert!(!tombstoned());

    // The rebalance the deletion asks for is held: the leader's housekeeping after it cannot be
    // what resets the topic.
    group.hold();
    worker
        .herder
        .delete_connector("sink")
        .await
        .expect("deleted");
    until("the topic's tombstone in the status topic", tombstoned).await;
    assert!(worker.herder.statuses.topics("sink").is_empty());
    group.release();
    worker.stop().await;
}
