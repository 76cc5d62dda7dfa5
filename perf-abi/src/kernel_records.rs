//! Kernel records of a fixed layout the readers of a ring buffer count: LOST and
//! LOST_SAMPLES, without their `sample_id` trailer.

use crate::PerfEventHeader;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `PERF_RECORD_LOST`: the kernel dropped `lost` records of event `id` (ring full).
///
/// ```
/// use perf_abi::{LostRecord, PerfEventHeader};
/// use zerocopy::FromBytes;
/// let mut bytes = [0u8; 24];
/// bytes[16] = 7;
/// let (lost, _) = LostRecord::read_from_prefix(&bytes).unwrap();
/// assert_eq!(lost.lost, u64::from_le(7));
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct LostRecord {
    /// `type_` is `record_type::LOST`.
    pub header: PerfEventHeader,
    /// The event whose records were dropped.
    pub id: u64,
    /// How many.
    pub lost: u64,
}

/// `PERF_RECORD_LOST_SAMPLES`: the kernel dropped `lost` samples (e.g. a full AUX area).
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct LostSamplesRecord {
    /// `type_` is `record_type::LOST_SAMPLES`.
    pub header: PerfEventHeader,
    /// How many.
    pub lost: u64,
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<LostRecord>() == 24 && offset_of!(LostRecord, lost) == 16);
    assert!(size_of::<LostSamplesRecord>() == 16 && offset_of!(LostSamplesRecord, lost) == 8);
};
