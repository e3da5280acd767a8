//! Records in and out of the broker, for `produce` and `expect_topic_records` steps.

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
use ferry_kafka::rdkafka::message::Message;
use ferry_kafka::rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use ferry_kafka::rdkafka::{ClientConfig, Offset, TopicPartitionList};

/// Writes `values` (no keys) to `topic`, waiting for every acknowledgement.
pub fn produce(bootstrap: &str, topic: &str, values: &[String]) -> anyhow::Result<()> {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("acks", "all")
        .create()
        .context("creating a producer")?;
    for v in values {
        producer
            .send(BaseRecord::<(), str>::to(topic).payload(v.as_str()))
            .map_err(|(e, _)| e)
            .with_context(|| format!("producing to {topic}"))?;
    }
    producer
        .flush(Duration::from_secs(30))
        .with_context(|| format!("flushing records to {topic}"))?;
    Ok(())
}

/// Reads `topic` from the start until `count` records arrived or `timeout` passed (then half a
/// second more, so records beyond `count` show too). Each record is its value, prefixed with
/// `key => ` when it has a key; partitions in order.
pub fn read(
    bootstrap: &str,
    topic: &str,
    count: usize,
    timeout: Duration,
) -> anyhow::Result<Vec<String>> {
    let deadline = Instant::now() + timeout;
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", "ferry-compat-reader")
        .set("enable.auto.commit", "false")
        .set("allow.auto.create.topics", "false")
        .create()
        .context("creating a consumer")?;
    // The topic may appear only once a connector writes to it.
    let partitions = loop {
        let metadata = consumer
            .fetch_metadata(Some(topic), Duration::from_secs(10))
            .context("fetching metadata")?;
        let n = metadata
            .topics()
            .iter()
            .find(|t| t.name() == topic && t.error().is_none())
            .map_or(0, |t| t.partitions().len());
        if n > 0 {
            break n;
        }
        if Instant::now() > deadline {
            return Ok(Vec::new());
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, i32::try_from(p)?, Offset::Beginning)?;
    }
    consumer.assign(&tpl)?;
    let mut records: Vec<(i32, i64, String)> = Vec::new();
    let mut grace: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if records.len() >= count && grace.is_none() {
            grace = Some(now + Duration::from_millis(500));
        }
        if grace.is_some_and(|g| now > g) || (grace.is_none() && now > deadline) {
            break;
        }
        match consumer.poll(Duration::from_millis(100)) {
            Some(Ok(m)) => {
                let value = m.payload().map_or_else(
                    || "<null>".to_owned(),
                    |p| String::from_utf8_lossy(p).into_owned(),
                );
                let text = match m.key() {
                    Some(k) => format!("{} => {value}", String::from_utf8_lossy(k)),
                    None => value,
                };
                records.push((m.partition(), m.offset(), text));
            }
            Some(Err(e)) => bail!("reading {topic}: {e}"),
            None => {}
        }
    }
    records.sort_by_key(|(p, o, _)| (*p, *o));
    Ok(records.into_iter().map(|(_, _, t)| t).collect())
}
