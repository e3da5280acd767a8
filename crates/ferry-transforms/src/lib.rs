//! Apache Kafka's built-in single message transforms and predicates, under the same class names
//! and config keys. Each plugin is listed once in [`transformations`] or [`predicates`].

mod util;

pub mod predicates;

use ferry_api::transform::{Predicate, Transformation};

pub use util::Part;

/// A transform class: its Java class name and how to make one.
pub struct TransformPlugin {
    pub class_name: &'static str,
    pub create: fn() -> Box<dyn Transformation>,
}

/// A predicate class.
pub struct PredicatePlugin {
    pub class_name: &'static str,
    pub create: fn() -> Box<dyn Predicate>,
}

/// Every built-in transform, with `$Key` and `$Value` variants listed separately.
pub fn transformations() -> Vec<TransformPlugin> {
    Vec::new()
}

/// Every built-in predicate.
pub fn predicates() -> Vec<PredicatePlugin> {
    predicates::all()
}
