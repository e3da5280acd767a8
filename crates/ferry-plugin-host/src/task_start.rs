//! The start, stop and release of a source or sink task in the plugin host, which both kinds
//! share.

use std::sync::Arc;

use ferry_api::task::TaskIdentity;
use ferry_api::{ConfigMap, ConnectError};
use serde_json::{json, Value};

use crate::connection::Connection;
use crate::connector::header;
use crate::host::PluginHost;
use crate::lease::HostLease;

/// The task's name in the host: `<connector>-<n>`.
pub(crate) fn task_name(id: &TaskIdentity) -> String {
    format!("{}-{}", id.connector, id.task)
}

/// Takes the host the task's connector runs in, starts the task there with its identity,
/// configs and the kind's `extra` arguments, and answers the task's version. The lease is
/// stored in `slot` first, so a task whose start failed still releases its host when dropped.
pub(crate) async fn start_task(
    host: &Arc<PluginHost>,
    slot: &mut Option<HostLease>,
    id: &TaskIdentity,
    props: &ConfigMap,
    sink: bool,
    extra: Value,
) -> Result<String, ConnectError> {
    let task = task_name(id);
    let conn = Arc::clone(slot.insert(host.lease(&id.connector)?));
    let mut args = json!({
        "task": task, "connector": id.connector, "taskNumber": id.task, "sink": sink,
        "connectorConfig": id.connector_configs, "taskConfig": props,
    });
    if let (Some(args), Value::Object(extra)) = (args.as_object_mut(), extra) {
        args.extend(extra);
    }
    let (body, _) = conn
        .call("task.start", header(args), &[], host.settings.call_timeout)
        .await?;
    Ok(body
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned())
}

/// Asks the host to stop the task (beside its thread, within the stop deadline); nothing to do
/// when the task never started or its host is gone.
pub(crate) async fn stop_task(
    host: &PluginHost,
    conn: Option<&Arc<Connection>>,
    task: &str,
) -> Result<(), ConnectError> {
    if let Some(conn) = conn.filter(|c| c.is_alive()) {
        conn.call(
            "task.stop",
            header(json!({ "task": task })),
            &[],
            host.settings.stop_timeout,
        )
        .await?;
    }
    Ok(())
}

/// Tells the host the pipeline is done with the task (after `before`, e.g. the last
/// acknowledgements), without waiting; dropping the lease then releases the host.
pub(crate) fn close_task(
    host: &PluginHost,
    lease: Option<HostLease>,
    task: &str,
    before: Option<(&str, Value)>,
) {
    let Some(conn) = lease.filter(|c| c.is_alive()) else {
        return;
    };
    let timeout = host.settings.stop_timeout;
    if let Some((op, args)) = before {
        let _ = conn.send(op, header(args), &[], timeout);
    }
    let _ = conn.send("task.close", header(json!({ "task": task })), &[], timeout);
}
