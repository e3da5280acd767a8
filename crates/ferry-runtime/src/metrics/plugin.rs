//! The metrics tasks publish themselves, named as the JMX exporter names their MBeans with
//! the rules operators use (Strimzi's MirrorMaker 2 rules: `kafka.connect.mirror<type=
//! MirrorSourceConnector, source, target, topic, partition><>record-count` →
//! `kafka_connect_mirror_mirrorsourceconnector_record_count{source,target,topic,partition}`),
//! every one a gauge as those rules type them.

use std::borrow::Cow;

use ferry_api::metrics::{MetricGroupName, PluginMetrics};

use super::exposition::{jmx_value, metric_name, Exposition, Kind};

/// `kafka.connect.mirror` + `MirrorSourceConnector` → `kafka_connect_mirror_mirrorsourceconnector`.
fn family_prefix(group: &MetricGroupName) -> String {
    let mut prefix = String::with_capacity(group.domain.len() + group.kind.len() + 1);
    for c in group.domain.chars().chain(['_']).chain(group.kind.chars()) {
        prefix.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        });
    }
    prefix
}

pub fn render(out: &mut Exposition, metrics: &PluginMetrics) {
    metrics.measure(|m| {
        let labels = m
            .group
            .tags
            .iter()
            .map(|(k, v)| (Cow::Owned(k.to_ascii_lowercase()), jmx_value(v)))
            .collect();
        out.sample_labelled(
            metric_name(&family_prefix(m.group), &m.metric.attribute),
            Kind::Gauge,
            &m.metric.description,
            labels,
            m.value,
        );
    });
}

#[cfg(test)]
mod tests {
    use ferry_api::metrics::{Metric, Stat};

    use super::*;

    #[test]
    fn a_plugin_s_mbean_renders_as_strimzi_s_rules_name_it() {
        let metrics = PluginMetrics::default();
        let group = MetricGroupName::new(
            "kafka.connect.mirror",
            "MirrorCheckpointConnector",
            &[("source", "A"), ("group", "g:1"), ("partition", "0")],
        );
        metrics
            .sensor(
                group,
                vec![Metric::new("checkpoint-latency-ms", Stat::Value, "Latency")],
            )
            .record(12.0);
        let mut out = Exposition::default();
        render(&mut out, &metrics);
        assert_eq!(
            out.render(),
            "# HELP kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms Latency\n\
             # TYPE kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms gauge\n\
             kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms\
             {source=\"A\",group=\"\\\"g:1\\\"\",partition=\"0\"} 12.0\n"
        );
    }
}
