//! The rules both herders apply the same way (the part of Java's `AbstractHerder` that is not
//! validation, offsets or status views): Java's not-found answers, the PATCH merge, the task
//! count, the topic tracking switches and the STOPPED guard of offset changes.

use ferry_api::ConfigMap;

use super::{ConfigPatch, HerderError};
use crate::config::worker::WorkerConfig;

/// Java's 404 for a connector that does not exist.
pub fn not_found(name: &str) -> HerderError {
    HerderError::NotFound(format!("Connector {name} not found"))
}

/// Java's 404 wording for pause, resume and stop of a connector that does not exist.
pub fn unknown_connector(name: &str) -> HerderError {
    HerderError::NotFound(format!("Unknown connector {name}"))
}

/// A config with a PATCH applied: a value sets a key, `null` removes it.
pub fn patched(mut config: ConfigMap, patch: ConfigPatch) -> ConfigMap {
    for (k, v) in patch {
        match v {
            Some(v) => config.insert(k, v),
            None => config.remove(&k),
        };
    }
    config
}

/// KIP-558's switches: reading topics needs `topic.tracking.enable`, resetting them also
/// `topic.tracking.allow.reset`.
pub fn require_topic_tracking(worker: &WorkerConfig, reset: bool) -> Result<(), HerderError> {
    if !worker.topic_tracking {
        return Err(HerderError::Forbidden("Topic tracking is disabled.".into()));
    }
    if reset && !worker.topic_tracking_allow_reset {
        return Err(HerderError::Forbidden(
            "Topic tracking reset is disabled.".into(),
        ));
    }
    Ok(())
}

/// KIP-875: offsets change only for a connector that is STOPPED and has no tasks.
pub fn require_stopped(name: &str, stopped: bool, has_tasks: bool) -> Result<(), HerderError> {
    if stopped && !has_tasks {
        return Ok(());
    }
    Err(HerderError::BadRequest(format!(
        "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_sets_and_removes_keys() {
        let config: ConfigMap = [("a", "1"), ("b", "2")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let patch: ConfigPatch = [
            ("a".to_owned(), None),
            ("c".to_owned(), Some("3".to_owned())),
        ]
        .into_iter()
        .collect();
        let out = patched(config, patch);
        assert_eq!(out.get("a"), None);
        assert_eq!(out.get("b").map(String::as_str), Some("2"));
        assert_eq!(out.get("c").map(String::as_str), Some("3"));
    }

    #[test]
    fn offsets_change_only_when_stopped_without_tasks() {
        assert!(require_stopped("c", true, false).is_ok());
        assert!(matches!(
            require_stopped("c", true, true),
            Err(HerderError::BadRequest(_))
        ));
        assert!(matches!(
            require_stopped("c", false, false),
            Err(HerderError::BadRequest(_))
        ));
    }
}
