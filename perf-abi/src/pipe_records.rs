//! Fixed parts of records that tools write: ID_INDEX entries, TIME_CONV, STAT, and the largest
//! HEADER_FEATURE payload.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The largest feature payload a HEADER_FEATURE record carries: its `size` is a `u16` and
/// counts the record's header and its `u64 feat_id`.
pub const MAX_FEATURE_PAYLOAD: usize = u16::MAX as usize - 16;

/// One entry of a `PERF_RECORD_ID_INDEX` record.
///
/// ```
/// assert_eq!(core::mem::size_of::<perf_abi::IdIndexEntry>(), 32);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct IdIndexEntry {
    /// Sample id.
    pub id: u64,
    /// Index into the mmaps of the session.
    pub idx: u64,
    /// CPU the id was opened on.
    pub cpu: u64,
    /// Thread the id was opened on.
    pub tid: u64,
}

/// The body of a `PERF_RECORD_TIME_CONV` record (after its header): the parameters that
/// turn TSC values into perf time stamps.
///
/// ```
/// assert_eq!(core::mem::size_of::<perf_abi::TimeConv>(), perf_abi::TimeConv::SIZE);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct TimeConv {
    /// Shift of the multiplication.
    pub time_shift: u64,
    /// Multiplier.
    pub time_mult: u64,
    /// Offset.
    pub time_zero: u64,
    /// TSC value the conversion is based on.
    pub time_cycles: u64,
    /// Mask of the TSC bits.
    pub time_mask: u64,
    /// `time_zero` is usable (a flag byte).
    pub cap_user_time_zero: u8,
    /// `time_cycles`/`time_mask` are usable (a flag byte).
    pub cap_user_time_short: u8,
    /// Reserved, zero.
    pub reserved: [u8; 6],
}

impl TimeConv {
    /// Bytes of the body perf 6.1 writes (older perf wrote only the first 24).
    pub const SIZE: usize = 48;
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<IdIndexEntry>() == 32);
    assert!(size_of::<TimeConv>() == TimeConv::SIZE);
    assert!(offset_of!(TimeConv, cap_user_time_zero) == 40);
};

/// The body of a `PERF_RECORD_STAT` record (after its header): one counter's reading, as
/// `perf stat record` writes it.
///
/// ```
/// assert_eq!(core::mem::size_of::<perf_abi::Stat>(), 40);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct Stat {
    /// Sample id of the counter's event.
    pub id: u64,
    /// The cpu read (a cpu number, found in the session's CPU_MAP).
    pub cpu: u32,
    /// The thread read (an index into the session's THREAD_MAP).
    pub thread: u32,
    /// Count.
    pub val: u64,
    /// Time enabled.
    pub ena: u64,
    /// Time running.
    pub run: u64,
}
