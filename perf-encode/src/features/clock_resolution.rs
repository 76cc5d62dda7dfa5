//! `HEADER_CLOCKID`: despite its name, the resolution of the event clock.

use crate::{Encode, EncodeError, Encoder, Output};

/// The `u64` resolution in ns of the clock the time stamps use (what `clock_getres` says).
/// perf prints it as "clockid frequency: 1000 MHz" for 1 ns. It is not the clock's id: that
/// is in the attr's `clockid` and in CLOCK_DATA.
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::features::ClockResolution { ns: 1 }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, 1u64.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockResolution {
    /// Resolution in nanoseconds.
    pub ns: u64,
}

impl Encode for ClockResolution {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.ns)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}
