//! Feature indices: which bit of [`PerfFileHeader::features`](crate::PerfFileHeader::features)
//! says a feature section is present (`HEADER_*` in perf's `header.h`).
//!
//! ```
//! use perf_abi::feature;
//! assert_eq!(feature::name(feature::HOSTNAME), Some("HOSTNAME"));
//! assert_eq!(feature::by_name("EVENT_DESC"), Some(feature::EVENT_DESC));
//! assert_eq!(feature::name(200), None);
//! ```

/// `HEADER_RESERVED`: always clear.
pub const RESERVED: u8 = 0;
/// `HEADER_TRACING_DATA`: the tracefs formats of tracepoint events.
pub const TRACING_DATA: u8 = 1;
/// `HEADER_BUILD_ID`: build ids of the binaries the samples hit.
pub const BUILD_ID: u8 = 2;
/// `HEADER_HOSTNAME`: a string.
pub const HOSTNAME: u8 = 3;
/// `HEADER_OSRELEASE`: a string (`uname -r`).
pub const OSRELEASE: u8 = 4;
/// `HEADER_VERSION`: a string, the perf version.
pub const VERSION: u8 = 5;
/// `HEADER_ARCH`: a string (`uname -m`).
pub const ARCH: u8 = 6;
/// `HEADER_NRCPUS`: `{u32 available, u32 online}`.
pub const NRCPUS: u8 = 7;
/// `HEADER_CPUDESC`: a string.
pub const CPUDESC: u8 = 8;
/// `HEADER_CPUID`: a string.
pub const CPUID: u8 = 9;
/// `HEADER_TOTAL_MEM`: `u64` kB.
pub const TOTAL_MEM: u8 = 10;
/// `HEADER_CMDLINE`: a string list.
pub const CMDLINE: u8 = 11;
/// `HEADER_EVENT_DESC`: attrs, names and ids of the events.
pub const EVENT_DESC: u8 = 12;
/// `HEADER_CPU_TOPOLOGY`.
pub const CPU_TOPOLOGY: u8 = 13;
/// `HEADER_NUMA_TOPOLOGY`.
pub const NUMA_TOPOLOGY: u8 = 14;
/// `HEADER_BRANCH_STACK`: empty, a flag.
pub const BRANCH_STACK: u8 = 15;
/// `HEADER_PMU_MAPPINGS`.
pub const PMU_MAPPINGS: u8 = 16;
/// `HEADER_GROUP_DESC`.
pub const GROUP_DESC: u8 = 17;
/// `HEADER_AUXTRACE`.
pub const AUXTRACE: u8 = 18;
/// `HEADER_STAT`: empty, a flag.
pub const STAT: u8 = 19;
/// `HEADER_CACHE`.
pub const CACHE: u8 = 20;
/// `HEADER_SAMPLE_TIME`: `{u64 first, u64 last}`.
pub const SAMPLE_TIME: u8 = 21;
/// `HEADER_MEM_TOPOLOGY`.
pub const MEM_TOPOLOGY: u8 = 22;
/// `HEADER_CLOCKID`: `u64` resolution of the clock in ns (not the clock's id).
pub const CLOCKID: u8 = 23;
/// `HEADER_DIR_FORMAT`.
pub const DIR_FORMAT: u8 = 24;
/// `HEADER_BPF_PROG_INFO`.
pub const BPF_PROG_INFO: u8 = 25;
/// `HEADER_BPF_BTF`.
pub const BPF_BTF: u8 = 26;
/// `HEADER_COMPRESSED`.
pub const COMPRESSED: u8 = 27;
/// `HEADER_CPU_PMU_CAPS`.
pub const CPU_PMU_CAPS: u8 = 28;
/// `HEADER_CLOCK_DATA`: [`ClockData`](crate::ClockData).
pub const CLOCK_DATA: u8 = 29;
/// `HEADER_HYBRID_TOPOLOGY`.
pub const HYBRID_TOPOLOGY: u8 = 30;
/// `HEADER_PMU_CAPS`.
pub const PMU_CAPS: u8 = 31;
/// `HEADER_CPU_DOMAIN_INFO` (perf 6.17 and later; unknown to perf 6.1).
pub const CPU_DOMAIN_INFO: u8 = 32;
/// `HEADER_LAST_FEATURE` as perf 6.1 defines it: one past the last feature it knows. Pipe mode
/// ends its HEADER_FEATURE records with a record of this id.
pub const LAST_FEATURE: u8 = 32;
/// Number of bits in the file header's feature bitmap.
pub const BITMAP_BITS: usize = 256;

/// What a feature's payload is, as perf 6.1 reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// One perf string: a `u32` length, then that many bytes ending in NUL.
    String,
    /// A `u32` count, then that many perf strings.
    StringList,
    /// Exactly this many bytes of fixed-size fields.
    Fixed(usize),
    /// Nothing: perf reads no payload, the feature bit alone says it.
    Flag,
    /// A structure of its own (lists of records, a version, nested lists).
    Structured,
}

/// What perf 6.1 knows of one feature: see [`info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    /// perf's name without the `HEADER_` prefix.
    pub name: &'static str,
    /// What its payload is.
    pub payload: Payload,
    /// Whether `perf record -o -` sends it as a HEADER_FEATURE record in a pipe stream. The
    /// others have a record of their own there (TRACING_DATA) or are of no use to a reader
    /// of a stream.
    pub in_pipe: bool,
}

const fn row(name: &'static str, payload: Payload, in_pipe: bool) -> Info {
    Info {
        name,
        payload,
        in_pipe,
    }
}

use Payload::{Fixed, Flag, String as Str, StringList, Structured};

/// One row per feature perf 6.1 knows (and CPU_DOMAIN_INFO), by index.
const INFO: [Info; 33] = [
    row("RESERVED", Flag, false),
    row("TRACING_DATA", Structured, false),
    row("BUILD_ID", Structured, false),
    row("HOSTNAME", Str, true),
    row("OSRELEASE", Str, true),
    row("VERSION", Str, true),
    row("ARCH", Str, true),
    row("NRCPUS", Fixed(8), true),
    row("CPUDESC", Str, true),
    row("CPUID", Str, true),
    row("TOTAL_MEM", Fixed(8), true),
    row("CMDLINE", StringList, true),
    row("EVENT_DESC", Structured, true),
    row("CPU_TOPOLOGY", Structured, true),
    row("NUMA_TOPOLOGY", Structured, true),
    row("BRANCH_STACK", Flag, false),
    row("PMU_MAPPINGS", Structured, true),
    row("GROUP_DESC", Structured, true),
    row("AUXTRACE", Structured, false),
    row("STAT", Flag, false),
    row("CACHE", Structured, false),
    row("SAMPLE_TIME", Fixed(16), true),
    row("MEM_TOPOLOGY", Structured, true),
    row("CLOCKID", Fixed(8), true),
    row("DIR_FORMAT", Structured, false),
    row("BPF_PROG_INFO", Structured, true),
    row("BPF_BTF", Structured, true),
    row("COMPRESSED", Fixed(20), true),
    row("CPU_PMU_CAPS", Structured, true),
    row("CLOCK_DATA", Structured, true),
    row("HYBRID_TOPOLOGY", Structured, false),
    row("PMU_CAPS", Structured, true),
    row("CPU_DOMAIN_INFO", Structured, true),
];

/// What perf knows of feature `index`, or `None` when it knows no such feature.
///
/// ```
/// use perf_abi::feature::{self, Payload};
/// let f = feature::info(feature::CMDLINE).unwrap();
/// assert_eq!((f.name, f.payload, f.in_pipe), ("CMDLINE", Payload::StringList, true));
/// assert_eq!(feature::info(feature::NRCPUS).unwrap().payload, Payload::Fixed(8));
/// assert!(!feature::info(feature::BUILD_ID).unwrap().in_pipe);
/// assert_eq!(feature::info(200), None);
/// ```
pub const fn info(index: u8) -> Option<Info> {
    let i = index as usize;
    if i < INFO.len() {
        Some(INFO[i])
    } else {
        None
    }
}

/// perf's name of feature `index` without the `HEADER_` prefix, or `None` when unknown.
pub fn name(index: u8) -> Option<&'static str> {
    info(index).map(|f| f.name)
}

/// The index of the feature perf calls `HEADER_<name>` (or `<name>`).
pub fn by_name(name: &str) -> Option<u8> {
    let name = name.strip_prefix("HEADER_").unwrap_or(name);
    INFO.iter()
        .position(|f| f.name == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// The feature a byte-swapped file must carry for perf to read any of its features: perf
/// swaps the feature bitmap word by word and takes it as right only when this bit is set;
/// otherwise it tries other readings and keeps no feature but BUILD_ID.
pub const SWAPPED_FILE_NEEDS: u8 = HOSTNAME;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_indices() {
        assert_eq!(name(TRACING_DATA), Some("TRACING_DATA"));
        assert_eq!(name(PMU_CAPS), Some("PMU_CAPS"));
        assert_eq!(name(CPU_DOMAIN_INFO), Some("CPU_DOMAIN_INFO"));
        assert_eq!(name(33), None);
        for i in 0..=CPU_DOMAIN_INFO {
            assert_eq!(by_name(name(i).unwrap()), Some(i));
        }
        assert_eq!(by_name("HEADER_CLOCKID"), Some(CLOCKID));
        assert_eq!(by_name("NOPE"), None);
    }
}
