//! The one error type of the encoder.

use core::fmt;

/// Why something could not be encoded. Every encoder returns this instead of panicking.
///
/// ```
/// use perf_encode::{to_slice, Endian, EncodeError, HeaderString};
/// let mut buf = [0u8; 8];
/// let err = to_slice(&HeaderString::new(b"vm"), Endian::Little, &mut buf).unwrap_err();
/// assert_eq!(err, EncodeError::BufferTooSmall { needed: 68, available: 8 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The caller's buffer is shorter than the encoding; nothing was written.
    BufferTooSmall {
        /// Bytes the encoding needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// A value is longer, or a count larger, than the format (or perf) allows.
    TooLong {
        /// What is too long.
        what: &'static str,
        /// Its length or count.
        len: u64,
        /// The largest allowed.
        max: u64,
    },
    /// Offsets or sizes add up to more than the format's integers hold.
    Overflow {
        /// What overflowed.
        what: &'static str,
    },
    /// An attr's `size` is not a published `PERF_ATTR_SIZE_VER*`.
    InvalidAttrSize {
        /// The size given.
        size: u32,
    },
    /// A record's size is not a multiple of 8 or does not fit `perf_event_header.size`.
    InvalidRecordSize {
        /// The size of the whole record.
        size: u64,
    },
    /// A feature index outside the 256-bit bitmap, or the reserved bit 0.
    InvalidFeature {
        /// The index given.
        index: u32,
    },
    /// Items that must be in order are not (features ascending, tracepoints grouped by system).
    Unordered {
        /// What is out of order.
        what: &'static str,
    },
    /// A value the format cannot carry (for example a NUL inside a name).
    InvalidValue {
        /// What is wrong.
        what: &'static str,
    },
    /// Formatting a tracefs format text failed.
    Format,
    /// A field the attr's layout (`sample_type`, `read_format`, `sample_id_all`, …) requires
    /// is missing from a typed record description.
    MissingField {
        /// The record (`"SAMPLE"`, `"COMM"`, …).
        record: &'static str,
        /// The field (`"time"`, `"sample_id.cpu"`, …).
        field: &'static str,
    },
    /// A typed record description has a field the attr's layout does not have.
    UnexpectedField {
        /// The record (`"SAMPLE"`, `"COMM"`, …).
        record: &'static str,
        /// The field (`"addr"`, `"sample_id.time"`, …).
        field: &'static str,
    },
    /// A field has a different number of items than the attr's layout says (registers of
    /// `sample_regs_user`, for example).
    FieldCount {
        /// The record.
        record: &'static str,
        /// The field.
        field: &'static str,
        /// Items the layout implies.
        expected: u64,
        /// Items given.
        actual: u64,
    },
    /// An encoder wrote a different length than it announced (a bug in this crate: reported,
    /// never a panic).
    LengthMismatch {
        /// Announced length.
        announced: usize,
        /// Length written.
        written: usize,
    },
    /// A growable buffer could not grow by the encoding's length (the allocator refused it,
    /// or it is more than a `Vec` can hold); nothing was written.
    OutOfMemory {
        /// Bytes the encoding needs.
        needed: usize,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BufferTooSmall { needed, available } => {
                write!(
                    f,
                    "buffer too small: {needed} bytes needed, {available} available"
                )
            }
            Self::TooLong { what, len, max } => {
                write!(f, "{what} is too long: {len} (at most {max})")
            }
            Self::Overflow { what } => write!(f, "{what} overflows the format's integer range"),
            Self::InvalidAttrSize { size } => {
                write!(
                    f,
                    "perf_event_attr size {size} is not a published PERF_ATTR_SIZE_VER*"
                )
            }
            Self::InvalidRecordSize { size } => write!(
                f,
                "record size {size} is not a multiple of 8 between 8 and 65528"
            ),
            Self::InvalidFeature { index } => write!(f, "feature index {index} is not usable"),
            Self::Unordered { what } => write!(f, "{what} are not in the required order"),
            Self::InvalidValue { what } => f.write_str(what),
            Self::Format => f.write_str("formatting a tracefs format text failed"),
            Self::MissingField { record, field } => write!(
                f,
                "{record} record: field {field} is required by the attr's layout but missing"
            ),
            Self::UnexpectedField { record, field } => write!(
                f,
                "{record} record: field {field} is given but the attr's layout does not have it"
            ),
            Self::FieldCount {
                record,
                field,
                expected,
                actual,
            } => write!(
                f,
                "{record} record: field {field} has {actual} items, the attr's layout says {expected}"
            ),
            Self::LengthMismatch { announced, written } => write!(
                f,
                "internal error: encoder announced {announced} bytes but wrote {written}"
            ),
            Self::OutOfMemory { needed } => {
                write!(f, "no memory for the encoding's {needed} bytes")
            }
        }
    }
}

impl core::error::Error for EncodeError {}
