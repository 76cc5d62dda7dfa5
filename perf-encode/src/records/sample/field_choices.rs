//! The SAMPLE table's fields as every layout may have them: for code that must reason about
//! a record before it knows the attr that lays it out (a writer that takes records before
//! their event description checks them against the layouts they still fit).
//!
//! A layout makes one choice per field, in the table's order: absent (0), or present in one
//! of the ways its codec reads a layout (1 and up). Walking a record field by field with a
//! layout's choices ends where [`SampleLayout::sample_len`] ends: both are the table's walk.

use crate::records::sample::field_swap::FieldSwap;
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
    pub(crate) swap: FieldSwap,
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

    /// How the field changes between the two byte orders.
    pub(crate) fn swap(&self) -> FieldSwap {
        self.swap
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
