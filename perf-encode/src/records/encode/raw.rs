//! A record: `perf_event_header` and its payload.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::wire::pad::align8;
use crate::{EncodeError, Encoder, Output};

/// A record made of a header and payload parts written one after the other.
///
/// The record's size (8 + payload) must be a multiple of 8 and at most
/// [`MAX_RECORD_SIZE`](perf_abi::record_fields::MAX_RECORD_SIZE); [`Record::padded`] adds the zero padding to get there. The payload
/// bytes are written as given: encode their fields in the file's byte order.
///
/// ```
/// use perf_encode::{records::Record, to_vec, Endian, EncodeError};
/// let r = Record::new(perf_abi::record_type::SAMPLE, 0, &[&[1, 2, 3, 4, 5, 6, 7, 8]]);
/// assert_eq!(to_vec(&r, Endian::Little).unwrap()[6], 16);
/// let odd = Record::new(perf_abi::record_type::SAMPLE, 0, &[&[1, 2, 3]]);
/// assert_eq!(to_vec(&odd, Endian::Little), Err(EncodeError::InvalidRecordSize { size: 11 }));
/// assert_eq!(to_vec(&Record::padded(9, 0, &[&[1, 2, 3]]), Endian::Little).unwrap().len(), 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// `record_type::*`.
    pub type_: u32,
    /// `misc::*` bits.
    pub misc: u16,
    /// Payload parts.
    pub parts: &'a [&'a [u8]],
    /// Zero-pad the payload up to a multiple of 8.
    pub pad: bool,
}

impl<'a> Record<'a> {
    /// A record whose payload is already a multiple of 8 long.
    #[inline]
    pub const fn new(type_: u32, misc: u16, parts: &'a [&'a [u8]]) -> Self {
        Record {
            type_,
            misc,
            parts,
            pad: false,
        }
    }

    /// A record whose payload is zero-padded to a multiple of 8.
    #[inline]
    pub const fn padded(type_: u32, misc: u16, parts: &'a [&'a [u8]]) -> Self {
        Record {
            type_,
            misc,
            parts,
            pad: true,
        }
    }
}

impl Record<'_> {
    #[inline]
    fn payload_len(&self) -> Result<usize, EncodeError> {
        self.parts
            .iter()
            .try_fold(0usize, |n, p| n.checked_add(p.len()))
            .ok_or(EncodeError::Overflow {
                what: "record payload",
            })
    }
}

impl RecordBody for Record<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        self.type_
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    #[inline]
    fn body_len(&self) -> Result<usize, EncodeError> {
        let payload = self.payload_len()?;
        if self.pad {
            align8(payload, "record payload")
        } else {
            Ok(payload)
        }
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let mut written = 0usize;
        for p in self.parts {
            enc.bytes(p)?;
            written = written.saturating_add(p.len());
        }
        let pad = self.body_len()?.saturating_sub(written);
        if pad == 0 {
            return Ok(());
        }
        enc.zeros(pad)
    }
}

encode_as_record!(Record<'_>);
