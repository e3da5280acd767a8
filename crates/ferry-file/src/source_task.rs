//! Reads lines from a file, resuming at the stored byte position, and tails it for new lines.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferry_api::data::{Schema, Value};
use ferry_api::error::Result;
use ferry_api::record::{OffsetMap, SourceRecord};
use ferry_api::task::{SourceTask, SourceTaskContext};
use ferry_api::{ConfigMap, ConnectError};

use crate::file_io::LineInput;
use crate::source::source_config_def;
use crate::{
    FILENAME_FIELD, FILE_CONFIG, POSITION_FIELD, TASK_BATCH_SIZE_CONFIG, TOPIC_CONFIG, VERSION,
};

/// How long an idle poll waits for the file to grow before answering with no records: a
/// second, as Java's task waits (many idle tasks looking four times a second kept a core
/// noticeably busy).
const IDLE_WAIT: Duration = Duration::from_secs(1);
/// A batch vector is made this large up front at most (`batch.size` can be huge).
const MAX_PREALLOCATED: usize = 4096;

#[derive(Default)]
pub struct FileStreamSourceTask {
    filename: Option<String>,
    topic: String,
    batch_size: usize,
    context: Option<SourceTaskContext>,
    reader: Option<LineInput>,
    /// Shared by every record of this file; absent for standard input, as in Java.
    partition: Option<Arc<OffsetMap>>,
    /// Byte position just past the last complete line read.
    position: i64,
    /// An incomplete last line, kept until its newline arrives.
    partial: Vec<u8>,
    /// Records read but not yet returned; kept here so a dropped `poll` loses nothing.
    pending: Vec<SourceRecord>,
}

impl FileStreamSourceTask {
    async fn open(&mut self) -> Result<bool> {
        let Some(filename) = self.filename.clone() else {
            self.reader = Some(LineInput::stdin());
            return Ok(true);
        };
        let mut reader = match LineInput::open(std::path::Path::new(&filename)).await {
            Ok(reader) => reader,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                tracing::warn!(file = %filename, "Couldn't find file for FileStreamSourceTask, sleeping to wait for it to be created");
                return Ok(false);
            }
            Err(e) => {
                return Err(ConnectError::with_source(
                    format!("Couldn't open file {filename}"),
                    e,
                ))
            }
        };
        let partition = Arc::new(OffsetMap::from([(
            FILENAME_FIELD,
            Value::from(filename.as_str()),
        )]));
        if let Some(context) = &self.context {
            if let Some(offset) = context.offset_reader.offset(&partition).await? {
                match offset.get(POSITION_FIELD).and_then(Value::as_i64) {
                    Some(position) => {
                        tracing::debug!(file = %filename, position, "Found previous offset, resuming");
                        let start = u64::try_from(position).unwrap_or(0);
                        reader.seek(start).await.map_err(|e| {
                            ConnectError::with_source(
                                format!("Couldn't seek in file {filename}"),
                                e,
                            )
                        })?;
                        self.position = position;
                    }
                    None => {
                        return Err(ConnectError::other("Offset position is the incorrect type"))
                    }
                }
            }
        }
        self.partition = Some(partition);
        self.reader = Some(reader);
        Ok(true)
    }

    fn line_record(&self, line: &[u8]) -> SourceRecord {
        let text = match std::str::from_utf8(line) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(line).into_owned(),
        };
        let offset = self
            .partition
            .as_ref()
            .map(|_| OffsetMap::single(POSITION_FIELD, Value::Int64(self.position)));
        SourceRecord::new(
            self.partition.clone(),
            offset,
            self.topic.clone(),
            Some(Schema::string()),
            Value::String(text),
        )
    }
}

#[async_trait]
impl SourceTask for FileStreamSourceTask {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    async fn start(&mut self, props: &ConfigMap, context: SourceTaskContext) -> Result<()> {
        let config = source_config_def().parse(props)?;
        self.filename = config.string(FILE_CONFIG)?.filter(|f| !f.is_empty());
        self.topic = config.string(TOPIC_CONFIG)?.unwrap_or_default();
        self.batch_size = usize::try_from(config.int(TASK_BATCH_SIZE_CONFIG)?)
            .unwrap_or(1)
            .max(1);
        self.context = Some(context);
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        if self.reader.is_none() && !self.open().await? {
            tokio::time::sleep(Duration::from_secs(1)).await;
            return Ok(Vec::new());
        }
        while self.pending.len() < self.batch_size {
            let Some(reader) = self.reader.as_mut() else {
                break;
            };
            let read = reader
                .read_until_newline(&mut self.partial)
                .await
                .map_err(|e| {
                    ConnectError::with_source("Error while reading from the source file", e)
                })?;
            if read == 0 || self.partial.last() != Some(&b'\n') {
                break;
            }
            let mut line = &self.partial[..self.partial.len() - 1];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            self.position += i64::try_from(self.partial.len()).unwrap_or(i64::MAX);
            let record = self.line_record(line);
            if self.pending.capacity() == 0 {
                // A batch gets its vector at once rather than growing one; an idle task keeps none.
                self.pending.reserve(self.batch_size.min(MAX_PREALLOCATED));
            }
            self.pending.push(record);
            self.partial.clear();
        }
        if self.pending.is_empty() {
            if let Some(reader) = self.reader.as_mut() {
                reader.release_buffer();
            }
            tokio::time::sleep(IDLE_WAIT).await;
        }
        Ok(std::mem::take(&mut self.pending))
    }

    /// Java's FileStreamSourceTask keeps `commitRecord`'s no-op.
    fn needs_commit_record(&self) -> bool {
        false
    }

    async fn stop(&mut self) -> Result<()> {
        self.reader = None;
        Ok(())
    }
}
