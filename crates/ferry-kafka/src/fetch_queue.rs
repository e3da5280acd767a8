//! The records of a sink consumer's partitions, taken from librdkafka a batch at a time.
//!
//! rust-rdkafka hands out one message per poll, and each poll costs four clock reads (librdkafka
//! times every poll for `max.poll.interval.ms`, rust-rdkafka its timeout) and a reference-counted
//! event per message: about a quarter of a W2 run's samples
//! (`bench/profiles/w2-sink-consumer.md`). librdkafka's batch call cannot be used on the
//! consumer's own queue, where it would serve a rebalance by dropping the assignment. So every
//! assigned partition's records go to a queue of their own, read here in batches, while
//! rebalances, errors and statistics stay on the consumer's queue, served by rust-rdkafka.
#![allow(unsafe_code)]

use std::ffi::{c_void, CStr, CString};
use std::ptr;
use std::sync::Arc;

use rdkafka::bindings as rd;
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::TopicPartitionList;
use tokio::sync::Notify;

use crate::consumer::ConsumedRecord;

/// The queue all assigned partitions' records are forwarded to. Must be dropped before the
/// consumer's client is.
pub(crate) struct FetchQueue {
    queue: *mut rd::rd_kafka_queue_t,
    /// Woken by librdkafka when the queue goes from empty to not empty; librdkafka holds its
    /// address, which the Arc keeps in place.
    arrived: Arc<Notify>,
}

// SAFETY: librdkafka's queues may be used from any thread; the Notify is Sync.
unsafe impl Send for FetchQueue {}
// SAFETY: as above; every call on the queue takes librdkafka's queue lock.
unsafe impl Sync for FetchQueue {}

unsafe extern "C" fn wake(_rk: *mut rd::rd_kafka_t, opaque: *mut c_void) {
    // SAFETY: opaque is the FetchQueue's Notify, which outlives the callback (see Drop).
    let arrived = unsafe { &*(opaque as *const Notify) };
    arrived.notify_one();
}

impl FetchQueue {
    /// A queue of `client`'s, with nothing forwarded to it yet.
    pub(crate) fn new(client: *mut rd::rd_kafka_t) -> FetchQueue {
        let arrived = Arc::new(Notify::new());
        // SAFETY: client is a live consumer; the queue is destroyed in Drop, before the client.
        let queue = unsafe { rd::rd_kafka_queue_new(client) };
        // SAFETY: the opaque points into the Arc this FetchQueue keeps until the callback is
        // disabled again in Drop.
        unsafe {
            rd::rd_kafka_queue_cb_event_enable(
                queue,
                Some(wake),
                Arc::as_ptr(&arrived) as *mut c_void,
            )
        };
        FetchQueue { queue, arrived }
    }

    /// Sends the records of `partitions` here from now on. Called before librdkafka is told to
    /// fetch them (in the rebalance callback, before assign), so none of theirs are left on the
    /// consumer's queue; a partition sent here already stays.
    pub(crate) fn take(&self, client: *mut rd::rd_kafka_t, partitions: &TopicPartitionList) {
        for e in partitions.elements() {
            let Ok(topic) = CString::new(e.topic()) else {
                continue;
            };
            // SAFETY: client is live; the partition's queue handle is released right after
            // forwarding (the partition keeps forwarding to this queue, which it holds a
            // reference to).
            unsafe {
                let partition =
                    rd::rd_kafka_queue_get_partition(client, topic.as_ptr(), e.partition());
                if !partition.is_null() {
                    rd::rd_kafka_queue_forward(partition, self.queue);
                    rd::rd_kafka_queue_destroy(partition);
                }
            }
        }
    }

    /// Waits until records may have arrived since the last [`FetchQueue::drain`] that found the
    /// queue empty (a wake-up stored before the wait counts).
    pub(crate) async fn arrived(&self) {
        self.arrived.notified().await;
    }

    /// Takes up to `max` records without waiting, copying each into `out`. A consumption error
    /// carried in place of a record is returned once all records of the batch are in `out`:
    /// librdkafka counts the whole batch as consumed, so a record left out would be skipped.
    pub(crate) fn drain(
        &self,
        max: usize,
        out: &mut Vec<ConsumedRecord>,
    ) -> Result<(), KafkaError> {
        let mut messages: Vec<*mut rd::rd_kafka_message_t> = vec![ptr::null_mut(); max];
        // SAFETY: the array holds `max` slots; librdkafka fills the first `n` of them.
        let n =
            unsafe { rd::rd_kafka_consume_batch_queue(self.queue, 0, messages.as_mut_ptr(), max) };
        let n = usize::try_from(n).unwrap_or(0);
        let mut first_error = None;
        let mut topic = TopicName::default();
        for &m in &messages[..n] {
            // SAFETY: each message is librdkafka's until destroyed, once, right after the copy.
            unsafe {
                match copy(&*m, &mut topic) {
                    Ok(record) => out.push(record),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
                rd::rd_kafka_message_destroy(m);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for FetchQueue {
    fn drop(&mut self) {
        // SAFETY: disabling the callback takes the queue's lock, which librdkafka holds while it
        // calls it, so no call is running or comes after; then the handle is released once.
        unsafe {
            rd::rd_kafka_queue_cb_event_enable(self.queue, None, ptr::null_mut());
            rd::rd_kafka_queue_destroy(self.queue);
        }
    }
}

/// The last topic's name, so a batch from one topic reads and checks it once.
#[derive(Default)]
struct TopicName {
    handle: *const rd::rd_kafka_topic_t,
    name: String,
}

/// An owned copy of `m`, or the error librdkafka put in its place (as rust-rdkafka reports it).
///
/// # Safety
/// `m` must be a live message from a consumer.
unsafe fn copy(
    m: &rd::rd_kafka_message_t,
    topic: &mut TopicName,
) -> Result<ConsumedRecord, KafkaError> {
    if m.err != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
        return Err(
            if m.err == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__PARTITION_EOF {
                KafkaError::PartitionEOF(m.partition)
            } else {
                KafkaError::MessageConsumption(RDKafkaErrorCode::from(m.err))
            },
        );
    }
    if topic.handle != m.rkt.cast_const() {
        // SAFETY: a message's topic handle lives as long as the message.
        let name = unsafe { CStr::from_ptr(rd::rd_kafka_topic_name(m.rkt)) };
        topic.name = name.to_string_lossy().into_owned();
        topic.handle = m.rkt;
    }
    let mut kind = rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    // SAFETY: m is live.
    let at = unsafe { rd::rd_kafka_message_timestamp(m, &mut kind) };
    let (timestamp, log_append_time) = match kind {
        rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_CREATE_TIME => (Some(at), false),
        rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME => (Some(at), true),
        _ => (None, false),
    };
    Ok(ConsumedRecord {
        topic: topic.name.clone(),
        partition: m.partition,
        offset: m.offset,
        timestamp,
        log_append_time,
        // SAFETY: key and payload are the message's, with their lengths.
        key: unsafe { bytes(m.key, m.key_len) },
        value: unsafe { bytes(m.payload, m.len) },
        // SAFETY: m is live.
        headers: unsafe { headers(m) },
    })
}

/// # Safety
/// `data` must be null or point to `len` readable bytes.
unsafe fn bytes(data: *const c_void, len: usize) -> Option<Vec<u8>> {
    if data.is_null() {
        None
    } else {
        // SAFETY: as the caller promises.
        Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }.to_vec())
    }
}

/// # Safety
/// `m` must be a live message.
unsafe fn headers(m: &rd::rd_kafka_message_t) -> Vec<(String, Option<Vec<u8>>)> {
    let mut hdrs = ptr::null_mut();
    // SAFETY: m is live; the headers belong to it.
    if unsafe { rd::rd_kafka_message_headers(m, &mut hdrs) }
        != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
    {
        return Vec::new();
    }
    // SAFETY: hdrs is the message's header list.
    let count = unsafe { rd::rd_kafka_header_cnt(hdrs) };
    let mut out = Vec::with_capacity(count);
    for idx in 0..count {
        let (mut name, mut value, mut size) = (ptr::null(), ptr::null(), 0usize);
        // SAFETY: idx is below the count; name and value point into the list.
        let found =
            unsafe { rd::rd_kafka_header_get_all(hdrs, idx, &mut name, &mut value, &mut size) };
        if found != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
            break;
        }
        // SAFETY: a header's name is a NUL-terminated string; its value has `size` bytes.
        let key = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        out.push((key, unsafe { bytes(value, size) }));
    }
    out
}
