//! What the broker tests of this crate share.

use std::time::{Duration, Instant};

/// The broker the tests run against.
pub fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS")
        .expect("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with scripts/kafka start")
}

/// A topic or group name no earlier run used.
pub fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// Waits until `condition` holds, checking every 10 ms; fails the test after `within`.
#[allow(dead_code)] // not every test file that shares this module waits
pub async fn wait_until(what: &str, within: Duration, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
