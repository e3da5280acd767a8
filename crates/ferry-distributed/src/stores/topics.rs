//! Creates the internal topics when absent, and refuses to run on topics that are not compacted,
//! as Java's `TopicAdmin` does at start-up.

use ferry_kafka::admin::{Admin, TopicSpec};

use crate::config::TopicSettings;
use crate::stores::StoreError;

pub async fn ensure_topic(
    admin: &Admin,
    settings: &TopicSettings,
    config_key: &str,
) -> Result<(), StoreError> {
    let mut configs = settings.configs.clone();
    configs.push(("cleanup.policy".to_owned(), "compact".to_owned()));
    let created = admin
        .create_topic(&TopicSpec {
            name: settings.name.clone(),
            partitions: settings.partitions,
            replication_factor: settings.replication_factor,
            configs,
        })
        .await?;
    if created {
        tracing::info!(topic = %settings.name, partitions = settings.partitions, "Created internal topic");
        return Ok(());
    }
    match admin.topic_config(&settings.name, "cleanup.policy").await {
        Some(policy) if policy != "compact" => Err(StoreError::Config(format!(
            "Topic '{}' supplied via the '{config_key}' property is required to have 'cleanup.policy=compact' to guarantee consistency and durability of connector configurations, source offsets and statuses, but found the topic currently has 'cleanup.policy={policy}'. Continuing would likely result in eventually losing connector configurations, source offsets and statuses, and problems restarting this Connect cluster in the future. Change the '{config_key}' property in the Connect worker configurations to use a topic with 'cleanup.policy=compact'.",
            settings.name
        ))),
        Some(_) => Ok(()),
        None => {
            tracing::info!(topic = %settings.name, "Could not read the cleanup policy of the topic; assuming it is compacted");
            Ok(())
        }
    }
}
