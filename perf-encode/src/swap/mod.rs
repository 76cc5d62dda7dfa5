//! Byte order conversion: records ([`RecordSwapper`]) and feature payloads
//! ([`swap_feature`]) rewritten in the other byte order, field by field, as the tables of
//! [`perf_abi::field_widths`] and the SAMPLE table lay them out.
//!
//! What is kept as stored: names and other byte strings, build ids, the data of RAW (its
//! tracepoint fields are in the byte order TRACING_DATA says, and TRACING_DATA is kept:
//! perf undoes its `u64` swap of a RAW area and reads the fields by that flag), the user
//! stack of STACK_USER and the data of AUX and AUXTRACE (memory and hardware trace of the
//! machine that recorded them). BRANCH_STACK flags move to where the other byte order's
//! kernel packs their bit-fields.
//!
//! Nothing here panics: input that does not fit its layout is a [`SwapError`] naming the
//! record type or feature and the field. Swapping twice gives the input back.

mod cpu_map;
mod cursor;
mod error;
mod feature;
mod parts;
mod record;
mod sample;
mod trailer;

pub use error::SwapError;
pub use feature::{swap_feature, FeatureContext};
pub use record::{RecordSwapper, SwapEvent};

use crate::Endian;

/// The byte order that is not `e`.
pub(crate) const fn other(e: Endian) -> Endian {
    match e {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    }
}
