//! KIP-875: reading, altering and resetting a connector's offsets, for source connectors in the
//! worker's offset store and for sink connectors in their consumer group.

use std::sync::Arc;

use ferry_api::data::Value;
use ferry_api::record::OffsetMap;
use ferry_api::ConfigMap;
use ferry_kafka::client_properties::ClientRole;
use ferry_kafka::consumer::Subscription;
use ferry_kafka::group_offsets::{self, GroupWriteError};

use crate::config::connector::ConnectorConfig;
use crate::herder::validation::off_runtime;
use crate::herder::HerderError;
use crate::plugins::{PluginKind, Registry};
use crate::storage::offset_codec::{decode_key, decode_offset, encode_key, encode_offset};
use crate::worker::Worker;

/// One partition's offset as the offsets endpoints show it; `None` resets the partition.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorOffset {
    pub partition: OffsetMap,
    pub offset: Option<OffsetMap>,
}

const KAFKA_TOPIC: &str = "kafka_topic";
const KAFKA_PARTITION: &str = "kafka_partition";
const KAFKA_OFFSET: &str = "kafka_offset";

fn bad(message: impl Into<String>) -> HerderError {
    HerderError::BadRequest(message.into())
}

/// The consumer group and subscription of a sink connector.
fn sink_group(name: &str, config: &ConfigMap) -> (String, Subscription) {
    let mut props = config.clone();
    props
        .entry(crate::config::connector::NAME.to_owned())
        .or_insert_with(|| name.to_owned());
    let config = ConnectorConfig::from_stored(&props);
    let subscription = match config.topics_regex {
        Some(r) => Subscription::Regex(r),
        None => Subscription::Topics(config.topics),
    };
    (config.sink_group, subscription)
}

fn sink_client(
    worker: &Worker,
    config: &ConfigMap,
    group: &str,
) -> Result<ferry_kafka::rdkafka::ClientConfig, HerderError> {
    let config = &worker.registry().resolve(config);
    let settings = worker
        .config()
        .connector_client_settings("consumer", config);
    ferry_kafka::client_config(ClientRole::Consumer, &settings, &[("group.id", group)])
        .map_err(|e| HerderError::BadRequest(e.to_string()))
}

fn kafka_partition(topic: &str, partition: i32) -> OffsetMap {
    OffsetMap::from([
        (KAFKA_TOPIC.to_owned(), Value::from(topic)),
        (KAFKA_PARTITION.to_owned(), Value::Int32(partition)),
    ])
}

/// The connector's current offsets.
pub async fn read(
    worker: &Worker,
    name: &str,
    kind: PluginKind,
    config: &ConfigMap,
) -> Result<Vec<ConnectorOffset>, HerderError> {
    if kind == PluginKind::Sink {
        let (group, subscription) = sink_group(name, config);
        let client = sink_client(worker, config, &group)?;
        let offsets =
            tokio::task::spawn_blocking(move || group_offsets::committed(&client, &subscription))
                .await
                .map_err(|e| HerderError::Internal(e.to_string()))?
                .map_err(|_| {
                    HerderError::Internal(format!(
                        "Failed to retrieve consumer group offsets for sink connector {name}"
                    ))
                })?;
        return Ok(offsets
            .into_iter()
            .map(|o| ConnectorOffset {
                partition: kafka_partition(&o.topic, o.partition),
                offset: Some(OffsetMap::from([(
                    KAFKA_OFFSET.to_owned(),
                    Value::Int64(o.offset),
                )])),
            })
            .collect());
    }
    let entries = worker.offset_store_for(config).all().await.map_err(|_| {
        HerderError::Internal(format!(
            "Failed to retrieve offsets for source connector {name}"
        ))
    })?;
    Ok(entries
        .into_iter()
        .filter_map(|(k, v)| {
            let (connector, partition) = decode_key(&k)?;
            (connector == name).then_some(())?;
            Some(ConnectorOffset {
                partition,
                offset: decode_offset(&v).ok(),
            })
        })
        .collect())
}

/// A sink offset entry as (topic, partition, offset), with Java's messages for each problem.
fn sink_entry(o: &ConnectorOffset) -> Result<(String, i32, Option<i64>), HerderError> {
    if o.partition.is_empty() {
        return Err(bad(
            "The partition for a sink connector offset cannot be null or missing",
        ));
    }
    let (Some(topic), Some(partition)) = (
        o.partition.get(KAFKA_TOPIC),
        o.partition.get(KAFKA_PARTITION),
    ) else {
        return Err(bad("The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'"));
    };
    let Value::String(topic) = topic else {
        return Err(bad(
            "Kafka topic names must be valid strings and may not be null",
        ));
    };
    let partition = whole_number(partition).ok_or_else(|| match partition {
        Value::Null => bad("Kafka partitions must be valid numbers and may not be null"),
        other => bad(format!(
            "Failed to parse the following Kafka partition value in the provided offsets: '{other}'. Partition values for sink connectors need to be integers."
        )),
    })?;
    let offset = match &o.offset {
        None => None,
        Some(offset) => {
            let value = offset
                .get(KAFKA_OFFSET)
                .ok_or_else(|| bad("The offset for a sink connector should either be null or contain the key 'kafka_offset'"))?;
            Some(whole_number(value).ok_or_else(|| {
                bad(format!(
                    "Failed to parse the following Kafka offset value in the provided offsets: '{value}'. Offset values for sink connectors need to be integers."
                ))
            })?)
        }
    };
    let partition = i32::try_from(partition)
        .map_err(|_| bad("Kafka partitions must be valid numbers and may not be null"))?;
    Ok((topic.clone(), partition, offset))
}

/// Java accepts numbers and numeric strings such as `"10"`.
fn whole_number(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => s.trim().parse().ok(),
        other => other.as_i64(),
    }
}

/// What the plugin said it did, as Java's success message.
fn message(external: bool, verb: &str) -> String {
    if external {
        format!("The offsets for this connector have been {verb} successfully")
    } else {
        format!(
            "The Connect framework-managed offsets for this connector have been {verb} successfully. However, if this connector manages offsets externally, they will need to be manually {verb} in the system that the connector uses."
        )
    }
}

/// Asks a new instance of the connector whether it accepts the offsets (`alterOffsets`), off
/// the runtime's threads: a plugin that hangs there holds only this request.
async fn plugin_check(
    registry: &Arc<Registry>,
    name: &str,
    config: &ConfigMap,
    offsets: &[(OffsetMap, Option<OffsetMap>)],
) -> Result<bool, HerderError> {
    let class = config
        .get(crate::config::connector::CONNECTOR_CLASS)
        .cloned()
        .unwrap_or_default();
    let plugin = registry.connector(&class).ok_or_else(|| {
        HerderError::Internal(format!(
            "Failed to find any class that implements Connector and which name matches {class}"
        ))
    })?;
    let create = plugin.create.clone();
    let (config, offsets) = (config.clone(), offsets.to_vec());
    off_runtime(move || create().as_connector().alter_offsets(&config, &offsets))
        .await
        // Java answers with the connector's own reason.
        .map_err(|e| {
            tracing::warn!(connector = name, error = %e, "The connector refused the new offsets");
            HerderError::Internal(e.to_string())
        })
}

fn active_group(name: &str, verb: &str) -> HerderError {
    HerderError::Internal(format!(
        "Failed to {verb} consumer group offsets for connector {name} either because its tasks haven't stopped completely yet or the connector was resumed before the request to {verb} its offsets could be successfully completed. If the connector is in a stopped state, this operation can be safely retried. If it doesn't eventually succeed, the Connect cluster may need to be restarted to get rid of the zombie sink tasks."
    ))
}

/// Alters offsets of a stopped connector.
pub async fn alter(
    worker: &Worker,
    name: &str,
    kind: PluginKind,
    config: &ConfigMap,
    offsets: Vec<ConnectorOffset>,
) -> Result<String, HerderError> {
    if kind == PluginKind::Sink {
        let entries = offsets
            .iter()
            .map(sink_entry)
            .collect::<Result<Vec<_>, _>>()?;
        let pairs: Vec<(OffsetMap, Option<OffsetMap>)> = offsets
            .into_iter()
            .map(|o| (o.partition, o.offset))
            .collect();
        let external = plugin_check(worker.registry(), name, config, &pairs).await?;
        let (group, _) = sink_group(name, config);
        let client = sink_client(worker, config, &group)?;
        let written = tokio::task::spawn_blocking(move || group_offsets::alter(&client, &entries))
            .await
            .map_err(|e| HerderError::Internal(e.to_string()))?;
        return match written {
            Ok(()) => Ok(message(external, "altered")),
            Err(GroupWriteError::Active) => Err(active_group(name, "alter")),
            Err(GroupWriteError::Client(e)) => {
                // Java's answer names no cause; the log keeps librdkafka's.
                tracing::warn!(connector = name, error = %e, "Could not alter the sink connector's consumer group offsets");
                Err(HerderError::Internal(format!(
                    "Failed to modify offsets for sink connector {name}"
                )))
            }
        };
    }
    let mut entries = Vec::with_capacity(offsets.len());
    for o in &offsets {
        let key =
            encode_key(name, &o.partition).map_err(|e| HerderError::Internal(e.to_string()))?;
        let value = o
            .offset
            .as_ref()
            .map(encode_offset)
            .transpose()
            .map_err(|e| HerderError::Internal(e.to_string()))?;
        entries.push((key, value));
    }
    let pairs: Vec<(OffsetMap, Option<OffsetMap>)> = offsets
        .into_iter()
        .map(|o| (o.partition, o.offset))
        .collect();
    let external = plugin_check(worker.registry(), name, config, &pairs).await?;
    worker
        .offset_store_for(config)
        .set(entries)
        .await
        .map_err(|e| {
            HerderError::Internal(format!(
                "Failed to alter offsets for source connector {name}: {e}"
            ))
        })?;
    Ok(message(external, "altered"))
}

/// Resets every offset of a stopped connector.
pub async fn reset(
    worker: &Worker,
    name: &str,
    kind: PluginKind,
    config: &ConfigMap,
) -> Result<String, HerderError> {
    if kind == PluginKind::Sink {
        let current = read(worker, name, kind, config).await?;
        let pairs: Vec<(OffsetMap, Option<OffsetMap>)> =
            current.into_iter().map(|o| (o.partition, None)).collect();
        let external = plugin_check(worker.registry(), name, config, &pairs).await?;
        let (group, _) = sink_group(name, config);
        let client = sink_client(worker, config, &group)?;
        return match group_offsets::delete(&client, &group).await {
            Ok(()) => Ok(message(external, "reset")),
            Err(GroupWriteError::Active) => Err(active_group(name, "reset")),
            Err(GroupWriteError::Client(e)) => Err(HerderError::Internal(format!(
                "Failed to reset consumer group offsets for connector {name}: {e}"
            ))),
        };
    }
    let current = read(worker, name, kind, config).await?;
    let offsets: Vec<ConnectorOffset> = current
        .into_iter()
        .map(|o| ConnectorOffset {
            partition: o.partition,
            offset: None,
        })
        .collect();
    let message_text = alter(worker, name, kind, config, offsets).await?;
    Ok(message_text.replace("altered", "reset"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(partition: &[(&str, Value)], offset: Option<&[(&str, Value)]>) -> ConnectorOffset {
        let map = |pairs: &[(&str, Value)]| {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect()
        };
        ConnectorOffset {
            partition: map(partition),
            offset: offset.map(map),
        }
    }

    #[test]
    fn sink_entries_are_checked_with_javas_messages() {
        let ok = entry(
            &[
                ("kafka_topic", "t".into()),
                ("kafka_partition", Value::from("3")),
            ],
            Some(&[("kafka_offset", Value::from("10"))]),
        );
        assert_eq!(sink_entry(&ok).unwrap(), ("t".to_owned(), 3, Some(10)));
        let cases = [
            (entry(&[], None), "The partition for a sink connector offset cannot be null or missing"),
            (entry(&[("kafka_topic", "t".into())], None), "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'"),
            (entry(&[("kafka_topic", Value::Null), ("kafka_partition", Value::Int32(0))], None), "Kafka topic names must be valid strings and may not be null"),
            (entry(&[("kafka_topic", "t".into()), ("kafka_partition", Value::Null)], None), "Kafka partitions must be valid numbers and may not be null"),
            (
                entry(&[("kafka_topic", "t".into()), ("kafka_partition", "x".into())], None),
                "Failed to parse the following Kafka partition value in the provided offsets: 'x'. Partition values for sink connectors need to be integers.",
            ),
            (
                entry(&[("kafka_topic", "t".into()), ("kafka_partition", Value::Int32(0))], Some(&[("other", Value::Int32(1))])),
                "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
            ),
            (
                entry(&[("kafka_topic", "t".into()), ("kafka_partition", Value::Int32(0))], Some(&[("kafka_offset", "abc".into())])),
                "Failed to parse the following Kafka offset value in the provided offsets: 'abc'. Offset values for sink connectors need to be integers.",
            ),
        ];
        for (e, expected) in cases {
            assert_eq!(sink_entry(&e).unwrap_err(), bad(expected));
        }
    }
}
