//! The SAMPLE table's fields as every layout may have them: for code that must reason about
//! a record before it knows the attr that lays it out (a writer that takes records before
//! their event description checks them against the layouts they still fit).
//!
//! A layout makes one choice per field, in the table's order: absent (0), or present in one
//! of the ways its codec reads a layout (1 and up). Walking a record field by field with a
//! layout's choices ends where [`SampleLayout::sample_len`] ends: both are the table's walk.

use crate::records::sample::layout::SampleLayout;
use crate::Endian;

/// What a field's length follows from, once a layout chose how it is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldLength {
    /// This many bytes, whatever the record holds.
    Fixed(usize),
    /// The exact value of the unsigned number of `word` bytes (4 or 8) the field starts with
    /// (CALLCHAIN's `nr`, RAW's `size`, …): the same value, the same length.
    Counted {
        /// Bytes of that number.
        word: u8,
    },
    /// The exact value of the `u64` the field starts with (a size in bytes), and, when that
    /// is not 0, whether the `u64` that ends the field is at most it (STACK_USER's `size`
    /// and `dyn_size`).
    SizedDump,
    /// Whether the `u64` the field starts with is 0 (a register dump's `abi`): `zero` bytes
    /// when it is, `other` when not.
    NonZero {
        /// The field's length when that word is 0.
        zero: usize,
        /// Its length otherwise.
        other: usize,
    },
}

/// One field of the SAMPLE table (see the module). [`SAMPLE_FIELDS`](crate::records::SAMPLE_FIELDS) lists them in order.
///
/// ```
/// use perf_abi::sample_type::*;
/// use perf_encode::records::{SampleLayout, SAMPLE_FIELDS};
/// use perf_encode::Endian;
/// let layout = SampleLayout { sample_type: IP | CALLCHAIN, ..Default::default() };
/// // header, IP, CALLCHAIN { nr: 1, ips: [7] }
/// let mut record = vec![0u8; 32];
/// record[16] = 1;
/// let mut pos = 8;
/// for field in &SAMPLE_FIELDS {
///     pos = field.end(field.choice(&layout), Endian::Little, &record, pos).unwrap();
/// }
/// assert_eq!(Some(pos), layout.sample_len(&record, Endian::Little).ok());
/// ```
#[derive(Clone, Copy)]
pub struct SampleField {
    pub(crate) name: &'static str,
    pub(crate) ways: u8,
    pub(crate) is_raw: bool,
    pub(crate) present: fn(&SampleLayout) -> bool,
    pub(crate) way_of: fn(&SampleLayout) -> u8,
    pub(crate) layout_of: fn(u8) -> SampleLayout,
    pub(crate) read_end: fn(&SampleLayout, Endian, &[u8], usize) -> Option<usize>,
    pub(crate) length: fn(u8) -> FieldLength,
}

impl core::fmt::Debug for SampleField {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name)
    }
}

impl SampleField {
    /// The field's name (its [`Sample`](crate::records::Sample) member).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// How many choices a layout has for it: absent, and each way it can be present.
    pub fn choices(&self) -> u8 {
        self.ways.saturating_add(1)
    }

    /// The field is RAW (`{u32 size, u8 data[size]}`).
    pub fn is_raw(&self) -> bool {
        self.is_raw
    }

    /// The choice `layout` makes (0: absent).
    #[inline]
    pub fn choice(&self, layout: &SampleLayout) -> u8 {
        match (self.present)(layout) {
            true => (self.way_of)(layout).saturating_add(1),
            false => 0,
        }
    }

    /// Where the field ends in `record` when it starts at `pos` and is laid out as `choice`
    /// says (`pos` itself when absent), read as the table's walk reads it; `None` when it
    /// does not fit in `record` (or `choice` is none of [`choices`](Self::choices)).
    #[inline]
    pub fn end(&self, choice: u8, endian: Endian, record: &[u8], pos: usize) -> Option<usize> {
        match choice.checked_sub(1) {
            None => Some(pos),
            Some(way) if way < self.ways => {
                (self.read_end)(&(self.layout_of)(way), endian, record, pos)
            }
            Some(_) => None,
        }
    }

    /// What the field's length follows from under `choice` (absent: `Fixed(0)`).
    #[inline]
    pub fn length(&self, choice: u8) -> FieldLength {
        match choice.checked_sub(1) {
            None => FieldLength::Fixed(0),
            Some(way) => (self.length)(way),
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // test code
mod tests {
    use super::*;
    use crate::records::sample::table::SAMPLE_FIELDS;
    use proptest::prelude::*;

    /// A record of `words` 8-byte words after the header, each small (a count that may fit)
    /// or not, from `seed`.
    fn record(seed: &[u64]) -> alloc::vec::Vec<u8> {
        let mut r = alloc::vec![0u8; 8];
        for &w in seed {
            let v = match w % 4 {
                0 => w >> 2 & 7,
                1 => 0,
                2 => (w >> 2) % 64,
                _ => w,
            };
            r.extend_from_slice(&v.to_le_bytes());
        }
        r
    }

    fn layout(sample_type: u64, rf: u64, regs: (u64, u64), hw: bool) -> SampleLayout {
        SampleLayout {
            sample_type,
            read_format: rf,
            regs_user: regs.0.count_ones(),
            regs_intr: regs.1.count_ones(),
            branch_hw_index: hw,
            sample_id_all: false,
        }
    }

    proptest! {
        /// Walking a record field by field with a layout's choices ends where the table's
        /// walk does, or fails where it does.
        #[test]
        fn choices_walk_as_the_table(
            sample_type in 0u64..1 << 25,
            rf in 0u64..32,
            regs in (any::<u64>(), any::<u64>()),
            hw in any::<bool>(),
            seed in proptest::collection::vec(any::<u64>(), 0..40),
            big in any::<bool>(),
        ) {
            let l = layout(sample_type, rf, (regs.0 & 0xff, regs.1 & 0xf), hw);
            let endian = if big { Endian::Big } else { Endian::Little };
            let r = record(&seed);
            let mut pos = Some(8usize);
            for f in &SAMPLE_FIELDS {
                pos = pos.and_then(|p| f.end(f.choice(&l), endian, &r, p));
            }
            prop_assert_eq!(pos, l.sample_len(&r, endian).ok());
        }

        /// A field's end follows from what its length says it follows from (and the record's
        /// length): the rest of the record can be anything.
        #[test]
        fn a_fields_end_follows_from_its_length_word(
            field in 0usize..25,
            choice in any::<u8>(),
            at in 0usize..40,
            seed in proptest::collection::vec(any::<u64>(), 0..40),
            noise in any::<u64>(),
        ) {
            let f = &SAMPLE_FIELDS[field % SAMPLE_FIELDS.len()];
            let choice = choice % f.choices();
            let r = record(&seed);
            let pos = at.min(r.len());
            let end = f.end(choice, Endian::Little, &r, pos);
            let mut other = r.clone();
            let mut x = noise | 1;
            for b in other.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            match f.length(choice) {
                FieldLength::Fixed(n) => {
                    prop_assert_eq!(end, Some(pos + n).filter(|&e| e <= r.len()));
                }
                FieldLength::Counted { word } => {
                    let w = usize::from(word);
                    if pos + w <= r.len() {
                        other[pos..pos + w].copy_from_slice(&r[pos..pos + w]);
                    }
                    prop_assert_eq!(f.end(choice, Endian::Little, &other, pos), end);
                }
                FieldLength::SizedDump => {
                    let size = r.get(pos..pos + 8).map(|w| u64::from_le_bytes(w.try_into().unwrap()));
                    if let Some(size) = size {
                        other[pos..pos + 8].copy_from_slice(&size.to_le_bytes());
                        let last = (pos + 8).checked_add(size as usize);
                        if let Some(at) = last.filter(|&a| size != 0 && a + 8 <= r.len()) {
                            let dyn_size = u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
                            let keep = u64::from(noise as u8) % (size + 1);
                            let new = if dyn_size <= size { keep } else { size + 1 + keep };
                            other[at..at + 8].copy_from_slice(&new.to_le_bytes());
                        }
                    }
                    prop_assert_eq!(f.end(choice, Endian::Little, &other, pos), end);
                }
                FieldLength::NonZero { zero: z, other: o } => {
                    let want = match r.get(pos..pos + 8) {
                        Some(w) if w.iter().all(|&b| b == 0) => Some(pos + z),
                        Some(_) => Some(pos + o),
                        None => None,
                    };
                    prop_assert_eq!(end, want.filter(|&e| e <= r.len()));
                    if pos + 8 <= r.len() {
                        let zero = r[pos..pos + 8].iter().all(|&b| b == 0);
                        if zero {
                            other[pos..pos + 8].fill(0);
                        } else {
                            other[pos] |= 1;
                        }
                    }
                    prop_assert_eq!(f.end(choice, Endian::Little, &other, pos), end);
                }
            }
        }
    }

    /// Every layout's choice is one of the field's choices.
    #[test]
    fn choices_cover_every_layout() {
        for (i, f) in SAMPLE_FIELDS.iter().enumerate() {
            let l = layout(u64::MAX >> 39, 31, (u64::MAX, u64::MAX), true);
            assert!(f.choice(&l) < f.choices(), "{i} {f:?}");
            assert_eq!(f.choice(&SampleLayout::default()), 0);
        }
        assert_eq!(SAMPLE_FIELDS.iter().filter(|f| f.is_raw()).count(), 1);
    }
}
