//! [`PerfHeaderIndex`]: a feature index with the constant names `tracepoint_perf` 0.5 uses.

#![allow(non_upper_case_globals)] // the constant names of tracepoint_perf's PerfHeaderIndex

use core::fmt;
use perf_abi::feature;

/// A feature index (bit of the file header's feature bitmap), as `tracepoint_perf` 0.5 names
/// it, so code written for it compiles unchanged.
///
/// ```
/// use perf_writer_std::PerfHeaderIndex;
/// assert_eq!(PerfHeaderIndex::Hostname.0, 3);
/// assert_eq!(PerfHeaderIndex::Cmdline.to_string(), "Cmdline");
/// assert_eq!(PerfHeaderIndex::from(200).as_string(), None);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Eq, Hash, Ord, PartialEq, PartialOrd)]
pub struct PerfHeaderIndex(pub u8);

impl PerfHeaderIndex {
    /// `HEADER_RESERVED` (0).
    pub const Reserved: Self = Self(feature::RESERVED);
    /// `HEADER_TRACING_DATA` (1).
    pub const TracingData: Self = Self(feature::TRACING_DATA);
    /// The first feature index (`HEADER_FIRST_FEATURE`, = `TracingData`).
    pub const FirstFeature: Self = Self(feature::TRACING_DATA);
    /// `HEADER_BUILD_ID` (2).
    pub const BuildId: Self = Self(feature::BUILD_ID);
    /// `HEADER_HOSTNAME` (3).
    pub const Hostname: Self = Self(feature::HOSTNAME);
    /// `HEADER_OSRELEASE` (4).
    pub const OSRelease: Self = Self(feature::OSRELEASE);
    /// `HEADER_VERSION` (5).
    pub const Version: Self = Self(feature::VERSION);
    /// `HEADER_ARCH` (6).
    pub const Arch: Self = Self(feature::ARCH);
    /// `HEADER_NRCPUS` (7).
    pub const NrCpus: Self = Self(feature::NRCPUS);
    /// `HEADER_CPUDESC` (8).
    pub const CpuDesc: Self = Self(feature::CPUDESC);
    /// `HEADER_CPUID` (9).
    pub const CpuId: Self = Self(feature::CPUID);
    /// `HEADER_TOTAL_MEM` (10).
    pub const TotalMem: Self = Self(feature::TOTAL_MEM);
    /// `HEADER_CMDLINE` (11).
    pub const Cmdline: Self = Self(feature::CMDLINE);
    /// `HEADER_EVENT_DESC` (12).
    pub const EventDesc: Self = Self(feature::EVENT_DESC);
    /// `HEADER_CPU_TOPOLOGY` (13).
    pub const CpuTopology: Self = Self(feature::CPU_TOPOLOGY);
    /// `HEADER_NUMA_TOPOLOGY` (14).
    pub const NumaTopology: Self = Self(feature::NUMA_TOPOLOGY);
    /// `HEADER_BRANCH_STACK` (15).
    pub const BranchStack: Self = Self(feature::BRANCH_STACK);
    /// `HEADER_PMU_MAPPINGS` (16).
    pub const PmuMappings: Self = Self(feature::PMU_MAPPINGS);
    /// `HEADER_GROUP_DESC` (17).
    pub const GroupDesc: Self = Self(feature::GROUP_DESC);
    /// `HEADER_AUXTRACE` (18).
    pub const AuxTrace: Self = Self(feature::AUXTRACE);
    /// `HEADER_STAT` (19).
    pub const Stat: Self = Self(feature::STAT);
    /// `HEADER_CACHE` (20).
    pub const Cache: Self = Self(feature::CACHE);
    /// `HEADER_SAMPLE_TIME` (21).
    pub const SampleTime: Self = Self(feature::SAMPLE_TIME);
    /// `HEADER_MEM_TOPOLOGY` (22).
    pub const MemTopology: Self = Self(feature::MEM_TOPOLOGY);
    /// `HEADER_CLOCKID` (23).
    pub const ClockId: Self = Self(feature::CLOCKID);
    /// `HEADER_DIR_FORMAT` (24).
    pub const DirFormat: Self = Self(feature::DIR_FORMAT);
    /// `HEADER_BPF_PROG_INFO` (25).
    pub const BpfProgInfo: Self = Self(feature::BPF_PROG_INFO);
    /// `HEADER_BPF_BTF` (26).
    pub const BpfBtf: Self = Self(feature::BPF_BTF);
    /// `HEADER_COMPRESSED` (27).
    pub const Compressed: Self = Self(feature::COMPRESSED);
    /// `HEADER_CPU_PMU_CAPS` (28).
    pub const CpuPmuCaps: Self = Self(feature::CPU_PMU_CAPS);
    /// `HEADER_CLOCK_DATA` (29).
    pub const ClockData: Self = Self(feature::CLOCK_DATA);
    /// `HEADER_HYBRID_TOPOLOGY` (30).
    pub const HybridTopology: Self = Self(feature::HYBRID_TOPOLOGY);
    /// `HEADER_PMU_CAPS` (31).
    pub const PmuCaps: Self = Self(feature::PMU_CAPS);
    /// One past the last feature perf 6.1 knows (`HEADER_LAST_FEATURE`).
    pub const LastFeature: Self = Self(feature::LAST_FEATURE);

    /// The constant's name (`"Hostname"`, …), or `None` for an index without one.
    pub const fn as_string(self) -> Option<&'static str> {
        const NAMES: [&str; 33] = [
            "Reserved",
            "TracingData",
            "BuildId",
            "Hostname",
            "OSRelease",
            "Version",
            "Arch",
            "NrCpus",
            "CpuDesc",
            "CpuId",
            "TotalMem",
            "Cmdline",
            "EventDesc",
            "CpuTopology",
            "NumaTopology",
            "BranchStack",
            "PmuMappings",
            "GroupDesc",
            "AuxTrace",
            "Stat",
            "Cache",
            "SampleTime",
            "MemTopology",
            "ClockId",
            "DirFormat",
            "BpfProgInfo",
            "BpfBtf",
            "Compressed",
            "CpuPmuCaps",
            "ClockData",
            "HybridTopology",
            "PmuCaps",
            "LastFeature",
        ];
        let i = self.0 as usize;
        if i < NAMES.len() {
            Some(NAMES[i])
        } else {
            None
        }
    }
}

impl From<u8> for PerfHeaderIndex {
    fn from(v: u8) -> Self {
        PerfHeaderIndex(v)
    }
}

impl From<PerfHeaderIndex> for u8 {
    fn from(v: PerfHeaderIndex) -> Self {
        v.0
    }
}

impl fmt::Display for PerfHeaderIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_string() {
            Some(s) => f.pad(s),
            None => fmt::Display::fmt(&self.0, f),
        }
    }
}

/// tracepoint_perf 0.5's index of the same feature: a program that reads with
/// tracepoint_perf and writes with this crate passes the reader's indices on.
#[cfg(feature = "tracepoint_perf")]
impl From<tracepoint_perf::PerfHeaderIndex> for PerfHeaderIndex {
    fn from(index: tracepoint_perf::PerfHeaderIndex) -> Self {
        PerfHeaderIndex(index.0)
    }
}
