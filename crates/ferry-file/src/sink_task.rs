//! Appends record values, one per line, to a file or to standard output.

use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::data::Value;
use ferry_api::error::Result;
use ferry_api::record::SinkRecord;
use ferry_api::task::{SinkOffsets, SinkTask, SinkTaskContext};
use ferry_api::{ConfigMap, ConnectError};

use crate::file_io::LineOutput;
use crate::sink::sink_config_def;
use crate::{FILE_CONFIG, VERSION};

#[derive(Default)]
pub struct FileStreamSinkTask {
    filename: Option<String>,
    writer: Option<LineOutput>,
    line: Vec<u8>,
}

fn io_error(what: &str, filename: &Option<String>, e: std::io::Error) -> ConnectError {
    let target = filename.as_deref().unwrap_or("stdout");
    ConnectError::with_source(format!("{what} {target}"), e)
}

#[async_trait]
impl SinkTask for FileStreamSinkTask {
    fn version(&self) -> String {
        VERSION.to_owned()
    }

    async fn start(&mut self, props: &ConfigMap, _context: Arc<dyn SinkTaskContext>) -> Result<()> {
        let config = sink_config_def().parse(props)?;
        self.filename = config.string(FILE_CONFIG)?.filter(|f| !f.is_empty());
        let out = match &self.filename {
            None => LineOutput::stdout(),
            Some(name) => LineOutput::append(std::path::Path::new(name))
                .await
                .map_err(|e| io_error("Couldn't find or create file", &self.filename, e))?,
        };
        self.writer = Some(out);
        Ok(())
    }

    async fn put(&mut self, records: &[SinkRecord]) -> Result<()> {
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| ConnectError::other("The sink task was not started"))?;
        for record in records {
            self.line.clear();
            match &record.value {
                Value::String(s) => self.line.extend_from_slice(s.as_bytes()),
                other => self.line.extend_from_slice(other.to_string().as_bytes()),
            }
            self.line.push(b'\n');
            writer
                .write_all(&self.line)
                .await
                .map_err(|e| io_error("Couldn't write to", &self.filename, e))?;
        }
        // Java's sink hands every line to the file as it prints it; flushing once per batch
        // keeps that (a reader sees whole batches) without a system call per line.
        writer
            .flush()
            .await
            .map_err(|e| io_error("Couldn't flush", &self.filename, e))
    }

    async fn flush(&mut self, _offsets: &SinkOffsets) -> Result<()> {
        if let Some(writer) = self.writer.as_mut() {
            writer
                .flush()
                .await
                .map_err(|e| io_error("Couldn't flush", &self.filename, e))?;
        }
        Ok(())
    }

    async fn stop(&mut self) -> Result<()> {
        if let Some(mut writer) = self.writer.take() {
            writer
                .flush()
                .await
                .map_err(|e| io_error("Couldn't flush", &self.filename, e))?;
        }
        Ok(())
    }
}
