//! The comparer: what two normalised observations of one step differ in, and which of those
//! differences the accepted-differences file explains.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;

use crate::normalize::{canonical, identity, key, matches, render, Seg};

/// How a difference shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Both have a value here and they differ.
    Differs,
    /// Only Ferry has it (a field, an element, an answer, a reached state, a record).
    FerryOnly,
    /// Only Java has it.
    JavaOnly,
    /// The scenario itself went wrong (neither system reached a state, Java answered another
    /// status than the scenario expects, the runner failed): never acceptable.
    Broken,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Differs => "differs",
            Kind::FerryOnly => "ferry-only",
            Kind::JavaOnly => "java-only",
            Kind::Broken => "broken",
        }
    }
}

/// One difference of one step.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// `@status`, `@location`, `@reached`, `@error`, `body…` or `data…`.
    pub path: String,
    pub kind: Kind,
    pub java: Option<String>,
    pub ferry: Option<String>,
    /// The reason, when the accepted-differences file explains it.
    pub accepted: Option<String>,
}

impl Difference {
    pub fn new(
        path: impl Into<String>,
        kind: Kind,
        java: Option<String>,
        ferry: Option<String>,
    ) -> Self {
        Difference {
            path: path.into(),
            kind,
            java,
            ferry,
            accepted: None,
        }
    }

    pub fn broken(path: &str, what: String) -> Self {
        Difference::new(path, Kind::Broken, Some(what), None)
    }
}

fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if s.chars().count() > 300 {
        format!("{}…", s.chars().take(300).collect::<String>())
    } else {
        s
    }
}

/// The differences between Java's and Ferry's (normalised) values; `unordered` names the arrays
/// compared as multisets, their elements matched by [`identity`].
pub fn diff_values(
    root: &str,
    java: &Value,
    ferry: &Value,
    unordered: &[String],
) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(root, java, ferry, unordered, &mut path, &mut out);
    out
}

fn walk(
    root: &str,
    java: &Value,
    ferry: &Value,
    unordered: &[String],
    path: &mut Vec<Seg>,
    out: &mut Vec<Difference>,
) {
    match (java, ferry) {
        (Value::Object(j), Value::Object(f)) => {
            for (k, jv) in j {
                path.push(Seg::Key(k.clone()));
                match f.get(k) {
                    Some(fv) => walk(root, jv, fv, unordered, path, out),
                    None => out.push(Difference::new(
                        render(root, path),
                        Kind::JavaOnly,
                        Some(short(jv)),
                        None,
                    )),
                }
                path.pop();
            }
            for (k, fv) in f {
                if !j.contains_key(k) {
                    path.push(Seg::Key(k.clone()));
                    out.push(Difference::new(
                        render(root, path),
                        Kind::FerryOnly,
                        None,
                        Some(short(fv)),
                    ));
                    path.pop();
                }
            }
        }
        (Value::Array(j), Value::Array(f)) if unordered.iter().any(|p| matches(p, path)) => {
            unordered_arrays(root, j, f, unordered, path, out);
        }
        (Value::Array(j), Value::Array(f))
            if (!j.is_empty() || !f.is_empty()) && keys(j).is_some() && keys(f).is_some() =>
        {
            keyed_arrays(root, j, f, unordered, path, out);
        }
        (Value::Array(j), Value::Array(f)) => {
            for i in 0..j.len().max(f.len()) {
                path.push(Seg::Index(i));
                match (j.get(i), f.get(i)) {
                    (Some(jv), Some(fv)) => walk(root, jv, fv, unordered, path, out),
                    (Some(jv), None) => out.push(Difference::new(
                        render(root, path),
                        Kind::JavaOnly,
                        Some(short(jv)),
                        None,
                    )),
                    (None, Some(fv)) => out.push(Difference::new(
                        render(root, path),
                        Kind::FerryOnly,
                        None,
                        Some(short(fv)),
                    )),
                    (None, None) => {}
                }
                path.pop();
            }
        }
        (j, f) if j == f => {}
        (j, f) => out.push(Difference::new(
            render(root, path),
            Kind::Differs,
            Some(short(j)),
            Some(short(f)),
        )),
    }
}

/// The keys of an array's elements when every element has one and no two share it.
fn keys(array: &[Value]) -> Option<Vec<String>> {
    let keys: Vec<String> = array.iter().map(key).collect::<Option<_>>()?;
    let unique: std::collections::BTreeSet<&String> = keys.iter().collect();
    (unique.len() == keys.len()).then_some(keys)
}

/// Arrays of named elements (config keys, validation results, tasks, plugins): elements are
/// paired by name, so one missing element does not shift every later one; the order of the
/// names both have is one difference of its own (`…@order`).
fn keyed_arrays(
    root: &str,
    java: &[Value],
    ferry: &[Value],
    unordered: &[String],
    path: &mut Vec<Seg>,
    out: &mut Vec<Difference>,
) {
    let (jk, fk) = (
        keys(java).unwrap_or_default(),
        keys(ferry).unwrap_or_default(),
    );
    for (j, k) in java.iter().zip(&jk) {
        path.push(Seg::Id(k.clone()));
        match fk.iter().position(|x| x == k) {
            Some(i) => walk(root, j, &ferry[i], unordered, path, out),
            None => out.push(Difference::new(
                render(root, path),
                Kind::JavaOnly,
                Some(short(j)),
                None,
            )),
        }
        path.pop();
    }
    for (f, k) in ferry.iter().zip(&fk) {
        if !jk.contains(k) {
            path.push(Seg::Id(k.clone()));
            out.push(Difference::new(
                render(root, path),
                Kind::FerryOnly,
                None,
                Some(short(f)),
            ));
            path.pop();
        }
    }
    let common_j: Vec<&String> = jk.iter().filter(|k| fk.contains(k)).collect();
    let common_f: Vec<&String> = fk.iter().filter(|k| jk.contains(k)).collect();
    if common_j != common_f {
        let list = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
        out.push(Difference::new(
            format!("{}@order", render(root, path)),
            Kind::Differs,
            Some(list(&common_j)),
            Some(list(&common_f)),
        ));
    }
}

fn unordered_arrays(
    root: &str,
    java: &[Value],
    ferry: &[Value],
    unordered: &[String],
    path: &mut Vec<Seg>,
    out: &mut Vec<Difference>,
) {
    // Equal elements pair off first; what is left is matched by identity.
    let mut left: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for f in ferry {
        left.entry(canonical(f)).or_default().push(f);
    }
    let mut java_left = Vec::new();
    for j in java {
        match left.get_mut(&canonical(j)).and_then(Vec::pop) {
            Some(_) => {}
            None => java_left.push(j),
        }
    }
    let mut ferry_left: Vec<&Value> = left.into_values().flatten().collect();
    // The element's own path segment: arrays of arrays are not expected here.
    for j in java_left {
        let id = identity(j);
        path.push(Seg::Id(id.clone()));
        match ferry_left.iter().position(|f| identity(f) == id) {
            Some(i) => {
                let f = ferry_left.remove(i);
                // Compare inside the pair as ordered (a nested unordered pattern still applies).
                walk(root, j, f, unordered, path, out);
            }
            None => out.push(Difference::new(
                render(root, path),
                Kind::JavaOnly,
                Some(short(j)),
                None,
            )),
        }
        path.pop();
    }
    for f in ferry_left {
        path.push(Seg::Id(identity(f)));
        out.push(Difference::new(
            render(root, path),
            Kind::FerryOnly,
            None,
            Some(short(f)),
        ));
        path.pop();
    }
}

/// One entry of `accepted-differences.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    /// Scenario name; `*` wildcards allowed.
    pub scenario: String,
    /// Step id; `*` wildcards allowed.
    pub step: String,
    /// Difference path (`@status`, `body.message`, …); `*` wildcards allowed.
    pub path: String,
    /// `differs`, `ferry-only` or `java-only`; any when absent.
    pub kind: Option<String>,
    /// What Java showed there, as the report prints it (`500`, `"text"`); `*` wildcards allowed.
    pub java: Option<String>,
    /// What Ferry showed there, likewise.
    pub ferry: Option<String>,
    pub reason: String,
    /// Timing-dependent: not reported as stale when it did not occur in a run.
    #[serde(default)]
    pub occasional: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AcceptedFile {
    #[serde(default)]
    difference: Vec<Accepted>,
}

impl Accepted {
    pub fn parse_file(text: &str) -> anyhow::Result<Vec<Accepted>> {
        let file: AcceptedFile = toml::from_str(text).context("accepted differences")?;
        for a in &file.difference {
            if let Some(k) = &a.kind {
                anyhow::ensure!(
                    ["differs", "ferry-only", "java-only"].contains(&k.as_str()),
                    "accepted difference {}/{}/{}: unknown kind {k}",
                    a.scenario,
                    a.step,
                    a.path
                );
            }
            anyhow::ensure!(
                !a.reason.trim().is_empty(),
                "accepted difference {}/{}/{} has no reason",
                a.scenario,
                a.step,
                a.path
            );
        }
        Ok(file.difference)
    }

    pub fn load(path: &Path) -> anyhow::Result<Vec<Accepted>> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Accepted::parse_file(&text)
    }

    pub fn covers(&self, scenario: &str, step: &str, d: &Difference) -> bool {
        d.kind != Kind::Broken
            && glob(&self.scenario, scenario)
            && glob(&self.step, step)
            && glob(&self.path, &d.path)
            && self.kind.as_deref().is_none_or(|k| k == d.kind.label())
            && value_matches(self.java.as_deref(), d.java.as_deref())
            && value_matches(self.ferry.as_deref(), d.ferry.as_deref())
    }
}

fn value_matches(pattern: Option<&str>, value: Option<&str>) -> bool {
    match (pattern, value) {
        (None, _) => true,
        (Some(p), Some(v)) => glob(p, v),
        (Some(p), None) => p.is_empty(),
    }
}

/// `*` matches any run of characters; everything else matches itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first)
        || !text[first.len()..].ends_with(last)
        || text.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// Marks the differences `accepted` explains; returns, per accepted entry, whether it was used.
pub fn apply_accepted(
    scenario: &str,
    step: &str,
    diffs: &mut [Difference],
    accepted: &[Accepted],
    used: &mut [bool],
) {
    for d in diffs.iter_mut() {
        if let Some(i) = accepted.iter().position(|a| a.covers(scenario, step, d)) {
            d.accepted = Some(accepted[i].reason.clone());
            used[i] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reports_paths_and_kinds() {
        let j = json!({"name": "a", "tasks": [{"id": 0, "state": "RUNNING"}], "type": "source"});
        let f = json!({"name": "a", "tasks": [{"id": 0, "state": "FAILED"}], "extra": 1});
        let d = diff_values("body", &j, &f, &[]);
        assert_eq!(
            d.iter()
                .map(|d| (d.path.as_str(), d.kind))
                .collect::<Vec<_>>(),
            vec![
                ("body.tasks[0].state", Kind::Differs),
                ("body.type", Kind::JavaOnly),
                ("body.extra", Kind::FerryOnly)
            ]
        );
    }

    #[test]
    fn unordered_arrays_match_elements_by_identity() {
        let j = json!([{"class": "A", "version": "1"}, {"class": "B"}, {"class": "M"}]);
        let f = json!([{"class": "B"}, {"class": "A", "version": "2"}, {"class": "F"}]);
        let d = diff_values("body", &j, &f, &[String::new()]);
        assert_eq!(
            d.iter()
                .map(|d| (d.path.as_str(), d.kind))
                .collect::<Vec<_>>(),
            vec![
                ("body[A].version", Kind::Differs),
                ("body[M]", Kind::JavaOnly),
                ("body[F]", Kind::FerryOnly)
            ]
        );
        assert!(diff_values(
            "body",
            &json!(["b", "a"]),
            &json!(["a", "b"]),
            &[String::new()]
        )
        .is_empty());
    }

    #[test]
    fn globs() {
        assert!(glob("*", "anything"));
        assert!(glob("body.*", "body.message"));
        assert!(glob(
            "body[org.apache.kafka.connect.mirror.*]",
            "body[org.apache.kafka.connect.mirror.MirrorSourceConnector]"
        ));
        assert!(!glob("body.*", "@status"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "ac"));
        assert!(glob("@status", "@status"));
    }
}
