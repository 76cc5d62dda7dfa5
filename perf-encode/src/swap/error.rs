//! [`SwapError`]: why a record or feature payload could not be written in the other byte order.

use core::fmt;

/// Why [`swap_record`](crate::swap::RecordSwapper::swap_record) or
/// [`swap_feature`](crate::swap::swap_feature) refused its input. `what` names the record
/// type or feature (perf's name), `field` the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapError {
    /// A field does not fit in the bytes (or in `header.size`), or says a length that does
    /// not.
    Truncated {
        /// The record type or feature.
        what: &'static str,
        /// The field.
        field: &'static str,
        /// Where the field starts, in bytes from the start of the record or payload.
        offset: usize,
        /// Bytes there are.
        len: usize,
    },
    /// Bytes follow the last field.
    Leftover {
        /// The record type or feature.
        what: &'static str,
        /// Where the last field ended.
        offset: usize,
        /// Bytes there are.
        len: usize,
    },
    /// A field holds a value that leaves the rest unreadable (a CPU_MAP type, a size).
    BadValue {
        /// The record type or feature.
        what: &'static str,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A record type perf 6.1 does not know: its fields are unknown.
    UnknownRecord {
        /// `header.type`.
        type_: u32,
    },
    /// A feature perf 6.1 does not know: its fields are unknown.
    UnknownFeature {
        /// Its bit.
        bit: u8,
    },
    /// A record or feature that is known but not swapped on its own.
    NotSwappable {
        /// The record type or feature.
        what: &'static str,
        /// Why.
        why: &'static str,
    },
    /// A record's event id belongs to no event (its layout is unknown).
    UnknownEvent {
        /// The record type.
        what: &'static str,
        /// The id.
        id: u64,
    },
}

impl fmt::Display for SwapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated {
                what,
                field,
                offset,
                len,
            } => write!(
                f,
                "{what}: its field {field} at byte {offset} does not fit in its {len} bytes"
            ),
            Self::Leftover { what, offset, len } => write!(
                f,
                "{what}: {} bytes after its last field (at byte {offset} of {len})",
                len.saturating_sub(offset)
            ),
            Self::BadValue { what, field, value } => {
                write!(
                    f,
                    "{what}: its field {field} has the value {value}, which it cannot have"
                )
            }
            Self::UnknownRecord { type_ } => write!(
                f,
                "record type {type_} is unknown to perf 6.1: its fields cannot be byte-swapped"
            ),
            Self::UnknownFeature { bit } => write!(
                f,
                "feature bit {bit} is unknown to perf 6.1: its payload cannot be byte-swapped"
            ),
            Self::NotSwappable { what, why } => write!(f, "{what} cannot be byte-swapped: {why}"),
            Self::UnknownEvent { what, id } => write!(
                f,
                "{what}: its event id {id} belongs to no event, so its layout is unknown"
            ),
        }
    }
}
