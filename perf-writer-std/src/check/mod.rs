//! Strict mode: the checks of the caller's records against the event descriptions, before
//! any byte of them reaches the output, and the statistics derived from the records. Records
//! that arrive before the description that owns them are summarized and checked when it
//! arrives.

pub(crate) mod checked_events;
pub(crate) mod compressed_check;
pub(crate) mod fitting_layouts;
pub(crate) mod pending_records;
pub(crate) mod record_check;
pub(crate) mod record_rules;
pub(crate) mod record_summary;
pub(crate) mod refusal;
