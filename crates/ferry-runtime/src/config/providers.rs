//! Config providers (KIP-297): `${provider:path:key}` variables in worker and connector configs,
//! resolved from the providers Kafka ships, configured with Java's keys
//! (`config.providers=file`, `config.providers.file.class=…`, `config.providers.file.param.*`).
//! Connector configs are stored and answered with their variables; only connectors, tasks and
//! clients see the resolved values.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ferry_api::ConfigMap;
use regex::Regex;

pub const CONFIG_PROVIDERS: &str = "config.providers";
pub const FILE_PROVIDER: &str = "org.apache.kafka.common.config.provider.FileConfigProvider";
pub const DIRECTORY_PROVIDER: &str =
    "org.apache.kafka.common.config.provider.DirectoryConfigProvider";
pub const ENV_PROVIDER: &str = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

/// Java's `ConfigTransformer.DEFAULT_PATTERN`, compiled once.
fn variable_pattern() -> &'static Regex {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}").expect("the variable pattern compiles")
    })
}

/// A provider could not be configured.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct ProviderError(pub String);

/// Where values come from: Kafka's three providers.
#[derive(Debug, Clone)]
enum Provider {
    /// A properties file per path.
    File { allowed: Option<Vec<PathBuf>> },
    /// A directory per path, one value per regular file (its name the key).
    Directory { allowed: Option<Vec<PathBuf>> },
    /// The process environment, limited by a pattern; the path must be empty.
    Env { allow: Regex },
}

fn allowed_paths(params: &HashMap<String, String>) -> Option<Vec<PathBuf>> {
    params.get("allowed.paths").map(|list| {
        list.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .collect()
    })
}

/// `allowed.paths` (KIP-993): a path outside every allowed directory resolves nothing. The path
/// is normalised first, so `..` cannot climb out.
fn permitted(allowed: &Option<Vec<PathBuf>>, path: &str) -> bool {
    let Some(allowed) = allowed else {
        return true;
    };
    let mut normal = PathBuf::new();
    for part in Path::new(path).components() {
        match part {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    allowed.iter().any(|dir| normal.starts_with(dir))
}

impl Provider {
    fn new(
        name: &str,
        class: &str,
        params: HashMap<String, String>,
    ) -> Result<Self, ProviderError> {
        match class.trim() {
            FILE_PROVIDER => Ok(Provider::File {
                allowed: allowed_paths(&params),
            }),
            DIRECTORY_PROVIDER => Ok(Provider::Directory {
                allowed: allowed_paths(&params),
            }),
            ENV_PROVIDER => {
                let pattern = params
                    .get("allowlist.pattern")
                    .map_or(".*", String::as_str);
                let allow = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
                    ProviderError(format!(
                        "Invalid value {pattern} for configuration config.providers.{name}.param.allowlist.pattern: {e}"
                    ))
                })?;
                Ok(Provider::Env { allow })
            }
            other => Err(ProviderError(format!(
                "Invalid value {other} for configuration config.providers.{name}.class: Ferry provides {FILE_PROVIDER}, {DIRECTORY_PROVIDER} and {ENV_PROVIDER}"
            ))),
        }
    }

    /// The values at `path` (all of them; the caller picks its keys).
    fn values(&self, path: &str) -> HashMap<String, String> {
        match self {
            Provider::File { allowed } => {
                if !permitted(allowed, path) {
                    tracing::warn!(path, "The path is not in the provider's allowed.paths");
                    return HashMap::new();
                }
                match std::fs::read_to_string(path) {
                    Ok(text) => crate::config::properties::parse_properties(&text)
                        .map(|props| props.into_iter().collect())
                        .unwrap_or_default(),
                    Err(error) => {
                        tracing::warn!(path, %error, "Could not read the config provider's file");
                        HashMap::new()
                    }
                }
            }
            Provider::Directory { allowed } => {
                if !permitted(allowed, path) {
                    tracing::warn!(path, "The path is not in the provider's allowed.paths");
                    return HashMap::new();
                }
                let Ok(entries) = std::fs::read_dir(path) else {
                    tracing::warn!(path, "Could not read the config provider's directory");
                    return HashMap::new();
                };
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .filter_map(|e| {
                        let value = std::fs::read_to_string(e.path()).ok()?;
                        Some((e.file_name().to_string_lossy().into_owned(), value))
                    })
                    .collect()
            }
            Provider::Env { allow } => {
                if !path.is_empty() {
                    tracing::warn!(path, "The environment provider takes no path");
                    return HashMap::new();
                }
                std::env::vars()
                    .filter(|(k, _)| allow.is_match(k))
                    .collect()
            }
        }
    }
}

/// A worker config with its own variables resolved by the providers it declares, as Java
/// resolves worker configs.
pub fn resolve_worker_props(props: &ConfigMap) -> Result<ConfigMap, ProviderError> {
    Ok(match ConfigTransformer::from_worker_props(props)? {
        Some(t) => t.transform(props),
        None => props.clone(),
    })
}

/// Resolves variables with the providers a config declares.
#[derive(Debug, Clone)]
pub struct ConfigTransformer {
    providers: BTreeMap<String, Provider>,
}

/// Whether `value` holds a `${provider:…}` variable.
pub fn has_variables(value: &str) -> bool {
    value.contains("${") && variable_pattern().is_match(value)
}

impl ConfigTransformer {
    /// The providers named by `config.providers` in `props` (a worker config); `None` when it
    /// names none.
    pub fn from_worker_props(props: &ConfigMap) -> Result<Option<Self>, ProviderError> {
        let names: Vec<&str> = props
            .get(CONFIG_PROVIDERS)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if names.is_empty() {
            return Ok(None);
        }
        let mut providers = BTreeMap::new();
        for name in names {
            let class = props
                .get(&format!("{CONFIG_PROVIDERS}.{name}.class"))
                .ok_or_else(|| {
                    ProviderError(format!(
                        "Missing required configuration \"{CONFIG_PROVIDERS}.{name}.class\" for config provider {name}"
                    ))
                })?;
            let prefix = format!("{CONFIG_PROVIDERS}.{name}.param.");
            let params = props
                .iter()
                .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|p| (p.to_owned(), v.clone())))
                .collect();
            providers.insert(name.to_owned(), Provider::new(name, class, params)?);
        }
        Ok(Some(ConfigTransformer { providers }))
    }

    /// `config` with every variable whose provider, path and key resolve replaced by its value;
    /// others stay as written, as Java leaves them.
    pub fn transform(&self, config: &ConfigMap) -> ConfigMap {
        // Each (provider, path) is read once per transformation.
        let mut cache: HashMap<(String, String), HashMap<String, String>> = HashMap::new();
        config
            .iter()
            .map(|(k, v)| {
                if !v.contains("${") {
                    return (k.clone(), v.clone());
                }
                let resolved = variable_pattern()
                    .replace_all(v, |caps: &regex::Captures<'_>| {
                        let whole = caps[0].to_owned();
                        let name = &caps[1];
                        let path = caps.get(3).map_or("", |m| m.as_str());
                        let key = &caps[4];
                        let Some(provider) = self.providers.get(name) else {
                            return whole;
                        };
                        let values = cache
                            .entry((name.to_owned(), path.to_owned()))
                            .or_insert_with(|| provider.values(path));
                        values.get(key).cloned().unwrap_or(whole)
                    })
                    .into_owned();
                (k.clone(), resolved)
            })
            .collect()
    }

    /// Task configs with each key whose raw connector value holds a variable set back to that
    /// raw value (Java's `AbstractHerder.reverseTransform`), so stored task configs keep the
    /// placeholders rather than the secrets.
    pub fn reverse(raw_connector: &ConfigMap, task_configs: Vec<ConfigMap>) -> Vec<ConfigMap> {
        let with_variables: Vec<(&String, &String)> = raw_connector
            .iter()
            .filter(|(_, v)| has_variables(v))
            .collect();
        task_configs
            .into_iter()
            .map(|mut task| {
                for (k, raw) in &with_variables {
                    if let Some(slot) = task.get_mut(*k) {
                        slot.clone_from(raw);
                    }
                }
                task
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn file_directory_and_env_providers_resolve_and_unknown_variables_stay() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = dir.path().join("secrets.properties");
        std::fs::write(&secrets, "password=s3cret\nuser=alice\n").unwrap();
        let keys = dir.path().join("keys");
        std::fs::create_dir(&keys).unwrap();
        std::fs::write(keys.join("token"), "t0ken").unwrap();
        std::env::set_var("FERRY_PROVIDER_TEST_VALUE", "from-env");
        let transformer = ConfigTransformer::from_worker_props(&props(&[
            ("config.providers", "file, dir,env"),
            ("config.providers.file.class", FILE_PROVIDER),
            (
                "config.providers.file.param.allowed.paths",
                &dir.path().display().to_string(),
            ),
            ("config.providers.dir.class", DIRECTORY_PROVIDER),
            ("config.providers.env.class", ENV_PROVIDER),
            (
                "config.providers.env.param.allowlist.pattern",
                "FERRY_PROVIDER_.*",
            ),
        ]))
        .unwrap()
        .unwrap();
        let file = secrets.display().to_string();
        let resolved = transformer.transform(&props(&[
            ("password", &format!("${{file:{file}:password}}")),
            (
                "both",
                &format!("${{file:{file}:user}}/${{file:{file}:password}}"),
            ),
            ("token", &format!("${{dir:{}:token}}", keys.display())),
            ("env", "${env:FERRY_PROVIDER_TEST_VALUE}"),
            ("env-denied", "${env:HOME}"),
            ("missing-key", &format!("${{file:{file}:nope}}")),
            ("unknown-provider", "${vault:x:y}"),
            ("outside", "${file:/etc/passwd:root}"),
            ("plain", "no variables"),
        ]));
        assert_eq!(resolved["password"], "s3cret");
        assert_eq!(resolved["both"], "alice/s3cret");
        assert_eq!(resolved["token"], "t0ken");
        assert_eq!(resolved["env"], "from-env");
        assert_eq!(resolved["env-denied"], "${env:HOME}");
        assert_eq!(resolved["missing-key"], format!("${{file:{file}:nope}}"));
        assert_eq!(resolved["unknown-provider"], "${vault:x:y}");
        assert_eq!(resolved["outside"], "${file:/etc/passwd:root}");
        assert_eq!(resolved["plain"], "no variables");
    }

    #[test]
    fn allowed_paths_cannot_be_climbed_out_of() {
        let allowed = Some(vec![PathBuf::from("/run/secrets")]);
        assert!(permitted(&allowed, "/run/secrets/db.properties"));
        assert!(!permitted(&allowed, "/run/secrets/../../etc/passwd"));
        assert!(!permitted(&allowed, "/etc/passwd"));
        assert!(permitted(&None, "/etc/passwd"));
    }

    #[test]
    fn unknown_classes_and_missing_classes_are_errors() {
        let err = ConfigTransformer::from_worker_props(&props(&[
            ("config.providers", "vault"),
            (
                "config.providers.vault.class",
                "com.example.VaultConfigProvider",
            ),
        ]))
        .unwrap_err();
        assert!(err.0.contains("config.providers.vault.class"), "{err}");
        let err = ConfigTransformer::from_worker_props(&props(&[("config.providers", "file")]))
            .unwrap_err();
        assert!(err.0.contains("config.providers.file.class"), "{err}");
        assert!(ConfigTransformer::from_worker_props(&props(&[]))
            .unwrap()
            .is_none());
    }

    #[test]
    fn reverse_puts_the_placeholders_back_into_task_configs() {
        let raw = props(&[("password", "${file:/s:password}"), ("topic", "t")]);
        let tasks = vec![props(&[
            ("password", "s3cret"),
            ("topic", "t"),
            ("task.id", "0"),
        ])];
        let stored = ConfigTransformer::reverse(&raw, tasks);
        assert_eq!(stored[0]["password"], "${file:/s:password}");
        assert_eq!(stored[0]["topic"], "t");
    }
}
