//! `/connectors/{c}/offsets` (KIP-875).

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use ferry_api::data::Value;
use ferry_api::record::OffsetMap;
use ferry_runtime::herder::ConnectorOffset;
use serde::Deserialize;
use serde_json::{json, Map, Value as JsonValue};

use crate::error::ApiError;
use crate::AppState;

fn to_json(value: &Value) -> JsonValue {
    match value {
        Value::Null => JsonValue::Null,
        Value::Boolean(b) => json!(b),
        Value::String(s) => json!(s),
        Value::Float32(f) => json!(f),
        Value::Float64(f) => json!(f),
        other => other
            .as_i64()
            .map_or_else(|| json!(other.to_string()), |i| json!(i)),
    }
}

fn map_json(map: &OffsetMap) -> JsonValue {
    JsonValue::Object(
        map.iter()
            .map(|(k, v)| (k.to_owned(), to_json(v)))
            .collect(),
    )
}

fn from_json(key: &str, value: &JsonValue) -> Result<Value, ApiError> {
    Ok(match value {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Boolean(*b),
        JsonValue::String(s) => Value::String(s.clone()),
        JsonValue::Number(n) => match n.as_i64() {
            Some(i) => Value::Int64(i),
            None => Value::Float64(n.as_f64().unwrap_or(f64::NAN)),
        },
        JsonValue::Array(_) | JsonValue::Object(_) => {
            // Java names the value's Connect schema type (and answers 500; it is the client's
            // mistake, so 400 here).
            let kind = if value.is_array() { "ARRAY" } else { "MAP" };
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("Offsets may only contain primitive types as values, but field {key} contains {kind}"),
            ));
        }
    })
}

fn offset_map(map: &Map<String, JsonValue>) -> Result<OffsetMap, ApiError> {
    map.iter()
        .map(|(k, v)| Ok((k.clone(), from_json(k, v)?)))
        .collect()
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<JsonValue>, ApiError> {
    let offsets = state.herder.connector_offsets(&name).await?;
    let offsets: Vec<JsonValue> = offsets
        .iter()
        .map(|o| json!({"partition": map_json(&o.partition), "offset": o.offset.as_ref().map_or(JsonValue::Null, map_json)}))
        .collect();
    Ok(Json(json!({ "offsets": offsets })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OffsetsBody {
    offsets: Option<Vec<OffsetBody>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OffsetBody {
    partition: Option<Map<String, JsonValue>>,
    offset: Option<Map<String, JsonValue>>,
}

pub(crate) async fn alter(
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Result<Json<OffsetsBody>, JsonRejection>,
) -> Result<Json<JsonValue>, ApiError> {
    let Json(body) = body?;
    let offsets = body.offsets.filter(|o| !o.is_empty()).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "Partitions / offsets need to be provided for an alter offsets request",
        )
    })?;
    let offsets = offsets
        .iter()
        .map(|o| {
            // A client's mistake: 400 (Java answers 500 with the same message).
            let partition = o.partition.as_ref().ok_or_else(|| {
                ApiError::new(StatusCode::BAD_REQUEST, "Partition objects cannot be null")
            })?;
            Ok(ConnectorOffset {
                partition: offset_map(partition)?,
                offset: o.offset.as_ref().map(offset_map).transpose()?,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let message = state.herder.alter_connector_offsets(&name, offsets).await?;
    Ok(Json(json!({ "message": message })))
}

pub(crate) async fn reset(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<JsonValue>, ApiError> {
    let message = state.herder.reset_connector_offsets(&name).await?;
    Ok(Json(json!({ "message": message })))
}
