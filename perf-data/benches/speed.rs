//! MB/s of `perf-data convert` and `recover` against `cat` of the same file, side by side in
//! one run (BENCHMARKS.md, "perf-data"). The input: 1,000,000 SAMPLEs of 64 bytes (one
//! software event) written by perf-writer-std, finalized (for convert) and left unfinalized
//! (for recover, as a killed writer leaves it). Each round runs the three in a rotating
//! order, reading the input from the page cache and writing a new file beside it; the
//! median of the rounds is printed. Run without `--bench` (`cargo test --benches`) it makes
//! one small round and checks the outputs only.
//!
//! ```sh
//! cargo bench -p perf-data --bench speed            # 7 rounds
//! cargo bench -p perf-data --bench speed -- --runs 15
//! ```

use perf_data::convert::{convert, ConvertOptions};
use perf_data::read::{parse, read_input};
use perf_data::recover::recover;
use perf_writer_std::PerfDataFileWriter;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};

/// IDENTIFIER | IP | TID | TIME | CPU | PERIOD | ADDR: 8 + 7 × 8 = 64 bytes.
const SAMPLE_TYPE: u64 = (1 << 16) | 1 | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 7) | (1 << 8);

fn sample(i: u64) -> [u8; 64] {
    let mut r = [0u8; 64];
    r[..8].copy_from_slice(&[9, 0, 0, 0, 2, 0, 64, 0]);
    let words = [
        1,
        0xffff_ffff_8100_0000 + i,
        (7 << 32) | 7,
        1000 + i,
        i,
        0,
        1,
    ];
    r[8..16].copy_from_slice(&1u64.to_le_bytes());
    for (k, w) in words.iter().enumerate().skip(1) {
        r[8 + 8 * k..16 + 8 * k].copy_from_slice(&w.to_le_bytes());
    }
    r
}

/// Writes `n` samples into `path`; finalized or flushed and abandoned.
fn write(path: &Path, n: u64, finalize: bool) {
    let mut w = PerfDataFileWriter::new();
    w.create_file(path.to_str().unwrap()).unwrap();
    let attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: PerfEventAttrSampleType(SAMPLE_TYPE),
        ..Default::default()
    };
    assert!(w.add_event_desc(&[1], &attr, "cpu-clock"));
    for i in 0..n {
        w.write_event_data(&sample(i)).unwrap();
    }
    if finalize {
        w.finalize_and_close().unwrap();
    } else {
        w.flush().unwrap();
        std::mem::forget(w); // never finalized: what a killed writer leaves
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(if bench { 7 } else { 1 });
    let n: u64 = if bench { 1_000_000 } else { 10_000 };
    // BENCH_DIR: where the files go (default: the system's temporary directory).
    let dir = match std::env::var_os("BENCH_DIR") {
        Some(d) => tempfile::tempdir_in(d),
        None => tempfile::tempdir(),
    }
    .unwrap();
    let (whole, killed) = (
        dir.path().join("whole.data"),
        dir.path().join("killed.data"),
    );
    write(&whole, n, true);
    write(&killed, n, false);
    let out = dir.path().join("out.data");
    let len = |p: &Path| std::fs::metadata(p).unwrap().len();
    let (whole_len, killed_len) = (len(&whole), len(&killed));

    type Step<'a> = (&'a str, &'a Path, Box<dyn Fn() + 'a>);
    let steps: Vec<Step<'_>> = vec![
        (
            "cat",
            &whole,
            Box::new(|| {
                let f = std::fs::File::create(&out).unwrap();
                let s = Command::new("cat").arg(&whole).stdout(f).status().unwrap();
                assert!(s.success());
            }),
        ),
        (
            "convert",
            &whole,
            Box::new(|| {
                let trace = parse(&whole, read_input(&whole).unwrap()).unwrap();
                convert(&trace, &out, &ConvertOptions::default()).unwrap();
            }),
        ),
        (
            "recover",
            &killed,
            Box::new(|| {
                let done = recover(&killed, read_input(&killed).unwrap(), &out).unwrap();
                assert_eq!(done.records as u64, n);
            }),
        ),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); steps.len()];
    for round in 0..runs {
        for k in 0..steps.len() {
            let i = (round + k) % steps.len();
            let t = Instant::now();
            (steps[i].2)();
            times[i].push(t.elapsed());
            // Every output holds the whole input's records: the file is as long as `whole`.
            assert_eq!(len(&out), whole_len, "{}", steps[i].0);
        }
    }
    println!(
        "{n} SAMPLEs of 64 B: finalized {whole_len} bytes, unfinalized {killed_len} bytes; median of {runs} rounds"
    );
    println!("| command | input | time | MB/s | ÷ cat |");
    println!("|---|---:|---:|---:|---:|");
    let mbs = |bytes: u64, d: Duration| bytes as f64 / 1e6 / d.as_secs_f64();
    let cat = mbs(whole_len, median(times[0].clone()));
    for (i, (name, input, _)) in steps.iter().enumerate() {
        let m = median(times[i].clone());
        let speed = mbs(len(input), m);
        println!(
            "| {name} | {} B | {:.1} ms | {speed:.0} | {:.2}× |",
            len(input),
            m.as_secs_f64() * 1e3,
            speed / cat
        );
    }
}
