//! `HEADER_HYBRID_TOPOLOGY`: the core types of a hybrid CPU and their CPUs.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, HeaderString, Output};

/// One core type: `{string pmu, string cpus}`, a `cpu_*` PMU
/// (`/sys/bus/event_source/devices/cpu_core`) and its `cpus` file.
///
/// ```
/// let n = perf_encode::features::HybridNode { pmu: b"cpu_core", cpus: b"0-7" };
/// assert_eq!(perf_encode::encoded_len(&n), Ok(2 * 68));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HybridNode<'a> {
    /// The PMU's name (`cpu_core`, `cpu_atom`).
    pub pmu: &'a [u8],
    /// Its CPU list.
    pub cpus: &'a [u8],
}

impl Encode for HybridNode<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&HeaderString::new(self.pmu))?;
        enc.encode(&HeaderString::new(self.cpus))
    }
}

/// The HYBRID_TOPOLOGY payload: `u32 nr`, then each [`HybridNode`]. perf writes it only on
/// hybrid machines; it prints `# hybrid cpu system:` and `# cpu_core cpu list : 0-7`.
///
/// ```
/// use perf_encode::features::{HybridNode, HybridTopology};
/// let nodes = [HybridNode { pmu: b"cpu_core", cpus: b"0-7" }, HybridNode { pmu: b"cpu_atom", cpus: b"8-15" }];
/// let v = perf_encode::to_vec(&HybridTopology { nodes: &nodes }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), 4 + 4 * 68);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HybridTopology<'a> {
    /// The core types.
    pub nodes: &'a [HybridNode<'a>],
}

impl Encode for HybridTopology<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(count_u32("hybrid nodes", self.nodes.len())?)?;
        self.nodes.iter().try_for_each(|n| enc.encode(n))
    }
}
