//! Every `/connectors` endpoint through the real router, herder and worker (no broker needed).

mod support;

use axum::http::StatusCode;
use serde_json::json;
use support::{task_starts, wait_starts, worker};

fn running(s: &serde_json::Value) -> bool {
    s["connector"]["state"] == "RUNNING"
        && s["tasks"]
            .as_array()
            .is_some_and(|t| !t.is_empty() && t.iter().all(|t| t["state"] == "RUNNING"))
}

#[tokio::test]
async fn root_and_health() {
    let w = worker(&[]);
    let (status, body) = w.call("GET", "/", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["kafka_cluster_id"], "cluster-1");
    // The Kafka Connect release Ferry answers as, and Ferry's own version and commit.
    assert_eq!(body["version"], "4.4.0");
    let commit = body["commit"].as_str().unwrap();
    assert!(
        commit.starts_with(&format!("ferry-{}+", env!("CARGO_PKG_VERSION"))),
        "{commit}"
    );
    let (status, body) = w.call("GET", "/health", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."})
    );
}

#[tokio::test]
async fn create_read_and_delete() {
    let w = worker(&[]);
    let (status, body, headers) = w
        .call_full(
            "POST",
            "/connectors",
            Some(r#"{"name":"a b","config":{"connector.class":"IdleSource","tasks.max":2}}"#),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(
        headers["location"],
        "http://localhost:8083/connectors/a%20b"
    );
    assert_eq!(
        body["config"],
        json!({"connector.class": "IdleSource", "tasks.max": "2", "name": "a b"})
    );
    assert_eq!(
        body["tasks"],
        json!([{"connector": "a b", "task": 0}, {"connector": "a b", "task": 1}])
    );
    assert_eq!(body["type"], "source");

    let (status, body) = w
        .call(
            "POST",
            "/connectors",
            Some(r#"{"name":"a b","config":{"connector.class":"IdleSource"}}"#),
        )
        .await;
    assert_eq!(
        (status, body),
        (
            StatusCode::CONFLICT,
            json!({"error_code": 409, "message": "Connector a b already exists"})
        )
    );

    assert_eq!(
        w.call("GET", "/connectors", None).await,
        (StatusCode::OK, json!(["a b"]))
    );
    let (_, info) = w.call("GET", "/connectors/a%20b", None).await;
    assert_eq!(info["name"], "a b");
    let (_, config) = w.call("GET", "/connectors/a%20b/config", None).await;
    assert_eq!(config["name"], "a b");
    let s = w.wait_status("a%20b", "both tasks running", running).await;
    assert_eq!(
        s["tasks"][1],
        json!({"id": 1, "state": "RUNNING", "worker_id": "test-worker:8083", "version": "test"})
    );

    let (status, body) = w
        .call(
            "GET",
            "/connectors?expand=status&expand=info&expand=nothing",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["a b"]["status"]["name"], "a b");
    assert_eq!(body["a b"]["info"]["config"]["tasks.max"], "2");

    let (status, body) = w.call("GET", "/connectors/a%20b/tasks", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body[1]["id"], json!({"connector": "a b", "task": 1}));
    assert_eq!(body[1]["config"]["index"], "1");
    let (status, body) = w
        .call("GET", "/connectors/a%20b/tasks/1/status", None)
        .await;
    assert_eq!(
        (status, body),
        (
            StatusCode::OK,
            json!({"id": 1, "state": "RUNNING", "worker_id": "test-worker:8083", "version": "test"})
        )
    );

    assert_eq!(
        w.call("DELETE", "/connectors/a%20b", None).await.0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(w.call("GET", "/connectors", None).await.1, json!([]));
    for (uri, message) in [
        ("/connectors/a%20b", "Connector a b not found"),
        ("/connectors/a%20b/config", "Connector a b not found"),
        ("/connectors/a%20b/tasks", "Connector a b not found"),
        (
            "/connectors/a%20b/status",
            "No status found for connector a b",
        ),
        (
            "/connectors/a%20b/tasks/0/status",
            "No status found for task a b-0",
        ),
    ] {
        assert_eq!(
            w.call("GET", uri, None).await,
            (
                StatusCode::NOT_FOUND,
                json!({"error_code": 404, "message": message})
            ),
            "{uri}"
        );
    }
    assert_eq!(
        w.call("DELETE", "/connectors/a%20b", None).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn invalid_configs_name_every_problem_and_store_nothing() {
    let w = worker(&[]);
    let (status, body) = w
        .call("POST", "/connectors", Some(r#"{"name":"f","config":{"connector.class":"FileStreamSource","tasks.max":"0","batch.size":"x"}}"#))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Connector configuration is invalid and contains the following 3 error(s):\n"
        ),
        "{message}"
    );
    for part in [
        "Invalid value 0 for configuration tasks.max: Value must be at least 1",
        "Missing required configuration \"topic\" which has no default value.",
        "Invalid value x for configuration batch.size: Not a number of type INT",
        "You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`",
    ] {
        assert!(message.contains(part), "{part} not in {message}");
    }
    let (status, body) = w
        .call(
            "POST",
            "/connectors",
            Some(r#"{"name":"","config":{"connector.class":"IdleSource"}}"#),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Invalid value  for configuration name: String may not be empty"),
        "{body}"
    );
    let (status, body) = w
        .call(
            "POST",
            "/connectors",
            Some(r#"{"name":"n","config":{"tasks.max":"1"}}"#),
        )
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (
            StatusCode::BAD_REQUEST,
            json!("Connector config contains no connector type")
        )
    );
    let (status, body) = w
        .call(
            "POST",
            "/connectors",
            Some(r#"{"name":"n","config":{"connector.class":"com.example.Nope"}}"#),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["message"].as_str().unwrap().starts_with("Failed to find any class that implements Connector and which name matches com.example.Nope"));
    let (status, body) = w
        .call(
            "POST",
            "/connectors",
            Some(r#"{"name":"n","config":{"connector.class":"IdleSource","name":"m"}}"#),
        )
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (
            StatusCode::BAD_REQUEST,
            json!("Connector name configuration (m) doesn't match connector name in the URL (n)")
        )
    );
    assert_eq!(
        w.call("GET", "/connectors", None).await.1,
        json!([]),
        "nothing may be stored for a rejected request"
    );
}

#[tokio::test]
async fn put_and_patch_config() {
    let w = worker(&[]);
    let (status, body, headers) = w
        .call_full(
            "PUT",
            "/connectors/p/config",
            Some(r#"{"connector.class":"IdleSource","tasks.max":"1"}"#),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(headers["location"], "http://localhost:8083/connectors/p");
    let (status, body) = w
        .call(
            "PUT",
            "/connectors/p/config",
            Some(r#"{"connector.class":"IdleSource","tasks.max":"2","extra":"x"}"#),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["tasks"].as_array().unwrap().len(), 2);
    let (status, body) = w
        .call(
            "PATCH",
            "/connectors/p/config",
            Some(r#"{"extra":null,"tasks.max":"3"}"#),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body["config"],
        json!({"connector.class": "IdleSource", "name": "p", "tasks.max": "3"})
    );
    assert_eq!(body["tasks"].as_array().unwrap().len(), 3);
    let (status, body) = w
        .call(
            "PATCH",
            "/connectors/q/config",
            Some(r#"{"tasks.max":"3"}"#),
        )
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Connector q not found"))
    );
    let (status, _) = w
        .call(
            "PATCH",
            "/connectors/p/config",
            Some(r#"{"tasks.max":"0"}"#),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn pause_resume_and_stop() {
    let w = worker(&[]);
    w.create("s", "IdleSource", r#","tasks.max":"2""#).await;
    w.wait_status("s", "tasks running", running).await;

    assert_eq!(
        w.call("PUT", "/connectors/s/pause", None).await,
        (StatusCode::ACCEPTED, serde_json::Value::Null)
    );
    w.wait_status("s", "everything paused", |s| {
        s["connector"]["state"] == "PAUSED"
            && s["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["state"] == "PAUSED")
    })
    .await;
    assert_eq!(
        w.call("PUT", "/connectors/s/resume", None).await.0,
        StatusCode::ACCEPTED
    );
    w.wait_status("s", "everything running again", running)
        .await;

    assert_eq!(
        w.call("PUT", "/connectors/s/stop", None).await.0,
        StatusCode::NO_CONTENT
    );
    let s = w
        .wait_status("s", "the connector stopped", |s| {
            s["connector"]["state"] == "STOPPED"
        })
        .await;
    assert_eq!(s["tasks"], json!([]));
    assert_eq!(
        w.call("GET", "/connectors/s/tasks", None).await.1,
        json!([])
    );
    assert_eq!(
        w.call("GET", "/connectors/s", None).await.1["tasks"],
        json!([])
    );
    // Replacing a stopped connector's config keeps it stopped.
    assert_eq!(
        w.call(
            "PUT",
            "/connectors/s/config",
            Some(r#"{"connector.class":"IdleSource","tasks.max":"1"}"#)
        )
        .await
        .0,
        StatusCode::OK
    );
    assert_eq!(
        w.call("GET", "/connectors/s/status", None).await.1["connector"]["state"],
        "STOPPED"
    );
    assert_eq!(
        w.call("PUT", "/connectors/s/resume", None).await.0,
        StatusCode::ACCEPTED
    );
    let s = w
        .wait_status("s", "the connector running after a stop", running)
        .await;
    assert_eq!(s["tasks"].as_array().unwrap().len(), 1);

    for verb in ["pause", "resume"] {
        let (status, body) = w
            .call("PUT", &format!("/connectors/nope/{verb}"), None)
            .await;
        assert_eq!(
            (status, body["message"].clone()),
            (StatusCode::NOT_FOUND, json!("Unknown connector nope"))
        );
    }
    // Java answers 500 here (its standalone store's accident); it is the client's mistake.
    let (status, body) = w.call("PUT", "/connectors/nope/stop", None).await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Unknown connector nope"))
    );
}

#[tokio::test]
async fn initial_state_paused_and_stopped() {
    let w = worker(&[]);
    let (status, _) = w.call("POST", "/connectors", Some(r#"{"name":"p","config":{"connector.class":"IdleSource"},"initial_state":"PAUSED"}"#)).await;
    assert_eq!(status, StatusCode::CREATED);
    // As in Java, a connector created paused has no tasks until it is resumed.
    w.wait_status("p", "the paused connector", |s| {
        s["connector"]["state"] == "PAUSED" && s["tasks"] == json!([])
    })
    .await;
    assert_eq!(
        w.call("PUT", "/connectors/p/resume", None).await.0,
        StatusCode::ACCEPTED
    );
    w.wait_status("p", "its task running once resumed", |s| {
        s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING"
    })
    .await;
    let (status, body) = w.call("POST", "/connectors", Some(r#"{"name":"s","config":{"connector.class":"IdleSource"},"initial_state":"stopped"}"#)).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(body["tasks"], json!([]));
    assert_eq!(
        w.call("GET", "/connectors/s/status", None).await.1["connector"]["state"],
        "STOPPED"
    );
}

#[tokio::test]
async fn task_restart() {
    let w = worker(&[]);
    w.create("t", "IdleSource", r#","tasks.max":"2""#).await;
    w.wait_status("t", "tasks running", running).await;
    let before = (task_starts("t", 0), task_starts("t", 1));
    assert_eq!(
        w.call("POST", "/connectors/t/tasks/1/restart", None)
            .await
            .0,
        StatusCode::NO_CONTENT
    );
    wait_starts("t", (before.0, before.1 + 1)).await;
    let (status, body) = w.call("POST", "/connectors/t/tasks/7/restart", None).await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Task t-7 not found"))
    );
    let (status, body) = w.call("POST", "/connectors/u/tasks/0/restart", None).await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Connector u not found"))
    );
    assert_eq!(
        w.call("GET", "/connectors/t/tasks/abc/status", None)
            .await
            .0,
        StatusCode::NOT_FOUND
    );
}

/// KIP-745: which instances each includeTasks/onlyFailed combination restarts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_combinations() {
    let w = worker(&[]);
    w.create(
        "k",
        "test.FailingSourceConnector",
        r#","tasks.max":"2","failing.tasks":"1""#,
    )
    .await;
    let failed = |s: &serde_json::Value| {
        s["connector"]["state"] == "RUNNING"
            && s["tasks"][0]["state"] == "RUNNING"
            && s["tasks"][1]["state"] == "FAILED"
    };
    w.wait_status("k", "task 1 failed", failed).await;
    let starts = || (task_starts("k", 0), task_starts("k", 1));

    // onlyFailed without tasks: the connector is healthy, so nothing restarts.
    let before = starts();
    let (status, body) = w
        .call("POST", "/connectors/k/restart?onlyFailed=true", None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert!(failed(&body), "{body}");
    assert_eq!(starts(), before);

    // Failed tasks only: task 1 shows RESTARTING (keeping its trace) and is started again.
    let (status, body) = w
        .call(
            "POST",
            "/connectors/k/restart?includeTasks=TRUE&onlyFailed=True",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["connector"]["state"], "RUNNING");
    assert_eq!(body["tasks"][0]["state"], "RUNNING");
    assert_eq!(body["tasks"][1]["state"], "RESTARTING");
    assert!(body["tasks"][1]["trace"]
        .as_str()
        .unwrap()
        .contains("failed on purpose"));
    wait_starts("k", (before.0, before.1 + 1)).await;
    w.wait_status("k", "task 1 failed again", failed).await;

    // Everything.
    let before = starts();
    let (status, body) = w
        .call("POST", "/connectors/k/restart?includeTasks=true", None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["connector"]["state"], "RESTARTING");
    assert!(
        body["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["state"] == "RESTARTING"),
        "{body}"
    );
    wait_starts("k", (before.0 + 1, before.1 + 1)).await;
    w.wait_status("k", "task 1 failed again", failed).await;

    // Legacy: the connector object only; 204 and no task restarts.
    let before = starts();
    assert_eq!(
        w.call("POST", "/connectors/k/restart", None).await,
        (StatusCode::NO_CONTENT, serde_json::Value::Null)
    );
    assert_eq!(starts(), before);

    // "yes" is not true to Java, so this is the legacy restart too.
    assert_eq!(
        w.call("POST", "/connectors/k/restart?includeTasks=yes", None)
            .await
            .0,
        StatusCode::NO_CONTENT
    );

    let (status, body) = w
        .call("POST", "/connectors/nope/restart?includeTasks=true", None)
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Unknown connector: nope"))
    );
    let (status, body) = w.call("POST", "/connectors/nope/restart", None).await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Connector nope not found"))
    );
}

#[tokio::test]
async fn topic_endpoints_and_their_switches() {
    let w = worker(&[]);
    assert_eq!(
        w.call("GET", "/connectors/any/topics", None).await,
        (StatusCode::OK, json!({"any": {"topics": []}}))
    );
    assert_eq!(
        w.call("PUT", "/connectors/any/topics/reset", None).await.0,
        StatusCode::ACCEPTED
    );

    let off = worker(&[("topic.tracking.enable", "false")]);
    for (method, uri) in [
        ("GET", "/connectors/any/topics"),
        ("PUT", "/connectors/any/topics/reset"),
    ] {
        assert_eq!(
            off.call(method, uri, None).await,
            (
                StatusCode::FORBIDDEN,
                json!({"error_code": 403, "message": "Topic tracking is disabled."})
            )
        );
    }
    let no_reset = worker(&[("topic.tracking.allow.reset", "false")]);
    assert_eq!(
        no_reset.call("GET", "/connectors/any/topics", None).await.0,
        StatusCode::OK
    );
    assert_eq!(
        no_reset
            .call("PUT", "/connectors/any/topics/reset", None)
            .await,
        (
            StatusCode::FORBIDDEN,
            json!({"error_code": 403, "message": "Topic tracking reset is disabled."})
        )
    );
}

#[tokio::test]
async fn errors_for_paths_methods_and_bodies() {
    let w = worker(&[]);
    assert_eq!(
        w.call("GET", "/nowhere", None).await,
        (
            StatusCode::NOT_FOUND,
            json!({"error_code": 404, "message": "HTTP 404 Not Found"})
        )
    );
    assert_eq!(
        w.call("DELETE", "/connectors", None).await,
        (
            StatusCode::METHOD_NOT_ALLOWED,
            json!({"error_code": 405, "message": "HTTP 405 Method Not Allowed"})
        )
    );
    let (status, body) = w.call("POST", "/connectors", Some("{not json")).await;
    assert_eq!(
        (status, body["error_code"].clone()),
        (StatusCode::BAD_REQUEST, json!(400))
    );
    let (status, body) = w
        .call("PUT", "/connectors/x/config", Some(r#"["a"]"#))
        .await;
    assert_eq!(
        (status, body["error_code"].clone()),
        (StatusCode::BAD_REQUEST, json!(400))
    );
}

#[tokio::test]
async fn trailing_slashes_and_media_types() {
    let w = worker(&[]);
    assert_eq!(
        w.call("GET", "/connectors/", None).await,
        (StatusCode::OK, json!([]))
    );
    assert_eq!(
        w.call("GET", "/connector-plugins/?connectorsOnly=true", None)
            .await
            .0,
        StatusCode::OK
    );
    // A body that is not declared as JSON.
    let req = axum::http::Request::post("/connectors")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(axum::body::Body::from("name=x"))
        .unwrap();
    let resp = tower::ServiceExt::oneshot(w.app.clone(), req)
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // No body and no content type is fine where no body is needed.
    w.create("m", "IdleSource", "").await;
    assert_eq!(
        w.call("PUT", "/connectors/m/pause", None).await.0,
        StatusCode::ACCEPTED
    );
}

#[tokio::test]
async fn admin_loggers() {
    let w = worker(&[]);
    assert_eq!(
        w.call("GET", "/admin/loggers", None).await,
        (
            StatusCode::OK,
            json!({"root": {"level": "INFO", "last_modified": null}})
        )
    );
    assert_eq!(
        w.call(
            "PUT",
            "/admin/loggers/ferry_runtime",
            Some(r#"{"level":"debug"}"#)
        )
        .await,
        (StatusCode::OK, json!(["ferry_runtime"]))
    );
    assert_eq!(
        w.call("GET", "/admin/loggers/ferry_runtime", None).await.1["level"],
        "DEBUG"
    );
    assert_eq!(
        w.call(
            "PUT",
            "/admin/loggers/x?scope=cluster",
            Some(r#"{"level":"WARN"}"#)
        )
        .await
        .0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        w.call("PUT", "/admin/loggers/x", Some(r#"{"level":"LOUD"}"#))
            .await,
        (
            StatusCode::NOT_FOUND,
            json!({"error_code": 404, "message": "invalid log level 'LOUD'."})
        )
    );
    assert_eq!(
        w.call("PUT", "/admin/loggers/x", Some(r#"{"lvl":"INFO"}"#))
            .await,
        (
            StatusCode::BAD_REQUEST,
            json!({"error_code": 400, "message": "Desired 'level' parameter was not specified in request."})
        )
    );
}

#[tokio::test]
async fn cors_and_configured_response_headers() {
    let w = worker(&[
        ("access.control.allow.origin", "http://ui.example"),
        ("access.control.allow.methods", "GET,PUT"),
        (
            "response.http.headers.config",
            r#"set X-Frame-Options:DENY,"add Cache-Control: no-cache, no-store""#,
        ),
    ]);
    let (status, _, headers) = w.call_full("GET", "/connectors", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["cache-control"], "no-cache, no-store");
    let preflight = axum::http::Request::options("/connectors")
        .header("origin", "http://ui.example")
        .header("access-control-request-method", "PUT")
        .body(axum::body::Body::empty())
        .unwrap();
    let resp = tower::ServiceExt::oneshot(w.app.clone(), preflight)
        .await
        .unwrap();
    assert_eq!(
        resp.headers()["access-control-allow-origin"],
        "http://ui.example"
    );
    assert!(resp.headers()["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .contains("PUT"));
    // Without the settings there are no such headers.
    let plain = worker(&[]);
    let (_, _, headers) = plain.call_full("GET", "/connectors", None).await;
    assert!(
        headers.get("x-frame-options").is_none()
            && headers.get("access-control-allow-origin").is_none()
    );
}

#[tokio::test]
async fn internal_endpoints_are_not_for_standalone() {
    let w = worker(&[]);
    let (status, body) = w.call("POST", "/connectors/x/tasks", Some("[]")).await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::BAD_REQUEST, json!("Kafka Connect in standalone mode does not support externally setting task configurations."))
    );
    let (status, body) = w.call("PUT", "/connectors/x/fence", None).await;
    assert_eq!(
        (status, body["message"].clone()),
        (
            StatusCode::BAD_REQUEST,
            json!(
                "Kafka Connect in standalone mode does not support exactly-once source connectors."
            )
        )
    );
}
