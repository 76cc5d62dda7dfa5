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
//! `104 + block_len`), `u64 image_len`, `u64 image_at` (where the image starts, from the
//! block's start), then two slots of equal length, zeros but for the image in one of them.
//!
//! The image holds the writer's descriptions when the first record went out; when
//! events, tracepoint formats or features change after that, the next record (or flush)
//! writes the new image into the other slot, then points `image_at` and `image_len` at it:
//! a writer killed between the two writes leaves the old image whole. An image that has
//! outgrown its slot is not written: the block keeps the last one that fitted (see
//! [`slot_len`] for the room a slot leaves). Features a writer adds at finalize are in the
//! finalized file only.
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
pub const RECOVERY_BLOCK_MAGIC: [u8; 8] = *b"PWSRECV2";

/// Where the block starts: right after the file header.
pub const RECOVERY_BLOCK_AT: usize = FILE_HEADER_SIZE as usize;

/// Length of the block's head (magic, block length, image length, image offset).
const HEAD_LEN: usize = 32;

/// Where the head's image length and offset are, from the block's start.
pub(crate) const IMAGE_POINTER_AT: u64 = 16;

/// Least room a slot leaves beyond its first image, for descriptions added later.
const MIN_SLOT_ROOM: usize = 16 << 10;

/// Most room a slot leaves beyond its first image.
const MAX_SLOT_ROOM: usize = 1 << 20;

/// The length of each of the block's two slots for a first image of `image_len` bytes:
/// the image rounded up to 8 bytes, and as much again for what is added later (at least
/// 16 KiB, at most 1 MiB).
pub fn slot_len(image_len: usize) -> usize {
    let padded = image_len.div_ceil(8).saturating_mul(8);
    padded.saturating_add(padded.clamp(MIN_SLOT_ROOM, MAX_SLOT_ROOM))
}

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
    /// The file ends before byte 136.
    TooShort,
    /// The bytes at 104 are not the block's magic.
    NoMagic,
    /// The block's lengths do not fit each other or the file.
    BadLength {
        /// The block length read.
        block_len: u64,
        /// The image length read.
        image_len: u64,
        /// The image offset read.
        image_at: u64,
        /// The file's length.
        file_len: usize,
    },
}

impl core::fmt::Display for NoRecoveryBlock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NoRecoveryBlock::TooShort => {
                write!(f, "the file ends before a recovery block could (136 bytes)")
            }
            NoRecoveryBlock::NoMagic => write!(
                f,
                "no recovery block at byte 104 (file mode writes one when its first record goes out)"
            ),
            NoRecoveryBlock::BadLength {
                block_len,
                image_len,
                image_at,
                file_len,
            } => write!(
                f,
                "the recovery block's lengths (block {block_len}, image {image_len} at {image_at}) do not fit the file ({file_len} bytes)"
            ),
        }
    }
}

impl std::error::Error for NoRecoveryBlock {}

/// Encodes the block holding `image` (in its first slot) in `endian`.
pub(crate) fn encode_recovery_block(image: &[u8], endian: Endian) -> Vec<u8> {
    let slot = slot_len(image.len());
    let block_len = HEAD_LEN.saturating_add(slot.saturating_mul(2));
    let mut block = Vec::with_capacity(block_len);
    let magic = u64::from_le_bytes(RECOVERY_BLOCK_MAGIC);
    block.extend_from_slice(&endian.u64_bytes(magic));
    block.extend_from_slice(&endian.u64_bytes(block_len as u64));
    let at = slot_at(block_len as u64, 0);
    block.extend_from_slice(&image_pointer(image.len(), at, endian));
    block.extend_from_slice(image);
    block.resize(block_len, 0);
    block
}

/// Where slot `slot` (0 or 1) of a block of `block_len` bytes starts, from the block's
/// start.
pub(crate) fn slot_at(block_len: u64, slot: usize) -> u64 {
    let slot_len = block_len.saturating_sub(HEAD_LEN as u64) / 2;
    (HEAD_LEN as u64).saturating_add(slot_len.saturating_mul(slot as u64))
}

/// The head's image length and offset for an image of `image_len` bytes in slot `at`
/// (an offset from the block's start): the 16 bytes at [`IMAGE_POINTER_AT`].
pub(crate) fn image_pointer(image_len: usize, at: u64, endian: Endian) -> [u8; 16] {
    let mut pointer = [0u8; 16];
    pointer[..8].copy_from_slice(&endian.u64_bytes(image_len as u64));
    pointer[8..].copy_from_slice(&endian.u64_bytes(at));
    pointer
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
    let (Some(magic), Some(block_len), Some(image_len), Some(image_at)) =
        (word(0), word(8), word(16), word(24))
    else {
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
    let (block_len, image_len, image_at) = (
        endian.read_u64(block_len),
        endian.read_u64(image_len),
        endian.read_u64(image_at),
    );
    let bad = NoRecoveryBlock::BadLength {
        block_len,
        image_len,
        image_at,
        file_len: file.len(),
    };
    let fits = block_len % 8 == 0
        && image_at >= HEAD_LEN as u64
        && image_at.saturating_add(image_len) <= block_len
        && (RECOVERY_BLOCK_AT as u64).saturating_add(block_len) <= file.len() as u64;
    if !fits {
        return Err(bad);
    }
    // All three fit in the file's length (a usize), checked above.
    let (block_len, image_len, image_at) =
        (block_len as usize, image_len as usize, image_at as usize);
    let image_start = RECOVERY_BLOCK_AT.saturating_add(image_at);
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
            let slot = 8 + MIN_SLOT_ROOM;
            assert_eq!(slot_len(5), slot);
            assert_eq!(block.data_start, RECOVERY_BLOCK_AT + HEAD_LEN + 2 * slot);
            // Cut inside the block.
            assert!(matches!(
                find_recovery_block(&file[..RECOVERY_BLOCK_AT + 40]),
                Err(NoRecoveryBlock::BadLength { .. })
            ));
            // An image pointer past the block's end.
            let mut bad = file.clone();
            let pointer = image_pointer(slot + 1, slot_at((HEAD_LEN + 2 * slot) as u64, 1), endian);
            bad[RECOVERY_BLOCK_AT + 16..RECOVERY_BLOCK_AT + 32].copy_from_slice(&pointer);
            assert!(matches!(
                find_recovery_block(&bad),
                Err(NoRecoveryBlock::BadLength { .. })
            ));
        }
        assert_eq!(
            find_recovery_block(&[0u8; 200]),
            Err(NoRecoveryBlock::NoMagic)
        );
        assert_eq!(
            find_recovery_block(&[0u8; 130]),
            Err(NoRecoveryBlock::TooShort)
        );
    }

    #[test]
    fn a_new_image_in_the_other_slot_is_found_once_the_head_points_at_it() {
        let endian = Endian::Big;
        let mut file = vec![0u8; RECOVERY_BLOCK_AT];
        let block = encode_recovery_block(b"first image", endian);
        let block_len = block.len() as u64;
        file.extend(block);
        // The new image first: the head still names the old one.
        let at = RECOVERY_BLOCK_AT + slot_at(block_len, 1) as usize;
        file[at..at + 12].copy_from_slice(b"second image");
        assert_eq!(find_recovery_block(&file).unwrap().image, b"first image");
        let pointer = image_pointer(12, slot_at(block_len, 1), endian);
        let p = RECOVERY_BLOCK_AT + IMAGE_POINTER_AT as usize;
        file[p..p + 16].copy_from_slice(&pointer);
        let found = find_recovery_block(&file).unwrap();
        assert_eq!(found.image, b"second image");
        assert_eq!(found.data_start, RECOVERY_BLOCK_AT + block_len as usize);
    }
}
