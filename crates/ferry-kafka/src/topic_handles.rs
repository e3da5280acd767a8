//! Sending through librdkafka's topic handles.
//!
//! rust-rdkafka's `BaseProducer::send` names a record's topic as a string, so every record costs
//! a C string of the name and librdkafka's lookup of the topic under its lock: about a tenth of a
//! source task's thread in W1's profile (`bench/profiles/w1-source-pipeline.md`). A task sends
//! to few topics, so a handle per topic, kept while the producer lives, sends without either.
//! This is the one place of the workspace that calls librdkafka directly, which is why this
//! crate denies unsafe code instead of forbidding it.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr, CString};
use std::ptr;

use rdkafka::bindings as rd;
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;

use crate::producer::{BatchRecord, OutgoingRecord};

/// More topics than this and the handles are dropped and made again as records need them (a
/// router fanning out to many topics should not keep a handle for each forever).
const MAX_HANDLES: usize = 1024;
/// librdkafka's "any partition": its partitioner picks one.
const PARTITION_UA: i32 = -1;

/// A reference to one of librdkafka's topics, given back when dropped.
struct TopicHandle(*mut rd::rd_kafka_topic_t);

// SAFETY: librdkafka's topic handles may be used and destroyed from any thread.
unsafe impl Send for TopicHandle {}

impl Drop for TopicHandle {
    fn drop(&mut self) {
        // SAFETY: the pointer came from rd_kafka_topic_new and is destroyed once, here.
        unsafe { rd::rd_kafka_topic_destroy(self.0) }
    }
}

/// The message array handed to `rd_kafka_produce_batch`, kept between batches for its capacity.
/// It is empty between calls, so the pointers it held never outlive the records they point into.
#[derive(Default)]
struct MessageArray(Vec<rd::rd_kafka_message_t>);

// SAFETY: empty whenever it changes threads (see above); its pointers are only used within one
// `send_batch` call.
unsafe impl Send for MessageArray {}

/// The topic handles of one producer. Must be dropped before the producer's client is.
#[derive(Default)]
pub(crate) struct TopicHandles {
    last: Option<(String, TopicHandle)>,
    others: HashMap<String, TopicHandle>,
    batch: MessageArray,
}

impl TopicHandles {
    /// Queues `record` as `BaseProducer::send` would (librdkafka copies key, value and
    /// headers), with `opaque` as its delivery opaque.
    pub(crate) fn send(
        &mut self,
        client: *mut rd::rd_kafka_t,
        record: &OutgoingRecord<'_>,
        opaque: usize,
    ) -> Result<(), KafkaError> {
        let topic = self.handle(client, record.topic)?;
        let (value, value_len) = bytes(record.value);
        let (key, key_len) = bytes(record.key);
        let headers = if record.headers.is_empty() {
            ptr::null_mut()
        } else {
            native_headers(&record.headers)
        };
        // SAFETY: `client` and `topic` are live handles of the same client; key, value and the
        // headers' bytes are read (copied, RD_KAFKA_MSG_F_COPY) before producev returns; on
        // success librdkafka owns `headers`, otherwise they are ours to destroy.
        let err = unsafe {
            rd::rd_kafka_producev(
                client,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_RKT,
                topic,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_PARTITION,
                record.partition.unwrap_or(-1),
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_MSGFLAGS,
                rd::RD_KAFKA_MSG_F_COPY,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_VALUE,
                value,
                value_len,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_KEY,
                key,
                key_len,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_OPAQUE,
                opaque as *mut c_void,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_TIMESTAMP,
                record.timestamp.unwrap_or(0),
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_HEADERS,
                headers,
                rd::rd_kafka_vtype_t::RD_KAFKA_VTYPE_END,
            )
        };
        if err == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
            return Ok(());
        }
        if !headers.is_null() {
            // SAFETY: not taken by librdkafka, as the call failed.
            unsafe { rd::rd_kafka_headers_destroy(headers) }
        }
        Err(KafkaError::MessageProduction(RDKafkaErrorCode::from(err)))
    }

    /// Queues `records`, all of `topic`, in one call (librdkafka copies keys and values): how
    /// many it queued, and the first record it did not queue with librdkafka's reason.
    pub(crate) fn send_batch(
        &mut self,
        client: *mut rd::rd_kafka_t,
        topic: &str,
        records: &[BatchRecord],
    ) -> (usize, Result<(), (usize, KafkaError)>) {
        if records.is_empty() {
            return (0, Ok(()));
        }
        let rkt = match self.handle(client, topic) {
            Ok(rkt) => rkt,
            Err(err) => return (0, Err((0, err))),
        };
        let Ok(count) = c_int::try_from(records.len()) else {
            let err = KafkaError::MessageProduction(RDKafkaErrorCode::InvalidArgument);
            return (0, Err((0, err)));
        };
        let messages = &mut self.batch.0;
        messages.extend(records.iter().map(|record| {
            let (payload, len) = bytes(record.value.as_deref());
            let (key, key_len) = bytes(record.key.as_deref());
            rd::rd_kafka_message_t {
                err: rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR,
                rkt,
                partition: record.partition.unwrap_or(PARTITION_UA),
                payload,
                len,
                key,
                key_len,
                offset: 0,
                _private: record.seq as *mut c_void,
            }
        }));
        // SAFETY: `client` and `rkt` are live handles of the same client; `messages` holds
        // `count` entries whose keys and values are copied (RD_KAFKA_MSG_F_COPY) before the call
        // returns; the call sets each entry's `err`. RD_KAFKA_MSG_F_PARTITION takes each
        // entry's partition, where -1 asks for the partitioner.
        let queued = unsafe {
            rd::rd_kafka_produce_batch(
                rkt,
                PARTITION_UA,
                rd::RD_KAFKA_MSG_F_COPY | rd::RD_KAFKA_MSG_F_PARTITION,
                messages.as_mut_ptr(),
                count,
            )
        };
        let failed = messages
            .iter()
            .position(|m| m.err != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR)
            .map(|index| {
                let code = RDKafkaErrorCode::from(messages[index].err);
                (index, KafkaError::MessageProduction(code))
            });
        messages.clear();
        (
            usize::try_from(queued).unwrap_or(0),
            failed.map_or(Ok(()), Err),
        )
    }

    /// The handle of `name`, made on its first record.
    fn handle(
        &mut self,
        client: *mut rd::rd_kafka_t,
        name: &str,
    ) -> Result<*mut rd::rd_kafka_topic_t, KafkaError> {
        if let Some((last, handle)) = &self.last {
            if last == name {
                return Ok(handle.0);
            }
        }
        let handle = match self.others.remove(name) {
            Some(handle) => handle,
            None => open(client, name)?,
        };
        if let Some((previous, handle)) = self.last.take() {
            if self.others.len() >= MAX_HANDLES {
                self.others.clear();
            }
            self.others.insert(previous, handle);
        }
        let raw = handle.0;
        self.last = Some((name.to_owned(), handle));
        Ok(raw)
    }
}

/// The topic of a record this producer sent, as its delivery report names it. rust-rdkafka's
/// `Message::topic` checks the name is UTF-8 on every report (an eighth of the acknowledging
/// thread in W1's profile); every topic this producer sends to was named by a Rust string
/// (`open`), so its name needs no check.
pub(crate) fn delivered_topic<'a>(message: &'a rdkafka::message::BorrowedMessage<'_>) -> &'a str {
    // SAFETY: a delivery report holds its topic handle, whose name lives as long as the handle,
    // and the name is the UTF-8 of a `&str` given to `open`, which librdkafka keeps unchanged.
    unsafe {
        let name = CStr::from_ptr(rd::rd_kafka_topic_name(message.topic_ptr()));
        std::str::from_utf8_unchecked(name.to_bytes())
    }
}

fn open(client: *mut rd::rd_kafka_t, name: &str) -> Result<TopicHandle, KafkaError> {
    let c_name = CString::new(name)?;
    // SAFETY: `client` is live; a null configuration takes the client's topic defaults, as
    // producing by name does.
    let handle = unsafe { rd::rd_kafka_topic_new(client, c_name.as_ptr(), ptr::null_mut()) };
    if handle.is_null() {
        // SAFETY: reads this thread's last librdkafka error.
        let err = unsafe { rd::rd_kafka_last_error() };
        return Err(KafkaError::MessageProduction(RDKafkaErrorCode::from(err)));
    }
    Ok(TopicHandle(handle))
}

fn bytes(data: Option<&[u8]>) -> (*mut c_void, usize) {
    match data {
        None => (ptr::null_mut(), 0),
        Some(d) => (d.as_ptr() as *mut c_void, d.len()),
    }
}

/// A header list for producev (which takes it on success); a header without a value is null.
fn native_headers(headers: &[(&str, Option<&[u8]>)]) -> *mut rd::rd_kafka_headers_t {
    // SAFETY: a fresh list; rd_kafka_header_add copies name and value.
    unsafe {
        let list = rd::rd_kafka_headers_new(headers.len());
        for (name, value) in headers {
            let (value, value_len) = bytes(*value);
            rd::rd_kafka_header_add(
                list,
                name.as_ptr().cast(),
                name.len() as isize,
                value,
                value_len as isize,
            );
        }
        list
    }
}
