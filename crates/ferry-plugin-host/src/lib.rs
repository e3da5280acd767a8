//! Runs Java Kafka Connect plugins from `plugin.path` in Ferry's plugin host, a Java 17 process
//! beside the worker (`plugin-host/` in this repository), and presents them through Ferry's
//! connector and task traits. The protocol is described in `docs/plugin-host-protocol.md`.

mod connection;
mod connector;
mod error;
mod frame;
mod host;
mod lease;
mod sink_task;
mod source_task;
mod task_start;
mod wire;

pub use error::HostError;
pub use host::{HostSettings, PluginHost, PluginInfo};
