//! `HEADER_NRCPUS`.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::NrCpus;

/// `{u32 available, u32 online}`.
///
/// ```
/// let v = perf_encode::to_vec(&perf_abi::NrCpus { available: 4, online: 2 }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [4, 0, 0, 0, 2, 0, 0, 0]);
/// ```
impl Encode for NrCpus {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.available)?;
        enc.u32(self.online)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}
