//! Runs scenarios against both workers, step by step, and compares what each observed.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::Value;

use crate::compare::{apply_accepted, diff_values, Accepted, Difference, Kind};
use crate::condition::holds;
use crate::http::{request, Answer};
use crate::normalize::{default_unordered, normalize};
use crate::report::{ScenarioRecord, StepRecord, SuiteReport};
use crate::scenario::{Action, Body, Request, Scenario, Step};
use crate::template::{placeholders, Names, System};
use crate::workers::{members, Worker, WorkerSetup};

/// How long one REST request may take; every request of the suite answers within seconds.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What one system showed for one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Observation {
    /// The answer to a `call`.
    Answer(Answer),
    /// A `wait`: the last answer, and whether the condition held before the deadline.
    Waited {
        answer: Option<Answer>,
        reached: bool,
    },
    /// A data check: lines or records (physical names still in), and whether `count` arrived.
    Data { items: Vec<String>, reached: bool },
    /// A step that only does something (files, records, sleeping).
    Done,
    /// The runner could not carry the step out.
    Error(String),
}

/// One system's side of one scenario.
pub struct SystemContext<'a> {
    pub system: System,
    pub port: u16,
    /// Where `metrics` steps scrape (see [`Endpoint::metrics_port`]).
    pub metrics_port: Option<u16>,
    pub names: Names,
    pub dir: PathBuf,
    pub bootstrap: &'a str,
}

fn send(ctx: &SystemContext<'_>, req: &Request) -> anyhow::Result<Answer> {
    let path = ctx.names.substitute(&req.path);
    let body = match &req.body {
        Body::None => None,
        Body::Json(v) => Some((
            ctx.names.substitute_json(v).to_string(),
            Some("application/json".to_owned()),
        )),
        Body::JsonText(t) => Some((ctx.names.substitute(t), Some("application/json".to_owned()))),
        Body::Raw { text, content_type } => {
            Some((ctx.names.substitute(text), content_type.clone()))
        }
    };
    request(
        ctx.port,
        &req.method,
        &path,
        body.as_ref().map(|(t, c)| (t.as_str(), c.as_deref())),
        REQUEST_TIMEOUT,
    )
}

/// Complete lines of a file (a last line without its newline is still being written).
fn file_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match text.rfind('\n') {
        Some(end) => text[..end].split('\n').map(str::to_owned).collect(),
        None => Vec::new(),
    }
}

fn seconds(s: f64) -> Duration {
    Duration::from_secs_f64(s.max(0.0))
}

/// Carries out `step` on one system.
pub fn observe(step: &Step, ctx: &SystemContext<'_>) -> Observation {
    let result: anyhow::Result<Observation> = (|| {
        Ok(match &step.action {
            Action::Call { request, .. } => Observation::Answer(send(ctx, request)?),
            Action::Wait {
                request,
                until,
                timeout_s,
            } => {
                let deadline = Instant::now() + seconds(*timeout_s);
                let unordered = unordered_for(step, request);
                loop {
                    let answer = send(ctx, request)?;
                    let body = normalize(&answer.body, &ctx.names, &unordered, &step.ignore);
                    if holds(answer.status, &body, until) {
                        break Observation::Waited {
                            answer: Some(answer),
                            reached: true,
                        };
                    }
                    if Instant::now() > deadline {
                        break Observation::Waited {
                            answer: Some(answer),
                            reached: false,
                        };
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
            Action::WriteFile {
                file,
                lines,
                append,
            } => {
                use std::io::Write;
                let path = ctx.names.substitute(file);
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(*append)
                    .write(true)
                    .truncate(!*append)
                    .open(&path)
                    .with_context(|| format!("opening {path}"))?;
                for l in lines {
                    writeln!(f, "{}", ctx.names.substitute(l))?;
                }
                Observation::Done
            }
            Action::Mkdir(d) => {
                std::fs::create_dir_all(ctx.names.substitute(d))?;
                Observation::Done
            }
            Action::Produce { topic, values } => {
                let values: Vec<String> = values.iter().map(|v| ctx.names.substitute(v)).collect();
                crate::kafka::produce(ctx.bootstrap, &ctx.names.substitute(topic), &values)?;
                Observation::Done
            }
            Action::ExpectFileLines {
                file,
                count,
                timeout_s,
            } => {
                let path = PathBuf::from(ctx.names.substitute(file));
                let deadline = Instant::now() + seconds(*timeout_s);
                let mut reached = false;
                while Instant::now() < deadline {
                    if file_lines(&path).len() >= *count {
                        reached = true;
                        // Lines beyond `count` (duplicates) show too.
                        std::thread::sleep(Duration::from_millis(500));
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Observation::Data {
                    items: file_lines(&path),
                    reached,
                }
            }
            Action::ExpectTopicRecords {
                topic,
                count,
                timeout_s,
            } => {
                let items = crate::kafka::read(
                    ctx.bootstrap,
                    &ctx.names.substitute(topic),
                    *count,
                    seconds(*timeout_s),
                )?;
                Observation::Data {
                    reached: items.len() >= *count,
                    items,
                }
            }
            Action::Sleep(s) => {
                std::thread::sleep(seconds(*s));
                Observation::Done
            }
            Action::Metrics(request) => {
                let port = ctx.metrics_port.with_context(|| {
                    format!("the {} worker serves no metrics", ctx.system.label())
                })?;
                let path = ctx.names.substitute(&request.path);
                let (status, text) =
                    crate::http::get_text(port, &path, crate::metrics::ACCEPT, REQUEST_TIMEOUT)?;
                // The scrape in full (label values too), for reading a difference; the answers
                // file keeps only what is compared.
                let _ = std::fs::write(ctx.dir.join(format!("metrics-{}.prom", step.id)), &text);
                let body = if status == 200 {
                    crate::metrics::body(&text, &ctx.names)
                        .with_context(|| format!("the metrics at port {port}{path}"))?
                } else {
                    serde_json::from_str(&text).unwrap_or(Value::String(text))
                };
                Observation::Answer(Answer::new(status, body))
            }
        })
    })();
    result.unwrap_or_else(|e| Observation::Error(format!("{e:#}")))
}

fn unordered_for(step: &Step, request: &Request) -> Vec<String> {
    let mut u = step.unordered.clone();
    u.extend(default_unordered(&request.method, &request.path));
    u
}

fn compare_answers(
    step: &Step,
    request: &Request,
    java: &Answer,
    ferry: &Answer,
    jn: &Names,
    fnames: &Names,
    out: &mut Vec<Difference>,
) {
    if java.status != ferry.status {
        out.push(Difference::new(
            "@status",
            Kind::Differs,
            Some(java.status.to_string()),
            Some(ferry.status.to_string()),
        ));
    }
    let jl = java.location.as_deref().map(|l| jn.unsubstitute(l));
    let fl = ferry.location.as_deref().map(|l| fnames.unsubstitute(l));
    match (&jl, &fl) {
        (Some(j), Some(f)) if j != f => out.push(Difference::new(
            "@location",
            Kind::Differs,
            jl.clone(),
            fl.clone(),
        )),
        (Some(_), None) => out.push(Difference::new(
            "@location",
            Kind::JavaOnly,
            jl.clone(),
            None,
        )),
        (None, Some(_)) => out.push(Difference::new(
            "@location",
            Kind::FerryOnly,
            None,
            fl.clone(),
        )),
        _ => {}
    }
    let unordered = unordered_for(step, request);
    let jb = normalize(&java.body, jn, &unordered, &step.ignore);
    let fb = normalize(&ferry.body, fnames, &unordered, &step.ignore);
    out.extend(diff_values("body", &jb, &fb, &unordered));
}

fn reached_diff(what: &str, java: bool, ferry: bool, out: &mut Vec<Difference>) {
    match (java, ferry) {
        (true, true) => {}
        (false, false) => out.push(Difference::broken(
            "@reached",
            format!("neither system reached {what}"),
        )),
        (true, false) => out.push(Difference::new(
            "@reached",
            Kind::JavaOnly,
            Some(format!("reached {what}")),
            Some("timed out".into()),
        )),
        (false, true) => out.push(Difference::new(
            "@reached",
            Kind::FerryOnly,
            Some("timed out".into()),
            Some(format!("reached {what}")),
        )),
    }
}

/// The differences between what Java and Ferry showed for `step` (acceptance not applied).
pub fn compare_step(
    step: &Step,
    java: &Observation,
    ferry: &Observation,
    jn: &Names,
    fnames: &Names,
) -> Vec<Difference> {
    let mut out = Vec::new();
    if let Observation::Error(e) = java {
        out.push(Difference::broken("@error", format!("Java: {e}")));
    }
    if let Observation::Error(e) = ferry {
        out.push(Difference::broken("@error", format!("Ferry: {e}")));
    }
    if !out.is_empty() {
        return out;
    }
    match (&step.action, java, ferry) {
        (Action::Call { request, expect }, Observation::Answer(j), Observation::Answer(f)) => {
            if let Some(e) = expect {
                if j.status != *e {
                    out.push(Difference::broken(
                        "@expect",
                        format!(
                            "the scenario expects {e}, Java answered {}: {}",
                            j.status, j.body
                        ),
                    ));
                }
            }
            if step.compare {
                compare_answers(step, request, j, f, jn, fnames, &mut out);
            }
        }
        (
            Action::Wait { request, .. },
            Observation::Waited {
                answer: ja,
                reached: jr,
            },
            Observation::Waited {
                answer: fa,
                reached: fr,
            },
        ) => {
            reached_diff("the condition", *jr, *fr, &mut out);
            if let Some(Difference {
                kind: Kind::Broken,
                java: detail,
                ..
            }) = out.last_mut()
            {
                let last = |a: &Option<Answer>| {
                    a.as_ref().map_or("no answer".to_owned(), |a| {
                        format!("{} {}", a.status, a.body)
                    })
                };
                *detail = Some(format!(
                    "neither system reached the condition; Java's last answer: {}; Ferry's: {}",
                    last(ja),
                    last(fa)
                ));
            }
            if let (true, Some(j), Some(f)) = (step.compare, ja, fa) {
                compare_answers(step, request, j, f, jn, fnames, &mut out);
            }
        }
        (
            _,
            Observation::Data {
                items: ji,
                reached: jr,
            },
            Observation::Data {
                items: fi,
                reached: fr,
            },
        ) => {
            reached_diff(
                &format!(
                    "the expected count (Java has {}, Ferry {})",
                    ji.len(),
                    fi.len()
                ),
                *jr,
                *fr,
                &mut out,
            );
            if step.compare {
                let j: Vec<Value> = ji
                    .iter()
                    .map(|s| Value::String(jn.unsubstitute(s)))
                    .collect();
                let f: Vec<Value> = fi
                    .iter()
                    .map(|s| Value::String(fnames.unsubstitute(s)))
                    .collect();
                out.extend(diff_values(
                    "data",
                    &Value::Array(j),
                    &Value::Array(f),
                    &step.unordered,
                ));
            }
        }
        (Action::Metrics(request), Observation::Answer(j), Observation::Answer(f)) => {
            for (system, a) in [("Java", j), ("Ferry", f)] {
                if a.status != 200 {
                    out.push(Difference::broken(
                        "@status",
                        format!(
                            "{system} answered {} to {}: {}",
                            a.status,
                            request.describe(),
                            a.body
                        ),
                    ));
                }
            }
            if out.is_empty() && step.compare {
                compare_answers(step, request, j, f, jn, fnames, &mut out);
            }
        }
        (_, Observation::Done, Observation::Done) => {}
        (_, j, f) => out.push(Difference::broken(
            "@error",
            format!("unexpected observations {j:?} / {f:?}"),
        )),
    }
    out
}

/// An observation as JSON, physical names mapped back.
pub fn observation_json(o: &Observation, names: &Names) -> Value {
    let answer = |a: &Answer| {
        serde_json::json!({
            "status": a.status,
            "location": a.location.as_deref().map(|l| names.unsubstitute(l)),
            "body": names.unsubstitute_json(&a.body),
        })
    };
    match o {
        Observation::Answer(a) => answer(a),
        Observation::Waited { answer: a, reached } => {
            serde_json::json!({"reached": reached, "last": a.as_ref().map(answer)})
        }
        Observation::Data { items, reached } => serde_json::json!({
            "reached": reached,
            "items": items.iter().map(|i| names.unsubstitute(i)).collect::<Vec<_>>(),
        }),
        Observation::Done => Value::String("done".into()),
        Observation::Error(e) => serde_json::json!({"error": e}),
    }
}

/// The inverse of [`observation_json`].
pub fn observation_from_json(v: &Value) -> Observation {
    let answer = |a: &Value| Answer {
        status: a["status"]
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(0),
        location: a["location"].as_str().map(str::to_owned),
        body: a["body"].clone(),
    };
    if v.as_str() == Some("done") {
        Observation::Done
    } else if let Some(e) = v.get("error") {
        Observation::Error(e.as_str().unwrap_or_default().to_owned())
    } else if let Some(items) = v.get("items") {
        Observation::Data {
            items: items
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|i| i.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            reached: v["reached"].as_bool().unwrap_or(false),
        }
    } else if v.get("reached").is_some() {
        Observation::Waited {
            answer: v.get("last").filter(|l| !l.is_null()).map(answer),
            reached: v["reached"].as_bool().unwrap_or(false),
        }
    } else {
        Observation::Answer(answer(v))
    }
}

/// Compares again what an earlier run recorded in `run_dir/answers` (names already mapped
/// back), with the scenarios and accepted differences as they are now: for working on the
/// accepted-differences file without starting any worker.
pub fn recheck(
    run_dir: &Path,
    scenarios: &[Scenario],
    accepted: &[Accepted],
) -> anyhow::Result<SuiteReport> {
    let run = run_dir
        .file_name()
        .and_then(|n| n.to_str())
        .context("the run directory's name is the run id")?
        .to_owned();
    let mut records = Vec::new();
    for scenario in scenarios {
        let path = run_dir
            .join("answers")
            .join(format!("{}.json", scenario.name));
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let answers: Vec<Value> = serde_json::from_str(&text)?;
        let names = |system| {
            Names::new(
                &run,
                &scenario.name,
                system,
                Path::new(""),
                &[],
                &BTreeSet::new(),
            )
        };
        let (jn, fnames) = (names(System::Java), names(System::Ferry));
        let mut steps = Vec::new();
        for step in &scenario.steps {
            let Some(a) = answers.iter().find(|a| a["step"] == step.id.as_str()) else {
                bail!(
                    "{} has no answers for step {} of {}",
                    path.display(),
                    step.id,
                    scenario.name
                );
            };
            let (java, ferry) = (
                observation_from_json(&a["java"]),
                observation_from_json(&a["ferry"]),
            );
            steps.push(StepRecord {
                id: step.id.clone(),
                what: step.describe(),
                note: step.note.clone(),
                diffs: compare_step(step, &java, &ferry, &jn, &fnames),
            });
        }
        records.push(ScenarioRecord {
            name: scenario.name.clone(),
            description: scenario.description.clone(),
            profile: scenario.profile.clone(),
            steps,
            seconds: 0.0,
        });
    }
    Ok(finish(records, accepted, 0.0, 0.0, run_dir.to_owned()))
}

/// Applies the accepted differences and finds the stale ones.
fn finish(
    mut scenarios: Vec<ScenarioRecord>,
    accepted: &[Accepted],
    startup: f64,
    total: f64,
    work: PathBuf,
) -> SuiteReport {
    scenarios.sort_by(|a, b| a.name.cmp(&b.name));
    let mut used = vec![false; accepted.len()];
    for sc in &mut scenarios {
        for st in &mut sc.steps {
            apply_accepted(&sc.name, &st.id, &mut st.diffs, accepted, &mut used);
        }
    }
    let stale = accepted
        .iter()
        .zip(&used)
        .filter(|(a, used)| {
            !**used
                && !a.occasional
                && scenarios
                    .iter()
                    .any(|s| crate::compare::glob(&a.scenario, &s.name))
        })
        .map(|(a, _)| a.clone())
        .collect();
    SuiteReport {
        scenarios,
        stale,
        startup_seconds: startup,
        total_seconds: total,
        work,
    }
}

/// Where one system's worker of a profile answers.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub system: System,
    /// The REST port scenarios talk to (a follower's, in a cluster).
    pub port: u16,
    /// The worker ids of the system's workers in this profile, `host:port`.
    pub addresses: Vec<String>,
    /// Where it serves Prometheus metrics, if it does.
    pub metrics_port: Option<u16>,
}

/// Runs one scenario against both systems (`workers`: Java's, then Ferry's).
pub fn run_scenario(
    scenario: &Scenario,
    run: &str,
    work: &Path,
    workers: &[Endpoint; 2],
    bootstrap: &str,
) -> ScenarioRecord {
    let start = Instant::now();
    let mut used = BTreeSet::new();
    for step in &scenario.steps {
        used.extend(placeholders(&format!("{:?}", step.action)));
    }
    let contexts: Vec<SystemContext<'_>> = workers
        .iter()
        .map(|w| {
            let dir = work.join(w.system.short()).join(&scenario.name);
            let _ = std::fs::create_dir_all(&dir);
            SystemContext {
                system: w.system,
                port: w.port,
                metrics_port: w.metrics_port,
                names: Names::new(run, &scenario.name, w.system, &dir, &w.addresses, &used),
                dir,
                bootstrap,
            }
        })
        .collect();
    let mut steps = Vec::new();
    let mut answers = Vec::new();
    for step in &scenario.steps {
        let (java, ferry) = std::thread::scope(|s| {
            let j = s.spawn(|| observe(step, &contexts[0]));
            let f = s.spawn(|| observe(step, &contexts[1]));
            (
                j.join()
                    .unwrap_or_else(|_| Observation::Error("panicked".into())),
                f.join()
                    .unwrap_or_else(|_| Observation::Error("panicked".into())),
            )
        });
        let diffs = compare_step(step, &java, &ferry, &contexts[0].names, &contexts[1].names);
        answers.push(serde_json::json!({
            "step": step.id,
            "what": step.describe(),
            "java": observation_json(&java, &contexts[0].names),
            "ferry": observation_json(&ferry, &contexts[1].names),
        }));
        steps.push(StepRecord {
            id: step.id.clone(),
            what: step.describe(),
            note: step.note.clone(),
            diffs,
        });
    }
    // Connectors left behind would only load the workers for the scenarios still running.
    for ctx in &contexts {
        for p in used.iter().filter(|p| p.starts_with("{name")) {
            let _ = request(
                ctx.port,
                "DELETE",
                &format!("/connectors/{}", ctx.names.substitute(p)),
                None,
                REQUEST_TIMEOUT,
            );
        }
    }
    // What each side answered (names mapped back), for reading a difference in full.
    let answers_dir = work.join("answers");
    let _ = std::fs::create_dir_all(&answers_dir);
    let _ = std::fs::write(
        answers_dir.join(format!("{}.json", scenario.name)),
        serde_json::to_string_pretty(&answers).unwrap_or_default(),
    );
    ScenarioRecord {
        name: scenario.name.clone(),
        description: scenario.description.clone(),
        profile: scenario.profile.clone(),
        steps,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Everything a suite run needs.
#[derive(Debug, Clone)]
pub struct Options {
    pub setup: WorkerSetup,
    pub scenarios: Vec<Scenario>,
    pub accepted: Vec<Accepted>,
    /// Scratch space: worker directories, logs, scenario files.
    pub work: PathBuf,
    /// Scenarios run at the same time.
    pub jobs: usize,
}

/// A name part unique to this run, so topics of earlier runs on the same broker never interfere.
fn run_id() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut n = (ms as u64) ^ (u64::from(std::process::id()) << 40);
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    for _ in 0..8 {
        out.push(digits[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Starts one Java and one Ferry worker per profile the scenarios use (all at once), runs every
/// scenario, stops the workers and compares.
pub fn run_suite(opts: &Options) -> anyhow::Result<SuiteReport> {
    let started = Instant::now();
    let status = std::process::Command::new(opts.setup.root.join("scripts/java-connect"))
        .arg("fetch")
        .status()
        .context("running scripts/java-connect fetch")?;
    if !status.success() {
        bail!("scripts/java-connect fetch failed: {status}");
    }
    if !opts.setup.ferry_bin.is_file() {
        bail!(
            "no ferry binary at {}: build it with `cargo build -p ferry-cli`",
            opts.setup.ferry_bin.display()
        );
    }
    let run = run_id();
    let work = opts.work.join(&run);
    let profiles: BTreeSet<&str> = opts.scenarios.iter().map(|s| s.profile.as_str()).collect();
    let mut workers: HashMap<(String, System), Vec<Worker>> = HashMap::new();
    // A cluster's first worker is up before the others join, so it leads the group and the
    // last one, which scenarios talk to, is a follower.
    let most = profiles.iter().map(|p| members(p)).max().unwrap_or(1);
    for member in 0..most {
        for profile in profiles.iter().filter(|p| member < members(p)) {
            for system in System::BOTH {
                let cluster = format!("compat-{run}-{profile}-{}", system.short());
                let dir = work
                    .join("workers")
                    .join(format!("{profile}-{}-{member}", system.short()));
                workers
                    .entry(((*profile).to_owned(), system))
                    .or_default()
                    .push(Worker::spawn(system, profile, &dir, &opts.setup, &cluster)?);
            }
        }
        for w in workers.values_mut().filter_map(|ws| ws.get_mut(member)) {
            w.wait_ready(Duration::from_secs(180))?;
        }
    }
    let startup = started.elapsed();
    eprintln!(
        "ferry-compat: run {run}: {} worker(s) up in {:.1} s; running {} scenario(s) in {}",
        workers.values().map(Vec::len).sum::<usize>(),
        startup.as_secs_f64(),
        opts.scenarios.len(),
        work.display()
    );
    let ports: HashMap<String, [Endpoint; 2]> = profiles
        .iter()
        .map(|p| {
            let side = |s: System| {
                let ws = &workers[&((*p).to_owned(), s)];
                let talk_to = ws.last().expect("every profile runs a worker");
                Endpoint {
                    system: s,
                    port: talk_to.port,
                    addresses: ws.iter().map(Worker::address).collect(),
                    metrics_port: talk_to.metrics_port,
                }
            };
            ((*p).to_owned(), [side(System::Java), side(System::Ferry)])
        })
        .collect();
    let queue = Mutex::new(opts.scenarios.iter().collect::<VecDeque<_>>());
    let records = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(|| loop {
                let Some(scenario) = queue.lock().expect("queue").pop_front() else {
                    break;
                };
                let record = run_scenario(
                    scenario,
                    &run,
                    &work,
                    &ports[&scenario.profile],
                    &opts.setup.bootstrap,
                );
                eprintln!(
                    "ferry-compat: {} done in {:.1} s",
                    record.name, record.seconds
                );
                records.lock().expect("records").push(record);
            });
        }
    });
    for w in workers.values_mut().flatten() {
        w.stop();
    }
    let scenarios = records.into_inner().expect("records");
    Ok(finish(
        scenarios,
        &opts.accepted,
        startup.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        work,
    ))
}
