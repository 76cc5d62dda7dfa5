//! The rules every part of strict mode checks records by, and what it gathers from them.

use crate::error::RecordProblem;
use perf_abi::record_type::{self, BodyLen};
use perf_abi::{field_widths, misc, record_fields, IdIndexEntry, Stat};
use perf_encode::records::{
    parse_sample, ParseError, ParsedCpuMap, ParsedReadCounters, ParsedSample, SampleLayout,
};
use perf_encode::swap::{RecordSwapper, SwapError};
use perf_encode::Endian;
use std::mem::{offset_of, size_of};

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

/// perf's own records that make or need perf script's table of counts (see
/// [`StatSession`](crate::check::stat_session::StatSession)).
pub(crate) const STAT_SESSION: [u32; 5] = [
    record_type::THREAD_MAP,
    record_type::CPU_MAP,
    record_type::EVENT_UPDATE,
    record_type::STAT,
    record_type::STAT_ROUND,
];

/// perf's own records an AUXTRACE_INFO's trace decoder reads (see
/// [`AuxtraceSession`](crate::check::auxtrace_session::AuxtraceSession)).
pub(crate) const AUXTRACE_SESSION: [u32; 3] = [
    record_type::TIME_CONV,
    record_type::AUXTRACE_INFO,
    record_type::AUXTRACE,
];

/// Kernel records an Intel PT or Arm SPE trace decoder takes a cpu's current thread from
/// (context switches, ITRACE_START), and AUX_OUTPUT_HW_ID, which Intel PT takes into a
/// trace queue: judged by what came before them (see
/// [`AuxtraceSession::check_switch`](crate::check::auxtrace_session::AuxtraceSession::check_switch)).
pub(crate) fn is_switch(type_: u32) -> bool {
    matches!(
        type_,
        record_type::SWITCH
            | record_type::SWITCH_CPU_WIDE
            | record_type::ITRACE_START
            | record_type::AUX_OUTPUT_HW_ID
    )
}

/// The bytes perf 6.1 swaps of every READ record, whatever its size: the struct of a READ
/// with every `read_format` field but the group's and `lost`.
const READ_SWAPPED: usize = 48;

/// Where perf 6.1 starts swapping a READ's `sample_id`: after its struct, `lost` included.
/// It swaps nothing of bytes 48 to 56.
const READ_SAMPLE_ID_SWAPPED: usize = 56;

/// Where a big-endian READ's `sample_id` laid out by `layout` may start, at the earliest:
/// at byte 56, where perf 6.1 swaps it, or, when the trailer starts with TID, at 48: perf
/// leaves that word unswapped, but never reads a READ's trailer pid and tid.
#[inline]
pub(crate) fn read_trailer_start(layout: &SampleLayout) -> usize {
    match layout.sample_id_bits() & perf_abi::sample_type::TID != 0 {
        true => READ_SWAPPED,
        false => READ_SAMPLE_ID_SWAPPED,
    }
}

/// In a big-endian output, a READ longer than [`READ_SWAPPED`] whose `sample_id` (laid out
/// by `layout`) starts before [`read_trailer_start`]: perf 6.1 leaves its word in bytes 48
/// to 56 unswapped and reads that field (a time, an id) wrong, misordering the record.
#[inline]
pub(crate) fn check_read_trailer(
    endian: Endian,
    type_: u32,
    len: usize,
    layout: &SampleLayout,
) -> Result<(), RecordProblem> {
    let trailer = layout.sample_id_len();
    match endian == Endian::Big
        && type_ == record_type::READ
        && trailer > 0
        && len > READ_SWAPPED
        && len.saturating_sub(trailer) < read_trailer_start(layout)
    {
        true => Err(RecordProblem::ReadSampleIdUnswapped),
        false => Ok(()),
    }
}

/// Whether perf 6.1, reading a big-endian output on a little-endian machine, swaps a kernel
/// record of type `type_` and `size` bytes back well enough to read it, and the records
/// after it, in order and by the right event. It does not for:
/// - a SWITCH with a `sample_id` (it swaps the trailer from byte 16, leaving the first 8
///   bytes of it unswapped);
/// - KSYMBOL and BPF_EVENT (it has no swap for them: every field, the `sample_id`'s time
///   and id among them, is read unswapped, so the record is shown wrong, sorted by a time
///   past every other and given to no event);
/// - a READ shorter than 48 bytes (it swaps 48 bytes of every READ in place, the next
///   record's header among them, and stops at that record).
///
/// A little-endian output is always `Ok`. Fields perf leaves unswapped that only show a
/// wrong value (MMAP2's `prot` and `flags`, …) are taken: they are what a big-endian kernel
/// writes.
#[inline]
pub(crate) fn check_swapped_by_perf(
    endian: Endian,
    type_: u32,
    size: usize,
) -> Result<(), RecordProblem> {
    if endian == Endian::Little {
        return Ok(());
    }
    match type_ {
        record_type::SWITCH if size > 8 => Err(RecordProblem::UnswappedSwitchSampleId),
        record_type::KSYMBOL | record_type::BPF_EVENT => Err(RecordProblem::UnswappedRecord),
        record_type::READ if size < READ_SWAPPED => Err(RecordProblem::ReadSwappedPastEnd),
        _ => Ok(()),
    }
}

/// The `misc` field of a record's header (0 when it is shorter than its header).
pub(crate) fn header_misc(endian: Endian, record: &[u8]) -> u16 {
    record
        .get(4..6)
        .map_or(0, |m| endian.read_u16([m[0], m[1]]))
}

/// perf's own records judged by what came before them (the output's state), as well as
/// by their own bytes: pipe mode's header records (refused), COMPRESSED (kept count of),
/// those naming ids, those of perf script's table of counts and those a trace decoder
/// reads.
pub(crate) fn judged_in_context(type_: u32) -> bool {
    WRITER_MANAGED.contains(&type_)
        || NAMES_IDS.contains(&type_)
        || STAT_SESSION.contains(&type_)
        || AUXTRACE_SESSION.contains(&type_)
        || type_ == record_type::COMPRESSED
}

/// Where an EVENT_UPDATE's fields are: its header, then `u64 type` (the kind), `u64 id`
/// and the kind's data.
const EVENT_UPDATE_KIND: usize = 8;
const EVENT_UPDATE_ID: usize = 16;
const EVENT_UPDATE_DATA: usize = 24;

/// The `perf_record_cpu_map_data` of an EVENT_UPDATE of kind CPUS (`None` for another
/// kind).
pub(crate) fn event_update_cpus(endian: Endian, record: &[u8]) -> Option<&[u8]> {
    (endian.u64_at(record, EVENT_UPDATE_KIND)? == field_widths::EVENT_UPDATE_CPUS)
        .then(|| record.get(EVENT_UPDATE_DATA..).unwrap_or_default())
}

/// The id and name an EVENT_UPDATE `record` of kind NAME gives (the name to its first NUL).
pub(crate) fn event_update_name(endian: Endian, record: &[u8]) -> Option<(u64, &[u8])> {
    if endian.u64_at(record, EVENT_UPDATE_KIND)? != record_fields::EVENT_UPDATE_NAME {
        return None;
    }
    let id = endian.u64_at(record, EVENT_UPDATE_ID)?;
    let data = record.get(EVENT_UPDATE_DATA..)?;
    let name = data.split(|&b| b == 0).next().unwrap_or_default();
    Some((id, name))
}

/// The ids `record` (one of [`NAMES_IDS`], its fields checked) names, each with whether
/// perf looks it up among the events' own ids (ID_INDEX's entries) or takes the event by
/// its rule for a record's event (EVENT_UPDATE's id, STAT's).
pub(crate) fn named_ids(
    endian: Endian,
    type_: u32,
    record: &[u8],
) -> impl Iterator<Item = (u64, bool)> + '_ {
    let word = move |at: usize| endian.u64_at(record, at);
    let (first, count, stride, own) = match type_ {
        record_type::ID_INDEX => (16, word(8).unwrap_or(0), size_of::<IdIndexEntry>(), true),
        record_type::EVENT_UPDATE => (EVENT_UPDATE_ID, 1, 0, false),
        record_type::STAT => (8 + offset_of!(Stat, id), 1, 0, false),
        _ => (0, 0, 0, false),
    };
    (0..count)
        .map_while(move |i| {
            let at = usize::try_from(i).ok()?.checked_mul(stride)?;
            word(first.checked_add(at)?)
        })
        .map(move |id| (id, own))
}

/// The first id `record` (one of [`NAMES_IDS`], its fields checked) names that no event
/// takes: ID_INDEX's ids must each be an event's `own`; EVENT_UPDATE's and STAT's must be
/// `attributed` by perf's rule for a record's event.
pub(crate) fn unknown_named_id(
    endian: Endian,
    type_: u32,
    record: &[u8],
    own: impl Fn(u64) -> bool,
    attributed: impl Fn(u64) -> bool,
) -> Option<u64> {
    named_ids(endian, type_, record)
        .find(|&(id, must_own)| match must_own {
            true => !own(id),
            false => !attributed(id),
        })
        .map(|(id, _)| id)
}

/// One of perf's own records (type 64 and up) holds the fields perf-abi's table gives its
/// type, each list as long as its count says and nothing after the last field: walked as
/// the byte-order swapper walks it, on a copy. Types whose body has one length only, which
/// [`check_body`] proved, and types the table does not lay out are not walked. Then its
/// values ([`check_user_values`]).
pub(crate) fn check_user_fields(
    endian: Endian,
    type_: u32,
    body: BodyLen,
    record: &[u8],
) -> Result<(), RecordProblem> {
    if matches!(body, BodyLen::Exact(_)) || field_widths::record(type_).is_none() {
        return check_user_values(endian, type_, record);
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
        })?;
    check_user_values(endian, type_, record)
}

/// The values in one of perf's own records (its fields walked) that perf 6.1 refuses or
/// misreads: a STAT_CONFIG tag it
/// does not know, a cpu map (CPU_MAP, EVENT_UPDATE's) it sizes wrong, and in a big-endian
/// output an EVENT_UPDATE cpu map, which perf does not swap (it swaps the kind and id
/// only) when it reads the file on a little-endian machine: it would fail to read the map,
/// or count the event's STATs on cpus it makes up. (A scale it leaves unswapped too, and
/// reads a wrong factor it only prints: taken.)
fn check_user_values(endian: Endian, type_: u32, record: &[u8]) -> Result<(), RecordProblem> {
    let word = |at: usize| endian.u64_at(record, at);
    let value = |field, value| Err(RecordProblem::Value { field, value });
    let cpu_map = |data: &[u8]| match ParsedCpuMap::parse_data(data, endian) {
        Ok(_) => Ok(()),
        Err(ParseError::BadValue {
            field, value: v, ..
        }) => value(field, v),
        Err(_) => Err(RecordProblem::Fields("cpu map")),
    };
    match type_ {
        record_type::STAT_CONFIG => {
            let nr = word(8).unwrap_or(0);
            for i in 0..nr {
                let at = usize::try_from(i)
                    .ok()
                    .and_then(|i| i.checked_mul(16)?.checked_add(16));
                match at.and_then(word) {
                    Some(tag) if !record_fields::stat_config_tag_known(tag) => {
                        return value("tag", tag)
                    }
                    Some(_) => {}
                    None => break,
                }
            }
        }
        record_type::CPU_MAP => cpu_map(record.get(8..).unwrap_or_default())?,
        record_type::EVENT_UPDATE => match event_update_cpus(endian, record) {
            Some(_) if endian == Endian::Big => {
                return Err(RecordProblem::Unswapped(field_widths::EVENT_UPDATE_CPUS));
            }
            Some(data) => cpu_map(data)?,
            // perf copies a unit or a name to its NUL.
            None => {
                let kind = word(EVENT_UPDATE_KIND);
                let text = [
                    record_fields::EVENT_UPDATE_UNIT,
                    record_fields::EVENT_UPDATE_NAME,
                ];
                if kind.is_some_and(|k| text.contains(&k)) {
                    holds_nul(record, EVENT_UPDATE_DATA, record.len())?;
                }
            }
        },
        record_type::AUXTRACE_ERROR => check_auxtrace_error(endian, record)?,
        // perf reads `time_cycles`, `time_mask` and the two caps once the record holds
        // more than `time_zero` (24 bytes of body).
        record_type::TIME_CONV if !matches!(record.len().saturating_sub(8), 24 | 48..) => {
            return Err(RecordProblem::Fields("time_mask"));
        }
        record_type::HEADER_BUILD_ID => {
            if header_misc(endian, record) & misc::BUILD_ID_SIZE != 0 {
                build_id_size(record, HEADER_BUILD_ID_SIZE)?;
            }
            holds_nul(record, HEADER_BUILD_ID_FILENAME, record.len())?;
        }
        _ => {}
    }
    Ok(())
}

/// Where an AUXTRACE_ERROR's `type` is. perf 6.1 reads it as an `int` and, when it is less
/// than the number of kinds it names, looks its name up in a table by it: a `type` of 2^31
/// or more is negative there, and reads before the table (perf script crashes).
const AUXTRACE_ERROR_TYPE: usize = 8;

/// Where an AUXTRACE_ERROR's fields perf reads by its `fmt` are: `fmt` itself, `time`
/// (read when `fmt` is 1 or more; with 0 the message starts there), the 64-byte message,
/// and `vcpu`'s end (`machine_pid` and `vcpu` read when `fmt` is 2 or more).
const AUXTRACE_ERROR_FMT: usize = 28;
const AUXTRACE_ERROR_TIME: usize = 40;
const AUXTRACE_ERROR_MSG: usize = 48;
const AUXTRACE_ERROR_END: usize = 120;

/// An AUXTRACE_ERROR's `type` is one perf 6.1 can name (see [`AUXTRACE_ERROR_TYPE`]), and it
/// holds what perf reads of it by its `fmt`, which may end it early
/// (perf writes one that ends after its message's NUL): `time` for `fmt` 1 and up,
/// `machine_pid` and `vcpu` for 2 and up, and its message (printed to its NUL) a NUL
/// within the record.
fn check_auxtrace_error(endian: Endian, record: &[u8]) -> Result<(), RecordProblem> {
    let kind = endian.u32_at(record, AUXTRACE_ERROR_TYPE).unwrap_or(0);
    if i32::try_from(kind).is_err() {
        return Err(RecordProblem::Value {
            field: "type",
            value: u64::from(kind),
        });
    }
    let fmt = endian.u32_at(record, AUXTRACE_ERROR_FMT).unwrap_or(0);
    let (msg, end) = match fmt {
        0 => (AUXTRACE_ERROR_TIME, AUXTRACE_ERROR_TIME),
        1 => (AUXTRACE_ERROR_MSG, AUXTRACE_ERROR_MSG),
        _ => (AUXTRACE_ERROR_MSG, AUXTRACE_ERROR_END),
    };
    if record.len() < end {
        return Err(RecordProblem::Fields(match fmt {
            0 => "msg",
            1 => "time",
            _ => "vcpu",
        }));
    }
    holds_nul(record, msg, record.len().min(msg + 64))
}

/// Where a HEADER_BUILD_ID's build id size (with `misc::BUILD_ID_SIZE`) and filename are.
const HEADER_BUILD_ID_SIZE: usize = 32;
const HEADER_BUILD_ID_FILENAME: usize = 36;

/// Where an MMAP2's build id size is (with `misc::MMAP_BUILD_ID`).
const MMAP2_BUILD_ID_SIZE: usize = 40;

/// The most bytes of build id perf 6.1 keeps: it copies the size a record gives into a
/// 20-byte array, and prints twice as many hex digits into a buffer for 20.
const BUILD_ID_MAX: u8 = 20;

/// The build id size byte at `at` is at most [`BUILD_ID_MAX`].
fn build_id_size(record: &[u8], at: usize) -> Result<(), RecordProblem> {
    match record.get(at) {
        Some(&size) if size > BUILD_ID_MAX => Err(RecordProblem::Value {
            field: "build_id size",
            value: u64::from(size),
        }),
        _ => Ok(()),
    }
}

/// `record[from..to]` holds a NUL (perf reads the text there to it).
fn holds_nul(record: &[u8], from: usize, to: usize) -> Result<(), RecordProblem> {
    match record.get(from..to).is_some_and(|text| text.contains(&0)) {
        true => Ok(()),
        false => Err(RecordProblem::NameWithoutNul),
    }
}

/// The values of a kernel record perf 6.1 reads whatever its event: an MMAP2's build id
/// size (at most 20), and the counts of a NAMESPACES or TEXT_POKE, which no trailer can
/// make fit when they give a body longer than the record ([`counted_body`]).
#[inline(always)]
pub(crate) fn check_kernel_values(
    endian: Endian,
    type_: u32,
    record: &[u8],
) -> Result<(), RecordProblem> {
    match type_ {
        record_type::MMAP2 if header_misc(endian, record) & misc::MMAP_BUILD_ID != 0 => {
            build_id_size(record, MMAP2_BUILD_ID_SIZE)
        }
        record_type::NAMESPACES | record_type::TEXT_POKE => counts_fit(endian, type_, record),
        _ => Ok(()),
    }
}

/// A NAMESPACES or TEXT_POKE is at least as long as the body its counts give (out of line:
/// those records are rare).
#[inline(never)]
fn counts_fit(endian: Endian, type_: u32, record: &[u8]) -> Result<(), RecordProblem> {
    let body = counted_body(endian, type_, BodyLen::Varies, record);
    check_body(body, record.len(), 0).or_else(|e| match e {
        // Longer than its counts: a trailer may fill the rest.
        RecordProblem::Size { size, expected, .. } if size > expected => Ok(()),
        e => Err(e),
    })
}

/// The body length of a record of type `type_` whose type's own is `body`
/// ([`record_type::info`]), from the counts it holds where they set it: a NAMESPACES holds
/// `nr_namespaces` entries of 16 bytes after its pid, tid and count; a TEXT_POKE
/// `old_len + new_len` bytes after its address and the two lengths, padded to 8. perf 6.1
/// reads (and copies) as many bytes as the counts say, past the record when they run
/// past it (it dies of SIGBUS on a large one), and in a big-endian file swaps the trailer
/// from where they end; the kernel writes exactly that many. A count that cannot fit any
/// record gives `Exact(u16::MAX)`.
#[inline(always)]
pub(crate) fn counted_body(endian: Endian, type_: u32, body: BodyLen, record: &[u8]) -> BodyLen {
    match type_ {
        record_type::NAMESPACES | record_type::TEXT_POKE => {
            counts_body(endian, type_, body, record)
        }
        _ => body,
    }
}

/// [`counted_body`] of a type whose counts set it (out of line: those records are rare).
#[inline(never)]
fn counts_body(endian: Endian, type_: u32, body: BodyLen, record: &[u8]) -> BodyLen {
    let counted = match type_ {
        record_type::NAMESPACES => endian
            .u64_at(record, 16)
            .map(|nr| nr.saturating_mul(16).saturating_add(16)),
        record_type::TEXT_POKE => match (endian.u16_at(record, 16), endian.u16_at(record, 18)) {
            (Some(old), Some(new)) => {
                let bytes = 4 + u64::from(old) + u64::from(new);
                Some(8 + bytes.next_multiple_of(8))
            }
            _ => None,
        },
        _ => None,
    };
    match counted {
        Some(n) => BodyLen::Exact(u16::try_from(n).unwrap_or(u16::MAX)),
        None => body,
    }
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

/// The longest `sample_id` trailer that leaves the NUL of the name `record` (of type
/// `type_`) ends in before it ([`record_type::name_offset`]); negative when the record
/// holds no NUL from the name on; `None` for a type without a name. perf 6.1 reads the
/// name to its NUL, and when it swaps a record of the other byte order looks for the
/// trailer after the name's length and NUL, rounded up to 8: a NUL past the name's field
/// leaves the trailer's first words unswapped.
pub(crate) fn name_room(type_: u32, record: &[u8]) -> Option<i64> {
    let at = record_type::name_offset(type_)?;
    let nul = record
        .get(at..)
        .and_then(|name| name.iter().position(|&b| b == 0));
    Some(nul.map_or(-1, |k| record.len() as i64 - (at + k) as i64 - 1))
}

/// A side-band record's name holds its NUL before a `trailer`-byte `sample_id` (see
/// [`name_room`]).
#[inline]
pub(crate) fn check_name(type_: u32, record: &[u8], trailer: usize) -> Result<(), RecordProblem> {
    let Some(at) = record_type::name_offset(type_) else {
        return Ok(());
    };
    // The kernel pads a name with zeros to a multiple of 8: its field's last byte is 0.
    let end = record.len().saturating_sub(trailer);
    if end > at && record.get(end - 1) == Some(&0) {
        return Ok(());
    }
    match name_room(type_, record) {
        Some(room) if room < trailer as i64 => Err(RecordProblem::NameWithoutNul),
        _ => Ok(()),
    }
}

/// A SAMPLE's `header.size` of `size` fits the length `implied` by its layout: it is that
/// length, or in a little-endian output that rounded up to 8 (padding after the last field
/// that RAW's size does not count, which perf reads alike). perf on a little-endian host
/// reads a big-endian file's SAMPLE as 8-byte words swapped, and swaps back only the words
/// RAW's size counts: there the size must count the padding.
#[inline(always)]
pub(crate) fn sample_size_fits(implied: usize, size: usize, endian: Endian) -> bool {
    implied == size
        || (endian == Endian::Little && implied & 7 != 0 && (implied | 7).wrapping_add(1) == size)
}

/// A SAMPLE field that ends `end` bytes into its record leaves the fields after it where
/// perf reads them. perf on a little-endian host swaps a big-endian file's SAMPLE as 8-byte
/// words, then swaps back RAW's and AUX's words: there every field must end at a multiple
/// of 8 (RAW's size counting its padding, STACK_USER's and AUX's sizes multiples of 8), as
/// the kernel writes them.
#[inline(always)]
pub(crate) fn field_end_fits(end: usize, endian: Endian) -> bool {
    endian == Endian::Little || end % 8 == 0
}

/// A SAMPLE's `header.size` is the length its layout gives its fields (found without
/// reading them when the layout has no variable-length field), or that rounded up to 8 as
/// [`sample_size_fits`] allows; its fields of bytes end where [`field_end_fits`] allows.
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
    if sample_size_fits(implied, record.len(), endian) {
        use perf_abi::sample_type::{AUX, RAW, STACK_USER};
        return match endian == Endian::Big && layout.sample_type & (RAW | STACK_USER | AUX) != 0 {
            true => check_byte_fields_end(layout, endian, record),
            false => Ok(()),
        };
    }
    Err(RecordProblem::SampleLayout(ParseError::SizeMismatch {
        record: "SAMPLE",
        header_size: record.len(),
        implied,
    }))
}

/// SAMPLEs of `layout` name ids besides the one their event is found by, which strict mode
/// reads ([`check_repeated_id`], [`check_read_ids`]): an ID beside IDENTIFIER, READ values.
pub(crate) fn names_more_ids(layout: &SampleLayout) -> bool {
    layout.repeated_id_offset().is_some() || layout.has(perf_abi::sample_type::READ)
}

/// A SAMPLE `record` that `layout` reads (its length checked) and that has both IDENTIFIER
/// and ID holds the same id in both ([`SampleLayout::repeated_id_offset`]).
pub(crate) fn check_repeated_id(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(), RecordProblem> {
    // IDENTIFIER is the first field.
    let places = layout.repeated_id_offset().map(|at| (8, at));
    ids_equal(endian, record, places)
}

/// The `sample_id` trailer of `record`, another record than SAMPLE whose body `layout`'s
/// trailer fits, holds the same id in IDENTIFIER and ID when it has both
/// ([`SampleLayout::trailer_repeated_id_from_end`]).
pub(crate) fn check_trailer_repeated_id(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(), RecordProblem> {
    check_trailer_ids(endian, record, layout.trailer_repeated_id_from_end())
}

/// [`check_trailer_repeated_id`] by where the trailer's ID is, `back` bytes from the end
/// (`None`: the trailer has not both fields).
pub(crate) fn check_trailer_ids(
    endian: Endian,
    record: &[u8],
    back: Option<usize>,
) -> Result<(), RecordProblem> {
    let len = record.len();
    // IDENTIFIER is the trailer's last field.
    let places = back.and_then(|back| Some((len.checked_sub(8)?, len.checked_sub(back)?)));
    ids_equal(endian, record, places)
}

/// The words of `record` at `places` (IDENTIFIER's, ID's) are the same id.
fn ids_equal(
    endian: Endian,
    record: &[u8],
    places: Option<(usize, usize)>,
) -> Result<(), RecordProblem> {
    let Some((identifier_at, id_at)) = places else {
        return Ok(());
    };
    match (
        endian.u64_at(record, identifier_at),
        endian.u64_at(record, id_at),
    ) {
        (Some(identifier), Some(id)) if id != identifier => {
            Err(RecordProblem::IdFieldDiffers { identifier, id })
        }
        _ => Ok(()),
    }
}

/// The ids a SAMPLE's READ values name, as perf 6.1 reads them: it counts each value for
/// the event that has its id (`evlist__id2sid`), and drops a value whose id no event has.
/// `own`: whether the SAMPLE's event has an id. A single counter must name its own event
/// ([`RecordProblem::ReadIdOfAnotherEvent`]); a group's members may be any events': the
/// first id of theirs that `described` lacks is returned (it must be described before
/// perf reads the SAMPLE). `record` passed the layout's check.
pub(crate) fn check_read_ids(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
    own: impl Fn(u64) -> bool,
    described: impl Fn(u64) -> bool,
) -> Result<Option<u64>, RecordProblem> {
    if !layout.has(perf_abi::sample_type::READ) {
        return Ok(None);
    }
    let found = with_parsed(layout, endian, record, |s, _| {
        match s.read.map(|r| r.counters) {
            Some(ParsedReadCounters::One(v)) => match v.id {
                Some(id) if !own(id) => Err(RecordProblem::ReadIdOfAnotherEvent(id)),
                _ => Ok(None),
            },
            Some(ParsedReadCounters::Group(g)) => {
                Ok(g.iter().filter_map(|v| v.id).find(|&id| !described(id)))
            }
            None => Ok(None),
        }
    });
    found.map_err(RecordProblem::SampleLayout)?
}

/// The ids of a SAMPLE's READ group under `layout` (none without a group), for `f`.
pub(crate) fn read_group_ids(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
    f: impl FnMut(u64),
) {
    if !layout.has(perf_abi::sample_type::READ) {
        return;
    }
    let _ = with_parsed(layout, endian, record, |s, _| {
        if let Some(ParsedReadCounters::Group(g)) = s.read.map(|r| r.counters) {
            g.iter().filter_map(|v| v.id).for_each(f);
        }
    });
}

/// The SAMPLE `record`'s RAW, STACK_USER and AUX bytes end where [`field_end_fits`]
/// allows.
fn check_byte_fields_end(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(), RecordProblem> {
    let s = parse_sample(layout, endian, record).map_err(RecordProblem::SampleLayout)?;
    // Every field before RAW is of 8-byte words, and so is every other one up to AUX:
    // each of these ends at a multiple of 8 when its own length (with RAW's size word) is
    // one.
    let lens = [
        ("RAW", s.raw.map(|raw| raw.len().wrapping_add(4))),
        ("STACK_USER", s.stack_user.map(|st| st.data.len())),
        ("AUX", s.aux.map(<[u8]>::len)),
    ];
    match lens
        .into_iter()
        .find(|(_, len)| len.is_some_and(|len| !field_end_fits(len, endian)))
    {
        Some((field, _)) => Err(RecordProblem::SampleFieldUnaligned(field)),
        None => Ok(()),
    }
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
        }) if implied < header_size && sample_size_fits(implied, header_size, endian) => {
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
