//! [`IoOutput`]: the compressor's encoder output, straight into an `io::Write`.

use crate::WriterError;
use perf_encode::{Encode, Endian};
use std::io::{self, Write};

/// Encodes straight into an `io::Write`, keeping the I/O error for the caller (the encoder
/// only sees that the output refused the bytes). Used by the compressor.
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
