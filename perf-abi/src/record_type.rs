//! Record types: [`PerfEventHeader::type_`](crate::PerfEventHeader::type_)
//! (`PERF_RECORD_*`). 1..=21 come from the kernel, 64 and up are written by tools.
//!
//! ```
//! use perf_abi::record_type;
//! assert_eq!(record_type::name(record_type::SAMPLE), Some("SAMPLE"));
//! assert!(record_type::is_user(record_type::FINISHED_ROUND));
//! ```

/// `PERF_RECORD_MMAP`.
pub const MMAP: u32 = 1;
/// `PERF_RECORD_LOST`.
pub const LOST: u32 = 2;
/// `PERF_RECORD_COMM`.
pub const COMM: u32 = 3;
/// `PERF_RECORD_EXIT`.
pub const EXIT: u32 = 4;
/// `PERF_RECORD_THROTTLE`.
pub const THROTTLE: u32 = 5;
/// `PERF_RECORD_UNTHROTTLE`.
pub const UNTHROTTLE: u32 = 6;
/// `PERF_RECORD_FORK`.
pub const FORK: u32 = 7;
/// `PERF_RECORD_READ`.
pub const READ: u32 = 8;
/// `PERF_RECORD_SAMPLE`.
pub const SAMPLE: u32 = 9;
/// `PERF_RECORD_MMAP2`.
pub const MMAP2: u32 = 10;
/// `PERF_RECORD_AUX`.
pub const AUX: u32 = 11;
/// `PERF_RECORD_ITRACE_START`.
pub const ITRACE_START: u32 = 12;
/// `PERF_RECORD_LOST_SAMPLES`.
pub const LOST_SAMPLES: u32 = 13;
/// `PERF_RECORD_SWITCH`.
pub const SWITCH: u32 = 14;
/// `PERF_RECORD_SWITCH_CPU_WIDE`.
pub const SWITCH_CPU_WIDE: u32 = 15;
/// `PERF_RECORD_NAMESPACES`.
pub const NAMESPACES: u32 = 16;
/// `PERF_RECORD_KSYMBOL`.
pub const KSYMBOL: u32 = 17;
/// `PERF_RECORD_BPF_EVENT`.
pub const BPF_EVENT: u32 = 18;
/// `PERF_RECORD_CGROUP`.
pub const CGROUP: u32 = 19;
/// `PERF_RECORD_TEXT_POKE`.
pub const TEXT_POKE: u32 = 20;
/// `PERF_RECORD_AUX_OUTPUT_HW_ID`.
pub const AUX_OUTPUT_HW_ID: u32 = 21;
/// `PERF_RECORD_HEADER_ATTR`: pipe mode's attr.
pub const HEADER_ATTR: u32 = 64;
/// `PERF_RECORD_HEADER_EVENT_TYPE`: no longer written.
pub const HEADER_EVENT_TYPE: u32 = 65;
/// `PERF_RECORD_HEADER_TRACING_DATA`: pipe mode's TRACING_DATA (payload follows the record).
pub const HEADER_TRACING_DATA: u32 = 66;
/// `PERF_RECORD_HEADER_BUILD_ID`.
pub const HEADER_BUILD_ID: u32 = 67;
/// `PERF_RECORD_FINISHED_ROUND`: no record before it is newer than one after it.
pub const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_ID_INDEX`.
pub const ID_INDEX: u32 = 69;
/// `PERF_RECORD_AUXTRACE_INFO`.
pub const AUXTRACE_INFO: u32 = 70;
/// `PERF_RECORD_AUXTRACE` (payload follows the record).
pub const AUXTRACE: u32 = 71;
/// `PERF_RECORD_AUXTRACE_ERROR`.
pub const AUXTRACE_ERROR: u32 = 72;
/// `PERF_RECORD_THREAD_MAP`.
pub const THREAD_MAP: u32 = 73;
/// `PERF_RECORD_CPU_MAP`.
pub const CPU_MAP: u32 = 74;
/// `PERF_RECORD_STAT_CONFIG`.
pub const STAT_CONFIG: u32 = 75;
/// `PERF_RECORD_STAT`.
pub const STAT: u32 = 76;
/// `PERF_RECORD_STAT_ROUND`.
pub const STAT_ROUND: u32 = 77;
/// `PERF_RECORD_EVENT_UPDATE`.
pub const EVENT_UPDATE: u32 = 78;
/// `PERF_RECORD_TIME_CONV`.
pub const TIME_CONV: u32 = 79;
/// `PERF_RECORD_HEADER_FEATURE`: pipe mode's feature section.
pub const HEADER_FEATURE: u32 = 80;
/// `PERF_RECORD_COMPRESSED`.
pub const COMPRESSED: u32 = 81;
/// `PERF_RECORD_FINISHED_INIT`: the initial system state has been written.
pub const FINISHED_INIT: u32 = 82;
/// `PERF_RECORD_COMPRESSED2` (newer perf).
pub const COMPRESSED2: u32 = 83;

const KERNEL_NAMES: [&str; 21] = [
    "MMAP",
    "LOST",
    "COMM",
    "EXIT",
    "THROTTLE",
    "UNTHROTTLE",
    "FORK",
    "READ",
    "SAMPLE",
    "MMAP2",
    "AUX",
    "ITRACE_START",
    "LOST_SAMPLES",
    "SWITCH",
    "SWITCH_CPU_WIDE",
    "NAMESPACES",
    "KSYMBOL",
    "BPF_EVENT",
    "CGROUP",
    "TEXT_POKE",
    "AUX_OUTPUT_HW_ID",
];

const USER_NAMES: [&str; 20] = [
    "HEADER_ATTR",
    "HEADER_EVENT_TYPE",
    "HEADER_TRACING_DATA",
    "HEADER_BUILD_ID",
    "FINISHED_ROUND",
    "ID_INDEX",
    "AUXTRACE_INFO",
    "AUXTRACE",
    "AUXTRACE_ERROR",
    "THREAD_MAP",
    "CPU_MAP",
    "STAT_CONFIG",
    "STAT",
    "STAT_ROUND",
    "EVENT_UPDATE",
    "TIME_CONV",
    "HEADER_FEATURE",
    "COMPRESSED",
    "FINISHED_INIT",
    "COMPRESSED2",
];

/// True for record types written by tools rather than the kernel (64 and up).
pub const fn is_user(type_: u32) -> bool {
    type_ >= HEADER_ATTR
}

/// perf's name of record type `type_` without the `PERF_RECORD_` prefix.
pub fn name(type_: u32) -> Option<&'static str> {
    let t = usize::try_from(type_).ok()?;
    if is_user(type_) {
        USER_NAMES.get(t.checked_sub(64)?).copied()
    } else {
        KERNEL_NAMES.get(t.checked_sub(1)?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(name(MMAP), Some("MMAP"));
        assert_eq!(name(AUX_OUTPUT_HW_ID), Some("AUX_OUTPUT_HW_ID"));
        assert_eq!(name(HEADER_ATTR), Some("HEADER_ATTR"));
        assert_eq!(name(FINISHED_INIT), Some("FINISHED_INIT"));
        assert_eq!(name(COMPRESSED2), Some("COMPRESSED2"));
        assert_eq!(name(0), None);
        assert_eq!(name(22), None);
        assert_eq!(name(84), None);
        assert_eq!(name(u32::MAX), None);
    }
}
