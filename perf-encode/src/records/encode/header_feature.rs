//! `PERF_RECORD_HEADER_FEATURE`: pipe mode's feature section.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{EncodeError, Encoder, Output};
use perf_abi::{feature, record_type, MAX_FEATURE_PAYLOAD};

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
}

impl RecordBody for HeaderFeature<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::HEADER_FEATURE
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        if self.payload.len() > MAX_FEATURE_PAYLOAD {
            return Err(EncodeError::TooLong {
                what: "HEADER_FEATURE payload",
                len: self.payload.len() as u64,
                max: MAX_FEATURE_PAYLOAD as u64,
            });
        }
        Ok(self.payload.len().saturating_add(8))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(u64::from(self.index))?;
        enc.bytes(self.payload)
    }
}

encode_as_record!(HeaderFeature<'_>);
