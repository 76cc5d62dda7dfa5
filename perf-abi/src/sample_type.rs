//! Bits of [`PerfEventAttr::sample_type`](crate::PerfEventAttr::sample_type)
//! (`PERF_SAMPLE_*`), in bit order. A SAMPLE record holds their fields in another order (the
//! kernel's: IDENTIFIER first, then IP, TID, …): [`SAMPLE_PREFIX_ORDER`] gives its fixed
//! start and [`SAMPLE_ID_ORDER`] the `sample_id` trailer of other records; perf-encode's
//! SAMPLE field table gives the rest.
//!
//! ```
//! use perf_abi::sample_type::*;
//! assert_eq!(IP | TID | TIME, 0x7);
//! assert_eq!(IDENTIFIER, 1 << 16);
//! ```

/// `PERF_SAMPLE_IP`.
pub const IP: u64 = 1 << 0;
/// `PERF_SAMPLE_TID`.
pub const TID: u64 = 1 << 1;
/// `PERF_SAMPLE_TIME`.
pub const TIME: u64 = 1 << 2;
/// `PERF_SAMPLE_ADDR`.
pub const ADDR: u64 = 1 << 3;
/// `PERF_SAMPLE_READ`.
pub const READ: u64 = 1 << 4;
/// `PERF_SAMPLE_CALLCHAIN`.
pub const CALLCHAIN: u64 = 1 << 5;
/// `PERF_SAMPLE_ID`.
pub const ID: u64 = 1 << 6;
/// `PERF_SAMPLE_CPU`.
pub const CPU: u64 = 1 << 7;
/// `PERF_SAMPLE_PERIOD`.
pub const PERIOD: u64 = 1 << 8;
/// `PERF_SAMPLE_STREAM_ID`.
pub const STREAM_ID: u64 = 1 << 9;
/// `PERF_SAMPLE_RAW`.
pub const RAW: u64 = 1 << 10;
/// `PERF_SAMPLE_BRANCH_STACK`.
pub const BRANCH_STACK: u64 = 1 << 11;
/// `PERF_SAMPLE_REGS_USER`.
pub const REGS_USER: u64 = 1 << 12;
/// `PERF_SAMPLE_STACK_USER`.
pub const STACK_USER: u64 = 1 << 13;
/// `PERF_SAMPLE_WEIGHT`.
pub const WEIGHT: u64 = 1 << 14;
/// `PERF_SAMPLE_DATA_SRC`.
pub const DATA_SRC: u64 = 1 << 15;
/// `PERF_SAMPLE_IDENTIFIER`.
pub const IDENTIFIER: u64 = 1 << 16;
/// `PERF_SAMPLE_TRANSACTION`.
pub const TRANSACTION: u64 = 1 << 17;
/// `PERF_SAMPLE_REGS_INTR`.
pub const REGS_INTR: u64 = 1 << 18;
/// `PERF_SAMPLE_PHYS_ADDR`.
pub const PHYS_ADDR: u64 = 1 << 19;
/// `PERF_SAMPLE_AUX`.
pub const AUX: u64 = 1 << 20;
/// `PERF_SAMPLE_CGROUP`.
pub const CGROUP: u64 = 1 << 21;
/// `PERF_SAMPLE_DATA_PAGE_SIZE`.
pub const DATA_PAGE_SIZE: u64 = 1 << 22;
/// `PERF_SAMPLE_CODE_PAGE_SIZE`.
pub const CODE_PAGE_SIZE: u64 = 1 << 23;
/// `PERF_SAMPLE_WEIGHT_STRUCT`.
pub const WEIGHT_STRUCT: u64 = 1 << 24;
/// One past the last bit perf 6.1 knows (`PERF_SAMPLE_MAX`).
pub const MAX: u64 = 1 << 25;
/// `PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT`.
pub const WEIGHT_TYPE: u64 = WEIGHT | WEIGHT_STRUCT;

/// The fields a SAMPLE record starts with, in the order the kernel writes them
/// (`perf_output_sample`), each a `u64` (TID and CPU are two `u32`s), each there when its
/// bit is in `sample_type`. READ, whose size depends on `read_format`, comes next.
pub const SAMPLE_PREFIX_ORDER: [u64; 9] =
    [IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD];

/// The bits of [`SAMPLE_PREFIX_ORDER`]: the fields every other SAMPLE field follows.
pub const SAMPLE_PREFIX_BITS: u64 = union(&SAMPLE_PREFIX_ORDER);

/// The fields of a `sample_id` trailer, in the order the kernel writes them
/// (`perf_event__output_id_sample`), each a `u64`, each there when its bit is in
/// `sample_type` (and the attr has `sample_id_all`).
pub const SAMPLE_ID_ORDER: [u64; 6] = [TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER];

/// The bits a `sample_id` trailer can carry: those of [`SAMPLE_ID_ORDER`].
pub const SAMPLE_ID_BITS: u64 = union(&SAMPLE_ID_ORDER);

/// Where `field` (one bit of [`SAMPLE_PREFIX_ORDER`]) is in a SAMPLE record of
/// `sample_type`: its byte offset from the record's start, the 8-byte header included.
/// `None` when `sample_type` lacks it or it is not one of those fields.
///
/// ```
/// use perf_abi::sample_type::*;
/// assert_eq!(sample_offset(IDENTIFIER | IP | TID | TIME | CPU, TIME), Some(32));
/// assert_eq!(sample_offset(IP | TIME, CPU), None);
/// ```
pub const fn sample_offset(sample_type: u64, field: u64) -> Option<usize> {
    match offset_in(&SAMPLE_PREFIX_ORDER, sample_type, field) {
        Some(before) => Some(8 + before),
        None => None,
    }
}

/// Where `field` (one bit of [`SAMPLE_ID_ORDER`]) is in the `sample_id` trailer of a
/// record of `sample_type`: its byte offset back from the record's end (the field starts
/// that many bytes before the end). `None` when `sample_type` lacks it.
///
/// ```
/// use perf_abi::sample_type::*;
/// let st = IDENTIFIER | IP | TID | TIME | CPU;
/// assert_eq!(trailer_offset_from_end(st, IDENTIFIER), Some(8));
/// assert_eq!(trailer_offset_from_end(st, TIME), Some(24));
/// ```
pub const fn trailer_offset_from_end(sample_type: u64, field: u64) -> Option<usize> {
    let trailer = (sample_type & SAMPLE_ID_BITS).count_ones() as usize * 8;
    match offset_in(&SAMPLE_ID_ORDER, sample_type, field) {
        Some(before) => Some(trailer - before),
        None => None,
    }
}

/// Bytes of the fields of `order` present in `sample_type` before `field`; `None` when
/// `field` is not in `order` or not in `sample_type`.
const fn offset_in(order: &[u64], sample_type: u64, field: u64) -> Option<usize> {
    if sample_type & field == 0 || field.count_ones() != 1 {
        return None;
    }
    let mut before = 0;
    let mut i = 0;
    while i < order.len() {
        if order[i] == field {
            return Some(before);
        }
        if sample_type & order[i] != 0 {
            before += 8;
        }
        i += 1;
    }
    None
}

/// The bits of `fields`, or-ed.
const fn union(fields: &[u64]) -> u64 {
    let mut all = 0;
    let mut i = 0;
    while i < fields.len() {
        all |= fields[i];
        i += 1;
    }
    all
}
