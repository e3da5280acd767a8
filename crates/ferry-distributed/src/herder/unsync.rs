//! What a worker does when it cannot read the config topic to the end in time (Java's
//! `readConfigToEnd` failing): it leaves the group, then waits before rejoining so it does not
//! spin through join, catch-up and leave. Eager workers wait `worker.unsync.backoff.ms`;
//! cooperative ones wait growing fractions of `scheduled.rebalance.max.delay.ms` for a few
//! rounds, then give up their work so the rest of the cluster can run it.

use std::time::Duration;

/// Java's `BACKOFF_RETRIES`: cooperative rounds before the worker revokes its own work.
pub(crate) const RETRIES: u32 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unsynced {
    /// Wait this long, then rejoin.
    Wait(Duration),
    /// Stop everything this worker runs, then rejoin at once.
    RevokeAll,
}

/// The step for a worker that failed to catch up with `retries_left` cooperative rounds left.
pub(crate) fn next_step(
    eager: bool,
    retries_left: u32,
    scheduled_rebalance_max_delay: Duration,
    unsync_backoff: Duration,
) -> Unsynced {
    if eager {
        return Unsynced::Wait(unsync_backoff);
    }
    if retries_left == 0 {
        return Unsynced::RevokeAll;
    }
    Unsynced::Wait(scheduled_rebalance_max_delay / 10 / retries_left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eager_workers_wait_the_unsync_backoff() {
        let step = next_step(true, 0, Duration::from_secs(300), Duration::from_secs(300));
        assert_eq!(step, Unsynced::Wait(Duration::from_secs(300)));
    }

    #[test]
    fn cooperative_workers_wait_longer_each_round_then_revoke() {
        let max_delay = Duration::from_millis(300_000);
        let waits: Vec<Unsynced> = (0..=RETRIES)
            .rev()
            .map(|left| next_step(false, left, max_delay, Duration::from_secs(300)))
            .collect();
        assert_eq!(
            waits,
            vec![
                Unsynced::Wait(Duration::from_millis(6_000)),
                Unsynced::Wait(Duration::from_millis(7_500)),
                Unsynced::Wait(Duration::from_millis(10_000)),
                Unsynced::Wait(Duration::from_millis(15_000)),
                Unsynced::Wait(Duration::from_millis(30_000)),
                Unsynced::RevokeAll,
            ]
        );
    }
}
