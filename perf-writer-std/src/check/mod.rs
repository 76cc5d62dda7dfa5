//! Strict mode: the checks of the caller's records against the event descriptions, before
//! any byte of them reaches the output, and the statistics derived from the records. Records
//! that arrive before the description that owns them are summarized and checked when it
//! arrives.
//!
//! `record_check` is the entry of a call's records; `checked_events` keeps what it learned
//! of each event, `pending_records` with `record_summary` and `fitting_layouts` hold what
//! came before its description, `compressed_check` looks at COMPRESSED records passed
//! through, `stat_session` keeps the CPU_MAP and THREAD_MAP that STAT records need, `auxtrace_session` what an AUXTRACE_INFO's trace decoder needs around it, with `switch_kinds` the context switches it takes threads from. All of them check by `record_rules` and refuse with `refusal`'s reasons.

pub(crate) mod auxtrace_session;
pub(crate) mod checked_events;
pub(crate) mod compressed_check;
pub(crate) mod fitting_layouts;
pub(crate) mod pending_records;
pub(crate) mod recent_record;
pub(crate) mod record_check;
pub(crate) mod record_rules;
pub(crate) mod record_summary;
pub(crate) mod refusal;
pub(crate) mod stat_session;
pub(crate) mod switch_kinds;
#[cfg(test)]
pub(crate) mod test_rng;
