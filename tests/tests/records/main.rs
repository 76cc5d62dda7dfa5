//! Records laid out by their event's attr: every field perf prints (here), every field
//! linux-perf-data decodes for arbitrary layouts (`sample_fields`).
//!
//! End to end: records encoded by perf-encode's typed encoders (SAMPLE laid out by
//! `sample_type` with every field `perf script -F` can print, and the kernel and tool
//! records), written into a file by `PerfDataFileWriter`, decoded by perf 6.1, whose output
//! must show each field's value.

mod sample_fields;

use integration_tests::perf_tool::{
    parse_stats, perf_report_stats, perf_script, require_perf, script_lines,
};
use integration_tests::{lpd, temp_data_file};
use perf_writer_std::perf_encode::abi::record_fields::BRANCH_SAMPLE_HW_INDEX;
use perf_writer_std::perf_encode::abi::record_fields::KSYMBOL_TYPE_BPF;
use perf_writer_std::perf_encode::abi::record_fields::REGS_ABI_64;
use perf_writer_std::perf_encode::abi::{attr_flags, misc, sample_type, PerfEventAttr as AbiAttr};
use perf_writer_std::perf_encode::records::{
    BranchEntry, BranchStack, Comm, CpuMap, Exit, Fork, Ksymbol, Lost, LostSamples, Mmap2,
    Mmap2File, PidTid, Regs, Sample, SampleCpu, SampleId, SampleLayout, SampleRecord, StackUser,
    Switch, SwitchCpuWide, ThreadMap, ThreadMapEntry, Throttle, WeightStruct,
};
use perf_writer_std::perf_encode::{to_vec, Encode, Endian};
use perf_writer_std::{FileOutput, PerfHeaderIndex, PerfWriter};
use perf_writer_std::{RecordError, RecordProblem, WriterError};
use std::io::Cursor;
use tracepoint_decode::PerfEventAttr;

/// Every field of the SAMPLEs here (and STREAM_ID, TRANSACTION, STACK_USER, which perf
/// parses but does not print, to check that the fields after them are still found).
const SAMPLE_TYPE: u64 = sample_type::IDENTIFIER
    | sample_type::IP
    | sample_type::TID
    | sample_type::TIME
    | sample_type::ADDR
    | sample_type::ID
    | sample_type::STREAM_ID
    | sample_type::CPU
    | sample_type::PERIOD
    | sample_type::CALLCHAIN
    | sample_type::BRANCH_STACK
    | sample_type::REGS_USER
    | sample_type::STACK_USER
    | sample_type::DATA_SRC
    | sample_type::TRANSACTION
    | sample_type::REGS_INTR
    | sample_type::PHYS_ADDR
    | sample_type::DATA_PAGE_SIZE
    | sample_type::CODE_PAGE_SIZE;

/// x86-64 register masks: user AX, BX, CX (bits 0-2); interrupt SI, DI (bits 4, 5).
const REGS_USER_MASK: u64 = 0b111;
const REGS_INTR_MASK: u64 = 0b11_0000;
/// `PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY`.
const BRANCH_ANY_USER: u64 = 1 | 1 << 3;

const PID: u32 = 4242;
const T0: u64 = 1_000_000_000;

/// The two events: cpu-clock (ids 11, 12) and task-clock with the branch stack's hw_idx
/// (ids 21, 22); both with WEIGHT, or both with WEIGHT_STRUCT.
fn attrs(structured: bool) -> [AbiAttr; 2] {
    let weight = if structured {
        sample_type::WEIGHT_STRUCT
    } else {
        sample_type::WEIGHT
    };
    let base = AbiAttr {
        type_: 1,
        size: 128,
        sample_period: 1000,
        read_format: 0,
        flags: attr_flags::SAMPLE_ID_ALL
            | attr_flags::COMM
            | attr_flags::MMAP
            | attr_flags::MMAP2
            | attr_flags::TASK
            | attr_flags::CONTEXT_SWITCH
            | attr_flags::KSYMBOL,
        branch_sample_type: BRANCH_ANY_USER,
        sample_regs_user: REGS_USER_MASK,
        sample_regs_intr: REGS_INTR_MASK,
        sample_stack_user: 16,
        ..Default::default()
    };
    [
        AbiAttr {
            config: 0,
            // STACK_USER with REGS_USER makes perf unwind with DWARF instead of printing
            // the callchain: only the second event has it.
            sample_type: (SAMPLE_TYPE | weight) & !sample_type::STACK_USER,
            ..base
        },
        AbiAttr {
            config: 1,
            sample_type: SAMPLE_TYPE | weight,
            branch_sample_type: BRANCH_ANY_USER | BRANCH_SAMPLE_HW_INDEX,
            ..base
        },
    ]
}

fn sid(layout: &SampleLayout, time: u64, id: u64, cpu: u32) -> SampleId {
    SampleId {
        tid: Some(PidTid { pid: PID, tid: PID }),
        time: Some(time),
        id: Some(id),
        stream_id: Some(id),
        cpu: Some(SampleCpu::new(cpu)),
        identifier: Some(id),
    }
    .masked(layout)
}

struct Trace {
    bytes: Vec<u8>,
}

fn push(w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>, r: &(impl Encode + ?Sized)) {
    let bytes = to_vec(r, w.endian()).unwrap();
    w.write_event_data(&bytes).unwrap();
}

/// The trace: side-band records, four SAMPLEs alternating between the events, and (with
/// `lost`) LOST and LOST_SAMPLES records, which make perf warn by design.
fn build(structured: bool, lost: bool) -> Trace {
    build_in(structured, lost, Endian::Little)
}

fn build_in(structured: bool, lost: bool, endian: Endian) -> Trace {
    let [a, b] = attrs(structured);
    let (la, lb) = (SampleLayout::from_attr(&a), SampleLayout::from_attr(&b));
    let mut w =
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), endian)
            .unwrap();
    let ta: PerfEventAttr = PerfEventAttr::try_from(&a).unwrap();
    let tb: PerfEventAttr = PerfEventAttr::try_from(&b).unwrap();
    w.add_event_desc(&[11, 12], &ta, "cpu-clock").unwrap();
    w.add_event_desc(&[21, 22], &tb, "task-clock").unwrap();
    // perf names the registers after ARCH (after the machine it runs on when ARCH is absent).
    w.set_string_header(PerfHeaderIndex::Arch, b"x86_64")
        .unwrap();

    push(
        &mut w,
        &ThreadMap {
            entries: &[ThreadMapEntry::new(u64::from(PID), b"typed")],
        },
    );
    push(&mut w, &CpuMap::from_sorted(&[0, 1]));
    push(
        &mut w,
        &Fork {
            layout: &la,
            misc: 0,
            pid: PID,
            ppid: 1,
            tid: PID,
            ptid: 1,
            time: T0,
            sample_id: sid(&la, T0, 11, 0),
        },
    );
    push(
        &mut w,
        &Comm {
            layout: &la,
            pid: PID,
            tid: PID,
            comm: b"typed-app",
            exec: true,
            sample_id: sid(&la, T0 + 1, 11, 0),
        },
    );
    push(
        &mut w,
        &Mmap2 {
            layout: &la,
            misc: misc::USER,
            pid: PID,
            tid: PID,
            addr: 0x40_0000,
            len: 0x10_0000,
            pgoff: 0,
            file: Mmap2File::Inode {
                maj: 8,
                min: 1,
                ino: 1234,
                ino_generation: 5,
            },
            prot: 5,
            flags: 2,
            filename: b"/opt/typed/app",
            sample_id: sid(&la, T0 + 2, 11, 0),
        },
    );
    push(
        &mut w,
        &Mmap2 {
            layout: &la,
            misc: misc::USER,
            pid: PID,
            tid: PID,
            addr: 0x7f00_0000_0000,
            len: 0x2000,
            pgoff: 0x1000,
            file: Mmap2File::BuildId(&[0xab; 20]),
            prot: 5,
            flags: 2,
            filename: b"/opt/typed/libbuildid.so",
            sample_id: sid(&la, T0 + 3, 11, 0),
        },
    );
    // perf 6.1 has no byte-swapping routine for KSYMBOL ("failed to process type: 17
    // [Bad address]" on a big-endian file): only little-endian traces carry one.
    if endian == Endian::Little {
        push(
            &mut w,
            &Ksymbol {
                layout: &la,
                misc: 0,
                addr: 0xffff_ffff_c000_1000,
                len: 0x100,
                ksym_type: KSYMBOL_TYPE_BPF,
                flags: 0,
                name: b"bpf_prog_typed",
                sample_id: sid(&la, T0 + 4, 11, 1),
            },
        );
    }

    let ips = [0xffff_ffff_ffff_fe00, 0x40_1234, 0x40_5678];
    let branches = [
        BranchEntry {
            from: 0x40_1000,
            to: 0x40_2000,
            flags: BranchEntry::PREDICTED | 7 << BranchEntry::CYCLES_SHIFT,
        },
        BranchEntry {
            from: 0x40_3000,
            to: 0x40_4000,
            flags: BranchEntry::MISPRED,
        },
    ];
    let uregs = [0x11, 0x22, 0x33];
    let iregs = [0x44, 0x55];
    let stack = [0x5a_u8; 16];
    for i in 0..4u64 {
        let (layout, id) = if i % 2 == 0 {
            (&la, 11 + i / 2)
        } else {
            (&lb, 21 + i / 2)
        };
        let s = Sample {
            identifier: Some(id),
            ip: Some(0x40_1234 + i),
            tid: Some(PidTid { pid: PID, tid: PID }),
            time: Some(T0 + 1000 * (i + 1)),
            addr: Some(0xdead_0000 + i),
            id: Some(id),
            stream_id: Some(id),
            cpu: Some(SampleCpu::new((i % 2) as u32)),
            period: Some(100 + i),
            callchain: Some(&ips),
            branch_stack: Some(BranchStack {
                hw_idx: layout.branch_hw_index.then_some(3),
                entries: &branches,
            }),
            regs_user: Some(Regs {
                abi: REGS_ABI_64,
                regs: &uregs,
            }),
            stack_user: Some(StackUser {
                data: &stack,
                dyn_size: 8,
            }),
            weight: Some(500 + i),
            data_src: Some(0x6a10_0142),
            transaction: Some(0),
            regs_intr: Some(Regs {
                abi: REGS_ABI_64,
                regs: &iregs,
            }),
            phys_addr: Some(0x1_2345_6000 + i),
            data_page_size: Some(4096),
            code_page_size: Some(2 * 1024 * 1024),
            ..Default::default()
        }
        .masked(layout);
        let s = if layout.has(sample_type::WEIGHT_STRUCT) {
            Sample {
                weight_struct: Some(WeightStruct {
                    var1_dw: 500 + i as u32,
                    var2_w: 77,
                    var3_w: 0,
                }),
                ..s
            }
        } else {
            s
        };
        push(
            &mut w,
            &SampleRecord {
                layout,
                sample: &s,
                misc: misc::USER,
            },
        );
    }
    let t = T0 + 10_000;
    let switch = Switch {
        layout: &la,
        out: true,
        preempt: true,
        sample_id: sid(&la, t, 11, 0),
    };
    if endian == Endian::Big {
        // perf 6.1 leaves the first 8 bytes of a big-endian SWITCH's sample_id unswapped
        // (see below): strict mode refuses it; written with strict mode off, to show what
        // perf makes of it.
        let bytes = to_vec(&switch, endian).unwrap();
        assert!(matches!(
            w.write_event_data(&bytes).unwrap_err(),
            WriterError::Record(RecordError::Refused {
                problem: RecordProblem::UnswappedSwitchSampleId,
                ..
            })
        ));
        w.set_strict(false);
        w.write_event_data(&bytes).unwrap();
        w.set_strict(true);
    } else {
        push(&mut w, &switch);
    }
    push(
        &mut w,
        &SwitchCpuWide {
            layout: &la,
            out: false,
            preempt: false,
            next_prev_pid: 7,
            next_prev_tid: 8,
            sample_id: sid(&la, t + 1, 11, 0),
        },
    );
    if lost {
        push(
            &mut w,
            &Lost {
                layout: &la,
                misc: 0,
                id: 11,
                lost: 9,
                sample_id: sid(&la, t + 2, 11, 0),
            },
        );
        push(
            &mut w,
            &LostSamples {
                layout: &la,
                misc: 0,
                lost: 4,
                sample_id: sid(&la, t + 3, 11, 0),
            },
        );
    }
    push(
        &mut w,
        &Throttle {
            layout: &la,
            unthrottle: false,
            misc: 0,
            time: t + 4,
            id: 11,
            stream_id: 11,
            sample_id: sid(&la, t + 4, 11, 0),
        },
    );
    push(
        &mut w,
        &Throttle {
            layout: &la,
            unthrottle: true,
            misc: 0,
            time: t + 5,
            id: 11,
            stream_id: 11,
            sample_id: sid(&la, t + 5, 11, 0),
        },
    );
    push(
        &mut w,
        &Exit {
            layout: &la,
            misc: 0,
            pid: PID,
            ppid: 1,
            tid: PID,
            ptid: 1,
            time: t + 6,
            sample_id: sid(&la, t + 6, 11, 0),
        },
    );
    w.write_finished_round().unwrap();
    Trace {
        bytes: w.finish().unwrap().into_inner(),
    }
}

/// perf's stdout with runs of white space made single spaces.
fn flat(stdout: &str) -> String {
    stdout.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads `bytes` with linux-perf-data (no record may fail to parse) and returns the file
/// perf reads, or `None` when perf is missing outside CI.
fn readable(bytes: &[u8]) -> Option<tempfile::NamedTempFile> {
    let summary = lpd::read_file(bytes).expect("linux-perf-data reads the file");
    assert!(summary.records_with_parse_errors().is_empty());
    require_perf().then(|| temp_data_file(bytes))
}

#[test]
fn perf_script_prints_every_typed_sample_field() {
    let Some(file) = readable(&build(false, false).bytes) else {
        return;
    };
    let fields = "comm,tid,pid,time,cpu,event,ip,sym,dso,addr,period,iregs,uregs,brstack,\
                  data_src,weight,phys_addr,data_page_size,code_page_size";
    let out = perf_script(file.path(), &["-F", fields]);
    out.assert_clean();
    let text = flat(&out.stdout);
    let samples: Vec<&str> = text.split("typed-app 4242/4242 ").skip(1).collect();
    assert_eq!(samples.len(), 4, "{}", out.stdout);
    for (i, s) in samples.iter().enumerate() {
        let event = if i % 2 == 0 {
            "cpu-clock:"
        } else {
            "task-clock:"
        };
        let head = format!(
            "[00{}] 1.00000{}: 10{i} {event} dead000{i} 6a100142 |OP LOAD|LVL L1 hit|",
            i % 2,
            i + 1
        );
        assert!(
            s.starts_with(&head),
            "sample {i}: {s:?} should start {head:?}"
        );
        // WEIGHT, then the callchain (map-relative, under the mapped file). task-clock has
        // STACK_USER too, but perf 6.1 unwinds by DWARF only with an unwinder for the file's
        // ARCH and the binary's word size, and /opt/typed/app is nowhere: it prints the
        // callchain as recorded.
        let ip = format!("50{i} 1234 [unknown] (/opt/typed/app) 5678 [unknown] (/opt/typed/app) ");
        assert!(s.contains(&ip), "sample {i}: {s:?} lacks {ip:?}");
        for want in [
            // REGS_INTR (SI, DI) then REGS_USER (AX, BX, CX), ABI 64.
            "ABI:2 SI:0x44 DI:0x55 ABI:2 AX:0x11 BX:0x22 CX:0x33 ".to_string(),
            // BRANCH_STACK: from/to/predicted or mispredicted/in_tx/abort/cycles.
            "0x401000(/opt/typed/app)/0x402000(/opt/typed/app)/P/-/-/7/ \
             0x403000(/opt/typed/app)/0x404000(/opt/typed/app)/M/-/-/0/"
                .to_string(),
            // PHYS_ADDR, DATA_PAGE_SIZE, CODE_PAGE_SIZE.
            format!(" 12345600{i} 4K 2M"),
        ] {
            assert!(s.contains(&want), "sample {i}: {s:?} lacks {want:?}");
        }
    }
}

#[test]
fn perf_script_prints_weight_struct_and_ins_lat() {
    let Some(file) = readable(&build(true, false).bytes) else {
        return;
    };
    let out = perf_script(file.path(), &["-F", "tid,event,weight,ins_lat"]);
    out.assert_clean();
    let lines = script_lines(&out);
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    for (i, l) in lines.iter().enumerate() {
        let event = if i % 2 == 0 {
            "cpu-clock:"
        } else {
            "task-clock:"
        };
        // var1_dw is the weight, var2_w the instruction latency.
        assert_eq!(flat(l), format!("4242 {event} 50{i} 77"));
    }
}

#[test]
fn perf_shows_every_typed_side_band_record() {
    let Some(file) = readable(&build(false, true).bytes) else {
        return;
    };
    let out = perf_script(
        file.path(),
        &[
            "--show-task-events",
            "--show-mmap-events",
            "--show-switch-events",
            "--show-lost-events",
            "--show-bpf-events",
            "-F",
            "comm,tid,time,cpu,event",
        ],
    );
    out.assert_success();
    // LOST_SAMPLES makes perf warn (4 lost of 4 + 4 samples), as it should; nothing else
    // may (--show-lost-events prints the LOST record instead of warning about it).
    let findings = out.stderr_findings();
    assert!(
        findings.iter().all(|l| l.trim() == "Warning:"),
        "{}",
        out.describe()
    );
    assert!(out.stderr.contains("Processed 8 samples and lost 50.00%!"));
    let lines: Vec<String> = script_lines(&out).iter().map(|l| flat(l)).collect();
    let expect = [
        ":4242 4242 [000] 1.000000: PERF_RECORD_FORK(4242:4242):(1:1)",
        "typed-app 4242 [000] 1.000000: PERF_RECORD_COMM exec: typed-app:4242/4242",
        "typed-app 4242 [000] 1.000000: PERF_RECORD_MMAP2 4242/4242: \
         [0x400000(0x100000) @ 0 08:01 1234 5]: r-xp /opt/typed/app",
        "typed-app 4242 [000] 1.000000: PERF_RECORD_MMAP2 4242/4242: [0x7f0000000000(0x2000) \
         @ 0x1000 <abababababababababababababababababababab>]: r-xp /opt/typed/libbuildid.so",
        "typed-app 4242 [001] 1.000000: PERF_RECORD_KSYMBOL addr ffffffffc0001000 len 256 \
         type 1 flags 0x0 name bpf_prog_typed",
        "typed-app 4242 [000] 1.000001: cpu-clock:",
        "typed-app 4242 [001] 1.000002: task-clock:",
        "typed-app 4242 [000] 1.000003: cpu-clock:",
        "typed-app 4242 [001] 1.000004: task-clock:",
        "typed-app 4242 [000] 1.000010: PERF_RECORD_SWITCH OUT preempt",
        "typed-app 4242 [000] 1.000010: PERF_RECORD_SWITCH_CPU_WIDE IN prev pid/tid: 7/8",
        "typed-app 4242 [000] 1.000010: PERF_RECORD_LOST lost 9",
        "typed-app 4242 [000] 1.000010: PERF_RECORD_EXIT(4242:4242):(1:1)",
    ];
    assert_eq!(lines, expect, "{}", out.describe());

    let stats = perf_report_stats(file.path());
    stats.assert_success();
    let counts = parse_stats(&stats.stdout);
    for (name, n) in [
        ("LOST", 1),
        ("COMM", 1),
        ("EXIT", 1),
        ("THROTTLE", 1),
        ("UNTHROTTLE", 1),
        ("FORK", 1),
        ("SAMPLE", 4),
        ("MMAP2", 2),
        ("LOST_SAMPLES", 1),
        ("SWITCH", 1),
        ("SWITCH_CPU_WIDE", 1),
        ("KSYMBOL", 1),
        ("THREAD_MAP", 1),
        ("CPU_MAP", 1),
    ] {
        assert_eq!(counts.get(name).copied(), Some(n), "{name}: {counts:?}");
    }
    // The LOST_SAMPLES count went to the event its trailer's id names.
    let text = flat(&stats.stdout);
    assert!(
        text.contains("cpu-clock stats: SAMPLE events: 2 LOST_SAMPLES events: 4"),
        "{text}"
    );
}

#[test]
fn a_big_endian_trace_reads_the_same() {
    // Every field in the other byte order, u32 pairs (pid/tid, cpu/res) and the branch
    // entries' bit-fields (mirrored in a big-endian file) included: perf swaps it back and
    // prints what it prints for the little-endian file.
    let little = build_in(false, false, Endian::Little);
    let big = build_in(false, false, Endian::Big);
    assert_ne!(little.bytes, big.bytes);
    let (Some(lf), Some(bf)) = (readable(&little.bytes), readable(&big.bytes)) else {
        return;
    };
    // No iregs: perf 6.1 does not byte-swap attr.sample_regs_intr (perf_event__attr_swap
    // skips it), so it names a big-endian file's interrupt registers from a swapped mask
    // (the values are right: their count does not change).
    let fields = "comm,tid,pid,time,cpu,event,ip,sym,dso,addr,period,uregs,brstack,\
                  data_src,weight,phys_addr,data_page_size,code_page_size";
    let l = perf_script(lf.path(), &["-F", fields]);
    let b = perf_script(bf.path(), &["-F", fields]);
    l.assert_clean();
    b.assert_clean();
    assert_eq!(b.stdout, l.stdout);
    let args = [
        "--show-task-events",
        "--show-mmap-events",
        "--show-switch-events",
    ];
    let l = perf_script(lf.path(), &args);
    let b = perf_script(bf.path(), &args);
    b.assert_clean();
    let (ll, bl) = (script_lines(&l), script_lines(&b));
    assert_eq!(ll.len(), bl.len(), "{}", b.describe());
    for (l, b) in ll.iter().zip(&bl) {
        if l.contains("PERF_RECORD_MMAP2") {
            // perf 6.1's perf_event__mmap2_swap does not swap prot and flags: PROT_READ |
            // PROT_EXEC (5) read unswapped has neither bit.
            assert_eq!(*b, l.replace("r-xp", "---p"));
        } else if l.contains("PERF_RECORD_SWITCH ") {
            // perf 6.1 swaps a SWITCH record's trailer from 8 bytes too far (it skips
            // next_prev_pid/tid, which only SWITCH_CPU_WIDE has), so pid/tid stay swapped.
            let at = l.find(" [000]").unwrap();
            assert_eq!(b[b.find(" [000]").unwrap()..], l[at..]);
            assert!(b.starts_with(":-1844445184 -1844445184"), "{b}"); // 4242 byte-swapped
        } else {
            assert_eq!(b, l);
        }
    }
}
