//! `HEADER_CACHE`: the CPU caches of the machine.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, HeaderString, Output};
use perf_abi::CACHE_VERSION;

/// One cache, from `/sys/devices/system/cpu/cpuN/cache/indexM/`: `{u32 level, u32
/// line_size, u32 sets, u32 ways, string type, string size, string map}`.
///
/// ```
/// let l1d = perf_encode::features::CacheLevel {
///     level: 1, line_size: 64, sets: 64, ways: 8, type_: b"Data", size: b"32K", map: b"0",
/// };
/// assert_eq!(perf_encode::encoded_len(&l1d), Ok(16 + 3 * 68));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLevel<'a> {
    /// `level` (1, 2, 3…).
    pub level: u32,
    /// `coherency_line_size`, bytes.
    pub line_size: u32,
    /// `number_of_sets`.
    pub sets: u32,
    /// `ways_of_associativity`.
    pub ways: u32,
    /// `type`: `Data`, `Instruction` or `Unified`.
    pub type_: &'a [u8],
    /// `size` as sysfs writes it (`32K`).
    pub size: &'a [u8],
    /// `shared_cpu_list`: the CPUs sharing this cache (`0-1`).
    pub map: &'a [u8],
}

impl Encode for CacheLevel<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.level)?;
        enc.u32(self.line_size)?;
        enc.u32(self.sets)?;
        enc.u32(self.ways)?;
        enc.encode(&HeaderString::new(self.type_))?;
        enc.encode(&HeaderString::new(self.size))?;
        enc.encode(&HeaderString::new(self.map))
    }
}

/// The CACHE payload: `u32 version` (`CACHE_VERSION`), `u32 nr`, then each
/// [`CacheLevel`]. perf lists every distinct cache of every CPU once, sorted by level (CPU
/// order within a level).
///
/// ```
/// use perf_encode::features::{CacheLevel, CpuCaches};
/// let caches = [CacheLevel { level: 3, line_size: 64, sets: 32768, ways: 16, type_: b"Unified", size: b"32768K", map: b"0-1" }];
/// let v = perf_encode::to_vec(&CpuCaches { caches: &caches }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(&v[..8], &[1, 0, 0, 0, 1, 0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CpuCaches<'a> {
    /// The caches.
    pub caches: &'a [CacheLevel<'a>],
}

impl Encode for CpuCaches<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(CACHE_VERSION)?;
        enc.u32(count_u32("caches", self.caches.len())?)?;
        self.caches.iter().try_for_each(|c| enc.encode(c))
    }
}
