//! JSON shapes of Connect's REST entities.

use ferry_api::config::{ConfigKey, DefaultValue, KeyReport};
use ferry_runtime::herder::{ConfigInfos, ConnectorInfo, ConnectorStateInfo, StateInfo};
use serde_json::{json, Map, Value};

pub(crate) fn connector_info(info: &ConnectorInfo) -> Value {
    json!({
        "name": info.name,
        "config": info.config,
        "tasks": info.tasks.iter().map(|t| json!({"connector": t.connector, "task": t.task})).collect::<Vec<_>>(),
        "type": info.kind.map_or("unknown", |k| k.rest_name()),
    })
}

/// A connector or task state: `id` (tasks only), `state`, `worker_id`, `version` (the plugin's,
/// null when unknown, as Java 4.1 reports it), `trace` when present.
pub(crate) fn state_object(id: Option<usize>, s: &StateInfo, version: Option<&str>) -> Value {
    let mut m = Map::new();
    if let Some(id) = id {
        m.insert("id".to_owned(), json!(id));
    }
    m.insert("state".to_owned(), json!(s.state.as_str()));
    m.insert("worker_id".to_owned(), json!(s.worker_id));
    m.insert("version".to_owned(), json!(version));
    if let Some(trace) = s.trace.as_ref().filter(|t| !t.is_empty()) {
        m.insert("trace".to_owned(), json!(trace));
    }
    Value::Object(m)
}

pub(crate) fn connector_status(info: &ConnectorStateInfo, version: Option<&str>) -> Value {
    let mut tasks: Vec<&(usize, StateInfo)> = info.tasks.iter().collect();
    tasks.sort_by_key(|(id, _)| *id);
    json!({
        "name": info.name,
        "connector": state_object(None, &info.connector, version),
        "tasks": tasks.into_iter().map(|(id, s)| state_object(Some(*id), s, version)).collect::<Vec<_>>(),
        "type": info.kind.map_or("unknown", |k| k.rest_name()),
    })
}

/// The version of the plugin a connector runs (its tasks report the same), for status answers.
pub(crate) async fn plugin_version(state: &crate::AppState, connector: &str) -> Option<String> {
    state.herder.connector_plugin_version(connector).await
}

/// Java's `ConfigKeyInfo`.
pub(crate) fn config_key(key: &ConfigKey) -> Value {
    let default = match &key.default {
        DefaultValue::Required | DefaultValue::Null => Value::Null,
        DefaultValue::Value(_) if key.ty == ferry_api::config::ConfigType::Password => {
            json!("[hidden]")
        }
        DefaultValue::Value(v) => json!(v),
    };
    json!({
        "name": key.name,
        "type": key.ty.java_name(),
        "required": key.default == DefaultValue::Required,
        "default_value": default,
        "importance": key.importance.java_name(),
        "documentation": key.documentation,
        "group": key.group,
        // "order" until Kafka 4.2: 4.3 made ConfigKeyInfo a record, which Jackson writes under
        // its component's name.
        "order_in_group": key.order_in_group,
        "width": key.width.java_name(),
        "display_name": key.display_name,
        "dependents": key.dependents,
    })
}

fn config_value(report: &KeyReport) -> Value {
    json!({
        "name": report.name,
        "value": report.value,
        "recommended_values": report.recommended_values,
        "errors": report.errors,
        "visible": report.visible,
    })
}

/// Java's `ConfigInfos`.
pub(crate) fn config_infos(infos: &ConfigInfos) -> Value {
    let configs: Vec<Value> = infos
        .configs
        .iter()
        .map(|c| {
            json!({
                "definition": c.definition.as_ref().map_or(Value::Null, config_key),
                "value": c.value.as_ref().map_or(Value::Null, config_value),
            })
        })
        .collect();
    json!({"name": infos.name, "error_count": infos.error_count, "groups": infos.groups, "configs": configs})
}
