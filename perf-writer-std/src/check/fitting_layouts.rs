//! [`FittingLayouts`]: every SAMPLE layout a group of records all fit, kept without the
//! records, so that a description that comes after them is checked as if it had come first.
//!
//! A layout is one choice per field of the SAMPLE table ([`SAMPLE_FIELDS`]: absent, or present
//! in one of the ways its codec reads an attr). Strict mode refuses a SAMPLE whose size is not
//! where its layout's walk over it ends (or that rounded up to 8); a record fits a layout when
//! that walk stays within it and ends there. The layouts a record fits form a layered graph:
//! one layer per field, one node per place the walk can be at, one edge per choice. The
//! layouts a group fits are the paths every record of it has: the graph of the first, narrowed
//! by each record after it (a product of the graph and the record's walk). Nodes with the same
//! choices to the same nodes are merged, and dead ends dropped, so the graph stays as small as
//! what the records leave open: a few hundred edges for a stream of one event's SAMPLEs.
//!
//! A [`Trace`] says which words of a record the narrowing read, and what they said: a record
//! that says the same at the same places (and is as long) fits every layout the traced one
//! does, and narrows nothing; most records of a stream take that way.
//!
//! Exploring is bounded ([`MAX_EXPLORED_EDGES`] per narrowing, [`MAX_EDGES`] kept): a record
//! that would need more is refused by the caller, before it is written.

use crate::check::record_rules::{field_end_fits, sample_size_fits};
use perf_encode::records::{FieldLength, SampleField, SampleLayout, SAMPLE_FIELDS};
use perf_encode::Endian;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Fields in a layout.
const FIELDS: usize = SAMPLE_FIELDS.len();

/// The most edges one narrowing (or the first record's graph) may explore.
pub(crate) const MAX_EXPLORED_EDGES: usize = 1 << 20;

/// The most edges the layouts of one group may take.
pub(crate) const MAX_EDGES: usize = 1 << 16;

/// The layouts a group is too varied to keep within the bounds (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooManyLayouts;

/// A choice, and the node of the next layer it leads to (in the last layer: the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Edge {
    choice: u8,
    to: u32,
}

/// The layouts a group of SAMPLEs fits (see the module).
#[derive(Clone, Debug, Default)]
pub(crate) struct FittingLayouts {
    /// The first node of each layer, and the number of nodes at the end (`FIELDS + 1`
    /// entries); no node at all when no layout fits.
    layer_start: Vec<u32>,
    /// The first edge of each node, and the number of edges at the end.
    edge_start: Vec<u32>,
    edges: Vec<Edge>,
    /// [`raw_keys`](Self::raw_keys), once asked.
    raw_keys: std::cell::OnceCell<Vec<RawKey>>,
}

/// The words a narrowing read of a record, and what each said (see the module).
///
/// Kept as the traced record's bytes where words were read, per 8-byte chunk: a word
/// whose bytes are the traced record's says what it said, so a record like it is matched
/// by comparing bytes, and only the words whose bytes differ are read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Trace {
    len: usize,
    /// The chunks where words were read, in order.
    chunks: Vec<TracedChunk>,
    /// Bit `k`: chunk `k` is one of them (0 when one is past the 64th).
    chunk_bits: u64,
    /// The words more than one value passes, by the chunk of their first byte, a word
    /// reaching into the next chunk also under that chunk. With no chunks (a record whose
    /// length is not a multiple of 8), every word read, each checked.
    words: Vec<TracedWord>,
}

/// An 8-byte chunk of the traced record where words were read (each `u64` as the bytes
/// read in native order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TracedChunk {
    /// Its index (its offset ÷ 8).
    at: u32,
    /// The traced record's bytes.
    bytes: u64,
    /// The bytes where words were read: where a record's differ, they are judged.
    read: u64,
    /// Of those, the bytes (`0xff` each) of words only one value passes: a record passes
    /// them exactly when it has the traced record's bytes there, in either byte order. The
    /// other words are read.
    exact: u64,
    /// Its words in [`Trace::words`] (`first..end`).
    words: (u16, u16),
}

/// A word read, and the values that say what the traced record's said to every way it was
/// read: for a record of the traced length, the same class at each read
/// is exactly a value in `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TracedWord {
    pos: u32,
    /// 8 bytes read, else 4.
    wide: bool,
    lo: u64,
    hi: u64,
}

/// Where byte `i` of 8 in memory is in a `u64` read from them in native order, counted
/// from the least significant.
#[inline(always)]
fn native_byte_index(i: usize) -> usize {
    match cfg!(target_endian = "little") {
        true => i,
        false => 7 - i,
    }
}

impl TracedWord {
    /// `record`'s word here, read by `u64s` or `u32s`, is within `lo..=hi`.
    #[inline(always)]
    fn holds(&self, record: &[u8], u64s: fn([u8; 8]) -> u64, u32s: fn([u8; 4]) -> u32) -> bool {
        let at = record.get(self.pos as usize..);
        let value = match self.wide {
            true => at.and_then(|b| b.first_chunk::<8>()).map(|b| u64s(*b)),
            false => at
                .and_then(|b| b.first_chunk::<4>())
                .map(|b| u64::from(u32s(*b))),
        };
        value.is_some_and(|v| self.lo <= v && v <= self.hi)
    }
}

/// How a word is read: `.0` the exact value of a 4- or 8-byte count, [`NON_ZERO`] whether a
/// `u64` is 0, [`AT_MOST`] whether a `u64` is at most `.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Read(u8, u64);

const NON_ZERO: u8 = 0;
const AT_MOST: u8 = 1;

impl Read {
    /// Bytes read.
    fn width(self) -> usize {
        match self.0 <= AT_MOST {
            true => 8,
            false => usize::from(self.0),
        }
    }

    /// The values of the word that a record of `len` bytes reads as this does `value`: what
    /// the word at a position says to a field whose length or validity follows from it (a
    /// count's value, where every value past the record's length is one, since no field of
    /// any length fits then; whether it is 0; whether it is at most a bound).
    fn same_as(self, len: usize, value: u64) -> (u64, u64) {
        let past = (len as u64).saturating_add(1);
        match self.0 {
            NON_ZERO if value == 0 => (0, 0),
            NON_ZERO => (1, u64::MAX),
            AT_MOST if value <= self.1 => (0, self.1),
            AT_MOST => (self.1.saturating_add(1), u64::MAX),
            _ if value >= past => (past, u64::MAX),
            _ => (value, value),
        }
    }
}

/// The word of `width` bytes at `pos` (its first 8 bytes, or 4 when fewer; `None` when
/// fewer than 4, or not within the record).
#[inline(always)]
fn word_at(record: &[u8], endian: Endian, pos: usize, width: usize) -> Option<u64> {
    let bytes = record.get(pos..)?.get(..width)?;
    match (bytes.first_chunk::<8>(), bytes.first_chunk::<4>()) {
        (Some(b), _) => Some(endian.read_u64(*b)),
        (None, Some(b)) => Some(u64::from(endian.read_u32(*b))),
        (None, None) => None,
    }
}

impl Trace {
    /// The trace of `record` whose words at `reads` (position, how) were read.
    fn of(record: &[u8], endian: Endian, reads: &mut Vec<(u32, Read)>) -> Trace {
        // Most words are read many times over (once for each way the walk reached them):
        // the distinct reads first, then sorted.
        let mut distinct = FxHashSet::default();
        reads.retain(|&r| distinct.insert(r));
        reads.sort_unstable_by_key(|&(pos, how)| (pos, how.width(), how));
        let mut words: Vec<TracedWord> = Vec::new();
        for &(pos, how) in reads.iter() {
            // Not within the record: nor in one of the same length; a width under 4 reads
            // nothing.
            let Some(value) = word_at(record, endian, pos as usize, how.width()) else {
                continue;
            };
            let (lo, hi) = how.same_as(record.len(), value);
            let wide = how.width() >= 8;
            match words.last_mut() {
                Some(w) if w.pos == pos && w.wide == wide => {
                    w.lo = w.lo.max(lo);
                    w.hi = w.hi.min(hi);
                }
                _ => words.push(TracedWord { pos, wide, lo, hi }),
            }
        }
        Trace::of_words(record, &words)
    }

    /// The trace of `record` that read `words` (by position and width).
    fn of_words(record: &[u8], words: &[TracedWord]) -> Trace {
        // Per chunk: its bytes' masks and its words.
        let mut chunks: BTreeMap<u32, (u64, u64, Vec<TracedWord>)> = BTreeMap::new();
        for w in words {
            let width = if w.wide { 8 } else { 4 };
            for at in (w.pos as usize..).take(width) {
                let (Ok(chunk), Some(_)) = (u32::try_from(at / 8), record.get(at)) else {
                    continue;
                };
                let (exact, ranged, chunk_words) = chunks.entry(chunk).or_default();
                let byte = 0xff << (8 * native_byte_index(at % 8));
                match w.lo == w.hi {
                    true => *exact |= byte,
                    false => {
                        *ranged |= byte;
                        if chunk_words.last() != Some(w) {
                            chunk_words.push(*w);
                        }
                    }
                }
            }
        }
        let mut trace = Trace {
            len: record.len(),
            chunks: Vec::with_capacity(chunks.len()),
            chunk_bits: chunks
                .keys()
                .try_fold(0u64, |bits, &at| Some(bits | 1u64.checked_shl(at)?))
                .unwrap_or(0),
            words: Vec::new(),
        };
        for (at, (exact, ranged, chunk_words)) in chunks {
            let start = (at as usize).saturating_mul(8);
            let first = u16::try_from(trace.words.len());
            let end = u16::try_from(trace.words.len().saturating_add(chunk_words.len()));
            let (Some(bytes), Ok(first), Ok(end)) = (
                record.get(start..).and_then(|b| b.first_chunk::<8>()),
                first,
                end,
            ) else {
                // A record whose length is not a multiple of 8 (or with more words than
                // chunks can index): matched by its words.
                trace.chunks.clear();
                trace.chunk_bits = 0;
                trace.words = words.to_vec();
                return trace;
            };
            trace.chunks.push(TracedChunk {
                at,
                bytes: u64::from_ne_bytes(*bytes),
                read: exact | ranged,
                exact,
                words: (first, end),
            });
            trace.words.extend(chunk_words);
        }
        trace
    }

    /// `record` says what the traced record said, where it did: it fits every layout that
    /// one fits among those the trace was taken on.
    #[inline]
    pub(crate) fn matches(&self, record: &[u8], endian: Endian) -> bool {
        // The byte order chosen once, not per word: this runs for most records written
        // before their description.
        record.len() == self.len
            && match endian.is_big() {
                false => self.matches_in(record, u64::from_le_bytes, u32::from_le_bytes),
                true => self.matches_in(record, u64::from_be_bytes, u32::from_be_bytes),
            }
    }

    /// [`matches`](Self::matches) of a record of the traced length, its words read by
    /// `u64s` and `u32s`.
    #[inline(always)]
    fn matches_in(
        &self,
        record: &[u8],
        u64s: fn([u8; 8]) -> u64,
        u32s: fn([u8; 4]) -> u32,
    ) -> bool {
        if self.chunks.is_empty() {
            return (self.words.iter()).all(|w| w.holds(record, u64s, u32s));
        }
        for c in &self.chunks {
            let at = (c.at as usize).wrapping_mul(8);
            let Some(bytes) = record.get(at..).and_then(|b| b.first_chunk::<8>()) else {
                return false;
            };
            let differ = u64::from_ne_bytes(*bytes) ^ c.bytes;
            // The commonest chunk has the traced record's bytes where words were read.
            if differ & c.read != 0 && !self.chunk_holds(c, differ, record, u64s, u32s) {
                return false;
            }
        }
        true
    }

    /// [`matches`](Self::matches) of a record that differs from one this trace matches in
    /// the chunks `changed` alone (bit `k`: bytes `8k..8k + 8`): only those are judged. A
    /// word across two chunks is under both, so a changed chunk's words are all read, even
    /// where its bytes are the traced record's (the other half of a word may not be).
    #[inline]
    pub(crate) fn matches_changed(&self, record: &[u8], changed: u64, endian: Endian) -> bool {
        record.len() == self.len
            && self.chunk_bits != 0
            && match endian.is_big() {
                false => self.changed_hold(record, changed, u64::from_le_bytes, u32::from_le_bytes),
                true => self.changed_hold(record, changed, u64::from_be_bytes, u32::from_be_bytes),
            }
    }

    /// [`matches_changed`](Self::matches_changed) of a record of the traced length, its
    /// words read by `u64s` and `u32s`.
    #[inline(always)]
    fn changed_hold(
        &self,
        record: &[u8],
        changed: u64,
        u64s: fn([u8; 8]) -> u64,
        u32s: fn([u8; 4]) -> u32,
    ) -> bool {
        // The changed chunks that words were read in, each found by how many come before it.
        let mut left = changed & self.chunk_bits;
        while left != 0 {
            let below = (left & left.wrapping_neg()) - 1;
            left &= left - 1;
            let Some(c) = self
                .chunks
                .get((self.chunk_bits & below).count_ones() as usize)
            else {
                return false;
            };
            let at = (c.at as usize).wrapping_mul(8);
            let Some(bytes) = record.get(at..).and_then(|b| b.first_chunk::<8>()) else {
                return false;
            };
            let differ = u64::from_ne_bytes(*bytes) ^ c.bytes;
            if !self.chunk_holds(c, differ, record, u64s, u32s) {
                return false;
            }
        }
        true
    }

    /// A record whose bytes in chunk `c` differ from the traced record's by `differ` still
    /// says what it said there: no word only one value passes differs, and the others hold.
    #[inline]
    fn chunk_holds(
        &self,
        c: &TracedChunk,
        differ: u64,
        record: &[u8],
        u64s: fn([u8; 8]) -> u64,
        u32s: fn([u8; 4]) -> u32,
    ) -> bool {
        let words = self
            .words
            .get(usize::from(c.words.0)..usize::from(c.words.1));
        differ & c.exact == 0
            && (words.unwrap_or_default().iter()).all(|w| w.holds(record, u64s, u32s))
    }

    /// Bytes it takes.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<TracedWord>()
            + self.chunks.capacity() * std::mem::size_of::<TracedChunk>()
    }
}

/// The layers a product walks on the left: every layout, or those of a graph.
trait Left {
    /// Calls `f(choice, next node)` for each edge of `node` in layer `layer`.
    fn edges(&self, layer: usize, node: u32, f: impl FnMut(u8, u32));
    /// Has a first node.
    fn has_root(&self) -> bool;
}

/// Every layout that puts a SAMPLE's event id at `place` (any layout when `None`): one
/// node per layer, but in the layers up to ID's, where a node is what the fields chosen so
/// far leave open of where the id is.
struct AtPlace {
    place: Option<usize>,
}

/// The layers the id's place follows from (IDENTIFIER and the fields up to ID): what each
/// choice there makes of the fields chosen before.
struct IdLayers {
    /// The layer of ID.
    id_layer: usize,
    /// Per layer up to ID's, per node (the fields chosen so far, one bit each, reduced to
    /// one of the sets that leave the same places open), and present or not: the next node.
    next: Vec<[Vec<u32>; 2]>,
    /// At ID's layer, per node and choice: where the id is.
    place: [Vec<Option<usize>>; 2],
}

/// The one [`IdLayers`].
fn id_layers() -> &'static IdLayers {
    static LAYERS: std::sync::OnceLock<IdLayers> = std::sync::OnceLock::new();
    LAYERS.get_or_init(|| {
        // Each field's sample_type bit.
        let bit = |field: &SampleField| {
            (0..64).map(|b| 1u64 << b).find(|&b| {
                let l = SampleLayout {
                    sample_type: b,
                    ..SampleLayout::default()
                };
                field.choice(&l) != 0
            })
        };
        let bits: Vec<u64> = SAMPLE_FIELDS.iter().map(|f| bit(f).unwrap_or(0)).collect();
        let id_layer = bits
            .iter()
            .position(|&b| b == perf_abi::sample_type::ID)
            .unwrap_or(0);
        let sample_type = |chosen: u32| {
            bits.iter()
                .enumerate()
                .filter(|&(i, _)| chosen >> i & 1 != 0)
                .fold(0, |t, (_, b)| t | b)
        };
        let place_of = |chosen: u32| {
            SampleLayout {
                sample_type: sample_type(chosen),
                ..SampleLayout::default()
            }
            .sample_id_offset()
        };
        // The sets of fields chosen in layers 0..=k that leave the same places open for every
        // choice of the rest, each named by its first.
        let layers = id_layer + 1;
        let reduce = |k: usize, chosen: u32| -> u32 {
            let rest = layers - k - 1;
            let sig = |c: u32| -> Vec<Option<usize>> {
                (0u32..1 << rest)
                    .map(|r| place_of(c | r << (k + 1)))
                    .collect()
            };
            let mine = sig(chosen);
            (0u32..1 << (k + 1))
                .find(|&c| sig(c) == mine)
                .unwrap_or(chosen)
        };
        let mut next = Vec::with_capacity(id_layer);
        for k in 0..id_layer {
            let nodes = 1usize << k;
            let mut by_choice = [vec![0u32; nodes], vec![0u32; nodes]];
            for node in 0..nodes as u32 {
                for present in 0..2u32 {
                    by_choice[present as usize][node as usize] = reduce(k, node | present << k);
                }
            }
            next.push(by_choice);
        }
        let nodes = 1usize << id_layer;
        let mut place = [vec![None; nodes], vec![None; nodes]];
        for node in 0..nodes as u32 {
            for present in 0..2u32 {
                place[present as usize][node as usize] = place_of(node | present << id_layer);
            }
        }
        IdLayers {
            id_layer,
            next,
            place,
        }
    })
}

impl Left for AtPlace {
    fn edges(&self, layer: usize, node: u32, mut f: impl FnMut(u8, u32)) {
        let choices = SAMPLE_FIELDS.get(layer).map_or(0, SampleField::choices);
        let layers = id_layers();
        let Some(place) = self.place.filter(|_| layer <= layers.id_layer) else {
            for c in 0..choices {
                f(c, 0);
            }
            return;
        };
        for c in 0..choices {
            let present = usize::from(c != 0);
            if layer < layers.id_layer {
                let to = layers
                    .next
                    .get(layer)
                    .and_then(|n| n[present].get(node as usize));
                if let Some(&to) = to {
                    f(c, to);
                }
            } else if layers.place[present].get(node as usize) == Some(&Some(place)) {
                f(c, 0);
            }
        }
    }
    fn has_root(&self) -> bool {
        true
    }
}

impl Left for FittingLayouts {
    fn edges(&self, layer: usize, node: u32, mut f: impl FnMut(u8, u32)) {
        for e in self.edges_of(layer, node) {
            f(e.choice, e.to);
        }
    }
    fn has_root(&self) -> bool {
        !self.is_empty()
    }
}

/// What a product walks on the right: a record.
trait Right {
    fn start(&self) -> Option<u64>;
    fn step(&mut self, layer: usize, choice: u8, s: u64) -> Option<u64>;
    /// The walk may end at `s`.
    fn ends(&self, s: u64) -> bool;
}

/// A record's walk: the place in the record; the words read are noted.
struct RecordWalk<'r, 'v> {
    record: &'r [u8],
    endian: Endian,
    reads: &'v mut Vec<(u32, Read)>,
}

impl RecordWalk<'_, '_> {
    fn start(&self) -> Option<u32> {
        (self.record.len() >= 8).then_some(8)
    }

    #[inline]
    fn step(&mut self, layer: usize, choice: u8, pos: u32) -> Option<u32> {
        let field = SAMPLE_FIELDS.get(layer)?;
        let at = pos as usize;
        let end = match field.length(choice) {
            FieldLength::Fixed(n) => at.checked_add(n).filter(|&e| e <= self.record.len()),
            FieldLength::Counted { word } => {
                self.reads.push((pos, Read(word, 0)));
                field.end(choice, self.endian, self.record, at)
            }
            FieldLength::SizedDump => {
                self.reads.push((pos, Read(8, 0)));
                let end = field.end(choice, self.endian, self.record, at);
                // Within the record, and with a second word: whether that is at most the
                // first, which `end` checked.
                let size = self.record.get(at..).and_then(|r| r.first_chunk::<8>());
                let size = size.map(|b| self.endian.read_u64(*b));
                let last = size
                    .filter(|&s| s != 0)
                    .and_then(|s| at.checked_add(8)?.checked_add(usize::try_from(s).ok()?));
                if let (Some(size), Some(last)) = (size, last) {
                    if last.checked_add(8).is_some_and(|e| e <= self.record.len()) {
                        let last = u32::try_from(last).ok()?;
                        self.reads.push((last, Read(AT_MOST, size)));
                    }
                }
                end
            }
            FieldLength::NonZero { zero, other } => {
                self.reads.push((pos, Read(NON_ZERO, 0)));
                let word = self.record.get(at..).and_then(|r| r.first_chunk::<8>());
                let len = match word? {
                    [0, 0, 0, 0, 0, 0, 0, 0] => zero,
                    _ => other,
                };
                at.checked_add(len).filter(|&e| e <= self.record.len())
            }
        };
        end.filter(|&e| field_end_fits(e, self.endian))
            .and_then(|e| u32::try_from(e).ok())
    }

    /// A SAMPLE ends at `pos` as strict mode's check of a SAMPLE's size takes it.
    fn ends(&self, pos: u32) -> bool {
        sample_size_fits(pos as usize, self.record.len(), self.endian)
    }
}

impl Right for RecordWalk<'_, '_> {
    fn start(&self) -> Option<u64> {
        RecordWalk::start(self).map(u64::from)
    }
    #[inline]
    fn step(&mut self, layer: usize, choice: u8, pos: u64) -> Option<u64> {
        RecordWalk::step(self, layer, choice, pos as u32).map(u64::from)
    }
    fn ends(&self, pos: u64) -> bool {
        RecordWalk::ends(self, pos as u32)
    }
}

/// Two records walked together (the second one's words noted): the place in each.
struct PairWalk<'r, 'v> {
    first: RecordWalk<'r, 'v>,
    second: RecordWalk<'r, 'v>,
}

impl Right for PairWalk<'_, '_> {
    fn start(&self) -> Option<u64> {
        Some(u64::from(self.first.start()?) | u64::from(self.second.start()?) << 32)
    }
    #[inline]
    fn step(&mut self, layer: usize, choice: u8, s: u64) -> Option<u64> {
        let a = self.first.step(layer, choice, s as u32)?;
        let b = self.second.step(layer, choice, (s >> 32) as u32)?;
        Some(u64::from(a) | u64::from(b) << 32)
    }
    fn ends(&self, s: u64) -> bool {
        self.first.ends(s as u32) && self.second.ends((s >> 32) as u32)
    }
}

impl FittingLayouts {
    /// The layouts `record` (a SAMPLE, header included) fits that put its event id at
    /// `place` (any when `None`), and the trace of the words read over every layout of `place`.
    fn of_traced(
        record: &[u8],
        endian: Endian,
        place: Option<usize>,
        sc: &mut Scratch,
    ) -> Result<(Self, Trace), TooManyLayouts> {
        let mut reads = std::mem::take(&mut sc.reads);
        reads.clear();
        let mut walk = RecordWalk {
            record,
            endian,
            reads: &mut reads,
        };
        let out = product(&AtPlace { place }, &mut walk, sc);
        let trace = Trace::of(record, endian, &mut reads);
        sc.reads = reads;
        Ok((out?, trace))
    }

    /// The layouts both `first` and `second` fit that put their event id at `place` (any
    /// when `None`), and the trace of the words read of `second`.
    pub(crate) fn of_pair(
        first: &[u8],
        second: &[u8],
        endian: Endian,
        place: Option<usize>,
        sc: &mut Scratch,
    ) -> Result<(Self, Trace), TooManyLayouts> {
        // Records of one shape (the trace of one over every layout of the place matches
        // both) fit the same layouts: those of that shape, whose trace is one of theirs too.
        let known = sc
            .shapes
            .iter()
            .find(|s| s.place == place && s.trace.matches(second, endian))
            .filter(|s| s.trace.matches(first, endian));
        if let Some(s) = known {
            return Ok((s.layouts.clone(), s.trace.clone()));
        }
        if let Ok((layouts, trace)) = Self::of_traced(second, endian, place, sc) {
            // Found once for the shape and every group it starts.
            layouts.raw_keys();
            let same = trace.matches(first, endian);
            let out = same.then(|| (layouts.clone(), trace.clone()));
            sc.remember(Shape {
                place,
                trace,
                layouts,
            });
            if let Some(out) = out {
                return Ok(out);
            }
        }
        let mut ignored = std::mem::take(&mut sc.ignored);
        let mut seen = std::mem::take(&mut sc.reads);
        ignored.clear();
        seen.clear();
        let mut walk = PairWalk {
            first: RecordWalk {
                record: first,
                endian,
                reads: &mut ignored,
            },
            second: RecordWalk {
                record: second,
                endian,
                reads: &mut seen,
            },
        };
        let out = product(&AtPlace { place }, &mut walk, sc);
        let trace = Trace::of(second, endian, &mut seen);
        sc.reads = seen;
        sc.ignored = ignored;
        Ok((out?, trace))
    }

    /// The layouts of these that `record` fits too, and the trace of the words read.
    pub(crate) fn and_record(
        &self,
        record: &[u8],
        endian: Endian,
        sc: &mut Scratch,
    ) -> Result<(Self, Trace), TooManyLayouts> {
        let mut seen = std::mem::take(&mut sc.reads);
        seen.clear();
        let mut walk = RecordWalk {
            record,
            endian,
            reads: &mut seen,
        };
        let narrowed = product(self, &mut walk, sc);
        let trace = Trace::of(record, endian, &mut seen);
        sc.reads = seen;
        Ok((narrowed?, trace))
    }

    /// No layout fits.
    pub(crate) fn is_empty(&self) -> bool {
        self.layer_start.last().is_none_or(|&n| n == 0)
    }

    /// `layout` is one of them.
    pub(crate) fn holds(&self, layout: &SampleLayout) -> bool {
        let mut node = 0u32;
        if self.is_empty() {
            return false;
        }
        for (layer, field) in SAMPLE_FIELDS.iter().enumerate() {
            let choice = field.choice(layout);
            match self
                .edges_of(layer, node)
                .iter()
                .find(|e| e.choice == choice)
            {
                Some(e) => node = e.to,
                None => return false,
            }
        }
        true
    }

    /// Bytes it takes.
    pub(crate) fn heap_bytes(&self) -> usize {
        let raw_keys = self.raw_keys.get().map_or(0, |k| {
            k.iter().map(RawKey::heap_bytes).sum::<usize>()
                + k.capacity() * std::mem::size_of::<RawKey>()
        });
        (self.layer_start.capacity() + self.edge_start.capacity()) * 4
            + self.edges.capacity() * std::mem::size_of::<Edge>()
            + raw_keys
    }

    /// The edges of `node` in `layer`.
    fn edges_of(&self, layer: usize, node: u32) -> &[Edge] {
        let Some(&base) = self.layer_start.get(layer) else {
            return &[];
        };
        let i = base.saturating_add(node) as usize;
        match (
            self.edge_start.get(i),
            self.edge_start.get(i.saturating_add(1)),
        ) {
            (Some(&a), Some(&b)) => self.edges.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The ways to the RAW field of the layouts that have it ([`RawKey`]).
    pub(crate) fn raw_keys(&self) -> &[RawKey] {
        self.raw_keys.get_or_init(|| self.find_raw_keys())
    }

    fn find_raw_keys(&self) -> Vec<RawKey> {
        let Some(raw) = raw_field() else {
            return Vec::new();
        };
        if self.is_empty() {
            return Vec::new();
        }
        // The partial keys that reach each node of the current layer.
        let mut at: FxHashMap<u32, Vec<RawKey>> = FxHashMap::default();
        at.insert(0, vec![RawKey::default()]);
        for layer in 0..raw {
            let mut next: FxHashMap<u32, Vec<RawKey>> = FxHashMap::default();
            for (node, keys) in &at {
                for e in self.edges_of(layer, *node) {
                    let slot = next.entry(e.to).or_default();
                    for k in keys {
                        let k = k.then(layer, e.choice);
                        if !slot.contains(&k) {
                            slot.push(k);
                        }
                    }
                }
            }
            at = next;
        }
        let mut out: Vec<RawKey> = Vec::new();
        for (node, keys) in &at {
            if self.edges_of(raw, *node).iter().any(|e| e.choice != 0) {
                for k in keys {
                    if !out.contains(k) {
                        out.push(k.clone());
                    }
                }
            }
        }
        out
    }
}

/// The index of RAW in the table.
fn raw_field() -> Option<usize> {
    SAMPLE_FIELDS.iter().position(SampleField::is_raw)
}

/// How the walk gets to RAW's `size` in the SAMPLEs of the layouts that share it: fixed runs
/// of bytes, and the fields of varying length between them (READ groups, CALLCHAIN). It says
/// where each record's RAW payload is, the same way for every one of those layouts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct RawKey {
    /// (fixed bytes before, field, choice) for each field of varying length.
    steps: Vec<(u32, u8, u8)>,
    /// Fixed bytes after the last of them.
    fixed: u32,
}

impl RawKey {
    /// `self` followed by field `field` laid out as `choice`.
    fn then(&self, field: usize, choice: u8) -> RawKey {
        let mut k = self.clone();
        match SAMPLE_FIELDS.get(field).map(|f| f.length(choice)) {
            Some(FieldLength::Fixed(n)) => {
                k.fixed = k.fixed.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
            }
            _ => {
                k.steps.push((k.fixed, field as u8, choice));
                k.fixed = 0;
            }
        }
        k
    }

    /// Bytes it takes.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.steps.capacity() * 8
    }

    /// The key of `layout`, when it has RAW.
    pub(crate) fn of(layout: &SampleLayout) -> Option<RawKey> {
        let raw = raw_field()?;
        let has_raw = SAMPLE_FIELDS.get(raw)?.choice(layout) != 0;
        has_raw.then(|| {
            SAMPLE_FIELDS
                .iter()
                .take(raw)
                .enumerate()
                .fold(RawKey::default(), |k, (i, f)| k.then(i, f.choice(layout)))
        })
    }

    /// The RAW payload of `record` by this key: `None` when it does not lie within it.
    pub(crate) fn payload<'r>(&self, record: &'r [u8], endian: Endian) -> Option<&'r [u8]> {
        let (start, end) = self.payload_range(record, endian)?;
        record.get(start..end)
    }

    /// Where [`payload`](Self::payload) is.
    pub(crate) fn payload_range(&self, record: &[u8], endian: Endian) -> Option<(usize, usize)> {
        let mut pos = 8usize;
        for &(fixed, field, choice) in &self.steps {
            pos = pos.checked_add(fixed as usize)?;
            pos = SAMPLE_FIELDS
                .get(usize::from(field))?
                .end(choice, endian, record, pos)?;
        }
        pos = pos.checked_add(self.fixed as usize)?;
        let end = SAMPLE_FIELDS
            .get(raw_field()?)?
            .end(1, endian, record, pos)?;
        Some((pos.checked_add(4)?, end))
    }
}

/// Buffers a narrowing reuses (kept by the caller between records: a narrowing then
/// allocates only the graph it returns).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Per layer: each node's first edge (and the end), and the edges.
    starts: Vec<Vec<u32>>,
    edges: Vec<Vec<Edge>>,
    current: Vec<(u32, u64)>,
    next: Vec<(u32, u64)>,
    index: FxHashMap<(u32, u64), u32>,
    /// Per layer, from the last: the merged nodes' edges.
    merged_starts: Vec<Vec<u32>>,
    merged_edges: Vec<Vec<Edge>>,
    /// What each node of the layer below became (`u32::MAX`: dead).
    became: Vec<u32>,
    became_below: Vec<u32>,
    /// Merged nodes by the hash of their edges: the last, and each one's predecessor.
    by_hash: FxHashMap<u64, u32>,
    same_hash: Vec<u32>,
    edge_buf: Vec<Edge>,
    reads: Vec<(u32, Read)>,
    ignored: Vec<(u32, Read)>,
    /// The layouts of the last few shapes of single records (see [`FittingLayouts::of_pair`]).
    shapes: Vec<Shape>,
    next_shape: usize,
}

/// The layouts that a single record fits of those that put the id at `place`, and the trace
/// of the words read walking all of those.
#[derive(Debug)]
struct Shape {
    place: Option<usize>,
    trace: Trace,
    layouts: FittingLayouts,
}

/// Shapes a [`Scratch`] keeps.
const SHAPES: usize = 16;

/// The most edges of a shape kept (the layouts of one record are usually a few hundred):
/// what the shapes take stays under 16 × 32 KiB.
const SHAPE_MAX_EDGES: usize = 4096;

impl Scratch {
    fn remember(&mut self, shape: Shape) {
        if shape.layouts.edges.len() > SHAPE_MAX_EDGES || shape.trace.words.len() > 1024 {
            return;
        }
        let at = self.next_shape % SHAPES;
        self.next_shape = self.next_shape.wrapping_add(1);
        match self.shapes.get_mut(at) {
            Some(slot) => *slot = shape,
            None => self.shapes.push(shape),
        }
    }
}

/// No node.
const DEAD: u32 = u32::MAX;

/// The graph of the layouts `left` holds that the walk of `right` fits, merged and without
/// dead ends.
fn product<L: Left, R: Right>(
    left: &L,
    right: &mut R,
    sc: &mut Scratch,
) -> Result<FittingLayouts, TooManyLayouts> {
    let (true, Some(start)) = (left.has_root(), right.start()) else {
        return Ok(FittingLayouts::default());
    };
    sc.starts.resize_with(FIELDS, Vec::new);
    sc.edges.resize_with(FIELDS, Vec::new);
    sc.current.clear();
    sc.current.push((0, start));
    let mut explored = 0usize;
    for layer in 0..FIELDS {
        let last = layer + 1 == FIELDS;
        let (Some(starts), Some(edges)) = (sc.starts.get_mut(layer), sc.edges.get_mut(layer))
        else {
            return Err(TooManyLayouts);
        };
        starts.clear();
        edges.clear();
        sc.index.clear();
        sc.next.clear();
        let (index, next) = (&mut sc.index, &mut sc.next);
        for &(l, s) in &sc.current {
            starts.push(edges.len() as u32);
            left.edges(layer, l, |choice, to| {
                explored += 1;
                let Some(s2) = right.step(layer, choice, s) else {
                    return;
                };
                if last {
                    if right.ends(s2) {
                        edges.push(Edge { choice, to: 0 });
                    }
                    return;
                }
                let n = next.len() as u32;
                let to = *index.entry((to, s2)).or_insert_with(|| {
                    next.push((to, s2));
                    n
                });
                edges.push(Edge { choice, to });
            });
            if explored > MAX_EXPLORED_EDGES {
                return Err(TooManyLayouts);
            }
        }
        starts.push(edges.len() as u32);
        std::mem::swap(&mut sc.current, &mut sc.next);
    }
    minimize(sc)
}

/// Drops the nodes of the product in `sc` that no path leads from to the end, and merges
/// nodes of a layer with the same edges to the same nodes (from the last layer up).
fn minimize(sc: &mut Scratch) -> Result<FittingLayouts, TooManyLayouts> {
    sc.merged_starts.resize_with(FIELDS, Vec::new);
    sc.merged_edges.resize_with(FIELDS, Vec::new);
    sc.became_below.clear();
    for layer in (0..FIELDS).rev() {
        let last = layer + 1 == FIELDS;
        let (Some(starts), Some(edges), Some(m_starts), Some(m_edges)) = (
            sc.starts.get(layer),
            sc.edges.get(layer),
            sc.merged_starts.get_mut(layer),
            sc.merged_edges.get_mut(layer),
        ) else {
            return Err(TooManyLayouts);
        };
        m_starts.clear();
        m_edges.clear();
        m_starts.push(0);
        sc.by_hash.clear();
        sc.same_hash.clear();
        sc.became.clear();
        for w in starts.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            sc.edge_buf.clear();
            for e in edges.get(a..b).unwrap_or_default() {
                let to = match last {
                    true => 0,
                    false => sc.became_below.get(e.to as usize).copied().unwrap_or(DEAD),
                };
                if to != DEAD {
                    sc.edge_buf.push(Edge {
                        choice: e.choice,
                        to,
                    });
                }
            }
            if sc.edge_buf.is_empty() {
                sc.became.push(DEAD);
                continue;
            }
            let mut h = rustc_hash::FxHasher::default();
            sc.edge_buf.hash(&mut h);
            let h = h.finish();
            let mut m = sc.by_hash.get(&h).copied().unwrap_or(DEAD);
            while m != DEAD {
                let (x, y) = (
                    m_starts[m as usize] as usize,
                    m_starts[m as usize + 1] as usize,
                );
                if m_edges[x..y] == sc.edge_buf[..] {
                    break;
                }
                m = sc.same_hash.get(m as usize).copied().unwrap_or(DEAD);
            }
            if m == DEAD {
                m = (m_starts.len() - 1) as u32;
                m_edges.extend_from_slice(&sc.edge_buf);
                m_starts.push(m_edges.len() as u32);
                sc.same_hash.push(sc.by_hash.insert(h, m).unwrap_or(DEAD));
            }
            sc.became.push(m);
        }
        std::mem::swap(&mut sc.became, &mut sc.became_below);
    }
    // The first layer has one node; dead, nothing fits.
    if sc.became_below.first().is_none_or(|&m| m == DEAD) {
        return Ok(FittingLayouts::default());
    }
    let total_edges: usize = sc.merged_edges.iter().map(Vec::len).sum();
    if total_edges > MAX_EDGES {
        return Err(TooManyLayouts);
    }
    let total_nodes: usize = sc.merged_starts.iter().map(|s| s.len() - 1).sum();
    let mut out = FittingLayouts {
        layer_start: Vec::with_capacity(FIELDS + 1),
        edge_start: Vec::with_capacity(total_nodes + 1),
        edges: Vec::with_capacity(total_edges),
        raw_keys: std::cell::OnceCell::new(),
    };
    out.layer_start.push(0);
    out.edge_start.push(0);
    for (starts, edges) in sc.merged_starts.iter().zip(&sc.merged_edges) {
        let base = out.edges.len() as u32;
        out.edge_start
            .extend(starts.iter().skip(1).map(|&s| base + s));
        out.edges.extend_from_slice(edges);
        let nodes = *out.layer_start.last().unwrap_or(&0) + starts.len().saturating_sub(1) as u32;
        out.layer_start.push(nodes);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code: a failed unwrap fails the test
mod tests {
    use super::*;

    use crate::check::test_rng::Rng;

    /// The chunks where `a` and `b` (of one length) differ.
    fn changes(a: &[u8], b: &[u8]) -> u64 {
        let pairs = a.chunks(8).zip(b.chunks(8)).enumerate();
        pairs.fold(0, |m, (k, (x, y))| m | u64::from(x != y) << k)
    }

    #[test]
    fn a_word_across_two_chunks_is_read_when_either_changes() {
        // A count read as "not 0" at 12..20: its low half in chunk 1, its high half in 2.
        let mut traced = vec![0u8; 24];
        traced[12] = 1;
        let w = TracedWord {
            pos: 12,
            wide: true,
            lo: 1,
            hi: u64::MAX,
        };
        let trace = Trace::of_words(&traced, &[w]);
        let mut last = traced.clone();
        last[12] = 0;
        last[17] = 5;
        assert!(trace.matches(&last, Endian::Little));
        // Chunk 2 as the traced record's again: the word is 0 now, though neither chunk
        // differs from the traced record where chunk 2's bytes are concerned.
        let mut next = last.clone();
        next[17] = 0;
        assert!(!trace.matches(&next, Endian::Little));
        assert!(!trace.matches_changed(&next, 0b100, Endian::Little));
    }

    #[test]
    fn a_record_judged_by_its_changed_chunks_matches_as_when_judged_whole() {
        let mut rng = Rng(0x7ace);
        let (mut matched, mut refused) = (0, 0);
        for case in 0..3_000 {
            let endian = if case % 2 == 0 {
                Endian::Little
            } else {
                Endian::Big
            };
            let len = 8 * (2 + rng.below(8) as usize);
            // Mostly zeros: a word of 0 is a value reads tell apart.
            let byte = |rng: &mut Rng| match rng.below(4) {
                0 => 1 + rng.below(2) as u8,
                _ => 0,
            };
            let traced: Vec<u8> = (0..len).map(|_| byte(&mut rng)).collect();
            // Words at any 4-byte place, many across two chunks, each passing its value in
            // the traced record (exactly, or within a range around it).
            let mut words: Vec<TracedWord> = (0..1 + rng.below(6))
                .filter_map(|_| {
                    let wide = rng.below(2) == 0;
                    let width = if wide { 8 } else { 4 };
                    let pos = 4 * rng.below(((len - width) / 4 + 1) as u64) as usize;
                    let v = word_at(&traced, endian, pos, width)?;
                    let (lo, hi) = match rng.below(3) {
                        0 => (v, v),
                        _ => (
                            v.saturating_sub(rng.below(300)),
                            v.saturating_add(rng.below(300)),
                        ),
                    };
                    Some(TracedWord {
                        pos: pos as u32,
                        wide,
                        lo,
                        hi,
                    })
                })
                .collect();
            words.sort_by_key(|w| (w.pos, w.wide));
            words.dedup_by_key(|w| (w.pos, w.wide));
            let trace = Trace::of_words(&traced, &words);
            assert!(trace.matches(&traced, endian));
            // A record the trace matches, then one like it in most chunks.
            let mut last = traced.clone();
            for _ in 0..20 {
                let mut next = last.clone();
                for _ in 0..=rng.below(3) {
                    let at = rng.below(len as u64) as usize;
                    next[at] = match rng.below(3) {
                        0 => traced[at],
                        1 => next[at] ^ 1,
                        _ => byte(&mut rng),
                    };
                }
                let whole = trace.matches(&next, endian);
                let by_changes = trace.matches_changed(&next, changes(&last, &next), endian);
                assert_eq!(
                    by_changes, whole,
                    "case {case}: {words:?}\n{last:?}\n{next:?}"
                );
                matched += usize::from(whole);
                refused += usize::from(!whole);
                if whole {
                    last = next;
                }
            }
        }
        assert!(
            matched > 10_000 && refused > 10_000,
            "{matched} matched, {refused} refused"
        );
    }
}
