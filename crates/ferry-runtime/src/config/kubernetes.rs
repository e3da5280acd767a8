//! Strimzi's Kubernetes config providers (`io.strimzi.kafka.KubernetesSecretConfigProvider`,
//! `…KubernetesConfigMapConfigProvider`): `${provider:[namespace/]name:key}` read from a Secret
//! or ConfigMap through the pod's service account, as their fabric8 client does in a pod: the
//! API server from `KUBERNETES_SERVICE_HOST`/`_PORT`, the token, CA and namespace from the
//! mounted service account (the token re-read at every lookup, since Kubernetes rotates it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use regex::Regex;

pub const SECRET_PROVIDER: &str = "io.strimzi.kafka.KubernetesSecretConfigProvider";
pub const CONFIG_MAP_PROVIDER: &str = "io.strimzi.kafka.KubernetesConfigMapConfigProvider";

const SERVICE_ACCOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Secret,
    ConfigMap,
}

impl Resource {
    fn plural(self) -> &'static str {
        match self {
            Resource::Secret => "secrets",
            Resource::ConfigMap => "configmaps",
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Resource::Secret => "Secret",
            Resource::ConfigMap => "ConfigMap",
        }
    }
}

#[derive(Debug, Clone)]
pub struct KubernetesProvider {
    pub name: String,
    pub resource: Resource,
    /// Joins the values of every key a glob matches (`param.separator`, default a newline).
    pub separator: String,
}

impl KubernetesProvider {
    /// The data of the resource at `path` (`namespace/name`, or `name` in the pod's namespace).
    pub fn values(&self, path: &str) -> Result<HashMap<String, String>, String> {
        let (namespace, name) = match path.split_once('/') {
            Some((ns, name)) => (ns.to_owned(), name.to_owned()),
            None => (self.own_namespace()?, path.to_owned()),
        };
        let valid = Regex::new(r"^[a-z0-9.-]+$").expect("the name pattern compiles");
        if !valid.is_match(&namespace) || !valid.is_match(&name) {
            return Err(format!(
                "Invalid path {path} for config provider {}: expected [namespace/]name of a Kubernetes {}",
                self.name,
                self.resource.kind()
            ));
        }
        let server = self.api_server()?;
        let token_path = Path::new(SERVICE_ACCOUNT).join("token");
        let token = std::fs::read_to_string(&token_path).map_err(|e| {
            format!(
                "Config provider {} cannot read the service account token {}: {e}",
                self.name,
                token_path.display()
            )
        })?;
        let url = format!(
            "{server}/api/v1/namespaces/{namespace}/{}/{name}",
            self.resource.plural()
        );
        let ca = Path::new(SERVICE_ACCOUNT).join("ca.crt");
        let resource = self.resource;
        let provider = self.name.clone();
        // reqwest's blocking client must not run on an async runtime's thread.
        let answer = std::thread::spawn(move || get(&url, token.trim(), &ca))
            .join()
            .map_err(|_| format!("Config provider {provider}: the API request panicked"))?;
        let (status, body) = answer.map_err(|e| {
            format!(
                "Config provider {} could not reach the Kubernetes API server at {server}: {e}",
                self.name
            )
        })?;
        if status == 404 {
            return Err(format!(
                "{} {name} in namespace {namespace} not found",
                resource.kind()
            ));
        }
        let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        if status != 200 {
            let message = json["message"].as_str().unwrap_or(&body);
            return Err(format!(
                "Config provider {} could not read {} {namespace}/{name} from {server}: HTTP {status}: {message}",
                self.name,
                resource.kind()
            ));
        }
        Ok(data_of(resource, &json))
    }

    /// Every key `glob` matches, sorted by key and joined by the separator, as Strimzi's
    /// providers answer (nothing matched: an empty value).
    pub fn lookup(&self, values: &HashMap<String, String>, glob: &str) -> String {
        let pattern = glob_regex(glob);
        let mut keys: Vec<&String> = values.keys().filter(|k| pattern.is_match(k)).collect();
        keys.sort();
        keys.iter()
            .map(|k| values[*k].as_str())
            .collect::<Vec<_>>()
            .join(&self.separator)
    }

    fn own_namespace(&self) -> Result<String, String> {
        let path = PathBuf::from(SERVICE_ACCOUNT).join("namespace");
        std::fs::read_to_string(&path)
            .map(|ns| ns.trim().to_owned())
            .map_err(|e| {
                format!(
                    "Config provider {} needs a namespace: the path names none and {} cannot be read: {e}",
                    self.name,
                    path.display()
                )
            })
    }

    fn api_server(&self) -> Result<String, String> {
        let host = std::env::var("KUBERNETES_SERVICE_HOST").map_err(|_| {
            format!(
                "Config provider {} ({}) needs the Kubernetes API server, and none is reachable: KUBERNETES_SERVICE_HOST is not set, so this worker is not running in a Kubernetes pod",
                self.name,
                match self.resource {
                    Resource::Secret => SECRET_PROVIDER,
                    Resource::ConfigMap => CONFIG_MAP_PROVIDER,
                }
            )
        })?;
        let port = std::env::var("KUBERNETES_SERVICE_PORT").unwrap_or_else(|_| "443".into());
        Ok(if host.contains(':') {
            format!("https://[{host}]:{port}")
        } else {
            format!("https://{host}:{port}")
        })
    }
}

fn get(url: &str, token: &str, ca: &Path) -> Result<(u16, String), String> {
    let mut builder = reqwest::blocking::Client::builder().timeout(REQUEST_TIMEOUT);
    if let Ok(pem) = std::fs::read(ca) {
        for cert in reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| e.to_string())? {
            builder = builder.add_root_certificate(cert);
        }
    }
    let client = builder.build().map_err(|e| e.to_string())?;
    let response = client
        .get(url)
        .bearer_auth(token)
        .send()
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    Ok((status, response.text().map_err(|e| e.to_string())?))
}

/// A Secret's `data` is base64; a ConfigMap has `data` as text and `binaryData` as base64.
fn data_of(resource: Resource, json: &serde_json::Value) -> HashMap<String, String> {
    let decode = |v: &serde_json::Value| {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or_default())
            .unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let mut out = HashMap::new();
    let fields: &[(&str, bool)] = match resource {
        Resource::Secret => &[("data", true)],
        Resource::ConfigMap => &[("data", false), ("binaryData", true)],
    };
    for (field, base64) in fields {
        if let Some(map) = json[*field].as_object() {
            for (k, v) in map {
                let value = if *base64 {
                    decode(v)
                } else {
                    v.as_str().unwrap_or_default().to_owned()
                };
                out.insert(k.clone(), value);
            }
        }
    }
    out
}

/// Java's `glob:` path matcher for a key: `*` and `?` (keys have no `/`), `[…]` classes and
/// `{a,b}` alternatives.
fn glob_regex(glob: &str) -> Regex {
    let mut re = String::from("^");
    let mut in_class = false;
    let mut in_group = false;
    for c in glob.chars() {
        match c {
            '*' if !in_class => re.push_str(".*"),
            '?' if !in_class => re.push('.'),
            '[' if !in_class => {
                in_class = true;
                re.push('[');
            }
            ']' if in_class => {
                in_class = false;
                re.push(']');
            }
            '!' if in_class && re.ends_with('[') => re.push('^'),
            '{' if !in_class && !in_group => {
                in_group = true;
                re.push_str("(?:");
            }
            ',' if in_group && !in_class => re.push('|'),
            '}' if in_group && !in_class => {
                in_group = false;
                re.push(')');
            }
            c if in_class => re.push(c),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).unwrap_or_else(|_| {
        Regex::new(&format!("^{}$", regex::escape(glob))).expect("an escaped key compiles")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider() -> KubernetesProvider {
        KubernetesProvider {
            name: "strimzisecrets".into(),
            resource: Resource::Secret,
            separator: "\n".into(),
        }
    }

    #[test]
    fn glob_keys_join_every_match_in_key_order() {
        let values: HashMap<String, String> = [
            ("b.crt", "B"),
            ("a.crt", "A"),
            ("user.key", "K"),
            ("user.password", "P"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let p = provider();
        assert_eq!(p.lookup(&values, "*.crt"), "A\nB");
        assert_eq!(p.lookup(&values, "user.key"), "K");
        assert_eq!(p.lookup(&values, "user.{key,password}"), "K\nP");
        assert_eq!(p.lookup(&values, "[ab].crt"), "A\nB");
        assert_eq!(p.lookup(&values, "[!a].crt"), "B");
        assert_eq!(p.lookup(&values, "nothing"), "");
        // `.` is literal, not any character.
        assert_eq!(p.lookup(&values, "a?crt"), "A");
        assert_eq!(p.lookup(&values, "axcrt"), "");
    }

    #[test]
    fn secret_and_config_map_data_decode_as_the_providers_do() {
        let secret = serde_json::json!({"data": {"ca.crt": "LS0tLS1CRUdJTg=="}});
        assert_eq!(data_of(Resource::Secret, &secret)["ca.crt"], "-----BEGIN");
        let map = serde_json::json!({"data": {"a": "text"}, "binaryData": {"b": "Ynl0ZXM="}});
        let map = data_of(Resource::ConfigMap, &map);
        assert_eq!(map["a"], "text");
        assert_eq!(map["b"], "bytes");
    }

    #[test]
    fn outside_a_pod_the_lookup_says_no_api_server_is_reachable() {
        if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
            panic!("this test expects to run outside Kubernetes (KUBERNETES_SERVICE_HOST is set)");
        }
        let err = provider().values("ns/my-secret").unwrap_err();
        assert!(err.contains("strimzisecrets"), "{err}");
        assert!(err.contains(SECRET_PROVIDER), "{err}");
        assert!(err.contains("KUBERNETES_SERVICE_HOST is not set"), "{err}");
        let err = provider().values("Bad/Name").unwrap_err();
        assert!(err.contains("Invalid path Bad/Name"), "{err}");
    }
}
