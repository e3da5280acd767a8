//! The comparer on recorded answers, without any worker: a deliberately wrong Ferry answer fails
//! the suite, a difference the accepted-differences file explains does not, and an accepted
//! difference that no longer occurs fails it too.

use std::path::{Path, PathBuf};

use ferry_compat::runner::recheck;
use ferry_compat::{Accepted, Kind, Scenario};
use serde_json::{json, Value};

/// A run directory holding `answers/<scenario>.json`, as a real run records them.
fn recorded(run: &str, scenario: &str, steps: Value) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("ferry-compat-test-{}", std::process::id()))
        .join(run);
    std::fs::create_dir_all(dir.join("answers")).unwrap();
    std::fs::write(
        dir.join("answers").join(format!("{scenario}.json")),
        steps.to_string(),
    )
    .unwrap();
    dir
}

fn accepted() -> Vec<Accepted> {
    Accepted::load(&ferry_compat::default_accepted_file()).unwrap()
}

const CREATE: &str = r#"
description = "create a connector"
[[step]]
id = "create"
call = "POST /connectors"
body = { name = "{name}", config = { "connector.class" = "FileStreamSource", topic = "{topic}" } }
"#;

fn created(status: u16) -> Value {
    json!({
        "status": status,
        "location": "http://{worker}/connectors/{name}",
        "body": {"name": "{name}", "config": {"connector.class": "FileStreamSource", "topic": "{topic}", "name": "{name}"}, "tasks": [{"connector": "{name}", "task": 0}], "type": "source"}
    })
}

#[test]
fn a_wrong_status_code_from_ferry_fails_the_suite() {
    let scenario = Scenario::parse("create-once", CREATE).unwrap().remove(0);
    let dir = recorded(
        "wrongstatus",
        "create-once",
        json!([{"step": "create", "java": created(201), "ferry": created(200)}]),
    );
    let report = recheck(&dir, &[scenario], &accepted()).unwrap();
    assert!(!report.passed(), "{}", report.table());
    let unaccepted = report.unaccepted();
    assert_eq!(unaccepted.len(), 1, "{}", report.details(false));
    let (scenario, step, d) = unaccepted[0];
    assert_eq!(
        (scenario, step.id.as_str(), d.path.as_str(), d.kind),
        ("create-once", "create", "@status", Kind::Differs)
    );
    assert_eq!(
        (d.java.as_deref(), d.ferry.as_deref()),
        (Some("201"), Some("200"))
    );
    assert!(report.table().contains("DIFFERS"), "{}", report.table());
    assert!(
        report.table().trim_end().ends_with("FAIL"),
        "{}",
        report.table()
    );
}

#[test]
fn the_same_answers_pass() {
    let scenario = Scenario::parse("create-once", CREATE).unwrap().remove(0);
    let dir = recorded(
        "same",
        "create-once",
        json!([{"step": "create", "java": created(201), "ferry": created(201)}]),
    );
    let report = recheck(&dir, &[scenario], &accepted()).unwrap();
    assert!(report.passed(), "{}", report.details(true));
    assert!(report.table().contains("same"), "{}", report.table());
}

const MALFORMED: &str = r#"
description = "malformed bodies"
[[step]]
id = "create-truncated"
call = "POST /connectors"
raw = '{"name": '
"#;

#[test]
fn an_accepted_difference_passes_with_its_reason() {
    let scenario = Scenario::parse("malformed-bodies", MALFORMED)
        .unwrap()
        .remove(0);
    let dir = recorded(
        "accepted",
        "malformed-bodies",
        json!([{
            "step": "create-truncated",
            "java": {"status": 500, "location": null, "body": {"error_code": 500, "message": "Unexpected end-of-input"}},
            "ferry": {"status": 400, "location": null, "body": {"error_code": 400, "message": "Failed to parse the request body as JSON"}},
        }]),
    );
    let report = recheck(&dir, &[scenario], &accepted()).unwrap();
    assert!(report.passed(), "{}", report.details(true));
    let diffs = &report.scenarios[0].steps[0].diffs;
    assert_eq!(diffs.len(), 3, "{diffs:?}");
    assert!(
        diffs.iter().all(|d| d
            .accepted
            .as_deref()
            .is_some_and(|r| r.starts_with("Documented:"))),
        "{diffs:?}"
    );
    assert!(report.table().contains("accepted"), "{}", report.table());
}

#[test]
fn an_accepted_status_difference_must_be_the_accepted_one() {
    // The malformed-bodies entry accepts Java 500 / Ferry 400, not a Ferry 201.
    let scenario = Scenario::parse("malformed-bodies", MALFORMED)
        .unwrap()
        .remove(0);
    let dir = recorded(
        "acceptedwrong",
        "malformed-bodies",
        json!([{
            "step": "create-truncated",
            "java": {"status": 500, "location": null, "body": {"error_code": 500, "message": "Unexpected end-of-input"}},
            "ferry": created(201),
        }]),
    );
    let report = recheck(&dir, &[scenario], &accepted()).unwrap();
    assert!(!report.passed());
    assert!(
        report
            .unaccepted()
            .iter()
            .any(|(_, _, d)| d.path == "@status"),
        "{}",
        report.details(false)
    );
}

#[test]
fn an_accepted_difference_that_no_longer_occurs_fails() {
    let scenario = Scenario::parse("malformed-bodies", MALFORMED)
        .unwrap()
        .remove(0);
    let same =
        json!({"status": 400, "location": null, "body": {"error_code": 400, "message": "bad"}});
    let dir = recorded(
        "stale",
        "malformed-bodies",
        json!([{"step": "create-truncated", "java": same, "ferry": same}]),
    );
    let report = recheck(&dir, &[scenario], &accepted()).unwrap();
    assert!(report.unaccepted().is_empty());
    assert!(!report.stale.is_empty());
    assert!(!report.passed());
}

#[test]
fn every_scenario_and_the_accepted_file_parse() {
    let scenarios =
        ferry_compat::scenario::load_all(&ferry_compat::default_scenarios_dir()).unwrap();
    assert!(scenarios.len() >= 15, "{} scenarios", scenarios.len());
    let accepted = accepted();
    for a in &accepted {
        assert!(
            scenarios
                .iter()
                .any(|s| ferry_compat::compare::glob(&a.scenario, &s.name)),
            "accepted difference for unknown scenario {}",
            a.scenario
        );
    }
    assert!(Path::new(&ferry_compat::default_accepted_file()).is_file());
}

const METRICS: &str = r#"
description = "metric names"
profile = "metrics"
[[step]]
id = "scrape"
metrics = "GET /metrics"
"#;

fn scraped(status: u16, body: Value) -> Value {
    json!({"status": status, "location": null, "body": body})
}

#[test]
fn metric_keys_are_paths_that_accepted_differences_can_name() {
    let scenario = Scenario::parse("metrics-keys", METRICS).unwrap().remove(0);
    let dir = recorded(
        "metrickeys",
        "metrics-keys",
        json!([{"step": "scrape",
            "java": scraped(200, json!({"a_total{connector,task}": "counter", "b{}": "gauge", "c{clientid}": "gauge"})),
            "ferry": scraped(200, json!({"a_total{connector,task}": "gauge", "b{}": "gauge", "d{clientid,topic}": "counter"}))}]),
    );
    let accepted = Accepted::parse_file(
        r#"
[[difference]]
scenario = "metrics-keys"
step = "scrape"
path = "body.c{*}"
kind = "java-only"
reason = "Ferry bug, not fixed yet: a test"
"#,
    )
    .unwrap();
    let report = recheck(&dir, &[scenario], &accepted).unwrap();
    let diffs = &report.scenarios[0].steps[0].diffs;
    let seen: Vec<(&str, Kind, bool)> = diffs
        .iter()
        .map(|d| (d.path.as_str(), d.kind, d.accepted.is_some()))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("body.a_total{connector,task}", Kind::Differs, false),
            ("body.c{clientid}", Kind::JavaOnly, true),
            ("body.d{clientid,topic}", Kind::FerryOnly, false),
        ]
    );
}

#[test]
fn a_metrics_endpoint_that_does_not_answer_200_breaks_the_scenario() {
    let scenario = Scenario::parse("metrics-missing", METRICS)
        .unwrap()
        .remove(0);
    let dir = recorded(
        "metricsmissing",
        "metrics-missing",
        json!([{"step": "scrape",
            "java": scraped(200, json!({"b{}": "gauge"})),
            "ferry": scraped(404, json!({"error_code": 404, "message": "HTTP 404 Not Found"}))}]),
    );
    let report = recheck(&dir, &[scenario], &accepted()).unwrap();
    let diffs = &report.scenarios[0].steps[0].diffs;
    assert_eq!(diffs.len(), 1, "{}", report.details(false));
    assert_eq!(
        (diffs[0].path.as_str(), diffs[0].kind),
        ("@status", Kind::Broken)
    );
}
