//! The worker: runs connectors and their tasks, and reports their states.

pub mod auto_restart;
mod clients;
mod connector_thread;
mod converters;
pub mod exactly_once;
#[cfg(any(test, feature = "test-support"))]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod fakes;
mod sink_context;
mod sink_task;
mod source_task;
pub mod submitted_records;
mod task_context;
pub mod topic_creation;
pub mod transformation_chain;
#[allow(clippy::module_inception)]
mod worker;

pub use task_context::TargetState;
pub use worker::{ConnectorRuntimeError, ConnectorStop, StartWait, Worker, SLOW_CALL_NOTICE};
