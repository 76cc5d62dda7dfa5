//! Counts and lengths shared by the feature encoders.

use crate::EncodeError;

/// `n` as the `u32` count perf reads (at most `i32::MAX`: perf sizes its allocations with
/// signed integers).
pub(crate) fn count_u32(what: &'static str, n: usize) -> Result<u32, EncodeError> {
    u32::try_from(n)
        .ok()
        .filter(|&c| c <= i32::MAX as u32)
        .ok_or(EncodeError::TooLong {
            what,
            len: n as u64,
            max: i32::MAX as u64,
        })
}

/// `n` as a `u64` count.
pub(crate) fn count_u64(what: &'static str, n: usize) -> Result<u64, EncodeError> {
    u64::try_from(n).map_err(|_| EncodeError::Overflow { what })
}
