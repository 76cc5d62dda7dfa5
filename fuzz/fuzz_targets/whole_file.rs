//! An arbitrary sequence of `PerfDataFileWriter` calls (the `tracepoint_perf` 0.5 face, and the
//! native writer behind it) over a `Cursor` (descs with arbitrary
//! ids, names and attrs; string, NRCPUS and raw feature headers; records built from arbitrary
//! fields, whole or split across calls; invalid records that must be refused; FINISHED_ROUND
//! and FINISHED_INIT; early finishes that must fail), maybe compressed with zstd in either
//! form, then `finish`, then linux-perf-data's
//! `PerfFileReader::parse_file` on the bytes: the attrs (names, ids, fields), the features
//! and the records that come back are the ones that went in, SAMPLE records byte for byte and
//! in order.
//!
//! What linux-perf-data needs to read a file is kept: several events all carry
//! PERF_SAMPLE_IDENTIFIER and one `sample_id_all`; hardware, software and cache events use
//! configs it knows; `clockid` is a clock it knows; all SAMPLE records have a time (monotonic)
//! or none do, so its time sort keeps file order. It reads the attr bit-field word of a
//! big-endian file as a plain big-endian u64, that is bit-reversed relative to perf's reading;
//! the expected flags account for that.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use linux_perf_data::linux_perf_event_reader::{
    AttrFlags, BranchSampleFormat, PerfClock, PerfEventType, ReadFormat, SampleFormat,
    SamplingPolicy, WakeupPolicy,
};
use linux_perf_data::{Endianness, Feature, PerfFileReader, PerfFileRecord};
use perf_abi::{attr_flags, feature, read_format, record_type, sample_type, PerfEventAttr};
use perf_data_fuzz::{ref_header_string, ref_u16, ref_u32, ref_u64, ArbEndian, Name};
use perf_encode::{c_str_prefix, Endian};
use perf_writer_std::{
    Compression, CompressionForm, FileOutput, PerfDataFileWriter, PerfHeaderIndex, PerfWriter,
    WriterError, PLACEHOLDER_EVENT_NAME,
};
use perf_writer_std::{EventError, OutputError, RecordError, TracingError};
use std::collections::{BTreeMap, HashSet};
use std::io::Cursor;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Kind {
    Hardware { id: u8, pmu: u32 },
    Software(u8),
    Tracepoint(u64),
    HwCache { id: u8, op: u8, res: u8, pmu: u32 },
    Breakpoint,
    Dynamic { type_: u32, config: u64 },
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct ArbAttr {
    kind: Kind,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: u8,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    aux_sample_size: u32,
    sig_data: u64,
    size: u32,
}

#[derive(Arbitrary, Debug)]
enum DescName {
    Name(Name),
    /// A name with a NUL at `at` (mod its length + 1): refused.
    WithNul(String, u8),
}

#[derive(Arbitrary, Debug)]
enum Op {
    AddDesc {
        ids: Vec<u64>,
        /// Also use an id already given (or repeat one of `ids`): refused.
        reuse: Option<u8>,
        attr: ArbAttr,
        name: DescName,
        with_reason: bool,
        /// System of a tracepoint (one of three).
        system: u8,
    },
    SetString {
        index: u8,
        value: Vec<u8>,
    },
    SetNrCpus(u32, u32),
    SetRaw {
        index: u8,
        data: Vec<u8>,
    },
    Sample {
        desc: u16,
        id: u8,
        misc: u16,
        ip: u64,
        pid: u32,
        tid: u32,
        dt: u16,
        extra: Vec<u64>,
        /// Write it in two calls, cut here (mod its length); try to finish in between.
        split: Option<(u16, bool)>,
    },
    Other {
        type_: u32,
        misc: u16,
        words: Vec<u64>,
    },
    /// A header whose size is not a multiple of 8 (or below 8), maybe after a valid record in
    /// the same call: refused, nothing written.
    Invalid {
        type_: u32,
        size: u16,
        after_valid: bool,
    },
    FinishedRound,
    FinishedInit,
    /// Records (as `Other`) written with one `write_event_data_vectored` call, cut into
    /// slices at arbitrary points; with `bad_tail`, a bad header ends the last slice and the
    /// whole call is refused.
    Vectored {
        records: Vec<(u32, u16, Vec<u64>)>,
        cuts: Vec<u16>,
        bad_tail: bool,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    endian: ArbEndian,
    with_time: bool,
    sample_id_all: bool,
    /// zstd compression (level 1 to 3; aligned or perf's form) set before the ops.
    compression: Option<(u8, bool)>,
    ops: Vec<Op>,
}

/// How a feature was set, for checking what comes back.
#[derive(Debug, Clone)]
enum Set {
    String(Vec<u8>),
    Cmdline(Vec<u8>),
    NrCpus(u32, u32),
    Raw,
}

struct Desc {
    name: String,
    ids: Vec<u64>,
    attr: PerfEventAttr,
}

struct Model {
    e: Endian,
    descs: Vec<Desc>,
    used: HashSet<u64>,
    /// Tracepoint format ids added.
    formats: HashSet<u32>,
    /// Feature index -> expected payload.
    features: BTreeMap<u8, (Vec<u8>, Set)>,
    /// (attr index, misc, body) of each SAMPLE, in order.
    samples: Vec<(usize, u16, Vec<u8>)>,
    /// Counts of the other records by type (FINISHED_ROUND is consumed by the reader).
    others: BTreeMap<u32, u64>,
    time: u64,
    data_len: u64,
    /// The writer compresses: `data_len` counts the records before compression, and the
    /// writer fills HEADER_COMPRESSED.
    compressed: bool,
    /// In perf's form, which compresses the FINISHED_ROUND records it does not write in
    /// their place: linux-perf-data returns those as user records.
    perf_form: bool,
    /// FINISHED_ROUND records written.
    rounds: u64,
}

/// The attr the fuzzer asks for, adjusted to what linux-perf-data can represent.
fn make_attr(a: &ArbAttr, with_time: bool, sample_id_all: bool, e: Endian) -> PerfEventAttr {
    let (type_, config) = match a.kind {
        Kind::Hardware { id, pmu } => (0, u64::from(id % 10) | (u64::from(pmu) << 32)),
        Kind::Software(c) => (1, u64::from(c % 12)),
        // A tracefs ID is a u16 (the writer refuses larger ones: perf 6.1 crashes on them).
        Kind::Tracepoint(c) => (2, u64::from(c as u16)),
        Kind::HwCache { id, op, res, pmu } => (
            3,
            u64::from(id % 7)
                | (u64::from(op % 3) << 8)
                | (u64::from(res % 2) << 16)
                | (u64::from(pmu) << 32),
        ),
        Kind::Breakpoint => (5, 0),
        Kind::Dynamic { type_, config } => {
            (if type_ <= 3 || type_ == 5 { 4 } else { type_ }, config)
        }
    };
    let mut st = a.sample_type | sample_type::IDENTIFIER;
    if with_time {
        st |= sample_type::TIME;
    } else {
        st &= !sample_type::TIME;
    }
    // One sample_id_all for all attrs, as perf (and the writer) read the flags and as
    // linux-perf-data does (bit-reversed in a big-endian file).
    let both = attr_flags::SAMPLE_ID_ALL | lpd_flags(attr_flags::SAMPLE_ID_ALL, e);
    let flags = if sample_id_all {
        a.flags | both
    } else {
        a.flags & !both
    };
    PerfEventAttr {
        type_,
        size: a.size,
        config,
        sample_period: a.sample_period,
        sample_type: st,
        read_format: a.read_format,
        flags,
        wakeup_events: a.wakeup_events,
        bp_type: a.bp_type,
        config1: a.config1,
        config2: a.config2,
        branch_sample_type: a.branch_sample_type,
        sample_regs_user: a.sample_regs_user,
        sample_stack_user: a.sample_stack_user,
        clockid: i32::from(a.clockid % 10),
        sample_regs_intr: a.sample_regs_intr,
        aux_watermark: a.aux_watermark,
        sample_max_stack: a.sample_max_stack,
        reserved_2: 0,
        aux_sample_size: a.aux_sample_size,
        reserved_3: 0,
        sig_data: a.sig_data,
        config3: 0,
    }
}

/// The bit-field word linux-perf-data reads from a file of byte order `e` (an involution).
fn lpd_flags(flags: u64, e: Endian) -> u64 {
    if e.is_big() {
        flags.reverse_bits()
    } else {
        flags
    }
}

fn record_bytes(type_: u32, misc: u16, body: &[u8], e: Endian) -> Vec<u8> {
    let mut v = ref_u32(type_, e).to_vec();
    v.extend_from_slice(&ref_u16(misc, e));
    v.extend_from_slice(&ref_u16((8 + body.len()) as u16, e));
    v.extend_from_slice(body);
    v
}

/// A non-SAMPLE record: its type (types with a payload outside `header.size`, compressed
/// data and FINISHED_ROUND, which the reader consumes, are replaced by COMM) and its bytes.
fn other_record(type_: u32, misc: u16, words: &[u64], e: Endian) -> (u32, Vec<u8>) {
    let type_ = match type_ {
        9 | 66 | 68 | 71 | 81 | 83 => 3,
        t => t,
    };
    let body: Vec<u8> = words.iter().take(64).flat_map(|&x| ref_u64(x, e)).collect();
    (type_, record_bytes(type_, misc, &body, e))
}

/// A tracefs format text with id `id`.
fn format_text(id: u32) -> String {
    format!(
        "name: ev{id}\nID: {id}\nformat:\n\
         \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
         \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
         \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
         \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
         \tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n\
         print fmt: \"value=%d\", REC->value\n"
    )
}

fn is_refused(e: &std::io::Error) -> bool {
    matches!(
        WriterError::from_io(e),
        Some(WriterError::Record(RecordError::Framing(_)))
    )
}

fuzz_target!(|input: Input| {
    let e = input.endian.endian();
    let native = PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e);
    let mut w = PerfDataFileWriter::from(native.unwrap());
    // Sample bodies are arbitrary words, not laid out by the attr: the raw path, without
    // strict mode (on by default; its checks are tested in tests/tests/strict_mode/ and
    // fuzzed by the api_sequence target).
    w.set_strict(false);
    assert_eq!(w.endian(), e);
    let compression = input.compression.map(|(level, aligned)| Compression {
        level: 1 + i32::from(level % 3),
        form: if aligned {
            CompressionForm::Aligned
        } else {
            CompressionForm::PerfStream
        },
    });
    w.set_compression(compression)
        .expect("levels 1 to 3 are zstd's");
    let mut m = Model {
        e,
        descs: Vec::new(),
        used: HashSet::new(),
        formats: HashSet::new(),
        features: BTreeMap::new(),
        samples: Vec::new(),
        others: BTreeMap::new(),
        time: 1,
        data_len: 0,
        compressed: compression.is_some(),
        perf_form: compression.is_some_and(|c| c.form == CompressionForm::PerfStream),
        rounds: 0,
    };
    // Where the data section starts: after the header and, once a record went out, the
    // recovery block (its length is the writer's).
    let mut data_start: Option<u64> = None;
    for op in &input.ops {
        apply(&mut w, &mut m, op, &input);
        if !m.compressed {
            let start = w.file_pos().expect("open") - m.data_len;
            assert!(start >= 104, "file_pos after {op:?}");
            match data_start {
                Some(s) => assert_eq!(start, s, "file_pos after {op:?}"),
                None if m.data_len > 0 => data_start = Some(start),
                None => {}
            }
        }
    }
    let cursor = w.finish().expect("finish at a record boundary succeeds");
    assert!(w.file_pos().is_none());
    assert!(w.finish().is_err(), "a finished writer is closed");
    let bytes = cursor.into_inner();
    if let Some(start) = data_start {
        let offset: [u8; 8] = bytes[40..48].try_into().unwrap();
        let offset = match e.is_big() {
            true => u64::from_be_bytes(offset),
            false => u64::from_le_bytes(offset),
        };
        assert_eq!(offset, start, "the header's data offset");
    }
    check_file(&bytes, &m);
});

fn apply(w: &mut PerfDataFileWriter<Cursor<Vec<u8>>>, m: &mut Model, op: &Op, input: &Input) {
    let e = m.e;
    match op {
        Op::AddDesc {
            ids,
            reuse,
            attr,
            name,
            with_reason,
            system,
        } => {
            let mut ids: Vec<u64> = ids.iter().take(16).copied().collect();
            if let Some(k) = reuse {
                let pool: Vec<u64> = m.used.iter().copied().chain(ids.iter().copied()).collect();
                if !pool.is_empty() {
                    let mut sorted = pool;
                    sorted.sort_unstable();
                    ids.push(sorted[usize::from(*k) % sorted.len()]);
                }
            }
            let name = match name {
                DescName::Name(n) => n.text(),
                DescName::WithNul(s, at) => {
                    let cut = s
                        .char_indices()
                        .map(|(i, _)| i)
                        .nth(usize::from(*at))
                        .unwrap_or(s.len());
                    format!("{}\0{}", &s[..cut], &s[cut..])
                }
            };
            let a = make_attr(attr, input.with_time, input.sample_id_all, e);
            let td_attr = tracepoint_decode::PerfEventAttr::try_from(&a).unwrap();
            // The expected outcome: name checks first, then the first reused id, then (for a
            // tracepoint) a format id added before.
            let mut seen = HashSet::new();
            let dup = ids
                .iter()
                .copied()
                .find(|id| m.used.contains(id) || !seen.insert(*id));
            // EventEntry::check: the name, sample_type bits below PERF_SAMPLE_MAX, and READ
            // only with read_format's ID.
            let name_ok = name.len() <= 0xffff
                && !name.as_bytes().contains(&0)
                && a.sample_type < sample_type::MAX
                && (a.sample_type & sample_type::READ == 0 || a.read_format & read_format::ID != 0);
            let tracepoint = (a.type_ == 2).then_some(a.config as u32);
            let dup_format = tracepoint.filter(|id| m.formats.contains(id));
            // With several events perf tells records apart by id alone.
            let no_id =
                !m.descs.is_empty() && (ids.is_empty() || m.descs.iter().any(|d| d.ids.is_empty()));
            let r: Result<(), WriterError> = match tracepoint {
                // perf refuses a tracepoint without its format: tracepoints come with one.
                Some(id) => {
                    let system = ["fuzz", "sched", "syscalls"][usize::from(*system % 3)];
                    w.add_tracepoint_event_desc_from_text(
                        &ids,
                        &td_attr,
                        &name,
                        system,
                        &format_text(id),
                    )
                    .map(|f| assert_eq!(f.id(), id))
                }
                None if *with_reason => w.native_mut().add_event_desc(&ids, &td_attr, &name),
                None => {
                    if w.add_event_desc(&ids, &td_attr, &name) {
                        Ok(())
                    } else {
                        Err(WriterError::Output(OutputError::NotOpen)) // the reason is not told
                    }
                }
            };
            let reason_told = tracepoint.is_some() || *with_reason;
            match (&r, name_ok, dup, no_id, dup_format) {
                (Ok(()), true, None, false, None) => {}
                (Err(_), _, _, _, _) if !reason_told => {}
                (Err(WriterError::Encode(_)), false, _, _, _) => {}
                (Err(WriterError::Event(EventError::DuplicateId(d))), true, Some(want), _, _) => {
                    assert_eq!(*d, want)
                }
                (
                    Err(WriterError::Event(EventError::Indistinguishable(_))),
                    true,
                    None,
                    true,
                    _,
                ) => {}
                (
                    Err(WriterError::Tracing(TracingError::DuplicateFormat(f))),
                    true,
                    None,
                    false,
                    Some(want),
                ) => {
                    assert_eq!(*f, want)
                }
                _ => panic!(
                    "add desc: {r:?} (name ok {name_ok}, dup {dup:?}, no id {no_id}, \
                     format {dup_format:?})"
                ),
            }
            let accepted = r.is_ok();
            assert_eq!(
                accepted,
                name_ok && dup.is_none() && !no_id && dup_format.is_none(),
                "add_event_desc"
            );
            if accepted {
                m.formats.extend(tracepoint);
                m.used.extend(ids.iter().copied());
                m.descs.push(Desc { name, ids, attr: a });
            }
        }
        Op::SetString { index, value } => {
            let index = match index % 10 {
                0 => feature::HOSTNAME,
                1 => feature::OSRELEASE,
                2 => feature::VERSION,
                3 => feature::ARCH,
                4 => feature::CPUDESC,
                5 => feature::CPUID,
                6 => feature::CMDLINE,
                _ => *index,
            };
            let ok = w.set_string_header(PerfHeaderIndex(index), value);
            let content = c_str_prefix(value).to_vec();
            let expected = match index {
                feature::CMDLINE => {
                    let mut v = ref_u32(1, e).to_vec();
                    v.extend(ref_header_string(&content, e));
                    Some((v, Set::Cmdline(content)))
                }
                3..=6 | 8 | 9 => Some((ref_header_string(&content, e), Set::String(content))),
                _ => None,
            };
            assert_eq!(ok, expected.is_some(), "set_string_header({index})");
            if let Some(x) = expected {
                assert_eq!(w.get_header(PerfHeaderIndex(index)), x.0.as_slice());
                m.features.insert(index, x);
            }
        }
        &Op::SetNrCpus(available, online) => {
            w.set_nr_cpus_header(available, online);
            let v = [ref_u32(available, e), ref_u32(online, e)].concat();
            m.features
                .insert(feature::NRCPUS, (v, Set::NrCpus(available, online)));
        }
        Op::SetRaw { index, data } => {
            // EVENT_DESC and TRACING_DATA set by hand would replace the synthesized ones.
            let index = match *index {
                feature::EVENT_DESC | feature::TRACING_DATA => feature::TOTAL_MEM,
                i => i,
            };
            let ok = w.set_header(PerfHeaderIndex(index), data);
            // Payloads perf would not read are refused (the checker is perf-encode's).
            let readable = data.is_empty()
                || perf_encode::features::check_feature_payload(index, e, data).is_ok();
            assert_eq!(
                ok,
                (1..=31).contains(&index) && readable,
                "set_header({index})"
            );
            if ok {
                if data.is_empty() {
                    m.features.remove(&index);
                } else {
                    m.features.insert(index, (data.clone(), Set::Raw));
                }
                assert_eq!(w.get_header(PerfHeaderIndex(index)), data.as_slice());
            }
        }
        Op::Sample {
            desc,
            id,
            misc,
            ip,
            pid,
            tid,
            dt,
            extra,
            split,
        } => {
            if m.descs.is_empty() {
                return;
            }
            // The attr linux-perf-data will parse the record with: the owner of its id, or the
            // first attr when the id belongs to none.
            let with_ids: Vec<usize> = (0..m.descs.len())
                .filter(|&i| !m.descs[i].ids.is_empty())
                .collect();
            let (attr_index, sid) = if with_ids.is_empty() {
                let mut sid = 0xdead_0000_0000_0000u64;
                while m.used.contains(&sid) {
                    sid += 1;
                }
                (0, sid)
            } else {
                let d = with_ids[usize::from(*desc) % with_ids.len()];
                let ids = &m.descs[d].ids;
                (d, ids[usize::from(*id) % ids.len()])
            };
            let st = m.descs[attr_index].attr.sample_type;
            m.time += u64::from(*dt);
            let mut body = Vec::new();
            body.extend_from_slice(&ref_u64(sid, e)); // IDENTIFIER
            if st & sample_type::IP != 0 {
                body.extend_from_slice(&ref_u64(*ip, e));
            }
            if st & sample_type::TID != 0 {
                body.extend_from_slice(&ref_u32(*pid, e));
                body.extend_from_slice(&ref_u32(*tid, e));
            }
            if st & sample_type::TIME != 0 {
                body.extend_from_slice(&ref_u64(m.time, e));
            }
            for x in extra.iter().take(64) {
                body.extend_from_slice(&ref_u64(*x, e));
            }
            let rec = record_bytes(9, *misc, &body, e);
            match split {
                Some((cut, try_finish)) => {
                    let cut = usize::from(*cut) % rec.len();
                    w.write_event_data(&rec[..cut])
                        .expect("a record prefix is accepted");
                    if *try_finish && cut > 0 {
                        // The writer knows it is inside a record (finish would drop it).
                        assert_eq!(w.partial_record_len(), cut as u64);
                    }
                    w.write_event_data(&rec[cut..])
                        .expect("the rest is accepted");
                }
                None => w
                    .write_event_data(&rec)
                    .expect("a whole record is accepted"),
            }
            m.data_len += rec.len() as u64;
            m.samples.push((attr_index, *misc, body));
        }
        Op::Other { type_, misc, words } => {
            let (type_, rec) = other_record(*type_, *misc, words, e);
            w.write_event_data(&rec)
                .expect("a whole record is accepted");
            m.data_len += rec.len() as u64;
            *m.others.entry(type_).or_insert(0) += 1;
        }
        Op::Vectored {
            records,
            cuts,
            bad_tail,
        } => {
            let mut bytes = Vec::new();
            let mut types = Vec::new();
            for (type_, misc, words) in records.iter().take(16) {
                let (type_, rec) = other_record(*type_, *misc, words, e);
                bytes.extend(rec);
                types.push(type_);
            }
            if *bad_tail {
                bytes.extend(record_bytes(3, 0, &[], e));
                let n = bytes.len();
                bytes[n - 2..].copy_from_slice(&ref_u16(12, e)); // size 12: not a multiple of 8
            }
            let mut points: Vec<usize> = cuts
                .iter()
                .take(8)
                .map(|&c| usize::from(c) % (bytes.len() + 1))
                .collect();
            points.push(0);
            points.push(bytes.len());
            points.sort_unstable();
            let slices: Vec<std::io::IoSlice<'_>> = points
                .windows(2)
                .map(|p| std::io::IoSlice::new(&bytes[p[0]..p[1]]))
                .collect();
            let r = w.write_event_data_vectored(&slices);
            if *bad_tail {
                let err = r.expect_err("a vectored write ending in a bad header is refused");
                assert!(is_refused(&err), "refused with {err:?}");
            } else {
                assert_eq!(r.expect("whole records are accepted"), bytes.len());
                m.data_len += bytes.len() as u64;
                for t in types {
                    *m.others.entry(t).or_insert(0) += 1;
                }
            }
        }
        Op::Invalid {
            type_,
            size,
            after_valid,
        } => {
            // Types perf writes unpadded (perf-abi's table) may have any size: use another.
            let unpadded = record_type::info(*type_)
                .is_some_and(|i| i.framing == record_type::Framing::Unpadded);
            let type_ = if unpadded { 9 } else { *type_ };
            let size = if *size >= 8 && size % 8 == 0 {
                size | 1
            } else {
                *size
            };
            let mut bad = Vec::new();
            if *after_valid {
                bad.extend(record_bytes(3, 0, &[0; 8], e));
            }
            bad.extend_from_slice(&ref_u32(type_, e));
            bad.extend_from_slice(&[0, 0]);
            bad.extend_from_slice(&ref_u16(size, e));
            let err = w.write_event_data(&bad).expect_err("invalid size refused");
            assert!(is_refused(&err), "refused with {err:?}");
        }
        Op::FinishedRound => {
            w.write_finished_round().unwrap();
            m.data_len += 8;
            m.rounds += 1;
        }
        Op::FinishedInit => {
            w.write_finished_init().unwrap();
            m.data_len += 8;
            *m.others.entry(82).or_insert(0) += 1;
        }
    }
}

fn type_and_config(t: &PerfEventType) -> (u32, u64, Option<(u64, u64)>) {
    match *t {
        PerfEventType::Hardware(id, pmu) => {
            // HardwareEventId is in kernel order.
            let n = format!("{id:?}");
            let ids = [
                "CpuCycles",
                "Instructions",
                "CacheReferences",
                "CacheMisses",
                "BranchInstructions",
                "BranchMisses",
                "BusCycles",
                "StalledCyclesFrontend",
                "StalledCyclesBackend",
                "RefCpuCycles",
            ];
            let c = ids.iter().position(|x| *x == n).expect("known id") as u64;
            (0, c | (u64::from(pmu.0) << 32), None)
        }
        PerfEventType::Software(c) => {
            let n = format!("{c:?}");
            let names = [
                "CpuClock",
                "TaskClock",
                "PageFaults",
                "ContextSwitches",
                "CpuMigrations",
                "PageFaultsMin",
                "PageFaultsMaj",
                "AlignmentFaults",
                "EmulationFaults",
                "Dummy",
                "BpfOutput",
                "CgroupSwitches",
            ];
            (
                1,
                names.iter().position(|x| *x == n).expect("known") as u64,
                None,
            )
        }
        PerfEventType::Tracepoint(c) => (2, c, None),
        PerfEventType::HwCache(id, op, res, pmu) => {
            let ids = ["L1d", "L1i", "Ll", "Dtlb", "Itlb", "Bpu", "Node"];
            let ops = ["Read", "Write", "Prefetch"];
            let ress = ["Access", "Miss"];
            let pos = |l: &[&str], s: String| l.iter().position(|x| *x == s).unwrap() as u64;
            let c = pos(&ids, format!("{id:?}"))
                | (pos(&ops, format!("{op:?}")) << 8)
                | (pos(&ress, format!("{res:?}")) << 16)
                | (u64::from(pmu.0) << 32);
            (3, c, None)
        }
        PerfEventType::Breakpoint(_, addr, len) => (5, 0, Some((addr.0, len.0))),
        PerfEventType::DynamicPmu(t, c, c1, c2) => (t, c, Some((c1, c2))),
    }
}

fn check_attr(
    got: &linux_perf_data::linux_perf_event_reader::PerfEventAttr,
    a: &PerfEventAttr,
    e: Endian,
) {
    let seen = lpd_flags(a.flags, e);
    let (t, c, extra) = type_and_config(&got.type_);
    assert_eq!((t, c), (a.type_, a.config), "type and config");
    if let Some((c1, c2)) = extra {
        assert_eq!((c1, c2), (a.config1, a.config2), "config1, config2");
    }
    assert_eq!(
        got.sample_format.bits(),
        a.sample_type & SampleFormat::all().bits()
    );
    assert_eq!(
        got.read_format.bits(),
        a.read_format & ReadFormat::all().bits()
    );
    assert_eq!(got.flags.bits(), seen & AttrFlags::all().bits(), "flags");
    assert_eq!(
        got.branch_sample_format.bits(),
        a.branch_sample_type & BranchSampleFormat::all().bits()
    );
    let policy = if seen & attr_flags::FREQ != 0 {
        format!("{:?}", SamplingPolicy::Frequency(a.sample_period))
    } else if let Some(p) = std::num::NonZeroU64::new(a.sample_period) {
        format!("{:?}", SamplingPolicy::Period(p))
    } else {
        format!("{:?}", SamplingPolicy::NoSampling)
    };
    assert_eq!(format!("{:?}", got.sampling_policy), policy);
    let wakeup = if seen & attr_flags::WATERMARK != 0 {
        WakeupPolicy::Watermark(a.wakeup_events)
    } else {
        WakeupPolicy::EventCount(a.wakeup_events)
    };
    assert_eq!(format!("{:?}", got.wakeup_policy), format!("{wakeup:?}"));
    let uses_clockid = seen & attr_flags::USE_CLOCKID != 0;
    assert_eq!(matches!(got.clock, PerfClock::ClockId(_)), uses_clockid);
    assert_eq!(got.sample_regs_user, a.sample_regs_user);
    assert_eq!(got.sample_stack_user, a.sample_stack_user);
    assert_eq!(got.sample_regs_intr, a.sample_regs_intr);
    assert_eq!(got.aux_watermark, a.aux_watermark);
    assert_eq!(got.sample_max_stack, a.sample_max_stack);
    assert_eq!(got.aux_sample_size, a.aux_sample_size);
    assert_eq!(got.sig_data, a.sig_data);
}

/// PERF_RECORD_COMPRESSED records in the data section of a file-mode `bytes` (an AUXTRACE
/// record's payload, which follows it outside its size, is stepped over).
fn compressed_records(bytes: &[u8], e: Endian) -> usize {
    let u64_at = |at: usize| -> usize {
        let b: [u8; 8] = bytes[at..at + 8].try_into().unwrap();
        (if e.is_big() {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        }) as usize
    };
    let (start, len) = (u64_at(40), u64_at(48));
    let (mut pos, mut n) = (start, 0);
    while pos + 8 <= start + len {
        let t: [u8; 4] = bytes[pos..pos + 4].try_into().unwrap();
        let z: [u8; 2] = bytes[pos + 6..pos + 8].try_into().unwrap();
        let (rtype, size) = match e.is_big() {
            true => (u32::from_be_bytes(t), u16::from_be_bytes(z)),
            false => (u32::from_le_bytes(t), u16::from_le_bytes(z)),
        };
        assert!(size >= 8, "a record of size {size} at {pos}");
        n += usize::from(rtype == record_type::COMPRESSED);
        let payload = match rtype {
            record_type::AUXTRACE => u64_at(pos + 8),
            _ => 0,
        };
        pos += usize::from(size) + payload;
    }
    n
}

fn check_file(bytes: &[u8], m: &Model) {
    let e = m.e;
    let magic: &[u8] = if e.is_big() { b"2ELIFREP" } else { b"PERFILE2" };
    assert_eq!(&bytes[..8], magic);
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(Cursor::new(bytes)).expect("linux-perf-data parses the file");
    let endian = match perf_file.endian() {
        Endianness::LittleEndian => Endian::Little,
        Endianness::BigEndian => Endian::Big,
    };
    assert_eq!(endian, e);

    // Attrs: the descs, in order, or the placeholder.
    let attrs = perf_file.event_attributes();
    if m.descs.is_empty() {
        assert_eq!(attrs.len(), 1);
        assert_eq!(attrs[0].name.as_deref(), Some(PLACEHOLDER_EVENT_NAME));
        assert!(attrs[0].event_ids.is_empty());
    } else {
        assert_eq!(attrs.len(), m.descs.len());
        for (got, want) in attrs.iter().zip(&m.descs) {
            assert_eq!(got.name.as_deref(), Some(want.name.as_str()));
            assert_eq!(got.event_ids, want.ids);
            check_attr(&got.attr, &want.attr, e);
        }
    }

    // Features: what was set, EVENT_DESC, TRACING_DATA for tracepoints, HOSTNAME when
    // big-endian.
    let mut want: BTreeMap<u32, Option<&(Vec<u8>, Set)>> = m
        .features
        .iter()
        .map(|(&i, v)| (u32::from(i), Some(v)))
        .collect();
    want.insert(u32::from(feature::EVENT_DESC), None);
    if m.descs.iter().any(|d| d.attr.type_ == 2) {
        want.entry(u32::from(feature::TRACING_DATA)).or_insert(None);
    }
    if e.is_big() {
        want.entry(u32::from(feature::HOSTNAME)).or_insert(None);
    }
    if m.compressed && compressed_records(bytes, e) > 0 {
        // The writer's own HEADER_COMPRESSED replaces any set by hand; when no record went
        // out compressed (none shrank), what the caller set stays, or nothing.
        want.insert(u32::from(feature::COMPRESSED), None);
    }
    let got: Vec<u32> = perf_file.features().iter().map(|f| f.0).collect();
    assert_eq!(
        got,
        want.keys().copied().collect::<Vec<_>>(),
        "feature bits"
    );
    for (&index, v) in &want {
        let Some((payload, how)) = v else { continue };
        let data = perf_file
            .feature_section_data(Feature(index))
            .expect("present");
        assert_eq!(data, payload.as_slice(), "payload of feature {index}");
        let text = |c: &[u8]| std::str::from_utf8(c).ok().map(str::to_owned);
        match how {
            Set::String(content) => {
                let r = match index as u8 {
                    feature::HOSTNAME => perf_file.hostname(),
                    feature::OSRELEASE => perf_file.os_release(),
                    feature::VERSION => perf_file.perf_version(),
                    feature::ARCH => perf_file.arch(),
                    feature::CPUDESC => perf_file.cpu_desc(),
                    _ => perf_file.cpu_id(),
                };
                assert_eq!(r.ok().flatten().map(str::to_owned), text(content));
            }
            Set::Cmdline(content) => {
                let r = perf_file.cmdline();
                let got = r.ok().flatten().map(|l| l.join("\u{1}"));
                assert_eq!(got, text(content));
            }
            &Set::NrCpus(available, online) => {
                let n = perf_file.nr_cpus().expect("NRCPUS reads").expect("present");
                assert_eq!((n.nr_cpus_available, n.nr_cpus_online), (available, online));
            }
            Set::Raw => {}
        }
    }

    // Records.
    let mut samples = Vec::new();
    let mut others: BTreeMap<u32, u64> = BTreeMap::new();
    while let Some(r) = record_iter
        .next_record(&mut perf_file)
        .expect("linux-perf-data reads every record")
    {
        match r {
            PerfFileRecord::EventRecord { attr_index, record } => {
                if record.record_type.0 == 9 {
                    samples.push((attr_index, record.misc, record.data.as_slice().into_owned()));
                } else {
                    *others.entry(record.record_type.0).or_insert(0) += 1;
                }
            }
            PerfFileRecord::UserRecord(record) => {
                *others
                    .entry(record.record_type.record_type().0)
                    .or_insert(0) += 1;
            }
        }
    }
    assert_eq!(samples.len(), m.samples.len(), "SAMPLE count");
    let mut want = m.samples.clone();
    if m.compressed {
        // linux-perf-data 0.13 sorts records by (time, file offset), and a record it
        // decompressed has no file offset: samples of equal times in different COMPRESSED
        // records may come back in another order. The same samples come back.
        samples.sort();
        want.sort();
    }
    for (i, (got, want)) in samples.iter().zip(&want).enumerate() {
        assert_eq!(got, want, "SAMPLE {i}");
    }
    if m.perf_form {
        let inside = others.remove(&68).unwrap_or(0);
        assert!(
            inside <= m.rounds,
            "{inside} of {} rounds returned",
            m.rounds
        );
    }
    assert_eq!(others, m.others, "other records by type");
}
