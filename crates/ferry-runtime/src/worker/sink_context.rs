//! The sink task's handle on the worker (Java's `WorkerSinkTaskContext`). The task records its
//! requests here; the pipeline applies them between batches.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use ferry_api::record::{SinkRecord, TopicPartition};
use ferry_api::task::{ErrantRecordReporter, SinkTaskContext};
use ferry_api::{ConfigMap, ConnectError};

use crate::errors::Stage;

#[derive(Default)]
pub(crate) struct Requests {
    pub rewinds: HashMap<TopicPartition, i64>,
    pub timeout_ms: Option<u64>,
    pub pause: Vec<TopicPartition>,
    pub resume: Vec<TopicPartition>,
    pub commit: bool,
}

pub(crate) struct WorkerSinkTaskContext {
    configs: ConfigMap,
    identity: ferry_api::task::TaskIdentity,
    requests: Mutex<Requests>,
    assignment: Mutex<HashSet<TopicPartition>>,
    reporter: Option<Arc<ErrantRecords>>,
}

/// A record the task reported, and the stage and class that failed when it was not the
/// task's put (a Java connector's converter or transform, in the plugin host).
pub(crate) type Errant = (SinkRecord, ConnectError, Option<(Stage, String)>);

/// Records the task reported as errant, waiting for the pipeline to handle them.
#[derive(Default)]
pub(crate) struct ErrantRecords {
    reported: Mutex<Vec<Errant>>,
}

impl ErrantRecords {
    pub fn take(&self) -> Vec<Errant> {
        self.reported
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }
}

impl ErrantRecordReporter for ErrantRecords {
    fn report(&self, record: &SinkRecord, error: ConnectError) {
        if let Ok(mut r) = self.reported.lock() {
            r.push((record.clone(), error, None));
        }
    }

    fn report_failed_stage(
        &self,
        record: &SinkRecord,
        error: ConnectError,
        stage: &str,
        class: &str,
    ) {
        let stage = Stage::from_java_name(stage).map(|s| (s, class.to_owned()));
        if let Ok(mut r) = self.reported.lock() {
            r.push((record.clone(), error, stage));
        }
    }
}

impl WorkerSinkTaskContext {
    pub fn new(
        configs: ConfigMap,
        identity: ferry_api::task::TaskIdentity,
        reporter: Option<Arc<ErrantRecords>>,
    ) -> Self {
        WorkerSinkTaskContext {
            configs,
            identity,
            requests: Mutex::default(),
            assignment: Mutex::default(),
            reporter,
        }
    }

    /// Takes every pending request at once.
    pub fn take_requests(&self) -> Requests {
        self.requests
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }

    pub fn set_assignment(&self, partitions: &HashSet<TopicPartition>) {
        if let Ok(mut a) = self.assignment.lock() {
            a.clone_from(partitions);
        }
    }

    fn with(&self, f: impl FnOnce(&mut Requests)) {
        if let Ok(mut r) = self.requests.lock() {
            f(&mut r);
        }
    }
}

impl SinkTaskContext for WorkerSinkTaskContext {
    fn configs(&self) -> ConfigMap {
        self.configs.clone()
    }

    fn identity(&self) -> ferry_api::task::TaskIdentity {
        self.identity.clone()
    }

    fn offset(&self, partition: TopicPartition, offset: i64) {
        self.with(|r| {
            r.rewinds.insert(partition, offset);
        });
    }

    fn timeout(&self, timeout_ms: u64) {
        self.with(|r| r.timeout_ms = Some(timeout_ms));
    }

    fn assignment(&self) -> Vec<TopicPartition> {
        self.assignment
            .lock()
            .map(|a| a.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn pause(&self, partitions: &[TopicPartition]) {
        self.with(|r| r.pause.extend_from_slice(partitions));
    }

    fn resume(&self, partitions: &[TopicPartition]) {
        self.with(|r| r.resume.extend_from_slice(partitions));
    }

    fn request_commit(&self) {
        self.with(|r| r.commit = true);
    }

    fn errant_record_reporter(&self) -> Option<Arc<dyn ErrantRecordReporter>> {
        self.reporter
            .clone()
            .map(|r| r as Arc<dyn ErrantRecordReporter>)
    }
}

impl WorkerSinkTaskContext {
    /// The pipeline's own request for a commit at the next iteration (on pause).
    pub fn request_commit_now(&self) {
        self.with(|r| r.commit = true);
    }
}
