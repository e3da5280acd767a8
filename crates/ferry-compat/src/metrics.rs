//! Prometheus metrics as the suite compares them: a scrape in the text exposition format 0.0.4
//! becomes an object of `metric_name{label,keys}` → the metric's type. Label values and sample
//! values differ between any two runs, so only names, label keys and types are compared.

use std::collections::BTreeMap;

use anyhow::{bail, ensure, Context};
use serde_json::{Map, Value};

use crate::template::Names;

/// What a metrics step asks for: the 0.0.4 text format (the JMX exporter would answer
/// OpenMetrics or protobuf to other `Accept` headers).
pub const ACCEPT: &str = "text/plain; version=0.0.4";

/// The JVM's and the JMX exporter's own families: Ferry has no counterpart of them.
const OWN_FAMILIES: [&str; 3] = ["jvm_", "process_", "jmx_"];

/// Suffixes a sample may add to its family's name (counters, info, summaries, histograms), so
/// the `# TYPE` line can name the base.
const SAMPLE_SUFFIXES: [&str; 6] = ["_total", "_created", "_info", "_sum", "_count", "_bucket"];

/// One sample line; its value and timestamp are checked for form, not kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
}

/// One scrape: the type each `# TYPE` line gives its family, and every sample.
#[derive(Debug, Default)]
pub struct Exposition {
    pub types: BTreeMap<String, String>,
    pub samples: Vec<Sample>,
}

/// Parses the text exposition format 0.0.4.
pub fn parse(text: &str) -> anyhow::Result<Exposition> {
    let mut out = Exposition::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let mut words = comment.split_whitespace();
            if words.next() == Some("TYPE") {
                let (Some(name), Some(kind)) = (words.next(), words.next()) else {
                    bail!("line {}: `{line}` is not `# TYPE name type`", i + 1);
                };
                out.types.insert(name.to_owned(), kind.to_owned());
            }
            // HELP lines and other comments say nothing the suite compares.
            continue;
        }
        out.samples
            .push(parse_sample(line).with_context(|| format!("line {}: `{line}`", i + 1))?);
    }
    Ok(out)
}

fn parse_sample(line: &str) -> anyhow::Result<Sample> {
    let end = line
        .find(|c: char| c == '{' || c.is_whitespace())
        .unwrap_or(line.len());
    let name = &line[..end];
    ensure!(
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
        "`{name}` is not a metric name"
    );
    let mut rest = line[end..].trim_start();
    let mut labels = Vec::new();
    if let Some(inside) = rest.strip_prefix('{') {
        rest = parse_labels(inside, &mut labels)?;
    }
    let mut fields = rest.split_whitespace();
    let value = fields.next().context("no value")?;
    // Rust's float syntax takes NaN, +Inf and -Inf in any case, as the format writes them.
    value
        .parse::<f64>()
        .with_context(|| format!("`{value}` is not a value"))?;
    if let Some(ts) = fields.next() {
        ts.parse::<i64>()
            .with_context(|| format!("`{ts}` is not a timestamp"))?;
    }
    ensure!(fields.next().is_none(), "more than a value and a timestamp");
    Ok(Sample {
        name: name.to_owned(),
        labels,
    })
}

/// Reads `name="value",…}` (a trailing comma allowed) into `labels`; returns what follows `}`.
fn parse_labels<'a>(mut s: &'a str, labels: &mut Vec<(String, String)>) -> anyhow::Result<&'a str> {
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix('}') {
            return Ok(rest);
        }
        let (name, rest) = s.split_once('=').context("a label without `=`")?;
        let name = name.trim();
        ensure!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "`{name}` is not a label name"
        );
        let quoted = rest
            .trim_start()
            .strip_prefix('"')
            .with_context(|| format!("the value of {name} is not quoted"))?;
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        let after = loop {
            match chars.next() {
                None => bail!("the value of {name} has no closing quote"),
                Some((i, '"')) => break i + 1,
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c)) => value.push(c),
                    None => bail!("the value of {name} ends in a backslash"),
                },
                Some((_, c)) => value.push(c),
            }
        };
        labels.push((name.to_owned(), value));
        s = quoted[after..].trim_start();
        if let Some(rest) = s.strip_prefix(',') {
            s = rest;
        } else {
            ensure!(s.starts_with('}'), "`,` or `}}` expected after {name}");
        }
    }
}

/// The type of the family a sample belongs to: the one of its own name, else the one its name
/// extends with a suffix the format adds.
fn type_of<'a>(types: &'a BTreeMap<String, String>, sample: &str) -> &'a str {
    types
        .get(sample)
        .or_else(|| {
            SAMPLE_SUFFIXES
                .iter()
                .filter_map(|s| sample.strip_suffix(s))
                .find_map(|base| types.get(base))
        })
        .map_or("unknown", String::as_str)
}

/// `name{label,keys}` (label keys sorted; `{}` without labels) → type, for the samples whose
/// labels `keep` accepts; the JVM's and exporter's own families are left out.
pub fn keys(exposition: &Exposition, keep: impl Fn(&[(String, String)]) -> bool) -> Value {
    let mut out = BTreeMap::new();
    for s in &exposition.samples {
        if OWN_FAMILIES.iter().any(|p| s.name.starts_with(p)) || !keep(&s.labels) {
            continue;
        }
        let mut label_keys: Vec<&str> = s.labels.iter().map(|(k, _)| k.as_str()).collect();
        label_keys.sort_unstable();
        label_keys.dedup();
        out.insert(
            format!("{}{{{}}}", s.name, label_keys.join(",")),
            Value::String(type_of(&exposition.types, &s.name).to_owned()),
        );
    }
    Value::Object(out.into_iter().collect::<Map<_, _>>())
}

/// What a metrics step compares of one system's scrape. A series whose label values name a
/// connector, topic or client of another scenario of the run is left out, as normalising drops
/// such names from lists: the keys then depend on this scenario only, whatever ran before.
pub fn body(text: &str, names: &Names) -> anyhow::Result<Value> {
    let exposition = parse(text)?;
    Ok(keys(&exposition, |labels| {
        !labels
            .iter()
            .any(|(_, v)| names.is_foreign(&names.unsubstitute(v)))
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::template::System;

    const SCRAPE: &str = r#"# HELP jvm_threads_current Current thread count of a JVM
# TYPE jvm_threads_current gauge
jvm_threads_current 27.0
# HELP kafka_connect_worker_connector_count The number of connectors run in this worker.
# TYPE kafka_connect_worker_connector_count gauge
kafka_connect_worker_connector_count 2.0
# HELP kafka_connect_source_task_source_record_poll_total Help with \\ and \n escaped.
# TYPE kafka_connect_source_task_source_record_poll_total counter
kafka_connect_source_task_source_record_poll_total{connector="a",task="0"} 100.0
kafka_connect_source_task_source_record_poll_total{task="1",connector="b"} 0.0 1712345678901
# TYPE kafka_producer_version_info untyped
kafka_producer_version_info{clientid="p-1",version="4.1.1",} 1.0
# TYPE kafka_consumer_fetch_manager_records_lag gauge
kafka_consumer_fetch_manager_records_lag{clientid="c, \"quoted\" \\ x",partition="0",topic="t"} NaN
kafka_consumer_fetch_manager_records_lag_max{clientid="c"} +Inf
# TYPE process_cpu_seconds counter
process_cpu_seconds_total 1.5
# TYPE jmx_scrape_duration_seconds gauge
jmx_scrape_duration_seconds -Inf
"#;

    #[test]
    fn parses_samples_labels_and_escapes() {
        let e = parse(SCRAPE).unwrap();
        assert_eq!(e.types["kafka_producer_version_info"], "untyped");
        assert_eq!(e.samples.len(), 9);
        assert_eq!(
            e.samples[4].labels,
            vec![
                ("clientid".into(), "p-1".into()),
                ("version".into(), "4.1.1".into())
            ]
        );
        assert_eq!(
            e.samples[5].labels[0],
            ("clientid".into(), "c, \"quoted\" \\ x".into())
        );
        assert!(e.samples[1].labels.is_empty());
    }

    #[test]
    fn builds_keys_with_sorted_label_keys_and_family_types() {
        let e = parse(SCRAPE).unwrap();
        assert_eq!(
            keys(&e, |_| true),
            json!({
                "kafka_connect_source_task_source_record_poll_total{connector,task}": "counter",
                "kafka_connect_worker_connector_count{}": "gauge",
                "kafka_consumer_fetch_manager_records_lag_max{clientid}": "unknown",
                "kafka_consumer_fetch_manager_records_lag{clientid,partition,topic}": "gauge",
                "kafka_producer_version_info{clientid,version}": "untyped",
            })
        );
        let base =
            parse("# TYPE a counter\na_total 1\n# TYPE b untyped\nb_info{x=\"1\"} 1\n").unwrap();
        assert_eq!(
            keys(&base, |_| true),
            json!({"a_total{}": "counter", "b_info{x}": "untyped"})
        );
    }

    #[test]
    fn leaves_out_series_of_other_scenarios() {
        let used: BTreeSet<String> = ["{name-src}".to_owned()].into();
        let names = Names::new(
            "r",
            "s",
            System::Java,
            Path::new("/d"),
            &["127.0.0.1:9".to_owned()],
            &used,
        );
        let text = "m{connector=\"cr-s-src-j\",task=\"0\"} 1\n\
                    m_other{connector=\"cr-other-j\"} 1\n\
                    p{clientid=\"connector-producer-cr-other-j-0\"} 1\n\
                    w{clientid=\"connect-1\"} 1\n";
        assert_eq!(
            body(text, &names).unwrap(),
            json!({"m{connector,task}": "unknown", "w{clientid}": "unknown"})
        );
    }

    #[test]
    fn refuses_what_is_not_the_format() {
        for bad in [
            "m{a=\"1\" 1",
            "m{a=1} 1",
            "m{a=\"1\"} one",
            "m 1 2 3",
            "m{a=\"x} 1",
            "m{a=\"1\"b=\"2\"} 1",
            "m",
            "# TYPE m",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
