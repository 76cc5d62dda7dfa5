//! Bits of [`PerfEventAttr::read_format`](crate::PerfEventAttr::read_format) (`PERF_FORMAT_*`).
//!
//! ```
//! use perf_abi::read_format::{ID, LOST};
//! assert_eq!(ID | LOST, 0x14);
//! ```

/// `PERF_FORMAT_TOTAL_TIME_ENABLED`.
pub const TOTAL_TIME_ENABLED: u64 = 1 << 0;
/// `PERF_FORMAT_TOTAL_TIME_RUNNING`.
pub const TOTAL_TIME_RUNNING: u64 = 1 << 1;
/// `PERF_FORMAT_ID`.
pub const ID: u64 = 1 << 2;
/// `PERF_FORMAT_GROUP`.
pub const GROUP: u64 = 1 << 3;
/// `PERF_FORMAT_LOST`.
pub const LOST: u64 = 1 << 4;
