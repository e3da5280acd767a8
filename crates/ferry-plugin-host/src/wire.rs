//! Binary record batches: big-endian integers, byte strings prefixed by their i32 length (-1 is
//! null). Source batches come from the host already transformed and converted; sink batches go
//! to it as consumed.

use std::sync::Arc;

use ferry_api::data::Value;
use ferry_api::header::Headers;
use ferry_api::record::{OffsetMap, SinkRecord, SourceRecord, TimestampType};
use ferry_api::ConnectError;

struct Reader<'a> {
    buf: &'a [u8],
}

fn truncated() -> ConnectError {
    ConnectError::other("The plugin host sent a truncated record batch")
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ConnectError> {
        if self.buf.len() < n {
            return Err(truncated());
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn i32(&mut self) -> Result<i32, ConnectError> {
        let b = self.take(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i64(&mut self) -> Result<i64, ConnectError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    fn bytes(&mut self) -> Result<Option<&'a [u8]>, ConnectError> {
        let len = self.i32()?;
        if len < 0 {
            return Ok(None);
        }
        self.take(len as usize).map(Some)
    }

    fn string(&mut self) -> Result<Option<String>, ConnectError> {
        self.bytes()?
            .map(|b| {
                String::from_utf8(b.to_vec())
                    .map_err(|_| ConnectError::other("The plugin host sent invalid UTF-8"))
            })
            .transpose()
    }
}

fn bytes_value(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| Value::Bytes(b.to_vec()))
}

/// A batch of converted source records. Key, value and headers are the bytes to produce; the
/// host's id for each record is its `task_tag`. Records of one source partition share its map.
pub fn decode_source_batch(payload: &[u8]) -> Result<Vec<SourceRecord>, ConnectError> {
    let mut r = Reader { buf: payload };
    let count = r.i32()?.max(0) as usize;
    let mut out = Vec::with_capacity(count);
    let mut last_partition: Option<(Vec<u8>, Arc<OffsetMap>)> = None;
    for _ in 0..count {
        let id = r.i64()? as u64;
        let topic = r.string()?.unwrap_or_default();
        let partition = r.i32()?;
        let timestamp = r.i64()?;
        let key = bytes_value(r.bytes()?);
        let value = bytes_value(r.bytes()?);
        let header_count = r.i32()?.max(0);
        let mut headers = Headers::new();
        for _ in 0..header_count {
            let name = r.string()?.unwrap_or_default();
            headers.add(name, None, bytes_value(r.bytes()?));
        }
        let source_partition = match r.bytes()? {
            None => None,
            Some(json) => Some(match &last_partition {
                Some((raw, map)) if raw.as_slice() == json => map.clone(),
                _ => {
                    let map = Arc::new(ferry_json::decode_offset(json)?);
                    last_partition = Some((json.to_vec(), map.clone()));
                    map
                }
            }),
        };
        let source_offset = r.bytes()?.map(ferry_json::decode_offset).transpose()?;
        out.push(SourceRecord {
            source_partition,
            source_offset,
            topic,
            kafka_partition: (partition >= 0).then_some(partition),
            key,
            value,
            timestamp: (timestamp != i64::MIN).then_some(timestamp),
            headers,
            task_tag: Some(id),
            ..Default::default()
        });
    }
    Ok(out)
}

fn put_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        Some(b) => {
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(b);
        }
    }
}

fn raw(value: &Value) -> Result<Option<&[u8]>, ConnectError> {
    match value {
        Value::Null => Ok(None),
        Value::Bytes(b) => Ok(Some(b)),
        other => Err(ConnectError::other(format!(
            "A record for the plugin host must hold raw bytes, not {}",
            other.type_description()
        ))),
    }
}

/// Consumed records as raw bytes (the worker's byte-array converters leave them so).
pub fn encode_sink_batch(records: &[SinkRecord]) -> Result<Vec<u8>, ConnectError> {
    let mut out = Vec::with_capacity(64 + records.len() * 128);
    out.extend_from_slice(&(records.len() as i32).to_be_bytes());
    for r in records {
        put_bytes(&mut out, Some(r.topic.as_bytes()));
        out.extend_from_slice(&r.kafka_partition.to_be_bytes());
        out.extend_from_slice(&r.kafka_offset.to_be_bytes());
        out.extend_from_slice(&r.timestamp.unwrap_or(-1).to_be_bytes());
        out.push(match r.timestamp_type {
            TimestampType::NoTimestampType => 0,
            TimestampType::CreateTime => 1,
            TimestampType::LogAppendTime => 2,
        });
        put_bytes(&mut out, raw(&r.key)?);
        put_bytes(&mut out, raw(&r.value)?);
        out.extend_from_slice(&(r.headers.len() as i32).to_be_bytes());
        for h in r.headers.iter() {
            put_bytes(&mut out, Some(h.key.as_bytes()));
            put_bytes(&mut out, raw(&h.value)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put_i32(out: &mut Vec<u8>, v: i32) {
        out.extend_from_slice(&v.to_be_bytes());
    }

    #[test]
    fn source_batches_decode_with_shared_partitions() {
        let mut b = Vec::new();
        put_i32(&mut b, 2);
        for (id, offset) in [(7i64, "1"), (8, "2")] {
            b.extend_from_slice(&id.to_be_bytes());
            put_bytes(&mut b, Some(b"topic"));
            put_i32(&mut b, -1);
            b.extend_from_slice(&i64::MIN.to_be_bytes());
            put_bytes(&mut b, None);
            put_bytes(&mut b, Some(b"line"));
            put_i32(&mut b, 1);
            put_bytes(&mut b, Some(b"h"));
            put_bytes(&mut b, Some(b"v"));
            put_bytes(&mut b, Some(br#"{"filename":"a.txt"}"#));
            put_bytes(
                &mut b,
                Some(format!(r#"{{"position":{offset}}}"#).as_bytes()),
            );
        }
        let records = decode_source_batch(&b).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].task_tag, Some(7));
        assert_eq!(records[0].value, Value::Bytes(b"line".to_vec()));
        assert_eq!(records[0].key, Value::Null);
        assert_eq!(records[0].kafka_partition, None);
        assert_eq!(records[0].timestamp, None);
        assert_eq!(
            records[1].source_offset.as_ref().unwrap()["position"],
            Value::Int64(2)
        );
        assert!(Arc::ptr_eq(
            records[0].source_partition.as_ref().unwrap(),
            records[1].source_partition.as_ref().unwrap()
        ));
        assert!(decode_source_batch(&b[..b.len() - 3]).is_err());
    }

    #[test]
    fn sink_batches_refuse_converted_values() {
        let record = SinkRecord {
            topic: "t".into(),
            value: Value::String("not raw".into()),
            ..Default::default()
        };
        assert!(encode_sink_batch(&[record]).is_err());
        let raw = SinkRecord {
            topic: "t".into(),
            value: Value::Bytes(b"x".to_vec()),
            kafka_offset: 5,
            ..Default::default()
        };
        let bytes = encode_sink_batch(&[raw]).unwrap();
        assert_eq!(&bytes[..4], &1i32.to_be_bytes());
    }
}
