//! Error handling for record processing (KIP-298, Java's `RetryWithToleranceOperator`):
//! retries of retriable failures with Java's backoff, `errors.tolerance`, error logging, and
//! for sinks the dead letter queue.

mod dlq;
mod tolerance;

pub use dlq::{DeadLetterQueue, DlqSettings};
pub use tolerance::{ErrorContext, ErrorHandler, ErrorSettings, Stage};
