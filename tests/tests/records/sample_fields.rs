//! Property test: arbitrary SAMPLE descriptions, laid out by arbitrary attrs, written with
//! `PerfDataFileWriter::write_sample` in either byte order, come back from linux-perf-data 0.13
//! with every field it decodes equal to what was written.
//!
//! The layouts are drawn from the `sample_type` bits linux-perf-event-reader 0.10.2 parses in
//! kernel order. It does not know CGROUP or WEIGHT_STRUCT (it would read the fields after them
//! from the wrong place), reads AUX before DATA_PAGE_SIZE and CODE_PAGE_SIZE (the kernel writes
//! it after them), and reads READ with the single-counter and group layouts exchanged (it
//! expects `{nr, …}` without `read_format` GROUP and one value with it); those are left to
//! perf-encode's own property tests (`perf-encode/tests/sample_props.rs`) and to the `perf script
//! -F` test (`records/main.rs`), which cover every field.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use integration_tests::lpd;
use perf_writer_std::perf_encode::abi::record_fields::BRANCH_SAMPLE_HW_INDEX;
use perf_writer_std::perf_encode::abi::record_fields::REGS_ABI_64;
use perf_writer_std::perf_encode::abi::{misc, sample_type, PerfEventAttr as AbiAttr};
use perf_writer_std::perf_encode::records::{
    BranchEntry, BranchStack, PidTid, Regs, Sample, SampleCpu, SampleLayout, StackUser,
};
use perf_writer_std::perf_encode::Endian;
use perf_writer_std::{FileOutput, PerfWriter};
use proptest::prelude::*;
use std::io::Cursor;
use tracepoint_decode::PerfEventAttr;

/// The sample id every sample carries (when its layout has IDENTIFIER or ID).
const ID: u64 = 77;

/// The bits drawn: those linux-perf-data reads right (AUX is added below when the page sizes
/// are absent).
const BITS: u64 = lpd::DECODED_SAMPLE_BITS | lpd::SKIPPED_SAMPLE_BITS;

#[derive(Clone, Debug)]
struct AttrSpec {
    sample_type: u64,
    regs_user_mask: u64,
    regs_intr_mask: u64,
    hw_index: bool,
    big_endian: bool,
}

fn attr_spec() -> impl Strategy<Value = AttrSpec> {
    (
        any::<u64>(),
        any::<bool>(),
        prop::collection::btree_set(0u32..64, 0..=8),
        prop::collection::btree_set(0u32..64, 0..=8),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(bits, aux, ru, ri, hw_index, big_endian)| {
            let mut sample_type = bits & BITS;
            if aux && sample_type & (sample_type::DATA_PAGE_SIZE | sample_type::CODE_PAGE_SIZE) == 0
            {
                sample_type |= sample_type::AUX;
            }
            // At most 8 registers each, anywhere in the 64-bit mask.
            let mask =
                |regs: std::collections::BTreeSet<u32>| regs.iter().fold(0u64, |m, r| m | 1 << r);
            AttrSpec {
                sample_type,
                regs_user_mask: mask(ru),
                regs_intr_mask: mask(ri),
                hw_index,
                big_endian,
            }
        })
}

/// Values for every field; each sample takes those its layout has.
#[derive(Clone, Debug)]
struct Values {
    words: Vec<u64>,
    misc: u16,
    callchain: Vec<u64>,
    raw: Vec<u8>,
    branches: Vec<(u64, u64, u64)>,
    regs: Vec<u64>,
    abi_none: (bool, bool),
    stack: Vec<u8>,
    dyn_size: u64,
    aux: Vec<u8>,
}

fn values() -> impl Strategy<Value = Values> {
    (
        prop::collection::vec(any::<u64>(), 16),
        prop::sample::select(vec![misc::USER, misc::KERNEL, misc::HYPERVISOR]),
        prop::collection::vec(any::<u64>(), 0..6),
        prop::collection::vec(any::<u8>(), 0..30),
        prop::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 0..4),
        prop::collection::vec(any::<u64>(), 16),
        (any::<bool>(), any::<bool>()),
        prop::collection::vec(any::<u8>(), 0..40),
        any::<u64>(),
        prop::collection::vec(any::<u8>(), 0..24),
    )
        .prop_map(
            |(words, misc, callchain, raw, branches, regs, abi_none, stack, dyn_size, aux)| {
                Values {
                    words,
                    misc,
                    callchain,
                    raw,
                    branches,
                    regs,
                    abi_none,
                    // At most the stack's size as written (padded to 8): perf refuses more.
                    dyn_size: dyn_size % (stack.len().div_ceil(8) as u64 * 8 + 1),
                    stack,
                    aux,
                }
            },
        )
}

fn make_attr(spec: &AttrSpec) -> AbiAttr {
    AbiAttr {
        type_: 1,
        size: 128,
        sample_period: 1,
        sample_type: spec.sample_type,
        sample_regs_user: spec.regs_user_mask,
        sample_regs_intr: spec.regs_intr_mask,
        sample_stack_user: 64,
        branch_sample_type: 1 | if spec.hw_index {
            BRANCH_SAMPLE_HW_INDEX
        } else {
            0
        },
        // No flags: linux-perf-data byte-swaps a big-endian attr's flags instead of
        // bit-reversing them, and samples need none.
        ..Default::default()
    }
}

fn padded(data: &[u8], to: usize) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(to, 0);
    v
}

fn check(spec: &AttrSpec, vals: &[Values]) {
    let abi = make_attr(spec);
    let layout = SampleLayout::from_attr(&abi);
    let has = |bit: u64| layout.sample_type & bit != 0;
    let endian = if spec.big_endian {
        Endian::Big
    } else {
        Endian::Little
    };
    let mut w =
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), endian)
            .unwrap();
    // linux-perf-data hands samples out in time order: distinct times, written in that order.
    let mut vals = vals.to_vec();
    for (i, v) in vals.iter_mut().enumerate() {
        v.words[2] = v.words[2] & !7 | i as u64;
    }
    vals.sort_by_key(|v| v.words[2]);
    let attr = PerfEventAttr::try_from(&abi).unwrap();
    w.add_event_desc(&[ID], &attr, "ev").unwrap();
    for v in &vals {
        let word = |i: usize, bit: u64| has(bit).then_some(v.words[i]);
        let branches: Vec<BranchEntry> = v
            .branches
            .iter()
            .map(|&(from, to, flags)| BranchEntry { from, to, flags })
            .collect();
        let regs = |none: bool, count: u32, at: usize| Regs {
            abi: if none { 0 } else { REGS_ABI_64 },
            regs: if none {
                &[]
            } else {
                &v.regs[at..at + count as usize]
            },
        };
        let s = Sample {
            identifier: has(sample_type::IDENTIFIER).then_some(ID),
            ip: word(0, sample_type::IP),
            tid: has(sample_type::TID).then_some(PidTid {
                pid: v.words[1] as u32,
                tid: (v.words[1] >> 32) as u32,
            }),
            time: word(2, sample_type::TIME),
            addr: word(3, sample_type::ADDR),
            id: has(sample_type::ID).then_some(ID),
            stream_id: word(4, sample_type::STREAM_ID),
            cpu: has(sample_type::CPU).then_some(SampleCpu {
                cpu: v.words[5] as u32,
                res: (v.words[5] >> 32) as u32,
            }),
            period: word(6, sample_type::PERIOD),
            callchain: has(sample_type::CALLCHAIN).then_some(&v.callchain[..]),
            raw: has(sample_type::RAW).then_some(&v.raw[..]),
            branch_stack: has(sample_type::BRANCH_STACK).then_some(BranchStack {
                hw_idx: layout.branch_hw_index.then_some(v.words[11]),
                entries: &branches,
            }),
            regs_user: has(sample_type::REGS_USER).then_some(regs(
                v.abi_none.0,
                layout.regs_user,
                0,
            )),
            stack_user: has(sample_type::STACK_USER).then_some(StackUser {
                data: &v.stack,
                dyn_size: v.dyn_size,
            }),
            weight: word(12, sample_type::WEIGHT),
            data_src: word(13, sample_type::DATA_SRC),
            transaction: word(14, sample_type::TRANSACTION),
            regs_intr: has(sample_type::REGS_INTR).then_some(regs(
                v.abi_none.1,
                layout.regs_intr,
                8,
            )),
            phys_addr: word(15, sample_type::PHYS_ADDR),
            data_page_size: word(0, sample_type::DATA_PAGE_SIZE).map(|x| x ^ 1),
            code_page_size: word(1, sample_type::CODE_PAGE_SIZE).map(|x| x ^ 2),
            aux: has(sample_type::AUX).then_some(&v.aux[..]),
            ..Default::default()
        };
        w.write_sample(v.misc, &s).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();

    let l = lpd::read_file(&bytes).unwrap();
    assert!(
        l.records_with_parse_errors().is_empty(),
        "{:?}",
        l.records_with_parse_errors()
    );
    let got: Vec<&lpd::LpdRecord> = l.records.iter().filter(|r| r.record_type == 9).collect();
    assert_eq!(got.len(), vals.len(), "one SAMPLE per write_sample");
    for (r, v) in got.iter().zip(&vals) {
        assert_eq!(r.misc, v.misc);
        let p = r
            .sample
            .as_ref()
            .expect("linux-perf-data parses the SAMPLE");
        let word = |i: usize, bit: u64| has(bit).then_some(v.words[i]);
        let ids = has(sample_type::IDENTIFIER) || has(sample_type::ID);
        assert_eq!(p.id, ids.then_some(ID), "id");
        assert_eq!(p.ip, word(0, sample_type::IP), "ip");
        assert_eq!(
            p.pid,
            has(sample_type::TID).then_some(v.words[1] as u32 as i32),
            "pid"
        );
        assert_eq!(
            p.tid,
            has(sample_type::TID).then_some((v.words[1] >> 32) as u32 as i32),
            "tid"
        );
        assert_eq!(p.time, word(2, sample_type::TIME), "time");
        assert_eq!(p.addr, word(3, sample_type::ADDR), "addr");
        assert_eq!(p.stream_id, word(4, sample_type::STREAM_ID), "stream_id");
        assert_eq!(
            p.cpu,
            has(sample_type::CPU).then_some(v.words[5] as u32),
            "cpu"
        );
        assert_eq!(p.period, word(6, sample_type::PERIOD), "period");
        assert_eq!(
            p.callchain.as_deref(),
            has(sample_type::CALLCHAIN).then_some(&v.callchain[..]),
            "callchain"
        );
        // RAW's size counts the zero padding that makes `4 + size` a multiple of 8.
        let raw_len = (v.raw.len() + 4).div_ceil(8) * 8 - 4;
        assert_eq!(
            p.raw,
            has(sample_type::RAW).then(|| padded(&v.raw, raw_len)),
            "raw"
        );
        // The reader gives no values for ABI NONE.
        let regs = |bit: u64, none: bool, count: u32, at: usize| {
            (has(bit) && !none).then(|| v.regs[at..at + count as usize].to_vec())
        };
        let user = regs(sample_type::REGS_USER, v.abi_none.0, layout.regs_user, 0);
        assert_eq!(p.user_regs, user, "regs_user");
        let intr = regs(sample_type::REGS_INTR, v.abi_none.1, layout.regs_intr, 8);
        assert_eq!(p.intr_regs, intr, "regs_intr");
        assert_eq!(
            p.user_stack,
            has(sample_type::STACK_USER)
                .then(|| (padded(&v.stack, v.stack.len().div_ceil(8) * 8), v.dyn_size)),
            "stack_user"
        );
        assert_eq!(p.phys_addr, word(15, sample_type::PHYS_ADDR), "phys_addr");
        assert_eq!(
            p.data_page_size,
            word(0, sample_type::DATA_PAGE_SIZE).map(|x| x ^ 1),
            "data_page_size"
        );
        assert_eq!(
            p.code_page_size,
            word(1, sample_type::CODE_PAGE_SIZE).map(|x| x ^ 2),
            "code_page_size"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn typed_samples_round_trip_through_linux_perf_data(
        spec in attr_spec(),
        vals in prop::collection::vec(values(), 1..5),
    ) {
        check(&spec, &vals);
    }
}

/// The widest layout the reader supports, in both byte orders, so that every field above is
/// compared at least once whatever the random cases draw.
#[test]
fn the_widest_supported_layout_round_trips() {
    let v = Values {
        words: (1..=16).map(|i| i * 0x0101_0101_0101_0101).collect(),
        misc: misc::USER,
        callchain: vec![0xffff_ffff_ffff_fe00, 0x4000, 0x4010],
        raw: vec![1, 2, 3, 4, 5, 6, 7],
        branches: vec![(0x10, 0x20, 3)],
        regs: (100..116).collect(),
        abi_none: (false, false),
        stack: vec![9; 13],
        dyn_size: 13,
        aux: vec![],
    };
    for big_endian in [false, true] {
        let spec = AttrSpec {
            sample_type: BITS,
            regs_user_mask: 0b1011,
            regs_intr_mask: 1 << 63 | 1,
            hw_index: true,
            big_endian,
        };
        check(&spec, std::slice::from_ref(&v));
        // AUX (without the page sizes, which the reader would look for before it).
        let spec = AttrSpec {
            sample_type: (BITS | sample_type::AUX)
                & !(sample_type::DATA_PAGE_SIZE | sample_type::CODE_PAGE_SIZE),
            regs_user_mask: 0,
            regs_intr_mask: 0,
            hw_index: false,
            big_endian,
        };
        check(
            &spec,
            &[Values {
                aux: vec![1; 11],
                ..v.clone()
            }],
        );
    }
}
