//! JSON shapes of Connect's REST entities.

use ferry_runtime::herder::{ConnectorInfo, ConnectorStateInfo, StateInfo};
use serde_json::{json, Map, Value};

pub(crate) fn connector_info(info: &ConnectorInfo) -> Value {
    json!({
        "name": info.name,
        "config": info.config,
        "tasks": info.tasks.iter().map(|t| json!({"connector": t.connector, "task": t.task})).collect::<Vec<_>>(),
        "type": info.kind.map(|k| k.rest_name()),
    })
}

fn state(s: &StateInfo) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("state".to_owned(), json!(s.state.as_str()));
    if let Some(trace) = &s.trace {
        m.insert("trace".to_owned(), json!(trace));
    }
    m.insert("worker_id".to_owned(), json!(s.worker_id));
    m
}

pub(crate) fn connector_status(info: &ConnectorStateInfo) -> Value {
    let tasks: Vec<Value> = info
        .tasks
        .iter()
        .map(|(id, s)| {
            let mut m = Map::new();
            m.insert("id".to_owned(), json!(id));
            m.extend(state(s));
            Value::Object(m)
        })
        .collect();
    json!({
        "name": info.name,
        "connector": Value::Object(state(&info.connector)),
        "tasks": tasks,
        "type": info.kind.map(|k| k.rest_name()),
    })
}
