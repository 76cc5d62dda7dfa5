//! The buffered byte stream under both output modes: checks framing, counts bytes, and
//! refuses further writes after a failed one.

use crate::WriterError;
use perf_encode::records::{FramingError, RecordFramer};
use perf_encode::{Encode, Endian};
use std::io::{self, BufWriter, IoSlice, Write};

/// Capacity of the buffer the writer puts in front of every output.
pub const FILE_BUFFER_SIZE: usize = 256 * 1024;

/// A buffered stream of records.
pub(crate) struct RecordStream<W: Write> {
    pub(crate) w: BufWriter<W>,
    endian: Endian,
    framer: RecordFramer,
    /// A write failed: what reached the stream is unknown.
    poisoned: bool,
    /// Stream position of the next byte.
    pub(crate) pos: u64,
}

impl<W: Write> RecordStream<W> {
    pub(crate) fn new(w: W, endian: Endian, pos: u64) -> Self {
        RecordStream {
            w: BufWriter::with_capacity(FILE_BUFFER_SIZE, w),
            endian,
            framer: RecordFramer::new(endian),
            poisoned: false,
            pos,
        }
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
        self.usable()?;
        if let Err(e) = self.w.write_all(bytes) {
            return Err(self.poison(e));
        }
        self.pos = self.pos.saturating_add(bytes.len() as u64);
        Ok(())
    }

    /// Appends caller records, whole or split across calls; a refused chunk changes nothing.
    #[inline]
    pub(crate) fn write_records(&mut self, data: &[u8]) -> io::Result<()> {
        // The commonest call, one whole record, inline; the rest out of line.
        if !self.poisoned {
            let w = &mut self.w;
            if let Some(written) = self.framer.feed_one_record_then(data, || w.write_all(data)) {
                return match written {
                    Ok(()) => {
                        // No wrap: a stream does not reach 2^64 bytes.
                        self.pos = self.pos.wrapping_add(data.len() as u64);
                        Ok(())
                    }
                    Err(e) => Err(self.poison(e)),
                };
            }
        }
        self.write_records_general(data)
    }

    /// [`write_records`](Self::write_records) for pieces of records, several records, and
    /// refusals.
    #[inline(never)]
    fn write_records_general(&mut self, data: &[u8]) -> io::Result<()> {
        self.usable()?;
        // The framer advances only once the bytes are in the buffer: a refused chunk and a
        // failed write leave it as it was (a failed write poisons the stream anyway).
        let w = &mut self.w;
        match self.framer.feed_then(data, || w.write_all(data)) {
            Ok(Ok(())) => {
                // No wrap: a stream does not reach 2^64 bytes.
                self.pos = self.pos.wrapping_add(data.len() as u64);
                Ok(())
            }
            Ok(Err(e)) => Err(self.poison(e)),
            Err(e) => Err(framing(e)),
        }
    }

    /// Appends the concatenation of `bufs`; returns its length.
    #[inline]
    pub(crate) fn write_records_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.usable()?;
        // As in `write_records`: the framer advances only once every slice is in the buffer.
        let w = &mut self.w;
        let mut done = 0usize;
        let written = self.framer.feed_all_then(bufs.iter().map(|b| &**b), || {
            for b in bufs {
                w.write_all(b)?;
                done = done.saturating_add(b.len());
            }
            Ok(())
        });
        // The position counts what the buffer took, even when a later slice failed.
        // No wrap: a stream does not reach 2^64 bytes.
        self.pos = self.pos.wrapping_add(done as u64);
        match written {
            Ok(Ok(())) => Ok(done),
            Ok(Err(e)) => Err(self.poison(e)),
            Err(e) => Err(framing(e)),
        }
    }

    /// Marks the stream failed; returns `e`.
    #[cold]
    #[inline(never)]
    fn poison(&mut self, e: io::Error) -> io::Error {
        self.poisoned = true;
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
        self.usable()?;
        if let Err(e) = self.w.flush() {
            return Err(self.poison(e));
        }
        Ok(())
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
}
