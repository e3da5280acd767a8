//! librdkafka's batch calls for the raw baseline, as Ferry's pipelines make them: a source's
//! poll of records queued with one `rd_kafka_produce_batch` call, and a sink's records taken
//! from a queue of the consumer's own with `rd_kafka_consume_batch_queue`. rust-rdkafka offers
//! neither, so the baseline would otherwise measure a per-record API Ferry no longer uses.

#![allow(unsafe_code)]

use std::ffi::{c_int, c_void, CString};
use std::ptr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::{bail, Context as _};
use ferry_kafka::rdkafka::bindings as rd;
use ferry_kafka::rdkafka::types::RDKafkaErrorCode;

const PARTITION_UA: i32 = -1;
const NO_ERROR: rd::rd_kafka_resp_err_t = rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR;

/// A topic handle of a producer, destroyed with it.
pub(crate) struct Topic {
    rkt: *mut rd::rd_kafka_topic_t,
    messages: Vec<rd::rd_kafka_message_t>,
}

/// What a batch call left undone.
pub(crate) enum Refused {
    /// The queue is full from this record of the batch on.
    QueueFull(usize),
    Failed(RDKafkaErrorCode),
}

impl Topic {
    /// `client` is a live producer that outlives the handle.
    pub(crate) fn new(client: *mut rd::rd_kafka_t, name: &str) -> anyhow::Result<Topic> {
        let c_name = CString::new(name).context("topic name")?;
        // SAFETY: a live client and a NUL-terminated name; no topic configuration.
        let rkt = unsafe { rd::rd_kafka_topic_new(client, c_name.as_ptr(), ptr::null_mut()) };
        if rkt.is_null() {
            bail!("librdkafka made no handle for topic {name}");
        }
        Ok(Topic {
            rkt,
            messages: Vec::new(),
        })
    }

    /// Queues `values` (no keys) to the partitioner's partitions with one call, copying them.
    pub(crate) fn produce(&mut self, values: &[&[u8]]) -> Result<(), Refused> {
        let rkt = self.rkt;
        self.messages.clear();
        self.messages
            .extend(values.iter().map(|value| rd::rd_kafka_message_t {
                err: NO_ERROR,
                rkt,
                partition: PARTITION_UA,
                payload: value.as_ptr().cast_mut().cast::<c_void>(),
                len: value.len(),
                key: ptr::null_mut(),
                key_len: 0,
                offset: 0,
                _private: ptr::null_mut(),
            }));
        let count = c_int::try_from(self.messages.len())
            .map_err(|_| Refused::Failed(RDKafkaErrorCode::InvalidArgument))?;
        // SAFETY: `rkt` is a live handle; `messages` holds `count` entries whose values librdkafka
        // copies (RD_KAFKA_MSG_F_COPY) before the call returns, setting each entry's `err`.
        unsafe {
            rd::rd_kafka_produce_batch(
                rkt,
                PARTITION_UA,
                rd::RD_KAFKA_MSG_F_COPY | rd::RD_KAFKA_MSG_F_PARTITION,
                self.messages.as_mut_ptr(),
                count,
            );
        }
        // After a full queue librdkafka refuses every later record of the batch too.
        match self.messages.iter().position(|m| m.err != NO_ERROR) {
            None => Ok(()),
            Some(i) => match RDKafkaErrorCode::from(self.messages[i].err) {
                RDKafkaErrorCode::QueueFull => Err(Refused::QueueFull(i)),
                code => Err(Refused::Failed(code)),
            },
        }
    }
}

impl Drop for Topic {
    fn drop(&mut self) {
        // SAFETY: the handle is live and no batch call is under way.
        unsafe { rd::rd_kafka_topic_destroy(self.rkt) };
    }
}

/// A queue of the consumer's own that its partitions' records are forwarded to.
pub(crate) struct FetchQueue {
    queue: *mut rd::rd_kafka_queue_t,
    /// Set by librdkafka's thread when a record arrives on the empty queue.
    arrived: Arc<(Mutex<bool>, Condvar)>,
    taken: Vec<*mut rd::rd_kafka_message_t>,
}

unsafe extern "C" fn wake(_rk: *mut rd::rd_kafka_t, opaque: *mut c_void) {
    // SAFETY: `opaque` is the FetchQueue's `arrived`, which outlives the callback (Drop turns
    // it off first).
    let (flag, cond) = unsafe { &*(opaque as *const (Mutex<bool>, Condvar)) };
    *flag
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
    cond.notify_one();
}

/// What one take found: records and their value bytes.
pub(crate) struct Taken {
    pub records: u64,
    pub bytes: u64,
}

impl FetchQueue {
    /// A queue taking the records of `partitions` of `topic`; call before assigning them.
    /// `client` is a live consumer that outlives the queue.
    pub(crate) fn new(
        client: *mut rd::rd_kafka_t,
        topic: &str,
        partitions: i32,
    ) -> anyhow::Result<FetchQueue> {
        let c_topic = CString::new(topic).context("topic name")?;
        let arrived = Arc::new((Mutex::new(false), Condvar::new()));
        // SAFETY: a live client; the callback's opaque lives in `arrived` until Drop turns the
        // callback off; each partition queue is released after forwarding.
        let queue = unsafe {
            let queue = rd::rd_kafka_queue_new(client);
            rd::rd_kafka_queue_cb_event_enable(
                queue,
                Some(wake),
                Arc::as_ptr(&arrived) as *mut c_void,
            );
            for p in 0..partitions {
                let partition = rd::rd_kafka_queue_get_partition(client, c_topic.as_ptr(), p);
                if !partition.is_null() {
                    rd::rd_kafka_queue_forward(partition, queue);
                    rd::rd_kafka_queue_destroy(partition);
                }
            }
            queue
        };
        Ok(FetchQueue {
            queue,
            arrived,
            taken: vec![ptr::null_mut(); 1000],
        })
    }

    /// Takes what has arrived, up to 1,000 records; waits up to `wait` when nothing has.
    pub(crate) fn take(&mut self, wait: Duration) -> anyhow::Result<Taken> {
        let mut taken = Taken {
            records: 0,
            bytes: 0,
        };
        // SAFETY: a live queue and room for `taken.len()` message pointers.
        let n = unsafe {
            rd::rd_kafka_consume_batch_queue(
                self.queue,
                0,
                self.taken.as_mut_ptr(),
                self.taken.len(),
            )
        };
        let n = usize::try_from(n).unwrap_or(0);
        let mut first_error = None;
        for &m in &self.taken[..n] {
            // SAFETY: the call returned `n` live messages, each destroyed once here.
            unsafe {
                let message = &*m;
                if message.err == NO_ERROR {
                    taken.records += 1;
                    taken.bytes += message.len as u64;
                } else {
                    first_error.get_or_insert(RDKafkaErrorCode::from(message.err));
                }
                rd::rd_kafka_message_destroy(m);
            }
        }
        if let Some(code) = first_error {
            bail!("consuming: {code}");
        }
        if n == 0 {
            let (flag, cond) = &*self.arrived;
            let guard = flag
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let (mut guard, _) = cond
                .wait_timeout_while(guard, wait, |arrived| !*arrived)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *guard = false;
        }
        Ok(taken)
    }
}

impl Drop for FetchQueue {
    fn drop(&mut self) {
        // SAFETY: the queue is live; the callback is off before `arrived` can be dropped.
        unsafe {
            rd::rd_kafka_queue_cb_event_enable(self.queue, None, ptr::null_mut());
            rd::rd_kafka_queue_destroy(self.queue);
        }
    }
}
