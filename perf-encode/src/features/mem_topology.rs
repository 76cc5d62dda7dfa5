//! `HEADER_MEM_TOPOLOGY`: which memory blocks belong to which NUMA node.

use crate::features::count::count_u64;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::MEM_TOPOLOGY_VERSION;

/// One node: `{u64 node, u64 size}` and a bitmap of its memory blocks (`u64 size` again,
/// then `ceil(size / 64)` words). Bit `i` is memory block `i` (`/sys/devices/system/node/
/// nodeN/memoryI`); `nbits` is the highest block number plus one (perf writes 1 for a node
/// with no block).
///
/// ```
/// use perf_encode::features::MemoryNode;
/// let bitmap = [0b1011];
/// let n = MemoryNode { node: 0, nbits: 4, bitmap: &bitmap };
/// assert_eq!(perf_encode::encoded_len(&n), Ok(8 * 4));
/// assert!(MemoryNode { node: 0, nbits: 65, bitmap: &bitmap }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryNode<'a> {
    /// Node number.
    pub node: u64,
    /// Bits of the bitmap.
    pub nbits: u64,
    /// The bitmap, `ceil(nbits / 64)` words, block 0 in bit 0 of word 0.
    pub bitmap: &'a [u64],
}

impl MemoryNode<'_> {
    /// Checks that the bitmap has exactly the words `nbits` needs.
    ///
    /// # Errors
    ///
    /// [`EncodeError::InvalidValue`] when `bitmap` is not `ceil(nbits / 64)` words long.
    pub fn check(&self) -> Result<(), EncodeError> {
        let words = self.nbits.div_ceil(64);
        if count_u64("memory bitmap", self.bitmap.len())? != words {
            return Err(EncodeError::InvalidValue {
                what: "memory node bitmap length is not ceil(nbits / 64) words",
            });
        }
        Ok(())
    }
}

impl Encode for MemoryNode<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.check()?;
        enc.u64(self.node)?;
        enc.u64(self.nbits)?;
        enc.u64(self.nbits)?;
        enc.u64s(self.bitmap)
    }
}

/// The MEM_TOPOLOGY payload: `u64 version` (`MEM_TOPOLOGY_VERSION`), `u64 block_size`
/// (`/sys/devices/system/memory/block_size_bytes`), `u64 nr`, then each [`MemoryNode`]
/// by ascending node.
///
/// ```
/// use perf_encode::features::{MemTopology, MemoryNode};
/// let nodes = [MemoryNode { node: 0, nbits: 200, bitmap: &[!0, !0, !0, 0xff] }];
/// let t = MemTopology { block_size: 0x800_0000, nodes: &nodes };
/// let v = perf_encode::to_vec(&t, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), 24 + 24 + 32);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct MemTopology<'a> {
    /// Bytes of a memory block.
    pub block_size: u64,
    /// The nodes.
    pub nodes: &'a [MemoryNode<'a>],
}

impl Encode for MemTopology<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(MEM_TOPOLOGY_VERSION)?;
        enc.u64(self.block_size)?;
        enc.u64(count_u64("memory nodes", self.nodes.len())?)?;
        self.nodes.iter().try_for_each(|n| enc.encode(n))
    }
}
