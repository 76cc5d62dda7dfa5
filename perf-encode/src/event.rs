//! One event of a file: its attr, name and sample ids — what EVENT_DESC, the attrs section
//! and the layout planner all describe.

use crate::EncodeError;
use perf_abi::{read_format, sample_type, PerfEventAttr};

/// Longest event name accepted (perf and the seed writer cap names below 64 KiB).
pub const MAX_EVENT_NAME_LEN: usize = 0xffff;

/// An event: the attr it was collected with, its name (`sched:sched_switch`, `cpu-clock`),
/// and the sample ids (`PERF_SAMPLE_ID`/`IDENTIFIER` values) that belong to it.
///
/// ```
/// use perf_abi::PerfEventAttr;
/// let e = perf_encode::EventEntry { attr: PerfEventAttr::default(), name: "cpu-clock", ids: &[1, 2] };
/// assert!(e.check().is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventEntry<'a> {
    /// How the event was collected. `attr.size` is ignored: a file gives every attr one size.
    pub attr: PerfEventAttr,
    /// The event's name, UTF-8. No NUL inside, shorter than 64 KiB.
    pub name: &'a str,
    /// Sample ids of the event.
    pub ids: &'a [u64],
}

impl EventEntry<'_> {
    /// Checks the limits of the format: name length, no NUL in the name, id count, and a
    /// `sample_type` and `read_format` perf can lay SAMPLEs out by.
    ///
    /// # Errors
    ///
    /// - [`EncodeError::TooLong`] `{ what: "event name", .. }` when the name is longer than
    ///   [`MAX_EVENT_NAME_LEN`] bytes;
    /// - [`EncodeError::InvalidValue`] when the name holds a NUL byte;
    /// - [`EncodeError::TooLong`] `{ what: "event ids", .. }` when there are more than
    ///   `u32::MAX` ids;
    /// - [`EncodeError::InvalidValue`] when `attr.sample_type` has a bit at or above
    ///   [`sample_type::MAX`](perf_abi::sample_type::MAX): no reader knows where its field
    ///   lies in a SAMPLE (perf 6.1 refuses such an event in a stream);
    /// - [`EncodeError::InvalidValue`] when `attr.sample_type` has READ and `attr.read_format`
    ///   lacks ID: perf reads an id after each value of a SAMPLE's READ whatever the
    ///   `read_format` says, so it misreads every such SAMPLE, and refuses a whole file (not
    ///   a pipe stream) whose first event is one ("non matching read_format"). Refused even
    ///   for an event that never gets a SAMPLE, which perf would read: conservative.
    ///
    /// ```
    /// use perf_encode::{EncodeError, EventEntry, MAX_EVENT_NAME_LEN};
    /// let e = EventEntry { attr: Default::default(), name: "a\0b", ids: &[] };
    /// assert!(matches!(e.check(), Err(EncodeError::InvalidValue { .. })));
    /// let long = "x".repeat(MAX_EVENT_NAME_LEN + 1);
    /// let e = EventEntry { name: &long, ..e };
    /// assert!(matches!(e.check(), Err(EncodeError::TooLong { what: "event name", .. })));
    /// let mut attr = perf_abi::PerfEventAttr::default();
    /// attr.sample_type = perf_abi::sample_type::MAX;
    /// let e = EventEntry { attr, name: "x", ids: &[] };
    /// assert!(matches!(e.check(), Err(EncodeError::InvalidValue { .. })));
    /// attr.sample_type = perf_abi::sample_type::READ;
    /// let e = EventEntry { attr, name: "x", ids: &[] };
    /// assert!(matches!(e.check(), Err(EncodeError::InvalidValue { .. })));
    /// attr.read_format = perf_abi::read_format::ID;
    /// let e = EventEntry { attr, name: "x", ids: &[] };
    /// assert!(e.check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), EncodeError> {
        if self.name.len() > MAX_EVENT_NAME_LEN {
            return Err(EncodeError::TooLong {
                what: "event name",
                len: self.name.len() as u64,
                max: MAX_EVENT_NAME_LEN as u64,
            });
        }
        // Over every byte without branches (a vector loop; names are short).
        if self.name.bytes().fold(false, |nul, b| nul | (b == 0)) {
            return Err(EncodeError::InvalidValue {
                what: "event name contains a NUL byte",
            });
        }
        if self.attr.sample_type >= sample_type::MAX {
            return Err(EncodeError::InvalidValue {
                what: "attr sample_type has a bit at or above PERF_SAMPLE_MAX, whose field no reader can place in a SAMPLE",
            });
        }
        let read = self.attr.sample_type & sample_type::READ != 0;
        if read && self.attr.read_format & read_format::ID == 0 {
            return Err(EncodeError::InvalidValue {
                what: "attr sample_type has READ and read_format lacks ID: perf reads an id after each value of READ, so it cannot read the event's SAMPLEs",
            });
        }
        if u32::try_from(self.ids.len()).is_err() {
            return Err(EncodeError::TooLong {
                what: "event ids",
                len: self.ids.len() as u64,
                max: u32::MAX as u64,
            });
        }
        Ok(())
    }

    /// The attr with `size` set to `attr_size`.
    pub fn attr_with_size(&self, attr_size: u32) -> PerfEventAttr {
        PerfEventAttr {
            size: attr_size,
            ..self.attr
        }
    }
}

/// The attr size every attr of these events is written with (see
/// [`attr::file_attr_size`](crate::attr::file_attr_size)).
pub fn events_attr_size(events: &[EventEntry<'_>]) -> u32 {
    crate::attr::file_attr_size(events.iter().map(|e| &e.attr))
}
