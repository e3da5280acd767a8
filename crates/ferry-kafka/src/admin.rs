//! Topic administration and cluster metadata.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::ClientConfig;

use crate::KafkaClientError;

pub struct Admin {
    admin: AdminClient<DefaultClientContext>,
    /// Metadata and offset queries go through a consumer handle, which librdkafka offers them on.
    meta: BaseConsumer,
}

/// A topic to create.
#[derive(Debug, Clone)]
pub struct TopicSpec {
    pub name: String,
    /// -1 = the broker's default.
    pub partitions: i32,
    /// -1 = the broker's default.
    pub replication_factor: i32,
    pub configs: Vec<(String, String)>,
}

impl Admin {
    pub fn new(config: &ClientConfig) -> Result<Self, KafkaClientError> {
        let admin = config.create().map_err(|cause| KafkaClientError::Create {
            role: "admin",
            cause,
        })?;
        let meta = config.create().map_err(|cause| KafkaClientError::Create {
            role: "admin",
            cause,
        })?;
        Ok(Admin { admin, meta })
    }

    /// Creates a topic; `Ok(false)` when it already existed.
    pub async fn create_topic(&self, spec: &TopicSpec) -> Result<bool, KafkaClientError> {
        let mut topic = NewTopic::new(
            &spec.name,
            spec.partitions,
            TopicReplication::Fixed(spec.replication_factor),
        );
        for (k, v) in &spec.configs {
            topic = topic.set(k, v);
        }
        let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
        let results = self
            .admin
            .create_topics([&topic], &opts)
            .await
            .map_err(KafkaClientError::op("create topic"))?;
        match results.into_iter().next() {
            Some(Ok(_)) => Ok(true),
            Some(Err((_, RDKafkaErrorCode::TopicAlreadyExists))) => Ok(false),
            Some(Err((name, code))) => Err(KafkaClientError::Topic {
                topic: name,
                message: code.to_string(),
            }),
            None => Ok(false),
        }
    }

    /// The value of one config of a topic, `None` when the topic or the config cannot be read.
    pub async fn topic_config(&self, topic: &str, name: &str) -> Option<String> {
        let opts = AdminOptions::new().request_timeout(Some(Duration::from_secs(30)));
        let results = self
            .admin
            .describe_configs([&ResourceSpecifier::Topic(topic)], &opts)
            .await
            .ok()?;
        let resource = results.into_iter().next()?.ok()?;
        resource.get(name).and_then(|entry| entry.value.clone())
    }

    /// Whether the topic exists, from the cluster's metadata (which a consumer handle asks for
    /// without creating the topic). Blocks for one metadata round trip.
    pub fn topic_exists(&self, topic: &str) -> Result<bool, KafkaClientError> {
        Ok(self
            .partition_count(topic, Duration::from_secs(30))?
            .is_some())
    }

    /// The cluster id reported by the broker.
    pub fn cluster_id(&self, timeout: Duration) -> Option<String> {
        self.meta.client().fetch_cluster_id(timeout)
    }

    /// Partition count of a topic, or `None` when it does not exist.
    pub fn partition_count(
        &self,
        topic: &str,
        timeout: Duration,
    ) -> Result<Option<usize>, KafkaClientError> {
        let md = self
            .meta
            .fetch_metadata(Some(topic), timeout)
            .map_err(KafkaClientError::op("fetch metadata"))?;
        Ok(md
            .topics()
            .iter()
            .find(|t| t.name() == topic)
            .and_then(|t| match t.error() {
                Some(_) => None,
                None => Some(t.partitions().len()),
            }))
    }

    /// The end offset (high watermark) of each partition of a topic.
    pub fn end_offsets(
        &self,
        topic: &str,
        timeout: Duration,
    ) -> Result<Vec<i64>, KafkaClientError> {
        let count = self.partition_count(topic, timeout)?.unwrap_or(0);
        (0..count)
            .map(|p| {
                let p = i32::try_from(p).unwrap_or(i32::MAX);
                self.meta
                    .fetch_watermarks(topic, p, timeout)
                    .map(|(_, high)| high)
                    .map_err(KafkaClientError::op("fetch watermarks"))
            })
            .collect()
    }
}
