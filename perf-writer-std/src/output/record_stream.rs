//! The buffered byte stream under both output modes: checks framing, counts bytes and
//! records, keeps the start of an unfinished record out of the output until it is whole, and
//! after a failed write keeps what the output did not take, for the next call.

use crate::compress::{Compression, CompressionStats, Compressors};
use crate::error::RecordError;
use crate::output::buffer::{Mark, OutputBuffer, SMALL_WRITE};
use crate::{PartialRecord, WriterError};
use perf_encode::records::{is_plain_record, FramingError, RecordFramer, RecordWalker, Step};
use perf_encode::{Encode, Endian};
use std::io::{self, IoSlice, Write};
use std::ops::Deref;

/// Capacity of the buffer the writer puts in front of every output.
pub const FILE_BUFFER_SIZE: usize = 256 * 1024;

/// The longest record (header, body and any payload after it) that pipe mode takes in
/// pieces across calls: its start waits in the buffer until its last byte arrives, so that a
/// reader never sees half a record. A longer record is taken in one call.
pub const MAX_SPLIT_RECORD_LEN: u64 = FILE_BUFFER_SIZE as u64;

/// A buffered stream of records.
pub(crate) struct RecordStream<W: Write> {
    pub(crate) w: OutputBuffer<W>,
    endian: Endian,
    /// Where the stream is in the record structure. Records
    /// [`write_small_record`](Self::write_small_record) takes skip it (they start and end on
    /// a boundary, so they leave it as it was; its record count leaves them out, the
    /// buffer's counts them).
    framer: RecordFramer,
    /// The longest unfinished record held back; `None`: any, the part of it past the
    /// buffer's capacity written out (file mode, which can seek back over it).
    max_split: Option<u64>,
    /// The unfinished record's bytes went to the output (see `max_split`).
    spilled: bool,
    /// The owner moved the stream away from where the buffer's bytes go, or must before
    /// records go on (see [`hold`](Self::hold)).
    held: bool,
    /// In the machine's byte order, not held, and between records: a whole plain record may
    /// go straight into the buffer. Kept equal to that by
    /// [`refresh_direct_to_buffer`](Self::refresh_direct_to_buffer) after every change to those.
    direct_to_buffer: bool,
    /// Compresses the caller's records when compression is on (see the `compress` module).
    compress: Compressors,
    /// While compressing: the start of an unfinished caller record. The compressor gets
    /// only whole records, so that [`abandon_partial`](Self::abandon_partial) can drop it.
    partial: Vec<u8>,
    /// Records the compressor wrote (COMPRESSED ones, and those it passes through) that the
    /// output did not take yet: sent before anything else.
    compressor_output: Vec<u8>,
    /// Bytes of caller records the last [`reserve`](Self::reserve) promised to take without
    /// an error of the output, not taken yet (one call checked in strict mode is written in
    /// several pieces after one `reserve`).
    reserved_left: usize,
    /// The first bytes (up to 4: its type) of the record begun and not finished, and how
    /// many of them there are.
    partial_head: ([u8; 4], usize),
    /// Records sent just before the first COMPRESSED record the compressor writes (see
    /// [`set_compressed_prelude`](Self::set_compressed_prelude)).
    compressed_prelude: Vec<u8>,
}

impl<W: Write> RecordStream<W> {
    /// A stream over `w`, whose position is `pos`; `max_split` as the field says.
    pub(crate) fn new(w: W, endian: Endian, pos: u64, max_split: Option<u64>) -> Self {
        RecordStream {
            w: OutputBuffer::with_capacity(FILE_BUFFER_SIZE, w, pos),
            endian,
            framer: RecordFramer::new(endian),
            max_split,
            spilled: false,
            held: false,
            direct_to_buffer: endian.is_native(),
            compress: Compressors::default(),
            partial: Vec::new(),
            compressor_output: Vec::new(),
            reserved_left: 0,
            partial_head: ([0; 4], 0),
            compressed_prelude: Vec::new(),
        }
    }

    fn refresh_direct_to_buffer(&mut self) {
        self.direct_to_buffer = self.endian.is_native()
            && !self.held
            && self.framer.at_boundary()
            && self.compress.active.is_none()
            && self.compressor_output.is_empty();
    }

    /// Starts, changes or stops compression between records (see [`Compressors::switch`]):
    /// what the compressor before holds is written first. A refused setting changes nothing.
    /// Once switched, records the output does not take wait for the next call, which
    /// returns the error.
    pub(crate) fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()> {
        if !self.at_boundary() {
            return Err(WriterError::Record(RecordError::Incomplete).into());
        }
        self.send_compressor_output()?;
        self.reserved_left = 0;
        let switched = self
            .compress
            .switch(setting, self.endian, &mut self.compressor_output);
        // Taken either way; an error of the output comes back at the next call.
        let _later: io::Result<()> = self.send_compressor_output();
        self.refresh_direct_to_buffer();
        switched.map(drop)
    }

    /// Holds `records` (whole records; empty: none) back until the compressor writes its
    /// first COMPRESSED record, and sends them just before it: pipe mode's HEADER_COMPRESSED,
    /// which a stream in which nothing ends up compressed does without.
    pub(crate) fn set_compressed_prelude(&mut self, records: Vec<u8>) {
        self.compressed_prelude = records;
    }

    /// A compressor of this stream wrote COMPRESSED records.
    pub(crate) fn compressed_out(&self) -> bool {
        self.compress.stats().is_some_and(|s| s.bytes_out > 0)
    }

    /// Compresses what waits and returns what every compressor of this stream wrote (`None`
    /// when compression was never on).
    pub(crate) fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>> {
        self.flush_compressed()?;
        Ok(self.compress.stats())
    }

    /// Keeps every FINISHED_ROUND among compressed records where it was (the events mix
    /// timed and untimed records), or lets the compressor leave some out (see
    /// the `compress` module).
    pub(crate) fn keep_rounds(&mut self, keep: bool) {
        self.compress.keep_rounds(keep);
    }

    /// Compressed records, or records to compress, wait (a flush would write).
    pub(crate) fn compression_waiting(&self) -> bool {
        !self.compressor_output.is_empty()
            || self.compress.active.as_ref().is_some_and(|c| c.waiting())
    }

    /// Sends the records the compressor holds (before bytes that bypass it).
    fn flush_compressed(&mut self) -> io::Result<()> {
        self.send_compressor_output()?;
        if let Some(c) = self.compress.active.as_mut() {
            c.flush_chunk(&mut self.compressor_output)?;
            self.send_compressor_output()?;
        }
        Ok(())
    }

    /// Puts the compressor's records in the buffer: all of them, or (on error) none.
    fn send_compressor_output(&mut self) -> io::Result<()> {
        if self.compressor_output.is_empty() {
            return Ok(());
        }
        let prelude = match !self.compressed_prelude.is_empty() && self.compressed_out() {
            true => std::mem::take(&mut self.compressed_prelude),
            false => Vec::new(),
        };
        // They are whole records in the file: counted as such (2^64 do not happen).
        let records = self
            .w
            .records
            .wrapping_add(count_records(&prelude, self.endian))
            .wrapping_add(count_records(&self.compressor_output, self.endian));
        let hold = self.w.held();
        let put = self.w.put(
            &[prelude.as_slice(), self.compressor_output.as_slice()],
            hold,
            records,
        );
        if let Err(e) = put {
            if !prelude.is_empty() {
                self.compressed_prelude = prelude;
            }
            return Err(e);
        }
        self.compressor_output.clear();
        self.refresh_direct_to_buffer();
        Ok(())
    }

    /// [`take`](Self::take) while compressing: the whole records of `parts` (after the
    /// start of a record held from before) go to the compressor, the start of an unfinished
    /// one is held in `partial`. Compressed records the output does not take wait in
    /// `compressor_output` (the call is taken; a later call returns the error). While any wait and
    /// the output still does not take them, a call is refused whole, unless
    /// [`reserve`](Self::reserve) promised it.
    fn compress_take<S: Deref<Target = [u8]>>(
        &mut self,
        parts: &[S],
        next: RecordFramer,
    ) -> io::Result<()> {
        let total = parts.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
        if total <= self.reserved_left {
            self.reserved_left = self.reserved_left.saturating_sub(total);
        } else {
            self.reserved_left = 0;
            self.send_compressor_output()?;
        }
        let partial = next.partial_len();
        if partial > 0 {
            let len = next.record_len().unwrap_or(partial);
            if let Some(max) = self.split_limit().filter(|&max| len > max) {
                return Err(WriterError::Record(RecordError::SplitTooLong { len, max }).into());
            }
        }
        let Some(c) = self.compress.active.as_mut() else {
            return self.take(parts, next);
        };
        let pushed = match parts {
            // One whole record or more, nothing held (the commonest call): no copy.
            [one] if self.partial.is_empty() && partial == 0 => {
                c.push(one, &mut self.compressor_output)
            }
            _ => {
                for p in parts {
                    self.partial.extend_from_slice(p);
                }
                let keep = usize::try_from(partial).unwrap_or(usize::MAX);
                let whole = self.partial.len().saturating_sub(keep);
                let pushed = match self.partial.get(..whole) {
                    Some(done) if !done.is_empty() => c.push(done, &mut self.compressor_output),
                    _ => Ok(0),
                };
                self.partial.drain(..whole);
                pushed
            }
        };
        self.framer = next;
        let _later: io::Result<()> = self.send_compressor_output();
        self.refresh_direct_to_buffer();
        pushed.map(drop)
    }

    /// Closes (`true`) or reopens the short way for records: the owner has moved the
    /// underlying stream away from where the buffer's bytes go and must move it back before
    /// records go on.
    pub(crate) fn hold(&mut self, held: bool) {
        self.held = held;
        self.refresh_direct_to_buffer();
    }

    /// True between [`hold`](Self::hold)`(true)` and `hold(false)`.
    #[inline]
    pub(crate) fn is_held(&self) -> bool {
        self.held
    }

    /// Whole records written so far.
    pub(crate) fn records(&self) -> u64 {
        self.w.records
    }

    /// Records were taken: written, or held by the compressor.
    pub(crate) fn took_records(&self) -> bool {
        self.records() > 0 || self.compression_waiting()
    }

    /// Stream position of the next byte.
    #[inline]
    pub(crate) fn pos(&self) -> u64 {
        self.w.end()
    }

    /// The commonest call: appends `data` when it is one whole plain record of at most
    /// [`SMALL_WRITE`] bytes, `direct_to_buffer` holds and the buffer has room. It skips the framer,
    /// which it leaves between records, as it was. No call and no error on the way; returns
    /// whether it did (when not, nothing changed).
    #[inline]
    pub(crate) fn write_small_record(&mut self, data: &[u8]) -> bool {
        // `direct_to_buffer` holds only in the machine's byte order, which the compiler then knows.
        if data.len() > SMALL_WRITE
            || !self.direct_to_buffer
            || !is_plain_record(Endian::NATIVE, data)
            || !self.w.append_small(data)
        {
            return false;
        }
        // No wrap: 2^64 records do not happen.
        self.w.records = self.w.records.wrapping_add(1);
        true
    }

    /// [`write_small_record`](Self::write_small_record) for `data` the caller knows to be
    /// one whole plain record (it passed the record check's short way), of any length that
    /// fits in the buffer, or one whole FINISHED_ROUND (the framer ends between records
    /// after it as after a plain one): the framer's test is not made again.
    #[inline]
    pub(crate) fn write_known_record(&mut self, data: &[u8]) -> bool {
        debug_assert!(
            is_plain_record(self.endian, data) || super::is_whole_round(self.endian, data)
        );
        if !self.direct_to_buffer {
            return false;
        }
        if !self.w.append(data) {
            return false;
        }
        self.w.records = self.w.records.wrapping_add(1);
        true
    }

    /// Appends the concatenation of `bufs`, known to be `n` whole plain records (each passed
    /// the record check), without walking them through the framer again; the general path
    /// when compressing or inside a record.
    pub(crate) fn write_known_records(&mut self, bufs: &[IoSlice<'_>], n: u64) -> io::Result<()> {
        match self.framer.after_plain_records(n) {
            Some(next) if self.compress.active.is_none() => self.take(bufs, next),
            _ => self.write_records_vectored(bufs).map(drop),
        }
    }

    /// The longest unfinished record the stream holds back (`None`: any). While compressing
    /// an unfinished record waits in memory in every mode (it cannot spill into a frame), so
    /// the limit is pipe mode's, [`MAX_SPLIT_RECORD_LEN`].
    pub(crate) fn split_limit(&self) -> Option<u64> {
        match self.compress.active {
            Some(_) => Some(self.max_split.unwrap_or(MAX_SPLIT_RECORD_LEN)),
            None => self.max_split,
        }
    }

    /// While compressing, the commonest calls: one whole plain record that goes into the
    /// compressor's chunk without filling it, or (with `rounds`: the round rule is up to date,
    /// see [`keep_rounds`](Self::keep_rounds)) a FINISHED_ROUND the compressor remembers or
    /// leaves out, with nothing held or waiting. It skips the framer's walk and the router's
    /// split (what [`compress_take`](Self::compress_take) does for it comes to the same).
    /// False changes nothing.
    #[inline]
    pub(crate) fn compress_whole_record(&mut self, data: &[u8], rounds: bool) -> bool {
        let Some(c) = self.compress.active.as_mut() else {
            return false;
        };
        if !self.partial.is_empty() || !self.compressor_output.is_empty() {
            return false;
        }
        let (Some(next), Some(head)) =
            (self.framer.after_plain_records(1), data.first_chunk::<4>())
        else {
            return false;
        };
        let type_ = self.endian.read_u32(*head);
        let taken = match is_plain_record(self.endian, data) {
            true => c.take_whole_record(type_, data),
            // A FINISHED_ROUND is no plain record (its body must be empty): `take_round`
            // checks that it is one, whole.
            false => rounds && c.take_round(type_, data),
        };
        if !taken {
            return false;
        }
        self.framer = next;
        self.reserved_left = self.reserved_left.saturating_sub(data.len());
        true
    }

    pub(crate) fn endian(&self) -> Endian {
        self.endian
    }

    #[inline]
    pub(crate) fn at_boundary(&self) -> bool {
        self.framer.at_boundary()
    }

    /// Bytes of the unfinished record written so far (0 between records).
    pub(crate) fn partial_len(&self) -> u64 {
        self.framer.partial_len()
    }

    /// Drops the unfinished record: the stream goes on from the boundary before it. Returns
    /// the bytes dropped. When some had reached the output (a spilled record), the stream is
    /// [held](Self::hold) until the owner moves the output back.
    pub(crate) fn abandon_partial(&mut self) -> u64 {
        let dropped = self.framer.abandon_record();
        if dropped == 0 {
            return 0;
        }
        if self.compress.active.is_some() {
            // Held out of the compressor.
            self.partial.clear();
            self.refresh_direct_to_buffer();
            return dropped;
        }
        let start = self.pos().saturating_sub(dropped);
        if self.spilled {
            self.w.cut_at(start);
            self.spilled = false;
            self.w.marking = true;
            self.held = true;
        } else {
            self.w
                .drop_held(usize::try_from(dropped).unwrap_or(usize::MAX));
        }
        self.refresh_direct_to_buffer();
        dropped
    }

    /// Ends the stream at `pos`, a record boundary with `records` whole records before it
    /// (file mode: what follows is dropped, and the output is moved back before anything
    /// more is written, as [`hold`](Self::hold) says). Not while compressing: the records
    /// are then in zstd frames.
    pub(crate) fn drop_from(&mut self, pos: u64, records: u64) {
        if self.compress.active.is_some() || pos > self.pos() {
            return;
        }
        self.abandon_partial();
        self.w.cut_at(pos);
        self.w.records = records;
        self.spilled = false;
        self.w.marking = true;
        self.held = true;
        self.refresh_direct_to_buffer();
    }

    /// Whole records before the unfinished one once the framer is `next` (the buffer counts
    /// those before it now; the framer's count includes an unfinished record whose header is
    /// whole, and not the short way's records).
    fn completed(&self, next: &RecordFramer) -> u64 {
        fn whole(f: &RecordFramer) -> u64 {
            f.records()
                .wrapping_sub(u64::from(f.record_len().is_some_and(|len| len > 0)))
        }
        // Counts only grow (2^64 records do not happen): wrapping is exact.
        self.w
            .records
            .wrapping_add(whole(next))
            .wrapping_sub(whole(&self.framer))
    }

    /// Writes bytes that are whole records (or not records at all, such as the pipe header)
    /// at a record boundary, bypassing the framer: all of them, or (on error) none.
    pub(crate) fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.flush_compressed()?;
        let (hold, records) = (self.w.held(), self.w.records);
        self.w.put(&[bytes], hold, records)
    }

    /// Makes room for `len` more bytes, so that writes of that many cannot fail (see
    /// [`OutputBuffer::reserve`]).
    pub(crate) fn reserve(&mut self, len: usize) -> io::Result<()> {
        self.reserved_left = 0;
        self.send_compressor_output()?;
        self.w.reserve(len)?;
        if self.compress.active.is_some() {
            self.reserved_left = len;
        }
        Ok(())
    }

    /// Appends caller records, whole or split across calls; a refused chunk, or one the
    /// output could not take, changes nothing.
    #[inline]
    pub(crate) fn write_records(&mut self, data: &[u8]) -> io::Result<()> {
        // The commonest call inline; the rest out of line.
        if self.write_small_record(data) {
            return Ok(());
        }
        self.write_records_general(data)
    }

    /// [`write_records`](Self::write_records) for larger records, pieces of records, several
    /// records, and refusals.
    #[inline(never)]
    pub(crate) fn write_records_general(&mut self, data: &[u8]) -> io::Result<()> {
        if self.compress_whole_record(data, true) {
            return Ok(());
        }
        let next = match self.framer.check(data) {
            Ok(next) => next,
            Err(e) => return Err(self.naming_partial(framing(e))),
        };
        let taken = match self.compress.active {
            Some(_) => self.compress_take(&[data], next),
            None => self.take(&[data], next),
        };
        taken.map_err(|e| self.naming_partial(e))
    }

    /// Appends the concatenation of `bufs`; returns its length.
    #[inline]
    pub(crate) fn write_records_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let mut next = self.framer;
        if let Err(e) = next.feed_all(bufs.iter().map(|b| &**b)) {
            return Err(self.naming_partial(framing(e)));
        }
        let len = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len()));
        let taken = match self.compress.active {
            Some(_) => self.compress_take(bufs, next),
            None => self.take(bufs, next),
        };
        taken.map_err(|e| self.naming_partial(e))?;
        Ok(len)
    }

    /// Puts `parts` in the buffer, after which the framer is `next`: all of them or none.
    fn take<S: Deref<Target = [u8]>>(&mut self, parts: &[S], next: RecordFramer) -> io::Result<()> {
        let partial = next.partial_len();
        let records = self.completed(&next);
        let (hold, spill) = if partial == 0 {
            (0, false)
        } else {
            let len = next.record_len().unwrap_or(partial);
            match self.max_split {
                Some(max) if len > max => {
                    return Err(WriterError::Record(RecordError::SplitTooLong { len, max }).into());
                }
                // Too long to hold: it goes out, and dropping it seeks back over it.
                None if self.spilled || partial > FILE_BUFFER_SIZE as u64 => (0, true),
                _ => (usize::try_from(partial).unwrap_or(usize::MAX), false),
            }
        };
        // Boundaries sent during this call are remembered only when no spilled record is
        // on either side of it (a mark must be a boundary and its count exact).
        self.w.marking = !self.spilled && !spill;
        let put = self.w.put(parts, hold, records);
        self.w.marking = !(if put.is_ok() { spill } else { self.spilled });
        put?;
        self.spilled = spill;
        self.note_partial_head(parts, &next);
        self.framer = next;
        self.refresh_direct_to_buffer();
        Ok(())
    }

    /// Keeps the first bytes of the record left unfinished once the framer is `next` after
    /// `parts` (the stream's framer still the one before them): to name it.
    fn note_partial_head<S: Deref<Target = [u8]>>(&mut self, parts: &[S], next: &RecordFramer) {
        let partial = next.partial_len();
        if partial == 0 {
            self.partial_head = ([0; 4], 0);
            return;
        }
        let total = parts
            .iter()
            .fold(0u64, |n, p| n.saturating_add(p.len() as u64));
        // Its bytes given before this call, and where the rest starts in `parts`.
        let (before, from) = match partial.checked_sub(total) {
            Some(before) => (before, 0),
            None => (0, total.saturating_sub(partial)),
        };
        if before == 0 {
            self.partial_head = ([0; 4], 0);
        }
        let (head, have) = &mut self.partial_head;
        if before != *have as u64 {
            return; // more than the head came before: it is whole already
        }
        let mut at = 0u64;
        for p in parts {
            for &b in p.iter() {
                if at >= from {
                    let Some(slot) = head.get_mut(*have) else {
                        return;
                    };
                    *slot = b;
                    *have = have.saturating_add(1);
                }
                at = at.saturating_add(1);
            }
        }
    }

    /// The record begun and not finished, if any.
    pub(crate) fn partial_record(&self) -> Option<PartialRecord> {
        let given = self.framer.partial_len();
        if given == 0 {
            return None;
        }
        let (head, have) = match self.compress.active {
            // Held out of the compressor, whole.
            Some(_) => {
                let mut head = [0u8; 4];
                let n = self.partial.len().min(4);
                head.get_mut(..n)?.copy_from_slice(self.partial.get(..n)?);
                (head, n)
            }
            None => self.partial_head,
        };
        Some(PartialRecord {
            type_: match have {
                4 => self.endian.read_u32(head),
                _ => 0,
            },
            len: self.framer.record_len(),
            given,
            offset: self.pos().saturating_sub(given),
        })
    }

    /// `e`, an error refusing a call, naming the record that waits when one does (the
    /// call's bytes were taken as its continuation).
    #[cold]
    fn naming_partial(&self, e: io::Error) -> io::Error {
        let refusal = matches!(
            WriterError::from_io(&e),
            Some(
                WriterError::Record(RecordError::Framing(_))
                    | WriterError::Record(RecordError::SplitTooLong { .. })
            )
        );
        match (refusal, self.partial_record()) {
            (true, Some(partial)) => WriterError::Record(RecordError::InsidePartial {
                partial,
                dropped: false,
                error: Box::new(WriterError::from(e)),
            })
            .into(),
            _ => e,
        }
    }

    /// Appends a FINISHED_ROUND written by the writer itself: while compressing, straight to
    /// the compressor's round rule when it can take it (no encoding, no framer walk).
    pub(crate) fn write_finished_round(&mut self) -> io::Result<()> {
        let mut round = [0u8; 8];
        round[..4].copy_from_slice(&self.endian.u32_bytes(perf_abi::record_type::FINISHED_ROUND));
        round[6..].copy_from_slice(&self.endian.u16_bytes(8));
        if self.compress_whole_record(&round, true) {
            return Ok(());
        }
        self.write_encoded_record(&perf_encode::records::FinishedRound)
    }

    /// Appends one encoded record written by the writer itself (FINISHED_ROUND, …). Refused
    /// inside a caller's record, whose body it would otherwise become.
    pub(crate) fn write_encoded_record<E: Encode>(&mut self, value: &E) -> io::Result<()> {
        if !self.at_boundary() {
            return Err(WriterError::Record(RecordError::Incomplete).into());
        }
        let mut buf = [0u8; 64];
        let bytes =
            perf_encode::to_slice(value, self.endian, &mut buf).map_err(WriterError::from)?;
        self.write_records(bytes)
    }

    /// Sends what is not held and flushes the output.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.flush_compressed()?;
        self.w.flush()
    }

    /// Remembers that the stream's position is a record boundary on the output with no
    /// record before it (the start of the data).
    pub(crate) fn mark_start(&mut self) {
        let mark = Mark {
            pos: self.pos(),
            records: 0,
        };
        self.w.add_mark(mark);
    }
}

/// The error of a refused chunk (out of line: never the hot path).
#[cold]
#[inline(never)]
fn framing(e: FramingError) -> io::Error {
    WriterError::from(e).into()
}

/// Records in `bytes`, whole records in `endian` (found by the one record walk: the
/// payload after an AUXTRACE or HEADER_TRACING_DATA record is skipped; a bad header ends the
/// count).
fn count_records(bytes: &[u8], endian: Endian) -> u64 {
    let mut walk = RecordWalker::new(endian);
    let (mut at, mut n) = (0usize, 0u64);
    while let Some(rest) = bytes.get(at..).filter(|r| !r.is_empty()) {
        let step = match walk.step(rest) {
            Ok(Step::Record(r)) => {
                n = n.saturating_add(1);
                r.taken
            }
            Ok(Step::Header(k) | Step::Body(k)) => k,
            Err(_) => break,
        };
        at = at.saturating_add(step);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use perf_abi::record_type;

    /// Takes bytes until `room` runs out, then fails every write.
    struct Limited {
        taken: Vec<u8>,
        room: usize,
    }

    impl Write for Limited {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::other("full"));
            }
            let n = buf.len().min(self.room);
            self.taken.extend_from_slice(&buf[..n]);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn stream(room: usize) -> RecordStream<Limited> {
        let w = Limited {
            taken: Vec::new(),
            room,
        };
        RecordStream::new(w, Endian::NATIVE, 100, Some(MAX_SPLIT_RECORD_LEN))
    }

    fn header(type_: u32, size: u16) -> [u8; 8] {
        let mut h = [0u8; 8];
        h[..4].copy_from_slice(&type_.to_ne_bytes());
        h[6..].copy_from_slice(&size.to_ne_bytes());
        h
    }

    /// An AUXTRACE record (16-byte header part) announcing `payload` bytes after it.
    fn auxtrace(payload: u64) -> [u8; 16] {
        let mut r = [0u8; 16];
        r[..8].copy_from_slice(&header(record_type::AUXTRACE, 16));
        r[8..].copy_from_slice(&payload.to_ne_bytes());
        r
    }

    #[test]
    fn whole_and_split_records_count_bytes() {
        let mut s = stream(usize::MAX);
        let mut rec = [0u8; 24];
        rec[..8].copy_from_slice(&header(record_type::SAMPLE, 24));
        s.write_records(&rec).unwrap();
        s.write_records(&rec[..5]).unwrap();
        assert!(!s.at_boundary());
        s.write_records(&rec[5..]).unwrap();
        assert!(s.at_boundary());
        let n = s
            .write_records_vectored(&[IoSlice::new(&rec[..8]), IoSlice::new(&rec[8..])])
            .unwrap();
        assert_eq!(n, 24);
        assert_eq!(s.pos(), 100 + 3 * 24);
        s.flush().unwrap();
        assert_eq!(s.w.get_ref().taken.len(), 3 * 24);
    }

    #[test]
    fn a_refused_chunk_writes_nothing() {
        let mut s = stream(usize::MAX);
        let mut rec = [0u8; 16];
        rec[..8].copy_from_slice(&header(record_type::SAMPLE, 16));
        let bad = header(record_type::SAMPLE, 12);
        assert!(s.write_records(&bad).is_err());
        let slices = [IoSlice::new(&rec), IoSlice::new(&bad)];
        assert!(s.write_records_vectored(&slices).is_err());
        assert!(s.at_boundary());
        assert_eq!(s.pos(), 100);
        s.flush().unwrap();
        assert!(s.w.get_ref().taken.is_empty());
        // Refusals do not poison.
        s.write_records(&rec).unwrap();
        assert_eq!(s.pos(), 116);
    }

    #[test]
    fn a_failed_write_takes_nothing_and_the_next_call_sends_it() {
        // A whole AUXTRACE record larger than the buffer, given in one call, to an output
        // that takes 16 bytes and then fails: the call is taken whole (the buffer grows),
        // and what the output did not take waits.
        let payload = vec![7u8; FILE_BUFFER_SIZE + 8];
        for vectored in [false, true] {
            let mut s = stream(16);
            let head = auxtrace(payload.len() as u64);
            if vectored {
                let parts = [IoSlice::new(&head), IoSlice::new(&payload)];
                s.write_records_vectored(&parts).unwrap();
            } else {
                s.write_records(&[&head[..], &payload].concat()).unwrap();
            }
            assert!(s.at_boundary());
            // The buffer is full and the output fails: the next call takes nothing.
            let framer = s.framer;
            let end = s.pos();
            let mut rec = [0u8; 16];
            rec[..8].copy_from_slice(&header(record_type::SAMPLE, 16));
            let err = s.write_records(&[&rec[..]; 20_000].concat()).unwrap_err();
            assert!(WriterError::from_io(&err).is_none(), "{err}");
            assert_eq!((s.framer, s.pos()), (framer, end));
            // Room again: the next flush sends everything, once.
            s.w.get_mut().room = usize::MAX;
            s.flush().unwrap();
            let taken = &s.w.get_ref().taken;
            assert_eq!(taken.len(), 16 + payload.len());
            assert_eq!(&taken[..16], &head);
        }
    }

    #[test]
    fn an_unfinished_record_is_held_and_can_be_dropped() {
        let mut s = stream(usize::MAX);
        let mut rec = [0u8; 32];
        rec[..8].copy_from_slice(&header(record_type::SAMPLE, 32));
        s.write_records(&rec).unwrap();
        s.write_records(&rec[..20]).unwrap();
        assert_eq!(s.partial_len(), 20);
        s.flush().unwrap();
        // Only the whole record went out.
        assert_eq!(s.w.get_ref().taken, rec);
        assert_eq!(s.abandon_partial(), 20);
        assert_eq!((s.pos(), s.at_boundary()), (132, true));
        s.write_records(&rec).unwrap();
        s.flush().unwrap();
        assert_eq!(s.w.get_ref().taken, [rec, rec].concat());
        // Pipe mode holds at most MAX_SPLIT_RECORD_LEN: a longer record announced by an
        // AUXTRACE header is refused at the call, nothing written.
        let err = s
            .write_records(&auxtrace(MAX_SPLIT_RECORD_LEN))
            .unwrap_err();
        assert_eq!(
            WriterError::from_io(&err),
            Some(&WriterError::Record(RecordError::SplitTooLong {
                len: 16 + MAX_SPLIT_RECORD_LEN,
                max: MAX_SPLIT_RECORD_LEN
            }))
        );
        assert!(s.at_boundary());
        s.write_records(&auxtrace(8)).unwrap();
        assert_eq!(s.partial_len(), 16);
        assert_eq!(s.abandon_partial(), 16);
    }

    /// A SAMPLE record of `len` bytes whose body bytes are `fill`.
    fn sample(len: u16, fill: u8, endian: Endian) -> Vec<u8> {
        let mut r = vec![fill; usize::from(len)];
        r[..4].copy_from_slice(&endian.u32_bytes(record_type::SAMPLE));
        r[4..6].copy_from_slice(&[0, 0]);
        r[6..8].copy_from_slice(&endian.u16_bytes(len));
        r
    }

    #[test]
    fn the_short_way_opens_only_between_records() {
        let mut s = stream(usize::MAX);
        let whole = sample(64, 1, Endian::NATIVE);
        assert!(s.write_small_record(&whole));
        // The start of a 72-byte record, then 64 body bytes that look like a whole record:
        // they are the body, not a record of their own.
        let long = sample(72, 2, Endian::NATIVE);
        s.write_records(&long[..8]).unwrap();
        assert!(!s.write_small_record(&whole), "inside a record");
        s.write_records(&whole).unwrap();
        assert!(s.at_boundary());
        // Only the 8-byte body tail was left; now records again.
        assert!(s.write_small_record(&whole));
        // A record that does not end with the call, or is not one record, goes the long way.
        assert!(!s.write_small_record(&long[..64]));
        let two = [&whole[..], &whole[..]].concat();
        assert!(!s.write_small_record(&two));
        s.write_records(&two).unwrap();
        // The owner's hold closes the short way until released.
        s.hold(true);
        assert!(!s.write_small_record(&whole));
        s.hold(false);
        assert!(s.write_small_record(&whole));
        s.flush().unwrap();
        let expected = [&whole[..], &long[..8], &whole, &whole, &two, &whole].concat();
        assert_eq!(s.w.get_ref().taken, expected);
        assert_eq!(s.pos(), 100 + expected.len() as u64);
    }

    /// The records in a stream of COMPRESSED (aligned form) and plain records, decompressed.
    #[cfg(feature = "zstd")]
    fn decompressed(mut out: &[u8]) -> Vec<u8> {
        let mut records = Vec::new();
        while out.len() >= 8 {
            let size = usize::from(u16::from_ne_bytes([out[6], out[7]]));
            let (rec, rest) = out.split_at(size);
            if u32::from_ne_bytes([rec[0], rec[1], rec[2], rec[3]]) == record_type::COMPRESSED {
                records.extend(zstd::stream::decode_all(&rec[8..]).unwrap());
            } else {
                records.extend_from_slice(rec);
            }
            out = rest;
        }
        records
    }

    #[cfg(feature = "zstd")]
    #[test]
    fn compressing_an_unfinished_record_can_be_dropped_and_failed_writes_are_retried() {
        use crate::Compression;
        for vectored in [false, true] {
            let mut s = stream(0);
            s.set_compression(Some(Compression::zstd(1))).unwrap();
            let (a, b) = (
                sample(64, 1, Endian::NATIVE),
                sample(200, 2, Endian::NATIVE),
            );
            s.write_records(&a).unwrap();
            // A record and the start of one, which is held out of the compressor.
            if vectored {
                let parts = [
                    IoSlice::new(&b[..100]),
                    IoSlice::new(&b[100..]),
                    IoSlice::new(&a[..20]),
                ];
                s.write_records_vectored(&parts).unwrap();
            } else {
                s.write_records(&[&b[..], &a[..20]].concat()).unwrap();
            }
            assert_eq!(s.partial_len(), 20);
            assert_eq!(s.abandon_partial(), 20);
            s.write_records(&b).unwrap();
            // The output takes nothing: the flush fails, and the compressed records wait.
            assert!(s.flush().is_err());
            assert!(s.w.get_ref().taken.is_empty());
            s.w.get_mut().room = usize::MAX;
            s.flush().unwrap();
            let taken = &s.w.get_ref().taken;
            assert_eq!(s.pos(), 100 + taken.len() as u64);
            assert_eq!(
                decompressed(taken),
                [&a[..], &b, &b].concat(),
                "vectored {vectored}"
            );
        }
    }

    #[test]
    fn count_records_skips_the_payloads_after_records() {
        for e in [Endian::Little, Endian::Big] {
            let mut aux = vec![0u8; 16];
            aux[..4].copy_from_slice(&e.u32_bytes(record_type::AUXTRACE));
            aux[6..8].copy_from_slice(&e.u16_bytes(16));
            aux[8..].copy_from_slice(&e.u64_bytes(24));
            // HEADER_TRACING_DATA: 13 bytes of data, padded to 16, after its 16-byte record.
            let mut tracing = vec![0u8; 16];
            tracing[..4].copy_from_slice(&e.u32_bytes(record_type::HEADER_TRACING_DATA));
            tracing[6..8].copy_from_slice(&e.u16_bytes(16));
            tracing[8..12].copy_from_slice(&e.u32_bytes(13));
            let bytes = [
                sample(16, 1, e),
                aux,
                vec![9; 24],
                sample(32, 2, e),
                tracing,
                vec![8; 16],
            ]
            .concat();
            assert_eq!(count_records(&bytes, e), 4, "{e:?}");
        }
    }

    #[test]
    fn byte_swapped_records_are_checked_the_long_way() {
        let other = if Endian::NATIVE == Endian::Little {
            Endian::Big
        } else {
            Endian::Little
        };
        let w = Limited {
            taken: Vec::new(),
            room: usize::MAX,
        };
        let mut s = RecordStream::new(w, other, 0, None);
        let rec = sample(64, 3, other);
        assert!(!s.write_small_record(&rec));
        s.write_records(&rec).unwrap();
        // Written in the machine's order, size 264 (0x108) reads as 0x801: refused, nothing
        // written.
        let native = sample(264, 3, Endian::NATIVE);
        assert!(s.write_records(&native).is_err());
        s.flush().unwrap();
        assert_eq!(s.w.get_ref().taken, rec);
    }
}
