//! Bits of [`PerfEventHeader::misc`](crate::PerfEventHeader::misc) (`PERF_RECORD_MISC_*`).
//!
//! ```
//! use perf_abi::misc;
//! assert_eq!(misc::USER & misc::CPUMODE_MASK, misc::USER);
//! ```

/// The three bits that hold the cpu mode.
pub const CPUMODE_MASK: u16 = 7;
/// Cpu mode unknown.
pub const CPUMODE_UNKNOWN: u16 = 0;
/// Kernel mode.
pub const KERNEL: u16 = 1;
/// User mode.
pub const USER: u16 = 2;
/// Hypervisor.
pub const HYPERVISOR: u16 = 3;
/// Guest kernel.
pub const GUEST_KERNEL: u16 = 4;
/// Guest user.
pub const GUEST_USER: u16 = 5;
/// MMAP/MMAP2: the mapping did not finish parsing in time (synthesized records).
pub const PROC_MAP_PARSE_TIMEOUT: u16 = 1 << 12;
/// MMAP/MMAP2: a data (non-exec) mapping.
pub const MMAP_DATA: u16 = 1 << 13;
/// COMM: the name change comes from exec.
pub const COMM_EXEC: u16 = 1 << 13;
/// FORK: the fork is an exec.
pub const FORK_EXEC: u16 = 1 << 13;
/// SWITCH: the task is switched out.
pub const SWITCH_OUT: u16 = 1 << 13;
/// SAMPLE: the ip is exact.
pub const EXACT_IP: u16 = 1 << 14;
/// SWITCH: the switch out is a preemption.
pub const SWITCH_OUT_PREEMPT: u16 = 1 << 14;
/// MMAP2: the record carries a build id instead of device and inode.
pub const MMAP_BUILD_ID: u16 = 1 << 14;
/// Reserved for an extension of misc.
pub const EXT_RESERVED: u16 = 1 << 15;
/// BUILD_ID feature entries: the entry says the build id's size.
pub const BUILD_ID_SIZE: u16 = 1 << 15;
