//! One codec per kind of SAMPLE field: the bytes a value takes, how it is written and how
//! it is read back, each by the attr's layout. The table (`table.rs`) gives every field
//! one of these.

use crate::records::sample::field_choices::FieldLength;
use crate::records::sample::field_swap::FieldSwap;
use crate::records::sample::fields::{
    branch_flags_to_file, BranchStack, ParsedBranchStack, ParsedRegs, Regs, StackUser, WeightStruct,
};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::read_values::{parse_read, ParsedReadValues, ReadValues};
use crate::records::wire::error::ParseError;
use crate::records::wire::pad::{add_len, align8, words, write_padded};
use crate::records::wire::pair::U32Pair;
use crate::records::wire::presence::{field, present};
use crate::records::wire::reader::{Reader, U64Array};
use crate::{EncodeError, Encoder, Output};
use perf_abi::read_format;
use perf_abi::record_fields::MAX_RECORD_SIZE;

const RECORD: &str = "SAMPLE";

/// The `read_format` bits that lay READ values out.
const READ_FORMAT_BITS: u64 = read_format::TOTAL_TIME_ENABLED
    | read_format::TOTAL_TIME_RUNNING
    | read_format::ID
    | read_format::GROUP
    | read_format::LOST;

/// One kind of SAMPLE field.
///
/// [`FieldCodec::len`] checks everything the layout asks of a value (counts, sizes, nested
/// fields) and gives its length without writing; [`FieldCodec::write`] trusts that check
/// and writes, failing only where it needs a value the layout asks for and the sample lacks
/// (so a caller that skips `len` gets an error or a body of another length, never a panic).
///
/// The `read`s are `#[inline(always)]`: the walk over a sample is one function, and a read
/// left out of line returns its `Result` through memory (parsing a sample with every field
/// was 10–20 % slower than the hand-written walk this replaces without it).
pub(crate) trait FieldCodec {
    /// The value a [`Sample`](super::table::Sample) holds.
    type Value<'a>: Copy;
    /// The value a [`ParsedSample`](super::table::ParsedSample) holds.
    type Parsed<'a>;

    /// The bytes the field takes whatever its value (`None`: its length varies).
    const FIXED_LEN: Option<usize> = None;

    /// RAW: `u32 size` then that many bytes (its length follows from that word alone).
    const IS_RAW: bool = false;

    /// CALLCHAIN: `u64 nr` then that many `u64` (its length follows from that word alone).
    const IS_CALLCHAIN: bool = false;

    /// How the field changes between the two byte orders.
    const SWAP: FieldSwap = FieldSwap::Words;

    /// The ways a present field can be laid out: what of the layout its codec reads besides
    /// its presence (READ: the `read_format`; a register dump: how many registers;
    /// BRANCH_STACK: whether `hw_idx` is there). 1 for the others.
    const CHOICES: u8 = 1;

    /// Which of those ways `layout` lays the field out in (below [`FieldCodec::CHOICES`]).
    #[inline]
    fn choice_of(layout: &SampleLayout) -> u8 {
        let _ = layout;
        0
    }

    /// A layout that lays the field out in way `choice` (what [`FieldCodec::read`] reads of
    /// a layout; the rest default).
    #[inline]
    fn layout_of(choice: u8) -> SampleLayout {
        let _ = choice;
        SampleLayout::default()
    }

    /// What the field's length follows from when laid out in way `choice`
    /// ([`FieldCodec::FIXED_LEN`], else the `u64` it starts with, by default).
    #[inline]
    fn length(choice: u8) -> FieldLength {
        let _ = choice;
        match Self::FIXED_LEN {
            Some(n) => FieldLength::Fixed(n),
            None => FieldLength::Counted { word: 8 },
        }
    }

    /// Bytes `v` takes in a record of `layout`, after checking it against the layout
    /// ([`FieldCodec::FIXED_LEN`] by default).
    #[inline]
    fn len(v: &Self::Value<'_>, layout: &SampleLayout) -> Result<usize, EncodeError> {
        let _ = (v, layout);
        Self::FIXED_LEN.ok_or(EncodeError::InvalidValue {
            what: "SAMPLE field: a codec of varying length without len",
        })
    }

    /// Writes `v` as `layout` lays it out, once [`FieldCodec::len`] accepted it.
    fn write<O: Output + ?Sized>(
        v: &Self::Value<'_>,
        layout: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError>;

    /// Reads the field; errors name `field` (or its parts).
    fn read<'a>(
        r: &mut Reader<'a>,
        layout: &SampleLayout,
        field: &'static str,
    ) -> Result<Self::Parsed<'a>, ParseError>;
}

/// A `u64`.
pub(crate) struct U64;

impl FieldCodec for U64 {
    type Value<'a> = u64;
    type Parsed<'a> = u64;
    const FIXED_LEN: Option<usize> = Some(8);

    #[inline]
    fn write<O: Output + ?Sized>(
        v: &u64,
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        enc.u64(*v)
    }

    #[inline(always)]
    fn read(r: &mut Reader<'_>, _: &SampleLayout, field: &'static str) -> Result<u64, ParseError> {
        r.u64(field)
    }
}

/// TID (`{u32 pid, u32 tid}`) or CPU (`{u32 cpu, u32 res}`): a [`U32Pair`].
pub(crate) struct Pair<T>(core::marker::PhantomData<T>);

impl<T: U32Pair> FieldCodec for Pair<T> {
    const SWAP: FieldSwap = FieldSwap::U32Pair;
    type Value<'a> = T;
    type Parsed<'a> = T;
    const FIXED_LEN: Option<usize> = Some(8);

    #[inline]
    fn write<O: Output + ?Sized>(
        v: &T,
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        v.write(enc)
    }

    #[inline(always)]
    fn read(r: &mut Reader<'_>, _: &SampleLayout, _: &'static str) -> Result<T, ParseError> {
        T::read(r, T::NAMES)
    }
}

/// READ: `struct read_format`, laid out by the layout's `read_format`.
pub(crate) struct Read;

impl FieldCodec for Read {
    type Value<'a> = ReadValues<'a>;
    type Parsed<'a> = ParsedReadValues<'a>;

    /// The `read_format` bits `parse_read` reads.
    const CHOICES: u8 = 32;

    #[inline]
    fn choice_of(layout: &SampleLayout) -> u8 {
        (layout.read_format & READ_FORMAT_BITS) as u8
    }

    #[inline]
    fn layout_of(choice: u8) -> SampleLayout {
        SampleLayout {
            read_format: u64::from(choice) & READ_FORMAT_BITS,
            ..SampleLayout::default()
        }
    }

    /// A group's length follows from its `nr`; one counter's from `read_format` alone.
    #[inline]
    fn length(choice: u8) -> FieldLength {
        let rf = u64::from(choice);
        if rf & read_format::GROUP != 0 {
            return FieldLength::Counted { word: 8 };
        }
        let words = 1usize
            .saturating_add((rf & !read_format::GROUP & READ_FORMAT_BITS).count_ones() as usize);
        FieldLength::Fixed(words.saturating_mul(8))
    }

    #[inline]
    fn len(v: &ReadValues<'_>, layout: &SampleLayout) -> Result<usize, EncodeError> {
        v.len(layout.read_format, RECORD)
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        v: &ReadValues<'_>,
        layout: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        v.write(enc, layout.read_format, RECORD)
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        layout: &SampleLayout,
        _: &'static str,
    ) -> Result<ParsedReadValues<'a>, ParseError> {
        parse_read(r, layout.read_format)
    }
}

/// CALLCHAIN: `{u64 nr, u64 ips[nr]}`.
pub(crate) struct Callchain;

impl FieldCodec for Callchain {
    type Value<'a> = &'a [u64];
    type Parsed<'a> = U64Array<'a>;

    const IS_CALLCHAIN: bool = true;

    #[inline]
    fn len(ips: &&[u64], _: &SampleLayout) -> Result<usize, EncodeError> {
        words(ips.len()).and_then(|n| add_len(n, 8))
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        ips: &&[u64],
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        enc.u64(ips.len() as u64)?;
        enc.u64s(ips)
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        _: &SampleLayout,
        _: &'static str,
    ) -> Result<U64Array<'a>, ParseError> {
        let nr = r.u64("callchain.nr")?;
        r.u64s(nr, "callchain.ips")
    }
}

/// RAW: `{u32 size, u8 data[size]}`, the data zero-padded so that `4 + size` is a
/// multiple of 8 (`size` counts the padding).
pub(crate) struct Raw;

impl Raw {
    /// `size`: the data's length padded.
    #[inline]
    pub(crate) fn size(raw: &[u8]) -> Result<u32, EncodeError> {
        let padded = align8(raw.len().saturating_add(4), "RAW size")?.saturating_sub(4);
        u32::try_from(padded).map_err(|_| EncodeError::TooLong {
            what: "SAMPLE raw data",
            len: raw.len() as u64,
            max: MAX_RECORD_SIZE as u64,
        })
    }
}

impl FieldCodec for Raw {
    const SWAP: FieldSwap = FieldSwap::Raw;
    type Value<'a> = &'a [u8];
    type Parsed<'a> = &'a [u8];

    const IS_RAW: bool = true;

    /// Its `u32 size`.
    #[inline]
    fn length(_: u8) -> FieldLength {
        FieldLength::Counted { word: 4 }
    }

    #[inline]
    fn len(raw: &&[u8], _: &SampleLayout) -> Result<usize, EncodeError> {
        let size = usize::try_from(Self::size(raw)?).unwrap_or(usize::MAX);
        add_len(size, 4)
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        raw: &&[u8],
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        let size = Self::size(raw)?;
        enc.u32(size)?;
        write_padded(enc, raw, usize::try_from(size).unwrap_or(usize::MAX))
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        _: &SampleLayout,
        _: &'static str,
    ) -> Result<&'a [u8], ParseError> {
        let size = r.u32("raw.size")?;
        r.take(usize::try_from(size).unwrap_or(usize::MAX), "raw.data")
    }
}

/// BRANCH_STACK: `{u64 nr, [u64 hw_idx], perf_branch_entry[nr]}`, `hw_idx` when the layout
/// has `branch_hw_index`.
pub(crate) struct Branches;

impl FieldCodec for Branches {
    const SWAP: FieldSwap = FieldSwap::Branches;
    type Value<'a> = BranchStack<'a>;
    type Parsed<'a> = ParsedBranchStack<'a>;

    /// With `hw_idx` or without.
    const CHOICES: u8 = 2;

    #[inline]
    fn choice_of(layout: &SampleLayout) -> u8 {
        u8::from(layout.branch_hw_index)
    }

    #[inline]
    fn layout_of(choice: u8) -> SampleLayout {
        SampleLayout {
            branch_hw_index: choice != 0,
            ..SampleLayout::default()
        }
    }

    #[inline]
    fn len(b: &BranchStack<'_>, layout: &SampleLayout) -> Result<usize, EncodeError> {
        let hw_idx = field(
            RECORD,
            "branch_stack.hw_idx",
            layout.branch_hw_index,
            b.hw_idx,
        )?;
        let entries = b
            .entries
            .len()
            .checked_mul(3)
            .ok_or(EncodeError::Overflow {
                what: "encoded length",
            })?;
        words(entries)
            .and_then(|n| add_len(n, 8))
            .and_then(|n| add_len(n, if hw_idx.is_some() { 8 } else { 0 }))
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        b: &BranchStack<'_>,
        layout: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        enc.u64(b.entries.len() as u64)?;
        if layout.branch_hw_index {
            enc.u64(present(RECORD, "branch_stack.hw_idx", b.hw_idx)?)?;
        }
        let endian = enc.endian();
        for e in b.entries {
            enc.u64(e.from)?;
            enc.u64(e.to)?;
            enc.u64(branch_flags_to_file(e.flags, endian))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        layout: &SampleLayout,
        _: &'static str,
    ) -> Result<ParsedBranchStack<'a>, ParseError> {
        let nr = r.u64("branch_stack.nr")?;
        let hw_idx = if layout.branch_hw_index {
            Some(r.u64("branch_stack.hw_idx")?)
        } else {
            None
        };
        let words = r.u64s(nr.saturating_mul(3), "branch_stack.entries")?;
        Ok(ParsedBranchStack { hw_idx, words })
    }
}

/// REGS_USER (`INTR` false) or REGS_INTR (`INTR` true): `{u64 abi, u64 regs[]}`, one value
/// per bit of the attr's register mask unless `abi` is `REGS_ABI_NONE` (then none).
pub(crate) struct RegsDump<const INTR: bool>;

impl<const INTR: bool> RegsDump<INTR> {
    /// The name of the values, for errors.
    const VALUES: &'static str = if INTR {
        "regs_intr.regs"
    } else {
        "regs_user.regs"
    };

    /// Values a dump of ABI `abi` has in a record of `layout`.
    #[inline]
    const fn count(abi: u64, layout: &SampleLayout) -> u32 {
        match (abi, INTR) {
            (0, _) => 0,
            (_, true) => layout.regs_intr,
            (_, false) => layout.regs_user,
        }
    }
}

impl<const INTR: bool> FieldCodec for RegsDump<INTR> {
    type Value<'a> = Regs<'a>;
    type Parsed<'a> = ParsedRegs<'a>;

    /// 0 to 64 registers (bits of the mask).
    const CHOICES: u8 = 65;

    #[inline]
    fn choice_of(layout: &SampleLayout) -> u8 {
        let n = if INTR {
            layout.regs_intr
        } else {
            layout.regs_user
        };
        u8::try_from(n).unwrap_or(u8::MAX)
    }

    #[inline]
    fn layout_of(choice: u8) -> SampleLayout {
        let n = u32::from(choice);
        SampleLayout {
            regs_user: if INTR { 0 } else { n },
            regs_intr: if INTR { n } else { 0 },
            ..SampleLayout::default()
        }
    }

    /// No register: the `abi` word alone. Else the values follow when `abi` is not
    /// `REGS_ABI_NONE` (0).
    #[inline]
    fn length(choice: u8) -> FieldLength {
        match choice {
            0 => FieldLength::Fixed(8),
            n => FieldLength::NonZero {
                zero: 8,
                other: 8usize.saturating_add(usize::from(n).saturating_mul(8)),
            },
        }
    }

    #[inline]
    fn len(regs: &Regs<'_>, layout: &SampleLayout) -> Result<usize, EncodeError> {
        let expected = u64::from(Self::count(regs.abi, layout));
        if regs.regs.len() as u64 != expected {
            return Err(EncodeError::FieldCount {
                record: RECORD,
                field: Self::VALUES,
                expected,
                actual: regs.regs.len() as u64,
            });
        }
        words(regs.regs.len()).and_then(|n| add_len(n, 8))
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        regs: &Regs<'_>,
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        enc.u64(regs.abi)?;
        enc.u64s(regs.regs)
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        layout: &SampleLayout,
        field: &'static str,
    ) -> Result<ParsedRegs<'a>, ParseError> {
        let abi = r.u64(field)?;
        let regs = r.u64s(u64::from(Self::count(abi, layout)), field)?;
        Ok(ParsedRegs { abi, regs })
    }
}

/// STACK_USER: `{u64 size, u8 data[size], u64 dyn_size}` (`data` and `dyn_size` only when
/// `size` is not 0), the data zero-padded to 8 (`size` counts the padding).
pub(crate) struct Stack;

impl FieldCodec for Stack {
    const SWAP: FieldSwap = FieldSwap::Stack;
    type Value<'a> = StackUser<'a>;
    type Parsed<'a> = StackUser<'a>;

    #[inline]
    fn len(s: &StackUser<'_>, _: &SampleLayout) -> Result<usize, EncodeError> {
        let padded = align8(s.data.len(), "STACK_USER size")?;
        if padded == 0 {
            if s.dyn_size != 0 {
                return Err(EncodeError::InvalidValue {
                    what: "SAMPLE record: stack_user.dyn_size is not 0 but the stack is empty",
                });
            }
            return Ok(8);
        }
        if s.dyn_size > padded as u64 {
            return Err(EncodeError::InvalidValue {
                what: "SAMPLE record: stack_user.dyn_size is more than the stack's size",
            });
        }
        add_len(padded, 16)
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        s: &StackUser<'_>,
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        let padded = align8(s.data.len(), "STACK_USER size")?;
        enc.u64(padded as u64)?;
        if padded != 0 {
            write_padded(enc, s.data, padded)?;
            enc.u64(s.dyn_size)?;
        }
        Ok(())
    }

    /// Its `size`, and whether `dyn_size` is at most it.
    #[inline]
    fn length(_: u8) -> FieldLength {
        FieldLength::SizedDump
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        _: &SampleLayout,
        _: &'static str,
    ) -> Result<StackUser<'a>, ParseError> {
        let size = r.u64("stack_user.size")?;
        if size == 0 {
            return Ok(StackUser {
                data: &[],
                dyn_size: 0,
            });
        }
        let data = r.take(
            usize::try_from(size).unwrap_or(usize::MAX),
            "stack_user.data",
        )?;
        let dyn_size = r.u64("stack_user.dyn_size")?;
        if dyn_size > size {
            return Err(ParseError::StackDynSize { dyn_size, size });
        }
        Ok(StackUser { data, dyn_size })
    }
}

/// WEIGHT_STRUCT: `union perf_sample_weight`, one `u64`.
pub(crate) struct Weight;

impl FieldCodec for Weight {
    type Value<'a> = WeightStruct;
    type Parsed<'a> = WeightStruct;
    const FIXED_LEN: Option<usize> = Some(8);

    #[inline]
    fn write<O: Output + ?Sized>(
        w: &WeightStruct,
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        enc.u64(w.to_u64())
    }

    #[inline(always)]
    fn read(
        r: &mut Reader<'_>,
        _: &SampleLayout,
        field: &'static str,
    ) -> Result<WeightStruct, ParseError> {
        r.u64(field).map(WeightStruct::from_u64)
    }
}

/// AUX: `{u64 size, u8 data[size]}`, zero-padded to 8 (`size` counts the padding).
pub(crate) struct Aux;

impl FieldCodec for Aux {
    const SWAP: FieldSwap = FieldSwap::SizedBytes;
    type Value<'a> = &'a [u8];
    type Parsed<'a> = &'a [u8];

    #[inline]
    fn len(aux: &&[u8], _: &SampleLayout) -> Result<usize, EncodeError> {
        align8(aux.len(), "AUX size").and_then(|n| add_len(n, 8))
    }

    #[inline]
    fn write<O: Output + ?Sized>(
        aux: &&[u8],
        _: &SampleLayout,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        let padded = align8(aux.len(), "AUX size")?;
        enc.u64(padded as u64)?;
        write_padded(enc, aux, padded)
    }

    #[inline(always)]
    fn read<'a>(
        r: &mut Reader<'a>,
        _: &SampleLayout,
        _: &'static str,
    ) -> Result<&'a [u8], ParseError> {
        let size = r.u64("aux.size")?;
        r.take(usize::try_from(size).unwrap_or(usize::MAX), "aux.data")
    }
}
