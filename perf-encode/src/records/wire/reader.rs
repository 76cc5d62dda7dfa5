//! A bounds-checked reader of record bytes in one byte order: the SAMPLE table's walk, READ
//! values and the `sample_id` trailer read through it.

use crate::records::wire::error::ParseError;
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

/// `u64`s in a record, read on access in the record's byte order (records are not aligned
/// for `&[u64]`, nor in the host's byte order).
///
/// ```
/// use perf_encode::{records::U64Array, Endian};
/// let a = U64Array::new(&[0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2], Endian::Big);
/// assert_eq!(a.len(), 2);
/// assert_eq!(a.iter().collect::<Vec<_>>(), [1, 2]);
/// assert_eq!(a.get(2), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct U64Array<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl<'a> U64Array<'a> {
    /// The `u64`s of `bytes` (a trailing partial word is ignored).
    pub fn new(bytes: &'a [u8], endian: Endian) -> Self {
        let whole = bytes.len() & !7;
        U64Array {
            bytes: bytes.get(..whole).unwrap_or(&[]),
            endian,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.bytes.len() / 8
    }

    /// True when there is no value.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Value `i`.
    pub fn get(&self, i: usize) -> Option<u64> {
        let start = i.checked_mul(8)?;
        let b: [u8; 8] = self
            .bytes
            .get(start..start.checked_add(8)?)?
            .try_into()
            .ok()?;
        Some(self.endian.read_u64(b))
    }

    /// The values in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + 'a {
        let endian = self.endian;
        self.bytes.chunks_exact(8).filter_map(move |c| {
            let b: [u8; 8] = c.try_into().ok()?;
            Some(endian.read_u64(b))
        })
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The byte order the values are read in.
    pub fn endian(&self) -> Endian {
        self.endian
    }
}
