//! `PERF_RECORD_THROTTLE` and `PERF_RECORD_UNTHROTTLE`: sampling was slowed or resumed.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

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

impl RecordBody for Throttle<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        if self.unthrottle {
            record_type::UNTHROTTLE
        } else {
            record_type::THROTTLE
        }
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.time)?;
        enc.u64(self.id)?;
        enc.u64(self.stream_id)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Throttle<'_>);
