//! Reads worker and connector config files: Java `.properties`, or JSON connector files.

use std::path::Path;

use ferry_api::ConfigMap;
use serde::Deserialize;

use crate::config::properties::parse_properties;

#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    #[error("could not read {path}: {cause}")]
    Read { path: String, cause: std::io::Error },
    #[error("{path}: {message}")]
    Malformed { path: String, message: String },
}

/// A connector as a config file describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorFile {
    pub name: String,
    pub config: ConfigMap,
    /// `RUNNING`, `PAUSED` or `STOPPED` from a JSON file's `initial_state`.
    pub initial_state: Option<String>,
}

fn read(path: &Path) -> Result<String, ConfigFileError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigFileError::Read {
        path: path.display().to_string(),
        cause,
    })
}

/// Reads a `.properties` file into a map.
pub fn load_properties(path: &Path) -> Result<ConfigMap, ConfigFileError> {
    let text = read(path)?;
    let entries = parse_properties(&text).map_err(|e| ConfigFileError::Malformed {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(entries.into_iter().collect())
}

#[derive(Deserialize)]
struct JsonConnectorFile {
    name: Option<String>,
    config: Option<std::collections::BTreeMap<String, serde_json::Value>>,
    initial_state: Option<String>,
}

/// Reads a connector file: JSON (`{"name","config","initial_state"}`, as `POST /connectors`
/// takes) when it starts with `{`, `.properties` otherwise, as `connect-standalone.sh` does.
pub fn load_connector_file(path: &Path) -> Result<ConnectorFile, ConfigFileError> {
    let text = read(path)?;
    let display = path.display().to_string();
    let malformed = |message: String| ConfigFileError::Malformed {
        path: display.clone(),
        message,
    };
    if text.trim_start().starts_with('{') {
        let parsed: JsonConnectorFile = serde_json::from_str(&text)
            .map_err(|e| malformed(format!("not a valid connector JSON file: {e}")))?;
        let mut config = ConfigMap::new();
        for (k, v) in parsed.config.unwrap_or_default() {
            let text = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Null => continue,
                other => other.to_string(),
            };
            config.insert(k, text);
        }
        let name = parsed
            .name
            .or_else(|| config.get("name").cloned())
            .ok_or_else(|| malformed("the connector has no \"name\"".to_owned()))?;
        config
            .entry("name".to_owned())
            .or_insert_with(|| name.clone());
        return Ok(ConnectorFile {
            name,
            config,
            initial_state: parsed.initial_state,
        });
    }
    let entries = parse_properties(&text).map_err(|e| malformed(e.to_string()))?;
    let config: ConfigMap = entries.into_iter().collect();
    let name = config.get("name").cloned().ok_or_else(|| {
        malformed("Missing required configuration \"name\" which has no default value.".to_owned())
    })?;
    Ok(ConnectorFile {
        name,
        config,
        initial_state: None,
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn file(contents: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(contents.as_bytes()).unwrap();
        f
    }

    #[test]
    fn properties_connector_file() {
        let f = file("# a source\nname=local-file-source\nconnector.class=FileStreamSource\ntasks.max=1\nfile=test.txt\ntopic=connect-test\n");
        let c = load_connector_file(f.path()).unwrap();
        assert_eq!(c.name, "local-file-source");
        assert_eq!(
            c.config.get("topic").map(String::as_str),
            Some("connect-test")
        );
    }

    #[test]
    fn json_connector_file() {
        let f = file(
            r#"{"name":"s","config":{"connector.class":"FileStreamSink","tasks.max":2,"topics":"t"},"initial_state":"PAUSED"}"#,
        );
        let c = load_connector_file(f.path()).unwrap();
        assert_eq!(c.name, "s");
        assert_eq!(c.config.get("tasks.max").map(String::as_str), Some("2"));
        assert_eq!(c.config.get("name").map(String::as_str), Some("s"));
        assert_eq!(c.initial_state.as_deref(), Some("PAUSED"));
    }

    #[test]
    fn errors_name_the_file() {
        let f = file("name=x\nbad=\\u12\n");
        let err = load_connector_file(f.path()).unwrap_err().to_string();
        assert!(err.contains(&f.path().display().to_string()), "{err}");
        let f = file("connector.class=FileStreamSource\n");
        let err = load_connector_file(f.path()).unwrap_err().to_string();
        assert!(err.contains("\"name\""), "{err}");
        let err = load_properties(Path::new("/nonexistent/worker.properties"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("/nonexistent/worker.properties"), "{err}");
    }
}
