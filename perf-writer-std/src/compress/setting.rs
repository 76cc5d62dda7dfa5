//! The compression setting ([`Compression`], [`CompressionForm`]), perf's bounds on what it
//! decompresses, and what the COMPRESSED records written hold ([`CompressionStats`]).

use crate::error::CompressionError;
use crate::WriterError;
use perf_abi::{CompressedInfo, COMPRESSION_ZSTD};

/// Most bytes of records one COMPRESSED record decompresses to (HEADER_COMPRESSED announces
/// twice this as `mmap_len` before the first one): perf sizes its decompression buffer from
/// `mmap_len`.
pub const MAX_DECOMPRESSED_CHUNK: usize = 256 * 1024;

/// The form of the COMPRESSED records (see [`Compression`]). Both are read by perf 6.1
/// (`perf script`, `perf report`) and linux-perf-data 0.13; BENCHMARKS.md compares them.
///
/// The default is [`Aligned`](Self::Aligned): every record of the output stays 8-aligned
/// (which readers may assume: newer perf added COMPRESSED2 because type-81 misalignment
/// broke its own reader under sanitizers), and it is the faster (one-shot zstd calls instead
/// of zstd's streaming path). [`PerfStream`](Self::PerfStream) keeps zstd's history across
/// pieces, which only matters when they are short: a trace flushed every few records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CompressionForm {
    /// Every record holds one complete zstd frame (of up to [`MAX_DECOMPRESSED_CHUNK`]
    /// bytes of records; smaller when they compress less than 4:1) and a zstd skippable
    /// frame of 8–15 bytes that ends it on a multiple of 8. The frames are independent, so a
    /// flush, which ends the piece, ends a frame: a piece that would not shrink (a flush
    /// after every record) is written as its records, uncompressed. zstd sizes its window
    /// and tables from the piece (at most 256 KiB): a few MB of memory at any level.
    #[default]
    Aligned,
    /// What `perf record -z` writes: one zstd stream for the whole output, flushed into
    /// records of `8 + compressed bytes`, unpadded, so the record after one starts wherever
    /// it ends; the FINISHED_ROUND records not written among them are compressed in their
    /// place (see the `compress` module's documentation). The stream's history spans pieces, so
    /// flushes cost little. Every record holds the end of a zstd block, so that it
    /// decompresses to some bytes (perf 6.1 refuses one that does not), and a block may
    /// start in the record before: zstd's blocks are kept while each fits a record, and once
    /// one would not (records that hardly compress), the stream goes on in a new frame of
    /// blocks of at most 63 KiB of input. Its window is [`STREAM_WINDOW`] at every level, which
    /// bounds zstd's memory, and a frame holds at most that many bytes of records (the next
    /// one goes on in the same record), so zstd never matches across a wrap of its ring.
    /// A piece whose records would not shrink goes out as it is, and the stream goes on
    /// in a new frame (zstd's history before it is lost).
    PerfStream,
}

/// The zstd window of [`CompressionForm::PerfStream`] (1 MiB), and the most bytes of records
/// one of its frames holds: the stream is compressed as one of about this size, which caps
/// zstd's window, hash and chain tables (level 22 then takes about 18 MB instead of 830 MB)
/// and the memory a reader needs to decompress it; and zstd's streaming keeps its input in
/// a ring of a window and a block, matching with its slower "extDict" match finders once
/// the ring has wrapped, which a frame that fits the window never does.
pub const STREAM_WINDOW: u32 = 1 << 20;

/// How the writer compresses: a zstd level and a [`CompressionForm`]. Set it with
/// [`PerfWriter::set_compression`](crate::PerfWriter::set_compression) (needs the `zstd`
/// cargo feature); off by default.
///
/// ```
/// use perf_writer_std::{Compression, CompressionForm};
/// let c = Compression::zstd(1);
/// assert_eq!((c.level, c.form), (1, CompressionForm::Aligned));
/// let perfs = Compression { form: CompressionForm::PerfStream, ..Compression::zstd(3) };
/// assert_eq!(perfs.level, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Compression {
    /// zstd level, 1 (fastest; `perf record -z`'s default) to 22.
    pub level: i32,
    /// The form of the records.
    pub form: CompressionForm,
}

impl Compression {
    /// The zstd levels the writer takes: zstd's own, which HEADER_COMPRESSED stores unsigned.
    pub const LEVELS: core::ops::RangeInclusive<i32> = 1..=22;

    /// zstd at `level` in the default form ([`CompressionForm::Aligned`]).
    pub const fn zstd(level: i32) -> Self {
        Compression {
            level,
            form: CompressionForm::Aligned,
        }
    }

    /// Refuses a level HEADER_COMPRESSED cannot carry or zstd does not have.
    pub(crate) fn check(&self) -> Result<(), WriterError> {
        if Self::LEVELS.contains(&self.level) {
            Ok(())
        } else {
            Err(WriterError::Compression(CompressionError::Level(
                self.level,
            )))
        }
    }

    /// The HEADER_COMPRESSED sent before any COMPRESSED record: the ratio is not known yet,
    /// `mmap_len` is the most any record will decompress to.
    pub(crate) fn announced(&self) -> CompressedInfo {
        CompressionStats {
            level: self.level.unsigned_abs(),
            ..CompressionStats::default()
        }
        .info()
    }
}

/// What the COMPRESSED records written so far hold, for HEADER_COMPRESSED.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CompressionStats {
    /// The level of the last compressor.
    pub(crate) level: u32,
    /// Bytes of records compressed.
    pub(crate) bytes_in: u64,
    /// Bytes of the COMPRESSED records written.
    pub(crate) bytes_out: u64,
    /// Most bytes one COMPRESSED record decompresses to (a chunk of input flushed at once).
    pub(crate) max_chunk: u64,
}

impl CompressionStats {
    /// Adds the stats of a later compressor.
    pub(crate) fn merge(&mut self, later: &CompressionStats) {
        self.level = later.level;
        self.bytes_in = self.bytes_in.saturating_add(later.bytes_in);
        self.bytes_out = self.bytes_out.saturating_add(later.bytes_out);
        self.max_chunk = self.max_chunk.max(later.max_chunk);
    }

    /// HEADER_COMPRESSED: version 0 (what `perf record -z` writes), zstd, the level, the
    /// ratio of record bytes to COMPRESSED bytes (rounded; 0 before any), and `mmap_len`:
    /// twice the largest chunk one record decompresses to ([`MAX_DECOMPRESSED_CHUNK`] before
    /// any).
    ///
    /// Why twice: perf 6.1 decompresses a record into a buffer of `mmap_len` bytes in a loop
    /// that, when zstd returns with input left (at the end of a frame, or with the buffer
    /// exactly full), calls it again without resetting the output position: the second call
    /// fails ("Destination buffer is too small") unless the bytes already out are at most
    /// half the buffer. Seen with perf 6.1 (tests/tests/compression.rs): `mmap_len` equal to
    /// the chunk fails on the aligned form (zstd stops after the complete frame, before the
    /// skippable one); perf's form reads with it, and gets the same margin.
    pub(crate) fn info(&self) -> CompressedInfo {
        let ratio = match self.bytes_out {
            0 => 0,
            out => self.bytes_in.saturating_add(out / 2) / out,
        };
        let chunk = match self.max_chunk {
            0 => MAX_DECOMPRESSED_CHUNK as u64,
            n => n,
        };
        let mmap_len = chunk.saturating_mul(2);
        CompressedInfo {
            version: 0,
            type_: COMPRESSION_ZSTD,
            level: self.level,
            ratio: u32::try_from(ratio).unwrap_or(u32::MAX),
            mmap_len: u32::try_from(mmap_len).unwrap_or(u32::MAX),
        }
    }
}
