//! The raw librdkafka copy of a topic from one cluster to another, each record to the same
//! partition with its key, value, headers and timestamp: what MirrorMaker's source task does,
//! with nothing of a connector runtime in between (W9's limit).

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
use ferry_kafka::rdkafka::message::{Headers, Message, OwnedHeaders};
use ferry_kafka::rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use ferry_kafka::rdkafka::types::RDKafkaErrorCode;
use ferry_kafka::rdkafka::{Offset, TopicPartitionList};

use crate::raw::{config, Acks};

pub struct Copy<'a> {
    pub source: &'a str,
    pub target: &'a str,
    pub from: &'a str,
    pub to: &'a str,
    pub count: u64,
    pub timeout: Duration,
    pub consumer: &'a [String],
    pub producer: &'a [String],
}

/// Copies `count` records and waits for their acknowledgements; returns the elapsed
/// milliseconds, clients' creation included.
pub fn copy(c: &Copy<'_>) -> anyhow::Result<u128> {
    ferry_memory::widen_thread_cache();
    let mut consumer_config = config(c.source, c.consumer)?;
    consumer_config
        .set(
            "group.id",
            format!("ferry-bench-copy-{}", std::process::id()),
        )
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false")
        .set("fetch.queue.backoff.ms", "5");
    let mut producer_config = config(c.target, c.producer)?;
    if !c.producer.iter().any(|kv| kv.starts_with("acks=")) {
        producer_config.set("acks", "all");
    }
    let start = Instant::now();
    let consumer: BaseConsumer = consumer_config.create().context("creating the consumer")?;
    let producer: BaseProducer<Acks> = producer_config
        .create_with_context(Acks::default())
        .context("creating the producer")?;
    let metadata = consumer
        .fetch_metadata(Some(c.from), Duration::from_secs(30))
        .context("fetching the topic's metadata")?;
    let partitions = metadata
        .topics()
        .iter()
        .find(|t| t.name() == c.from && t.error().is_none())
        .map_or(0, |t| t.partitions().len());
    if partitions == 0 {
        bail!("topic {} does not exist", c.from);
    }
    let mut tpl = TopicPartitionList::new();
    for p in 0..i32::try_from(partitions).context("partition count")? {
        tpl.add_partition_offset(c.from, p, Offset::Beginning)
            .context("assigning")?;
    }
    consumer.assign(&tpl).context("assigning")?;
    let deadline = start + c.timeout;
    let mut sent = 0u64;
    while sent < c.count {
        if Instant::now() > deadline {
            bail!("copied {sent} of {} records before the timeout", c.count);
        }
        let Some(polled) = consumer.poll(Duration::from_millis(100)) else {
            producer.poll(Duration::ZERO);
            continue;
        };
        let m = polled.with_context(|| format!("consuming {}", c.from))?;
        let mut headers = OwnedHeaders::new();
        if let Some(h) = m.headers() {
            for header in h.iter() {
                headers = headers.insert(header);
            }
        }
        let mut record = BaseRecord::to(c.to)
            .partition(m.partition())
            .headers(headers);
        if let Some(key) = m.key() {
            record = record.key(key);
        }
        if let Some(value) = m.payload() {
            record = record.payload(value);
        }
        if let Some(ts) = m.timestamp().to_millis() {
            record = record.timestamp(ts);
        }
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((e, back)) if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull) => {
                    producer.poll(Duration::from_millis(5));
                    record = back;
                }
                Err((e, _)) => bail!("producing to {}: {e}", c.to),
            }
        }
        sent += 1;
        producer.poll(Duration::ZERO);
    }
    producer
        .flush(Duration::from_secs(600))
        .context("waiting for the acknowledgements")?;
    let elapsed = start.elapsed().as_millis();
    let acked = producer.context().acked();
    if acked != c.count {
        bail!("{acked} of {} records acknowledged", c.count);
    }
    eprintln!(
        "ferry-bench: copied {acked} records from {} to {} in {elapsed} ms",
        c.from, c.to
    );
    Ok(elapsed)
}
