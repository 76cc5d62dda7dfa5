//! Where encoded bytes go: a caller's slice, a byte counter, or (with `alloc`) a `Vec<u8>`.

use crate::EncodeError;

/// A destination for encoded bytes.
///
/// ```
/// use perf_encode::{Output, SliceOutput};
/// let mut buf = [0u8; 4];
/// let mut out = SliceOutput::new(&mut buf);
/// out.put(b"ab").unwrap();
/// assert!(out.put(b"abc").is_err()); // would pass the end: refused, nothing written
/// assert_eq!(out.written(), 2);
/// ```
pub trait Output {
    /// Appends `bytes`, or fails without writing any of them.
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;

    /// Appends `n` zero bytes.
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        const ZEROS: [u8; 64] = [0; 64];
        let mut left = n;
        while left > 0 {
            let chunk = left.min(ZEROS.len());
            self.put(ZEROS.get(..chunk).unwrap_or(&[]))?;
            left = left.saturating_sub(chunk);
        }
        Ok(())
    }
}

/// Writes into a caller's `&mut [u8]`, refusing to pass its end.
#[derive(Debug)]
pub struct SliceOutput<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> SliceOutput<'b> {
    /// An output that starts at the beginning of `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceOutput { buf, pos: 0 }
    }

    /// Bytes written so far.
    pub fn written(&self) -> usize {
        self.pos
    }

    /// The written part of the buffer.
    pub fn into_written(self) -> &'b mut [u8] {
        let pos = self.pos;
        let (head, _) = self.buf.split_at_mut(pos.min(self.buf.len()));
        head
    }
}

impl Output for SliceOutput<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let available = self.buf.len();
        let end = self
            .pos
            .checked_add(bytes.len())
            .ok_or(EncodeError::Overflow {
                what: "output position",
            })?;
        let dst = self
            .buf
            .get_mut(self.pos..end)
            .ok_or(EncodeError::BufferTooSmall {
                needed: end,
                available,
            })?;
        dst.copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }
}

/// Counts bytes without storing them: how [`Encode::encoded_len`](crate::Encode::encoded_len)
/// learns a length from the same code that writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingOutput {
    len: usize,
}

impl CountingOutput {
    /// A counter at zero.
    pub const fn new() -> Self {
        CountingOutput { len: 0 }
    }

    /// Bytes counted.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was counted.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Output for CountingOutput {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.put_zeros(bytes.len())
    }

    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.len = self.len.checked_add(n).ok_or(EncodeError::Overflow {
            what: "encoded length",
        })?;
        Ok(())
    }
}

#[cfg(feature = "alloc")]
impl Output for alloc::vec::Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        let new_len = self.len().checked_add(n).ok_or(EncodeError::Overflow {
            what: "vector length",
        })?;
        self.resize(new_len, 0);
        Ok(())
    }
}
