//! Fixed-size payloads of feature sections.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `HEADER_NRCPUS`: CPUs the machine has and CPUs online.
///
/// ```
/// let n = perf_abi::NrCpus { available: 8, online: 4 };
/// assert_eq!(zerocopy::IntoBytes::as_bytes(&n).len(), 8);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct NrCpus {
    /// `nr_cpus_avail`: CPUs the machine has.
    pub available: u32,
    /// `nr_cpus_online`: CPUs online when recording.
    pub online: u32,
}

/// `HEADER_SAMPLE_TIME`: time stamps of the first and last sample.
///
/// ```
/// let t = perf_abi::SampleTime { first: 1, last: 2 };
/// assert!(t.first <= t.last);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct SampleTime {
    /// Time of the first sample.
    pub first: u64,
    /// Time of the last sample.
    pub last: u64,
}

/// The only `version` of [`ClockData`] perf knows.
pub const CLOCK_DATA_VERSION: u32 = 1;

/// The `version` the CACHE feature starts with.
pub const CACHE_VERSION: u32 = 1;

/// The `version` the MEM_TOPOLOGY feature starts with.
pub const MEM_TOPOLOGY_VERSION: u64 = 1;

/// The DIR_FORMAT feature's value for a `--threads` directory (`PERF_DIR_VERSION`).
pub const DIR_FORMAT_VERSION: u64 = 1;

/// The group name perf gives a GROUP_DESC entry of an unnamed group (`{a,b}`).
pub const ANON_GROUP_NAME: &[u8] = b"{anon_group}";

/// `HEADER_CLOCK_DATA`: a pair of simultaneous readings of the wall clock and the event clock.
///
/// ```
/// let c = perf_abi::ClockData { version: perf_abi::CLOCK_DATA_VERSION, clockid: 1, wall_clock_ns: 10, clockid_time_ns: 5 };
/// assert_eq!(zerocopy::IntoBytes::as_bytes(&c).len(), 24);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct ClockData {
    /// [`CLOCK_DATA_VERSION`].
    pub version: u32,
    /// The clock of the event time stamps (`CLOCK_MONOTONIC` = 1, …).
    pub clockid: u32,
    /// Wall-clock time in ns since the epoch.
    pub wall_clock_ns: u64,
    /// The same instant on `clockid`, in ns.
    pub clockid_time_ns: u64,
}

/// The only `version` of [`CompressedInfo`] perf knows.
pub const COMPRESSED_VERSION: u32 = 1;
/// [`CompressedInfo::type_`] for zstd.
pub const COMPRESSION_ZSTD: u32 = 1;

/// `HEADER_COMPRESSED`: how COMPRESSED records are compressed.
///
/// ```
/// let c = perf_abi::CompressedInfo { version: 1, type_: perf_abi::COMPRESSION_ZSTD, level: 1, ratio: 3, mmap_len: 528384 };
/// assert_eq!(zerocopy::IntoBytes::as_bytes(&c).len(), 20);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct CompressedInfo {
    /// [`COMPRESSED_VERSION`].
    pub version: u32,
    /// [`COMPRESSION_ZSTD`].
    pub type_: u32,
    /// Compression level.
    pub level: u32,
    /// Compression ratio reached.
    pub ratio: u32,
    /// Size of perf's decompression buffer.
    pub mmap_len: u32,
}

/// The fixed start of `HEADER_EVENT_DESC`: event count and the size of each attr that follows.
///
/// ```
/// let h = perf_abi::EventDescHeader { nr: 1, attr_size: 128 };
/// assert_eq!(zerocopy::IntoBytes::as_bytes(&h).len(), 8);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct EventDescHeader {
    /// Number of events.
    pub nr: u32,
    /// Bytes of each event's `perf_event_attr`.
    pub attr_size: u32,
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<NrCpus>() == 8);
    assert!(size_of::<SampleTime>() == 16);
    assert!(size_of::<ClockData>() == 24);
    assert!(offset_of!(ClockData, clockid) == 4);
    assert!(offset_of!(ClockData, wall_clock_ns) == 8);
    assert!(offset_of!(ClockData, clockid_time_ns) == 16);
    assert!(size_of::<CompressedInfo>() == 20);
    assert!(offset_of!(CompressedInfo, mmap_len) == 16);
    assert!(size_of::<EventDescHeader>() == 8);
};
