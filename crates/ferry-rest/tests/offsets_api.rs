//! KIP-875 offsets of a source connector through the real router, herder and offsets file.

mod support;

use axum::http::StatusCode;
use serde_json::json;
use support::worker;

const FRAMEWORK_ALTERED: &str = "The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.";

#[tokio::test]
async fn source_offsets_can_be_altered_and_reset_only_when_stopped() {
    let w = worker(&[]);
    let (status, body) = w.call("GET", "/connectors/nope/offsets", None).await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::NOT_FOUND, json!("Connector nope not found"))
    );

    w.create("src", "IdleSource", "").await;
    assert_eq!(
        w.call("GET", "/connectors/src/offsets", None).await,
        (StatusCode::OK, json!({"offsets": []}))
    );
    let body = r#"{"offsets":[{"partition":{"file":"a.txt"},"offset":{"pos":5}}]}"#;
    for empty in ["{}", r#"{"offsets":[]}"#] {
        let (status, reply) = w
            .call("PATCH", "/connectors/src/offsets", Some(empty))
            .await;
        assert_eq!(
            (status, reply["message"].clone()),
            (
                StatusCode::BAD_REQUEST,
                json!("Partitions / offsets need to be provided for an alter offsets request")
            )
        );
    }
    let (status, reply) = w
        .call(
            "PATCH",
            "/connectors/src/offsets",
            Some(r#"{"offsets":[],"extra":1}"#),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    let (status, reply) = w.call("PATCH", "/connectors/src/offsets", Some(body)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply["message"],
        "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/src/stop' endpoint"
    );
    assert_eq!(
        w.call("DELETE", "/connectors/src/offsets", None).await.0,
        StatusCode::BAD_REQUEST
    );

    assert_eq!(
        w.call("PUT", "/connectors/src/stop", None).await.0,
        StatusCode::NO_CONTENT
    );
    let (status, reply) = w.call("PATCH", "/connectors/src/offsets", Some(body)).await;
    assert_eq!(
        (status, reply),
        (StatusCode::OK, json!({"message": FRAMEWORK_ALTERED}))
    );
    assert_eq!(
        w.call("GET", "/connectors/src/offsets", None).await.1,
        json!({"offsets": [{"partition": {"file": "a.txt"}, "offset": {"pos": 5}}]})
    );
    let (status, reply) = w
        .call(
            "PATCH",
            "/connectors/src/offsets",
            Some(r#"{"offsets":[{"partition":{"f":"x"},"offset":{"pos":[1]}}]}"#),
        )
        .await;
    assert_eq!(
        (status, reply["message"].clone()),
        (
            StatusCode::BAD_REQUEST,
            json!(
                "Offsets may only contain primitive types as values, but field pos contains ARRAY"
            )
        )
    );
    let (status, reply) = w.call("DELETE", "/connectors/src/offsets", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        reply["message"],
        FRAMEWORK_ALTERED.replace("altered", "reset")
    );
    assert_eq!(
        w.call("GET", "/connectors/src/offsets", None).await.1,
        json!({"offsets": []})
    );
}
