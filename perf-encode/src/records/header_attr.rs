//! `PERF_RECORD_HEADER_ATTR`: pipe mode's attr and ids.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventAttr, PerfEventHeader};

/// `{perf_event_header, perf_event_attr (attr.size bytes), u64 ids[]}`.
///
/// ```
/// use perf_abi::PerfEventAttr;
/// use perf_encode::{records::HeaderAttr, to_vec, Endian};
/// let attr = PerfEventAttr { size: 128, ..Default::default() };
/// let v = to_vec(&HeaderAttr { attr: &attr, ids: &[7, 8] }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 128 + 16);
/// assert_eq!(&v[..4], &64u32.to_le_bytes());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HeaderAttr<'a> {
    /// The attr, written with its `size`.
    pub attr: &'a PerfEventAttr,
    /// The event's sample ids.
    pub ids: &'a [u64],
}

impl HeaderAttr<'_> {
    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        let ids = self
            .ids
            .len()
            .checked_mul(8)
            .ok_or(EncodeError::Overflow { what: "attr ids" })?;
        let size = self
            .attr
            .encoded_len()?
            .checked_add(ids)
            .and_then(|n| n.checked_add(PerfEventHeader::SIZE))
            .ok_or(EncodeError::Overflow {
                what: "HEADER_ATTR size",
            })?;
        let size16 = u16::try_from(size).map_err(|_| EncodeError::TooLong {
            what: "HEADER_ATTR record (ids)",
            len: size as u64,
            max: u64::from(u16::MAX),
        })?;
        Ok(PerfEventHeader {
            type_: record_type::HEADER_ATTR,
            misc: 0,
            size: size16,
        })
    }
}

impl Encode for HeaderAttr<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.encode(self.attr)?;
        enc.u64s(self.ids)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
