//! Property tests: arbitrary event descriptions, names, ids, string headers and SAMPLE
//! records, written by perf-writer-std in either byte order and read back by
//! linux-perf-data 0.13, by tracepoint_perf 0.5's reader (little-endian only: it fails on
//! byte-swapped files that have features) and by the harness's plain-bytes parser: every
//! reader gives back the names, ids, attr fields, header strings and records that went in.
//! Refusals are part of the property: a name with a NUL or of 64 KiB, and an id already
//! used, are refused and leave the file as if never tried.
//!
//! Two facts of the readers shape the expectations:
//! - linux-perf-data reads the attr bit-field word of a big-endian file as a plain big-endian
//!   u64, which is the bit-reversal of what perf reads; it keeps only the flag, sample and
//!   read-format bits it knows; it needs PERF_SAMPLE_IDENTIFIER and one `sample_id_all` when
//!   there are several events, hardware/software/cache configs it knows, and a known clock
//!   id. It time-sorts records, so the samples have monotonic times (or none have a time).
//! - tracepoint_perf's reader decodes event names as Latin-1.

use integration_tests::fixtures::FixtureContent;
use integration_tests::{lpd, tp_reader, Endian};
use linux_perf_data::linux_perf_event_reader::{AttrFlags, ReadFormat, SampleFormat};
use perf_writer_std::EventError;
use perf_writer_std::{perf_encode, FileOutput, PerfHeaderIndex, PerfWriter, WriterError};
use proptest::prelude::*;
use std::collections::HashSet;
use std::io::Cursor;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrReadFormat, PerfEventAttrSampleType,
    PerfEventAttrSize, PerfEventAttrType,
};

const IDENTIFIER: u64 = 1 << 16;
const IP: u64 = 1 << 0;
const TID: u64 = 1 << 1;
const TIME: u64 = 1 << 2;
const READ: u64 = perf_writer_std::perf_encode::abi::sample_type::READ;
const CALLCHAIN: u64 = 1 << 5;
const FORMAT_ID: u64 = perf_writer_std::perf_encode::abi::read_format::ID;
const SAMPLE_ID_ALL: u64 = 1 << 18;
const FREQ: u64 = 1 << 10;
const PERF_SAMPLE_MAX: u64 = perf_writer_std::perf_encode::abi::sample_type::MAX;

/// An attr's fields; `type_`/`config`/`config1`/`config2` come from [`kind`].
#[derive(Clone, Debug)]
struct AttrSpec {
    type_: u32,
    config: u64,
    config1: u64,
    config2: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: u32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    aux_sample_size: u32,
    sig_data: u64,
}

/// `(type, config, config1, config2)` of an event linux-perf-data can represent.
fn kind() -> impl Strategy<Value = (u32, u64, u64, u64)> {
    prop_oneof![
        (0u64..10, any::<u32>(), any::<u64>(), any::<u64>()).prop_map(|(id, pmu, c1, c2)| (
            0,
            id | (u64::from(pmu) << 32),
            c1,
            c2
        )),
        (0u64..12, any::<u64>(), any::<u64>()).prop_map(|(c, c1, c2)| (1, c, c1, c2)),
        (0u64..7, 0u64..3, 0u64..2, any::<u32>(), any::<u64>()).prop_map(
            |(id, op, res, pmu, c1)| (
                3,
                id | (op << 8) | (res << 16) | (u64::from(pmu) << 32),
                c1,
                0
            )
        ),
        (any::<u64>(), any::<u64>()).prop_map(|(c1, c2)| (5, 0, c1, c2)),
        (
            prop_oneof![Just(4u32), 6u32..],
            any::<u64>(),
            any::<u64>(),
            any::<u64>()
        ),
    ]
}

fn attr_spec() -> impl Strategy<Value = AttrSpec> {
    (
        kind(),
        (any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>()),
        (any::<u32>(), any::<u32>(), any::<u64>(), any::<u64>()),
        (any::<u32>(), 0u32..10, any::<u64>(), any::<u32>()),
        (any::<u16>(), any::<u32>(), any::<u64>()),
    )
        .prop_map(
            |(
                (type_, config, config1, config2),
                (sample_period, sample_type, read_format, flags),
                (wakeup_events, bp_type, branch_sample_type, sample_regs_user),
                (sample_stack_user, clockid, sample_regs_intr, aux_watermark),
                (sample_max_stack, aux_sample_size, sig_data),
            )| AttrSpec {
                type_,
                config,
                config1,
                config2,
                sample_period,
                sample_type,
                read_format,
                flags,
                wakeup_events,
                bp_type,
                branch_sample_type,
                sample_regs_user,
                sample_stack_user,
                clockid,
                sample_regs_intr,
                aux_watermark,
                sample_max_stack,
                aux_sample_size,
                sig_data,
            },
        )
}

/// Event names: ASCII, any printable Unicode, and the longest accepted (0xffff bytes, of
/// 2-byte characters plus one ASCII byte).
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z][a-z0-9_:-]{0,24}",
        4 => "\\PC{1,16}",
        1 => Just(format!("{}x", "é".repeat(0x7fff))),
    ]
}

#[derive(Clone, Debug)]
struct DescSpec {
    attr: AttrSpec,
    name: String,
    nr_ids: usize,
}

/// A call that must be refused, made between the accepted ones.
#[derive(Clone, Debug)]
enum Bad {
    /// A name with a NUL inside.
    NulName(String, usize),
    /// A name of 0x10000 bytes.
    TooLong,
    /// An id of an earlier desc (index mod the ids given so far).
    UsedId(usize),
    /// The same new id twice.
    RepeatedId,
}

fn bad() -> impl Strategy<Value = Bad> {
    prop_oneof![
        ("[a-z]{0,8}", 0usize..9).prop_map(|(s, at)| Bad::NulName(s, at)),
        Just(Bad::TooLong),
        any::<usize>().prop_map(Bad::UsedId),
        Just(Bad::RepeatedId),
    ]
}

#[derive(Clone, Debug)]
struct SampleSpec {
    desc: usize,
    id: usize,
    misc: u16,
    ip: u64,
    pid: u32,
    tid: u32,
    dt: u32,
    extra: Vec<u64>,
}

fn sample_spec() -> impl Strategy<Value = SampleSpec> {
    (
        any::<usize>(),
        any::<usize>(),
        any::<u16>(),
        any::<u64>(),
        (any::<u32>(), any::<u32>(), any::<u32>()),
        prop::collection::vec(any::<u64>(), 0..8),
    )
        .prop_map(|(desc, id, misc, ip, (pid, tid, dt), extra)| SampleSpec {
            desc,
            id,
            misc,
            ip,
            pid,
            tid,
            dt,
            extra,
        })
}

/// String headers (index, value); values may hold a NUL (the header ends there).
fn string_headers() -> impl Strategy<Value = Vec<(u8, String)>> {
    let index = prop::sample::select(vec![3u8, 4, 5, 6, 8, 9]);
    prop::collection::vec((index, "\\PC{0,40}(\\x00[a-z]{0,4})?"), 0..6)
}

#[derive(Clone, Debug)]
struct Case {
    big_endian: bool,
    with_time: bool,
    sample_id_all: bool,
    id_base: u64,
    descs: Vec<DescSpec>,
    bads: Vec<(usize, Bad)>,
    strings: Vec<(u8, String)>,
    nr_cpus: Option<(u32, u32)>,
    samples: Vec<SampleSpec>,
}

fn case() -> impl Strategy<Value = Case> {
    let desc = (attr_spec(), name(), 0usize..4).prop_map(|(attr, name, nr_ids)| DescSpec {
        attr,
        name,
        nr_ids,
    });
    (
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<u64>()),
        prop::collection::vec(desc, 0..5),
        prop::collection::vec((any::<usize>(), bad()), 0..3),
        string_headers(),
        proptest::option::of((any::<u32>(), any::<u32>())),
        prop::collection::vec(sample_spec(), 0..12),
    )
        .prop_map(
            |(
                (big_endian, with_time, sample_id_all, id_base),
                descs,
                bads,
                strings,
                nr_cpus,
                samples,
            )| Case {
                big_endian,
                with_time,
                sample_id_all,
                id_base,
                descs,
                bads,
                strings,
                nr_cpus,
                samples,
            },
        )
}

fn harness_endian(big: bool) -> Endian {
    if big {
        Endian::Big
    } else {
        Endian::Little
    }
}

/// The flags word as linux-perf-data reads it from a file of this byte order.
fn lpd_flags(flags: u64, big: bool) -> u64 {
    if big {
        flags.reverse_bits()
    } else {
        flags
    }
}

/// The attr written for `spec`, adjusted to what the readers need (see the module notes).
fn make_attr(spec: &AttrSpec, case: &Case) -> PerfEventAttr {
    // Bits at or above PERF_SAMPLE_MAX are refused at the add (no reader can lay them out):
    // the arbitrary ones are kept below it.
    let mut sample_type = spec.sample_type & (PERF_SAMPLE_MAX - 1) | IDENTIFIER;
    // linux-perf-event-reader 0.10.2 multiplies a SAMPLE's callchain length by 8 unchecked
    // (a debug-build panic on the arbitrary bytes these samples carry): no CALLCHAIN.
    sample_type &= !CALLCHAIN;
    if case.with_time {
        sample_type |= TIME;
    } else {
        sample_type &= !TIME;
    }
    // READ without read_format's ID is refused at the add (perf reads an id after each READ
    // value whatever the read_format says).
    let read_format = match sample_type & READ {
        0 => spec.read_format,
        _ => spec.read_format | FORMAT_ID,
    };
    // One sample_id_all for every event, as the writer reads the flags (perf's reading) and
    // as linux-perf-data does (bit-reversed in a big-endian file).
    let both = SAMPLE_ID_ALL | lpd_flags(SAMPLE_ID_ALL, case.big_endian);
    let flags = if case.sample_id_all {
        spec.flags | both
    } else {
        spec.flags & !both
    };
    PerfEventAttr {
        attr_type: PerfEventAttrType(spec.type_),
        size: PerfEventAttrSize(0), // ignored by the writer
        config: spec.config,
        sample_time: spec.sample_period,
        sample_type: PerfEventAttrSampleType(sample_type),
        read_format: PerfEventAttrReadFormat(read_format),
        options: PerfEventAttrOptions(flags),
        wakeup_value: spec.wakeup_events,
        bp_type: spec.bp_type,
        config1: spec.config1,
        config2: spec.config2,
        branch_sample_type: spec.branch_sample_type,
        sample_regs_user: spec.sample_regs_user,
        sample_stack_user: spec.sample_stack_user,
        clockid: spec.clockid,
        sample_regs_intr: spec.sample_regs_intr,
        aux_watermark: spec.aux_watermark,
        sample_max_stack: spec.sample_max_stack,
        reserved2: 0,
        aux_sample_size: spec.aux_sample_size,
        reserved3: 0,
        sig_data: spec.sig_data,
    }
}

struct Written {
    bytes: Vec<u8>,
    /// (name, ids, attr) of the accepted descs.
    descs: Vec<(String, Vec<u64>, PerfEventAttr)>,
    /// Final value of each string header (content up to the first NUL).
    strings: Vec<(u8, String)>,
    /// (misc, body) of each SAMPLE, in file order.
    samples: Vec<(u16, Vec<u8>)>,
    /// The full bytes of each SAMPLE record.
    sample_records: Vec<Vec<u8>>,
}

fn u64_bytes(v: u64, e: Endian) -> [u8; 8] {
    match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

fn write_case(case: &Case) -> Written {
    let e = harness_endian(case.big_endian);
    let endian = if case.big_endian {
        perf_encode::Endian::Big
    } else {
        perf_encode::Endian::Little
    };
    let mut w =
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), endian)
            .expect("writer over a cursor");
    // Arbitrary record bytes after the fixed fields: the raw path, without strict mode's
    // layout checks (tests/tests/strict_mode/ covers those).
    w.set_strict(false);
    let mut next_id = case.id_base;
    let mut used: Vec<u64> = Vec::new();
    let mut descs = Vec::new();
    for (i, d) in case.descs.iter().enumerate() {
        // Calls that must be refused, made before desc i.
        for (_, b) in case
            .bads
            .iter()
            .filter(|(at, _)| at % (case.descs.len() + 1) == i)
        {
            try_bad(&mut w, b, &used, &mut next_id);
        }
        // With several events each needs an id (perf finds a record's event by it).
        let nr_ids = match case.descs.len() {
            1 => d.nr_ids,
            _ => d.nr_ids.max(1),
        };
        let ids: Vec<u64> = (0..nr_ids)
            .map(|_| {
                next_id = next_id.wrapping_add(1);
                next_id
            })
            .collect();
        let attr = make_attr(&d.attr, case);
        w.add_event_desc(&ids, &attr, &d.name)
            .unwrap_or_else(|err| panic!("desc {i} ({} bytes) refused: {err}", d.name.len()));
        used.extend_from_slice(&ids);
        descs.push((d.name.clone(), ids, attr));
    }
    for (_, b) in case
        .bads
        .iter()
        .filter(|(at, _)| at % (case.descs.len() + 1) == case.descs.len())
    {
        try_bad(&mut w, b, &used, &mut next_id);
    }

    let mut strings: Vec<(u8, String)> = Vec::new();
    for (index, value) in &case.strings {
        w.set_string_header(PerfHeaderIndex(*index), value.as_bytes())
            .unwrap();
        let content = value.split('\0').next().unwrap_or("").to_string();
        strings.retain(|(i, _)| i != index);
        strings.push((*index, content));
    }
    if let Some((available, online)) = case.nr_cpus {
        w.set_nr_cpus_header(available, online);
    }

    let mut samples = Vec::new();
    let mut sample_records = Vec::new();
    if !descs.is_empty() {
        let mut time = 1u64;
        let owners: Vec<usize> = (0..descs.len())
            .filter(|&i| !descs[i].1.is_empty())
            .collect();
        for s in &case.samples {
            // The attr readers parse the record with: its id's owner, else the first attr.
            let (owner, id) = if owners.is_empty() {
                (0, 0xdead_0000_0000_0000 | (s.id as u64 & 0xffff))
            } else {
                let d = owners[s.desc % owners.len()];
                (d, descs[d].1[s.id % descs[d].1.len()])
            };
            let st = descs[owner].2.sample_type.0;
            time += u64::from(s.dt);
            let mut body = u64_bytes(id, e).to_vec();
            if st & IP != 0 {
                body.extend_from_slice(&u64_bytes(s.ip, e));
            }
            if st & TID != 0 {
                body.extend_from_slice(&e.u32_bytes(s.pid));
                body.extend_from_slice(&e.u32_bytes(s.tid));
            }
            if st & TIME != 0 {
                body.extend_from_slice(&u64_bytes(time, e));
            }
            for x in &s.extra {
                body.extend_from_slice(&u64_bytes(*x, e));
            }
            let mut rec = e.u32_bytes(9).to_vec();
            rec.extend_from_slice(&e.u16_bytes(s.misc));
            rec.extend_from_slice(&e.u16_bytes((8 + body.len()) as u16));
            rec.extend_from_slice(&body);
            w.write_event_data(&rec)
                .expect("a whole record is accepted");
            samples.push((s.misc, body));
            sample_records.push(rec);
        }
    }
    let bytes = w.finish().expect("finish").into_inner();
    Written {
        bytes,
        descs,
        strings,
        samples,
        sample_records,
    }
}

/// Makes one call that must be refused; nothing may change.
fn try_bad(
    w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>,
    b: &Bad,
    used: &[u64],
    next_id: &mut u64,
) {
    let attr = PerfEventAttr::default();
    let fresh = next_id.wrapping_add(1_000_000);
    let (ids, name): (Vec<u64>, String) = match b {
        Bad::NulName(s, at) => {
            let at = (*at).min(s.len());
            (vec![fresh], format!("{}\0{}", &s[..at], &s[at..]))
        }
        Bad::TooLong => (vec![fresh], "n".repeat(0x10000)),
        Bad::UsedId(k) if !used.is_empty() => (vec![fresh, used[k % used.len()]], "dup".into()),
        Bad::UsedId(_) | Bad::RepeatedId => (vec![fresh, fresh], "dup".into()),
    };
    assert!(
        w.add_event_desc(&ids, &attr, &name).is_err(),
        "{b:?} accepted"
    );
    let err = w.add_event_desc(&ids, &attr, &name).unwrap_err();
    match b {
        Bad::NulName(..) | Bad::TooLong => {
            assert!(matches!(err, WriterError::Encode(_)), "{b:?}: {err:?}")
        }
        _ => assert!(
            matches!(err, WriterError::Event(EventError::DuplicateId(_))),
            "{b:?}: {err:?}"
        ),
    }
}

/// The offsets tracepoint_perf's reader derives from an attr (sample id, non-sample id,
/// sample time, non-sample time; `None`: not present), which must agree across the events of
/// a file for it to keep an event.
fn tp_offsets(a: &PerfEventAttr) -> [Option<u64>; 4] {
    const ID: u64 = 1 << 6;
    const ADDR: u64 = 1 << 3;
    const STREAM_ID: u64 = 1 << 9;
    const CPU: u64 = 1 << 7;
    let st = a.sample_type.0;
    let has = |bit: u64| u64::from(st & bit != 0);
    let (mut sample_id, mut non_sample_id) = if st & IDENTIFIER != 0 {
        (Some(8), Some(8))
    } else if st & ID == 0 {
        (None, None)
    } else {
        (
            Some(8 * (1 + has(IP) + has(TID) + has(TIME) + has(ADDR))),
            Some(8 * (1 + has(CPU) + has(STREAM_ID))),
        )
    };
    let (sample_time, mut non_sample_time) = if st & TIME == 0 {
        (None, None)
    } else {
        (
            Some(8 * (1 + has(IDENTIFIER) + has(IP) + has(TID))),
            Some(8 * (1 + has(IDENTIFIER) + has(CPU) + has(STREAM_ID) + has(ID))),
        )
    };
    if a.options.0 & SAMPLE_ID_ALL == 0 {
        non_sample_id = None;
        non_sample_time = None;
    }
    let _ = &mut sample_id;
    [sample_id, non_sample_id, sample_time, non_sample_time]
}

/// Reads `bytes` as Latin-1, as tracepoint_perf's reader decodes names.
fn latin1(s: &str) -> String {
    s.bytes().map(char::from).collect()
}

/// The `size`..`sig_data` fields of a stored attr, decoded from its bytes.
fn check_raw_attr(raw: &[u8], a: &PerfEventAttr, e: Endian) {
    assert_eq!(raw.len(), 128, "every attr is written with size 128");
    let u16_at = |p| e.u16_at(raw, p).unwrap();
    let u32_at = |p| e.u32_at(raw, p).unwrap();
    let u64_at = |p| e.u64_at(raw, p).unwrap();
    assert_eq!(u32_at(0), a.attr_type.0);
    assert_eq!(u32_at(4), 128);
    assert_eq!(u64_at(8), a.config);
    assert_eq!(u64_at(16), a.sample_time);
    assert_eq!(u64_at(24), a.sample_type.0);
    assert_eq!(u64_at(32), a.read_format.0);
    // perf's rule: the flags' little-endian bytes, each byte's bits reversed when big-endian.
    let mut flags: [u8; 8] = raw[40..48].try_into().unwrap();
    if e == Endian::Big {
        flags.iter_mut().for_each(|b| *b = b.reverse_bits());
    }
    assert_eq!(u64::from_le_bytes(flags), a.options.0);
    assert_eq!(u32_at(48), a.wakeup_value);
    assert_eq!(u32_at(52), a.bp_type);
    assert_eq!(u64_at(56), a.config1);
    assert_eq!(u64_at(64), a.config2);
    assert_eq!(u64_at(72), a.branch_sample_type);
    assert_eq!(u64_at(80), a.sample_regs_user);
    assert_eq!(u32_at(88), a.sample_stack_user);
    assert_eq!(u32_at(92), a.clockid);
    assert_eq!(u64_at(96), a.sample_regs_intr);
    assert_eq!(u32_at(104), a.aux_watermark);
    assert_eq!(u16_at(108), a.sample_max_stack);
    assert_eq!(u32_at(112), a.aux_sample_size);
    assert_eq!(u64_at(120), a.sig_data);
}

fn check_case(case: &Case) {
    let written = write_case(case);
    let e = harness_endian(case.big_endian);
    let bytes = &written.bytes;

    // linux-perf-data.
    let l = lpd::read_file(bytes).expect("linux-perf-data reads the file");
    assert_eq!(l.endian, e);
    assert!(l.feature_errors.is_empty(), "{:?}", l.feature_errors);
    if written.descs.is_empty() {
        assert_eq!(
            l.attr_names(),
            [Some(perf_writer_std::PLACEHOLDER_EVENT_NAME)]
        );
    } else {
        assert_eq!(l.attrs.len(), written.descs.len());
    }
    for (got, (name, ids, a)) in l.attrs.iter().zip(&written.descs) {
        assert_eq!(got.name.as_deref(), Some(name.as_str()));
        assert_eq!(&got.ids, ids);
        assert_eq!(got.attr_type, a.attr_type.0);
        if a.attr_type.0 != 5 {
            assert_eq!(got.config, Some(a.config), "config of {name:?}");
        }
        assert_eq!(
            got.sample_type,
            a.sample_type.0 & SampleFormat::all().bits()
        );
        assert_eq!(got.read_format, a.read_format.0 & ReadFormat::all().bits());
        let seen = lpd_flags(a.options.0, case.big_endian);
        assert_eq!(
            got.flags,
            seen & AttrFlags::all().bits(),
            "flags of {name:?}"
        );
        if seen & FREQ != 0 {
            assert_eq!(got.sample_freq, Some(a.sample_time));
        } else {
            assert_eq!(got.sample_period, Some(a.sample_time).filter(|&p| p != 0));
        }
    }
    let lpd_string = |index: u8| match index {
        3 => l.hostname.clone(),
        4 => l.os_release.clone(),
        5 => l.perf_version.clone(),
        6 => l.arch.clone(),
        8 => l.cpu_desc.clone(),
        _ => l.cpu_id.clone(),
    };
    for (index, content) in &written.strings {
        assert_eq!(
            lpd_string(*index).as_deref(),
            Some(content.as_str()),
            "feature {index}"
        );
    }
    let mut want_features: Vec<u32> = written.strings.iter().map(|(i, _)| u32::from(*i)).collect();
    want_features.push(12); // EVENT_DESC
    if case.nr_cpus.is_some() {
        want_features.push(7);
    }
    if case.big_endian && !want_features.contains(&3) {
        want_features.push(3); // perf needs HOSTNAME in a byte-swapped file
        assert!(l.hostname.is_some());
    }
    want_features.sort_unstable();
    assert_eq!(l.features, want_features);
    if let Some((available, online)) = case.nr_cpus {
        let n = l.nr_cpus.expect("NRCPUS");
        assert_eq!((n.available, n.online), (available, online));
    }
    let lpd_samples: Vec<(u16, Vec<u8>)> = l
        .records
        .iter()
        .filter(|r| r.record_type == 9)
        .map(|r| (r.misc, r.payload.clone()))
        .collect();
    assert_eq!(
        lpd_samples, written.samples,
        "SAMPLE records (linux-perf-data)"
    );
    assert_eq!(l.records.len(), written.samples.len(), "no other record");

    // The stored bytes, parsed by the harness: every attr field, both copies of the descs.
    let raw = FixtureContent::from_bytes(bytes).expect("harness parses the file");
    assert_eq!(raw.endian, e);
    let stored: Vec<_> = if written.descs.is_empty() {
        Vec::new()
    } else {
        written.descs.iter().collect()
    };
    if !stored.is_empty() {
        assert_eq!(raw.attrs.len(), stored.len());
        assert_eq!(raw.event_desc.len(), stored.len());
    }
    for ((attr, desc), (name, ids, a)) in raw.attrs.iter().zip(&raw.event_desc).zip(&stored) {
        assert_eq!(&attr.ids, ids);
        check_raw_attr(&attr.bytes, a, e);
        assert_eq!(&desc.name, name);
        assert_eq!(&desc.ids, ids);
        check_raw_attr(&desc.attr, a, e);
    }
    let raw_samples: Vec<Vec<u8>> = raw
        .records
        .iter()
        .filter(|r| r.record_type == 9)
        .map(|r| r.bytes.clone())
        .collect();
    assert_eq!(raw_samples, written.sample_records);

    // tracepoint_perf's reader (little-endian only).
    if case.big_endian {
        return;
    }
    let t = tp_reader::read_bytes(bytes).expect("tracepoint_perf reads the file");
    assert_eq!(t.endian, Endian::Little);
    let mut got: Vec<(String, Vec<u64>, u32, u64, u32, u64)> = t
        .descs
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                d.ids.clone(),
                d.attr_type,
                d.attr_config,
                d.attr_size,
                d.sample_type,
            )
        })
        .collect();
    let mut want: Vec<(String, Vec<u64>, u32, u64, u32, u64)> = if written.descs.is_empty() {
        vec![(
            perf_writer_std::PLACEHOLDER_EVENT_NAME.to_string(),
            Vec::new(),
            1,
            9,
            128,
            0,
        )]
    } else {
        // The reader keeps only the events whose id and time offsets are those of the first
        // event (its `add_attr`); the others are dropped.
        let first = written.descs.first().map(|d| tp_offsets(&d.2));
        written
            .descs
            .iter()
            .filter(|d| Some(tp_offsets(&d.2)) == first)
            .map(|(name, ids, a)| {
                (
                    latin1(name),
                    ids.clone(),
                    a.attr_type.0,
                    a.config,
                    128,
                    a.sample_type.0,
                )
            })
            .collect()
    };
    // The harness merges descs of equal name and ids (the reader lists each desc twice).
    let mut seen_desc = HashSet::new();
    want.retain(|d| seen_desc.insert((d.0.clone(), d.1.clone())));
    got.sort();
    want.sort();
    assert_eq!(got, want, "descs (tracepoint_perf)");
    let tp_string = |index: u8| match index {
        3 => t.hostname.clone(),
        4 => t.os_release.clone(),
        _ => None,
    };
    for (index, content) in written.strings.iter().filter(|(i, _)| *i == 3 || *i == 4) {
        assert_eq!(tp_string(*index).as_deref(), Some(content.as_str()));
    }
    let tp_samples: Vec<Vec<u8>> = t
        .records
        .iter()
        .filter(|r| r.record_type == 9)
        .map(|r| r.bytes.clone())
        .collect();
    assert_eq!(
        tp_samples, written.sample_records,
        "SAMPLE records (tracepoint_perf)"
    );
    let ids: HashSet<u64> = written.descs.iter().flat_map(|d| d.1.clone()).collect();
    assert_eq!(
        ids.len(),
        written.descs.iter().map(|d| d.1.len()).sum::<usize>()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn written_files_read_back_the_same(case in case()) {
        check_case(&case);
    }
}

#[test]
fn the_longest_name_is_accepted_and_one_more_byte_is_refused() {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    let attr = PerfEventAttr {
        sample_type: PerfEventAttrSampleType(IDENTIFIER),
        ..Default::default()
    };
    let longest = "a".repeat(0xffff);
    assert!(w
        .add_event_desc(&[1], &attr, &format!("{longest}b"))
        .is_err());
    w.add_event_desc(&[1], &attr, &longest).unwrap();
    assert!(w.add_event_desc(&[2], &attr, "nul\0inside").is_err());
    assert!(w.add_event_desc(&[1], &attr, "reuses id 1").is_err());
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.attr_names(), [Some(longest.as_str())]);
    let t = tp_reader::read_bytes(&bytes).unwrap();
    assert_eq!(t.descs.len(), 1);
    assert_eq!(t.descs[0].name, longest);
}
