//! [`RecordSummary`]: what a group of records written before their event description says
//! about the layout they need, in a few hundred bytes however many records there are, so
//! that strict mode can check them when the description arrives (the records themselves are
//! in the output by then).
//!
//! A SAMPLE's length follows from its layout and from count words inside it (CALLCHAIN's
//! `nr`, RAW's `size`, …), whose place the layout gives. Before the layout is known, the
//! summary keeps, for every place such a word can have, what the records say under that
//! guess: the fields before the first field of varying length are 8 bytes each, so the
//! guesses are few ([`PREFIX_WORDS`]). A guess that some record cannot satisfy under any
//! layout is dropped; the layout that arrives picks one, and the records are right for it
//! exactly when that guess is still there and its numbers fit the layout.
//!
//! The layouts checked this way are every layout whose fields of varying length are none,
//! RAW alone, CALLCHAIN alone, or CALLCHAIN then RAW: `perf record` without `-b`,
//! `--call-graph dwarf`, `--user-regs`/`--intr-regs`, read groups or AUX samples. For a RAW
//! payload the summary keeps its least length, its first [`HEAD`] bytes where every payload
//! has them equal (`common_type`), and which of its first [`LOC_WORDS`] 4-byte words every
//! payload has as a dynamic field's `u32` within the payload. What a summary cannot hold
//! (another layout; a format's `common_type` or dynamic field past those bytes) is not
//! checked ([`Verdict::Unchecked`]).

use crate::record_check::EventStats;
use perf_abi::record_type::{self, BodyLen};
use perf_abi::sample_type;
use perf_encode::features::{TracepointRawProblem, TracepointRawRule};
use perf_encode::records::SampleLayout;
use perf_encode::Endian;
use std::fmt;

/// Words (8 bytes each: IDENTIFIER to PERIOD) a SAMPLE can have before its first field of
/// varying length.
const PREFIX_WORDS: usize = 10;

/// Bytes at the start of a RAW payload whose equality across the payloads is kept.
const HEAD: usize = 16;

/// 4-byte words at the start of a RAW payload whose reading as a dynamic field is kept.
const LOC_WORDS: usize = 128;

/// Where the first record of a group is: to name it, and to end the data before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FirstRecord {
    /// Its stream position (file offset).
    pub(crate) pos: u64,
    /// Whole records before it in the data.
    pub(crate) records: u64,
    /// Its type.
    pub(crate) type_: u32,
}

/// What the RAW payloads of a group say (see the module).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawSummary {
    min_len: usize,
    /// The first payload's first bytes (zero past its end).
    head: [u8; HEAD],
    /// Bit `i`: byte `i` is in every payload and the same in all.
    same: u16,
    /// Bit `i`: in every payload, the `u32` at `4 * i` read as a `__data_loc` puts its data
    /// within the payload.
    data_loc: u128,
    /// The same read as a `__rel_loc` (counted from the end of the field).
    rel_loc: u128,
}

impl RawSummary {
    pub(crate) fn of(raw: &[u8], endian: Endian) -> Self {
        let mut head = [0u8; HEAD];
        let n = raw.len().min(HEAD);
        if let (Some(dst), Some(src)) = (head.get_mut(..n), raw.get(..n)) {
            dst.copy_from_slice(src);
        }
        let (data_loc, rel_loc) = loc_bits(raw, endian);
        RawSummary {
            min_len: raw.len(),
            head,
            same: (1u32 << n).wrapping_sub(1) as u16,
            data_loc,
            rel_loc,
        }
    }

    pub(crate) fn add(&mut self, raw: &[u8], endian: Endian) {
        self.min_len = self.min_len.min(raw.len());
        for (i, b) in self.head.iter().enumerate() {
            if raw.get(i) != Some(b) {
                self.same &= !(1u16 << i);
            }
        }
        let (data_loc, rel_loc) = loc_bits(raw, endian);
        self.data_loc &= data_loc;
        self.rel_loc &= rel_loc;
    }

    /// Adds what another group's payloads say.
    pub(crate) fn merge(&mut self, other: &RawSummary) {
        self.min_len = self.min_len.min(other.min_len);
        for (i, (a, b)) in self.head.iter().zip(&other.head).enumerate() {
            if a != b {
                self.same &= !(1u16 << i);
            }
        }
        self.same &= other.same;
        self.data_loc &= other.data_loc;
        self.rel_loc &= other.rel_loc;
    }

    /// The payloads follow `rule`, as far as the summary tells (see the module).
    pub(crate) fn check_rule(&self, rule: &TracepointRawRule, endian: Endian) -> Verdict {
        if self.min_len < rule.min_len as usize {
            return Verdict::Wrong(Contradiction::Raw(TracepointRawProblem::TooShort {
                len: self.min_len,
                min: rule.min_len,
            }));
        }
        let mut verdict = Verdict::Right;
        let at = rule.common_type_offset as usize;
        match self.head.get(at..).and_then(|h| h.first_chunk::<2>()) {
            Some(bytes) if self.same >> at & 3 == 3 => {
                let found = endian.read_u16(*bytes);
                if found != rule.common_type {
                    return Verdict::Wrong(Contradiction::Raw(TracepointRawProblem::CommonType {
                        found,
                        expected: rule.common_type,
                    }));
                }
            }
            // Not the same in every payload: not the format's id in all of them.
            Some(_) => return Verdict::Wrong(Contradiction::CommonTypes),
            None => verdict = Verdict::Unchecked,
        }
        for (field, relative) in rule.dynamic.iter() {
            let word = field as usize / 4;
            if field % 4 != 0 || word >= LOC_WORDS {
                verdict = Verdict::Unchecked;
                continue;
            }
            let bits = if relative {
                self.rel_loc
            } else {
                self.data_loc
            };
            if bits >> word & 1 == 0 {
                return Verdict::Wrong(Contradiction::DynamicData { field });
            }
        }
        verdict
    }
}

/// For each 4-byte word at the start of `raw`: whether, read as a `__data_loc` (and as a
/// `__rel_loc`), it puts its data within `raw` (the rule of
/// [`TracepointRawRule::check`]).
fn loc_bits(raw: &[u8], endian: Endian) -> (u128, u128) {
    let (mut data, mut rel) = (0u128, 0u128);
    for (i, w) in raw.chunks_exact(4).take(LOC_WORDS).enumerate() {
        let Some(w) = w.first_chunk::<4>() else { break };
        let loc = endian.read_u32(*w) as usize;
        let end = (loc & 0xffff).saturating_add(loc >> 16);
        let field_end = i.saturating_mul(4).saturating_add(4);
        data |= u128::from(end <= raw.len()) << i;
        rel |= u128::from(field_end.saturating_add(end) <= raw.len()) << i;
    }
    (data, rel)
}

/// Which word a guess reads, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guess {
    /// RAW's `u32 size` at `8 + 8 * k`.
    Raw,
    /// CALLCHAIN's `u64 nr` at `8 + 8 * k`.
    Chain,
    /// CALLCHAIN's `nr` at `8 + 8 * k`, RAW's `size` right after the callchain.
    ChainRaw,
}

/// What the SAMPLEs of a group say under one guess: the bytes after the fields the guess
/// accounts for ("tail": the fields of fixed length after them, plus padding).
#[derive(Clone, Copy, Debug)]
struct GuessSummary {
    guess: Guess,
    k: u8,
    tail_min: usize,
    tail_max: usize,
    raw: Option<RawSummary>,
}

impl GuessSummary {
    /// The tail of `record` under the guess, and its RAW payload if it has one; `None`
    /// when the record cannot be read so.
    fn read<'r>(
        guess: Guess,
        k: usize,
        record: &'r [u8],
        endian: Endian,
    ) -> Option<(usize, Option<&'r [u8]>)> {
        let at = k.checked_mul(8)?.checked_add(8)?;
        let u32_at = |at: usize| -> Option<usize> {
            let b = record.get(at..)?.first_chunk::<4>()?;
            Some(endian.read_u32(*b) as usize)
        };
        let raw_at = |size_at: usize| -> Option<(usize, Option<&'r [u8]>)> {
            let size = u32_at(size_at)?;
            let start = size_at.checked_add(4)?;
            let end = start.checked_add(size)?;
            let raw = record.get(start..end)?;
            Some((record.len().checked_sub(end)?, Some(raw)))
        };
        match guess {
            Guess::Raw => raw_at(at),
            Guess::Chain | Guess::ChainRaw => {
                let nr = record.get(at..)?.first_chunk::<8>()?;
                let nr = usize::try_from(endian.read_u64(*nr)).ok()?;
                let end = nr.checked_mul(8)?.checked_add(at)?.checked_add(8)?;
                match guess {
                    Guess::Chain => Some((record.len().checked_sub(end)?, None)),
                    _ => raw_at(end),
                }
            }
        }
    }

    /// The tails of the group fit one layout of this guess: RAW's may differ by padding
    /// (up to 7 bytes), a callchain's may not.
    fn possible(&self) -> bool {
        let spread = self.tail_max.saturating_sub(self.tail_min);
        match self.guess {
            Guess::Chain => spread == 0,
            Guess::Raw | Guess::ChainRaw => spread <= 7,
        }
    }
}

/// Bytes of the SAMPLEs' words, for the headers derived from the events (SAMPLE_TIME,
/// NRCPUS): each of the first [`PREFIX_WORDS`] after the header as `(least, most, most cpu)`
/// (the cpu: its first `u32`).
type WordRanges = [(u64, u64, u32); PREFIX_WORDS];

/// What the SAMPLEs of a group say.
#[derive(Clone, Debug)]
struct SampleSummary {
    len_min: usize,
    len_max: usize,
    /// The guesses every SAMPLE of the group can be read by.
    guesses: Vec<GuessSummary>,
    /// For the derived headers, when they are on.
    words: Option<Box<WordRanges>>,
}

/// What the other kernel records (COMM, MMAP2, FORK, …) of a group say: the bytes each has
/// past its type's body (its `sample_id` trailer), as `(least, most)` for types of one
/// length and the least for types with a variable part; and for the derived headers, the
/// most `u32` 8 and 16 bytes from the end (where a trailer's CPU is).
#[derive(Clone, Copy, Debug, Default)]
struct SideBandSummary {
    exact: Option<(i64, i64)>,
    at_least: Option<i64>,
    cpu: Option<[u32; 2]>,
}

/// What a group of records written before their description says (see the module).
#[derive(Clone, Debug)]
pub(crate) struct RecordSummary {
    pub(crate) first: FirstRecord,
    pub(crate) records: u64,
    samples: Option<SampleSummary>,
    side_band: Option<SideBandSummary>,
}

/// What a description says of a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The records are right for it.
    Right,
    /// Right as far as the summary holds; part of the rule is not checked (see the module).
    Unchecked,
    /// Some record is wrong for it.
    Wrong(Contradiction),
}

/// How records written before a description contradict it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Contradiction {
    /// SAMPLEs whose lengths (`min` to `max` bytes) are not what the layout makes them.
    SampleLength {
        /// The shortest.
        min: u16,
        /// The longest.
        max: u16,
    },
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
    /// COMPRESSED records, and a HEADER_COMPRESSED that is not zstd with `mmap_len` above 0.
    Compression,
    /// Records written before any description, which strict mode cannot attribute to this
    /// one (the reason says why).
    Unattributable(&'static str),
}

impl fmt::Display for Contradiction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SampleLength { min, max } if min == max => write!(
                f,
                "SAMPLEs of {min} bytes, not the length its layout gives them"
            ),
            Self::SampleLength { min, max } => write!(
                f,
                "SAMPLEs of {min} to {max} bytes, not all the length its layout gives them"
            ),
            Self::Raw(p) => write!(f, "RAW payloads break its format: {p}"),
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
            Self::Compression => f.write_str(
                "COMPRESSED records need HEADER_COMPRESSED to say zstd, with mmap_len above 0",
            ),
            Self::Unattributable(why) => f.write_str(why),
        }
    }
}

/// The fields before TIME and before CPU in a SAMPLE (8 bytes each).
const BEFORE_TIME: u64 = sample_type::IDENTIFIER | sample_type::IP | sample_type::TID;
const BEFORE_CPU: u64 =
    BEFORE_TIME | sample_type::TIME | sample_type::ADDR | sample_type::ID | sample_type::STREAM_ID;

impl RecordSummary {
    /// The summary of one record at `first`; `derive`: keep what the derived headers need.
    pub(crate) fn of(record: &[u8], endian: Endian, first: FirstRecord, derive: bool) -> Self {
        let mut s = RecordSummary {
            first,
            records: 0,
            samples: None,
            side_band: None,
        };
        s.add(record, endian, derive);
        s
    }

    /// Adds a record (a SAMPLE, or a kernel record with a `sample_id` trailer).
    pub(crate) fn add(&mut self, record: &[u8], endian: Endian, derive: bool) {
        self.records = self.records.saturating_add(1);
        let type_ = record.first_chunk::<4>().map_or(0, |b| endian.read_u32(*b));
        if type_ == record_type::SAMPLE {
            match self.samples.as_mut() {
                Some(s) => s.add(record, endian),
                None => self.samples = Some(SampleSummary::of(record, endian, derive)),
            }
            return;
        }
        let side = self.side_band.get_or_insert_with(SideBandSummary::default);
        side.add(type_, record, endian, derive);
    }

    /// Adds another group's records to this one's.
    pub(crate) fn absorb(&mut self, other: RecordSummary) {
        if other.first.pos < self.first.pos {
            self.first = other.first;
        }
        self.records = self.records.saturating_add(other.records);
        self.samples = match (self.samples.take(), other.samples) {
            (Some(mut a), Some(b)) => {
                a.merge(b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
        self.side_band = match (self.side_band, other.side_band) {
            (Some(mut a), Some(b)) => {
                a.merge(&b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }

    /// What `layout` (with the RAW rule `rule`, when its format is known) says of the
    /// records; `stats` gets what the derived headers need of them.
    pub(crate) fn check(
        &self,
        layout: &SampleLayout,
        rule: Option<&TracepointRawRule>,
        endian: Endian,
        stats: &mut EventStats,
    ) -> Verdict {
        let mut verdict = Verdict::Right;
        if let Some(s) = &self.samples {
            match s.check(layout, rule, endian) {
                Verdict::Right => {}
                Verdict::Unchecked => verdict = Verdict::Unchecked,
                wrong => return wrong,
            }
            s.add_stats(layout, stats);
        }
        if let Some(side) = &self.side_band {
            let trailer = layout.sample_id_len();
            if !side.fits(trailer) {
                return Verdict::Wrong(Contradiction::SideBandLength {
                    trailer: u16::try_from(trailer).unwrap_or(u16::MAX),
                });
            }
            side.add_stats(layout, stats);
        }
        verdict
    }

    /// The RAW payloads of the SAMPLEs under `layout` (for a format that arrives later),
    /// when the summary holds them.
    pub(crate) fn raw_under(&self, layout: &SampleLayout) -> Option<RawSummary> {
        let s = self.samples.as_ref()?;
        let (guess, k) = guess_of(layout)?;
        s.guesses
            .iter()
            .find(|g| g.guess == guess && usize::from(g.k) == k)
            .and_then(|g| g.raw)
    }
}

/// The guess `layout` makes, and its word: `None` when its SAMPLEs have no field of varying
/// length, or ones no guess covers.
fn guess_of(layout: &SampleLayout) -> Option<(Guess, usize)> {
    let word = |at: usize| at.checked_sub(8).map(|b| b / 8);
    if let Some(place) = layout.raw_place() {
        return Some((Guess::Raw, word(place.size_at)?));
    }
    let place = layout.callchain_place()?;
    let guess = if place.raw {
        Guess::ChainRaw
    } else {
        Guess::Chain
    };
    Some((guess, word(place.nr_at)?))
}

impl SampleSummary {
    fn of(record: &[u8], endian: Endian, derive: bool) -> Self {
        let mut guesses = Vec::new();
        for k in 0..PREFIX_WORDS {
            for guess in [Guess::Raw, Guess::Chain, Guess::ChainRaw] {
                if let Some((tail, raw)) = GuessSummary::read(guess, k, record, endian) {
                    guesses.push(GuessSummary {
                        guess,
                        k: k as u8,
                        tail_min: tail,
                        tail_max: tail,
                        raw: raw.map(|r| RawSummary::of(r, endian)),
                    });
                }
            }
        }
        let words = derive.then(|| {
            let mut w: WordRanges = [(u64::MAX, 0, 0); PREFIX_WORDS];
            add_words(&mut w, record, endian);
            Box::new(w)
        });
        SampleSummary {
            len_min: record.len(),
            len_max: record.len(),
            guesses,
            words,
        }
    }

    fn add(&mut self, record: &[u8], endian: Endian) {
        self.len_min = self.len_min.min(record.len());
        self.len_max = self.len_max.max(record.len());
        self.guesses.retain_mut(|g| {
            let Some((tail, raw)) = GuessSummary::read(g.guess, usize::from(g.k), record, endian)
            else {
                return false;
            };
            g.tail_min = g.tail_min.min(tail);
            g.tail_max = g.tail_max.max(tail);
            if let (Some(sum), Some(raw)) = (g.raw.as_mut(), raw) {
                sum.add(raw, endian);
            }
            g.possible()
        });
        if let Some(w) = self.words.as_mut() {
            add_words(w, record, endian);
        }
    }

    fn merge(&mut self, other: SampleSummary) {
        self.len_min = self.len_min.min(other.len_min);
        self.len_max = self.len_max.max(other.len_max);
        self.guesses.retain_mut(|g| {
            let Some(o) = other
                .guesses
                .iter()
                .find(|o| o.guess == g.guess && o.k == g.k)
            else {
                return false;
            };
            g.tail_min = g.tail_min.min(o.tail_min);
            g.tail_max = g.tail_max.max(o.tail_max);
            if let (Some(a), Some(b)) = (g.raw.as_mut(), o.raw.as_ref()) {
                a.merge(b);
            }
            g.possible()
        });
        self.words = match (self.words.take(), other.words) {
            (Some(mut a), Some(b)) => {
                for (x, y) in a.iter_mut().zip(b.iter()) {
                    *x = (x.0.min(y.0), x.1.max(y.1), x.2.max(y.2));
                }
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }

    fn check(
        &self,
        layout: &SampleLayout,
        rule: Option<&TracepointRawRule>,
        endian: Endian,
    ) -> Verdict {
        let wrong = Verdict::Wrong(Contradiction::SampleLength {
            min: u16::try_from(self.len_min).unwrap_or(u16::MAX),
            max: u16::try_from(self.len_max).unwrap_or(u16::MAX),
        });
        if let Some(len) = layout.fixed_sample_len() {
            // Fixed fields are 8 bytes each: `len` is a multiple of 8, as every SAMPLE is.
            return match self.len_min == len && self.len_max == len {
                true => Verdict::Right,
                false => wrong,
            };
        }
        let Some((guess, k)) = guess_of(layout) else {
            return Verdict::Unchecked;
        };
        let other_len = match (layout.raw_place(), layout.callchain_place()) {
            (Some(p), _) => p.other_len.checked_sub(p.size_at),
            (None, Some(p)) => p.other_len.checked_sub(p.nr_at),
            (None, None) => None,
        };
        let (Some(fixed_tail), Some(g)) = (
            other_len,
            self.guesses
                .iter()
                .find(|g| g.guess == guess && usize::from(g.k) == k),
        ) else {
            return wrong;
        };
        // A SAMPLE may be its fields' length rounded up to 8: the tail is the fixed fields
        // after the varying ones, plus up to 7 bytes after RAW.
        let pad = match guess {
            Guess::Chain => 0,
            Guess::Raw | Guess::ChainRaw => 7,
        };
        if g.tail_min < fixed_tail || g.tail_max > fixed_tail.saturating_add(pad) {
            return wrong;
        }
        match (rule, g.raw) {
            (Some(rule), Some(raw)) => raw.check_rule(rule, endian),
            _ => Verdict::Right,
        }
    }

    fn add_stats(&self, layout: &SampleLayout, stats: &mut EventStats) {
        let Some(w) = self.words.as_deref() else {
            return;
        };
        let at = |bits: u64| (layout.sample_type & bits).count_ones() as usize;
        if layout.has(sample_type::TIME) {
            if let Some(&(least, most, _)) = w.get(at(BEFORE_TIME)) {
                stats.add_time(least);
                stats.add_time(most);
            }
        }
        if layout.has(sample_type::CPU) {
            if let Some(&(_, _, cpu)) = w.get(at(BEFORE_CPU)) {
                stats.add_cpu(cpu);
            }
        }
    }
}

fn add_words(w: &mut WordRanges, record: &[u8], endian: Endian) {
    let words = record.get(8..).unwrap_or_default().chunks_exact(8);
    for (range, word) in w.iter_mut().zip(words) {
        let Some(b) = word.first_chunk::<8>() else {
            break;
        };
        let v = endian.read_u64(*b);
        let cpu = b.first_chunk::<4>().map_or(0, |c| endian.read_u32(*c));
        *range = (range.0.min(v), range.1.max(v), range.2.max(cpu));
    }
}

impl SideBandSummary {
    fn merge(&mut self, other: &SideBandSummary) {
        self.exact = match (self.exact, other.exact) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
            (a, b) => a.or(b),
        };
        self.at_least = match (self.at_least, other.at_least) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.cpu = match (self.cpu, other.cpu) {
            (Some(a), Some(b)) => Some([a[0].max(b[0]), a[1].max(b[1])]),
            (a, b) => a.or(b),
        };
    }

    fn add(&mut self, type_: u32, record: &[u8], endian: Endian, derive: bool) {
        let past = |body: u16| (record.len() as i64).saturating_sub(8 + i64::from(body));
        match record_type::info(type_).map(|i| i.body) {
            Some(BodyLen::Exact(body)) => {
                let v = past(body);
                self.exact = Some(self.exact.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
            }
            Some(BodyLen::AtLeast(body)) => {
                let v = past(body);
                self.at_least = Some(self.at_least.map_or(v, |a| a.min(v)));
            }
            _ => {}
        }
        if derive {
            let from_end = |back: usize| {
                let at = record.len().checked_sub(back)?;
                let b = record.get(at..)?.first_chunk::<4>()?;
                Some(endian.read_u32(*b))
            };
            let cpu = self.cpu.get_or_insert([0, 0]);
            for (most, back) in cpu.iter_mut().zip([8, 16]) {
                *most = (*most).max(from_end(back).unwrap_or(0));
            }
        }
    }

    /// Every record is its type's length with a `trailer`-byte trailer (or longer, for types
    /// with a variable part): what strict mode's check of a record's body asks of each.
    fn fits(&self, trailer: usize) -> bool {
        let t = trailer as i64;
        self.exact
            .is_none_or(|(least, most)| least == t && most == t)
            && self.at_least.is_none_or(|least| least >= t)
    }

    fn add_stats(&self, layout: &SampleLayout, stats: &mut EventStats) {
        let bits = layout.sample_id_bits();
        if bits & sample_type::CPU == 0 {
            return;
        }
        // The trailer's CPU is its last field but IDENTIFIER.
        let k = usize::from(bits & sample_type::IDENTIFIER != 0);
        if let Some(cpu) = self.cpu.and_then(|c| c.get(k).copied()) {
            stats.add_cpu(cpu);
        }
    }
}
