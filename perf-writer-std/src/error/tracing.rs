//! [`TracingError`]: why a tracepoint format or a part of the tracing data was refused.

use perf_encode::features::TracingDataError;
use perf_encode::features::{FormatTextError, TracepointRawProblem};
use std::fmt;

/// Why a tracepoint format, a tracing-data setting or a tracepoint SAMPLE's RAW payload
/// was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TracingError {
    /// A tracepoint format with this `common_type` was already added.
    DuplicateFormat(u32),
    /// The tracefs format text could not be parsed.
    BadFormatText,
    /// A tracepoint format text perf 6.1 or `tracepoint_decode` cannot read safely (a
    /// number out of range, a field outside the record, a NUL, a missing part); the error
    /// names the line and the problem.
    FormatText(FormatTextError),
    /// A text of the synthesized TRACING_DATA (`header_page`, `header_event`, kallsyms,
    /// printk formats, saved cmdlines, an ftrace format) that perf 6.1 would misread, crash
    /// or hang on.
    DataText {
        /// Which text: `"header_page"`, `"header_event"`, `"kallsyms"`, `"printk"`,
        /// `"saved_cmdline"`, `"ftrace format"`.
        part: &'static str,
        /// Where and what.
        error: FormatTextError,
    },
    /// A caller's TRACING_DATA whose framing perf 6.1 would stop reading at, or overrun a
    /// buffer on (strict mode; its texts are checked as the synthesized ones are, and
    /// refused with [`DataText`](Self::DataText) or [`FormatText`](Self::FormatText)). In
    /// pipe mode also bytes after what perf reads, past padding to 8 (it refuses the stream
    /// then), and kallsyms (perf skips them by seeking, which a pipe does not do).
    BadTracingData(TracingDataError),
    /// A tracepoint system name perf cannot use (the reason says why).
    BadSystemName(&'static str),
    /// A `sizeof(long)` or page size for the tracing data that no kernel has (the reason
    /// says which).
    BadSetting(&'static str),
    /// A format whose `common_type` is not where the file's other formats have it (perf
    /// reads every record's `common_type` at one offset, so it would misattribute them).
    CommonTypeOffset {
        /// Where this format has it.
        offset: u32,
        /// Where the formats added before have it.
        expected: u32,
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
    AfterStart,
    /// In strict mode, a caller's TRACING_DATA set, replaced or cleared after records were
    /// written, that changes how perf reads the RAW payloads of a tracepoint event's
    /// SAMPLEs (another format for its id, or another byte order): those written were
    /// checked by the format it had, and are not kept to be checked again.
    ChangesWrittenFormat {
        /// The event's `attr.config`: its format's id.
        config: u32,
    },
}

impl fmt::Display for TracingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateFormat(id) => {
                write!(f, "a tracepoint format with id {id} was already added")
            }
            Self::BadFormatText => f.write_str("the tracefs format text could not be parsed"),
            Self::FormatText(e) => write!(f, "format refused: {e}"),
            Self::DataText { part, error } => write!(f, "tracing data {part} refused: {error}"),
            Self::BadTracingData(e) => write!(f, "{e}"),
            Self::BadSystemName(why) => write!(f, "tracepoint system name refused: {why}"),
            Self::BadSetting(why) => write!(f, "tracing data setting refused: {why}"),
            Self::CommonTypeOffset { offset, expected } => write!(
                f,
                "the format has common_type at offset {offset}, the file's other formats at {expected}"
            ),
            Self::TracepointRaw { id, problem } => match id {
                Some(id) => write!(f, "tracepoint sample (id {id}) refused: {problem}"),
                None => write!(f, "tracepoint sample refused: {problem}"),
            },
            Self::AfterStart => f.write_str(
                "tracepoint formats and tracing data must be given before the first event of a pipe-mode stream",
            ),
            Self::ChangesWrittenFormat { config } => write!(
                f,
                "this TRACING_DATA changes how perf reads the RAW payloads of tracepoint {config}, \
                 whose SAMPLEs may be written already (set it before the records, or with the \
                 same format and byte order)"
            ),
        }
    }
}
