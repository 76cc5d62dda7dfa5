//! `HEADER_COMPRESSED`.

use crate::{Encode, EncodeError, Encoder, Endian, Output};
use perf_abi::CompressedInfo;
use zerocopy::FromBytes;

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

/// Reads a HEADER_COMPRESSED payload of byte order `endian`: its first 20 bytes as a
/// [`CompressedInfo`], or `None` when it is shorter (bytes after them are ignored, as perf
/// does).
///
/// ```
/// use perf_abi::{CompressedInfo, COMPRESSION_ZSTD};
/// use perf_encode::{features::read_compressed_info, Endian};
/// let c = CompressedInfo { version: 1, type_: COMPRESSION_ZSTD, level: 3, ratio: 4, mmap_len: 1 << 19 };
/// let bytes = perf_encode::to_vec(&c, Endian::Big).unwrap();
/// assert_eq!(read_compressed_info(&bytes, Endian::Big), Some(c));
/// assert_eq!(read_compressed_info(&bytes[..19], Endian::Big), None);
/// let bytes = perf_encode::to_vec(&c, Endian::Little).unwrap();
/// assert_eq!(read_compressed_info(&bytes, Endian::Little), Some(c));
/// ```
pub fn read_compressed_info(payload: &[u8], endian: Endian) -> Option<CompressedInfo> {
    let (info, _) = CompressedInfo::read_from_prefix(payload).ok()?;
    if endian.is_native() {
        return Some(info);
    }
    Some(CompressedInfo {
        version: info.version.swap_bytes(),
        type_: info.type_.swap_bytes(),
        level: info.level.swap_bytes(),
        ratio: info.ratio.swap_bytes(),
        mmap_len: info.mmap_len.swap_bytes(),
    })
}
