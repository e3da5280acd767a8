//! The Prometheus text exposition format (0.0.4), with metric names and label values as the
//! JMX exporter renders Java's MBeans under the rules operators use (Strimzi's example Kafka
//! Connect configuration): lower-case names with `_` for `-`, label values quoted the way JMX
//! quotes them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Untyped,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Untyped => "untyped",
        }
    }

    /// The rules make an attribute ending in `-total` a counter and anything else a gauge.
    pub fn of_attribute(attribute: &str) -> Kind {
        if attribute.ends_with("-total") {
            Kind::Counter
        } else {
            Kind::Gauge
        }
    }
}

/// A sample's labels, in order.
type Labels = Vec<(Cow<'static, str>, String)>;

struct Family {
    help: String,
    kind: Kind,
    samples: Vec<(Labels, f64)>,
}

/// Metric families collected for one scrape, written out grouped by name.
#[derive(Default)]
pub struct Exposition {
    families: BTreeMap<String, Family>,
}

/// `kafka_connect_source_task` + `source-record-poll-total` →
/// `kafka_connect_source_task_source_record_poll_total`.
pub fn metric_name(prefix: &str, attribute: &str) -> String {
    let mut name = String::with_capacity(prefix.len() + attribute.len() + 1);
    name.push_str(prefix);
    name.push('_');
    for c in attribute.chars() {
        name.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        });
    }
    name
}

/// A label value as Java's metrics reporter puts it in an MBean name: as it is when it holds
/// only word characters, `-`, `%`, `.`, space and tab, otherwise quoted as `ObjectName.quote`
/// does. The exporter keeps the quotes, so dashboards see them too.
pub fn jmx_value(value: &str) -> String {
    let plain = value
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '%' | '.' | ' ' | '\t'));
    if plain {
        return value.to_owned();
    }
    let mut quoted = String::with_capacity(value.len() + 2);
    quoted.push('"');
    for c in value.chars() {
        match c {
            '"' | '*' | '?' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '\n' => quoted.push_str("\\n"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

impl Exposition {
    /// Adds one sample; the first sample of a family sets its help and type.
    pub fn sample(
        &mut self,
        name: String,
        kind: Kind,
        help: &str,
        labels: Vec<(&'static str, String)>,
        value: f64,
    ) {
        let labels = labels.into_iter().map(|(k, v)| (Cow::Borrowed(k), v));
        self.sample_labelled(name, kind, help, labels.collect(), value);
    }

    /// Adds one sample whose label names are not known in advance (a plugin's tags).
    pub fn sample_labelled(
        &mut self,
        name: String,
        kind: Kind,
        help: &str,
        labels: Labels,
        value: f64,
    ) {
        self.families
            .entry(name)
            .or_insert_with(|| Family {
                help: help.to_owned(),
                kind,
                samples: Vec::new(),
            })
            .samples
            .push((labels, value));
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, family) in &self.families {
            let _ = writeln!(out, "# HELP {name} {}", escape_help(&family.help));
            let _ = writeln!(out, "# TYPE {name} {}", family.kind.as_str());
            for (labels, value) in &family.samples {
                out.push_str(name);
                if !labels.is_empty() {
                    out.push('{');
                    for (i, (key, v)) in labels.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        let _ = write!(out, "{key}=\"{}\"", escape_label(v));
                    }
                    out.push('}');
                }
                let _ = writeln!(out, " {}", format_value(*value));
            }
        }
        out
    }
}

fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn escape_label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn format_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v == f64::INFINITY {
        "+Inf".to_owned()
    } else if v == f64::NEG_INFINITY {
        "-Inf".to_owned()
    } else {
        format!("{v:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_exporter_rules() {
        assert_eq!(
            metric_name("kafka_connect_source_task", "source-record-poll-total"),
            "kafka_connect_source_task_source_record_poll_total"
        );
    }

    #[test]
    fn label_values_are_quoted_as_jmx_quotes_them() {
        assert_eq!(
            jmx_value("connector-producer-src-0"),
            "connector-producer-src-0"
        );
        assert_eq!(
            jmx_value("connect-127.0.0.1:8083"),
            "\"connect-127.0.0.1:8083\""
        );
        assert_eq!(jmx_value("a\"b*"), "\"a\\\"b\\*\"");
    }

    #[test]
    fn families_are_grouped_with_help_and_type() {
        let mut e = Exposition::default();
        e.sample(
            "b_total".into(),
            Kind::Counter,
            "B",
            vec![("task", "1".into())],
            2.0,
        );
        e.sample("a".into(), Kind::Gauge, "A", vec![], f64::NAN);
        e.sample(
            "b_total".into(),
            Kind::Counter,
            "B",
            vec![("task", "\"x\"".into())],
            3.0,
        );
        assert_eq!(
            e.render(),
            "# HELP a A\n# TYPE a gauge\na NaN\n\
             # HELP b_total B\n# TYPE b_total counter\nb_total{task=\"1\"} 2.0\nb_total{task=\"\\\"x\\\"\"} 3.0\n"
        );
    }
}
