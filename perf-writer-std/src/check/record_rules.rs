//! The rules every part of strict mode checks records by, and what it gathers from them.

use crate::error::RecordProblem;
use perf_abi::field_widths;
use perf_abi::record_type::{self, BodyLen};
use perf_encode::records::{parse_sample, ParseError, ParsedSample, SampleLayout};
use perf_encode::swap::{RecordSwapper, SwapError};
use perf_encode::Endian;

/// What the events told the writer (the statistics strict mode and the derived headers gather).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventStats {
    /// Smallest and largest SAMPLE time.
    pub(crate) time: Option<(u64, u64)>,
    /// Highest CPU number in a SAMPLE or a `sample_id` trailer.
    pub(crate) max_cpu: Option<u32>,
}

impl EventStats {
    pub(crate) fn add_time(&mut self, t: u64) {
        self.time = Some(match self.time {
            Some((first, last)) => (first.min(t), last.max(t)),
            None => (t, t),
        });
    }

    pub(crate) fn add_cpu(&mut self, cpu: u32) {
        self.max_cpu = Some(self.max_cpu.map_or(cpu, |m| m.max(cpu)));
    }
}

/// Pipe mode's header records: the writer makes them from the event descriptions and
/// features (`add_event_desc`, `set_header`), and perf reads them only where it puts them.
pub(crate) const WRITER_MANAGED: [u32; 4] = [
    record_type::HEADER_ATTR,
    record_type::HEADER_EVENT_TYPE,
    record_type::HEADER_TRACING_DATA,
    record_type::HEADER_FEATURE,
];

/// perf's own records that name events by id (ID_INDEX: each entry's; EVENT_UPDATE, STAT:
/// one): perf refuses one whose id it cannot find.
pub(crate) const NAMES_IDS: [u32; 3] = [
    record_type::ID_INDEX,
    record_type::EVENT_UPDATE,
    record_type::STAT,
];

/// The first id `record` (one of [`NAMES_IDS`], its fields checked) names that no event
/// takes: ID_INDEX's ids must each be an event's `own` (perf looks each up); EVENT_UPDATE's
/// and STAT's must be `attributed` by perf's rule for a record's event.
pub(crate) fn unknown_named_id(
    endian: Endian,
    type_: u32,
    record: &[u8],
    own: impl Fn(u64) -> bool,
    attributed: impl Fn(u64) -> bool,
) -> Option<u64> {
    let word = |at: usize| {
        record
            .get(at..)
            .and_then(|b| b.first_chunk::<8>())
            .map(|w| endian.read_u64(*w))
    };
    match type_ {
        record_type::ID_INDEX => {
            let nr = word(8)?;
            (0..nr)
                .map_while(|i| {
                    word(16usize.checked_add(usize::try_from(i).ok()?.checked_mul(32)?)?)
                })
                .find(|&id| !own(id))
        }
        record_type::EVENT_UPDATE => word(16).filter(|&id| !attributed(id)),
        record_type::STAT => word(8).filter(|&id| !attributed(id)),
        _ => None,
    }
}

/// One of perf's own records (type 64 and up) holds the fields perf-abi's table gives its
/// type, each list as long as its count says and nothing after the last field: walked as
/// the byte-order swapper walks it, on a copy. Types whose body has one length only, which
/// [`check_body`] proved, and types the table does not lay out are not walked.
pub(crate) fn check_user_fields(
    endian: Endian,
    type_: u32,
    body: BodyLen,
    record: &[u8],
) -> Result<(), RecordProblem> {
    if matches!(body, BodyLen::Exact(_)) || field_widths::record(type_).is_none() {
        return Ok(());
    }
    let mut copy = record.to_vec();
    RecordSwapper::new(&[], endian)
        .swap_record(&mut copy)
        .map_err(|e| {
            RecordProblem::Fields(match e {
                SwapError::Truncated { field, .. } | SwapError::BadValue { field, .. } => field,
                SwapError::Leftover { .. } => "bytes after the last field",
                _ => "its body",
            })
        })
}

/// A record of `len` bytes whose body is `body` long before a `trailer`-byte trailer.
#[inline]
pub(crate) fn check_body(body: BodyLen, len: usize, trailer: usize) -> Result<(), RecordProblem> {
    let (body, exact) = match body {
        BodyLen::Exact(n) => (n, true),
        BodyLen::AtLeast(n) => (n, false),
        BodyLen::Varies => return Ok(()),
    };
    let expected = usize::from(body).saturating_add(8).saturating_add(trailer);
    if len == expected || (!exact && len > expected) {
        return Ok(());
    }
    Err(RecordProblem::Size {
        size: u16::try_from(len).unwrap_or(u16::MAX),
        expected: u16::try_from(expected).unwrap_or(u16::MAX),
        exact,
    })
}

/// A SAMPLE's `header.size` is the length its layout gives its fields (found without
/// reading them when the layout has no variable-length field), or that rounded up to 8.
#[inline]
pub(crate) fn check_sample_len(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(), RecordProblem> {
    let implied = match layout.fixed_sample_len() {
        Some(n) => n,
        None => layout
            .sample_len(record, endian)
            .map_err(RecordProblem::SampleLayout)?,
    };
    if implied == record.len() || implied.next_multiple_of(8) == record.len() {
        return Ok(());
    }
    Err(RecordProblem::SampleLayout(ParseError::SizeMismatch {
        record: "SAMPLE",
        header_size: record.len(),
        implied,
    }))
}

/// `f` of the SAMPLE `record` parsed by its layout, and of the bytes parsed (`record`, or a
/// copy of it as long), also when `header.size` counts padding after the last field that
/// the layout does not (padding that perf reads alike).
pub(crate) fn with_parsed<T>(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
    f: impl FnOnce(&ParsedSample<'_>, &[u8]) -> T,
) -> Result<T, ParseError> {
    match parse_sample(layout, endian, record) {
        Ok(s) => Ok(f(&s, record)),
        Err(ParseError::SizeMismatch {
            header_size,
            implied,
            ..
        }) if implied < header_size && implied.next_multiple_of(8) == header_size => {
            let size = u16::try_from(implied).unwrap_or(u16::MAX);
            let mut copy = record.to_vec();
            if let Some(field) = copy.get_mut(6..8) {
                field.copy_from_slice(&endian.u16_bytes(size));
            }
            parse_sample(layout, endian, &copy).map(|s| f(&s, &copy))
        }
        Err(e) => Err(e),
    }
}
