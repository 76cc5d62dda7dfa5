//! [`PendingRecords`]: file mode's records that strict mode took before the description
//! that checks them. `tracepoint_perf` 0.5's writer takes records, descriptions and headers
//! in any order before finalize, and a converter that reads a recording hands the records
//! first. File mode keeps that contract: such a record is written, and what strict mode
//! needs of it is kept in a [`RecordSummary`] of its event id, checked when the description
//! with that id arrives exactly as the record would have been checked after it (a
//! description that contradicts them is refused, naming them). Finalize refuses while records
//! wait for a description, which can be added and finalize made again.
//!
//! The ids: once a description exists, its layout says where every record's id is (every
//! description must put it there). Before the first one, the place is not known: a layout
//! can put a SAMPLE's id (IDENTIFIER or ID) 8 to 40 bytes from its start, a `sample_id`
//! trailer's 8 to 24 bytes back from the end. A SAMPLE goes to the group of its words at the
//! key places, all five at first (a [`Combo`]), so that most SAMPLEs join one group; the first
//! description picks its place, checks every group whose word there is one of its ids (or
//! none, or 0), and the other groups wait for the descriptions of their words. Combinations
//! multiply (2,048 ids on 300 threads), so past [`MAX_COMBOS`] groups, or
//! [`PLACE_SINGLE_BYTES`] of groups of one record, the key place with the most words is
//! grouped alone: later SAMPLEs also join the group of their word there. A place with more
//! distinct words than [`MAX_PENDING_IDS`], or grouped alone and with more than
//! [`PLACE_SINGLE_BYTES`] of groups of one record (a time, an address), holds no ids and is
//! given up; a first description that puts its id there is refused, naming the records.
//! Trailers are grouped per place, with the same bounds. A SAMPLE like its group's SAMPLEs
//! before it (one of the group's traces matches it) changes nothing but the group's facts:
//! it takes a short way ([`PendingRecords::like_before`]), which is most of a recording's,
//! judged and added by the 8-byte chunks where it differs from the group's last record
//! ([`RecentRecord`](crate::check::recent_record::RecentRecord)).
//!
//! Memory: at most [`MAX_PENDING_IDS`] ids wait (a record of one more is refused, naming the
//! limit), and their summaries take at most [`MAX_PENDING_BYTES`] (a record past that is
//! refused); a summary holds one SAMPLE as written, or the layouts several fit (see
//! [`FittingLayouts`](crate::check::fitting_layouts::FittingLayouts)), the first and the last
//! of them (up to 512 bytes each): usually a few KiB. Nothing grows with the number of
//! records. The members of READ groups that a description finds in the summaries it checks
//! wait for theirs too (a few a group: those in a SAMPLE's first 512 bytes).
//!
//! Ids a SAMPLE names besides its own (an ID beside IDENTIFIER, READ values) are read from
//! the words the same in all SAMPLEs of its group: the group's id is, and a kernel writes
//! the same ids beside it each time. READ ids that differ from one SAMPLE to the next
//! contradict the description, conservatively.

use crate::check::fitting_layouts::{Scratch, TooManyLayouts, Trace};
use crate::check::record_rules::{named_ids, read_group_ids, EventStats};
use crate::check::record_summary::{
    raw_facts_bytes, FirstRecord, IdsCheck, Prepared, RawFacts, RecordSummary, SampleState,
    SampleSummary, TraceMatch,
};
use crate::check::refusal::{Contradiction, PendingSummary, MAX_PENDING_BYTES, MAX_PENDING_IDS};
use crate::check::switch_kinds::{new_sched_switch_cpu_at, Kinds};
use crate::error::EventError;
use crate::model::raw_rule::RawRule;
use crate::model::trace_model::{NewDesc, TraceModel};
use crate::RecordProblem;
use perf_abi::record_type;
use perf_encode::Endian;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Where a SAMPLE's id can be (IDENTIFIER at 8; ID after the header and IP, TID, TIME,
/// ADDR), and a `sample_id` trailer's, back from the end (IDENTIFIER, or ID, before
/// STREAM_ID and CPU).
const SAMPLE_PLACES: [usize; 5] = [8, 16, 24, 32, 40];

/// The bytes from the first sample place to the end of the last: the places are words
/// one after the other.
const PLACES_BYTES: usize = SAMPLE_PLACES.len() * 8;
const _: () = {
    let mut k = 0;
    while k < SAMPLE_PLACES.len() {
        assert!(SAMPLE_PLACES[k] == SAMPLE_PLACES[0] + 8 * k);
        k += 1;
    }
};
const TRAILER_PLACES: [usize; 3] = [8, 16, 24];

/// Bytes of single SAMPLEs that the groups of the key places (see [`Combo`]), or of one
/// place grouped alone, may keep: past it, the key place with the most words is grouped
/// alone, and a place grouped alone is given up (a place that holds no id, a time or an
/// address, makes a group per record).
const PLACE_SINGLE_BYTES: usize = 4 << 20;

/// Groups the key places may make before the key place with the most words is grouped
/// alone: the combinations of words multiply (2,048 ids on 300 threads), the words of one
/// place do not.
const MAX_COMBOS: usize = 4096;

/// Records grouped by the word at one place.
#[derive(Debug, Default)]
struct Place {
    /// By that word; `None`: records too short to have one there (perf gives those to the
    /// first event).
    groups: FxHashMap<Option<u64>, RecordSummary>,
    /// Bytes of the groups that hold one SAMPLE as written.
    single_bytes: usize,
    given_up: bool,
}

/// One SAMPLE place: a key place (see [`Combo`]), grouped alone, or given up.
#[derive(Debug, Default)]
struct SamplePlace {
    /// While a key place: the words seen there (`None`: a record too short to have one).
    words: FxHashSet<Option<u64>>,
    /// Once grouped alone: its SAMPLEs since, by its word.
    alone: Option<Place>,
    given_up: bool,
}

/// The words of a SAMPLE at the key places when it came: its group before the first
/// description. The key places are the places neither given up nor grouped alone; a SAMPLE
/// is also in the group of its word at each place grouped alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Combo {
    /// The key places (bits, by index in `SAMPLE_PLACES`).
    key: u8,
    /// Of those, the places within the record.
    present: u8,
    /// The word at each place present (0 elsewhere).
    words: [u64; SAMPLE_PLACES.len()],
}

/// A word at a time (the derived hash would hash the words as bytes): most SAMPLEs written
/// before any description look their group up by it.
impl Hash for Combo {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u16(u16::from(self.key) << 8 | u16::from(self.present));
        for w in self.words {
            state.write_u64(w);
        }
    }
}

impl Combo {
    #[inline]
    fn of(record: &[u8], key: u8, endian: Endian) -> Combo {
        // A record long enough for every place (the commonest): each word read, no branch.
        if let Some(all) = record
            .get(SAMPLE_PLACES[0]..)
            .and_then(|r| r.first_chunk::<PLACES_BYTES>())
        {
            let mut words = all.chunks_exact(8);
            return Combo {
                key,
                present: key,
                words: std::array::from_fn(|k| {
                    let w = words.next().and_then(|w| w.first_chunk::<8>());
                    let v = w.map_or(0, |w| endian.read_u64(*w));
                    if key >> k & 1 != 0 {
                        v
                    } else {
                        0
                    }
                }),
            };
        }
        let mut c = Combo {
            key,
            present: 0,
            words: [0; SAMPLE_PLACES.len()],
        };
        for (k, (&at, w)) in SAMPLE_PLACES.iter().zip(&mut c.words).enumerate() {
            if key >> k & 1 == 0 {
                continue;
            }
            if let Some(v) = endian.u64_at(record, at) {
                *w = v;
                c.present |= 1 << k;
            }
        }
        c
    }

    /// Place `k` was a key place when it was made.
    fn keyed_by(&self, k: usize) -> bool {
        self.key >> k & 1 != 0
    }

    /// The word at place `k` (`None`: the record is too short to have one there).
    fn word(&self, k: usize) -> Option<u64> {
        (self.present >> k & 1 != 0)
            .then(|| self.words.get(k).copied())
            .flatten()
    }
}

impl Place {
    fn give_up(&mut self) {
        *self = Place {
            given_up: true,
            ..Place::default()
        };
    }

    fn heap_bytes(&self) -> usize {
        self.groups.values().map(RecordSummary::heap_bytes).sum()
    }
}

/// The records written while no description existed.
#[derive(Debug, Default)]
struct BeforeAny {
    /// Every SAMPLE: the first and how many.
    samples: Option<Counted>,
    /// The SAMPLEs by their [`Combo`].
    combos: FxHashMap<Combo, RecordSummary>,
    /// Of the groups of the key places of now: how many, and the bytes of those that hold
    /// one SAMPLE as written.
    key_groups: usize,
    single_bytes: usize,
    sample_places: [SamplePlace; SAMPLE_PLACES.len()],
    side_band: Option<RecordSummary>,
    trailer_places: [Place; TRAILER_PLACES.len()],
}

impl BeforeAny {
    fn heap_bytes(&self) -> usize {
        let side_band = self.side_band.as_ref().map_or(0, RecordSummary::heap_bytes);
        let combos = self
            .combos
            .values()
            .map(RecordSummary::heap_bytes)
            .sum::<usize>()
            + self.combos.capacity() * std::mem::size_of::<(Combo, RecordSummary)>();
        let words = self
            .sample_places
            .iter()
            .map(|p| p.words.capacity() * 16 + p.alone.as_ref().map_or(0, Place::heap_bytes));
        let trailers = self.trailer_places.iter().map(Place::heap_bytes);
        side_band + combos + words.sum::<usize>() + trailers.sum::<usize>()
    }

    /// The key places (bits).
    fn key(&self) -> u8 {
        self.key_and_alone().0
    }

    /// The places grouped alone (bits).
    fn alone(&self) -> u8 {
        self.key_and_alone().1
    }

    /// The key places and the places grouped alone (bits), in one pass: a place given up is
    /// neither.
    fn key_and_alone(&self) -> (u8, u8) {
        let places = self.sample_places.iter().enumerate();
        places.fold((0, 0), |(key, alone), (k, p)| {
            match (p.given_up, &p.alone) {
                (true, _) => (key, alone),
                (false, None) => (key | 1 << k, alone),
                (false, Some(_)) => (key, alone | 1 << k),
            }
        })
    }
}

/// All the sample places (bits).
const ALL_PLACES: u8 = (1 << SAMPLE_PLACES.len()) - 1;

/// What a new group of the key places needs done first.
#[derive(Clone, Copy, Debug)]
enum PlaceChange {
    GiveUp(usize),
    GroupAlone(usize),
}

/// A group of SAMPLEs that a record goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Group {
    /// Before any description, by the words at the key places.
    Combo(Combo),
    /// Before any description, by the word at `SAMPLE_PLACES[.0]`, grouped alone.
    Place(usize, Option<u64>),
    /// After the first description, by event id.
    Id(u64),
}

/// What admitting a record found to do in its groups, done once its call is written.
#[derive(Debug)]
enum Action {
    Add(Group, Prepared),
    /// A narrowing that a later record of the call took further: added as narrowed to the
    /// group's last layouts of the call (fewer: the trace holds for them too), so that a call
    /// keeps one group's layouts once, however many of its records narrow them.
    NarrowedLater(Group, Trace),
    /// Give up `SAMPLE_PLACES[.0]`.
    GiveUp(usize),
    /// Group `SAMPLE_PLACES[.0]` alone from now on.
    GroupAlone(usize),
    /// The record's actions end.
    End,
}

/// A group's SAMPLEs as the call's records admitted so far leave them: one record, or the
/// layouts of the action at this index of [`CallStage::actions`].
#[derive(Debug)]
enum Staged {
    One(Vec<u8>),
    Layouts(usize),
}

/// What the call being checked will change (see [`PendingRecords::admit`]).
#[derive(Debug, Default)]
struct CallStage {
    actions: Vec<Action>,
    next: usize,
    groups: FxHashMap<Group, Staged>,
    /// Sample places this call gives up, and groups alone (bits).
    given_up: u8,
    alone: u8,
    /// Per key place, the words this call's new groups have there that it had not.
    new_words: [FxHashSet<Option<u64>>; SAMPLE_PLACES.len()],
    /// What this call changes of the groups of the key places `.0`: how many more, and how
    /// many more bytes of single records (fewer when a group of one takes a second).
    new_combos: (u8, usize, isize),
    /// The same per place grouped alone.
    new_alone: [(usize, isize); SAMPLE_PLACES.len()],
    /// Event ids this call adds.
    new_ids: Vec<u64>,
    /// Ids this call's records name that [`PendingRecords::named`] has not.
    new_named: Vec<u64>,
    /// Bytes (about) the call's records and layouts kept for its groups take.
    bytes: usize,
}

/// Empties a map or set of one call, without touching one that is empty already, and
/// without keeping the room a call of very many records made.
fn clear_for_next_call<T: Default>(t: &mut T, len: usize, capacity: usize, clear: fn(&mut T)) {
    if capacity > 1024 {
        *t = T::default();
    } else if len != 0 {
        clear(t);
    }
}

/// A group of records counted, not summarized.
#[derive(Clone, Copy, Debug)]
struct Counted {
    first: FirstRecord,
    records: u64,
}

impl Counted {
    fn add(this: &mut Option<Counted>, first: FirstRecord) {
        match this {
            Some(c) => c.records = c.records.saturating_add(1),
            None => *this = Some(Counted { first, records: 1 }),
        }
    }
}

/// SAMPLEs of a tracepoint whose format is not known yet, and what their RAW payloads say.
#[derive(Clone, Debug)]
struct FormatPending {
    first: FirstRecord,
    records: u64,
    raw: Option<RawFacts>,
}

/// perf's own records (ID_INDEX, EVENT_UPDATE, STAT) naming one id that no description
/// had when they were written.
#[derive(Clone, Copy, Debug)]
struct NamedWait {
    first: FirstRecord,
    records: u64,
    /// Stream position of the last of them.
    last: u64,
    /// One of them needs an event to own the id (ID_INDEX); the others need perf to
    /// take an event for it by its rule (see [`TraceModel::index_at_read`]).
    own: bool,
}

impl NamedWait {
    /// Notes in `named` that `records` records (the first at `first`) name `id`, which no
    /// description has; `own`: one of them needs an event to own it.
    fn note(
        named: &mut BTreeMap<u64, NamedWait>,
        id: u64,
        first: FirstRecord,
        records: u64,
        own: bool,
    ) {
        let wait = named.entry(id).or_insert(NamedWait {
            first,
            records: 0,
            last: first.pos,
            own,
        });
        if first.pos < wait.first.pos {
            wait.first = first;
        }
        // A record naming the id twice counts once.
        if wait.records == 0 || wait.last != first.pos {
            wait.records = wait.records.saturating_add(records);
        }
        wait.last = first.pos;
        wait.own |= own;
    }

    /// It still waits for `id` with the descriptions of `model`, were the file read now.
    fn waits(&self, model: &TraceModel, id: u64) -> bool {
        match self.own {
            true => model.desc_of_id(id).is_none(),
            false => model.index_at_read(id).is_none(),
        }
    }
}

/// Where a SAMPLE like the records before it goes in a call of many (see
/// [`PendingRecords::like_before`]): its group, and the trace of the group it matched.
#[derive(Clone, Copy, Debug)]
struct LikeBefore {
    combo: Combo,
    trace: usize,
}

/// A SAMPLE in a call of its own like the records before it, its group found (see
/// [`PendingRecords::like_before`]).
pub(crate) struct GroupFound<'a> {
    samples: &'a mut Counted,
    summary: &'a mut RecordSummary,
    /// The group's trace it matched.
    found: TraceMatch,
    /// Keep what the derived headers need.
    derive: bool,
}

impl GroupFound<'_> {
    /// Adds the SAMPLE `record` to its group, once written.
    pub(crate) fn add(self, record: &[u8], endian: Endian) {
        self.samples.records = self.samples.records.saturating_add(1);
        self.summary
            .add_matched(record, endian, self.found, self.derive);
    }
}

/// What strict mode took before the descriptions (see the module).
#[derive(Debug, Default)]
pub(crate) struct PendingRecords {
    before: Option<Box<BeforeAny>>,
    /// After the first description: by event id, where its layout puts it (an id whose
    /// records all came before has one here too, with none in it).
    by_id: FxHashMap<u64, RecordSummary>,
    /// The groups of SAMPLEs written before the first description that the word at its
    /// place gave to an id it does not own.
    earlier: FxHashMap<u64, Vec<RecordSummary>>,
    /// COMPRESSED records written while no HEADER_COMPRESSED was set.
    compressed: Option<Counted>,
    /// Every COMPRESSED record written (HEADER_COMPRESSED must stay readable for them).
    compressed_written: Option<Counted>,
    /// By `attr.config` (the format's id).
    formats: BTreeMap<u32, FormatPending>,
    /// perf's own records naming ids no description has yet, by id.
    named: BTreeMap<u64, NamedWait>,
    /// Bytes the summaries take (about).
    bytes: usize,
    stage: CallStage,
    scratch: Scratch,
}

/// Why a record went to [`PendingRecords`] (see [`PendingRecords::commit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deferral {
    /// No description owns it yet (a SAMPLE, or a kernel record with a trailer).
    Owner,
    /// A COMPRESSED record while HEADER_COMPRESSED is not set.
    Compressed,
    /// A COMPRESSED record checked when written: kept count of, not waiting.
    CompressedWritten,
    /// One of perf's own records naming ids no description has yet (ID_INDEX, EVENT_UPDATE,
    /// STAT): they wait for them.
    NamedIds,
    /// A SAMPLE of a tracepoint whose format is not known: its RAW payload is at
    /// `raw_start..raw_end` of the record (its layout was checked).
    Format {
        config: u32,
        raw_start: usize,
        raw_end: usize,
    },
}

/// What adding a checked description changes ([`PendingRecords::apply`]).
#[derive(Debug, Default)]
pub(crate) struct Resolution {
    /// The records written before any description are attributed.
    before: Option<Attributed>,
    /// Ids whose records the new description owns.
    ids: Vec<u64>,
    /// Ids perf's own records named that the new description owns.
    named: Vec<u64>,
    /// READ group members the records it owns name, that no description has: each with
    /// the first of those records, and how many there are.
    read_members: Vec<(u64, FirstRecord, u64)>,
    /// The format the new description brings, whose SAMPLEs waited for it.
    format: Option<u32>,
    /// Records now owned by a tracepoint whose format is still unknown.
    to_format: Option<(u32, FormatPending)>,
    /// What the derived headers get from the records attributed.
    pub(crate) stats: EventStats,
    /// The switch kinds the records attributed have (see
    /// [`SwitchKinds`](crate::check::switch_kinds::SwitchKinds)).
    pub(crate) switches: Kinds,
}

/// How the first description attributes the records written before any description: by
/// the places (indexes in `SAMPLE_PLACES`, `TRAILER_PLACES`) its layout puts the id at, to
/// its ids.
#[derive(Debug)]
struct Attributed {
    sample_place: Option<usize>,
    trailer_place: Option<usize>,
    ids: Vec<u64>,
}

/// Given up places hold no ids: a first description that puts its ids there cannot own
/// the records.
const GIVEN_UP: &str = "more distinct values than ids can be (or than strict mode keeps) were written, before any description, where this description puts the sample id: describe the events before their records (or set_strict(false) to take these unchecked)";

impl PendingRecords {
    /// Forgets everything (strict mode turned off, or the output closed).
    pub(crate) fn clear(&mut self) {
        *self = PendingRecords::default();
    }

    /// A call starts: nothing of it is admitted yet.
    pub(crate) fn start_call(&mut self) {
        let s = &mut self.stage;
        s.actions.clear();
        s.next = 0;
        let (len, cap) = (s.groups.len(), s.groups.capacity());
        clear_for_next_call(&mut s.groups, len, cap, FxHashMap::clear);
        for w in &mut s.new_words {
            let (len, cap) = (w.len(), w.capacity());
            clear_for_next_call(w, len, cap, FxHashSet::clear);
        }
        s.new_combos = (0, 0, 0);
        s.new_alone = Default::default();
        s.given_up = 0;
        s.alone = 0;
        s.new_ids.clear();
        s.new_named.clear();
        s.bytes = 0;
    }

    /// Admits `record`, deferred for `why`, before its call is written: does what may fail
    /// of adding it (narrowing its groups' layouts, the id and memory bounds) without
    /// changing what waits; [`commit`](Self::commit) adds it once the call is written.
    pub(crate) fn admit(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        why: Deferral,
    ) -> Result<(), RecordProblem> {
        match why {
            Deferral::NamedIds | Deferral::Format { .. } => return self.admit_named(model, record),
            Deferral::Owner => {}
            _ => return Ok(()),
        }
        let endian = model.endian();
        let sample = is_sample(record, endian);
        if !model.descs().is_empty() {
            let Some(id) = key_after_first(model, record) else {
                return Ok(());
            };
            if !self.by_id.contains_key(&id) && !self.stage.new_ids.contains(&id) {
                self.stage.new_ids.push(id);
                if self.by_id.len().saturating_add(self.stage.new_ids.len()) > MAX_PENDING_IDS {
                    return Err(RecordProblem::TooManyPendingIds);
                }
            }
            if !sample {
                return Ok(());
            }
            self.within_memory()?;
            self.prepare(Group::Id(id), id_place(model), record, endian)
                .map_err(|TooManyLayouts| RecordProblem::TooManyLayouts)?;
            self.stage.actions.push(Action::End);
            return Ok(());
        }
        if !sample {
            return Ok(());
        }
        // Like the group's SAMPLEs before it: what the way below finds, found sooner.
        if let Some(like) = self.like_before_in(model, record, &self.stage) {
            let prepared = Prepared::Same(like.trace);
            let actions = &mut self.stage.actions;
            actions.push(Action::Add(Group::Combo(like.combo), prepared));
            actions.push(Action::End);
            return Ok(());
        }
        self.within_memory()?;
        let combo = self.combo_of(record, endian);
        self.prepare(Group::Combo(combo), None, record, endian)
            .map_err(|TooManyLayouts| RecordProblem::TooManyLayouts)?;
        let alone = self.places_alone();
        for (k, &at) in SAMPLE_PLACES.iter().enumerate() {
            if alone >> k & 1 == 0 || self.stage.given_up >> k & 1 != 0 {
                continue;
            }
            let key = endian.u64_at(record, at);
            if self.alone_would_overflow(k, key, record.len()) {
                self.give_up_staged(k);
                continue;
            }
            if self
                .prepare(Group::Place(k, key), None, record, endian)
                .is_err()
            {
                self.give_up_staged(k);
            }
        }
        self.stage.actions.push(Action::End);
        Ok(())
    }

    /// Where a whole SAMPLE written before any description, in a call of its own, goes when
    /// it is like the records before it: its group (by its words at the key places, no
    /// place grouped alone) holds several SAMPLEs, and one of the group's traces says it
    /// fits every layout they fit. [`admit`](Self::admit) would find the same and change
    /// nothing but the group; [`GroupFound::add`] adds it once written.
    /// `None`: it takes the way of `admit` and [`commit`](Self::commit).
    #[inline]
    pub(crate) fn like_before(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        derive: bool,
    ) -> Option<GroupFound<'_>> {
        let combo = self.short_way_combo(model, record, None)?;
        let b = self.before.as_deref_mut()?;
        let summary = b.combos.get_mut(&combo)?;
        let found = trace_matching(summary, record, model.endian())?;
        Some(GroupFound {
            samples: b.samples.as_mut()?,
            summary,
            found,
            derive,
        })
    }

    /// [`like_before`](Self::like_before) of a record of a call whose records before it
    /// staged `stage`, which must leave its group and the places as they were.
    #[inline]
    fn like_before_in(
        &self,
        model: &TraceModel,
        record: &[u8],
        stage: &CallStage,
    ) -> Option<LikeBefore> {
        let combo = self.short_way_combo(model, record, Some(stage))?;
        let summary = self.before.as_deref()?.combos.get(&combo)?;
        let trace = trace_matching(summary, record, model.endian())?.trace;
        Some(LikeBefore { combo, trace })
    }

    /// The group of a SAMPLE that may take the short way of [`like_before`](Self::like_before),
    /// in a call whose records before it staged `stage` (`None`: a call of its own).
    #[inline]
    fn short_way_combo(
        &self,
        model: &TraceModel,
        record: &[u8],
        stage: Option<&CallStage>,
    ) -> Option<Combo> {
        let b = self.before.as_deref()?;
        // What admit refuses, or adds to the places' bounds, is for it to say.
        let (key, alone) = b.key_and_alone();
        if !model.descs().is_empty() || b.samples.is_none() || alone != 0 {
            return None;
        }
        let staged = stage.map_or(0, |s| s.bytes);
        if self.bytes.saturating_add(staged) > MAX_PENDING_BYTES {
            return None;
        }
        if stage.is_some_and(|s| s.given_up != 0 || s.alone != 0) {
            return None;
        }
        let combo = Combo::of(record, key, model.endian());
        if stage.is_some_and(|s| s.groups.contains_key(&Group::Combo(combo))) {
            return None;
        }
        Some(combo)
    }

    /// [`admit`](Self::admit) of a record naming ids ([`each_named_id`]): within the bound
    /// of ids that wait.
    fn admit_named(&mut self, model: &TraceModel, record: &[u8]) -> Result<(), RecordProblem> {
        let mut over = false;
        each_named_id(model, record, |id, _| {
            if model.desc_of_id(id).is_some()
                || self.named.contains_key(&id)
                || self.stage.new_named.contains(&id)
            {
                return;
            }
            self.stage.new_named.push(id);
            over |= self.named.len().saturating_add(self.stage.new_named.len()) > MAX_PENDING_IDS;
        });
        match over {
            true => Err(RecordProblem::TooManyPendingIds),
            false => Ok(()),
        }
    }

    /// Keeps the ids `record` (written at `first`) names that no description has
    /// ([`each_named_id`]): they wait for one.
    fn wait_for_named(&mut self, model: &TraceModel, record: &[u8], first: FirstRecord) {
        each_named_id(model, record, |id, own| {
            if model.desc_of_id(id).is_none() {
                NamedWait::note(&mut self.named, id, first, 1, own);
            }
        });
    }

    /// The key places, as this call leaves them so far (bits).
    fn key_places(&self) -> u8 {
        let key = self.before.as_ref().map_or(ALL_PLACES, |b| b.key());
        key & !self.stage.given_up & !self.stage.alone & ALL_PLACES
    }

    /// The places grouped alone, as this call leaves them so far (bits).
    fn places_alone(&self) -> u8 {
        let alone = self.before.as_ref().map_or(0, |b| b.alone());
        (alone | self.stage.alone) & !self.stage.given_up
    }

    /// Adding a group `key` at place `k`, grouped alone, would take it past its bounds.
    fn alone_would_overflow(&self, k: usize, key: Option<u64>, len: usize) -> bool {
        let place = self
            .before
            .as_ref()
            .and_then(|b| b.sample_places.get(k))
            .and_then(|p| p.alone.as_ref());
        let known = place.is_some_and(|p| p.groups.contains_key(&key))
            || self.stage.groups.contains_key(&Group::Place(k, key));
        if known {
            return false;
        }
        let (staged, staged_single) = self.stage.new_alone.get(k).copied().unwrap_or_default();
        let groups = place.map_or(0, |p| p.groups.len()).saturating_add(staged);
        let single = place.map_or(0, |p| p.single_bytes);
        groups >= MAX_PENDING_IDS
            || single
                .saturating_add_signed(staged_single)
                .saturating_add(len)
                > PLACE_SINGLE_BYTES
    }

    /// The group of a SAMPLE written before any description: its words at the key places,
    /// once the places that a new group would take past their bounds are given up or
    /// grouped alone.
    fn combo_of(&mut self, record: &[u8], endian: Endian) -> Combo {
        loop {
            let combo = Combo::of(record, self.key_places(), endian);
            match self.place_change(&combo, record.len()) {
                None => return combo,
                Some(PlaceChange::GiveUp(k)) => self.give_up_staged(k),
                Some(PlaceChange::GroupAlone(k)) => {
                    self.stage.alone |= 1 << k;
                    self.stage.actions.push(Action::GroupAlone(k));
                }
            }
        }
    }

    /// What must change before `combo` (of a record of `len` bytes) can be a group: a key
    /// place whose words it would take to [`MAX_PENDING_IDS`] is given up; when the key
    /// places' groups would pass [`MAX_COMBOS`], or their single records
    /// [`PLACE_SINGLE_BYTES`], the key place with the most words is grouped alone.
    fn place_change(&self, combo: &Combo, len: usize) -> Option<PlaceChange> {
        let b = self.before.as_deref();
        let known = b.is_some_and(|b| b.combos.contains_key(combo));
        if known || self.stage.groups.contains_key(&Group::Combo(*combo)) {
            return None;
        }
        let mut most: Option<(usize, usize)> = None;
        for k in (0..SAMPLE_PLACES.len()).filter(|&k| combo.keyed_by(k)) {
            let seen = b.and_then(|b| b.sample_places.get(k)).map(|p| &p.words);
            let new = self.stage.new_words.get(k);
            let words = seen
                .map_or(0, |s| s.len())
                .saturating_add(new.map_or(0, |s| s.len()));
            let w = combo.word(k);
            let fresh =
                !seen.is_some_and(|s| s.contains(&w)) && !new.is_some_and(|s| s.contains(&w));
            if fresh && words >= MAX_PENDING_IDS {
                return Some(PlaceChange::GiveUp(k));
            }
            if words >= 2 && most.is_none_or(|(_, n)| words >= n) {
                most = Some((k, words));
            }
        }
        // The groups of the key places of `combo` (those made with other key places stay as
        // they are: no record goes to them any more).
        let (groups, single) = b
            .filter(|b| b.key() == combo.key)
            .map_or((0, 0), |b| (b.key_groups, b.single_bytes));
        let (groups, single) = match self.stage.new_combos {
            (key, n, bytes) if key == combo.key => (
                groups.saturating_add(n),
                single.saturating_add_signed(bytes),
            ),
            _ => (groups, single),
        };
        let full = groups >= MAX_COMBOS || single.saturating_add(len) > PLACE_SINGLE_BYTES;
        match full {
            true => most.map(|(k, _)| PlaceChange::GroupAlone(k)),
            false => None,
        }
    }

    /// Past the memory bound: a record that would add to what waits is refused.
    fn within_memory(&self) -> Result<(), RecordProblem> {
        match self.bytes.saturating_add(self.stage.bytes) > MAX_PENDING_BYTES {
            true => Err(RecordProblem::TooManyPendingBytes),
            false => Ok(()),
        }
    }

    fn give_up_staged(&mut self, k: usize) {
        self.stage.given_up |= 1 << k;
        self.stage.actions.push(Action::GiveUp(k));
    }

    /// Prepares adding the SAMPLE `record` to `group` (as the call's records so far leave
    /// it), and notes it.
    fn prepare(
        &mut self,
        group: Group,
        id_place: Option<usize>,
        record: &[u8],
        endian: Endian,
    ) -> Result<(), TooManyLayouts> {
        let staged = self.stage.groups.get(&group);
        // A record the group's narrowing in this call traced the same fits its layouts.
        if let Some(Staged::Layouts(a)) = staged {
            if let Some(Action::Add(_, Prepared::Narrowed(_, trace))) = self.stage.actions.get(*a) {
                if trace.matches(record, endian) {
                    self.stage.actions.push(Action::Add(group, Prepared::Fits));
                    return Ok(());
                }
            }
        }
        let summary =
            group_summary(&self.before, &self.by_id, group).and_then(|s| s.samples.as_ref());
        let traces = summary.map_or((0, &[][..]), SampleSummary::traces);
        let staged_layouts = |a: usize| match self.stage.actions.get(a) {
            Some(Action::Add(_, Prepared::Narrowed(l, _))) => Some(&**l),
            _ => None,
        };
        let state = match staged {
            Some(Staged::One(r)) => SampleState::One(r),
            Some(Staged::Layouts(a)) => match staged_layouts(*a) {
                Some(l) => SampleState::Layouts(l),
                None => summary.map_or(SampleState::Absent, SampleSummary::state),
            },
            None => summary.map_or(SampleState::Absent, SampleSummary::state),
        };
        let place = match group {
            Group::Combo(_) => None,
            Group::Place(k, _) => SAMPLE_PLACES.get(k).copied(),
            Group::Id(_) => id_place,
        };
        let prepared =
            SampleSummary::prepare(state, place, traces, record, endian, &mut self.scratch)?;
        // The length of the group's one record, when it held one.
        let one_len = match state {
            SampleState::One(r) => Some(r.len()),
            _ => None,
        };
        // A narrowing of this call, committed before it, may put another trace in the slot
        // of the trace it matched: its payloads are found anew.
        let prepared = match (prepared, staged.is_some()) {
            (Prepared::Same(_), true) => Prepared::Fits,
            (p, _) => p,
        };
        let staged_at = match staged {
            Some(Staged::Layouts(a)) => Some(*a),
            _ => None,
        };
        let next = match &prepared {
            Prepared::First => {
                self.stage.bytes = self.stage.bytes.saturating_add(record.len());
                Some(Staged::One(record.to_vec()))
            }
            Prepared::Same(_) | Prepared::Fits => None,
            Prepared::Narrowed(l, t) => {
                let mut bytes = SampleSummary::many_bytes(l, t);
                // A group of one record becomes one of several: its RAW facts are made.
                if one_len.is_some() {
                    bytes = bytes.saturating_add(raw_facts_bytes(l, record, endian));
                }
                self.stage.bytes = self.stage.bytes.saturating_add(bytes);
                // The group's earlier layouts of the call are not needed any more.
                let earlier = staged_at.and_then(|a| self.stage.actions.get_mut(a));
                if let Some(action) = earlier {
                    if let Action::Add(g, Prepared::Narrowed(l, t)) =
                        std::mem::replace(action, Action::End)
                    {
                        // (Its trace stays.)
                        let freed =
                            SampleSummary::many_bytes(&l, &t).saturating_sub(t.heap_bytes());
                        self.stage.bytes = self.stage.bytes.saturating_sub(freed);
                        *action = Action::NarrowedLater(g, t);
                    }
                }
                Some(Staged::Layouts(self.stage.actions.len()))
            }
        };
        // The bounds of the places count the groups made and the single records kept.
        let len = |l: usize| isize::try_from(l).unwrap_or(isize::MAX);
        let (groups, single) = match (&prepared, one_len) {
            (Prepared::First, _) => (1, len(record.len())),
            (Prepared::Narrowed(..), Some(one)) => (0, -len(one)),
            _ => (0, 0),
        };
        match group {
            Group::Combo(c) => {
                if groups != 0 {
                    self.stage_new_words(&c);
                }
                let s = &mut self.stage.new_combos;
                if s.0 != c.key {
                    *s = (c.key, 0, 0);
                }
                s.1 = s.1.saturating_add(groups);
                s.2 = s.2.saturating_add(single);
            }
            Group::Place(k, _) => {
                if let Some((n, bytes)) = self.stage.new_alone.get_mut(k) {
                    *n = n.saturating_add(groups);
                    *bytes = bytes.saturating_add(single);
                }
            }
            Group::Id(_) => {}
        }
        if let Some(next) = next {
            self.stage.groups.insert(group, next);
        }
        self.stage.actions.push(Action::Add(group, prepared));
        Ok(())
    }

    /// Notes the words of a new group `c`, for the bounds of the places
    /// ([`place_change`](Self::place_change)).
    fn stage_new_words(&mut self, c: &Combo) {
        let b = self.before.as_deref();
        for (k, new) in self.stage.new_words.iter_mut().enumerate() {
            let seen = b.and_then(|b| b.sample_places.get(k)).map(|p| &p.words);
            let w = c.word(k);
            if c.keyed_by(k) && !seen.is_some_and(|s| s.contains(&w)) {
                new.insert(w);
            }
        }
    }

    /// Takes `record` (written at `first`, admitted by [`admit`](Self::admit) for `why`)
    /// for the check its description will make, once its call is written.
    pub(crate) fn commit(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        why: Deferral,
        first: FirstRecord,
        derive: bool,
    ) {
        let endian = model.endian();
        match why {
            Deferral::NamedIds => self.wait_for_named(model, record, first),
            Deferral::Compressed => {
                Counted::add(&mut self.compressed, first);
                Counted::add(&mut self.compressed_written, first);
            }
            Deferral::CompressedWritten => Counted::add(&mut self.compressed_written, first),
            Deferral::Format {
                config,
                raw_start,
                raw_end,
            } => {
                self.wait_for_named(model, record, first);
                let raw = record.get(raw_start..raw_end).unwrap_or_default();
                match self.formats.get_mut(&config) {
                    Some(f) => {
                        f.records = f.records.saturating_add(1);
                        if let Some(r) = f.raw.as_mut() {
                            r.add(raw);
                        }
                    }
                    None => {
                        let raw = Some(RawFacts::of(raw));
                        self.formats.insert(
                            config,
                            FormatPending {
                                first,
                                records: 1,
                                raw,
                            },
                        );
                    }
                }
            }
            Deferral::Owner if is_sample(record, endian) => {
                self.commit_sample(model, record, first, derive);
            }
            Deferral::Owner if model.descs().is_empty() => {
                let b = self.before.get_or_insert_with(Box::default);
                b.side_band
                    .get_or_insert_with(|| RecordSummary::new(first))
                    .add_side_band(record, endian, derive, first);
                for (place, &back) in b.trailer_places.iter_mut().zip(&TRAILER_PLACES) {
                    if place.given_up {
                        continue;
                    }
                    let key = record
                        .len()
                        .checked_sub(back)
                        .and_then(|at| endian.u64_at(record, at));
                    if !place.groups.contains_key(&key) && place.groups.len() >= MAX_PENDING_IDS {
                        place.give_up();
                        continue;
                    }
                    place
                        .groups
                        .entry(key)
                        .or_insert_with(|| RecordSummary::new(first))
                        .add_side_band(record, endian, derive, first);
                }
            }
            Deferral::Owner => {
                let Some(id) = key_after_first(model, record) else {
                    return;
                };
                self.by_id
                    .entry(id)
                    .or_insert_with(|| RecordSummary::new(first))
                    .add_side_band(record, endian, derive, first);
            }
        }
    }

    /// [`commit`](Self::commit) of a SAMPLE: what [`admit`](Self::admit) prepared.
    fn commit_sample(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        first: FirstRecord,
        derive: bool,
    ) {
        let endian = model.endian();
        while let Some(action) = self.stage.actions.get_mut(self.stage.next) {
            self.stage.next = self.stage.next.saturating_add(1);
            let action = std::mem::replace(action, Action::End);
            let (group, prepared) = match action {
                Action::End => break,
                Action::GiveUp(k) | Action::GroupAlone(k) => {
                    let alone = matches!(action, Action::GroupAlone(_));
                    if let Some(b) = self.before.as_mut() {
                        if let Some(p) = b.sample_places.get_mut(k) {
                            let was_key = !p.given_up && p.alone.is_none();
                            let freed = p.alone.as_ref().map_or(0, Place::heap_bytes);
                            self.bytes = self.bytes.saturating_sub(freed);
                            *p = SamplePlace {
                                alone: alone.then(Place::default),
                                given_up: !alone,
                                ..SamplePlace::default()
                            };
                            // The key places change: their groups start anew.
                            if was_key {
                                b.key_groups = 0;
                                b.single_bytes = 0;
                            }
                        }
                    }
                    continue;
                }
                Action::Add(group, prepared) => (group, prepared),
                Action::NarrowedLater(group, trace) => {
                    let last = match self.stage.groups.get(&group) {
                        Some(Staged::Layouts(a)) => self.stage.actions.get(*a),
                        _ => None,
                    };
                    let prepared = match last {
                        Some(Action::Add(_, Prepared::Narrowed(l, _))) => {
                            Prepared::Narrowed(l.clone(), trace)
                        }
                        // Never: the group's last narrowing is committed after this one.
                        _ => Prepared::Fits,
                    };
                    (group, prepared)
                }
            };
            let (summary, single) = match group {
                Group::Id(id) => (
                    self.by_id
                        .entry(id)
                        .or_insert_with(|| RecordSummary::new(first)),
                    None,
                ),
                Group::Combo(c) => {
                    let b = self.before.get_or_insert_with(Box::default);
                    Counted::add(&mut b.samples, first);
                    // A first SAMPLE makes a new group.
                    if matches!(prepared, Prepared::First) {
                        b.key_groups = b.key_groups.saturating_add(1);
                        for (k, p) in b.sample_places.iter_mut().enumerate() {
                            if c.keyed_by(k) {
                                p.words.insert(c.word(k));
                            }
                        }
                    }
                    let s = b
                        .combos
                        .entry(c)
                        .or_insert_with(|| RecordSummary::new(first));
                    (s, Some(&mut b.single_bytes))
                }
                Group::Place(k, key) => {
                    let b = self.before.get_or_insert_with(Box::default);
                    let Some(place) = b.sample_places.get_mut(k).and_then(|p| p.alone.as_mut())
                    else {
                        continue;
                    };
                    let s = place
                        .groups
                        .entry(key)
                        .or_insert_with(|| RecordSummary::new(first));
                    (s, Some(&mut place.single_bytes))
                }
            };
            let single_before = one_len(summary);
            // A record like one before it adds nothing that takes room (about).
            let counted = !matches!(prepared, Prepared::Same(_) | Prepared::Fits);
            let before = if counted { summary.heap_bytes() } else { 0 };
            summary.add_sample(record, endian, prepared, derive);
            if counted {
                self.bytes = self
                    .bytes
                    .saturating_sub(before)
                    .saturating_add(summary.heap_bytes());
            }
            if let Some(single) = single {
                *single = single
                    .saturating_sub(single_before)
                    .saturating_add(one_len(summary));
            }
        }
    }

    /// Checks a description about to be added against the records waiting for it: what
    /// adding it resolves, or how it contradicts them (with the records it names).
    /// Context switches it leaves of a kind in `refused_switches` (of an AUXTRACE_INFO
    /// written) contradict it.
    pub(crate) fn check_description(
        &self,
        model: &TraceModel,
        new: &NewDesc<'_>,
        refused_switches: Kinds,
    ) -> Result<Resolution, crate::WriterError> {
        let endian = model.endian();
        let mut res = Resolution::default();
        let mut owned: Vec<(Option<u64>, &RecordSummary)> = Vec::new();
        if model.descs().is_empty() {
            if let Some(b) = &self.before {
                res.before = Some(attribute(b, new, &mut owned)?);
            }
        } else {
            for id in new.ids {
                if let Some(s) = self.by_id.get(id) {
                    owned.push((Some(*id), s));
                    res.ids.push(*id);
                }
                for s in self.earlier.get(id).into_iter().flatten() {
                    owned.push((Some(*id), s));
                }
            }
        }
        // The earliest records first: an error names them.
        owned.sort_by_key(|(_, s)| s.first.pos);
        let switch_cpu_at = new_sched_switch_cpu_at(new);
        for (i, (id, summary)) in owned.iter().enumerate() {
            let mut ids = IdsCheck::of(new.ids);
            if let Err(problem) =
                summary.check(new.layout, new.rule, endian, &mut res.stats, &mut ids)
            {
                // The error names every group of the id that contradicts it.
                let rest = owned.iter().skip(i + 1).filter(|(other, _)| other == id);
                let also = rest.filter(|(_, s)| {
                    let mut stats = EventStats::default();
                    let mut ids = IdsCheck::of(new.ids);
                    s.check(new.layout, new.rule, endian, &mut stats, &mut ids)
                        .is_err()
                });
                let records = also.fold(summary.records, |n, (_, s)| n.saturating_add(s.records));
                return Err(contradiction(summary.first, records, *id, problem));
            }
            // READ group members no description has: they wait for one, as ids perf's own
            // records name do.
            ids.members.sort_unstable();
            ids.members.dedup();
            for member in ids.members {
                if model.desc_of_id(member).is_none() && !new.ids.contains(&member) {
                    res.read_members
                        .push((member, summary.first, summary.records));
                }
            }
            if let Some(s) = summary.switches_under(new.layout) {
                if s.kinds & refused_switches != 0 {
                    let problem = Contradiction::AuxtraceSwitchCpu;
                    return Err(contradiction(s.first, s.records, *id, problem));
                }
                res.switches |= s.kinds;
            }
            if let Some(at) = switch_cpu_at {
                let refused =
                    |s: &RecordSummary| s.sched_switch_kinds(at, endian) & refused_switches != 0;
                if refused(summary) {
                    // The error names every group of the id with such SAMPLEs.
                    let rest = owned
                        .iter()
                        .skip(i + 1)
                        .filter(|(other, s)| other == id && refused(s));
                    let records =
                        rest.fold(summary.records, |n, (_, s)| n.saturating_add(s.records));
                    let problem = Contradiction::AuxtraceSwitchCpu;
                    return Err(contradiction(summary.first, records, *id, problem));
                }
                res.switches |= summary.sched_switch_kinds(at, endian);
            }
            if let Some(config) = new.format_pending {
                let pending = FormatPending {
                    first: summary.first,
                    records: summary.records,
                    raw: summary.raw_under(new.layout, endian),
                };
                res.to_format = Some(match res.to_format.take() {
                    Some((_, f)) => (config, f.merge(pending)),
                    None => (config, pending),
                });
            }
        }
        res.named = new
            .ids
            .iter()
            .copied()
            .filter(|id| self.named.contains_key(id))
            .collect();
        if let Some(rule) = new.rule {
            let config = u32::from(rule.rule.common_type);
            if let Some(f) = self.formats.get(&config) {
                if let Some(Err(problem)) = f.raw.as_ref().map(|r| r.check_rule(rule)) {
                    return Err(contradiction(f.first, f.records, None, problem));
                }
                res.format = Some(config);
            }
        }
        Ok(res)
    }

    /// Applies what [`check_description`](Self::check_description) found, once the
    /// description is added.
    pub(crate) fn apply(&mut self, res: Resolution) {
        if let Some(Attributed {
            sample_place,
            trailer_place,
            ids,
        }) = res.before
        {
            if let Some(mut b) = self.before.take() {
                let owns = |key: Option<u64>| match key {
                    None | Some(0) => true,
                    Some(id) => ids.contains(&id),
                };
                if let Some(k) = sample_place {
                    let combos = std::mem::take(&mut b.combos)
                        .into_iter()
                        .filter(|(c, _)| c.keyed_by(k))
                        .map(|(c, s)| (c.word(k), s));
                    let alone = b
                        .sample_places
                        .get_mut(k)
                        .and_then(|p| p.alone.take())
                        .map(|p| p.groups)
                        .unwrap_or_default();
                    for (word, s) in combos.chain(alone) {
                        let Some(id) = word.filter(|&id| !owns(Some(id))) else {
                            continue;
                        };
                        let waits = self
                            .by_id
                            .entry(id)
                            .or_insert_with(|| RecordSummary::new(s.first));
                        if s.first.pos < waits.first.pos {
                            waits.first = s.first;
                        }
                        self.earlier.entry(id).or_default().push(s);
                    }
                }
                let trailers = trailer_place.and_then(|k| b.trailer_places.get_mut(k));
                let side_band = trailers
                    .map_or_else(Default::default, |place| std::mem::take(&mut place.groups));
                for (key, s) in side_band {
                    let Some(id) = key.filter(|_| !owns(key)) else {
                        continue;
                    };
                    let joined = RecordSummary::joined(self.by_id.remove(&id), Some(s));
                    if let Some(j) = joined {
                        self.by_id.insert(id, j);
                    }
                }
            }
        }
        for id in &res.ids {
            self.by_id.remove(id);
            self.earlier.remove(id);
        }
        for id in &res.named {
            self.named.remove(id);
        }
        for (id, first, records) in res.read_members {
            NamedWait::note(&mut self.named, id, first, records, true);
        }
        if let Some(config) = res.format {
            self.formats.remove(&config);
        }
        if let Some((config, f)) = res.to_format {
            let merged = match self.formats.remove(&config) {
                Some(old) => old.merge(f),
                None => f,
            };
            self.formats.insert(config, merged);
        }
        self.bytes = self
            .by_id
            .values()
            .chain(self.earlier.values().flatten())
            .map(RecordSummary::heap_bytes)
            .sum::<usize>()
            + self.before.as_ref().map_or(0, |b| b.heap_bytes());
    }

    /// The caller's TRACING_DATA is about to be set with formats of `rules` (by id): the
    /// RAW payloads of SAMPLEs that waited for their format agree with them, or how they
    /// contradict one (naming them).
    pub(crate) fn check_given_formats(
        &self,
        rules: &BTreeMap<u32, RawRule>,
    ) -> Result<(), crate::WriterError> {
        for (config, f) in &self.formats {
            let (Some(rule), Some(raw)) = (rules.get(config), f.raw.as_ref()) else {
                continue;
            };
            if let Err(problem) = raw.check_rule(rule) {
                return Err(contradiction(f.first, f.records, None, problem));
            }
        }
        Ok(())
    }

    /// The caller set TRACING_DATA: its formats are perf's, and nothing waits for one.
    pub(crate) fn formats_given(&mut self) {
        self.formats.clear();
    }

    /// HEADER_COMPRESSED is about to be set to a payload perf can decompress with
    /// (`readable`) or not: refused, naming them, when COMPRESSED records were written (they
    /// were taken for a readable one).
    pub(crate) fn check_compression_header(
        &self,
        readable: bool,
    ) -> Result<(), crate::WriterError> {
        match (self.compressed_written, readable) {
            (Some(c), false) => Err(contradiction(
                c.first,
                c.records,
                None,
                Contradiction::Compression,
            )),
            _ => Ok(()),
        }
    }

    /// A readable HEADER_COMPRESSED was set: nothing waits for one.
    pub(crate) fn compression_header_set(&mut self) {
        self.compressed = None;
    }

    /// What waits for a description or a header, if anything, were the file read with the
    /// descriptions of `model`.
    pub(crate) fn summary(&self, model: &TraceModel) -> Option<PendingSummary> {
        let mut records = 0u64;
        let mut first: Option<FirstRecord> = None;
        let mut see = |f: FirstRecord, n: u64| {
            records = records.saturating_add(n);
            if first.is_none_or(|g| f.pos < g.pos) {
                first = Some(f);
            }
        };
        if let Some(b) = &self.before {
            if let Some(s) = b.samples {
                see(s.first, s.records);
            }
            if let Some(s) = &b.side_band {
                see(s.first, s.records);
            }
        }
        for s in self.by_id.values().chain(self.earlier.values().flatten()) {
            // An id whose records all came before the first description has an empty one.
            if s.records != 0 {
                see(s.first, s.records);
            }
        }
        if let Some(c) = self.compressed {
            see(c.first, c.records);
        }
        let mut named_ids = 0u64;
        let mut lowest = self.by_id.keys().min().copied();
        for (&id, w) in self.named.iter().filter(|(&id, w)| w.waits(model, id)) {
            see(w.first, w.records);
            if !self.by_id.contains_key(&id) {
                named_ids = named_ids.saturating_add(1);
            }
            lowest = Some(lowest.map_or(id, |l| l.min(id)));
        }
        let first = first?;
        Some(PendingSummary {
            records,
            ids: (self.by_id.len() as u64).saturating_add(named_ids),
            id: lowest,
            offset: first.pos,
            type_: first.type_,
        })
    }

    /// The first record that waits for a description or HEADER_COMPRESSED (not for a
    /// format: a tracepoint without one is refused by finalize for itself).
    pub(crate) fn first(&self, model: &TraceModel) -> Option<FirstRecord> {
        let before = self.before.iter().flat_map(|b| {
            let samples = b.samples.map(|c| c.first);
            samples
                .into_iter()
                .chain(b.side_band.as_ref().map(|s| s.first))
        });
        before
            .chain(self.by_id.values().map(|s| s.first))
            .chain(self.compressed.map(|c| c.first))
            .chain(
                self.named
                    .iter()
                    .filter(|(&id, w)| w.waits(model, id))
                    .map(|(_, w)| w.first),
            )
            .min_by_key(|f| f.pos)
    }
}

/// The records written before any description that the first description `new` owns
/// (pushed to `owned`, by id when grouped by one), and the places its layout reads ids at
/// (their other groups wait for their own descriptions), or why they cannot be told apart.
fn attribute<'b>(
    b: &'b BeforeAny,
    new: &NewDesc<'_>,
    owned: &mut Vec<(Option<u64>, &'b RecordSummary)>,
) -> Result<Attributed, crate::WriterError> {
    let with_ids = !new.ids.is_empty();
    let sample_at = new.layout.sample_id_offset().filter(|_| with_ids);
    let trailer_at = new.layout.trailer_id_offset_from_end().filter(|_| with_ids);
    let given_up = |first: FirstRecord, records: u64| {
        contradiction(
            first,
            records,
            None,
            Contradiction::Unattributable(GIVEN_UP),
        )
    };
    let owner = |key: Option<u64>| match key {
        None | Some(0) => Some(None),
        Some(id) => new.ids.contains(&id).then_some(Some(id)),
    };
    let mut sample_place = None;
    if let Some(all) = b.samples {
        match sample_at {
            // No id in these records: the first description owns them all.
            None => owned.extend(b.combos.values().map(|s| (None, s))),
            Some(at) => {
                let k = SAMPLE_PLACES.iter().position(|&p| p == at);
                let place = k.and_then(|k| Some((k, b.sample_places.get(k)?)));
                let (k, place) = place
                    .filter(|(_, p)| !p.given_up)
                    .ok_or_else(|| given_up(all.first, all.records))?;
                sample_place = Some(k);
                // Each SAMPLE is in a group of the key places with `k` among them, or in
                // `k`'s group once it was grouped alone.
                for (c, s) in &b.combos {
                    if let Some(id) = owner(c.word(k)).filter(|_| c.keyed_by(k)) {
                        owned.push((id, s));
                    }
                }
                for (key, s) in place.alone.iter().flat_map(|p| &p.groups) {
                    if let Some(id) = owner(*key) {
                        owned.push((id, s));
                    }
                }
            }
        }
    }
    let mut trailer_place = None;
    if let Some(all) = &b.side_band {
        match trailer_at {
            None => owned.push((None, all)),
            Some(at) => {
                let k = TRAILER_PLACES.iter().position(|&p| p == at);
                let place = k.and_then(|k| Some((k, b.trailer_places.get(k)?)));
                let (k, place) = place
                    .filter(|(_, p)| !p.given_up)
                    .ok_or_else(|| given_up(all.first, all.records))?;
                trailer_place = Some(k);
                for (key, s) in &place.groups {
                    if let Some(id) = owner(*key) {
                        owned.push((id, s));
                    }
                }
            }
        }
    }
    Ok(Attributed {
        sample_place,
        trailer_place,
        ids: new.ids.to_vec(),
    })
}

/// The summary of `group`, if it has one.
fn group_summary<'a>(
    before: &'a Option<Box<BeforeAny>>,
    by_id: &'a FxHashMap<u64, RecordSummary>,
    group: Group,
) -> Option<&'a RecordSummary> {
    match group {
        Group::Id(id) => by_id.get(&id),
        Group::Combo(c) => before.as_ref()?.combos.get(&c),
        Group::Place(k, key) => before
            .as_ref()?
            .sample_places
            .get(k)?
            .alone
            .as_ref()?
            .groups
            .get(&key),
    }
}

/// The bytes of a group's SAMPLE kept as written, if that is what it holds.
fn one_len(s: &RecordSummary) -> usize {
    match &s.samples {
        Some(SampleSummary::One(r)) => r.len(),
        _ => 0,
    }
}

/// The trace of a group of several SAMPLEs that `record` matches (see
/// [`ManySamples::trace_matching`](crate::check::record_summary::ManySamples::trace_matching)).
#[inline]
fn trace_matching(group: &RecordSummary, record: &[u8], endian: Endian) -> Option<TraceMatch> {
    match group.samples.as_ref()? {
        SampleSummary::Many(m) => m.trace_matching(record, endian),
        SampleSummary::One(_) => None,
    }
}

/// `record` is a SAMPLE (its header's type, read in `endian`).
pub(crate) fn is_sample(record: &[u8], endian: Endian) -> bool {
    record
        .first_chunk::<4>()
        .is_some_and(|t| endian.read_u32(*t) == record_type::SAMPLE)
}

/// Where the first description's layout puts a SAMPLE's event id.
fn id_place(model: &TraceModel) -> Option<usize> {
    model.descs().first()?.layout.sample_id_offset()
}

/// `f` of each id `record` names that perf looks up, with whether it must be an event's own
/// (see [`named_ids`]): perf's own records' (ID_INDEX, EVENT_UPDATE, STAT), and the members
/// of a SAMPLE's READ group (under its event's layout; perf counts each member's value
/// for the event with its id).
fn each_named_id(model: &TraceModel, record: &[u8], mut f: impl FnMut(u64, bool)) {
    let endian = model.endian();
    let type_ = record.first_chunk::<4>().map_or(0, |b| endian.read_u32(*b));
    if type_ != record_type::SAMPLE {
        named_ids(endian, type_, record).for_each(|(id, own)| f(id, own));
        return;
    }
    if let Ok(desc) = model.desc_for(key_after_first(model, record)) {
        read_group_ids(&desc.layout, endian, record, |id| f(id, true));
    }
}

/// The id of a record where the first description's layout puts it (`None` before any
/// description, or for a record that carries none).
fn key_after_first(model: &TraceModel, record: &[u8]) -> Option<u64> {
    let layout = &model.descs().first()?.layout;
    let endian = model.endian();
    let at = match is_sample(record, endian) {
        true => layout.sample_id_offset()?,
        false => record
            .len()
            .checked_sub(layout.trailer_id_offset_from_end()?)?,
    };
    endian.u64_at(record, at)
}

impl FormatPending {
    fn merge(self, other: FormatPending) -> FormatPending {
        let first = match self.first.pos <= other.first.pos {
            true => self.first,
            false => other.first,
        };
        FormatPending {
            first,
            records: self.records.saturating_add(other.records),
            raw: match (self.raw, other.raw) {
                (Some(mut a), Some(b)) => {
                    a.merge(&b);
                    Some(a)
                }
                (a, b) => a.or(b),
            },
        }
    }
}

/// The `u64` at `at` in `endian`.
/// The error of a description (or header) that `records` records from `first` on contradict.
fn contradiction(
    first: FirstRecord,
    records: u64,
    id: Option<u64>,
    problem: Contradiction,
) -> crate::WriterError {
    crate::WriterError::Event(EventError::ContradictsRecords {
        records,
        offset: first.pos,
        type_: first.type_,
        id,
        problem,
    })
}
