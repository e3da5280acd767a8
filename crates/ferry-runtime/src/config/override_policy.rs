//! `connector.client.config.override.policy` (KIP-458): which client settings a connector
//! config may override under `producer.override.`, `consumer.override.` and `admin.override.`.
//! Raw librdkafka settings (`*.override.librdkafka.*`), which Java has no counterpart for, are
//! refused unless the worker allows them (`ferry.client.config.override.librdkafka=true` with
//! policy `All`), and those that load code, run commands or read files are refused always.

use ferry_api::ConfigMap;

pub const OVERRIDE_POLICY: &str = "connector.client.config.override.policy";
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
    Principal,
    /// Java's default.
    #[default]
    All,
}

/// What a worker lets connector configs override.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientOverrides {
    pub policy: OverridePolicy,
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
            "All" => Some(Self::All),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::None => "None",
            Self::Principal => "Principal",
            Self::All => "All",
        }
    }

    fn allows(self, key: &str) -> bool {
        match self {
            Self::None => false,
            Self::Principal => matches!(
                key,
                "sasl.jaas.config" | "sasl.mechanism" | "security.protocol"
            ),
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
        Ok(ClientOverrides { policy, librdkafka })
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
        (!self.policy.allows(key)).then(|| {
            format!(
                "The '{}' policy does not allow '{key}' to be overridden in the connector configuration.",
                self.policy.name()
            )
        })
    }
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
            librdkafka: false,
        };
        assert_eq!(
            none.problem("acks").as_deref(),
            Some("The 'None' policy does not allow 'acks' to be overridden in the connector configuration.")
        );
        let principal = ClientOverrides {
            policy: OverridePolicy::Principal,
            librdkafka: false,
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
}
