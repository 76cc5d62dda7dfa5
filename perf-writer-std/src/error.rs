//! [`WriterError`]: why the writer refused something.

use perf_encode::records::{FramingError, ParseError};
use perf_encode::EncodeError;
use std::sync::Arc;
use std::{fmt, io};

/// Why a writer call failed: the error of every method that is not one of `tracepoint_perf`
/// 0.5's (see the crate documentation, "Errors"). The 0.5 methods keep their `bool` or
/// `io::Result`; an `io::Error` they return carries this error inside
/// ([`WriterError::from_io`] reaches it), and the output stream's own errors arrive here as
/// [`WriterError::Io`].
///
/// ```
/// use perf_writer_std::{PerfDataFileWriter, WriterError};
/// let mut w = PerfDataFileWriter::new();
/// // A tracepoint_perf 0.5 method: io::Result, with the WriterError inside.
/// let err = w.write_event_data(&[0; 8]).unwrap_err();
/// assert_eq!(WriterError::from_io(&err), Some(&WriterError::NotOpen));
/// // A method of this crate: the WriterError itself.
/// assert_eq!(w.flush(), Err(WriterError::NotOpen));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriterError {
    /// The output stream failed (its `io::Error` is inside).
    Io(SharedIoError),
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
    /// This feature is written only in this machine's byte order (perf 6.1 warns when it
    /// reads it from a byte-swapped file).
    ForeignByteOrder(u8),
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
    /// A zstd compression level outside 1..=22 (HEADER_COMPRESSED stores it unsigned).
    CompressionLevel(i32),
    /// zstd failed (its error name), or this build has no `zstd` feature.
    Compression(&'static str),
    /// The aligned form after perf's form in one output: perf's zstd stream cannot be ended
    /// (its last record would decompress to nothing, which perf 6.1 refuses), and perf
    /// decompresses one stream per output. Keep perf's form (any level), or none.
    CompressionSwitch,
    /// Compression cannot be read back in this output: a byte-swapped pipe stream carries no
    /// HEADER_FEATURE records (see `PerfPipeWriter`), so perf would not have the
    /// HEADER_COMPRESSED it needs.
    CompressionUnreadable,
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
    /// A record type perf 6.1 does not know (0, or a number no kernel or tool uses): perf
    /// stops reading, or refuses the file, at it.
    UnknownType,
    /// A pipe-mode header record (HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA,
    /// HEADER_FEATURE): the writer makes these itself from the event descriptions and
    /// features (`add_event_desc`, `set_header`).
    WriterManaged,
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
    /// A COMPRESSED record, and no HEADER_COMPRESSED (zstd, `mmap_len` above 0) was set
    /// before it: perf cannot decompress it.
    CompressedWithoutHeader,
    /// A COMPRESSED record while the writer compresses: two zstd streams would interleave
    /// and perf, which keeps one, could not read either.
    CompressedWhileCompressing,
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownId(id) => write!(f, "sample id {id} belongs to no event description"),
            Self::NoEventDescription => f.write_str("no event description was added before it"),
            Self::SampleLayout(e) => write!(f, "it does not match its attr's sample layout: {e}"),
            Self::UnknownType => f.write_str("perf 6.1 knows no record of this type"),
            Self::WriterManaged => {
                f.write_str("the writer makes these records itself (add_event_desc, set_header)")
            }
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
            Self::CompressedWithoutHeader => f.write_str(
                "no HEADER_COMPRESSED (zstd, mmap_len above 0) was set before it: perf cannot decompress it",
            ),
            Self::CompressedWhileCompressing => f.write_str(
                "the writer compresses: a second zstd stream would make both unreadable",
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

/// An `io::Error` of the output stream, shared so that [`WriterError`] stays `Clone`. Two
/// are equal when they have the same kind and message.
#[derive(Clone, Debug)]
pub struct SharedIoError(Arc<io::Error>);

impl SharedIoError {
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

impl fmt::Display for WriterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "output stream: {e}"),
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
            Self::ForeignByteOrder(i) => write!(
                f,
                "feature {i} is written only in this machine's byte order"
            ),
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
            Self::CompressionLevel(level) => {
                write!(f, "zstd level {level} is outside 1..=22")
            }
            Self::Compression(why) => write!(f, "zstd compression failed: {why}"),
            Self::CompressionSwitch => f.write_str(
                "perf's zstd stream of this output is open: only perf's form can follow it",
            ),
            Self::CompressionUnreadable => f.write_str(
                "a byte-swapped pipe stream carries no HEADER_COMPRESSED: perf could not decompress it",
            ),
        }
    }
}

impl std::error::Error for WriterError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => e.source(),
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
            None => WriterError::Io(SharedIoError(Arc::new(e))),
        }
    }
}

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

/// The stream's own error for [`WriterError::Io`] (when no clone of it is alive), else an
/// `io::Error` carrying the `WriterError`.
impl From<WriterError> for io::Error {
    fn from(e: WriterError) -> Self {
        let e = match e {
            WriterError::Io(SharedIoError(shared)) => match Arc::try_unwrap(shared) {
                Ok(original) => return original,
                Err(shared) => WriterError::Io(SharedIoError(shared)),
            },
            other => other,
        };
        let kind = match &e {
            WriterError::Io(shared) => shared.kind(),
            WriterError::NotOpen | WriterError::Poisoned | WriterError::IncompleteRecord => {
                io::ErrorKind::Other
            }
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}
