//! `PERF_RECORD_LOST`: records the kernel dropped because the ring buffer was full.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u64 id, u64 lost, sample_id}`.
///
/// ```
/// use perf_encode::records::{Lost, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let r = Lost { layout: &layout, misc: 0, id: 7, lost: 3, sample_id: SampleId::default() };
/// assert_eq!(to_vec(&r, Endian::Big).unwrap(), [0, 0, 0, 2, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 3]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Lost<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc`.
    pub misc: u16,
    /// Id of the event whose records were lost.
    pub id: u64,
    /// Number of records lost.
    pub lost: u64,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl RecordBody for Lost<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::LOST
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.id)?;
        enc.u64(self.lost)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Lost<'_>);
