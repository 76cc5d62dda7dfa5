//! `HEADER_TOTAL_MEM`.

use crate::{Encode, EncodeError, Encoder, Output};

/// Memory of the machine in kB (`MemTotal` of `/proc/meminfo`), a `u64`.
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::features::TotalMem { kib: 1024 }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, 1024u64.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TotalMem {
    /// Kibibytes.
    pub kib: u64,
}

impl Encode for TotalMem {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.kib)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}
