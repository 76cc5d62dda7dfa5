//! [`AuxtraceSession`]: what perf 6.1's trace decoders need of the output around an
//! AUXTRACE_INFO record. Its own settings are checked by [`ParsedAuxtraceInfo`]; this keeps
//! the rest:
//! - Arm SPE takes its time conversion from the last TIME_CONV before it, and divides by
//!   its multiplier;
//! - CoreSight needs an event of its PMU type, and Intel PT the event its context switches
//!   were recorded with (`sched:sched_switch`, or one with `context_switch`);
//! - Arm SPE and CoreSight read the first id of the first event of their PMU type;
//! - perf gives the events it synthesizes from a trace ids from the first id of its PMU's
//!   event plus one billion, which no event may have;
//! - in a file, every decoder but HiSilicon PTT's fails unless perf reads the file in time
//!   order, which it does only when the first event has `sample_id_all`;
//! - an AUXTRACE record needs an AUXTRACE_INFO before it.
//!
//! perf reads a pipe stream in order, so there each need is checked at the call. In file
//! mode the events may be described after the record: a description that would break a
//! need is refused then, naming the record, and finish refuses while an event it needs has
//! not come.

use crate::check::record_rules::{check_body, event_update_name};
use crate::check::record_summary::FirstRecord;
use crate::check::refusal::{Contradiction, MAX_PENDING_IDS};
use crate::check::switch_kinds::{
    refused_switch_kinds, switch_refusal, switch_tracepoint, Kinds, SCHED_SWITCH,
    SCHED_SWITCH_RENAMED,
};
use crate::error::{AuxtraceNeed, EventError};
use crate::model::trace_model::{EventDescData, NewDesc, TraceModel};
use crate::{RecordProblem, WriterError};
use perf_abi::auxtrace_priv::{SYNTH_IDS, SYNTH_ID_OFFSET};
use perf_abi::record_fields::{AUXTRACE_IDX_AT, AUXTRACE_IDX_MAX};
use perf_abi::{attr_flags, record_type, TimeConv};
use perf_encode::records::{ParseError, ParsedAuxtraceInfo, SwitchEvent};
use std::mem::offset_of;

/// Where a TIME_CONV's multiplier is (after its header).
const TIME_MULT: usize = 8 + offset_of!(TimeConv, time_mult);

/// An event a record needs described by finish (file mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EventNeed {
    Pmu(u32),
    Switch(SwitchEvent),
}

/// The ids perf gives the events it synthesizes from a trace: from the first id of the
/// first event of a PMU type with ids (file mode, that event may come later), or from a
/// known id (pipe mode, fixed when the record was read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SynthIds {
    OfPmu(u32),
    From(u64),
}

/// What records of the output (or of the call) leave for descriptions still to come.
#[derive(Clone, Debug, Default)]
pub(crate) struct Waiting {
    /// PMU types whose first event must have ids (Arm SPE, CoreSight), when none was
    /// described yet.
    first_with_ids: Vec<(u32, FirstRecord)>,
    /// The first record that needs the first event to have `sample_id_all`, written while
    /// no event was described.
    ordered: Option<FirstRecord>,
    /// Events that must be described by finish.
    events: Vec<(EventNeed, FirstRecord)>,
    /// Ids no event may have.
    synth: Vec<(SynthIds, FirstRecord)>,
}

impl Waiting {
    fn len(&self) -> usize {
        self.first_with_ids.len() + self.events.len() + self.synth.len()
    }

    /// Adds `other`'s, keeping the first record of each need.
    fn merge(&mut self, other: Waiting) {
        fn add<T: PartialEq>(to: &mut Vec<(T, FirstRecord)>, from: Vec<(T, FirstRecord)>) {
            for (need, first) in from {
                if !to.iter().any(|(n, _)| *n == need) {
                    to.push((need, first));
                }
            }
        }
        add(&mut self.first_with_ids, other.first_with_ids);
        add(&mut self.events, other.events);
        add(&mut self.synth, other.synth);
        self.ordered = self.ordered.or(other.ordered);
    }
}

/// The needs of the record just checked, for descriptions still to come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Notes {
    first_with_ids: Option<u32>,
    ordered: bool,
    events: [Option<EventNeed>; 2],
    synth: Option<SynthIds>,
}

#[derive(Debug, Default)]
struct Seen {
    /// The last TIME_CONV's multiplier is not 0 (perf can divide by it).
    time_conv: Option<bool>,
    /// An AUXTRACE_INFO came.
    info: bool,
    /// The [switch kinds](crate::check::switch_kinds) an AUXTRACE_INFO that came refuses.
    refused_switches: Kinds,
    /// The switch kinds of the records that came.
    switches: Kinds,
    waiting: Waiting,
}

/// The output's records as far as the trace decoders care, and the call's.
#[derive(Debug, Default)]
pub(crate) struct AuxtraceSession {
    written: Seen,
    call: Seen,
    call_kept: bool,
    /// Records went out unchecked since the last TIME_CONV, or while no AUXTRACE_INFO was
    /// seen: they may hold one; or at all: they may hold records without a cpu.
    unseen_time_conv: bool,
    unseen_info: bool,
    unseen: bool,
    /// The record just checked leaves needs to descriptions still to come: for the caller
    /// to place.
    just_noted: Option<Notes>,
}

/// The event has `sample_id_all`.
fn has_sample_id_all(d: &EventDescData) -> bool {
    d.attr.has_flag(attr_flags::SAMPLE_ID_ALL)
}

/// The first id perf gives the events it synthesizes from a trace whose PMU's event has
/// `first_id` first.
fn synth_from(first_id: u64) -> u64 {
    match first_id.wrapping_add(SYNTH_ID_OFFSET) {
        0 => 1,
        id => id,
    }
}

/// Among the ids perf synthesizes from `from` on.
fn is_synth(from: u64, id: u64) -> bool {
    id.wrapping_sub(from) < SYNTH_IDS
}

/// The first id of the first event of `pmu` with ids, in `model`.
fn first_id_of(model: &TraceModel, pmu: u32) -> Option<u64> {
    let mut of_pmu = model.descs().iter().filter(|d| d.attr.type_ == pmu);
    of_pmu.find_map(|d| model.entry(d).ids.first().copied())
}

/// An event of `model` has one of the ids synthesized from `from` on.
fn synth_taken(model: &TraceModel, from: u64) -> bool {
    (0..SYNTH_IDS).any(|k| model.desc_of_id(from.wrapping_add(k)).is_some())
}

/// `model` has the event `need` asks for (for `sched:sched_switch`, perf takes the last
/// event of that name, which must be the tracepoint).
fn has_event(model: &TraceModel, need: EventNeed) -> bool {
    let mut descs = model.descs().iter();
    match need {
        EventNeed::Pmu(pmu) => descs.any(|d| d.attr.type_ == pmu),
        EventNeed::Switch(SwitchEvent::SchedSwitch) => {
            let named = model
                .descs()
                .iter()
                .filter(|d| model.entry(d).name == SCHED_SWITCH);
            named
                .last()
                .is_some_and(|d| switch_tracepoint(d.attr.type_, d.attr.sample_type))
        }
        EventNeed::Switch(SwitchEvent::ContextSwitch) => {
            descs.any(|d| d.attr.has_flag(attr_flags::CONTEXT_SWITCH))
        }
    }
}

impl EventNeed {
    fn refusal(self) -> AuxtraceNeed {
        match self {
            EventNeed::Pmu(pmu) => AuxtraceNeed::Event(pmu),
            EventNeed::Switch(SwitchEvent::SchedSwitch) => AuxtraceNeed::SchedSwitchEvent,
            EventNeed::Switch(SwitchEvent::ContextSwitch) => AuxtraceNeed::ContextSwitchEvent,
        }
    }
}

impl AuxtraceSession {
    /// A new output.
    pub(crate) fn reset(&mut self) {
        *self = AuxtraceSession::default();
    }

    /// Records went out unchecked: a TIME_CONV or AUXTRACE_INFO may be among them.
    pub(crate) fn unseen(&mut self) {
        self.unseen_time_conv = true;
        self.unseen_info |= !self.written.info;
        self.unseen = true;
    }

    /// A call starts.
    #[inline]
    pub(crate) fn start_call(&mut self) {
        self.just_noted = None;
        if self.call_kept {
            self.call = Seen::default();
            self.call_kept = false;
        }
    }

    /// The call was written: what it brought is the output's.
    #[inline]
    pub(crate) fn call_written(&mut self) {
        if !self.call_kept {
            return;
        }
        self.call_kept = false;
        let call = std::mem::take(&mut self.call);
        if call.time_conv.is_some() {
            self.written.time_conv = call.time_conv;
            self.unseen_time_conv = false;
        }
        if call.info {
            self.written.info = true;
            self.unseen_info = false;
        }
        self.written.refused_switches |= call.refused_switches;
        self.written.switches |= call.switches;
        self.written.waiting.merge(call.waiting);
    }

    /// Checks a TIME_CONV, AUXTRACE_INFO or AUXTRACE record (whole, its fields walked);
    /// `file_mode`: descriptions may still come, and perf reads in time order only when
    /// the first has `sample_id_all`.
    pub(crate) fn check(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        type_: u32,
        file_mode: bool,
    ) -> Result<(), RecordProblem> {
        self.just_noted = None;
        match type_ {
            record_type::TIME_CONV => {
                self.call_kept = true;
                let mult = model.endian().u64_at(record, TIME_MULT).unwrap_or(0);
                self.call.time_conv = Some(mult as u32 != 0);
                Ok(())
            }
            record_type::AUXTRACE => self.auxtrace_allowed(),
            record_type::AUXTRACE_INFO => self.check_info(model, record, file_mode),
            _ => Ok(()),
        }
    }

    /// A context switch (SWITCH, SWITCH_CPU_WIDE) or ITRACE_START record of switch `kinds`
    /// (see [`SwitchKinds`](crate::check::switch_kinds::SwitchKinds)): refused when an AUXTRACE_INFO that came refuses one of them,
    /// noted otherwise for such an AUXTRACE_INFO to come.
    pub(crate) fn check_switch(&mut self, kinds: Kinds) -> Result<(), RecordProblem> {
        // Records written with strict mode off may hold an AUXTRACE_INFO that refuses it.
        if kinds != 0 && self.unseen_info {
            return Err(RecordProblem::Auxtrace(AuxtraceNeed::Unchecked));
        }
        let refused = (self.call.refused_switches | self.written.refused_switches) & kinds;
        if refused != 0 {
            return Err(switch_refusal(refused));
        }
        if kinds != 0 {
            self.call_kept = true;
            self.call.switches |= kinds;
        }
        Ok(())
    }

    /// An EVENT_UPDATE (its fields checked): one that gives an event the name
    /// `sched:sched_switch` or takes it from one (by its description's name; an id not
    /// described yet counts as either) is noted for an Intel PT AUXTRACE_INFO to come,
    /// which would take another event as its switch event than the descriptions say. One
    /// after the AUXTRACE_INFO changes nothing perf took.
    pub(crate) fn note_event_update(&mut self, model: &TraceModel, record: &[u8]) {
        let Some((id, name)) = event_update_name(model.endian(), record) else {
            return;
        };
        let gives = name == SCHED_SWITCH.as_bytes();
        let had = model
            .desc_for(Some(id))
            .ok()
            .map(|d| model.entry(d).name == SCHED_SWITCH);
        if had != Some(gives) {
            self.call_kept = true;
            self.call.switches |= SCHED_SWITCH_RENAMED;
        }
    }

    /// A caller's EVENT_DESC may give an event the name `sched:sched_switch` or take it
    /// from one (perf reads it before every record): not when an AUXTRACE_INFO that came
    /// would then take another switch event than the descriptions say (or records written
    /// with strict mode off may hold one).
    pub(crate) fn event_desc_rename_allowed(&self) -> bool {
        !self.unseen_info && self.written.refused_switches & SCHED_SWITCH_RENAMED == 0
    }

    /// The caller's EVENT_DESC that [`event_desc_rename_allowed`] allowed was set: an
    /// AUXTRACE_INFO to come is checked against it.
    ///
    /// [`event_desc_rename_allowed`]: Self::event_desc_rename_allowed
    pub(crate) fn event_desc_renamed(&mut self) {
        self.written.switches |= SCHED_SWITCH_RENAMED;
    }

    /// The switch kinds the AUXTRACE_INFO records written refuse (what a description
    /// must not give records still waiting for one): all of them when records written with
    /// strict mode off may hold one.
    pub(crate) fn refused_switches(&self) -> Kinds {
        match self.unseen_info {
            true => Kinds::MAX,
            false => self.written.refused_switches,
        }
    }

    /// Records of switch `kinds` were written before their description, which has now
    /// come: an AUXTRACE_INFO to come is checked against them.
    pub(crate) fn switches_described(&mut self, kinds: Kinds) {
        self.written.switches |= kinds;
    }

    /// An AUXTRACE record's fields (its payload passes through unchecked): its size, and
    /// an `idx` perf can make a queue for.
    pub(crate) fn check_auxtrace(model: &TraceModel, record: &[u8]) -> Result<(), RecordProblem> {
        let info = record_type::info(record_type::AUXTRACE);
        if let Some(info) = info {
            check_body(info.body, record.len(), 0)?;
        }
        let idx = model.endian().u32_at(record, AUXTRACE_IDX_AT).unwrap_or(0);
        match idx > AUXTRACE_IDX_MAX {
            true => Err(RecordProblem::Value {
                field: "idx",
                value: idx.into(),
            }),
            false => Ok(()),
        }
    }

    /// An AUXTRACE record may come: an AUXTRACE_INFO came before it (its payload passes
    /// through unchecked, so it is judged by its header).
    pub(crate) fn auxtrace_allowed(&self) -> Result<(), RecordProblem> {
        match self.call.info || self.written.info {
            true => Ok(()),
            false if self.unseen_info => Err(RecordProblem::Auxtrace(AuxtraceNeed::Unchecked)),
            false => Err(RecordProblem::Auxtrace(AuxtraceNeed::Info)),
        }
    }

    fn check_info(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        file_mode: bool,
    ) -> Result<(), RecordProblem> {
        let need = |n| Err(RecordProblem::Auxtrace(n));
        let info = ParsedAuxtraceInfo::parse(record, model.endian()).map_err(|e| match e {
            ParseError::BadValue { field, value, .. } => RecordProblem::Value { field, value },
            _ => RecordProblem::Fields("priv"),
        })?;
        if info.needs_time_conv() {
            match self.call.time_conv {
                Some(true) => {}
                None if self.unseen_time_conv => return need(AuxtraceNeed::Unchecked),
                None if self.written.time_conv == Some(true) => {}
                _ => return need(AuxtraceNeed::TimeConv),
            }
        }
        let refused_switches = refused_switch_kinds(&info);
        let came = refused_switches & (self.call.switches | self.written.switches);
        if came != 0 {
            return Err(switch_refusal(came));
        }
        // Records written unchecked may be of those kinds.
        if refused_switches != 0 && self.unseen {
            return need(AuxtraceNeed::Unchecked);
        }
        let mut notes = Notes::default();
        if file_mode && info.needs_ordered() {
            match model.descs().iter().next() {
                Some(d) if !has_sample_id_all(d) => return need(AuxtraceNeed::SampleIdAll),
                Some(_) => {}
                None => notes.ordered = true,
            }
        }
        let pmu = info.pmu_type();
        let wanted = [
            pmu.filter(|_| info.needs_event()).map(EventNeed::Pmu),
            info.needs_switch_event().map(EventNeed::Switch),
        ];
        for (want, note) in wanted.into_iter().zip(&mut notes.events) {
            let Some(want) = want else { continue };
            match (has_event(model, want), file_mode) {
                // A later event of that name would be the one perf takes.
                (true, true) if want == EventNeed::Switch(SwitchEvent::SchedSwitch) => {
                    *note = Some(want)
                }
                (true, _) => {}
                (false, true) => *note = Some(want),
                (false, false) => return need(want.refusal()),
            }
        }
        if let Some(pmu) = pmu {
            let first = model.descs().iter().find(|d| d.attr.type_ == pmu);
            match first {
                // An event without ids is the only one.
                Some(_) if info.needs_event_ids() && model.has_no_ids() => {
                    return need(AuxtraceNeed::EventIds(pmu));
                }
                None if info.needs_event_ids() && file_mode => notes.first_with_ids = Some(pmu),
                _ => {}
            }
            if info.synthesizes() {
                match first_id_of(model, pmu).map(synth_from) {
                    Some(from) if synth_taken(model, from) => {
                        return need(AuxtraceNeed::FreeSynthIds(from));
                    }
                    // Later descriptions may not take them.
                    Some(from) => notes.synth = Some(SynthIds::From(from)),
                    // perf reading a pipe stream synthesizes nothing without the event.
                    None if file_mode => notes.synth = Some(SynthIds::OfPmu(pmu)),
                    None => {}
                }
            }
        }
        self.call_kept = true;
        self.call.info = true;
        self.call.refused_switches |= refused_switches;
        if notes != Notes::default() {
            let kept = self.written.waiting.len() + self.call.waiting.len();
            if kept >= MAX_PENDING_IDS {
                return Err(RecordProblem::TooManyPendingIds);
            }
            self.just_noted = Some(notes);
        }
        Ok(())
    }

    /// [`check`](Self::check) noted needs for descriptions still to come.
    #[inline]
    pub(crate) fn notes_one(&self) -> bool {
        self.just_noted.is_some()
    }

    /// Places what [`check`](Self::check) noted (the record passed): `first` says where it
    /// is.
    pub(crate) fn place_noted(&mut self, first: FirstRecord) {
        let Some(notes) = self.just_noted.take() else {
            return;
        };
        let w = Waiting {
            first_with_ids: notes
                .first_with_ids
                .map(|p| (p, first))
                .into_iter()
                .collect(),
            ordered: notes.ordered.then_some(first),
            events: notes
                .events
                .into_iter()
                .flatten()
                .map(|e| (e, first))
                .collect(),
            synth: notes.synth.map(|s| (s, first)).into_iter().collect(),
        };
        self.call.waiting.merge(w);
    }

    /// Checks a description about to be added: refused when it would be the first event
    /// and has no `sample_id_all` while a record needs it, the first event of a PMU type
    /// an Arm SPE or CoreSight record names and has no ids, or has an id perf gives an
    /// event it synthesizes from a trace.
    pub(crate) fn check_description(
        &self,
        model: &TraceModel,
        new: &NewDesc<'_>,
    ) -> Result<(), WriterError> {
        let contradicts = |first: FirstRecord, problem| {
            Err(WriterError::Event(EventError::ContradictsRecords {
                records: 1,
                offset: first.pos,
                type_: first.type_,
                id: None,
                problem,
            }))
        };
        let w = &self.written.waiting;
        if let Some(first) = w.ordered {
            if model.descs().is_empty() && !new.sample_id_all {
                return contradicts(first, Contradiction::AuxtraceOrder);
            }
        }
        let sched_switch = EventNeed::Switch(SwitchEvent::SchedSwitch);
        if new.name == SCHED_SWITCH && !switch_tracepoint(new.attr_type, new.layout.sample_type) {
            if let Some(&(_, first)) = w.events.iter().find(|(e, _)| *e == sched_switch) {
                return contradicts(first, Contradiction::AuxtraceSwitchEvent);
            }
        }
        let first_of_type = !model.descs().iter().any(|d| d.attr.type_ == new.attr_type);
        if first_of_type && new.ids.is_empty() {
            if let Some(&(_, first)) = w.first_with_ids.iter().find(|(p, _)| *p == new.attr_type) {
                return contradicts(first, Contradiction::AuxtraceEventIds);
            }
        }
        for &(synth, first) in &w.synth {
            let from = match synth {
                SynthIds::From(from) => from,
                SynthIds::OfPmu(pmu) => match first_id_of(model, pmu) {
                    Some(id) => synth_from(id),
                    // This one would be the PMU's first event with ids: its first id
                    // sets them, and no event may have one.
                    None if pmu == new.attr_type => match new.ids.first() {
                        Some(&id) if synth_taken(model, synth_from(id)) => {
                            return contradicts(first, Contradiction::AuxtraceSynthIds);
                        }
                        Some(&id) => synth_from(id),
                        None => continue,
                    },
                    None => continue,
                },
            };
            if new.ids.iter().any(|&id| is_synth(from, id)) {
                return contradicts(first, Contradiction::AuxtraceSynthIds);
            }
        }
        Ok(())
    }

    /// A record whose need a description that has not come would meet (finish refuses,
    /// a drop cuts the data before it).
    pub(crate) fn waiting(&self, model: &TraceModel) -> Option<FirstRecord> {
        let w = &self.written.waiting;
        let ordered = w.ordered.filter(|_| model.descs().is_empty());
        let events = w.events.iter().filter(|&&(e, _)| !has_event(model, e));
        ordered
            .into_iter()
            .chain(events.map(|&(_, first)| first))
            .min_by_key(|f| f.pos)
    }

    /// Takes what waits for descriptions away (strict mode goes off), to be given back
    /// by [`give_back`](Self::give_back).
    pub(crate) fn take_waiting(&mut self) -> Waiting {
        std::mem::take(&mut self.written.waiting)
    }

    /// Gives back what [`take_waiting`](Self::take_waiting) took.
    pub(crate) fn give_back(&mut self, waiting: Waiting) {
        self.written.waiting = waiting;
    }

    /// Forgets what waits (its records are dropped from the output).
    pub(crate) fn forget_waiting(&mut self) {
        self.written.waiting = Waiting::default();
    }
}
