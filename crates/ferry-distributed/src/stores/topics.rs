//! Creates the internal topics when absent (unless `internal.topics.automatic.creation.enable`
//! is false, Kafka 4.4, when a missing one is an error), and refuses to run on topics that are
//! not compacted, as Java's `TopicAdmin` does at start-up.

use ferry_kafka::admin::{Admin, TopicSpec};

use crate::config::{TopicSettings, INTERNAL_TOPICS_CREATION};
use crate::stores::StoreError;

pub async fn ensure_topic(
    admin: &Admin,
    settings: &TopicSettings,
    config_key: &str,
) -> Result<(), StoreError> {
    if !settings.create {
        if !admin.topic_exists(&settings.name)? {
            return Err(StoreError::Config(format!(
                "Topic '{}' specified via the '{config_key}' property is missing. The config '{INTERNAL_TOPICS_CREATION}' is set to 'false', so automatic creation of internal topics is disabled. Either enable automatic creation or create the topics manually.",
                settings.name
            )));
        }
        return check_compacted(admin, settings, config_key).await;
    }
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
    check_compacted(admin, settings, config_key).await
}

async fn check_compacted(
    admin: &Admin,
    settings: &TopicSettings,
    config_key: &str,
) -> Result<(), StoreError> {
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
