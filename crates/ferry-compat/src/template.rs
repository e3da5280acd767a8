//! Placeholders: `{name}`, `{topic}` and `{dir}` (with optional `-label` suffixes for names and
//! topics) stand for the same logical thing on both systems and for distinct physical ones, so the
//! two workers never share a connector name, a sink's consumer group, a topic or a file. Answers
//! have the physical values mapped back before they are compared.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Value};

/// Which worker a value belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum System {
    Java,
    Ferry,
}

impl System {
    pub const BOTH: [System; 2] = [System::Java, System::Ferry];

    pub fn label(self) -> &'static str {
        match self {
            System::Java => "Java",
            System::Ferry => "Ferry",
        }
    }

    /// The suffix of this system's physical names.
    pub fn short(self) -> &'static str {
        match self {
            System::Java => "j",
            System::Ferry => "f",
        }
    }
}

fn placeholder_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{(name|topic)(-[A-Za-z0-9_]+)?\}|\{dir\}").expect("regex"))
}

/// Every placeholder in `text`.
pub fn placeholders(text: &str) -> BTreeSet<String> {
    placeholder_re()
        .find_iter(text)
        .map(|m| m.as_str().to_owned())
        .collect()
}

/// One system's values of one scenario's placeholders.
#[derive(Debug, Clone)]
pub struct Names {
    /// `(placeholder, physical)`, longest physical value first (the order of mapping back).
    pairs: Vec<(String, String)>,
    /// Names made by this run for other scenarios contain one of these; lists drop them.
    foreign: Vec<String>,
}

impl Names {
    /// `run` is unique to the suite's run, `workers` the system's workers' `host:port`.
    pub fn new(
        run: &str,
        scenario: &str,
        system: System,
        dir: &Path,
        workers: &[String],
        used: &BTreeSet<String>,
    ) -> Names {
        let mut pairs: Vec<(String, String)> = used
            .iter()
            .map(|p| {
                let inner = &p[1..p.len() - 1];
                let physical = if inner == "dir" {
                    dir.display().to_string()
                } else {
                    let (kind, label) = inner.split_once('-').unwrap_or((inner, ""));
                    let letter = if kind == "name" { "c" } else { "t" };
                    let label = if label.is_empty() {
                        String::new()
                    } else {
                        format!("-{label}")
                    };
                    format!("{letter}{run}-{scenario}{label}-{}", system.short())
                };
                (p.clone(), physical)
            })
            .collect();
        pairs.extend(workers.iter().map(|w| ("{worker}".to_owned(), w.clone())));
        pairs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1.cmp(&b.1)));
        Names {
            pairs,
            foreign: vec![format!("c{run}-"), format!("t{run}-")],
        }
    }

    fn physical(&self, placeholder: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(p, _)| p == placeholder)
            .map(|(_, v)| v.as_str())
    }

    /// `text` with its placeholders replaced by this system's values.
    pub fn substitute(&self, text: &str) -> String {
        placeholder_re()
            .replace_all(text, |c: &regex::Captures<'_>| {
                self.physical(&c[0]).unwrap_or(&c[0]).to_owned()
            })
            .into_owned()
    }

    /// Every string and key of `value` substituted.
    pub fn substitute_json(&self, value: &Value) -> Value {
        map_strings(value, &|s| self.substitute(s))
    }

    /// `text` with this system's values mapped back to their placeholders.
    pub fn unsubstitute(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (placeholder, physical) in &self.pairs {
            if !physical.is_empty() && out.contains(physical.as_str()) {
                out = out.replace(physical.as_str(), placeholder);
            }
        }
        out
    }

    pub fn unsubstitute_json(&self, value: &Value) -> Value {
        map_strings(value, &|s| self.unsubstitute(s))
    }

    /// Whether `text` (already mapped back) still names something of another scenario.
    pub fn is_foreign(&self, text: &str) -> bool {
        self.foreign.iter().any(|f| text.contains(f.as_str()))
    }
}

/// `value` with `f` applied to every string and every object key.
pub fn map_strings(value: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(f(s)),
        Value::Array(a) => Value::Array(a.iter().map(|v| map_strings(v, f)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (f(k), map_strings(v, f)))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(system: System) -> Names {
        let used = placeholders("{name} {name-sink} {topic} {dir}/x");
        Names::new(
            "r1",
            "scen",
            system,
            Path::new("/tmp/w/j/scen"),
            &["127.0.0.1:1000".to_owned(), "127.0.0.1:1001".to_owned()],
            &used,
        )
    }

    #[test]
    fn substitutes_and_maps_back() {
        let n = names(System::Java);
        let text = "{name} reads {topic} into {dir}/out.txt; {name-sink}";
        let physical = n.substitute(text);
        assert_eq!(
            physical,
            "cr1-scen-j reads tr1-scen-j into /tmp/w/j/scen/out.txt; cr1-scen-sink-j"
        );
        assert_eq!(n.unsubstitute(&physical), text);
        assert_eq!(n.unsubstitute("127.0.0.1:1000"), "{worker}");
        assert_eq!(n.unsubstitute("127.0.0.1:1001"), "{worker}");
        assert!(n.is_foreign("cr1-other-j"));
        assert!(!n.is_foreign("{name}"));
    }

    #[test]
    fn json_keys_are_mapped_too() {
        let n = names(System::Ferry);
        let v = serde_json::json!({"cr1-scen-f": {"topics": ["tr1-scen-f"]}});
        assert_eq!(
            n.unsubstitute_json(&v),
            serde_json::json!({"{name}": {"topics": ["{topic}"]}})
        );
    }
}
