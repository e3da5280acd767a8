//! `connector.client.config.override.policy` (KIP-458): which client settings a connector
//! config may override under `producer.override.`, `consumer.override.` and `admin.override.`.
//! Raw librdkafka settings (`*.override.librdkafka.*`), which Java has no counterpart for, are
//! refused unless the worker allows them (`ferry.client.config.override.librdkafka=true` with
//! policy `All`), and those that load code, run commands or read files are refused always.

use ferry_api::ConfigMap;

pub const OVERRIDE_POLICY: &str = "connector.client.config.override.policy";
/// The client keys the `Allowlist` policy (Kafka 4.2, KIP-1188) lets connectors override.
pub const OVERRIDE_ALLOWLIST: &str = "connector.client.config.override.allowlist";
/// What Principal allowed; Java's deprecation warning tells users to allowlist these.
const PRINCIPAL_KEYS: [&str; 3] = ["sasl.jaas.config", "sasl.mechanism", "security.protocol"];
/// Ferry's worker key that lets connectors pass raw librdkafka settings (policy `All` only).
pub const LIBRDKAFKA_OVERRIDES: &str = "ferry.client.config.override.librdkafka";
pub const OVERRIDE_PREFIXES: [&str; 3] = [
    "producer.override.",
    "consumer.override.",
    "admin.override.",
];

/// librdkafka settings no connector may set: they load libraries or engines, run a command, or
/// name files for the client to read.
const NEVER_OVERRIDDEN: &[&str] = &[
    "plugin.library.paths",
    "sasl.kerberos.kinit.cmd",
    "ssl.engine.location",
    "ssl.engine.id",
    "ssl.providers",
    "ssl.ca.location",
    "ssl.ca.certificate.stores",
    "ssl.crl.location",
    "ssl.certificate.location",
    "ssl.key.location",
    "ssl.keystore.location",
    "sasl.kerberos.keytab",
    "sasl.oauthbearer.assertion.private.key.file",
    "sasl.oauthbearer.assertion.jwt.template.file",
];

/// The policy, as Java's classes name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OverridePolicy {
    None,
    /// Deprecated since Kafka 4.2 in favour of `Allowlist`.
    Principal,
    /// Only the keys of `connector.client.config.override.allowlist` (none when it is empty).
    Allowlist,
    /// Java's default.
    #[default]
    All,
}

/// What a worker lets connector configs override.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClientOverrides {
    pub policy: OverridePolicy,
    /// The `Allowlist` policy's keys.
    pub allowlist: Vec<String>,
    pub librdkafka: bool,
}

impl OverridePolicy {
    /// Java's aliases and class names; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        let simple = value.trim().rsplit('.').next().unwrap_or("");
        let name = simple
            .strip_suffix("ConnectorClientConfigOverridePolicy")
            .unwrap_or(simple);
        match name {
            "None" => Some(Self::None),
            "Principal" => Some(Self::Principal),
            "Allowlist" => Some(Self::Allowlist),
            "All" => Some(Self::All),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::None => "None",
            Self::Principal => "Principal",
            Self::Allowlist => "Allowlist",
            Self::All => "All",
        }
    }

    fn allows(self, key: &str, allowlist: &[String]) -> bool {
        match self {
            Self::None => false,
            Self::Principal => PRINCIPAL_KEYS.contains(&key),
            Self::Allowlist => allowlist.iter().any(|k| k == key),
            Self::All => true,
        }
    }
}

impl ClientOverrides {
    /// The worker's settings; an unknown policy is an error naming the key.
    pub fn from_worker_props(props: &ConfigMap) -> Result<Self, String> {
        let policy = match props.get(OVERRIDE_POLICY) {
            None => OverridePolicy::All,
            Some(v) => OverridePolicy::parse(v).ok_or_else(|| {
                format!("Invalid value {v} for configuration {OVERRIDE_POLICY}: Class {v} could not be found.")
            })?,
        };
        let librdkafka = props
            .get(LIBRDKAFKA_OVERRIDES)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let allowlist = match policy {
            OverridePolicy::Allowlist => allowlist(props)?,
            _ => Vec::new(),
        };
        match policy {
            OverridePolicy::Principal => tracing::warn!(
                "The Principal ConnectorClientConfigOverridePolicy is deprecated, use the Allowlist policy instead. To replicate the Principal policy behavior, set the {OVERRIDE_ALLOWLIST} configuration to \"{}\"",
                PRINCIPAL_KEYS.join(",")
            ),
            OverridePolicy::Allowlist => tracing::info!(
                "Setting up Allowlist policy for ConnectorClientConfigOverride. This will allow the following client configurations to be overridden. [{}]",
                allowlist.join(", ")
            ),
            _ => {}
        }
        Ok(ClientOverrides {
            policy,
            allowlist,
            librdkafka,
        })
    }

    /// The error for overriding `key` (without its `*.override.` prefix), if refused; Java's
    /// message for its policies.
    pub fn problem(&self, key: &str) -> Option<String> {
        if let Some(raw) = key.strip_prefix("librdkafka.") {
            if NEVER_OVERRIDDEN.contains(&raw) {
                return Some(format!(
                    "'{key}' loads code, runs a command or reads a file, and cannot be overridden in the connector configuration."
                ));
            }
            if !(self.librdkafka && self.policy == OverridePolicy::All) {
                return Some(format!(
                    "Raw librdkafka settings such as '{key}' cannot be overridden in the connector configuration unless the worker sets {LIBRDKAFKA_OVERRIDES}=true with the 'All' policy."
                ));
            }
            return None;
        }
        (!self.policy.allows(key, &self.allowlist)).then(|| {
            format!(
                "The '{}' policy does not allow '{key}' to be overridden in the connector configuration.",
                self.policy.name()
            )
        })
    }
}

/// The Allowlist policy's keys, parsed as Java's policy parses them (a list of distinct,
/// non-empty names; empty by default).
fn allowlist(props: &ConfigMap) -> Result<Vec<String>, String> {
    use ferry_api::config::{
        ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, Validator,
    };
    let def = ConfigDef::new().define(
        ConfigKey::new(
            OVERRIDE_ALLOWLIST,
            ConfigType::List,
            DefaultValue::Value(String::new()),
            Importance::Medium,
            "List of client configurations that can be overridden by connectors. If empty, connectors can't override any client configurations.",
        )
        .validator(Validator::distinct_list(true, false)),
    );
    let parsed = def.parse(props).map_err(|e| e.to_string())?;
    parsed.list(OVERRIDE_ALLOWLIST).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_names_and_messages() {
        assert_eq!(OverridePolicy::parse("None"), Some(OverridePolicy::None));
        assert_eq!(
            OverridePolicy::parse("org.apache.kafka.connect.connector.policy.PrincipalConnectorClientConfigOverridePolicy"),
            Some(OverridePolicy::Principal)
        );
        assert_eq!(OverridePolicy::parse("Some"), None);
        let none = ClientOverrides {
            policy: OverridePolicy::None,
            ..Default::default()
        };
        assert_eq!(
            none.problem("acks").as_deref(),
            Some("The 'None' policy does not allow 'acks' to be overridden in the connector configuration.")
        );
        let principal = ClientOverrides {
            policy: OverridePolicy::Principal,
            ..Default::default()
        };
        assert!(principal.problem("sasl.jaas.config").is_none());
        assert!(principal.problem("acks").is_some());
        let all = ClientOverrides::default();
        assert!(all.problem("acks").is_none());
        assert!(
            all.problem("librdkafka.linger.ms").is_some(),
            "raw settings need the worker's consent"
        );
        let raw = ClientOverrides {
            policy: OverridePolicy::All,
            librdkafka: true,
            ..Default::default()
        };
        assert!(raw.problem("librdkafka.linger.ms").is_none());
        assert!(raw.problem("librdkafka.plugin.library.paths").is_some());
        assert!(raw.problem("librdkafka.sasl.kerberos.kinit.cmd").is_some());
        assert!(ClientOverrides::from_worker_props(
            &[(OVERRIDE_POLICY.to_owned(), "Bogus".to_owned())]
                .into_iter()
                .collect()
        )
        .is_err());
    }

    #[test]
    fn allowlist_policy_allows_only_its_keys() {
        let props = |pairs: &[(&str, &str)]| -> ConfigMap {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let listed = ClientOverrides::from_worker_props(&props(&[
            (OVERRIDE_POLICY, "Allowlist"),
            (OVERRIDE_ALLOWLIST, "acks, linger.ms, acks"),
        ]))
        .unwrap();
        assert_eq!(listed.policy, OverridePolicy::Allowlist);
        assert_eq!(listed.allowlist, vec!["acks", "linger.ms"]);
        assert!(listed.problem("acks").is_none());
        assert_eq!(
            listed.problem("sasl.jaas.config").as_deref(),
            Some("The 'Allowlist' policy does not allow 'sasl.jaas.config' to be overridden in the connector configuration.")
        );
        let by_class = ClientOverrides::from_worker_props(&props(&[(
            OVERRIDE_POLICY,
            "org.apache.kafka.connect.connector.policy.AllowlistConnectorClientConfigOverridePolicy",
        )]))
        .unwrap();
        assert!(
            by_class.problem("acks").is_some(),
            "an empty allowlist allows nothing"
        );
        let bad = ClientOverrides::from_worker_props(&props(&[
            (OVERRIDE_POLICY, "Allowlist"),
            (OVERRIDE_ALLOWLIST, "acks,"),
        ]))
        .unwrap_err();
        assert!(bad.contains("Configuration 'connector.client.config.override.allowlist' values must not be empty."), "{bad}");
    }
}
