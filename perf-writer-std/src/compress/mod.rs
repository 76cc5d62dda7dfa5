//! zstd compression of the records the writer is given, into PERF_RECORD_COMPRESSED records
//! (behind the `zstd` cargo feature; [`Compression`] exists in every build).
//!
//! Which records are compressed follows what `perf record -z` writes: kernel records
//! (types below 64: SAMPLE, COMM, MMAP…) from the first SAMPLE or FINISHED_INIT on; the
//! records before (the initial state), tool records (FINISHED_INIT, ID_INDEX, pipe mode's
//! header records…) and COMPRESSED records given by the caller stay as they are.
//!
//! Compressed records wait, whole, in a buffer of at most [`MAX_DECOMPRESSED_CHUNK`] bytes. It
//! is compressed (into COMPRESSED records of at most 65,535 bytes) when the next record does
//! not fit, before a record that stays uncompressed, on a flush and on finish: each such
//! piece decompresses to at most the buffer.
//!
//! FINISHED_ROUND records among the compressed ones do not end a piece (a piece of perf's
//! ~20 records compresses several times worse than the same records in a long one). perf
//! (and linux-perf-data) queue the records they read and, at each FINISHED_ROUND, deliver the
//! ones not later than the last time seen before the previous FINISHED_ROUND, in time order:
//! the rounds only bound how long a record waits. Any subset of a trace's rounds, each left
//! where it was, delivers the same records in the same order, as long as the trace keeps the
//! rounds' promise (no record older than what a round let out). So a round is written only
//! where a piece ends: when the buffer is full, the last round in its second half (the
//! records after it wait for the next piece), and at any other end of a piece once
//! [`MAX_DECOMPRESSED_CHUNK`] bytes of records went by since the last round written (bounding
//! the reader's queue as perf's own ring passes do). The aligned form leaves the others out;
//! perf's form compresses them in their place, so perf sees every round where it was (it reads
//! a record inside a COMPRESSED record as one outside) and zstd the bytes the caller wrote
//! (perf's traces can compress 14% better with perf's rounds in them); linux-perf-data 0.13
//! takes only the rounds outside COMPRESSED records as rounds and returns the others as user
//! records. One exception keeps every round outside: when some events carry a time and
//! others do not, perf delivers the untimed records as it reads them, and their place among
//! the timed ones depends on where the rounds are.

mod compressors;
#[cfg(feature = "zstd")]
mod io_output;
#[cfg(not(feature = "zstd"))]
mod no_compressor;
#[cfg(feature = "zstd")]
pub(crate) mod record_router;
mod setting;
#[cfg(feature = "zstd")]
mod zstd_compressor;

pub(crate) use compressors::Compressors;
#[cfg(not(feature = "zstd"))]
pub(crate) use no_compressor::Compressor;
pub(crate) use setting::CompressionStats;
pub use setting::{Compression, CompressionForm, MAX_DECOMPRESSED_CHUNK, STREAM_WINDOW};
#[cfg(feature = "zstd")]
pub(crate) use zstd_compressor::Compressor;
