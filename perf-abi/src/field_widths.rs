//! The widths of the fields of records and feature payloads, in order: what a reader of the
//! other byte order must reverse (each `u16`, `u32` and `u64`) and what it must keep as
//! stored (names, build ids, opaque bytes). One table per record type ([`record`]) and per
//! feature ([`feature`]); the few whose layout depends on a value inside them say which.
//!
//! ```
//! use perf_abi::field_widths::{self, Part, RecordParts};
//! use perf_abi::record_type;
//! let Some(RecordParts::Fields(comm)) = field_widths::record(record_type::COMM) else { panic!() };
//! assert_eq!(comm, &[Part::U32("pid"), Part::U32("tid"), Part::RestBytes("comm")]);
//! assert!(field_widths::record(100).is_none());
//! ```

use crate::{feature as feat, record_type as rt};

/// One field (or run of fields) of a record body or feature payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A `u16`.
    U16(&'static str),
    /// A `u32`.
    U32(&'static str),
    /// A `u64`.
    U64(&'static str),
    /// This many bytes kept as stored (a build id, flag bytes, padding).
    Bytes(u8, &'static str),
    /// The rest of the body: `u64` words (a list whose count came before, or read values).
    RestU64(&'static str),
    /// The rest of the body, kept as stored (a name, zero padding).
    RestBytes(&'static str),
    /// A perf string: `u32 len`, then `len` bytes.
    Str(&'static str),
    /// A `u32` count, then that many perf strings.
    StrList(&'static str),
    /// A `u16` count, then that many entries of these parts.
    List16(&'static str, &'static [Part]),
    /// A `u32` count, then that many entries of these parts.
    List32(&'static str, &'static [Part]),
    /// A `u64` count, then that many entries of these parts.
    List64(&'static str, &'static [Part]),
    /// A bitmap: `u64 nbits`, then `ceil(nbits / 64)` `u64` words.
    Bitmap64(&'static str),
}

/// How a record type's body (after its header, before its `sample_id` trailer) is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordParts {
    /// These fields, in order.
    Fields(&'static [Part]),
    /// MMAP2: the first parts when `header.misc` has `bit` (the build-id form), else the second.
    ByMisc(u16, &'static [Part], &'static [Part]),
    /// SAMPLE: laid out by its event's `sample_type` and `read_format`.
    Sample,
    /// CPU_MAP: a `perf_record_cpu_map_data`, laid out by its `u16 type` ([`cpu_map`]).
    CpuMap,
    /// EVENT_UPDATE: `u64 type, u64 id`, then a unit or name (bytes), a scale (`u64`
    /// double) or a cpu map, by `type`.
    EventUpdate,
    /// Records whose content another part of the file says (a stream's HEADER_ATTR,
    /// HEADER_FEATURE, HEADER_TRACING_DATA) or that hold other records compressed
    /// (COMPRESSED, COMPRESSED2): not swappable on their own.
    Container,
}

/// `PERF_RECORD_MISC_MMAP_BUILD_ID`: an MMAP2 record carries a build id instead of the
/// device and inode.
pub const MISC_MMAP_BUILD_ID: u16 = crate::misc::MMAP_BUILD_ID;

use Part::{Bytes, List32, List64, RestBytes, RestU64, Str, StrList, U16, U32, U64};

const PID_TID: [Part; 2] = [U32("pid"), U32("tid")];
const TASK: &[Part] = &[
    U32("pid"),
    U32("ppid"),
    U32("tid"),
    U32("ptid"),
    U64("time"),
];
const THROTTLE: &[Part] = &[U64("time"), U64("id"), U64("stream_id")];
const MMAP2_HEAD: [Part; 5] = [
    U32("pid"),
    U32("tid"),
    U64("start"),
    U64("len"),
    U64("pgoff"),
];
const MMAP2_INODE: &[Part] = &[
    MMAP2_HEAD[0],
    MMAP2_HEAD[1],
    MMAP2_HEAD[2],
    MMAP2_HEAD[3],
    MMAP2_HEAD[4],
    U32("maj"),
    U32("min"),
    U64("ino"),
    U64("ino_generation"),
    U32("prot"),
    U32("flags"),
    RestBytes("filename"),
];
const MMAP2_BUILD_ID: &[Part] = &[
    MMAP2_HEAD[0],
    MMAP2_HEAD[1],
    MMAP2_HEAD[2],
    MMAP2_HEAD[3],
    MMAP2_HEAD[4],
    Bytes(24, "build_id"),
    U32("prot"),
    U32("flags"),
    RestBytes("filename"),
];

/// The layout of record type `type_`'s body, `None` for a type perf 6.1 does not know.
pub const fn record(type_: u32) -> Option<RecordParts> {
    use RecordParts::{ByMisc, Container, Fields};
    Some(match type_ {
        rt::MMAP => Fields(&[
            PID_TID[0],
            PID_TID[1],
            U64("start"),
            U64("len"),
            U64("pgoff"),
            RestBytes("filename"),
        ]),
        rt::LOST => Fields(&[U64("id"), U64("lost")]),
        rt::COMM => Fields(&[PID_TID[0], PID_TID[1], RestBytes("comm")]),
        rt::EXIT | rt::FORK => Fields(TASK),
        rt::THROTTLE | rt::UNTHROTTLE => Fields(THROTTLE),
        rt::READ => Fields(&[PID_TID[0], PID_TID[1], RestU64("values")]),
        rt::SAMPLE => RecordParts::Sample,
        rt::MMAP2 => ByMisc(MISC_MMAP_BUILD_ID, MMAP2_BUILD_ID, MMAP2_INODE),
        rt::AUX => Fields(&[U64("aux_offset"), U64("aux_size"), U64("flags")]),
        rt::ITRACE_START => Fields(&PID_TID),
        rt::LOST_SAMPLES => Fields(&[U64("lost")]),
        rt::SWITCH | rt::FINISHED_ROUND | rt::FINISHED_INIT => Fields(&[]),
        rt::SWITCH_CPU_WIDE => Fields(&[U32("next_prev_pid"), U32("next_prev_tid")]),
        rt::NAMESPACES => Fields(&[PID_TID[0], PID_TID[1], RestU64("namespaces")]),
        rt::KSYMBOL => Fields(&[
            U64("addr"),
            U32("len"),
            U16("ksym_type"),
            U16("flags"),
            RestBytes("name"),
        ]),
        rt::BPF_EVENT => Fields(&[U16("type"), U16("flags"), U32("id"), Bytes(8, "tag")]),
        rt::CGROUP => Fields(&[U64("id"), RestBytes("path")]),
        rt::TEXT_POKE => Fields(&[
            U64("addr"),
            U16("old_len"),
            U16("new_len"),
            RestBytes("bytes"),
        ]),
        rt::AUX_OUTPUT_HW_ID => Fields(&[U64("hw_id")]),
        rt::HEADER_EVENT_TYPE => Fields(&[U64("event_id"), RestBytes("name")]),
        rt::HEADER_BUILD_ID => Fields(&[U32("pid"), Bytes(24, "build_id"), RestBytes("filename")]),
        // `{u64 nr, {u64 id, idx, cpu, tid}[nr]}`, then (when the size holds them) `{u64
        // machine_pid, vcpu}[nr]`.
        rt::ID_INDEX => Fields(&[
            List64("entries", &[U64("id"), U64("idx"), U64("cpu"), U64("tid")]),
            RestU64("entries_2"),
        ]),
        rt::AUXTRACE_INFO => Fields(&[U32("type"), U32("reserved"), RestU64("priv")]),
        // The trace data follows the record, outside `header.size`, kept as stored.
        rt::AUXTRACE => Fields(&[
            U64("size"),
            U64("offset"),
            U64("reference"),
            U32("idx"),
            U32("tid"),
            U32("cpu"),
            U32("reserved"),
        ]),
        rt::AUXTRACE_ERROR => Fields(&[
            U32("type"),
            U32("code"),
            U32("cpu"),
            U32("pid"),
            U32("tid"),
            U32("fmt"),
            U64("ip"),
            U64("time"),
            Bytes(64, "msg"),
            U32("machine_pid"),
            U32("vcpu"),
        ]),
        rt::THREAD_MAP => Fields(&[List64("entries", &[U64("pid"), Bytes(16, "comm")])]),
        rt::CPU_MAP => RecordParts::CpuMap,
        rt::STAT_CONFIG => Fields(&[List64("data", &[U64("tag"), U64("val")])]),
        rt::STAT => Fields(&[
            U64("id"),
            U32("cpu"),
            U32("thread"),
            U64("val"),
            U64("ena"),
            U64("run"),
        ]),
        rt::STAT_ROUND => Fields(&[U64("type"), U64("time")]),
        rt::EVENT_UPDATE => RecordParts::EventUpdate,
        // Five `u64`, two flag bytes and six reserved bytes (older perf: three `u64`).
        rt::TIME_CONV => Fields(&[
            U64("time_shift"),
            U64("time_mult"),
            U64("time_zero"),
            U64("time_cycles"),
            U64("time_mask"),
            RestBytes("caps"),
        ]),
        rt::HEADER_ATTR
        | rt::HEADER_TRACING_DATA
        | rt::HEADER_FEATURE
        | rt::COMPRESSED
        | rt::COMPRESSED2 => Container,
        _ => return None,
    })
}

/// Records whose last fields older perf did not write: their body may end after any whole
/// field (AUXTRACE_ERROR before `time` or `machine_pid`, TIME_CONV after `time_zero`), or
/// inside bytes (an AUXTRACE_ERROR's message: perf ends one after its NUL).
pub const fn may_end_early(type_: u32) -> bool {
    matches!(type_, rt::AUXTRACE_ERROR | rt::TIME_CONV)
}

/// The parts of a `perf_record_cpu_map_data` after its `u16 type`, for the types laid out
/// by a table (`record_fields::CPU_MAP_CPUS`, `CPU_MAP_RANGE_CPUS`); zero padding to 8 bytes
/// follows. `CPU_MAP_MASK` is `u16 nr`, `u16 long_size`, then `u32 mask[nr]` for a
/// `long_size` of 4, or 4 bytes of padding and `u64 mask[nr]` for 8.
pub const fn cpu_map(type_: u16) -> Option<&'static [Part]> {
    match type_ {
        crate::record_fields::CPU_MAP_CPUS => Some(&[Part::List16("cpus", &[U16("cpu")])]),
        crate::record_fields::CPU_MAP_RANGE_CPUS => {
            Some(&[Bytes(2, "any_cpu"), U16("start_cpu"), U16("end_cpu")])
        }
        _ => None,
    }
}

/// EVENT_UPDATE's `type` for a scale (a `double`); UNIT (0) and NAME (2) carry a string.
pub const EVENT_UPDATE_SCALE: u64 = 1;
/// EVENT_UPDATE's `type` for a cpu map.
pub const EVENT_UPDATE_CPUS: u64 = 3;

/// How a feature's payload is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureParts {
    /// These fields, in order, and nothing after them.
    Fields(&'static [Part]),
    /// Bytes that say their own byte order (TRACING_DATA: a flag byte after its magic):
    /// kept as stored.
    SelfDescribed,
    /// CPU_TOPOLOGY: two string lists, `{u32 core_id, u32 socket_id}` per CPU the machine
    /// has (NRCPUS' `available`), then optionally a string list of dies and `u32 die_id`
    /// per CPU.
    CpuTopology,
    /// BUILD_ID: records `{u32 type, u16 misc, u16 size, i32 pid, u8 build_id[24],
    /// char filename[]}`, `size` bytes each, to the end.
    BuildIds,
    /// Not readable in the other byte order by perf 6.1 (BPF_PROG_INFO, BPF_BTF: kernel
    /// structures perf refuses to interpret there), or unknown to it.
    NotSwappable(&'static str),
}

const STRING: &[Part] = &[Str("string")];
const NAME_VALUE: &[Part] = &[Str("name"), Str("value")];

/// The layout of feature `bit`'s payload, `None` for a feature perf 6.1 does not know.
pub const fn feature(bit: u8) -> Option<FeatureParts> {
    use FeatureParts::{Fields, NotSwappable};
    Some(match bit {
        feat::TRACING_DATA => FeatureParts::SelfDescribed,
        feat::BUILD_ID => FeatureParts::BuildIds,
        feat::HOSTNAME
        | feat::OSRELEASE
        | feat::VERSION
        | feat::ARCH
        | feat::CPUDESC
        | feat::CPUID => Fields(STRING),
        feat::NRCPUS => Fields(&[U32("nr_cpus_avail"), U32("nr_cpus_online")]),
        feat::TOTAL_MEM | feat::CLOCKID | feat::DIR_FORMAT => Fields(&[U64("value")]),
        feat::CMDLINE => Fields(&[StrList("cmdline")]),
        feat::EVENT_DESC => NotSwappable("the events' descriptions are written from the events"),
        feat::CPU_TOPOLOGY => FeatureParts::CpuTopology,
        feat::NUMA_TOPOLOGY => Fields(&[List32(
            "nodes",
            &[U32("node"), U64("mem_total"), U64("mem_free"), Str("cpus")],
        )]),
        feat::BRANCH_STACK | feat::STAT => Fields(&[]),
        feat::PMU_MAPPINGS => Fields(&[List32("pmus", &[U32("type"), Str("name")])]),
        feat::GROUP_DESC => Fields(&[List32(
            "groups",
            &[Str("name"), U32("leader_idx"), U32("nr_members")],
        )]),
        // `{u64 nr, {u64 file_offset, u64 size}[nr]}`.
        feat::AUXTRACE => Fields(&[List64("index", &[U64("file_offset"), U64("size")])]),
        feat::CACHE => Fields(&[
            U32("version"),
            List32(
                "caches",
                &[
                    U32("level"),
                    U32("line_size"),
                    U32("sets"),
                    U32("ways"),
                    Str("type"),
                    Str("size"),
                    Str("map"),
                ],
            ),
        ]),
        feat::SAMPLE_TIME => Fields(&[U64("first"), U64("last")]),
        feat::MEM_TOPOLOGY => Fields(&[
            U64("version"),
            U64("block_size"),
            List64(
                "nodes",
                &[U64("node"), U64("size"), Part::Bitmap64("blocks")],
            ),
        ]),
        feat::BPF_PROG_INFO | feat::BPF_BTF => {
            NotSwappable("perf 6.1 does not read it in the other byte order")
        }
        feat::COMPRESSED => Fields(&[
            U32("version"),
            U32("type"),
            U32("level"),
            U32("ratio"),
            U32("mmap_len"),
        ]),
        feat::CPU_PMU_CAPS => Fields(&[List32("caps", NAME_VALUE)]),
        feat::CLOCK_DATA => Fields(&[
            U32("version"),
            U32("clockid"),
            U64("wall_clock_ns"),
            U64("clockid_time_ns"),
        ]),
        feat::HYBRID_TOPOLOGY => Fields(&[List32("pmus", &[Str("pmu"), Str("cpus")])]),
        feat::PMU_CAPS => Fields(&[List32("pmus", &[List32("caps", NAME_VALUE), Str("pmu")])]),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_type_and_feature_perf_knows_has_a_layout() {
        for t in 0..200u32 {
            assert_eq!(record(t).is_some(), rt::info(t).is_some(), "{t}");
        }
        for bit in 1..feat::LAST_FEATURE {
            assert!(feature(bit).is_some(), "{bit}");
        }
        assert!(feature(feat::CPU_DOMAIN_INFO).is_none());
    }

    /// A table's fixed fields add up to the body length perf-abi states for the type.
    #[test]
    fn fixed_tables_match_the_stated_body_lengths() {
        fn fixed(parts: &[Part]) -> Option<u16> {
            parts.iter().try_fold(0u16, |n, p| match p {
                U16(_) => Some(n + 2),
                U32(_) => Some(n + 4),
                U64(_) => Some(n + 8),
                Bytes(b, _) => Some(n + u16::from(*b)),
                _ => None,
            })
        }
        for t in 0..100u32 {
            let (Some(RecordParts::Fields(parts)), Some(info)) = (record(t), rt::info(t)) else {
                continue;
            };
            if let rt::BodyLen::Exact(n) = info.body {
                assert_eq!(fixed(parts), Some(n), "{}", info.name);
            }
        }
        assert_eq!(fixed(MMAP2_INODE.split_last().unwrap().1), Some(64));
        assert_eq!(fixed(MMAP2_BUILD_ID.split_last().unwrap().1), Some(64));
    }
}
