//! The buffered byte stream under both output modes: checks framing, counts bytes, and
//! refuses further writes after a failed one.

use crate::WriterError;
use perf_encode::records::RecordFramer;
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

    pub(crate) fn usable(&self) -> io::Result<()> {
        if self.poisoned {
            return Err(WriterError::Poisoned.into());
        }
        Ok(())
    }

    pub(crate) fn at_boundary(&self) -> bool {
        self.framer.at_boundary()
    }

    /// Writes bytes that are known to be whole records (or not records at all, such as the
    /// pipe header), bypassing the framer.
    pub(crate) fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.usable()?;
        if let Err(e) = self.w.write_all(bytes) {
            self.poisoned = true;
            return Err(e);
        }
        self.pos = self.pos.saturating_add(bytes.len() as u64);
        Ok(())
    }

    /// Appends caller records, whole or split across calls; a refused chunk changes nothing.
    pub(crate) fn write_records(&mut self, data: &[u8]) -> io::Result<()> {
        self.usable()?;
        // `feed` leaves the framer as it was when it refuses the chunk; a failed write puts
        // it back too (and poisons the stream anyway).
        let before = self.framer;
        self.framer.feed(data).map_err(WriterError::from)?;
        self.write_raw(data).inspect_err(|_| self.framer = before)
    }

    /// Appends the concatenation of `bufs`; returns its length.
    pub(crate) fn write_records_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.usable()?;
        let mut framer = self.framer;
        for b in bufs {
            framer.feed(b).map_err(WriterError::from)?;
        }
        let mut total = 0usize;
        for b in bufs {
            self.write_raw(b)?;
            total = total.saturating_add(b.len());
        }
        self.framer = framer;
        Ok(total)
    }

    /// Appends one encoded record written by the writer itself (FINISHED_ROUND, …).
    pub(crate) fn write_encoded_record<E: Encode>(&mut self, value: &E) -> io::Result<()> {
        let mut buf = [0u8; 64];
        let bytes =
            perf_encode::to_slice(value, self.endian, &mut buf).map_err(WriterError::from)?;
        self.write_records(bytes)
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.usable()?;
        if let Err(e) = self.w.flush() {
            self.poisoned = true;
            return Err(e);
        }
        Ok(())
    }
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
