//! [`AuxtraceSession`]: what perf 6.1's trace decoders need of the output around an
//! AUXTRACE_INFO record. Its own settings are checked by [`ParsedAuxtraceInfo`]; this keeps
//! the rest:
//! - Arm SPE takes its time conversion from the last TIME_CONV before it, and divides by
//!   its multiplier;
//! - CoreSight needs an event of its PMU type, described before it;
//! - Arm SPE and CoreSight read the first id of the first event of their PMU type;
//! - in a file, Intel PT and BTS, Arm SPE and CoreSight fail unless perf reads it in time
//!   order, which it does only when the first event has `sample_id_all`.
//!
//! In file mode the events may be described after the record: a description that would
//! break a need is refused then, naming the record, and finish refuses while no
//! description came (the placeholder event perf would read has no `sample_id_all`).

use crate::check::record_summary::FirstRecord;
use crate::check::refusal::{Contradiction, MAX_PENDING_IDS};
use crate::error::{AuxtraceNeed, EventError};
use crate::model::trace_model::{EventDescData, NewDesc, TraceModel};
use crate::{RecordProblem, WriterError};
use perf_abi::{attr_flags, record_type, TimeConv};
use perf_encode::records::{ParseError, ParsedAuxtraceInfo};
use std::mem::offset_of;

/// Where a TIME_CONV's multiplier is (after its header).
const TIME_MULT: usize = 8 + offset_of!(TimeConv, time_mult);

/// What records of the output (or of the call) leave for descriptions still to come.
#[derive(Clone, Debug, Default)]
pub(crate) struct Waiting {
    /// PMU types of Arm SPE and CoreSight records whose first event is not described
    /// yet, each with the first such record.
    pmus: Vec<(u32, FirstRecord)>,
    /// The first record that needs the first event to have `sample_id_all`, written while
    /// no event was described.
    ordered: Option<FirstRecord>,
}

impl Waiting {
    fn merge(&mut self, other: Waiting) {
        for (pmu, first) in other.pmus {
            if !self.pmus.iter().any(|&(p, _)| p == pmu) {
                self.pmus.push((pmu, first));
            }
        }
        self.ordered = self.ordered.or(other.ordered);
    }
}

#[derive(Debug, Default)]
struct Seen {
    /// The last TIME_CONV's multiplier is not 0 (perf can divide by it).
    time_conv: Option<bool>,
    waiting: Waiting,
}

/// The output's records as far as the trace decoders care, and the call's.
#[derive(Debug, Default)]
pub(crate) struct AuxtraceSession {
    written: Seen,
    call: Seen,
    call_kept: bool,
    /// The record just checked leaves needs to descriptions still to come: for the caller
    /// to place (PMU type, and whether the first event needs `sample_id_all`).
    just_noted: Option<(Option<u32>, bool)>,
}

/// The event has `sample_id_all`.
fn has_sample_id_all(d: &EventDescData) -> bool {
    d.attr.has_flag(attr_flags::SAMPLE_ID_ALL)
}

impl AuxtraceSession {
    /// A new output.
    pub(crate) fn reset(&mut self) {
        *self = AuxtraceSession::default();
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
        self.written.time_conv = call.time_conv.or(self.written.time_conv);
        self.written.waiting.merge(call.waiting);
    }

    /// Checks a TIME_CONV or AUXTRACE_INFO record (whole, its fields walked); `file_mode`:
    /// descriptions may still come, and perf reads in time order only when the first has
    /// `sample_id_all`.
    pub(crate) fn check(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        type_: u32,
        file_mode: bool,
    ) -> Result<(), RecordProblem> {
        self.just_noted = None;
        let endian = model.endian();
        if type_ == record_type::TIME_CONV {
            self.call_kept = true;
            let mult = endian.u64_at(record, TIME_MULT).unwrap_or(0);
            self.call.time_conv = Some(mult as u32 != 0);
            return Ok(());
        }
        if type_ != record_type::AUXTRACE_INFO {
            return Ok(());
        }
        let need = |n| Err(RecordProblem::Auxtrace(n));
        let info = ParsedAuxtraceInfo::parse(record, endian).map_err(|e| match e {
            ParseError::BadValue { field, value, .. } => RecordProblem::Value { field, value },
            _ => RecordProblem::Fields("priv"),
        })?;
        let time_conv = self.call.time_conv.or(self.written.time_conv);
        if info.needs_time_conv() && time_conv != Some(true) {
            return need(AuxtraceNeed::TimeConv);
        }
        let first_event = model.descs().iter().next();
        let ordered = file_mode && info.needs_ordered();
        if ordered && first_event.is_some_and(|d| !has_sample_id_all(d)) {
            return need(AuxtraceNeed::SampleIdAll);
        }
        let mut noted = (None, ordered && first_event.is_none());
        if let Some(pmu) = info.pmu_type() {
            let first_of_pmu = model.descs().iter().find(|d| d.attr.type_ == pmu);
            if info.needs_event() && first_of_pmu.is_none() {
                return need(AuxtraceNeed::Event(pmu));
            }
            if info.needs_event_ids() {
                match first_of_pmu {
                    // An event without ids is the only one.
                    Some(_) if model.has_no_ids() => return need(AuxtraceNeed::EventIds(pmu)),
                    Some(_) => {}
                    None if file_mode => noted.0 = Some(pmu),
                    None => {}
                }
            }
        }
        let pmus = &self.written.waiting.pmus;
        if let Some(pmu) = noted.0 {
            let known = pmus.iter().chain(&self.call.waiting.pmus);
            if known.clone().any(|&(p, _)| p == pmu) {
                noted.0 = None;
            } else if known.count() >= MAX_PENDING_IDS {
                return Err(RecordProblem::TooManyPendingIds);
            }
        }
        if noted != (None, false) {
            self.just_noted = Some(noted);
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
        let Some((pmu, ordered)) = self.just_noted.take() else {
            return;
        };
        self.call_kept = true;
        let w = &mut self.call.waiting;
        if let Some(pmu) = pmu {
            w.pmus.push((pmu, first));
        }
        if ordered {
            w.ordered = w.ordered.or(Some(first));
        }
    }

    /// Checks a description about to be added: refused when it would be the first event
    /// and has no `sample_id_all` while a record needs it, or the first event of a PMU
    /// type an Arm SPE or CoreSight record names and has no ids.
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
        if !new.ids.is_empty() || model.descs().iter().any(|d| d.attr.type_ == new.attr_type) {
            return Ok(());
        }
        match w.pmus.iter().find(|&&(p, _)| p == new.attr_type) {
            Some(&(_, first)) => contradicts(first, Contradiction::AuxtraceEventIds),
            None => Ok(()),
        }
    }

    /// A record that needs a description that has not come (finish refuses, a drop cuts
    /// the data before it).
    pub(crate) fn waiting(&self, model: &TraceModel) -> Option<FirstRecord> {
        match model.descs().is_empty() {
            true => self.written.waiting.ordered,
            false => None,
        }
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
