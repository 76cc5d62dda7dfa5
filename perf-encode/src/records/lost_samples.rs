//! `PERF_RECORD_LOST_SAMPLES`: samples dropped by the PMU or a BPF filter.

use crate::records::kernel_record::header;
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventHeader};

const RECORD: &str = "LOST_SAMPLES";

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

impl LostSamples<'_> {
    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        header(
            RECORD,
            record_type::LOST_SAMPLES,
            self.misc,
            8,
            self.layout,
            &self.sample_id,
        )
    }
}

impl Encode for LostSamples<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.u64(self.lost)?;
        self.sample_id.write(enc, self.layout, RECORD)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
