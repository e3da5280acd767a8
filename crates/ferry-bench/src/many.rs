//! W11: many connectors created through the REST API of one worker, one after the other, and
//! the time until every one of them and all their tasks are RUNNING.

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

use crate::{http, wait};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// POSTs `count` connectors to `<base>/connectors`, each body `template` with `{i}` replaced by
/// its number (1..=count), then waits until all are RUNNING; returns the milliseconds from the
/// first POST.
pub fn create_many(
    base: &str,
    template: &str,
    count: usize,
    timeout: Duration,
) -> anyhow::Result<u128> {
    let base = base.trim_end_matches('/');
    serde_json::from_str::<serde_json::Value>(&template.replace("{i}", "1"))
        .context("the connector body template is not JSON")?;
    let start = Instant::now();
    for i in 1..=count {
        let body = template.replace("{i}", &i.to_string());
        match http::post_json(&format!("{base}/connectors"), &body, REQUEST_TIMEOUT)? {
            (201, _) => {}
            (code, answer) => {
                bail!("POST {base}/connectors of connector {i} answered {code}: {answer}")
            }
        }
    }
    let posted = start.elapsed();
    let left = timeout.saturating_sub(posted);
    wait::running(base, count, left)?;
    let elapsed = start.elapsed().as_millis();
    eprintln!(
        "ferry-bench: {count} connectors posted in {} ms, all RUNNING {elapsed} ms after the first POST",
        posted.as_millis()
    );
    Ok(elapsed)
}
