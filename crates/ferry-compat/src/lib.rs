//! Ferry's differential compatibility suite: the same scenarios of REST calls and data run
//! against Apache Kafka Connect 4.1.1 (Java, `scripts/java-connect`) and against Ferry, on one
//! broker, and what each answered is compared after normalising what must differ.
//!
//! Scenarios are data (`scenarios/*.toml`, described in `scenarios/README.md`); the differences
//! Ferry is allowed to have are data too (`accepted-differences.toml`, summarised in
//! `docs/compatibility.md`). Any other difference fails the suite.

pub mod compare;
pub mod condition;
pub mod http;
pub mod kafka;
pub mod metrics;
pub mod normalize;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod template;
pub mod workers;

use std::path::{Path, PathBuf};

pub use compare::{Accepted, Difference, Kind};
pub use report::SuiteReport;
pub use runner::{run_suite, Options};
pub use scenario::Scenario;

/// This crate's directory (scenarios, accepted differences).
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (`scripts/java-connect`, `target/`).
pub fn workspace_root() -> PathBuf {
    crate_dir()
        .parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

pub fn default_scenarios_dir() -> PathBuf {
    crate_dir().join("scenarios")
}

pub fn default_accepted_file() -> PathBuf {
    crate_dir().join("accepted-differences.toml")
}
