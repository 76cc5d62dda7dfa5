//! [`Compressor`]: zstd compression of the caller's records into COMPRESSED records, in
//! either form (see the `compress` module).

use crate::compress::io_output::IoOutput;
use crate::compress::record_router::{Route, Router};
use crate::compress::{
    Compression, CompressionForm, CompressionStats, MAX_DECOMPRESSED_CHUNK, STREAM_WINDOW,
};
use crate::error::CompressionError;
use crate::WriterError;
use perf_encode::records::{Compressed, MAX_COMPRESSED_DATA, MAX_PADDED_DATA};
use perf_encode::Endian;
use std::io::{self, Write};
use zstd::zstd_safe::{self, zstd_sys::ZSTD_EndDirective, CCtx, CParameter, ResetDirective};
use zstd::zstd_safe::{InBuffer, OutBuffer};

/// Smallest input of one aligned frame: its worst case (zstd's bound, 32,944 bytes)
/// always fits a padded record.
const MIN_FRAME: usize = 32 * 1024;

/// Most input in one block of perf's form once a block was too long for a record (see
/// `stream_piece`): a block of it, even stored, after a frame's end and header, fits one.
const STREAM_BLOCK: u32 = 63 * 1024;

/// Longest zstd block perf's form writes: with the end of the frame before it (3 bytes)
/// and a frame header (at most 18), it ends inside the first record of 65,527 bytes, and
/// any record of that length holds the end of a block.
const LONGEST_BLOCK: usize = MAX_COMPRESSED_DATA - 3 - 18;

/// An empty last zstd block (raw, size 0): the end of a frame with no more bytes.
const END_OF_FRAME: [u8; 3] = [1, 0, 0];

/// Bytes of records after which a FINISHED_ROUND the caller wrote is kept where a piece
/// ends (see the `compress` module's documentation).
const ROUND_SPACING: u64 = MAX_DECOMPRESSED_CHUNK as u64;

/// A FINISHED_ROUND record's length (one with a body is not merged: it goes through).
const ROUND_LEN: usize = 8;

fn zstd_err(code: usize) -> io::Error {
    WriterError::Compression(CompressionError::Zstd(zstd_safe::get_error_name(code))).into()
}

fn set(cctx: &mut CCtx<'static>, p: CParameter) -> Result<(), WriterError> {
    cctx.set_parameter(p)
        .map(drop)
        .map_err(|c| WriterError::Compression(CompressionError::Zstd(zstd_safe::get_error_name(c))))
}

/// A zstd compressor turning the records it is given into COMPRESSED records.
pub(crate) struct Compressor {
    /// Which bytes are compressed.
    router: Router,
    z: Zstd,
    /// The FINISHED_ROUND seen so far (the router may give one in pieces) and how many
    /// of its bytes came.
    round_head: ([u8; ROUND_LEN], usize),
}

/// Why the waiting records are compressed now.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// The next record does not fit: the records after a kept FINISHED_ROUND wait for
    /// the next piece.
    Full,
    /// Everything goes out (a flush, an uncompressed record, a switch, finish).
    All,
}

/// A FINISHED_ROUND the caller wrote among the waiting records, not written yet.
#[derive(Clone, Copy, Debug)]
struct PendingRound {
    /// It came after `input[..at]`.
    at: usize,
    /// Its bytes in `input` from `at` on: [`ROUND_LEN`] in perf's form, which compresses
    /// the rounds it does not write (see [`Zstd::round_unwritten`]), 0 in the aligned
    /// form, which leaves them out.
    len: usize,
    /// Bytes of records taken between the last round written and it.
    since: u64,
    /// Its bytes.
    record: [u8; ROUND_LEN],
}

/// The compressing half of [`Compressor`].
struct Zstd {
    setting: Compression,
    endian: Endian,
    cctx: CCtx<'static>,
    /// Whole records waiting to be compressed, at most [`MAX_DECOMPRESSED_CHUNK`].
    input: Vec<u8>,
    /// The last FINISHED_ROUND among the waiting records.
    round: Option<PendingRound>,
    /// Bytes of records taken since the last FINISHED_ROUND written.
    since_round: u64,
    /// Every FINISHED_ROUND is written where it was (see `keep_rounds`).
    keep_rounds: bool,
    /// The waiting bytes are whole records, so a piece may go out uncompressed (see
    /// [`Compressor::push`]).
    raw_ok: bool,
    /// Where zstd writes one record's worth of bytes (the aligned form).
    scratch: Vec<u8>,
    /// Where zstd writes a piece in perf's form.
    packed: Vec<u8>,
    /// perf's form: the stream's blocks hold at most [`STREAM_BLOCK`] bytes (see
    /// `stream_piece`).
    short_blocks: bool,
    /// Input of the next aligned frame (adapts to the ratio).
    frame_hint: usize,
    /// The perf-form stream has bytes since its frame began (it must end before another
    /// stream starts).
    in_frame: bool,
    /// Bytes of records in the perf-form stream's current frame.
    frame_in: usize,
    /// A new perf-form frame was started and has no bytes yet: the next piece ends the
    /// open one first.
    fresh_frame: bool,
    stats: CompressionStats,
}

impl Compressor {
    pub(crate) fn new(setting: Compression, endian: Endian) -> Result<Self, WriterError> {
        setting.check()?;
        let mut cctx = CCtx::try_create().ok_or(WriterError::Compression(
            CompressionError::Zstd("out of memory"),
        ))?;
        set(&mut cctx, CParameter::CompressionLevel(setting.level))?;
        if setting.form == CompressionForm::PerfStream {
            // Parameters for a stream of about STREAM_WINDOW bytes: zstd's window and
            // tables no larger than that needs; the window that size at every level (a
            // frame holds that much, see `stream_piece`).
            set(&mut cctx, CParameter::SrcSizeHint(STREAM_WINDOW))?;
            set(
                &mut cctx,
                CParameter::WindowLog(STREAM_WINDOW.trailing_zeros()),
            )?;
        }
        let z = Zstd {
            setting,
            endian,
            cctx,
            input: Vec::with_capacity(MAX_DECOMPRESSED_CHUNK),
            round: None,
            since_round: 0,
            keep_rounds: false,
            raw_ok: true,
            scratch: vec![0u8; MAX_COMPRESSED_DATA],
            packed: Vec::new(),
            short_blocks: false,
            frame_hint: MAX_DECOMPRESSED_CHUNK,
            in_frame: false,
            frame_in: 0,
            fresh_frame: false,
            stats: CompressionStats {
                level: setting.level.unsigned_abs(),
                ..CompressionStats::default()
            },
        };
        Ok(Compressor {
            router: Router::new(endian),
            z,
            round_head: ([0; ROUND_LEN], 0),
        })
    }

    pub(crate) fn stats(&self) -> CompressionStats {
        self.z.stats
    }

    /// Takes the caller's records: compressed ones wait, FINISHED_ROUND records among
    /// them follow the round rule, the others go to `w` after what waits. Returns the
    /// bytes written to `w`. The writer gives whole records; bytes that continue a record
    /// begun in an earlier call are taken too, but from then on no piece is left
    /// uncompressed (the waiting bytes may no longer be whole records).
    pub(crate) fn push(&mut self, data: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        if !self.router.at_boundary() {
            self.z.raw_ok = false;
        }
        let mut written = 0u64;
        let z = &mut self.z;
        let (head, have) = &mut self.round_head;
        self.router.split(data, |route, run| {
            let n = match route {
                Route::Compress => z.take(run, w)?,
                Route::Round => {
                    // The router gives a FINISHED_ROUND of ROUND_LEN bytes.
                    for &b in run {
                        if let Some(slot) = head.get_mut(*have) {
                            *slot = b;
                            *have = have.saturating_add(1);
                        }
                    }
                    if *have < ROUND_LEN {
                        return Ok(());
                    }
                    *have = 0;
                    z.round(head, w)?
                }
                Route::Raw => {
                    let n = z.compress(Cut::All, w)?;
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
    pub(crate) fn flush_chunk(&mut self, w: &mut Vec<u8>) -> io::Result<u64> {
        self.z.compress(Cut::All, w)
    }

    /// [`push`](Self::push) of one whole record of `type_` that is compressed and fits
    /// the chunk without filling it (so nothing is written): true when taken; false
    /// changes nothing.
    #[inline]
    pub(crate) fn take_whole_record(&mut self, type_: u32, record: &[u8]) -> bool {
        let fits = self.z.input.len().saturating_add(record.len()) < MAX_DECOMPRESSED_CHUNK;
        let size = u16::try_from(record.len()).unwrap_or(u16::MAX);
        if !fits || !self.router.compresses_whole(type_, size) {
            return false;
        }
        self.z.input.extend_from_slice(record);
        self.z.since_round = self.z.since_round.saturating_add(record.len() as u64);
        true
    }

    /// [`push`](Self::push) of `record`, of `type_`, when it is one whole FINISHED_ROUND
    /// the round rule remembers or leaves out (so nothing is written): true when taken;
    /// false changes nothing.
    #[inline]
    pub(crate) fn take_round(&mut self, type_: u32, record: &[u8]) -> bool {
        let size = record.get(6..8).and_then(|s| s.first_chunk::<2>());
        let round = type_ == perf_abi::record_type::FINISHED_ROUND
            && record.len() == ROUND_LEN
            && size.is_some_and(|s| usize::from(self.z.endian.read_u16(*s)) == ROUND_LEN)
            && self.router.started
            && self.round_head.1 == 0
            && self.router.at_boundary();
        round && self.z.round_unwritten(record)
    }

    /// Writes every FINISHED_ROUND where it was (`true`; for events that mix timed and
    /// untimed records, see the `compress` module's documentation) or only where the round rule
    /// keeps one.
    pub(crate) fn keep_rounds(&mut self, keep: bool) {
        self.z.keep_rounds = keep;
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
        set(&mut self.z.cctx, CParameter::CompressionLevel(level))?;
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
    /// Adds `run` (whole records) to the waiting ones, compressing those first when a
    /// record does not fit.
    fn take(&mut self, mut run: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        let mut written = 0u64;
        while !run.is_empty() {
            let room = MAX_DECOMPRESSED_CHUNK.saturating_sub(self.input.len());
            let mut n = match run.len() <= room {
                true => run.len(),
                false => whole_records_within(run, room, self.endian),
            };
            if n == 0 && self.input.is_empty() {
                // No record is longer than the buffer (sizes are u16): not reached.
                n = room.min(run.len());
            }
            let (now, rest) = run.split_at(n);
            self.input.extend_from_slice(now);
            self.since_round = self.since_round.saturating_add(n as u64);
            run = rest;
            if !run.is_empty() {
                written = written.saturating_add(self.compress(Cut::Full, w)?);
            }
        }
        Ok(written)
    }

    /// A FINISHED_ROUND (`record`) after the waiting records: remembered, to be
    /// written where they are compressed if the round rule keeps it, or written now.
    fn round(&mut self, record: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        let mut written = 0u64;
        if self.inline_rounds()
            && self.input.len().saturating_add(ROUND_LEN) > MAX_DECOMPRESSED_CHUNK
        {
            // No room for it among the waiting records.
            written = self.compress(Cut::Full, w)?;
        }
        if self.round_unwritten(record) {
            return Ok(written);
        }
        // Every round is kept, or the last piece ended right here and enough records
        // went by since the last round written.
        written = written.saturating_add(self.compress(Cut::All, w)?);
        Ok(written.saturating_add(self.write_round(record, w)?))
    }

    /// perf's form compresses the FINISHED_ROUND records it does not write as they are,
    /// in their place: perf 6.1 reads a record inside a COMPRESSED record as one outside
    /// (so it sees every round where the caller wrote it), and zstd gets the bytes the
    /// caller wrote (its fast match finders compress perf's traces up to 14% better with
    /// perf's rounds in them). linux-perf-data 0.13 takes only a round outside COMPRESSED
    /// records as one; it returns those inside as user records.
    #[inline]
    fn inline_rounds(&self) -> bool {
        self.setting.form == CompressionForm::PerfStream
    }

    /// [`round`](Self::round) of `record` when it writes nothing: the round is
    /// remembered (records wait; in perf's form its bytes wait with them), or, when none
    /// wait and too few records went by since the last one written, left out (in perf's
    /// form: the first to wait). False when it must be written now, changing nothing.
    #[inline]
    fn round_unwritten(&mut self, record: &[u8]) -> bool {
        if self.keep_rounds {
            return false;
        }
        let inline = self.inline_rounds();
        if self.input.is_empty() && (!inline || self.since_round >= ROUND_SPACING) {
            return self.since_round < ROUND_SPACING;
        }
        let len = match inline {
            true => ROUND_LEN,
            false => 0,
        };
        let Some(&bytes) = record.first_chunk::<ROUND_LEN>() else {
            return false; // the callers give ROUND_LEN bytes
        };
        if self.input.len().saturating_add(len) > MAX_DECOMPRESSED_CHUNK {
            return false;
        }
        self.round = Some(PendingRound {
            at: self.input.len(),
            len,
            since: self.since_round,
            record: bytes,
        });
        if inline {
            self.input.extend_from_slice(record);
        }
        true
    }

    /// Writes a FINISHED_ROUND record (`record`) on `w`.
    fn write_round(&mut self, record: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        self.since_round = 0;
        w.write_all(record)?;
        Ok(record.len() as u64)
    }

    /// Compresses the waiting records into COMPRESSED records on `w`: all of them, or,
    /// for [`Cut::Full`] with a FINISHED_ROUND kept, those before it (the rest wait).
    /// The pending FINISHED_ROUND is written where it was when the round rule keeps it:
    /// enough records since the last one written, or, when the buffer is full, at least
    /// half the buffer before it. Returns the bytes written.
    fn compress(&mut self, cut: Cut, w: &mut Vec<u8>) -> io::Result<u64> {
        let len = self.input.len();
        let kept = self.round.take().filter(|r| {
            r.since >= ROUND_SPACING || (cut == Cut::Full && r.at.saturating_mul(2) >= len)
        });
        let input = std::mem::take(&mut self.input);
        let result = self.pieces(&input, kept, cut, w);
        self.input = input;
        let (written, consumed) = result?;
        self.input.drain(..consumed.min(len));
        Ok(written)
    }

    /// [`compress`](Self::compress) of `input`: the bytes written and how many of
    /// `input` they hold.
    fn pieces(
        &mut self,
        input: &[u8],
        kept: Option<PendingRound>,
        cut: Cut,
        w: &mut Vec<u8>,
    ) -> io::Result<(u64, usize)> {
        let Some(round) = kept else {
            return Ok((self.piece(input, w)?, input.len()));
        };
        let (before, rest) = input.split_at(round.at.min(input.len()));
        let after = rest.get(round.len..).unwrap_or_default();
        let mut written = self.piece(before, w)?;
        written = written.saturating_add(self.write_round(&round.record, w)?);
        self.since_round = after.len() as u64;
        if cut == Cut::Full {
            return Ok((written, input.len().saturating_sub(after.len())));
        }
        written = written.saturating_add(self.piece(after, w)?);
        Ok((written, input.len()))
    }

    /// `input` (whole records, at most [`MAX_DECOMPRESSED_CHUNK`]) as COMPRESSED records
    /// on `w`; returns their bytes.
    fn piece(&mut self, input: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        if input.is_empty() {
            return Ok(0);
        }
        let written = match self.setting.form {
            CompressionForm::PerfStream => self.stream_piece(input, w)?,
            CompressionForm::Aligned => self.aligned_piece(input, w)?,
        };
        Ok(written)
    }

    /// perf's form: `input` into the one stream, flushed at its end, in records of at
    /// most 65,535 bytes.
    ///
    /// perf 6.1 refuses a COMPRESSED record that decompresses to nothing, which a record
    /// cut inside one zstd block does (zstd decodes a compressed block only whole). So no
    /// block may be longer than [`LONGEST_BLOCK`]: then every full record holds a block's
    /// end, and the last one ends on the flush; every record holds bytes of this piece
    /// only, so it decompresses to at most the piece. zstd's blocks (128 KiB of input)
    /// compress that short unless the records hardly compress. When one does not, the
    /// piece is compressed again, in a new frame of blocks of at most [`STREAM_BLOCK`]
    /// bytes of input (short enough whatever the bytes, but 5% slower on the bench), and
    /// the stream keeps them; the old frame ends with an empty last block at the start of
    /// the new one's first record, which thus decompresses to bytes too.
    ///
    /// A frame holds at most [`STREAM_WINDOW`] bytes of records: a piece that would take
    /// it past that starts a new one, the old ending the same way. zstd's streaming keeps
    /// its input in a ring of a window and a block; once the ring wraps around, it
    /// matches with its slower "extDict" match finders, on most blocks. A frame that fits
    /// the window never wraps, so zstd matches the fast way throughout: at level 1 it
    /// takes 10–14% fewer instructions than zstd's own endless stream (flushed or not),
    /// for history lost once per MiB.
    fn stream_piece(&mut self, input: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        if self.in_frame
            && !self.fresh_frame
            && self.frame_in.saturating_add(input.len()) > STREAM_WINDOW as usize
        {
            self.new_frame()?;
        }
        let mut packed = std::mem::take(&mut self.packed);
        let mut result = self.stream_frame(input, &mut packed);
        let blocks = packed.get(self.frame_end_len()..).unwrap_or_default();
        if result.is_ok() && !self.short_blocks && !blocks_fit(blocks, self.frame_start()) {
            // Abandons the frame, its output not written: the next one starts here.
            self.new_frame()?;
            set(&mut self.cctx, CParameter::MaxBlockSize(STREAM_BLOCK))?;
            self.short_blocks = true;
            result = self.stream_frame(input, &mut packed);
        }
        if result.is_ok() && self.raw_ok && stream_records_len(packed.len()) >= input.len() {
            // The records would be no shorter than the piece: it goes as it is. zstd forgets
            // it (a new session), so no later block refers to bytes a reader never got, and
            // the next piece ends the open frame first.
            self.new_frame()?;
            self.packed = packed;
            w.extend_from_slice(input);
            return Ok(input.len() as u64);
        }
        let written = result.and_then(|()| {
            let mut written = 0u64;
            for data in packed.chunks(MAX_COMPRESSED_DATA) {
                let mut out = IoOutput::new(w);
                out.encode(&Compressed { data, pad: false }, self.endian)?;
                written = written.saturating_add(out.written());
            }
            Ok(written)
        });
        self.packed = packed;
        let written = written?;
        self.frame_in = match self.fresh_frame || !self.in_frame {
            true => input.len(),
            false => self.frame_in.saturating_add(input.len()),
        };
        self.in_frame = true;
        self.fresh_frame = false;
        self.note_piece(input.len(), written);
        Ok(written)
    }

    /// Starts a new frame of perf's form: the next piece ends the open one first.
    fn new_frame(&mut self) -> io::Result<()> {
        self.cctx
            .reset(ResetDirective::SessionOnly)
            .map_err(zstd_err)?;
        self.fresh_frame = true;
        Ok(())
    }

    /// The next bytes of the stream begin a frame (the first, or one after
    /// [`new_frame`](Self::new_frame)).
    fn frame_start(&self) -> bool {
        !self.in_frame || self.fresh_frame
    }

    /// The bytes that end the open frame before the next piece's: [`END_OF_FRAME`] when
    /// a new frame starts there after one, else none.
    fn frame_end_len(&self) -> usize {
        match self.in_frame && self.fresh_frame {
            true => END_OF_FRAME.len(),
            false => 0,
        }
    }

    /// `packed` becomes `input` compressed into the stream: after the end of the open
    /// frame when a new one starts here.
    fn stream_frame(&mut self, input: &[u8], packed: &mut Vec<u8>) -> io::Result<()> {
        packed.clear();
        packed.extend_from_slice(END_OF_FRAME.get(..self.frame_end_len()).unwrap_or_default());
        self.stream_into(input, packed)
    }

    /// Compresses `input` into the stream, flushed at its end, appending to `packed`.
    fn stream_into(&mut self, input: &[u8], packed: &mut Vec<u8>) -> io::Result<()> {
        packed.reserve(zstd_safe::compress_bound(input.len()).saturating_add(64));
        let mut src = InBuffer::around(input);
        loop {
            if packed.len() == packed.capacity() {
                packed.reserve(MAX_COMPRESSED_DATA);
            }
            let at = packed.len();
            let mut out = OutBuffer::around_pos(packed, at);
            let left = self
                .cctx
                .compress_stream2(&mut out, &mut src, ZSTD_EndDirective::ZSTD_e_flush)
                .map_err(zstd_err)?;
            if left == 0 && src.pos() == input.len() {
                return Ok(());
            }
        }
    }

    /// One record of the first `n` bytes of `scratch` (padded or not) on `w`.
    fn emit_scratch(&self, n: usize, pad: bool, w: &mut Vec<u8>) -> io::Result<u64> {
        let data = self.scratch.get(..n).unwrap_or_default();
        let mut out = IoOutput::new(w);
        out.encode(&Compressed { data, pad }, self.endian)?;
        Ok(out.written())
    }

    /// The aligned form: `input` as complete frames, each in a padded record. A frame
    /// starts at all the piece and halves when its bytes do not fit a record. When the
    /// records would not be shorter than `input`, `input` is written as it is instead.
    fn aligned_piece(&mut self, input: &[u8], w: &mut Vec<u8>) -> io::Result<u64> {
        let start = w.len();
        let mut written = 0u64;
        let mut at = 0usize;
        while at < input.len() {
            let take = self.frame_hint.min(input.len().saturating_sub(at));
            let src = input.get(at..at.saturating_add(take)).unwrap_or_default();
            let dst = self.scratch.get_mut(..MAX_PADDED_DATA).unwrap_or_default();
            match self.cctx.compress2(dst, src) {
                Ok(n) => {
                    written = written.saturating_add(self.emit_scratch(n, true, w)?);
                    at = at.saturating_add(take);
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
            if written >= input.len() as u64 && self.raw_ok {
                // Larger than the records: they go as they are.
                w.truncate(start);
                w.extend_from_slice(input);
                return Ok(input.len() as u64);
            }
        }
        self.note_piece(input.len(), written);
        Ok(written)
    }

    /// A piece of `len` bytes of records went out as `written` bytes of COMPRESSED
    /// records.
    fn note_piece(&mut self, len: usize, written: u64) {
        let s = &mut self.stats;
        s.bytes_in = s.bytes_in.saturating_add(len as u64);
        s.bytes_out = s.bytes_out.saturating_add(written);
        s.max_chunk = s.max_chunk.max(len as u64);
    }
}

/// Bytes of the unpadded COMPRESSED records that carry `data` zstd bytes in perf's form.
fn stream_records_len(data: usize) -> usize {
    let header = core::mem::size_of::<perf_encode::abi::PerfEventHeader>();
    data.saturating_add(data.div_ceil(MAX_COMPRESSED_DATA).saturating_mul(header))
}

/// Whether every zstd block in `bytes` (blocks ending on a flush, after a frame header
/// when `frame_start`) is at most [`LONGEST_BLOCK`] bytes long; false for bytes that are
/// not such blocks.
fn blocks_fit(bytes: &[u8], frame_start: bool) -> bool {
    let mut at = match frame_start {
        true => match frame_header_len(bytes) {
            Some(n) => n,
            None => return false,
        },
        false => 0,
    };
    while at < bytes.len() {
        let Some(h) = bytes.get(at..).and_then(|b| b.first_chunk::<3>()) else {
            return false;
        };
        let header = u32::from_le_bytes([h[0], h[1], h[2], 0]);
        let size = (header >> 3) as usize;
        // Block type 1 (RLE) holds one byte; raw and compressed blocks `size` bytes.
        let len = 3 + if (header >> 1) & 3 == 1 { 1 } else { size };
        if len > LONGEST_BLOCK {
            return false;
        }
        at = at.saturating_add(len);
    }
    true
}

/// The length of the zstd frame header at the start of `bytes` (magic, descriptor,
/// window, dictionary id, content size), `None` when it is not one.
fn frame_header_len(bytes: &[u8]) -> Option<usize> {
    let (magic, descriptor) = (bytes.get(..4)?, *bytes.get(4)?);
    if magic != [0x28, 0xb5, 0x2f, 0xfd] {
        return None;
    }
    let single_segment = descriptor & 0x20 != 0;
    let window = usize::from(!single_segment);
    let dictionary = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let content_size = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    Some(5 + window + dictionary + content_size)
}

/// The length of the longest run of whole records at the start of `records` (whole
/// records in `endian`) that is at most `room` bytes.
fn whole_records_within(records: &[u8], room: usize, endian: Endian) -> usize {
    let mut at = 0usize;
    while let Some(head) = records.get(at..).and_then(|r| r.first_chunk::<8>()) {
        let size = usize::from(endian.read_u16([head[6], head[7]]));
        let end = at.saturating_add(size);
        if size == 0 || end > room {
            break;
        }
        at = end;
    }
    at
}

#[cfg(all(test, feature = "zstd"))]
mod tests {
    use super::*;
    use perf_abi::record_type as rt;
    use perf_encode::Endian;
    use zstd::zstd_safe::{DCtx, InBuffer, OutBuffer};

    /// The next state of a xorshift64 generator: reproducible test values without a
    /// dependency.
    fn xorshift(mut x: u64) -> u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }

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
            seed = xorshift(seed);
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
            let mut c = Compressor::new(setting, Endian::Little).unwrap();
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
            if form == CompressionForm::PerfStream {
                // A frame per STREAM_WINDOW of records at most, and one more when the random
                // samples' blocks were too long for a record: each new frame in a new piece,
                // the old one ended in the new one's first record.
                let frames = split_records(&out)
                    .iter()
                    .filter(|r| r[8..].starts_with(&[0x28, 0xb5, 0x2f, 0xfd]))
                    .count();
                let restarts = split_records(&out)
                    .iter()
                    .filter(|r| r[8..].starts_with(&[1, 0, 0, 0x28, 0xb5, 0x2f, 0xfd]))
                    .count();
                let least = input.len() / STREAM_WINDOW as usize;
                assert_eq!(frames, 1);
                assert!(
                    (least..=2 * least + 1).contains(&restarts),
                    "{restarts} new frames"
                );
            }
        }
    }

    /// The records `out` holds in order, COMPRESSED ones decompressed (one zstd stream
    /// across them, as perf reads it), each COMPRESSED record giving bytes.
    fn unpacked(out: &[u8]) -> Vec<u8> {
        unpacked_with_rounds(out).0
    }

    /// [`unpacked`], and the offsets in it of the FINISHED_ROUND records outside COMPRESSED
    /// records (the rounds linux-perf-data takes as rounds).
    fn unpacked_with_rounds(out: &[u8]) -> (Vec<u8>, Vec<usize>) {
        let mut outside = Vec::new();
        let mut dctx = DCtx::create();
        let mut plain = Vec::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0usize;
        while at < out.len() {
            let type_ = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
            let size = usize::from(u16::from_le_bytes([out[at + 6], out[at + 7]]));
            let record = &out[at..at + size];
            if type_ == rt::COMPRESSED {
                let mut src = InBuffer::around(&record[8..]);
                let before = plain.len();
                while src.pos() < record.len() - 8 {
                    let mut dst = OutBuffer::around(&mut buf[..]);
                    dctx.decompress_stream(&mut dst, &mut src).unwrap();
                    plain.extend_from_slice(dst.as_slice());
                }
                assert!(plain.len() > before, "COMPRESSED at {at} gives no bytes");
            } else {
                if type_ == rt::FINISHED_ROUND {
                    outside.push(plain.len());
                }
                plain.extend_from_slice(record);
            }
            at += size;
        }
        (plain, outside)
    }

    /// The records of `bytes` (whole records, little-endian).
    fn split_records(mut bytes: &[u8]) -> Vec<&[u8]> {
        let mut out = Vec::new();
        while bytes.len() >= 8 {
            let size = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
            let (r, rest) = bytes.split_at(size);
            out.push(r);
            bytes = rest;
        }
        out
    }

    fn round() -> Vec<u8> {
        let mut r = vec![0u8; 8];
        r[..4].copy_from_slice(&rt::FINISHED_ROUND.to_le_bytes());
        r[6..8].copy_from_slice(&8u16.to_le_bytes());
        r
    }

    /// Checks that `got` is `given` with some FINISHED_ROUND records left out (the aligned
    /// form), each kept one where it was; returns the offsets in `given`'s record bytes of
    /// the rounds kept.
    fn rounds_kept(given: &[u8], got: &[u8]) -> Vec<usize> {
        let (given, got) = (split_records(given), split_records(got));
        let (mut i, mut kept, mut offset) = (0usize, Vec::new(), 0usize);
        for r in &given {
            if got.get(i) == Some(r) {
                if r[..4] == rt::FINISHED_ROUND.to_le_bytes() {
                    kept.push(offset);
                }
                i += 1;
            } else {
                assert_eq!(
                    r[..4],
                    rt::FINISHED_ROUND.to_le_bytes(),
                    "record {i} differs"
                );
            }
            offset += r.len();
        }
        assert_eq!(i, got.len(), "records after the last one given");
        kept
    }

    /// 64-byte samples, compressible (times and ips vary), `n` of them.
    fn samples(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                sample(64, |b| match b {
                    8..=15 => (i * 7 + b) as u8,
                    16..=19 => (i >> (8 * (b - 16))) as u8,
                    _ => (b % 5) as u8,
                })
            })
            .collect()
    }

    #[test]
    fn rounds_are_kept_only_where_pieces_end_and_enough_records_went_by() {
        let records = samples(40_000); // 2.5 MB
                                       // (round every k records, flush every j records)
        for (every, flush) in [
            (1, None),
            (20, None),
            (20, Some(1000)),
            (3000, None),
            (7, Some(1)),
        ] {
            for form in [CompressionForm::PerfStream, CompressionForm::Aligned] {
                let what = format!("{form:?}, round every {every}, flush every {flush:?}");
                let mut c =
                    Compressor::new(Compression { level: 1, form }, Endian::Little).unwrap();
                c.start();
                let (mut given, mut out) = (Vec::new(), Vec::new());
                for (i, r) in records.iter().enumerate() {
                    c.push(r, &mut out).unwrap();
                    given.extend_from_slice(r);
                    if (i + 1) % every == 0 {
                        c.push(&round(), &mut out).unwrap();
                        given.extend_from_slice(&round());
                    }
                    if flush.is_some_and(|j| (i + 1) % j == 0) {
                        c.flush_chunk(&mut out).unwrap();
                    }
                }
                c.flush_chunk(&mut out).unwrap();
                let (plain, outside) = unpacked_with_rounds(&out);
                let kept = match form {
                    // Every round, those not kept compressed in their place.
                    CompressionForm::PerfStream => {
                        assert!(plain == given, "{what}");
                        outside
                    }
                    CompressionForm::Aligned => rounds_kept(&given, &plain),
                };
                // Rounds kept (outside COMPRESSED records) at least every 2 x 256 KiB of records, at most one per 128 KiB
                // (a full buffer keeps the last round in its second half).
                let total = given.len();
                let rounds = total / (64 * every + 8);
                let most = rounds.min(total / (MAX_DECOMPRESSED_CHUNK / 2) + 1);
                assert!(kept.len() <= most, "{what}: {} kept", kept.len());
                let gaps = kept.windows(2).map(|w| w[1] - w[0]);
                let widest = gaps.chain(kept.first().copied()).max().unwrap_or(total);
                if rounds > 0 && every * 64 < MAX_DECOMPRESSED_CHUNK {
                    assert!(!kept.is_empty(), "{what}");
                    assert!(
                        widest <= 2 * MAX_DECOMPRESSED_CHUNK + 64 * every,
                        "{what}: {widest}"
                    );
                }
                // A flush after every record: each piece one record (the stream still
                // shrinks them; frames of one record would not, so they stay records).
                let most = match flush {
                    Some(1) => given.len(),
                    _ => given.len() / 3,
                };
                assert!(out.len() <= most, "{what}: {} bytes", out.len());
            }
        }
    }

    #[test]
    fn every_round_stays_when_asked() {
        let records = samples(5_000);
        for form in [CompressionForm::PerfStream, CompressionForm::Aligned] {
            let mut c = Compressor::new(Compression { level: 3, form }, Endian::Little).unwrap();
            c.keep_rounds(true);
            let (mut given, mut out) = (Vec::new(), Vec::new());
            for (i, r) in records.iter().enumerate() {
                c.push(r, &mut out).unwrap();
                given.extend_from_slice(r);
                if i % 50 == 49 {
                    c.push(&round(), &mut out).unwrap();
                    given.extend_from_slice(&round());
                }
            }
            c.flush_chunk(&mut out).unwrap();
            let (plain, outside) = unpacked_with_rounds(&out);
            assert!(plain == given, "{form:?}");
            assert_eq!(outside.len(), 100, "{form:?}");
        }
    }

    #[test]
    fn a_piece_that_would_not_shrink_goes_out_uncompressed_in_either_form() {
        // One record per piece (a flush after each): a frame of a 64-byte record with a
        // random body, plus its headers, is longer than the record.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let records: Vec<Vec<u8>> = (0..500)
            .map(|_| {
                let body: Vec<u8> = (0..64)
                    .map(|_| {
                        seed = xorshift(seed);
                        seed as u8
                    })
                    .collect();
                sample(64, |b| body[b])
            })
            .collect();
        for form in [CompressionForm::Aligned, CompressionForm::PerfStream] {
            let mut c = Compressor::new(Compression { level: 1, form }, Endian::Little).unwrap();
            let (mut given, mut out) = (Vec::new(), Vec::new());
            for r in &records {
                c.push(r, &mut out).unwrap();
                c.flush_chunk(&mut out).unwrap();
                given.extend_from_slice(r);
            }
            assert!(out == given, "{form:?}: {} bytes", out.len());
            let stats = c.stats();
            assert_eq!((stats.bytes_in, stats.bytes_out), (0, 0), "{form:?}");
        }
    }

    #[test]
    fn perfs_form_goes_on_after_a_piece_left_uncompressed() {
        // Compressible pieces, then one that would grow, then compressible ones again: the
        // stream decodes to every record in order, the frame open before the raw piece
        // ended at the next compressed one.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let body: Vec<u8> = (0..64)
            .map(|_| {
                seed = xorshift(seed);
                seed as u8
            })
            .collect();
        let noise = sample(64, |b| body[b]);
        let mut c = Compressor::new(Compression::zstd(1), Endian::Little).unwrap();
        let (mut given, mut out) = (Vec::new(), Vec::new());
        let mut raw_pieces = 0;
        for piece in 0..6 {
            let before = out.len();
            let records: Vec<Vec<u8>> = match piece % 3 {
                1 => vec![noise.clone()],
                _ => samples(200),
            };
            for r in &records {
                c.push(r, &mut out).unwrap();
                given.extend_from_slice(r);
            }
            c.flush_chunk(&mut out).unwrap();
            if out[before..] == noise[..] {
                raw_pieces += 1;
            }
        }
        assert_eq!(raw_pieces, 2);
        assert!(unpacked(&out) == given);
        assert!(out.len() < given.len() / 2, "{} bytes", out.len());
    }

    #[test]
    fn levels_outside_1_to_22_are_refused() {
        for level in [0, -1, 23] {
            let c = Compression::zstd(level);
            assert_eq!(
                c.check(),
                Err(WriterError::Compression(CompressionError::Level(level)))
            );
            assert!(Compressor::new(c, Endian::Little).is_err());
        }
    }
}
