//! The error taxonomy every layer of Ferry decides on.

use crate::config::ConfigError;

type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong in a plugin or in the data it handled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// A transient failure: the same operation may succeed if retried (Java's `RetriableException`).
    #[error("{message}")]
    Retriable {
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// A record or schema that cannot be handled (Java's `DataException`).
    #[error("{message}")]
    Data { message: String },
    /// Invalid configuration, with every problem found.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An exception thrown by a Java plugin in the plugin host, with its Java stack trace.
    #[error("{message}")]
    Java {
        class: String,
        message: String,
        trace: String,
        retriable: bool,
    },
    /// Any other failure (Java's `ConnectException`).
    #[error("{message}")]
    Other {
        message: String,
        #[source]
        source: Option<BoxError>,
    },
}

impl ConnectError {
    pub fn retriable(message: impl Into<String>) -> Self {
        Self::Retriable {
            message: message.into(),
            source: None,
        }
    }

    pub fn data(message: impl Into<String>) -> Self {
        Self::Data {
            message: message.into(),
        }
    }

    pub fn other(message: impl Into<String>) -> Self {
        Self::Other {
            message: message.into(),
            source: None,
        }
    }

    /// A failure caused by another error, keeping the cause for the task's trace.
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::Other {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    pub fn is_retriable(&self) -> bool {
        matches!(
            self,
            Self::Retriable { .. }
                | Self::Java {
                    retriable: true,
                    ..
                }
        )
    }

    /// The Java exception class this error corresponds to, used in traces and error headers.
    pub fn java_class(&self) -> &str {
        match self {
            Self::Java { class, .. } => class,
            Self::Retriable { .. } => "org.apache.kafka.connect.errors.RetriableException",
            Self::Data { .. } => "org.apache.kafka.connect.errors.DataException",
            Self::Config(_) => "org.apache.kafka.common.config.ConfigException",
            Self::Other { .. } => "org.apache.kafka.connect.errors.ConnectException",
        }
    }

    /// A Java-style trace: the exception line followed by each cause, as Connect shows in status.
    pub fn trace(&self) -> String {
        if let Self::Java { trace, .. } = self {
            return trace.clone();
        }
        let mut out = format!("{}: {}", self.java_class(), self);
        let mut cause = std::error::Error::source(self);
        while let Some(err) = cause {
            out.push_str("\nCaused by: ");
            out.push_str(&err.to_string());
            cause = err.source();
        }
        out
    }
}

pub type Result<T, E = ConnectError> = std::result::Result<T, E>;
