//! Ferry's worker runtime: configs, the plugin registry, offset and status storage, source and
//! sink task pipelines, and the herders that REST drives.

pub mod config;
pub mod errors;
pub mod herder;
pub mod metrics;
pub mod plugins;
pub mod status;
pub mod storage;
pub mod worker;
