//! FINISHED_ROUND and FINISHED_INIT: header-only records.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventHeader};

fn header_only<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    type_: u32,
) -> Result<(), EncodeError> {
    enc.encode(&PerfEventHeader {
        type_,
        misc: 0,
        size: 8,
    })
}

/// `PERF_RECORD_FINISHED_ROUND`: no record written before it is newer than one written after
/// it, so readers may sort and flush what they hold.
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::records::FinishedRound, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [68, 0, 0, 0, 0, 0, 8, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FinishedRound;

impl Encode for FinishedRound {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        header_only(enc, record_type::FINISHED_ROUND)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}

/// `PERF_RECORD_FINISHED_INIT`: the records describing the initial system state (COMM, MMAP,
/// ID_INDEX, …) have all been written.
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::records::FinishedInit, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [82, 0, 0, 0, 0, 0, 8, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FinishedInit;

impl Encode for FinishedInit {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        header_only(enc, record_type::FINISHED_INIT)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}
