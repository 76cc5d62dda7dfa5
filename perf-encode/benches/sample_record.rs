//! Per-event cost of typed SAMPLE records: `to_slice(&SampleRecord)` (length, then body),
//! `encoded_len` alone, `parse_sample` and `Sample::masked`, for three layouts.
//!
//! ```text
//! cargo bench -p perf-encode --bench sample_record                  # 9 runs
//! cargo bench -p perf-encode --bench sample_record -- --runs 15 --only small
//! ```
//!
//! Options: `--runs N`, `--only NAME[,NAME]` (small, callchain, all), `--quick`. Each cell is
//! the median over the runs of the time per record; the runs of all cells rotate, so machine
//! noise falls on all alike. Run without `--bench` (as `cargo test --benches` does) it only
//! makes a tiny smoke run.
// A benchmark, not library code: indexing and unwrapping on known inputs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use perf_abi::record_fields::REGS_ABI_64;
use perf_abi::{misc, read_format, sample_type};
use perf_encode::records::{
    parse_sample, BranchEntry, BranchStack, PidTid, ReadCounters, ReadValue, ReadValues, Regs,
    Sample, SampleCpu, SampleLayout, SampleRecord, StackUser, WeightStruct,
};
use perf_encode::{encoded_len, to_slice, Endian};
use std::hint::black_box;
use std::time::Instant;

/// Every `sample_type` bit perf 6.1 knows.
const ALL_SAMPLE_BITS: u64 = sample_type::MAX - 1;

struct Inputs {
    callchain: [u64; 16],
    raw: [u8; 44],
    branches: [BranchEntry; 4],
    regs: [u64; 3],
    stack: [u8; 64],
    group: [ReadValue; 2],
}

fn inputs() -> Inputs {
    Inputs {
        callchain: core::array::from_fn(|i| 0xffff_8000_0000_0000 | i as u64),
        raw: core::array::from_fn(|i| i as u8),
        branches: core::array::from_fn(|i| BranchEntry {
            from: i as u64,
            to: i as u64 + 1,
            flags: BranchEntry::PREDICTED,
        }),
        regs: [1, 2, 3],
        stack: [0x5a; 64],
        group: [
            ReadValue {
                value: 1,
                id: Some(10),
                lost: None,
            },
            ReadValue {
                value: 2,
                id: Some(11),
                lost: None,
            },
        ],
    }
}

/// A case: a layout; its sample is [`full_sample`] masked by it.
struct Case {
    name: &'static str,
    layout: SampleLayout,
}

fn cases() -> [Case; 3] {
    use sample_type::*;
    [
        Case {
            name: "small",
            layout: SampleLayout {
                sample_type: IDENTIFIER | IP | TID | TIME | CPU | PERIOD,
                ..Default::default()
            },
        },
        Case {
            name: "callchain",
            layout: SampleLayout {
                sample_type: IDENTIFIER | IP | TID | TIME | CPU | PERIOD | CALLCHAIN | RAW,
                ..Default::default()
            },
        },
        Case {
            name: "all",
            layout: SampleLayout {
                sample_type: ALL_SAMPLE_BITS & !WEIGHT_STRUCT,
                read_format: read_format::GROUP | read_format::ID,
                regs_user: 3,
                regs_intr: 3,
                branch_hw_index: true,
                sample_id_all: true,
            },
        },
    ]
}

/// A sample with every field (`i` varies two values).
fn full_sample(inp: &Inputs, i: u64) -> Sample<'_> {
    Sample {
        identifier: Some(7),
        ip: Some(0x40_1000 + i),
        tid: Some(PidTid { pid: 100, tid: 101 }),
        time: Some(1_000_000 + i),
        addr: Some(i),
        id: Some(7),
        stream_id: Some(8),
        cpu: Some(SampleCpu::new(3)),
        period: Some(4000),
        read: Some(ReadValues {
            time_enabled: None,
            time_running: None,
            counters: ReadCounters::Group(&inp.group),
        }),
        callchain: Some(&inp.callchain),
        raw: Some(&inp.raw),
        branch_stack: Some(BranchStack {
            hw_idx: Some(2),
            entries: &inp.branches,
        }),
        regs_user: Some(Regs {
            abi: REGS_ABI_64,
            regs: &inp.regs,
        }),
        stack_user: Some(StackUser {
            data: &inp.stack,
            dyn_size: 40,
        }),
        weight: None,
        weight_struct: Some(WeightStruct {
            var1_dw: 9,
            var2_w: 1,
            var3_w: 0,
        }),
        data_src: Some(5),
        transaction: Some(6),
        regs_intr: Some(Regs {
            abi: REGS_ABI_64,
            regs: &inp.regs,
        }),
        phys_addr: Some(0x1000),
        cgroup: Some(1),
        data_page_size: Some(4096),
        code_page_size: Some(4096),
        aux: Some(&inp.raw[..24]),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    ToSlice,
    EncodedLen,
    Parse,
    Masked,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::ToSlice => "to_slice(SampleRecord)",
            Op::EncodedLen => "encoded_len(SampleRecord)",
            Op::Parse => "parse_sample",
            Op::Masked => "Sample::masked",
        }
    }
}

/// Runs `op` on `n` samples of `case`; returns seconds.
#[inline(never)]
fn run(op: Op, case: &Case, inp: &Inputs, n: u64, buf: &mut [u8]) -> f64 {
    let layout = black_box(case.layout);
    let t0 = Instant::now();
    let mut total = 0usize;
    match op {
        Op::ToSlice | Op::EncodedLen => {
            let sample = full_sample(inp, 0).masked(&layout);
            for _ in 0..n {
                let rec = SampleRecord {
                    layout: &layout,
                    sample: black_box(&sample),
                    misc: misc::USER,
                };
                total += if op == Op::ToSlice {
                    to_slice(black_box(&rec), Endian::NATIVE, buf)
                        .unwrap()
                        .len()
                } else {
                    encoded_len(black_box(&rec)).unwrap()
                };
            }
        }
        Op::Masked => {
            let full = full_sample(inp, 0);
            for _ in 0..n {
                let s = black_box(&full).masked(black_box(&layout));
                total += usize::from(black_box(&s).ip.is_some());
            }
        }
        Op::Parse => {
            let sample = full_sample(inp, 0).masked(&layout);
            let rec = SampleRecord {
                layout: &layout,
                sample: &sample,
                misc: misc::USER,
            };
            let len = to_slice(&rec, Endian::NATIVE, buf).unwrap().len();
            let bytes = &buf[..len];
            for _ in 0..n {
                let p = parse_sample(&layout, Endian::NATIVE, black_box(bytes)).unwrap();
                total += p.len;
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    black_box(total);
    secs
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let quick = !bench || args.iter().any(|a| a == "--quick");
    let runs: usize = value("--runs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 3 } else { 9 });
    let n: u64 = if !bench {
        1_000
    } else if quick {
        200_000
    } else {
        2_000_000
    };
    let only: Option<Vec<String>> =
        value("--only").map(|v| v.split(',').map(str::to_owned).collect());
    let inp = inputs();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| only.as_ref().is_none_or(|o| o.iter().any(|x| x == c.name)))
        .collect();
    let ops = [Op::ToSlice, Op::EncodedLen, Op::Parse, Op::Masked];
    let mut buf = vec![0u8; 4096];
    // Warm-up.
    for c in &cases {
        for op in ops {
            run(op, c, &inp, n / 10 + 1, &mut buf);
        }
    }
    let mut times = vec![vec![Vec::new(); ops.len()]; cases.len()];
    for round in 0..runs {
        for k in 0..cases.len() * ops.len() {
            let k = (k + round) % (cases.len() * ops.len());
            let (ci, oi) = (k / ops.len(), k % ops.len());
            let secs = run(ops[oi], &cases[ci], &inp, n, &mut buf);
            times[ci][oi].push(secs * 1e9 / n as f64);
        }
    }
    println!("\n{n} records per cell, median of {runs} runs, ns/record\n");
    println!("| layout | bytes | {} |", ops.map(Op::name).join(" | "));
    println!("|---|---:|{}", "---:|".repeat(ops.len()));
    for (ci, c) in cases.iter().enumerate() {
        let sample = full_sample(&inp, 0).masked(&c.layout);
        let len = encoded_len(&SampleRecord {
            layout: &c.layout,
            sample: &sample,
            misc: 0,
        })
        .unwrap();
        let cells: Vec<String> = times[ci]
            .iter_mut()
            .map(|t| format!("{:.1}", median(t)))
            .collect();
        println!("| {} | {} | {} |", c.name, len, cells.join(" | "));
    }
}
