//! [`OutputError`]: the output stream and the writer's hold on it.

use std::sync::Arc;
use std::{fmt, io};

/// Why the output refused a call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputError {
    /// The output stream failed (its `io::Error` is inside).
    Io(SharedIoError),
    /// No output is open: call `create_file` or construct the writer over an output.
    NotOpen,
    /// An output is open already: finish it (or `close_no_finalize` it) before opening
    /// another, so that nothing it took is thrown away unasked.
    AlreadyOpen,
    /// The output failed for good while finalizing; the file was finalized with the records
    /// known to have reached it, as many as left room for the file's tail in what was
    /// written, and closed. perf reads it.
    Truncated {
        /// Records kept in the data section.
        kept_records: u64,
        /// Bytes of the data section kept.
        kept_bytes: u64,
        /// The output's error.
        error: SharedIoError,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "output stream: {e}"),
            Self::NotOpen => f.write_str("no output is open"),
            Self::AlreadyOpen => f.write_str(
                "an output is open already: finish it (or close_no_finalize it) before opening another",
            ),
            Self::Truncated {
                kept_records,
                kept_bytes,
                error,
            } => write!(
                f,
                "output stream: {error}; the file was finalized with the {kept_records} records ({kept_bytes} bytes) that reached it"
            ),
        }
    }
}

/// An `io::Error` of the output stream, shared so that [`WriterError`](super::WriterError) stays `Clone`. Two
/// are equal when they have the same kind and message.
#[derive(Clone, Debug)]
pub struct SharedIoError(pub(super) Arc<io::Error>);

impl SharedIoError {
    /// Wraps a stream's error (or, for an `io::Error` of this crate, keeps it as it is).
    pub(crate) fn new(e: io::Error) -> Self {
        SharedIoError(Arc::new(e))
    }

    /// The stream's error.
    pub fn get(&self) -> &io::Error {
        &self.0
    }

    /// Its kind.
    pub fn kind(&self) -> io::ErrorKind {
        self.0.kind()
    }
}

impl PartialEq for SharedIoError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.kind() == other.kind() && self.0.to_string() == other.0.to_string())
    }
}

impl Eq for SharedIoError {}

impl fmt::Display for SharedIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SharedIoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}
