//! `/connector-plugins` through the real router.

mod support;

use axum::http::StatusCode;
use serde_json::json;
use support::worker;

#[tokio::test]
async fn listing() {
    let w = worker(&[]);
    let (status, body) = w.call("GET", "/connector-plugins", None).await;
    assert_eq!(status, StatusCode::OK);
    let classes: Vec<&str> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["class"].as_str().unwrap())
        .collect();
    assert!(classes.contains(&"org.apache.kafka.connect.file.FileStreamSinkConnector"));
    assert!(body
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["type"] == "source" || p["type"] == "sink"));
    let (_, all) = w
        .call("GET", "/connector-plugins?connectorsOnly=false", None)
        .await;
    let json = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "org.apache.kafka.connect.json.JsonConverter")
        .count();
    assert_eq!(
        json, 2,
        "JsonConverter is listed as converter and as header_converter: {all}"
    );
}

#[tokio::test]
async fn plugin_config_definitions() {
    let w = worker(&[]);
    let (status, body) = w
        .call("GET", "/connector-plugins/FileStreamSource/config", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body[1],
        json!({"name": "topic", "type": "STRING", "required": true, "default_value": null, "importance": "HIGH",
               "documentation": "The topic to publish data to", "group": null, "width": "NONE",
               "display_name": "topic", "dependents": [], "order_in_group": -1})
    );
    assert_eq!(body[2]["default_value"], "2000");
    assert!(body
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k["name"] == "tasks.max"));
    let (status, body) = w
        .call("GET", "/connector-plugins/com.example.Nope/config", None)
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (
            StatusCode::NOT_FOUND,
            json!("Unknown plugin com.example.Nope.")
        )
    );
}

#[tokio::test]
async fn validation() {
    let w = worker(&[]);
    let (status, body) = w
        .call(
            "PUT",
            "/connector-plugins/FileStreamSinkConnector/config/validate",
            Some(r#"{"connector.class":"FileStreamSink","tasks.max":"0"}"#),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "FileStreamSink");
    // name missing, tasks.max too small, neither topics nor topics.regex (on both keys).
    assert_eq!(body["error_count"], 4);
    assert_eq!(
        body["groups"],
        json!(["Common", "Transforms", "Predicates", "Error Handling"])
    );
    let tasks_max = body["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["definition"]["name"] == "tasks.max")
        .unwrap();
    assert_eq!(
        tasks_max["value"],
        json!({"name": "tasks.max", "value": "0", "recommended_values": [],
               "errors": ["Invalid value 0 for configuration tasks.max: Value must be at least 1"], "visible": true})
    );
    let (status, body) = w
        .call(
            "PUT",
            "/connector-plugins/FileStreamSource/config/validate",
            Some(r#"{"connector.class":"FileStreamSink"}"#),
        )
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::BAD_REQUEST, json!("Included connector type FileStreamSink does not match request type FileStreamSource"))
    );
}
