//! `RegexRouter`: renames the topic when the whole topic matches `regex`, replacing the first
//! match with `replacement` as Java's `Matcher.replaceFirst` does (`$1` or `${name}` for groups,
//! `\` to take the next character literally).
//!
//! Regular expressions use the `regex` crate's syntax, which covers the usual Java constructs but
//! not look-around or back-references.

use std::sync::Arc;

use ferry_api::config::{
    ConfigDef, ConfigKey, ConfigType, ConfigValue, DefaultValue, Importance, Validator,
};
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};
use regex::{Captures, Regex};

pub const REGEX_CONFIG: &str = "regex";
pub const REPLACEMENT_CONFIG: &str = "replacement";

/// Why `pattern` is not a usable regular expression, in the words of Java's `RegexValidator`.
pub(crate) fn regex_problem(pattern: &str) -> Option<String> {
    Regex::new(pattern)
        .err()
        .map(|e| format!("Invalid regex: {e}"))
}

/// Java's `RegexValidator`.
pub(crate) fn regex_validator() -> Validator {
    Validator::Custom {
        description: "valid regex".to_owned(),
        check: Arc::new(|value| match value {
            ConfigValue::String(pattern) => regex_problem(pattern).map_or(Ok(()), Err),
            _ => Ok(()),
        }),
    }
}

/// A regex that matches only the whole of a text (Java's `Matcher.matches`).
pub(crate) fn whole_match_regex(pattern: &str) -> Result<Regex, regex::Error> {
    Regex::new(&format!(r"\A(?:{pattern})\z"))
}

/// The keys `RegexRouter` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                REGEX_CONFIG,
                ConfigType::String,
                DefaultValue::Required,
                Importance::High,
                "The regular expression the whole topic name must match.",
            )
            .validator(regex_validator()),
        )
        .define(ConfigKey::new(
            REPLACEMENT_CONFIG,
            ConfigType::String,
            DefaultValue::Required,
            Importance::High,
            "The new topic name; $n inserts capture group n.",
        ))
}

/// Expands a replacement for one match as Java's `Matcher.appendReplacement` does.
pub(crate) fn expand_java_replacement(
    regex: &Regex,
    caps: &Captures<'_>,
    replacement: &str,
) -> Result<String, String> {
    let group_count = regex.captures_len() - 1;
    let chars: Vec<char> = replacement.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                i += 1;
                let escaped = chars
                    .get(i)
                    .ok_or_else(|| "character to be escaped is missing".to_owned())?;
                out.push(*escaped);
                i += 1;
            }
            '$' => {
                i += 1;
                let Some(&next) = chars.get(i) else {
                    return Err("Illegal group reference: group index is missing".to_owned());
                };
                if next == '{' {
                    i += 1;
                    let start = i;
                    while chars.get(i).is_some_and(char::is_ascii_alphanumeric) {
                        i += 1;
                    }
                    let name: String = chars[start..i].iter().collect();
                    if name.is_empty() {
                        return Err("named capturing group has 0 length name".to_owned());
                    }
                    if chars.get(i) != Some(&'}') {
                        return Err("named capturing group is missing trailing '}'".to_owned());
                    }
                    i += 1;
                    if !regex.capture_names().any(|n| n == Some(name.as_str())) {
                        return Err(format!("No group with name {{{name}}}"));
                    }
                    if let Some(m) = caps.name(&name) {
                        out.push_str(m.as_str());
                    }
                } else {
                    let Some(first) = next.to_digit(10) else {
                        return Err("Illegal group reference".to_owned());
                    };
                    i += 1;
                    let mut group = first as usize;
                    // Further digits belong to the reference while it still names a group.
                    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                        let longer = group * 10 + d as usize;
                        if longer > group_count {
                            break;
                        }
                        group = longer;
                        i += 1;
                    }
                    if group > group_count {
                        return Err(format!("No group {group}"));
                    }
                    if let Some(m) = caps.get(group) {
                        out.push_str(m.as_str());
                    }
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

pub struct RegexRouter {
    whole: Option<Regex>,
    search: Option<Regex>,
    replacement: String,
}

impl Default for RegexRouter {
    fn default() -> Self {
        Self::new()
    }
}

impl RegexRouter {
    pub fn new() -> Self {
        RegexRouter {
            whole: None,
            search: None,
            replacement: String::new(),
        }
    }

    /// The new topic for `topic`, or `None` when it does not match.
    fn route(&self, topic: &str) -> Result<Option<String>, ConnectError> {
        let (Some(whole), Some(search)) = (&self.whole, &self.search) else {
            return Err(ConnectError::other("RegexRouter is not configured"));
        };
        if !whole.is_match(topic) {
            return Ok(None);
        }
        // Java's replaceFirst searches afresh, so the replaced match is the first one found,
        // which a lazy pattern may make shorter than the whole topic.
        let Some(caps) = search.captures(topic) else {
            return Ok(Some(topic.to_owned()));
        };
        let m = caps.get(0).map_or(0..0, |m| m.range());
        let expanded = expand_java_replacement(search, &caps, &self.replacement)
            .map_err(ConnectError::other)?;
        Ok(Some(format!(
            "{}{expanded}{}",
            &topic[..m.start],
            &topic[m.end..]
        )))
    }
}

impl Transformation for RegexRouter {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        let pattern = parsed.string(REGEX_CONFIG)?.unwrap_or_default();
        let invalid = |e: regex::Error| ConnectError::other(format!("Invalid regex: {e}"));
        self.search = Some(Regex::new(&pattern).map_err(invalid)?);
        self.whole = Some(whole_match_regex(&pattern).map_err(invalid)?);
        self.replacement = parsed.string(REPLACEMENT_CONFIG)?.unwrap_or_default();
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        if let Some(topic) = self.route(record.topic())? {
            record.set_topic(topic);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::record::SinkRecord;

    fn router(regex: &str, replacement: &str) -> RegexRouter {
        let mut router = RegexRouter::new();
        let props = [
            ("regex".to_owned(), regex.to_owned()),
            ("replacement".to_owned(), replacement.to_owned()),
        ]
        .into_iter()
        .collect();
        router.configure(&props).unwrap();
        router
    }

    fn route(regex: &str, replacement: &str, topic: &str) -> String {
        let mut record = SinkRecord {
            topic: topic.to_owned(),
            ..Default::default()
        };
        assert!(router(regex, replacement).apply(&mut record).unwrap());
        record.topic
    }

    #[test]
    fn java_cases() {
        assert_eq!(route("foo", "bar", "foo"), "bar");
        assert_eq!(route("foo", "bar", "orig"), "orig");
        assert_eq!(route("(.*)", "$1", "orig"), "orig");
        assert_eq!(route("(.*)", "prefix-$1", "orig"), "prefix-orig");
        assert_eq!(route("(.*)", "$1-suffix", "orig"), "orig-suffix");
        assert_eq!(
            route(r"(.*)-(\d\d\d\d\d\d\d\d)", "$1", "index-20160117"),
            "index"
        );
    }

    #[test]
    fn only_whole_topics_are_rerouted() {
        assert_eq!(route("foo", "bar", "foo-1"), "foo-1");
        assert_eq!(route("o", "0", "foo"), "foo");
    }

    #[test]
    fn java_replacement_syntax() {
        assert_eq!(route("(a)(b)", r"\$1-$2$1", "ab"), "$1-ba");
        assert_eq!(route("(?<first>a)b", "${first}!", "ab"), "a!");
        // `$12` with two groups is group 1 followed by a literal 2.
        assert_eq!(route("(a)(b)", "$12", "ab"), "a2");
        // An unmatched optional group expands to nothing.
        assert_eq!(route("(x)?ab", "[$1]", "ab"), "[]");
        // Replace-first searches again, so a lazy pattern replaces only what it first finds.
        assert_eq!(route("(.*?)", "x", "orig"), "xorig");
    }

    #[test]
    fn bad_replacements_fail_when_applied() {
        for (replacement, message) in [
            ("$3", "No group 3"),
            ("$x", "Illegal group reference"),
            ("a$", "Illegal group reference: group index is missing"),
            ("a\\", "character to be escaped is missing"),
            ("${nope}", "No group with name {nope}"),
            ("${a", "named capturing group is missing trailing '}'"),
        ] {
            let mut record = SinkRecord {
                topic: "ab".to_owned(),
                ..Default::default()
            };
            let err = router("(a)b", replacement).apply(&mut record).unwrap_err();
            assert_eq!(err.to_string(), message);
            assert_eq!(record.topic, "ab");
        }
    }

    #[test]
    fn config_errors() {
        let err = RegexRouter::new()
            .configure(&[("regex".to_owned(), "[".to_owned())].into_iter().collect())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Invalid value [ for configuration regex: Invalid regex:"),
            "{err}"
        );
        assert!(
            err.contains("Missing required configuration \"replacement\""),
            "{err}"
        );
    }
}
