//! The one table of SAMPLE fields, in the order the kernel writes them
//! (`perf_output_sample`, Linux 6.1). Each row is a field: its name, its doc, when a layout
//! has it, and its codec (what a [`Sample`] holds, what a [`ParsedSample`] holds, and the
//! [`FieldCodec`] between them). From the rows follow [`Sample`], [`ParsedSample`],
//! [`Sample::masked`], the body's length, the body's writer and the parser's walk.

use crate::records::sample::codec::{
    Aux, Branches, Callchain, FieldCodec, Pair, Raw, Read, RegsDump, Stack, Weight, U64,
};
use crate::records::sample::field_choices::SampleField;
use crate::records::sample::fields::{
    BranchStack, ParsedBranchStack, ParsedRegs, Regs, StackUser, WeightStruct,
};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::read_values::{ParsedReadValues, ReadValues};
use crate::records::wire::error::ParseError;
use crate::records::wire::pad::add_len;
use crate::records::wire::pair::{PidTid, SampleCpu};
use crate::records::wire::presence::{field, present};
use crate::records::wire::reader::{Reader, U64Array};
use crate::{EncodeError, Encoder, Endian, Output};
use perf_abi::sample_type::*;

const RECORD: &str = "SAMPLE";

/// WEIGHT and WEIGHT_STRUCT are one 8-byte slot after STACK_USER (`perf_output_sample` writes
/// `data->weight.full` for either bit, once; WEIGHT_STRUCT wins when the attr has both). A
/// sample holds it in `weight` as a `u64` or in `weight_struct` as the union's struct, as the
/// layout says, and [`Sample::masked`] moves it to the one the layout has.
struct WeightSlot;

impl WeightSlot {
    /// The layout has the slot as WEIGHT: a `u64`.
    const fn as_u64(l: &SampleLayout) -> bool {
        l.has(WEIGHT) && !l.has(WEIGHT_STRUCT)
    }

    /// The layout has the slot as WEIGHT_STRUCT.
    const fn as_struct(l: &SampleLayout) -> bool {
        l.has(WEIGHT_STRUCT)
    }

    /// The slot's word in `s`, whichever field holds it.
    fn word(s: &Sample<'_>) -> Option<u64> {
        s.weight_struct.map(WeightStruct::to_u64).or(s.weight)
    }
}

/// Where a field of codec `C` that starts at `pos` in `record` ends, laid out by `layout`.
#[inline]
fn read_end<C: FieldCodec>(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
    pos: usize,
) -> Option<usize> {
    let mut r = Reader::new(record, pos, endian, RECORD);
    C::read(&mut r, layout, "").ok().map(|_| r.pos())
}

/// Keeps `v` when the layout has the field.
#[inline]
fn keep<T>(has: bool, v: Option<T>) -> Option<T> {
    if has {
        v
    } else {
        None
    }
}

/// Generates, from the rows: [`Sample`] and [`ParsedSample`] (one `Option` per row),
/// `Sample::masked`, `Sample::body_len` (arithmetic over the fields' lengths, checking
/// presence first), `Sample::write_body` and `walk_sample`.
///
/// A row: `doc`, `name: Value => Parsed, Codec, if |layout| presence` and optionally
/// `, masked |sample| value` (what `masked` keeps when the layout has the field; by default
/// the field itself).
macro_rules! sample_table {
    (
        $(#[$sample_meta:meta])*
        pub struct Sample<$lt:lifetime>;
        $(#[$parsed_meta:meta])*
        pub struct ParsedSample;
        $(
            $(#[doc = $doc:literal])*
            $field:ident: $value:ty => $parsed:ty, $codec:ty,
                if |$l:ident| $present:expr $(, masked |$s:ident| $masked:expr)?;
        )*
    ) => {
        $(#[$sample_meta])*
        pub struct Sample<$lt> {
            $(
                $(#[doc = $doc])*
                pub $field: Option<$value>,
            )*
        }

        $(#[$parsed_meta])*
        pub struct ParsedSample<$lt> {
            /// Length the layout implies, header included (equal to `header.size` when
            /// returned by [`parse_sample`](crate::records::parse_sample)).
            pub len: usize,
            /// `header.misc`.
            pub misc: u16,
            $(
                $(#[doc = $doc])*
                pub $field: Option<$parsed>,
            )*
        }

        impl<$lt> Sample<$lt> {
            /// This sample with only the fields `layout` has (a `weight` moves to
            /// `weight_struct` and back as the layout asks).
            pub fn masked(&self, layout: &SampleLayout) -> Self {
                let mut out = *self;
                $(
                    let has = (|$l: &SampleLayout| -> bool { $present })(layout);
                    sample_table!(@mask out, self, has, $field $(, |$s| $masked)?);
                )*
                out
            }

            /// Bytes of the record body `layout` lays this sample out in, after checking
            /// that the sample has every field the layout has and no other, and what each
            /// field's codec checks of its value. Writes nothing.
            #[inline]
            pub(crate) fn body_len(&self, layout: &SampleLayout) -> Result<usize, EncodeError> {
                sample_body_len(self, layout)
            }

            /// Writes the record body as `layout` lays it out, once [`Self::body_len`]
            /// accepted the sample: a field the layout has and the sample lacks is still
            /// an error; one the layout does not have is not looked at.
            #[inline]
            pub(crate) fn write_body<O: Output + ?Sized>(
                &self,
                enc: &mut Encoder<'_, O>,
                layout: &SampleLayout,
            ) -> Result<(), EncodeError> {
                write_sample_body(self, enc, layout)
            }
        }

        /// Where the table's length and writer find the values of a SAMPLE's fields: one
        /// method per row (by default the field is absent). [`Sample`] holds every field;
        /// [`BasicSampleRecord`](crate::records::BasicSampleRecord) the fixed words and RAW.
        pub(crate) trait SampleSource<$lt> {
            /// `true`: a field the layout does not have is not looked at (the source has a
            /// value for every field it can hold). `false`: such a field must be absent
            /// ([`EncodeError::UnexpectedField`] otherwise).
            const ONLY_LAYOUT_FIELDS: bool = false;

            $(
                #[doc = concat!("The `", stringify!($field), "` field's value.")]
                #[inline(always)]
                fn $field(&self) -> Option<&$value> {
                    None
                }
            )*
        }

        impl<$lt> SampleSource<$lt> for Sample<$lt> {
            $(
                #[inline(always)]
                fn $field(&self) -> Option<&$value> {
                    self.$field.as_ref()
                }
            )*
        }

        /// Bytes of the SAMPLE body `layout` lays `s` out in (header not included), after
        /// checking each field's presence against the layout and what its codec checks of
        /// its value. Writes nothing.
        #[inline]
        pub(crate) fn sample_body_len<$lt, S: SampleSource<$lt> + ?Sized>(
            s: &S,
            layout: &SampleLayout,
        ) -> Result<usize, EncodeError> {
            let mut len = 0usize;
            $(
                let has = (|$l: &SampleLayout| -> bool { $present })(layout);
                let v = if S::ONLY_LAYOUT_FIELDS {
                    if has {
                        Some(present(RECORD, stringify!($field), s.$field())?)
                    } else {
                        None
                    }
                } else {
                    field(RECORD, stringify!($field), has, s.$field())?
                };
                if let Some(v) = v {
                    len = add_len(len, <$codec as FieldCodec>::len(v, layout)?)?;
                }
            )*
            Ok(len)
        }

        /// Writes the SAMPLE body of `s` as `layout` lays it out, in the table's order, once
        /// [`sample_body_len`] accepted it: a field the layout has and `s` lacks is still an
        /// error; one the layout does not have is not looked at.
        #[inline]
        pub(crate) fn write_sample_body<$lt, S: SampleSource<$lt> + ?Sized, O: Output + ?Sized>(
            s: &S,
            enc: &mut Encoder<'_, O>,
            layout: &SampleLayout,
        ) -> Result<(), EncodeError> {
            $(
                if (|$l: &SampleLayout| -> bool { $present })(layout) {
                    let v = present(RECORD, stringify!($field), s.$field())?;
                    <$codec as FieldCodec>::write(v, layout, enc)?;
                }
            )*
            Ok(())
        }

        impl SampleLayout {
            /// Where RAW's `u32 size` is in every SAMPLE of this layout, and the length of
            /// the other fields (header included), when RAW is its only field whose length
            /// varies: a record is then `other_len + 4 + size` bytes (or that rounded up to
            /// 8), found from that one word.
            ///
            /// ```
            /// use perf_abi::sample_type::*;
            /// use perf_encode::records::{RawPlace, SampleLayout};
            /// let l = SampleLayout { sample_type: IDENTIFIER | TIME | RAW | PERIOD, ..Default::default() };
            /// // IDENTIFIER, TIME, PERIOD, then RAW; 8 + 3 * 8 bytes besides it.
            /// assert_eq!(l.raw_place(), Some(RawPlace { size_at: 8 + 3 * 8, other_len: 8 + 3 * 8 }));
            /// let l = SampleLayout { sample_type: RAW | WEIGHT, ..Default::default() };
            /// assert_eq!(l.raw_place(), Some(RawPlace { size_at: 8, other_len: 16 }));
            /// let l = SampleLayout { sample_type: CALLCHAIN | RAW, ..Default::default() };
            /// assert_eq!(l.raw_place(), None);
            /// ```
            pub fn raw_place(&self) -> Option<RawPlace> {
                let mut len = 8usize;
                let mut raw_at = None;
                $(
                    if (|$l: &SampleLayout| -> bool { $present })(self) {
                        match (<$codec as FieldCodec>::IS_RAW, <$codec as FieldCodec>::FIXED_LEN) {
                            (true, _) => raw_at = Some(len),
                            (false, Some(n)) => len = len.checked_add(n)?,
                            (false, None) => return None,
                        }
                    }
                )*
                Some(RawPlace { size_at: raw_at?, other_len: len })
            }

            /// Where CALLCHAIN's `u64 nr` is in every SAMPLE of this layout, whether RAW
            /// follows it, and the length of the other fields (header included), when
            /// CALLCHAIN, and RAW after it, are its only fields of varying length: a record is
            /// then `other_len + 8 + 8 * nr` bytes, plus `4 + size` for RAW's `u32 size`
            /// right after the callchain (or that rounded up to 8).
            ///
            /// ```
            /// use perf_abi::sample_type::*;
            /// use perf_encode::records::{CallchainPlace, SampleLayout};
            /// let l = SampleLayout { sample_type: IDENTIFIER | TIME | CALLCHAIN | RAW | WEIGHT, ..Default::default() };
            /// assert_eq!(l.callchain_place(), Some(CallchainPlace { nr_at: 24, raw: true, other_len: 32 }));
            /// let l = SampleLayout { sample_type: IP | CALLCHAIN | BRANCH_STACK, ..Default::default() };
            /// assert_eq!(l.callchain_place(), None);
            /// ```
            pub fn callchain_place(&self) -> Option<CallchainPlace> {
                let mut len = 8usize;
                let mut nr_at = None;
                let mut raw = false;
                $(
                    if (|$l: &SampleLayout| -> bool { $present })(self) {
                        match (
                            <$codec as FieldCodec>::IS_CALLCHAIN,
                            <$codec as FieldCodec>::IS_RAW,
                            <$codec as FieldCodec>::FIXED_LEN,
                        ) {
                            (true, _, _) => nr_at = Some(len),
                            // Its size word right after the callchain's last address.
                            (_, true, _) if nr_at == Some(len) => raw = true,
                            (_, false, Some(n)) => len = len.checked_add(n)?,
                            _ => return None,
                        }
                    }
                )*
                Some(CallchainPlace { nr_at: nr_at?, raw, other_len: len })
            }

            /// The length (header included) of every SAMPLE record of this layout, when it
            /// has no field whose length varies (READ, CALLCHAIN, RAW, BRANCH_STACK, register
            /// dumps, STACK_USER, AUX): then a record's size is known without reading it.
            ///
            /// ```
            /// use perf_abi::sample_type::*;
            /// use perf_encode::records::SampleLayout;
            /// let l = SampleLayout { sample_type: IDENTIFIER | IP | TID | TIME | CPU | PERIOD, ..Default::default() };
            /// assert_eq!(l.fixed_sample_len(), Some(8 + 6 * 8));
            /// let l = SampleLayout { sample_type: IP | RAW, ..Default::default() };
            /// assert_eq!(l.fixed_sample_len(), None);
            /// ```
            #[inline]
            pub fn fixed_sample_len(&self) -> Option<usize> {
                let mut len = 8usize;
                $(
                    if (|$l: &SampleLayout| -> bool { $present })(self) {
                        len = len.checked_add(<$codec as FieldCodec>::FIXED_LEN?)?;
                    }
                )*
                Some(len)
            }
        }

        /// Walks the SAMPLE record at the start of `record` by `layout`, as far as its
        /// fields go.
        pub(crate) fn walk_sample<'a>(
            layout: &SampleLayout,
            endian: Endian,
            record: &'a [u8],
        ) -> Result<ParsedSample<'a>, ParseError> {
            let mut r = Reader::new(record, 0, endian, RECORD);
            let _type = r.u32("header")?;
            let misc = r.u16("header")?;
            let _size = r.u16("header")?;
            $(
                let $field = if (|$l: &SampleLayout| -> bool { $present })(layout) {
                    Some(<$codec as FieldCodec>::read(&mut r, layout, stringify!($field))?)
                } else {
                    None
                };
            )*
            Ok(ParsedSample {
                len: r.pos(),
                misc,
                $($field,)*
            })
        }

        /// The table's fields, in order, as every layout may have them (see
        /// [`SampleField`]).
        pub static SAMPLE_FIELDS: [SampleField; [$(stringify!($field)),*].len()] = [
            $(
                SampleField {
                    name: stringify!($field),
                    ways: <$codec as FieldCodec>::CHOICES,
                    is_raw: <$codec as FieldCodec>::IS_RAW,
                    swap: <$codec as FieldCodec>::SWAP,
                    present: |$l: &SampleLayout| -> bool { $present },
                    way_of: <$codec as FieldCodec>::choice_of,
                    layout_of: <$codec as FieldCodec>::layout_of,
                    read_end: read_end::<$codec>,
                    length: <$codec as FieldCodec>::length,
                },
            )*
        ];
    };
    (@mask $out:ident, $self:ident, $has:ident, $field:ident) => {
        if !$has {
            $out.$field = None;
        }
    };
    (@mask $out:ident, $self:ident, $has:ident, $field:ident, |$s:ident| $masked:expr) => {
        $out.$field = keep($has, (|$s: &Self| $masked)($self));
    };
}

sample_table! {
    /// The fields of a SAMPLE record, one `Option` per `sample_type` bit, in the order the
    /// kernel (`perf_output_sample`, Linux 6.1) writes them. [`SampleRecord`] writes exactly
    /// the fields the attr's layout has: each must be `Some` when the layout has it and
    /// `None` otherwise.
    ///
    /// [`SampleRecord`]: crate::records::SampleRecord
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
    pub struct Sample<'a>;

    /// Every field of a SAMPLE record, read by the attr's layout. Variable-length fields
    /// point into the record.
    ///
    /// ```
    /// use perf_abi::sample_type;
    /// use perf_encode::records::*;
    /// use perf_encode::{to_vec, Endian};
    /// let layout = SampleLayout { sample_type: sample_type::ID | sample_type::RAW, ..Default::default() };
    /// let s = Sample { id: Some(8), raw: Some(&[1, 2, 3, 4]), ..Default::default() };
    /// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Little).unwrap();
    /// let p: ParsedSample = parse_sample(&layout, Endian::Little, &bytes).unwrap();
    /// assert_eq!((p.event_id(), p.raw), (Some(8), Some(&[1, 2, 3, 4][..])));
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ParsedSample;

    /// IDENTIFIER: the event id, at a fixed offset.
    identifier: u64 => u64, U64, if |l| l.has(IDENTIFIER);
    /// IP.
    ip: u64 => u64, U64, if |l| l.has(IP);
    /// TID: `{u32 pid, u32 tid}`.
    tid: PidTid => PidTid, Pair<PidTid>, if |l| l.has(TID);
    /// TIME.
    time: u64 => u64, U64, if |l| l.has(TIME);
    /// ADDR.
    addr: u64 => u64, U64, if |l| l.has(ADDR);
    /// ID: the event id.
    id: u64 => u64, U64, if |l| l.has(ID);
    /// STREAM_ID.
    stream_id: u64 => u64, U64, if |l| l.has(STREAM_ID);
    /// CPU: `{u32 cpu, u32 res}`.
    cpu: SampleCpu => SampleCpu, Pair<SampleCpu>, if |l| l.has(CPU);
    /// PERIOD.
    period: u64 => u64, U64, if |l| l.has(PERIOD);
    /// READ: counter values laid out by `read_format`.
    read: ReadValues<'a> => ParsedReadValues<'a>, Read, if |l| l.has(READ);
    /// CALLCHAIN: `{u64 nr, u64 ips[nr]}` (context markers such as `PERF_CONTEXT_KERNEL`
    /// included).
    callchain: &'a [u64] => U64Array<'a>, Callchain, if |l| l.has(CALLCHAIN);
    /// RAW: `{u32 size, u8 data[size]}`; the data is zero-padded so that `4 + size` is a
    /// multiple of 8, and `size` counts the padding, as the kernel writes it (read back:
    /// the `size` bytes, padding included).
    raw: &'a [u8] => &'a [u8], Raw, if |l| l.has(RAW);
    /// BRANCH_STACK.
    branch_stack: BranchStack<'a> => ParsedBranchStack<'a>, Branches,
        if |l| l.has(BRANCH_STACK);
    /// REGS_USER.
    regs_user: Regs<'a> => ParsedRegs<'a>, RegsDump<false>, if |l| l.has(REGS_USER);
    /// STACK_USER.
    stack_user: StackUser<'a> => StackUser<'a>, Stack, if |l| l.has(STACK_USER);
    /// WEIGHT (when the layout has WEIGHT and not WEIGHT_STRUCT).
    weight: u64 => u64, U64, if |l| WeightSlot::as_u64(l), masked |s| WeightSlot::word(s);
    /// WEIGHT_STRUCT (when the layout has it; the same 8 bytes as WEIGHT).
    weight_struct: WeightStruct => WeightStruct, Weight, if |l| WeightSlot::as_struct(l),
        masked |s| WeightSlot::word(s).map(WeightStruct::from_u64);
    /// DATA_SRC (`union perf_mem_data_src`).
    data_src: u64 => u64, U64, if |l| l.has(DATA_SRC);
    /// TRANSACTION.
    transaction: u64 => u64, U64, if |l| l.has(TRANSACTION);
    /// REGS_INTR.
    regs_intr: Regs<'a> => ParsedRegs<'a>, RegsDump<true>, if |l| l.has(REGS_INTR);
    /// PHYS_ADDR.
    phys_addr: u64 => u64, U64, if |l| l.has(PHYS_ADDR);
    /// CGROUP: the cgroup id.
    cgroup: u64 => u64, U64, if |l| l.has(CGROUP);
    /// DATA_PAGE_SIZE.
    data_page_size: u64 => u64, U64, if |l| l.has(DATA_PAGE_SIZE);
    /// CODE_PAGE_SIZE.
    code_page_size: u64 => u64, U64, if |l| l.has(CODE_PAGE_SIZE);
    /// AUX: `{u64 size, u8 data[size]}`, zero-padded to 8 (`size` counts the padding).
    aux: &'a [u8] => &'a [u8], Aux, if |l| l.has(AUX);
}

/// Where RAW is in the SAMPLE records of a layout whose only field of varying length is
/// RAW ([`SampleLayout::raw_place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawPlace {
    /// Offset of RAW's `u32 size` in the record.
    pub size_at: usize,
    /// Bytes of every field but RAW, header included.
    pub other_len: usize,
}

/// Where CALLCHAIN (and RAW right after it) are in the SAMPLE records of a layout whose only
/// fields of varying length they are ([`SampleLayout::callchain_place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallchainPlace {
    /// Offset of CALLCHAIN's `u64 nr` in the record.
    pub nr_at: usize,
    /// RAW follows the callchain.
    pub raw: bool,
    /// Bytes of every field but CALLCHAIN and RAW, header included.
    pub other_len: usize,
}

impl ParsedSample<'_> {
    /// The event id: IDENTIFIER, else ID.
    pub fn event_id(&self) -> Option<u64> {
        self.identifier.or(self.id)
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::records::sample::layout::each_subset;
    use crate::records::SampleRecord;

    /// `raw_place` says where RAW's size is and how long the rest is, for every set of the
    /// fixed fields around RAW, as the encoder writes the record.
    #[test]
    fn raw_place_follows_the_table() {
        let before = [IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD];
        let after = [
            WEIGHT,
            DATA_SRC,
            TRANSACTION,
            PHYS_ADDR,
            CGROUP,
            CODE_PAGE_SIZE,
        ];
        for b in each_subset(&before) {
            for a in each_subset(&after).step_by(7) {
                let layout = SampleLayout {
                    sample_type: b | a | RAW,
                    ..Default::default()
                };
                let place = layout.raw_place().unwrap();
                let raw = [7u8; 12];
                let all = Sample {
                    identifier: Some(1),
                    ip: Some(2),
                    tid: Some(PidTid { pid: 3, tid: 3 }),
                    time: Some(4),
                    addr: Some(5),
                    id: Some(1),
                    stream_id: Some(6),
                    cpu: Some(SampleCpu::new(7)),
                    period: Some(8),
                    raw: Some(&raw),
                    weight: Some(9),
                    data_src: Some(10),
                    transaction: Some(11),
                    phys_addr: Some(12),
                    cgroup: Some(13),
                    code_page_size: Some(14),
                    ..Default::default()
                };
                let s = all.masked(&layout);
                let rec = SampleRecord {
                    layout: &layout,
                    sample: &s,
                    misc: 0,
                };
                let bytes = crate::to_vec(&rec, Endian::Little).unwrap();
                let size =
                    u32::from_le_bytes(bytes[place.size_at..place.size_at + 4].try_into().unwrap());
                assert_eq!(size, 12, "{:#x}", layout.sample_type);
                assert_eq!(
                    place.other_len + 4 + 12,
                    bytes.len(),
                    "{:#x}",
                    layout.sample_type
                );
            }
        }
        let walked = SampleLayout {
            sample_type: RAW | CALLCHAIN,
            ..Default::default()
        };
        assert_eq!(walked.raw_place(), None);
        assert!(walked.callchain_place().is_some());
        assert_eq!(SampleLayout::default().raw_place(), None);
    }

    /// `callchain_place` says where CALLCHAIN's `nr` is, whether RAW follows, and how long
    /// the rest is, as the encoder writes the record.
    #[test]
    fn callchain_place_follows_the_table() {
        let before = [IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD];
        let after = [WEIGHT, DATA_SRC, PHYS_ADDR, CGROUP];
        for b in each_subset(&before) {
            for a in each_subset(&after).step_by(3) {
                for raw_bit in [0, RAW] {
                    let layout = SampleLayout {
                        sample_type: b | a | CALLCHAIN | raw_bit,
                        ..Default::default()
                    };
                    let place = layout.callchain_place().unwrap();
                    assert_eq!(place.raw, raw_bit != 0);
                    let (chain, raw) = ([1u64, 2, 3], [5u8; 12]);
                    let all = Sample {
                        identifier: Some(1),
                        ip: Some(2),
                        tid: Some(PidTid { pid: 3, tid: 3 }),
                        time: Some(4),
                        addr: Some(5),
                        id: Some(1),
                        stream_id: Some(6),
                        cpu: Some(SampleCpu::new(7)),
                        period: Some(8),
                        callchain: Some(&chain),
                        raw: Some(&raw),
                        weight: Some(9),
                        data_src: Some(10),
                        phys_addr: Some(12),
                        cgroup: Some(13),
                        ..Default::default()
                    };
                    let s = all.masked(&layout);
                    let rec = SampleRecord {
                        layout: &layout,
                        sample: &s,
                        misc: 0,
                    };
                    let bytes = crate::to_vec(&rec, Endian::Little).unwrap();
                    let nr =
                        u64::from_le_bytes(bytes[place.nr_at..place.nr_at + 8].try_into().unwrap());
                    assert_eq!(nr, 3);
                    let raw_len = if place.raw {
                        let at = place.nr_at + 8 + 24;
                        assert_eq!(
                            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()),
                            12
                        );
                        16
                    } else {
                        0
                    };
                    assert_eq!(place.other_len + 8 + 24 + raw_len, bytes.len());
                }
            }
        }
        let l = SampleLayout {
            sample_type: RAW | TIME,
            ..Default::default()
        };
        assert_eq!(l.callchain_place(), None);
    }

    /// The id offsets `SampleLayout` states (it is a leaf and cannot read the table) are
    /// where the table puts the id, for every set of the fields before and around it.
    #[test]
    fn layout_id_offsets_follow_the_table() {
        let bits = [IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD];
        for sample_type in each_subset(&bits) {
            let layout = SampleLayout {
                sample_type,
                ..Default::default()
            };
            let all = Sample {
                identifier: Some(0x1d),
                ip: Some(1),
                tid: Some(PidTid { pid: 2, tid: 2 }),
                time: Some(3),
                addr: Some(4),
                id: Some(0x1d),
                stream_id: Some(5),
                cpu: Some(SampleCpu::new(6)),
                period: Some(7),
                ..Default::default()
            };
            let s = all.masked(&layout);
            let rec = SampleRecord {
                layout: &layout,
                sample: &s,
                misc: 0,
            };
            let bytes = crate::to_vec(&rec, Endian::Little).unwrap();
            let id_at = layout
                .sample_id_offset()
                .map(|at| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()));
            assert_eq!(id_at, s.identifier.or(s.id), "{sample_type:#x}");
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // test code
mod choice_tests {
    //! The table's fields walked by their layout choices ([`SampleField`]).
    use super::*;
    use crate::records::sample::field_choices::FieldLength;
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
