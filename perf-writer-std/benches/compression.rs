//! What compression costs and gives (`set_compression`, the `zstd` feature): output size next
//! to one continuous zstd frame of the same record bytes at the same level, input throughput
//! next to the same zstd library compressing those bytes in one call and next to the writer
//! without compression, and peak memory as the trace grows.
//!
//! ```text
//! cargo bench -p perf-writer-std --features zstd --bench compression             # 5 runs
//! cargo bench -p perf-writer-std --features zstd --bench compression -- --quick  # 1/10 of the events
//! ```
//!
//! The events are 64-byte SAMPLEs (IDENTIFIER, IP, TID, TIME, ADDR, CPU, PERIOD) whose ips
//! come from 512 addresses, addrs from 64 pages, tids from 8 threads, times rising by a
//! random step: repetitive as real traces are, not constant. Writers write
//! to a seekable sink, so the numbers are CPU cost; sizes are the data section's bytes. Each
//! number is the median of the runs; timings are printed, never asserted. Without `--bench`
//! (as `cargo test --benches` runs it) it makes one tiny run.

use perf_abi::{record_type, sample_type};
use perf_writer_std::{Compression, CompressionForm, PerfDataFileWriter};
use std::hint::black_box;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;
use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};

/// `io::sink()` with a position.
#[derive(Default)]
struct SinkSeek {
    pos: u64,
    end: u64,
}

impl Write for SinkSeek {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pos += buf.len() as u64;
        self.end = self.end.max(self.pos);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for SinkSeek {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = match to {
            SeekFrom::Start(p) => p,
            SeekFrom::End(d) => self.end.saturating_add_signed(d),
            SeekFrom::Current(d) => self.pos.saturating_add_signed(d),
        };
        Ok(self.pos)
    }
}

const EVENT: usize = 64;
const ID: u64 = 1;

/// `n` SAMPLE records, back to back.
fn events(n: usize) -> Vec<u8> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut out = Vec::with_capacity(n * EVENT);
    let mut time = 1_000_000_000u64;
    for _ in 0..n {
        let r = next();
        time += 1000 + (r >> 40) % 4000;
        let tid = 1000 + (r % 8) as u32;
        let ip = 0xffff_ffff_8100_0000u64 + ((r >> 8) % 512) * 0x40;
        out.extend_from_slice(&record_type::SAMPLE.to_ne_bytes());
        out.extend_from_slice(&1u16.to_ne_bytes()); // misc: kernel
        out.extend_from_slice(&(EVENT as u16).to_ne_bytes());
        out.extend_from_slice(&ID.to_ne_bytes());
        out.extend_from_slice(&ip.to_ne_bytes());
        out.extend_from_slice(&tid.to_ne_bytes());
        out.extend_from_slice(&tid.to_ne_bytes());
        out.extend_from_slice(&time.to_ne_bytes());
        out.extend_from_slice(&(0x7f00_0000_0000u64 + ((r >> 30) % 64) * 0x1000).to_ne_bytes());
        out.extend_from_slice(&((r >> 20) as u32 % 2).to_ne_bytes());
        out.extend_from_slice(&0u32.to_ne_bytes());
        out.extend_from_slice(&250_000u64.to_ne_bytes());
    }
    out
}

fn attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_time: 250_000,
        sample_type: PerfEventAttrSampleType(
            sample_type::IDENTIFIER
                | sample_type::IP
                | sample_type::TID
                | sample_type::TIME
                | sample_type::ADDR
                | sample_type::CPU
                | sample_type::PERIOD,
        ),
        ..Default::default()
    }
}

/// Writes `bytes` event by event; returns (seconds, data section bytes).
fn write_with(bytes: &[u8], c: Option<Compression>) -> (f64, u64) {
    let start = Instant::now();
    let mut w = PerfDataFileWriter::from_writer(SinkSeek::default()).unwrap();
    w.set_strict(false);
    w.set_compression(c).unwrap();
    assert!(w.add_event_desc(&[ID], &attr(), "cpu-clock"));
    let header_end = w.file_pos().unwrap();
    for e in bytes.chunks_exact(EVENT) {
        w.write_event_data(e).unwrap();
    }
    w.flush().unwrap();
    let data = w.file_pos().unwrap() - header_end;
    black_box(w.finish().unwrap());
    (start.elapsed().as_secs_f64(), data)
}

/// zstd alone: `bytes` in one call at `level`, one frame; returns (seconds, bytes).
fn zstd_one_call(bytes: &[u8], level: i32, dst: &mut Vec<u8>) -> (f64, u64) {
    let start = Instant::now();
    dst.clear();
    let n = zstd::zstd_safe::compress(dst, bytes, level).unwrap();
    black_box(&dst);
    (start.elapsed().as_secs_f64(), n as u64)
}

/// zstd alone on the writer's chunks: each 256 KiB of `bytes` in one call, one frame each
/// (what the aligned form asks of zstd); returns (seconds, bytes).
fn zstd_chunks(bytes: &[u8], level: i32, dst: &mut Vec<u8>) -> (f64, u64) {
    let start = Instant::now();
    let mut cctx = zstd::zstd_safe::CCtx::create();
    cctx.set_parameter(zstd::zstd_safe::CParameter::CompressionLevel(level))
        .unwrap();
    let mut total = 0u64;
    for chunk in bytes.chunks(perf_writer_std::MAX_DECOMPRESSED_CHUNK) {
        dst.clear();
        total += cctx.compress2(dst, chunk).unwrap() as u64;
        black_box(&dst);
    }
    (start.elapsed().as_secs_f64(), total)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The child of the peak-memory row: writes `n` events compressed (default form) to a file in
/// `dir`, generating them in 64 KiB batches, and prints VmHWM in kB.
fn peak_child(n: usize, dir: &Path) {
    let batch = events(1024);
    let mut w = PerfDataFileWriter::new();
    w.create_file(dir.join("peak.data").to_str().unwrap())
        .unwrap();
    w.set_compression(Some(Compression::zstd(1))).unwrap();
    assert!(w.add_event_desc(&[ID], &attr(), "cpu-clock"));
    for _ in 0..n / 1024 {
        for e in batch.chunks_exact(EVENT) {
            w.write_event_data(e).unwrap();
        }
    }
    w.finalize_and_close().unwrap();
    println!("{}", vm_hwm_kib());
}

fn peak(n: usize, dir: &Path) -> u64 {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["__peak", &n.to_string()])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("__peak") {
        peak_child(args[2].parse().unwrap(), Path::new(&args[3]));
        return;
    }
    let bench = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick");
    let (n, runs) = match (bench, quick) {
        (false, _) => (20_000, 1),
        (true, true) => (200_000, 3),
        (true, false) => (2_000_000, 5),
    };
    let input = events(n);
    let mb = input.len() as f64 / 1e6;
    println!(
        "{n} events x {EVENT} B = {:.0} MB of records, median of {runs} runs",
        mb
    );
    println!();
    println!("| level | writer | output bytes | size ÷ one frame | MB/s of input | speed ÷ zstd one call | speed ÷ uncompressed writer |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut dst = Vec::with_capacity(zstd::zstd_safe::compress_bound(input.len()));
    let plain: Vec<(f64, u64)> = (0..runs).map(|_| write_with(&input, None)).collect();
    let plain_s = median(plain.iter().map(|r| r.0).collect());
    println!(
        "| – | writer, no compression | {} | – | {:.0} | – | 1.00× |",
        plain[0].1,
        mb / plain_s
    );
    for level in [1, 3] {
        let mut one = Vec::new();
        let mut chunks = Vec::new();
        let mut stream = Vec::new();
        let mut aligned = Vec::new();
        // Interleaved, so that noise falls on all three alike.
        for _ in 0..runs {
            one.push(zstd_one_call(&input, level, &mut dst));
            chunks.push(zstd_chunks(&input, level, &mut dst));
            let perfs = Compression {
                level,
                form: CompressionForm::PerfStream,
            };
            stream.push(write_with(&input, Some(perfs)));
            aligned.push(write_with(&input, Some(Compression::zstd(level))));
        }
        let one_s = median(one.iter().map(|r| r.0).collect());
        let one_len = one[0].1;
        println!(
            "| {level} | zstd one call, one frame (reference) | {one_len} | 1.000 | {:.0} | 1.00× | {:.2}× |",
            mb / one_s,
            plain_s / one_s
        );
        for (name, rows) in [
            ("zstd one call per 256 KiB chunk (no writer)", &chunks),
            ("writer, perf's form", &stream),
            ("writer, aligned form (default)", &aligned),
        ] {
            let s = median(rows.iter().map(|r| r.0).collect());
            let len = rows[0].1;
            println!(
                "| {level} | {name} | {len} | {:.3} | {:.0} | {:.2}× | {:.2}× |",
                len as f64 / one_len as f64,
                mb / s,
                one_s / s,
                plain_s / s
            );
        }
    }
    if bench {
        let dir = tempfile::tempdir().unwrap();
        let small = n / 2;
        let (a, b) = (peak(small, dir.path()), peak(small * 10, dir.path()));
        println!();
        println!("| peak memory (VmHWM, child process, compressed to a file) | {small} events | {} events | ratio |", small * 10);
        println!("|---|---:|---:|---:|");
        println!(
            "| writer, aligned form (default), level 1 | {a} kB | {b} kB | {:.3} |",
            b as f64 / a as f64
        );
    }
}
