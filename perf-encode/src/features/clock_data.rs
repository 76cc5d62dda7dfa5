//! `HEADER_CLOCK_DATA`.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::ClockData;

/// `{u32 version, u32 clockid, u64 wall_clock_ns, u64 clockid_time_ns}`.
///
/// ```
/// use perf_abi::{ClockData, CLOCK_DATA_VERSION};
/// let c = ClockData { version: CLOCK_DATA_VERSION, clockid: 1, wall_clock_ns: 2, clockid_time_ns: 3 };
/// assert_eq!(perf_encode::to_vec(&c, perf_encode::Endian::Little).unwrap().len(), 24);
/// ```
impl Encode for ClockData {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.version)?;
        enc.u32(self.clockid)?;
        enc.u64(self.wall_clock_ns)?;
        enc.u64(self.clockid_time_ns)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(24)
    }
}
