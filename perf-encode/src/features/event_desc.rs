//! `HEADER_EVENT_DESC`: every event's attr, name and ids.

use crate::event::events_attr_size;
use crate::{Encode, EncodeError, Encoder, EventEntry, HeaderString, Output};
use perf_abi::EventDescHeader;

/// `u32 nr, u32 attr_size`, then per event `{attr, u32 nr_ids, string name, u64 ids[nr_ids]}`.
///
/// All attrs are written with one size (128, or 136 when an attr uses `config3`), their `size`
/// fields set to it. Names are written as UTF-8 bytes.
///
/// ```
/// use perf_abi::PerfEventAttr;
/// use perf_encode::{features::EventDescFeature, to_vec, Endian, EventEntry};
/// let events = [EventEntry { attr: PerfEventAttr::default(), name: "événement", ids: &[7] }];
/// let v = to_vec(&EventDescFeature::new(&events), Endian::Little).unwrap();
/// assert_eq!(&v[0..8], &[1, 0, 0, 0, 128, 0, 0, 0]);
/// assert_eq!(v.len(), 8 + 128 + 4 + 4 + 64 + 8);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EventDescFeature<'a> {
    events: &'a [EventEntry<'a>],
}

impl<'a> EventDescFeature<'a> {
    /// The feature for `events`.
    pub fn new(events: &'a [EventEntry<'a>]) -> Self {
        EventDescFeature { events }
    }
}

impl Encode for EventDescFeature<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let nr = u32::try_from(self.events.len()).map_err(|_| EncodeError::TooLong {
            what: "events",
            len: self.events.len() as u64,
            max: u32::MAX as u64,
        })?;
        let attr_size = events_attr_size(self.events);
        enc.encode(&EventDescHeader { nr, attr_size })?;
        for e in self.events {
            e.check()?;
            enc.encode(&e.attr_with_size(attr_size))?;
            let nr_ids = u32::try_from(e.ids.len()).map_err(|_| EncodeError::TooLong {
                what: "event ids",
                len: e.ids.len() as u64,
                max: u32::MAX as u64,
            })?;
            enc.u32(nr_ids)?;
            enc.encode(&HeaderString::from_str_strict(e.name)?)?;
            enc.u64s(e.ids)?;
        }
        Ok(())
    }

    /// Computed from the lengths alone (this feature can be megabytes); the same checks as
    /// [`Encode::encode`] run, so a value that cannot be encoded fails here too. The attrs
    /// cannot fail: they are written in the largest size any of them needs.
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        let overflow = EncodeError::Overflow {
            what: "EVENT_DESC length",
        };
        u32::try_from(self.events.len()).map_err(|_| EncodeError::TooLong {
            what: "events",
            len: self.events.len() as u64,
            max: u32::MAX as u64,
        })?;
        let attr_size = usize::try_from(events_attr_size(self.events)).map_err(|_| overflow)?;
        self.events.iter().try_fold(8usize, |len, e| {
            e.check()?;
            let name = HeaderString::from_str_strict(e.name)?.encoded_len()?;
            let ids = e.ids.len().checked_mul(8).ok_or(overflow)?;
            [attr_size, 4, name, ids]
                .iter()
                .try_fold(len, |l, &n| l.checked_add(n))
                .ok_or(overflow)
        })
    }
}

/// EVENT_DESC's first words: `u32 nr, u32 attr_size`.
impl Encode for EventDescHeader {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.nr)?;
        enc.u32(self.attr_size)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}
