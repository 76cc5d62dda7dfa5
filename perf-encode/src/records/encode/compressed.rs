//! `PERF_RECORD_COMPRESSED`: zstd bytes in a record, and the padding that keeps the next
//! record 8-aligned.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// Most zstd bytes one COMPRESSED record carries unpadded: `header.size` is a `u16`.
pub const MAX_COMPRESSED_DATA: usize = u16::MAX as usize - 8;

/// Most zstd bytes one padded COMPRESSED record carries: the record (header, bytes and an
/// 8–15 byte skippable frame) ends at 65,528, the last multiple of 8 a `u16` size holds.
pub const MAX_PADDED_DATA: usize = 65_528 - 8 - ZSTD_PAD_MIN;

/// Shortest zstd skippable frame: its magic and its `u32` length.
pub const ZSTD_PAD_MIN: usize = 8;

/// The magic of the zstd skippable frame the padding is (`0x184D2A50`; zstd reserves
/// `0x184D2A50..=0x184D2A5F`), stored little-endian in every file.
pub const ZSTD_SKIPPABLE_MAGIC: u32 = 0x184D_2A50;

/// Bytes of the skippable frame that follows `data_len` zstd bytes to end a COMPRESSED
/// record on a multiple of 8: 8 to 15. A skippable frame is only allowed where a zstd frame
/// may start, so the bytes before it must end with a complete frame.
///
/// ```
/// use perf_encode::records::zstd_pad_len;
/// assert_eq!(zstd_pad_len(0), 8);
/// assert_eq!(zstd_pad_len(13), 11); // 8 + 13 + 11 = 32
/// assert_eq!(zstd_pad_len(16), 8);
/// ```
#[inline]
pub const fn zstd_pad_len(data_len: usize) -> usize {
    // The header is 8 bytes: the record is aligned when data and pad are. `data_len % 8`
    // is below 8: no wrap, and the sum is at most 15.
    ZSTD_PAD_MIN.wrapping_add(8usize.wrapping_sub(data_len % 8) % 8)
}

/// `PERF_RECORD_COMPRESSED`: `{perf_event_header, zstd bytes}`, with `data` given by the
/// caller (this crate does not compress).
///
/// Unpadded (`pad: false`) it is what perf 6.1's `record -z` writes: `header.size` is
/// `8 + data.len()`, any value up to 65,535, so the next record may start unaligned; perf
/// and linux-perf-data read that. `data` is then any piece of one zstd stream.
///
/// Padded (`pad: true`) a zstd skippable frame of [`zstd_pad_len`] bytes (zeros after its
/// magic and length) follows `data`, so the record is a multiple of 8 long. `data` must then
/// end with a complete zstd frame (for example one or more whole frames); perf 6.1 and
/// linux-perf-data 0.13 skip the padding frame.
///
/// A record longer than 65,535 bytes (65,528 padded) is an [`EncodeError::TooLong`].
///
/// ```
/// use perf_encode::records::Compressed;
/// use perf_encode::{to_vec, Endian};
/// // The encoder takes any bytes (a real record holds zstd frames or a piece of a stream).
/// let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00, 0x99, 0xe9, 0xd8, 0x51];
/// let plain = to_vec(&Compressed { data: &frame, pad: false }, Endian::Little).unwrap();
/// assert_eq!(plain[..8], [81, 0, 0, 0, 0, 0, 21, 0]);
/// let padded = to_vec(&Compressed { data: &frame, pad: true }, Endian::Big).unwrap();
/// assert_eq!(padded.len(), 32);
/// assert_eq!(padded[..8], [0, 0, 0, 81, 0, 0, 0, 32]);
/// // The skippable frame: magic and length little-endian (zstd's order), then zeros.
/// assert_eq!(padded[21..29], [0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]);
/// assert_eq!(padded[29..], [0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Compressed<'a> {
    /// The zstd bytes.
    pub data: &'a [u8],
    /// End with a skippable frame so that the record is a multiple of 8 long.
    pub pad: bool,
}

impl Compressed<'_> {
    /// Bytes of padding after [`data`](Self::data).
    #[inline]
    pub const fn pad_len(&self) -> usize {
        if self.pad {
            zstd_pad_len(self.data.len())
        } else {
            0
        }
    }
}

impl RecordBody for Compressed<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::COMPRESSED
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        let max = if self.pad {
            MAX_PADDED_DATA
        } else {
            MAX_COMPRESSED_DATA
        };
        if self.data.len() > max {
            return Err(EncodeError::TooLong {
                what: "COMPRESSED data",
                len: self.data.len() as u64,
                max: max as u64,
            });
        }
        // At most 65,527 + 15: no overflow.
        Ok(self.data.len().saturating_add(self.pad_len()))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.bytes(self.data)?;
        if !self.pad {
            return Ok(());
        }
        let skip = self.pad_len().saturating_sub(ZSTD_PAD_MIN);
        // zstd frames are little-endian whatever the file's byte order.
        enc.bytes(&ZSTD_SKIPPABLE_MAGIC.to_le_bytes())?;
        enc.bytes(&(skip as u32).to_le_bytes())?;
        enc.zeros(skip)
    }
}

encode_as_record!(Compressed<'_>);

#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)] // test arithmetic
#[cfg(test)]
mod tests {
    use super::*;
    use crate::{to_slice, Encode, Endian};

    #[test]
    fn every_length_is_framed_or_refused() {
        let data = [0xa5u8; MAX_COMPRESSED_DATA + 1];
        let mut buf = [0u8; 65_536];
        let lens = (0..64)
            .chain((64..MAX_PADDED_DATA - 64).step_by(997))
            .chain(MAX_PADDED_DATA - 64..=MAX_COMPRESSED_DATA + 1);
        for len in lens {
            for pad in [false, true] {
                let r = Compressed {
                    data: &data[..len],
                    pad,
                };
                let max = if pad {
                    MAX_PADDED_DATA
                } else {
                    MAX_COMPRESSED_DATA
                };
                let encoded = to_slice(&r, Endian::Little, &mut buf);
                if len > max {
                    assert!(matches!(encoded, Err(EncodeError::TooLong { .. })), "{len}");
                    continue;
                }
                let bytes = encoded.unwrap();
                let size = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
                assert_eq!(size, bytes.len());
                assert_eq!(r.encoded_len(), Ok(size));
                if pad {
                    assert_eq!(size % 8, 0, "{len}");
                    let p = &bytes[8 + len..];
                    assert!((8..=15).contains(&p.len()));
                    assert_eq!(p[..4], ZSTD_SKIPPABLE_MAGIC.to_le_bytes());
                    assert_eq!(
                        u32::from_le_bytes([p[4], p[5], p[6], p[7]]) as usize,
                        p.len() - 8
                    );
                } else {
                    assert_eq!(size, 8 + len);
                }
            }
        }
    }
}
