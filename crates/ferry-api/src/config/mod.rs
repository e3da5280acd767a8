//! Declared, validated configuration (Java's `ConfigDef`).

mod def;
mod error;
mod parsed;
mod validators;

pub use def::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance, KeyReport, Width};
pub use error::{ConfigError, KeyProblem};
pub use parsed::{split_list, ConfigValue, ParsedConfig};
pub use validators::{CustomCheck, Validator};
