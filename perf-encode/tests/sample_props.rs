//! Properties of the SAMPLE encoder and parser, and of the `sample_id` trailer:
//! arbitrary layouts with matching samples encode, parse back to the same fields, and have
//! the length the layout implies; a sample missing a field or carrying an extra one is
//! refused; arbitrary bytes never make a parser panic.
#![allow(clippy::arithmetic_side_effects)] // tests: arithmetic on small known values
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// tests: helpers outside #[test] fns (generators, checkers) panic on bad input, which fails the test
#![cfg(feature = "alloc")]

use perf_abi::sample_type::SAMPLE_ID_BITS;
use perf_abi::{read_format, record_type, sample_type};
use perf_encode::records::{
    id_of_non_sample, parse_sample, BranchEntry, BranchStack, Exit, ParsedReadCounters, ParsedRegs,
    PidTid, ReadCounters, ReadValue, ReadValues, Regs, Sample, SampleCpu, SampleId, SampleLayout,
    SampleRecord, StackUser, WeightStruct,
};
use perf_encode::{to_vec, EncodeError, Endian};
use proptest::prelude::*;

/// Every `sample_type` bit perf 6.1 knows.
const ALL_SAMPLE_BITS: u64 = sample_type::MAX - 1;

fn endian() -> impl Strategy<Value = Endian> {
    prop_oneof![Just(Endian::Little), Just(Endian::Big)]
}

fn layout() -> impl Strategy<Value = SampleLayout> {
    (
        0..=ALL_SAMPLE_BITS,
        0u64..32,
        0u32..6,
        0u32..6,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(sample_type, read_format, regs_user, regs_intr, branch_hw_index, sample_id_all)| {
                SampleLayout {
                    sample_type,
                    read_format,
                    regs_user,
                    regs_intr,
                    branch_hw_index,
                    sample_id_all,
                }
            },
        )
}

/// Values for every field a sample may have; [`Pool::sample`] picks those a layout has.
#[derive(Clone, Debug)]
struct Pool {
    words: Vec<u64>,
    group: Vec<ReadValue>,
    callchain: Vec<u64>,
    raw: Vec<u8>,
    branches: Vec<BranchEntry>,
    regs_user: Vec<u64>,
    regs_intr: Vec<u64>,
    abi_user: u64,
    abi_intr: u64,
    stack: Vec<u8>,
    dyn_size: u64,
    aux: Vec<u8>,
}

fn pool() -> impl Strategy<Value = Pool> {
    (
        proptest::collection::vec(any::<u64>(), 24),
        // A READ group has its leader at least (perf refuses one of no counter).
        proptest::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 1..5),
        proptest::collection::vec(any::<u64>(), 0..8),
        proptest::collection::vec(any::<u8>(), 0..40),
        proptest::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 0..5),
        proptest::collection::vec(any::<u64>(), 5),
        proptest::collection::vec(any::<u64>(), 5),
        (0u64..3, 0u64..3),
        proptest::collection::vec(any::<u8>(), 0..40),
        any::<u64>(),
        proptest::collection::vec(any::<u8>(), 0..24),
    )
        .prop_map(
            |(
                words,
                group,
                callchain,
                raw,
                br,
                ru,
                ri,
                (abi_user, abi_intr),
                stack,
                dyn_size,
                aux,
            )| {
                Pool {
                    words,
                    group: group
                        .into_iter()
                        .map(|(value, id, lost)| ReadValue {
                            value,
                            id: Some(id),
                            lost: Some(lost),
                        })
                        .collect(),
                    callchain,
                    raw,
                    branches: br
                        .into_iter()
                        .map(|(from, to, flags)| BranchEntry { from, to, flags })
                        .collect(),
                    regs_user: ru,
                    regs_intr: ri,
                    abi_user,
                    abi_intr,
                    // At most the stack's size as written (padded to 8): perf refuses more.
                    dyn_size: dyn_size % (stack.len().div_ceil(8) as u64 * 8 + 1),
                    stack,
                    aux,
                }
            },
        )
}

/// The read values `rf` lays out, from the pool.
struct Read {
    one: ReadValue,
    group: Vec<ReadValue>,
}

fn read_values(p: &Pool, rf: u64) -> Read {
    let fix = |v: &ReadValue| ReadValue {
        value: v.value,
        id: v.id.filter(|_| rf & read_format::ID != 0),
        lost: v.lost.filter(|_| rf & read_format::LOST != 0),
    };
    Read {
        one: fix(&ReadValue {
            value: p.words[20],
            id: Some(p.words[21]),
            lost: Some(p.words[22]),
        }),
        group: p.group.iter().map(fix).collect(),
    }
}

impl Pool {
    /// The sample `l` lays out, every field drawn from the pool.
    fn sample<'a>(&'a self, l: &SampleLayout, read: &'a Read) -> Sample<'a> {
        let has = |bit: u64| l.sample_type & bit != 0;
        let w = |i: usize, bit: u64| has(bit).then_some(self.words[i]);
        let rf = l.read_format;
        let structured = has(sample_type::WEIGHT_STRUCT);
        let n_user = if self.abi_user == 0 {
            0
        } else {
            l.regs_user as usize
        };
        let n_intr = if self.abi_intr == 0 {
            0
        } else {
            l.regs_intr as usize
        };
        Sample {
            identifier: w(0, sample_type::IDENTIFIER),
            ip: w(1, sample_type::IP),
            tid: has(sample_type::TID).then_some(PidTid {
                pid: self.words[2] as u32,
                tid: (self.words[2] >> 32) as u32,
            }),
            time: w(3, sample_type::TIME),
            addr: w(4, sample_type::ADDR),
            id: w(5, sample_type::ID),
            stream_id: w(6, sample_type::STREAM_ID),
            cpu: has(sample_type::CPU).then_some(SampleCpu {
                cpu: self.words[7] as u32,
                res: (self.words[7] >> 32) as u32,
            }),
            period: w(8, sample_type::PERIOD),
            read: has(sample_type::READ).then_some(ReadValues {
                time_enabled: (rf & read_format::TOTAL_TIME_ENABLED != 0).then_some(self.words[9]),
                time_running: (rf & read_format::TOTAL_TIME_RUNNING != 0).then_some(self.words[10]),
                counters: if rf & read_format::GROUP != 0 {
                    ReadCounters::Group(&read.group)
                } else {
                    ReadCounters::One(read.one)
                },
            }),
            callchain: has(sample_type::CALLCHAIN).then_some(&self.callchain[..]),
            raw: has(sample_type::RAW).then_some(&self.raw[..]),
            branch_stack: has(sample_type::BRANCH_STACK).then_some(BranchStack {
                hw_idx: l.branch_hw_index.then_some(self.words[11]),
                entries: &self.branches,
            }),
            regs_user: has(sample_type::REGS_USER).then_some(Regs {
                abi: self.abi_user,
                regs: &self.regs_user[..n_user],
            }),
            stack_user: has(sample_type::STACK_USER).then_some(StackUser {
                data: &self.stack,
                dyn_size: self.dyn_size,
            }),
            weight: (has(sample_type::WEIGHT) && !structured).then_some(self.words[12]),
            weight_struct: structured.then_some(WeightStruct::from_u64(self.words[12])),
            data_src: w(13, sample_type::DATA_SRC),
            transaction: w(14, sample_type::TRANSACTION),
            regs_intr: has(sample_type::REGS_INTR).then_some(Regs {
                abi: self.abi_intr,
                regs: &self.regs_intr[..n_intr],
            }),
            phys_addr: w(15, sample_type::PHYS_ADDR),
            cgroup: w(16, sample_type::CGROUP),
            data_page_size: w(17, sample_type::DATA_PAGE_SIZE),
            code_page_size: w(18, sample_type::CODE_PAGE_SIZE),
            aux: has(sample_type::AUX).then_some(&self.aux[..]),
        }
    }
}

/// `data` zero-padded to `len`.
fn padded(data: &[u8], len: usize) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(len, 0);
    v
}

fn regs_eq(parsed: Option<ParsedRegs<'_>>, given: Option<Regs<'_>>) -> bool {
    match (parsed, given) {
        (None, None) => true,
        (Some(p), Some(g)) => p.abi == g.abi && p.regs.iter().eq(g.regs.iter().copied()),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn samples_round_trip(l in layout(), p in pool(), e in endian(), misc in any::<u16>()) {
        let read = read_values(&p, l.read_format);
        let s = p.sample(&l, &read);
        let bytes = to_vec(&SampleRecord { layout: &l, sample: &s, misc }, e).unwrap();
        prop_assert_eq!(bytes.len() % 8, 0);
        prop_assert_eq!(l.sample_len(&bytes, e), Ok(bytes.len()));
        let q = parse_sample(&l, e, &bytes).unwrap();
        prop_assert_eq!(q.len, bytes.len());
        prop_assert_eq!(q.misc, misc);
        prop_assert_eq!(
            (q.identifier, q.ip, q.tid, q.time, q.addr, q.id, q.stream_id, q.cpu, q.period),
            (s.identifier, s.ip, s.tid, s.time, s.addr, s.id, s.stream_id, s.cpu, s.period)
        );
        prop_assert_eq!(
            (q.weight, q.weight_struct, q.data_src, q.transaction, q.phys_addr, q.cgroup),
            (s.weight, s.weight_struct, s.data_src, s.transaction, s.phys_addr, s.cgroup)
        );
        prop_assert_eq!((q.data_page_size, q.code_page_size), (s.data_page_size, s.code_page_size));
        match (q.read, s.read) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                prop_assert_eq!((a.time_enabled, a.time_running), (b.time_enabled, b.time_running));
                match (a.counters, b.counters) {
                    (ParsedReadCounters::One(x), ReadCounters::One(y)) => prop_assert_eq!(x, y),
                    (ParsedReadCounters::Group(x), ReadCounters::Group(y)) => {
                        prop_assert_eq!(x.len(), y.len());
                        prop_assert!(x.iter().eq(y.iter().copied()));
                    }
                    _ => prop_assert!(false, "read kinds differ"),
                }
            }
            _ => prop_assert!(false, "read presence differs"),
        }
        prop_assert_eq!(
            q.callchain.map(|c| c.iter().collect::<Vec<_>>()),
            s.callchain.map(<[u64]>::to_vec)
        );
        // RAW: the size counts padding to make 4 + size a multiple of 8.
        prop_assert_eq!(
            q.raw.map(<[u8]>::to_vec),
            s.raw.map(|r| padded(r, ((r.len() + 4 + 7) & !7) - 4))
        );
        match (q.branch_stack, s.branch_stack) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                prop_assert_eq!(a.hw_idx, b.hw_idx);
                prop_assert!(a.iter().eq(b.entries.iter().copied()));
            }
            _ => prop_assert!(false, "branch stack presence differs"),
        }
        prop_assert!(regs_eq(q.regs_user, s.regs_user));
        prop_assert!(regs_eq(q.regs_intr, s.regs_intr));
        prop_assert_eq!(
            q.stack_user.map(|st| (st.data.to_vec(), st.dyn_size)),
            s.stack_user.map(|st| (padded(st.data, (st.data.len() + 7) & !7), st.dyn_size))
        );
        prop_assert_eq!(
            q.aux.map(<[u8]>::to_vec),
            s.aux.map(|a| padded(a, (a.len() + 7) & !7))
        );
        // Re-encoding a masked copy of the sample gives the same bytes.
        let again = s.masked(&l);
        prop_assert_eq!(to_vec(&SampleRecord { layout: &l, sample: &again, misc }, e).unwrap(), bytes);
    }

    #[test]
    fn a_missing_or_extra_field_is_refused(l in layout(), p in pool(), bit in 0u32..25) {
        let read = read_values(&p, l.read_format);
        let s = p.sample(&l, &read);
        let flipped = SampleLayout { sample_type: l.sample_type ^ (1 << bit), ..l };
        let result = to_vec(&SampleRecord { layout: &flipped, sample: &s, misc: 0 }, Endian::Little);
        // Flipping WEIGHT under WEIGHT_STRUCT changes nothing: the same 8 bytes.
        let weight_alias = 1u64 << bit == sample_type::WEIGHT && l.has(sample_type::WEIGHT_STRUCT);
        if !weight_alias {
            prop_assert!(
                matches!(result, Err(EncodeError::MissingField { record: "SAMPLE", .. })
                    | Err(EncodeError::UnexpectedField { record: "SAMPLE", .. })),
                "{result:?}"
            );
        }
    }

    #[test]
    fn trailers_round_trip(l in layout(), words in proptest::collection::vec(any::<u64>(), 8), e in endian()) {
        let all = SampleId {
            tid: Some(PidTid { pid: words[0] as u32, tid: (words[0] >> 32) as u32 }),
            time: Some(words[1]),
            id: Some(words[2]),
            stream_id: Some(words[3]),
            cpu: Some(SampleCpu { cpu: words[4] as u32, res: (words[4] >> 32) as u32 }),
            identifier: Some(words[2]),
        };
        let sid = all.masked(&l);
        let exit = Exit { layout: &l, misc: 0, pid: 1, ppid: 2, tid: 3, ptid: 4, time: words[5], sample_id: sid };
        let bytes = to_vec(&exit, e).unwrap();
        prop_assert_eq!(bytes.len(), 32 + l.sample_id_len());
        prop_assert_eq!(l.sample_id_len(), (l.sample_type & SAMPLE_ID_BITS).count_ones() as usize * 8 * usize::from(l.sample_id_all));
        prop_assert_eq!(id_of_non_sample(&l, e, &bytes), Ok(sid));
        if let Some(off) = l.trailer_id_offset_from_end() {
            let at = bytes.len() - off;
            let w: [u8; 8] = bytes[at..at + 8].try_into().unwrap();
            let v = if e == Endian::Big { u64::from_be_bytes(w) } else { u64::from_le_bytes(w) };
            prop_assert_eq!(Some(v), sid.event_id());
        }
        // The full trailer is refused unless the layout has every field.
        let full = Exit { sample_id: all, ..exit };
        if l.sample_id_bits() != SAMPLE_ID_BITS {
            let unexpected = matches!(to_vec(&full, e), Err(EncodeError::UnexpectedField { record: "EXIT", .. }));
            prop_assert!(unexpected);
        }
    }

    #[test]
    fn parsers_never_panic_on_bytes(l in layout(), bytes in proptest::collection::vec(any::<u8>(), 0..256), e in endian()) {
        let _ = l.sample_len(&bytes, e);
        let _ = parse_sample(&l, e, &bytes);
        let _ = id_of_non_sample(&l, e, &bytes);
        // As a SAMPLE with a plausible header.
        let mut b = bytes.clone();
        if b.len() >= 8 {
            b[..4].copy_from_slice(&e_bytes32(e, record_type::SAMPLE));
            let size = (b.len() as u16) & !7;
            b[6..8].copy_from_slice(&e_bytes16(e, size));
            let _ = parse_sample(&l, e, &b);
            let _ = id_of_non_sample(&l, e, &b);
        }
    }

    #[test]
    fn parsers_never_panic_on_damaged_samples(
        l in layout(), p in pool(), e in endian(), damage in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6), cut in any::<usize>()
    ) {
        let read = read_values(&p, l.read_format);
        let s = p.sample(&l, &read);
        let mut bytes = to_vec(&SampleRecord { layout: &l, sample: &s, misc: 0 }, e).unwrap();
        for (at, v) in damage {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        let cut = cut % (bytes.len() + 1);
        let _ = l.sample_len(&bytes[..cut], e);
        let _ = parse_sample(&l, e, &bytes[..cut]);
        let _ = parse_sample(&l, e, &bytes);
        let _ = id_of_non_sample(&l, e, &bytes);
    }
}

fn e_bytes32(e: Endian, v: u32) -> [u8; 4] {
    e.u32_bytes(v)
}

fn e_bytes16(e: Endian, v: u16) -> [u8; 2] {
    e.u16_bytes(v)
}

#[test]
fn regs_count_and_abi_are_checked() {
    let l = SampleLayout {
        sample_type: sample_type::REGS_USER,
        regs_user: 2,
        ..Default::default()
    };
    let regs = [1u64, 2, 3];
    let s = |abi, n| Sample {
        regs_user: Some(Regs {
            abi,
            regs: &regs[..n],
        }),
        ..Default::default()
    };
    let enc = |s: &Sample<'_>| {
        to_vec(
            &SampleRecord {
                layout: &l,
                sample: s,
                misc: 0,
            },
            Endian::Little,
        )
    };
    assert_eq!(enc(&s(2, 2)).unwrap().len(), 8 + 24);
    assert_eq!(enc(&s(0, 0)).unwrap().len(), 8 + 8);
    assert_eq!(
        enc(&s(2, 3)),
        Err(EncodeError::FieldCount {
            record: "SAMPLE",
            field: "regs_user.regs",
            expected: 2,
            actual: 3
        })
    );
    assert!(enc(&s(0, 1)).is_err());
}

/// Counts perf refuses a SAMPLE for (it stops processing the file there): a READ group of no
/// counter, a user stack whose `dyn_size` is more than its size. The encoder refuses them, and
/// the parser refuses the bytes.
#[test]
fn counts_perf_refuses_are_refused() {
    let group = SampleLayout {
        sample_type: sample_type::IDENTIFIER | sample_type::READ,
        read_format: read_format::GROUP,
        ..SampleLayout::default()
    };
    let read = ReadValues {
        time_enabled: None,
        time_running: None,
        counters: ReadCounters::Group(&[]),
    };
    let s = Sample {
        identifier: Some(1),
        read: Some(read),
        ..Sample::default()
    };
    let encoded = to_vec(
        &SampleRecord {
            layout: &group,
            sample: &s,
            misc: 0,
        },
        Endian::Little,
    );
    assert!(
        matches!(encoded, Err(EncodeError::InvalidValue { .. })),
        "{encoded:?}"
    );
    // IDENTIFIER 1, nr 0.
    let mut bytes = vec![9, 0, 0, 0, 0, 0, 24, 0];
    bytes.extend_from_slice(&1u64.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    assert!(parse_sample(&group, Endian::Little, &bytes).is_err());

    let stack = SampleLayout {
        sample_type: sample_type::IDENTIFIER | sample_type::STACK_USER,
        ..SampleLayout::default()
    };
    let data = [0u8; 8];
    for (dyn_size, ok) in [(8, true), (9, false)] {
        let s = Sample {
            identifier: Some(1),
            stack_user: Some(StackUser {
                data: &data,
                dyn_size,
            }),
            ..Sample::default()
        };
        let encoded = to_vec(
            &SampleRecord {
                layout: &stack,
                sample: &s,
                misc: 0,
            },
            Endian::Little,
        );
        assert_eq!(encoded.is_ok(), ok, "{encoded:?}");
        // IDENTIFIER 1, size 8, 8 bytes, dyn_size.
        let mut bytes = vec![9, 0, 0, 0, 0, 0, 40, 0];
        for w in [1u64, 8, 0, dyn_size] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(parse_sample(&stack, Endian::Little, &bytes).is_ok(), ok);
    }
}
