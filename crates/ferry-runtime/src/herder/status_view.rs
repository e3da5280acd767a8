//! Statuses as the REST API shows them, and KIP-745 restart plans, read from a status store;
//! shared by both herders.

use std::collections::BTreeSet;

use crate::herder::{ConnectorStateInfo, HerderError, RestartRequest, StateInfo};
use crate::plugins::PluginKind;
use crate::status::{State, Status, StatusStore, TaskId};

pub fn state_info(status: Status) -> StateInfo {
    StateInfo {
        state: status.state,
        trace: status.trace,
        worker_id: status.worker_id,
    }
}

/// `GET /connectors/{c}/status`.
pub fn connector_state(
    store: &dyn StatusStore,
    name: &str,
    kind: Option<PluginKind>,
) -> Result<ConnectorStateInfo, HerderError> {
    let connector = store
        .connector(name)
        .ok_or_else(|| HerderError::NotFound(format!("No status found for connector {name}")))?;
    Ok(ConnectorStateInfo {
        name: name.to_owned(),
        connector: state_info(connector),
        tasks: store
            .tasks(name)
            .into_iter()
            .map(|(i, s)| (i, state_info(s)))
            .collect(),
        kind,
    })
}

/// `GET /connectors/{c}/tasks/{t}/status`.
pub fn task_state(store: &dyn StatusStore, id: &TaskId) -> Result<StateInfo, HerderError> {
    store
        .task(id)
        .map(state_info)
        .ok_or_else(|| HerderError::NotFound(format!("No status found for task {id}")))
}

/// What a KIP-745 request restarts, and the status answered for it.
#[derive(Debug, Clone)]
pub struct RestartPlan {
    /// The current statuses with the selected instances shown RESTARTING.
    pub answer: ConnectorStateInfo,
    pub restart_connector: bool,
    pub restart_tasks: BTreeSet<usize>,
}

pub fn restart_plan(
    store: &dyn StatusStore,
    name: &str,
    request: RestartRequest,
    kind: Option<PluginKind>,
) -> Result<RestartPlan, HerderError> {
    let connector = store
        .connector(name)
        .ok_or_else(|| HerderError::NotFound(format!("Status for connector {name} not found")))?;
    let restart_connector = request.restarts_connector(connector.state);
    let tasks = store.tasks(name);
    let restart_tasks: BTreeSet<usize> = tasks
        .iter()
        .filter(|(_, s)| request.restarts_task(s.state))
        .map(|(i, _)| *i)
        .collect();
    let mut answer = ConnectorStateInfo {
        name: name.to_owned(),
        connector: state_info(connector),
        tasks: tasks.into_iter().map(|(i, s)| (i, state_info(s))).collect(),
        kind,
    };
    if restart_connector {
        answer.connector.state = State::Restarting;
    }
    for (i, t) in &mut answer.tasks {
        if restart_tasks.contains(i) {
            t.state = State::Restarting;
        }
    }
    Ok(RestartPlan {
        answer,
        restart_connector,
        restart_tasks,
    })
}

/// A path segment percent-encoded as a URI builder encodes it (Location headers, forwarded
/// requests).
pub fn encode_path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
