//! `HEADER_PMU_MAPPINGS`: the PMUs of the machine and their `perf_event_attr.type`.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, HeaderString, Output};

/// One PMU: `{u32 type, string name}`, from `/sys/bus/event_source/devices/NAME/type`.
///
/// ```
/// let p = perf_encode::features::PmuMapping { type_: 1, name: b"software" };
/// assert_eq!(perf_encode::encoded_len(&p), Ok(4 + 68));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmuMapping<'a> {
    /// The attr `type` of the PMU's events.
    pub type_: u32,
    /// The PMU's name (`cpu`, `software`, `tracepoint`, …).
    pub name: &'a [u8],
}

impl Encode for PmuMapping<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.type_)?;
        enc.encode(&HeaderString::new(self.name))
    }
}

/// The PMU_MAPPINGS payload: `u32 nr`, then each [`PmuMapping`] (perf 6.1 lists them in the
/// order it found them, usually the directory order of `/sys/bus/event_source/devices`).
///
/// ```
/// use perf_encode::features::{PmuMapping, PmuMappings};
/// let pmus = [PmuMapping { type_: 1, name: b"software" }, PmuMapping { type_: 2, name: b"tracepoint" }];
/// let v = perf_encode::to_vec(&PmuMappings { pmus: &pmus }, perf_encode::Endian::Big).unwrap();
/// assert_eq!(&v[..8], &[0, 0, 0, 2, 0, 0, 0, 1]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PmuMappings<'a> {
    /// The PMUs.
    pub pmus: &'a [PmuMapping<'a>],
}

impl Encode for PmuMappings<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(count_u32("PMU mappings", self.pmus.len())?)?;
        self.pmus.iter().try_for_each(|p| enc.encode(p))
    }
}
