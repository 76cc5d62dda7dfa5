//! `HEADER_SAMPLE_TIME`.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::SampleTime;

/// `{u64 first, u64 last}`.
///
/// ```
/// let v = perf_encode::to_vec(&perf_abi::SampleTime { first: 1, last: 2 }, perf_encode::Endian::Big).unwrap();
/// assert_eq!(v[7], 1);
/// assert_eq!(v[15], 2);
/// ```
impl Encode for SampleTime {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.first)?;
        enc.u64(self.last)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(16)
    }
}
