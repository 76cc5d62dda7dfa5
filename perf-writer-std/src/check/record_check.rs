//! [`RecordCheck`]: strict mode, and the statistics the writer derives from the events
//! (SAMPLE_TIME, NRCPUS). Both look at whole records, so while either is on a record split
//! across calls is held back until its last byte arrives; nothing of a refused call is
//! written.

use crate::check::auxtrace_session::{AuxtraceSession, Waiting as AuxWaiting};
use crate::check::checked_events::{CheckedEvents, Quick};
use crate::check::pending_records::{is_sample, Deferral, GroupFound, PendingRecords, Resolution};
use crate::check::record_rules::{
    check_body, check_kernel_values, check_name, check_read_ids, check_read_trailer,
    check_repeated_id, check_sample_len, check_swapped_by_perf, check_trailer_repeated_id,
    check_user_fields, counted_body, header_misc, is_switch, unknown_named_id, with_parsed,
    EventStats, AUXTRACE_SESSION, NAMES_IDS, STAT_SESSION, WRITER_MANAGED,
};
use crate::check::record_summary::FirstRecord;
use crate::check::refusal::PendingSummary;
use crate::check::stat_session::{Held, StatMode, StatSession};
use crate::check::switch_kinds::{sched_switch_cpu_at, sched_switch_sample_kinds, SwitchKinds};
use crate::error::RecordError;
use crate::error::{RecordProblem, WriterError};
use crate::model::trace_model::{EventDescData, NewDesc, TraceModel};
use crate::output::OutputMode;
use crate::PartialRecord;
use perf_abi::record_type;
use perf_encode::records::{
    first_plain_record, header_type_and_size, id_of_non_sample, is_plain_record, record_extent,
    ParseError, RecordExtent, RecordWalker, SampleLayout, Step,
};
use perf_encode::Endian;
use std::io::{self, IoSlice};
use std::ops::Deref;

/// Checks records in strict mode and gathers [`EventStats`]; idle (and free) when both are
/// off.
#[derive(Debug, Default)]
pub(crate) struct RecordCheck {
    /// Refuse records perf would misread.
    strict: bool,
    /// Gather [`EventStats`].
    derive: bool,
    /// Strict mode and derived headers as last set, to take effect at the next record
    /// boundary (a record begun under one setting is finished under it): `Some` while that
    /// boundary has not come.
    wanted: Option<(bool, bool)>,
    /// `strict || derive || wanted.is_some()`, kept by the setters: the write path tests one
    /// flag, and a setting waiting for its boundary sends every call the long way, where
    /// it is applied.
    active: bool,
    /// The start of a record whose end has not arrived (held back).
    pending: Vec<u8>,
    /// Bytes of a HEADER_TRACING_DATA or AUXTRACE payload still to pass through unchecked.
    skip: u64,
    /// Gathered so far in this output.
    pub(crate) stats: EventStats,
    /// Reused to join a record split across calls.
    scratch: Vec<u8>,
    /// What strict mode learned of the events whose records passed the full check: their
    /// next records are checked without being parsed.
    events: CheckedEvents,
    /// Records are checked by [`events`](Self::events) first: strict mode without derived
    /// headers (they need each record's time and cpu) and no setting waiting, between
    /// records. Kept by [`refresh_quick`](Self::refresh_quick).
    quick: bool,
    /// File mode: a record strict mode cannot check yet (its description, or
    /// HEADER_COMPRESSED, comes later) is written and checked when that arrives.
    defers: bool,
    /// What waits for a description (see [`PendingRecords`]).
    undescribed: PendingRecords,
    /// The records of the call being checked that go to `undescribed` once it is written.
    deferred: Vec<DeferredRecord>,
    /// The record begun in a call and not finished, held back or passing through.
    partial: Option<PartialRecord>,
    /// The maps STAT records need (strict mode).
    stat: StatSession,
    /// What AUXTRACE_INFO records' trace decoders need around them (strict mode).
    aux: AuxtraceSession,
    /// While strict mode is off: the stream position where it went off (`None`: not known).
    unchecked_from: Option<u64>,
    /// While strict mode is off: what waited for descriptions when it went off, and the
    /// model's revision then. Strict mode back on with nothing written or changed between
    /// takes it back; else its records stay unchecked.
    parked: Option<(PendingRecords, (Held, AuxWaiting), u64)>,
}

/// A record of the call being checked that strict mode checks later.
#[derive(Clone, Copy, Debug)]
struct DeferredRecord {
    /// Where it is in the call's bytes (held-back bytes first).
    at: usize,
    len: usize,
    why: Deferral,
    first: FirstRecord,
}

/// Where the record being checked is: in the call's bytes, and in the stream.
#[derive(Clone, Copy, Debug)]
struct Place {
    /// Offset in the call's bytes (held-back bytes first).
    at: usize,
    /// Stream position.
    pos: u64,
    /// Whole records before it in the stream.
    records: u64,
}

/// What the full check of a record found, when it passes.
enum Outcome<'s> {
    /// The event description that owns it (a kernel record).
    Owned(&'s EventDescData),
    /// No description applies (a tool record), or nothing is checked.
    Free,
    /// Strict mode checks it when what it needs arrives.
    Deferred(Deferral),
}

/// Why a call wrote nothing.
enum Refusal {
    /// The refused record began in the bytes held back from earlier calls: they are dropped
    /// with it.
    Held(WriterError),
    /// The call's own bytes were refused (or the output failed); the held-back bytes stay.
    Call(io::Error),
}

/// Where the bytes of one call stop being whole records.
struct Walk {
    /// Logical offset (held-back bytes first, then the call's bytes) of the first byte held
    /// back.
    tail: usize,
    /// Payload bytes to pass through after this call.
    skip: u64,
    /// The whole length of a record with a payload that begins in this call and does not
    /// end in it (0: none).
    open_len: u64,
    /// The record the call leaves unfinished, begun in it: its type (0 while its header is
    /// not whole), its whole length once known, and its logical offset.
    open: Option<(u32, Option<u64>, usize)>,
    stats: EventStats,
}

impl RecordCheck {
    /// A check in strict mode or not, deriving nothing.
    pub(crate) fn new(strict: bool) -> Self {
        let mut check = RecordCheck {
            strict,
            active: strict,
            ..RecordCheck::default()
        };
        check.refresh_quick();
        check
    }

    /// Keeps [`quick`](Self::quick) equal to what it says.
    fn refresh_quick(&mut self) {
        self.quick = self.strict
            && !self.derive
            && self.wanted.is_none()
            && self.pending.is_empty()
            && self.skip == 0;
    }

    /// True when calls take the long way: records are checked, or a setting waits for the
    /// next record boundary (see [`apply_waiting_settings`](Self::apply_waiting_settings)).
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.active
    }

    /// True when records go through this check (as opposed to straight to the output).
    pub(crate) fn checking(&self) -> bool {
        self.strict || self.derive
    }

    /// Strict mode as last set (it takes effect at the next record boundary).
    pub(crate) fn strict(&self) -> bool {
        self.wanted.map_or(self.strict, |(strict, _)| strict)
    }

    /// Derived headers as last set (they take effect at the next record boundary).
    pub(crate) fn derive(&self) -> bool {
        self.wanted.map_or(self.derive, |(_, derive)| derive)
    }

    /// Strict mode: refuse records perf would misread. Takes effect at the next record
    /// boundary ([`apply_waiting_settings`](Self::apply_waiting_settings)).
    pub(crate) fn set_strict(&mut self, on: bool) {
        self.want(on, self.derive());
    }

    /// Gathering the stats the derived headers come from. Takes effect at the next record
    /// boundary ([`apply_waiting_settings`](Self::apply_waiting_settings)).
    pub(crate) fn set_derive(&mut self, on: bool) {
        self.want(self.strict(), on);
    }

    fn want(&mut self, strict: bool, derive: bool) {
        self.wanted = ((strict, derive) != (self.strict, self.derive)).then_some((strict, derive));
        self.active = self.strict || self.derive || self.wanted.is_some();
        self.refresh_quick();
    }

    /// Applies the settings waiting for a record boundary when the stream is at one: when
    /// neither `out` holds part of a record (written to it while nothing was checked) nor
    /// this check does. Call after every call that writes records.
    #[inline]
    pub(crate) fn apply_waiting_settings<O: OutputMode>(
        &mut self,
        model: &TraceModel,
        out: Option<&O>,
    ) {
        if let Some((strict, derive)) = self.wanted {
            let output_inside_record = out.is_some_and(|o| o.partial_len() != 0);
            let position = out.map_or(0, |o| o.position());
            let revision = model.revision();
            if !output_inside_record && !self.inside_record() {
                let was = self.strict;
                self.strict = strict;
                self.derive = derive;
                self.wanted = None;
                self.active = strict || derive;
                if was && !strict {
                    // The unchecked opt-in: what waited goes out unchecked, unless strict
                    // mode comes back before anything changes.
                    let waited = std::mem::take(&mut self.undescribed);
                    let held = (self.stat.take_held(), self.aux.take_waiting());
                    self.parked = Some((waited, held, revision));
                    self.unchecked_from = Some(position);
                }
                if !was && strict {
                    let unchanged = self.unchecked_from == Some(position);
                    // Records written meanwhile went out unseen.
                    if !unchanged {
                        self.stat.unseen();
                        self.aux.unseen();
                    }
                    if let Some((waited, (held, aux), then)) = self.parked.take() {
                        if unchanged && then == revision {
                            self.undescribed = waited;
                            self.stat.give_back_held(held);
                        }
                        // What records written in strict mode need of descriptions still
                        // to come holds again: those made from now on are checked by it.
                        self.aux.give_back(aux);
                    }
                    self.unchecked_from = None;
                }
                self.refresh_quick();
            }
        }
    }

    /// A new output opened at stream position `position`.
    pub(crate) fn opened(&mut self, position: u64) {
        self.unchecked_from = (!self.strict()).then_some(position);
    }

    /// Bytes held back (a record begun but not complete).
    pub(crate) fn held_back(&self) -> usize {
        self.pending.len()
    }

    /// The stream ends inside a record.
    pub(crate) fn inside_record(&self) -> bool {
        !self.pending.is_empty() || self.skip != 0
    }

    /// Drops the record held back or being passed through (the output drops its own part
    /// of it); returns the bytes held back.
    pub(crate) fn abandon(&mut self) -> usize {
        let held = self.pending.len();
        self.pending.clear();
        self.skip = 0;
        self.partial = None;
        self.refresh_quick();
        held
    }

    /// The record begun and not finished that this check holds back or passes through.
    pub(crate) fn partial(&self) -> Option<PartialRecord> {
        self.partial
    }

    /// Forgets what belongs to the current output (settings stay); `file_mode`: the new
    /// output takes records before their descriptions.
    pub(crate) fn reset_output(&mut self, file_mode: bool) {
        self.pending.clear();
        self.skip = 0;
        self.stats = EventStats::default();
        self.events.clear();
        self.undescribed.clear();
        self.partial = None;
        self.defers = file_mode;
        self.stat.reset();
        self.aux.reset();
        self.unchecked_from = None;
        self.parked = None;
        self.refresh_quick();
    }

    /// What waits for a description or HEADER_COMPRESSED (strict mode).
    pub(crate) fn undescribed(&self, model: &TraceModel) -> Option<PendingSummary> {
        let waiting = self.undescribed.summary(model);
        let aux = self.aux.waiting(model).map(|first| PendingSummary {
            records: 1,
            ids: 0,
            id: None,
            offset: first.pos,
            type_: first.type_,
        });
        let waiting = match (waiting, aux) {
            (Some(w), Some(a)) => Some(PendingSummary {
                records: w.records.saturating_add(a.records),
                ids: w.ids,
                id: w.id,
                offset: w.offset.min(a.offset),
                type_: if a.offset < w.offset {
                    a.type_
                } else {
                    w.type_
                },
            }),
            (w, a) => w.or(a),
        };
        let Some((records, ids, first)) = self.stat.waiting(model) else {
            return waiting;
        };
        let held = PendingSummary {
            records,
            ids,
            id: None,
            offset: first.pos,
            type_: first.type_,
        };
        Some(match waiting {
            None => held,
            Some(w) => PendingSummary {
                records: w.records.saturating_add(held.records),
                ids: w.ids.saturating_add(held.ids),
                id: w.id,
                ..if held.offset < w.offset { held } else { w }
            },
        })
    }

    /// The first record that waits (see [`PendingRecords::first`]), or a STAT held that
    /// perf would refuse.
    pub(crate) fn first_undescribed(&self, model: &TraceModel) -> Option<FirstRecord> {
        let held = self.stat.waiting(model).map(|(_, _, first)| first);
        self.undescribed
            .first(model)
            .into_iter()
            .chain(held)
            .chain(self.aux.waiting(model))
            .min_by_key(|f| f.pos)
    }

    /// Forgets what waits (its records are dropped from the output, or strict mode is off).
    pub(crate) fn forget_undescribed(&mut self) {
        self.undescribed.clear();
        self.stat.forget_held();
        self.aux.forget_waiting();
    }

    /// Checks a description about to be added against the records that wait for it.
    pub(crate) fn check_description(
        &self,
        model: &TraceModel,
        new: &NewDesc<'_>,
    ) -> Result<Resolution, WriterError> {
        if !self.strict {
            return Ok(Resolution::default());
        }
        self.stat.check_description(model, new)?;
        self.aux.check_description(model, new)?;
        let refused_switches = self.aux.refused_switches();
        self.undescribed
            .check_description(model, new, refused_switches)
    }

    /// A caller's EVENT_DESC may give an event the name `sched:sched_switch` or take it
    /// from one ([`AuxtraceSession::event_desc_rename_allowed`]; always out of strict mode).
    pub(crate) fn event_desc_rename_allowed(&self) -> bool {
        !self.strict || self.aux.event_desc_rename_allowed()
    }

    /// Such an EVENT_DESC was set, or a description it renames added.
    pub(crate) fn event_desc_renamed(&mut self) {
        if self.strict {
            self.aux.event_desc_renamed();
        }
    }

    /// The description [`check_description`](Self::check_description) checked was added.
    pub(crate) fn description_added(&mut self, model: &TraceModel, res: Resolution) {
        self.stat.description_added(model);
        let stats = res.stats;
        if let Some((first, last)) = stats.time {
            self.stats.add_time(first);
            self.stats.add_time(last);
        }
        if let Some(cpu) = stats.max_cpu {
            self.stats.add_cpu(cpu);
        }
        self.aux.switches_described(res.switches);
        self.undescribed.apply(res);
    }

    /// HEADER_COMPRESSED is about to be set to a payload perf can (`readable`) or cannot
    /// decompress COMPRESSED records with: refused when COMPRESSED records were written
    /// and it is not readable.
    pub(crate) fn check_compression_header(&self, readable: bool) -> Result<(), WriterError> {
        self.undescribed.check_compression_header(readable)
    }

    /// A readable HEADER_COMPRESSED was set: the COMPRESSED records waiting for it are
    /// checked.
    pub(crate) fn compression_header_set(&mut self) {
        self.undescribed.compression_header_set();
    }

    /// The caller's TRACING_DATA is about to be set with formats of `rules`: SAMPLEs that
    /// waited for their format agree with them (strict mode).
    pub(crate) fn check_given_formats(
        &self,
        rules: &std::collections::BTreeMap<u32, crate::model::raw_rule::RawRule>,
    ) -> Result<(), WriterError> {
        match self.strict {
            true => self.undescribed.check_given_formats(rules),
            false => Ok(()),
        }
    }

    /// The caller set TRACING_DATA: no SAMPLE waits for a format any more.
    pub(crate) fn formats_given(&mut self) {
        self.undescribed.formats_given();
    }

    /// Checks the concatenation of `chunks` as the continuation of the stream, then writes
    /// its whole records to `out` and holds back an incomplete last one. A refused call
    /// writes nothing and changes nothing. Returns the bytes accepted (all of them).
    pub(crate) fn write<O: OutputMode, C: Deref<Target = [u8]>>(
        &mut self,
        model: &TraceModel,
        out: &mut O,
        chunks: &[C],
    ) -> io::Result<usize> {
        if let Some(written) = self.write_whole_records(model, out, chunks) {
            return written;
        }
        let pending = std::mem::take(&mut self.pending);
        let waiting = self.partial;
        match self.write_parts(model, out, &pending, chunks) {
            Ok(n) => Ok(n),
            Err(Refusal::Held(e)) => {
                self.partial = None;
                Err(naming(waiting, true, e.into()))
            }
            Err(Refusal::Call(e)) => {
                self.pending = pending;
                Err(naming(waiting, false, e))
            }
        }
    }

    /// [`write`](Self::write) when nothing is held back and every chunk is one whole record
    /// (a vectored call of records, the commonest): each is checked where it is, then all are
    /// written. `None` when the call needs the general path.
    fn write_whole_records<O: OutputMode, C: Deref<Target = [u8]>>(
        &mut self,
        model: &TraceModel,
        out: &mut O,
        chunks: &[C],
    ) -> Option<io::Result<usize>> {
        let endian = model.endian();
        if !self.pending.is_empty()
            || self.skip != 0
            || !chunks.iter().all(|c| is_plain_record(endian, c))
        {
            return None;
        }
        let (mut stats, mut offset) = (self.stats, 0usize);
        self.start_call();
        out.prepare_records(model);
        let (pos, records) = (out.position(), out.records());
        for (i, chunk) in chunks.iter().enumerate() {
            let place = Place {
                at: offset,
                pos: pos.saturating_add(offset as u64),
                records: records.saturating_add(i as u64),
            };
            if let Err(problem) = self.check_one(model, chunk, &mut stats, place) {
                let type_ = endian.read_u32(first_bytes(chunk));
                return Some(Err(WriterError::Record(RecordError::Refused {
                    offset,
                    type_,
                    problem,
                })
                .into()));
            }
            offset = offset.saturating_add(chunk.len());
        }
        // Room for all of them first: then none of the writes below can fail on I/O, and the
        // call is written whole or not at all.
        if let Err(e) = out.reserve(model, offset) {
            return Some(Err(e));
        }
        for chunk in chunks {
            if let Err(e) = out.write_records(model, chunk) {
                return Some(Err(e));
            }
        }
        self.stats = stats;
        let parts = Parts {
            pending: &[],
            chunks,
        };
        self.call_written(model, &parts);
        Some(Ok(offset))
    }

    /// Starts checking a call: nothing of it is deferred yet.
    #[inline]
    fn start_call(&mut self) {
        self.deferred.clear();
        self.undescribed.start_call();
        self.stat.start_call();
        self.aux.start_call();
    }

    /// The call was written: what its records changed is kept.
    #[inline]
    fn call_written<C: Deref<Target = [u8]>>(&mut self, model: &TraceModel, parts: &Parts<'_, C>) {
        self.stat.call_written();
        self.aux.call_written();
        self.keep_deferred(model, parts);
    }

    /// The call was written: its deferred records go to what waits for descriptions.
    fn keep_deferred<C: Deref<Target = [u8]>>(&mut self, model: &TraceModel, parts: &Parts<'_, C>) {
        if self.deferred.is_empty() {
            return;
        }
        let derive = self.derive;
        let mut cursor = Cursor::default();
        let mut copy = Vec::new();
        // Drained, not taken: the list keeps its room for the next call.
        for d in self.deferred.drain(..) {
            let end = d.at.saturating_add(d.len);
            let record = parts.range(&mut cursor, d.at, end, &mut copy);
            self.undescribed
                .commit(model, record, d.why, d.first, derive);
        }
    }

    fn write_parts<O: OutputMode, C: Deref<Target = [u8]>>(
        &mut self,
        model: &TraceModel,
        out: &mut O,
        pending: &[u8],
        chunks: &[C],
    ) -> Result<usize, Refusal> {
        let parts = Parts { pending, chunks };
        self.start_call();
        out.prepare_records(model);
        let call_start = (out.position(), out.records());
        let walk = self.walk(model, &parts, call_start)?;
        if let Some(max) = out.max_split().filter(|&max| walk.open_len > max) {
            let len = walk.open_len;
            return Err(Refusal::Call(
                WriterError::Record(RecordError::SplitTooLong { len, max }).into(),
            ));
        }
        // Room for every byte written below first: then none of those writes can fail on
        // I/O, and the call is written whole or not at all.
        out.reserve(model, walk.tail).map_err(Refusal::Call)?;
        // Everything before the tail is whole records (or pass-through payload): written in
        // vectored batches, so that records split across parts cost one framer pass.
        const BATCH: usize = 32;
        let mut batch = [IoSlice::new(&[]); BATCH];
        let mut used = 0usize;
        let mut start = 0usize;
        for part in parts.iter() {
            let end = start.saturating_add(part.len());
            let upto = walk.tail.clamp(start, end).saturating_sub(start);
            if let Some(bytes) = part.get(..upto).filter(|b| !b.is_empty()) {
                if let Some(slot) = batch.get_mut(used) {
                    *slot = IoSlice::new(bytes);
                    used = used.saturating_add(1);
                }
                if used == BATCH {
                    out.write_records_vectored(model, &batch)
                        .map_err(Refusal::Call)?;
                    used = 0;
                }
            }
            start = end;
        }
        if let Some(rest) = batch.get(..used).filter(|b| !b.is_empty()) {
            out.write_records_vectored(model, rest)
                .map_err(Refusal::Call)?;
        }
        self.call_written(model, &parts);
        let total = parts.len();
        self.partial = match walk.open {
            Some((type_, len, at)) => Some(PartialRecord {
                type_,
                len,
                given: total.saturating_sub(at) as u64,
                offset: call_start.0.saturating_add(at as u64),
            }),
            // Begun in an earlier call, and not finished yet.
            None if walk.skip != 0 || walk.tail < total => self.partial.map(|p| PartialRecord {
                given: p
                    .given
                    .saturating_add(total.saturating_sub(pending.len()) as u64),
                ..p
            }),
            None => None,
        };
        let mut tail = Vec::new();
        parts.copy_from(walk.tail, &mut tail);
        self.pending = tail;
        self.skip = walk.skip;
        self.stats = walk.stats;
        self.refresh_quick();
        Ok(parts.len().saturating_sub(pending.len()))
    }

    /// Finds the records of `parts` and checks each complete one.
    fn walk<C: Deref<Target = [u8]>>(
        &mut self,
        model: &TraceModel,
        parts: &Parts<'_, C>,
        start: (u64, u64),
    ) -> Result<Walk, Refusal> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let walk = self.walk_joining(model, parts, start, &mut scratch);
        self.scratch = scratch;
        walk
    }

    /// [`walk`](Self::walk), joining a record split across parts in `scratch`; the parts
    /// start at stream position `start.0` after `start.1` whole records.
    fn walk_joining<C: Deref<Target = [u8]>>(
        &mut self,
        model: &TraceModel,
        parts: &Parts<'_, C>,
        start: (u64, u64),
        scratch: &mut Vec<u8>,
    ) -> Result<Walk, Refusal> {
        let total = parts.len();
        let mut records = start.1;
        let mut open = None;
        let mut cursor = Cursor::default();
        let held = parts.pending.len();
        let mut stats = self.stats;
        // A payload begun in an earlier call passes through first.
        let mut walker = RecordWalker::within_record(model.endian(), self.skip);
        let mut open_len = 0u64;
        // The start of the first record that is not whole (held back), when there is one.
        let mut cut = None;
        let mut base = 0usize;
        'parts: for part in parts.iter() {
            let mut at = 0usize;
            while let Some(rest) = part.get(at..).filter(|r| !r.is_empty()) {
                let here = base.saturating_add(at);
                // A refused record begun in an earlier call is dropped whole: its first bytes
                // were held back, so the stream stays at the record before it.
                let refuse = |pos: usize, e: WriterError| {
                    if pos < held {
                        Refusal::Held(e)
                    } else {
                        Refusal::Call(e.into())
                    }
                };
                // The record at `pos`, of `type_`, refused for `problem`.
                let refused = |pos: usize, type_: u32, problem: RecordProblem| {
                    let e = WriterError::Record(RecordError::Refused {
                        offset: pos.saturating_sub(held),
                        type_,
                        problem,
                    });
                    refuse(pos, e)
                };
                let r = match walker.step(rest) {
                    Ok(Step::Record(r)) => r,
                    Ok(Step::Header(n) | Step::Body(n)) => {
                        at = at.saturating_add(n);
                        continue;
                    }
                    Err(fault) => {
                        let pos = here.saturating_sub(fault.held);
                        let e = fault.at(pos.saturating_sub(held)).into();
                        return Err(refuse(pos, e));
                    }
                };
                at = at.saturating_add(r.taken);
                let pos = here.saturating_sub(r.held);
                let size = usize::from(r.size);
                let end = pos.saturating_add(size);
                let with_payload = matches!(r.extent, RecordExtent::WithPayload(_));
                let whole = (pos as u64).saturating_add(r.len) <= total as u64;
                // A record whose end is not here yet, or whose payload passes through
                // unchecked, is judged by its header now: it would otherwise take every
                // following byte as its own.
                if !whole || with_payload {
                    if let Err(problem) = self.check_header(model, r.type_, r.size) {
                        return Err(refused(pos, r.type_, problem));
                    }
                }
                if !whole {
                    open = Some((r.type_, Some(r.len), pos));
                }
                if end > total {
                    cut = Some(pos);
                    break 'parts;
                }
                if with_payload {
                    // The record's own fields are here (its end is); the payload passes
                    // through unchecked.
                    if self.strict && r.type_ == record_type::AUXTRACE {
                        let record = parts.range(&mut cursor, pos, end, scratch);
                        if let Err(problem) = AuxtraceSession::check_auxtrace(model, record) {
                            return Err(refused(pos, r.type_, problem));
                        }
                    }
                    if !whole {
                        open_len = r.len;
                    }
                    records = records.saturating_add(1);
                    continue;
                }
                let record = parts.range(&mut cursor, pos, end, scratch);
                let place = Place {
                    at: pos,
                    pos: start.0.saturating_add(pos as u64),
                    records,
                };
                records = records.saturating_add(1);
                if let Err(problem) = self.check_one(model, record, &mut stats, place) {
                    return Err(refused(pos, r.type_, problem));
                }
            }
            base = base.saturating_add(part.len());
        }
        // Past the last whole record: a record cut short, or a header not whole yet; or the
        // rest of a payload still to come.
        let (tail, skip) = match cut {
            Some(pos) => (pos, 0),
            None => (
                total.saturating_sub(walker.held()),
                walker.remaining().unwrap_or(0),
            ),
        };
        if cut.is_none() && walker.held() != 0 {
            // A header not whole yet: its type once 4 bytes of it are here.
            let mut head = [0u8; 4];
            let type_ = match parts.copy_into(&mut cursor, tail, &mut head) {
                4 => model.endian().read_u32(head),
                _ => 0,
            };
            open = Some((type_, None, tail));
        }
        Ok(Walk {
            tail,
            skip,
            open_len,
            open,
            stats,
        })
    }

    /// Checks and gathers the statistics of `data` when it is whole records and nothing is
    /// held back (the commonest call: one record, or a joined vectored call), each checked
    /// where it lies, then writes it: `None` when the call needs the general path
    /// ([`write`](Self::write)).
    #[inline]
    pub(crate) fn write_whole_record<O: OutputMode>(
        &mut self,
        model: &TraceModel,
        out: &mut O,
        data: &[u8],
    ) -> Option<io::Result<()>> {
        if !self.pending.is_empty() || self.skip != 0 || data.is_empty() {
            return None;
        }
        let endian = model.endian();
        let (mut stats, mut pos) = (self.stats, 0usize);
        let mut records = 0u64;
        self.start_call();
        out.prepare_records(model);
        let start = (out.position(), out.records());
        while let Some(rest) = data.get(pos..).filter(|r| !r.is_empty()) {
            let record = match first_plain_record(endian, rest) {
                Some(record) => record,
                // A call of one whole record of a type with its own framing that is just its
                // size (FINISHED_ROUND, which perf writes every few dozen records): checked
                // here as the general path would, and written through the output's framer.
                None if pos == 0 => one_sized_record(endian, data)?,
                None => return None,
            };
            let place = Place {
                at: pos,
                pos: start.0.saturating_add(pos as u64),
                records: start.1.saturating_add(records),
            };
            if let Err(problem) = self.check_one(model, record, &mut stats, place) {
                let type_ = endian.read_u32(first_bytes(record));
                return Some(Err(WriterError::Record(RecordError::Refused {
                    offset: pos,
                    type_,
                    problem,
                })
                .into()));
            }
            pos = pos.saturating_add(record.len());
            records = records.saturating_add(1);
        }
        // One call to the output: taken whole or not at all.
        let written = match records {
            1 => out.write_records(model, data),
            n => out.write_known_records(model, &[IoSlice::new(data)], n),
        };
        if written.is_ok() {
            self.stats = stats;
            let parts = Parts {
                pending: &[],
                chunks: &[data],
            };
            self.call_written(model, &parts);
        }
        Some(written)
    }

    /// `data` is one whole record that passes strict mode's check by what was learned of
    /// its event ([`CheckedEvents`]): right without parsing it (the commonest call, inline).
    /// Only in strict mode without derived headers (they need each record's time and cpu)
    /// and between records.
    #[inline]
    pub(crate) fn passes_quickly(&mut self, model: &TraceModel, data: &[u8]) -> bool {
        self.quick && self.events.passes_learning(model, data)
    }

    /// `data` is one whole SAMPLE written before any description that is like the SAMPLEs
    /// of its group before it ([`PendingRecords::like_before`]): the full check would defer
    /// it for its description and add it to that group as this does, with nothing else to
    /// check or keep of it. Once the call is written, [`GroupFound::add`] adds it.
    #[inline]
    pub(crate) fn like_before(
        &mut self,
        model: &TraceModel,
        data: &[u8],
    ) -> Option<GroupFound<'_>> {
        // Most calls that come here are of described events: they leave first.
        if !model.descs().is_empty() {
            return None;
        }
        let endian = model.endian();
        let sample = is_sample(data, endian);
        if !(self.quick && sample && self.defers(model) && is_plain_record(endian, data)) {
            return None;
        }
        if model.untold_refuses(record_type::SAMPLE) {
            return None;
        }
        self.undescribed.like_before(model, data, self.derive)
    }

    /// The dynamic fields of `data`, a SAMPLE [`Quick::DynamicFields`] said is like the last
    /// one learned, put their data within its RAW: then it passes.
    pub(crate) fn dynamic_fields_fit(&self, data: &[u8]) -> bool {
        self.events.dynamic_fields_fit(data)
    }

    /// [`passes_quickly`](Self::passes_quickly) for the commonest SAMPLEs, with no call on
    /// the way ([`CheckedEvents::sample_passes_inline`]).
    #[inline(always)]
    pub(crate) fn sample_passes_inline(&self, model: &TraceModel, data: &[u8]) -> Quick {
        match self.quick {
            true => self.events.sample_passes_inline(model, data),
            false => Quick::Unsettled,
        }
    }

    /// A vectored call (`len` bytes in all) of whole records that each pass by what was
    /// learned of their events ([`passes_quickly`](Self::passes_quickly)), read where they
    /// lie (a record split across slices is gathered first): how many, or `None` when the
    /// call needs the full check.
    pub(crate) fn known_records_vectored(
        &self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
        len: usize,
    ) -> Option<u64> {
        if !self.quick {
            return None;
        }
        let parts = Parts {
            pending: &[],
            chunks: bufs,
        };
        let endian = model.endian();
        let mut cursor = Cursor::default();
        let mut gathered = [0u8; GATHER];
        let (mut start, mut records) = (0usize, 0u64);
        while start < len {
            let mut head = [0u8; 8];
            if parts.copy_into(&mut cursor, start, &mut head) != 8 {
                return None;
            }
            let size = usize::from(header_type_and_size(endian, &head).1);
            let end = start.checked_add(size).filter(|&end| end <= len)?;
            // A SAMPLE of fixed length is settled by its header and id: not gathered.
            let by_words = self
                .events
                .fixed_sample_passes_by_words(model, head, size, |at| {
                    let mut w = [0u8; 8];
                    let at = start
                        .checked_add(at)
                        .filter(|&a| a.saturating_add(8) <= end)?;
                    (parts.copy_into(&mut cursor, at, &mut w) == 8).then(|| u64::from_ne_bytes(w))
                });
            if by_words {
                start = end;
                records = records.saturating_add(1);
                continue;
            }
            let record = match parts.contiguous(&mut cursor, start, end) {
                Some(r) => r,
                None => {
                    let dst = gathered.get_mut(..size)?;
                    if parts.copy_into(&mut cursor, start, dst) != size {
                        return None;
                    }
                    &*dst
                }
            };
            if !self.events.passes(model, record) {
                return None;
            }
            start = end;
            records = records.saturating_add(1);
        }
        Some(records)
    }

    /// Strict mode learns from the records it checks ([`CheckedEvents`]): in strict mode
    /// without derived headers and no setting waiting.
    fn learning(&self) -> bool {
        self.strict && !self.derive && self.wanted.is_none()
    }

    /// Checks one whole record (strict mode, statistics) at `place`: by what was learned of
    /// its event when that settles it, else in full, learning from it; a record that cannot
    /// be checked yet is noted, to be kept once the call is written.
    #[inline]
    fn check_one(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        stats: &mut EventStats,
        place: Place,
    ) -> Result<(), RecordProblem> {
        let learning = self.learning();
        if learning && self.events.passes(model, record) {
            return Ok(());
        }
        let outcome = self.check_record(model, record, stats)?;
        if self.stat.holds_one() {
            self.stat.place_held(FirstRecord {
                pos: place.pos,
                records: place.records,
                type_: record_type::STAT,
            });
        }
        if self.aux.notes_one() {
            self.aux.place_noted(FirstRecord {
                pos: place.pos,
                records: place.records,
                type_: record_type::AUXTRACE_INFO,
            });
        }
        match outcome {
            Outcome::Owned(desc) if learning => self.events.learn(model, desc, record),
            Outcome::Owned(_) | Outcome::Free => {}
            Outcome::Deferred(why) => {
                self.undescribed.admit(model, record, why)?;
                let type_ = model.endian().read_u32(first_bytes(record));
                self.deferred.push(DeferredRecord {
                    at: place.at,
                    len: record.len(),
                    why,
                    first: FirstRecord {
                        pos: place.pos,
                        records: place.records,
                        type_,
                    },
                });
            }
        }
        Ok(())
    }

    /// Strict checks and statistics of one whole record: the event description that owns
    /// it, when it is a kernel record with an owner.
    #[inline]
    fn check_record<'s>(
        &mut self,
        model: &'s TraceModel,
        record: &[u8],
        stats: &mut EventStats,
    ) -> Result<Outcome<'s>, RecordProblem> {
        let endian = model.endian();
        let type_ = endian.read_u32(first_bytes(record));
        if self.strict && model.untold_refuses(type_) {
            return Err(RecordProblem::EventsNotToldApart);
        }
        if type_ == record_type::SAMPLE {
            return match self.owner(model, record, true) {
                Ok(Some(desc)) => {
                    let outcome = self.check_sample(model, desc, record, stats)?;
                    if self.strict {
                        self.check_sched_switch(model, desc, record)?;
                    }
                    Ok(outcome)
                }
                Ok(None) => self.no_owner(model, None),
                Err(RecordProblem::UnknownId(id)) => self.no_owner(model, Some(id)),
                Err(e) => Err(e),
            };
        }
        let Some(info) = record_type::info(type_) else {
            return self
                .refused_if_strict(RecordProblem::UnknownType)
                .map(|()| Outcome::Free);
        };
        if record_type::is_user(type_) {
            if self.strict && WRITER_MANAGED.contains(&type_) {
                return Err(RecordProblem::WriterManaged);
            }
            if self.strict && type_ == record_type::COMPRESSED {
                let why = match crate::check::compressed_check::check_compressed(model) {
                    Err(RecordProblem::CompressedWithoutHeader) if self.defers(model) => {
                        Deferral::Compressed
                    }
                    checked => {
                        checked?;
                        Deferral::CompressedWritten
                    }
                };
                check_body(info.body, record.len(), 0)?;
                // Kept count of: HEADER_COMPRESSED must (come to) say how to read it.
                return Ok(match self.defers {
                    true => Outcome::Deferred(why),
                    false => Outcome::Free,
                });
            }
            if self.strict {
                check_body(info.body, record.len(), 0)?;
                check_user_fields(endian, type_, info.body, record)?;
                let pipe = !self.defers;
                if STAT_SESSION.contains(&type_) {
                    let mode = match (pipe, self.defers(model)) {
                        (true, _) => StatMode::Pipe,
                        (false, true) => StatMode::FileHolding,
                        (false, false) => StatMode::File,
                    };
                    self.stat.check(model, record, type_, mode)?;
                }
                if AUXTRACE_SESSION.contains(&type_) {
                    self.aux.check(model, record, type_, !pipe)?;
                }
                if NAMES_IDS.contains(&type_) {
                    let own = |id| model.desc_of_id(id).is_some();
                    // A pipe stream is read with the descriptions before the record; a
                    // file with all of them, some perhaps still to come.
                    let attributed = |id| match pipe {
                        true => model.index_at_read(id).is_some(),
                        false => model.desc_for(Some(id)).is_ok(),
                    };
                    if let Some(id) = unknown_named_id(endian, type_, record, own, attributed) {
                        // In file mode the description may still come: checked then.
                        if !self.defers(model) {
                            return Err(RecordProblem::UnknownId(id));
                        }
                        if type_ == record_type::EVENT_UPDATE {
                            self.aux.note_event_update(model, record);
                        }
                        return Ok(Outcome::Deferred(Deferral::NamedIds));
                    }
                }
                if type_ == record_type::EVENT_UPDATE {
                    self.aux.note_event_update(model, record);
                }
            }
            return Ok(Outcome::Free);
        }
        let switch = match self.strict && is_switch(type_) {
            true => Some(SwitchKinds::of(type_, header_misc(endian, record))),
            false => None,
        };
        if self.strict {
            check_swapped_by_perf(endian, type_, record.len())?;
            check_kernel_values(endian, type_, record)?;
        }
        let owner = self.owner(model, record, false);
        if let (Some(kinds), Ok(None) | Err(RecordProblem::UnknownId(_))) = (switch, &owner) {
            // What its header says is known now; its cpu, once its description comes.
            self.aux.check_switch(kinds.fixed)?;
        }
        let desc = match owner {
            Ok(Some(desc)) => desc,
            Ok(None) => return self.no_owner(model, None),
            Err(RecordProblem::UnknownId(id)) => return self.no_owner(model, Some(id)),
            Err(e) => return Err(e),
        };
        let trailer = desc.layout.sample_id_len();
        if self.strict {
            let body = counted_body(endian, type_, info.body, record);
            check_body(body, record.len(), trailer)?;
            check_read_trailer(endian, type_, record.len(), &desc.layout)?;
            check_name(type_, record, trailer)?;
            check_trailer_repeated_id(&desc.layout, endian, record)?;
            if let Some(kinds) = switch {
                let sample_id = id_of_non_sample(&desc.layout, endian, record);
                let cpu = sample_id.ok().and_then(|s| s.cpu).map(|c| c.cpu);
                self.aux.check_switch(kinds.with_cpu(cpu))?;
            }
        }
        if self.derive && trailer != 0 {
            if let Ok(Some(cpu)) = id_of_non_sample(&desc.layout, endian, record).map(|s| s.cpu) {
                stats.add_cpu(cpu.cpu);
            }
        }
        Ok(Outcome::Owned(desc))
    }

    /// Strict mode defers what it cannot check yet: in file mode, while the writer does not
    /// compress (records then go into zstd frames as they come, and are checked first).
    fn defers(&self, model: &TraceModel) -> bool {
        self.strict && self.defers && model.compression.is_none()
    }

    /// A kernel record no description owns yet (`id`: the id it names, when it names one):
    /// deferred in file mode; refused in strict pipe mode, or while compressing; taken
    /// unchecked out of strict mode.
    fn no_owner(
        &self,
        model: &TraceModel,
        id: Option<u64>,
    ) -> Result<Outcome<'static>, RecordProblem> {
        if !self.strict {
            return Ok(Outcome::Free);
        }
        if self.defers(model) {
            return Ok(Outcome::Deferred(Deferral::Owner));
        }
        Err(match self.defers {
            true => RecordProblem::DescribeFirstWhileCompressing(id),
            false => RecordProblem::DescribeFirstInPipeMode(id),
        })
    }

    /// [`check_record`](Self::check_record) of a SAMPLE that the event `desc` owns: its size
    /// is what that event's layout makes it.
    #[inline]
    fn check_sample<'s>(
        &self,
        model: &TraceModel,
        desc: &'s EventDescData,
        record: &[u8],
        stats: &mut EventStats,
    ) -> Result<Outcome<'s>, RecordProblem> {
        let endian = model.endian();
        let mut outcome = Outcome::Owned(desc);
        if self.strict {
            check_sample_len(&desc.layout, endian, record)?;
            check_repeated_id(&desc.layout, endian, record)?;
            let own = |id| model.desc_of_id(id).is_some_and(|d| std::ptr::eq(d, desc));
            let described = |id| model.desc_of_id(id).is_some();
            if let Some(id) = check_read_ids(&desc.layout, endian, record, own, described)? {
                // A group member described later: in file mode finish waits for it.
                if !self.defers(model) {
                    return Err(RecordProblem::UnknownReadId(id));
                }
                outcome = Outcome::Deferred(Deferral::NamedIds);
            }
            if let Some(rule) = model.raw_rule_of(desc) {
                // perf finds a RAW payload's format by its common_type: the one rule of
                // `write_sample`, on bytes.
                // (A tracepoint without RAW in its layout has nothing to decode.)
                with_parsed(&desc.layout, endian, record, |s, _| {
                    s.raw.map_or(Ok(()), |raw| rule.check(raw))
                })
                .map_err(RecordProblem::SampleLayout)?
                .map_err(RecordProblem::TracepointRaw)?;
            } else if model.format_pending(desc) && self.defers(model) {
                // Its format comes later: its RAW payload is checked then.
                let raw = with_parsed(&desc.layout, endian, record, |s, parsed| {
                    s.raw.map(|raw| raw_range(parsed, raw))
                })
                .map_err(RecordProblem::SampleLayout)?;
                if let (Some((raw_start, raw_end)), Ok(config)) =
                    (raw, u32::try_from(desc.attr.config))
                {
                    outcome = Outcome::Deferred(Deferral::Format {
                        config,
                        raw_start,
                        raw_end,
                    });
                }
            }
        }
        if self.derive {
            if let Ok((time, cpu)) = time_and_cpu(&desc.layout, endian, record) {
                if let Some(t) = time {
                    stats.add_time(t);
                }
                if let Some(cpu) = cpu {
                    stats.add_cpu(cpu);
                }
            }
        }
        Ok(outcome)
    }

    /// A SAMPLE of `desc`, when Intel PT may take its current thread by its cpu
    /// ([`sched_switch_cpu_at`]): refused when an AUXTRACE_INFO that came refuses a cpu
    /// perf cannot keep a thread by, noted otherwise for such an AUXTRACE_INFO to come.
    fn check_sched_switch(
        &mut self,
        model: &TraceModel,
        desc: &EventDescData,
        record: &[u8],
    ) -> Result<(), RecordProblem> {
        let Some(at) = sched_switch_cpu_at(model, desc) else {
            return Ok(());
        };
        // The full check passed the record: its CPU is there.
        let cpu = record.get(at..).and_then(|b| b.first_chunk::<4>());
        let cpu = cpu.map_or(u32::MAX, |b| model.endian().read_u32(*b));
        self.aux.check_switch(sched_switch_sample_kinds(cpu))
    }

    /// The description the kernel record `record` (a SAMPLE when `sample`) belongs to, by
    /// the event id where the first description's layout puts it (a SAMPLE's own place, or
    /// the `sample_id` trailer's); `None` without descriptions.
    #[inline]
    fn owner<'s>(
        &self,
        model: &'s TraceModel,
        record: &[u8],
        sample: bool,
    ) -> Result<Option<&'s EventDescData>, RecordProblem> {
        let Some(first) = model.descs().first() else {
            return Ok(None);
        };
        let layout = &first.layout;
        let at = match sample {
            true => layout.sample_id_offset(),
            false => layout
                .trailer_id_offset_from_end()
                .and_then(|back| record.len().checked_sub(back)),
        };
        let id = at.and_then(|at| model.endian().u64_at(record, at));
        self.event_of(model, first, id).map(Some)
    }

    /// What a record's header alone says is wrong (strict mode): a type perf 6.1 does not
    /// know, or one of pipe mode's header records, which the writer makes itself.
    fn check_header(&self, model: &TraceModel, type_: u32, size: u16) -> Result<(), RecordProblem> {
        if !self.strict {
            return Ok(());
        }
        if model.untold_refuses(type_) {
            return Err(RecordProblem::EventsNotToldApart);
        }
        let endian = model.endian();
        if record_type::info(type_).is_none() {
            return Err(RecordProblem::UnknownType);
        }
        check_swapped_by_perf(endian, type_, usize::from(size))?;
        if WRITER_MANAGED.contains(&type_) {
            return Err(RecordProblem::WriterManaged);
        }
        if type_ == record_type::AUXTRACE {
            self.aux.auxtrace_allowed()?;
        }
        Ok(())
    }

    /// `problem` in strict mode; out of it, nothing is refused.
    #[inline]
    fn refused_if_strict(&self, problem: RecordProblem) -> Result<(), RecordProblem> {
        match self.strict {
            true => Err(problem),
            false => Ok(()),
        }
    }

    /// The description a record with event id `id` belongs to ([`TraceModel::desc_for`]); out
    /// of strict mode, the first when no description owns the id.
    fn event_of<'s>(
        &self,
        model: &'s TraceModel,
        first: &'s EventDescData,
        id: Option<u64>,
    ) -> Result<&'s EventDescData, RecordProblem> {
        match model.desc_for(id) {
            Ok(d) => Ok(d),
            Err(_) if !self.strict => Ok(first),
            Err(_) => Err(RecordProblem::UnknownId(id.unwrap_or(0))),
        }
    }
}

/// Records of a vectored call up to this long are gathered on the stack when split across
/// slices, to be checked by what was learned of their events.
const GATHER: usize = 512;

/// Parses a SAMPLE by its layout; returns its TIME and CPU. `header.size` must be the
/// layout's length, or that length rounded up to 8 (padding after the last field, which
/// perf reads alike: writers that pad RAW without counting the padding make those).
fn time_and_cpu(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(Option<u64>, Option<u32>), ParseError> {
    with_parsed(layout, endian, record, |s, _| {
        (s.time, s.cpu.map(|c| c.cpu))
    })
}

/// Where `raw`, a part of `parsed`, is in it.
fn raw_range(parsed: &[u8], raw: &[u8]) -> (usize, usize) {
    let start = (raw.as_ptr() as usize).wrapping_sub(parsed.as_ptr() as usize);
    (start, start.saturating_add(raw.len()))
}

/// `e`, refusing a call, naming the record begun in an earlier call that waited (`dropped`:
/// the refusal dropped it) when the refusal is about the call's bytes.
#[cold]
fn naming(waiting: Option<PartialRecord>, dropped: bool, e: io::Error) -> io::Error {
    let refusal = matches!(
        WriterError::from_io(&e),
        Some(
            WriterError::Record(RecordError::Refused { .. })
                | WriterError::Record(RecordError::Framing(_))
                | WriterError::Record(RecordError::SplitTooLong { .. })
        )
    );
    match (waiting, refusal) {
        (Some(partial), true) => WriterError::Record(RecordError::InsidePartial {
            partial,
            dropped,
            error: Box::new(WriterError::from(e)),
        })
        .into(),
        _ => e,
    }
}

#[inline]
fn first_bytes(record: &[u8]) -> [u8; 4] {
    record.first_chunk::<4>().copied().unwrap_or_default()
}

/// The held-back bytes followed by a call's chunks, addressed as one byte string.
struct Parts<'a, C> {
    pending: &'a [u8],
    chunks: &'a [C],
}

/// Where a walk over [`Parts`] is: the part holding the bytes last asked for and the
/// logical offset its first byte has. Walks only go forward, so each part is passed once.
#[derive(Clone, Copy, Default)]
struct Cursor {
    part: usize,
    base: usize,
}

impl<C: Deref<Target = [u8]>> Parts<'_, C> {
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(self.pending).chain(self.chunks.iter().map(|c| &**c))
    }

    fn len(&self) -> usize {
        self.iter().fold(0usize, |n, p| n.saturating_add(p.len()))
    }

    /// Part `i` (0: the held-back bytes).
    #[inline]
    fn part(&self, i: usize) -> Option<&[u8]> {
        match i.checked_sub(1) {
            None => Some(self.pending),
            Some(c) => self.chunks.get(c).map(|c| &**c),
        }
    }

    /// Moves `cur` forward to the part that holds logical offset `pos` (or past the end).
    #[inline]
    fn seek(&self, cur: &mut Cursor, pos: usize) {
        while let Some(p) = self.part(cur.part) {
            let end = cur.base.saturating_add(p.len());
            if pos < end {
                return;
            }
            cur.base = end;
            cur.part = cur.part.saturating_add(1);
        }
    }

    /// The bytes `start..end`: in place when one part holds them all, else copied into
    /// `scratch`.
    #[inline(always)]
    fn range<'s>(
        &'s self,
        cur: &mut Cursor,
        start: usize,
        end: usize,
        scratch: &'s mut Vec<u8>,
    ) -> &'s [u8] {
        if let Some(r) = self.contiguous(cur, start, end) {
            return r;
        }
        scratch.clear();
        self.copy_range_at(cur, start, end, scratch);
        scratch
    }

    /// The bytes `start..end` when one part holds them all.
    fn contiguous(&self, cur: &mut Cursor, start: usize, end: usize) -> Option<&[u8]> {
        self.seek(cur, start);
        let p = self.part(cur.part)?;
        p.get(start.saturating_sub(cur.base)..end.saturating_sub(cur.base))
    }

    /// Appends the bytes `start..end` to `out`.
    fn copy_range_at(&self, cur: &mut Cursor, start: usize, end: usize, out: &mut Vec<u8>) {
        self.seek(cur, start);
        let (mut i, mut base) = (cur.part, cur.base);
        while let Some(p) = self.part(i) {
            if base >= end {
                break;
            }
            let part_end = base.saturating_add(p.len());
            let from = start.clamp(base, part_end).saturating_sub(base);
            let to = end.clamp(base, part_end).saturating_sub(base);
            if let Some(b) = p.get(from..to) {
                out.extend_from_slice(b);
            }
            base = part_end;
            i = i.saturating_add(1);
        }
    }

    /// Appends the bytes from `start` to the end to `out`.
    fn copy_from(&self, start: usize, out: &mut Vec<u8>) {
        self.copy_range_at(&mut Cursor::default(), start, usize::MAX, out);
    }

    /// Copies up to `dst.len()` bytes from `start`; returns how many there were.
    #[inline]
    fn copy_into(&self, cur: &mut Cursor, start: usize, dst: &mut [u8]) -> usize {
        self.seek(cur, start);
        // The commonest case: all of it in the part at the cursor.
        let at = start.saturating_sub(cur.base);
        let whole = self
            .part(cur.part)
            .and_then(|p| p.get(at..at.checked_add(dst.len())?));
        if let Some(src) = whole {
            dst.copy_from_slice(src);
            return dst.len();
        }
        let (mut i, mut base) = (cur.part, cur.base);
        let mut copied = 0usize;
        while let Some(p) = self.part(i) {
            if copied == dst.len() {
                break;
            }
            let at = start.saturating_add(copied);
            let src = p.get(at.saturating_sub(base)..).unwrap_or(&[]);
            let n = src.len().min(dst.len().saturating_sub(copied));
            let to = copied.saturating_add(n);
            if let (Some(d), Some(s)) = (dst.get_mut(copied..to), src.get(..n)) {
                d.copy_from_slice(s);
            }
            copied = to;
            base = base.saturating_add(p.len());
            i = i.saturating_add(1);
        }
        copied
    }
}

/// `data` when it is exactly one whole record that is just its header's size
/// ([`RecordExtent::Sized`]: no payload follows it), of any framing.
fn one_sized_record(endian: Endian, data: &[u8]) -> Option<&[u8]> {
    let (type_, size) = header_type_and_size(endian, data.first_chunk::<8>()?);
    let sized = matches!(record_extent(type_, size), Ok(RecordExtent::Sized));
    (sized && usize::from(size) == data.len()).then_some(data)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code: a failed unwrap fails the test
mod tests {
    use super::*;
    use perf_abi::auxtrace_priv::CURRENT_TID_CPU_MAX;
    use perf_abi::{attr, attr_flags, sample_type as st, PerfEventAttr};
    use perf_encode::records::{Comm, Fork, PidTid, Sample, SampleCpu, SampleId, SampleRecord};
    use perf_encode::to_vec;
    use std::sync::Arc;
    use tracepoint_decode::PerfEventFormat;

    /// A tracepoint with a `__data_loc` and a `__rel_loc` field.
    const FORMAT: &str = "name: probe\nID: 77\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:__rel_loc char[] other;\toffset:12;\tsize:4;\tsigned:0;\n\
\tfield:unsigned int value;\toffset:16;\tsize:4;\tsigned:0;\n\n\
print fmt: \"%s %s %u\", __get_str(name), __get_rel_str(other), REC->value\n";

    /// A description checked against nothing.
    fn none(_: &TraceModel, _: &NewDesc<'_>) -> Result<(), WriterError> {
        Ok(())
    }

    const PLACE: Place = Place {
        at: 0,
        pos: 0,
        records: 0,
    };

    use crate::check::test_rng::Rng;

    fn attr_of(type_: u32, config: u64, sample_type: u64) -> PerfEventAttr {
        PerfEventAttr {
            type_,
            size: attr::ATTR_SIZE_VER7,
            config,
            sample_type,
            flags: attr_flags::SAMPLE_ID_ALL,
            ..Default::default()
        }
    }

    /// Four events: a fixed layout, a tracepoint whose only varying field is RAW, RAW with
    /// fixed fields after it, and a layout walked per record (CALLCHAIN and RAW).
    fn model(endian: Endian) -> TraceModel {
        let mut s = TraceModel::new(endian, false);
        let common = st::IDENTIFIER | st::TID | st::TIME | st::CPU;
        s.add_desc(
            &[1, 2],
            attr_of(attr::TYPE_SOFTWARE, 0, common | st::IP | st::PERIOD),
            "fixed",
            None,
            false,
            none,
        )
        .unwrap();
        let format = Arc::new(PerfEventFormat::parse(true, "test", FORMAT).unwrap());
        s.add_desc(
            &[3, 4],
            attr_of(attr::TYPE_TRACEPOINT, 77, common | st::RAW),
            "test:probe",
            Some((&format, Some(FORMAT.as_bytes()))),
            false,
            none,
        )
        .unwrap();
        let suffix = common | st::RAW | st::WEIGHT | st::PHYS_ADDR;
        s.add_desc(
            &[5],
            attr_of(attr::TYPE_SOFTWARE, 1, suffix),
            "suffix",
            None,
            false,
            none,
        )
        .unwrap();
        let walked = common | st::CALLCHAIN | st::RAW;
        s.add_desc(
            &[6],
            attr_of(attr::TYPE_SOFTWARE, 2, walked),
            "walked",
            None,
            false,
            none,
        )
        .unwrap();
        let plain = Arc::new(PerfEventFormat::parse(true, "test", PLAIN).unwrap());
        s.add_desc(
            &[7],
            attr_of(attr::TYPE_TRACEPOINT, 78, common | st::RAW),
            "test:plain",
            Some((&plain, Some(PLAIN.as_bytes()))),
            false,
            none,
        )
        .unwrap();
        // Intel PT may take threads by its SAMPLEs' cpu.
        let switch = PLAIN.replace("plain", "sched_switch").replace("78", "79");
        let switch_format = Arc::new(PerfEventFormat::parse(true, "sched", &switch).unwrap());
        s.add_desc(
            &[9],
            attr_of(attr::TYPE_TRACEPOINT, 79, common | st::RAW),
            "sched:sched_switch",
            Some((&switch_format, Some(switch.as_bytes()))),
            false,
            none,
        )
        .unwrap();
        s
    }

    /// A tracepoint with fixed fields only.
    const PLAIN: &str = "name: plain\nID: 78\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:unsigned int value;\toffset:8;\tsize:4;\tsigned:0;\n\n\
print fmt: \"%u\", REC->value\n";

    /// A RAW payload of the probe (valid when `good`; a random length and bytes otherwise).
    fn probe_raw(rng: &mut Rng, endian: Endian) -> Vec<u8> {
        let text = 1 + rng.below(9) as usize;
        let mut raw = vec![0u8; 20 + 2 * text];
        raw[..2].copy_from_slice(&endian.u16_bytes(77));
        raw[8..12].copy_from_slice(&endian.u32_bytes((text as u32) << 16 | 20));
        // Relative to the end of `other` (16): its data after `name`'s.
        raw[12..16].copy_from_slice(&endian.u32_bytes((text as u32) << 16 | (4 + text as u32)));
        while (4 + raw.len()) % 8 != 0 {
            raw.push(0);
        }
        raw
    }

    /// The id of [`record`]'s event `event`.
    fn event_id(event: usize) -> u64 {
        [1, 3, 5, 6, 2, 7, 9][event.min(6)]
    }

    /// `record` with RAW's size word counting 4 bytes fewer (its padding left uncounted, as
    /// some writers do), when its event has RAW in one place.
    fn uncount_raw_padding(
        model: &TraceModel,
        event: usize,
        mut record: Vec<u8>,
        endian: Endian,
    ) -> Vec<u8> {
        let layout = &model.desc_for(Some(event_id(event))).unwrap().layout;
        if let Some(place) = layout.raw_place() {
            let at = place.size_at;
            if let Some(w) = record.get_mut(at..at + 4) {
                let size = endian.read_u32(w.try_into().unwrap());
                if size >= 4 {
                    w.copy_from_slice(&endian.u32_bytes(size - 4));
                }
            }
        }
        record
    }

    /// A valid record of event `event` (0..4; 4: a COMM or FORK of a random one).
    fn record(rng: &mut Rng, model: &TraceModel, event: usize, endian: Endian) -> Vec<u8> {
        let id = event_id(event);
        let d = model.desc_for(Some(id)).unwrap();
        let raw = match event {
            1 => probe_raw(rng, endian),
            5 | 6 => {
                let mut raw = vec![0u8; 12];
                raw[..2].copy_from_slice(&endian.u16_bytes(73 + event as u16));
                raw[8..12].copy_from_slice(&endian.u32_bytes(rng.next() as u32));
                raw
            }
            _ => (0..rng.below(40) * 4 + 4)
                .map(|_| rng.next() as u8)
                .collect(),
        };
        let chain: Vec<u64> = (0..rng.below(5)).map(|_| rng.next()).collect();
        let tid = PidTid { pid: 7, tid: 8 };
        let sid = SampleId {
            tid: Some(tid),
            time: Some(rng.next()),
            cpu: Some(SampleCpu::new(1)),
            identifier: Some(id),
            ..Default::default()
        };
        if event == 4 {
            return match rng.below(2) {
                0 => to_vec(
                    &Comm {
                        layout: &d.layout,
                        pid: 7,
                        tid: 8,
                        comm: b"abc",
                        exec: false,
                        sample_id: sid,
                    },
                    endian,
                ),
                _ => to_vec(
                    &Fork {
                        layout: &d.layout,
                        misc: 0,
                        pid: 7,
                        ppid: 1,
                        tid: 8,
                        ptid: 1,
                        time: 9,
                        sample_id: sid,
                    },
                    endian,
                ),
            }
            .unwrap();
        }
        // The switch event's cpus on both sides of what perf keeps a thread by.
        let cpu = match (event, rng.below(4)) {
            (6, 0) => CURRENT_TID_CPU_MAX,
            (6, 1) => CURRENT_TID_CPU_MAX + 1,
            (6, 2) => rng.next() as u32,
            _ => 1,
        };
        let s = Sample {
            identifier: Some(id),
            ip: Some(rng.next()),
            tid: Some(tid),
            time: Some(rng.next()),
            cpu: Some(SampleCpu::new(cpu)),
            period: Some(1),
            raw: Some(&raw),
            weight: Some(3),
            phys_addr: Some(4),
            callchain: Some(&chain),
            ..Default::default()
        }
        .masked(&d.layout);
        to_vec(
            &SampleRecord {
                layout: &d.layout,
                sample: &s,
                misc: 0,
            },
            endian,
        )
        .unwrap()
    }

    /// `record` with a few bytes changed (its size kept a multiple of 8 and equal to its
    /// length, as the framing guarantees before the check).
    fn mutate(rng: &mut Rng, mut record: Vec<u8>, endian: Endian) -> Vec<u8> {
        for _ in 0..1 + rng.below(3) {
            match rng.below(4) {
                0 if record.len() > 16 => {
                    record.truncate(record.len() - 8);
                }
                1 => record.extend_from_slice(&[0; 8]),
                _ => {
                    let at = 8 + rng.below(record.len() as u64 - 8) as usize;
                    record[at] = rng.next() as u8;
                }
            }
        }
        let len = record.len() as u16;
        record[6..8].copy_from_slice(&endian.u16_bytes(len));
        record
    }

    /// perf's own records (ID_INDEX, THREAD_MAP, STAT, …) taken by the short way are ones
    /// the full check passes; those the output frames the long way or the check keeps count
    /// of (AUXTRACE, COMPRESSED, pipe mode's header records) never are, nor a FINISHED_ROUND
    /// other than one whole of 8 bytes, which always is.
    #[test]
    fn user_records_pass_the_short_way_only_when_the_full_check_does() {
        let never = [record_type::AUXTRACE, record_type::COMPRESSED];
        for endian in [Endian::Little, Endian::Big] {
            let model = model(endian);
            let mut rng = Rng(0x05e4 ^ endian.is_native() as u64);
            let mut check = RecordCheck::new(true);
            let mut stats = EventStats::default();
            let first = record(&mut rng, &model, 0, endian);
            check.check_one(&model, &first, &mut stats, PLACE).unwrap();
            let (mut quick, mut refused, mut rounds) = (0, 0, 0);
            for _ in 0..20_000 {
                let type_ = record_type::HEADER_ATTR + rng.below(24) as u32;
                let len = 8 * (1 + rng.below(12) as usize);
                let size = match rng.below(8) {
                    0 => rng.below(200) as u16,
                    _ => len as u16,
                };
                // A quarter with a zero body: counts of 0, kinds of 0 (more of them whole).
                let zero = rng.below(4) == 0;
                let mut r: Vec<u8> = (0..len)
                    .map(|_| if zero { 0 } else { rng.next() as u8 })
                    .collect();
                r[..4].copy_from_slice(&endian.u32_bytes(type_));
                r[6..8].copy_from_slice(&endian.u16_bytes(size));
                let full = check.check_record(&model, &r, &mut stats).is_ok();
                let fast = check.events.passes_learning(&model, &r);
                assert!(
                    full || !fast,
                    "{endian:?}: passed the short way, refused in full: {r:?}"
                );
                if never.contains(&type_) || WRITER_MANAGED.contains(&type_) {
                    assert!(!fast, "{endian:?}: type {type_} took the short way");
                }
                if type_ == record_type::FINISHED_ROUND {
                    let whole = crate::output::is_whole_round(endian, &r);
                    assert_eq!(fast, whole, "{endian:?}: {r:?}");
                    rounds += usize::from(whole);
                }
                quick += usize::from(fast);
                refused += usize::from(!full);
            }
            assert!(
                quick > 30 && refused > 2000 && rounds > 10,
                "{quick} quick, {refused} refused, {rounds} whole FINISHED_ROUNDs"
            );
        }
    }

    /// SAMPLEs of one event taken by its facts, [`STREAK`](crate::check::checked_events)
    /// of them in a row, make it the last SAMPLE learned: its SAMPLEs are then compared as
    /// stored, and that comparison still passes only what the full check passes.
    #[test]
    fn a_streak_of_one_event_makes_it_the_last_sample_learned() {
        for endian in [Endian::Little, Endian::Big] {
            let model = model(endian);
            let mut rng = Rng(0x57ea ^ endian.is_native() as u64);
            let mut check = RecordCheck::new(true);
            let mut stats = EventStats::default();
            for event in [5, 0] {
                let r = record(&mut rng, &model, event, endian);
                check.check_one(&model, &r, &mut stats, PLACE).unwrap();
            }
            // The fixed-layout event 0 is the last learned: the tracepoint's SAMPLEs (event
            // 5, RAW of fixed fields) are not like it.
            let tracepoint = record(&mut rng, &model, 5, endian);
            assert_eq!(
                check.events.sample_passes_inline(&model, &tracepoint),
                Quick::Unsettled
            );
            for _ in 0..64 {
                let r = record(&mut rng, &model, 5, endian);
                assert!(check.events.passes_learning(&model, &r));
            }
            assert_eq!(
                check.events.sample_passes_inline(&model, &tracepoint),
                Quick::Passes
            );
            let (mut inline, mut refused) = (0, 0);
            for n in 0..4000 {
                let good = record(&mut rng, &model, [5, 5, 0, 3][n % 4], endian);
                let r = match n % 3 {
                    0 => good,
                    _ => mutate(&mut rng, good, endian),
                };
                let full = check.check_record(&model, &r, &mut stats).is_ok();
                let fast = check.events.sample_passes_inline(&model, &r) == Quick::Passes;
                assert!(
                    full || !fast,
                    "{endian:?}: passed as stored, refused in full: {r:?}"
                );
                assert!(full || !check.events.passes_learning(&model, &r));
                inline += usize::from(fast);
                refused += usize::from(!full);
            }
            assert!(
                inline > 500 && refused > 1000,
                "{inline} inline, {refused} refused"
            );
        }
    }

    /// What strict mode learned of an event passes exactly the records its full check
    /// passes: never one it refuses, and every valid one whose length the learned facts
    /// give (all but the walked layout).
    #[test]
    fn learned_events_pass_what_the_full_check_passes() {
        for endian in [Endian::Little, Endian::Big] {
            let model = model(endian);
            let mut rng = Rng(0x5eed ^ endian.is_native() as u64);
            let mut check = RecordCheck::new(true);
            let mut stats = EventStats::default();
            for event in [1, 2, 3, 4, 5, 6, 0] {
                for _ in 0..3 {
                    let r = record(&mut rng, &model, event, endian);
                    check.check_one(&model, &r, &mut stats, PLACE).unwrap();
                }
            }
            let (mut passed, mut refused, mut big) = (0, 0, 0);
            for n in 0..30_000 {
                // From here on, an Intel PT trace takes threads from the switch event's
                // SAMPLEs: the full check refuses those of a big cpu.
                if n == 15_000 {
                    // Intel PT (1) of PMU type 8 whose switches were recorded with
                    // sched:sched_switch (have_sched_switch 1).
                    let private: [u64; 10] = [
                        8,
                        31,
                        858_993_459,
                        0x0fff_e123_4567,
                        1,
                        0x400,
                        0x800,
                        1,
                        0,
                        1,
                    ];
                    let mut parts = [endian.u32_bytes(1), [0; 4]].concat();
                    parts.extend(private.iter().flat_map(|w| endian.u64_bytes(*w)));
                    let info = to_vec(
                        &perf_encode::records::Record::new(
                            record_type::AUXTRACE_INFO,
                            0,
                            &[&parts],
                        ),
                        endian,
                    )
                    .unwrap();
                    // The big cpus taken so far were noted, and would refuse it: as in
                    // an output without them.
                    check.aux.reset();
                    check.check_one(&model, &info, &mut stats, PLACE).unwrap();
                }
                // The fixed layout, the tracepoint of fixed fields, then the one with dynamic
                // fields as the last SAMPLE learned: SAMPLEs like it are then also checked by
                // comparing them with it (and reading their dynamic fields).
                // Then the switch event's, whose cpu must be read: it never becomes the last
                // SAMPLE learned.
                if n % 10_000 == 0 || n == 25_000 {
                    let k = n / 5_000;
                    let event = [0, 0, 5, 5, 1, 6][k];
                    let r = match event {
                        // A cpu Intel PT keeps a thread by: the full check passes it.
                        6 => loop {
                            let r = record(&mut rng, &model, event, endian);
                            if r[32..36] == endian.u32_bytes(1) {
                                break r;
                            }
                        },
                        _ => record(&mut rng, &model, event, endian),
                    };
                    let id = [1, 1, 7, 7, 3, 9][k];
                    check
                        .events
                        .learn(&model, model.desc_for(Some(id)).unwrap(), &r);
                    assert_eq!(check.events.last_revision() == 0, event == 6);
                }
                let event = rng.below(7) as usize;
                let good = record(&mut rng, &model, event, endian);
                let r = match n % 4 {
                    0 | 2 => good,
                    1 => mutate(&mut rng, good, endian),
                    _ => uncount_raw_padding(&model, event, good, endian),
                };
                let full = check.check_record(&model, &r, &mut stats).is_ok();
                let quick = check.events.passes(&model, &r);
                let fixed = match check.events.sample_passes_inline(&model, &r) {
                    Quick::Passes => true,
                    Quick::DynamicFields => check.events.dynamic_fields_fit(&r),
                    Quick::Unsettled | Quick::Undescribed => false,
                };
                let words = r.first_chunk::<8>().is_some_and(|head| {
                    let word =
                        |at: usize| Some(u64::from_ne_bytes(*r.get(at..)?.first_chunk::<8>()?));
                    check
                        .events
                        .fixed_sample_passes_by_words(&model, *head, r.len(), word)
                });
                assert!(full || !(fixed || words), "{endian:?} event {event}: {r:?}");
                // Bytes that are not one whole record (two, or a piece) never pass.
                let two = [&r[..], &r].concat();
                for bytes in [&two[..], &r[..r.len() - 8]] {
                    assert!(!check.events.passes(&model, bytes));
                    assert!(!check.events.fixed_sample_passes(&model, bytes));
                }
                assert!(full || !quick, "{endian:?} event {event}: learned facts passed a record the full check refuses: {r:?}");
                // The switch event's cpu (after IDENTIFIER, TID and TIME).
                let cpu = r
                    .get(32..36)
                    .map(|b| endian.read_u32(b.try_into().unwrap()));
                let big_cpu = event == 6 && cpu.is_some_and(|c| c > CURRENT_TID_CPU_MAX);
                if n % 2 == 0 && big_cpu {
                    // Taken before the AUXTRACE_INFO, by the full check alone; refused after.
                    assert_eq!(full, n < 15_000, "{endian:?} cpu {cpu:?}");
                    assert!(!quick);
                    big += 1;
                }
                if n % 2 == 0 && event != 3 && !big_cpu {
                    assert!(
                        quick,
                        "{endian:?} event {event}: a valid record not passed: {r:?}"
                    );
                }
                passed += usize::from(quick);
                refused += usize::from(!full);
            }
            assert!(
                passed > 13_000 && refused > 4_500 && big > 600,
                "{passed} passed, {refused} refused, {big} of a big cpu"
            );
        }
    }
}
