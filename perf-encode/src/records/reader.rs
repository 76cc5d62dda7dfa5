//! A bounds-checked reader of record bytes in one byte order (private to the parsers).

use crate::records::parse_error::ParseError;
use crate::records::sample_parse::U64Array;
use crate::Endian;

/// Reads fields in order from `bytes`; every read is checked and reports the field.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    endian: Endian,
    record: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], pos: usize, endian: Endian, record: &'static str) -> Self {
        Reader {
            bytes,
            pos,
            endian,
            record,
        }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    fn truncated(&self, field: &'static str) -> ParseError {
        ParseError::Truncated {
            record: self.record,
            field,
            offset: self.pos,
            available: self.bytes.len(),
        }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], ParseError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.truncated(field))?;
        let b = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| self.truncated(field))?;
        self.pos = end;
        Ok(b)
    }

    /// The next `N` bytes as an array.
    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], ParseError> {
        let b = self.take(N, field)?;
        b.try_into().map_err(|_| self.truncated(field))
    }

    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16, ParseError> {
        Ok(self.endian.read_u16(self.array(field)?))
    }

    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32, ParseError> {
        Ok(self.endian.read_u32(self.array(field)?))
    }

    pub(crate) fn u64(&mut self, field: &'static str) -> Result<u64, ParseError> {
        Ok(self.endian.read_u64(self.array(field)?))
    }

    /// The next `count` `u64`s, unread.
    pub(crate) fn u64s(
        &mut self,
        count: u64,
        field: &'static str,
    ) -> Result<U64Array<'a>, ParseError> {
        let n = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(8))
            .ok_or_else(|| self.truncated(field))?;
        let bytes = self.take(n, field)?;
        Ok(U64Array::new(bytes, self.endian))
    }
}
