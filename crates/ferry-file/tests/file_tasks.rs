//! FileStream tasks without Kafka: reading, resuming at a stored offset, writing.

use std::sync::Arc;

use async_trait::async_trait;
use ferry_api::connector::SinkConnector;
use ferry_api::connector::SourceConnector;
use ferry_api::data::Value;
use ferry_api::record::{OffsetMap, SinkRecord, TopicPartition};
use ferry_api::task::{OffsetStorageReader, SinkTaskContext, SourceTaskContext};
use ferry_api::ConfigMap;
use ferry_file::{FileStreamSinkConnector, FileStreamSourceConnector};

struct StoredOffset(Option<i64>);

#[async_trait]
impl OffsetStorageReader for StoredOffset {
    async fn offset(&self, partition: &OffsetMap) -> ferry_api::error::Result<Option<OffsetMap>> {
        assert!(partition.contains_key("filename"));
        Ok(self
            .0
            .map(|p| OffsetMap::from([("position".to_owned(), Value::Int64(p))])))
    }
}

struct NoContext;

impl SinkTaskContext for NoContext {
    fn configs(&self) -> ConfigMap {
        ConfigMap::new()
    }
    fn offset(&self, _: TopicPartition, _: i64) {}
    fn timeout(&self, _: u64) {}
    fn assignment(&self) -> Vec<TopicPartition> {
        Vec::new()
    }
    fn pause(&self, _: &[TopicPartition]) {}
    fn resume(&self, _: &[TopicPartition]) {}
    fn request_commit(&self) {}
}

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[tokio::test]
async fn source_reads_lines_with_positions_and_resumes_at_the_stored_offset() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, "alpha\r\nbeta\ngam").unwrap();
    let p = props(&[
        ("file", file.to_str().unwrap()),
        ("topic", "t"),
        ("batch.size", "10"),
    ]);

    let mut task = FileStreamSourceConnector::default().create_task();
    task.start(
        &p,
        SourceTaskContext {
            identity: Default::default(),
            configs: p.clone(),
            offset_reader: Arc::new(StoredOffset(None)),
            transactions: None,
            metrics: Default::default(),
        },
    )
    .await
    .unwrap();
    let records = task.poll().await.unwrap();
    let values: Vec<_> = records.iter().map(|r| r.value.clone()).collect();
    // The unterminated "gam" waits for its newline.
    assert_eq!(values, vec![Value::from("alpha"), Value::from("beta")]);
    let positions: Vec<_> = records
        .iter()
        .map(|r| r.source_offset.as_ref().unwrap()["position"].clone())
        .collect();
    assert_eq!(positions, vec![Value::Int64(7), Value::Int64(12)]);
    assert_eq!(
        records[0].source_partition.as_ref().unwrap()["filename"],
        Value::from(file.to_str().unwrap())
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .map(|mut f| std::io::Write::write_all(&mut f, b"ma\n"))
        .unwrap()
        .unwrap();
    let records = task.poll().await.unwrap();
    assert_eq!(records[0].value, Value::from("gamma"));

    // A new task with a stored position of 7 starts at "beta".
    let mut resumed = FileStreamSourceConnector::default().create_task();
    resumed
        .start(
            &p,
            SourceTaskContext {
                identity: Default::default(),
                configs: p.clone(),
                offset_reader: Arc::new(StoredOffset(Some(7))),
                transactions: None,
                metrics: Default::default(),
            },
        )
        .await
        .unwrap();
    let values: Vec<_> = resumed
        .poll()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.value)
        .collect();
    assert_eq!(values, vec![Value::from("beta"), Value::from("gamma")]);
}

#[tokio::test]
async fn source_batches_are_capped_by_batch_size() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, "1\n2\n3\n4\n5\n").unwrap();
    let p = props(&[
        ("file", file.to_str().unwrap()),
        ("topic", "t"),
        ("batch.size", "2"),
    ]);
    let mut task = FileStreamSourceConnector::default().create_task();
    task.start(
        &p,
        SourceTaskContext {
            identity: Default::default(),
            configs: p.clone(),
            offset_reader: Arc::new(StoredOffset(None)),
            transactions: None,
            metrics: Default::default(),
        },
    )
    .await
    .unwrap();
    assert_eq!(task.poll().await.unwrap().len(), 2);
    assert_eq!(task.poll().await.unwrap().len(), 2);
    assert_eq!(task.poll().await.unwrap().len(), 1);
}

#[tokio::test]
async fn sink_appends_one_line_per_value_and_flushes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.txt");
    let p = props(&[("file", file.to_str().unwrap())]);
    let mut task = FileStreamSinkConnector::default().create_task();
    task.start(&p, Arc::new(NoContext)).await.unwrap();
    let record = |v: Value| SinkRecord {
        topic: "t".into(),
        value: v,
        ..Default::default()
    };
    task.put(&[
        record(Value::from("one")),
        record(Value::Int32(2)),
        record(Value::Null),
    ])
    .await
    .unwrap();
    task.flush(&Default::default()).await.unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\n2\nnull\n");
    task.stop().await.unwrap();
}
