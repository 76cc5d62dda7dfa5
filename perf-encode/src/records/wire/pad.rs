//! Lengths and padding: every record and most fields are padded to 8 bytes.

use crate::{EncodeError, Encoder, Output};

/// `len` rounded up to a multiple of 8.
pub(crate) fn align8(len: usize, what: &'static str) -> Result<usize, EncodeError> {
    len.checked_add(7)
        .map(|n| n & !7)
        .ok_or(EncodeError::Overflow { what })
}

/// Writes `data` and zeros up to `padded` bytes (a name's NUL and padding, RAW's padding).
pub(crate) fn write_padded<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    data: &[u8],
    padded: usize,
) -> Result<(), EncodeError> {
    enc.bytes(data)?;
    enc.zeros(padded.saturating_sub(data.len()))
}

/// `n` 8-byte words in bytes.
#[inline]
pub(crate) fn words(n: usize) -> Result<usize, EncodeError> {
    n.checked_mul(8).ok_or(EncodeError::Overflow {
        what: "encoded length",
    })
}

/// `a + b` bytes.
#[inline]
pub(crate) fn add_len(a: usize, b: usize) -> Result<usize, EncodeError> {
    a.checked_add(b).ok_or(EncodeError::Overflow {
        what: "encoded length",
    })
}
