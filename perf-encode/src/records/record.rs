//! A record: `perf_event_header` and its payload.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::PerfEventHeader;

/// Largest record: `perf_event_header.size` is a `u16` and records are 8-aligned.
pub const MAX_RECORD_SIZE: usize = 0xfff8;

/// A record made of a header and payload parts written one after the other.
///
/// The record's size (8 + payload) must be a multiple of 8 and at most
/// [`MAX_RECORD_SIZE`]; [`Record::padded`] adds the zero padding to get there. The payload
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

    /// The header this record gets, with its checked size.
    #[inline]
    pub fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        let payload = self
            .parts
            .iter()
            .try_fold(0usize, |n, p| n.checked_add(p.len()))
            .ok_or(EncodeError::Overflow {
                what: "record payload",
            })?;
        let unpadded = payload
            .checked_add(PerfEventHeader::SIZE)
            .ok_or(EncodeError::Overflow {
                what: "record size",
            })?;
        let size = if self.pad {
            unpadded
                .checked_add(7)
                .map(|s| s & !7)
                .ok_or(EncodeError::Overflow {
                    what: "record size",
                })?
        } else {
            unpadded
        };
        if size % 8 != 0 || size > MAX_RECORD_SIZE {
            return Err(EncodeError::InvalidRecordSize { size: size as u64 });
        }
        let size16 = u16::try_from(size)
            .map_err(|_| EncodeError::InvalidRecordSize { size: size as u64 })?;
        Ok(PerfEventHeader {
            type_: self.type_,
            misc: self.misc,
            size: size16,
        })
    }
}

impl Encode for Record<'_> {
    #[inline]
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let header = self.header()?;
        // The header in one piece (one bounds check, one copy), then the parts.
        let e = enc.endian();
        let [t0, t1, t2, t3] = e.u32_bytes(header.type_);
        let [m0, m1] = e.u16_bytes(header.misc);
        let [s0, s1] = e.u16_bytes(header.size);
        enc.bytes(&[t0, t1, t2, t3, m0, m1, s0, s1])?;
        let mut written = PerfEventHeader::SIZE;
        for p in self.parts {
            enc.bytes(p)?;
            written = written.saturating_add(p.len());
        }
        let pad = usize::from(header.size).saturating_sub(written);
        if pad == 0 {
            return Ok(());
        }
        enc.zeros(pad)
    }

    #[inline]
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
