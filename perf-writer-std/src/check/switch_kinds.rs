//! Switch kinds: which context switch records (SWITCH, SWITCH_CPU_WIDE, ITRACE_START) and
//! `sched:sched_switch` SAMPLEs a trace decoder of perf 6.1 takes a cpu's current thread
//! from, and so refuses without a cpu it can keep one by, or refuses outright. Each record
//! has a set of kinds (bits); each AUXTRACE_INFO refuses a set; the two meet in either
//! order ([`AuxtraceSession`](crate::check::auxtrace_session::AuxtraceSession) for records
//! checked with their description, the summaries of records written before it).

use crate::error::AuxtraceNeed;
use crate::model::trace_model::{EventDescData, NewDesc, TraceModel};
use crate::RecordProblem;
use perf_abi::auxtrace_priv::CURRENT_TID_CPU_MAX;
use perf_abi::{attr, misc, record_type, sample_type};
use perf_encode::records::{ParsedAuxtraceInfo, SwitchEvent};

/// A set of switch kinds (bits).
pub(crate) type Kinds = u16;

/// perf's name of the tracepoint Intel PT's context switches may be recorded with.
pub(crate) const SCHED_SWITCH: &str = SwitchEvent::SCHED_SWITCH_NAME;

/// Kinds of context switch records (bits) a trace decoder refuses: a host's SWITCH or
/// SWITCH_CPU_WIDE in without a cpu perf can keep a current thread for (Intel PT)...
const HOST_IN_NO_CPU: Kinds = 1;
/// ...a host's switch out without one (Intel PT of CPU-wide switches, Arm SPE)...
const HOST_OUT_NO_CPU: Kinds = 2;
/// ...a guest's switch out without one (Arm SPE)...
const GUEST_OUT_NO_CPU: Kinds = 4;
/// ...an ITRACE_START without one (Intel PT with one mmap per cpu)...
const ITRACE_START_NO_CPU: Kinds = 8;
/// ...a host's per-cpu SWITCH out (Intel PT of CPU-wide switches)...
const PER_CPU_SWITCH_OUT: Kinds = 16;
/// ...a guest's switch in (Intel PT: its current thread is kept by a virtual cpu no record
/// has)...
const GUEST_SWITCH_IN: Kinds = 32;
/// ...a SAMPLE of a `sched:sched_switch` tracepoint Intel PT takes the current thread from,
/// without a cpu perf can keep one by.
const SCHED_SWITCH_NO_CPU: Kinds = 64;
/// ...an EVENT_UPDATE before an Intel PT AUXTRACE_INFO of `sched:sched_switch` switches that
/// gives an event that name or takes it from one: perf takes the last event of that name
/// when it reads the AUXTRACE_INFO, which the descriptions no longer say.
pub(crate) const SCHED_SWITCH_RENAMED: Kinds = 128;
/// ...an AUX_OUTPUT_HW_ID, which Intel PT takes into the AUXTRACE queue of its sample id
/// and fails on unless that queue holds trace data (not followed: refused in such a trace).
const AUX_OUTPUT_HW_ID: Kinds = 256;
/// The kinds a record has when perf cannot keep a thread by its cpu, one per record type
/// and direction ([`SwitchKinds::without_cpu`] is one of them, or none).
pub(crate) const WITHOUT_CPU: [Kinds; 4] = [
    HOST_IN_NO_CPU,
    HOST_OUT_NO_CPU,
    GUEST_OUT_NO_CPU,
    ITRACE_START_NO_CPU,
];
const NO_CPU: Kinds =
    HOST_IN_NO_CPU | HOST_OUT_NO_CPU | GUEST_OUT_NO_CPU | ITRACE_START_NO_CPU | SCHED_SWITCH_NO_CPU;

/// The switch kinds of a record of type SWITCH, SWITCH_CPU_WIDE or ITRACE_START: those its
/// type and header give it, and those it has too when perf cannot keep a current thread by
/// its cpu (its `sample_id` has none, or one above [`CURRENT_TID_CPU_MAX`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SwitchKinds {
    pub(crate) fixed: Kinds,
    pub(crate) without_cpu: Kinds,
}

impl SwitchKinds {
    /// The kinds of a record of `type_` with header `misc`.
    pub(crate) fn of(type_: u32, misc: u16) -> Self {
        if type_ == record_type::AUX_OUTPUT_HW_ID {
            return SwitchKinds {
                fixed: AUX_OUTPUT_HW_ID,
                without_cpu: 0,
            };
        }
        let itrace = type_ == record_type::ITRACE_START;
        let out = misc & misc::SWITCH_OUT != 0;
        let guest = matches!(
            misc & misc::CPUMODE_MASK,
            misc::GUEST_KERNEL | misc::GUEST_USER
        );
        let mut fixed = 0;
        // perf takes a guest's switch apart (a guest's switch out it ignores).
        if type_ == record_type::SWITCH && out && !guest {
            fixed |= PER_CPU_SWITCH_OUT;
        }
        if !itrace && guest && !out {
            fixed |= GUEST_SWITCH_IN;
        }
        // A guest's switch in is kept by a virtual cpu, not by the record's.
        let without_cpu = match (itrace, guest, out) {
            (true, _, _) => ITRACE_START_NO_CPU,
            (false, true, true) => GUEST_OUT_NO_CPU,
            (false, true, false) => 0,
            (false, false, true) => HOST_OUT_NO_CPU,
            (false, false, false) => HOST_IN_NO_CPU,
        };
        SwitchKinds { fixed, without_cpu }
    }

    /// The kinds of such a record whose `sample_id` gives `cpu` (`None`: it has none).
    pub(crate) fn with_cpu(self, cpu: Option<u32>) -> Kinds {
        match Self::keeps_thread(cpu) {
            true => self.fixed,
            false => self.fixed | self.without_cpu,
        }
    }

    /// perf can keep a current thread by `cpu`.
    pub(crate) fn keeps_thread(cpu: Option<u32>) -> bool {
        cpu.is_some_and(|c| c <= CURRENT_TID_CPU_MAX)
    }
}

/// The switch kinds the decoder of `info` refuses.
pub(crate) fn refused_switch_kinds(info: &ParsedAuxtraceInfo<'_>) -> Kinds {
    let needs = info.switches_needing_cpu();
    let kinds = [
        (needs.host_in, HOST_IN_NO_CPU),
        (needs.host_out, HOST_OUT_NO_CPU),
        (needs.guest_out, GUEST_OUT_NO_CPU),
        (info.needs_itrace_start_cpu(), ITRACE_START_NO_CPU),
        (info.needs_cpu_wide_switches(), PER_CPU_SWITCH_OUT),
        (info.refuses_guest_switch_in(), GUEST_SWITCH_IN),
        (info.takes_aux_output_hw_id(), AUX_OUTPUT_HW_ID),
        (
            info.needs_switch_event() == Some(SwitchEvent::SchedSwitch),
            SCHED_SWITCH_NO_CPU | SCHED_SWITCH_RENAMED,
        ),
    ];
    kinds
        .iter()
        .fold(0, |k, &(on, kind)| if on { k | kind } else { k })
}

/// The refusal of records of switch `kinds` in a trace whose decoder refuses them.
pub(crate) fn switch_refusal(kinds: Kinds) -> RecordProblem {
    RecordProblem::Auxtrace(if kinds & SCHED_SWITCH_RENAMED != 0 {
        AuxtraceNeed::SwitchEventRenamed
    } else if kinds & AUX_OUTPUT_HW_ID != 0 {
        AuxtraceNeed::AuxOutputHwId
    } else if kinds & NO_CPU != 0 {
        AuxtraceNeed::SwitchCpu
    } else {
        AuxtraceNeed::SwitchKind
    })
}

/// An event perf can take as Intel PT's `sched:sched_switch`: a tracepoint whose SAMPLEs
/// give the cpu perf keeps the current thread of, and the RAW payload it reads `next_pid`
/// from (without one perf reads it at an offset from a null pointer, and crashes).
pub(crate) fn switch_tracepoint(attr_type: u32, st: u64) -> bool {
    let needs = sample_type::CPU | sample_type::RAW;
    attr_type == attr::TYPE_TRACEPOINT && st & needs == needs
}

/// Where the cpu is in the SAMPLEs of an event (an offset in the record), when Intel PT may
/// take their thread by it: a `sched:sched_switch` tracepoint it can take as its switch
/// event. perf takes the last event of that name; each is held to it here.
fn sched_switch_cpu(name: &str, attr_type: u32, st: u64) -> Option<usize> {
    match switch_tracepoint(attr_type, st) && name == SCHED_SWITCH {
        true => sample_type::sample_offset(st, sample_type::CPU),
        false => None,
    }
}

/// [`sched_switch_cpu`] of `desc`.
pub(crate) fn sched_switch_cpu_at(model: &TraceModel, desc: &EventDescData) -> Option<usize> {
    // The type first: the name is looked up only for tracepoints with CPU and RAW.
    if !switch_tracepoint(desc.attr.type_, desc.attr.sample_type) {
        return None;
    }
    sched_switch_cpu(
        model.entry(desc).name,
        desc.attr.type_,
        desc.attr.sample_type,
    )
}

/// [`sched_switch_cpu`] of an event about to be described.
pub(crate) fn new_sched_switch_cpu_at(new: &NewDesc<'_>) -> Option<usize> {
    sched_switch_cpu(new.name, new.attr_type, new.layout.sample_type)
}

/// The switch kinds of SAMPLEs of such an event whose cpu is at most `cpu`.
pub(crate) fn sched_switch_sample_kinds(cpu: u32) -> Kinds {
    match SwitchKinds::keeps_thread(Some(cpu)) {
        true => 0,
        false => SCHED_SWITCH_NO_CPU,
    }
}
