//! `{u32, u32}`: TID's `{pid, tid}` and CPU's `{cpu, res}`, the same 8 bytes in a SAMPLE and
//! in a `sample_id` trailer: two `u32`s in the file's byte order, first one first.

use crate::records::wire::error::ParseError;
use crate::records::wire::reader::Reader;
use crate::{EncodeError, Encoder, Output};

/// `{u32 pid, u32 tid}` of SAMPLE's TID field and of the trailer.
///
/// ```
/// let t = perf_encode::records::PidTid { pid: 10, tid: 11 };
/// assert_eq!((t.pid, t.tid), (10, 11));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PidTid {
    /// Process id (`u32::MAX` for -1).
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
}

/// `{u32 cpu, u32 res}` of SAMPLE's CPU field and of the trailer.
///
/// ```
/// assert_eq!(perf_encode::records::SampleCpu::new(3).res, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleCpu {
    /// The cpu.
    pub cpu: u32,
    /// Reserved, zero in kernel records.
    pub res: u32,
}

impl SampleCpu {
    /// `cpu` with `res` zero.
    pub const fn new(cpu: u32) -> Self {
        SampleCpu { cpu, res: 0 }
    }
}

/// A field of two `u32`s: the one rule of how they are written and read.
pub(crate) trait U32Pair: Copy {
    /// The halves' names in a SAMPLE, for errors.
    const NAMES: [&'static str; 2];
    /// The halves' names in a `sample_id` trailer, for errors.
    const TRAILER_NAMES: [&'static str; 2];

    /// The two halves, in the order they are written.
    fn halves(self) -> [u32; 2];

    /// The value of two halves read in order.
    fn from_halves(halves: [u32; 2]) -> Self;

    /// Writes the halves in order.
    #[inline]
    fn write<O: Output + ?Sized>(self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let [a, b] = self.halves();
        enc.u32(a)?;
        enc.u32(b)
    }

    /// Reads the halves in order; errors name `names`.
    #[inline(always)]
    fn read(r: &mut Reader<'_>, names: [&'static str; 2]) -> Result<Self, ParseError> {
        let [first, second] = names;
        let a = r.u32(first)?;
        let b = r.u32(second)?;
        Ok(Self::from_halves([a, b]))
    }
}

impl U32Pair for PidTid {
    const NAMES: [&'static str; 2] = ["pid", "tid"];
    const TRAILER_NAMES: [&'static str; 2] = ["sample_id.pid", "sample_id.tid"];

    #[inline(always)]
    fn halves(self) -> [u32; 2] {
        [self.pid, self.tid]
    }

    #[inline(always)]
    fn from_halves([pid, tid]: [u32; 2]) -> Self {
        PidTid { pid, tid }
    }
}

impl U32Pair for SampleCpu {
    const NAMES: [&'static str; 2] = ["cpu", "res"];
    const TRAILER_NAMES: [&'static str; 2] = ["sample_id.cpu", "sample_id.res"];

    #[inline(always)]
    fn halves(self) -> [u32; 2] {
        [self.cpu, self.res]
    }

    #[inline(always)]
    fn from_halves([cpu, res]: [u32; 2]) -> Self {
        SampleCpu { cpu, res }
    }
}
