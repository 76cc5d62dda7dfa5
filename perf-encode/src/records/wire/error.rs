//! Why raw record bytes do not match an attr's layout.

use core::fmt;

/// Why the bytes of a record cannot be read with an attr's layout. The parsers return this
/// for any input instead of panicking.
///
/// ```
/// use perf_encode::records::{parse_sample, ParseError, SampleLayout};
/// use perf_encode::Endian;
/// let err = parse_sample(&SampleLayout::default(), Endian::Little, &[9, 0, 0]).unwrap_err();
/// assert_eq!(err, ParseError::Truncated { record: "SAMPLE", field: "header", offset: 0, available: 3 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseError {
    /// The bytes end inside a field.
    Truncated {
        /// The record being read.
        record: &'static str,
        /// The field that does not fit.
        field: &'static str,
        /// Offset of the field from the start of the record.
        offset: usize,
        /// Bytes available.
        available: usize,
    },
    /// The record's `header.size` differs from the length its fields and the layout imply.
    SizeMismatch {
        /// The record being read.
        record: &'static str,
        /// `header.size`.
        header_size: usize,
        /// Length implied by the layout and the record's counts.
        implied: usize,
    },
    /// STACK_USER says more of its stack is valid (`dyn_size`) than it holds (`size`): perf
    /// refuses the sample (and stops processing the file).
    StackDynSize {
        /// The valid bytes it says.
        dyn_size: u64,
        /// The bytes it holds.
        size: u64,
    },
    /// A READ group of no counter: perf refuses the sample (and stops processing the file);
    /// a group has its leader at least.
    EmptyReadGroup,
    /// A field holds a value perf does not read (a kind, a size).
    BadValue {
        /// The record being read.
        record: &'static str,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// The record's type is not the one the parser reads.
    WrongType {
        /// Type the parser reads.
        expected: u32,
        /// Type found.
        found: u32,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated {
                record,
                field,
                offset,
                available,
            } => write!(
                f,
                "{record} record: field {field} at byte {offset} does not fit in {available} bytes"
            ),
            Self::SizeMismatch {
                record,
                header_size,
                implied,
            } => write!(
                f,
                "{record} record: header.size is {header_size} but the attr's layout implies {implied}"
            ),
            Self::StackDynSize { dyn_size, size } => write!(
                f,
                "SAMPLE record: stack_user.dyn_size {dyn_size} is more than its size {size}"
            ),
            Self::EmptyReadGroup => {
                f.write_str("SAMPLE record: its READ group has no counter (nr is 0)")
            }
            Self::BadValue {
                record,
                field,
                value,
            } => write!(f, "{record} record: {field} {value} is not one perf reads"),
            Self::WrongType { expected, found } => {
                write!(f, "record type {found} where type {expected} was expected")
            }
        }
    }
}

impl core::error::Error for ParseError {}
