//! Record types: [`PerfEventHeader::type_`](crate::PerfEventHeader::type_)
//! (`PERF_RECORD_*`). 1..=21 come from the kernel, 64 and up are written by tools.
//!
//! ```
//! use perf_abi::record_type;
//! assert_eq!(record_type::name(record_type::SAMPLE), Some("SAMPLE"));
//! assert!(record_type::is_user(record_type::FINISHED_ROUND));
//! ```

/// `PERF_RECORD_MMAP`.
pub const MMAP: u32 = 1;
/// `PERF_RECORD_LOST`.
pub const LOST: u32 = 2;
/// `PERF_RECORD_COMM`.
pub const COMM: u32 = 3;
/// `PERF_RECORD_EXIT`.
pub const EXIT: u32 = 4;
/// `PERF_RECORD_THROTTLE`.
pub const THROTTLE: u32 = 5;
/// `PERF_RECORD_UNTHROTTLE`.
pub const UNTHROTTLE: u32 = 6;
/// `PERF_RECORD_FORK`.
pub const FORK: u32 = 7;
/// `PERF_RECORD_READ`.
pub const READ: u32 = 8;
/// `PERF_RECORD_SAMPLE`.
pub const SAMPLE: u32 = 9;
/// `PERF_RECORD_MMAP2`.
pub const MMAP2: u32 = 10;
/// `PERF_RECORD_AUX`.
pub const AUX: u32 = 11;
/// `PERF_RECORD_ITRACE_START`.
pub const ITRACE_START: u32 = 12;
/// `PERF_RECORD_LOST_SAMPLES`.
pub const LOST_SAMPLES: u32 = 13;
/// `PERF_RECORD_SWITCH`.
pub const SWITCH: u32 = 14;
/// `PERF_RECORD_SWITCH_CPU_WIDE`.
pub const SWITCH_CPU_WIDE: u32 = 15;
/// `PERF_RECORD_NAMESPACES`.
pub const NAMESPACES: u32 = 16;
/// `PERF_RECORD_KSYMBOL`.
pub const KSYMBOL: u32 = 17;
/// `PERF_RECORD_BPF_EVENT`.
pub const BPF_EVENT: u32 = 18;
/// `PERF_RECORD_CGROUP`.
pub const CGROUP: u32 = 19;
/// `PERF_RECORD_TEXT_POKE`.
pub const TEXT_POKE: u32 = 20;
/// `PERF_RECORD_AUX_OUTPUT_HW_ID`.
pub const AUX_OUTPUT_HW_ID: u32 = 21;
/// `PERF_RECORD_HEADER_ATTR`: pipe mode's attr.
pub const HEADER_ATTR: u32 = 64;
/// `PERF_RECORD_HEADER_EVENT_TYPE`: no longer written.
pub const HEADER_EVENT_TYPE: u32 = 65;
/// `PERF_RECORD_HEADER_TRACING_DATA`: pipe mode's TRACING_DATA (payload follows the record).
pub const HEADER_TRACING_DATA: u32 = 66;
/// `PERF_RECORD_HEADER_BUILD_ID`.
pub const HEADER_BUILD_ID: u32 = 67;
/// `PERF_RECORD_FINISHED_ROUND`: no record before it is newer than one after it.
pub const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_ID_INDEX`.
pub const ID_INDEX: u32 = 69;
/// `PERF_RECORD_AUXTRACE_INFO`.
pub const AUXTRACE_INFO: u32 = 70;
/// `PERF_RECORD_AUXTRACE` (payload follows the record).
pub const AUXTRACE: u32 = 71;
/// `PERF_RECORD_AUXTRACE_ERROR`.
pub const AUXTRACE_ERROR: u32 = 72;
/// `PERF_RECORD_THREAD_MAP`.
pub const THREAD_MAP: u32 = 73;
/// `PERF_RECORD_CPU_MAP`.
pub const CPU_MAP: u32 = 74;
/// `PERF_RECORD_STAT_CONFIG`.
pub const STAT_CONFIG: u32 = 75;
/// `PERF_RECORD_STAT`.
pub const STAT: u32 = 76;
/// `PERF_RECORD_STAT_ROUND`.
pub const STAT_ROUND: u32 = 77;
/// `PERF_RECORD_EVENT_UPDATE`.
pub const EVENT_UPDATE: u32 = 78;
/// `PERF_RECORD_TIME_CONV`.
pub const TIME_CONV: u32 = 79;
/// `PERF_RECORD_HEADER_FEATURE`: pipe mode's feature section.
pub const HEADER_FEATURE: u32 = 80;
/// `PERF_RECORD_COMPRESSED`.
pub const COMPRESSED: u32 = 81;
/// `PERF_RECORD_FINISHED_INIT`: the initial system state has been written.
pub const FINISHED_INIT: u32 = 82;
/// `PERF_RECORD_COMPRESSED2` (newer perf).
pub const COMPRESSED2: u32 = 83;

/// How a record of a type is delimited in a stream of records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Framing {
    /// `header.size` bytes, a multiple of 8.
    Aligned,
    /// `header.size` bytes, any number of them (at least 8): perf writes HEADER_FEATURE,
    /// HEADER_BUILD_ID and COMPRESSED records unpadded, so the record after one may start
    /// unaligned.
    Unpadded,
    /// `header.size` bytes (a multiple of 8, at least 16), then a payload outside the record
    /// whose length the record's second word gives.
    PayloadAfter(PayloadLen),
}

/// Where a record followed by a payload says how long that payload is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadLen {
    /// The `u32` at byte 8, rounded up to a multiple of 8 (HEADER_TRACING_DATA).
    U32At8Padded,
    /// The `u64` at byte 8 (AUXTRACE).
    U64At8,
}

/// Bytes of a record's body: after its header, before its `sample_id` trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyLen {
    /// Always this many.
    Exact(u16),
    /// At least this many (a name, a list).
    AtLeast(u16),
    /// It depends on the event's attr (SAMPLE, READ) or is not known here.
    Varies,
}

/// What a record type's bytes are, beyond its number: its name, how it is framed, its body
/// length, and whether a `sample_id` trailer follows it. The encoders, the framer and the
/// writer's record checks all read these facts here.
///
/// ```
/// use perf_abi::record_type::{self, BodyLen, Framing};
/// let fork = record_type::info(record_type::FORK).unwrap();
/// assert_eq!((fork.name, fork.body, fork.sample_id), ("FORK", BodyLen::Exact(24), true));
/// assert_eq!(fork.framing, Framing::Aligned);
/// assert_eq!(record_type::info(100), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordInfo {
    /// perf's name without the `PERF_RECORD_` prefix.
    pub name: &'static str,
    /// How the record is delimited.
    pub framing: Framing,
    /// Bytes between the header and the trailer.
    pub body: BodyLen,
    /// Ends with the `sample_id` trailer its event's attr lays out (kernel records other
    /// than SAMPLE, when the attr has `sample_id_all`).
    pub sample_id: bool,
}

#[inline]
const fn kernel(name: &'static str, body: BodyLen) -> RecordInfo {
    RecordInfo {
        name,
        framing: Framing::Aligned,
        body,
        sample_id: true,
    }
}

#[inline]
const fn tool(name: &'static str, body: BodyLen) -> RecordInfo {
    RecordInfo {
        name,
        framing: Framing::Aligned,
        body,
        sample_id: false,
    }
}

/// Where the NUL-terminated name that ends the body of a record of type `type_` starts,
/// from the start of the record: COMM's `comm`, MMAP's and MMAP2's `filename`, CGROUP's
/// `path`, KSYMBOL's `name`. The name is zero-padded to a multiple of 8 and runs to the
/// `sample_id` trailer; perf 6.1 reads it as a C string, and when it swaps a record of the
/// other byte order finds the trailer after the name's length plus its NUL, rounded up to
/// 8. `None` for the other types.
///
/// ```
/// use perf_abi::record_type::{self, name_offset};
/// assert_eq!(name_offset(record_type::COMM), Some(16));
/// assert_eq!(name_offset(record_type::FORK), None);
/// ```
#[inline]
pub const fn name_offset(type_: u32) -> Option<usize> {
    match type_ {
        COMM | CGROUP => Some(16),
        KSYMBOL => Some(24),
        MMAP => Some(40),
        MMAP2 => Some(72),
        _ => None,
    }
}

/// The facts of record type `type_`, `None` for a type perf 6.1 does not know.
#[inline]
pub const fn info(type_: u32) -> Option<RecordInfo> {
    use BodyLen::{AtLeast, Exact, Varies};
    Some(match type_ {
        MMAP => kernel("MMAP", AtLeast(40)),
        LOST => kernel("LOST", Exact(16)),
        COMM => kernel("COMM", AtLeast(16)),
        EXIT => kernel("EXIT", Exact(24)),
        THROTTLE => kernel("THROTTLE", Exact(24)),
        UNTHROTTLE => kernel("UNTHROTTLE", Exact(24)),
        FORK => kernel("FORK", Exact(24)),
        // pid, tid and the first value (or a group's count); the rest as `read_format` says.
        READ => kernel("READ", AtLeast(16)),
        SAMPLE => RecordInfo {
            sample_id: false, // its fields are laid out by the attr instead
            ..kernel("SAMPLE", Varies)
        },
        MMAP2 => kernel("MMAP2", AtLeast(72)),
        AUX => kernel("AUX", Exact(24)),
        ITRACE_START => kernel("ITRACE_START", Exact(8)),
        LOST_SAMPLES => kernel("LOST_SAMPLES", Exact(8)),
        SWITCH => kernel("SWITCH", Exact(0)),
        SWITCH_CPU_WIDE => kernel("SWITCH_CPU_WIDE", Exact(8)),
        NAMESPACES => kernel("NAMESPACES", AtLeast(16)),
        KSYMBOL => kernel("KSYMBOL", AtLeast(24)),
        BPF_EVENT => kernel("BPF_EVENT", Exact(16)),
        CGROUP => kernel("CGROUP", AtLeast(16)),
        TEXT_POKE => kernel("TEXT_POKE", AtLeast(16)),
        AUX_OUTPUT_HW_ID => kernel("AUX_OUTPUT_HW_ID", Exact(8)),
        HEADER_ATTR => tool("HEADER_ATTR", AtLeast(64)),
        HEADER_EVENT_TYPE => tool("HEADER_EVENT_TYPE", Varies),
        HEADER_TRACING_DATA => RecordInfo {
            framing: Framing::PayloadAfter(PayloadLen::U32At8Padded),
            ..tool("HEADER_TRACING_DATA", Exact(8))
        },
        // `header.size = 36 + the name's 64-byte-aligned length`: perf 6.1 (`perf inject -b`)
        // writes them so, and the record after one starts 4 bytes off alignment.
        HEADER_BUILD_ID => RecordInfo {
            framing: Framing::Unpadded,
            ..tool("HEADER_BUILD_ID", Varies)
        },
        FINISHED_ROUND => tool("FINISHED_ROUND", Exact(0)),
        ID_INDEX => tool("ID_INDEX", AtLeast(8)),
        AUXTRACE_INFO => tool("AUXTRACE_INFO", AtLeast(8)),
        AUXTRACE => RecordInfo {
            framing: Framing::PayloadAfter(PayloadLen::U64At8),
            ..tool("AUXTRACE", Exact(40))
        },
        AUXTRACE_ERROR => tool("AUXTRACE_ERROR", Varies),
        THREAD_MAP => tool("THREAD_MAP", AtLeast(8)),
        CPU_MAP => tool("CPU_MAP", Varies),
        STAT_CONFIG => tool("STAT_CONFIG", AtLeast(8)),
        STAT => tool("STAT", Varies),
        STAT_ROUND => tool("STAT_ROUND", Exact(16)),
        EVENT_UPDATE => tool("EVENT_UPDATE", AtLeast(16)),
        TIME_CONV => tool("TIME_CONV", AtLeast(24)),
        HEADER_FEATURE => RecordInfo {
            framing: Framing::Unpadded,
            ..tool("HEADER_FEATURE", AtLeast(8))
        },
        // `header.size = 8 + compressed bytes`, unpadded: perf 6.1 writes them so.
        COMPRESSED => RecordInfo {
            framing: Framing::Unpadded,
            ..tool("COMPRESSED", AtLeast(0))
        },
        FINISHED_INIT => tool("FINISHED_INIT", Exact(0)),
        COMPRESSED2 => tool("COMPRESSED2", AtLeast(8)),
        _ => return None,
    })
}

/// True for record types written by tools rather than the kernel (64 and up).
pub const fn is_user(type_: u32) -> bool {
    type_ >= HEADER_ATTR
}

/// perf's name of record type `type_` without the `PERF_RECORD_` prefix.
#[inline]
pub const fn name(type_: u32) -> Option<&'static str> {
    match info(type_) {
        Some(i) => Some(i.name),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_type_has_its_name_and_only_kernel_records_have_a_trailer() {
        for t in 0..200u32 {
            let Some(i) = info(t) else { continue };
            assert!(!i.name.is_empty());
            assert_eq!(i.sample_id, !is_user(t) && t != SAMPLE, "{}", i.name);
        }
        let known = (0..200u32).filter(|&t| info(t).is_some()).count();
        assert_eq!(known, 21 + 20);
    }

    #[test]
    fn only_header_build_id_header_feature_and_compressed_are_unpadded() {
        let mut unpadded =
            (0..200u32).filter(|&t| info(t).is_some_and(|i| i.framing == Framing::Unpadded));
        assert_eq!(unpadded.next(), Some(HEADER_BUILD_ID));
        assert_eq!(unpadded.next(), Some(HEADER_FEATURE));
        assert_eq!(unpadded.next(), Some(COMPRESSED));
        assert_eq!(unpadded.next(), None);
        // COMPRESSED2 (newer perf) pads its records.
        assert_eq!(info(COMPRESSED2).map(|i| i.framing), Some(Framing::Aligned));
    }

    #[test]
    fn names() {
        assert_eq!(name(MMAP), Some("MMAP"));
        assert_eq!(name(AUX_OUTPUT_HW_ID), Some("AUX_OUTPUT_HW_ID"));
        assert_eq!(name(HEADER_ATTR), Some("HEADER_ATTR"));
        assert_eq!(name(FINISHED_INIT), Some("FINISHED_INIT"));
        assert_eq!(name(COMPRESSED2), Some("COMPRESSED2"));
        assert_eq!(name(COMPRESSED), Some("COMPRESSED"));
        assert_eq!(name(0), None);
        assert_eq!(name(22), None);
        assert_eq!(name(84), None);
        assert_eq!(name(u32::MAX), None);
    }
}
