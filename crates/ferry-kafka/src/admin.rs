//! Topic administration and cluster metadata.

use std::time::Duration;

use rdkafka::admin::{
    AdminClient, AdminOptions, AlterConfig, ConfigSource, NewPartitions, NewTopic,
    ResourceSpecifier, TopicReplication,
};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::ClientConfig;

use crate::KafkaClientError;

/// The topics Java's `listTopics()` leaves out unless asked for internal ones.
const KAFKA_INTERNAL_TOPICS: [&str; 3] = [
    "__consumer_offsets",
    "__transaction_state",
    "__share_group_state",
];

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

/// One config of a topic as the broker describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicConfigEntry {
    pub name: String,
    pub value: Option<String>,
    /// Java's `ConfigEntry.isDefault()`: the value is the broker's or Kafka's default.
    pub is_default: bool,
    pub read_only: bool,
    pub sensitive: bool,
    /// Set in the broker's static config file (Java's `STATIC_BROKER_CONFIG`).
    pub static_broker: bool,
    /// Set on the topic itself (Java's `DYNAMIC_TOPIC_CONFIG`).
    pub dynamic_topic: bool,
}

const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

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

    /// Every topic of the cluster but Kafka's internal ones, with its partition count (Java's
    /// `listTopics()` then `describeTopics`). Blocks for one metadata round trip.
    pub fn list_topics(&self, timeout: Duration) -> Result<Vec<(String, usize)>, KafkaClientError> {
        let md = self
            .meta
            .fetch_metadata(None, timeout)
            .map_err(KafkaClientError::op("fetch metadata"))?;
        Ok(md
            .topics()
            .iter()
            .filter(|t| t.error().is_none() && !KAFKA_INTERNAL_TOPICS.contains(&t.name()))
            .map(|t| (t.name().to_owned(), t.partitions().len()))
            .collect())
    }

    /// The configs of each topic; a topic whose configs cannot be read is left out.
    pub async fn describe_topic_configs(
        &self,
        topics: &[String],
    ) -> Result<Vec<(String, Vec<TopicConfigEntry>)>, KafkaClientError> {
        if topics.is_empty() {
            return Ok(Vec::new());
        }
        let opts = AdminOptions::new().request_timeout(Some(ADMIN_TIMEOUT));
        let specifiers: Vec<_> = topics.iter().map(|t| ResourceSpecifier::Topic(t)).collect();
        let results = self
            .admin
            .describe_configs(&specifiers, &opts)
            .await
            .map_err(KafkaClientError::op("describe topic configs"))?;
        Ok(topics
            .iter()
            .zip(results)
            .filter_map(|(topic, result)| {
                let resource = result.ok()?;
                let entries = resource
                    .entries
                    .into_iter()
                    .map(|e| TopicConfigEntry {
                        is_default: e.is_default || e.source == ConfigSource::Default,
                        read_only: e.is_read_only,
                        sensitive: e.is_sensitive,
                        static_broker: e.source == ConfigSource::StaticBroker,
                        dynamic_topic: e.source == ConfigSource::DynamicTopic,
                        name: e.name,
                        value: e.value,
                    })
                    .collect();
                Some((topic.clone(), entries))
            })
            .collect())
    }

    /// Grows a topic to `total` partitions; `Ok(false)` when it already has as many or more.
    pub async fn create_partitions(
        &self,
        topic: &str,
        total: usize,
    ) -> Result<bool, KafkaClientError> {
        let opts = AdminOptions::new().operation_timeout(Some(ADMIN_TIMEOUT));
        let results = self
            .admin
            .create_partitions([&NewPartitions::new(topic, total)], &opts)
            .await
            .map_err(KafkaClientError::op("create partitions"))?;
        match results.into_iter().next() {
            Some(Ok(_)) | None => Ok(true),
            Some(Err((_, RDKafkaErrorCode::InvalidPartitions))) => Ok(false),
            Some(Err((name, code))) => Err(KafkaClientError::Topic {
                topic: name,
                message: code.to_string(),
            }),
        }
    }

    /// Sets a topic's own configs to exactly `configs` (the AlterConfigs request: every topic
    /// config not named goes back to its default).
    pub async fn set_topic_configs(
        &self,
        topic: &str,
        configs: &[(String, String)],
    ) -> Result<(), KafkaClientError> {
        let mut alter = AlterConfig::new(ResourceSpecifier::Topic(topic));
        for (k, v) in configs {
            alter = alter.set(k, v);
        }
        let opts = AdminOptions::new().request_timeout(Some(ADMIN_TIMEOUT));
        let results = self
            .admin
            .alter_configs([&alter], &opts)
            .await
            .map_err(KafkaClientError::op("alter topic configs"))?;
        match results.into_iter().next() {
            Some(Err((_, code))) => Err(KafkaClientError::Topic {
                topic: topic.to_owned(),
                message: code.to_string(),
            }),
            _ => Ok(()),
        }
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
