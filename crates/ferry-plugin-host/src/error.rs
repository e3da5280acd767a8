//! What can go wrong between Ferry and its plugin host.

use ferry_api::ConnectError;

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("Could not start the plugin host: {0}")]
    Start(String),
    /// The host process is gone; the message names how it ended.
    #[error("{0}")]
    Exited(String),
    #[error("The plugin host did not answer {op} within {ms} ms")]
    Timeout { op: String, ms: u128 },
    #[error("The plugin host sent an invalid answer to {op}: {why}")]
    Protocol { op: String, why: String },
    /// A plugin threw; carries its Java class and trace.
    #[error(transparent)]
    Plugin(ConnectError),
}

impl From<HostError> for ConnectError {
    fn from(e: HostError) -> Self {
        match e {
            HostError::Plugin(e) => e,
            other => ConnectError::other(other.to_string()),
        }
    }
}
