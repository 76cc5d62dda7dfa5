//! The `sample_id` trailer of records other than SAMPLE (`attr.sample_id_all`).

use crate::records::sample::layout::SampleLayout;
use crate::records::wire::error::ParseError;
use crate::records::wire::pair::U32Pair;
use crate::records::wire::pair::{PidTid, SampleCpu};
use crate::records::wire::presence::field;
use crate::records::wire::reader::Reader;
use crate::{Encode, EncodeError, Encoder, Endian, Output};
use perf_abi::sample_type;

/// The `sample_id` trailer: fields in kernel order (TID, TIME, ID, STREAM_ID, CPU,
/// IDENTIFIER), each present when the attr's `sample_type` has it and `sample_id_all` is set.
///
/// An encoder that takes a `SampleId` writes exactly the fields the layout has: a field the
/// layout needs but this lacks is [`EncodeError::MissingField`], one it does not have is
/// [`EncodeError::UnexpectedField`]. [`SampleId::masked`] drops the fields a layout lacks.
///
/// ```
/// use perf_abi::{sample_type, PerfEventAttr, attr_flags};
/// use perf_encode::records::{SampleCpu, SampleId, SampleIdTrailer, SampleLayout, PidTid};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::TID | sample_type::TIME | sample_type::IP, sample_id_all: true, ..Default::default() };
/// let all = SampleId { tid: Some(PidTid { pid: 1, tid: 2 }), time: Some(99), cpu: Some(SampleCpu::new(3)), ..Default::default() };
/// let sid = all.masked(&layout); // keeps TID and TIME
/// let v = to_vec(&SampleIdTrailer { layout: &layout, sample_id: &sid, record: "COMM" }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 16);
/// assert!(to_vec(&SampleIdTrailer { layout: &layout, sample_id: &all, record: "COMM" }, Endian::Little).is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleId {
    /// PERF_SAMPLE_TID.
    pub tid: Option<PidTid>,
    /// PERF_SAMPLE_TIME.
    pub time: Option<u64>,
    /// PERF_SAMPLE_ID.
    pub id: Option<u64>,
    /// PERF_SAMPLE_STREAM_ID.
    pub stream_id: Option<u64>,
    /// PERF_SAMPLE_CPU.
    pub cpu: Option<SampleCpu>,
    /// PERF_SAMPLE_IDENTIFIER (the same value as `id`).
    pub identifier: Option<u64>,
}

impl SampleId {
    /// The event id: IDENTIFIER, else ID.
    pub const fn event_id(&self) -> Option<u64> {
        match self.identifier {
            Some(v) => Some(v),
            None => self.id,
        }
    }
}

/// One 8-byte field of the trailer: a `u64`, or a [`U32Pair`].
trait TrailerWord: Copy {
    fn write<O: Output + ?Sized>(self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError>;
    fn read(r: &mut Reader<'_>, name: &'static str) -> Result<Self, ParseError>;
}

impl TrailerWord for u64 {
    #[inline]
    fn write<O: Output + ?Sized>(self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self)
    }

    #[inline]
    fn read(r: &mut Reader<'_>, name: &'static str) -> Result<Self, ParseError> {
        r.u64(name)
    }
}

impl<T: U32Pair> TrailerWord for T {
    #[inline]
    fn write<O: Output + ?Sized>(self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        U32Pair::write(self, enc)
    }

    #[inline]
    fn read(r: &mut Reader<'_>, _: &'static str) -> Result<Self, ParseError> {
        <T as U32Pair>::read(r, T::TRAILER_NAMES)
    }
}

/// Generates, from the trailer's fields in perf-abi's [`SAMPLE_ID_ORDER`], which the build
/// checks, [`SampleId::masked`], its check and writer, and the reader of
/// [`id_of_non_sample`].
///
/// [`SAMPLE_ID_ORDER`]: perf_abi::sample_type::SAMPLE_ID_ORDER
/// Whether `a` and `b` hold the same bits in the same order (for a build-time check).
const fn same_bits(a: &[u64], b: &[u64]) -> bool {
    let (mut a, mut b) = (a, b);
    loop {
        match (a, b) {
            ([], []) => return true,
            ([x, a_rest @ ..], [y, b_rest @ ..]) if *x == *y => (a, b) = (a_rest, b_rest),
            _ => return false,
        }
    }
}

macro_rules! trailer_table {
    ($($field:ident: $bit:ident, $name:literal;)*) => {
        const _: () = assert!(
            same_bits(&[$(sample_type::$bit),*], &sample_type::SAMPLE_ID_ORDER),
            "the trailer's fields are listed in an order other than SAMPLE_ID_ORDER",
        );

        impl SampleId {
            /// This trailer with only the fields `layout`'s trailer has.
            pub fn masked(&self, layout: &SampleLayout) -> SampleId {
                let bits = layout.sample_id_bits();
                fn keep<T>(bits: u64, bit: u64, v: Option<T>) -> Option<T> {
                    if bits & bit != 0 {
                        v
                    } else {
                        None
                    }
                }
                SampleId {
                    $($field: keep(bits, sample_type::$bit, self.$field),)*
                }
            }

            /// Checks this trailer against `layout` (errors name `record`) without writing.
            pub(crate) fn check(
                &self,
                layout: &SampleLayout,
                record: &'static str,
            ) -> Result<(), EncodeError> {
                let bits = layout.sample_id_bits();
                $(field(record, $name, bits & sample_type::$bit != 0, self.$field)?;)*
                Ok(())
            }

            /// Writes the trailer `layout` asks for, checking each field's presence.
            pub(crate) fn write<O: Output + ?Sized>(
                &self,
                enc: &mut Encoder<'_, O>,
                layout: &SampleLayout,
                record: &'static str,
            ) -> Result<(), EncodeError> {
                let bits = layout.sample_id_bits();
                $(
                    if let Some(v) = field(record, $name, bits & sample_type::$bit != 0, self.$field)? {
                        TrailerWord::write(v, enc)?;
                    }
                )*
                Ok(())
            }
        }

        /// Reads the fields of a trailer of `bits` (`SampleLayout::sample_id_bits`).
        fn read_trailer(r: &mut Reader<'_>, bits: u64) -> Result<SampleId, ParseError> {
            Ok(SampleId {
                $($field: if bits & sample_type::$bit != 0 {
                    Some(TrailerWord::read(r, $name)?)
                } else {
                    None
                },)*
            })
        }
    };
}

trailer_table! {
    tid: TID, "sample_id.tid";
    time: TIME, "sample_id.time";
    id: ID, "sample_id.id";
    stream_id: STREAM_ID, "sample_id.stream_id";
    cpu: CPU, "sample_id.cpu";
    identifier: IDENTIFIER, "sample_id.identifier";
}

/// Encodes a `sample_id` trailer alone, for callers that assemble their own records.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::{SampleId, SampleIdTrailer, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::IDENTIFIER, sample_id_all: true, ..Default::default() };
/// let sid = SampleId { identifier: Some(3), ..Default::default() };
/// assert_eq!(to_vec(&SampleIdTrailer { layout: &layout, sample_id: &sid, record: "MMAP" }, Endian::Big).unwrap(), [0, 0, 0, 0, 0, 0, 0, 3]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SampleIdTrailer<'a> {
    /// The attr's layout.
    pub layout: &'a SampleLayout,
    /// The trailer's fields.
    pub sample_id: &'a SampleId,
    /// The record's name, for errors.
    pub record: &'static str,
}

impl Encode for SampleIdTrailer<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.sample_id.write(enc, self.layout, self.record)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.sample_id.check(self.layout, self.record)?;
        Ok(self.layout.sample_id_len())
    }
}

/// Reads the `sample_id` trailer of a record other than SAMPLE: the last
/// [`SampleLayout::sample_id_len`] bytes before `header.size`. Without `sample_id_all`
/// every field is `None`. Never panics.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::{id_of_non_sample, Exit, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::TIME | sample_type::IDENTIFIER, sample_id_all: true, ..Default::default() };
/// let sid = SampleId { time: Some(5), identifier: Some(42), ..Default::default() };
/// let exit = Exit { layout: &layout, pid: 1, ppid: 0, tid: 1, ptid: 0, time: 5, misc: 0, sample_id: sid };
/// let bytes = to_vec(&exit, Endian::Big).unwrap();
/// assert_eq!(id_of_non_sample(&layout, Endian::Big, &bytes), Ok(sid));
/// ```
pub fn id_of_non_sample(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<SampleId, ParseError> {
    let mut r = Reader::new(record, 0, endian, "sample_id");
    r.take(6, "header")?;
    let size = usize::from(r.u16("header")?);
    let trailer = layout.sample_id_len();
    let body = record
        .get(..size)
        .filter(|_| size >= 8)
        .ok_or(ParseError::Truncated {
            record: "sample_id",
            field: "header.size",
            offset: 6,
            available: record.len(),
        })?;
    let start = size
        .checked_sub(trailer)
        .filter(|&s| s >= 8)
        .ok_or(ParseError::SizeMismatch {
            record: "sample_id",
            header_size: size,
            implied: trailer.saturating_add(8),
        })?;
    let mut r = Reader::new(body, start, endian, "sample_id");
    read_trailer(&mut r, layout.sample_id_bits())
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::records::sample::layout::each_subset;

    /// The id's place back from a record's end that the layout states (perf's `is_pos`) is
    /// where the trailer's writer puts it, for every set of the trailer's fields.
    #[test]
    fn trailer_id_offset_follows_the_writer() {
        for sample_type in each_subset(&sample_type::SAMPLE_ID_ORDER) {
            let layout = SampleLayout {
                sample_type,
                sample_id_all: true,
                ..Default::default()
            };
            let all = SampleId {
                tid: Some(PidTid { pid: 1, tid: 2 }),
                time: Some(3),
                id: Some(0x1d),
                stream_id: Some(4),
                cpu: Some(SampleCpu::new(5)),
                identifier: Some(0x1d),
            };
            let sid = all.masked(&layout);
            let trailer = SampleIdTrailer {
                layout: &layout,
                sample_id: &sid,
                record: "COMM",
            };
            let bytes = crate::to_vec(&trailer, Endian::Little).unwrap();
            assert_eq!(bytes.len(), layout.sample_id_len());
            let id_at = layout.trailer_id_offset_from_end().map(|back| {
                let at = bytes.len() - back;
                u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
            });
            assert_eq!(id_at, sid.event_id(), "{sample_type:#x}");
            let mut record = alloc::vec![0u8; 8];
            record[6..8].copy_from_slice(&(8 + bytes.len() as u16).to_le_bytes());
            record.extend_from_slice(&bytes);
            assert_eq!(id_of_non_sample(&layout, Endian::Little, &record), Ok(sid));
        }
    }
}
