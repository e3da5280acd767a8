//! The names Strimzi's metrics reporter (`io.strimzi.kafka.metrics.prometheus.ClientMetricsReporter`,
//! formerly `…KafkaPrometheusMetricsReporter`) gives Kafka metrics, for users whose dashboards
//! were written against it: `<namespace>_<group>_<name>` from the Kafka metric itself
//! (`kafka_connect_connect_worker_metrics_connector_count`), tags as labels in name order,
//! `_total` and Prometheus' other reserved suffixes dropped, every value a gauge, and string
//! values as `<name>_info{<name>="value"} 1`. Ferry's metrics are rendered under the JMX
//! exporter's names (exposition); this rewrites that rendering, family by family.

use std::collections::BTreeMap;
use std::fmt::Write;

use regex::Regex;

/// The reporter's class names, as `metric.reporters` names them.
pub const REPORTER_CLASSES: [&str; 2] = ferry_kafka::client_properties::STRIMZI_METRICS_REPORTERS;
pub const LISTENER: &str = "prometheus.metrics.reporter.listener";
pub const LISTENER_ENABLE: &str = "prometheus.metrics.reporter.listener.enable";
pub const ALLOWLIST: &str = "prometheus.metrics.reporter.allowlist";

/// Whether a worker config's `metric.reporters` names Strimzi's reporter.
pub fn configured(props: &ferry_api::ConfigMap) -> bool {
    props.get("metric.reporters").is_some_and(|v| {
        v.split(',')
            .any(|class| REPORTER_CLASSES.contains(&class.trim()))
    })
}

/// The reporter's listener (`http://[host]:port`, default `http://:8080`), when enabled.
pub fn listener(props: &ferry_api::ConfigMap) -> Option<String> {
    let enabled = props
        .get(LISTENER_ENABLE)
        .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
    (configured(props) && enabled).then(|| {
        props
            .get(LISTENER)
            .map_or("http://:8080", |v| v.trim())
            .to_owned()
    })
}

/// `prometheus.metrics.reporter.allowlist`: comma-separated regular expressions, each matching a
/// whole metric name (without the `_info` of string values).
pub fn allowlist(props: &ferry_api::ConfigMap) -> Result<Regex, String> {
    let list = props.get(ALLOWLIST).map_or(".*", |v| v.as_str());
    let joined = list
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| format!("({p})"))
        .collect::<Vec<_>>()
        .join("|");
    Regex::new(&format!("^(?:{joined})$"))
        .map_err(|e| format!("Invalid value {list} for configuration {ALLOWLIST}: {e}"))
}

/// JMX exporter family prefixes (Strimzi's example rules) and the Kafka metric groups they
/// come from, with their namespace: longest first.
const GROUPS: [(&str, &str); 15] = [
    (
        "kafka_connect_worker_rebalance_",
        "kafka_connect_connect_worker_rebalance_metrics_",
    ),
    (
        "kafka_connect_worker_",
        "kafka_connect_connect_worker_metrics_",
    ),
    (
        "kafka_connect_coordinator_",
        "kafka_connect_connect_coordinator_metrics_",
    ),
    (
        "kafka_connect_connector_task_",
        "kafka_connect_connector_task_metrics_",
    ),
    (
        "kafka_connect_connector_",
        "kafka_connect_connector_metrics_",
    ),
    (
        "kafka_connect_source_task_",
        "kafka_connect_source_task_metrics_",
    ),
    (
        "kafka_connect_sink_task_",
        "kafka_connect_sink_task_metrics_",
    ),
    (
        "kafka_connect_task_error_",
        "kafka_connect_task_error_metrics_",
    ),
    (
        "kafka_producer_node_",
        "kafka_producer_producer_node_metrics_",
    ),
    (
        "kafka_producer_topic_",
        "kafka_producer_producer_topic_metrics_",
    ),
    ("kafka_producer_", "kafka_producer_producer_metrics_"),
    (
        "kafka_consumer_fetch_manager_",
        "kafka_consumer_consumer_fetch_manager_metrics_",
    ),
    (
        "kafka_consumer_coordinator_",
        "kafka_consumer_consumer_coordinator_metrics_",
    ),
    (
        "kafka_consumer_node_",
        "kafka_consumer_consumer_node_metrics_",
    ),
    ("kafka_consumer_", "kafka_consumer_consumer_metrics_"),
];

/// The exporter's label names for Kafka's tags, back to the tags' sanitised names.
fn label_name(label: &str) -> String {
    match label {
        "clientid" => "client_id".to_owned(),
        "nodeid" => "node_id".to_owned(),
        other => other.to_owned(),
    }
}

/// A label value without the quotes JMX put around it (`ObjectName.quote`).
fn unquoted(value: &str) -> String {
    let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
        return value.to_owned();
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('n')) => {
                out.push('\n');
                chars.next();
            }
            ('\\', Some(next)) => {
                out.push(next);
                chars.next();
            }
            (c, _) => out.push(c),
        }
    }
    out
}

fn strip_reserved_suffix(name: &str) -> &str {
    for suffix in ["_total", "_created", "_bucket", "_info"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            return stem;
        }
    }
    name
}

/// One sample of the JMX exporter rendering: its name, labels and value.
struct Sample {
    name: String,
    labels: Labels,
    value: String,
}

/// Parses `name{k="v",…} value` as `Exposition::render` writes it.
fn parse_sample(line: &str) -> Option<Sample> {
    let (series, value) = line.rsplit_once(' ')?;
    let Some((name, rest)) = series.split_once('{') else {
        return Some(Sample {
            name: series.to_owned(),
            labels: Vec::new(),
            value: value.to_owned(),
        });
    };
    let body = rest.strip_suffix('}')?;
    let mut labels = Vec::new();
    let mut chars = body.chars().peekable();
    loop {
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        if chars.next() != Some('"') {
            return None;
        }
        let mut v = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next()? {
                    'n' => v.push('\n'),
                    other => v.push(other),
                },
                '"' => break,
                c => v.push(c),
            }
        }
        labels.push((key, v));
        if chars.peek() == Some(&',') {
            chars.next();
        }
    }
    Some(Sample {
        name: name.to_owned(),
        labels,
        value: value.to_owned(),
    })
}

type Labels = Vec<(String, String)>;

/// A sample as the reporter names it.
struct Translated {
    /// The name the allowlist matches: without `_info`.
    stem: String,
    /// A string value, rendered `<stem>_info{…} 1`.
    info: bool,
    labels: Labels,
    value: String,
}

/// A sample under the reporter's name, or `None` for what it does not export (MirrorMaker's
/// connector metrics, which Java registers outside the worker's metrics).
fn translate(sample: Sample) -> Option<Translated> {
    let labels: BTreeMap<String, String> = sample
        .labels
        .into_iter()
        .map(|(k, v)| (label_name(&k), unquoted(&v)))
        .collect();
    let mut value = sample.value;
    let name = sample.name;
    let (stem, info) = match name.as_str() {
        "kafka_connect_start_time_seconds" => {
            value = value
                .parse::<f64>()
                .map(|s| format!("{:?}", (s * 1000.0).round()))
                .unwrap_or(value);
            ("kafka_connect_app_info_start_time_ms".to_owned(), false)
        }
        "kafka_connect_version" | "kafka_producer_version" | "kafka_consumer_version" => (
            format!("{}_app_info_version", name.trim_end_matches("_version")),
            true,
        ),
        _ if name.starts_with("ferry_") => (name.clone(), false),
        _ => {
            let (prefix, group) = GROUPS.iter().find(|(p, _)| name.starts_with(p))?;
            let attribute = &name[prefix.len()..];
            // A string metric: the exporter's rule put its value in a label of its own name.
            let info = labels.contains_key(attribute);
            (format!("{group}{}", strip_reserved_suffix(attribute)), info)
        }
    };
    Some(Translated {
        stem,
        info,
        labels: labels.into_iter().collect(),
        value,
    })
}

/// The JMX exporter rendering `text` as Strimzi's reporter names it, families in name order,
/// each allowed by `allow`.
pub fn render(text: &str, allow: &Regex) -> String {
    let mut families: BTreeMap<String, Vec<(Labels, String)>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let Some(Translated {
            stem,
            info,
            labels,
            value,
        }) = parse_sample(line).and_then(translate)
        else {
            continue;
        };
        if !allow.is_match(&stem) {
            continue;
        }
        let name = if info { format!("{stem}_info") } else { stem };
        families.entry(name).or_default().push((labels, value));
    }
    let mut out = String::new();
    for (name, samples) in families {
        let _ = writeln!(out, "# HELP {name} Use {name} in allowlist");
        let _ = writeln!(out, "# TYPE {name} gauge");
        for (labels, value) in samples {
            out.push_str(&name);
            if !labels.is_empty() {
                out.push('{');
                for (i, (k, v)) in labels.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let v = v
                        .replace('\\', "\\\\")
                        .replace('"', "\\\"")
                        .replace('\n', "\\n");
                    let _ = write!(out, "{k}=\"{v}\"");
                }
                out.push('}');
            }
            let _ = writeln!(out, " {value}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Regex {
        allowlist(&ferry_api::ConfigMap::new()).unwrap()
    }

    #[test]
    fn worker_task_and_client_metrics_take_the_reporter_s_names() {
        let jmx = "# HELP kafka_connect_worker_connector_count connect-worker-metrics connector-count\n\
            # TYPE kafka_connect_worker_connector_count gauge\n\
            kafka_connect_worker_connector_count 1.0\n\
            kafka_connect_worker_connector_startup_attempts_total 3.0\n\
            kafka_connect_worker_connector_running_task_count{connector=\"file-in\"} 1.0\n\
            kafka_connect_worker_rebalance_leader_name{leader_name=\"http://w1:8083/\"} 1.0\n\
            kafka_connect_connector_status{connector=\"file-in\",status=\"running\"} 1.0\n\
            kafka_connect_source_task_source_record_poll_total{connector=\"file-in\",task=\"0\"} 50.0\n\
            kafka_connect_task_error_total_record_failures{connector=\"file-in\",task=\"0\"} 0.0\n\
            kafka_producer_outgoing_byte_total{clientid=\"\\\"connector-producer-file-in-0\\\"\"} 1234.0\n\
            kafka_producer_node_request_total{clientid=\"p\",nodeid=\"node-1\"} 7.0\n\
            kafka_consumer_fetch_manager_records_lag{clientid=\"c\",topic=\"t\",partition=\"0\"} 2.0\n\
            kafka_connect_start_time_seconds{clientid=\"connect-1\"} 1733580000.5\n\
            kafka_connect_version{clientid=\"connect-1\",version=\"4.4.0\"} 1.0\n\
            kafka_connect_mirror_mirrorsourceconnector_record_count{source=\"a\",target=\"b\",topic=\"a.t\",partition=\"0\"} 5.0\n\
            ferry_connect_worker_automatic_restarts_total 0.0\n";
        let out = render(jmx, &all());
        for line in [
            "# TYPE kafka_connect_connect_worker_metrics_connector_count gauge",
            "kafka_connect_connect_worker_metrics_connector_count 1.0",
            "kafka_connect_connect_worker_metrics_connector_startup_attempts 3.0",
            "kafka_connect_connect_worker_metrics_connector_running_task_count{connector=\"file-in\"} 1.0",
            "kafka_connect_connect_worker_rebalance_metrics_leader_name_info{leader_name=\"http://w1:8083/\"} 1.0",
            "kafka_connect_connector_metrics_status_info{connector=\"file-in\",status=\"running\"} 1.0",
            "kafka_connect_source_task_metrics_source_record_poll{connector=\"file-in\",task=\"0\"} 50.0",
            "kafka_connect_task_error_metrics_total_record_failures{connector=\"file-in\",task=\"0\"} 0.0",
            "kafka_producer_producer_metrics_outgoing_byte{client_id=\"connector-producer-file-in-0\"} 1234.0",
            "kafka_producer_producer_node_metrics_request{client_id=\"p\",node_id=\"node-1\"} 7.0",
            "kafka_consumer_consumer_fetch_manager_metrics_records_lag{client_id=\"c\",partition=\"0\",topic=\"t\"} 2.0",
            "kafka_connect_app_info_start_time_ms{client_id=\"connect-1\"} 1733580000500.0",
            "kafka_connect_app_info_version_info{client_id=\"connect-1\",version=\"4.4.0\"} 1.0",
            "ferry_connect_worker_automatic_restarts_total 0.0",
        ] {
            assert!(out.lines().any(|l| l == line), "{line} missing from:\n{out}");
        }
        assert!(!out.contains("mirror"), "{out}");
    }

    #[test]
    fn the_allowlist_matches_whole_names_without_info() {
        let mut props = ferry_api::ConfigMap::new();
        props.insert(
            ALLOWLIST.into(),
            "kafka_connect_connector_metrics_.*,kafka_connect_connect_worker_metrics_connector_count".into(),
        );
        let allow = allowlist(&props).unwrap();
        let out = render(
            "kafka_connect_worker_connector_count 1.0\nkafka_connect_worker_task_count 2.0\n\
             kafka_connect_connector_status{connector=\"c\",status=\"running\"} 1.0\n",
            &allow,
        );
        assert!(out.contains("kafka_connect_connect_worker_metrics_connector_count 1.0"));
        assert!(out.contains("kafka_connect_connector_metrics_status_info{"));
        assert!(!out.contains("task_count"), "{out}");
        props.insert(ALLOWLIST.into(), "(".into());
        assert!(allowlist(&props).unwrap_err().contains(ALLOWLIST));
    }

    #[test]
    fn the_listener_follows_metric_reporters_and_its_enable_switch() {
        let mut props = ferry_api::ConfigMap::new();
        assert_eq!(listener(&props), None);
        props.insert(
            "metric.reporters".into(),
            "org.apache.kafka.common.metrics.JmxReporter,io.strimzi.kafka.metrics.prometheus.ClientMetricsReporter".into(),
        );
        assert_eq!(listener(&props).as_deref(), Some("http://:8080"));
        props.insert(LISTENER.into(), "http://:9404".into());
        assert_eq!(listener(&props).as_deref(), Some("http://:9404"));
        props.insert(LISTENER_ENABLE.into(), "false".into());
        assert_eq!(listener(&props), None);
    }
}
