//! [`TracepointRawRule`]: what the RAW payload of a tracepoint SAMPLE must start with. perf
//! finds a RAW payload's format by the `common_type` in it (not by the attr), and perf 6.1
//! crashes on a payload whose `common_type` names no format or that is shorter than the
//! common fields; a payload shorter than the format's other fields makes it print the bytes
//! after the record as their values.

use crate::features::FormatSummary;
use crate::Endian;
use core::fmt;

/// The `__data_loc` and `__rel_loc` fields of a format (at most [`DynamicFields::MAX`]):
/// where each is in the RAW payload. perf reads the `u32` there as the offset (its low 16
/// bits; for `__rel_loc` counted from the end of the field) and the length (its high 16
/// bits) of the field's data, and crashes when that lies outside the payload. A field the
/// print format gives to `__get_str` or `__get_rel_str` is read as a string: from its data
/// to the first NUL, which must be within the data.
///
/// ```
/// use perf_encode::features::DynamicFields;
/// let mut d = DynamicFields::default();
/// assert!(d.push(8, false));
/// assert!(d.mark_string(8));
/// assert_eq!(d.iter().collect::<Vec<_>>(), [(8, false)]);
/// assert_eq!(d.fields().collect::<Vec<_>>(), [(8, false, true)]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DynamicFields {
    offsets: [u16; DynamicFields::MAX],
    /// Bit `k`: the `k`-th field is a `__rel_loc`.
    relative: u16,
    /// Bit `k`: the `k`-th field is read as a string.
    strings: u16,
    len: u8,
}

impl DynamicFields {
    /// The most dynamic fields a format may have (the kernel's have a few).
    pub const MAX: usize = 16;

    /// Adds a field at `offset`; false (nothing added) when [`MAX`](Self::MAX) are there
    /// or the offset does not fit a record.
    pub fn push(&mut self, offset: u32, relative: bool) -> bool {
        let k = usize::from(self.len);
        let (Some(slot), Ok(offset)) = (self.offsets.get_mut(k), u16::try_from(offset)) else {
            return false;
        };
        *slot = offset;
        self.relative |= u16::from(relative) << (k & 15);
        self.len = self.len.saturating_add(1);
        true
    }

    /// Marks the field at `offset` as read as a string; false when no field is there.
    pub fn mark_string(&mut self, offset: u32) -> bool {
        let found = self
            .offsets
            .get(..usize::from(self.len))
            .and_then(|o| o.iter().position(|&o| u32::from(o) == offset));
        match found {
            Some(k) => {
                self.strings |= 1 << (k & 15);
                true
            }
            None => false,
        }
    }

    /// The fields: (offset, is a `__rel_loc`, is read as a string).
    #[inline]
    pub fn fields(&self) -> impl Iterator<Item = (u32, bool, bool)> + '_ {
        let mut strings = self.strings;
        self.iter().map(move |(offset, relative)| {
            let string = strings & 1 != 0;
            strings >>= 1;
            (offset, relative, string)
        })
    }

    /// The fields: (offset, is a `__rel_loc`).
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        let offsets = self
            .offsets
            .get(..usize::from(self.len))
            .unwrap_or_default();
        let mut relative = self.relative;
        offsets.iter().map(move |&o| {
            let rel = relative & 1 != 0;
            relative >>= 1;
            (u32::from(o), rel)
        })
    }
}

/// The rule for the RAW payloads of one tracepoint event: at least `min_len` bytes (all its
/// fields), the `u16` at `common_type_offset` equal to `common_type` in the file's byte
/// order, and the data of each dynamic field within the payload. Checking it is one length
/// and one `u16` compare, and one `u32` read per dynamic field.
///
/// ```
/// use perf_encode::features::{TracepointRawProblem, TracepointRawRule};
/// use perf_encode::Endian;
/// let rule = TracepointRawRule { common_type: 316, common_type_offset: 0, min_len: 8, dynamic: Default::default() };
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
    /// The format's `__data_loc` and `__rel_loc` fields.
    pub dynamic: DynamicFields,
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
    /// A dynamic field's data does not lie within the payload.
    DynamicData {
        /// Where the `__data_loc` (or `__rel_loc`) field is.
        field: u32,
        /// Where its data ends.
        end: u32,
        /// The payload's length.
        len: usize,
    },
    /// The data of a dynamic field read as a string holds no NUL: perf would print the
    /// bytes after it, past the record.
    UnterminatedString {
        /// Where the `__data_loc` (or `__rel_loc`) field is.
        field: u32,
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
            Self::DynamicData { field, end, len } => write!(
                f,
                "the data of the dynamic field at {field} ends at {end}, past the RAW payload's {len} bytes"
            ),
            Self::UnterminatedString { field } => write!(
                f,
                "the string of the dynamic field at {field} has no NUL within its data (perf would print past it)"
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
            dynamic: summary.dynamic,
        }
    }

    /// Where `common_type` (a u16) is in the RAW payload: what [`check`](Self::check) reads
    /// besides the payload's length.
    pub const fn common_type_offset(&self) -> u32 {
        self.common_type_offset
    }

    /// Checks a RAW payload written in `endian`.
    ///
    /// # Errors
    ///
    /// The first of:
    /// - [`TracepointRawProblem::TooShort`] `{ len, min }` when the payload is shorter than
    ///   `min_len`, or than the `u16` at `common_type_offset`;
    /// - [`TracepointRawProblem::CommonType`] `{ found, expected }` when that `u16` is not
    ///   `common_type`;
    /// - the errors of [`check_dynamic_fields`](Self::check_dynamic_fields).
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
        self.check_dynamic_fields(raw, endian)
    }

    /// The part of [`check`](Self::check) that reads the dynamic fields' words.
    ///
    /// For a caller that knows the rest holds: a payload as long as one that passed, with
    /// the same `common_type`.
    ///
    /// # Errors
    ///
    /// - [`TracepointRawProblem::TooShort`] when a dynamic field's `u32` is not within the
    ///   payload;
    /// - [`TracepointRawProblem::DynamicData`] `{ field, end, len }` when the data it points
    ///   at ends at `end`, past the payload's `len` bytes;
    /// - [`TracepointRawProblem::UnterminatedString`] when a field read as a string has no
    ///   NUL within its data.
    #[inline(always)]
    pub fn check_dynamic_fields(
        &self,
        raw: &[u8],
        endian: Endian,
    ) -> Result<(), TracepointRawProblem> {
        let too_short = TracepointRawProblem::TooShort {
            len: raw.len(),
            min: self.min_len,
        };
        let d = &self.dynamic;
        let offsets = d.offsets.get(..usize::from(d.len)).unwrap_or_default();
        for (k, &field) in offsets.iter().enumerate() {
            let field = u32::from(field);
            let loc = raw.get(field as usize..).and_then(|r| r.first_chunk::<4>());
            let loc = endian.read_u32(*loc.ok_or(too_short)?);
            // Each term below 2^16 + 4: no wrap in u32.
            let from = match d.relative >> (k & 15) & 1 {
                0 => 0,
                _ => field.wrapping_add(4),
            };
            let start = from.wrapping_add(loc & 0xffff);
            let end = start.wrapping_add(loc >> 16);
            if end as usize > raw.len() {
                return Err(TracepointRawProblem::DynamicData {
                    field,
                    end,
                    len: raw.len(),
                });
            }
            // The kernel ends a string's data with its NUL: that byte first. (`end` is
            // within the payload, and at least `start`.)
            if d.strings >> (k & 15) & 1 != 0
                && !(end > start && raw.get((end as usize).wrapping_sub(1)) == Some(&0))
                && !holds_nul(raw, start, end)
            {
                return Err(TracepointRawProblem::UnterminatedString { field });
            }
        }
        Ok(())
    }
}

/// `raw[start..end]` holds a 0 byte (out of line: a string's NUL is almost always its last
/// byte, which the caller reads first).
#[cold]
#[inline(never)]
fn holds_nul(raw: &[u8], start: u32, end: u32) -> bool {
    raw.get(start as usize..end as usize)
        .is_some_and(|data| data.contains(&0))
}

#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code: a failed unwrap or index fails the test
#[cfg(test)]
mod tests {
    use super::*;

    /// perf reads a dynamic field's `u32` as offset (low 16 bits, from the end of the field
    /// for `__rel_loc`) and length (high 16 bits); the data must lie within the payload.
    #[test]
    fn dynamic_data_must_lie_within_the_payload() {
        let mut dynamic = DynamicFields::default();
        assert!(dynamic.push(4, false) && dynamic.push(8, true));
        let rule = TracepointRawRule {
            common_type: 7,
            common_type_offset: 0,
            min_len: 12,
            dynamic,
        };
        for endian in [Endian::Little, Endian::Big] {
            let raw = |data_loc: u32, rel_loc: u32, len: usize| {
                let mut raw = [0u8; 32];
                raw[..2].copy_from_slice(&endian.u16_bytes(7));
                raw[4..8].copy_from_slice(&endian.u32_bytes(data_loc));
                raw[8..12].copy_from_slice(&endian.u32_bytes(rel_loc));
                raw[..len].to_vec()
            };
            // 4 bytes at 12; 4 bytes 8 after the rel_loc's end (12): 20..24.
            assert_eq!(
                rule.check(&raw(4 << 16 | 12, 4 << 16 | 8, 24), endian),
                Ok(())
            );
            assert_eq!(
                rule.check(&raw(4 << 16 | 12, 4 << 16 | 8, 23), endian),
                Err(TracepointRawProblem::DynamicData {
                    field: 8,
                    end: 24,
                    len: 23
                })
            );
            assert_eq!(
                rule.check(&raw(0x4141_4141, 0, 32), endian),
                Err(TracepointRawProblem::DynamicData {
                    field: 4,
                    end: 0x8282,
                    len: 32
                })
            );
            assert_eq!(rule.check(&raw(0, 0, 12), endian), Ok(()));
        }
    }

    #[test]
    fn at_most_max_dynamic_fields() {
        let mut d = DynamicFields::default();
        for k in 0..DynamicFields::MAX as u32 {
            assert!(d.push(k * 4, k % 3 == 0));
        }
        assert!(!d.push(100, false));
        assert_eq!(d.iter().count(), DynamicFields::MAX);
        assert!(d.iter().all(|(o, rel)| rel == (o / 4 % 3 == 0)));
        assert!(!DynamicFields::default().push(70_000, false));
    }
}
