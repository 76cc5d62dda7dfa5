//! FINISHED_ROUND and FINISHED_INIT: header-only records.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `PERF_RECORD_FINISHED_ROUND`: no record written before it is newer than one written after
/// it, so readers may sort and flush what they hold.
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::records::FinishedRound, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [68, 0, 0, 0, 0, 0, 8, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FinishedRound;

/// `PERF_RECORD_FINISHED_INIT`: the records describing the initial system state (COMM, MMAP,
/// ID_INDEX, …) have all been written.
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::records::FinishedInit, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [82, 0, 0, 0, 0, 0, 8, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FinishedInit;

impl RecordBody for FinishedRound {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::FINISHED_ROUND
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, _: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        Ok(()) // the record is its header
    }
}

impl RecordBody for FinishedInit {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::FINISHED_INIT
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, _: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        Ok(()) // the record is its header
    }
}

encode_as_record!(FinishedRound, FinishedInit);
