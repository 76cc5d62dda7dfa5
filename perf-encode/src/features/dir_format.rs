//! `HEADER_DIR_FORMAT`: the version of perf's directory layout.

use crate::{Encode, EncodeError, Encoder, Output};

/// `u64 version`. perf writes it only in the `data` file of a directory recording
/// (`perf record --threads -o DIR`: `DIR/data` plus one `DIR/data.N` per thread); perf 6.1
/// reading it from a plain file prints `assertion failed at util/header.c:…`
/// (`WARN_ON(!perf_data__is_dir)`) and ignores it.
///
/// ```
/// use perf_abi::DIR_FORMAT_VERSION;
/// use perf_encode::features::DirFormat;
/// let v = perf_encode::to_vec(&DirFormat { version: DIR_FORMAT_VERSION }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, 1u64.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirFormat {
    /// The version.
    pub version: u64,
}

impl Encode for DirFormat {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.version)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}
