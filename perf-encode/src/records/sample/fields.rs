//! The values of SAMPLE fields that are more than a number: branch entries and stacks,
//! register dumps, the user stack, the weight struct, and the variable-length ones as read
//! back from a record.

use crate::records::wire::reader::U64Array;
use crate::Endian;
use perf_abi::record_fields::{self, BRANCH_ENTRY_FIELDS};

/// One `perf_branch_entry`: `{u64 from, u64 to, u64 flags}`.
///
/// `flags` holds the bit-fields as a little-endian kernel packs them (bit 0 `mispred`, 1
/// `predicted`, 2 `in_tx`, 3 `abort`, 4..20 `cycles`, 20..24 `type`, 24..26 `spec`,
/// 26..30 `new_type`, 30..33 `priv`). A big-endian kernel packs C bit-fields from the top
/// bit down (`mispred` is bit 63), and perf reads big-endian files that way: in a
/// big-endian file the encoder writes each field mirrored, and the parser mirrors back.
///
/// ```
/// use perf_encode::records::BranchEntry;
/// let e = BranchEntry { from: 0x1000, to: 0x2000, flags: BranchEntry::PREDICTED | 5 << BranchEntry::CYCLES_SHIFT };
/// assert_eq!(e.flags >> BranchEntry::CYCLES_SHIFT & 0xffff, 5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BranchEntry {
    /// Source address.
    pub from: u64,
    /// Target address.
    pub to: u64,
    /// The packed flag bits.
    pub flags: u64,
}

/// Moves each bit-field of `flags` from its position in one packing to the other:
/// `to_big` from the little-endian packing to the big-endian one, else back.
fn mirror_branch_fields(flags: u64, to_big: bool) -> u64 {
    BRANCH_ENTRY_FIELDS.iter().fold(0u64, |acc, &(pos, width)| {
        let mirrored = 64u32.saturating_sub(pos).saturating_sub(width);
        let (from, to) = if to_big {
            (pos, mirrored)
        } else {
            (mirrored, pos)
        };
        let mask = u64::MAX
            .checked_shr(64u32.saturating_sub(width))
            .unwrap_or(0);
        let value = flags.checked_shr(from).unwrap_or(0) & mask;
        acc | value.checked_shl(to).unwrap_or(0)
    })
}

/// `flags` (little-endian packing) as a kernel of byte order `endian` packs them.
pub(crate) fn branch_flags_to_file(flags: u64, endian: Endian) -> u64 {
    if endian.is_big() {
        mirror_branch_fields(flags, true)
    } else {
        flags
    }
}

/// The flags a kernel of byte order `endian` packed, in the little-endian packing.
pub(crate) fn branch_flags_from_file(flags: u64, endian: Endian) -> u64 {
    if endian.is_big() {
        mirror_branch_fields(flags, false)
    } else {
        flags
    }
}

impl BranchEntry {
    /// `mispred` bit of [`Self::flags`] (`perf_abi::record_fields::BRANCH_MISPRED`).
    pub const MISPRED: u64 = record_fields::BRANCH_MISPRED;
    /// `predicted` bit of [`Self::flags`].
    pub const PREDICTED: u64 = record_fields::BRANCH_PREDICTED;
    /// `in_tx` bit.
    pub const IN_TX: u64 = record_fields::BRANCH_IN_TX;
    /// `abort` bit.
    pub const ABORT: u64 = record_fields::BRANCH_ABORT;
    /// Shift of the 16-bit `cycles` field.
    pub const CYCLES_SHIFT: u32 = record_fields::BRANCH_CYCLES_SHIFT;
    /// Shift of the 4-bit branch `type` field.
    pub const TYPE_SHIFT: u32 = record_fields::BRANCH_TYPE_SHIFT;
}

/// BRANCH_STACK: `{u64 nr, [u64 hw_idx], perf_branch_entry[nr]}`.
///
/// ```
/// use perf_encode::records::{BranchEntry, BranchStack};
/// let entries = [BranchEntry { from: 1, to: 2, flags: 0 }];
/// let b = BranchStack { hw_idx: None, entries: &entries }; // hw_idx: Some(_) with BRANCH_SAMPLE_HW_INDEX
/// assert_eq!(b.entries.len(), 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BranchStack<'a> {
    /// Present when the attr's `branch_sample_type` has `PERF_SAMPLE_BRANCH_HW_INDEX`.
    pub hw_idx: Option<u64>,
    /// The entries, most recent first.
    pub entries: &'a [BranchEntry],
}

/// REGS_USER / REGS_INTR: `{u64 abi, u64 regs[]}`; `regs` has one value per bit set in the
/// attr's register mask, lowest bit first, unless `abi` is `REGS_ABI_NONE` (then none).
///
/// ```
/// use perf_abi::record_fields::{REGS_ABI_64, REGS_ABI_NONE};
/// use perf_encode::records::Regs;
/// let values = [0x11, 0x22]; // sample_regs_user = 0b11: AX, BX on x86-64
/// let r = Regs { abi: REGS_ABI_64, regs: &values };
/// let none = Regs { abi: REGS_ABI_NONE, regs: &[] }; // a kernel thread: no user registers
/// assert_ne!(r, none);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Regs<'a> {
    /// `REGS_ABI_NONE`, `REGS_ABI_32` or `REGS_ABI_64`.
    pub abi: u64,
    /// The register values.
    pub regs: &'a [u64],
}

/// STACK_USER: `{u64 size, u8 data[size], u64 dyn_size}` (`dyn_size` only when `size` is
/// not 0). `data` is zero-padded to 8 bytes and `size` counts the padding, as the kernel
/// writes it.
///
/// ```
/// use perf_encode::records::StackUser;
/// let stack = [0u8; 64];
/// let s = StackUser { data: &stack, dyn_size: 40 }; // 64 bytes dumped, 40 of them valid
/// assert!(s.dyn_size <= s.data.len() as u64);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StackUser<'a> {
    /// The stack bytes dumped.
    pub data: &'a [u8],
    /// How many of them are valid; must be 0 when `data` is empty.
    pub dyn_size: u64,
}

/// WEIGHT_STRUCT: `union perf_sample_weight`, one `u64` whose low 32 bits are `var1_dw`,
/// then `var2_w`, then `var3_w` (the kernel orders the struct so that this holds in both
/// byte orders).
///
/// ```
/// use perf_encode::records::WeightStruct;
/// let w = WeightStruct { var1_dw: 300, var2_w: 7, var3_w: 0 };
/// assert_eq!(w.to_u64(), 300 | 7 << 32);
/// assert_eq!(WeightStruct::from_u64(w.to_u64()), w);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WeightStruct {
    /// Low 32 bits (perf: weight).
    pub var1_dw: u32,
    /// Bits 32..48 (perf: ins_lat).
    pub var2_w: u16,
    /// Bits 48..64 (perf: retire_lat / p_stage_cyc).
    pub var3_w: u16,
}

impl WeightStruct {
    /// The `u64` written.
    pub const fn to_u64(self) -> u64 {
        (self.var1_dw as u64) | ((self.var2_w as u64) << 32) | ((self.var3_w as u64) << 48)
    }

    /// The struct of a written `u64`.
    pub const fn from_u64(v: u64) -> Self {
        WeightStruct {
            var1_dw: v as u32,
            var2_w: (v >> 32) as u16,
            var3_w: (v >> 48) as u16,
        }
    }
}

/// BRANCH_STACK as read from a record.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::BRANCH_STACK, branch_hw_index: true, ..Default::default() };
/// let entries = [BranchEntry { from: 1, to: 2, flags: BranchEntry::MISPRED }];
/// let s = Sample { branch_stack: Some(BranchStack { hw_idx: Some(0), entries: &entries }), ..Default::default() };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Big).unwrap();
/// let b = parse_sample(&layout, Endian::Big, &bytes).unwrap().branch_stack.unwrap();
/// assert_eq!((b.hw_idx, b.get(0)), (Some(0), Some(entries[0])));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedBranchStack<'a> {
    /// `hw_idx`, when the layout has it.
    pub hw_idx: Option<u64>,
    /// The entries' words: `from, to, flags` each, as stored (use [`Self::get`] or
    /// [`Self::iter`] for `flags` in the packing [`BranchEntry`] documents).
    pub words: U64Array<'a>,
}

impl<'a> ParsedBranchStack<'a> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.words.len() / 3
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i`.
    pub fn get(&self, i: usize) -> Option<BranchEntry> {
        let at = i.checked_mul(3)?;
        Some(BranchEntry {
            from: self.words.get(at)?,
            to: self.words.get(at.checked_add(1)?)?,
            flags: branch_flags_from_file(self.words.get(at.checked_add(2)?)?, self.words.endian()),
        })
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = BranchEntry> + 'a {
        let s = *self;
        (0..s.len()).filter_map(move |i| s.get(i))
    }
}

/// REGS_USER / REGS_INTR as read from a record.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_abi::record_fields::REGS_ABI_64;
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::REGS_INTR, regs_intr: 2, ..Default::default() };
/// let s = Sample { regs_intr: Some(Regs { abi: REGS_ABI_64, regs: &[5, 6] }), ..Default::default() };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Little).unwrap();
/// let r = parse_sample(&layout, Endian::Little, &bytes).unwrap().regs_intr.unwrap();
/// assert_eq!((r.abi, r.regs.iter().collect::<Vec<_>>()), (REGS_ABI_64, vec![5, 6]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedRegs<'a> {
    /// The ABI.
    pub abi: u64,
    /// The values (none when `abi` is `REGS_ABI_NONE`).
    pub regs: U64Array<'a>,
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_flags_mirror_per_field_in_big_endian() {
        let le =
            BranchEntry::MISPRED | 7 << BranchEntry::CYCLES_SHIFT | 3 << BranchEntry::TYPE_SHIFT;
        let be = branch_flags_to_file(le, Endian::Big);
        // mispred at bit 63, cycles in bits 44..60 with its value's bits in order, type at 40..44.
        assert_eq!(be, 1 << 63 | 7 << 44 | 3 << 40);
        assert_eq!(branch_flags_from_file(be, Endian::Big), le);
        assert_eq!(branch_flags_to_file(le, Endian::Little), le);
        for v in [0u64, u64::MAX, 0x0123_4567_89ab_cdef, 1 << 33, 1 << 32] {
            let there = branch_flags_to_file(v, Endian::Big);
            assert_eq!(branch_flags_from_file(there, Endian::Big), v);
            assert_eq!(there.count_ones(), v.count_ones());
        }
    }
}
