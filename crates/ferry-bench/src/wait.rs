//! Waits on files and REST endpoints, and the start-up measurement.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

use crate::http;

/// Waits until `file` holds `count` newline-terminated lines, reading only what was appended
/// since the last look (every 20 ms).
pub fn lines(file: &Path, count: u64, timeout: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + timeout;
    let (mut seen, mut pos) = (0u64, 0u64);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        if let Ok(mut f) = File::open(file) {
            f.seek(SeekFrom::Start(pos))?;
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                pos += n as u64;
                seen += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
            }
        }
        if seen >= count {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!(
                "{} holds {seen} of {count} lines after {timeout:?}",
                file.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn answers_200(url: &str) -> bool {
    matches!(http::get(url, Duration::from_secs(5)), Ok((200, _)))
}

/// Waits until `GET url` answers 200.
pub fn http_ok(url: &str, timeout: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + timeout;
    while !answers_200(url) {
        if Instant::now() > deadline {
            bail!("GET {url} did not answer 200 within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// How many connectors of a `GET /connectors?expand=status` answer run with all tasks RUNNING.
fn running_count(body: &str) -> usize {
    let Ok(serde_json::Value::Object(connectors)) = serde_json::from_str(body) else {
        return 0;
    };
    connectors
        .values()
        .filter(|c| {
            let status = &c["status"];
            let tasks = status["tasks"].as_array();
            status["connector"]["state"] == "RUNNING"
                && tasks.is_some_and(|t| !t.is_empty() && t.iter().all(|t| t["state"] == "RUNNING"))
        })
        .count()
}

/// Waits until `count` connectors and all their tasks are RUNNING.
pub fn running(base: &str, count: usize, timeout: Duration) -> anyhow::Result<()> {
    let url = format!("{}/connectors?expand=status", base.trim_end_matches('/'));
    let deadline = Instant::now() + timeout;
    loop {
        let n = match http::get(&url, Duration::from_secs(10)) {
            Ok((200, body)) => running_count(&body),
            _ => 0,
        };
        if n >= count {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{n} of {count} connectors RUNNING after {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Spawns `command`, returns the milliseconds to the first 200 from `GET url` (polled every
/// 10 ms), then stops the command with SIGTERM (SIGKILL after 30 s).
pub fn startup(
    url: &str,
    log: &Path,
    timeout: Duration,
    command: &[String],
) -> anyhow::Result<u128> {
    let (program, args) = command.split_first().context("no command")?;
    let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let err = out.try_clone()?;
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .with_context(|| format!("starting {program}"))?;
    let result = loop {
        if answers_200(url) {
            break Ok(start.elapsed().as_millis());
        }
        if let Some(status) = child.try_wait()? {
            break Err(anyhow::anyhow!(
                "{program} exited ({status}) before answering; see {}",
                log.display()
            ));
        }
        if start.elapsed() > timeout {
            break Err(anyhow::anyhow!(
                "GET {url} did not answer 200 within {timeout:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let stop_deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait()?.is_none() {
        if Instant::now() > stop_deadline {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_running_connectors_with_all_tasks_running() {
        let body = r#"{
            "a": {"status": {"connector": {"state": "RUNNING"}, "tasks": [{"id": 0, "state": "RUNNING"}]}},
            "b": {"status": {"connector": {"state": "RUNNING"}, "tasks": [{"id": 0, "state": "FAILED"}]}},
            "c": {"status": {"connector": {"state": "RUNNING"}, "tasks": []}},
            "d": {"status": {"connector": {"state": "PAUSED"}, "tasks": [{"id": 0, "state": "PAUSED"}]}}
        }"#;
        assert_eq!(running_count(body), 1);
        assert_eq!(running_count("not json"), 0);
    }

    #[test]
    fn waits_for_lines_appended_later() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::fs::write(&path, "a\nb\n").unwrap();
                std::thread::sleep(Duration::from_millis(100));
                std::fs::write(&path, "a\nb\nc\n").unwrap();
            })
        };
        lines(&path, 3, Duration::from_secs(10)).unwrap();
        writer.join().unwrap();
        assert!(lines(&path, 4, Duration::from_millis(50)).is_err());
    }
}
