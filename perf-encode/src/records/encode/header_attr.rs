//! `PERF_RECORD_HEADER_ATTR`: pipe mode's attr and ids.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::record_fields::MAX_RECORD_SIZE;
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
    /// The most ids a HEADER_ATTR record holds with an attr of `attr_size` bytes (the
    /// record, header and attr and ids, fits the largest record size).
    ///
    /// ```
    /// use perf_abi::PerfEventAttr;
    /// use perf_encode::{records::HeaderAttr, to_vec, Endian};
    /// let attr = PerfEventAttr { size: 136, ..Default::default() };
    /// let max = HeaderAttr::max_ids(136);
    /// let ids = vec![1u64; max + 1];
    /// assert!(to_vec(&HeaderAttr { attr: &attr, ids: &ids[..max] }, Endian::Little).is_ok());
    /// assert!(to_vec(&HeaderAttr { attr: &attr, ids: &ids }, Endian::Little).is_err());
    /// ```
    pub const fn max_ids(attr_size: u32) -> usize {
        let fixed = PerfEventHeader::SIZE.saturating_add(attr_size as usize);
        MAX_RECORD_SIZE.saturating_sub(fixed) / 8
    }
}

impl RecordBody for HeaderAttr<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::HEADER_ATTR
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        let ids = self
            .ids
            .len()
            .checked_mul(8)
            .ok_or(EncodeError::Overflow { what: "attr ids" })?;
        self.attr
            .encoded_len()?
            .checked_add(ids)
            .ok_or(EncodeError::Overflow {
                what: "HEADER_ATTR size",
            })
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(self.attr)?;
        enc.u64s(self.ids)
    }
}

encode_as_record!(HeaderAttr<'_>);
