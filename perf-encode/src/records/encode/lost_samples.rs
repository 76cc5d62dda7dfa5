//! `PERF_RECORD_LOST_SAMPLES`: samples dropped by the PMU or a BPF filter.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u64 lost, sample_id}`.
///
/// ```
/// use perf_encode::records::{LostSamples, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let r = LostSamples { layout: &layout, misc: 0, lost: 12, sample_id: SampleId::default() };
/// assert_eq!(to_vec(&r, Endian::Little).unwrap().len(), 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LostSamples<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc`.
    pub misc: u16,
    /// Number of samples lost.
    pub lost: u64,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl RecordBody for LostSamples<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::LOST_SAMPLES
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.lost)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(LostSamples<'_>);
