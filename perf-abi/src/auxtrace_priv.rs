//! AUXTRACE_INFO's private words (`priv[]`, the `u64`s after its `type` and `reserved`):
//! where perf 6.1's decoder for each trace type reads its settings, and the fewest words
//! each needs. Indexes count `u64` words from the first private word.

use crate::record_fields::{
    AUXTRACE_ARM_SPE, AUXTRACE_CS_ETM, AUXTRACE_HISI_PTT, AUXTRACE_INTEL_BTS, AUXTRACE_INTEL_PT,
    AUXTRACE_S390_CPUMSF,
};

/// The fewest private words perf 6.1 takes for trace type `type_` (it refuses a record
/// with fewer); `None` for a type it has no decoder for.
///
/// ```
/// use perf_abi::{auxtrace_priv, record_fields};
/// assert_eq!(auxtrace_priv::min_words(record_fields::AUXTRACE_INTEL_PT), Some(9));
/// assert_eq!(auxtrace_priv::min_words(0), None);
/// ```
pub const fn min_words(type_: u32) -> Option<usize> {
    match type_ {
        AUXTRACE_INTEL_PT => Some(PT_PER_CPU_MMAPS),
        AUXTRACE_INTEL_BTS => Some(BTS_SNAPSHOT_MODE),
        // perf checks none, but reads the three header words.
        AUXTRACE_CS_ETM => Some(CS_ETM_HEADER_WORDS),
        AUXTRACE_ARM_SPE => Some(2),
        AUXTRACE_S390_CPUMSF => Some(0),
        AUXTRACE_HISI_PTT => Some(1),
        _ => None,
    }
}

/// Intel PT: the PMU type (its low 32 bits), matched to an event's `attr.type`.
pub const PT_PMU_TYPE: usize = 0;
/// Intel PT: the time conversion's shift (its low 16 bits).
pub const PT_TIME_SHIFT: usize = 1;
/// Intel PT: the time conversion's multiplier (its low 32 bits), a divisor.
pub const PT_TIME_MULT: usize = 2;
/// Intel PT: the time conversion's zero.
pub const PT_TIME_ZERO: usize = 3;
/// Intel PT: `cap_user_time_zero`.
pub const PT_CAP_USER_TIME_ZERO: usize = 4;
/// Intel PT: the config bit that turns TSC packets on.
pub const PT_TSC_BIT: usize = 5;
/// Intel PT: how context switches were recorded (a C `int`): 1, by a `sched:sched_switch`
/// event (perf refuses the file without one); 2, by an event with `context_switch` (perf
/// refuses the file without one).
pub const PT_HAVE_SCHED_SWITCH: usize = 7;
/// Intel PT: where it was recorded with one mmap per cpu; the first word perf reads past
/// the fewest it takes.
pub const PT_PER_CPU_MMAPS: usize = 9;
/// Intel PT: the maximum non-turbo ratio (its low 32 bits; 0: perf works it out from the
/// time conversion, and divides by it).
pub const PT_MAX_NON_TURBO_RATIO: usize = 15;
/// Intel PT: the length of the address filter string that follows this word (0: none).
pub const PT_FILTER_STR_LEN: usize = 16;

/// Intel BTS: the time conversion's multiplier (its low 32 bits), a divisor.
pub const BTS_TIME_MULT: usize = 2;
/// Intel BTS: snapshot mode; the first word perf reads past the fewest it takes.
pub const BTS_SNAPSHOT_MODE: usize = 5;

/// Arm SPE and HiSilicon PTT: the PMU type (its low 32 bits), matched to an event's
/// `attr.type`.
pub const PMU_TYPE: usize = 0;

/// CoreSight: the header's version (0 or 1).
pub const CS_ETM_HEADER_VERSION: usize = 0;
/// CoreSight: the number of cpu blocks (low 32 bits, a C `int`) and the PMU type (high 32
/// bits).
pub const CS_ETM_PMU_TYPE_CPUS: usize = 1;
/// CoreSight: words of the header; the cpu blocks follow.
pub const CS_ETM_HEADER_WORDS: usize = 3;
/// CoreSight: the newest header version perf 6.1 reads.
pub const CS_ETM_HEADER_VERSION_MAX: u64 = 1;
/// CoreSight cpu block: its first word, one of the `CS_ETM_MAGIC_*`.
pub const CS_ETM_BLOCK_MAGIC: usize = 0;
/// CoreSight cpu block, version 1: the number of trace parameters after the block's three
/// common words (a C `int`).
pub const CS_ETM_BLOCK_NR_TRC_PARAMS: usize = 2;
/// CoreSight cpu block, as perf stores it (version 1 order): the trace id, which each
/// block must have its own of (compared as a C `int`).
pub const CS_ETM_BLOCK_TRACE_ID: usize = 4;
/// CoreSight: an ETMv3 cpu block.
pub const CS_ETM_MAGIC_ETMV3: u64 = 0x3030_3030_3030_3030;
/// CoreSight: an ETMv4 cpu block.
pub const CS_ETM_MAGIC_ETMV4: u64 = 0x4040_4040_4040_4040;
/// CoreSight: an ETE cpu block.
pub const CS_ETM_MAGIC_ETE: u64 = 0x5050_5050_5050_5050;
/// CoreSight, version 0: words of an ETMv3 cpu block (magic, cpu and four registers).
pub const CS_ETM_V0_ETMV3_WORDS: usize = 6;
/// CoreSight, version 0: words of an ETMv4 cpu block (magic, cpu and seven registers).
pub const CS_ETM_V0_ETMV4_WORDS: usize = 9;
/// CoreSight, version 1: the common words before a block's trace parameters (magic, cpu,
/// their count).
pub const CS_ETM_V1_COMMON_WORDS: usize = 3;

/// Intel PT and Arm SPE: the highest cpu perf's decoders take from a context switch (or,
/// with one mmap per cpu, an ITRACE_START) to keep that cpu's current thread. perf refuses
/// a record without a cpu (-1, or past `i32::MAX`), and sizes its table of current threads
/// by the highest cpu it saw; this bound keeps that table small.
pub const CURRENT_TID_CPU_MAX: u32 = 0xffff;

/// Intel PT and BTS, Arm SPE, CoreSight: perf gives the events it synthesizes from the trace
/// the ids from the first id of the first event of the PMU type that has ids, plus this
/// (wrapping; 0 becomes 1), one more per event.
pub const SYNTH_ID_OFFSET: u64 = 1_000_000_000;
/// The most events perf 6.1 synthesizes from one trace (Intel PT's thirteen kinds, with
/// room to spare): their ids are `SYNTH_IDS` from the first.
pub const SYNTH_IDS: u64 = 16;
