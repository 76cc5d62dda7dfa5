//! The recovery block: what file mode writes between the file header and the data section
//! when the first record goes out, so that a file whose writer died before finalize still
//! says what its records are.
//!
//! File mode writes the file header last (a zeroed one stands in until then), and the attrs,
//! ids and feature sections after the data. A writer killed before finalize leaves records
//! that nothing describes. So, just before the first record, file mode writes the file as it
//! would finalize it with no records yet (the *image*: a complete perf.data file of its own,
//! header, one FINISHED_ROUND as data, feature sections, ids and attrs) inside this block,
//! and the data section starts after it. Finalize then points the header's data section past
//! the block: perf and the other readers seek to the data section and never read the block.
//!
//! Layout (each `u64` in the file's byte order), at byte 104 of the file:
//! `u64 magic` ([`RECOVERY_BLOCK_MAGIC`], its bytes reversed in a big-endian file),
//! `u64 block_len` (the whole block, a multiple of 8: the data section starts at
//! `104 + block_len`), `u64 image_len`, the image, zeros up to `block_len`.
//!
//! What the block holds is the writer's descriptions when the first record went out:
//! events, tracepoint formats and features added after that are in the finalized file only.
//!
//! ```
//! use perf_writer_std::recovery_block::{find_recovery_block, RECOVERY_BLOCK_AT};
//! let path = std::env::temp_dir().join("recovery_block_doctest.data");
//! let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
//! w.create_file(&path)?;
//! w.add_event_desc(&[1], &Default::default(), "e")?;
//! w.write_event_data(&[68, 0, 0, 0, 0, 0, 8, 0])?; // a FINISHED_ROUND
//! w.flush()?;
//! // What a killed writer leaves: the block is there before finalize.
//! let file = std::fs::read(&path)?;
//! let block = find_recovery_block(&file)?;
//! assert_eq!(&block.image[..8], b"PERFILE2");
//! assert!(block.data_start > RECOVERY_BLOCK_AT);
//! assert_eq!(&file[block.data_start..block.data_start + 4], &68u32.to_le_bytes());
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use perf_abi::FILE_HEADER_SIZE;
use perf_encode::Endian;

/// The block's first 8 bytes in a little-endian file (reversed in a big-endian one).
pub const RECOVERY_BLOCK_MAGIC: [u8; 8] = *b"PWSRECV1";

/// Where the block starts: right after the file header.
pub const RECOVERY_BLOCK_AT: usize = FILE_HEADER_SIZE as usize;

/// Length of the block's head (magic, block length, image length).
const HEAD_LEN: usize = 24;

/// A recovery block found in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryBlock<'a> {
    /// The file's byte order.
    pub endian: Endian,
    /// The image: a perf.data file with the descriptions and no records.
    pub image: &'a [u8],
    /// Where the data section starts in the file.
    pub data_start: usize,
}

/// Why a file has no usable recovery block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoRecoveryBlock {
    /// The file ends before byte 128.
    TooShort,
    /// The bytes at 104 are not the block's magic.
    NoMagic,
    /// The block's lengths do not fit each other or the file.
    BadLength {
        /// The block length read.
        block_len: u64,
        /// The image length read.
        image_len: u64,
        /// The file's length.
        file_len: usize,
    },
}

impl core::fmt::Display for NoRecoveryBlock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NoRecoveryBlock::TooShort => {
                write!(f, "the file ends before a recovery block could (128 bytes)")
            }
            NoRecoveryBlock::NoMagic => write!(
                f,
                "no recovery block at byte 104 (file mode writes one when its first record goes out)"
            ),
            NoRecoveryBlock::BadLength {
                block_len,
                image_len,
                file_len,
            } => write!(
                f,
                "the recovery block's lengths (block {block_len}, image {image_len}) do not fit the file ({file_len} bytes)"
            ),
        }
    }
}

impl std::error::Error for NoRecoveryBlock {}

/// Encodes the block holding `image` in `endian`.
pub(crate) fn encode_recovery_block(image: &[u8], endian: Endian) -> Vec<u8> {
    let padded = image.len().div_ceil(8).saturating_mul(8);
    let block_len = HEAD_LEN.saturating_add(padded);
    let mut block = Vec::with_capacity(block_len);
    let magic = u64::from_le_bytes(RECOVERY_BLOCK_MAGIC);
    block.extend_from_slice(&endian.u64_bytes(magic));
    block.extend_from_slice(&endian.u64_bytes(block_len as u64));
    block.extend_from_slice(&endian.u64_bytes(image.len() as u64));
    block.extend_from_slice(image);
    block.resize(block_len, 0);
    block
}

/// The recovery block of `file` (a file-mode perf.data whose header starts at byte 0).
///
/// # Errors
///
/// [`NoRecoveryBlock`]: the file is too short, has no block, or its lengths do not fit.
pub fn find_recovery_block(file: &[u8]) -> Result<RecoveryBlock<'_>, NoRecoveryBlock> {
    let word = |at: usize| -> Option<[u8; 8]> {
        file.get(RECOVERY_BLOCK_AT.checked_add(at)?..)?
            .first_chunk::<8>()
            .copied()
    };
    let (Some(magic), Some(block_len), Some(image_len)) = (word(0), word(8), word(16)) else {
        return Err(NoRecoveryBlock::TooShort);
    };
    let mut reversed = RECOVERY_BLOCK_MAGIC;
    reversed.reverse();
    let endian = if magic == RECOVERY_BLOCK_MAGIC {
        Endian::Little
    } else if magic == reversed {
        Endian::Big
    } else {
        return Err(NoRecoveryBlock::NoMagic);
    };
    let (block_len, image_len) = (endian.read_u64(block_len), endian.read_u64(image_len));
    let bad = NoRecoveryBlock::BadLength {
        block_len,
        image_len,
        file_len: file.len(),
    };
    let image_start = RECOVERY_BLOCK_AT.saturating_add(HEAD_LEN);
    let fits = block_len % 8 == 0
        && image_len.saturating_add(HEAD_LEN as u64) <= block_len
        && (RECOVERY_BLOCK_AT as u64).saturating_add(block_len) <= file.len() as u64;
    if !fits {
        return Err(bad);
    }
    // Both fit in the file's length (a usize), checked above.
    let (block_len, image_len) = (block_len as usize, image_len as usize);
    let image = file
        .get(image_start..image_start.saturating_add(image_len))
        .ok_or(bad)?;
    Ok(RecoveryBlock {
        endian,
        image,
        data_start: RECOVERY_BLOCK_AT.saturating_add(block_len),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_found_in_both_byte_orders_and_damage_is_named() {
        for endian in [Endian::Little, Endian::Big] {
            let mut file = vec![0u8; RECOVERY_BLOCK_AT];
            file.extend(encode_recovery_block(b"image", endian));
            file.extend([1u8; 16]);
            let block = find_recovery_block(&file).unwrap();
            assert_eq!(block.endian, endian);
            assert_eq!(block.image, b"image");
            assert_eq!(block.data_start, RECOVERY_BLOCK_AT + 24 + 8);
            // Cut inside the block.
            assert!(matches!(
                find_recovery_block(&file[..RECOVERY_BLOCK_AT + 28]),
                Err(NoRecoveryBlock::BadLength { .. })
            ));
        }
        assert_eq!(
            find_recovery_block(&[0u8; 200]),
            Err(NoRecoveryBlock::NoMagic)
        );
        assert_eq!(
            find_recovery_block(&[0u8; 110]),
            Err(NoRecoveryBlock::TooShort)
        );
    }
}
