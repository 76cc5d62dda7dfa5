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
    ///
    /// # Errors
    ///
    /// When the output cannot take the bytes. The outputs of this crate:
    /// - [`SliceOutput`]: [`EncodeError::BufferTooSmall`] `{ needed, available }` when the
    ///   bytes would pass the end of the slice (`needed` is the position after them,
    ///   `available` the slice's length), or [`EncodeError::Overflow`] when that position
    ///   passes `usize::MAX`;
    /// - [`CountingOutput`]: [`EncodeError::Overflow`] when the count passes `usize::MAX`;
    /// - `Vec<u8>`: never.
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;

    /// Appends `n` zero bytes.
    ///
    /// # Errors
    ///
    /// As [`Output::put`] of `n` bytes; a `Vec<u8>` fails with [`EncodeError::Overflow`]
    /// when its length would pass `usize::MAX`. The default writes the zeros in pieces of
    /// 64 bytes through [`Output::put`], so on an error some of them may be written.
    #[inline]
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
    #[inline]
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceOutput { buf, pos: 0 }
    }

    /// Bytes written so far.
    #[inline]
    pub fn written(&self) -> usize {
        self.pos
    }

    /// The written part of the buffer.
    #[inline]
    pub fn into_written(self) -> &'b mut [u8] {
        let pos = self.pos;
        let (head, _) = self.buf.split_at_mut(pos.min(self.buf.len()));
        head
    }
}

impl SliceOutput<'_> {
    /// The `n` bytes after the ones written, if the buffer has them.
    #[inline]
    fn next_mut(&mut self, n: usize) -> Option<&mut [u8]> {
        self.buf.get_mut(self.pos..)?.get_mut(..n)
    }

    /// Why `n` more bytes do not fit (kept out of line: the fitting case is the hot one).
    #[cold]
    #[inline(never)]
    fn overrun(&self, n: usize) -> EncodeError {
        match self.pos.checked_add(n) {
            Some(end) => EncodeError::BufferTooSmall {
                needed: end,
                available: self.buf.len(),
            },
            None => EncodeError::Overflow {
                what: "output position",
            },
        }
    }
}

impl Output for SliceOutput<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let Some(dst) = self.next_mut(bytes.len()) else {
            return Err(self.overrun(bytes.len()));
        };
        dst.copy_from_slice(bytes);
        // Cannot saturate: `pos + len` is within the buffer.
        self.pos = self.pos.saturating_add(bytes.len());
        Ok(())
    }

    #[inline]
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        let Some(dst) = self.next_mut(n) else {
            return Err(self.overrun(n));
        };
        dst.fill(0);
        self.pos = self.pos.saturating_add(n);
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
    #[inline]
    pub const fn new() -> Self {
        CountingOutput { len: 0 }
    }

    /// Bytes counted.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was counted.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Output for CountingOutput {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.put_zeros(bytes.len())
    }

    #[inline]
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.len = self.len.checked_add(n).ok_or(EncodeError::Overflow {
            what: "encoded length",
        })?;
        Ok(())
    }
}

#[cfg(feature = "alloc")]
impl Output for alloc::vec::Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        let new_len = self.len().checked_add(n).ok_or(EncodeError::Overflow {
            what: "vector length",
        })?;
        self.resize(new_len, 0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_output_refuses_whole_puts() {
        let mut buf = [0xffu8; 8];
        let mut out = SliceOutput::new(&mut buf);
        out.put(&[1, 2, 3]).unwrap();
        out.put_zeros(2).unwrap();
        assert_eq!(
            out.put_zeros(4),
            Err(EncodeError::BufferTooSmall {
                needed: 9,
                available: 8
            })
        );
        assert_eq!(
            out.put(&[7; 4]),
            Err(EncodeError::BufferTooSmall {
                needed: 9,
                available: 8
            })
        );
        out.put(&[9; 3]).unwrap();
        assert_eq!(out.written(), 8);
        assert_eq!(out.into_written(), &[1, 2, 3, 0, 0, 9, 9, 9]);
    }
}
