//! `PERF_RECORD_HEADER_TRACING_DATA`: pipe mode's TRACING_DATA.

use crate::records::encode::body::{encode_record, header_of, write_padded, RecordBody};
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{perf_event_header (size 16), u32 size, u32 pad}` followed, outside `header.size`, by the
/// tracing data zero-padded to 8 bytes; `size` is the padded length (as perf 6.1 writes it).
///
/// ```
/// use perf_encode::{records::HeaderTracingData, to_vec, Endian};
/// let v = to_vec(&HeaderTracingData { data: &[1, 2, 3] }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 16 + 8);
/// assert_eq!(&v[6..8], &16u16.to_le_bytes());
/// assert_eq!(&v[8..12], &8u32.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HeaderTracingData<'a> {
    /// The tracing data blob (a TRACING_DATA feature payload).
    pub data: &'a [u8],
}

impl HeaderTracingData<'_> {
    fn padded_len(&self) -> Result<u32, EncodeError> {
        let padded =
            self.data
                .len()
                .checked_add(7)
                .map(|n| n & !7)
                .ok_or(EncodeError::Overflow {
                    what: "tracing data",
                })?;
        u32::try_from(padded)
            .ok()
            .filter(|&n| n <= i32::MAX as u32)
            .ok_or(EncodeError::TooLong {
                what: "tracing data",
                len: padded as u64,
                max: i32::MAX as u64,
            })
    }
}

impl HeaderTracingData<'_> {
    /// The payload's length: [`Self::data`] padded to 8.
    fn payload_len(&self) -> Result<usize, EncodeError> {
        usize::try_from(self.padded_len()?).map_err(|_| EncodeError::Overflow {
            what: "tracing data",
        })
    }
}

impl RecordBody for HeaderTracingData<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::HEADER_TRACING_DATA
    }

    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.padded_len()?)?;
        enc.u32(0)
    }
}

/// The record, then its payload: the data zero-padded to `size`.
impl Encode for HeaderTracingData<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let padded = self.payload_len()?;
        encode_record(self, enc)?;
        write_padded(enc, self.data, padded)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        let record = usize::from(header_of(self)?.size);
        record
            .checked_add(self.payload_len()?)
            .ok_or(EncodeError::Overflow {
                what: "tracing data",
            })
    }
}
