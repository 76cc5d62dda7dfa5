//! The buffered byte stream under both output modes: checks framing, counts bytes, and
//! refuses further writes after a failed one.

use crate::compression::{Compression, CompressionStats, Compressor, Compressors};
use crate::output_buffer::{OutputBuffer, SMALL_WRITE};
use crate::WriterError;
use perf_encode::records::{FramingError, RecordFramer};
use perf_encode::{Encode, Endian};
use std::io::{self, IoSlice, Write};

/// Capacity of the buffer the writer puts in front of every output.
pub const FILE_BUFFER_SIZE: usize = 256 * 1024;

/// A buffered stream of records.
pub(crate) struct RecordStream<W: Write> {
    pub(crate) w: OutputBuffer<W>,
    endian: Endian,
    /// Where the stream is in the record structure. Records
    /// [`write_small_record`](Self::write_small_record) takes skip it (they start and end on
    /// a boundary, so they leave it as it was; its record count, which nothing here reads,
    /// leaves them out).
    framer: RecordFramer,
    /// A write failed: what reached the stream is unknown.
    poisoned: bool,
    /// The owner moved the stream away from `pos` (see [`hold`](Self::hold)).
    held: bool,
    /// In the machine's byte order, not poisoned, not held, and between records: a whole
    /// plain record may go straight into the buffer. Kept equal to that by
    /// [`refresh_lane`](Self::refresh_lane) after every change to those.
    lane_open: bool,
    /// Stream position of the next byte.
    pub(crate) pos: u64,
    /// Compresses the caller's records when compression is on (see `compression.rs`);
    /// bytes waiting in it are not counted in `pos` yet.
    compress: Compressors,
}

impl<W: Write> RecordStream<W> {
    pub(crate) fn new(w: W, endian: Endian, pos: u64) -> Self {
        RecordStream {
            w: OutputBuffer::with_capacity(FILE_BUFFER_SIZE, w),
            endian,
            framer: RecordFramer::new(endian),
            poisoned: false,
            held: false,
            lane_open: endian.is_native(),
            pos,
            compress: Compressors::default(),
        }
    }

    fn refresh_lane(&mut self) {
        self.lane_open = self.endian.is_native()
            && !self.poisoned
            && !self.held
            && self.framer.at_boundary()
            && self.compress.active.is_none();
    }

    /// Starts, changes or stops compression between records (see [`Compressors::switch`]):
    /// what the compressor before holds is written first. A refused setting changes nothing
    /// and does not poison the stream.
    pub(crate) fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()> {
        self.usable()?;
        if !self.at_boundary() {
            return Err(WriterError::IncompleteRecord.into());
        }
        let written = self.compress.switch(setting, self.endian, &mut self.w);
        self.refresh_lane();
        // A setting refused before anything was written leaves the stream usable.
        match written {
            Err(e) if WriterError::from_io(&e).is_some() => Err(e),
            other => self.count_compressed(other),
        }
    }

    /// Compresses what waits and returns what every compressor of this stream wrote (`None`
    /// when compression was never on).
    pub(crate) fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>> {
        self.flush_compressed()?;
        Ok(self.compress.stats())
    }

    /// Writes the records the compressor holds (before bytes that bypass it).
    fn flush_compressed(&mut self) -> io::Result<()> {
        self.usable()?;
        let written = match self.compress.active.as_mut() {
            Some(c) => c.flush_chunk(&mut self.w),
            None => return Ok(()),
        };
        self.count_compressed(written)
    }

    /// Counts the bytes a compressor wrote; an error poisons the stream.
    fn count_compressed(&mut self, written: io::Result<u64>) -> io::Result<()> {
        match written {
            Ok(n) => {
                self.pos = self.pos.saturating_add(n);
                Ok(())
            }
            Err(e) => Err(self.poison(e)),
        }
    }

    /// Closes (`true`) or reopens the short way for records: the owner has moved the
    /// underlying stream away from [`pos`](Self::pos) and must move it back before records
    /// go on.
    pub(crate) fn hold(&mut self, held: bool) {
        self.held = held;
        self.refresh_lane();
    }

    /// True between [`hold`](Self::hold)`(true)` and `hold(false)`.
    #[inline]
    pub(crate) fn is_held(&self) -> bool {
        self.held
    }

    /// The commonest call: appends `data` when it is one whole plain record of at most
    /// [`SMALL_WRITE`] bytes, the lane is open and the buffer has room. It skips the framer,
    /// which it leaves between records, as it was. No call and no error on the way; returns
    /// whether it did (when not, nothing changed).
    #[inline]
    pub(crate) fn write_small_record(&mut self, data: &[u8]) -> bool {
        // The lane is open only in the machine's byte order, which the compiler then knows.
        if data.len() > SMALL_WRITE
            || !self.lane_open
            || !RecordFramer::is_one_plain_record(Endian::NATIVE, data)
            || !self.w.append_small(data)
        {
            return false;
        }
        // No wrap: a stream does not reach 2^64 bytes.
        self.pos = self.pos.wrapping_add(data.len() as u64);
        true
    }

    pub(crate) fn endian(&self) -> Endian {
        self.endian
    }

    #[inline]
    pub(crate) fn usable(&self) -> io::Result<()> {
        if self.poisoned {
            return Err(poisoned());
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn at_boundary(&self) -> bool {
        self.framer.at_boundary()
    }

    /// Writes bytes that are known to be whole records (or not records at all, such as the
    /// pipe header), bypassing the framer.
    pub(crate) fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.flush_compressed()?;
        if let Err(e) = self.w.write_all(bytes) {
            return Err(self.poison(e));
        }
        self.pos = self.pos.saturating_add(bytes.len() as u64);
        Ok(())
    }

    /// Appends caller records, whole or split across calls; a refused chunk changes nothing.
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
        self.usable()?;
        // Compressing, one whole record between records (the commonest call then) skips
        // the framer, which it leaves between records, as the short way does.
        if let Some(c) = self.compress.active.as_mut() {
            if self.framer.at_boundary() && RecordFramer::is_one_plain_record(self.endian, data) {
                let written = c.push(data, &mut self.w);
                return self.count_compressed(written);
            }
        }
        // The framer advances only once the bytes are in the buffer: a refused chunk and a
        // failed write leave it as it was (a failed write poisons the stream anyway).
        let (w, compress) = (&mut self.w, &mut self.compress.active);
        let result = match self.framer.feed_then(data, || sink(w, compress, data)) {
            Ok(Ok(written)) => {
                // No wrap: a stream does not reach 2^64 bytes.
                self.pos = self.pos.wrapping_add(written);
                Ok(())
            }
            Ok(Err(e)) => Err(self.poison(e)),
            Err(e) => Err(framing(e)),
        };
        self.refresh_lane();
        result
    }

    /// Appends the concatenation of `bufs`; returns its length.
    #[inline]
    pub(crate) fn write_records_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.usable()?;
        // As in `write_records`: the framer advances only once every slice is in the buffer.
        let (w, compress) = (&mut self.w, &mut self.compress.active);
        let (mut done, mut out) = (0usize, 0u64);
        let written = self.framer.feed_all_then(bufs.iter().map(|b| &**b), || {
            for b in bufs {
                out = out.saturating_add(sink(w, compress, b)?);
                done = done.saturating_add(b.len());
            }
            Ok(())
        });
        // The position counts what the buffer took, even when a later slice failed.
        // No wrap: a stream does not reach 2^64 bytes.
        self.pos = self.pos.wrapping_add(out);
        let result = match written {
            Ok(Ok(())) => Ok(done),
            Ok(Err(e)) => Err(self.poison(e)),
            Err(e) => Err(framing(e)),
        };
        self.refresh_lane();
        result
    }

    /// Marks the stream failed; returns `e`.
    #[cold]
    #[inline(never)]
    fn poison(&mut self, e: io::Error) -> io::Error {
        self.poisoned = true;
        self.lane_open = false;
        e
    }

    /// Appends one encoded record written by the writer itself (FINISHED_ROUND, …). Refused
    /// inside a caller's record, whose body it would otherwise become.
    pub(crate) fn write_encoded_record<E: Encode>(&mut self, value: &E) -> io::Result<()> {
        if !self.at_boundary() {
            return Err(WriterError::IncompleteRecord.into());
        }
        let mut buf = [0u8; 64];
        let bytes =
            perf_encode::to_slice(value, self.endian, &mut buf).map_err(WriterError::from)?;
        self.write_records(bytes)
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.flush_compressed()?;
        if let Err(e) = self.w.flush() {
            return Err(self.poison(e));
        }
        Ok(())
    }
}

/// Writes caller record bytes to `w`, through the compressor when there is one; returns the
/// bytes that reached `w`.
fn sink<W: Write>(
    w: &mut OutputBuffer<W>,
    compress: &mut Option<Box<Compressor>>,
    data: &[u8],
) -> io::Result<u64> {
    match compress {
        Some(c) => c.push(data, w),
        None => w.write_all(data).map(|()| data.len() as u64),
    }
}

/// The error of a write to a poisoned stream (out of line: never the hot path).
#[cold]
#[inline(never)]
fn poisoned() -> io::Error {
    WriterError::Poisoned.into()
}

/// The error of a refused chunk (out of line: never the hot path).
#[cold]
#[inline(never)]
fn framing(e: FramingError) -> io::Error {
    WriterError::from(e).into()
}

/// Encodes straight into an `io::Write`, keeping the I/O error for the caller (the encoder
/// only sees that the output refused the bytes).
pub(crate) struct IoOutput<'w, W: Write> {
    w: &'w mut W,
    written: u64,
    error: Option<io::Error>,
}

impl<'w, W: Write> IoOutput<'w, W> {
    pub(crate) fn new(w: &'w mut W) -> Self {
        IoOutput {
            w,
            written: 0,
            error: None,
        }
    }

    /// Bytes written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// Encodes `value`; an I/O error comes back as itself.
    pub(crate) fn encode<E: Encode + ?Sized>(
        &mut self,
        value: &E,
        endian: Endian,
    ) -> io::Result<()> {
        let result = value.encode(&mut perf_encode::Encoder::new(self, endian));
        match (self.error.take(), result) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(WriterError::from(e).into()),
            (None, Ok(())) => Ok(()),
        }
    }
}

impl<W: Write> perf_encode::Output for IoOutput<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), perf_encode::EncodeError> {
        if let Err(e) = self.w.write_all(bytes) {
            self.error = Some(e);
            return Err(perf_encode::EncodeError::Overflow {
                what: "output (I/O error)",
            });
        }
        self.written = self.written.saturating_add(bytes.len() as u64);
        Ok(())
    }
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
        RecordStream::new(w, Endian::NATIVE, 100)
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

    fn is_poisoned(e: &io::Error) -> bool {
        WriterError::from_io(e) == Some(&WriterError::Poisoned)
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
        assert_eq!(s.pos, 100 + 3 * 24);
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
        assert_eq!(s.pos, 100);
        s.flush().unwrap();
        assert!(s.w.get_ref().taken.is_empty());
        // Refusals do not poison.
        s.write_records(&rec).unwrap();
        assert_eq!(s.pos, 116);
    }

    #[test]
    fn a_failed_write_poisons_and_leaves_the_framer() {
        // The payload of an AUXTRACE record passes the 256 KiB buffer and reaches the
        // output, which fails.
        let payload = vec![0u8; FILE_BUFFER_SIZE + 8];
        for vectored in [false, true] {
            let mut s = stream(16);
            s.write_records(&auxtrace(payload.len() as u64)).unwrap();
            assert!(!s.at_boundary());
            let framer = format!("{:?}", s.framer);
            let err = if vectored {
                s.write_records_vectored(&[IoSlice::new(&payload)])
                    .unwrap_err()
            } else {
                s.write_records(&payload).unwrap_err()
            };
            assert!(!is_poisoned(&err), "{err}");
            assert_eq!(format!("{:?}", s.framer), framer);
            assert!(is_poisoned(&s.write_records(&payload).unwrap_err()));
            assert!(is_poisoned(&s.write_raw(&[0; 8]).unwrap_err()));
            assert!(is_poisoned(&s.flush().unwrap_err()));
        }
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
        assert_eq!(s.pos, 100 + expected.len() as u64);
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
        let mut s = RecordStream::new(w, other, 0);
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
