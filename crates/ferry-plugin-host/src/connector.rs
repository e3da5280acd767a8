//! A Java connector in the plugin host, behind Ferry's connector traits. The traits' methods
//! are synchronous, so these calls block their thread until the host answers.

use std::sync::Arc;

use ferry_api::config::{
    ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, KeyReport, Width,
};
use ferry_api::connector::{
    AnyConnector, Connector, ConnectorContext, ExactlyOnceSupport, SinkConnector, SourceConnector,
    TransactionBoundaries,
};
use ferry_api::record::OffsetMap;
use ferry_api::task::{SinkTask, SourceTask};
use ferry_api::{ConfigMap, ConnectError};
use serde_json::{json, Value};

use crate::frame::Header;
use crate::host::PluginHost;
use crate::lease::HostLease;
use crate::sink_task::HostedSinkTask;
use crate::source_task::HostedSourceTask;

struct Running {
    conn: HostLease,
    name: String,
    version: String,
    task_class: String,
}

pub(crate) struct HostedConnector {
    host: Arc<PluginHost>,
    class: String,
    running: Option<Running>,
}

pub(crate) fn header(pairs: Value) -> Header {
    match pairs {
        Value::Object(map) => map,
        _ => Header::new(),
    }
}

impl HostedConnector {
    pub fn any(host: Arc<PluginHost>, class: String, sink: bool) -> AnyConnector {
        let c = HostedConnector {
            host,
            class,
            running: None,
        };
        if sink {
            AnyConnector::Sink(Box::new(c))
        } else {
            AnyConnector::Source(Box::new(c))
        }
    }

    fn call(&self, op: &str, args: Value) -> Result<Value, ConnectError> {
        let conn = match &self.running {
            Some(r) => Arc::clone(&r.conn),
            None => self.host.connection()?,
        };
        Ok(conn
            .call_blocking(op, header(args), &[], self.host.settings.call_timeout)?
            .0)
    }
}

/// The `keys` of a host's answer as a `ConfigDef`.
pub(crate) fn config_def_from_keys(body: &Value) -> ConfigDef {
    body.get("keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(parse_key)
        .fold(ConfigDef::new(), ConfigDef::define)
}

fn parse_key(k: &Value) -> Option<ConfigKey> {
    let text = |f: &str| k.get(f).and_then(Value::as_str).unwrap_or("").to_owned();
    let ty = ConfigType::from_java_name(&text("type"));
    let default = if k.get("required").and_then(Value::as_bool) == Some(true) {
        DefaultValue::Required
    } else {
        match k.get("default").and_then(Value::as_str) {
            Some(v) => DefaultValue::Value(v.to_owned()),
            None => DefaultValue::Null,
        }
    };
    let importance = Importance::from_java_name(&text("importance"));
    let mut key = ConfigKey::new(
        &text("name"),
        ty,
        default,
        importance,
        &text("documentation"),
    );
    if let Some(group) = k.get("group").and_then(Value::as_str) {
        let width = match text("width").as_str() {
            "SHORT" => Width::Short,
            "MEDIUM" => Width::Medium,
            "LONG" => Width::Long,
            _ => Width::None,
        };
        let order = k.get("orderInGroup").and_then(Value::as_i64).unwrap_or(-1) as i32;
        key = key.group(group, order, width, &text("displayName"));
    } else {
        key.display_name = text("displayName");
    }
    key.dependents = k
        .get("dependents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|d| d.as_str().map(str::to_owned))
        .collect();
    (!key.name.is_empty()).then_some(key)
}

fn parse_report(v: &Value) -> KeyReport {
    let strings = |f: &str| -> Vec<String> {
        v.get(f)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    KeyReport {
        name: v
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        value: v.get("value").and_then(Value::as_str).map(str::to_owned),
        recommended_values: strings("recommended_values"),
        errors: strings("errors"),
        visible: v.get("visible").and_then(Value::as_bool).unwrap_or(true),
    }
}

impl Connector for HostedConnector {
    fn version(&self) -> String {
        match &self.running {
            Some(r) => r.version.clone(),
            None => self
                .host
                .plugins()
                .iter()
                .find(|p| p.class_name == self.class)
                .map(|p| p.version.clone())
                .unwrap_or_default(),
        }
    }

    fn config_def(&self) -> ConfigDef {
        match self.call("connector.config", json!({ "class": self.class })) {
            Ok(body) => config_def_from_keys(&body),
            Err(error) => {
                tracing::error!(class = %self.class, %error, "Could not read the connector's config definition");
                ConfigDef::new()
            }
        }
    }

    fn validate(&self, props: &ConfigMap) -> Vec<KeyReport> {
        match self.call(
            "connector.validate",
            json!({ "class": self.class, "config": props }),
        ) {
            Ok(body) => body
                .get("configs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("value"))
                .map(parse_report)
                .collect(),
            Err(error) => vec![KeyReport {
                name: "connector.class".to_owned(),
                value: Some(self.class.clone()),
                recommended_values: Vec::new(),
                errors: vec![format!(
                    "The connector's validation failed: {}",
                    error.trace()
                )],
                visible: true,
            }],
        }
    }

    fn start(
        &mut self,
        props: &ConfigMap,
        context: Arc<dyn ConnectorContext>,
    ) -> ferry_api::error::Result<()> {
        let name = props.get("name").cloned().unwrap_or_default();
        let conn = self.host.lease(&name)?;
        if let Some(reader) = context.offset_reader() {
            self.host.hooks.register_reader(&name, reader);
        }
        self.host
            .hooks
            .register_context(&name, conn.generation, context);
        let args = json!({ "connector": name, "class": self.class, "config": props });
        let started = conn.call_blocking(
            "connector.start",
            header(args),
            &[],
            self.host.settings.call_timeout,
        );
        let body = match started {
            Ok((body, _)) => body,
            Err(e) => {
                self.host.hooks.forget_context(&name);
                return Err(e.into());
            }
        };
        let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        self.running = Some(Running {
            conn,
            name,
            version: text("version"),
            task_class: text("taskClass"),
        });
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> ferry_api::error::Result<Vec<ConfigMap>> {
        let Some(r) = &self.running else {
            return Err(ConnectError::other(
                "The connector is not running in the plugin host",
            ));
        };
        let body = self.call(
            "connector.taskConfigs",
            json!({ "connector": r.name, "maxTasks": max_tasks }),
        )?;
        Ok(
            serde_json::from_value(body.get("configs").cloned().unwrap_or(Value::Null))
                .unwrap_or_default(),
        )
    }

    fn stop(&mut self) -> ferry_api::error::Result<()> {
        let Some(r) = self.running.take() else {
            return Ok(());
        };
        self.host.hooks.forget_context(&r.name);
        if !r.conn.is_alive() {
            return Ok(());
        }
        r.conn.call_blocking(
            "connector.stop",
            header(json!({ "connector": r.name })),
            &[],
            self.host.settings.stop_timeout,
        )?;
        Ok(())
    }

    fn task_class(&self) -> Option<String> {
        self.running
            .as_ref()
            .map(|r| r.task_class.clone())
            .filter(|c| !c.is_empty())
    }

    fn alter_offsets(
        &self,
        config: &ConfigMap,
        offsets: &[(OffsetMap, Option<OffsetMap>)],
    ) -> ferry_api::error::Result<bool> {
        let to_json = |m: &OffsetMap| -> Result<Value, ConnectError> {
            serde_json::from_slice(&ferry_json::encode_offset(m)?)
                .map_err(|e| ConnectError::with_source("Invalid offsets", e))
        };
        let mut list = Vec::new();
        for (partition, offset) in offsets {
            list.push(json!({
                "partition": to_json(partition)?,
                "offset": offset.as_ref().map(to_json).transpose()?,
            }));
        }
        let body = self.call(
            "connector.alterOffsets",
            json!({ "class": self.class, "config": config, "offsets": list }),
        )?;
        Ok(body
            .get("handled")
            .and_then(Value::as_bool)
            .unwrap_or(false))
    }
}

impl HostedConnector {
    /// One of KIP-618's preflight questions, asked of a new instance in the host; the answer
    /// is the Java enum's name, `None` for null.
    fn ask_exactly_once(
        &self,
        question: &str,
        props: &ConfigMap,
    ) -> ferry_api::error::Result<Option<String>> {
        let body = self.call(
            "connector.exactlyOnce",
            json!({ "class": self.class, "question": question, "config": props }),
        )?;
        Ok(body
            .get("answer")
            .and_then(Value::as_str)
            .map(str::to_owned))
    }
}

impl SourceConnector for HostedConnector {
    fn create_task(&self) -> Box<dyn SourceTask> {
        Box::new(HostedSourceTask::new(self.host.clone()))
    }

    fn exactly_once_support(
        &self,
        props: &ConfigMap,
    ) -> ferry_api::error::Result<Option<ExactlyOnceSupport>> {
        Ok(
            match self.ask_exactly_once("exactlyOnce", props)?.as_deref() {
                Some("SUPPORTED") => Some(ExactlyOnceSupport::Supported),
                Some(_) => Some(ExactlyOnceSupport::Unsupported),
                None => None,
            },
        )
    }

    fn can_define_transaction_boundaries(
        &self,
        props: &ConfigMap,
    ) -> ferry_api::error::Result<Option<TransactionBoundaries>> {
        Ok(
            match self
                .ask_exactly_once("transactionBoundaries", props)?
                .as_deref()
            {
                Some("SUPPORTED") => Some(TransactionBoundaries::Supported),
                Some(_) => Some(TransactionBoundaries::Unsupported),
                None => None,
            },
        )
    }
}

impl SinkConnector for HostedConnector {
    fn create_task(&self) -> Box<dyn SinkTask> {
        Box::new(HostedSinkTask::new(self.host.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_config_keys_map_to_ferry_keys() {
        let key = parse_key(&json!({
            "name": "file", "type": "STRING", "default": null, "importance": "HIGH",
            "documentation": "Source filename.", "group": null, "orderInGroup": -1,
            "width": "NONE", "displayName": "file", "dependents": []
        }))
        .unwrap();
        assert_eq!(key.ty, ConfigType::String);
        assert_eq!(key.default, DefaultValue::Null);
        let required = parse_key(
            &json!({"name": "topic", "type": "LIST", "required": true, "importance": "MEDIUM"}),
        )
        .unwrap();
        assert_eq!(required.default, DefaultValue::Required);
        assert_eq!(required.ty, ConfigType::List);
        let report = parse_report(
            &json!({"name": "topic", "value": null, "recommended_values": [], "errors": ["Missing required configuration \"topic\" which has no default value."], "visible": true}),
        );
        assert_eq!(report.errors.len(), 1);
        assert_eq!(report.value, None);
    }
}
