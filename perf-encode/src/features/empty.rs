//! Flag features with no payload (`HEADER_BRANCH_STACK`, `HEADER_STAT`) and the empty BPF
//! lists.

use crate::{Encode, EncodeError, Encoder, Output};

/// A feature whose presence is the information: BRANCH_STACK ("contains samples with branch
/// stack") and STAT ("contains stat data", written by `perf stat record`). Its payload is
/// zero bytes; the feature table still gets an entry for it.
///
/// ```
/// assert_eq!(perf_encode::to_vec(&perf_encode::features::EmptyFeature, perf_encode::Endian::Little).unwrap(), []);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmptyFeature;

impl Encode for EmptyFeature {
    fn encode<O: Output + ?Sized>(&self, _enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        Ok(())
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(0)
    }
}

/// BPF_PROG_INFO or BPF_BTF listing no entry: a `u32` count of 0, what `perf record` writes
/// when it saw no BPF program. (The entries themselves are kernel structures, not encoded
/// here: pass perf's bytes as a raw payload.) perf 6.1 warns when it reads either feature
/// from a file of the other byte order, so write them in the reader's byte order only.
///
/// ```
/// assert_eq!(perf_encode::to_vec(&perf_encode::features::EmptyBpfList, perf_encode::Endian::Big).unwrap(), [0; 4]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmptyBpfList;

impl Encode for EmptyBpfList {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(0)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(4)
    }
}
