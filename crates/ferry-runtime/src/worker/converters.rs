//! Creates a task's converters the way Java does: a converter class set in the connector's
//! config is used with the connector's prefixed settings only; otherwise the worker's class
//! with the worker's prefixed settings.

use ferry_api::converter::{Converter, ConverterType, HeaderConverter};
use ferry_api::{ConfigMap, ConnectError};

use crate::config::worker::WorkerConfig;
use crate::plugins::Registry;
use crate::worker::task_context::ConverterClasses;

fn settings(
    connector: &ConfigMap,
    worker: &WorkerConfig,
    key: &str,
    worker_class: &str,
    kind: ConverterType,
) -> (String, ConfigMap) {
    let prefix = format!("{key}.");
    let (class, source) = match connector.get(key) {
        Some(class) => (class.clone(), connector),
        None => (worker_class.to_owned(), &worker.originals),
    };
    let mut props: ConfigMap = source
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|r| (r.to_owned(), v.clone())))
        .collect();
    props.insert("converter.type".to_owned(), kind.config_value().to_owned());
    (class, props)
}

fn unknown(key: &str, class: &str) -> ConnectError {
    ConnectError::Config(ferry_api::config::ConfigError::invalid_value(
        key,
        class,
        &format!("Class {class} could not be found."),
    ))
}

pub(crate) fn key_or_value_converter(
    registry: &Registry,
    connector: &ConfigMap,
    worker: &WorkerConfig,
    is_key: bool,
) -> Result<(Box<dyn Converter>, String), ConnectError> {
    let (key, worker_class, kind) = if is_key {
        (
            "key.converter",
            worker.key_converter.as_str(),
            ConverterType::Key,
        )
    } else {
        (
            "value.converter",
            worker.value_converter.as_str(),
            ConverterType::Value,
        )
    };
    let (class, props) = settings(connector, worker, key, worker_class, kind);
    let plugin = registry
        .converter(&class)
        .ok_or_else(|| unknown(key, &class))?;
    let mut converter = (plugin.create)();
    converter.configure(&props, is_key)?;
    Ok((converter, plugin.class_name.to_owned()))
}

pub(crate) fn header_converter(
    registry: &Registry,
    connector: &ConfigMap,
    worker: &WorkerConfig,
) -> Result<(Box<dyn HeaderConverter>, String), ConnectError> {
    let key = "header.converter";
    let (class, props) = settings(
        connector,
        worker,
        key,
        &worker.header_converter,
        ConverterType::Header,
    );
    let plugin = registry
        .header_converter(&class)
        .ok_or_else(|| unknown(key, &class))?;
    let mut converter = (plugin.create)();
    converter.configure(&props)?;
    Ok((converter, plugin.class_name.to_owned()))
}

/// A task's converters with their class names, for error reports.
pub(crate) struct TaskConverters {
    pub key: Box<dyn Converter>,
    pub value: Box<dyn Converter>,
    pub header: Box<dyn HeaderConverter>,
    pub classes: ConverterClasses,
}

/// The converters a task's pipeline runs: the configured ones, or for a hosted connector (whose
/// converters run in the plugin host) byte-array converters that pass the raw bytes through.
pub(crate) fn task_converters(
    registry: &Registry,
    connector: &ConfigMap,
    worker: &WorkerConfig,
    hosted: bool,
) -> Result<TaskConverters, ConnectError> {
    if hosted {
        let class = || "org.apache.kafka.connect.converters.ByteArrayConverter".to_owned();
        return Ok(TaskConverters {
            key: Box::<ferry_converters::ByteArrayConverter>::default(),
            value: Box::<ferry_converters::ByteArrayConverter>::default(),
            header: Box::<ferry_converters::ByteArrayConverter>::default(),
            classes: ConverterClasses {
                key: class(),
                value: class(),
                header: class(),
            },
        });
    }
    let (key, key_class) = key_or_value_converter(registry, connector, worker, true)?;
    let (value, value_class) = key_or_value_converter(registry, connector, worker, false)?;
    let (header, header_class) = header_converter(registry, connector, worker)?;
    Ok(TaskConverters {
        key,
        value,
        header,
        classes: ConverterClasses {
            key: key_class,
            value: value_class,
            header: header_class,
        },
    })
}
