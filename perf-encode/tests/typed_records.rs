//! Byte-for-byte round trips of the records in the real perf 6.1 recordings
//! (`tests/data/perf-6.1`): every SAMPLE, COMM, FORK, EXIT, MMAP, MMAP2, THREAD_MAP,
//! CPU_MAP, ID_INDEX and HEADER_ATTR record is decoded from perf's bytes (SAMPLEs and
//! trailers with this crate's parsers, the rest by hand), encoded again with the typed
//! encoders and the attr's layout, and must equal perf's bytes exactly.
//!
//! Because the parser and the encoder come from the same hands, the decoded values are also
//! checked against what they must mean (the tracepoint's common fields inside RAW agree with
//! TID, callchains start with a context marker and their first ip is IP, trailer times lie
//! within the recording, …), so that a field order wrong in both directions cannot pass.
#![allow(clippy::arithmetic_side_effects)] // tests: arithmetic on small known values
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// tests: helpers outside #[test] fns (parsers of perf bytes, checkers) panic on bad input, which fails the test
#![cfg(feature = "alloc")]

mod perf_recordings;

use perf_abi::{misc, record_type, sample_type, IdIndexEntry, PerfEventAttr};
use perf_encode::records::{
    id_of_non_sample, parse_sample, BranchStack, Comm, CpuMap, Exit, Fork, HeaderAttr, IdIndex,
    Mmap, Mmap2, Mmap2File, ParsedReadCounters, ParsedSample, ReadCounters, ReadValue, ReadValues,
    Regs, Sample, SampleId, SampleLayout, SampleRecord, ThreadMap, ThreadMapEntry,
};
use perf_encode::{to_vec, Endian};
use std::collections::BTreeMap;

const E: Endian = Endian::Little;
const PERF_CONTEXT_KERNEL: u64 = -128i64 as u64;
const PERF_CONTEXT_USER: u64 = -512i64 as u64;

fn fixture(name: &str) -> Vec<u8> {
    perf_recordings::read(name)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// `perf_event_attr` of `bytes` (little-endian), field by field.
fn parse_attr(bytes: &[u8]) -> PerfEventAttr {
    let mut f = [0u8; 136];
    f[..bytes.len()].copy_from_slice(bytes);
    PerfEventAttr {
        type_: u32_at(&f, 0),
        size: u32_at(&f, 4),
        config: u64_at(&f, 8),
        sample_period: u64_at(&f, 16),
        sample_type: u64_at(&f, 24),
        read_format: u64_at(&f, 32),
        flags: u64_at(&f, 40),
        wakeup_events: u32_at(&f, 48),
        bp_type: u32_at(&f, 52),
        config1: u64_at(&f, 56),
        config2: u64_at(&f, 64),
        branch_sample_type: u64_at(&f, 72),
        sample_regs_user: u64_at(&f, 80),
        sample_stack_user: u32_at(&f, 88),
        clockid: u32_at(&f, 92) as i32,
        sample_regs_intr: u64_at(&f, 96),
        aux_watermark: u32_at(&f, 104),
        sample_max_stack: u16_at(&f, 108),
        reserved_2: u16_at(&f, 110),
        aux_sample_size: u32_at(&f, 112),
        reserved_3: u32_at(&f, 116),
        sig_data: u64_at(&f, 120),
        config3: u64_at(&f, 128),
    }
}

/// A recording: its attrs with their ids, and its records (whole bytes, in order).
struct Recording {
    name: &'static str,
    attrs: Vec<(PerfEventAttr, Vec<u64>)>,
    records: Vec<Vec<u8>>,
}

/// Splits `data` into records; HEADER_TRACING_DATA's payload outside `header.size` is
/// kept with its record.
fn split_records(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let type_ = u32_at(data, pos);
        let size = usize::from(u16_at(data, pos + 6));
        assert!(size >= 8);
        let mut len = size;
        if type_ == record_type::HEADER_TRACING_DATA {
            len += (u32_at(data, pos + 8) as usize + 7) & !7;
        }
        out.push(data[pos..pos + len].to_vec());
        pos += len;
    }
    assert_eq!(pos, data.len());
    out
}

fn load_file(name: &'static str) -> Recording {
    let b = fixture(name);
    assert_eq!(&b[..8], b"PERFILE2");
    let attr_size = u64_at(&b, 16) as usize;
    let (ao, asz) = (u64_at(&b, 24) as usize, u64_at(&b, 32) as usize);
    let (d_off, d_size) = (u64_at(&b, 40) as usize, u64_at(&b, 48) as usize);
    let attrs = (0..asz / attr_size)
        .map(|i| {
            let at = &b[ao + i * attr_size..ao + (i + 1) * attr_size];
            let attr = parse_attr(&at[..attr_size - 16]);
            let (io, is) = (
                u64_at(at, attr_size - 16) as usize,
                u64_at(at, attr_size - 8) as usize,
            );
            let ids = (0..is / 8).map(|k| u64_at(&b, io + 8 * k)).collect();
            (attr, ids)
        })
        .collect();
    Recording {
        name,
        attrs,
        records: split_records(&b[d_off..d_off + d_size]),
    }
}

fn load_pipe(name: &'static str) -> Recording {
    let b = fixture(name);
    assert_eq!(&b[..8], b"PERFILE2");
    assert_eq!(u64_at(&b, 8), 16);
    let records = split_records(&b[16..]);
    let attrs = records
        .iter()
        .filter(|r| u32_at(r, 0) == record_type::HEADER_ATTR)
        .map(|r| {
            let size = u32_at(r, 12) as usize;
            let attr = parse_attr(&r[8..8 + size]);
            let ids = (8 + size..r.len())
                .step_by(8)
                .map(|p| u64_at(r, p))
                .collect();
            (attr, ids)
        })
        .collect();
    Recording {
        name,
        attrs,
        records,
    }
}

fn recordings() -> Vec<Recording> {
    vec![
        load_file("sched_switch.data"),
        load_file("cpu_clock.data"),
        load_pipe("pipe_sched.data"),
    ]
}

impl Recording {
    /// The layout every non-SAMPLE record's trailer follows (perf requires the attrs to
    /// agree on it; checked).
    fn trailer_layout(&self) -> SampleLayout {
        let first = SampleLayout::from_attr(&self.attrs[0].0);
        for (a, _) in &self.attrs {
            let l = SampleLayout::from_attr(a);
            assert_eq!(l.sample_id_bits(), first.sample_id_bits(), "{}", self.name);
        }
        first
    }

    /// The attr a SAMPLE belongs to: by its id, or the only attr.
    fn attr_of_sample(&self, record: &[u8]) -> &PerfEventAttr {
        if self.attrs.len() == 1 {
            return &self.attrs[0].0;
        }
        let l = SampleLayout::from_attr(&self.attrs[0].0);
        let at = l
            .sample_id_offset()
            .expect("several attrs: samples carry an id");
        let id = u64_at(record, at);
        &self
            .attrs
            .iter()
            .find(|(_, ids)| ids.contains(&id))
            .unwrap_or_else(|| panic!("{}: sample id {id} of no attr", self.name))
            .0
    }

    fn all_ids(&self) -> Vec<u64> {
        self.attrs.iter().flat_map(|(_, ids)| ids.clone()).collect()
    }
}

/// The name at `bytes[at..end]`, up to its NUL; the rest must be zeros.
fn name_at(bytes: &[u8], at: usize, end: usize) -> &[u8] {
    let field = &bytes[at..end];
    let nul = field.iter().position(|&b| b == 0).expect("NUL-terminated");
    assert!(field[nul..].iter().all(|&b| b == 0), "zero padding");
    &field[..nul]
}

/// A SAMPLE as an encoder input, from the parsed record (owning the variable parts).
struct OwnedSample {
    callchain: Option<Vec<u64>>,
    read_group: Vec<ReadValue>,
    regs_user: Option<(u64, Vec<u64>)>,
    regs_intr: Option<(u64, Vec<u64>)>,
    branches: Vec<perf_encode::records::BranchEntry>,
}

fn owned(p: &ParsedSample<'_>) -> OwnedSample {
    OwnedSample {
        callchain: p.callchain.map(|c| c.iter().collect()),
        read_group: match p.read.map(|r| r.counters) {
            Some(ParsedReadCounters::Group(g)) => g.iter().collect(),
            _ => Vec::new(),
        },
        regs_user: p.regs_user.map(|r| (r.abi, r.regs.iter().collect())),
        regs_intr: p.regs_intr.map(|r| (r.abi, r.regs.iter().collect())),
        branches: p
            .branch_stack
            .map(|b| b.iter().collect())
            .unwrap_or_default(),
    }
}

fn to_sample<'a>(p: &ParsedSample<'a>, o: &'a OwnedSample) -> Sample<'a> {
    Sample {
        identifier: p.identifier,
        ip: p.ip,
        tid: p.tid,
        time: p.time,
        addr: p.addr,
        id: p.id,
        stream_id: p.stream_id,
        cpu: p.cpu,
        period: p.period,
        read: p.read.map(|r| ReadValues {
            time_enabled: r.time_enabled,
            time_running: r.time_running,
            counters: match r.counters {
                ParsedReadCounters::One(v) => ReadCounters::One(v),
                ParsedReadCounters::Group(_) => ReadCounters::Group(&o.read_group),
            },
        }),
        callchain: o.callchain.as_deref(),
        raw: p.raw,
        branch_stack: p.branch_stack.map(|b| BranchStack {
            hw_idx: b.hw_idx,
            entries: &o.branches,
        }),
        regs_user: o
            .regs_user
            .as_ref()
            .map(|(abi, regs)| Regs { abi: *abi, regs }),
        stack_user: p.stack_user,
        weight: p.weight,
        weight_struct: p.weight_struct,
        data_src: p.data_src,
        transaction: p.transaction,
        regs_intr: o
            .regs_intr
            .as_ref()
            .map(|(abi, regs)| Regs { abi: *abi, regs }),
        phys_addr: p.phys_addr,
        cgroup: p.cgroup,
        data_page_size: p.data_page_size,
        code_page_size: p.code_page_size,
        aux: p.aux,
    }
}

/// Checks that a parsed SAMPLE means what it must (the parser reads fields in the right
/// order), for the two kinds of attr in the fixtures.
fn check_sample_meaning(rec: &Recording, attr: &PerfEventAttr, p: &ParsedSample<'_>) {
    if rec.attrs.len() > 1 {
        assert!(
            rec.all_ids().contains(&p.event_id().unwrap()),
            "{}",
            rec.name
        );
    }
    let tid = p.tid.expect("fixtures sample TID");
    assert!(p.time.unwrap() > 0);
    if let Some(raw) = p.raw {
        // A tracepoint: common_type (u16) is the attr's config, common_pid (i32 at 4) the pid.
        assert_eq!(u64::from(u16_at(raw, 0)), attr.config, "{}", rec.name);
        assert_eq!(u32_at(raw, 4), tid.tid, "{}", rec.name);
        assert_eq!(p.period, Some(1));
        assert!(p.cpu.unwrap().cpu < 2 && p.cpu.unwrap().res == 0);
    }
    if let Some(chain) = p.callchain {
        let first = chain.get(0).unwrap();
        assert!(first == PERF_CONTEXT_KERNEL || first == PERF_CONTEXT_USER);
        assert_eq!(chain.get(1), p.ip, "{}: first callchain ip is IP", rec.name);
        let kernel = p.misc & misc::CPUMODE_MASK == misc::KERNEL;
        assert_eq!(first == PERF_CONTEXT_KERNEL, kernel);
        assert!(p.period.unwrap() > 0);
    }
}

/// Checks a trailer's meaning: times are 0 in perf's synthesized records and within the
/// recording otherwise; an identifier is one of the recording's ids.
fn check_trailer(rec: &Recording, sid: &SampleId, times: (u64, u64)) {
    if let Some(t) = sid.time {
        assert!(t == 0 || (t >= times.0 - 1_000_000_000 && t <= times.1 + 1_000_000_000));
    }
    if let Some(id) = sid.identifier {
        assert!(
            id == 0 || rec.all_ids().contains(&id),
            "{}: id {id}",
            rec.name
        );
    }
    if let Some(c) = sid.cpu {
        assert!(c.cpu < 2 && c.res == 0);
    }
}

#[derive(Default)]
struct Counts(BTreeMap<u32, usize>);

#[test]
fn every_record_of_the_typed_kinds_round_trips() {
    let mut total = Counts::default();
    for rec in recordings() {
        let tl = rec.trailer_layout();
        let tlen = tl.sample_id_len();
        // The time range of the recording, from its samples.
        let sample_times: Vec<u64> = rec
            .records
            .iter()
            .filter(|r| u32_at(r, 0) == record_type::SAMPLE)
            .map(|r| {
                let l = SampleLayout::from_attr(rec.attr_of_sample(r));
                parse_sample(&l, E, r).unwrap().time.unwrap()
            })
            .collect();
        let times = (
            *sample_times.iter().min().unwrap(),
            *sample_times.iter().max().unwrap(),
        );
        for r in &rec.records {
            let type_ = u32_at(r, 0);
            let misc_ = u16_at(r, 4);
            let size = r.len();
            let trailer = || {
                let sid = id_of_non_sample(&tl, E, r).unwrap();
                check_trailer(&rec, &sid, times);
                sid
            };
            let ours = match type_ {
                record_type::SAMPLE => {
                    let attr = rec.attr_of_sample(r);
                    let layout = SampleLayout::from_attr(attr);
                    let p = parse_sample(&layout, E, r).unwrap();
                    assert_eq!(p.len, size);
                    assert_eq!(layout.sample_len(r, E), Ok(size));
                    check_sample_meaning(&rec, attr, &p);
                    let o = owned(&p);
                    let s = to_sample(&p, &o);
                    to_vec(
                        &SampleRecord {
                            layout: &layout,
                            sample: &s,
                            misc: misc_,
                        },
                        E,
                    )
                    .unwrap()
                }
                record_type::COMM => {
                    assert_eq!(misc_ & !misc::COMM_EXEC, 0);
                    let c = Comm {
                        layout: &tl,
                        pid: u32_at(r, 8),
                        tid: u32_at(r, 12),
                        comm: name_at(r, 16, size - tlen),
                        exec: misc_ & misc::COMM_EXEC != 0,
                        sample_id: trailer(),
                    };
                    to_vec(&c, E).unwrap()
                }
                record_type::FORK | record_type::EXIT => {
                    let (pid, ppid, tid, ptid, time) = (
                        u32_at(r, 8),
                        u32_at(r, 12),
                        u32_at(r, 16),
                        u32_at(r, 20),
                        u64_at(r, 24),
                    );
                    assert_eq!(size, 32 + tlen);
                    let sample_id = trailer();
                    if type_ == record_type::FORK {
                        to_vec(
                            &Fork {
                                layout: &tl,
                                misc: misc_,
                                pid,
                                ppid,
                                tid,
                                ptid,
                                time,
                                sample_id,
                            },
                            E,
                        )
                        .unwrap()
                    } else {
                        to_vec(
                            &Exit {
                                layout: &tl,
                                misc: misc_,
                                pid,
                                ppid,
                                tid,
                                ptid,
                                time,
                                sample_id,
                            },
                            E,
                        )
                        .unwrap()
                    }
                }
                record_type::MMAP => to_vec(
                    &Mmap {
                        layout: &tl,
                        misc: misc_,
                        pid: u32_at(r, 8),
                        tid: u32_at(r, 12),
                        addr: u64_at(r, 16),
                        len: u64_at(r, 24),
                        pgoff: u64_at(r, 32),
                        filename: name_at(r, 40, size - tlen),
                        sample_id: trailer(),
                    },
                    E,
                )
                .unwrap(),
                record_type::MMAP2 => {
                    let file = if misc_ & misc::MMAP_BUILD_ID != 0 {
                        let n = usize::from(r[40]);
                        Mmap2File::BuildId(&r[44..44 + n])
                    } else {
                        Mmap2File::Inode {
                            maj: u32_at(r, 40),
                            min: u32_at(r, 44),
                            ino: u64_at(r, 48),
                            ino_generation: u64_at(r, 56),
                        }
                    };
                    to_vec(
                        &Mmap2 {
                            layout: &tl,
                            misc: misc_,
                            pid: u32_at(r, 8),
                            tid: u32_at(r, 12),
                            addr: u64_at(r, 16),
                            len: u64_at(r, 24),
                            pgoff: u64_at(r, 32),
                            file,
                            prot: u32_at(r, 64),
                            flags: u32_at(r, 68),
                            filename: name_at(r, 72, size - tlen),
                            sample_id: trailer(),
                        },
                        E,
                    )
                    .unwrap()
                }
                record_type::THREAD_MAP => {
                    let nr = u64_at(r, 8) as usize;
                    let entries: Vec<ThreadMapEntry> = (0..nr)
                        .map(|i| ThreadMapEntry {
                            pid: u64_at(r, 16 + 24 * i),
                            comm: r[24 + 24 * i..40 + 24 * i].try_into().unwrap(),
                        })
                        .collect();
                    to_vec(&ThreadMap { entries: &entries }, E).unwrap()
                }
                record_type::CPU_MAP => {
                    let kind = u16_at(r, 8);
                    let words: Vec<u16>;
                    let masks32: Vec<u32>;
                    let masks64: Vec<u64>;
                    let map = match kind {
                        0 => {
                            let nr = usize::from(u16_at(r, 10));
                            words = (0..nr).map(|i| u16_at(r, 12 + 2 * i)).collect();
                            CpuMap::Cpus(&words)
                        }
                        1 if u16_at(r, 12) == 4 => {
                            let nr = usize::from(u16_at(r, 10));
                            masks32 = (0..nr).map(|i| u32_at(r, 14 + 4 * i)).collect();
                            CpuMap::Mask32(&masks32)
                        }
                        1 => {
                            let nr = usize::from(u16_at(r, 10));
                            masks64 = (0..nr).map(|i| u64_at(r, 18 + 8 * i)).collect();
                            CpuMap::Mask64(&masks64)
                        }
                        2 => CpuMap::Range {
                            any_cpu: r[10] != 0,
                            start: u16_at(r, 12),
                            end: u16_at(r, 14),
                        },
                        k => panic!("CPU_MAP type {k}"),
                    };
                    if kind == 2 {
                        // The recording machine has 2 cpus, and perf wrote 0-1 as a range.
                        assert_eq!(map, CpuMap::from_sorted(&[0, 1]));
                    }
                    to_vec(&map, E).unwrap()
                }
                record_type::ID_INDEX => {
                    let nr = u64_at(r, 8) as usize;
                    let entries: Vec<IdIndexEntry> = (0..nr)
                        .map(|i| IdIndexEntry {
                            id: u64_at(r, 16 + 32 * i),
                            idx: u64_at(r, 24 + 32 * i),
                            cpu: u64_at(r, 32 + 32 * i),
                            tid: u64_at(r, 40 + 32 * i),
                        })
                        .collect();
                    to_vec(&IdIndex { entries: &entries }, E).unwrap()
                }
                record_type::HEADER_ATTR => {
                    let asz = u32_at(r, 12) as usize;
                    let attr = parse_attr(&r[8..8 + asz]);
                    let ids: Vec<u64> = (8 + asz..size).step_by(8).map(|p| u64_at(r, p)).collect();
                    to_vec(
                        &HeaderAttr {
                            attr: &attr,
                            ids: &ids,
                        },
                        E,
                    )
                    .unwrap()
                }
                _ => continue,
            };
            assert_eq!(
                ours, *r,
                "{}: record type {type_} misc {misc_:#x} differs",
                rec.name
            );
            *total.0.entry(type_).or_default() += 1;
        }
    }
    // Every kind of record the fixtures hold, in the numbers they hold them.
    let expect = [
        (record_type::MMAP, 3),
        (record_type::COMM, 145),
        (record_type::EXIT, 3),
        (record_type::FORK, 141),
        (record_type::SAMPLE, 31 + 52 + 38),
        (record_type::MMAP2, 90 + 4 + 85),
        (record_type::ID_INDEX, 3),
        (record_type::THREAD_MAP, 3),
        (record_type::CPU_MAP, 3),
        (record_type::HEADER_ATTR, 3),
    ];
    assert_eq!(total.0, expect.into_iter().collect::<BTreeMap<_, _>>());
}

#[test]
fn fixture_samples_have_raw_and_callchains() {
    // The two SAMPLE shapes the round trip covers: RAW (tracepoints) and CALLCHAIN.
    let s = load_file("sched_switch.data");
    let c = load_file("cpu_clock.data");
    assert!(s.attrs[0].0.sample_type & sample_type::RAW != 0);
    assert!(c.attrs[0].0.sample_type & sample_type::CALLCHAIN != 0);
    assert!(c.attrs[0].0.sample_type & sample_type::IDENTIFIER == 0);
    let layout = SampleLayout::from_attr(&c.attrs[0].0);
    let longest = c
        .records
        .iter()
        .filter(|r| u32_at(r, 0) == record_type::SAMPLE)
        .map(|r| {
            parse_sample(&layout, E, r)
                .unwrap()
                .callchain
                .unwrap()
                .len()
        })
        .max()
        .unwrap();
    assert!(longest > 3, "some callchain has several frames");
}

#[test]
fn fixture_records_refused_with_a_wrong_layout() {
    // A layout that is not the record's: the parser reports it, the bytes are not misread.
    let s = load_file("sched_switch.data");
    let sample = s
        .records
        .iter()
        .find(|r| u32_at(r, 0) == record_type::SAMPLE)
        .unwrap();
    let mut layout = SampleLayout::from_attr(&s.attrs[0].0);
    layout.sample_type |= sample_type::ADDR;
    assert!(parse_sample(&layout, E, sample).is_err());
    layout.sample_type &= !(sample_type::ADDR | sample_type::RAW);
    assert!(matches!(
        parse_sample(&layout, E, sample),
        Err(perf_encode::records::ParseError::SizeMismatch {
            header_size: 128,
            implied: 56,
            ..
        })
    ));
}
