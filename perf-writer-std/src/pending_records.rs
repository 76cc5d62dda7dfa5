//! [`PendingRecords`]: file mode's records that strict mode took before the description
//! that checks them. `tracepoint_perf` 0.5's writer takes records, descriptions and headers
//! in any order before finalize, and a converter that reads a recording hands the records
//! first. File mode keeps that contract: such a record is written, and what strict mode
//! needs of it is kept in a [`RecordSummary`] of its event id, checked when the description
//! with that id arrives (a description that contradicts them is refused). Finalize refuses
//! while records wait for a description, which can be added and finalize made again.
//!
//! The ids: once a description exists, its layout says where every record's id is. Before
//! the first one, records are summarized as a whole, by the word where IDENTIFIER is (a
//! SAMPLE's first after the header, a `sample_id` trailer's last: the layout of every perf
//! file with several events), and, for the layouts with ID and no IDENTIFIER, the ids found
//! at each place that could hold it are kept (not their summaries: the first description
//! must then own all of them).
//!
//! Memory: at most [`MAX_PENDING_IDS`] ids wait (a record of one more is refused, naming the
//! limit), each a summary of a few hundred bytes (at most about 4 KiB); before the first
//! description, the same number of values where IDENTIFIER is (past them that place cannot
//! be the id's: it is given up, and only a first description that puts ids elsewhere, or
//! none, can own those records) and of ids at each of the six other places. Nothing grows
//! with the number of records.

use crate::record_check::EventStats;
use crate::record_summary::{Contradiction, FirstRecord, RawSummary, RecordSummary, Verdict};
use crate::session::Session;
use perf_abi::record_type;
use perf_encode::features::TracepointRawRule;
use perf_encode::records::SampleLayout;
use perf_encode::Endian;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// The most event ids whose records wait for a description at one time.
pub const MAX_PENDING_IDS: usize = 4096;

/// Where ID without IDENTIFIER can be: in a SAMPLE (offsets after IP, TID, TIME, ADDR),
/// and in a `sample_id` trailer (bytes back from the end, before STREAM_ID and CPU).
/// IDENTIFIER's places (8 and 8) are kept apart, with summaries.
const SAMPLE_ID_PLACES: [usize; 4] = [16, 24, 32, 40];
const TRAILER_ID_PLACES: [usize; 2] = [16, 24];

/// Ids found at one place, until there are too many to be ids.
#[derive(Debug, Default)]
struct IdsAt {
    ids: FxHashSet<u64>,
    given_up: bool,
}

impl IdsAt {
    fn add(&mut self, id: Option<u64>) {
        let Some(id) = id else { return };
        if !self.given_up && self.ids.insert(id) && self.ids.len() > MAX_PENDING_IDS {
            self.ids = FxHashSet::default();
            self.given_up = true;
        }
    }
}

/// Records summarized by the word where IDENTIFIER would be, until there are too many
/// values there to be ids.
#[derive(Debug, Default)]
struct ByIdentifier {
    summaries: FxHashMap<u64, RecordSummary>,
    given_up: bool,
}

impl ByIdentifier {
    fn add(
        &mut self,
        key: Option<u64>,
        record: &[u8],
        endian: Endian,
        first: FirstRecord,
        derive: bool,
    ) {
        let Some(key) = key else { return };
        if self.given_up {
            return;
        }
        let full = self.summaries.len() >= MAX_PENDING_IDS;
        match self.summaries.get_mut(&key) {
            Some(s) => s.add(record, endian, derive),
            None if full => {
                self.summaries = FxHashMap::default();
                self.given_up = true;
            }
            None => {
                self.summaries
                    .insert(key, RecordSummary::of(record, endian, first, derive));
            }
        }
    }
}

/// The records written while no description existed.
#[derive(Debug)]
struct BeforeAny {
    samples: Option<RecordSummary>,
    side_band: Option<RecordSummary>,
    samples_by_identifier: ByIdentifier,
    side_band_by_identifier: ByIdentifier,
    sample_ids: [IdsAt; SAMPLE_ID_PLACES.len()],
    trailer_ids: [IdsAt; TRAILER_ID_PLACES.len()],
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

/// SAMPLEs of a tracepoint whose format is not known yet, and what their RAW payloads say
/// (`None`: the layout puts RAW where a summary cannot follow it).
#[derive(Clone, Copy, Debug)]
struct FormatPending {
    first: FirstRecord,
    records: u64,
    raw: Option<RawSummary>,
}

/// What strict mode took before the descriptions (see the module).
#[derive(Debug, Default)]
pub(crate) struct PendingRecords {
    before: Option<BeforeAny>,
    /// After the first description: by event id, where its layout puts it.
    by_id: FxHashMap<u64, RecordSummary>,
    /// COMPRESSED records written while no HEADER_COMPRESSED was set.
    compressed: Option<Counted>,
    /// Every COMPRESSED record written (HEADER_COMPRESSED must stay readable for them).
    compressed_written: Option<Counted>,
    /// By `attr.config` (the format's id).
    formats: BTreeMap<u32, FormatPending>,
}

/// Why a record went to [`PendingRecords`] (see [`PendingRecords::add`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deferral {
    /// No description owns it yet (a SAMPLE, or a kernel record with a trailer).
    Owner,
    /// A COMPRESSED record while HEADER_COMPRESSED is not set.
    Compressed,
    /// A COMPRESSED record checked when written: kept count of, not waiting.
    CompressedWritten,
    /// A SAMPLE of a tracepoint whose format is not known: its RAW payload is at
    /// `raw_start..raw_end` of the record (its layout was checked).
    Format {
        config: u32,
        raw_start: usize,
        raw_end: usize,
    },
}

/// A description about to be added, as [`PendingRecords::check_description`] needs it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewDesc<'a> {
    pub(crate) ids: &'a [u64],
    pub(crate) layout: &'a SampleLayout,
    /// Its RAW rule, when it brings its tracepoint's format.
    pub(crate) rule: Option<&'a TracepointRawRule>,
    /// `attr.config` of a tracepoint whose format is still unknown after it.
    pub(crate) format_pending: Option<u32>,
}

/// What adding a checked description changes ([`PendingRecords::apply`]).
#[derive(Debug, Default)]
pub(crate) struct Resolution {
    /// The records written before any description are attributed.
    before: bool,
    /// Their records not owned by the new description, to wait by id.
    keep: Vec<(u64, RecordSummary)>,
    /// Ids whose records the new description owns.
    ids: Vec<u64>,
    /// The format the new description brings, whose SAMPLEs waited for it.
    format: Option<u32>,
    /// Records now owned by a tracepoint whose format is still unknown.
    to_format: Option<(u32, FormatPending)>,
    /// What the derived headers get from the records attributed.
    pub(crate) stats: EventStats,
}

/// What waits, for an error that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingSummary {
    /// Records waiting.
    pub records: u64,
    /// Event ids they name (0 before the first description).
    pub ids: u64,
    /// File offset of the first.
    pub offset: u64,
    /// Its type.
    pub type_: u32,
}

impl PendingRecords {
    /// Forgets everything (strict mode turned off, or the output closed).
    pub(crate) fn clear(&mut self) {
        *self = PendingRecords::default();
    }

    /// Refuses, before the call's records are written, a record of an event id that would
    /// be the `MAX_PENDING_IDS + 1`-th to wait (`new` holds the ids the call adds).
    pub(crate) fn has_room(&self, session: &Session, record: &[u8], new: &mut Vec<u64>) -> bool {
        let Some(id) = self.key_after_first(session, record) else {
            return true;
        };
        if self.by_id.contains_key(&id) || new.contains(&id) {
            return true;
        }
        new.push(id);
        self.by_id.len().saturating_add(new.len()) <= MAX_PENDING_IDS
    }

    /// The id of a record where the first description's layout puts it (`None` before any
    /// description, or for a record that carries none).
    fn key_after_first(&self, session: &Session, record: &[u8]) -> Option<u64> {
        let layout = &session.descs().first()?.layout;
        let endian = session.endian();
        let type_ = endian.read_u32(*record.first_chunk::<4>()?);
        let at = match type_ {
            record_type::SAMPLE => layout.sample_id_offset()?,
            _ => record
                .len()
                .checked_sub(layout.trailer_id_offset_from_end()?)?,
        };
        word(record, at, endian)
    }

    /// Takes `record` (written at `first`) for the check its description will make.
    pub(crate) fn add(
        &mut self,
        session: &Session,
        record: &[u8],
        why: Deferral,
        first: FirstRecord,
        derive: bool,
    ) {
        let endian = session.endian();
        match why {
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
                let raw = record.get(raw_start..raw_end).unwrap_or_default();
                match self.formats.get_mut(&config) {
                    Some(f) => {
                        f.records = f.records.saturating_add(1);
                        if let Some(r) = f.raw.as_mut() {
                            r.add(raw, endian);
                        }
                    }
                    None => {
                        let raw = Some(RawSummary::of(raw, endian));
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
            Deferral::Owner if session.descs().is_empty() => {
                let b = self.before.get_or_insert_with(|| BeforeAny {
                    samples: None,
                    side_band: None,
                    samples_by_identifier: ByIdentifier::default(),
                    side_band_by_identifier: ByIdentifier::default(),
                    sample_ids: Default::default(),
                    trailer_ids: Default::default(),
                });
                b.add(record, endian, first, derive);
            }
            Deferral::Owner => {
                let Some(id) = self.key_after_first(session, record) else {
                    return;
                };
                match self.by_id.get_mut(&id) {
                    Some(s) => s.add(record, endian, derive),
                    None => {
                        self.by_id
                            .insert(id, RecordSummary::of(record, endian, first, derive));
                    }
                }
            }
        }
    }

    /// Checks a description about to be added against the records waiting for it: what
    /// adding it resolves, or how it contradicts them (with the records it names).
    pub(crate) fn check_description(
        &self,
        session: &Session,
        new: &NewDesc<'_>,
    ) -> Result<Resolution, crate::WriterError> {
        let endian = session.endian();
        let mut res = Resolution::default();
        let mut owned: Vec<(Option<u64>, &RecordSummary)> = Vec::new();
        if session.descs().is_empty() {
            if let Some(b) = &self.before {
                res.before = true;
                b.attribute(new, &mut owned, &mut res.keep)?;
            }
        } else {
            for id in new.ids {
                if let Some(s) = self.by_id.get(id) {
                    owned.push((Some(*id), s));
                    res.ids.push(*id);
                }
            }
        }
        for (id, summary) in &owned {
            let verdict = summary.check(new.layout, new.rule, endian, &mut res.stats);
            if let Verdict::Wrong(problem) = verdict {
                return Err(contradiction(summary.first, summary.records, *id, problem));
            }
            if let Some(config) = new.format_pending {
                let pending = FormatPending {
                    first: summary.first,
                    records: summary.records,
                    raw: summary.raw_under(new.layout),
                };
                res.to_format = Some(match res.to_format {
                    Some((_, f)) => (config, f.merge(pending)),
                    None => (config, pending),
                });
            }
        }
        if let Some(rule) = new.rule {
            let config = u32::from(rule.common_type);
            if let Some(f) = self.formats.get(&config) {
                if let Some(Verdict::Wrong(problem)) = f.raw.map(|r| r.check_rule(rule, endian)) {
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
        if res.before {
            self.before = None;
        }
        for (id, summary) in res.keep {
            match self.by_id.get_mut(&id) {
                Some(s) => s.absorb(summary),
                None => {
                    self.by_id.insert(id, summary);
                }
            }
        }
        for id in &res.ids {
            self.by_id.remove(id);
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
    }

    /// The caller set TRACING_DATA: its formats are trusted, and nothing waits for one.
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

    /// What waits for a description or a header, if anything.
    pub(crate) fn summary(&self) -> Option<PendingSummary> {
        let mut records = 0u64;
        let mut first: Option<FirstRecord> = None;
        let mut see = |f: FirstRecord, n: u64| {
            records = records.saturating_add(n);
            if first.is_none_or(|g| f.pos < g.pos) {
                first = Some(f);
            }
        };
        if let Some(b) = &self.before {
            for s in [&b.samples, &b.side_band].into_iter().flatten() {
                see(s.first, s.records);
            }
        }
        for s in self.by_id.values() {
            see(s.first, s.records);
        }
        if let Some(c) = self.compressed {
            see(c.first, c.records);
        }
        let first = first?;
        Some(PendingSummary {
            records,
            ids: self.by_id.len() as u64,
            offset: first.pos,
            type_: first.type_,
        })
    }

    /// The first record that waits for a description or HEADER_COMPRESSED (not for a
    /// format: a tracepoint without one is refused by finalize for itself).
    pub(crate) fn first(&self) -> Option<FirstRecord> {
        let before = self.before.iter().flat_map(|b| [&b.samples, &b.side_band]);
        before
            .flatten()
            .map(|s| s.first)
            .chain(self.by_id.values().map(|s| s.first))
            .chain(self.compressed.map(|c| c.first))
            .min_by_key(|f| f.pos)
    }
}

impl BeforeAny {
    fn add(&mut self, record: &[u8], endian: Endian, first: FirstRecord, derive: bool) {
        let sample = record
            .first_chunk::<4>()
            .is_some_and(|t| endian.read_u32(*t) == record_type::SAMPLE);
        let (all, by_identifier) = match sample {
            true => (&mut self.samples, &mut self.samples_by_identifier),
            false => (&mut self.side_band, &mut self.side_band_by_identifier),
        };
        match all {
            Some(s) => s.add(record, endian, derive),
            None => *all = Some(RecordSummary::of(record, endian, first, derive)),
        }
        let at_place = |place: usize| match sample {
            true => word(record, place, endian),
            false => word(record, record.len().checked_sub(place)?, endian),
        };
        by_identifier.add(at_place(8), record, endian, first, derive);
        if sample {
            for (ids, place) in self.sample_ids.iter_mut().zip(SAMPLE_ID_PLACES) {
                ids.add(at_place(place));
            }
        } else {
            for (ids, place) in self.trailer_ids.iter_mut().zip(TRAILER_ID_PLACES) {
                ids.add(at_place(place));
            }
        }
    }

    /// The records the first description `new` owns (pushed to `owned`, by id when the
    /// layout attributes them by IDENTIFIER) and those it does not (`keep`, by id), or why
    /// they cannot be told apart.
    fn attribute<'s>(
        &'s self,
        new: &NewDesc<'_>,
        owned: &mut Vec<(Option<u64>, &'s RecordSummary)>,
        keep: &mut Vec<(u64, RecordSummary)>,
    ) -> Result<(), crate::WriterError> {
        let ids = (!new.ids.is_empty()).then_some(new.ids);
        let parts = [
            (
                &self.samples,
                &self.samples_by_identifier,
                ids.and(new.layout.sample_id_offset()),
                &SAMPLE_ID_PLACES[..],
                &self.sample_ids[..],
            ),
            (
                &self.side_band,
                &self.side_band_by_identifier,
                ids.and(new.layout.trailer_id_offset_from_end()),
                &TRAILER_ID_PLACES[..],
                &self.trailer_ids[..],
            ),
        ];
        for (all, by_identifier, place, places, found) in parts {
            let Some(all) = all else { continue };
            match place {
                // No id in these records: the first description owns them all.
                None => owned.push((None, all)),
                Some(8) => {
                    if by_identifier.given_up {
                        return Err(contradiction(all.first, all.records, None, Contradiction::Unattributable(
                            "more distinct values than ids can be were written where IDENTIFIER is, before any description: describe the events before their records",
                        )));
                    }
                    for (id, s) in &by_identifier.summaries {
                        if *id == 0 || new.ids.contains(id) {
                            owned.push((Some(*id), s));
                        } else {
                            keep.push((*id, s.clone()));
                        }
                    }
                }
                Some(place) => {
                    let found = places
                        .iter()
                        .position(|p| *p == place)
                        .and_then(|i| found.get(i));
                    let all_owned = found.is_some_and(|f| {
                        !f.given_up && f.ids.iter().all(|id| *id == 0 || new.ids.contains(id))
                    });
                    if !all_owned {
                        return Err(contradiction(all.first, all.records, None, Contradiction::Unattributable(
                            "records written before any description name events this one does not own, by ID without IDENTIFIER: strict mode keeps such records apart only by IDENTIFIER; describe the events before their records, or add IDENTIFIER",
                        )));
                    }
                    owned.push((None, all));
                }
            }
        }
        Ok(())
    }
}

impl FormatPending {
    fn merge(self, other: FormatPending) -> FormatPending {
        let (first, _) = match self.first.pos <= other.first.pos {
            true => (self.first, other.first),
            false => (other.first, self.first),
        };
        FormatPending {
            first,
            records: self.records.saturating_add(other.records),
            raw: match (self.raw, other.raw) {
                (Some(mut a), Some(b)) => {
                    a.merge(&b);
                    Some(a)
                }
                _ => None,
            },
        }
    }
}

/// The `u64` at `at` in `endian`.
fn word(record: &[u8], at: usize, endian: Endian) -> Option<u64> {
    Some(endian.read_u64(*record.get(at..)?.first_chunk::<8>()?))
}

/// The error of a description (or header) that `records` records from `first` on contradict.
fn contradiction(
    first: FirstRecord,
    records: u64,
    id: Option<u64>,
    problem: Contradiction,
) -> crate::WriterError {
    crate::WriterError::ContradictsRecords {
        records,
        offset: first.pos,
        type_: first.type_,
        id,
        problem,
    }
}
