//! `HEADER_COMPRESSED`.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::CompressedInfo;

/// `{u32 version, u32 type, u32 level, u32 ratio, u32 mmap_len}`: how the data section's
/// PERF_RECORD_COMPRESSED records are compressed. perf needs it to decompress them. perf
/// 6.1's own `record -z` writes `version` 0 (its reader does not check it); `mmap_len` sizes
/// perf's decompression buffer.
///
/// ```
/// use perf_abi::{CompressedInfo, COMPRESSED_VERSION, COMPRESSION_ZSTD};
/// let c = CompressedInfo { version: COMPRESSED_VERSION, type_: COMPRESSION_ZSTD, level: 1, ratio: 2, mmap_len: 528384 };
/// let v = perf_encode::to_vec(&c, perf_encode::Endian::Little).unwrap();
/// assert_eq!(&v[..8], &[1, 0, 0, 0, 1, 0, 0, 0]);
/// assert_eq!(v.len(), 20);
/// ```
impl Encode for CompressedInfo {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.version)?;
        enc.u32(self.type_)?;
        enc.u32(self.level)?;
        enc.u32(self.ratio)?;
        enc.u32(self.mmap_len)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(20)
    }
}
