//! `PERF_RECORD_READ`: counter values of a task (inherit_stat, at exit).

use crate::records::kernel_record::header;
use crate::records::read_values::ReadValues;
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{CountingOutput, Encode, EncodeError, Encoder, Endian, Output};
use perf_abi::{record_type, PerfEventHeader};

const RECORD: &str = "READ";

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

impl ReadRecord<'_> {
    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        let mut counter = CountingOutput::new();
        self.values.write(
            &mut Encoder::new(&mut counter, Endian::NATIVE),
            self.layout.read_format,
            RECORD,
        )?;
        header(
            RECORD,
            record_type::READ,
            0,
            counter.len().saturating_add(8),
            self.layout,
            &self.sample_id,
        )
    }
}

impl Encode for ReadRecord<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.u32(self.pid)?;
        enc.u32(self.tid)?;
        self.values.write(enc, self.layout.read_format, RECORD)?;
        self.sample_id.write(enc, self.layout, RECORD)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
