//! Strict mode's check of a COMPRESSED record the caller passes through: what it can tell
//! without decompressing it.

use crate::error::RecordProblem;
use crate::model::trace_model::TraceModel;
use perf_abi::{feature, COMPRESSION_ZSTD};
use perf_encode::features::read_compressed_info;
use perf_encode::Endian;

/// A COMPRESSED record may be written now: perf can decompress it (HEADER_COMPRESSED says
/// zstd and gives a buffer size) and no other zstd stream is written (the writer's own
/// compression is off). The bytes inside are not looked at.
pub(crate) fn check_compressed(model: &TraceModel) -> Result<(), RecordProblem> {
    if model.compression.is_some() {
        return Err(RecordProblem::CompressedWhileCompressing);
    }
    if model.compressed_header_is_writers() {
        return Err(RecordProblem::CompressedUnderWritersHeader);
    }
    match readable_header(model.endian(), model.header(feature::COMPRESSED)) {
        true => Ok(()),
        false => Err(RecordProblem::CompressedWithoutHeader),
    }
}

/// A HEADER_COMPRESSED payload perf decompresses COMPRESSED records by: zstd, and a
/// buffer size (`mmap_len`) above 0.
pub(crate) fn readable_header(endian: Endian, payload: &[u8]) -> bool {
    read_compressed_info(payload, endian)
        .is_some_and(|c| c.type_ == COMPRESSION_ZSTD && c.mmap_len > 0)
}
