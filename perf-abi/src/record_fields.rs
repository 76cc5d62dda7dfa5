//! Values and limits of fields inside records: register ABIs, branch-stack options,
//! KSYMBOL types and flags, CPU_MAP encodings, AUXTRACE_INFO trace types, STAT_CONFIG tags, EVENT_UPDATE kinds, build-id and record sizes.
//!
//! ```
//! use perf_abi::record_fields::*;
//! assert_eq!(MAX_RECORD_SIZE % 8, 0);
//! assert_eq!(REGS_ABI_64, 2);
//! ```

/// The largest record: `perf_event_header.size` is a `u16` and records are 8-aligned.
pub const MAX_RECORD_SIZE: usize = 0xfff8;

/// The longest build id (a SHA-1), in MMAP2 records and the BUILD_ID feature.
pub const BUILD_ID_MAX_LEN: usize = 20;

/// `PERF_SAMPLE_BRANCH_HW_INDEX` of `attr.branch_sample_type`: BRANCH_STACK carries `hw_idx`.
pub const BRANCH_SAMPLE_HW_INDEX: u64 = 1 << 17;

/// `perf_branch_entry.mispred`: the branch was mispredicted (bit 0 of the flags word as a
/// little-endian kernel packs the bit-fields; see [`BRANCH_ENTRY_FIELDS`]).
pub const BRANCH_MISPRED: u64 = 1 << 0;
/// `perf_branch_entry.predicted`.
pub const BRANCH_PREDICTED: u64 = 1 << 1;
/// `perf_branch_entry.in_tx`: in a transaction.
pub const BRANCH_IN_TX: u64 = 1 << 2;
/// `perf_branch_entry.abort`: a transaction abort.
pub const BRANCH_ABORT: u64 = 1 << 3;
/// Shift of `perf_branch_entry.cycles` (16 bits).
pub const BRANCH_CYCLES_SHIFT: u32 = 4;
/// Shift of `perf_branch_entry.type` (4 bits).
pub const BRANCH_TYPE_SHIFT: u32 = 20;

/// The bit-fields of `perf_branch_entry`'s flags word as `(position, width)` in a
/// little-endian kernel's packing, in declaration order: `mispred`, `predicted`, `in_tx`,
/// `abort`, `cycles`, `type`, `spec`, `new_type`, `priv`, `reserved`. A big-endian kernel
/// packs C bit-fields from the top bit down: each field at `64 - position - width`.
///
/// ```
/// use perf_abi::record_fields::*;
/// assert_eq!(BRANCH_ENTRY_FIELDS[4], (BRANCH_CYCLES_SHIFT, 16));
/// assert_eq!(BRANCH_ENTRY_FIELDS.iter().map(|f| f.1).sum::<u32>(), 64);
/// ```
pub const BRANCH_ENTRY_FIELDS: [(u32, u32); 10] = [
    (0, 1),
    (1, 1),
    (2, 1),
    (3, 1),
    (BRANCH_CYCLES_SHIFT, 16),
    (BRANCH_TYPE_SHIFT, 4),
    (24, 2),
    (26, 4),
    (30, 3),
    (33, 31),
];

const _: () = {
    // The flag bits are the first four one-bit fields.
    assert!(BRANCH_ENTRY_FIELDS[0].0 == BRANCH_MISPRED.trailing_zeros());
    assert!(BRANCH_ENTRY_FIELDS[1].0 == BRANCH_PREDICTED.trailing_zeros());
    assert!(BRANCH_ENTRY_FIELDS[2].0 == BRANCH_IN_TX.trailing_zeros());
    assert!(BRANCH_ENTRY_FIELDS[3].0 == BRANCH_ABORT.trailing_zeros());
};

/// `PERF_SAMPLE_REGS_ABI_NONE`: a register dump with no registers (the task had none).
pub const REGS_ABI_NONE: u64 = 0;
/// `PERF_SAMPLE_REGS_ABI_32`.
pub const REGS_ABI_32: u64 = 1;
/// `PERF_SAMPLE_REGS_ABI_64`.
pub const REGS_ABI_64: u64 = 2;

/// `PERF_RECORD_KSYMBOL_TYPE_UNKNOWN`.
pub const KSYMBOL_TYPE_UNKNOWN: u16 = 0;
/// `PERF_RECORD_KSYMBOL_TYPE_BPF`: a BPF program.
pub const KSYMBOL_TYPE_BPF: u16 = 1;
/// `PERF_RECORD_KSYMBOL_TYPE_OOL`: out-of-line code (trampolines, …).
pub const KSYMBOL_TYPE_OOL: u16 = 2;
/// `PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER`: the symbol goes away.
pub const KSYMBOL_FLAGS_UNREGISTER: u16 = 1;

/// `PERF_CPU_MAP__CPUS`: CPU_MAP data is a list of CPU numbers.
pub const CPU_MAP_CPUS: u16 = 0;
/// `PERF_CPU_MAP__MASK`: CPU_MAP data is a bit mask.
pub const CPU_MAP_MASK: u16 = 1;
/// `PERF_CPU_MAP__RANGE_CPUS`: CPU_MAP data is one range of CPUs.
pub const CPU_MAP_RANGE_CPUS: u16 = 2;

/// `PERF_AUXTRACE_UNKNOWN`: AUXTRACE_INFO's `type` when no trace decoder applies.
pub const AUXTRACE_UNKNOWN: u32 = 0;
/// `PERF_AUXTRACE_INTEL_PT`.
pub const AUXTRACE_INTEL_PT: u32 = 1;
/// `PERF_AUXTRACE_INTEL_BTS`.
pub const AUXTRACE_INTEL_BTS: u32 = 2;
/// `PERF_AUXTRACE_CS_ETM`: Arm CoreSight.
pub const AUXTRACE_CS_ETM: u32 = 3;
/// `PERF_AUXTRACE_ARM_SPE`.
pub const AUXTRACE_ARM_SPE: u32 = 4;
/// `PERF_AUXTRACE_S390_CPUMSF`.
pub const AUXTRACE_S390_CPUMSF: u32 = 5;
/// `PERF_AUXTRACE_HISI_PTT`: the last type perf 6.1 decodes.
pub const AUXTRACE_HISI_PTT: u32 = 6;

/// The most an AUXTRACE record's `idx` may be: perf grows a queue per index up to it
/// (doubling its table, which it cannot allocate for indexes near `u32::MAX`); an index
/// is a cpu or a thread's mmap, far below.
pub const AUXTRACE_IDX_MAX: u32 = (1 << 24) - 1;

/// Where an AUXTRACE record's `idx` is (after its header, `size`, `offset`, `reference`).
pub const AUXTRACE_IDX_AT: usize = 32;

/// AUXTRACE_INFO's `type` names a trace decoder perf 6.1 has; perf refuses the record
/// (and stops reading) otherwise.
pub const fn auxtrace_type_decoded(type_: u32) -> bool {
    matches!(type_, AUXTRACE_INTEL_PT..=AUXTRACE_HISI_PTT)
}

/// `PERF_STAT_CONFIG_TERM__AGGR_MODE`: a STAT_CONFIG entry's tag for the aggregation mode.
pub const STAT_CONFIG_AGGR_MODE: u64 = 0;
/// `PERF_STAT_CONFIG_TERM__INTERVAL`: the interval, in ms.
pub const STAT_CONFIG_INTERVAL: u64 = 1;
/// `PERF_STAT_CONFIG_TERM__SCALE`: counts are scaled.
pub const STAT_CONFIG_SCALE: u64 = 2;

/// A STAT_CONFIG entry's tag is one perf 6.1 knows (it warns of any other).
pub const fn stat_config_tag_known(tag: u64) -> bool {
    tag <= STAT_CONFIG_SCALE
}

/// `PERF_EVENT_UPDATE__UNIT`: an EVENT_UPDATE record carrying an event's unit.
pub const EVENT_UPDATE_UNIT: u64 = 0;

/// `PERF_EVENT_UPDATE__NAME`: an EVENT_UPDATE record carrying an event's name.
pub const EVENT_UPDATE_NAME: u64 = 2;
