//! Built-in predicates (`org.apache.kafka.connect.transforms.predicates.*`).

pub mod has_header_key;
pub mod record_is_tombstone;
pub mod topic_name_matches;

use crate::PredicatePlugin;

pub use has_header_key::HasHeaderKey;
pub use record_is_tombstone::RecordIsTombstone;
pub use topic_name_matches::TopicNameMatches;

/// Every built-in predicate.
pub fn all() -> Vec<PredicatePlugin> {
    vec![
        PredicatePlugin {
            class_name: "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
            create: || Box::new(HasHeaderKey::new()),
        },
        PredicatePlugin {
            class_name: "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
            create: || Box::new(RecordIsTombstone::new()),
        },
        PredicatePlugin {
            class_name: "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            create: || Box::new(TopicNameMatches::new()),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_predicate_is_listed_once() {
        let names: Vec<_> = all().iter().map(|p| p.class_name).collect();
        assert_eq!(names.len(), 3);
        for plugin in all() {
            // Each can be made and reports its config keys.
            let predicate = (plugin.create)();
            let _ = predicate.config_def();
        }
    }
}
