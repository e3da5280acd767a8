//! The raw librdkafka client: what a connector runtime moving the same records could at best do.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use ferry_kafka::admin::{Admin, TopicSpec};
use ferry_kafka::rdkafka::config::ClientConfig;
use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
use ferry_kafka::rdkafka::producer::{BaseProducer, DeliveryResult, Producer, ProducerContext};
use ferry_kafka::rdkafka::{ClientContext, Message, Offset, TopicPartitionList};

use crate::raw_batch::{self, Refused};

/// Counts acknowledgements and keeps the first delivery error.
#[derive(Default)]
pub(crate) struct Acks {
    acked: AtomicU64,
    failed: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl ClientContext for Acks {}

impl Acks {
    pub(crate) fn acked(&self) -> u64 {
        self.acked.load(Ordering::Relaxed)
    }
}

impl ProducerContext for Acks {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        match result {
            Ok(_) => {
                self.acked.fetch_add(1, Ordering::Relaxed);
            }
            Err((e, _)) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert_with(|| e.to_string());
            }
        }
    }
}

pub(crate) fn config(bootstrap: &str, extra: &[String]) -> anyhow::Result<ClientConfig> {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap);
    for kv in extra {
        let (k, v) = kv
            .split_once('=')
            .with_context(|| format!("-X {kv}: expected key=value"))?;
        config.set(k, v);
    }
    Ok(config)
}

/// Records queued with one batch call, as a FileStreamSource poll returns them (its `batch.size`
/// default) and Ferry's source pipeline hands them to librdkafka.
const PRODUCE_BATCH: usize = 2000;

/// Produces every line of `file` (without its newline) as a record value, a batch at a time
/// through librdkafka's batch call, waits for every acknowledgement, and returns the elapsed
/// milliseconds, producer creation included.
pub fn produce(
    bootstrap: &str,
    topic: &str,
    file: &Path,
    extra: &[String],
) -> anyhow::Result<u128> {
    // The sending thread caches freed blocks as a Ferry task's thread does.
    ferry_memory::widen_thread_cache();
    let text = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let lines: Vec<&[u8]> = text
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut config = config(bootstrap, extra)?;
    if !extra.iter().any(|kv| kv.starts_with("acks=")) {
        config.set("acks", "all");
    }
    let start = Instant::now();
    let producer: BaseProducer<Acks> = config
        .create_with_context(Acks::default())
        .context("creating the producer")?;
    let mut handle = raw_batch::Topic::new(producer.client().native_ptr(), topic)?;
    for batch in lines.chunks(PRODUCE_BATCH) {
        let mut from = 0;
        while from < batch.len() {
            match handle.produce(&batch[from..]) {
                Ok(()) => break,
                Err(Refused::QueueFull(at)) => {
                    from += at;
                    producer.poll(Duration::from_millis(5));
                }
                Err(Refused::Failed(code)) => bail!("producing to {topic}: {code}"),
            }
        }
        producer.poll(Duration::ZERO);
    }
    producer
        .flush(Duration::from_secs(600))
        .context("waiting for the acknowledgements")?;
    let elapsed = start.elapsed().as_millis();
    let acks = producer.context();
    let failed = acks.failed.load(Ordering::Relaxed);
    if failed > 0 {
        let first = acks
            .first_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        bail!(
            "{failed} records failed, the first with: {}",
            first.unwrap_or_default()
        );
    }
    let acked = acks.acked.load(Ordering::Relaxed);
    if acked != lines.len() as u64 {
        bail!("{acked} of {} records acknowledged", lines.len());
    }
    eprintln!("ferry-bench: produced {acked} records to {topic} in {elapsed} ms");
    Ok(elapsed)
}

/// Reads `count` records from the start of every partition of `topic`, a batch at a time from
/// a queue of the consumer's own as Ferry's sink consumer takes them; returns the elapsed
/// milliseconds, consumer creation included.
pub fn consume(
    bootstrap: &str,
    topic: &str,
    count: u64,
    timeout: Duration,
    extra: &[String],
) -> anyhow::Result<u128> {
    ferry_memory::widen_thread_cache();
    let mut config = config(bootstrap, extra)?;
    config
        .set(
            "group.id",
            format!("ferry-bench-raw-{}", std::process::id()),
        )
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false")
        // As Ferry's sink consumers do: no 1 s pause each time the prefetch queue fills.
        .set("fetch.queue.backoff.ms", "5");
    let start = Instant::now();
    let consumer: BaseConsumer = config.create().context("creating the consumer")?;
    let metadata = consumer
        .fetch_metadata(Some(topic), Duration::from_secs(30))
        .context("fetching the topic's metadata")?;
    let partitions = metadata
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none())
        .map(|t| t.partitions().len())
        .unwrap_or(0);
    if partitions == 0 {
        bail!("topic {topic} does not exist");
    }
    let partitions = i32::try_from(partitions).context("partition count")?;
    let mut fetched =
        raw_batch::FetchQueue::new(consumer.client().native_ptr(), topic, partitions)?;
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .context("assigning")?;
    }
    consumer.assign(&tpl).context("assigning")?;
    let deadline = start + timeout;
    let (mut seen, mut bytes) = (0u64, 0u64);
    while seen < count {
        if Instant::now() > deadline {
            bail!("read {seen} of {count} records from {topic} before the timeout");
        }
        let taken = fetched
            .take(Duration::from_millis(100))
            .with_context(|| format!("consuming {topic}"))?;
        seen += taken.records;
        bytes += taken.bytes;
        // Errors stay on the consumer's own queue, and so would a record fetched before its
        // partition's queue was forwarded.
        match consumer.poll(Duration::ZERO) {
            Some(Ok(m)) => {
                seen += 1;
                bytes += m.payload().map_or(0, |p| p.len() as u64);
            }
            Some(Err(e)) => bail!("consuming {topic}: {e}"),
            None => {}
        }
    }
    let elapsed = start.elapsed().as_millis();
    eprintln!(
        "ferry-bench: consumed {seen} records ({bytes} value bytes) from {topic} in {elapsed} ms"
    );
    Ok(elapsed)
}

fn admin(bootstrap: &str) -> anyhow::Result<Admin> {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap);
    Admin::new(&config).context("creating the admin client")
}

fn sum_end_offsets(admin: &Admin, topic: &str) -> anyhow::Result<u64> {
    let ends = admin
        .end_offsets(topic, Duration::from_secs(10))
        .with_context(|| format!("end offsets of {topic}"))?;
    Ok(ends.iter().map(|o| (*o).max(0) as u64).sum())
}

/// Creates `topic` with the broker's default replication factor and `partitions` partitions
/// (the broker's default when -1).
pub fn create_topic(bootstrap: &str, topic: &str, partitions: i32) -> anyhow::Result<()> {
    let admin = admin(bootstrap)?;
    let spec = TopicSpec {
        name: topic.to_owned(),
        partitions,
        replication_factor: -1,
        configs: Vec::new(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(admin.create_topic(&spec))
        .with_context(|| format!("creating {topic}"))?;
    Ok(())
}

/// The sum of the end offsets of every partition of `topic`; 0 when it does not exist.
pub fn end_offsets(bootstrap: &str, topic: &str) -> anyhow::Result<u64> {
    sum_end_offsets(&admin(bootstrap)?, topic)
}

/// Waits until `topic` holds `count` records by its end offsets, polling every 20 ms.
pub fn wait_offsets(
    bootstrap: &str,
    topic: &str,
    count: u64,
    timeout: Duration,
) -> anyhow::Result<()> {
    let admin = admin(bootstrap)?;
    let deadline = Instant::now() + timeout;
    loop {
        // The topic may not exist yet: a failed query is just "not there yet".
        let n = sum_end_offsets(&admin, topic).unwrap_or(0);
        if n >= count {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{topic} holds {n} of {count} records after {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
