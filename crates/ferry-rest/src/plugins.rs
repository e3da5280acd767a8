//! `/connector-plugins` endpoints.

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use ferry_api::ConfigMap;
use ferry_runtime::config::connector::{
    sink_connector_config_def, source_connector_config_def, CONNECTOR_CLASS,
};
use ferry_runtime::herder::{config_infos, off_runtime};
use ferry_runtime::plugins::PluginKind;
use serde_json::{json, Value};

use crate::entities::{config_infos as config_infos_json, config_key};
use crate::error::ApiError;
use crate::{query, AppState};

/// `GET /connector-plugins[?connectorsOnly=]`: connectors by default, every plugin otherwise.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
) -> Json<Value> {
    let registry = state.herder.registry();
    let mut out: Vec<Value> = registry
        .connectors
        .iter()
        .map(|p| json!({"class": p.class_name, "type": p.kind.rest_name(), "version": p.version}))
        .collect();
    if !query::boolean(&params, "connectorsOnly", true) {
        let version = ferry_runtime::KAFKA_CONNECT_VERSION;
        out.extend(registry.converters.iter().map(|p| {
            json!({"class": p.class_name, "type": PluginKind::Converter.rest_name(), "version": version})
        }));
        out.extend(registry.header_converters.iter().map(|p| {
            json!({"class": p.class_name, "type": PluginKind::HeaderConverter.rest_name(), "version": version})
        }));
        out.extend(registry.transformations.iter().map(|p| {
            json!({"class": p.class_name, "type": PluginKind::Transformation.rest_name(), "version": version})
        }));
        out.extend(registry.predicates.iter().map(|p| {
            json!({"class": p.class_name, "type": PluginKind::Predicate.rest_name(), "version": version})
        }));
        out.extend(registry.hosted_others.iter().map(
            |p| json!({"class": p.class_name, "type": p.kind.rest_name(), "version": p.version}),
        ));
    }
    Json(json!(out))
}

/// `GET /connector-plugins/{p}/config`: the plugin's keys, then the framework's it lacks.
pub(crate) async fn config(
    State(state): State<AppState>,
    Path(plugin): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let registry = state.herder.registry();
    let unknown = || ApiError::new(StatusCode::NOT_FOUND, format!("Unknown plugin {plugin}."));
    if let Some(p) = registry.connector(&plugin) {
        let own = (p.create)().as_connector().config_def();
        let framework = if p.kind == PluginKind::Sink {
            sink_connector_config_def()
        } else {
            source_connector_config_def()
        };
        let mut keys: Vec<Value> = own.keys().map(config_key).collect();
        keys.extend(
            framework
                .keys()
                .filter(|k| own.key(&k.name).is_none())
                .map(|k| {
                    // KIP-891: the connector's version is the default of its version key.
                    let mut key = k.clone();
                    if key.name == ferry_runtime::config::connector::CONNECTOR_PLUGIN_VERSION {
                        key.default = ferry_api::config::DefaultValue::Value(p.version.clone());
                    }
                    config_key(&key)
                }),
        );
        return Ok(Json(json!(keys)));
    }
    if let Some(p) = registry.converter(&plugin) {
        return Ok(Json(json!((p.create)()
            .config_def()
            .keys()
            .map(config_key)
            .collect::<Vec<_>>())));
    }
    if let Some(p) = registry.header_converter(&plugin) {
        return Ok(Json(json!((p.create)()
            .config_def()
            .keys()
            .map(config_key)
            .collect::<Vec<_>>())));
    }
    if let Some(p) = registry.transformation(&plugin) {
        return Ok(Json(json!((p.create)()
            .config_def()
            .keys()
            .map(config_key)
            .collect::<Vec<_>>())));
    }
    if let Some(p) = registry.predicate(&plugin) {
        return Ok(Json(json!((p.create)()
            .config_def()
            .keys()
            .map(config_key)
            .collect::<Vec<_>>())));
    }
    if let Some(p) = registry.hosted_other(&plugin) {
        let def = (p.config)().map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("Could not read the configuration of plugin {plugin}: {e}"),
            )
        })?;
        return Ok(Json(json!(def.keys().map(config_key).collect::<Vec<_>>())));
    }
    Err(unknown())
}

/// A class name without its package and `Connector` suffix, as Java compares them.
fn normalized(name: &str) -> &str {
    let simple = name.rsplit('.').next().unwrap_or(name);
    simple.strip_suffix("Connector").unwrap_or(simple)
}

/// `PUT /connector-plugins/{p}/config/validate`: 200 with every key's findings.
pub(crate) async fn validate(
    State(state): State<AppState>,
    Path(plugin): Path<String>,
    body: Result<Json<BTreeMap<String, Value>>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(body) = body?;
    let config: ConfigMap = body
        .into_iter()
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k, s)),
            Value::Null => None,
            other => Some((k, other.to_string())),
        })
        .collect();
    if let Some(class) = config.get(CONNECTOR_CLASS) {
        if !normalized(class).ends_with(normalized(&plugin)) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("Included connector type {class} does not match request type {plugin}"),
            ));
        }
    }
    let registry = state.herder.registry();
    let (infos, _) = off_runtime(move || config_infos(&registry, &config)).await?;
    Ok(Json(config_infos_json(&infos)))
}
