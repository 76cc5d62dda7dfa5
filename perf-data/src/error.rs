//! [`DataError`]: why a command failed, each said in one line.

use std::io;
use std::path::PathBuf;

/// Why `perf-data` could not do what it was asked. `Display` is one line, for the user.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The input could not be read.
    #[error("cannot read {path}: {source}")]
    ReadInput {
        /// The input (`-` for stdin).
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The input is not a perf.data file or stream.
    #[error("{path}: not a perf.data file (magic {magic:02x?})")]
    NotPerfData {
        /// The input.
        path: PathBuf,
        /// Its first bytes.
        magic: Vec<u8>,
    },
    /// The input is a perf.data file whose content cannot be used.
    #[error("{path}: {what}")]
    BadInput {
        /// The input.
        path: PathBuf,
        /// What is wrong, and where.
        what: String,
    },
    /// The writer refused what the input holds.
    #[error("{path}: {what}: {source}")]
    Writer {
        /// The input.
        path: PathBuf,
        /// What was being written.
        what: String,
        /// The writer's reason.
        source: perf_writer_std::WriterError,
    },
    /// The output could not be created or written.
    #[error("cannot write {path}: {source}")]
    WriteOutput {
        /// The output (`-` for stdout).
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

impl DataError {
    /// A [`DataError::BadInput`] of `path`.
    pub fn bad(path: &std::path::Path, what: impl Into<String>) -> Self {
        DataError::BadInput {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}
