//! [`RecordSummary`]: what a group of records written before their event description says
//! about the descriptions that may own them, kept without the records (they are in the
//! output by then), so that strict mode checks them when the description arrives as it would
//! have checked them after it: a description is refused exactly when one of the records
//! would have been.
//!
//! - SAMPLEs: the layouts every one of them fits ([`FittingLayouts`]), and, for each way to
//!   RAW those layouts have ([`RawKey`]), what a tracepoint format's rule needs of the RAW
//!   payloads ([`RawFacts`]: their least length, which bytes are the same in all, and how
//!   much room each dynamic field's data has in the tightest of them), and the last record
//!   (see [`RecentRecord`]). A group of one SAMPLE keeps the record (checked in full when
//!   the description arrives): most groups that strict mode keeps before the first
//!   description, to tell events apart by their id, hold one record until they are given
//!   up.
//! - Other kernel records (COMM, MMAP2, FORK, …): the bytes each has past its type's body,
//!   which its layout's `sample_id` trailer must take.

use crate::check::fitting_layouts::{FittingLayouts, RawKey, Scratch, TooManyLayouts, Trace};
use crate::check::recent_record::{chunks_of, RecentRecord};
use crate::check::record_rules::{
    check_read_ids, check_repeated_id, check_sample_len, counted_body, header_misc, is_switch,
    name_room, read_group_ids, read_trailer_start, EventStats,
};
use crate::check::refusal::Contradiction;
use crate::check::switch_kinds::{sched_switch_sample_kinds, Kinds, SwitchKinds, WITHOUT_CPU};
use crate::model::raw_rule::RawRule;
use perf_abi::record_type::{self, BodyLen};
use perf_abi::{read_format as rf, sample_type};
use perf_encode::features::TracepointRawProblem;
use perf_encode::records::SampleLayout;
use perf_encode::Endian;

/// Words (8 bytes each: IDENTIFIER to PERIOD) a SAMPLE can have before its first field of
/// varying length: where the derived headers' TIME and CPU are.
const PREFIX_WORDS: usize = 9;

/// The bytes of [`PREFIX_WORDS`].
const PREFIX_BYTES: usize = PREFIX_WORDS * 8;

/// Traces kept per group (see [`FittingLayouts`]).
const TRACES: usize = 8;

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

/// What the RAW payloads of a group say to any tracepoint format's rule
/// ([`RawRule::check`]): exactly whether every payload follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawFacts {
    /// The first payload's bytes, cut to the shortest payload's length.
    first: Vec<u8>,
    /// The first payload's length before any cut: a payload at least as long, with the
    /// same 4 bytes as the first at an offset, has at least the first's room there.
    first_len: usize,
    /// Bit `i`: byte `i` is the same in every payload.
    same: Vec<u64>,
    /// At each offset `q` (while `q + 4` is within the shortest payload): the least, over the
    /// payloads, of its length minus where the data of a `__data_loc` at `q` would end, plus
    /// one (0: that data is outside some payload), at most `u16::MAX`; read little-endian
    /// (`[0]`) and big-endian (`[1]`), since the TRACING_DATA that says which may come later
    /// (see [`RawRule`]).
    room: [Vec<u16>; 2],
    /// Bit `q`: both rooms at `q` are 0 already, and no payload can lower them (only
    /// ever set; a bit not set may be too).
    dead: Vec<u64>,
    /// Bit `q` of `[order][relative]`: in every payload, the data a `__data_loc`
    /// (`relative` 0) or `__rel_loc` (1) at `q`, read in that order, would point at lies
    /// within it and holds a NUL, as a field read as a string needs.
    nul: [[Vec<u64>; 2]; 2],
}

/// The data a dynamic field at `q` of `payload` points at (read in `order`, counted from the
/// end of the field when `relative`) lies within it and holds a NUL.
fn holds_nul(payload: &[u8], q: usize, order: Endian, relative: bool) -> bool {
    let Some(w) = payload.get(q..).and_then(|w| w.first_chunk::<4>()) else {
        return false;
    };
    let loc = order.read_u32(*w) as usize;
    let from = if relative { q + 4 } else { 0 };
    let start = from + (loc & 0xffff);
    payload
        .get(start..start + (loc >> 16))
        .is_some_and(|data| data.contains(&0))
}

/// `a == b`, compared 8 bytes at a time inline: payloads are short, and most are equal.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let rests = a8.remainder().iter().zip(b8.remainder());
    a.len() == b.len()
        && a8
            .zip(b8)
            .all(|(x, y)| x.first_chunk::<8>() == y.first_chunk::<8>())
        && rests.into_iter().all(|(x, y)| x == y)
}

/// Bit `i` of the bit set `bits`.
fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
}

/// The bit set of the `i` below `n` for which `set(i)` holds.
fn bits_where(n: usize, mut set: impl FnMut(usize) -> bool) -> Vec<u64> {
    let mut bits = vec![0u64; n.div_ceil(64)];
    for i in (0..n).filter(|&i| set(i)) {
        if let Some(w) = bits.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    bits
}

/// Keeps the first `n` bits of the bit set `bits`.
fn truncate_bits(bits: &mut Vec<u64>, n: usize) {
    bits.truncate(n.div_ceil(64));
    if let Some(w) = bits.last_mut() {
        if n % 64 != 0 {
            *w &= (1u64 << (n % 64)) - 1;
        }
    }
}

/// Both byte orders, in [`order_index`]'s order.
const ORDERS: [Endian; 2] = [Endian::Little, Endian::Big];

/// The index of `endian`'s rooms in [`RawFacts::room`].
#[inline(always)]
fn order_index(endian: Endian) -> usize {
    usize::from(endian.is_big())
}

impl RawFacts {
    /// The facts of one payload.
    pub(crate) fn of(payload: &[u8]) -> Self {
        let offsets = payload.len().saturating_sub(3);
        let nul = ORDERS.map(|order| {
            [false, true]
                .map(|relative| bits_where(offsets, |q| holds_nul(payload, q, order, relative)))
        });
        RawFacts {
            first: payload.to_vec(),
            first_len: payload.len(),
            same: bits_where(payload.len(), |_| true),
            room: ORDERS.map(|e| rooms(payload, e).collect()),
            dead: vec![0; offsets.div_ceil(64)],
            nul,
        }
    }

    /// Clears the NUL bits of the offsets where `payload` breaks them. Few stay set after
    /// the first payload (a word must point at a range within it that holds a 0).
    fn add_nul(&mut self, payload: &[u8]) {
        for (order, nul) in ORDERS.into_iter().zip(&mut self.nul) {
            for (relative, bits) in [false, true].into_iter().zip(nul) {
                for (b, word) in bits.iter_mut().enumerate() {
                    let mut set = *word;
                    while set != 0 {
                        let k = set.trailing_zeros() as usize;
                        set &= set - 1;
                        if !holds_nul(payload, b * 64 + k, order, relative) {
                            *word &= !(1 << k);
                        }
                    }
                }
            }
        }
    }

    /// Adds a payload.
    #[inline(always)]
    pub(crate) fn add(&mut self, payload: &[u8]) {
        // The first payload again (the commonest case): every fact holds for it already.
        if self.first.len() != self.first_len || !same_bytes(payload, &self.first) {
            self.add_other(payload);
        }
    }

    /// [`add`](Self::add) of a payload other than the first (out of line: rare).
    #[inline(never)]
    fn add_other(&mut self, payload: &[u8]) {
        if payload.len() < self.first_len {
            self.cut(payload.len());
            self.add_nul(payload);
            // Shorter than the first: every room may be less.
            self.add_same(payload);
            let [little, big] = &mut self.room;
            lower_rooms(little, payload, Endian::Little);
            lower_rooms(big, payload, Endian::Big);
            return;
        }
        // At least as long as the first: only the offsets whose 4 bytes differ from the
        // first's can have less room than it (and than the least so far).
        let len = payload.len() as i64 + 1;
        let first = &self.first;
        let blocks = first.len().div_ceil(64);
        let mut next = differ_bits(first, payload, 0);
        let mut any = next;
        for b in 0..blocks {
            let differ = next;
            next = differ_bits(first, payload, b + 1);
            any |= next;
            if differ == 0 && next & 0b111 == 0 {
                continue;
            }
            if let Some(same) = self.same.get_mut(b) {
                *same &= !differ;
            }
            // Offset q's 4 bytes are q..q + 4, into the next block for the last three.
            let mut touched = differ | differ >> 1 | differ >> 2 | differ >> 3;
            touched |= next << 61 | next << 62 | next << 63;
            let dead = self.dead.get_mut(b);
            let mut now_dead = 0u64;
            touched &= !dead.as_deref().copied().unwrap_or(0);
            while touched != 0 {
                let k = touched.trailing_zeros();
                let q = b * 64 + k as usize;
                touched &= touched - 1;
                let [little, big] = &mut self.room;
                let (Some(l), Some(b), Some(w)) =
                    (little.get_mut(q), big.get_mut(q), payload.get(q..q + 4))
                else {
                    break;
                };
                let w = [w[0], w[1], w[2], w[3]];
                *l = (*l).min(room(len, u32::from_le_bytes(w)));
                *b = (*b).min(room(len, u32::from_be_bytes(w)));
                now_dead |= u64::from(*l == 0 && *b == 0) << k;
            }
            if let Some(d) = dead {
                *d |= now_dead;
            }
        }
        // A NUL bit set holds for a payload that starts with all of the first payload's
        // bytes: its word there says what the first's said, of data within them. (Once the
        // first is cut, a bit may stand for other payloads' words, of data past the cut.)
        if any != 0 || self.first.len() != self.first_len {
            self.add_nul(payload);
        }
    }

    /// Clears the bits of the bytes where `payload` differs from the first.
    fn add_same(&mut self, payload: &[u8]) {
        for (b, same) in self.same.iter_mut().enumerate() {
            if *same != 0 {
                *same &= !differ_bits(&self.first, payload, b);
            }
        }
    }

    /// Adds what another group's payloads say.
    pub(crate) fn merge(&mut self, other: &RawFacts) {
        self.cut(other.first.len());
        for (i, (a, b)) in self.first.iter().zip(&other.first).enumerate() {
            let both = other
                .same
                .get(i / 64)
                .is_some_and(|w| w >> (i % 64) & 1 != 0);
            if a != b || !both {
                if let Some(w) = self.same.get_mut(i / 64) {
                    *w &= !(1 << (i % 64));
                }
            }
        }
        for (mine, theirs) in self.room.iter_mut().zip(&other.room) {
            for (r, o) in mine.iter_mut().zip(theirs) {
                *r = (*r).min(*o);
            }
        }
        let (mine, theirs) = (self.nul.iter_mut().flatten(), other.nul.iter().flatten());
        for (bits, other_bits) in mine.zip(theirs) {
            for (w, o) in bits.iter_mut().zip(other_bits) {
                *w &= o;
            }
            // Offsets past the other's: it has no payload long enough for them.
            bits.truncate(other_bits.len());
        }
    }

    /// Keeps what is about the first `len` bytes (the shortest payload's).
    fn cut(&mut self, len: usize) {
        if len >= self.first.len() {
            return;
        }
        self.first.truncate(len);
        truncate_bits(&mut self.same, len);
        for room in &mut self.room {
            room.truncate(len.saturating_sub(3));
        }
        for bits in self.nul.iter_mut().flatten() {
            truncate_bits(bits, len.saturating_sub(3));
        }
    }

    /// Byte `i` is the same in every payload.
    fn is_same(&self, i: usize) -> bool {
        bit(&self.same, i)
    }

    /// Every payload follows `rule`, or what the first one found breaking it breaks.
    pub(crate) fn check_rule(&self, rule: &RawRule) -> Result<(), Contradiction> {
        let (endian, rule) = (rule.order, &rule.rule);
        let len = self.first.len();
        let too_short = Contradiction::Raw(TracepointRawProblem::TooShort {
            len,
            min: rule.min_len,
        });
        if len < rule.min_len as usize {
            return Err(too_short);
        }
        let at = rule.common_type_offset as usize;
        let bytes = self.first.get(at..).and_then(|b| b.first_chunk::<2>());
        let Some(bytes) = bytes else {
            return Err(too_short);
        };
        if !(self.is_same(at) && self.is_same(at.saturating_add(1))) {
            // Not the same in every payload: not the format's id in all of them.
            return Err(Contradiction::CommonTypes);
        }
        let found = endian.read_u16(*bytes);
        if found != rule.common_type {
            return Err(Contradiction::Raw(TracepointRawProblem::CommonType {
                found,
                expected: rule.common_type,
            }));
        }
        for (field, relative, string) in rule.dynamic.fields() {
            let Some(&room) = self.room[order_index(endian)].get(field as usize) else {
                return Err(too_short);
            };
            // room - 1: the least length minus data end; a `__rel_loc` counts from the end
            // of its field (4 bytes past `field`).
            let need = if relative { u64::from(field) + 5 } else { 1 };
            if u64::from(room) < need {
                return Err(Contradiction::DynamicData { field });
            }
            let nul = &self.nul[order_index(endian)][usize::from(relative)];
            if string && !bit(nul, field as usize) {
                let problem = TracepointRawProblem::UnterminatedString { field };
                return Err(Contradiction::Raw(problem));
            }
        }
        Ok(())
    }

    /// Bytes it takes.
    pub(crate) fn heap_bytes(&self) -> usize {
        let rooms = self.room.iter().map(Vec::capacity).sum::<usize>();
        let nul = self.nul.iter().flatten().map(Vec::capacity).sum::<usize>();
        let bits = self.same.capacity() + self.dead.capacity();
        self.first.capacity() + bits * 8 + rooms * 2 + nul * 8
    }
}

/// Bit `i`: byte `block * 64 + i` of `a` (up to its end) differs from that of `b`.
#[inline]
fn differ_bits(a: &[u8], b: &[u8], block: usize) -> u64 {
    let start = block.saturating_mul(64);
    let end = a.len().min(b.len()).min(start.saturating_add(64));
    let (Some(a), Some(b)) = (a.get(start..end), b.get(start..end)) else {
        return 0;
    };
    let mut d = 0u64;
    let (wa, wb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (wa.remainder(), wb.remainder());
    let mut at = 0;
    for (x, y) in wa.zip(wb) {
        let (Some(x), Some(y)) = (x.first_chunk::<8>(), y.first_chunk::<8>()) else {
            break;
        };
        d |= non_zero_bytes(u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y)) << at;
        at += 8;
    }
    for (i, (x, y)) in ra.iter().zip(rb).enumerate() {
        d |= u64::from(x != y) << (at + i);
    }
    d
}

/// Bit `k`: byte `k` (little-endian) of `v` is not 0.
#[inline(always)]
fn non_zero_bytes(v: u64) -> u64 {
    let t = v | v >> 4;
    let t = t | t >> 2;
    let t = (t | t >> 1) & 0x0101_0101_0101_0101;
    // Each byte's bit, moved to bit 56 + k: the products' bits never overlap.
    t.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// For each offset `q` of `payload` with 4 bytes from it: its length minus where the data of
/// a `__data_loc` at `q` ends (`u32` low half offset, high half length), plus one, between 0
/// and `u16::MAX`.
fn rooms(payload: &[u8], endian: Endian) -> impl Iterator<Item = u16> + '_ {
    let len = payload.len() as i64 + 1;
    payload.windows(4).map(move |w| {
        let b = [w[0], w[1], w[2], w[3]];
        let loc = endian.read_u32(b);
        room(len, loc)
    })
}

/// What [`rooms`] says of a `u32` `loc` in a payload of `len - 1` bytes.
#[inline(always)]
fn room(len: i64, loc: u32) -> u16 {
    let end = i64::from(loc & 0xffff) + i64::from(loc >> 16);
    (len - end).clamp(0, i64::from(u16::MAX)) as u16
}

/// Lowers each of `rooms` to what [`rooms`] says of `payload` there.
fn lower_rooms(rooms: &mut [u16], payload: &[u8], endian: Endian) {
    let len = payload.len() as i64 + 1;
    let n = rooms.len().min(payload.len().saturating_sub(3));
    let (Some(rooms), Some(words)) = (rooms.get_mut(..n), payload.get(..n + 3)) else {
        return;
    };
    if endian.is_big() {
        for (i, r) in rooms.iter_mut().enumerate() {
            let loc = u32::from_be_bytes([words[i], words[i + 1], words[i + 2], words[i + 3]]);
            *r = (*r).min(room(len, loc));
        }
    } else {
        for (i, r) in rooms.iter_mut().enumerate() {
            let loc = u32::from_le_bytes([words[i], words[i + 1], words[i + 2], words[i + 3]]);
            *r = (*r).min(room(len, loc));
        }
    }
}

/// What adding a SAMPLE to a group needs done that may fail (see
/// [`SampleSummary::prepare`]); applying it cannot.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// The group's first SAMPLE.
    First,
    /// It fits every layout the group fits: the group's trace `.0` said so.
    Same(usize),
    /// It fits every layout the group fits: the trace of a narrowing of the same call said
    /// so (its payloads are found anew).
    Fits,
    /// The layouts the group fits with it, and its trace.
    Narrowed(Box<FittingLayouts>, Trace),
}

/// What a group's SAMPLEs are before this call's change: nothing yet, one record, or the
/// layouts they fit.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SampleState<'a> {
    Absent,
    One(&'a [u8]),
    Layouts(&'a FittingLayouts),
}

/// The most bytes the [`RawFacts`] of one group may take.
const MAX_RAW_FACTS_BYTES: usize = 16 << 20;

/// The [`RawFacts`] of `layouts`' ways to RAW stay within [`MAX_RAW_FACTS_BYTES`] with
/// `record` among the group's SAMPLEs (see [`raw_facts_bytes`]). Only a record whose RAW may
/// start at very many places comes near.
fn within_raw_bound(
    layouts: &FittingLayouts,
    record: &[u8],
    endian: Endian,
) -> Result<(), TooManyLayouts> {
    match raw_facts_bytes(layouts, record, endian) > MAX_RAW_FACTS_BYTES {
        true => Err(TooManyLayouts),
        false => Ok(()),
    }
}

/// The most bytes the [`RawFacts`] of `layouts`' ways to RAW take with `record` among the
/// group's SAMPLEs. Each way keeps at most one [`RawFacts`], cut to the shortest of its
/// payloads, so the payloads of `record` bound them all (about 5.75 bytes of facts per
/// payload byte: the byte, its bit, a room in each byte order, a bit of rooms spent, and
/// four NUL bits).
pub(crate) fn raw_facts_bytes(layouts: &FittingLayouts, record: &[u8], endian: Endian) -> usize {
    let payload_bytes: usize = layouts
        .raw_keys()
        .iter()
        .filter_map(|k| k.payload_range(record, endian))
        .map(|(a, b)| b.saturating_sub(a))
        .fold(0, usize::saturating_add);
    payload_bytes.saturating_mul(46) / 8
}

/// What the SAMPLEs of a group say (see the module).
#[derive(Clone, Debug)]
pub(crate) enum SampleSummary {
    /// One SAMPLE, as written.
    One(Vec<u8>),
    /// Several.
    Many(Box<ManySamples>),
}

/// What several SAMPLEs of a group say.
#[derive(Clone, Debug)]
pub(crate) struct ManySamples {
    len_min: usize,
    len_max: usize,
    layouts: FittingLayouts,
    /// For each way to RAW of those layouts.
    raw: RawByKey,
    /// Records whose words said what these did fit every layout kept.
    traces: Vec<Trace>,
    /// For each trace, once a record matched it: where the payloads are in the records that
    /// match it (they are where the traced record's were).
    trace_ranges: Vec<PayloadsAt>,
    next_trace: usize,
    /// The trace the last record took.
    last_trace: usize,
    /// For the derived headers, when they are on.
    words: Option<Box<WordRanges>>,
    /// The most cpu at each place CPU can be (see [`CpuMost`]).
    cpu_most: CpuMost,
    /// The last record added, while it matched a trace.
    recent: RecentRecord,
    /// The words that are the same in every SAMPLE (see [`SameWords`]).
    same: SameWords,
}

/// The 8-byte words (up to the 64th) that are the same in every SAMPLE of a group, and
/// their values: where a description finds the ids a SAMPLE names besides the one its
/// event is found by (an ID beside IDENTIFIER, READ values). In a group the description
/// checks, the word at its id place is the same in all; so are the ids a kernel writes
/// beside it (the event's own, a READ group's members).
#[derive(Clone, Debug, Default)]
struct SameWords {
    /// The first SAMPLE's first [`SAME_WORDS_MAX`] bytes.
    first: Vec<u8>,
    /// Bit `k`: word `k` (bytes `8k..8k + 8`) of every SAMPLE is the first's.
    same: u64,
}

/// The bytes of a group's first SAMPLE [`SameWords`] keeps.
const SAME_WORDS_MAX: usize = 512;

impl SameWords {
    fn of(record: &[u8]) -> Self {
        let first = record.get(..SAME_WORDS_MAX).unwrap_or(record).to_vec();
        let words = first.len() / 8;
        SameWords {
            first,
            same: u64::MAX.checked_shr(64 - words as u32).unwrap_or(0),
        }
    }

    /// Adds a SAMPLE: the words where it differs from the first are no longer the same.
    fn add(&mut self, record: &[u8]) {
        let mut left = self.same;
        while left != 0 {
            let k = left.trailing_zeros() as usize;
            left &= left - 1;
            let at = 8 * k;
            if record.get(at..at + 8) != self.first.get(at..at + 8) {
                self.same &= !(1 << k);
            }
        }
    }

    /// Adds a SAMPLE that differs from the one added last in the 8-byte chunks `changed`
    /// alone (and is as long).
    fn add_changed(&mut self, changed: u64) {
        self.same &= !changed;
    }

    /// The value of the word at `at` when it is the same in every SAMPLE.
    fn at(&self, at: usize, endian: Endian) -> Option<u64> {
        let k = u32::try_from(at / 8).ok().filter(|_| at % 8 == 0)?;
        let same = self.same.checked_shr(k)? & 1 == 1;
        same.then(|| endian.u64_at(&self.first, at)).flatten()
    }
}

/// The trace of a group that a SAMPLE matches (see [`ManySamples::trace_matching`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TraceMatch {
    pub(crate) trace: usize,
    /// The chunks where it differs from the group's last record, when it was judged by them
    /// alone (see [`RecentRecord`]).
    changed: Option<u64>,
}

/// The most of the first `u32` of each word where a SAMPLE's CPU can be (after the header
/// and up to 7 fixed fields): the most cpu once a description says where it is, for the
/// derived NRCPUS and for Intel PT's `sched:sched_switch`.
#[derive(Clone, Copy, Debug, Default)]
struct CpuMost([u32; 8]);

impl CpuMost {
    fn add(&mut self, record: &[u8], endian: Endian) {
        let words = record.get(8..).unwrap_or_default().chunks_exact(8);
        for (most, word) in self.0.iter_mut().zip(words) {
            if let Some(b) = word.first_chunk::<4>() {
                *most = (*most).max(endian.read_u32(*b));
            }
        }
    }

    /// The most `u32` at `at` (an offset in the records).
    fn at(&self, at: usize) -> Option<u32> {
        self.0.get(word_index(at)?).copied()
    }
}

/// For the headers derived from the events (SAMPLE_TIME, NRCPUS): each of the first
/// [`PREFIX_WORDS`] words after the header as `(least, most)`.
type WordRanges = [(u64, u64); PREFIX_WORDS];

/// `range` (least, most) takes `v`.
#[inline(always)]
fn widen(range: &mut (u64, u64), v: u64) {
    *range = (range.0.min(v), range.1.max(v));
}

/// The trace of `traces` (the one matched last first) that `record` matches.
#[inline]
fn trace_matching(traces: (usize, &[Trace]), record: &[u8], endian: Endian) -> Option<usize> {
    // The trace matched last first: records like it tend to follow each other.
    let (hint, traces) = traces;
    match traces.get(hint).filter(|t| t.matches(record, endian)) {
        Some(_) => Some(hint),
        None => traces.iter().position(|t| t.matches(record, endian)),
    }
}

impl SampleSummary {
    /// What adding `record` to a group in `state` needs computed, which may be too much (the
    /// record is then refused, or the group given up). The group's description will put its
    /// event id at `place` (`None`: anywhere): only the layouts that do are kept.
    pub(crate) fn prepare(
        state: SampleState<'_>,
        place: Option<usize>,
        traces: (usize, &[Trace]),
        record: &[u8],
        endian: Endian,
        sc: &mut Scratch,
    ) -> Result<Prepared, TooManyLayouts> {
        match state {
            SampleState::Absent => Ok(Prepared::First),
            SampleState::One(first) => {
                let (narrowed, trace) = FittingLayouts::of_pair(first, record, endian, place, sc)?;
                within_raw_bound(&narrowed, first, endian)?;
                within_raw_bound(&narrowed, record, endian)?;
                Ok(Prepared::Narrowed(Box::new(narrowed), trace))
            }
            SampleState::Layouts(layouts) => {
                if let Some(i) = trace_matching(traces, record, endian) {
                    return Ok(Prepared::Same(i));
                }
                let (narrowed, trace) = layouts.and_record(record, endian, sc)?;
                within_raw_bound(&narrowed, record, endian)?;
                Ok(Prepared::Narrowed(Box::new(narrowed), trace))
            }
        }
    }

    /// The state [`prepare`](Self::prepare) starts from.
    pub(crate) fn state(&self) -> SampleState<'_> {
        match self {
            SampleSummary::One(r) => SampleState::One(r),
            SampleSummary::Many(m) => SampleState::Layouts(&m.layouts),
        }
    }

    /// The traces [`prepare`](Self::prepare) may take, and the one matched last.
    pub(crate) fn traces(&self) -> (usize, &[Trace]) {
        match self {
            SampleSummary::One(_) => (0, &[]),
            SampleSummary::Many(m) => (m.last_trace, &m.traces),
        }
    }

    /// The summary of a first SAMPLE.
    pub(crate) fn first(record: &[u8]) -> Self {
        SampleSummary::One(record.to_vec())
    }

    /// Adds `record`, as [`prepare`](Self::prepare) found; `derive`: keep what the derived
    /// headers need.
    pub(crate) fn add(&mut self, record: &[u8], endian: Endian, prepared: Prepared, derive: bool) {
        match (&mut *self, prepared) {
            (SampleSummary::Many(m), Prepared::Same(trace)) => m.add_same(record, endian, trace),
            (SampleSummary::Many(m), Prepared::Fits) => m.add(record, endian, None),
            (SampleSummary::Many(m), Prepared::Narrowed(layouts, trace)) => {
                let at = m.narrow(*layouts, trace);
                m.add(record, endian, Some(at));
            }
            (SampleSummary::One(first), Prepared::Narrowed(layouts, trace)) => {
                let mut m = ManySamples {
                    len_min: first.len(),
                    len_max: first.len(),
                    raw: RawByKey::default(),
                    layouts: FittingLayouts::default(),
                    traces: Vec::new(),
                    trace_ranges: Vec::new(),
                    next_trace: 0,
                    last_trace: 0,
                    words: derive.then(|| Box::new([(u64::MAX, 0); PREFIX_WORDS])),
                    cpu_most: CpuMost::default(),
                    recent: RecentRecord::default(),
                    same: SameWords::of(first),
                };
                m.cpu_most.add(first, endian);
                m.raw = RawByKey::of(layouts.raw_keys().to_vec(), first, endian);
                if let Some(w) = m.words.as_deref_mut() {
                    add_words(w, first, endian);
                }
                let at = m.narrow(*layouts, trace);
                m.add(record, endian, Some(at));
                *self = SampleSummary::Many(Box::new(m));
            }
            // A group in either state takes a first record, or a record that a trace of
            // another said fits, only as `prepare` said; kept as it was otherwise.
            (SampleSummary::One(_), Prepared::Same(_) | Prepared::Fits | Prepared::First)
            | (SampleSummary::Many(_), Prepared::First) => {}
        }
    }

    /// `layout` (with the RAW rule `rule`, when its format is known) agrees with every
    /// SAMPLE, or how one contradicts it; `stats` gets what the derived headers need of them,
    /// `ids` the ids they name (see [`IdsCheck`]).
    pub(crate) fn check(
        &self,
        layout: &SampleLayout,
        rule: Option<&RawRule>,
        endian: Endian,
        stats: &mut EventStats,
        ids: &mut IdsCheck<'_>,
    ) -> Result<(), Contradiction> {
        match self {
            SampleSummary::One(record) => {
                // One record fits a layout exactly when the full check passes it: its walk
                // under the layout ends at its size (no graph of every layout needed).
                if check_sample_len(layout, endian, record).is_err() {
                    let len = u16::try_from(record.len()).unwrap_or(u16::MAX);
                    return Err(Contradiction::SampleLength { min: len, max: len });
                }
                check_repeated_id(layout, endian, record)
                    .map_err(|_| Contradiction::IdFieldDiffers)?;
                check_read_ids(layout, endian, record, |id| ids.own.contains(&id), |_| true)
                    .map_err(|_| Contradiction::ReadIdOfAnotherEvent)?;
                read_group_ids(layout, endian, record, |id| ids.members.push(id));
                if let (Some(rule), Some(key)) = (rule, RawKey::of(layout)) {
                    let payload = key.payload(record, endian).unwrap_or_default();
                    rule.check(payload).map_err(Contradiction::Raw)?;
                }
                let mut w = [(u64::MAX, 0); PREFIX_WORDS];
                add_words(&mut w, record, endian);
                let mut cpus = CpuMost::default();
                cpus.add(record, endian);
                add_stats(&w, &cpus, layout, stats);
                Ok(())
            }
            SampleSummary::Many(m) => m.check(layout, rule, endian, stats, ids),
        }
    }

    /// The most `u32` at `at` (an offset) of the SAMPLEs, for a place CPU can be at.
    pub(crate) fn cpu_most(&self, at: usize, endian: Endian) -> Option<u32> {
        match self {
            SampleSummary::One(record) => {
                let b = record.get(at..)?.first_chunk::<4>()?;
                Some(endian.read_u32(*b))
            }
            SampleSummary::Many(m) => m.cpu_most.at(at),
        }
    }

    /// The RAW payloads' facts under `layout` (for a format that arrives later), when the
    /// layout has RAW.
    pub(crate) fn raw_under(&self, layout: &SampleLayout, endian: Endian) -> Option<RawFacts> {
        let key = RawKey::of(layout)?;
        match self {
            SampleSummary::One(record) => Some(RawFacts::of(key.payload(record, endian)?)),
            SampleSummary::Many(m) => m.raw.get(&key).cloned(),
        }
    }

    /// Bytes a summary of several SAMPLEs that fit `layouts` takes (about, before RAW
    /// facts), with one trace.
    pub(crate) fn many_bytes(layouts: &FittingLayouts, trace: &Trace) -> usize {
        std::mem::size_of::<ManySamples>() + layouts.heap_bytes() + trace.heap_bytes() + 48
    }

    /// Bytes it takes.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            SampleSummary::One(r) => r.capacity(),
            SampleSummary::Many(m) => {
                std::mem::size_of::<ManySamples>()
                    + m.layouts.heap_bytes()
                    + m.raw.heap_bytes()
                    + m.same.first.capacity()
                    + m.traces.iter().map(|t| t.heap_bytes() + 48).sum::<usize>()
            }
        }
    }
}

impl ManySamples {
    /// The trace `record` matches, if any: then it fits every layout the group fits, and
    /// adding it as [`Prepared::Same`] is what [`SampleSummary::prepare`] finds. A record
    /// of the length of the group's last is judged by the chunks where it differs from it.
    #[inline]
    pub(crate) fn trace_matching(&self, record: &[u8], endian: Endian) -> Option<TraceMatch> {
        if let Some((trace, changed)) = self.recent.changes(record) {
            let t = self.traces.get(trace)?;
            if changed == 0 || t.matches_changed(record, changed, endian) {
                return Some(TraceMatch {
                    trace,
                    changed: Some(changed),
                });
            }
        }
        let trace = trace_matching((self.last_trace, &self.traces), record, endian)?;
        Some(TraceMatch {
            trace,
            changed: None,
        })
    }

    /// The group's layouts are now `layouts` (fewer or the same): the facts of the ways to RAW
    /// they no longer have go.
    /// Returns where `trace` is kept.
    fn narrow(&mut self, layouts: FittingLayouts, trace: Trace) -> usize {
        // Its trace may go.
        self.recent.clear();
        self.raw.retain(layouts.raw_keys());
        self.layouts = layouts;
        // The ways to RAW may have changed: the payloads found by trace go.
        self.trace_ranges
            .iter_mut()
            .for_each(|r| *r = PayloadsAt::default());
        let at = self.next_trace % TRACES;
        self.next_trace = self.next_trace.wrapping_add(1);
        match self.traces.get_mut(at) {
            Some(slot) => *slot = trace,
            None => {
                self.traces.push(trace);
                self.trace_ranges.push(PayloadsAt::default());
                return self.traces.len() - 1;
            }
        }
        at
    }

    /// Adds a record that matched trace `trace` (its payloads are where the traced
    /// record's are).
    fn add(&mut self, record: &[u8], endian: Endian, trace: Option<usize>) {
        self.len_min = self.len_min.min(record.len());
        self.len_max = self.len_max.max(record.len());
        match trace {
            Some(t) => {
                self.last_trace = t;
                self.recent.set(record, t);
            }
            None => self.recent.clear(),
        }
        self.same.add(record);
        let ranges = trace.and_then(|t| self.trace_ranges.get_mut(t));
        self.raw.add(record, endian, ranges);
        let prefix = record
            .get(8..)
            .and_then(|r| r.first_chunk::<PREFIX_BYTES>());
        match (prefix, endian.is_big()) {
            // The commonest SAMPLE has every word kept: each read once, the byte order
            // chosen once.
            (Some(p), false) => self.add_prefix(p, u64::from_le_bytes, |v| v as u32),
            (Some(p), true) => self.add_prefix(p, u64::from_be_bytes, |v| (v >> 32) as u32),
            (None, _) => {
                if let Some(w) = self.words.as_deref_mut() {
                    add_words(w, record, endian);
                }
                self.cpu_most.add(record, endian);
            }
        }
    }

    /// [`add`](Self::add) of a record that matched trace `trace`: by the chunks where it
    /// differs from the group's last record when that matched the same trace.
    #[inline]
    fn add_same(&mut self, record: &[u8], endian: Endian, trace: usize) {
        match self.recent.changes(record) {
            Some((t, changed)) if t == trace => self.add_changed(record, endian, trace, changed),
            _ => self.add(record, endian, Some(trace)),
        }
    }

    /// [`add`](Self::add) of a record that differs from the group's last record in the
    /// chunks `changed` alone (and matched trace `trace`): only the facts of those chunks
    /// can change, since the last record's bytes are in every fact already.
    #[inline]
    fn add_changed(&mut self, record: &[u8], endian: Endian, trace: usize, changed: u64) {
        self.last_trace = trace;
        if changed == 0 {
            return;
        }
        self.recent.update(record, changed);
        self.same.add_changed(changed);
        let at = self.trace_ranges.get_mut(trace);
        match at {
            Some(PayloadsAt {
                generation,
                facts: Some(ranges),
                chunks,
            }) if *generation == self.raw.generation && ranges.len() == self.raw.facts.len() => {
                // Most changes (a time, a cpu) are outside every payload.
                if changed & *chunks != 0 {
                    for (facts, &(a, b)) in self.raw.facts.iter_mut().zip(ranges.iter()) {
                        if changed & chunks_of(a, b) != 0 {
                            facts.add(record.get(a..b).unwrap_or_default());
                        }
                    }
                }
            }
            at => self.raw.add(record, endian, at),
        }
        // The words after the header: chunks 1 to PREFIX_WORDS.
        let mut words = changed >> 1 & ((1 << PREFIX_WORDS) - 1);
        while words != 0 {
            let k = words.trailing_zeros() as usize;
            words &= words - 1;
            let at = 8 + 8 * k;
            let Some(b) = record.get(at..).and_then(|b| b.first_chunk::<8>()) else {
                continue;
            };
            let v = endian.read_u64(*b);
            if let Some(range) = self.words.as_deref_mut().and_then(|w| w.get_mut(k)) {
                widen(range, v);
            }
            if let (Some(most), Some(c)) = (self.cpu_most.0.get_mut(k), b.first_chunk::<4>()) {
                *most = (*most).max(endian.read_u32(*c));
            }
        }
    }

    /// [`add`](Self::add)'s words ([`WordRanges`], [`CpuMost`]) of a record with all
    /// [`PREFIX_WORDS`] words, each read by `u64s`; `cpu` is the first `u32` of its bytes.
    #[inline(always)]
    fn add_prefix(
        &mut self,
        prefix: &[u8; PREFIX_BYTES],
        u64s: fn([u8; 8]) -> u64,
        cpu: fn(u64) -> u32,
    ) {
        let mut words = prefix.chunks_exact(8);
        let values: [u64; PREFIX_WORDS] = std::array::from_fn(|_| {
            let word = words.next().and_then(|w| w.first_chunk::<8>());
            word.map_or(0, |w| u64s(*w))
        });
        if let Some(w) = self.words.as_deref_mut() {
            for (range, &v) in w.iter_mut().zip(&values) {
                widen(range, v);
            }
        }
        for (most, &v) in self.cpu_most.0.iter_mut().zip(&values) {
            *most = (*most).max(cpu(v));
        }
    }

    fn check(
        &self,
        layout: &SampleLayout,
        rule: Option<&RawRule>,
        endian: Endian,
        stats: &mut EventStats,
        ids: &mut IdsCheck<'_>,
    ) -> Result<(), Contradiction> {
        if !self.layouts.holds(layout) {
            return Err(Contradiction::SampleLength {
                min: u16::try_from(self.len_min).unwrap_or(u16::MAX),
                max: u16::try_from(self.len_max).unwrap_or(u16::MAX),
            });
        }
        self.check_ids(layout, endian, ids)?;
        if let (Some(rule), Some(key)) = (rule, RawKey::of(layout)) {
            match self.raw.get(&key) {
                Some(facts) => facts.check_rule(rule)?,
                None => return Err(Contradiction::Unattributable(NO_RAW_FACTS)),
            }
        }
        if let Some(w) = self.words.as_deref() {
            add_stats(w, &self.cpu_most, layout, stats);
        }
        Ok(())
    }

    /// The ids the SAMPLEs name under `layout` besides the one their event is found by
    /// (see [`check_repeated_id`], [`check_read_ids`]), from the words the same in all of
    /// them: an ID beside IDENTIFIER must be it, a single READ value's id one of `ids.own`;
    /// a READ group's members go to `ids.members`.
    fn check_ids(
        &self,
        layout: &SampleLayout,
        endian: Endian,
        ids: &mut IdsCheck<'_>,
    ) -> Result<(), Contradiction> {
        if let Some(at) = layout.repeated_id_offset() {
            // IDENTIFIER is the first field.
            match (self.same.at(8, endian), self.same.at(at, endian)) {
                (Some(identifier), Some(id)) if id == identifier => {}
                _ => return Err(Contradiction::IdFieldDiffers),
            }
        }
        let (Some(read), true) = (layout.read_offset(), layout.read_format & rf::ID != 0) else {
            return Ok(());
        };
        let word = |at: usize| self.same.at(at, endian).ok_or(Contradiction::ReadIdsVary);
        let times = (layout.read_format & (rf::TOTAL_TIME_ENABLED | rf::TOTAL_TIME_RUNNING))
            .count_ones() as usize;
        // A single value's id, or the first member's value: after the value or the count,
        // and the times.
        let after = read + 8 + 8 * times;
        if layout.read_format & rf::GROUP == 0 {
            let id = word(after)?;
            return match ids.own.contains(&id) {
                true => Ok(()),
                false => Err(Contradiction::ReadIdOfAnotherEvent),
            };
        }
        let members = word(read)?;
        let stride = 16 + 8 * usize::from(layout.read_format & rf::LOST != 0);
        // Ids past the words kept are not the same in all (`word` says so): the loop ends.
        for k in 0..members {
            let at = usize::try_from(k)
                .ok()
                .and_then(|k| k.checked_mul(stride))
                .and_then(|o| o.checked_add(after + 8))
                .ok_or(Contradiction::ReadIdsVary)?;
            ids.members.push(word(at)?);
        }
        Ok(())
    }
}

/// The ids a description checks the records written before it by: its own, and (found)
/// the members of their READ groups, which a description must have by finish.
#[derive(Debug, Default)]
pub(crate) struct IdsCheck<'a> {
    pub(crate) own: &'a [u64],
    pub(crate) members: Vec<u64>,
}

impl<'a> IdsCheck<'a> {
    /// The check of a description of ids `own`, nothing found yet.
    pub(crate) fn of(own: &'a [u64]) -> Self {
        IdsCheck {
            own,
            members: Vec::new(),
        }
    }
}

/// The [`RawFacts`] of each way to RAW, one for the ways whose payloads have been the same
/// bytes of every record so far (several ways often are: a READ group or a CALLCHAIN of no
/// entries before RAW puts it where fixed fields would).
#[derive(Clone, Debug, Default)]
struct RawByKey {
    /// Each way, and the index of its facts.
    keys: Vec<(RawKey, usize)>,
    facts: Vec<RawFacts>,
    /// Changes whenever `keys` or which facts they use do.
    generation: u64,
}

/// Where the payloads of the records like one are, as [`RawByKey::add`] found them: each
/// facts' payload, while `generation` is the ways'.
#[derive(Clone, Debug, Default)]
struct PayloadsAt {
    generation: u64,
    facts: Option<Vec<(usize, usize)>>,
    /// The 8-byte chunks those payloads lie in (bits, as [`chunks_of`] counts them).
    chunks: u64,
}

impl RawByKey {
    /// The facts of `keys` for a first record.
    fn of(keys: Vec<RawKey>, record: &[u8], endian: Endian) -> Self {
        let mut out = RawByKey::default();
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for k in keys {
            let Some(range) = k.payload_range(record, endian) else {
                continue;
            };
            let i = match seen.iter().position(|r| *r == range) {
                Some(i) => i,
                None => {
                    seen.push(range);
                    let payload = record.get(range.0..range.1).unwrap_or_default();
                    out.facts.push(RawFacts::of(payload));
                    out.facts.len() - 1
                }
            };
            out.keys.push((k, i));
        }
        out
    }

    /// Keeps the ways in `live` (and the facts they use).
    fn retain(&mut self, live: &[RawKey]) {
        self.generation = self.generation.wrapping_add(1);
        self.keys.retain(|(k, _)| live.contains(k));
        let mut new_index = vec![usize::MAX; self.facts.len()];
        // Each facts kept moves once, to its first way's new index.
        let mut facts: Vec<Option<RawFacts>> = std::mem::take(&mut self.facts)
            .into_iter()
            .map(Some)
            .collect();
        for (_, f) in self.keys.iter_mut() {
            let Some(slot) = new_index.get_mut(*f) else {
                continue;
            };
            if *slot == usize::MAX {
                *slot = self.facts.len();
                if let Some(old) = facts.get_mut(*f).and_then(Option::take) {
                    self.facts.push(old);
                }
            }
            *f = *slot;
        }
    }

    /// Adds a record's payloads. Ways that shared facts and whose payloads differ in it get
    /// facts of their own (a copy of what they shared). Every record of the group has each
    /// kept way's payload (it fits a layout that has it); a way one lacked could not be
    /// answered, and goes. `at`: where the payloads of records like this one are, when
    /// found already (else they are found, and kept there).
    fn add(&mut self, record: &[u8], endian: Endian, at: Option<&mut PayloadsAt>) {
        if let Some(PayloadsAt {
            generation,
            facts: Some(ranges),
            ..
        }) = at.as_deref()
        {
            if *generation == self.generation && ranges.len() == self.facts.len() {
                for (facts, &(a, b)) in self.facts.iter_mut().zip(ranges) {
                    facts.add(record.get(a..b).unwrap_or_default());
                }
                return;
            }
        }
        let mut ranges: Vec<Option<(usize, usize)>> = vec![None; self.facts.len()];
        // (facts shared, payload, the copy made for the ways with that payload)
        let mut splits: Vec<(usize, (usize, usize), usize)> = Vec::new();
        let before = (self.keys.len(), self.facts.len());
        let mut i = 0;
        while let Some((key, f)) = self.keys.get_mut(i) {
            let Some(range) = key.payload_range(record, endian) else {
                self.keys.remove(i);
                continue;
            };
            i += 1;
            match ranges.get(*f).copied().flatten() {
                None => {
                    if let Some(slot) = ranges.get_mut(*f) {
                        *slot = Some(range);
                    }
                }
                Some(r) if r == range => {}
                Some(_) => {
                    let old = *f;
                    *f = match splits.iter().find(|(o, r, _)| *o == old && *r == range) {
                        Some(&(_, _, copy)) => copy,
                        None => {
                            let Some(copy) = self.facts.get(old).cloned() else {
                                continue;
                            };
                            self.facts.push(copy);
                            ranges.push(Some(range));
                            splits.push((old, range, self.facts.len() - 1));
                            self.facts.len() - 1
                        }
                    };
                }
            }
        }
        if (self.keys.len(), self.facts.len()) != before {
            self.generation = self.generation.wrapping_add(1);
        }
        for (facts, range) in self.facts.iter_mut().zip(&ranges) {
            if let Some((a, b)) = *range {
                facts.add(record.get(a..b).unwrap_or_default());
            }
        }
        if let Some(at) = at {
            // Facts no way uses any more (all of them parted) have no payload: not kept.
            let all: Option<Vec<(usize, usize)>> = ranges.into_iter().collect();
            let chunks = all
                .iter()
                .flatten()
                .fold(0, |m, &(a, b)| m | chunks_of(a, b));
            *at = PayloadsAt {
                generation: self.generation,
                facts: all,
                chunks,
            };
        }
    }

    fn get(&self, key: &RawKey) -> Option<&RawFacts> {
        let f = self.keys.iter().find(|(k, _)| k == key)?.1;
        self.facts.get(f)
    }

    fn heap_bytes(&self) -> usize {
        self.keys
            .iter()
            .map(|(k, _)| 64 + k.heap_bytes())
            .sum::<usize>()
            + self.facts.iter().map(RawFacts::heap_bytes).sum::<usize>()
    }
}

/// Never said: a layout the SAMPLEs fit has its RAW payload in each of them.
const NO_RAW_FACTS: &str = "strict mode lost what the RAW payloads of these records say";

/// What the other kernel records (COMM, MMAP2, FORK, …) of a group say: the bytes each has
/// past its type's body (its `sample_id` trailer), as `(least, most)` for types of one
/// length and the least for types with a variable part; the longest trailer the names of
/// those that end in one leave their NULs before (the least of [`name_room`]); and for the
/// derived headers, the most `u32` 8 and 16 bytes from the end (where a trailer's CPU is).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SideBandSummary {
    exact: Option<(i64, i64)>,
    at_least: Option<i64>,
    names: Option<i64>,
    /// In a big-endian output, the shortest READ longer than 48 bytes (see
    /// [`reads_fit`](Self::reads_fit)).
    reads: Option<i64>,
    cpu: Option<[u32; 2]>,
    switches: Option<SwitchFacts>,
    /// Bit `k`: a record's word `8k` bytes back from its end differs from its last word
    /// (where a trailer's ID and IDENTIFIER are, in a layout with both).
    ids_differ: u8,
}

/// The places back from a record's end (in words) where a trailer's ID can be when its
/// IDENTIFIER is the last word: before CPU and STREAM_ID, or either, or neither.
const TRAILER_ID_WORDS: std::ops::RangeInclusive<usize> = 2..=4;

/// What a group's context switches and ITRACE_STARTs say to a trace decoder that keeps
/// each cpu's current thread by their cpu: the first and how many, and for each kind they
/// have without one ([`WITHOUT_CPU`]), the most `u32` 8 and 16 bytes from the end (where a
/// trailer's CPU is) among the records of that kind.
#[derive(Clone, Copy, Debug)]
struct SwitchFacts {
    first: FirstRecord,
    records: u64,
    cpu_most: [Option<[u32; 2]>; WITHOUT_CPU.len()],
}

/// The most of `a` and `b`, word by word.
fn most(a: Option<[u32; 2]>, b: Option<[u32; 2]>) -> Option<[u32; 2]> {
    match (a, b) {
        (Some(a), Some(b)) => Some([a[0].max(b[0]), a[1].max(b[1])]),
        (a, b) => a.or(b),
    }
}

/// The switch kinds a layout gives a group's records (see [`RecordSummary::switches_under`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupSwitches {
    pub(crate) kinds: Kinds,
    pub(crate) first: FirstRecord,
    pub(crate) records: u64,
}

/// The `u32`s 8 and 16 bytes from the end of `record` (0 where it has none).
fn u32s_from_end(record: &[u8], endian: Endian) -> [u32; 2] {
    [8, 16].map(|back| {
        let at = record.len().checked_sub(back);
        let b = at.and_then(|at| record.get(at..)?.first_chunk::<4>());
        b.map_or(0, |b| endian.read_u32(*b))
    })
}

/// What a group of records written before their description says (see the module).
#[derive(Clone, Debug)]
pub(crate) struct RecordSummary {
    pub(crate) first: FirstRecord,
    pub(crate) records: u64,
    pub(crate) samples: Option<SampleSummary>,
    pub(crate) side_band: Option<SideBandSummary>,
}

impl RecordSummary {
    /// A group whose first record is at `first`, with nothing in it yet.
    pub(crate) fn new(first: FirstRecord) -> Self {
        RecordSummary {
            first,
            records: 0,
            samples: None,
            side_band: None,
        }
    }

    /// The groups `a` and `b` as one (the first record the earlier of theirs).
    pub(crate) fn joined(a: Option<RecordSummary>, b: Option<RecordSummary>) -> Option<Self> {
        match (a, b) {
            (Some(mut a), Some(b)) => {
                if b.first.pos < a.first.pos {
                    a.first = b.first;
                }
                a.records = a.records.saturating_add(b.records);
                a.samples = a.samples.or(b.samples);
                a.side_band = match (a.side_band, b.side_band) {
                    (Some(mut x), Some(y)) => {
                        x.merge(&y);
                        Some(x)
                    }
                    (x, y) => x.or(y),
                };
                Some(a)
            }
            (a, b) => a.or(b),
        }
    }

    /// Adds a SAMPLE that the group's trace `found` matched
    /// ([`ManySamples::trace_matching`], nothing added since); `derive`: keep what the
    /// derived headers need.
    #[inline]
    pub(crate) fn add_matched(
        &mut self,
        record: &[u8],
        endian: Endian,
        found: TraceMatch,
        derive: bool,
    ) {
        match (self.samples.as_mut(), found.changed) {
            (Some(SampleSummary::Many(m)), Some(changed)) => {
                self.records = self.records.saturating_add(1);
                m.add_changed(record, endian, found.trace, changed);
            }
            _ => self.add_sample(record, endian, Prepared::Same(found.trace), derive),
        }
    }

    /// Adds a SAMPLE, as [`SampleSummary::prepare`] found.
    pub(crate) fn add_sample(
        &mut self,
        record: &[u8],
        endian: Endian,
        prepared: Prepared,
        derive: bool,
    ) {
        self.records = self.records.saturating_add(1);
        match self.samples.as_mut() {
            Some(s) => s.add(record, endian, prepared, derive),
            None => self.samples = Some(SampleSummary::first(record)),
        }
    }

    /// Adds a kernel record other than SAMPLE, written at `at`.
    pub(crate) fn add_side_band(
        &mut self,
        record: &[u8],
        endian: Endian,
        derive: bool,
        at: FirstRecord,
    ) {
        self.records = self.records.saturating_add(1);
        let side = self.side_band.get_or_insert_with(SideBandSummary::default);
        side.add(at.type_, record, endian, derive);
        if is_switch(at.type_) {
            side.add_switch(record, endian, at);
        }
    }

    /// The switch kinds of the group's SAMPLEs when they are of a `sched:sched_switch`
    /// event whose cpu is at `cpu_at` ([`sched_switch_cpu_at`]): 0 when it has none.
    ///
    /// [`sched_switch_cpu_at`]: crate::check::switch_kinds::sched_switch_cpu_at
    pub(crate) fn sched_switch_kinds(&self, cpu_at: usize, endian: Endian) -> Kinds {
        let most = self.samples.as_ref().map(|s| s.cpu_most(cpu_at, endian));
        match most {
            None => 0,
            // A SAMPLE that passed the layout's check has its CPU there.
            Some(most) => sched_switch_sample_kinds(most.unwrap_or(u32::MAX)),
        }
    }

    /// The switch kinds `layout` gives the group's context switches and ITRACE_STARTs
    /// (see [`SwitchKinds`]), if it has any.
    pub(crate) fn switches_under(&self, layout: &SampleLayout) -> Option<GroupSwitches> {
        let facts = self.side_band?.switches?;
        let bits = layout.sample_id_bits();
        // The trailer's CPU is its last field but IDENTIFIER.
        let k = usize::from(bits & sample_type::IDENTIFIER != 0);
        let with_cpu = bits & sample_type::CPU != 0;
        let mut kinds = 0;
        for (&kind, most) in WITHOUT_CPU.iter().zip(facts.cpu_most) {
            let Some(most) = most else { continue };
            let cpu = most.get(k).copied().filter(|_| with_cpu);
            if !SwitchKinds::keeps_thread(cpu) {
                kinds |= kind;
            }
        }
        Some(GroupSwitches {
            kinds,
            first: facts.first,
            records: facts.records,
        })
    }

    /// `layout` (with the RAW rule `rule`, when its format is known) agrees with the
    /// records, or how they contradict it; `stats` gets what the derived headers need of them,
    /// `ids` the ids they name (see [`IdsCheck`]).
    pub(crate) fn check(
        &self,
        layout: &SampleLayout,
        rule: Option<&RawRule>,
        endian: Endian,
        stats: &mut EventStats,
        ids: &mut IdsCheck<'_>,
    ) -> Result<(), Contradiction> {
        if let Some(s) = &self.samples {
            s.check(layout, rule, endian, stats, ids)?;
        }
        if let Some(side) = &self.side_band {
            let trailer = layout.sample_id_len();
            let trailer16 = u16::try_from(trailer).unwrap_or(u16::MAX);
            if !side.fits(trailer) {
                return Err(Contradiction::SideBandLength { trailer: trailer16 });
            }
            if !side.names_fit(trailer) {
                return Err(Contradiction::SideBandName { trailer: trailer16 });
            }
            if !side.reads_fit(layout) {
                return Err(Contradiction::ReadSampleIdUnswapped { trailer: trailer16 });
            }
            if !side.ids_agree(layout) {
                return Err(Contradiction::IdFieldDiffers);
            }
            side.add_stats(layout, stats);
        }
        Ok(())
    }

    /// The RAW payloads' facts under `layout` (see [`SampleSummary::raw_under`]).
    pub(crate) fn raw_under(&self, layout: &SampleLayout, endian: Endian) -> Option<RawFacts> {
        self.samples.as_ref()?.raw_under(layout, endian)
    }

    /// Bytes it takes.
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.samples.as_ref().map_or(0, SampleSummary::heap_bytes)
    }
}

/// What the derived headers get from SAMPLEs of `layout` whose words are `w` and whose
/// cpus `cpus`.
fn add_stats(w: &WordRanges, cpus: &CpuMost, layout: &SampleLayout, stats: &mut EventStats) {
    let st = layout.sample_type;
    let time_word = sample_type::sample_offset(st, sample_type::TIME).and_then(word_index);
    if let Some(&(least, most)) = time_word.and_then(|k| w.get(k)) {
        stats.add_time(least);
        stats.add_time(most);
    }
    if let Some(cpu) = sample_type::sample_offset(st, sample_type::CPU).and_then(|at| cpus.at(at)) {
        stats.add_cpu(cpu);
    }
}

/// The index, among the words after a SAMPLE's header, of the word at offset `at`.
fn word_index(at: usize) -> Option<usize> {
    at.checked_sub(8).filter(|k| k % 8 == 0).map(|k| k / 8)
}

fn add_words(w: &mut WordRanges, record: &[u8], endian: Endian) {
    let words = record.get(8..).unwrap_or_default().chunks_exact(8);
    for (range, word) in w.iter_mut().zip(words) {
        let Some(b) = word.first_chunk::<8>() else {
            break;
        };
        let v = endian.read_u64(*b);
        widen(range, v);
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
        self.names = match (self.names, other.names) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.reads = match (self.reads, other.reads) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.cpu = most(self.cpu, other.cpu);
        self.ids_differ |= other.ids_differ;
        self.switches = match (self.switches, other.switches) {
            (Some(mut a), Some(b)) => {
                if b.first.pos < a.first.pos {
                    a.first = b.first;
                }
                a.records = a.records.saturating_add(b.records);
                for (x, y) in a.cpu_most.iter_mut().zip(b.cpu_most) {
                    *x = most(*x, y);
                }
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }

    fn add_switch(&mut self, record: &[u8], endian: Endian, at: FirstRecord) {
        let kinds = SwitchKinds::of(at.type_, header_misc(endian, record));
        let cpu = Some(u32s_from_end(record, endian));
        let facts = self.switches.get_or_insert(SwitchFacts {
            first: at,
            records: 0,
            cpu_most: [None; WITHOUT_CPU.len()],
        });
        facts.records = facts.records.saturating_add(1);
        for (&kind, m) in WITHOUT_CPU.iter().zip(&mut facts.cpu_most) {
            if kinds.without_cpu & kind != 0 {
                *m = most(*m, cpu);
            }
        }
    }

    fn add(&mut self, type_: u32, record: &[u8], endian: Endian, derive: bool) {
        let past = |body: u16| (record.len() as i64).saturating_sub(8 + i64::from(body));
        let body = record_type::info(type_).map(|i| counted_body(endian, type_, i.body, record));
        match body {
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
        if let Some(room) = name_room(type_, record) {
            self.names = Some(self.names.map_or(room, |r| r.min(room)));
        }
        let back = |k: usize| {
            record
                .len()
                .checked_sub(8 * k)
                .and_then(|at| record.get(at..at + 8))
        };
        for k in TRAILER_ID_WORDS {
            if back(k) != back(1) {
                self.ids_differ |= 1 << k;
            }
        }
        if type_ == record_type::READ && endian == Endian::Big && record.len() > 48 {
            let len = record.len() as i64;
            self.reads = Some(self.reads.map_or(len, |r| r.min(len)));
        }
        if derive {
            let cpu = self.cpu.get_or_insert([0, 0]);
            for (most, c) in cpu.iter_mut().zip(u32s_from_end(record, endian)) {
                *most = (*most).max(c);
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

    /// Every big-endian READ's trailer, laid out by `layout`, starts where perf 6.1 swaps
    /// it: what [`check_read_trailer`](crate::check::record_rules::check_read_trailer) asks
    /// of each. The shortest settles it: a longer one starts its trailer later.
    fn reads_fit(&self, layout: &SampleLayout) -> bool {
        let trailer = layout.sample_id_len() as i64;
        let start = read_trailer_start(layout) as i64;
        trailer == 0 || self.reads.is_none_or(|len| len - trailer >= start)
    }

    /// Every record's trailer laid out by `layout` holds the same id in ID and IDENTIFIER
    /// when it has both: what
    /// [`check_trailer_repeated_id`](crate::check::record_rules::check_trailer_repeated_id)
    /// asks of each.
    fn ids_agree(&self, layout: &SampleLayout) -> bool {
        layout
            .trailer_repeated_id_from_end()
            .is_none_or(|back| self.ids_differ >> (back / 8) & 1 == 0)
    }

    /// Every name holds its NUL before a `trailer`-byte trailer: what strict mode's check
    /// of a record's name asks of each.
    fn names_fit(&self, trailer: usize) -> bool {
        self.names.is_none_or(|room| room >= trailer as i64)
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code: a failed unwrap fails the test
mod tests {
    use super::*;
    use crate::check::record_rules::with_parsed;
    use perf_abi::{record_fields::REGS_ABI_64, sample_type as st};
    use perf_encode::features::DynamicFields;
    use perf_encode::records::{
        BranchEntry, BranchStack, PidTid, ReadCounters, ReadValue, ReadValues, Regs, Sample,
        SampleCpu, SampleRecord, StackUser,
    };
    use perf_encode::to_vec;

    use crate::check::test_rng::Rng;

    /// Every `sample_type` bit a layout can have.
    const BITS: [u64; 25] = [
        st::IDENTIFIER,
        st::IP,
        st::TID,
        st::TIME,
        st::ADDR,
        st::ID,
        st::STREAM_ID,
        st::CPU,
        st::PERIOD,
        st::READ,
        st::CALLCHAIN,
        st::RAW,
        st::BRANCH_STACK,
        st::REGS_USER,
        st::STACK_USER,
        st::WEIGHT,
        st::WEIGHT_STRUCT,
        st::DATA_SRC,
        st::TRANSACTION,
        st::REGS_INTR,
        st::PHYS_ADDR,
        st::CGROUP,
        st::DATA_PAGE_SIZE,
        st::CODE_PAGE_SIZE,
        st::AUX,
    ];

    /// A layout: the fixed fields at random, each field of varying length one time in four.
    fn layout(rng: &mut Rng) -> SampleLayout {
        let mut sample_type = 0;
        for (i, bit) in BITS.iter().enumerate() {
            let fixed = i < 9 || (15..=24).contains(&i) && i != 19 && i != 24;
            if rng.chance(if fixed { 2 } else { 4 }) {
                sample_type |= bit;
            }
        }
        SampleLayout {
            sample_type,
            read_format: rng.below(32),
            regs_user: rng.below(4) as u32,
            regs_intr: rng.below(3) as u32,
            branch_hw_index: rng.chance(2),
            sample_id_all: true,
        }
    }

    /// `l` with one thing changed: a field, the read format, a register count, hw_idx.
    fn near(rng: &mut Rng, l: &SampleLayout) -> SampleLayout {
        let mut l = *l;
        match rng.below(4) {
            0 => l.sample_type ^= BITS[rng.below(25) as usize],
            1 => l.read_format ^= 1 << rng.below(5),
            2 => l.regs_user = (l.regs_user + 1 + rng.below(2) as u32) % 4,
            _ => l.branch_hw_index = !l.branch_hw_index,
        }
        l
    }

    /// A RAW payload of `len` bytes: common_type 77 or 78 at 0, and `__data_loc`-like words
    /// (offset, length) that point inside or not, at random places.
    fn raw(rng: &mut Rng, len: usize, endian: Endian) -> Vec<u8> {
        let mut raw: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if len >= 2 && !rng.chance(8) {
            raw[..2].copy_from_slice(
                &endian.u16_bytes(77 + rng.below(2) as u16 * u16::from(rng.chance(8))),
            );
        }
        for _ in 0..rng.below(8) {
            let at = rng.below(len.max(1) as u64) as usize;
            let (off, n) = (rng.below(len as u64 + 8) as u32, rng.below(16) as u32);
            if at + 4 <= len {
                raw[at..at + 4].copy_from_slice(&endian.u32_bytes(n << 16 | off));
                // At times a string's NUL in the data (of a `__data_loc`, or the
                // `__rel_loc` there).
                let start = off as usize + if rng.chance(2) { at + 4 } else { 0 };
                if n > 0 && rng.chance(2) {
                    if let Some(b) = raw.get_mut(start + rng.below(u64::from(n)) as usize) {
                        *b = 0;
                    }
                }
            }
        }
        raw
    }

    /// A SAMPLE of layout `l` with random values and counts (RAW `raw`).
    fn sample(rng: &mut Rng, l: &SampleLayout, raw: &[u8], endian: Endian) -> Vec<u8> {
        let chain: Vec<u64> = (0..rng.below(4)).map(|_| rng.next()).collect();
        // READ ids: the event's own (7), and members 20, 21, …; now and then others.
        let members: Vec<ReadValue> = (0..=rng.below(3))
            .map(|i| ReadValue {
                value: rng.next(),
                id: (l.read_format & rf::ID != 0).then(|| if rng.chance(20) { 9 } else { 20 + i }),
                lost: (l.read_format & rf::LOST != 0).then(|| rng.below(9)),
            })
            .collect();
        let counters = match l.read_format & rf::GROUP != 0 {
            true => ReadCounters::Group(&members),
            false => ReadCounters::One(ReadValue {
                value: rng.below(9),
                id: (l.read_format & rf::ID != 0).then(|| if rng.chance(10) { 8 } else { 7 }),
                lost: (l.read_format & rf::LOST != 0).then(|| rng.below(9)),
            }),
        };
        let read = ReadValues {
            time_enabled: (l.read_format & rf::TOTAL_TIME_ENABLED != 0).then(|| rng.next()),
            time_running: (l.read_format & rf::TOTAL_TIME_RUNNING != 0).then(|| rng.below(9)),
            counters,
        };
        let branches: Vec<BranchEntry> = (0..rng.below(3))
            .map(|_| BranchEntry {
                from: rng.next(),
                to: rng.below(9),
                flags: 0,
            })
            .collect();
        let values: Vec<u64> = (0..8).map(|_| rng.below(9)).collect();
        let regs = |rng: &mut Rng, n: u32| match rng.chance(3) {
            true => Regs { abi: 0, regs: &[] },
            false => Regs {
                abi: REGS_ABI_64,
                regs: &values[..n as usize],
            },
        };
        let stack: Vec<u8> = (0..rng.below(3) * 8).map(|_| rng.next() as u8).collect();
        let aux: Vec<u8> = (0..rng.below(3) * 8).map(|_| rng.below(3) as u8).collect();
        let small = |rng: &mut Rng| match rng.chance(2) {
            true => rng.below(24),
            false => rng.next(),
        };
        let s = Sample {
            identifier: Some(7),
            ip: Some(small(rng)),
            tid: Some(PidTid {
                pid: rng.below(3) as u32,
                tid: 0,
            }),
            time: Some(small(rng)),
            addr: Some(small(rng)),
            // Now and then an ID field that is not the IDENTIFIER.
            id: Some(if rng.chance(10) { 8 } else { 7 }),
            stream_id: Some(small(rng)),
            cpu: Some(SampleCpu::new(rng.below(3) as u32)),
            period: Some(small(rng)),
            read: Some(read),
            callchain: Some(&chain),
            raw: Some(raw),
            branch_stack: Some(BranchStack {
                hw_idx: l.branch_hw_index.then(|| rng.below(4)),
                entries: &branches,
            }),
            regs_user: Some(regs(rng, l.regs_user)),
            stack_user: Some(StackUser {
                dyn_size: if stack.is_empty() {
                    0
                } else {
                    rng.below(stack.len() as u64 + 1)
                },
                data: &stack,
            }),
            weight: Some(small(rng)),
            data_src: Some(small(rng)),
            transaction: Some(small(rng)),
            regs_intr: Some(regs(rng, l.regs_intr)),
            phys_addr: Some(small(rng)),
            cgroup: Some(small(rng)),
            data_page_size: Some(small(rng)),
            code_page_size: Some(small(rng)),
            aux: Some(&aux),
            ..Default::default()
        }
        .masked(l);
        to_vec(
            &SampleRecord {
                layout: l,
                sample: &s,
                misc: 0,
            },
            endian,
        )
        .unwrap()
    }

    /// `record` with a few bytes changed, or 8 more or fewer (its size field kept right).
    fn mutate(rng: &mut Rng, mut record: Vec<u8>, endian: Endian) -> Vec<u8> {
        match rng.below(3) {
            0 if record.len() > 16 => record.truncate(record.len() - 8),
            1 => record.extend_from_slice(&[0; 8]),
            _ => {
                let at = 8 + rng.below(record.len() as u64 - 8) as usize;
                record[at] = rng.below(3) as u8;
            }
        }
        let len = record.len() as u16;
        record[6..8].copy_from_slice(&endian.u16_bytes(len));
        record
    }

    /// A rule for payloads of `raw`'s kind: its common_type, its fields' extent, dynamic
    /// fields anywhere (past byte 512 too, and off the 4-byte grid), common_type elsewhere
    /// than 0 at times.
    fn rule(rng: &mut Rng, payload_len: usize) -> perf_encode::features::TracepointRawRule {
        let mut dynamic = DynamicFields::default();
        for _ in 0..rng.below(4) {
            let at = rng.below(payload_len as u64 + 4) as u32;
            dynamic.push(at, rng.chance(2));
            if rng.chance(2) {
                dynamic.mark_string(at);
            }
        }
        perf_encode::features::TracepointRawRule {
            common_type: 77,
            common_type_offset: if rng.chance(6) {
                rng.below(payload_len as u64 + 2) as u32
            } else {
                0
            },
            min_len: rng.below(payload_len as u64 + 8) as u32,
            dynamic,
        }
    }

    /// Mostly, each of `rule`'s dynamic fields in `raw` points at data within it (in the
    /// rule's byte order), whose bytes are not 0 but for, at times, a NUL.
    fn point_fields(rng: &mut Rng, raw: &mut [u8], rule: &RawRule) {
        for (field, relative, _) in rule.rule.dynamic.fields() {
            let (q, len) = (field as usize, raw.len());
            let from = if relative { q + 4 } else { 0 };
            if q + 4 > len || from > len || rng.chance(4) {
                continue;
            }
            let start = from + rng.below((len - from) as u64 + 1) as usize;
            let n = rng.below((len - start) as u64 + 1) as usize;
            raw[q..q + 4].copy_from_slice(
                &rule
                    .order
                    .u32_bytes(((n as u32) << 16) | (start - from) as u32),
            );
            for i in (start..start + n).filter(|i| !(q..q + 4).contains(i)) {
                if raw[i] == 0 {
                    raw[i] = 1;
                }
            }
            if n > 0 && rng.chance(2) {
                let at = start + rng.below(n as u64) as usize;
                if !(q..q + 4).contains(&at) {
                    raw[at] = 0;
                }
            }
        }
    }

    /// `record` (of layout `l`) with RAW's size word counting 4 bytes fewer (its padding
    /// left uncounted, as some writers do), when it has RAW.
    fn uncount_raw_padding(l: &SampleLayout, record: &mut [u8], endian: Endian) {
        let at = perf_encode::records::parse_sample(l, endian, record)
            .ok()
            .and_then(|s| s.raw)
            .filter(|raw| raw.len() >= 4)
            .map(|raw| raw.as_ptr() as usize - record.as_ptr() as usize - 4);
        if let Some(w) = at.and_then(|at| record.get_mut(at..at + 4)) {
            let size = endian.read_u32(w.try_into().unwrap());
            w.copy_from_slice(&endian.u32_bytes(size - 4));
        }
    }

    /// The full check of strict mode on a SAMPLE its description (of id `own`) came before.
    fn full_check(
        l: &SampleLayout,
        rule: Option<&RawRule>,
        r: &[u8],
        endian: Endian,
        own: u64,
    ) -> bool {
        if check_sample_len(l, endian, r).is_err()
            || check_repeated_id(l, endian, r).is_err()
            || check_read_ids(l, endian, r, |id| id == own, |_| true).is_err()
        {
            return false;
        }
        let Some(rule) = rule else { return true };
        with_parsed(l, endian, r, |s, _| {
            s.raw.map_or(Ok(()), |raw| rule.check(raw))
        })
        .is_ok_and(|checked| checked.is_ok())
    }

    /// The id of the event the tests' SAMPLEs are of (their READ value's, mostly).
    const OWN: u64 = 7;

    /// The ids of a SAMPLE's READ values under `l`, in order (none without READ).
    fn read_id_list(l: &SampleLayout, endian: Endian, r: &[u8]) -> Vec<Option<u64>> {
        use perf_encode::records::ParsedReadCounters;
        with_parsed(l, endian, r, |s, _| match s.read.map(|r| r.counters) {
            Some(ParsedReadCounters::One(v)) => vec![v.id],
            Some(ParsedReadCounters::Group(g)) => g.iter().map(|v| v.id).collect(),
            None => Vec::new(),
        })
        .unwrap_or_default()
    }

    /// [`RecordSummary::check`] as a description of id `own` makes it: its verdict, and the
    /// READ group members it finds.
    fn check_as(
        own: u64,
        summary: &RecordSummary,
        l: &SampleLayout,
        rule: Option<&RawRule>,
        endian: Endian,
        stats: &mut EventStats,
    ) -> (Result<(), Contradiction>, Vec<u64>) {
        let own = [own];
        let mut ids = IdsCheck::of(&own);
        let verdict = summary.check(l, rule, endian, stats, &mut ids);
        (verdict, ids.members)
    }

    /// The facts of RAW payloads, added one by one, are what each says taken together:
    /// the bytes the same in all, and each offset's least room, for payloads longer and
    /// shorter than the first, past 64 and 128 bytes, differing in a few bytes or many.
    #[test]
    fn raw_facts_are_those_of_every_payload() {
        let mut rng = Rng(0x5eed);
        for case in 0..3_000 {
            let endian = if case % 2 == 0 {
                Endian::Little
            } else {
                Endian::Big
            };
            let base_len = 4 + rng.below(200) as usize;
            let base = raw(&mut rng, base_len, endian);
            let payloads: Vec<Vec<u8>> = (0..1 + rng.below(6))
                .map(|_| {
                    let mut p = base.clone();
                    match rng.below(4) {
                        0 => p.truncate(rng.below(base_len as u64 + 1) as usize),
                        1 => p.extend((0..rng.below(80)).map(|_| rng.next() as u8)),
                        _ => {}
                    }
                    for _ in 0..rng.below(6) {
                        if !p.is_empty() {
                            let at = rng.below(p.len() as u64) as usize;
                            p[at] = rng.next() as u8;
                        }
                    }
                    p
                })
                .collect();
            let mut facts = RawFacts::of(&payloads[0]);
            for p in &payloads[1..] {
                facts.add(p);
            }
            let len = payloads.iter().map(Vec::len).min().unwrap();
            assert_eq!(facts.first, payloads[0][..len], "case {case}");
            for i in 0..len {
                let same = payloads.iter().all(|p| p[i] == payloads[0][i]);
                assert_eq!(facts.is_same(i), same, "case {case}: byte {i}");
            }
            // The rooms in both byte orders, whichever the payloads were made in.
            for order in [Endian::Little, Endian::Big] {
                let rooms: Vec<u16> = (0..len.saturating_sub(3))
                    .map(|q| {
                        payloads
                            .iter()
                            .map(|p| {
                                let loc = order.read_u32([p[q], p[q + 1], p[q + 2], p[q + 3]]);
                                room(p.len() as i64 + 1, loc)
                            })
                            .min()
                            .unwrap()
                    })
                    .collect();
                assert_eq!(facts.room[order_index(order)], rooms, "case {case}");
                for relative in [false, true] {
                    let bits = &facts.nul[order_index(order)][usize::from(relative)];
                    for q in 0..len.saturating_sub(3) {
                        let all = payloads.iter().all(|p| holds_nul(p, q, order, relative));
                        let set = bit(bits, q);
                        assert_eq!(set, all, "case {case}: offset {q} {order:?} {relative}");
                    }
                    assert!(bits.len() <= len.saturating_sub(3).div_ceil(64));
                }
            }
        }
    }

    /// A NUL bit kept through a shorter payload (whose own word pointed at its own NUL) is
    /// rechecked for a later payload that starts with the shorter one's bytes but points,
    /// as the first did, past them at data without a NUL.
    #[test]
    fn a_nul_bit_is_rechecked_once_the_first_payload_was_cut() {
        let e = Endian::Little;
        let mut p1 = vec![b'A'; 44];
        p1[8..12].copy_from_slice(&e.u32_bytes(8 << 16 | 32));
        p1[32..40].copy_from_slice(b"abcdefg\0");
        let mut p2 = p1[..28].to_vec();
        p2[8..12].copy_from_slice(&e.u32_bytes(8 << 16 | 16));
        p2[16..24].copy_from_slice(b"hijklmn\0");
        // The first's 28 bytes (those the first is cut to), its word, no NUL in its data.
        let mut p3 = p1.clone();
        p3[32..40].copy_from_slice(b"abcdefgh");
        let mut facts = RawFacts::of(&p1);
        facts.add(&p2);
        assert!(
            facts.nul[0][0][0] >> 8 & 1 != 0,
            "both hold a NUL where their word says"
        );
        facts.add(&p3);
        assert!(holds_nul(&p1, 8, e, false) && !holds_nul(&p3, 8, e, false));
        assert_eq!(facts.nul[0][0][0] >> 8 & 1, 0);
    }

    /// A record that the trace of a narrowing matches fits exactly the layouts the traced
    /// one fits: records of the traced one's layout with other values, with a word set to
    /// small or large values (counts, zeros, sizes), and mutated.
    #[test]
    fn a_record_its_trace_matches_fits_the_same_layouts() {
        let mut rng = Rng(0x7ace);
        let mut sc = Scratch::default();
        let (mut matched, mut missed) = (0, 0);
        for case in 0..2_000 {
            let endian = if case % 2 == 0 {
                Endian::Little
            } else {
                Endian::Big
            };
            let l = layout(&mut rng);
            let len = 4 + rng.below(40) as usize;
            let payload = raw(&mut rng, len, endian);
            let first = sample(&mut rng, &l, &payload, endian);
            let payload = raw(&mut rng, len, endian);
            let second = sample(&mut rng, &l, &payload, endian);
            let Ok((pair, trace)) = FittingLayouts::of_pair(&first, &second, endian, None, &mut sc)
            else {
                continue;
            };
            let probes: Vec<SampleLayout> = (0..8)
                .map(|i| match i {
                    0 => l,
                    1..=4 => near(&mut rng, &l),
                    _ => layout(&mut rng),
                })
                .collect();
            for _ in 0..6 {
                let r = match rng.below(3) {
                    0 => {
                        let payload = raw(&mut rng, len, endian);
                        sample(&mut rng, &l, &payload, endian)
                    }
                    1 => mutate(&mut rng, second.clone(), endian),
                    _ => {
                        let mut r = second.clone();
                        let at = 8 + 8 * rng.below((r.len() as u64 - 8) / 8) as usize;
                        let v = match rng.below(3) {
                            0 => 0,
                            1 => rng.below(48),
                            _ => rng.next(),
                        };
                        if at + 8 <= r.len() {
                            r[at..at + 8].copy_from_slice(&endian.u64_bytes(v));
                        }
                        r
                    }
                };
                if !trace.matches(&r, endian) {
                    missed += 1;
                    continue;
                }
                matched += 1;
                let (with_r, _) =
                    FittingLayouts::of_pair(&first, &r, endian, None, &mut sc).unwrap();
                for p in &probes {
                    assert_eq!(pair.holds(p), with_r.holds(p), "case {case}: {p:?}");
                }
            }
        }
        assert!(
            matched > 1_000 && missed > 1_000,
            "{matched} matched, {missed} not"
        );
    }

    /// Context switches and ITRACE_STARTs written before their description: the switch
    /// kinds the summary of a group gives under a layout are those the check of each
    /// record under it finds (by its `sample_id`'s cpu), for random trailers, headers and
    /// cpus on both sides of what perf keeps threads for.
    #[test]
    fn a_groups_switch_kinds_are_those_of_its_records() {
        use perf_abi::auxtrace_priv::CURRENT_TID_CPU_MAX;
        use perf_abi::{misc, record_type as rt};
        use perf_encode::records::id_of_non_sample;
        let mut rng = Rng(0x0057_17c4);
        let (mut with, mut without) = (0, 0);
        for case in 0..4_000 {
            let endian = if case % 2 == 0 {
                Endian::Little
            } else {
                Endian::Big
            };
            let layout = SampleLayout {
                sample_type: rng.next()
                    & (st::TID | st::TIME | st::ID | st::STREAM_ID | st::CPU | st::IDENTIFIER)
                    | if rng.chance(4) { 0 } else { st::CPU },
                sample_id_all: true,
                ..SampleLayout::default()
            };
            let first = FirstRecord {
                pos: 0,
                records: 0,
                type_: rt::SWITCH,
            };
            let mut summary = RecordSummary::new(first);
            let mut want = 0;
            for _ in 0..1 + rng.below(4) {
                let type_ =
                    [rt::SWITCH, rt::SWITCH_CPU_WIDE, rt::ITRACE_START][rng.below(3) as usize];
                // SWITCH_CPU_WIDE and ITRACE_START have a pid and a tid.
                let body = if type_ == rt::SWITCH { 0 } else { 8 };
                let mode = [misc::GUEST_KERNEL, misc::GUEST_USER, 1, 2][rng.below(4) as usize];
                let misc = mode | if rng.chance(2) { misc::SWITCH_OUT } else { 0 };
                let size = 8 + body + layout.sample_id_len();
                let mut r = Vec::new();
                r.extend_from_slice(&endian.u32_bytes(type_));
                r.extend_from_slice(&endian.u16_bytes(misc));
                r.extend_from_slice(&endian.u16_bytes(size as u16));
                r.resize(size, 0);
                let cpu = match rng.below(8) {
                    0 => CURRENT_TID_CPU_MAX + rng.below(2) as u32,
                    1 => rng.next() as u32,
                    _ => rng.below(64) as u32,
                };
                // The trailer's fields in order, each 8 bytes; CPU's first 4 are the cpu.
                let bits = layout.sample_id_bits();
                let mut at = 8 + body;
                for bit in [
                    st::TID,
                    st::TIME,
                    st::ID,
                    st::STREAM_ID,
                    st::CPU,
                    st::IDENTIFIER,
                ] {
                    if bits & bit == 0 {
                        continue;
                    }
                    let word = rng.next();
                    let bytes = match bit == st::CPU {
                        true => [endian.u32_bytes(cpu), endian.u32_bytes(word as u32)].concat(),
                        false => endian.u64_bytes(word).to_vec(),
                    };
                    r[at..at + 8].copy_from_slice(&bytes);
                    at += 8;
                }
                let sid = id_of_non_sample(&layout, endian, &r).unwrap();
                let found = sid.cpu.map(|c| c.cpu);
                if bits & st::CPU != 0 {
                    assert_eq!(found, Some(cpu));
                }
                let kinds = SwitchKinds::of(type_, misc);
                want |= kinds.with_cpu(found) & kinds.without_cpu;
                let at = FirstRecord { type_, ..first };
                summary.add_side_band(&r, endian, false, at);
            }
            let got = summary.switches_under(&layout).unwrap();
            assert_eq!(got.kinds, want, "case {case}: {layout:?}");
            if want == 0 {
                with += 1;
            } else {
                without += 1;
            }
        }
        assert!(with > 500 && without > 500, "{with} kept, {without} not");
    }

    /// SAMPLEs written before their description: the summary of them refuses a layout and
    /// RAW rule exactly when the full check refuses one of them, for random layouts (every
    /// field of varying length among them: READ groups, CALLCHAIN, RAW, BRANCH_STACK,
    /// register dumps, STACK_USER, AUX), random rules (dynamic fields past byte 512, off the
    /// 4-byte grid; common_type away from 0) and groups of records of that layout, of one near
    /// it, of another, and mutated.
    #[test]
    fn summaries_refuse_exactly_what_the_full_check_refuses() {
        let (mut passed, mut refused, mut raw_refused, mut id_refused, mut too_many) =
            (0, 0, 0, 0, 0);
        let mut rng = Rng(0xdead_beef);
        let mut sc = Scratch::default();
        for case in 0..6_000 {
            let endian = if case % 2 == 0 {
                Endian::Little
            } else {
                Endian::Big
            };
            let target = layout(&mut rng);
            let big = rng.chance(6);
            let payload_len = if big {
                600 + rng.below(80) as usize
            } else {
                4 + rng.below(40) as usize
            };
            // RAW read in the output's byte order, or (a caller's TRACING_DATA) the other.
            let order = match (rng.chance(4), endian) {
                (true, Endian::Little) => Endian::Big,
                (true, Endian::Big) => Endian::Little,
                (false, _) => endian,
            };
            let rule = (target.has(st::RAW) && !rng.chance(4)).then(|| RawRule {
                rule: rule(&mut rng, payload_len),
                order,
            });
            let n = 1 + rng.below(6);
            let mut records = Vec::new();
            for _ in 0..n {
                let from = match rng.below(6) {
                    0 => layout(&mut rng),
                    1 => near(&mut rng, &target),
                    _ => target,
                };
                let len = if rng.chance(3) {
                    payload_len + rng.below(12) as usize
                } else {
                    payload_len
                };
                let mut raw = raw(&mut rng, len, endian);
                if let Some(rule) = &rule {
                    point_fields(&mut rng, &mut raw, rule);
                }
                let mut r = sample(&mut rng, &from, &raw, endian);
                if rng.chance(5) {
                    uncount_raw_padding(&from, &mut r, endian);
                }
                records.push(if rng.chance(5) {
                    mutate(&mut rng, r, endian)
                } else {
                    r
                });
            }
            // Now and then a description that has the id of a few READ values, not their
            // event's.
            let own = if rng.chance(6) { 8 } else { OWN };
            let full = records
                .iter()
                .all(|r| full_check(&target, rule.as_ref(), r, endian, own));
            // Of records written before their description, strict mode keeps the ids that
            // are the same in all of them: the READ ids, and beside an ID the IDENTIFIER
            // (the word a group's records share where their description finds the id).
            let read_ids = read_id_list(&target, endian, &records[0]);
            let ids_kept = (target.read_format & rf::ID == 0
                || records
                    .iter()
                    .all(|r| read_id_list(&target, endian, r) == read_ids))
                && (target.repeated_id_offset().is_none()
                    || records.iter().all(|r| r[8..16] == records[0][8..16]));

            let first = FirstRecord {
                pos: 0,
                records: 0,
                type_: 9,
            };
            let mut summary = RecordSummary::new(first);
            let mut gave_up = false;
            for r in &records {
                gave_up |= add_prepared(&mut summary, r, endian, false, &mut sc).is_err();
            }
            if gave_up {
                too_many += 1;
                continue;
            }
            let mut stats = EventStats::default();
            let (verdict, members) =
                check_as(own, &summary, &target, rule.as_ref(), endian, &mut stats);
            let expected = full && ids_kept;
            assert_eq!(
                verdict.is_ok(),
                expected,
                "case {case}: {target:?} {rule:?} {verdict:?}\n{records:?}"
            );
            if expected && target.read_format & rf::GROUP != 0 {
                let ids: Vec<u64> = read_ids.into_iter().flatten().collect();
                assert_eq!(members, ids, "case {case}");
            }
            passed += usize::from(expected);
            refused += usize::from(!expected);
            raw_refused += usize::from(matches!(
                verdict,
                Err(Contradiction::Raw(_)
                    | Contradiction::CommonTypes
                    | Contradiction::DynamicData { .. })
            ));
            id_refused += usize::from(matches!(
                verdict,
                Err(Contradiction::IdFieldDiffers
                    | Contradiction::ReadIdOfAnotherEvent
                    | Contradiction::ReadIdsVary)
            ));
        }
        assert!(
            passed > 1_000
                && refused > 1_000
                && raw_refused > 120
                && id_refused > 50
                && too_many == 0,
            "{passed} passed, {refused} refused ({raw_refused} by RAW, {id_refused} by ID), {too_many} too varied"
        );
    }

    /// A record like `last` in most chunks: a few bytes or words of it rewritten.
    fn nudge(rng: &mut Rng, last: &[u8], endian: Endian) -> Vec<u8> {
        let mut r = last.to_vec();
        for _ in 0..=rng.below(2) {
            let at = 8 + rng.below(r.len() as u64 - 8) as usize;
            match rng.below(4) {
                0 => r[at] ^= 1 << rng.below(8),
                1 => r[at] = rng.below(3) as u8,
                _ => {
                    let w = at / 8 * 8;
                    let v = match rng.chance(2) {
                        true => rng.below(64),
                        false => rng.next(),
                    };
                    if let Some(word) = r.get_mut(w..w + 8) {
                        word.copy_from_slice(&endian.u64_bytes(v));
                    }
                }
            }
        }
        r
    }

    /// Adds `r` to `summary` as the full check of a record before its description does.
    fn add_prepared(
        summary: &mut RecordSummary,
        r: &[u8],
        endian: Endian,
        derive: bool,
        sc: &mut Scratch,
    ) -> Result<(), TooManyLayouts> {
        let (state, traces) = match &summary.samples {
            Some(s) => (s.state(), s.traces()),
            None => (SampleState::Absent, (0, &[][..])),
        };
        let p = SampleSummary::prepare(state, None, traces, r, endian, sc)?;
        summary.add_sample(r, endian, p, derive);
        Ok(())
    }

    #[test]
    fn records_judged_by_their_changes_from_the_last_are_kept_as_when_judged_whole() {
        let mut rng = Rng(0x0dd_ba11);
        let mut sc = Scratch::default();
        let (mut by_changes, mut whole, mut verdicts) = (0, 0, [0usize; 2]);
        for case in 0..800 {
            let endian = if case % 2 == 0 {
                Endian::Little
            } else {
                Endian::Big
            };
            let l = layout(&mut rng);
            let payload_len = 4 + rng.below(40) as usize;
            let payload = raw(&mut rng, payload_len, endian);
            let base = sample(&mut rng, &l, &payload, endian);
            let derive = rng.chance(2);
            let mut records = vec![base];
            for _ in 0..2 + rng.below(40) {
                let next = match rng.chance(8) {
                    // Now and then a record of its own.
                    true => {
                        let payload = raw(&mut rng, payload_len, endian);
                        sample(&mut rng, &l, &payload, endian)
                    }
                    false => nudge(&mut rng, records.last().unwrap(), endian),
                };
                records.push(next);
            }
            let first = FirstRecord {
                pos: 0,
                records: 0,
                type_: 9,
            };
            // `short`: as the short way adds a record like its group's (or as `prepare`
            // finds, by its changes from the last); `full`: each record through `prepare`,
            // added whole.
            let (mut short, mut full) = (RecordSummary::new(first), RecordSummary::new(first));
            let mut too_many = false;
            for r in &records {
                let found = match &short.samples {
                    Some(SampleSummary::Many(m)) => m.trace_matching(r, endian),
                    _ => None,
                };
                match found {
                    Some(found) => {
                        by_changes += usize::from(found.changed.is_some());
                        whole += usize::from(found.changed.is_none());
                        short.add_matched(r, endian, found, derive);
                    }
                    None => {
                        too_many |= add_prepared(&mut short, r, endian, derive, &mut sc).is_err()
                    }
                }
                // Without a last record kept, every record is added whole.
                if let Some(SampleSummary::Many(m)) = &mut full.samples {
                    m.recent.clear();
                }
                too_many |= add_prepared(&mut full, r, endian, derive, &mut sc).is_err();
            }
            if too_many {
                continue;
            }
            assert_eq!(short.records, full.records);
            if let (Some(SampleSummary::Many(a)), Some(SampleSummary::Many(b))) =
                (&short.samples, &full.samples)
            {
                assert_eq!(
                    (
                        a.len_min,
                        a.len_max,
                        &a.raw.keys,
                        &a.raw.facts,
                        &a.words,
                        a.cpu_most.0,
                        a.same.same
                    ),
                    (
                        b.len_min,
                        b.len_max,
                        &b.raw.keys,
                        &b.raw.facts,
                        &b.words,
                        b.cpu_most.0,
                        b.same.same
                    ),
                    "case {case}"
                );
            }
            for target in [l, near(&mut rng, &l), layout(&mut rng)] {
                let rule = (target.has(st::RAW) && rng.chance(2)).then(|| RawRule {
                    rule: rule(&mut rng, payload_len),
                    order: endian,
                });
                let (mut sa, mut sb) = (EventStats::default(), EventStats::default());
                let a = check_as(OWN, &short, &target, rule.as_ref(), endian, &mut sa);
                let b = check_as(OWN, &full, &target, rule.as_ref(), endian, &mut sb);
                verdicts[usize::from(a.0.is_ok())] += 1;
                assert_eq!((a, sa), (b, sb), "case {case}: {target:?}");
            }
        }
        assert!(
            by_changes > 5_000 && whole > 1_000 && verdicts[0] > 1_000 && verdicts[1] > 200,
            "{by_changes} judged by their changes, {whole} whole, verdicts {verdicts:?}"
        );
    }
}
