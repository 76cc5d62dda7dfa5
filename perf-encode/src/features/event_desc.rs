//! `HEADER_EVENT_DESC`: every event's attr, name and ids.

use crate::event::events_attr_size;
use crate::{Encode, EncodeError, Encoder, Endian, EventEntry, HeaderString, Output};
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

/// The names of the events of an EVENT_DESC payload in byte order `endian`, in order (perf
/// names the events of a file by their place in it), each to its first NUL. Stops where
/// perf stops taking names, at the first event whose `attr.size` is 0, and at the first
/// that does not fit: a payload [`check_feature_payload`] passes, with no attr of size 0,
/// yields one name per event.
///
/// [`check_feature_payload`]: crate::features::check_feature_payload
///
/// ```
/// use perf_abi::PerfEventAttr;
/// use perf_encode::features::{event_desc_names, EventDescFeature};
/// use perf_encode::{to_vec, Endian, EventEntry};
/// let events = [
///     EventEntry { attr: PerfEventAttr::default(), name: "a", ids: &[7] },
///     EventEntry { attr: PerfEventAttr::default(), name: "sched:sched_switch", ids: &[] },
/// ];
/// let v = to_vec(&EventDescFeature::new(&events), Endian::Big).unwrap();
/// let names: Vec<&[u8]> = event_desc_names(&v, Endian::Big).collect();
/// assert_eq!(names, [&b"a"[..], b"sched:sched_switch"]);
/// ```
pub fn event_desc_names(payload: &[u8], endian: Endian) -> EventDescNames<'_> {
    let word = |at: usize| {
        let b = payload.get(at..)?.first_chunk::<4>()?;
        Some(endian.read_u32(*b))
    };
    EventDescNames {
        payload,
        endian,
        left: word(0).unwrap_or(0),
        attr_size: word(4).map_or(usize::MAX, |s| s as usize),
        at: 8,
    }
}

/// The names [`event_desc_names`] yields.
#[derive(Clone, Debug)]
pub struct EventDescNames<'a> {
    payload: &'a [u8],
    endian: Endian,
    left: u32,
    attr_size: usize,
    at: usize,
}

impl<'a> Iterator for EventDescNames<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        self.left = self.left.checked_sub(1)?;
        let u32_at = |at: usize| {
            let b = self.payload.get(at..)?.first_chunk::<4>()?;
            Some(self.endian.read_u32(*b) as usize)
        };
        // perf stops taking names at the first attr whose `size` is 0.
        let attr_size_at = self.at.checked_add(4)?;
        if u32_at(attr_size_at)? == 0 {
            self.left = 0;
            return None;
        }
        let ids_at = self.at.checked_add(self.attr_size)?;
        let ids = u32_at(ids_at)?;
        let len_at = ids_at.checked_add(4)?;
        let len = u32_at(len_at)?;
        let start = len_at.checked_add(4)?;
        let end = start.checked_add(len)?;
        let name = self.payload.get(start..end)?;
        self.at = end.checked_add(ids.checked_mul(8)?)?;
        if self.at > self.payload.len() {
            self.left = 0;
            return None;
        }
        name.split(|&b| b == 0).next()
    }
}
