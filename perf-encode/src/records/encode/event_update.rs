//! `PERF_RECORD_EVENT_UPDATE`: a late fact about an event; here its name.

use crate::records::encode::body::{encode_as_record, name_len, RecordBody};
use crate::records::wire::pad::write_padded;
use crate::{EncodeError, Encoder, HeaderString, Output};
use perf_abi::record_fields::{EVENT_UPDATE_NAME, MAX_RECORD_SIZE};
use perf_abi::record_type;

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
    /// The longest name the record holds: the record (24 bytes before the name, the name's
    /// NUL, padding to 8) fits the largest record size.
    ///
    /// ```
    /// use perf_encode::{records::EventUpdateName, to_vec, Endian};
    /// let max = "x".repeat(EventUpdateName::MAX_NAME_LEN);
    /// assert!(to_vec(&EventUpdateName { id: 1, name: &max }, Endian::Little).is_ok());
    /// let over = "x".repeat(EventUpdateName::MAX_NAME_LEN + 1);
    /// assert!(to_vec(&EventUpdateName { id: 1, name: &over }, Endian::Little).is_err());
    /// ```
    pub const MAX_NAME_LEN: usize = MAX_RECORD_SIZE - 24 - 1;

    fn name_len(&self) -> Result<usize, EncodeError> {
        HeaderString::from_str_strict(self.name)?;
        name_len("EVENT_UPDATE name", self.name.as_bytes())
    }
}

impl RecordBody for EventUpdateName<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::EVENT_UPDATE
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        Ok(self.name_len()?.saturating_add(16))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(EVENT_UPDATE_NAME)?;
        enc.u64(self.id)?;
        write_padded(enc, self.name.as_bytes(), self.name_len()?)
    }
}

encode_as_record!(EventUpdateName<'_>);
