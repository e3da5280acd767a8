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

/// The Apache Kafka Connect release whose REST API, configs and internal topics Ferry
/// reproduces; `GET /` reports it as the worker's version, so tools that check the version
/// before using an endpoint (KIP-875 offsets, KIP-980 STOPPED) treat Ferry as that release.
pub use ferry_api::KAFKA_CONNECT_VERSION;
