//! What REST handlers ask of the tick loop. The loop owns every start and stop of this worker's
//! connectors and tasks (as Java queues requests for its herder thread), so a restart cannot
//! overlap a rebalance: it runs between rounds, after checking the work is still this worker's.

use ferry_runtime::herder::HerderError;
use ferry_runtime::status::TaskId;
use tokio::sync::oneshot;

use super::DistributedHerder;

pub(crate) type Reply<T> = oneshot::Sender<T>;

pub(crate) enum Command {
    RestartConnector {
        name: String,
        reply: Reply<Result<(), HerderError>>,
    },
    RestartTask {
        id: TaskId,
        reply: Reply<Result<(), HerderError>>,
    },
    /// `GET /health` (KIP-1017): answering proves the loop is not stuck.
    HealthCheck(Reply<()>),
    /// KIP-618: fence out a source connector's earlier task generations (leader only).
    FenceZombies {
        name: String,
        reply: Reply<Result<(), HerderError>>,
    },
}

/// Carries out one command on the loop.
pub(crate) async fn execute(herder: &DistributedHerder, command: Command) {
    match command {
        Command::RestartConnector { name, reply } => {
            let outcome = if herder.view().owned.connectors.contains(&name) {
                herder
                    .restart_connector_here(&herder.configs.snapshot(), &name)
                    .await
            } else {
                Err(herder.elsewhere(|v| v.owner_of_connector(&name)))
            };
            let _ = reply.send(outcome);
        }
        Command::RestartTask { id, reply } => {
            let outcome = if herder.view().owned.tasks.contains(&id) {
                herder
                    .restart_task_here(&herder.configs.snapshot(), &id)
                    .await
            } else {
                Err(herder.elsewhere(|v| v.owner_of_task(&id)))
            };
            let _ = reply.send(outcome);
        }
        Command::HealthCheck(reply) => {
            let _ = reply.send(());
        }
        Command::FenceZombies { name, reply } => {
            let _ = reply.send(herder.fence_zombies_here(&name).await);
        }
    }
}
