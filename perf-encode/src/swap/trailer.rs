//! The `sample_id` trailer of kernel records other than SAMPLE.

use crate::records::SampleLayout;
use crate::swap::cursor::Cursor;
use crate::swap::error::SwapError;
use perf_abi::sample_type::{CPU, ID, IDENTIFIER, STREAM_ID, TID, TIME};

/// The trailer's fields in the kernel's order (`perf_event__output_id_sample`): the
/// `sample_type` bit, its name, and whether it is two `u32` (else one `u64`).
const TRAILER: [(u64, &str, bool); 6] = [
    (TID, "sample_id.tid", true),
    (TIME, "sample_id.time", false),
    (ID, "sample_id.id", false),
    (STREAM_ID, "sample_id.stream_id", false),
    (CPU, "sample_id.cpu", true),
    (IDENTIFIER, "sample_id.identifier", false),
];

/// Swaps the trailer `layout` lays out; the cursor holds exactly its bytes.
pub(crate) fn swap_trailer(c: &mut Cursor<'_>, layout: &SampleLayout) -> Result<(), SwapError> {
    let bits = layout.sample_id_bits();
    for (bit, field, pair) in TRAILER {
        if bits & bit == 0 {
            continue;
        }
        if pair {
            c.number(4, field)?;
            c.number(4, field)?;
        } else {
            c.number(8, field)?;
        }
    }
    c.end()
}
