//! Child process of the pipe-mode crash test: writes batches of samples to a pipe-mode file,
//! flushing after each batch and then writing (without flushing) a few more, and waits for a
//! line on stdin before the next batch, so the parent can SIGKILL it at a known point.
//!
//! Usage: `pipe_crash_child PATH BATCHES PER_BATCH UNFLUSHED`. After each flush it prints
//! `flushed N` (N samples flushed so far).

use perf_writer_std::{PerfHeaderIndex, PerfPipeWriter};
use std::io::{BufRead, Write};
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
};

fn sample(n: u64) -> Vec<u8> {
    // SAMPLE: IDENTIFIER | IP | TID | TIME, little-endian.
    let mut r = vec![9, 0, 0, 0, 2, 0, 40, 0];
    r.extend_from_slice(&1u64.to_le_bytes());
    r.extend_from_slice(&0x1000u64.to_le_bytes());
    r.extend_from_slice(&100u32.to_le_bytes());
    r.extend_from_slice(&100u32.to_le_bytes());
    r.extend_from_slice(&(1_000_000_000 + n * 1000).to_le_bytes());
    r
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, batches, per_batch, unflushed] = &args[..] else {
        eprintln!("usage: pipe_crash_child PATH BATCHES PER_BATCH UNFLUSHED");
        std::process::exit(2);
    };
    let (batches, per_batch, unflushed): (u64, u64, u64) = (
        batches.parse().unwrap(),
        per_batch.parse().unwrap(),
        unflushed.parse().unwrap(),
    );

    let attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(1 << 16 | 1 << 0 | 1 << 1 | 1 << 2),
        options: PerfEventAttrOptions(1 << 18),
        ..Default::default()
    };
    let mut w = PerfPipeWriter::new();
    w.create_file(path).unwrap();
    w.add_event_desc(&[1], &attr, "crash-test").unwrap();
    w.set_string_header(PerfHeaderIndex::Hostname, b"crash-host")
        .unwrap();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    let mut n = 0u64;
    for _ in 0..batches {
        for _ in 0..per_batch {
            w.write_event_data(&sample(n)).unwrap();
            n += 1;
        }
        w.flush().unwrap();
        writeln!(out, "flushed {n}").unwrap();
        out.flush().unwrap();
        // Written but not flushed: must not be in the file when the parent kills us now.
        for i in 0..unflushed {
            w.write_event_data(&sample(n + i)).unwrap();
        }
        n += unflushed;
        if lines.next().is_none() {
            break;
        }
    }
    w.finalize_and_close().unwrap();
    writeln!(out, "finished {n}").unwrap();
}
