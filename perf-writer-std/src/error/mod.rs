//! [`WriterError`]: why the writer refused something, one enum per concern: the output,
//! records, event descriptions, tracing data, features, compression.

mod compression;
mod event;
mod feature;
mod output;
mod record;
mod tracing;

pub use crate::check::refusal::{Contradiction, PendingSummary};
pub use compression::CompressionError;
pub use event::EventError;
pub use feature::FeatureError;
pub use output::{OutputError, SharedIoError};
pub use record::{AuxtraceNeed, PartialRecord, RecordError, RecordProblem, StatProblem};
pub use tracing::TracingError;

use perf_encode::records::FramingError;
use perf_encode::EncodeError;
use std::sync::Arc;
use std::{fmt, io};

/// Why a writer call failed: the error of every fallible method of the native writer
/// ([`PerfWriter`](crate::PerfWriter)), by concern; the output stream's own errors arrive
/// as [`OutputError::Io`].
///
/// The compatibility face ([`PerfDataFileWriter`](crate::PerfDataFileWriter)) keeps
/// `tracepoint_perf` 0.5's `bool` and `io::Result`; an `io::Error` it returns carries this
/// error inside ([`WriterError::from_io`] reaches it).
///
/// ```
/// use perf_writer_std::{FileOutput, OutputError, PerfDataFileWriter, PerfWriter, WriterError};
/// let mut w = PerfWriter::<FileOutput>::new();
/// let not_open = WriterError::Output(OutputError::NotOpen);
/// assert_eq!(w.write_event_data(&[0; 8]), Err(not_open.clone()));
/// // The 0.5 face: io::Result, with the WriterError inside.
/// let mut face = PerfDataFileWriter::from(w);
/// let err = face.write_event_data(&[0; 8]).unwrap_err();
/// assert_eq!(WriterError::from_io(&err), Some(&not_open));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriterError {
    /// The output stream failed, none is open, or finalize kept what reached it.
    Output(OutputError),
    /// Records were refused (framing, strict mode, a record left unfinished).
    Record(RecordError),
    /// An event description was refused.
    Event(EventError),
    /// A tracepoint format or a part of the tracing data was refused.
    Tracing(TracingError),
    /// A feature header was refused.
    Feature(FeatureError),
    /// A compression setting was refused, or zstd failed.
    Compression(CompressionError),
    /// A value does not fit the format.
    Encode(EncodeError),
}

/// `e` as an `io::Error` of the output layer, with the `WriterError` inside
/// ([`WriterError::from_io`] reaches it).
pub(crate) fn io_err(e: impl Into<WriterError>) -> io::Error {
    io::Error::from(e.into())
}

impl WriterError {
    /// The `WriterError` inside an `io::Error` returned by this crate, if any.
    pub fn from_io(e: &io::Error) -> Option<&WriterError> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<WriterError>())
    }
}

impl fmt::Display for WriterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Output(e) => e.fmt(f),
            Self::Record(e) => e.fmt(f),
            Self::Event(e) => e.fmt(f),
            Self::Tracing(e) => e.fmt(f),
            Self::Feature(e) => e.fmt(f),
            Self::Compression(e) => e.fmt(f),
            Self::Encode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WriterError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Output(OutputError::Io(e) | OutputError::Truncated { error: e, .. }) => {
                e.source()
            }
            _ => None,
        }
    }
}

/// An error of the output stream, or (when it came from this crate) the `WriterError` it
/// carries.
impl From<io::Error> for WriterError {
    fn from(e: io::Error) -> Self {
        match WriterError::from_io(&e) {
            Some(inner) => inner.clone(),
            None => WriterError::Output(OutputError::Io(SharedIoError(Arc::new(e)))),
        }
    }
}

macro_rules! from_concern {
    ($($concern:ident($error:ty)),* $(,)?) => {
        $(impl From<$error> for WriterError {
            fn from(e: $error) -> Self {
                WriterError::$concern(e)
            }
        })*
    };
}

from_concern!(
    Output(OutputError),
    Record(RecordError),
    Event(EventError),
    Tracing(TracingError),
    Feature(FeatureError),
    Compression(CompressionError),
    Encode(EncodeError),
);

impl From<FramingError> for WriterError {
    fn from(e: FramingError) -> Self {
        WriterError::Record(RecordError::Framing(e))
    }
}

/// The stream's own error for [`OutputError::Io`] (when no clone of it is alive), else an
/// `io::Error` carrying the `WriterError`.
impl From<WriterError> for io::Error {
    fn from(e: WriterError) -> Self {
        let e = match e {
            WriterError::Output(OutputError::Io(SharedIoError(shared))) => {
                match Arc::try_unwrap(shared) {
                    Ok(original) => return original,
                    Err(shared) => WriterError::Output(OutputError::Io(SharedIoError(shared))),
                }
            }
            other => other,
        };
        let kind = match &e {
            WriterError::Output(
                OutputError::Io(shared) | OutputError::Truncated { error: shared, .. },
            ) => shared.kind(),
            // A closed writer is InvalidInput, as tracepoint_perf 0.5 says.
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}
