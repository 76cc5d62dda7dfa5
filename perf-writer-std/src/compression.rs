//! zstd compression of the records the writer is given, into PERF_RECORD_COMPRESSED records
//! (behind the `zstd` cargo feature; [`Compression`] exists in every build).
//!
//! Which records are compressed follows what `perf record -z` writes: kernel records
//! (types below 64: SAMPLE, COMM, MMAP…) from the first SAMPLE or FINISHED_INIT on; the
//! records before (the initial state), tool records (FINISHED_ROUND, FINISHED_INIT, ID_INDEX,
//! pipe mode's header records…) and COMPRESSED records given by the caller stay as they are.
//! Compressed bytes wait in a buffer of [`MAX_DECOMPRESSED_CHUNK`] bytes; when it is full, or
//! before an uncompressed record, a flush or finalize, they become COMPRESSED records of at
//! most 65,535 bytes.

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
/// broke its own reader under sanitizers), and on the benchmark's trace it is smaller
/// (within 0.3% of one zstd frame of the same bytes; perf's form 0.6%) and faster (one-shot
/// zstd calls instead of zstd's streaming path).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CompressionForm {
    /// Every record holds one complete zstd frame (of up to
    /// [`MAX_DECOMPRESSED_CHUNK`] bytes of records; smaller when they compress less than
    /// 4:1) and a zstd skippable frame of 8–15 bytes that ends it on a multiple of 8. The
    /// frames are independent.
    #[default]
    Aligned,
    /// What `perf record -z` writes: one zstd stream for the whole output, flushed into
    /// records of `8 + compressed bytes`, unpadded, so the record after one starts wherever
    /// it ends. The stream's window spans records. The stream is never ended and is flushed
    /// every 63 KiB of input, so that every record decompresses to some bytes (perf 6.1
    /// refuses one that does not).
    PerfStream,
}

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
            Err(WriterError::CompressionLevel(self.level))
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

/// What the COMPRESSED records written so far hold, for HEADER_COMPRESSED. Public only so
/// that [`crate::OutputMode`] can name it; it cannot be reached from outside the crate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompressionStats {
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

/// The compressors of one output: the one compressing, and what the others left behind.
#[derive(Default)]
pub(crate) struct Compressors {
    /// Compressing now.
    pub(crate) active: Option<Box<Compressor>>,
    /// A perf-form compressor switched off with its frame open: compression in perf's form
    /// goes on in its stream.
    parked: Option<Box<Compressor>>,
    /// What the compressors dropped so far wrote.
    done: Option<CompressionStats>,
    /// A dropped compressor had started compressing kernel records.
    done_started: bool,
}

impl Compressors {
    /// Starts, changes or stops compression (between records): what the active compressor
    /// holds is written first. A perf-form stream is never ended (see
    /// [`Compressor::open_frame`]): switching off parks it, and perf's form, at any level,
    /// goes on in it; the aligned form is refused while it is open. Returns the bytes
    /// written; on error nothing changed but what was written.
    pub(crate) fn switch<W: std::io::Write>(
        &mut self,
        setting: Option<Compression>,
        endian: perf_encode::Endian,
        w: &mut W,
    ) -> std::io::Result<u64> {
        let open = self.parked.is_some() || self.active.as_ref().is_some_and(|a| a.open_frame());
        if let Some(c) = setting {
            c.check()?;
            if open && c.form != CompressionForm::PerfStream {
                return Err(WriterError::CompressionSwitch.into());
            }
        }
        let written = match self.active.as_mut() {
            Some(a) => a.flush_chunk(w)?,
            None => 0,
        };
        if let Some(a) = self.active.take() {
            if a.open_frame() {
                self.parked = Some(a);
            } else {
                self.retire(&a);
            }
        }
        let started = self.parked.as_ref().is_some_and(|p| p.started());
        self.active = match setting {
            None => None,
            Some(c) if c.form == CompressionForm::PerfStream && self.parked.is_some() => {
                if let Some(p) = self.parked.as_mut() {
                    p.set_level(c.level)?;
                }
                self.parked.take()
            }
            Some(c) => {
                let mut next = Box::new(Compressor::new(c, endian)?);
                if started || self.done_started {
                    next.start();
                }
                Some(next)
            }
        };
        Ok(written)
    }

    fn retire(&mut self, c: &Compressor) {
        self.done_started |= c.started();
        self.done
            .get_or_insert_with(CompressionStats::default)
            .merge(&c.stats());
    }

    /// What every compressor of the output wrote, `None` when none was ever on.
    pub(crate) fn stats(&self) -> Option<CompressionStats> {
        let mut all = self.done;
        for c in [&self.parked, &self.active].into_iter().flatten() {
            all.get_or_insert_with(CompressionStats::default)
                .merge(&c.stats());
        }
        all
    }
}

#[cfg(feature = "zstd")]
pub(crate) use imp::Compressor;

#[cfg(feature = "zstd")]
mod imp {
    use super::{Compression, CompressionForm, CompressionStats, MAX_DECOMPRESSED_CHUNK};
    use crate::compression_router::{Route, Router};
    use crate::record_stream::IoOutput;
    use crate::WriterError;
    use perf_encode::records::{Compressed, MAX_COMPRESSED_DATA, MAX_PADDED_DATA};
    use perf_encode::Endian;
    use std::io::{self, Write};
    use zstd::zstd_safe::{self, zstd_sys::ZSTD_EndDirective, CCtx, CParameter};
    use zstd::zstd_safe::{InBuffer, OutBuffer};

    /// Smallest input of one aligned frame: its worst case (zstd's bound, 32,944 bytes)
    /// always fits a padded record.
    const MIN_FRAME: usize = 32 * 1024;

    /// Input between two flushes of perf's form: a block of it, even stored, is shorter
    /// than a record's 65,527 bytes (see `stream_chunk`).
    const STREAM_SLICE: usize = 64 * 1024 - 1024;

    fn zstd_err(code: usize) -> io::Error {
        WriterError::Compression(zstd_safe::get_error_name(code)).into()
    }

    /// A zstd compressor turning the records it is given into COMPRESSED records.
    pub(crate) struct Compressor {
        /// Which bytes are compressed.
        router: Router,
        z: Zstd,
    }

    /// The compressing half of [`Compressor`].
    struct Zstd {
        setting: Compression,
        endian: Endian,
        cctx: CCtx<'static>,
        /// Record bytes waiting to be compressed, at most [`MAX_DECOMPRESSED_CHUNK`].
        input: Vec<u8>,
        /// Where zstd writes one record's worth of bytes.
        scratch: Vec<u8>,
        /// Input of the next aligned frame (adapts to the ratio).
        frame_hint: usize,
        /// The perf-form stream has bytes since its frame began (it must end before another
        /// stream starts).
        in_frame: bool,
        stats: CompressionStats,
    }

    impl Compressor {
        pub(crate) fn new(setting: Compression, endian: Endian) -> Result<Self, WriterError> {
            setting.check()?;
            let mut cctx = CCtx::try_create().ok_or(WriterError::Compression("out of memory"))?;
            cctx.set_parameter(CParameter::CompressionLevel(setting.level))
                .map_err(|c| WriterError::Compression(zstd_safe::get_error_name(c)))?;
            let z = Zstd {
                setting,
                endian,
                cctx,
                input: Vec::with_capacity(MAX_DECOMPRESSED_CHUNK),
                scratch: vec![0u8; MAX_COMPRESSED_DATA],
                frame_hint: MAX_DECOMPRESSED_CHUNK,
                in_frame: false,
                stats: CompressionStats {
                    level: setting.level.unsigned_abs(),
                    ..CompressionStats::default()
                },
            };
            Ok(Compressor {
                router: Router::new(endian),
                z,
            })
        }

        pub(crate) fn stats(&self) -> CompressionStats {
            self.z.stats
        }

        /// Takes the caller's record bytes (checked whole records or pieces of them):
        /// compressed ones wait, the others go to `w` after what waits. Returns the bytes
        /// written to `w`.
        pub(crate) fn push<W: Write>(&mut self, data: &[u8], w: &mut W) -> io::Result<u64> {
            let mut written = 0u64;
            let z = &mut self.z;
            self.router.split(data, |route, run| {
                let n = match route {
                    Route::Compress => z.take(run, w)?,
                    Route::Raw => {
                        let n = z.flush_chunk(w)?;
                        w.write_all(run)?;
                        n.saturating_add(run.len() as u64)
                    }
                };
                written = written.saturating_add(n);
                Ok(())
            })?;
            Ok(written)
        }

        /// Compresses what waits into COMPRESSED records on `w`; returns their bytes.
        pub(crate) fn flush_chunk<W: Write>(&mut self, w: &mut W) -> io::Result<u64> {
            self.z.flush_chunk(w)
        }

        /// [`push`](Self::push) of one whole record of `type_` that is compressed and fits
        /// the chunk without filling it (so nothing is written): true when taken; false
        /// changes nothing.
        #[inline]
        pub(crate) fn take_whole_record(&mut self, type_: u32, record: &[u8]) -> bool {
            let fits = self.z.input.len().saturating_add(record.len()) < MAX_DECOMPRESSED_CHUNK;
            if !fits || !self.router.compresses_whole(type_) {
                return false;
            }
            self.z.input.extend_from_slice(record);
            true
        }

        /// A perf-form frame is open: another stream may not start before it ends, and
        /// ending it takes a record that decompresses to nothing, which perf 6.1 refuses
        /// ("Couldn't decompress data"). So the frame stays open and the stream goes on.
        pub(crate) fn open_frame(&self) -> bool {
            self.z.in_frame
        }

        /// Record bytes wait to be compressed.
        pub(crate) fn waiting(&self) -> bool {
            !self.z.input.is_empty()
        }

        /// Goes on with the same stream at `level` (zstd allows it within a frame).
        pub(crate) fn set_level(&mut self, level: i32) -> Result<(), WriterError> {
            Compression::zstd(level).check()?;
            self.z
                .cctx
                .set_parameter(CParameter::CompressionLevel(level))
                .map_err(|c| WriterError::Compression(zstd_safe::get_error_name(c)))?;
            self.z.setting.level = level;
            self.z.stats.level = level.unsigned_abs();
            Ok(())
        }

        /// Kernel records are compressed from here on (see [`Router`]).
        pub(crate) fn started(&self) -> bool {
            self.router.started
        }

        pub(crate) fn start(&mut self) {
            self.router.started = true;
        }
    }

    impl Zstd {
        /// Adds `run` to the waiting bytes, compressing each full chunk.
        #[inline]
        fn take<W: Write>(&mut self, mut run: &[u8], w: &mut W) -> io::Result<u64> {
            let room = MAX_DECOMPRESSED_CHUNK.saturating_sub(self.input.len());
            if run.len() < room {
                self.input.extend_from_slice(run);
                return Ok(0);
            }
            let mut written = 0u64;
            while !run.is_empty() {
                let room = MAX_DECOMPRESSED_CHUNK.saturating_sub(self.input.len());
                let (now, rest) = run.split_at(room.min(run.len()));
                self.input.extend_from_slice(now);
                run = rest;
                if self.input.len() >= MAX_DECOMPRESSED_CHUNK {
                    written = written.saturating_add(self.flush_chunk(w)?);
                }
            }
            Ok(written)
        }

        /// Compresses what waits into COMPRESSED records on `w`; returns their bytes.
        fn flush_chunk<W: Write>(&mut self, w: &mut W) -> io::Result<u64> {
            if self.input.is_empty() {
                return Ok(0);
            }
            let input = std::mem::take(&mut self.input);
            let result = match self.setting.form {
                CompressionForm::PerfStream => self.stream_chunk(&input, w),
                CompressionForm::Aligned => self.aligned_chunk(&input, w),
            };
            let len = input.len() as u64;
            self.input = input;
            self.input.clear();
            let written = result?;
            let s = &mut self.stats;
            s.bytes_in = s.bytes_in.saturating_add(len);
            s.bytes_out = s.bytes_out.saturating_add(written);
            Ok(written)
        }

        /// perf's form: `input` into the one stream, in records of at most 65,535 bytes.
        ///
        /// perf 6.1 refuses a COMPRESSED record that decompresses to nothing ("failed to
        /// process type: 81"), which a record cut inside one zstd compressed block does
        /// (zstd decodes such a block only once it has all of it; stored blocks stream).
        /// So the stream is flushed every [`STREAM_SLICE`] bytes of input: no block is then
        /// longer than a record, every full record holds a block's end, and the last record
        /// of a chunk ends on a flush. Every record holds bytes of this chunk only, so it
        /// decompresses to at most the chunk.
        fn stream_chunk<W: Write>(&mut self, input: &[u8], w: &mut W) -> io::Result<u64> {
            let mut written = 0u64;
            let mut filled = 0usize;
            for slice in input.chunks(STREAM_SLICE) {
                let mut src = InBuffer::around(slice);
                loop {
                    let dst = self
                        .scratch
                        .get_mut(..MAX_COMPRESSED_DATA)
                        .unwrap_or_default();
                    let mut out = OutBuffer::around_pos(dst, filled.min(MAX_COMPRESSED_DATA));
                    let left = self
                        .cctx
                        .compress_stream2(&mut out, &mut src, ZSTD_EndDirective::ZSTD_e_flush)
                        .map_err(zstd_err)?;
                    filled = out.pos();
                    if filled >= MAX_COMPRESSED_DATA {
                        written = written.saturating_add(self.emit_scratch(filled, w)?);
                        filled = 0;
                    }
                    if left == 0 && src.pos() == slice.len() {
                        break;
                    }
                }
            }
            if filled > 0 {
                written = written.saturating_add(self.emit_scratch(filled, w)?);
            }
            self.in_frame = true;
            self.note_chunk(input.len());
            Ok(written)
        }

        /// One unpadded record of the first `n` bytes of `scratch`.
        fn emit_scratch<W: Write>(&self, n: usize, w: &mut W) -> io::Result<u64> {
            let data = self.scratch.get(..n).unwrap_or_default();
            emit(w, self.endian, data, false)
        }

        /// The aligned form: `input` as complete frames, each in a padded record. A frame
        /// starts at all the chunk and halves when its bytes do not fit a record.
        fn aligned_chunk<W: Write>(&mut self, input: &[u8], w: &mut W) -> io::Result<u64> {
            let mut written = 0u64;
            let mut at = 0usize;
            while at < input.len() {
                let take = self.frame_hint.min(input.len().saturating_sub(at));
                let src = input.get(at..at.saturating_add(take)).unwrap_or_default();
                let dst = self.scratch.get_mut(..MAX_PADDED_DATA).unwrap_or_default();
                match self.cctx.compress2(dst, src) {
                    Ok(n) => {
                        let data = self.scratch.get(..n).unwrap_or_default();
                        written = written.saturating_add(emit(w, self.endian, data, true)?);
                        at = at.saturating_add(take);
                        self.note_chunk(take);
                        if n < MAX_PADDED_DATA / 2 {
                            self.frame_hint = self
                                .frame_hint
                                .saturating_mul(2)
                                .min(MAX_DECOMPRESSED_CHUNK);
                        }
                    }
                    // Did not fit: a smaller frame (at MIN_FRAME it always fits).
                    Err(_) if take > MIN_FRAME => self.frame_hint = (take / 2).max(MIN_FRAME),
                    Err(code) => return Err(zstd_err(code)),
                }
            }
            Ok(written)
        }

        fn note_chunk(&mut self, len: usize) {
            self.stats.max_chunk = self.stats.max_chunk.max(len as u64);
        }
    }

    /// Writes one COMPRESSED record around `data`; returns its length.
    fn emit<W: Write>(w: &mut W, endian: Endian, data: &[u8], pad: bool) -> io::Result<u64> {
        let mut out = IoOutput::new(w);
        out.encode(&Compressed { data, pad }, endian)?;
        Ok(out.written())
    }
}

#[cfg(not(feature = "zstd"))]
pub(crate) use off::Compressor;

/// Without the `zstd` feature no compressor exists: the type has no value.
#[cfg(not(feature = "zstd"))]
mod off {
    use super::{Compression, CompressionStats};
    use crate::WriterError;
    use perf_encode::Endian;
    use std::io::{self, Write};

    pub(crate) enum Compressor {}

    impl Compressor {
        pub(crate) fn new(_: Compression, _: Endian) -> Result<Self, WriterError> {
            Err(WriterError::Compression(
                "this build of perf-writer-std has no `zstd` feature",
            ))
        }
        pub(crate) fn stats(&self) -> CompressionStats {
            match *self {}
        }
        pub(crate) fn push<W: Write>(&mut self, _: &[u8], _: &mut W) -> io::Result<u64> {
            match *self {}
        }
        pub(crate) fn take_whole_record(&mut self, _: u32, _: &[u8]) -> bool {
            match *self {}
        }

        pub(crate) fn flush_chunk<W: Write>(&mut self, _: &mut W) -> io::Result<u64> {
            match *self {}
        }
        pub(crate) fn open_frame(&self) -> bool {
            match *self {}
        }
        pub(crate) fn waiting(&self) -> bool {
            match *self {}
        }
        pub(crate) fn set_level(&mut self, _: i32) -> Result<(), WriterError> {
            match *self {}
        }
        pub(crate) fn started(&self) -> bool {
            match *self {}
        }
        pub(crate) fn start(&mut self) {
            match *self {}
        }
    }
}

#[cfg(all(test, feature = "zstd"))]
mod tests {
    use super::*;
    use perf_abi::record_type as rt;
    use perf_encode::Endian;
    use zstd::zstd_safe::{DCtx, InBuffer, OutBuffer};

    /// A SAMPLE of `len` bytes whose body is `body(i)` for each byte `i`.
    fn sample(len: u16, body: impl Fn(usize) -> u8) -> Vec<u8> {
        let mut r: Vec<u8> = (0..usize::from(len)).map(body).collect();
        r[..4].copy_from_slice(&rt::SAMPLE.to_le_bytes());
        r[4..6].copy_from_slice(&[2, 0]);
        r[6..8].copy_from_slice(&len.to_le_bytes());
        r
    }

    /// The COMPRESSED records of `out` (all of it must be COMPRESSED records), decompressed
    /// as one zstd stream, record by record as perf does: each must give bytes (perf 6.1
    /// refuses a record that decompresses to nothing).
    fn decompress(out: &[u8], form: CompressionForm) -> (Vec<u8>, usize) {
        let (mut at, mut records) = (0usize, 0usize);
        let mut dctx = DCtx::create();
        let mut plain = vec![0u8; 64 << 20];
        let mut done = 0usize;
        while at < out.len() {
            let type_ = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
            let size = usize::from(u16::from_le_bytes([out[at + 6], out[at + 7]]));
            assert_eq!(type_, rt::COMPRESSED);
            assert!(size > 8);
            if form == CompressionForm::Aligned {
                assert_eq!(size % 8, 0);
            }
            let zstd = &out[at + 8..at + size];
            let mut src = InBuffer::around(zstd);
            let mut dst = OutBuffer::around_pos(&mut plain[..], done);
            while src.pos() < zstd.len() {
                dctx.decompress_stream(&mut dst, &mut src).unwrap();
            }
            assert!(dst.pos() > done, "record {records} at {at} gives no bytes");
            done = dst.pos();
            at += size;
            records += 1;
        }
        plain.truncate(done);
        (plain, records)
    }

    #[test]
    fn both_forms_give_back_the_records_in_records_of_at_most_64k() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        };
        // Compressible samples, then incompressible ones (random bodies), then a little
        // compressible ones, in pieces.
        let mut input = Vec::new();
        for i in 0..20_000u32 {
            input.extend(sample(64, |b| (b as u32 ^ (i % 7)) as u8));
        }
        for _ in 0..8_000 {
            let body: Vec<u8> = (0..256).map(|_| random()).collect();
            input.extend(sample(256, |b| body[b]));
        }
        // Bytes from 64 values: zstd's blocks compress about 4:3, larger than a record.
        for _ in 0..8_000 {
            let body: Vec<u8> = (0..256).map(|_| random() % 64).collect();
            input.extend(sample(256, |b| body[b]));
        }
        for form in [CompressionForm::PerfStream, CompressionForm::Aligned] {
            let setting = Compression { level: 1, form };
            let mut c = imp::Compressor::new(setting, Endian::Little).unwrap();
            let mut out = Vec::new();
            let mut written = 0;
            for piece in input.chunks(1000) {
                written += c.push(piece, &mut out).unwrap();
            }
            written += c.flush_chunk(&mut out).unwrap();
            assert_eq!(written as usize, out.len());
            let (plain, records) = decompress(&out, form);
            assert!(plain == input, "{form:?}: the records come back");
            let stats = c.stats();
            assert_eq!(stats.bytes_in as usize, input.len());
            assert_eq!(stats.bytes_out as usize, out.len());
            assert!(stats.max_chunk as usize <= MAX_DECOMPRESSED_CHUNK);
            let info = stats.info();
            assert_eq!(u64::from(info.mmap_len), 2 * stats.max_chunk);
            assert!(records > 10, "{form:?}: {records} records");
            assert!(info.ratio >= 1, "{form:?}: {info:?}");
        }
    }

    #[test]
    fn levels_outside_1_to_22_are_refused() {
        for level in [0, -1, 23] {
            let c = Compression::zstd(level);
            assert_eq!(c.check(), Err(WriterError::CompressionLevel(level)));
            assert!(imp::Compressor::new(c, Endian::Little).is_err());
        }
    }
}
