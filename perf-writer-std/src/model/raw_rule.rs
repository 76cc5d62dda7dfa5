//! A tracepoint's RAW rule together with the byte order perf reads its payloads in.

use perf_encode::features::{TracepointRawProblem, TracepointRawRule};
use perf_encode::Endian;

/// The rule the RAW payloads of a tracepoint event follow, in the byte order perf 6.1 reads
/// them: that of the TRACING_DATA holding the event's format. It is the output's when the
/// writer synthesizes TRACING_DATA, and a caller's TRACING_DATA's own otherwise (a converted
/// file may keep the recording's order there, and in its RAW payloads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawRule {
    pub(crate) rule: TracepointRawRule,
    /// The byte order of the payloads' `common_type` and dynamic fields' words.
    pub(crate) order: Endian,
}

impl RawRule {
    /// [`TracepointRawRule::check`] in this rule's byte order.
    #[inline]
    pub(crate) fn check(&self, raw: &[u8]) -> Result<(), TracepointRawProblem> {
        self.rule.check(raw, self.order)
    }

    /// [`TracepointRawRule::check_dynamic_fields`] in this rule's byte order.
    #[inline]
    pub(crate) fn check_dynamic_fields(&self, raw: &[u8]) -> Result<(), TracepointRawProblem> {
        self.rule.check_dynamic_fields(raw, self.order)
    }
}
