//! `PERF_RECORD_LOST`: records the kernel dropped because the ring buffer was full.

use crate::records::kernel_record::header;
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventHeader};

const RECORD: &str = "LOST";

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

impl Lost<'_> {
    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        header(
            RECORD,
            record_type::LOST,
            self.misc,
            16,
            self.layout,
            &self.sample_id,
        )
    }
}

impl Encode for Lost<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.u64(self.id)?;
        enc.u64(self.lost)?;
        self.sample_id.write(enc, self.layout, RECORD)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
