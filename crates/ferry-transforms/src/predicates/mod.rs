//! Built-in predicates (`org.apache.kafka.connect.transforms.predicates.*`).

use crate::PredicatePlugin;

/// Every built-in predicate.
pub fn all() -> Vec<PredicatePlugin> {
    Vec::new()
}
