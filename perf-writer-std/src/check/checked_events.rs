//! [`CheckedEvents`]: what strict mode keeps of the events whose records it checked, so that
//! the next records of those events are checked without parsing them: how long a SAMPLE of
//! the event is (a fixed length, or one that follows from RAW's size word), the RAW rule of
//! a tracepoint, and the length of the `sample_id` trailer of its other records.
//!
//! Records of several events, and of one event on several CPUs (each CPU has its own id),
//! interleave in every real trace, so a few events are kept at a time: a direct-mapped table
//! by event id. Every fact is read from the model when a record of the event passes the
//! full check; a change to the model (a description, a feature, a tracing-data setting)
//! makes the table stale, and the next record of each event takes the full check again.
//!
//! What a record passes here is exactly what the full check ([`RecordCheck`]) accepts for it
//! (a unit test holds the two together on random records and layouts).
//!
//! [`RecordCheck`]: crate::check::record_check::RecordCheck

use crate::check::record_rules::{
    check_body, check_kernel_values, check_name, check_swapped_by_perf, check_trailer_ids,
    check_user_fields, counted_body, is_switch, judged_in_context, names_more_ids,
    sample_size_fits,
};
use crate::check::switch_kinds::{sched_switch_cpu_at, sched_switch_sample_kinds};
use crate::model::raw_rule::RawRule;
use crate::model::trace_model::{EventDescData, TraceModel};
use crate::output::is_whole_round;
use perf_abi::record_type;
use perf_encode::records::{header_type_and_size, is_plain_record};
use perf_encode::Endian;

/// Events kept at a time (a power of two).
const SLOTS: usize = 16;

/// One event's facts.
#[derive(Clone, Copy, Debug)]
struct Facts {
    /// The record bytes that name the event, as stored (see [`CheckedEvents::passes`]).
    key: u64,
    /// [`TraceModel::revision`] when the facts were read (at least 1: a model with a
    /// description was changed); 0: an empty slot.
    revision: u64,
    /// Where the length of the event's SAMPLEs comes from: 0 when it is fixed (`len`), else
    /// the offset of RAW's `u32 size`, RAW being the only field of varying length (a record
    /// is then `len + 4 + size` long). A SAMPLE may also be that rounded up to 8 (fields are
    /// read by offset: padding after the last one reads the same).
    raw_size_at: usize,
    /// The fixed length, or the length of every field but RAW; 0: each SAMPLE is walked by
    /// the full check, because another field's length varies (READ groups, CALLCHAIN,
    /// BRANCH_STACK, register dumps, STACK_USER, AUX) or ids in it are read
    /// ([`names_more_ids`]).
    len: usize,
    /// The RAW rule of a tracepoint whose format is known.
    rule: Option<RawRule>,
    /// Bytes of the `sample_id` trailer of the event's records other than SAMPLE.
    trailer: usize,
    /// Where the trailer's ID is, back from the end, when it has IDENTIFIER too (they must
    /// agree).
    trailer_id_back: Option<usize>,
    /// Where the cpu of its SAMPLEs is, when Intel PT may take a thread by it
    /// ([`sched_switch_cpu_at`]); 0: not such an event. A SAMPLE whose cpu perf cannot keep
    /// a thread by is left to the full check, which judges it by what came before it. Such
    /// an event has RAW, so its SAMPLEs never pass by their length alone.
    cpu_at: usize,
}

const EMPTY: Facts = Facts {
    key: 0,
    revision: 0,
    raw_size_at: 0,
    len: 0,
    rule: None,
    trailer: 0,
    trailer_id_back: None,
    cpu_at: 0,
};

/// Where records name their event, in a model at one revision (see
/// [`TraceModel::desc_for`]).
#[derive(Clone, Copy, Debug, Default)]
struct IdPlaces {
    /// The revision these were read at; 0: not read yet (facts are learned only once a
    /// description was added, which changes the revision).
    revision: u64,
    /// Offset of the id in a SAMPLE; `None`: SAMPLEs carry none, the first event owns them.
    sample_at: Option<usize>,
    /// Bytes back from a record's end to the id in its `sample_id` trailer; `None`: records
    /// carry none, the first event owns them.
    trailer_back: Option<usize>,
}

/// The facts of the last few events whose records passed strict mode's full check.
#[derive(Debug)]
pub(crate) struct CheckedEvents {
    places: IdPlaces,
    slots: [Facts; SLOTS],
    /// The facts of the event that owns every record carrying no id (the first).
    first: Facts,
    /// The last SAMPLE learned, when its length and RAW alone prove a SAMPLE like it
    /// right: compared as stored, without reading a field (see [`LastSample`]).
    last: LastSample,
    /// The key of the SAMPLEs last taken by their event's facts, and how many in a row.
    streak: (u64, u32),
}

/// SAMPLEs of one event in a row taken by its facts before the last of them becomes the
/// last SAMPLE learned: often enough to follow a trace that changes event, rarely enough to
/// cost nothing when two events take turns (one of them is the last learned; the other
/// comes this way each time).
const STREAK: u32 = 64;

/// The last SAMPLE learned, of an event whose SAMPLEs' length follows from their RAW size
/// at most: a record whose first 8 bytes (misc aside) are `head`, whose 8 bytes at
/// `id_at`, under `id_mask`, are `key`, and whose RAW size and `common_type` are `raw`'s,
/// is as long as that SAMPLE, of the same event, with a RAW as long and of the same format:
/// right, once its dynamic fields (if its format has any) put their data within its RAW,
/// as long as the model is at `revision`. One event, or one tracepoint, taking the
/// SAMPLEs is the commonest trace; its check is then three or four compares.
#[derive(Clone, Copy, Debug, Default)]
struct LastSample {
    /// 0: none.
    revision: u64,
    head: u64,
    len: usize,
    id_at: usize,
    id_mask: u64,
    key: u64,
    /// RAW's size word and the `common_type` after it: the 8 bytes at `raw_at`, under
    /// `raw_mask`, are `raw_bits` (a mask of 0: the event has no RAW).
    raw_at: usize,
    raw_mask: u64,
    raw_bits: u64,
    /// The event's RAW rule, when it has dynamic fields: their words differ from one
    /// SAMPLE to the next, and are read (the rest of the rule holds already).
    dynamic: Option<RawRule>,
    /// RAW's length (when `dynamic` is there).
    raw_len: usize,
}

/// What [`CheckedEvents::sample_passes_inline`] can tell of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quick {
    /// It passes.
    Passes,
    /// It passes once its RAW's dynamic fields are read.
    DynamicFields,
    /// The full check (or [`CheckedEvents::passes`]) decides.
    Unsettled,
    /// A SAMPLE written while no event is described: nothing learned passes it, the way of
    /// records before their descriptions takes it.
    Undescribed,
}

/// The bytes of a record header's first 8 that hold `type` (0..4) and `size` (6..8), as a
/// mask over the 8 bytes read in the machine's order.
const TYPE_AND_SIZE: u64 = u64::from_ne_bytes([0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff]);

impl Default for CheckedEvents {
    fn default() -> Self {
        CheckedEvents {
            places: IdPlaces::default(),
            slots: [EMPTY; SLOTS],
            first: EMPTY,
            last: LastSample::default(),
            streak: (0, 0),
        }
    }
}

/// The 8 bytes of `data` at `at`, as stored.
#[inline]
fn word(data: &[u8], at: usize) -> Option<u64> {
    let bytes = data.get(at..)?.first_chunk::<8>()?;
    Some(u64::from_ne_bytes(*bytes))
}

/// The slot of a key: ids are small sequential numbers, stored in either byte order.
#[inline]
fn slot_of(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60) as usize & (SLOTS - 1)
}

impl CheckedEvents {
    /// The revision the last SAMPLE learned was learned at, when SAMPLEs like it are checked
    /// by comparing them with it (0: none).
    #[cfg(test)]
    pub(crate) fn last_revision(&self) -> u64 {
        self.last.revision
    }

    /// Forgets every event.
    pub(crate) fn clear(&mut self) {
        *self = CheckedEvents::default();
    }

    /// True when `record`, one whole record whose header's size is its length, passes
    /// strict mode's check by the facts kept of its event: then the full check would pass it
    /// too. False says nothing (the full check decides).
    #[inline]
    pub(crate) fn passes(&self, model: &TraceModel, record: &[u8]) -> bool {
        self.judge(model, record).is_some()
    }

    /// [`passes`](Self::passes), learning from the SAMPLEs it takes by their event's facts:
    /// after [`STREAK`] of one event in a row, the last of them becomes the last SAMPLE
    /// learned. One event's SAMPLEs are then compared as stored again after a SAMPLE of
    /// another event was learned (a few of another tracepoint among them).
    #[inline]
    pub(crate) fn passes_learning(&mut self, model: &TraceModel, record: &[u8]) -> bool {
        let Some(by_facts) = self.judge(model, record) else {
            return false;
        };
        if let Some(key) = by_facts {
            if key == self.streak.0 {
                self.streak.1 = self.streak.1.wrapping_add(1);
            } else {
                self.streak = (key, 1);
            }
            if self.streak.1 >= STREAK {
                self.learn_last(model, record);
            }
        }
        true
    }

    /// Makes `record`, a SAMPLE that passed by its event's facts, the last SAMPLE learned.
    #[cold]
    fn learn_last(&mut self, model: &TraceModel, record: &[u8]) {
        self.streak.1 = 0;
        let at = self.places.sample_at;
        if let Some(Some(facts)) = self.sample_facts(model, record) {
            if let Some(last) = LastSample::of(facts, at, record, model.endian()) {
                self.last = last;
            }
        }
    }

    /// `None` when `record` does not pass by what was learned; else `Some`, holding the key
    /// of its event when it is a SAMPLE taken by the event's facts (not compared with the
    /// last SAMPLE learned).
    #[inline]
    fn judge(&self, model: &TraceModel, record: &[u8]) -> Option<Option<u64>> {
        let endian = model.endian();
        if self.last.like(model, record) {
            return self.last.dynamic_fit(record).then_some(None);
        }
        let passed = match self.sample_facts(model, record) {
            Some(Some(facts)) => {
                return facts
                    .sample_passes(endian, record)
                    .then_some(Some(facts.key))
            }
            Some(None) => false,
            None => self.side_band_passes(model, record),
        };
        passed.then_some(None)
    }

    /// [`passes`](Self::passes) for a SAMPLE like the last one learned, or of an event
    /// whose SAMPLEs all have one length: the commonest records, checked inline (no call on
    /// the way). [`Quick::DynamicFields`]: like the last one learned, its RAW's dynamic
    /// fields still to read ([`passes`](Self::passes) does).
    #[inline(always)]
    pub(crate) fn sample_passes_inline(&self, model: &TraceModel, record: &[u8]) -> Quick {
        if self.last.like(model, record) {
            return match self.last.dynamic {
                None => Quick::Passes,
                Some(_) => Quick::DynamicFields,
            };
        }
        match self.sample_facts(model, record) {
            Some(Some(facts))
                if facts.raw_size_at == 0
                    && sample_size_fits(facts.len, record.len(), model.endian()) =>
            {
                Quick::Passes
            }
            Some(None) if model.descs().is_empty() => Quick::Undescribed,
            _ => Quick::Unsettled,
        }
    }

    /// The dynamic fields of `record`, a SAMPLE [`sample_passes_inline`] found like the last
    /// one learned ([`Quick::DynamicFields`]), put their data within its RAW: then it passes.
    ///
    /// [`sample_passes_inline`]: Self::sample_passes_inline
    pub(crate) fn dynamic_fields_fit(&self, record: &[u8]) -> bool {
        self.last.dynamic_fit(record)
    }

    /// [`passes`](Self::passes) for a SAMPLE of an event whose SAMPLEs all have one length
    /// (false for any other).
    #[cfg(test)]
    pub(crate) fn fixed_sample_passes(&self, model: &TraceModel, record: &[u8]) -> bool {
        self.sample_passes_inline(model, record) == Quick::Passes
    }

    /// What [`sample_passes_inline`](Self::sample_passes_inline) passes as
    /// [`Quick::Passes`], of a record read where it lies (and of one like the last SAMPLE
    /// learned, dynamic fields aside),
    /// by its first 8 bytes `head`, its `len` and `word_at` (the 8 bytes at an offset, when
    /// the record has them): true when those pass it. A record they do not pass is
    /// checked whole by [`passes`](Self::passes).
    #[inline]
    pub(crate) fn fixed_sample_passes_by_words(
        &self,
        model: &TraceModel,
        head: [u8; 8],
        len: usize,
        mut word_at: impl FnMut(usize) -> Option<u64>,
    ) -> bool {
        let revision = model.revision();
        let last = &self.last;
        if revision == last.revision
            && last.dynamic.is_none()
            && u64::from_ne_bytes(head) & TYPE_AND_SIZE == last.head
            && len == last.len
        {
            let id = match last.id_mask {
                u64::MAX => word_at(last.id_at),
                _ => Some(u64::from_ne_bytes(head)),
            };
            let raw = match last.raw_mask {
                0 => Some(0),
                _ => word_at(last.raw_at),
            };
            if id.is_some_and(|id| id & last.id_mask == last.key)
                && raw.is_some_and(|raw| raw & last.raw_mask == last.raw_bits)
            {
                return true;
            }
        }
        let (type_, size) = header_type_and_size(model.endian(), &head);
        if type_ != record_type::SAMPLE
            || usize::from(size) != len
            || size & 7 != 0
            || self.places.revision != revision
        {
            return false;
        }
        let facts = match self.places.sample_at {
            None => &self.first,
            Some(at) => match word_at(at) {
                Some(key) => self.slot(key),
                None => return false,
            },
        };
        facts.revision == revision
            && facts.len != 0
            && facts.raw_size_at == 0
            && sample_size_fits(facts.len, len, model.endian())
    }

    /// The facts of the event of `record`, a whole SAMPLE whose size is its length: `None`
    /// when it is not a SAMPLE, `Some(None)` when no fact settles it.
    #[inline(always)]
    fn sample_facts(&self, model: &TraceModel, record: &[u8]) -> Option<Option<&Facts>> {
        let head = record.first_chunk::<8>()?;
        let (type_, size) = header_type_and_size(model.endian(), head);
        if type_ != record_type::SAMPLE {
            return None;
        }
        let revision = model.revision();
        if usize::from(size) != record.len() || size & 7 != 0 || self.places.revision != revision {
            return Some(None);
        }
        let facts = match self.places.sample_at {
            None => &self.first,
            Some(at) => match word(record, at) {
                Some(key) => self.slot(key),
                None => return Some(None),
            },
        };
        Some((facts.revision == revision && facts.len != 0).then_some(facts))
    }

    /// [`passes`](Self::passes) of a record other than SAMPLE (out of line: the commonest
    /// records are SAMPLEs).
    #[inline(never)]
    fn side_band_passes(&self, model: &TraceModel, record: &[u8]) -> bool {
        let Some(head) = record.first_chunk::<8>() else {
            return false;
        };
        let (type_, size) = header_type_and_size(model.endian(), head);
        let revision = model.revision();
        if usize::from(size) != record.len() || size & 7 != 0 {
            return false;
        }
        let Some(info) = record_type::info(type_) else {
            return false;
        };
        if record_type::is_user(type_) {
            // perf's own records (TIME_CONV, STAT_CONFIG, …) belong to no event: the
            // full check takes them by their body's length and fields, but for those it
            // judges by what came before them (`judged_in_context`). Those the output frames
            // by the long way (a payload after them, unpadded) take it; a FINISHED_ROUND, which
            // perf writes every few dozen records, is framed as a plain record.
            let endian = model.endian();
            return (is_plain_record(endian, record) || is_whole_round(endian, record))
                && !judged_in_context(type_)
                && check_body(info.body, record.len(), 0).is_ok()
                && check_user_fields(model.endian(), type_, info.body, record).is_ok();
        }
        // Context switches and ITRACE_START are judged by what came before them (the cpu an
        // Intel PT or Arm SPE decoder needs of them).
        if self.places.revision != revision || is_switch(type_) {
            return false;
        }
        let facts = match self.places.trailer_back {
            Some(back) => match record
                .len()
                .checked_sub(back)
                .and_then(|at| word(record, at))
            {
                Some(key) => self.slot(key),
                None => &self.first,
            },
            None => &self.first,
        };
        // Facts at revision 0 were never learned (the model had no description then).
        let body = counted_body(model.endian(), type_, info.body, record);
        facts.revision != 0
            && facts.revision == revision
            && check_body(body, record.len(), facts.trailer).is_ok()
            && check_name(type_, record, facts.trailer).is_ok()
            && check_trailer_ids(model.endian(), record, facts.trailer_id_back).is_ok()
            && check_kernel_values(model.endian(), type_, record).is_ok()
            && (model.endian() == Endian::Little || big_endian_swaps_back(type_, record.len()))
    }

    /// The slot that would hold the event named by `key`, whatever it holds.
    #[inline]
    fn slot(&self, key: u64) -> &Facts {
        let facts = self.slots.get(slot_of(key)).unwrap_or(&EMPTY);
        if facts.key == key && facts.revision != 0 {
            facts
        } else {
            &EMPTY
        }
    }

    /// Keeps the facts of `desc`, which owns `record` (a record that passed the full check):
    /// the next records of its event are checked by them. Events whose records need more
    /// than the full check's verdict (a tracepoint whose format is not known yet) are not
    /// kept.
    pub(crate) fn learn(&mut self, model: &TraceModel, desc: &EventDescData, record: &[u8]) {
        // Events perf cannot tell apart: every record is judged in full, by its type.
        if model.untold() {
            return;
        }
        let endian = model.endian();
        let revision = model.revision();
        if self.places.revision != revision {
            self.places = IdPlaces::of(model);
            self.slots = [EMPTY; SLOTS];
            self.first = EMPTY;
        }
        let Some(head) = record.first_chunk::<8>() else {
            return;
        };
        let (type_, _) = header_type_and_size(endian, head);
        let sample = type_ == record_type::SAMPLE;
        let at = match sample {
            true => self.places.sample_at,
            false => self
                .places
                .trailer_back
                .and_then(|back| record.len().checked_sub(back)),
        };
        if model.format_pending(desc) {
            return;
        }
        let layout = &desc.layout;
        let (raw_size_at, len) = match (layout.fixed_sample_len(), layout.raw_place()) {
            // Ids in a SAMPLE are read: walked.
            _ if names_more_ids(layout) => (0, 0),
            (Some(len), _) => (0, len),
            (None, Some(place)) => (place.size_at, place.other_len),
            (None, None) => (0, 0),
        };
        let facts = Facts {
            key: 0,
            revision,
            raw_size_at,
            len,
            rule: model.raw_rule_of(desc).copied(),
            trailer: layout.sample_id_len(),
            trailer_id_back: layout.trailer_repeated_id_from_end(),
            cpu_at: sched_switch_cpu_at(model, desc).unwrap_or(0),
        };
        // A side-band record leaves the last SAMPLE learned as it was: the SAMPLEs around
        // it are still compared with it.
        if sample {
            self.last = LastSample::of(&facts, at, record, endian).unwrap_or_default();
        }
        match at.map(|at| word(record, at)) {
            // No id in the record: the first event's.
            None => self.first = facts,
            Some(Some(key)) => {
                if let Some(slot) = self.slots.get_mut(slot_of(key)) {
                    *slot = Facts { key, ..facts };
                }
            }
            Some(None) => {}
        }
    }
}

impl IdPlaces {
    /// Where the records of `model` name their event now.
    fn of(model: &TraceModel) -> Self {
        let first = model.descs().first().map(|d| &d.layout);
        // With one event and no ids, perf gives that event every record.
        let ids = !model.has_no_ids();
        IdPlaces {
            revision: model.revision(),
            sample_at: first.and_then(|l| l.sample_id_offset()).filter(|_| ids),
            trailer_back: first
                .and_then(|l| l.trailer_id_offset_from_end())
                .filter(|_| ids),
        }
    }
}

impl LastSample {
    /// `record` is like the SAMPLE: of its event, as long, with a RAW as long and of the
    /// same format (see [`LastSample`]).
    #[inline(always)]
    fn like(&self, model: &TraceModel, record: &[u8]) -> bool {
        if model.revision() != self.revision {
            return false;
        }
        let (Some(head), Some(id), Some(raw)) = (
            record.first_chunk::<8>(),
            word(record, self.id_at),
            word(record, self.raw_at),
        ) else {
            return false;
        };
        // `head` holds the size, the SAMPLE's length: the record must be as long.
        u64::from_ne_bytes(*head) & TYPE_AND_SIZE == self.head
            && id & self.id_mask == self.key
            && raw & self.raw_mask == self.raw_bits
            && record.len() == self.len
    }

    /// The dynamic fields of `record`, a SAMPLE [`like`](Self::like) this one, put their
    /// data within its RAW.
    #[inline]
    fn dynamic_fit(&self, record: &[u8]) -> bool {
        let Some(rule) = &self.dynamic else {
            return true;
        };
        let start = self.raw_at.wrapping_add(4);
        record
            .get(start..start.wrapping_add(self.raw_len))
            .is_some_and(|raw| rule.check_dynamic_fields(raw).is_ok())
    }

    /// What to compare of later SAMPLEs like `record`, a SAMPLE of the event of `facts`
    /// that passed the full check (`at`: where its id is): `None` when its event's SAMPLEs
    /// are walked (another field than RAW varies).
    fn of(facts: &Facts, at: Option<usize>, record: &[u8], endian: Endian) -> Option<LastSample> {
        let head = record.first_chunk::<8>()?;
        // The compare does not read the cpu (a `sched:sched_switch` event's: see
        // `Facts::cpu_at`); those SAMPLEs are checked by their event's facts.
        if facts.len == 0 || facts.cpu_at != 0 {
            return None;
        }
        let dynamic = facts
            .rule
            .filter(|r| r.rule.dynamic.iter().next().is_some());
        let raw_len = match facts.raw_size_at {
            0 => 0,
            at => endian.read_u32(*record.get(at..)?.first_chunk::<4>()?) as usize,
        };
        let (id_at, id_mask) = match at {
            Some(at) => (at, u64::MAX),
            None => (0, TYPE_AND_SIZE),
        };
        let (raw_at, raw_mask) = match (facts.raw_size_at, facts.rule) {
            (0, _) => (0, 0),
            (at, None) => (at, u64::from_ne_bytes([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])),
            // The size word, then the first 4 bytes of RAW: `common_type` must be there.
            (at, Some(rule)) => {
                let ct = usize::try_from(rule.rule.common_type_offset)
                    .ok()?
                    .checked_add(4)?;
                let mut mask = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
                mask.get_mut(ct..ct.checked_add(2)?)?.fill(0xff);
                (at, u64::from_ne_bytes(mask))
            }
        };
        Some(LastSample {
            revision: facts.revision,
            head: u64::from_ne_bytes(*head) & TYPE_AND_SIZE,
            len: record.len(),
            id_at,
            id_mask,
            key: word(record, id_at)? & id_mask,
            raw_at,
            raw_mask,
            raw_bits: word(record, raw_at)? & raw_mask,
            dynamic,
            raw_len,
        })
    }
}

impl Facts {
    /// `record`, a whole SAMPLE of this event whose size is its length, has the length the
    /// event's layout gives it, and its RAW payload follows the event's rule.
    #[inline]
    fn sample_passes(&self, endian: Endian, record: &[u8]) -> bool {
        if self.raw_size_at == 0 {
            return sample_size_fits(self.len, record.len(), endian);
        }
        let start = self.raw_size_at.wrapping_add(4);
        let Some(size) = record
            .get(self.raw_size_at..start)
            .and_then(|b| b.first_chunk::<4>())
            .map(|b| endian.read_u32(*b) as usize)
        else {
            return false;
        };
        // Both below 2^32 + 2^16: no wrap.
        let implied = self.len.wrapping_add(4).wrapping_add(size);
        // In a big-endian output an exact size also ends RAW at a multiple of 8 (the other
        // fields are of 8-byte words), as `field_end_fits` asks.
        if !sample_size_fits(implied, record.len(), endian) {
            return false;
        }
        let raw_passes = match (&self.rule, record.get(start..start.wrapping_add(size))) {
            (None, Some(_)) => true,
            (Some(rule), Some(raw)) => rule.check(raw).is_ok(),
            (_, None) => false,
        };
        raw_passes && (self.cpu_at == 0 || keeps_thread(endian, record, self.cpu_at))
    }
}

/// The cpu at `at` in `record`, a SAMPLE of a `sched:sched_switch` event, is one Intel PT
/// keeps a thread by.
#[inline]
fn keeps_thread(endian: Endian, record: &[u8], at: usize) -> bool {
    let cpu = record.get(at..).and_then(|b| b.first_chunk::<4>());
    cpu.is_some_and(|b| sched_switch_sample_kinds(endian.read_u32(*b)) == 0)
}

/// A big-endian side-band record of `len` bytes is one perf 6.1 swaps back
/// ([`check_swapped_by_perf`]; out of line: the little-endian outputs of the common case
/// need none of it). A READ takes the full check, which knows its trailer's fields
/// (`check_read_trailer`).
#[inline(never)]
fn big_endian_swaps_back(type_: u32, len: usize) -> bool {
    type_ != record_type::READ && check_swapped_by_perf(Endian::Big, type_, len).is_ok()
}
