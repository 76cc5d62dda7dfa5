//! `PERF_RECORD_HEADER_FEATURE`: pipe mode's feature section.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{feature, record_type, PerfEventHeader};

/// Largest payload a HEADER_FEATURE record carries (its size is a `u16`).
pub const MAX_FEATURE_PAYLOAD: usize = u16::MAX as usize - 16;

/// `{perf_event_header, u64 feat_id, payload}`, unpadded as perf writes it.
///
/// ```
/// use perf_encode::{records::HeaderFeature, to_vec, Endian, HeaderString};
/// let payload = to_vec(&HeaderString::new(b"vm"), Endian::Little).unwrap();
/// let v = to_vec(&HeaderFeature { index: perf_abi::feature::HOSTNAME, payload: &payload }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 16 + 68);
/// assert_eq!(v[8], 3);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HeaderFeature<'a> {
    /// Feature index.
    pub index: u8,
    /// The feature's payload, as in a file-mode feature section.
    pub payload: &'a [u8],
}

impl HeaderFeature<'_> {
    /// The end marker perf expects after the last feature: `feat_id = HEADER_LAST_FEATURE`,
    /// no payload.
    pub const END: HeaderFeature<'static> = HeaderFeature {
        index: feature::LAST_FEATURE,
        payload: &[],
    };

    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        if self.payload.len() > MAX_FEATURE_PAYLOAD {
            return Err(EncodeError::TooLong {
                what: "HEADER_FEATURE payload",
                len: self.payload.len() as u64,
                max: MAX_FEATURE_PAYLOAD as u64,
            });
        }
        let size = u16::try_from(self.payload.len().saturating_add(16)).map_err(|_| {
            EncodeError::Overflow {
                what: "HEADER_FEATURE size",
            }
        })?;
        Ok(PerfEventHeader {
            type_: record_type::HEADER_FEATURE,
            misc: 0,
            size,
        })
    }
}

impl Encode for HeaderFeature<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.u64(u64::from(self.index))?;
        enc.bytes(self.payload)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
