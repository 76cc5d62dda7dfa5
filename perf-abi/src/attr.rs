//! `struct perf_event_attr`: how an event was collected.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `PERF_ATTR_SIZE_VER0`: the first published layout (up to `bp_len`/`config2` excluded).
pub const ATTR_SIZE_VER0: u32 = 64;
/// `PERF_ATTR_SIZE_VER1`: adds `config2`.
pub const ATTR_SIZE_VER1: u32 = 72;
/// `PERF_ATTR_SIZE_VER2`: adds `branch_sample_type`.
pub const ATTR_SIZE_VER2: u32 = 80;
/// `PERF_ATTR_SIZE_VER3`: adds `sample_regs_user` and `sample_stack_user`.
pub const ATTR_SIZE_VER3: u32 = 96;
/// `PERF_ATTR_SIZE_VER4`: adds `sample_regs_intr`.
pub const ATTR_SIZE_VER4: u32 = 104;
/// `PERF_ATTR_SIZE_VER5`: adds `aux_watermark`.
pub const ATTR_SIZE_VER5: u32 = 112;
/// `PERF_ATTR_SIZE_VER6`: adds `aux_sample_size`.
pub const ATTR_SIZE_VER6: u32 = 120;
/// `PERF_ATTR_SIZE_VER7`: adds `sig_data`. The largest layout perf 6.1 reads.
pub const ATTR_SIZE_VER7: u32 = 128;
/// `PERF_ATTR_SIZE_VER8`: adds `config3` (perf 6.3 and later; perf 6.1 refuses it).
pub const ATTR_SIZE_VER8: u32 = 136;

/// Every published attr size, oldest first.
pub const ATTR_SIZES: [u32; 9] = [
    ATTR_SIZE_VER0,
    ATTR_SIZE_VER1,
    ATTR_SIZE_VER2,
    ATTR_SIZE_VER3,
    ATTR_SIZE_VER4,
    ATTR_SIZE_VER5,
    ATTR_SIZE_VER6,
    ATTR_SIZE_VER7,
    ATTR_SIZE_VER8,
];

/// `PERF_TYPE_HARDWARE`.
pub const TYPE_HARDWARE: u32 = 0;
/// `PERF_TYPE_SOFTWARE`.
pub const TYPE_SOFTWARE: u32 = 1;
/// `PERF_TYPE_TRACEPOINT`: `config` is the tracepoint's id (its tracefs `common_type`).
pub const TYPE_TRACEPOINT: u32 = 2;
/// `PERF_TYPE_HW_CACHE`.
pub const TYPE_HW_CACHE: u32 = 3;
/// `PERF_TYPE_RAW`.
pub const TYPE_RAW: u32 = 4;
/// `PERF_TYPE_BREAKPOINT`.
pub const TYPE_BREAKPOINT: u32 = 5;

/// `PERF_COUNT_SW_CPU_CLOCK`, a `config` of [`TYPE_SOFTWARE`].
pub const SW_CPU_CLOCK: u64 = 0;
/// `PERF_COUNT_SW_TASK_CLOCK`.
pub const SW_TASK_CLOCK: u64 = 1;
/// `PERF_COUNT_SW_DUMMY`: an event that counts nothing, used to carry side-band records.
pub const SW_DUMMY: u64 = 9;
/// `PERF_COUNT_SW_BPF_OUTPUT`.
pub const SW_BPF_OUTPUT: u64 = 10;

/// `struct perf_event_attr` up to `config3` (the 136-byte [`ATTR_SIZE_VER8`] layout).
///
/// [`Self::size`] says how many of these bytes a file holds; encoders write that prefix.
/// [`Self::flags`] holds the C bit-field word as a little-endian kernel lays it out
/// (bit 0 is `disabled`; see [`crate::attr_flags`]).
///
/// ```
/// use perf_abi::{attr, attr_flags, sample_type, PerfEventAttr};
/// let a = PerfEventAttr {
///     type_: attr::TYPE_SOFTWARE,
///     size: attr::ATTR_SIZE_VER7,
///     config: attr::SW_CPU_CLOCK,
///     sample_type: sample_type::IP | sample_type::TID | sample_type::TIME,
///     flags: attr_flags::SAMPLE_ID_ALL,
///     ..Default::default()
/// };
/// assert!(a.has_flag(attr_flags::SAMPLE_ID_ALL));
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct PerfEventAttr {
    /// Major type: `TYPE_*`.
    pub type_: u32,
    /// Size of the struct as written (`ATTR_SIZE_VER*`).
    pub size: u32,
    /// Type-specific configuration.
    pub config: u64,
    /// `sample_period`, or `sample_freq` when [`attr_flags::FREQ`](crate::attr_flags::FREQ) is set.
    pub sample_period: u64,
    /// Fields of a SAMPLE record: `sample_type::*` bits.
    pub sample_type: u64,
    /// Layout of READ values: `read_format::*` bits.
    pub read_format: u64,
    /// The bit-field word (`disabled`, `inherit`, …): `attr_flags::*`.
    pub flags: u64,
    /// `wakeup_events`, or `wakeup_watermark` when `watermark` is set.
    pub wakeup_events: u32,
    /// Breakpoint type.
    pub bp_type: u32,
    /// `config1` / `bp_addr` / `kprobe_func` / `uprobe_path`.
    pub config1: u64,
    /// `config2` / `bp_len` / `kprobe_addr` / `probe_offset`.
    pub config2: u64,
    /// `enum perf_branch_sample_type` bits.
    pub branch_sample_type: u64,
    /// User registers dumped in a sample.
    pub sample_regs_user: u64,
    /// Bytes of user stack dumped in a sample.
    pub sample_stack_user: u32,
    /// Clock of the time stamps when `use_clockid` is set.
    pub clockid: i32,
    /// Registers dumped at the interrupt.
    pub sample_regs_intr: u64,
    /// Wakeup watermark of the AUX area.
    pub aux_watermark: u32,
    /// Maximum depth of a callchain.
    pub sample_max_stack: u16,
    /// Reserved, zero.
    pub reserved_2: u16,
    /// Size of AUX data in a sample.
    pub aux_sample_size: u32,
    /// Reserved, zero (`aux_action` in newer kernels).
    pub reserved_3: u32,
    /// User data passed back with `sigtrap`.
    pub sig_data: u64,
    /// `config3` (VER8).
    pub config3: u64,
}

impl PerfEventAttr {
    /// True when every bit of `mask` is set in [`Self::flags`].
    pub const fn has_flag(&self, mask: u64) -> bool {
        self.flags & mask == mask
    }

    /// True when every bit of `mask` is set in [`Self::sample_type`].
    pub const fn has_sample(&self, mask: u64) -> bool {
        self.sample_type & mask == mask
    }

    /// The size this attr is written with in a file: [`ATTR_SIZE_VER8`] when it has
    /// `config3` (the only field past VER7), else [`ATTR_SIZE_VER7`], the size perf 6.1
    /// writes and expects. Smaller published sizes are never written.
    pub const fn minimal_file_size(&self) -> u32 {
        if self.config3 != 0 {
            ATTR_SIZE_VER8
        } else {
            ATTR_SIZE_VER7
        }
    }
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<PerfEventAttr>() == ATTR_SIZE_VER8 as usize);
    assert!(offset_of!(PerfEventAttr, size) == 4);
    assert!(offset_of!(PerfEventAttr, config) == 8);
    assert!(offset_of!(PerfEventAttr, sample_period) == 16);
    assert!(offset_of!(PerfEventAttr, sample_type) == 24);
    assert!(offset_of!(PerfEventAttr, read_format) == 32);
    assert!(offset_of!(PerfEventAttr, flags) == 40);
    assert!(offset_of!(PerfEventAttr, wakeup_events) == 48);
    assert!(offset_of!(PerfEventAttr, bp_type) == 52);
    assert!(offset_of!(PerfEventAttr, config1) == 56);
    assert!(offset_of!(PerfEventAttr, config2) == ATTR_SIZE_VER0 as usize);
    assert!(offset_of!(PerfEventAttr, branch_sample_type) == ATTR_SIZE_VER1 as usize);
    assert!(offset_of!(PerfEventAttr, sample_regs_user) == ATTR_SIZE_VER2 as usize);
    assert!(offset_of!(PerfEventAttr, sample_stack_user) == 88);
    assert!(offset_of!(PerfEventAttr, clockid) == 92);
    assert!(offset_of!(PerfEventAttr, sample_regs_intr) == ATTR_SIZE_VER3 as usize);
    assert!(offset_of!(PerfEventAttr, aux_watermark) == ATTR_SIZE_VER4 as usize);
    assert!(offset_of!(PerfEventAttr, sample_max_stack) == 108);
    assert!(offset_of!(PerfEventAttr, reserved_2) == 110);
    assert!(offset_of!(PerfEventAttr, aux_sample_size) == ATTR_SIZE_VER5 as usize);
    assert!(offset_of!(PerfEventAttr, reserved_3) == 116);
    assert!(offset_of!(PerfEventAttr, sig_data) == ATTR_SIZE_VER6 as usize);
    assert!(offset_of!(PerfEventAttr, config3) == ATTR_SIZE_VER7 as usize);
};
