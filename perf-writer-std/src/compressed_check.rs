//! Strict mode's check of a COMPRESSED record the caller passes through: what it can tell
//! without decompressing it.

use crate::error::RecordProblem;
use crate::session::Session;
use perf_abi::{feature, COMPRESSION_ZSTD};

/// A COMPRESSED record may be written now: perf can decompress it (HEADER_COMPRESSED says
/// zstd and gives a buffer size) and no other zstd stream is written (the writer's own
/// compression is off). The bytes inside are not looked at.
pub(crate) fn check_compressed(session: &Session) -> Result<(), RecordProblem> {
    if session.compression.is_some() {
        return Err(RecordProblem::CompressedWhileCompressing);
    }
    let e = session.endian();
    let h = session.header(feature::COMPRESSED);
    let word = |at: usize| {
        h.get(at..at.saturating_add(4))
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(|b| e.read_u32(b))
    };
    match (word(4), word(16)) {
        (Some(COMPRESSION_ZSTD), Some(mmap_len)) if mmap_len > 0 => Ok(()),
        _ => Err(RecordProblem::CompressedWithoutHeader),
    }
}
