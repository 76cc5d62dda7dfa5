//! `PERF_RECORD_EVENT_UPDATE`: a late fact about an event; here its name.

use crate::{Encode, EncodeError, Encoder, HeaderString, Output};
use perf_abi::{record_type, PerfEventHeader};

/// `PERF_EVENT_UPDATE__NAME`.
pub const EVENT_UPDATE_NAME: u64 = 2;

/// `{perf_event_header, u64 type = NAME, u64 id, char name[]}`, the name NUL-terminated and
/// padded to 8. `id` is any id of the event (perf uses its first).
///
/// ```
/// use perf_encode::{records::EventUpdateName, to_vec, Endian};
/// let v = to_vec(&EventUpdateName { id: 126, name: "sched:sched_switch" }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 24 + 24);
/// assert_eq!(&v[24..42], b"sched:sched_switch");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EventUpdateName<'a> {
    /// An id of the event.
    pub id: u64,
    /// The event's name (no NUL inside).
    pub name: &'a str,
}

impl EventUpdateName<'_> {
    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        HeaderString::from_str_strict(self.name)?;
        let size = self
            .name
            .len()
            .checked_add(1 + 7 + 24)
            .map(|n| n & !7)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or(EncodeError::TooLong {
                what: "EVENT_UPDATE name",
                len: self.name.len() as u64,
                max: 65000,
            })?;
        Ok(PerfEventHeader {
            type_: record_type::EVENT_UPDATE,
            misc: 0,
            size,
        })
    }
}

impl Encode for EventUpdateName<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let header = self.header()?;
        enc.encode(&header)?;
        enc.u64(EVENT_UPDATE_NAME)?;
        enc.u64(self.id)?;
        enc.bytes(self.name.as_bytes())?;
        enc.zeros(
            usize::from(header.size)
                .saturating_sub(24)
                .saturating_sub(self.name.len()),
        )
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
