//! Config providers (KIP-297): `${provider:path:key}` variables in worker and connector configs,
//! resolved from the providers Kafka ships, configured with Java's keys
//! (`config.providers=file`, `config.providers.file.class=…`, `config.providers.file.param.*`).
//! Connector configs are stored and answered with their variables; only connectors, tasks and
//! clients see the resolved values.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ferry_api::ConfigMap;
use regex::Regex;

use super::kubernetes::{self, KubernetesProvider, Resource};

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

/// Where values come from: Kafka's three providers and Strimzi's two.
#[derive(Debug, Clone)]
enum Provider {
    /// A properties file per path.
    File { allowed: Option<Vec<PathBuf>> },
    /// A directory per path, one value per regular file (its name the key).
    Directory { allowed: Option<Vec<PathBuf>> },
    /// The process environment, limited by a pattern; the path must be empty.
    Env { allow: Regex },
    /// Strimzi's Secret and ConfigMap providers, through the Kubernetes API.
    Kubernetes(KubernetesProvider),
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
            class @ (kubernetes::SECRET_PROVIDER | kubernetes::CONFIG_MAP_PROVIDER) => {
                Ok(Provider::Kubernetes(KubernetesProvider {
                    name: name.to_owned(),
                    resource: if class == kubernetes::SECRET_PROVIDER {
                        Resource::Secret
                    } else {
                        Resource::ConfigMap
                    },
                    separator: params
                        .get("separator")
                        .cloned()
                        .unwrap_or_else(|| "\n".to_owned()),
                }))
            }
            other => Err(ProviderError(format!(
                "Invalid value {other} for configuration config.providers.{name}.class: Ferry provides {FILE_PROVIDER}, {DIRECTORY_PROVIDER}, {ENV_PROVIDER}, {} and {}",
                kubernetes::SECRET_PROVIDER,
                kubernetes::CONFIG_MAP_PROVIDER
            ))),
        }
    }

    /// The values at `path` (all of them; the caller picks its keys). Kafka's providers log
    /// what they cannot read and answer nothing; the Kubernetes ones answer why.
    fn values(&self, path: &str) -> Result<HashMap<String, String>, String> {
        Ok(match self {
            Provider::File { allowed } => {
                if !permitted(allowed, path) {
                    tracing::warn!(path, "The path is not in the provider's allowed.paths");
                    return Ok(HashMap::new());
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
                    return Ok(HashMap::new());
                }
                let Ok(entries) = std::fs::read_dir(path) else {
                    tracing::warn!(path, "Could not read the config provider's directory");
                    return Ok(HashMap::new());
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
                    return Ok(HashMap::new());
                }
                std::env::vars()
                    .filter(|(k, _)| allow.is_match(k))
                    .collect()
            }
            Provider::Kubernetes(k) => return k.values(path),
        })
    }

    fn lookup(&self, values: &HashMap<String, String>, key: &str) -> Option<String> {
        match self {
            Provider::Kubernetes(k) => Some(k.lookup(values, key)),
            _ => values.get(key).cloned(),
        }
    }
}

/// A worker config with its own variables resolved by the providers it declares, as Java
/// resolves worker configs; a provider that cannot answer (a Kubernetes API server out of
/// reach) stops start-up with its reason.
pub fn resolve_worker_props(props: &ConfigMap) -> Result<ConfigMap, ProviderError> {
    match ConfigTransformer::from_worker_props(props)? {
        Some(t) => t.try_transform(props),
        None => Ok(props.clone()),
    }
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
    /// others stay as written, as Java leaves them (a provider that cannot answer is logged).
    pub fn transform(&self, config: &ConfigMap) -> ConfigMap {
        let (resolved, errors) = self.resolve(config);
        for error in errors {
            tracing::warn!("{error}");
        }
        resolved
    }

    /// As `transform`, but the first provider that cannot answer is an error.
    pub fn try_transform(&self, config: &ConfigMap) -> Result<ConfigMap, ProviderError> {
        let (resolved, mut errors) = self.resolve(config);
        match errors.is_empty() {
            true => Ok(resolved),
            false => Err(ProviderError(errors.swap_remove(0))),
        }
    }

    fn resolve(&self, config: &ConfigMap) -> (ConfigMap, Vec<String>) {
        // Each (provider, path) is read once per transformation.
        let mut cache: HashMap<(String, String), Result<HashMap<String, String>, String>> =
            HashMap::new();
        let mut errors = Vec::new();
        let resolved = config
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
                        match values {
                            Ok(values) => provider.lookup(values, key).unwrap_or(whole),
                            Err(e) => {
                                errors.push(format!("{k}: {e}"));
                                whole
                            }
                        }
                    })
                    .into_owned();
                (k.clone(), resolved)
            })
            .collect();
        errors.dedup();
        (resolved, errors)
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

    /// Strimzi declares its four providers in every worker config it generates; the Kubernetes
    /// one is asked only when a variable names it.
    #[test]
    fn strimzi_s_providers_configure_and_an_unreachable_api_server_stops_the_worker() {
        let strimzi = [
            (
                "config.providers",
                "strimzienv,strimzifile,strimzidir,strimzisecrets",
            ),
            ("config.providers.strimzienv.class", ENV_PROVIDER),
            ("config.providers.strimzienv.param.allowlist.pattern", ".*"),
            ("config.providers.strimzifile.class", FILE_PROVIDER),
            ("config.providers.strimzidir.class", DIRECTORY_PROVIDER),
            (
                "config.providers.strimzidir.param.allowed.paths",
                "/opt/kafka",
            ),
            (
                "config.providers.strimzisecrets.class",
                kubernetes::SECRET_PROVIDER,
            ),
        ];
        let mut worker = props(&strimzi);
        worker.insert("group.id".into(), "connect-cluster".into());
        assert_eq!(resolve_worker_props(&worker).unwrap(), worker);
        worker.insert(
            "ssl.truststore.certificates".into(),
            "${strimzisecrets:myproject/my-connect-connect-tls-trusted-certs:ca.crt}".into(),
        );
        let err = resolve_worker_props(&worker).unwrap_err();
        assert!(
            err.0
                .starts_with("ssl.truststore.certificates: Config provider strimzisecrets"),
            "{err}"
        );
        assert!(err.0.contains("KUBERNETES_SERVICE_HOST"), "{err}");
        // A connector's config keeps going with the variable as written.
        let t = ConfigTransformer::from_worker_props(&worker)
            .unwrap()
            .unwrap();
        let raw = props(&[("password", "${strimzisecrets:ns/db:password}")]);
        assert_eq!(t.transform(&raw), raw);
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
