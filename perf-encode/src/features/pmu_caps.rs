//! `HEADER_CPU_PMU_CAPS` and `HEADER_PMU_CAPS`: the capabilities PMUs list in sysfs.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, HeaderString, Output};

/// One capability: `{string name, string value}`, a file of
/// `/sys/bus/event_source/devices/PMU/caps/` and its first line (`branches` = `32`).
///
/// ```
/// let c = perf_encode::features::PmuCap { name: b"max_precise", value: b"3" };
/// assert_eq!(perf_encode::encoded_len(&c), Ok(2 * 68));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmuCap<'a> {
    /// The capability's name.
    pub name: &'a [u8],
    /// Its value, without the newline.
    pub value: &'a [u8],
}

impl Encode for PmuCap<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&HeaderString::new(self.name))?;
        enc.encode(&HeaderString::new(self.value))
    }
}

fn encode_caps<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    caps: &[PmuCap<'_>],
) -> Result<(), EncodeError> {
    enc.u32(count_u32("PMU capabilities", caps.len())?)?;
    caps.iter().try_for_each(|c| enc.encode(c))
}

/// The CPU_PMU_CAPS payload: `u32 nr`, then each [`PmuCap`] of the `cpu` PMU. perf writes it
/// when the machine has a `cpu` PMU (with `nr = 0` when it has no `caps` directory) and
/// prints `# cpu pmu capabilities: branches=32, …`.
///
/// ```
/// use perf_encode::features::{CpuPmuCaps, PmuCap};
/// let caps = [PmuCap { name: b"branches", value: b"32" }];
/// let v = perf_encode::to_vec(&CpuPmuCaps { caps: &caps }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), 4 + 2 * 68);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CpuPmuCaps<'a> {
    /// The capabilities.
    pub caps: &'a [PmuCap<'a>],
}

impl Encode for CpuPmuCaps<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        encode_caps(enc, self.caps)
    }
}

/// One PMU of PMU_CAPS: `u32 nr_caps`, its [`PmuCap`]s, then `string pmu`.
///
/// ```
/// use perf_encode::features::{PmuCap, PmuCapsEntry};
/// let caps = [PmuCap { name: b"max_precise", value: b"0" }];
/// let e = PmuCapsEntry { pmu: b"cpu_atom", caps: &caps };
/// assert_eq!(perf_encode::encoded_len(&e), Ok(4 + 2 * 68 + 68));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmuCapsEntry<'a> {
    /// The PMU's name.
    pub pmu: &'a [u8],
    /// Its capabilities.
    pub caps: &'a [PmuCap<'a>],
}

impl Encode for PmuCapsEntry<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        encode_caps(enc, self.caps)?;
        enc.encode(&HeaderString::new(self.pmu))
    }
}

/// The PMU_CAPS payload: `u32 nr_pmu`, then each [`PmuCapsEntry`]: every PMU but `cpu`
/// that has at least one capability. perf 6.1 writes it on every machine, `nr_pmu = 0`
/// (4 bytes) when no PMU qualifies.
///
/// ```
/// use perf_encode::features::PmuCaps;
/// let v = perf_encode::to_vec(&PmuCaps { pmus: &[] }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [0, 0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PmuCaps<'a> {
    /// The PMUs.
    pub pmus: &'a [PmuCapsEntry<'a>],
}

impl Encode for PmuCaps<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(count_u32("PMUs with capabilities", self.pmus.len())?)?;
        self.pmus.iter().try_for_each(|p| enc.encode(p))
    }
}
