//! `PERF_RECORD_HEADER_TRACING_DATA`: pipe mode's TRACING_DATA.

use crate::records::encode::body::{encode_record, header_of, RecordBody};
use crate::records::wire::pad::{align8, write_padded};
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

/// `len` bytes of tracing data padded to 8, as the record's `u32 size` (at most `i32::MAX`,
/// which perf reads it as).
fn padded_len(len: usize) -> Result<u32, EncodeError> {
    let padded = align8(len, "tracing data")?;
    u32::try_from(padded)
        .ok()
        .filter(|&n| n <= i32::MAX as u32)
        .ok_or(EncodeError::TooLong {
            what: "tracing data",
            len: padded as u64,
            max: i32::MAX as u64,
        })
}

/// [`padded_len`] as a `usize`.
fn payload_len(len: usize) -> Result<usize, EncodeError> {
    usize::try_from(padded_len(len)?).map_err(|_| EncodeError::Overflow {
        what: "tracing data",
    })
}

impl HeaderTracingData<'_> {
    fn padded_len(&self) -> Result<u32, EncodeError> {
        padded_len(self.data.len())
    }

    /// The payload's length: [`Self::data`] padded to 8.
    fn payload_len(&self) -> Result<usize, EncodeError> {
        payload_len(self.data.len())
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

/// `HEADER_TRACING_DATA` whose payload is encoded in place from `data` (a
/// [`TracingData`](crate::features::TracingData), usually): the same bytes as
/// [`HeaderTracingData`] over `data`'s encoding, without a buffer holding that encoding
/// first. A device without a heap pushes it straight into a
/// [`PipeStream`](crate::stream::PipeStream).
///
/// ```
/// use perf_encode::features::TracingData;
/// use perf_encode::records::{HeaderTracingData, HeaderTracingDataOf};
/// use perf_encode::{to_vec, Endian};
/// let td = TracingData::new(4, 4096);
/// let blob = to_vec(&td, Endian::Little).unwrap();
/// assert_eq!(
///     to_vec(&HeaderTracingDataOf { data: &td }, Endian::Little),
///     to_vec(&HeaderTracingData { data: &blob }, Endian::Little)
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HeaderTracingDataOf<'a, T: ?Sized> {
    /// What encodes the tracing data blob.
    pub data: &'a T,
}

impl<T: Encode + ?Sized> RecordBody for HeaderTracingDataOf<'_, T> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::HEADER_TRACING_DATA
    }

    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(padded_len(self.data.encoded_len()?)?)?;
        enc.u32(0)
    }
}

/// The record, then `data`'s encoding zero-padded to `size`.
impl<T: Encode + ?Sized> Encode for HeaderTracingDataOf<'_, T> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let len = self.data.encoded_len()?;
        let padded = payload_len(len)?;
        encode_record(self, enc)?;
        enc.encode(self.data)?;
        enc.zeros(padded.saturating_sub(len))
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        let record = usize::from(header_of(self)?.size);
        record
            .checked_add(payload_len(self.data.encoded_len()?)?)
            .ok_or(EncodeError::Overflow {
                what: "tracing data",
            })
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::features::{FormatText, TracepointFormat, TracingData};
    use crate::stream::PipeStream;
    use crate::{to_vec, Endian};

    #[test]
    fn in_place_equals_the_blob_in_both_byte_orders_and_through_a_pipe_stream() {
        let events = [TracepointFormat {
            system: "device",
            format: FormatText::Text(b"name: x\nID: 7\nformat:\n"),
        }];
        let td = TracingData {
            events: &events,
            ..TracingData::new(4, 4096)
        };
        for e in [Endian::Little, Endian::Big] {
            let blob = to_vec(&td, e).unwrap();
            let want = to_vec(&HeaderTracingData { data: &blob }, e).unwrap();
            let of = HeaderTracingDataOf { data: &td };
            assert_eq!(of.encoded_len(), Ok(want.len()));
            assert_eq!(to_vec(&of, e).unwrap(), want);

            let mut buf = [0u8; 2048];
            let mut s = PipeStream::new(&mut buf, e).unwrap();
            s.push(&of).unwrap();
            assert_eq!(&s.pending()[16..], &want[..]);
        }
    }
}
