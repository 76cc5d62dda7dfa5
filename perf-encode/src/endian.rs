//! Byte order of a file, as a run-time value.

/// The byte order every multi-byte field of a file is written in.
///
/// ```
/// use perf_encode::Endian;
/// assert_eq!(Endian::Big.u32_bytes(1), [0, 0, 0, 1]);
/// assert_eq!(Endian::Little.u32_bytes(1), [1, 0, 0, 0]);
/// assert!(Endian::NATIVE.is_native());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Least significant byte first (x86, most ARM and RISC-V systems).
    #[default]
    Little,
    /// Most significant byte first (s390x, some PowerPC and MIPS systems).
    Big,
}

impl Endian {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };

    /// True when this is the byte order of the machine this code runs on.
    pub const fn is_native(self) -> bool {
        matches!(
            (self, Self::NATIVE),
            (Endian::Little, Endian::Little) | (Endian::Big, Endian::Big)
        )
    }

    /// True for [`Endian::Big`].
    pub const fn is_big(self) -> bool {
        matches!(self, Endian::Big)
    }

    /// `v` in this byte order.
    pub const fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// `v` in this byte order.
    pub const fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// `v` in this byte order.
    pub const fn u64_bytes(self, v: u64) -> [u8; 8] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// Reads a `u16` in this byte order.
    pub const fn read_u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    /// Reads a `u32` in this byte order.
    pub const fn read_u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    /// Reads a `u64` in this byte order.
    pub const fn read_u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }

    /// The `u16` at byte `at` of `bytes` in this byte order; `None` past their end.
    #[inline]
    pub fn u16_at(self, bytes: &[u8], at: usize) -> Option<u16> {
        let b = bytes.get(at..)?.first_chunk::<2>()?;
        Some(self.read_u16(*b))
    }

    /// The `u32` at byte `at` of `bytes` in this byte order; `None` past their end.
    ///
    /// ```
    /// use perf_encode::Endian;
    /// assert_eq!(Endian::Big.u32_at(&[9, 0, 0, 0, 7], 1), Some(7));
    /// assert_eq!(Endian::Big.u32_at(&[9, 0, 0, 0, 7], 2), None);
    /// ```
    #[inline]
    pub fn u32_at(self, bytes: &[u8], at: usize) -> Option<u32> {
        let b = bytes.get(at..)?.first_chunk::<4>()?;
        Some(self.read_u32(*b))
    }

    /// The `u64` at byte `at` of `bytes` in this byte order; `None` past their end.
    #[inline]
    pub fn u64_at(self, bytes: &[u8], at: usize) -> Option<u64> {
        let b = bytes.get(at..)?.first_chunk::<8>()?;
        Some(self.read_u64(*b))
    }
}
