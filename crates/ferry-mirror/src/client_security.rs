//! The client security keys of the MirrorMaker connectors' definitions, as Kafka 4.4's
//! `MirrorConnectorConfig` defines them (`security.protocol`, `config.providers`, then
//! `withClientSslSupport()` and `withClientSaslSupport()`): validation shows them with Java's
//! types, defaults and documentation, and the dedicated mode copies the file's top-level ones
//! into the connectors' configs as Java's does. The connectors' clients read theirs from the
//! `source.cluster.`/`target.cluster.` settings, as Java's do.
//!
//! The table (`client_security_keys.tsv`: name, type, default, importance, validator,
//! documentation) was listed from Kafka 4.4's `MirrorHeartbeatConnector.config()`.

use ferry_api::config::{ConfigKey, ConfigType, DefaultValue, Importance, Validator};

const TABLE: &str = include_str!("client_security_keys.tsv");

/// `[min,...,max]` or `(case insensitive) [A, B]`, as Java's validators describe themselves.
fn validator(text: &str) -> Option<Validator> {
    if let Some(values) = text
        .strip_prefix("(case insensitive) [")
        .and_then(|t| t.strip_suffix(']'))
    {
        let values: Vec<&str> = values.split(", ").collect();
        return Some(Validator::one_of_ignore_case(&values));
    }
    let (min, max) = text
        .strip_prefix('[')?
        .strip_suffix(']')?
        .split_once(",...,")?;
    Some(Validator::Range {
        min: min.parse().ok(),
        max: max.parse().ok(),
    })
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The keys, in Java's order.
pub fn keys() -> Vec<ConfigKey> {
    TABLE
        .lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let field: Vec<&str> = line.split('\t').collect();
            let at = |i: usize| field.get(i).copied().unwrap_or_default();
            let default = match at(2) {
                "<null>" => DefaultValue::Null,
                "<required>" => DefaultValue::Required,
                value => DefaultValue::Value(value.to_owned()),
            };
            let key = ConfigKey::new(
                at(0),
                ConfigType::from_java_name(at(1)),
                default,
                Importance::from_java_name(at(3)),
                &unescape(at(5)),
            );
            match validator(at(4)) {
                Some(v) => key.validator(v),
                None => key,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_is_a_key_with_what_java_gives_it() {
        let keys = keys();
        assert_eq!(keys.len(), TABLE.lines().count());
        assert_eq!(keys[0].name, "security.protocol");
        assert!(
            keys.iter().all(|k| !k.documentation.is_empty()),
            "documented"
        );
        let password = keys.iter().find(|k| k.name == "sasl.jaas.config").unwrap();
        assert_eq!(password.ty, ConfigType::Password);
        let bounded = keys
            .iter()
            .find(|k| k.name == "sasl.login.refresh.window.factor")
            .unwrap();
        assert!(bounded.validator.is_some());
        // Every validator the table names is one Ferry reads.
        for line in TABLE.lines() {
            let text = line.split('\t').nth(4).unwrap_or_default();
            assert!(text.is_empty() || validator(text).is_some(), "{text}");
        }
    }
}
