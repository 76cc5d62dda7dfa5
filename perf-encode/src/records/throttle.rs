//! `PERF_RECORD_THROTTLE` and `PERF_RECORD_UNTHROTTLE`: sampling was slowed or resumed.

use crate::records::kernel_record::header;
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventHeader};

/// `{header, u64 time, u64 id, u64 stream_id, sample_id}`: THROTTLE, or UNTHROTTLE when
/// `unthrottle` is set.
///
/// ```
/// use perf_encode::records::{SampleId, SampleLayout, Throttle};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let r = Throttle { layout: &layout, unthrottle: true, misc: 0, time: 1, id: 2, stream_id: 2, sample_id: SampleId::default() };
/// let v = to_vec(&r, Endian::Little).unwrap();
/// assert_eq!((v[0], v.len()), (6, 32));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Throttle<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// UNTHROTTLE instead of THROTTLE.
    pub unthrottle: bool,
    /// `header.misc`.
    pub misc: u16,
    /// Time stamp.
    pub time: u64,
    /// Event id.
    pub id: u64,
    /// Stream id.
    pub stream_id: u64,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl Throttle<'_> {
    fn record(&self) -> (&'static str, u32) {
        if self.unthrottle {
            ("UNTHROTTLE", record_type::UNTHROTTLE)
        } else {
            ("THROTTLE", record_type::THROTTLE)
        }
    }

    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        let (name, type_) = self.record();
        header(name, type_, self.misc, 24, self.layout, &self.sample_id)
    }
}

impl Encode for Throttle<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.u64(self.time)?;
        enc.u64(self.id)?;
        enc.u64(self.stream_id)?;
        self.sample_id.write(enc, self.layout, self.record().0)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
