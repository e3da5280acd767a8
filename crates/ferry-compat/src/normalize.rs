//! What must differ between the two workers is taken out of an answer before it is compared:
//! physical names (mapped back to placeholders), worker ids, stack traces (only the exception
//! class of the first line stays), versions, commits and timestamps, names made for other
//! scenarios, and the order of arrays whose order Java leaves unspecified.

use serde_json::{Map, Value};

use crate::template::Names;

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
    /// An element of an unordered array, named by its identity (see [`identity`]).
    Id(String),
}

/// `body.connector.state`, `body.tasks[0].state`, `body[org.example.Plugin]`.
pub fn render(root: &str, path: &[Seg]) -> String {
    let mut out = root.to_owned();
    for s in path {
        match s {
            Seg::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
            Seg::Id(id) => out.push_str(&format!("[{id}]")),
        }
    }
    out
}

/// Whether `path` matches `pattern`: dot-separated segments, `*` for any one key or index, a
/// number for that index; the empty pattern is the root.
pub fn matches(pattern: &str, path: &[Seg]) -> bool {
    let parts: Vec<&str> = if pattern.is_empty() {
        Vec::new()
    } else {
        pattern.split('.').collect()
    };
    parts.len() == path.len()
        && parts.iter().zip(path).all(|(p, s)| {
            *p == "*"
                || match s {
                    Seg::Key(k) | Seg::Id(k) => p == k,
                    Seg::Index(i) => p.parse::<usize>().ok() == Some(*i),
                }
        })
}

/// Arrays Java leaves unordered, whatever the step says: connector lists, KIP-558 topic lists,
/// KIP-875 offsets, plugin lists and the loggers a level change touched.
pub fn default_unordered(method: &str, path: &str) -> Vec<String> {
    let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut out = Vec::new();
    match (method, segs.as_slice()) {
        ("GET", ["connectors"]) => out.push(String::new()),
        ("GET", ["connectors", _, "topics"]) => out.push("*.topics".to_owned()),
        ("GET", ["connectors", _, "offsets"]) => out.push("offsets".to_owned()),
        ("GET", ["connector-plugins"]) => out.push(String::new()),
        ("PUT", ["admin", "loggers", _]) => out.push(String::new()),
        _ => {}
    }
    out
}

/// The exception class of a trace's first line (`org.example.Failure: message` → the class).
pub fn trace_class(trace: &str) -> String {
    let first = trace.lines().next().unwrap_or("").trim();
    let class = first.split(':').next().unwrap_or(first).trim();
    if class.contains(' ') || class.is_empty() {
        "<trace>".to_owned()
    } else {
        format!("<trace {class}>")
    }
}

/// An answer body as it is compared.
pub fn normalize(body: &Value, names: &Names, unordered: &[String], ignore: &[String]) -> Value {
    let mapped = names.unsubstitute_json(body);
    let mut path = Vec::new();
    walk(&mapped, names, unordered, ignore, &mut path).unwrap_or(Value::Null)
}

fn walk(
    value: &Value,
    names: &Names,
    unordered: &[String],
    ignore: &[String],
    path: &mut Vec<Seg>,
) -> Option<Value> {
    if !path.is_empty() && ignore.iter().any(|p| matches(p, path)) {
        return None;
    }
    Some(match value {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                if names.is_foreign(k) {
                    continue;
                }
                path.push(Seg::Key(k.clone()));
                let field = match (k.as_str(), v) {
                    ("worker_id", Value::String(_)) => Some(Value::String("{worker}".into())),
                    ("trace", Value::String(t)) => Some(Value::String(trace_class(t))),
                    ("version" | "commit", Value::String(_)) => {
                        Some(Value::String(format!("<{k}>")))
                    }
                    ("last_modified", Value::Number(_)) => {
                        Some(Value::String("<timestamp>".into()))
                    }
                    _ => walk(v, names, unordered, ignore, path),
                };
                path.pop();
                if let Some(f) = field {
                    out.insert(k.clone(), f);
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => {
            let mut out = Vec::new();
            for (i, v) in a.iter().enumerate() {
                if v.as_str().is_some_and(|s| names.is_foreign(s)) {
                    continue;
                }
                path.push(Seg::Index(i));
                if let Some(v) = walk(v, names, unordered, ignore, path) {
                    out.push(v);
                }
                path.pop();
            }
            if unordered.iter().any(|p| matches(p, path)) {
                out.sort_by_key(canonical);
            }
            Value::Array(out)
        }
        other => other.clone(),
    })
}

/// A stable text of a value (object keys sorted), for sorting and multiset comparison.
pub fn canonical(value: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&o[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// What names an element of an array, when it has a name: its `name`, `class` or `id`, the
/// `name` of its `value` or `definition` (validation results), its `partition` (offsets).
pub fn key(value: &Value) -> Option<String> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let named = |v: &Value| v.get("name").and_then(text);
    if !value.is_object() {
        return None;
    }
    value
        .get("class")
        .and_then(text)
        .or_else(|| named(value))
        .or_else(|| value.get("id").and_then(text))
        .or_else(|| value.get("value").and_then(named))
        .or_else(|| value.get("definition").and_then(named))
        .or_else(|| value.get("partition").map(canonical))
}

/// What names an element of an unordered array: its [`key`], else its text.
pub fn identity(value: &Value) -> String {
    key(value).unwrap_or_else(|| match value {
        Value::String(s) => s.clone(),
        other => canonical(other),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::template::System;

    fn names() -> Names {
        let used: BTreeSet<String> = ["{name}".to_owned()].into();
        Names::new(
            "r",
            "s",
            System::Java,
            Path::new("/d"),
            &["127.0.0.1:9".to_owned()],
            &used,
        )
    }

    #[test]
    fn takes_out_what_must_differ() {
        let body = json!({
            "name": "cr-s-j",
            "connector": {"state": "RUNNING", "worker_id": "10.0.0.1:8083"},
            "tasks": [{"id": 0, "state": "FAILED", "trace": "org.apache.kafka.connect.errors.ConnectException: boom\n\tat x", "worker_id": "127.0.0.1:9"}],
            "version": "4.1.1",
        });
        assert_eq!(
            normalize(&body, &names(), &[], &[]),
            json!({
                "name": "{name}",
                "connector": {"state": "RUNNING", "worker_id": "{worker}"},
                "tasks": [{"id": 0, "state": "FAILED", "trace": "<trace org.apache.kafka.connect.errors.ConnectException>", "worker_id": "{worker}"}],
                "version": "<version>",
            })
        );
    }

    #[test]
    fn sorts_unordered_arrays_and_drops_other_scenarios_names() {
        let body = json!(["cr-s-j", "cr-other-j", "b", "a"]);
        assert_eq!(
            normalize(&body, &names(), &[String::new()], &[]),
            json!(["a", "b", "{name}"])
        );
        let nested = json!({"x": {"topics": ["b", "a"]}});
        assert_eq!(
            normalize(
                &nested,
                &names(),
                &["*.topics".to_owned()],
                &["x.gone".to_owned()]
            ),
            json!({"x": {"topics": ["a", "b"]}})
        );
    }

    #[test]
    fn patterns_match_whole_paths() {
        let path = [
            Seg::Key("tasks".into()),
            Seg::Index(0),
            Seg::Key("state".into()),
        ];
        assert!(matches("tasks.*.state", &path));
        assert!(matches("tasks.0.state", &path));
        assert!(!matches("tasks", &path));
        assert!(matches("", &[]));
        assert_eq!(
            default_unordered("GET", "/connectors?expand=status"),
            vec![String::new()]
        );
    }
}
