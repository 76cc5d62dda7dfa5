//! [`Decompressor`]: the records held by a trace's COMPRESSED records, in order.
//!
//! One zstd decoder reads the payloads of all COMPRESSED records as one stream: perf keeps
//! a single zstd stream across its records (a record may end anywhere in it, and a
//! decompressed record may straddle two COMPRESSED records), while perf-writer-std's aligned
//! form puts complete frames and skippable padding frames in each; zstd's streaming decoder
//! reads both.

use crate::read::record_at;
use perf_writer_std::perf_encode::Endian;
use std::io;
use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

/// Decompressed bytes taken per decoder call.
const CHUNK: usize = 128 * 1024;

/// Turns COMPRESSED payloads back into whole records.
pub struct Decompressor {
    decoder: Decoder<'static>,
    endian: Endian,
    /// Decompressed bytes not yet handed out: the start of a record the next payload ends.
    pending: Vec<u8>,
    chunk: Vec<u8>,
}

impl Decompressor {
    /// A decompressor for records in `endian`.
    ///
    /// # Errors
    ///
    /// zstd could not allocate its context.
    pub fn new(endian: Endian) -> io::Result<Self> {
        Ok(Decompressor {
            decoder: Decoder::new()?,
            endian,
            pending: Vec::new(),
            chunk: vec![0; CHUNK],
        })
    }

    /// Decompresses one COMPRESSED record's payload and hands each record it completes to
    /// `each`, in order.
    ///
    /// # Errors
    ///
    /// A string saying why: the bytes are not zstd, or what they hold is not records.
    pub fn feed<E>(
        &mut self,
        payload: &[u8],
        mut each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<Result<(), E>, String> {
        let mut input = InBuffer::around(payload);
        loop {
            let mut out = OutBuffer::around(&mut self.chunk[..]);
            self.decoder
                .run(&mut input, &mut out)
                .map_err(|e| format!("zstd: {e}"))?;
            let n = out.pos();
            self.pending.extend_from_slice(&self.chunk[..n]);
            if input.pos() == payload.len() && n < CHUNK {
                break;
            }
        }
        let mut pos = 0;
        while let Some(r) = record_at(&self.pending, pos, self.pending.len(), self.endian)? {
            if let Err(e) = each(&self.pending[r.range.clone()]) {
                return Ok(Err(e));
            }
            pos = r.range.end;
        }
        self.pending.drain(..pos);
        Ok(Ok(()))
    }

    /// Decompressed bytes that do not make a whole record yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}
