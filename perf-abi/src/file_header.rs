//! The file header (`struct perf_file_header`), its sections, and the pipe-mode header.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `PERFILE2` read as a `u64` in the file's own byte order.
///
/// A reader that sees [`PERF_MAGIC_SWAPPED`] instead knows the file has the other byte order.
pub const PERF_MAGIC: u64 = 0x3245_4C49_4652_4550;

/// [`PERF_MAGIC`] with its bytes reversed: what a reader of the other byte order sees.
pub const PERF_MAGIC_SWAPPED: u64 = PERF_MAGIC.swap_bytes();

/// `sizeof(struct perf_file_header)`: the value of [`PerfFileHeader::size`].
pub const FILE_HEADER_SIZE: u64 = 104;

/// `sizeof(struct perf_pipe_file_header)`: the value of [`PerfPipeHeader::size`].
pub const PIPE_HEADER_SIZE: u64 = 16;

/// `struct perf_file_section`: a byte range of the file.
///
/// ```
/// let s = perf_abi::PerfFileSection { offset: 104, size: 16 };
/// assert_eq!(s.end(), Some(120));
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct PerfFileSection {
    /// Offset of the first byte from the start of the file.
    pub offset: u64,
    /// Length in bytes.
    pub size: u64,
}

impl PerfFileSection {
    /// One past the last byte, or `None` when that overflows `u64`.
    pub const fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }

    /// True when both sections hold at least one common byte.
    pub const fn overlaps(&self, other: &PerfFileSection) -> bool {
        if self.size == 0 || other.size == 0 {
            return false;
        }
        // `end()` saturates here: callers compare ranges that may come from untrusted files.
        let a_end = self.offset.saturating_add(self.size);
        let b_end = other.offset.saturating_add(other.size);
        self.offset < b_end && other.offset < a_end
    }
}

/// `struct perf_file_header`: the first 104 bytes of a file-mode `perf.data`.
///
/// ```
/// use perf_abi::{PerfFileHeader, FILE_HEADER_SIZE};
/// assert_eq!(core::mem::size_of::<PerfFileHeader>() as u64, FILE_HEADER_SIZE);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct PerfFileHeader {
    /// [`PERF_MAGIC`].
    pub magic: u64,
    /// [`FILE_HEADER_SIZE`].
    pub size: u64,
    /// Size of one entry of the attrs section: `attr.size` + 16 (the entry's ids section).
    pub attr_size: u64,
    /// The attrs section: one `{perf_event_attr, PerfFileSection ids}` entry per event.
    pub attrs: PerfFileSection,
    /// The data section: the records.
    pub data: PerfFileSection,
    /// Unused by perf since 2012; written as zeros.
    pub event_types: PerfFileSection,
    /// Bitmap of the features present (`adds_features`); bit `i` is word `i / 64`, bit `i % 64`.
    pub features: [u64; 4],
}

impl PerfFileHeader {
    /// True when feature `index` is set in [`Self::features`] (false for `index >= 256`).
    pub const fn has_feature(&self, index: u32) -> bool {
        if index >= 256 {
            return false;
        }
        (self.features[(index / 64) as usize] >> (index % 64)) & 1 != 0
    }
}

/// `struct perf_pipe_file_header`: the 16-byte header of a pipe-mode stream.
///
/// ```
/// use perf_abi::{PerfPipeHeader, PERF_MAGIC, PIPE_HEADER_SIZE};
/// let h = PerfPipeHeader { magic: PERF_MAGIC, size: PIPE_HEADER_SIZE };
/// assert_eq!(zerocopy::IntoBytes::as_bytes(&h).len(), 16);
/// ```
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct PerfPipeHeader {
    /// [`PERF_MAGIC`].
    pub magic: u64,
    /// [`PIPE_HEADER_SIZE`].
    pub size: u64,
}

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<PerfFileSection>() == 16);
    assert!(offset_of!(PerfFileSection, size) == 8);
    assert!(size_of::<PerfFileHeader>() == FILE_HEADER_SIZE as usize);
    assert!(offset_of!(PerfFileHeader, size) == 8);
    assert!(offset_of!(PerfFileHeader, attr_size) == 16);
    assert!(offset_of!(PerfFileHeader, attrs) == 24);
    assert!(offset_of!(PerfFileHeader, data) == 40);
    assert!(offset_of!(PerfFileHeader, event_types) == 56);
    assert!(offset_of!(PerfFileHeader, features) == 72);
    assert!(size_of::<PerfPipeHeader>() == PIPE_HEADER_SIZE as usize);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_spells_perfile2_in_little_endian() {
        assert_eq!(&PERF_MAGIC.to_le_bytes(), b"PERFILE2");
        assert_eq!(&PERF_MAGIC_SWAPPED.to_be_bytes(), b"PERFILE2");
    }

    #[test]
    fn overlap_rules() {
        let a = PerfFileSection {
            offset: 0,
            size: 104,
        };
        let b = PerfFileSection {
            offset: 104,
            size: 8,
        };
        let c = PerfFileSection {
            offset: 100,
            size: 8,
        };
        let empty = PerfFileSection {
            offset: 50,
            size: 0,
        };
        assert!(!a.overlaps(&b));
        assert!(a.overlaps(&c));
        assert!(c.overlaps(&b));
        assert!(!a.overlaps(&empty));
        let huge = PerfFileSection {
            offset: u64::MAX,
            size: u64::MAX,
        };
        assert!(huge.end().is_none());
        assert!(!huge.overlaps(&a));
    }

    #[test]
    fn feature_bits() {
        let mut h = PerfFileHeader::default();
        h.features[0] = 1 << 3;
        h.features[1] = 1;
        assert!(h.has_feature(3));
        assert!(h.has_feature(64));
        assert!(!h.has_feature(4));
        assert!(!h.has_feature(300));
    }
}
