//! Distributed mode (Java's `runtime/distributed` and the Kafka-backed stores): workers share
//! connectors through Kafka's group protocol and keep configs, offsets and statuses in topics.

pub mod assignor;
pub mod boot;
pub mod config;
pub mod config_topic;
pub mod group_security;
pub mod herder;
pub mod protocol;
pub mod status_topic;
pub mod stores;
