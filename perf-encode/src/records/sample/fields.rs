//! `PERF_RECORD_SAMPLE`, laid out by the attr's `sample_type`.

use crate::records::encode::body::{align8, encode_as_record, write_padded, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::read_values::ReadValues;
use crate::records::sample::sample_id::{field, PidTid, SampleCpu};
use crate::{CountingOutput, EncodeError, Encoder, Endian, Output};
use perf_abi::record_fields::MAX_RECORD_SIZE;
use perf_abi::{record_type, sample_type};

const RECORD: &str = "SAMPLE";

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

/// The `perf_branch_entry` bit-fields as `(position, width)` in the little-endian packing.
const BRANCH_FIELDS: [(u32, u32); 10] = [
    (0, 1),
    (1, 1),
    (2, 1),
    (3, 1),
    (4, 16),
    (20, 4),
    (24, 2),
    (26, 4),
    (30, 3),
    (33, 31),
];

/// Moves each bit-field of `flags` from its position in one packing to the other:
/// `to_big` from the little-endian packing to the big-endian one, else back.
fn mirror_branch_fields(flags: u64, to_big: bool) -> u64 {
    BRANCH_FIELDS.iter().fold(0u64, |acc, &(pos, width)| {
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
    /// `mispred` bit of [`Self::flags`].
    pub const MISPRED: u64 = 1 << 0;
    /// `predicted` bit of [`Self::flags`].
    pub const PREDICTED: u64 = 1 << 1;
    /// `in_tx` bit.
    pub const IN_TX: u64 = 1 << 2;
    /// `abort` bit.
    pub const ABORT: u64 = 1 << 3;
    /// Shift of the 16-bit `cycles` field.
    pub const CYCLES_SHIFT: u32 = 4;
    /// Shift of the 4-bit branch `type` field.
    pub const TYPE_SHIFT: u32 = 20;
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

/// The fields of a SAMPLE record, one `Option` per `sample_type` bit, in the order the kernel
/// (`perf_output_sample`, Linux 6.1) writes them. [`SampleRecord`] writes exactly the fields
/// the attr's layout has: each must be `Some` when the layout has it and `None` otherwise.
///
/// ```
/// use perf_abi::sample_type::*;
/// use perf_encode::records::{PidTid, Sample, SampleLayout, SampleRecord};
/// use perf_encode::{to_vec, Endian, EncodeError};
/// let layout = SampleLayout { sample_type: IP | TID | TIME, ..Default::default() };
/// let s = Sample { ip: Some(0x1000), tid: Some(PidTid { pid: 7, tid: 8 }), time: Some(5), ..Default::default() };
/// let v = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: perf_abi::misc::USER }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 32);
/// let no_time = Sample { time: None, ..s };
/// assert_eq!(
///     to_vec(&SampleRecord { layout: &layout, sample: &no_time, misc: 0 }, Endian::Little),
///     Err(EncodeError::MissingField { record: "SAMPLE", field: "time" })
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sample<'a> {
    /// IDENTIFIER: the event id, at a fixed offset.
    pub identifier: Option<u64>,
    /// IP.
    pub ip: Option<u64>,
    /// TID: `{u32 pid, u32 tid}`.
    pub tid: Option<PidTid>,
    /// TIME.
    pub time: Option<u64>,
    /// ADDR.
    pub addr: Option<u64>,
    /// ID: the event id.
    pub id: Option<u64>,
    /// STREAM_ID.
    pub stream_id: Option<u64>,
    /// CPU: `{u32 cpu, u32 res}`.
    pub cpu: Option<SampleCpu>,
    /// PERIOD.
    pub period: Option<u64>,
    /// READ: counter values laid out by `read_format`.
    pub read: Option<ReadValues<'a>>,
    /// CALLCHAIN: `{u64 nr, u64 ips[nr]}` (context markers such as `PERF_CONTEXT_KERNEL`
    /// included).
    pub callchain: Option<&'a [u64]>,
    /// RAW: `{u32 size, u8 data[size]}`; the data is zero-padded so that `4 + size` is a
    /// multiple of 8, and `size` counts the padding, as the kernel writes it.
    pub raw: Option<&'a [u8]>,
    /// BRANCH_STACK.
    pub branch_stack: Option<BranchStack<'a>>,
    /// REGS_USER.
    pub regs_user: Option<Regs<'a>>,
    /// STACK_USER.
    pub stack_user: Option<StackUser<'a>>,
    /// WEIGHT (when the layout has WEIGHT and not WEIGHT_STRUCT).
    pub weight: Option<u64>,
    /// WEIGHT_STRUCT (when the layout has it; the same 8 bytes as WEIGHT).
    pub weight_struct: Option<WeightStruct>,
    /// DATA_SRC (`union perf_mem_data_src`).
    pub data_src: Option<u64>,
    /// TRANSACTION.
    pub transaction: Option<u64>,
    /// REGS_INTR.
    pub regs_intr: Option<Regs<'a>>,
    /// PHYS_ADDR.
    pub phys_addr: Option<u64>,
    /// CGROUP: the cgroup id.
    pub cgroup: Option<u64>,
    /// DATA_PAGE_SIZE.
    pub data_page_size: Option<u64>,
    /// CODE_PAGE_SIZE.
    pub code_page_size: Option<u64>,
    /// AUX: `{u64 size, u8 data[size]}`, zero-padded to 8 (`size` counts the padding).
    pub aux: Option<&'a [u8]>,
}

fn write_regs<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    regs: &Regs<'_>,
    count: u32,
    what: &'static str,
) -> Result<(), EncodeError> {
    let expected = if regs.abi == 0 { 0 } else { u64::from(count) };
    if regs.regs.len() as u64 != expected {
        return Err(EncodeError::FieldCount {
            record: RECORD,
            field: what,
            expected,
            actual: regs.regs.len() as u64,
        });
    }
    enc.u64(regs.abi)?;
    enc.u64s(regs.regs)
}

fn put_u64<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    st: u64,
    name: &'static str,
    bit: u64,
    v: Option<u64>,
) -> Result<(), EncodeError> {
    match field(RECORD, name, st & bit != 0, v)? {
        Some(v) => enc.u64(v),
        None => Ok(()),
    }
}

impl Sample<'_> {
    /// This sample with only the fields `layout` has (a `weight` moves to `weight_struct`
    /// and back as the layout asks).
    pub fn masked(&self, layout: &SampleLayout) -> Self {
        let has = |bit: u64| layout.sample_type & bit != 0;
        fn keep<T>(yes: bool, v: Option<T>) -> Option<T> {
            if yes {
                v
            } else {
                None
            }
        }
        let weight_word = self.weight_struct.map(WeightStruct::to_u64).or(self.weight);
        let structured = has(sample_type::WEIGHT_STRUCT);
        Sample {
            identifier: keep(has(sample_type::IDENTIFIER), self.identifier),
            ip: keep(has(sample_type::IP), self.ip),
            tid: keep(has(sample_type::TID), self.tid),
            time: keep(has(sample_type::TIME), self.time),
            addr: keep(has(sample_type::ADDR), self.addr),
            id: keep(has(sample_type::ID), self.id),
            stream_id: keep(has(sample_type::STREAM_ID), self.stream_id),
            cpu: keep(has(sample_type::CPU), self.cpu),
            period: keep(has(sample_type::PERIOD), self.period),
            read: keep(has(sample_type::READ), self.read),
            callchain: keep(has(sample_type::CALLCHAIN), self.callchain),
            raw: keep(has(sample_type::RAW), self.raw),
            branch_stack: keep(has(sample_type::BRANCH_STACK), self.branch_stack),
            regs_user: keep(has(sample_type::REGS_USER), self.regs_user),
            stack_user: keep(has(sample_type::STACK_USER), self.stack_user),
            weight: keep(has(sample_type::WEIGHT) && !structured, weight_word),
            weight_struct: keep(structured, weight_word.map(WeightStruct::from_u64)),
            data_src: keep(has(sample_type::DATA_SRC), self.data_src),
            transaction: keep(has(sample_type::TRANSACTION), self.transaction),
            regs_intr: keep(has(sample_type::REGS_INTR), self.regs_intr),
            phys_addr: keep(has(sample_type::PHYS_ADDR), self.phys_addr),
            cgroup: keep(has(sample_type::CGROUP), self.cgroup),
            data_page_size: keep(has(sample_type::DATA_PAGE_SIZE), self.data_page_size),
            code_page_size: keep(has(sample_type::CODE_PAGE_SIZE), self.code_page_size),
            aux: keep(has(sample_type::AUX), self.aux),
        }
    }

    /// Writes the record body (everything after the header) as `layout` lays it out.
    fn write_body<O: Output + ?Sized>(
        &self,
        enc: &mut Encoder<'_, O>,
        layout: &SampleLayout,
    ) -> Result<(), EncodeError> {
        let has = |bit: u64| layout.sample_type & bit != 0;
        let st = layout.sample_type;
        put_u64(
            enc,
            st,
            "identifier",
            sample_type::IDENTIFIER,
            self.identifier,
        )?;
        put_u64(enc, st, "ip", sample_type::IP, self.ip)?;
        if let Some(t) = field(RECORD, "tid", has(sample_type::TID), self.tid)? {
            enc.u32(t.pid)?;
            enc.u32(t.tid)?;
        }
        put_u64(enc, st, "time", sample_type::TIME, self.time)?;
        put_u64(enc, st, "addr", sample_type::ADDR, self.addr)?;
        put_u64(enc, st, "id", sample_type::ID, self.id)?;
        put_u64(enc, st, "stream_id", sample_type::STREAM_ID, self.stream_id)?;
        if let Some(c) = field(RECORD, "cpu", has(sample_type::CPU), self.cpu)? {
            enc.u32(c.cpu)?;
            enc.u32(c.res)?;
        }
        put_u64(enc, st, "period", sample_type::PERIOD, self.period)?;
        if let Some(r) = field(RECORD, "read", has(sample_type::READ), self.read)? {
            r.write(enc, layout.read_format, RECORD)?;
        }
        if let Some(ips) = field(
            RECORD,
            "callchain",
            has(sample_type::CALLCHAIN),
            self.callchain,
        )? {
            enc.u64(ips.len() as u64)?;
            enc.u64s(ips)?;
        }
        if let Some(raw) = field(RECORD, "raw", has(sample_type::RAW), self.raw)? {
            let padded = align8(raw.len().saturating_add(4), "RAW size")?.saturating_sub(4);
            let size = u32::try_from(padded).map_err(|_| EncodeError::TooLong {
                what: "SAMPLE raw data",
                len: raw.len() as u64,
                max: MAX_RECORD_SIZE as u64,
            })?;
            enc.u32(size)?;
            write_padded(enc, raw, padded)?;
        }
        if let Some(b) = field(
            RECORD,
            "branch_stack",
            has(sample_type::BRANCH_STACK),
            self.branch_stack,
        )? {
            enc.u64(b.entries.len() as u64)?;
            if let Some(idx) = field(
                RECORD,
                "branch_stack.hw_idx",
                layout.branch_hw_index,
                b.hw_idx,
            )? {
                enc.u64(idx)?;
            }
            for e in b.entries {
                enc.u64(e.from)?;
                enc.u64(e.to)?;
                enc.u64(branch_flags_to_file(e.flags, enc.endian()))?;
            }
        }
        if let Some(r) = field(
            RECORD,
            "regs_user",
            has(sample_type::REGS_USER),
            self.regs_user,
        )? {
            write_regs(enc, &r, layout.regs_user, "regs_user.regs")?;
        }
        if let Some(s) = field(
            RECORD,
            "stack_user",
            has(sample_type::STACK_USER),
            self.stack_user,
        )? {
            let padded = align8(s.data.len(), "STACK_USER size")?;
            enc.u64(padded as u64)?;
            if padded != 0 {
                write_padded(enc, s.data, padded)?;
                enc.u64(s.dyn_size)?;
            } else if s.dyn_size != 0 {
                return Err(EncodeError::InvalidValue {
                    what: "SAMPLE record: stack_user.dyn_size is not 0 but the stack is empty",
                });
            }
        }
        let structured = has(sample_type::WEIGHT_STRUCT);
        put_u64(
            enc,
            st,
            "weight",
            if structured { 0 } else { sample_type::WEIGHT },
            self.weight,
        )?;
        if let Some(w) = field(RECORD, "weight_struct", structured, self.weight_struct)? {
            enc.u64(w.to_u64())?;
        }
        put_u64(enc, st, "data_src", sample_type::DATA_SRC, self.data_src)?;
        put_u64(
            enc,
            st,
            "transaction",
            sample_type::TRANSACTION,
            self.transaction,
        )?;
        if let Some(r) = field(
            RECORD,
            "regs_intr",
            has(sample_type::REGS_INTR),
            self.regs_intr,
        )? {
            write_regs(enc, &r, layout.regs_intr, "regs_intr.regs")?;
        }
        put_u64(enc, st, "phys_addr", sample_type::PHYS_ADDR, self.phys_addr)?;
        put_u64(enc, st, "cgroup", sample_type::CGROUP, self.cgroup)?;
        put_u64(
            enc,
            st,
            "data_page_size",
            sample_type::DATA_PAGE_SIZE,
            self.data_page_size,
        )?;
        put_u64(
            enc,
            st,
            "code_page_size",
            sample_type::CODE_PAGE_SIZE,
            self.code_page_size,
        )?;
        if let Some(aux) = field(RECORD, "aux", has(sample_type::AUX), self.aux)? {
            let padded = align8(aux.len(), "AUX size")?;
            enc.u64(padded as u64)?;
            write_padded(enc, aux, padded)?;
        }
        Ok(())
    }
}

/// A SAMPLE record: `header {SAMPLE, misc, size}` and the fields of `sample` as `layout`
/// lays them out. See [`Sample`].
///
/// ```
/// use perf_abi::sample_type::*;
/// use perf_encode::records::{Sample, SampleLayout, SampleRecord};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: IDENTIFIER | RAW, ..Default::default() };
/// let raw = [1u8, 2, 3, 4, 5];
/// let s = Sample { identifier: Some(9), raw: Some(&raw), ..Default::default() };
/// let v = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 8 + 4 + 12); // size 12: 5 bytes of data, 7 of padding
/// assert_eq!(&v[16..20], &12u32.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SampleRecord<'a> {
    /// The attr's layout.
    pub layout: &'a SampleLayout,
    /// The fields.
    pub sample: &'a Sample<'a>,
    /// `header.misc`: the cpu mode (`misc::USER`, `misc::KERNEL`, …), `misc::EXACT_IP`, ….
    pub misc: u16,
}

impl RecordBody for SampleRecord<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::SAMPLE
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        let mut counter = CountingOutput::new();
        self.sample
            .write_body(&mut Encoder::new(&mut counter, Endian::NATIVE), self.layout)?;
        Ok(counter.len())
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.sample.write_body(enc, self.layout)
    }
}

encode_as_record!(SampleRecord<'_>);

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
