//! `struct perf_event_header`: the 8 bytes that start every record.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `struct perf_event_header`.
///
/// `size` counts the header itself; records in a file should be a multiple of 8 long.
///
/// ```
/// use perf_abi::{record_type, PerfEventHeader};
/// let h = PerfEventHeader { type_: record_type::FINISHED_ROUND, misc: 0, size: 8 };
/// assert_eq!(zerocopy::IntoBytes::as_bytes(&h).len(), PerfEventHeader::SIZE);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct PerfEventHeader {
    /// Record type: `record_type::*`.
    pub type_: u32,
    /// `misc::*` bits.
    pub misc: u16,
    /// Size of the whole record, this header included.
    pub size: u16,
}

impl PerfEventHeader {
    /// `sizeof(struct perf_event_header)`.
    pub const SIZE: usize = 8;
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<PerfEventHeader>() == PerfEventHeader::SIZE);
    assert!(offset_of!(PerfEventHeader, misc) == 4);
    assert!(offset_of!(PerfEventHeader, size) == 6);
};
