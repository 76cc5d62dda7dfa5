//! `struct perf_header_string` and string lists.

use crate::{Encode, EncodeError, Encoder, Output};

/// Alignment perf gives a string's length (`NAME_ALIGN`).
pub const STRING_ALIGN: usize = 64;

/// Largest string content accepted: perf reads lengths into signed 32-bit sizes.
pub const MAX_STRING_LEN: usize = 0x7fff_ffff - STRING_ALIGN;

/// Content of `value` up to (not including) its first NUL: a perf string is a C string.
pub fn c_str_prefix(value: &[u8]) -> &[u8] {
    match value.iter().position(|&b| b == 0) {
        Some(nul) => value.get(..nul).unwrap_or(value),
        None => value,
    }
}

/// A `perf_header_string`: `u32 len`, then the bytes, a NUL, and zero padding to `len`,
/// where `len` is the content plus NUL rounded up to 64 (as perf writes it).
///
/// The content ends at the first NUL of the value (C-string semantics), so a fixed-size
/// NUL-padded field such as `utsname.nodename` can be passed as it is. Bytes are written as
/// given: pass UTF-8 for non-ASCII text.
///
/// ```
/// use perf_encode::{to_vec, Endian, HeaderString};
/// let v = to_vec(&HeaderString::new(b"vm\0\0\0"), Endian::Little).unwrap();
/// assert_eq!(&v[..4], &64u32.to_le_bytes());
/// assert_eq!(&v[4..7], b"vm\0");
/// assert_eq!(v.len(), 4 + 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderString<'a> {
    content: &'a [u8],
}

impl<'a> HeaderString<'a> {
    /// The string of `value` up to its first NUL.
    pub fn new(value: &'a [u8]) -> Self {
        HeaderString {
            content: c_str_prefix(value),
        }
    }

    /// The string of `value`, refusing a NUL inside it rather than cutting the string there.
    ///
    /// # Errors
    ///
    /// [`EncodeError::InvalidValue`] when `value` holds a NUL byte.
    ///
    /// ```
    /// use perf_encode::{EncodeError, HeaderString};
    /// assert_eq!(HeaderString::from_str_strict("vm").map(|s| s.content()), Ok(&b"vm"[..]));
    /// assert!(matches!(HeaderString::from_str_strict("v\0m"), Err(EncodeError::InvalidValue { .. })));
    /// ```
    pub fn from_str_strict(value: &'a str) -> Result<Self, EncodeError> {
        if value.as_bytes().contains(&0) {
            return Err(EncodeError::InvalidValue {
                what: "string contains a NUL byte",
            });
        }
        Ok(HeaderString {
            content: value.as_bytes(),
        })
    }

    /// The bytes written before the NUL.
    pub fn content(&self) -> &'a [u8] {
        self.content
    }

    /// The `len` field: content and NUL rounded up to [`STRING_ALIGN`].
    ///
    /// # Errors
    ///
    /// [`EncodeError::TooLong`] `{ what: "string", .. }` when the content is longer than
    /// [`MAX_STRING_LEN`] bytes.
    ///
    /// ```
    /// use perf_encode::HeaderString;
    /// assert_eq!(HeaderString::new(b"x86_64").padded_len(), Ok(64));
    /// assert_eq!(HeaderString::new(&[b'a'; 64]).padded_len(), Ok(128));
    /// ```
    pub fn padded_len(&self) -> Result<u32, EncodeError> {
        let len = self.content.len();
        if len > MAX_STRING_LEN {
            return Err(EncodeError::TooLong {
                what: "string",
                len: len as u64,
                max: MAX_STRING_LEN as u64,
            });
        }
        let padded = len
            .checked_add(STRING_ALIGN)
            .map(|l| l & !(STRING_ALIGN - 1))
            .ok_or(EncodeError::Overflow {
                what: "string length",
            })?;
        u32::try_from(padded).map_err(|_| EncodeError::Overflow {
            what: "string length",
        })
    }
}

impl Encode for HeaderString<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let padded = self.padded_len()?;
        enc.u32(padded)?;
        enc.bytes(self.content)?;
        let pad = usize::try_from(padded)
            .ok()
            .and_then(|p| p.checked_sub(self.content.len()))
            .ok_or(EncodeError::Overflow {
                what: "string padding",
            })?;
        enc.zeros(pad)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        let padded = usize::try_from(self.padded_len()?).map_err(|_| EncodeError::Overflow {
            what: "string length",
        })?;
        padded.checked_add(4).ok_or(EncodeError::Overflow {
            what: "string length",
        })
    }
}

/// A string list: `u32 count`, then each item as a [`HeaderString`] (used by `CMDLINE`,
/// `CPU_TOPOLOGY`, …).
///
/// ```
/// use perf_encode::{to_vec, Endian, StringList};
/// let v = to_vec(&StringList::new(&["perf", "record"]), Endian::Little).unwrap();
/// assert_eq!(&v[..4], &2u32.to_le_bytes());
/// assert_eq!(v.len(), 4 + 2 * 68);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct StringList<'a, S: AsRef<[u8]>> {
    items: &'a [S],
}

impl<'a, S: AsRef<[u8]>> StringList<'a, S> {
    /// The list of `items`; each item ends at its first NUL.
    pub fn new(items: &'a [S]) -> Self {
        StringList { items }
    }
}

impl<S: AsRef<[u8]>> Encode for StringList<'_, S> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let count = u32::try_from(self.items.len())
            .ok()
            .filter(|&c| c <= i32::MAX as u32)
            .ok_or(EncodeError::TooLong {
                what: "string list",
                len: self.items.len() as u64,
                max: i32::MAX as u64,
            })?;
        enc.u32(count)?;
        self.items
            .iter()
            .try_for_each(|s| enc.encode(&HeaderString::new(s.as_ref())))
    }
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::{to_slice, to_vec, Endian};

    #[test]
    fn lengths_round_to_64_including_the_nul() {
        for (len, padded) in [
            (0usize, 64u32),
            (62, 64),
            (63, 64),
            (64, 128),
            (127, 128),
            (128, 192),
        ] {
            let content = alloc::vec![b'a'; len];
            let s = HeaderString::new(&content);
            assert_eq!(s.padded_len(), Ok(padded), "len {len}");
            let v = to_vec(&s, Endian::Big).unwrap();
            assert_eq!(&v[..4], &padded.to_be_bytes());
            assert_eq!(v.len(), 4 + padded as usize);
            assert!(v[4 + len..].iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn utf8_is_kept_byte_for_byte() {
        let s = HeaderString::from_str_strict("événement").unwrap();
        let v = to_vec(&s, Endian::Little).unwrap();
        assert_eq!(&v[4..4 + "événement".len()], "événement".as_bytes());
        assert!(HeaderString::from_str_strict("a\0b").is_err());
    }

    #[test]
    fn short_buffer_is_an_error_and_untouched() {
        let s = HeaderString::new(b"hostname");
        let mut buf = [0xAAu8; 67];
        assert_eq!(
            to_slice(&s, Endian::Little, &mut buf),
            Err(EncodeError::BufferTooSmall {
                needed: 68,
                available: 67
            })
        );
        assert!(buf.iter().all(|&b| b == 0xAA));
    }
}
