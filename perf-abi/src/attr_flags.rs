//! Bits of [`PerfEventAttr::flags`](crate::PerfEventAttr::flags), the bit-field word of
//! `struct perf_event_attr`, numbered as a little-endian kernel lays them out.
//!
//! ```
//! use perf_abi::attr_flags::{precise_ip, PRECISE_IP_MASK, SAMPLE_ID_ALL};
//! let flags = SAMPLE_ID_ALL | precise_ip(2);
//! assert_eq!((flags & PRECISE_IP_MASK) >> 15, 2);
//! ```

/// Off by default.
pub const DISABLED: u64 = 1 << 0;
/// Children inherit it.
pub const INHERIT: u64 = 1 << 1;
/// Must always be on the PMU.
pub const PINNED: u64 = 1 << 2;
/// Only group on the PMU.
pub const EXCLUSIVE: u64 = 1 << 3;
/// Don't count user.
pub const EXCLUDE_USER: u64 = 1 << 4;
/// Don't count kernel.
pub const EXCLUDE_KERNEL: u64 = 1 << 5;
/// Don't count hypervisor.
pub const EXCLUDE_HV: u64 = 1 << 6;
/// Don't count when idle.
pub const EXCLUDE_IDLE: u64 = 1 << 7;
/// Emit MMAP records.
pub const MMAP: u64 = 1 << 8;
/// Emit COMM records.
pub const COMM: u64 = 1 << 9;
/// `sample_period` is a frequency.
pub const FREQ: u64 = 1 << 10;
/// Per-task counts.
pub const INHERIT_STAT: u64 = 1 << 11;
/// Enabled at the next exec.
pub const ENABLE_ON_EXEC: u64 = 1 << 12;
/// Emit FORK and EXIT records.
pub const TASK: u64 = 1 << 13;
/// `wakeup_events` is a watermark.
pub const WATERMARK: u64 = 1 << 14;
/// The two bits of `precise_ip` (skid constraint, 0..=3).
pub const PRECISE_IP_MASK: u64 = 3 << 15;
/// Emit MMAP records for non-exec mappings.
pub const MMAP_DATA: u64 = 1 << 17;
/// Non-sample records carry the `sample_id` trailer.
pub const SAMPLE_ID_ALL: u64 = 1 << 18;
/// Don't count in the host.
pub const EXCLUDE_HOST: u64 = 1 << 19;
/// Don't count in guests.
pub const EXCLUDE_GUEST: u64 = 1 << 20;
/// Exclude kernel callchains.
pub const EXCLUDE_CALLCHAIN_KERNEL: u64 = 1 << 21;
/// Exclude user callchains.
pub const EXCLUDE_CALLCHAIN_USER: u64 = 1 << 22;
/// Emit MMAP2 records.
pub const MMAP2: u64 = 1 << 23;
/// COMM records say whether they come from exec.
pub const COMM_EXEC: u64 = 1 << 24;
/// Time stamps use `clockid`.
pub const USE_CLOCKID: u64 = 1 << 25;
/// Emit SWITCH records.
pub const CONTEXT_SWITCH: u64 = 1 << 26;
/// Write the ring buffer backwards.
pub const WRITE_BACKWARD: u64 = 1 << 27;
/// Emit NAMESPACES records.
pub const NAMESPACES: u64 = 1 << 28;
/// Emit KSYMBOL records.
pub const KSYMBOL: u64 = 1 << 29;
/// Emit BPF_EVENT records.
pub const BPF_EVENT: u64 = 1 << 30;
/// Generate AUX records instead of events.
pub const AUX_OUTPUT: u64 = 1 << 31;
/// Emit CGROUP records.
pub const CGROUP: u64 = 1 << 32;
/// Emit TEXT_POKE records.
pub const TEXT_POKE: u64 = 1 << 33;
/// MMAP2 records carry a build id.
pub const BUILD_ID: u64 = 1 << 34;
/// Children inherit only if cloned with `CLONE_THREAD`.
pub const INHERIT_THREAD: u64 = 1 << 35;
/// Event is removed from the task at exec.
pub const REMOVE_ON_EXEC: u64 = 1 << 36;
/// Send a synchronous SIGTRAP on event.
pub const SIGTRAP: u64 = 1 << 37;

/// The `precise_ip` field (0..=3) placed in its two bits; larger values are masked.
pub const fn precise_ip(level: u64) -> u64 {
    (level & 3) << 15
}
