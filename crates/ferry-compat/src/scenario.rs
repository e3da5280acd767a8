//! Scenarios as data: one TOML file each, an ordered list of steps (see `scenarios/README.md`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Deserialize;
use serde_json::Value;

/// One scenario file.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file's stem: `connectors-crud` for `connectors-crud.toml`.
    pub name: String,
    pub description: String,
    /// Which pair of workers runs it (`default`, or another key of [`crate::workers::PROFILES`]).
    pub profile: String,
    pub steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    description: String,
    #[serde(default = "default_profile")]
    profile: String,
    /// Further profiles to run the same steps in, each as a scenario named `NAME-PROFILE`.
    #[serde(default)]
    also: Vec<String>,
    #[serde(default, rename = "step")]
    steps: Vec<StepFile>,
}

fn default_profile() -> String {
    "default".to_owned()
}

/// A step as written in the file: exactly one action key, plus that action's options.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepFile {
    id: Option<String>,
    note: Option<String>,
    // Actions.
    call: Option<String>,
    wait: Option<String>,
    write_file: Option<String>,
    append_file: Option<String>,
    mkdir: Option<String>,
    produce: Option<String>,
    expect_file_lines: Option<String>,
    expect_topic_records: Option<String>,
    sleep: Option<f64>,
    metrics: Option<String>,
    // Request bodies (call, wait).
    body: Option<toml::Value>,
    json: Option<String>,
    raw: Option<String>,
    content_type: Option<String>,
    expect: Option<u16>,
    // Waits and data checks.
    until: Option<toml::Table>,
    timeout_s: Option<f64>,
    count: Option<usize>,
    // Files and records.
    lines: Option<Vec<String>>,
    values: Option<Vec<String>>,
    // Comparison.
    unordered: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    compare: Option<bool>,
}

/// What a step sends as its body.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    None,
    /// A JSON value (templated strings inside), sent as `application/json`.
    Json(Value),
    /// JSON text, templated and then sent as `application/json`.
    JsonText(String),
    /// Bytes sent as they are, with `content_type` (none when empty).
    Raw {
        text: String,
        content_type: Option<String>,
    },
}

/// A request: `METHOD /path?query` with a body.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: Body,
}

impl Request {
    pub fn describe(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// A condition on an answer: every `(path, test)` must hold (see `condition.rs`).
pub type Until = Vec<(String, Value)>;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Call {
        request: Request,
        /// The status Java must answer (a check of the scenario itself).
        expect: Option<u16>,
    },
    Wait {
        request: Request,
        until: Until,
        timeout_s: f64,
    },
    WriteFile {
        file: String,
        lines: Vec<String>,
        append: bool,
    },
    Mkdir(String),
    Produce {
        topic: String,
        values: Vec<String>,
    },
    ExpectFileLines {
        file: String,
        count: usize,
        timeout_s: f64,
    },
    ExpectTopicRecords {
        topic: String,
        count: usize,
        timeout_s: f64,
    },
    Sleep(f64),
    /// A Prometheus scrape (`GET /metrics`): Java's JMX exporter agent, Ferry's REST port.
    Metrics(Request),
}

/// One step, ready to run on both systems.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The `id` from the file, or the 1-based position.
    pub id: String,
    pub note: Option<String>,
    pub action: Action,
    /// Paths (with `*` wildcards) of arrays compared without regard to order.
    pub unordered: Vec<String>,
    /// Paths (with `*` wildcards) left out of the comparison.
    pub ignore: Vec<String>,
    /// `false`: run on both but compare nothing (set-up steps whose answer is not the point).
    pub compare: bool,
}

impl Step {
    /// What the step does, for reports.
    pub fn describe(&self) -> String {
        match &self.action {
            Action::Call { request, .. } => request.describe(),
            Action::Wait { request, .. } => format!("wait {}", request.describe()),
            Action::WriteFile { file, append, .. } => {
                format!("{} {file}", if *append { "append" } else { "write" })
            }
            Action::Mkdir(d) => format!("mkdir {d}"),
            Action::Produce { topic, values } => format!("produce {} to {topic}", values.len()),
            Action::ExpectFileLines { file, count, .. } => format!("{count} lines in {file}"),
            Action::ExpectTopicRecords { topic, count, .. } => {
                format!("{count} records in {topic}")
            }
            Action::Sleep(s) => format!("sleep {s}s"),
            Action::Metrics(request) => format!("metrics {}", request.describe()),
        }
    }
}

/// How long a wait or data check may take unless the step says otherwise.
pub const DEFAULT_TIMEOUT_S: f64 = 60.0;

fn parse_request(text: &str, step: &StepFile) -> anyhow::Result<Request> {
    let (method, path) = text
        .trim()
        .split_once(' ')
        .with_context(|| format!("`{text}` is not `METHOD /path`"))?;
    let path = path.trim();
    if !path.starts_with('/') {
        bail!("`{text}`: the path must start with /");
    }
    let bodies = [step.body.is_some(), step.json.is_some(), step.raw.is_some()];
    if bodies.iter().filter(|b| **b).count() > 1 {
        bail!("`{text}`: give at most one of body, json and raw");
    }
    if step.content_type.is_some() && step.raw.is_none() {
        bail!("`{text}`: content_type goes with raw");
    }
    let body = if let Some(b) = &step.body {
        Body::Json(serde_json::to_value(b).context("converting the TOML body to JSON")?)
    } else if let Some(j) = &step.json {
        // Placeholders only occur inside strings, so the text must already be JSON.
        serde_json::from_str::<Value>(j).with_context(|| format!("`{text}`: json is not JSON"))?;
        Body::JsonText(j.clone())
    } else if let Some(r) = &step.raw {
        Body::Raw {
            text: r.clone(),
            content_type: match step.content_type.as_deref() {
                None => Some("application/json".to_owned()),
                Some("") => None,
                Some(c) => Some(c.to_owned()),
            },
        }
    } else {
        Body::None
    };
    Ok(Request {
        method: method.trim().to_owned(),
        path: path.to_owned(),
        body,
    })
}

fn convert(index: usize, step: StepFile) -> anyhow::Result<Step> {
    let actions = [
        step.call.is_some(),
        step.wait.is_some(),
        step.write_file.is_some(),
        step.append_file.is_some(),
        step.mkdir.is_some(),
        step.produce.is_some(),
        step.expect_file_lines.is_some(),
        step.expect_topic_records.is_some(),
        step.sleep.is_some(),
        step.metrics.is_some(),
    ];
    if actions.iter().filter(|a| **a).count() != 1 {
        bail!("a step needs exactly one of call, wait, write_file, append_file, mkdir, produce, expect_file_lines, expect_topic_records, sleep, metrics");
    }
    let timeout_s = step.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    let needs_count = |what: &str| step.count.with_context(|| format!("{what} needs a count"));
    let action = if let Some(c) = &step.call {
        Action::Call {
            request: parse_request(c, &step)?,
            expect: step.expect,
        }
    } else if let Some(w) = &step.wait {
        let until = step
            .until
            .as_ref()
            .context("a wait needs `until`")?
            .iter()
            .map(|(k, v)| Ok((k.clone(), serde_json::to_value(v)?)))
            .collect::<anyhow::Result<Until>>()?;
        Action::Wait {
            request: parse_request(w, &step)?,
            until,
            timeout_s,
        }
    } else if let Some(f) = step.write_file.as_ref().or(step.append_file.as_ref()) {
        Action::WriteFile {
            file: f.clone(),
            lines: step
                .lines
                .clone()
                .context("write_file and append_file need lines")?,
            append: step.append_file.is_some(),
        }
    } else if let Some(d) = &step.mkdir {
        Action::Mkdir(d.clone())
    } else if let Some(t) = &step.produce {
        Action::Produce {
            topic: t.clone(),
            values: step.values.clone().context("produce needs values")?,
        }
    } else if let Some(f) = &step.expect_file_lines {
        Action::ExpectFileLines {
            file: f.clone(),
            count: needs_count("expect_file_lines")?,
            timeout_s,
        }
    } else if let Some(t) = &step.expect_topic_records {
        Action::ExpectTopicRecords {
            topic: t.clone(),
            count: needs_count("expect_topic_records")?,
            timeout_s,
        }
    } else if let Some(m) = &step.metrics {
        let request = parse_request(m, &step)?;
        if request.method != "GET" {
            bail!("`{m}`: metrics are scraped with GET");
        }
        Action::Metrics(request)
    } else {
        Action::Sleep(step.sleep.unwrap_or_default())
    };
    let is_request = matches!(action, Action::Call { .. } | Action::Wait { .. });
    if !is_request
        && (step.body.is_some()
            || step.json.is_some()
            || step.raw.is_some()
            || step.expect.is_some())
    {
        bail!("body, json, raw and expect only go with call and wait");
    }
    Ok(Step {
        id: step.id.unwrap_or_else(|| (index + 1).to_string()),
        note: step.note,
        action,
        unordered: step.unordered.unwrap_or_default(),
        ignore: step.ignore.unwrap_or_default(),
        compare: step.compare.unwrap_or(true),
    })
}

impl Scenario {
    /// Parses one scenario file's text (`name` is its file stem): its scenario, then one more
    /// per profile in `also`.
    pub fn parse(name: &str, text: &str) -> anyhow::Result<Vec<Scenario>> {
        let file: ScenarioFile =
            toml::from_str(text).with_context(|| format!("scenario {name}"))?;
        let steps = file
            .steps
            .into_iter()
            .enumerate()
            .map(|(i, s)| convert(i, s).with_context(|| format!("scenario {name}, step {}", i + 1)))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut ids = std::collections::HashSet::new();
        for s in &steps {
            if !ids.insert(s.id.clone()) {
                bail!("scenario {name}: two steps have the id {}", s.id);
            }
        }
        for profile in std::iter::once(&file.profile).chain(&file.also) {
            if !crate::workers::PROFILES.iter().any(|(p, _)| p == profile) {
                bail!("scenario {name}: unknown profile {profile}");
            }
        }
        let metrics = crate::workers::METRICS_PROFILE;
        let has_metrics = steps.iter().any(|s| matches!(s.action, Action::Metrics(_)));
        if has_metrics && (file.profile != metrics || !file.also.is_empty()) {
            // Only that profile's Java worker runs the metrics agent.
            bail!("scenario {name}: metrics steps need profile = \"{metrics}\" (and no other)");
        }
        let mut scenarios = vec![Scenario {
            name: name.to_owned(),
            description: file.description.clone(),
            profile: file.profile,
            steps: steps.clone(),
        }];
        for profile in file.also {
            scenarios.push(Scenario {
                name: format!("{name}-{profile}"),
                description: format!("{} ({profile})", file.description),
                profile,
                steps: steps.clone(),
            });
        }
        Ok(scenarios)
    }

    pub fn load(path: &Path) -> anyhow::Result<Vec<Scenario>> {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .context("scenario file name")?;
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Scenario::parse(name, &text)
    }
}

/// The `*.toml` files of `dir`, sorted by name.
pub fn scenario_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Every scenario of `dir`.
pub fn load_all(dir: &Path) -> anyhow::Result<Vec<Scenario>> {
    let mut all = Vec::new();
    for file in scenario_files(dir)? {
        all.extend(Scenario::load(&file)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_steps_of_every_kind() {
        let s = Scenario::parse(
            "x",
            r#"
description = "d"
[[step]]
id = "create"
call = "POST /connectors"
body = { name = "{name}", config = { "connector.class" = "FileStreamSource" } }
expect = 201
[[step]]
wait = "GET /connectors/{name}/status"
until = { "connector.state" = "RUNNING", "tasks.#" = 1 }
timeout_s = 5
[[step]]
call = "PUT /connectors/{name}/config"
raw = '{"bad'
[[step]]
call = "PATCH /connectors/{name}/config"
json = '{"a": null}'
[[step]]
write_file = "{dir}/in.txt"
lines = ["a", "b"]
[[step]]
expect_topic_records = "{topic}"
count = 2
"#,
        )
        .unwrap()
        .remove(0);
        assert_eq!(s.steps.len(), 6);
        assert_eq!(s.steps[0].id, "create");
        assert_eq!(s.steps[1].id, "2");
        match &s.steps[2].action {
            Action::Call { request, .. } => assert_eq!(
                request.body,
                Body::Raw {
                    text: "{\"bad".into(),
                    content_type: Some("application/json".into())
                }
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(s.steps[1].action, Action::Wait { timeout_s, .. } if timeout_s == 5.0));
    }

    #[test]
    fn metrics_steps_are_gets_in_the_metrics_profile() {
        let ok =
            "description = \"d\"\nprofile = \"metrics\"\n[[step]]\nmetrics = \"GET /metrics\"\n";
        let s = &Scenario::parse("x", ok).unwrap()[0];
        assert_eq!(s.steps[0].describe(), "metrics GET /metrics");
        let default = ok.replace("profile = \"metrics\"\n", "");
        assert!(Scenario::parse("x", &default).is_err());
        assert!(Scenario::parse("x", &ok.replace("GET", "POST")).is_err());
        let body = format!("{ok}body = {{ a = 1 }}\n");
        assert!(Scenario::parse("x", &body).is_err());
    }

    #[test]
    fn also_runs_the_steps_in_more_profiles() {
        let text = "description = \"d\"\nalso = [\"distributed\"]\n[[step]]\ncall = \"GET /\"\n";
        let all = Scenario::parse("x", text).unwrap();
        let names: Vec<(&str, &str)> = all
            .iter()
            .map(|s| (s.name.as_str(), s.profile.as_str()))
            .collect();
        assert_eq!(names, [("x", "default"), ("x-distributed", "distributed")]);
        assert_eq!(all[1].steps, all[0].steps);
        assert!(Scenario::parse("x", &text.replace("distributed", "nope")).is_err());
    }

    #[test]
    fn refuses_steps_with_two_actions_or_none() {
        let two = "description = \"d\"\n[[step]]\ncall = \"GET /\"\nsleep = 1.0\n";
        assert!(Scenario::parse("x", two).is_err());
        let none = "description = \"d\"\n[[step]]\nid = \"a\"\n";
        assert!(Scenario::parse("x", none).is_err());
        let typo = "description = \"d\"\n[[step]]\ncall = \"GET /\"\nexpcet = 200\n";
        assert!(Scenario::parse("x", typo).is_err());
    }
}
