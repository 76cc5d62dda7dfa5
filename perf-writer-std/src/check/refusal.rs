//! What strict mode says when it refuses records it took before their description: how
//! they contradict the description ([`Contradiction`]), what still waits at the end
//! ([`PendingSummary`]), and the bounds of what may wait.

use perf_encode::features::TracepointRawProblem;
use std::fmt;

/// The most event ids whose records wait for a description at one time.
pub const MAX_PENDING_IDS: usize = 4096;

/// The most bytes of memory what waits for descriptions may take.
pub const MAX_PENDING_BYTES: usize = 256 << 20;

/// What waits, for an error that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingSummary {
    /// Records waiting (one of perf's own records naming several ids that wait counts
    /// once for each).
    pub records: u64,
    /// Event ids they name (0 before the first description).
    pub ids: u64,
    /// The lowest of those ids, when they name one.
    pub id: Option<u64>,
    /// File offset of the first.
    pub offset: u64,
    /// Its type.
    pub type_: u32,
}

/// How records written before a description contradict it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Contradiction {
    /// SAMPLEs (`min` to `max` bytes long) that the layout does not read: their length is
    /// not what it makes them, or a count or size in them cannot be (a READ group of no
    /// counter, a user stack whose `dyn_size` is more than its size).
    SampleLength {
        /// The shortest.
        min: u16,
        /// The longest.
        max: u16,
    },
    /// SAMPLEs, or other records' `sample_id`, whose ID field, in this layout, differs from
    /// their IDENTIFIER (see `RecordProblem::IdFieldDiffers`).
    IdFieldDiffers,
    /// SAMPLEs whose READ value (one counter) names an id this description does not have
    /// (see `RecordProblem::ReadIdOfAnotherEvent`).
    ReadIdOfAnotherEvent,
    /// SAMPLEs whose READ ids are not the same in all of them, or lie past their first 512
    /// bytes: of SAMPLEs written before their description, strict mode keeps only the ids
    /// that are (a kernel writes one event's the same each time). Describe the event first.
    ReadIdsVary,
    /// RAW payloads that break the format's rule.
    Raw(TracepointRawProblem),
    /// RAW payloads whose `common_type` differs from one to another.
    CommonTypes,
    /// RAW payloads whose dynamic field at `field` puts its data outside the payload.
    DynamicData {
        /// Where the field is in the payload.
        field: u32,
    },
    /// Records other than SAMPLE whose lengths do not fit their types with the layout's
    /// `sample_id` trailer (`trailer` bytes).
    SideBandLength {
        /// The trailer's length.
        trailer: u16,
    },
    /// COMM, MMAP, MMAP2, CGROUP or KSYMBOL records whose names hold no NUL before this
    /// `sample_id` trailer (see `RecordProblem::NameWithoutNul`).
    SideBandName {
        /// The trailer's length.
        trailer: u16,
    },
    /// Big-endian READ records whose `sample_id` trailer of this length would start before
    /// byte 56 (see `RecordProblem::ReadSampleIdUnswapped`).
    ReadSampleIdUnswapped {
        /// The trailer's length.
        trailer: u16,
    },
    /// COMPRESSED records, and a HEADER_COMPRESSED that is not zstd with `mmap_len` above 0.
    Compression,
    /// Records written before any description, which strict mode cannot attribute to this
    /// one (the reason says why).
    Unattributable(&'static str),
    /// STATs that this description makes of an event an EVENT_UPDATE gave cpus their cpu
    /// is not among (perf: "Invalid CPU").
    StatCpus,
    /// An AUXTRACE_INFO (Arm SPE or CoreSight) of this event's `attr.type`, which has no
    /// ids and would be the first of that type: perf reads the first's first id, and
    /// crashes.
    AuxtraceEventIds,
    /// An AUXTRACE_INFO (Intel PT or BTS, Arm SPE, CoreSight) whose decoder fails unless
    /// perf reads the file in time order, which it does only when the first event has
    /// `sample_id_all`, and this first event has not.
    AuxtraceOrder,
    /// An AUXTRACE_INFO (Intel PT or BTS, Arm SPE, CoreSight) whose trace perf would
    /// synthesize events from with an id this event has (the first id of the trace's PMU
    /// event plus one billion, and the next few).
    AuxtraceSynthIds,
    /// An Intel PT AUXTRACE_INFO whose context switches were recorded with
    /// `sched:sched_switch`: perf takes the last event of that name, and this one, not a
    /// tracepoint with CPU and RAW, would crash it.
    AuxtraceSwitchEvent,
    /// Context switches (or ITRACE_STARTs) in an Intel PT or Arm SPE trace that this
    /// layout gives no cpu perf can keep a current thread by: its `sample_id` has no CPU,
    /// or theirs is above 65535; or SAMPLEs of this `sched:sched_switch` tracepoint, which
    /// an Intel PT trace takes threads from, with a cpu above 65535. (Records written with
    /// strict mode off may hold such an AUXTRACE_INFO: then any such record is.)
    AuxtraceSwitchCpu,
}

impl fmt::Display for Contradiction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SampleLength { min, max } if min == max => write!(
                f,
                "SAMPLEs of {min} bytes that its layout does not read (their length, or a count or size in them)"
            ),
            Self::SampleLength { min, max } => write!(
                f,
                "SAMPLEs of {min} to {max} bytes, not all of which its layout reads (their length, or a count or size in them)"
            ),
            Self::Raw(p) => write!(f, "RAW payloads break its format: {p}"),
            Self::IdFieldDiffers => f.write_str(
                "records whose ID field is not their IDENTIFIER: perf would count them for another event, or drop them (a layout that reads that word as ID is wrong for them)",
            ),
            Self::ReadIdOfAnotherEvent => f.write_str(
                "SAMPLEs whose READ value names an id this event does not have: perf would count them for another event, or drop them (a single counter's id is its event's own)",
            ),
            Self::ReadIdsVary => f.write_str(
                "SAMPLEs whose READ ids differ from one to the next, or lie past their first 512 bytes, which strict mode does not keep of records written before their description: describe the event before its SAMPLEs",
            ),
            Self::CommonTypes => f.write_str(
                "RAW payloads with different common_type values: not all its format's id",
            ),
            Self::DynamicData { field } => write!(
                f,
                "RAW payloads whose dynamic field at {field} puts its data outside the payload"
            ),
            Self::SideBandLength { trailer } => write!(
                f,
                "records other than SAMPLE whose sizes do not fit their types with its {trailer}-byte sample_id trailer"
            ),
            Self::SideBandName { trailer } => write!(
                f,
                "records whose names hold no NUL before its {trailer}-byte sample_id trailer"
            ),
            Self::ReadSampleIdUnswapped { trailer } => write!(
                f,
                "big-endian READ records whose {trailer}-byte sample_id trailer would start before byte 56, which perf 6.1 leaves unswapped"
            ),
            Self::Compression => f.write_str(
                "COMPRESSED records need HEADER_COMPRESSED to say zstd, with mmap_len above 0",
            ),
            Self::Unattributable(why) => f.write_str(why),
            Self::AuxtraceSwitchEvent => f.write_str(
                "an Intel PT AUXTRACE_INFO whose context switches were recorded with sched:sched_switch: perf takes the last event of that name, and this one is not a tracepoint with CPU and RAW in its sample_type (perf would crash, or refuse its SAMPLEs)",
            ),
            Self::AuxtraceSwitchCpu => f.write_str(
                "context switches (or ITRACE_STARTs, or sched:sched_switch SAMPLEs) in an Intel PT or Arm SPE trace that it gives no cpu perf can keep their thread by (no CPU, or one above 65535): perf would fail",
            ),
            Self::AuxtraceSynthIds => f.write_str(
                "an AUXTRACE_INFO whose trace perf synthesizes events from with ids this event has (the first id of the trace's PMU event plus one billion, and the next 15): perf would take its records for those",
            ),
            Self::AuxtraceOrder => f.write_str(
                "an AUXTRACE_INFO whose trace decoder needs the file read in time order: perf does that only when the first event has sample_id_all, and this one has not",
            ),
            Self::AuxtraceEventIds => f.write_str(
                "an AUXTRACE_INFO of its attr.type: perf reads the first such event's first id, and this one has none (give it ids)",
            ),
            Self::StatCpus => f.write_str(
                "STATs it makes of an event an EVENT_UPDATE gave cpus before the CPU_MAP and THREAD_MAP, on a cpu not among them: perf would refuse them",
            ),
        }
    }
}
