//! The worker gives the memory it freed back to the operating system every few seconds, so a
//! burst of records does not leave its peak resident (see `ferry_memory`).

pub fn release_freed_memory_periodically() {
    tokio::spawn(async {
        let mut every = tokio::time::interval(ferry_memory::RELEASE_INTERVAL);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if !matches!(
                tokio::task::spawn_blocking(ferry_memory::release_free_memory).await,
                Ok(true)
            ) {
                // An allocator that cannot be asked: nothing to do, now or later.
                return;
            }
        }
    });
}
