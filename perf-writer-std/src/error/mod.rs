//! [`WriterError`]: why the writer refused something.

pub use crate::check::refusal::{Contradiction, PendingSummary};
use perf_encode::features::{FeaturePayloadError, FormatTextError, TracepointRawProblem};
use perf_encode::records::{FramingError, ParseError};
use perf_encode::EncodeError;
use std::sync::Arc;
use std::{fmt, io};

/// Why a writer call failed: the error of every fallible method of the native writer
/// ([`PerfWriter`](crate::PerfWriter)); the output stream's own errors arrive here as
/// [`WriterError::Io`].
///
/// The compatibility face ([`PerfDataFileWriter`](crate::PerfDataFileWriter)) keeps
/// `tracepoint_perf` 0.5's `bool` and `io::Result`; an `io::Error` it returns carries this
/// error inside ([`WriterError::from_io`] reaches it).
///
/// ```
/// use perf_writer_std::{FileOutput, PerfDataFileWriter, PerfWriter, WriterError};
/// let mut w = PerfWriter::<FileOutput>::new();
/// assert_eq!(w.write_event_data(&[0; 8]), Err(WriterError::NotOpen));
/// // The 0.5 face: io::Result, with the WriterError inside.
/// let mut face = PerfDataFileWriter::from(w);
/// let err = face.write_event_data(&[0; 8]).unwrap_err();
/// assert_eq!(WriterError::from_io(&err), Some(&WriterError::NotOpen));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriterError {
    /// The output stream failed (its `io::Error` is inside).
    Io(SharedIoError),
    /// No output is open: call `create_file` or construct the writer over an output.
    NotOpen,
    /// A record split across calls would be longer than the writer holds back (pipe mode:
    /// [`MAX_SPLIT_RECORD_LEN`](crate::MAX_SPLIT_RECORD_LEN)); nothing of the call was
    /// written. Give such a record in one call.
    SplitRecordTooLong {
        /// The record's whole length (header size and any payload after it).
        len: u64,
        /// The longest the output holds back.
        max: u64,
    },
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
    /// The event bytes are not whole records (nothing of them was written).
    Framing(FramingError),
    /// The stream is inside a record: write the rest of it, or drop it with
    /// `abandon_partial_record`.
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
    /// A tracepoint format text perf 6.1 or `tracepoint_decode` cannot read safely (a
    /// number out of range, a field outside the record, a NUL, a missing part); the error
    /// names the line and the problem.
    FormatText(FormatTextError),
    /// A text of the synthesized TRACING_DATA (`header_page`, `header_event`, kallsyms,
    /// printk formats, saved cmdlines, an ftrace format) that perf 6.1 would misread, crash
    /// or hang on.
    TracingDataText {
        /// Which text: `"header_page"`, `"header_event"`, `"kallsyms"`, `"printk"`,
        /// `"saved_cmdline"`, `"ftrace format"`.
        part: &'static str,
        /// Where and what.
        error: FormatTextError,
    },
    /// A tracepoint system name perf cannot use (the reason says why).
    BadSystemName(&'static str),
    /// A `sizeof(long)` or page size for the tracing data that no kernel has (the reason
    /// says which).
    BadTracingDataSetting(&'static str),
    /// A format whose `common_type` is not where the file's other formats have it (perf
    /// reads every record's `common_type` at one offset, so it would misattribute them).
    CommonTypeOffset {
        /// Where this format has it.
        offset: u32,
        /// Where the formats added before have it.
        expected: u32,
    },
    /// In pipe mode an event's name travels in one EVENT_UPDATE record; this one does not
    /// fit (`EventUpdateName::MAX_NAME_LEN`).
    EventNameTooLongForPipe {
        /// The name's length in bytes.
        len: usize,
        /// The longest name the record holds.
        max: usize,
    },
    /// In pipe mode an event's attr and ids travel in one HEADER_ATTR record; these ids do
    /// not fit (`HeaderAttr::max_ids`).
    TooManyIdsForPipe {
        /// The event's id count.
        ids: usize,
        /// The most the record holds with this attr.
        max: usize,
    },
    /// A tracepoint SAMPLE whose RAW payload contradicts its format (perf 6.1 crashes on
    /// it): see `TracepointRawRule`.
    TracepointRaw {
        /// The sample's id (`None`: it has none, so the first event's).
        id: Option<u64>,
        /// What is wrong.
        problem: TracepointRawProblem,
    },
    /// A pipe-mode stream already sent its tracing data (at the first event): perf reads it
    /// once, so tracepoint formats, and the tracing data's other parts, must come before.
    FormatAfterStart,
    /// A feature payload is larger than a pipe-mode HEADER_FEATURE record holds (64 KiB).
    FeatureTooLargeForPipe(u8),
    /// A raw feature payload perf 6.1 would not read (a count, string or field that does not
    /// fit, or a string without its NUL): pipe-mode perf stops at such a feature, file-mode
    /// perf can crash on one.
    BadFeaturePayload(FeaturePayloadError),
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
    /// A description (or HEADER_COMPRESSED) contradicts records written before it, which
    /// strict mode took in file mode to check when it arrived: it was not added.
    ContradictsRecords {
        /// The records it contradicts.
        records: u64,
        /// File offset of the first of them.
        offset: u64,
        /// That record's type.
        type_: u32,
        /// Their event id, when they were grouped by one.
        id: Option<u64>,
        /// What is wrong.
        problem: Contradiction,
    },
    /// Finalize found records that still wait for their event description (or COMPRESSED
    /// records for HEADER_COMPRESSED): nothing was finalized. Add the descriptions, or set
    /// HEADER_COMPRESSED, and finalize again.
    UndescribedRecords(PendingSummary),
    /// A call was refused while a record begun in an earlier call waits for its end; the
    /// refusal is `error`.
    InsidePartialRecord {
        /// The record that waits.
        partial: PartialRecord,
        /// It was dropped with the refused call (it was what the refusal was about).
        dropped: bool,
        /// Why the call was refused.
        error: Box<WriterError>,
    },
    /// Finalize dropped a record begun and not finished; the file was written with the
    /// records before it (finish again to get the output back).
    PartialRecordDropped(PartialRecord),
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

/// A record begun in one call and not finished: what its header said, and how far it got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialRecord {
    /// Its type (0 when its header is not whole yet).
    pub type_: u32,
    /// Its whole length (its size and any payload after it); `None` while its header is not
    /// whole.
    pub len: Option<u64>,
    /// Bytes of it given so far.
    pub given: u64,
    /// File offset where it starts.
    pub offset: u64,
}

impl fmt::Display for PartialRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = perf_abi::record_type::name(self.type_).unwrap_or("unknown");
        match self.len {
            Some(len) => write!(
                f,
                "the {name} record (type {}) begun at file offset {}, {} of its {len} bytes given",
                self.type_, self.offset, self.given
            ),
            None => write!(
                f,
                "the record begun at file offset {}, {} bytes of its header given",
                self.offset, self.given
            ),
        }
    }
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
    /// A tracepoint SAMPLE whose RAW payload breaks its format's rule (see
    /// `PerfWriter::tracepoint_raw_rule`): perf 6.1 crashes on it.
    TracepointRaw(TracepointRawProblem),
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
    /// A record of an event id that would be one more than the
    /// [`MAX_PENDING_IDS`](crate::MAX_PENDING_IDS) ids whose records wait for their
    /// description.
    TooManyPendingIds,
    /// A record of an event whose records wait for their description, when they take
    /// [`MAX_PENDING_BYTES`](crate::MAX_PENDING_BYTES) of memory already.
    TooManyPendingBytes,
    /// A SAMPLE written before its event's description that, with the SAMPLEs of its event
    /// written before it, fits more layouts than strict mode keeps track of (see
    /// `set_strict`): the description must come first.
    TooManyLayouts,
    /// Pipe mode: the record's event has no description yet (`Some`: its id). perf reads a
    /// pipe stream in order, so a description must come before its records there.
    DescribeFirstInPipeMode(Option<u64>),
    /// While the writer compresses, a record is checked when it is given: its event needs
    /// its description first (`Some`: its id).
    DescribeFirstWhileCompressing(Option<u64>),
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownId(id) => write!(f, "sample id {id} belongs to no event description"),
            Self::NoEventDescription => f.write_str("no event description was added before it"),
            Self::SampleLayout(e) => write!(f, "it does not match its attr's sample layout: {e}"),
            Self::TracepointRaw(p) => write!(f, "{p}"),
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
            Self::TooManyPendingIds => write!(
                f,
                "{} event ids already wait for their descriptions: add them before records of more",
                crate::MAX_PENDING_IDS
            ),
            Self::TooManyPendingBytes => write!(
                f,
                "the records that wait for their descriptions take {} MiB already: add those descriptions before more such records",
                crate::MAX_PENDING_BYTES >> 20
            ),
            Self::TooManyLayouts => f.write_str(
                "with the SAMPLEs of its event written before it, it fits more sample layouts than strict mode keeps track of (records written before their description are checked against every layout they fit): add the description before its records",
            ),
            Self::DescribeFirstInPipeMode(id) => write!(
                f,
                "no event description owns it yet{}; perf reads a pipe stream in order, so in pipe mode a description must be added before its records (file mode takes them in any order)",
                id.map(|id| format!(" (id {id})")).unwrap_or_default()
            ),
            Self::DescribeFirstWhileCompressing(id) => write!(
                f,
                "no event description owns it yet{}; while the writer compresses, a record's description must be added before it",
                id.map(|id| format!(" (id {id})")).unwrap_or_default()
            ),
        }
    }
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

/// An `io::Error` of the output stream, shared so that [`WriterError`] stays `Clone`. Two
/// are equal when they have the same kind and message.
#[derive(Clone, Debug)]
pub struct SharedIoError(Arc<io::Error>);

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

impl fmt::Display for WriterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "output stream: {e}"),
            Self::NotOpen => f.write_str("no output is open"),
            Self::SplitRecordTooLong { len, max } => write!(
                f,
                "a record of {len} bytes split across calls is longer than the {max} the output holds back; give it in one call"
            ),
            Self::Truncated {
                kept_records,
                kept_bytes,
                error,
            } => write!(
                f,
                "output stream: {error}; the file was finalized with the {kept_records} records ({kept_bytes} bytes) that reached it"
            ),
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
                "tracepoint formats and tracing data must be given before the first event of a pipe-mode stream",
            ),
            Self::BadFeaturePayload(e) => write!(f, "refused: {e}"),
            Self::FeatureTooLargeForPipe(i) => {
                write!(
                    f,
                    "feature {i} is too large for a pipe-mode HEADER_FEATURE record"
                )
            }
            Self::BadFormatText => f.write_str("the tracefs format text could not be parsed"),
            Self::FormatText(e) => write!(f, "format refused: {e}"),
            Self::TracingDataText { part, error } => {
                write!(f, "tracing data {part} refused: {error}")
            }
            Self::BadSystemName(why) => write!(f, "tracepoint system name refused: {why}"),
            Self::BadTracingDataSetting(why) => write!(f, "tracing data setting refused: {why}"),
            Self::CommonTypeOffset { offset, expected } => write!(
                f,
                "the format has common_type at offset {offset}, the file's other formats at {expected}"
            ),
            Self::EventNameTooLongForPipe { len, max } => write!(
                f,
                "event name of {len} bytes does not fit a pipe-mode EVENT_UPDATE record (at most {max})"
            ),
            Self::TooManyIdsForPipe { ids, max } => write!(
                f,
                "{ids} ids do not fit a pipe-mode HEADER_ATTR record (at most {max} with this attr)"
            ),
            Self::TracepointRaw { id, problem } => match id {
                Some(id) => write!(f, "tracepoint sample (id {id}) refused: {problem}"),
                None => write!(f, "tracepoint sample refused: {problem}"),
            },
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
            Self::ContradictsRecords {
                records,
                offset,
                type_,
                id,
                problem,
            } => {
                let name = perf_abi::record_type::name(*type_).unwrap_or("unknown");
                let id = id.map(|id| format!(", sample id {id}")).unwrap_or_default();
                write!(
                    f,
                    "refused: {records} records written before it (the first a {name} record at file offset {offset}{id}) contradict it: {problem}"
                )
            }
            Self::UndescribedRecords(p) => {
                let name = perf_abi::record_type::name(p.type_).unwrap_or("unknown");
                match p.ids {
                    0 => write!(f, "{} records written before any event description", p.records)?,
                    ids => write!(f, "{} records of {ids} event ids", p.records)?,
                }
                write!(
                    f,
                    " wait for their event descriptions or HEADER_COMPRESSED, the first a {name} record at file offset {}: add them and finalize again (nothing was finalized)",
                    p.offset
                )
            }
            Self::InsidePartialRecord {
                partial,
                dropped: true,
                error,
            } => write!(
                f,
                "{error}; it was {partial}, which is dropped: the data goes on after the record before it"
            ),
            Self::InsidePartialRecord { partial, error, .. } => write!(
                f,
                "{error}; these bytes continue {partial}: if that record is not what they are, drop it with abandon_partial_record() and give them again"
            ),
            Self::PartialRecordDropped(p) => write!(
                f,
                "finalize dropped {p}; the file was written with the records before it"
            ),
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
            Self::Io(e) | Self::Truncated { error: e, .. } => e.source(),
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
            WriterError::Io(shared) | WriterError::Truncated { error: shared, .. } => shared.kind(),
            WriterError::NotOpen | WriterError::IncompleteRecord => io::ErrorKind::Other,
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}
