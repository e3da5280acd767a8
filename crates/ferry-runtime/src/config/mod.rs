//! Worker and connector configuration, and the files they are read from.

pub mod connector;
pub mod files;
pub mod kubernetes;
pub mod override_policy;
pub mod properties;
pub mod providers;
pub mod worker;
