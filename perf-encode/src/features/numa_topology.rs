//! `HEADER_NUMA_TOPOLOGY`: the NUMA nodes, their memory and their CPUs.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, HeaderString, Output};

/// One node: `{u32 node, u64 mem_total, u64 mem_free, string cpus}`, memory in kB as
/// `/sys/devices/system/node/nodeN/meminfo` gives it, CPUs as its `cpulist`.
///
/// ```
/// let n = perf_encode::features::NumaNode { node: 0, mem_total_kib: 1024, mem_free_kib: 512, cpus: b"0-3" };
/// assert_eq!(perf_encode::encoded_len(&n), Ok(4 + 8 + 8 + 68));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumaNode<'a> {
    /// Node number.
    pub node: u32,
    /// `MemTotal` of the node, kB.
    pub mem_total_kib: u64,
    /// `MemFree` of the node, kB.
    pub mem_free_kib: u64,
    /// The node's CPU list (`0-3,8`).
    pub cpus: &'a [u8],
}

impl Encode for NumaNode<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.node)?;
        enc.u64(self.mem_total_kib)?;
        enc.u64(self.mem_free_kib)?;
        enc.encode(&HeaderString::new(self.cpus))
    }
}

/// The NUMA_TOPOLOGY payload: `u32 nr`, then each [`NumaNode`] (perf lists the nodes of
/// `/sys/devices/system/node/online` in order).
///
/// ```
/// use perf_encode::features::{NumaNode, NumaTopology};
/// let nodes = [NumaNode { node: 0, mem_total_kib: 1024, mem_free_kib: 512, cpus: b"0-1" }];
/// let v = perf_encode::to_vec(&NumaTopology { nodes: &nodes }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(&v[..4], &[1, 0, 0, 0]);
/// assert_eq!(v.len(), 4 + 88);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NumaTopology<'a> {
    /// The nodes.
    pub nodes: &'a [NumaNode<'a>],
}

impl Encode for NumaTopology<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(count_u32("NUMA nodes", self.nodes.len())?)?;
        self.nodes.iter().try_for_each(|n| enc.encode(n))
    }
}
