//! [`WriterError`]: why the writer refused something.

use perf_encode::records::{FramingError, ParseError};
use perf_encode::EncodeError;
use std::{fmt, io};

/// Why a writer call was refused. Methods with the `tracepoint_perf` 0.5 signatures return
/// `io::Result` (this error is inside: `io::Error::get_ref` and `downcast_ref` reach it) or
/// `bool`; the `try_*` methods return it directly.
///
/// ```
/// use perf_writer_std::{PerfDataFileWriter, WriterError};
/// let mut w = PerfDataFileWriter::new();
/// let err = w.write_event_data(&[0; 8]).unwrap_err();
/// assert_eq!(WriterError::from_io(&err), Some(&WriterError::NotOpen));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriterError {
    /// No output is open: call `create_file` or construct the writer over an output.
    NotOpen,
    /// An earlier write failed, so the data section is in an unknown state. The output can only
    /// be closed (`close_no_finalize`).
    Poisoned,
    /// The event bytes are not whole records (nothing of them was written).
    Framing(FramingError),
    /// The data section ends inside a record; write the rest of it, then finalize.
    IncompleteRecord,
    /// A value does not fit the format.
    Encode(EncodeError),
    /// The id is already used by another event description.
    DuplicateId(u64),
    /// A tracepoint format with this `common_type` was already added.
    DuplicateFormat(u32),
    /// A tracepoint attr whose `config` is not its format's id: perf would decode it with the
    /// wrong format.
    TracepointConfigMismatch {
        /// The attr's `config`.
        config: u64,
        /// The format's id.
        format_id: u32,
    },
    /// A tracepoint event has no tracefs format (perf refuses such a file): add it with
    /// `add_tracepoint_event_desc`, or set TRACING_DATA with `set_header`.
    MissingTracepointFormat {
        /// The tracepoint attr's `config` (its tracefs id).
        config: u64,
    },
    /// The tracefs format text could not be parsed.
    BadFormatText,
    /// A pipe-mode stream already sent its tracing data (at the first event): perf reads it
    /// once, so tracepoint formats must be added before.
    FormatAfterStart,
    /// A feature payload is larger than a pipe-mode HEADER_FEATURE record holds (64 KiB).
    FeatureTooLargeForPipe(u8),
    /// Feature index outside 1..=31 for this call.
    BadFeatureIndex(u8),
    /// The feature is not a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID,
    /// CMDLINE).
    NotAStringFeature(u8),
    /// More event descriptions than the format counts (2^32 - 1).
    TooManyEvents,
    /// perf could not tell this event's records from the others' (it would refuse the file
    /// with "non matching sample_type"); the reason says what differs.
    IndistinguishableEvents(&'static str),
    /// No event description owns this sample id.
    UnknownEventId(u64),
    /// A record needs an event description (for its layout) and none was added.
    NoEventDescription,
    /// Strict mode refused a record (nothing of the call's bytes was written).
    RecordRefused {
        /// Offset of the record in the bytes of the refused call (a record begun in an
        /// earlier call starts before them: 0).
        offset: usize,
        /// The record's type (`perf_abi::record_type`).
        type_: u32,
        /// What is wrong with it.
        problem: RecordProblem,
    },
}

/// What strict mode found wrong with a record (see [`WriterError::RecordRefused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordProblem {
    /// The record's sample id belongs to no event description.
    UnknownId(u64),
    /// The record needs an event description and none was added yet.
    NoEventDescription,
    /// A SAMPLE record disagrees with the layout of its event's attr.
    SampleLayout(ParseError),
    /// The record's size does not fit its type and its attr's `sample_id` trailer.
    Size {
        /// `header.size`.
        size: u16,
        /// The size the type and trailer imply: exact, or the least for records with a
        /// variable part.
        expected: u16,
        /// `expected` is the exact size (else the least).
        exact: bool,
    },
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownId(id) => write!(f, "sample id {id} belongs to no event description"),
            Self::NoEventDescription => f.write_str("no event description was added before it"),
            Self::SampleLayout(e) => write!(f, "it does not match its attr's sample layout: {e}"),
            Self::Size {
                size,
                expected,
                exact: true,
            } => write!(
                f,
                "its size is {size}, its type and sample_id trailer make it {expected}"
            ),
            Self::Size { size, expected, .. } => write!(
                f,
                "its size is {size}, below the {expected} its type and sample_id trailer need"
            ),
        }
    }
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
            Self::NotOpen => f.write_str("no output is open"),
            Self::Poisoned => f.write_str("an earlier write failed; the output can only be closed"),
            Self::Framing(e) => write!(f, "event data refused: {e}"),
            Self::IncompleteRecord => f.write_str("the data section ends inside a record"),
            Self::Encode(e) => write!(f, "{e}"),
            Self::DuplicateId(id) => write!(f, "sample id {id} already belongs to another event"),
            Self::DuplicateFormat(id) => {
                write!(f, "a tracepoint format with id {id} was already added")
            }
            Self::TracepointConfigMismatch { config, format_id } => write!(
                f,
                "tracepoint attr config {config} does not match its format id {format_id}"
            ),
            Self::MissingTracepointFormat { config } => write!(
                f,
                "tracepoint event {config} has no tracefs format; perf would refuse the file"
            ),
            Self::FormatAfterStart => f.write_str(
                "tracepoint formats must be added before the first event of a pipe-mode stream",
            ),
            Self::FeatureTooLargeForPipe(i) => {
                write!(
                    f,
                    "feature {i} is too large for a pipe-mode HEADER_FEATURE record"
                )
            }
            Self::BadFormatText => f.write_str("the tracefs format text could not be parsed"),
            Self::BadFeatureIndex(i) => write!(f, "feature index {i} cannot be set here"),
            Self::NotAStringFeature(i) => write!(f, "feature {i} is not a string feature"),
            Self::TooManyEvents => f.write_str("too many event descriptions"),
            Self::IndistinguishableEvents(why) => write!(f, "events cannot be told apart: {why}"),
            Self::UnknownEventId(id) => write!(f, "sample id {id} belongs to no event description"),
            Self::NoEventDescription => f.write_str("no event description was added"),
            Self::RecordRefused {
                offset,
                type_,
                problem,
            } => {
                let name = perf_abi::record_type::name(*type_).unwrap_or("unknown");
                write!(
                    f,
                    "strict mode refused the {name} record (type {type_}) at byte {offset}: {problem}"
                )
            }
        }
    }
}

impl std::error::Error for WriterError {}

impl From<EncodeError> for WriterError {
    fn from(e: EncodeError) -> Self {
        WriterError::Encode(e)
    }
}

impl From<FramingError> for WriterError {
    fn from(e: FramingError) -> Self {
        WriterError::Framing(e)
    }
}

impl From<WriterError> for io::Error {
    fn from(e: WriterError) -> Self {
        let kind = match e {
            WriterError::NotOpen | WriterError::Poisoned | WriterError::IncompleteRecord => {
                io::ErrorKind::Other
            }
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}
