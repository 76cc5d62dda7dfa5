//! [`RecordError`]: why event bytes were refused, and [`RecordProblem`]: what strict mode
//! found wrong with one record.

use super::WriterError;
use crate::check::refusal::PendingSummary;
use perf_encode::features::TracepointRawProblem;
use perf_encode::records::{FramingError, ParseError};
use std::fmt;

/// Why records (event bytes, a typed record, or what waits at finalize) were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// The event bytes are not whole records (nothing of them was written).
    Framing(FramingError),
    /// A record begun in an earlier call waits for its end, so this call (which writes a
    /// record of its own or changes how records are written) cannot go in: give the rest
    /// of it, or drop it with `abandon_partial_record`.
    Incomplete,
    /// A record split across calls would be longer than the writer holds back (pipe mode:
    /// [`MAX_SPLIT_RECORD_LEN`](crate::MAX_SPLIT_RECORD_LEN)); nothing of the call was
    /// written. Give such a record in one call.
    SplitTooLong {
        /// The record's whole length (header size and any payload after it).
        len: u64,
        /// The longest the output holds back.
        max: u64,
    },
    /// Strict mode refused a record (nothing of the call's bytes was written).
    Refused {
        /// Offset of the record in the bytes of the refused call (a record begun in an
        /// earlier call starts before them: 0).
        offset: usize,
        /// The record's type (`perf_abi::record_type`).
        type_: u32,
        /// What is wrong with it.
        problem: RecordProblem,
    },
    /// A call was refused while a record begun in an earlier call waits for its end; the
    /// refusal is `error`.
    InsidePartial {
        /// The record that waits.
        partial: PartialRecord,
        /// It was dropped with the refused call (it was what the refusal was about).
        dropped: bool,
        /// Why the call was refused.
        error: Box<WriterError>,
    },
    /// Finalize dropped a record begun and not finished; the file was written with the
    /// records before it (finish again to get the output back).
    PartialDropped(PartialRecord),
    /// Finalize found records that still wait for their event description (or COMPRESSED
    /// records for HEADER_COMPRESSED): nothing was finalized. Add the descriptions, or set
    /// HEADER_COMPRESSED, and finalize again.
    Undescribed(PendingSummary),
    /// No event description owns this sample id.
    UnknownEventId(u64),
    /// A record needs an event description (for its layout) and none was added.
    NoEventDescription,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Framing(e) => write!(f, "event data refused: {e}"),
            Self::Incomplete => f.write_str(
                "a record begun in an earlier call waits for its end: give the rest of it, or drop it with abandon_partial_record()",
            ),
            Self::SplitTooLong { len, max } => write!(
                f,
                "a record of {len} bytes split across calls is longer than the {max} the output holds back; give it in one call"
            ),
            Self::Refused {
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
            Self::InsidePartial {
                partial,
                dropped: true,
                error,
            } => write!(
                f,
                "{error}; it was {partial}, which is dropped: the data goes on after the record before it"
            ),
            Self::InsidePartial { partial, error, .. } => write!(
                f,
                "{error}; these bytes continue {partial}: if that record is not what they are, drop it with abandon_partial_record() and give them again"
            ),
            Self::PartialDropped(p) => write!(
                f,
                "finalize dropped {p}; the file was written with the records before it"
            ),
            Self::Undescribed(p) => {
                let name = perf_abi::record_type::name(p.type_).unwrap_or("unknown");
                match (p.ids, p.id) {
                    (0, _) => write!(f, "{} records written before any event description", p.records)?,
                    (1, Some(id)) => write!(f, "{} records of event id {id}", p.records)?,
                    (ids, Some(id)) => write!(f, "{} records of {ids} event ids (the lowest {id})", p.records)?,
                    (ids, None) => write!(f, "{} records of {ids} event ids", p.records)?,
                }
                write!(
                    f,
                    " wait for their event descriptions or HEADER_COMPRESSED, the first a {name} record at file offset {}: add them and finalize again (nothing was finalized); finish_truncated or a drop ends the file before them",
                    p.offset
                )
            }
            Self::UnknownEventId(id) => write!(f, "sample id {id} belongs to no event description"),
            Self::NoEventDescription => f.write_str("no event description was added"),
        }
    }
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

/// What strict mode found wrong with a record (see [`RecordError::Refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordProblem {
    /// The record's sample id belongs to no event description.
    UnknownId(u64),
    /// The record needs an event description and none was added yet.
    NoEventDescription,
    /// A SAMPLE record disagrees with the layout of its event's attr.
    SampleLayout(ParseError),
    /// A SAMPLE with IDENTIFIER and ID whose ID field differs from its IDENTIFIER: perf
    /// 6.1 parses it as the IDENTIFIER's event's, then counts it for the event that owns
    /// the ID (or drops it, "samples with id not present in the header"). The same in the
    /// `sample_id` of another record (perf then prints it without its `sample_id`). The
    /// kernel writes the same id in both.
    IdFieldDiffers {
        /// The IDENTIFIER.
        identifier: u64,
        /// The ID field.
        id: u64,
    },
    /// A SAMPLE whose READ value (one counter, no `read_format::GROUP`) names an id its
    /// event does not have: perf 6.1 counts the sample for the event that has that id
    /// (`evlist__id2sid`), or drops it. The kernel writes the event's own id there.
    ReadIdOfAnotherEvent(u64),
    /// A SAMPLE whose READ group names an id no event description has, in pipe mode or
    /// while the writer compresses (records are checked as they come there): perf 6.1 drops
    /// that member's value ("samples with id not present in the header"). Describe the
    /// event first. In file mode such an id may be described later: finalize waits for it.
    UnknownReadId(u64),
    /// A COMM, MMAP, MMAP2, CGROUP or KSYMBOL record whose name holds no NUL before its
    /// `sample_id` trailer: perf 6.1 reads the name past its end, and in a big-endian file
    /// leaves the trailer's first words unswapped (it finds the trailer by the name's NUL).
    /// Also a text of perf's own records it reads to its NUL without a NUL in the record: an
    /// AUXTRACE_ERROR's message, an EVENT_UPDATE's unit or name, a HEADER_BUILD_ID's
    /// filename.
    NameWithoutNul,
    /// In a big-endian output, a SAMPLE whose RAW, STACK_USER or AUX bytes (named) end off
    /// a multiple of 8 from the record's start: perf on a little-endian host swaps the
    /// record as 8-byte words and misreads the fields after them (the kernel pads them).
    SampleFieldUnaligned(&'static str),
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
    /// A COMPRESSED record while HEADER_COMPRESSED is the one the writer's compression set
    /// (switched off since): that header goes at finish if the writer compressed nothing,
    /// and says nothing of records compressed elsewhere. Set it for them
    /// ([`set_compressed_header`](crate::PerfWriter::set_compressed_header)).
    CompressedUnderWritersHeader,
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
    /// One of perf's own records (ID_INDEX, THREAD_MAP, CPU_MAP, STAT_CONFIG, …) whose
    /// fields do not fill it as perf-abi's field table says: a count whose entries run past
    /// it or leave bytes after them, a CPU_MAP of a kind perf does not know. perf refuses it,
    /// or reads past it. Holds the field at fault (`bytes after the last field` when the
    /// fields end before the record does).
    Fields(&'static str),
    /// One of perf's own records holds a value perf 6.1 refuses it for, or crashes on (an
    /// AUXTRACE_INFO of a trace type it has no decoder for, or settings its decoder divides
    /// by zero with).
    Value {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// In a big-endian output, an EVENT_UPDATE of this kind (a cpu map): perf 6.1 swaps
    /// only an EVENT_UPDATE's kind and id when it reads a big-endian file on a
    /// little-endian machine, and would read the map wrong.
    Unswapped(u64),
    /// In a big-endian output, a SWITCH record with a `sample_id`: perf 6.1 leaves its
    /// first 8 bytes unswapped when it reads a big-endian file on a little-endian machine,
    /// and reads that field wrong (the event id, the cpu, the pid and tid, or the time).
    UnswappedSwitchSampleId,
    /// In a big-endian output, a KSYMBOL or BPF_EVENT record: perf 6.1 swaps none of its
    /// fields when it reads a big-endian file on a little-endian machine, its `sample_id`
    /// included, so it shows them wrong, sorts the record by a time past every other and
    /// gives it to no event.
    UnswappedRecord,
    /// A SAMPLE (or a kernel record, the first event having `sample_id_all`) while the
    /// events described are ones perf cannot tell apart (a perf stat session's: several
    /// events, one without ids or with its sample id elsewhere): perf would look for its
    /// event by an id it cannot find.
    EventsNotToldApart,
    /// In a big-endian output, a READ record shorter than 48 bytes: perf 6.1 swaps 48
    /// bytes of every READ when it reads a big-endian file on a little-endian machine,
    /// past this one's end into the next record's header, and stops reading there.
    ReadSwappedPastEnd,
    /// In a big-endian output, a READ record longer than 48 bytes whose `sample_id` starts
    /// before byte 56 (a TID at 48 excepted: perf never reads a READ's trailer pid and tid):
    /// perf 6.1 swaps none of bytes 48 to 56 of a READ (its struct's `lost`), so it would
    /// read that word of the `sample_id` (a time, an id) wrong.
    ReadSampleIdUnswapped,
    /// A STAT or STAT_ROUND record that perf script cannot read where it is (see
    /// [`StatProblem`]).
    Stat(StatProblem),
    /// An AUXTRACE_INFO (or AUXTRACE) whose trace decoder needs what the output does not
    /// give it where the record is (see [`AuxtraceNeed`]).
    Auxtrace(AuxtraceNeed),
}

/// What perf 6.1's trace decoder for an AUXTRACE_INFO (or the AUXTRACE records after
/// it) needs of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuxtraceNeed {
    /// Arm SPE: a TIME_CONV record with a time multiplier other than 0 before it (perf
    /// takes the last one's time conversion, and divides by its multiplier).
    TimeConv,
    /// In a file: a first event with `sample_id_all` (perf reads a file in time order only
    /// then, and every decoder but HiSilicon PTT's fails otherwise).
    SampleIdAll,
    /// CoreSight: an event of this `attr.type` (its PMU type); before the record in pipe
    /// mode, by finish in file mode.
    Event(u32),
    /// Arm SPE, CoreSight: ids on the first event of this `attr.type` (perf reads that
    /// event's first id, and crashes on an event with none).
    EventIds(u32),
    /// Intel PT recorded context switches with `sched:sched_switch`: a tracepoint of that
    /// name with CPU and RAW in its `sample_type` (in pipe mode before the record, in file
    /// mode by finish).
    SchedSwitchEvent,
    /// Intel PT recorded context switches with `context_switch`: an event with that attr
    /// flag (in pipe mode before the record, in file mode by finish).
    ContextSwitchEvent,
    /// No event may have an id among those perf gives the events it synthesizes from the
    /// trace (from this one on, the first id of its PMU's event plus one billion).
    FreeSynthIds(u64),
    /// An AUXTRACE record needs an AUXTRACE_INFO before it.
    Info,
    /// Intel PT and Arm SPE: the context switch records perf keeps a cpu's current thread
    /// from (Intel PT: a host's switch in, and out when its switches were recorded
    /// CPU-wide; Arm SPE: a switch out) and, for PT with one mmap per cpu, ITRACE_START,
    /// need a cpu up to
    /// [`CURRENT_TID_CPU_MAX`](perf_encode::abi::auxtrace_priv::CURRENT_TID_CPU_MAX): their
    /// event's `sample_id` has CPU; for Intel PT's `sched:sched_switch` tracepoint, SAMPLEs
    /// with a cpu up to it. Refused for such a record once such an AUXTRACE_INFO came, and
    /// for such an AUXTRACE_INFO once such a record came.
    SwitchCpu,
    /// Intel PT: no per-cpu SWITCH out in a trace of CPU-wide switches
    /// (`have_sched_switch` 3), and no guest's context switch in (perf keeps a guest's
    /// current thread by a virtual cpu no record has). Refused for such a record once such
    /// an AUXTRACE_INFO came, and for such an AUXTRACE_INFO once such a record came.
    SwitchKind,
    /// Intel PT recorded context switches with `sched:sched_switch`, and an EVENT_UPDATE
    /// before this AUXTRACE_INFO gave an event that name or took it from one: perf takes
    /// the last event of that name when it reads the AUXTRACE_INFO, not the one the
    /// descriptions say.
    SwitchEventRenamed,
    /// Intel PT: an AUX_OUTPUT_HW_ID record, which perf takes into the AUXTRACE queue of
    /// its sample id and fails on unless that queue holds trace data. Strict mode does not
    /// follow the queues: such a record is refused once such an AUXTRACE_INFO came, and
    /// such an AUXTRACE_INFO once such a record came (conservative).
    AuxOutputHwId,
    /// Records written with strict mode off may hold the TIME_CONV or AUXTRACE_INFO this
    /// depends on (an AUXTRACE_INFO that would refuse this context switch or
    /// `sched:sched_switch` SAMPLE, too): strict mode cannot tell what perf will read.
    Unchecked,
}

impl fmt::Display for AuxtraceNeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TimeConv => f.write_str(
                "an Arm SPE AUXTRACE_INFO needs a TIME_CONV record with a time_mult other than 0 before it: perf 6.1 takes the last one's and divides by it",
            ),
            Self::SampleIdAll => f.write_str(
                "in a file, this AUXTRACE_INFO needs a first event with sample_id_all: without it perf 6.1 reads the file out of time order, and the trace decoder fails",
            ),
            Self::Event(t) => write!(
                f,
                "perf 6.1 refuses a CoreSight AUXTRACE_INFO unless an event of its PMU type (attr.type {t}) is described (in a pipe stream, before it)"
            ),
            Self::EventIds(t) => write!(
                f,
                "the first event of its PMU type (attr.type {t}) has no ids: perf 6.1 reads that event's first id and crashes"
            ),
            Self::SchedSwitchEvent => f.write_str(
                "its Intel PT trace recorded context switches with sched:sched_switch: perf 6.1 refuses the file without a tracepoint of that name, and needs the cpu and RAW payload of its SAMPLEs (CPU and RAW in its sample_type; in a pipe stream, described before it)",
            ),
            Self::ContextSwitchEvent => f.write_str(
                "its Intel PT trace recorded context switches with context_switch: perf 6.1 refuses the file without an event with that attr flag (in a pipe stream, before it)",
            ),
            Self::FreeSynthIds(from) => write!(
                f,
                "an event has one of the ids perf 6.1 gives the events it synthesizes from this trace ({from} on): perf would take its records for those"
            ),
            Self::SwitchCpu => f.write_str(
                "in an Intel PT or Arm SPE trace perf 6.1 keeps each cpu's current thread from context switch records (Intel PT: a switch in, and out when recorded CPU-wide; Arm SPE: a switch out; and PT's ITRACE_START), and refuses one without a cpu (its event's sample_id needs CPU, the cpu at most 65535; a sched:sched_switch SAMPLE's cpu at most 65535 too)",
            ),
            Self::SwitchKind => f.write_str(
                "perf 6.1 refuses an Intel PT trace with a per-cpu SWITCH out when its switches were recorded CPU-wide, or with a guest's context switch in (it keeps a guest's thread by a virtual cpu no record has)",
            ),
            Self::SwitchEventRenamed => f.write_str(
                "its Intel PT trace recorded context switches with sched:sched_switch, and an EVENT_UPDATE before it gave an event that name or took it from one: perf 6.1 takes the last event of that name when it reads the AUXTRACE_INFO, and the descriptions no longer say which",
            ),
            Self::AuxOutputHwId => f.write_str(
                "an AUX_OUTPUT_HW_ID record in an Intel PT trace: perf 6.1 takes it into the AUXTRACE queue of its sample id and fails unless that queue holds trace data, which strict mode does not follow (write it with set_strict(false))",
            ),
            Self::Info => f.write_str(
                "an AUXTRACE record needs an AUXTRACE_INFO before it: perf 6.1 refuses it otherwise",
            ),
            Self::Unchecked => f.write_str(
                "records written with strict mode off may hold the TIME_CONV or AUXTRACE_INFO this depends on: write it with set_strict(false), or in a new output",
            ),
        }
    }
}

/// Why perf script cannot read a STAT or STAT_ROUND record where it is. perf script counts
/// STATs in a table it makes, once per output, from the first CPU_MAP and the first
/// THREAD_MAP, for the events it knows then; it crashes on a STAT_ROUND before the table
/// exists, and refuses a STAT outside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StatProblem {
    /// No CPU_MAP, or no THREAD_MAP, came before it.
    NoMaps,
    /// Its cpu is not found in the first CPU_MAP (perf looks it up by bisection, so a map
    /// listed out of order hides some of its cpus).
    Cpu(u32),
    /// Its cpu is not found among the cpus an EVENT_UPDATE gave its event before the maps
    /// came: perf counts that event on those.
    EventCpus(u32),
    /// File mode: its cpu is not found among the cpus an EVENT_UPDATE gave an event before
    /// the maps came, and the descriptions that would tell whether that event is the
    /// STAT's have not come. Such a STAT is held until they come, but not while the writer
    /// compresses (records are judged as they come) nor past the bound of STATs held:
    /// describe the events first.
    UndescribedEventCpus(u32),
    /// Its thread index is not below the first THREAD_MAP's `nr`.
    Thread(u32),
    /// Records of this output were written with strict mode off: which maps perf counts
    /// by is not known.
    Unchecked,
    /// An EVENT_UPDATE giving cpus to one more event than strict mode keeps the cpus of
    /// before the CPU_MAP and THREAD_MAP come.
    TooManyEventCpus,
    /// Pipe mode: its event (for STAT_ROUND: an event) was described after both maps came,
    /// and perf has no counts for it.
    DescribedAfterMaps,
    /// A second CPU_MAP or THREAD_MAP: perf reads the first of each and ignores the others.
    ExtraMap,
}

impl fmt::Display for StatProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoMaps => f.write_str(
                "perf script reads STAT and STAT_ROUND only after a CPU_MAP and a THREAD_MAP (it crashes on a STAT_ROUND before them)",
            ),
            Self::Cpu(cpu) => write!(
                f,
                "perf does not find its cpu {cpu} in the first CPU_MAP (looked up by bisection: list its cpus in ascending order)"
            ),
            Self::EventCpus(cpu) => write!(
                f,
                "perf does not find its cpu {cpu} among the cpus an EVENT_UPDATE gave its event before the CPU_MAP and THREAD_MAP"
            ),
            Self::UndescribedEventCpus(cpu) => write!(
                f,
                "its cpu {cpu} is not among the cpus an EVENT_UPDATE gave an event before the CPU_MAP and THREAD_MAP, and without the events' descriptions strict mode cannot tell that event from the STAT's: add the descriptions before the STATs"
            ),
            Self::TooManyEventCpus => write!(
                f,
                "{} events were given cpus by EVENT_UPDATE before the CPU_MAP and THREAD_MAP: strict mode keeps no more (write the maps first)",
                crate::check::stat_session::MAX_EVENT_CPUS
            ),
            Self::Unchecked => f.write_str(
                "records of this output were written with strict mode off, so strict mode cannot tell which CPU_MAP and THREAD_MAP perf counts STATs by: write STAT records with set_strict(false), or in a new output",
            ),
            Self::Thread(t) => write!(
                f,
                "its thread index {t} is not below the first THREAD_MAP's count"
            ),
            Self::ExtraMap => f.write_str(
                "a CPU_MAP or THREAD_MAP of this kind was written already: perf reads the first and ignores the others",
            ),
            Self::DescribedAfterMaps => f.write_str(
                "its event was described after the CPU_MAP and THREAD_MAP: perf, reading a pipe stream in order, has no counts for it (describe events before those maps)",
            ),
        }
    }
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownId(id) => write!(f, "sample id {id} belongs to no event description"),
            Self::NoEventDescription => f.write_str("no event description was added before it"),
            Self::SampleLayout(e) => write!(f, "it does not match its attr's sample layout: {e}"),
            Self::IdFieldDiffers { identifier, id } => write!(
                f,
                "its ID field ({id}) differs from its IDENTIFIER ({identifier}): perf would read it by the IDENTIFIER's event and count it for the ID's, or drop it; write the IDENTIFIER in both"
            ),
            Self::ReadIdOfAnotherEvent(id) => write!(
                f,
                "its READ value names id {id}, which its event does not have: perf would count it for the event that has it, or drop it; a single counter's id is its event's own (other events' counters go in a READ group, read_format GROUP)"
            ),
            Self::UnknownReadId(id) => write!(
                f,
                "its READ group names id {id}, which no event description has yet: perf would drop that value; describe the event first"
            ),
            Self::NameWithoutNul => f.write_str(
                "its name (or message, unit, filename) holds no NUL within the record, before any sample_id trailer (perf reads it to its NUL)",
            ),
            Self::SampleFieldUnaligned(field) => write!(
                f,
                "in a big-endian file its {field} bytes must end at a multiple of 8 (perf swaps the record as 8-byte words)"
            ),
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
            Self::CompressedUnderWritersHeader => f.write_str(
                "HEADER_COMPRESSED is the one the writer's compression set, which goes at finish if the writer compressed nothing: set it (set_compressed_header) for records compressed elsewhere",
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
            Self::Value { field, value } if *value > 0xffff => write!(
                f,
                "its {field} is {value} ({value:#x}), which perf 6.1 refuses the record for (or crashes on)"
            ),
            Self::Value { field, value } => write!(
                f,
                "its {field} is {value}, which perf 6.1 refuses the record for (or crashes on)"
            ),
            Self::Stat(p) => write!(f, "{p}"),
            Self::Auxtrace(n) => write!(f, "{n}"),
            Self::Unswapped(kind) => write!(
                f,
                "an EVENT_UPDATE of kind {kind} in a big-endian output: perf 6.1 swaps only its kind and id, and would read the rest wrong on a little-endian machine"
            ),
            Self::UnswappedSwitchSampleId => f.write_str(
                "a SWITCH record with a sample_id in a big-endian output: perf 6.1 leaves the sample_id's first 8 bytes unswapped, and would read that field wrong on a little-endian machine (use SWITCH_CPU_WIDE, or a little-endian output)",
            ),
            Self::EventsNotToldApart => f.write_str(
                "a SAMPLE (or a kernel record, the first event having sample_id_all) in this perf stat session, whose events perf cannot tell apart (one has no ids, or its sample id elsewhere than the first's): perf could not find the record's event",
            ),
            Self::UnswappedRecord => f.write_str(
                "a KSYMBOL or BPF_EVENT record in a big-endian output: perf 6.1 swaps none of its fields, so on a little-endian machine it would read them and its sample_id (time, id) wrong, and sort the record out of order (use a little-endian output)",
            ),
            Self::ReadSampleIdUnswapped => f.write_str(
                "a READ record whose sample_id starts before byte 56 in a big-endian output: perf 6.1 leaves bytes 48 to 56 of a READ unswapped, so on a little-endian machine it would read that sample_id field wrong (use a little-endian output)",
            ),
            Self::ReadSwappedPastEnd => f.write_str(
                "a READ record shorter than 48 bytes in a big-endian output: perf 6.1 swaps 48 bytes of every READ, so on a little-endian machine it would swap the next record's header and stop reading there (use a little-endian output)",
            ),
            Self::Fields(field) => write!(
                f,
                "its fields do not fill it as perf reads them (at {field}): a count that runs past it or leaves bytes after it, or a kind perf does not know"
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
