//! The leader's fencable writer of the config topic (KIP-618), used when the worker's
//! `exactly.once.source.support` is `preparing` or `enabled`: a transactional producer whose id,
//! `connect-cluster-<group.id>`, every leader shares, so a leader's claim fences out the writes
//! of a zombie leader (Java's and Ferry's alike).

use std::time::Duration;

use ferry_kafka::producer::{AckingProducer, OutgoingRecord};
use ferry_kafka::rdkafka::ClientConfig;
use tokio::sync::{Mutex, Notify};

use crate::stores::StoreError;

/// Java's budget for the transaction calls of the config topic's writes.
const TRANSACTION_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a write waits for the loop to claim write privileges after a rebalance made this
/// worker the leader.
const CLAIM_WAIT: Duration = Duration::from_secs(10);

/// Java's transactional id of a cluster's leader.
pub fn leader_transactional_id(group_id: &str) -> String {
    format!("connect-cluster-{group_id}")
}

pub struct LeaderWriter {
    topic: String,
    config: ClientConfig,
    producer: Mutex<Option<AckingProducer>>,
    claimed: Notify,
    fenced: Notify,
}

impl LeaderWriter {
    /// `producer`: the config topic's producer settings; the transactional ones are added here.
    pub fn new(topic: &str, group_id: &str, producer: &ClientConfig) -> Self {
        let mut config = producer.clone();
        config
            .set("transactional.id", leader_transactional_id(group_id))
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("max.in.flight.requests.per.connection", "5");
        if let Some(id) = producer.get("client.id") {
            config.set("client.id", format!("{id}-leader"));
        }
        LeaderWriter {
            topic: topic.to_owned(),
            config,
            producer: Mutex::new(None),
            claimed: Notify::new(),
            fenced: Notify::new(),
        }
    }

    /// Registers the leader's transactional id, fencing out every earlier leader's producer.
    pub async fn claim(&self) -> Result<(), StoreError> {
        let mut producer = self.producer.lock().await;
        if producer.is_some() {
            return Ok(());
        }
        let failed = |e: &dyn std::fmt::Display| {
            StoreError::Fenced(format!(
                "Failed to create and initialize fencable producer for config topic: {e}"
            ))
        };
        let (created, _acks) = AckingProducer::new(&self.config).map_err(|e| failed(&e))?;
        created
            .init_transactions(TRANSACTION_TIMEOUT)
            .await
            .map_err(|e| failed(&e))?;
        *producer = Some(created);
        self.claimed.notify_waiters();
        Ok(())
    }

    /// Gives the producer up (no longer the leader, or stopping).
    pub async fn relinquish(&self) {
        self.producer.lock().await.take();
    }

    /// Writes the records in one transaction. On failure (most likely fenced by a newer leader)
    /// the producer is given up and `fenced` wakes up: the herder rejoins and, when it still
    /// leads, claims again.
    pub async fn send(&self, records: &[(String, Option<Vec<u8>>)]) -> Result<(), StoreError> {
        let mut guard = self.claimed_producer().await?;
        let written = async {
            let producer = guard.as_ref().ok_or("the producer was given up")?;
            producer.begin_transaction().map_err(|e| e.to_string())?;
            for (seq, (key, value)) in records.iter().enumerate() {
                let record = OutgoingRecord {
                    topic: &self.topic,
                    key: Some(key.as_bytes()),
                    value: value.as_deref(),
                    ..OutgoingRecord::default()
                };
                producer.send(&record, seq).map_err(|e| e.to_string())?;
            }
            producer
                .commit_transaction(TRANSACTION_TIMEOUT)
                .await
                .map_err(|e| e.to_string())
        }
        .await;
        if let Err(error) = written {
            tracing::warn!(%error, "Failed to perform fencable send to config topic");
            guard.take();
            self.fenced.notify_one();
            return Err(StoreError::Fenced(format!(
                "Failed to perform fencable send to config topic: {error}"
            )));
        }
        Ok(())
    }

    /// The producer once claimed: a request may reach a new leader just before its loop claims.
    async fn claimed_producer(
        &self,
    ) -> Result<tokio::sync::MutexGuard<'_, Option<AckingProducer>>, StoreError> {
        let deadline = tokio::time::Instant::now() + CLAIM_WAIT;
        loop {
            let claimed = self.claimed.notified();
            tokio::pin!(claimed);
            claimed.as_mut().enable();
            let guard = self.producer.lock().await;
            if guard.is_some() {
                return Ok(guard);
            }
            drop(guard);
            if tokio::time::timeout_at(deadline, claimed).await.is_err() {
                return Err(StoreError::Fenced(
                    "Cannot produce to config topic without claiming write privileges first"
                        .to_owned(),
                ));
            }
        }
    }

    /// Resolves after a write failed, or at once when one failed since the last call.
    pub async fn fenced(&self) {
        self.fenced.notified().await;
    }
}
