//! What an attr says SAMPLE records and `sample_id` trailers hold.

use perf_abi::record_fields::BRANCH_SAMPLE_HW_INDEX;
use perf_abi::sample_type::{self, SAMPLE_ID_BITS};
use perf_abi::{attr_flags, PerfEventAttr};

/// The parts of a `perf_event_attr` that fix the layout of its SAMPLE records and of the
/// `sample_id` trailer of its other records.
///
/// ```
/// use perf_abi::{attr_flags, sample_type, PerfEventAttr};
/// use perf_encode::records::SampleLayout;
/// let attr = PerfEventAttr {
///     sample_type: sample_type::IDENTIFIER | sample_type::TID | sample_type::TIME | sample_type::REGS_USER,
///     sample_regs_user: 0b1011,
///     flags: attr_flags::SAMPLE_ID_ALL,
///     ..Default::default()
/// };
/// let layout = SampleLayout::from_attr(&attr);
/// assert_eq!(layout.regs_user, 3);
/// assert_eq!(layout.sample_id_len(), 24); // TID, TIME, IDENTIFIER
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleLayout {
    /// `attr.sample_type`: which fields SAMPLE records have (`sample_type::*`).
    pub sample_type: u64,
    /// `attr.read_format`: the layout of READ values (`read_format::*`).
    pub read_format: u64,
    /// Registers in REGS_USER when its `abi` is not `REGS_ABI_NONE`: the number of bits
    /// set in `attr.sample_regs_user`.
    pub regs_user: u32,
    /// Registers in REGS_INTR (bits set in `attr.sample_regs_intr`).
    pub regs_intr: u32,
    /// BRANCH_STACK carries `hw_idx` (`branch_sample_type` has `BRANCH_SAMPLE_HW_INDEX`).
    pub branch_hw_index: bool,
    /// Records other than SAMPLE end with a `sample_id` trailer (`attr.sample_id_all`).
    pub sample_id_all: bool,
}

impl SampleLayout {
    /// The layout of `attr`'s records.
    pub const fn from_attr(attr: &PerfEventAttr) -> Self {
        SampleLayout {
            sample_type: attr.sample_type,
            read_format: attr.read_format,
            regs_user: attr.sample_regs_user.count_ones(),
            regs_intr: attr.sample_regs_intr.count_ones(),
            branch_hw_index: attr.branch_sample_type & BRANCH_SAMPLE_HW_INDEX != 0,
            sample_id_all: attr.flags & attr_flags::SAMPLE_ID_ALL != 0,
        }
    }

    /// True when `sample_type` has every bit of `bits`.
    pub const fn has(&self, bits: u64) -> bool {
        self.sample_type & bits == bits
    }

    /// The `sample_type` bits of the `sample_id` trailer: none without `sample_id_all`.
    pub const fn sample_id_bits(&self) -> u64 {
        if self.sample_id_all {
            self.sample_type & SAMPLE_ID_BITS
        } else {
            0
        }
    }

    /// Bytes of the `sample_id` trailer every non-SAMPLE record of this attr ends with
    /// (8 per field: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER).
    pub const fn sample_id_len(&self) -> usize {
        (self.sample_id_bits().count_ones() as usize).saturating_mul(8)
    }

    /// Where perf finds the event id (IDENTIFIER, else ID) that tells which event a record
    /// belongs to, in bytes: `(from the start of a SAMPLE record, back from the end of any
    /// other record)`. These are perf's `id_pos` and `is_pos` (`evsel__calc_id_pos`,
    /// `evsel__calc_is_pos`) times 8, the header counted in the first. perf computes both
    /// from `sample_type` alone, with or without `sample_id_all`, and reads a file with
    /// several events only if every attr gives the same pair. `None` when `sample_type` has
    /// neither IDENTIFIER nor ID.
    ///
    /// In a SAMPLE, IDENTIFIER is the first field and ID follows IP, TID, TIME and ADDR
    /// (`perf_output_sample`; all 8 bytes); in a trailer IDENTIFIER is the last field and ID
    /// is followed by STREAM_ID and CPU (`perf_event__output_id_sample`).
    ///
    /// ```
    /// use perf_abi::sample_type::*;
    /// use perf_encode::records::SampleLayout;
    /// let l = SampleLayout { sample_type: IP | TID | ID | CPU, ..Default::default() };
    /// assert_eq!(l.id_offsets(), Some((8 + 16, 16)));
    /// assert_eq!(l.trailer_id_offset_from_end(), None); // no sample_id_all: no trailer
    /// let l = SampleLayout { sample_type: IDENTIFIER | IP | ID, ..l };
    /// assert_eq!(l.id_offsets(), Some((8, 8)));
    /// ```
    pub const fn id_offsets(&self) -> Option<(usize, usize)> {
        let st = self.sample_type;
        let id = if st & sample_type::IDENTIFIER != 0 {
            sample_type::IDENTIFIER
        } else {
            sample_type::ID
        };
        match (
            sample_type::sample_offset(st, id),
            sample_type::trailer_offset_from_end(st, id),
        ) {
            (Some(from_start), Some(from_end)) => Some((from_start, from_end)),
            _ => None,
        }
    }

    /// Offset of the event id (IDENTIFIER, else ID) in this attr's SAMPLE records: the first
    /// of [`Self::id_offsets`]. `None` when the layout has neither field.
    pub const fn sample_id_offset(&self) -> Option<usize> {
        match self.id_offsets() {
            Some((from_start, _)) => Some(from_start),
            None => None,
        }
    }

    /// Offset of the ID field in a SAMPLE that has IDENTIFIER too: perf 6.1 parses such a
    /// SAMPLE as the IDENTIFIER's event's, then counts it for the event that owns its ID
    /// (`evsel__parse_sample` reads ID after IDENTIFIER into the same place). `None` when
    /// the layout lacks either field.
    ///
    /// ```
    /// use perf_abi::sample_type::*;
    /// use perf_encode::records::SampleLayout;
    /// let l = SampleLayout { sample_type: IDENTIFIER | TID | TIME | ID, ..Default::default() };
    /// assert_eq!(l.repeated_id_offset(), Some(8 + 24));
    /// let l = SampleLayout { sample_type: TID | ID, ..l };
    /// assert_eq!(l.repeated_id_offset(), None);
    /// ```
    pub const fn repeated_id_offset(&self) -> Option<usize> {
        match self.has(sample_type::IDENTIFIER) {
            true => sample_type::sample_offset(self.sample_type, sample_type::ID),
            false => None,
        }
    }

    /// Where the ID field is in the `sample_id` trailer of this attr's other records, in
    /// bytes back from their end, when the trailer has IDENTIFIER too (its last word): perf
    /// 6.1 takes the record's id from ID there as in a SAMPLE. `None` without a trailer or
    /// either field.
    ///
    /// ```
    /// use perf_abi::{attr_flags, sample_type::*};
    /// use perf_encode::records::SampleLayout;
    /// let l = SampleLayout { sample_type: IDENTIFIER | TID | ID | CPU, sample_id_all: true, ..Default::default() };
    /// assert_eq!(l.trailer_repeated_id_from_end(), Some(24)); // ID, CPU, IDENTIFIER
    /// ```
    pub const fn trailer_repeated_id_from_end(&self) -> Option<usize> {
        match self.has(sample_type::IDENTIFIER) && self.sample_id_all {
            true => sample_type::trailer_offset_from_end(self.sample_type, sample_type::ID),
            false => None,
        }
    }

    /// Offset of READ in this attr's SAMPLE records, when they have it: after the fields of
    /// fixed place ([`sample_type::SAMPLE_PREFIX_BITS`]).
    ///
    /// ```
    /// use perf_abi::sample_type::*;
    /// use perf_encode::records::SampleLayout;
    /// let l = SampleLayout { sample_type: IDENTIFIER | TID | TIME | READ | RAW, ..Default::default() };
    /// assert_eq!(l.read_offset(), Some(8 + 24));
    /// ```
    pub const fn read_offset(&self) -> Option<usize> {
        if !self.has(sample_type::READ) {
            return None;
        }
        let before = self.sample_type & sample_type::SAMPLE_PREFIX_BITS;
        // The header, then one word per field (at most 10 words: no overflow).
        Some(
            (before.count_ones() as usize)
                .saturating_add(1)
                .saturating_mul(8),
        )
    }

    /// Position of the event id (IDENTIFIER, else ID) in the `sample_id` trailer, counted in
    /// bytes back from the record's end: the second of [`Self::id_offsets`]. `None` when the
    /// records have no trailer (no `sample_id_all`) or the trailer has no id.
    pub const fn trailer_id_offset_from_end(&self) -> Option<usize> {
        match self.id_offsets() {
            Some((_, from_end)) if self.sample_id_all => Some(from_end),
            _ => None,
        }
    }
}

/// Every `sample_type` made of some of `bits`, for tests over each combination.
#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
pub(crate) fn each_subset(bits: &[u64]) -> impl Iterator<Item = u64> + '_ {
    (0u32..1 << bits.len()).map(move |set| {
        bits.iter()
            .enumerate()
            .filter(|&(i, _)| set & 1 << i != 0)
            .fold(0, |acc, (_, &b)| acc | b)
    })
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(test)]
mod tests {
    use super::*;
    use perf_abi::sample_type::*;

    #[test]
    fn id_positions() {
        let l = SampleLayout {
            sample_type: IP | TID | TIME | ID | CPU | PERIOD,
            sample_id_all: true,
            ..Default::default()
        };
        assert_eq!(l.sample_id_offset(), Some(8 + 24));
        assert_eq!(l.trailer_id_offset_from_end(), Some(16));
        assert_eq!(l.sample_id_len(), 32);
        let l = SampleLayout {
            sample_type: IDENTIFIER | IP,
            ..Default::default()
        };
        assert_eq!(l.sample_id_offset(), Some(8));
        assert_eq!(l.trailer_id_offset_from_end(), None);
        assert_eq!(l.id_offsets(), Some((8, 8)));
        assert_eq!(l.sample_id_len(), 0);
        // perf's id_pos and is_pos ignore sample_id_all.
        let l = SampleLayout {
            sample_type: IP | ADDR | ID | STREAM_ID | CPU,
            ..Default::default()
        };
        assert_eq!(l.id_offsets(), Some((8 + 16, 24)));
        assert_eq!(l.trailer_id_offset_from_end(), None);
        let l = SampleLayout {
            sample_type: IP | TIME | STREAM_ID,
            sample_id_all: true,
            ..Default::default()
        };
        assert_eq!(l.id_offsets(), None);
        assert_eq!(l.trailer_id_offset_from_end(), None);
    }
}
