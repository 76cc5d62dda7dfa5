//! Reader harness shared by the workspace's integration tests.
//!
//! Every file this workspace writes is checked against independent readers:
//!
//! - [`perf_tool`]: the real Linux `perf` 6.1 binary (`perf script`, `perf report
//!   --header-only`, `perf report --stats`, `perf evlist`), with parsers for its output.
//! - [`lpd`]: the `linux-perf-data` 0.13 crate (file mode and pipe mode).
//! - [`tp_reader`]: the `tracepoint_perf` 0.5.0 reader, which also decodes tracepoint
//!   fields through `tracepoint_decode`.
//! - [`fixtures`]: real recordings made by `perf record` (in `tests/data/perf-6.1`)
//!   and a plain-bytes parser that returns a file's attrs, feature sections and records
//!   exactly as stored ([`fixtures::FixtureContent`]), usable on any perf.data bytes.
//!
//! All helpers return plain structs with public fields so tests can assert on content.
//! Nothing here depends on the workspace's own crates: the harness must stay an
//! independent judge of what they write.

#![warn(missing_docs)]

pub mod fixtures;
pub mod formats;
pub mod lpd;
pub mod perf_tool;
pub mod records;
pub mod tp_reader;

/// Byte order of a perf.data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Little-endian (magic reads `PERFILE2` byte by byte).
    Little,
    /// Big-endian (magic reads `2ELIFREP` byte by byte).
    Big,
}

impl Endian {
    /// Detects the byte order from the first 8 bytes of a file or stream.
    pub fn from_magic(magic: &[u8]) -> Option<Endian> {
        match magic.get(..8)? {
            b"PERFILE2" => Some(Endian::Little),
            b"2ELIFREP" => Some(Endian::Big),
            _ => None,
        }
    }

    /// Reads a `u16` at `pos`; `None` when out of bounds.
    pub fn u16_at(self, bytes: &[u8], pos: usize) -> Option<u16> {
        let b: [u8; 2] = bytes.get(pos..pos.checked_add(2)?)?.try_into().ok()?;
        Some(match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        })
    }

    /// Reads a `u32` at `pos`; `None` when out of bounds.
    pub fn u32_at(self, bytes: &[u8], pos: usize) -> Option<u32> {
        let b: [u8; 4] = bytes.get(pos..pos.checked_add(4)?)?.try_into().ok()?;
        Some(match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        })
    }

    /// Reads a `u64` at `pos`; `None` when out of bounds.
    pub fn u64_at(self, bytes: &[u8], pos: usize) -> Option<u64> {
        let b: [u8; 8] = bytes.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
        Some(match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        })
    }

    /// Encodes a `u16` in this byte order.
    pub fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// Encodes a `u32` in this byte order.
    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
}

/// The name `perf report --stats` (perf 6.1) prints for a record type, e.g. 9 → `"SAMPLE"`,
/// 64 → `"ATTR"`, 80 → `"FEATURE"`. Unknown types give `"UNKNOWN"`.
pub fn record_type_name(record_type: u32) -> &'static str {
    match record_type {
        1 => "MMAP",
        2 => "LOST",
        3 => "COMM",
        4 => "EXIT",
        5 => "THROTTLE",
        6 => "UNTHROTTLE",
        7 => "FORK",
        8 => "READ",
        9 => "SAMPLE",
        10 => "MMAP2",
        11 => "AUX",
        12 => "ITRACE_START",
        13 => "LOST_SAMPLES",
        14 => "SWITCH",
        15 => "SWITCH_CPU_WIDE",
        16 => "NAMESPACES",
        17 => "KSYMBOL",
        18 => "BPF_EVENT",
        19 => "CGROUP",
        20 => "TEXT_POKE",
        21 => "AUX_OUTPUT_HW_ID",
        64 => "ATTR",
        65 => "EVENT_TYPE",
        66 => "TRACING_DATA",
        67 => "BUILD_ID",
        68 => "FINISHED_ROUND",
        69 => "ID_INDEX",
        70 => "AUXTRACE_INFO",
        71 => "AUXTRACE",
        72 => "AUXTRACE_ERROR",
        73 => "THREAD_MAP",
        74 => "CPU_MAP",
        75 => "STAT_CONFIG",
        76 => "STAT",
        77 => "STAT_ROUND",
        78 => "EVENT_UPDATE",
        79 => "TIME_CONV",
        80 => "FEATURE",
        81 => "COMPRESSED",
        82 => "FINISHED_INIT",
        _ => "UNKNOWN",
    }
}

/// The name perf uses for a feature bit (as in `perf report --header-only`'s
/// "missing features" list), e.g. 3 → `"HOSTNAME"`. Unknown bits give `None`.
pub fn feature_name(bit: u32) -> Option<&'static str> {
    const NAMES: [&str; 32] = [
        "RESERVED",
        "TRACING_DATA",
        "BUILD_ID",
        "HOSTNAME",
        "OSRELEASE",
        "VERSION",
        "ARCH",
        "NRCPUS",
        "CPUDESC",
        "CPUID",
        "TOTAL_MEM",
        "CMDLINE",
        "EVENT_DESC",
        "CPU_TOPOLOGY",
        "NUMA_TOPOLOGY",
        "BRANCH_STACK",
        "PMU_MAPPINGS",
        "GROUP_DESC",
        "AUXTRACE",
        "STAT",
        "CACHE",
        "SAMPLE_TIME",
        "MEM_TOPOLOGY",
        "CLOCKID",
        "DIR_FORMAT",
        "BPF_PROG_INFO",
        "BPF_BTF",
        "COMPRESSED",
        "CPU_PMU_CAPS",
        "CLOCK_DATA",
        "HYBRID_TOPOLOGY",
        "PMU_CAPS",
    ];
    NAMES.get(bit as usize).copied()
}

/// Writes `bytes` to a fresh temporary file (suffix `.data`) and returns its handle;
/// the file is deleted when the handle is dropped. Handy for readers that need a path.
pub fn temp_data_file(bytes: &[u8]) -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut file = tempfile::Builder::new()
        .prefix("perf-harness-")
        .suffix(".data")
        .tempfile()
        .expect("create temporary perf.data file");
    file.write_all(bytes)
        .expect("write temporary perf.data file");
    file.flush().expect("flush temporary perf.data file");
    file
}
