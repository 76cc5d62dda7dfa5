//! `PERF_RECORD_TIME_CONV`: how to turn TSC values into perf time.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{EncodeError, Encoder, Output};
use perf_abi::{record_type, TimeConv};

/// `{perf_event_header, time_shift, time_mult, time_zero, time_cycles, time_mask,
/// u8 cap_user_time_zero, u8 cap_user_time_short, u8 reserved[6]}`: 56 bytes.
///
/// ```
/// let t = perf_abi::TimeConv { time_shift: 31, time_mult: 1_000_000, ..Default::default() };
/// let v = perf_encode::to_vec(&t, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), 56);
/// assert_eq!(&v[..4], &79u32.to_le_bytes());
/// ```
impl RecordBody for TimeConv {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::TIME_CONV
    }

    /// The perf 6.1 form (older perf wrote only the first 24 bytes).
    fn body_len(&self) -> Result<usize, EncodeError> {
        Ok(TimeConv::SIZE)
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.time_shift)?;
        enc.u64(self.time_mult)?;
        enc.u64(self.time_zero)?;
        enc.u64(self.time_cycles)?;
        enc.u64(self.time_mask)?;
        enc.u8(self.cap_user_time_zero)?;
        enc.u8(self.cap_user_time_short)?;
        enc.bytes(&self.reserved)
    }
}

encode_as_record!(TimeConv);
