//! The OpenAPI document and the router cannot drift: every documented operation is routed, and
//! every method a documented path does not list answers 405.

mod support;

use axum::http::StatusCode;
use support::worker;

const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];

fn concrete(path: &str) -> String {
    path.replace("{c}", "doc-check")
        .replace("{t}", "0")
        .replace("{plugin}", "FileStreamSource")
        .replace("{logger}", "root")
}

#[tokio::test]
async fn document_matches_router() {
    let w = worker(&[]);
    let (status, doc) = w.call("GET", "/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    assert!(
        paths.len() >= 20,
        "the document lists {} paths",
        paths.len()
    );
    for (path, item) in paths {
        let uri = concrete(path);
        for method in METHODS {
            let documented = item.get(method.to_ascii_lowercase()).is_some();
            let body = match *method {
                "POST" | "PUT" | "PATCH" => Some("{}"),
                _ => None,
            };
            let (status, reply) = w.call(method, &uri, body).await;
            let unrouted = status == StatusCode::METHOD_NOT_ALLOWED
                || (status == StatusCode::NOT_FOUND && reply["message"] == "HTTP 404 Not Found");
            if documented {
                assert!(
                    !unrouted,
                    "{method} {path} is documented but not routed ({status} {reply})"
                );
            } else {
                assert_eq!(
                    status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {path} is routed but not documented"
                );
            }
        }
    }
}
