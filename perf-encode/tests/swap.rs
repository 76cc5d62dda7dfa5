//! The byte-order swapper against the encoders: every record and feature payload encoded
//! little-endian and swapped is what the encoder writes big-endian (and back); swapping
//! twice gives any accepted input back; input cut short or of no known layout is an error,
//! never a panic.
#![allow(clippy::arithmetic_side_effects)] // tests: arithmetic on small known values
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(feature = "alloc")]

use perf_abi::sample_type::*;
use perf_abi::{
    attr_flags, feature, read_format, record_fields, record_type, ClockData, CompressedInfo,
    IdIndexEntry, NrCpus, PerfEventAttr, SampleTime,
};
use perf_encode::features::{
    BuildIdEntry, BuildIdFeature, CacheLevel, ClockResolution, CpuCaches, CpuPmuCaps, CpuTopology,
    CpuTopologyEntry, DirFormat, GroupDesc, GroupDescFeature, HybridNode, HybridTopology,
    MemTopology, MemoryNode, NumaNode, NumaTopology, PmuCap, PmuCaps, PmuCapsEntry, PmuMapping,
    PmuMappings, TotalMem,
};
use perf_encode::records::*;
use perf_encode::swap::{swap_feature, FeatureContext, RecordSwapper, SwapError, SwapEvent};
use perf_encode::{to_vec, Encode, Endian, HeaderString, StringList};
use proptest::prelude::*;

/// Swaps `bytes` (one record in `from`) with `events`.
fn swapped(events: &[SwapEvent<'_>], from: Endian, bytes: &[u8]) -> Result<Vec<u8>, SwapError> {
    let mut v = bytes.to_vec();
    RecordSwapper::new(events, from).swap_record(&mut v)?;
    Ok(v)
}

/// `record` encoded little-endian and swapped is its big-endian encoding, and back.
fn record_both_ways<E: Encode + ?Sized>(what: &str, events: &[SwapEvent<'_>], record: &E) {
    let le = to_vec(record, Endian::Little).unwrap();
    let be = to_vec(record, Endian::Big).unwrap();
    assert_eq!(
        swapped(events, Endian::Little, &le).unwrap(),
        be,
        "{what}: to big"
    );
    assert_eq!(
        swapped(events, Endian::Big, &be).unwrap(),
        le,
        "{what}: to little"
    );
    // Every prefix is refused, never a panic.
    for cut in 0..le.len() {
        let mut short = le[..cut].to_vec();
        let r = RecordSwapper::new(events, Endian::Little).swap_record(&mut short);
        assert!(r.is_err(), "{what}: cut at {cut} accepted");
    }
}

/// Feature `bit`'s `payload` encoded little-endian and swapped is its big-endian encoding.
fn feature_both_ways<E: Encode + ?Sized>(bit: u8, payload: &E, ctx: &FeatureContext) {
    let le = to_vec(payload, Endian::Little).unwrap();
    let be = to_vec(payload, Endian::Big).unwrap();
    let mut v = le.clone();
    swap_feature(bit, &mut v, Endian::Little, ctx).unwrap();
    assert_eq!(v, be, "feature {bit}: to big");
    swap_feature(bit, &mut v, Endian::Big, ctx).unwrap();
    assert_eq!(v, le, "feature {bit}: to little");
    // Every prefix is refused, never a panic; CPU_TOPOLOGY without its optional dies and
    // BUILD_ID of no binary are whole.
    for cut in 0..le.len() {
        let mut short = le[..cut].to_vec();
        if swap_feature(bit, &mut short, Endian::Little, ctx).is_ok() {
            assert!(
                (bit == feature::CPU_TOPOLOGY || bit == feature::BUILD_ID && cut == 0)
                    && short == be[..cut],
                "feature {bit}: cut at {cut} accepted"
            );
        }
    }
}

/// A layout with every field a SAMPLE can have and a full trailer.
fn full_layout() -> SampleLayout {
    SampleLayout::from_attr(&PerfEventAttr {
        sample_type: IDENTIFIER
            | IP
            | TID
            | TIME
            | ADDR
            | ID
            | STREAM_ID
            | CPU
            | PERIOD
            | READ
            | CALLCHAIN
            | RAW
            | BRANCH_STACK
            | REGS_USER
            | STACK_USER
            | WEIGHT_STRUCT
            | DATA_SRC
            | TRANSACTION
            | REGS_INTR
            | PHYS_ADDR
            | CGROUP
            | DATA_PAGE_SIZE
            | CODE_PAGE_SIZE
            | AUX,
        read_format: read_format::GROUP
            | read_format::ID
            | read_format::TOTAL_TIME_ENABLED
            | read_format::LOST,
        sample_regs_user: 0b111,
        sample_regs_intr: 0b11,
        branch_sample_type: record_fields::BRANCH_SAMPLE_HW_INDEX,
        flags: attr_flags::SAMPLE_ID_ALL,
        ..Default::default()
    })
}

fn trailer() -> SampleId {
    SampleId {
        tid: Some(PidTid { pid: 7, tid: 8 }),
        time: Some(0x1122_3344_5566),
        id: Some(42),
        stream_id: Some(43),
        cpu: Some(SampleCpu::new(3)),
        identifier: Some(42),
    }
}

#[test]
fn samples_with_every_field() {
    let layout = full_layout();
    let events = [SwapEvent { layout, ids: &[42] }];
    let members = [
        ReadValue {
            value: 10,
            id: Some(42),
            lost: Some(0),
        },
        ReadValue {
            value: 20,
            id: Some(43),
            lost: Some(1),
        },
    ];
    let branches = [
        BranchEntry {
            from: 0x1000,
            to: 0x2000,
            flags: BranchEntry::MISPRED
                | 7 << BranchEntry::CYCLES_SHIFT
                | 3 << BranchEntry::TYPE_SHIFT,
        },
        BranchEntry {
            from: 0x3000,
            to: 0x4000,
            flags: BranchEntry::PREDICTED,
        },
    ];
    let (raw, stack, aux) = (
        [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        [0xabu8; 24],
        [7u8; 16],
    );
    let s = Sample {
        identifier: Some(42),
        ip: Some(0xffff_ffff_8100_0000),
        tid: Some(PidTid { pid: 100, tid: 101 }),
        time: Some(123_456_789),
        addr: Some(0xdead_beef),
        id: Some(42),
        stream_id: Some(43),
        cpu: Some(SampleCpu::new(1)),
        period: Some(4000),
        read: Some(ReadValues {
            time_enabled: Some(99),
            time_running: None,
            counters: ReadCounters::Group(&members),
        }),
        callchain: Some(&[0xffff_ffff_ffff_fe00, 0x4000, 0x5000]),
        raw: Some(&raw),
        branch_stack: Some(BranchStack {
            hw_idx: Some(5),
            entries: &branches,
        }),
        regs_user: Some(Regs {
            abi: record_fields::REGS_ABI_64,
            regs: &[1, 2, 3],
        }),
        stack_user: Some(StackUser {
            data: &stack,
            dyn_size: 16,
        }),
        weight_struct: Some(WeightStruct {
            var1_dw: 300,
            var2_w: 7,
            var3_w: 9,
        }),
        data_src: Some(0x1234),
        transaction: Some(5),
        regs_intr: Some(Regs {
            abi: record_fields::REGS_ABI_64,
            regs: &[4, 5],
        }),
        phys_addr: Some(0x8000),
        cgroup: Some(77),
        data_page_size: Some(4096),
        code_page_size: Some(4096),
        aux: Some(&aux),
        ..Default::default()
    };
    let rec = SampleRecord {
        layout: &layout,
        sample: &s,
        misc: 2,
    };
    record_both_ways("SAMPLE", &events, &rec);
    // An empty stack and no registers.
    let s = Sample {
        stack_user: Some(StackUser {
            data: &[],
            dyn_size: 0,
        }),
        regs_user: Some(Regs {
            abi: record_fields::REGS_ABI_NONE,
            regs: &[],
        }),
        ..s
    };
    let rec = SampleRecord {
        layout: &layout,
        sample: &s,
        misc: 2,
    };
    record_both_ways("SAMPLE, empty stack", &events, &rec);
}

/// FORK or EXIT (one layout).
fn task<const TYPE: u32>(what: &str, events: &[SwapEvent<'_>], l: &SampleLayout, sid: SampleId) {
    let t = Task::<TYPE> {
        layout: l,
        misc: 0,
        pid: 1,
        ppid: 2,
        tid: 3,
        ptid: 4,
        time: 5,
        sample_id: sid,
    };
    record_both_ways(what, events, &t);
}

#[test]
fn kernel_records_with_their_trailer() {
    let layout = full_layout();
    let events = [SwapEvent { layout, ids: &[42] }];
    let l = &layout;
    let sid = trailer();
    record_both_ways(
        "COMM",
        &events,
        &Comm {
            layout: l,
            pid: 1,
            tid: 2,
            comm: b"perf-exec",
            exec: true,
            sample_id: sid,
        },
    );
    record_both_ways(
        "MMAP",
        &events,
        &Mmap {
            layout: l,
            misc: 0,
            pid: 1,
            tid: 2,
            addr: 0x1000,
            len: 0x2000,
            pgoff: 3,
            filename: b"/bin/sh",
            sample_id: sid,
        },
    );
    for file in [
        Mmap2File::Inode {
            maj: 8,
            min: 1,
            ino: 1234,
            ino_generation: 5,
        },
        Mmap2File::BuildId(&[0x5a; 20]),
    ] {
        let misc = match file {
            Mmap2File::BuildId(_) => perf_abi::misc::MMAP_BUILD_ID,
            _ => 0,
        };
        record_both_ways(
            "MMAP2",
            &events,
            &Mmap2 {
                layout: l,
                misc,
                pid: 1,
                tid: 2,
                addr: 0x1000,
                len: 0x2000,
                pgoff: 3,
                file,
                prot: 5,
                flags: 2,
                filename: b"/usr/lib/libc.so.6",
                sample_id: sid,
            },
        );
    }
    task::<{ record_type::FORK }>("FORK", &events, l, sid);
    task::<{ record_type::EXIT }>("EXIT", &events, l, sid);
    record_both_ways(
        "LOST",
        &events,
        &Lost {
            layout: l,
            misc: 0,
            id: 42,
            lost: 9,
            sample_id: sid,
        },
    );
    record_both_ways(
        "LOST_SAMPLES",
        &events,
        &LostSamples {
            layout: l,
            misc: 0,
            lost: 9,
            sample_id: sid,
        },
    );
    record_both_ways(
        "THROTTLE",
        &events,
        &Throttle {
            layout: l,
            unthrottle: true,
            misc: 0,
            time: 1,
            id: 42,
            stream_id: 43,
            sample_id: sid,
        },
    );
    record_both_ways(
        "SWITCH",
        &events,
        &Switch {
            layout: l,
            out: true,
            preempt: false,
            sample_id: sid,
        },
    );
    record_both_ways(
        "SWITCH_CPU_WIDE",
        &events,
        &SwitchCpuWide {
            layout: l,
            out: false,
            preempt: true,
            next_prev_pid: 5,
            next_prev_tid: 6,
            sample_id: sid,
        },
    );
    record_both_ways(
        "KSYMBOL",
        &events,
        &Ksymbol {
            layout: l,
            misc: 0,
            addr: 0xffff_ffff_a000_0000,
            len: 0x100,
            ksym_type: record_fields::KSYMBOL_TYPE_BPF,
            flags: 0,
            name: b"bpf_prog_1234",
            sample_id: sid,
        },
    );
    let members = [ReadValue {
        value: 3,
        id: Some(42),
        lost: Some(0),
    }];
    record_both_ways(
        "READ",
        &events,
        &ReadRecord {
            layout: l,
            pid: 1,
            tid: 2,
            values: ReadValues {
                time_enabled: Some(1),
                time_running: None,
                counters: ReadCounters::Group(&members),
            },
            sample_id: sid,
        },
    );
}

#[test]
fn records_tools_write() {
    let events: [SwapEvent<'_>; 0] = [];
    record_both_ways("FINISHED_ROUND", &events, &FinishedRound);
    record_both_ways("FINISHED_INIT", &events, &FinishedInit);
    let entries = [
        IdIndexEntry {
            id: 1,
            idx: 2,
            cpu: 3,
            tid: 4,
        },
        IdIndexEntry {
            id: 5,
            idx: 6,
            cpu: 7,
            tid: 8,
        },
    ];
    record_both_ways("ID_INDEX", &events, &IdIndex { entries: &entries });
    let threads = [ThreadMapEntry {
        pid: 77,
        comm: *b"sleep\0\0\0\0\0\0\0\0\0\0\0",
    }];
    record_both_ways("THREAD_MAP", &events, &ThreadMap { entries: &threads });
    for map in [
        CpuMap::Cpus(&[0, 2, 5]),
        CpuMap::Mask32(&[0b1011, 1]),
        CpuMap::Mask64(&[0b1011, 1 << 40]),
        CpuMap::Range {
            any_cpu: true,
            start: 0,
            end: 7,
        },
    ] {
        record_both_ways("CPU_MAP", &events, &map);
    }
    record_both_ways(
        "EVENT_UPDATE",
        &events,
        &EventUpdateName {
            id: 9,
            name: "sched:sched_switch",
        },
    );
}

#[test]
fn features() {
    let ctx = FeatureContext {
        nr_cpus_avail: Some(2),
    };
    feature_both_ways(feature::HOSTNAME, &HeaderString::new(b"vm"), &ctx);
    feature_both_ways(
        feature::CMDLINE,
        &StringList::new(&["perf", "record"]),
        &ctx,
    );
    feature_both_ways(
        feature::NRCPUS,
        &NrCpus {
            available: 2,
            online: 2,
        },
        &ctx,
    );
    feature_both_ways(feature::TOTAL_MEM, &TotalMem { kib: 1 << 20 }, &ctx);
    feature_both_ways(feature::CLOCKID, &ClockResolution { ns: 1 }, &ctx);
    feature_both_ways(feature::DIR_FORMAT, &DirFormat { version: 1 }, &ctx);
    feature_both_ways(
        feature::SAMPLE_TIME,
        &SampleTime { first: 1, last: 2 },
        &ctx,
    );
    feature_both_ways(
        feature::CLOCK_DATA,
        &ClockData {
            version: 1,
            clockid: 1,
            wall_clock_ns: 5,
            clockid_time_ns: 6,
        },
        &ctx,
    );
    feature_both_ways(
        feature::COMPRESSED,
        &CompressedInfo {
            version: 0,
            type_: 1,
            level: 1,
            ratio: 3,
            mmap_len: 528_384,
        },
        &ctx,
    );
    let cpus = [
        CpuTopologyEntry {
            core_id: 0,
            socket_id: 0,
            die_id: 0,
        },
        CpuTopologyEntry {
            core_id: 1,
            socket_id: 0,
            die_id: 0,
        },
    ];
    for dies in [&["0-1"][..], &[]] {
        feature_both_ways(
            feature::CPU_TOPOLOGY,
            &CpuTopology {
                package_cpus: &["0-1"],
                core_cpus: &["0", "1"],
                die_cpus: dies,
                cpus: &cpus,
            },
            &ctx,
        );
    }
    let nodes = [NumaNode {
        node: 0,
        mem_total_kib: 100,
        mem_free_kib: 50,
        cpus: b"0-1",
    }];
    feature_both_ways(
        feature::NUMA_TOPOLOGY,
        &NumaTopology { nodes: &nodes },
        &ctx,
    );
    let pmus = [PmuMapping {
        type_: 1,
        name: b"software",
    }];
    feature_both_ways(feature::PMU_MAPPINGS, &PmuMappings { pmus: &pmus }, &ctx);
    let groups = [GroupDesc {
        name: b"{anon_group}",
        leader_idx: 0,
        nr_members: 2,
    }];
    feature_both_ways(
        feature::GROUP_DESC,
        &GroupDescFeature { groups: &groups },
        &ctx,
    );
    let caches = [CacheLevel {
        level: 1,
        line_size: 64,
        sets: 64,
        ways: 8,
        type_: b"Data",
        size: b"32K",
        map: b"0",
    }];
    feature_both_ways(feature::CACHE, &CpuCaches { caches: &caches }, &ctx);
    let blocks = [MemoryNode {
        node: 0,
        nbits: 70,
        bitmap: &[!0, 0x3f],
    }];
    feature_both_ways(
        feature::MEM_TOPOLOGY,
        &MemTopology {
            block_size: 1 << 27,
            nodes: &blocks,
        },
        &ctx,
    );
    let caps = [PmuCap {
        name: b"branches",
        value: b"32",
    }];
    feature_both_ways(feature::CPU_PMU_CAPS, &CpuPmuCaps { caps: &caps }, &ctx);
    let pmu_caps = [PmuCapsEntry {
        pmu: b"cpu",
        caps: &caps,
    }];
    feature_both_ways(feature::PMU_CAPS, &PmuCaps { pmus: &pmu_caps }, &ctx);
    let hybrid = [HybridNode {
        pmu: b"cpu_core",
        cpus: b"0-1",
    }];
    feature_both_ways(
        feature::HYBRID_TOPOLOGY,
        &HybridTopology { nodes: &hybrid },
        &ctx,
    );
    let ids = [BuildIdEntry {
        misc: 0,
        pid: -1,
        build_id: &[0x11; 20],
        filename: b"/usr/bin/perf",
    }];
    feature_both_ways(feature::BUILD_ID, &BuildIdFeature::new(&ids), &ctx);
}

#[test]
fn refusals_name_what_they_refuse() {
    let events: [SwapEvent<'_>; 0] = [];
    // An unknown record type, a COMPRESSED record, a SAMPLE of no event.
    let mut unknown = [100, 0, 0, 0, 0, 0, 8, 0];
    assert_eq!(
        RecordSwapper::new(&events, Endian::Little).swap_record(&mut unknown),
        Err(SwapError::UnknownRecord { type_: 100 })
    );
    let mut compressed = [81, 0, 0, 0, 0, 0, 12, 0, 1, 2, 3, 4];
    let e = RecordSwapper::new(&events, Endian::Little).swap_record(&mut compressed);
    assert!(
        matches!(
            e,
            Err(SwapError::NotSwappable {
                what: "COMPRESSED",
                ..
            })
        ),
        "{e:?}"
    );
    let mut sample = [9, 0, 0, 0, 0, 0, 16, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    assert!(RecordSwapper::new(&events, Endian::Little)
        .swap_record(&mut sample)
        .is_err());
    // A SAMPLE whose id is no event's, when there are several.
    let layout = SampleLayout {
        sample_type: IDENTIFIER | IP,
        ..Default::default()
    };
    let two = [
        SwapEvent { layout, ids: &[1] },
        SwapEvent { layout, ids: &[2] },
    ];
    let mut s = to_vec(
        &SampleRecord {
            layout: &layout,
            sample: &Sample {
                identifier: Some(3),
                ip: Some(1),
                ..Default::default()
            },
            misc: 0,
        },
        Endian::Little,
    )
    .unwrap();
    let e = RecordSwapper::new(&two, Endian::Little).swap_record(&mut s);
    assert_eq!(
        e,
        Err(SwapError::UnknownEvent {
            what: "SAMPLE",
            id: 3
        })
    );
    assert_eq!(
        e.unwrap_err().to_string(),
        "SAMPLE: its event id 3 belongs to no event, so its layout is unknown"
    );
    // Features: unknown, BPF, EVENT_DESC, a CPU_TOPOLOGY without NRCPUS, bytes after.
    let ctx = FeatureContext::default();
    let mut p = [0u8; 8];
    assert_eq!(
        swap_feature(32, &mut p, Endian::Little, &ctx),
        Err(SwapError::UnknownFeature { bit: 32 })
    );
    for bit in [
        feature::BPF_PROG_INFO,
        feature::BPF_BTF,
        feature::EVENT_DESC,
    ] {
        assert!(matches!(
            swap_feature(bit, &mut p, Endian::Little, &ctx),
            Err(SwapError::NotSwappable { .. })
        ));
    }
    let topo = to_vec(
        &CpuTopology::<&str> {
            package_cpus: &["0"],
            core_cpus: &["0"],
            die_cpus: &[],
            cpus: &[CpuTopologyEntry::UNKNOWN],
        },
        Endian::Little,
    )
    .unwrap();
    let e = swap_feature(
        feature::CPU_TOPOLOGY,
        &mut topo.clone(),
        Endian::Little,
        &ctx,
    );
    assert!(matches!(
        e,
        Err(SwapError::NotSwappable {
            what: "CPU_TOPOLOGY",
            ..
        })
    ));
    let mut nr = [2, 0, 0, 0, 2, 0, 0, 0, 0];
    let e = swap_feature(feature::NRCPUS, &mut nr, Endian::Little, &ctx);
    assert_eq!(
        e,
        Err(SwapError::Leftover {
            what: "NRCPUS",
            offset: 8,
            len: 9
        })
    );
    // TRACING_DATA says its own byte order: kept.
    let mut blob = *b"\x17\x08\x44tracing0.6\0\0\x08";
    swap_feature(feature::TRACING_DATA, &mut blob, Endian::Little, &ctx).unwrap();
    assert_eq!(&blob, b"\x17\x08\x44tracing0.6\0\0\x08");
}

proptest! {
    /// Any bytes given as a record of any known type, under layouts with and without
    /// trailers: an error or a swap, never a panic; a swap twice gives the bytes back.
    #[test]
    fn swapping_twice_is_the_identity(
        type_ in prop_oneof![1u32..=21, 64u32..=83],
        misc in any::<u16>(),
        body in proptest::collection::vec(any::<u8>(), 0..200),
        sample_type in 0u64..1 << 25,
        read_format in 0u64..32,
        sample_id_all in any::<bool>(),
        big in any::<bool>(),
    ) {
        let mut record = Vec::with_capacity(body.len() + 8);
        let size = u16::try_from(body.len() + 8).unwrap();
        let from = if big { Endian::Big } else { Endian::Little };
        record.extend_from_slice(&from.u32_bytes(type_));
        record.extend_from_slice(&from.u16_bytes(misc));
        record.extend_from_slice(&from.u16_bytes(size));
        record.extend_from_slice(&body);
        let layout = SampleLayout {
            sample_type,
            read_format,
            regs_user: 2,
            regs_intr: 1,
            branch_hw_index: misc & 1 != 0,
            sample_id_all,
        };
        let events = [SwapEvent { layout, ids: &[] }];
        let mut once = record.clone();
        if RecordSwapper::new(&events, from).swap_record(&mut once).is_ok() {
            let other = if big { Endian::Little } else { Endian::Big };
            let mut twice = once.clone();
            RecordSwapper::new(&events, other).swap_record(&mut twice).unwrap();
            prop_assert_eq!(twice, record);
        }
    }

    /// Any bytes given as any feature's payload: an error or a swap, never a panic; a swap
    /// twice gives the bytes back.
    #[test]
    fn swapping_a_feature_twice_is_the_identity(
        bit in 0u8..40,
        payload in proptest::collection::vec(any::<u8>(), 0..200),
        nr in proptest::option::of(0u32..8),
    ) {
        let ctx = FeatureContext { nr_cpus_avail: nr };
        let mut once = payload.clone();
        if swap_feature(bit, &mut once, Endian::Little, &ctx).is_ok() {
            let mut twice = once.clone();
            swap_feature(bit, &mut twice, Endian::Big, &ctx).unwrap();
            prop_assert_eq!(twice, payload);
        }
    }
}
