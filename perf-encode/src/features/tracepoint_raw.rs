//! [`TracepointRawRule`]: what the RAW payload of a tracepoint SAMPLE must start with. perf
//! finds a RAW payload's format by the `common_type` in it (not by the attr), and perf 6.1
//! crashes on a payload whose `common_type` names no format or that is shorter than the
//! common fields; a payload shorter than the format's other fields makes it print the bytes
//! after the record as their values.

use crate::features::FormatSummary;
use crate::Endian;
use core::fmt;

/// The rule for the RAW payloads of one tracepoint event: at least `min_len` bytes (all its
/// fields; a `__data_loc` field's data is not checked), and the `u16` at `common_type_offset` equal to `common_type` in the
/// file's byte order. Checking it is one length and one `u16` compare.
///
/// ```
/// use perf_encode::features::{TracepointRawProblem, TracepointRawRule};
/// use perf_encode::Endian;
/// let rule = TracepointRawRule { common_type: 316, common_type_offset: 0, min_len: 8 };
/// let mut raw = [0u8; 12];
/// raw[..2].copy_from_slice(&316u16.to_le_bytes());
/// assert_eq!(rule.check(&raw, Endian::Little), Ok(()));
/// assert_eq!(
///     rule.check(&[0; 12], Endian::Little),
///     Err(TracepointRawProblem::CommonType { found: 0, expected: 316 })
/// );
/// assert_eq!(rule.check(&raw[..4], Endian::Little), Err(TracepointRawProblem::TooShort { len: 4, min: 8 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracepointRawRule {
    /// The format's `ID`.
    pub common_type: u16,
    /// Where `common_type` is in the payload (0 in every kernel's formats).
    pub common_type_offset: u32,
    /// The end of the format's last field: the least payload (perf reads every field of
    /// every record; a shorter payload makes it read the bytes after the record).
    pub min_len: u32,
}

/// Why a RAW payload breaks its [`TracepointRawRule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TracepointRawProblem {
    /// Shorter than the format's fields.
    TooShort {
        /// The payload's length.
        len: usize,
        /// The end of the format's last field.
        min: u32,
    },
    /// Its `common_type` is not the format's id (left 0, or another event's).
    CommonType {
        /// The payload's `common_type`.
        found: u16,
        /// The format's id.
        expected: u16,
    },
}

impl fmt::Display for TracepointRawProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort { len, min } => write!(
                f,
                "the RAW payload is {len} bytes, shorter than the format's fields ({min})"
            ),
            Self::CommonType { found, expected } => write!(
                f,
                "the RAW payload's common_type is {found}, its format's id is {expected}"
            ),
        }
    }
}

impl core::error::Error for TracepointRawProblem {}

impl TracepointRawRule {
    /// The rule of a checked format text.
    pub fn from_summary(summary: &FormatSummary<'_>) -> Self {
        TracepointRawRule {
            common_type: summary.id,
            common_type_offset: summary.common_type_offset,
            min_len: summary.fields_end,
        }
    }

    /// Where `common_type` (a u16) is in the RAW payload: what [`check`](Self::check) reads
    /// besides the payload's length.
    pub const fn common_type_offset(&self) -> u32 {
        self.common_type_offset
    }

    /// Checks a RAW payload written in `endian`.
    #[inline]
    pub fn check(&self, raw: &[u8], endian: Endian) -> Result<(), TracepointRawProblem> {
        let too_short = TracepointRawProblem::TooShort {
            len: raw.len(),
            min: self.min_len,
        };
        if raw.len() < self.min_len as usize {
            return Err(too_short);
        }
        let at = self.common_type_offset as usize;
        let bytes = raw.get(at..).and_then(|r| r.first_chunk::<2>());
        let found = endian.read_u16(*bytes.ok_or(too_short)?);
        if found != self.common_type {
            return Err(TracepointRawProblem::CommonType {
                found,
                expected: self.common_type,
            });
        }
        Ok(())
    }
}
