//! W6, distributed mode: how long a connector created through one worker of a cluster takes to
//! run with all its tasks, and how long a killed worker's tasks take to run elsewhere. Both read
//! `GET /connectors/{c}/status` of one worker every 20 ms until a deadline.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use serde_json::Value;

use crate::http;

const POLL: Duration = Duration::from_millis(20);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The `worker_id` of each task in a status answer, in task order.
fn task_workers(status: &Value) -> Vec<&str> {
    status["tasks"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["worker_id"].as_str().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a status answer shows exactly `tasks` tasks, all RUNNING and none on a worker in
/// `gone`; with `connector_too`, the connector RUNNING as well.
fn all_running(status: &Value, tasks: usize, connector_too: bool, gone: &[&str]) -> bool {
    let Some(list) = status["tasks"].as_array() else {
        return false;
    };
    (!connector_too || status["connector"]["state"] == "RUNNING")
        && list.len() == tasks
        && list.iter().all(|t| {
            t["state"] == "RUNNING" && t["worker_id"].as_str().is_some_and(|w| !gone.contains(&w))
        })
}

/// The connector's status as `base` reports it; `None` while it does not answer 200.
fn status(base: &str, connector: &str) -> Option<Value> {
    match http::get(
        &format!("{base}/connectors/{connector}/status"),
        REQUEST_TIMEOUT,
    ) {
        Ok((200, body)) => serde_json::from_str(&body).ok(),
        _ => None,
    }
}

fn wait_all_running(
    base: &str,
    connector: &str,
    tasks: usize,
    connector_too: bool,
    gone: &[&str],
    deadline: Instant,
) -> anyhow::Result<Value> {
    loop {
        let current = match status(base, connector) {
            Some(s) if all_running(&s, tasks, connector_too, gone) => return Ok(s),
            current => current,
        };
        if Instant::now() > deadline {
            bail!(
                "{base}: {connector} not RUNNING with {tasks} tasks{} by the deadline; last status: {}",
                if gone.is_empty() {
                    String::new()
                } else {
                    format!(" off {}", gone.join(", "))
                },
                current.map_or_else(|| "none".to_owned(), |s| s.to_string())
            );
        }
        std::thread::sleep(POLL);
    }
}

/// `POST <base>/connectors` with `body` (retried while the cluster answers 409, as Java does
/// during a rebalance), then waits until the connector and `tasks` tasks are RUNNING; returns
/// the milliseconds from the first POST.
pub fn create_running(
    base: &str,
    body: &str,
    tasks: usize,
    timeout: Duration,
) -> anyhow::Result<u128> {
    let base = base.trim_end_matches('/');
    let request: Value = serde_json::from_str(body).context("the connector body is not JSON")?;
    let name = request["name"]
        .as_str()
        .context("the connector body has no name")?;
    let start = Instant::now();
    let deadline = start + timeout;
    let mut conflicts = 0;
    loop {
        match http::post_json(&format!("{base}/connectors"), body, REQUEST_TIMEOUT)? {
            (201, _) => break,
            (409, answer) if Instant::now() < deadline => {
                conflicts += 1;
                if conflicts == 1 {
                    eprintln!(
                        "ferry-bench: POST {base}/connectors answered 409 ({answer}); trying again"
                    );
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            (code, answer) => bail!("POST {base}/connectors answered {code}: {answer}"),
        }
    }
    let status = wait_all_running(base, name, tasks, true, &[], deadline)?;
    let elapsed = start.elapsed().as_millis();
    eprintln!(
        "ferry-bench: {name} RUNNING with {tasks} tasks on {:?} {elapsed} ms after the first POST ({conflicts} 409s)",
        task_workers(&status)
    );
    Ok(elapsed)
}

/// Kills (SIGKILL) the first of `candidates` (`(worker id, pid)`) that runs a task of
/// `connector` according to `base`, then waits until `base` shows `tasks` tasks RUNNING on other
/// workers; returns the milliseconds from the kill. `base` must not be one of the candidates.
pub fn failover(
    base: &str,
    connector: &str,
    tasks: usize,
    candidates: &[(String, u32)],
    timeout: Duration,
) -> anyhow::Result<u128> {
    let base = base.trim_end_matches('/');
    let before = status(base, connector)
        .with_context(|| format!("{base} reports no status for {connector}"))?;
    let owners = task_workers(&before);
    let (victim, pid) = candidates
        .iter()
        .find(|(id, _)| owners.contains(&id.as_str()))
        .with_context(|| format!("no candidate worker runs a task of {connector}: {before}"))?;
    eprintln!(
        "ferry-bench: killing {victim} (pid {pid}); task owners before: {owners:?}, connector on {}",
        before["connector"]["worker_id"]
    );
    let start = Instant::now();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .context("running kill")?;
    if !killed.success() {
        bail!("kill -9 {pid} failed: {killed}");
    }
    let after = wait_all_running(base, connector, tasks, false, &[victim], start + timeout)?;
    let elapsed = start.elapsed().as_millis();
    eprintln!(
        "ferry-bench: {connector}'s {tasks} tasks RUNNING on {:?} {elapsed} ms after the kill",
        task_workers(&after)
    );
    Ok(elapsed)
}

/// `id=pid` → `(id, pid)`.
pub fn candidate(arg: &str) -> anyhow::Result<(String, u32)> {
    let (id, pid) = arg
        .rsplit_once('=')
        .with_context(|| format!("--candidate {arg}: expected WORKER_ID=PID"))?;
    let pid = pid
        .parse()
        .with_context(|| format!("--candidate {arg}: {pid:?} is not a pid"))?;
    Ok((id.to_owned(), pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(connector: &str, tasks: &[(&str, &str)]) -> Value {
        serde_json::json!({
            "name": "c",
            "connector": {"state": connector, "worker_id": "w:1"},
            "tasks": tasks.iter().enumerate()
                .map(|(i, (state, worker))| serde_json::json!({"id": i, "state": state, "worker_id": worker}))
                .collect::<Vec<_>>(),
            "type": "sink"
        })
    }

    #[test]
    fn all_running_needs_every_task_running_off_the_gone_workers() {
        let s = status("RUNNING", &[("RUNNING", "w:1"), ("RUNNING", "w:2")]);
        assert!(all_running(&s, 2, true, &[]));
        assert!(!all_running(&s, 3, true, &[]), "too few tasks");
        assert!(
            !all_running(&s, 2, false, &["w:2"]),
            "a task on a gone worker"
        );
        assert!(all_running(&s, 2, false, &["w:3"]));
        let s = status("UNASSIGNED", &[("RUNNING", "w:1"), ("RUNNING", "w:2")]);
        assert!(!all_running(&s, 2, true, &[]));
        assert!(
            all_running(&s, 2, false, &[]),
            "the connector is not asked for"
        );
        let s = status("RUNNING", &[("RUNNING", "w:1"), ("UNASSIGNED", "w:2")]);
        assert!(!all_running(&s, 2, false, &[]));
        assert!(!all_running(&Value::Null, 0, false, &[]));
        assert_eq!(
            task_workers(&status("RUNNING", &[("RUNNING", "a"), ("FAILED", "b")])),
            ["a", "b"]
        );
    }

    #[test]
    fn parses_candidates() {
        assert_eq!(
            candidate("127.0.0.1:18101=4242").unwrap(),
            ("127.0.0.1:18101".to_owned(), 4242)
        );
        assert!(candidate("127.0.0.1:18101").is_err());
        assert!(candidate("127.0.0.1:18101=x").is_err());
    }
}
