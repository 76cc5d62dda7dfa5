//! `PERF_RECORD_READ`: counter values of a task (inherit_stat, at exit).

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::read_values::ReadValues;
use crate::records::sample::sample_id::SampleId;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u32 pid, u32 tid, struct read_format values, sample_id}`, the values laid out
/// by the layout's `read_format`.
///
/// ```
/// use perf_abi::read_format;
/// use perf_encode::records::{ReadCounters, ReadRecord, ReadValue, ReadValues, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { read_format: read_format::ID, ..Default::default() };
/// let values = ReadValues { time_enabled: None, time_running: None,
///     counters: ReadCounters::One(ReadValue { value: 5, id: Some(9), lost: None }) };
/// let r = ReadRecord { layout: &layout, pid: 1, tid: 1, values, sample_id: SampleId::default() };
/// assert_eq!(to_vec(&r, Endian::Little).unwrap().len(), 8 + 8 + 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ReadRecord<'a> {
    /// The attr's layout (`read_format` and the trailer).
    pub layout: &'a SampleLayout,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// The values.
    pub values: ReadValues<'a>,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl RecordBody for ReadRecord<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::READ
    }

    #[inline]
    fn body_len(&self) -> Result<usize, EncodeError> {
        let values = self.values.len(self.layout.read_format, "READ")?;
        values.checked_add(8).ok_or(EncodeError::Overflow {
            what: "encoded length",
        })
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.pid)?;
        enc.u32(self.tid)?;
        self.values.write(enc, self.layout.read_format, "READ")
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(ReadRecord<'_>);
