//! `PERF_RECORD_SAMPLE`: the fields of a [`Sample`] as the attr's layout lays them out.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::table::Sample;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// A SAMPLE record: `header {SAMPLE, misc, size}` and the fields of `sample` as `layout`
/// lays them out. See [`Sample`]. For a layout of the fixed 8-byte fields and RAW only,
/// [`BasicSampleRecord`](crate::records::BasicSampleRecord) writes the same bytes from plain
/// values, in a tenth of the stack.
///
/// ```
/// use perf_abi::sample_type::*;
/// use perf_encode::records::{Sample, SampleLayout, SampleRecord};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: IDENTIFIER | RAW, ..Default::default() };
/// let raw = [1u8, 2, 3, 4, 5];
/// let s = Sample { identifier: Some(9), raw: Some(&raw), ..Default::default() };
/// let v = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 8 + 4 + 12); // size 12: 5 bytes of data, 7 of padding
/// assert_eq!(&v[16..20], &12u32.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SampleRecord<'a> {
    /// The attr's layout.
    pub layout: &'a SampleLayout,
    /// The fields.
    pub sample: &'a Sample<'a>,
    /// `header.misc`: the cpu mode (`misc::USER`, `misc::KERNEL`, …), `misc::EXACT_IP`, ….
    pub misc: u16,
}

impl RecordBody for SampleRecord<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::SAMPLE
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    #[inline]
    fn body_len(&self) -> Result<usize, EncodeError> {
        self.sample.body_len(self.layout)
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.sample.write_body(enc, self.layout)
    }
}

encode_as_record!(SampleRecord<'_>);
