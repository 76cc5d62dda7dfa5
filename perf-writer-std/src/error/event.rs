//! [`EventError`]: why an event description was refused.

use crate::check::refusal::Contradiction;
use std::fmt;

/// Why an event description was not added.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventError {
    /// The id is already used by another event description.
    DuplicateId(u64),
    /// A tracepoint attr whose `config` is not its format's id: perf would decode it with the
    /// wrong format.
    TracepointConfigMismatch {
        /// The attr's `config`.
        config: u64,
        /// The format's id.
        format_id: u32,
    },
    /// A tracepoint event has no tracefs format (perf refuses such a file): add it with
    /// `add_tracepoint_event_desc`, or set TRACING_DATA with `set_header`. In strict mode
    /// also a caller's TRACING_DATA without the format of a tracepoint event (refused by
    /// `set_header`, or by the description after it). In pipe mode,
    /// in strict mode, also a tracepoint described after the stream sent its tracing data:
    /// perf gives formats only to the events described before it (and crashes on the
    /// others' SAMPLEs).
    MissingTracepointFormat {
        /// The tracepoint attr's `config` (its tracefs id).
        config: u64,
    },
    /// In pipe mode an event's name travels in one EVENT_UPDATE record; this one does not
    /// fit (`EventUpdateName::MAX_NAME_LEN`).
    NameTooLongForPipe {
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
    /// In a big-endian pipe stream, an event with RAW in its `sample_type` (strict mode):
    /// perf 6.1 reads a byte-swapped pipe stream's RAW size unswapped, and cannot parse
    /// its SAMPLEs. Write big-endian traces with RAW in file mode.
    RawInBigEndianPipe,
    /// More event descriptions than the format counts (2^32 - 1).
    TooMany,
    /// perf could not tell this event's records from the others' (it would refuse the file
    /// with "non matching sample_type"); the reason says what differs. Strict mode takes
    /// such events for a perf stat session (see `PerfWriter::add_event_desc`).
    Indistinguishable(&'static str),
    /// The description (or HEADER_COMPRESSED) contradicts records written before it, which
    /// strict mode took in file mode to check when it arrived: it was not added. Those
    /// records are kept as groups of alike records, not one by one: what is named is the
    /// group that holds a record it contradicts (one or more of them).
    ContradictsRecords {
        /// The records of that group.
        records: u64,
        /// File offset of the first of them (not always one it contradicts).
        offset: u64,
        /// That record's type.
        type_: u32,
        /// Their event id, when they were grouped by one.
        id: Option<u64>,
        /// What is wrong.
        problem: Contradiction,
    },
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateId(id) => write!(
                f,
                "sample id {id} is taken already (by another event, or earlier in the same list)"
            ),
            Self::TracepointConfigMismatch { config, format_id } => write!(
                f,
                "tracepoint attr config {config} does not match its format id {format_id}"
            ),
            Self::MissingTracepointFormat { config } => write!(
                f,
                "tracepoint event {config} has no tracefs format; perf would refuse the file"
            ),
            Self::NameTooLongForPipe { len, max } => write!(
                f,
                "event name of {len} bytes does not fit a pipe-mode EVENT_UPDATE record (at most {max})"
            ),
            Self::TooManyIdsForPipe { ids, max } => write!(
                f,
                "{ids} ids do not fit a pipe-mode HEADER_ATTR record (at most {max} with this attr)"
            ),
            Self::RawInBigEndianPipe => f.write_str(
                "an event with RAW in a big-endian pipe stream: perf 6.1 cannot parse its SAMPLEs (write big-endian traces with RAW in file mode)",
            ),
            Self::TooMany => f.write_str("too many event descriptions"),
            Self::Indistinguishable(why) => write!(f, "events cannot be told apart: {why}"),
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
                    "refused: it contradicts records written before it, of a group of {records} (the first a {name} record at file offset {offset}{id}): {problem}"
                )
            }
        }
    }
}
