//! [`Cursor`]: walks a record body or feature payload field by field, reversing the bytes
//! of each number in place and keeping the others.

use crate::swap::error::SwapError;
use crate::Endian;

/// A position in `bytes`, which are in byte order `from` before the cursor passes and in
/// the other one after.
pub(crate) struct Cursor<'b> {
    bytes: &'b mut [u8],
    pos: usize,
    from: Endian,
    /// The record type or feature, for errors.
    pub(crate) what: &'static str,
    /// Offset of `bytes` in the record or payload, for errors.
    base: usize,
}

impl<'b> Cursor<'b> {
    /// A cursor at the start of `bytes` (at `base` of the record or payload named `what`).
    pub(crate) fn new(bytes: &'b mut [u8], from: Endian, what: &'static str, base: usize) -> Self {
        Cursor {
            bytes,
            pos: 0,
            from,
            what,
            base,
        }
    }

    /// Bytes not yet passed.
    pub(crate) fn rest(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// Where the cursor is, from the start of the record or payload.
    pub(crate) fn offset(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    /// The error of a field that does not fit where the cursor is.
    pub(crate) fn truncated(&self, field: &'static str) -> SwapError {
        SwapError::Truncated {
            what: self.what,
            field,
            offset: self.offset(),
            len: self.base.saturating_add(self.bytes.len()),
        }
    }

    /// The next `n` bytes, passed.
    fn take(&mut self, n: usize, field: &'static str) -> Result<&mut [u8], SwapError> {
        let short = self.truncated(field);
        let at = self.pos;
        let end = at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(short)?;
        self.pos = end;
        self.bytes.get_mut(at..end).ok_or(short)
    }

    /// Reverses the next number of `n` bytes (2, 4 or 8) and gives its value as it was read
    /// in the input's byte order.
    pub(crate) fn number(&mut self, n: usize, field: &'static str) -> Result<u64, SwapError> {
        let from = self.from;
        let b = self.take(n, field)?;
        let value = match from {
            Endian::Little => b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)),
            Endian::Big => b.iter().fold(0u64, |v, &x| v << 8 | u64::from(x)),
        };
        b.reverse();
        Ok(value)
    }

    /// Passes `n` bytes kept as they are.
    pub(crate) fn keep(&mut self, n: u64, field: &'static str) -> Result<(), SwapError> {
        let n = usize::try_from(n).map_err(|_| self.truncated(field))?;
        self.take(n, field).map(drop)
    }

    /// Reverses every `u64` of the rest, which must be whole words.
    pub(crate) fn rest_u64(&mut self, field: &'static str) -> Result<(), SwapError> {
        if self.rest() % 8 != 0 {
            return Err(self.truncated(field));
        }
        while self.rest() != 0 {
            self.number(8, field)?;
        }
        Ok(())
    }

    /// Reverses `count` numbers of `n` bytes each.
    pub(crate) fn numbers(
        &mut self,
        count: u64,
        n: usize,
        field: &'static str,
    ) -> Result<(), SwapError> {
        let bytes = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(n))
            .filter(|&b| b <= self.rest())
            .ok_or_else(|| self.truncated(field))?;
        let b = self.take(bytes, field)?;
        b.chunks_exact_mut(n.max(1)).for_each(<[u8]>::reverse);
        Ok(())
    }

    /// Writes `value` over the bytes just passed (as many as it has).
    pub(crate) fn set_last(&mut self, value: &[u8]) {
        let at = self.pos.saturating_sub(value.len());
        if let Some(b) = self.bytes.get_mut(at..self.pos) {
            b.copy_from_slice(value);
        }
    }

    /// Every byte was passed.
    pub(crate) fn end(&self) -> Result<(), SwapError> {
        match self.rest() {
            0 => Ok(()),
            _ => Err(SwapError::Leftover {
                what: self.what,
                offset: self.offset(),
                len: self.base.saturating_add(self.bytes.len()),
            }),
        }
    }
}
