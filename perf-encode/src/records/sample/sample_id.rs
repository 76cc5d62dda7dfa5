//! The `sample_id` trailer of records other than SAMPLE (`attr.sample_id_all`).

use crate::records::parse::error::ParseError;
use crate::records::parse::reader::Reader;
use crate::records::sample::layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Endian, Output};
use perf_abi::sample_type;

/// `{u32 pid, u32 tid}` of SAMPLE's TID field and of the trailer.
///
/// ```
/// let t = perf_encode::records::PidTid { pid: 10, tid: 11 };
/// assert_eq!((t.pid, t.tid), (10, 11));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PidTid {
    /// Process id (`u32::MAX` for -1).
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
}

/// `{u32 cpu, u32 res}` of SAMPLE's CPU field and of the trailer.
///
/// ```
/// assert_eq!(perf_encode::records::SampleCpu::new(3).res, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleCpu {
    /// The cpu.
    pub cpu: u32,
    /// Reserved, zero in kernel records.
    pub res: u32,
}

impl SampleCpu {
    /// `cpu` with `res` zero.
    pub const fn new(cpu: u32) -> Self {
        SampleCpu { cpu, res: 0 }
    }
}

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

/// Checks one field's presence against the layout; returns the value to write.
pub(crate) fn field<T>(
    record: &'static str,
    field: &'static str,
    wanted: bool,
    value: Option<T>,
) -> Result<Option<T>, EncodeError> {
    match (wanted, value) {
        (true, Some(v)) => Ok(Some(v)),
        (true, None) => Err(EncodeError::MissingField { record, field }),
        (false, Some(_)) => Err(EncodeError::UnexpectedField { record, field }),
        (false, None) => Ok(None),
    }
}

/// The value of a field the layout has, for a writer that trusts an earlier [`field`] check
/// for the fields it does not have: a missing one is still [`EncodeError::MissingField`].
#[inline]
pub(crate) fn present<T>(
    record: &'static str,
    field: &'static str,
    value: Option<T>,
) -> Result<T, EncodeError> {
    match value {
        Some(v) => Ok(v),
        None => Err(EncodeError::MissingField { record, field }),
    }
}

impl SampleId {
    /// The event id: IDENTIFIER, else ID.
    pub const fn event_id(&self) -> Option<u64> {
        match self.identifier {
            Some(v) => Some(v),
            None => self.id,
        }
    }

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
            tid: keep(bits, sample_type::TID, self.tid),
            time: keep(bits, sample_type::TIME, self.time),
            id: keep(bits, sample_type::ID, self.id),
            stream_id: keep(bits, sample_type::STREAM_ID, self.stream_id),
            cpu: keep(bits, sample_type::CPU, self.cpu),
            identifier: keep(bits, sample_type::IDENTIFIER, self.identifier),
        }
    }

    /// Checks this trailer against `layout` (errors name `record`) without writing.
    pub(crate) fn check(
        &self,
        layout: &SampleLayout,
        record: &'static str,
    ) -> Result<(), EncodeError> {
        self.walk(layout, record, |_| Ok(()))
    }

    /// Calls `put` with each 8-byte word of the trailer, in order, after checking presence.
    fn walk(
        &self,
        layout: &SampleLayout,
        record: &'static str,
        mut put: impl FnMut(Word) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        let bits = layout.sample_id_bits();
        let has = |bit: u64| bits & bit != 0;
        if let Some(t) = field(record, "sample_id.tid", has(sample_type::TID), self.tid)? {
            put(Word::Pair(t.pid, t.tid))?;
        }
        if let Some(v) = field(record, "sample_id.time", has(sample_type::TIME), self.time)? {
            put(Word::U64(v))?;
        }
        if let Some(v) = field(record, "sample_id.id", has(sample_type::ID), self.id)? {
            put(Word::U64(v))?;
        }
        if let Some(v) = field(
            record,
            "sample_id.stream_id",
            has(sample_type::STREAM_ID),
            self.stream_id,
        )? {
            put(Word::U64(v))?;
        }
        if let Some(c) = field(record, "sample_id.cpu", has(sample_type::CPU), self.cpu)? {
            put(Word::Pair(c.cpu, c.res))?;
        }
        if let Some(v) = field(
            record,
            "sample_id.identifier",
            has(sample_type::IDENTIFIER),
            self.identifier,
        )? {
            put(Word::U64(v))?;
        }
        Ok(())
    }

    /// Writes the trailer `layout` asks for.
    pub(crate) fn write<O: Output + ?Sized>(
        &self,
        enc: &mut Encoder<'_, O>,
        layout: &SampleLayout,
        record: &'static str,
    ) -> Result<(), EncodeError> {
        self.walk(layout, record, |w| w.write(enc))
    }
}

/// One 8-byte field: a `u64`, or two `u32`s (`{pid, tid}`, `{cpu, res}`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Word {
    /// A `u64`.
    U64(u64),
    /// Two `u32`s, in this order.
    Pair(u32, u32),
}

impl Word {
    pub(crate) fn write<O: Output + ?Sized>(
        self,
        enc: &mut Encoder<'_, O>,
    ) -> Result<(), EncodeError> {
        match self {
            Word::U64(v) => enc.u64(v),
            Word::Pair(a, b) => {
                enc.u32(a)?;
                enc.u32(b)
            }
        }
    }
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
    let bits = layout.sample_id_bits();
    let has = |bit: u64| bits & bit != 0;
    let mut sid = SampleId::default();
    if has(sample_type::TID) {
        sid.tid = Some(PidTid {
            pid: r.u32("sample_id.pid")?,
            tid: r.u32("sample_id.tid")?,
        });
    }
    if has(sample_type::TIME) {
        sid.time = Some(r.u64("sample_id.time")?);
    }
    if has(sample_type::ID) {
        sid.id = Some(r.u64("sample_id.id")?);
    }
    if has(sample_type::STREAM_ID) {
        sid.stream_id = Some(r.u64("sample_id.stream_id")?);
    }
    if has(sample_type::CPU) {
        sid.cpu = Some(SampleCpu {
            cpu: r.u32("sample_id.cpu")?,
            res: r.u32("sample_id.res")?,
        });
    }
    if has(sample_type::IDENTIFIER) {
        sid.identifier = Some(r.u64("sample_id.identifier")?);
    }
    Ok(sid)
}
