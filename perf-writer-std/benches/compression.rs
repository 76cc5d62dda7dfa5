//! What compression costs and gives (`set_compression`, the `zstd` feature): output size next
//! to one continuous zstd frame of the same record bytes at the same level, input throughput
//! next to the same zstd library compressing those bytes (in one call, and streaming) and next
//! to the writer without compression; the same for the cadences of FINISHED_ROUND records and
//! flushes a trace can have, and for a real `perf record` trace rewritten; peak memory per
//! level and as the trace grows.
//!
//! ```text
//! cargo bench -p perf-writer-std --features zstd --bench compression             # 5 runs
//! cargo bench -p perf-writer-std --features zstd --bench compression -- --quick  # 1/10 of the events
//! cargo bench -p perf-writer-std --features zstd --bench compression -- --only main,peak
//! cargo bench -p perf-writer-std --features zstd --bench compression -- --levels 1,9
//! cargo bench -p perf-writer-std --features zstd --bench compression -- --only cadence --cadences 2,3
//! ```
//!
//! The events are 64-byte SAMPLEs (IDENTIFIER, IP, TID, TIME, ADDR, CPU, PERIOD) whose ips
//! come from 512 addresses, addrs from 64 pages, tids from 8 threads, times rising by a
//! random step: repetitive as real traces are, not constant. Writers write to a sink, so the
//! numbers are CPU cost; sizes are the data section's bytes (pipe mode: the bytes after the
//! stream's header records). The reference for a size is one zstd frame of the bytes the
//! writer without compression writes (FINISHED_ROUND records included). Each number is the
//! median of the runs, the rows of one level interleaved; timings are printed, never
//! asserted. Without `--bench` (as `cargo test --benches` runs it) it makes one tiny run.

use perf_abi::{record_type, sample_type};
use perf_writer_std::{
    Compression, CompressionForm, FileOutput, OutputMode, PerfPipeWriter, PerfWriter,
};
use std::hint::black_box;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;
use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
use zstd::zstd_safe::{self, zstd_sys::ZSTD_EndDirective, CCtx, CParameter, InBuffer, OutBuffer};

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
/// A FINISHED_ROUND record.
const ROUND: [u8; 8] = {
    let t = record_type::FINISHED_ROUND.to_ne_bytes();
    let s = 8u16.to_ne_bytes();
    [t[0], t[1], t[2], t[3], 0, 0, s[0], s[1]]
};

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
        // sample_id_all
        options: tracepoint_decode::PerfEventAttrOptions(1 << 18),
        ..Default::default()
    }
}

/// Where a trace's FINISHED_ROUND records and flushes fall.
#[derive(Clone, Copy)]
struct Cadence {
    name: &'static str,
    /// A FINISHED_ROUND after every this many records.
    round_every: Option<usize>,
    /// A `flush` after every this many records.
    flush_every: Option<usize>,
    /// Written by `PerfPipeWriter` (else `PerfDataFileWriter`).
    pipe: bool,
}

const CADENCES: [Cadence; 5] = [
    Cadence {
        name: "no FINISHED_ROUND, no flush",
        round_every: None,
        flush_every: None,
        pipe: false,
    },
    Cadence {
        name: "FINISHED_ROUND every 20 records (perf's cadence)",
        round_every: Some(20),
        flush_every: None,
        pipe: false,
    },
    Cadence {
        name: "pipe, FINISHED_ROUND every 20, flush every 1,000 records",
        round_every: Some(20),
        flush_every: Some(1000),
        pipe: true,
    },
    Cadence {
        name: "FINISHED_ROUND after every record",
        round_every: Some(1),
        flush_every: None,
        pipe: false,
    },
    Cadence {
        name: "flush after every record",
        round_every: None,
        flush_every: Some(1),
        pipe: false,
    },
];

impl Cadence {
    /// The records the writer without compression writes for `records` (whole records of
    /// `len` bytes each) at this cadence: the input one zstd frame is measured on.
    fn plain(&self, records: &[u8], len: usize) -> Vec<u8> {
        let Some(k) = self.round_every else {
            return records.to_vec();
        };
        let mut out = Vec::with_capacity(records.len() + records.len() / len / k * 8 + 8);
        for (i, r) in records.chunks_exact(len).enumerate() {
            out.extend_from_slice(r);
            if (i + 1) % k == 0 {
                out.extend_from_slice(&ROUND);
            }
        }
        out
    }
}

/// The records of `bytes` (whole records, the machine's byte order), in order.
fn each_record(mut bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let size = usize::from(u16::from_ne_bytes([*bytes.get(6)?, *bytes.get(7)?]));
        let (record, rest) = bytes.split_at(size);
        bytes = rest;
        Some(record)
    })
}

/// Writes `records` (whole records, back to back) one `write_event_data` call per record at
/// `cadence`; returns (seconds, bytes after the setup).
fn write_cadence(records: &[u8], c: Option<Compression>, cadence: Cadence) -> (f64, u64) {
    match c {
        Some(Compression {
            level,
            form: CompressionForm::PerfStream,
        }) => write_perf_form(records, level, cadence),
        Some(Compression {
            level,
            form: CompressionForm::Aligned,
        }) => write_aligned_form(records, level, cadence),
        None => write_any(records, None, cadence),
    }
}

/// [`write_cadence`] in perf's form, in a function of its own for callgrind
/// (`--toggle-collect='compression::write_perf_form'`).
#[inline(never)]
fn write_perf_form(records: &[u8], level: i32, cadence: Cadence) -> (f64, u64) {
    let form = CompressionForm::PerfStream;
    write_any(records, Some(Compression { level, form }), cadence)
}

/// [`write_cadence`] in the aligned form, in a function of its own for callgrind.
#[inline(never)]
fn write_aligned_form(records: &[u8], level: i32, cadence: Cadence) -> (f64, u64) {
    write_any(records, Some(Compression::zstd(level)), cadence)
}

fn write_any(records: &[u8], c: Option<Compression>, cadence: Cadence) -> (f64, u64) {
    if cadence.pipe {
        let mut w = PerfPipeWriter::from_writer(SinkSeek::default()).unwrap();
        let r = write_to(&mut w, records, c, cadence);
        black_box(w.finish().unwrap());
        r
    } else {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(SinkSeek::default()).unwrap();
        let r = write_to(&mut w, records, c, cadence);
        black_box(w.finish().unwrap());
        r
    }
}

fn write_to<O: OutputMode>(
    w: &mut PerfWriter<O>,
    records: &[u8],
    c: Option<Compression>,
    cadence: Cadence,
) -> (f64, u64) {
    let start = Instant::now();
    w.set_strict(false);
    w.set_compression(c).unwrap();
    w.add_event_desc(&[ID], &attr(), "cpu-clock").unwrap();
    let header_end = w.file_pos().unwrap();
    // Countdowns rather than `n % k`: two divisions a record would weigh on the writer's rows
    // and not on zstd's.
    let (round_every, flush_every) = (
        cadence.round_every.unwrap_or(usize::MAX),
        cadence.flush_every.unwrap_or(usize::MAX),
    );
    let (mut to_round, mut to_flush) = (round_every, flush_every);
    for e in each_record(records) {
        w.write_event_data(e).unwrap();
        to_round -= 1;
        if to_round == 0 {
            to_round = round_every;
            w.write_finished_round().unwrap();
        }
        to_flush -= 1;
        if to_flush == 0 {
            to_flush = flush_every;
            w.flush().unwrap();
        }
    }
    w.flush().unwrap();
    let data = w.file_pos().unwrap() - header_end;
    (start.elapsed().as_secs_f64(), data)
}

/// zstd alone: `bytes` in one call at `level`, one frame; returns (seconds, bytes).
#[inline(never)]
fn zstd_one_call(bytes: &[u8], level: i32, dst: &mut Vec<u8>) -> (f64, u64) {
    let start = Instant::now();
    dst.clear();
    let n = zstd_safe::compress(dst, bytes, level).unwrap();
    black_box(&dst);
    (start.elapsed().as_secs_f64(), n as u64)
}

/// zstd alone on the aligned form's chunks: each 256 KiB of `bytes` in one call, one frame
/// each; returns (seconds, bytes).
#[inline(never)]
fn zstd_chunks(bytes: &[u8], level: i32, dst: &mut Vec<u8>) -> (f64, u64) {
    let start = Instant::now();
    let mut cctx = CCtx::create();
    cctx.set_parameter(CParameter::CompressionLevel(level))
        .unwrap();
    let mut total = 0u64;
    for chunk in bytes.chunks(perf_writer_std::MAX_DECOMPRESSED_CHUNK) {
        dst.clear();
        total += cctx.compress2(dst, chunk).unwrap() as u64;
        black_box(&dst);
    }
    (start.elapsed().as_secs_f64(), total)
}

/// zstd alone, streaming (what perf's form asks of zstd): `bytes` given 256 KiB at a time
/// to `ZSTD_compressStream2`, one frame, ended at the end; returns (seconds, bytes).
#[inline(never)]
fn zstd_streaming(bytes: &[u8], level: i32, dst: &mut [u8]) -> (f64, u64) {
    let start = Instant::now();
    let mut cctx = CCtx::create();
    cctx.set_parameter(CParameter::CompressionLevel(level))
        .unwrap();
    let mut total = 0u64;
    let pieces = bytes.chunks(perf_writer_std::MAX_DECOMPRESSED_CHUNK);
    for piece in pieces.chain(std::iter::once(&[][..])) {
        let end = piece.is_empty();
        let mode = if end {
            ZSTD_EndDirective::ZSTD_e_end
        } else {
            ZSTD_EndDirective::ZSTD_e_continue
        };
        let mut src = InBuffer::around(piece);
        loop {
            let mut out = OutBuffer::around(&mut *dst);
            let left = cctx.compress_stream2(&mut out, &mut src, mode).unwrap();
            total += out.pos() as u64;
            black_box(out.as_slice());
            if src.pos() == piece.len() && (!end || left == 0) {
                break;
            }
        }
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

fn form_named(name: &str) -> CompressionForm {
    match name {
        "perf" => CompressionForm::PerfStream,
        _ => CompressionForm::Aligned,
    }
}

/// The child of the peak-memory rows: writes `n` events compressed in `form` at `level` to a
/// file in `dir`, generating them in 64 KiB batches, and prints VmHWM in kB.
fn peak_child(form: CompressionForm, level: i32, n: usize, dir: &Path) {
    let batch = events(1024);
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(dir.join("peak.data").to_str().unwrap())
        .unwrap();
    w.set_compression(Some(Compression { level, form }))
        .unwrap();
    w.add_event_desc(&[ID], &attr(), "cpu-clock").unwrap();
    for _ in 0..n.div_ceil(1024) {
        for e in batch.chunks_exact(EVENT) {
            w.write_event_data(e).unwrap();
        }
    }
    w.finalize_and_close().unwrap();
    println!("{}", vm_hwm_kib());
}

/// The child's VmHWM, in kB.
fn peak(form: &str, level: i32, n: usize, dir: &Path) -> u64 {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["__peak", form, &level.to_string(), &n.to_string()])
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

/// The data section of a `perf record` file (little-endian, as the machine's): its records
/// in file order, FINISHED_ROUND included.
fn recording_data(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let (offset, size) = (word(40), word(48));
    bytes[offset..offset + size].to_vec()
}

const FORMS: [(&str, CompressionForm); 2] = [
    ("perf's form", CompressionForm::PerfStream),
    ("aligned form (default)", CompressionForm::Aligned),
];

/// The main table: the trace without rounds or flushes, writer and zstd side by side.
fn main_table(input: &[u8], levels: &[i32], runs: usize) {
    let mb = input.len() as f64 / 1e6;
    let records = input;
    let cadence = CADENCES[0];
    println!("| level | writer | output bytes | size ÷ one frame | MB/s of input | speed ÷ zstd one call | speed ÷ zstd streaming | speed ÷ uncompressed writer |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let mut dst = Vec::with_capacity(zstd_safe::compress_bound(input.len()));
    let mut stream_dst = vec![0u8; 1 << 20];
    let plain: Vec<(f64, u64)> = (0..runs)
        .map(|_| write_cadence(records, None, cadence))
        .collect();
    let plain_s = median(plain.iter().map(|r| r.0).collect());
    println!(
        "| – | writer, no compression | {} | – | {:.0} | – | – | 1.00× |",
        plain[0].1,
        mb / plain_s
    );
    for &level in levels {
        let (mut one, mut chunks, mut streaming) = (Vec::new(), Vec::new(), Vec::new());
        let mut writers: Vec<Vec<(f64, u64)>> = vec![Vec::new(); FORMS.len()];
        // Interleaved, so that noise falls on all alike.
        for _ in 0..runs {
            one.push(zstd_one_call(input, level, &mut dst));
            chunks.push(zstd_chunks(input, level, &mut dst));
            streaming.push(zstd_streaming(input, level, &mut stream_dst));
            for (rows, (_, form)) in writers.iter_mut().zip(FORMS) {
                rows.push(write_cadence(
                    records,
                    Some(Compression { level, form }),
                    cadence,
                ));
            }
        }
        let one_s = median(one.iter().map(|r| r.0).collect());
        let stream_s = median(streaming.iter().map(|r| r.0).collect());
        let one_len = one[0].1;
        let mut rows = vec![
            ("zstd one call, one frame (reference)".to_string(), &one),
            (
                "zstd one call per 256 KiB chunk (no writer)".to_string(),
                &chunks,
            ),
            (
                "zstd streaming, one frame (no writer)".to_string(),
                &streaming,
            ),
        ];
        for (r, (name, _)) in writers.iter().zip(FORMS) {
            rows.push((format!("writer, {name}"), r));
        }
        for (name, r) in rows {
            let s = median(r.iter().map(|r| r.0).collect());
            let len = r[0].1;
            println!(
                "| {level} | {name} | {len} | {:.3} | {:.0} | {:.2}× | {:.2}× | {:.2}× |",
                len as f64 / one_len as f64,
                mb / s,
                one_s / s,
                stream_s / s,
                plain_s / s
            );
        }
    }
}

/// The cadence table: each form at each cadence, next to one zstd frame of the plain
/// output and to zstd's own speed (one call for the aligned form, streaming for perf's).
fn cadence_table(input: &[u8], levels: &[i32], runs: usize, cadences: &[usize]) {
    let records = input;
    println!("| cadence | level | form | output bytes | size ÷ uncompressed | size ÷ one frame | MB/s of input | speed ÷ zstd |");
    println!("|---|---|---|---:|---:|---:|---:|---:|");
    let mut dst = Vec::with_capacity(zstd_safe::compress_bound(input.len() * 2));
    let mut stream_dst = vec![0u8; 1 << 20];
    for cadence in cadences.iter().filter_map(|&i| CADENCES.get(i)) {
        let plain_bytes = cadence.plain(input, EVENT);
        let mb = input.len() as f64 / 1e6;
        for &level in levels {
            let (mut one, mut streaming, mut plain) = (Vec::new(), Vec::new(), Vec::new());
            let mut writers: Vec<Vec<(f64, u64)>> = vec![Vec::new(); FORMS.len()];
            for _ in 0..runs {
                one.push(zstd_one_call(&plain_bytes, level, &mut dst));
                streaming.push(zstd_streaming(&plain_bytes, level, &mut stream_dst));
                plain.push(write_cadence(records, None, *cadence));
                for (rows, (_, form)) in writers.iter_mut().zip(FORMS) {
                    rows.push(write_cadence(
                        records,
                        Some(Compression { level, form }),
                        *cadence,
                    ));
                }
            }
            let one_s = median(one.iter().map(|r| r.0).collect());
            let stream_s = median(streaming.iter().map(|r| r.0).collect());
            let (one_len, plain_len) = (one[0].1, plain[0].1);
            for (rows, (name, form)) in writers.iter().zip(FORMS) {
                let s = median(rows.iter().map(|r| r.0).collect());
                let len = rows[0].1;
                let (zstd_s, zstd_name) = match form {
                    CompressionForm::PerfStream => (stream_s, "streaming"),
                    CompressionForm::Aligned => (one_s, "one call"),
                };
                println!(
                    "| {} | {level} | {name} | {len} | {:.3} | {:.3} | {:.0} | {:.2}× ({zstd_name}) |",
                    cadence.name,
                    len as f64 / plain_len as f64,
                    len as f64 / one_len as f64,
                    mb / s,
                    zstd_s / s,
                );
            }
        }
    }
}

/// The real recording rewritten record by record (perf's own FINISHED_ROUND records), next
/// to one zstd frame of its data section.
fn recording_table(levels: &[i32]) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/perf-6.1/rounds_getppid.data");
    let data = recording_data(&path);
    let is_round = |r: &&[u8]| r[..4] == record_type::FINISHED_ROUND.to_le_bytes();
    let rounds = each_record(&data).filter(is_round).count();
    let without_rounds: Vec<u8> = each_record(&data)
        .filter(|r| !is_round(r))
        .flatten()
        .copied()
        .collect();
    println!(
        "tests/data/perf-6.1/rounds_getppid.data: {} records, {rounds} FINISHED_ROUND, {} bytes of data",
        each_record(&data).count(),
        data.len()
    );
    println!();
    println!("| level | form | output bytes | size ÷ uncompressed | size ÷ one frame | size ÷ one frame of the records without perf's rounds |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut dst = Vec::with_capacity(zstd_safe::compress_bound(data.len()));
    let cadence = CADENCES[0];
    for &level in levels {
        let one = zstd_one_call(&data, level, &mut dst).1;
        let one_without = zstd_one_call(&without_rounds, level, &mut dst).1;
        for (name, form) in FORMS {
            let len = write_cadence(&data, Some(Compression { level, form }), cadence).1;
            println!(
                "| {level} | {name} | {len} | {:.3} | {:.3} | {:.3} |",
                len as f64 / data.len() as f64,
                len as f64 / one as f64,
                len as f64 / one_without as f64
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("__peak") {
        let form = form_named(&args[2]);
        let (level, n) = (args[3].parse().unwrap(), args[4].parse().unwrap());
        peak_child(form, level, n, Path::new(&args[5]));
        return;
    }
    let bench = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick");
    // `--only main,cadence,recording,peak`: those tables alone.
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').map(str::to_string).collect());
    let runs_table = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|t| t == name));
    let (n, runs) = match (bench, quick) {
        (false, _) => (20_000, 1),
        (true, true) => (200_000, 3),
        (true, false) => (2_000_000, 5),
    };
    // `--levels 1,3` (the default): the levels of the size and speed tables.
    let levels: Vec<i32> = args
        .iter()
        .position(|a| a == "--levels")
        .and_then(|i| args.get(i + 1))
        .map_or(vec![1, 3], |v| {
            v.split(',').map(|l| l.parse().unwrap()).collect()
        });
    // `--cadences 1,3`: those rows of the cadence table (1 to 4, CADENCES' order) alone.
    let cadences: Vec<usize> = args
        .iter()
        .position(|a| a == "--cadences")
        .and_then(|i| args.get(i + 1))
        .map_or((1..CADENCES.len()).collect(), |v| {
            v.split(',').map(|c| c.parse().unwrap()).collect()
        });
    let input = events(n);
    println!(
        "{n} events x {EVENT} B = {:.0} MB of records, median of {runs} runs",
        input.len() as f64 / 1e6
    );
    if runs_table("main") {
        println!();
        main_table(&input, &levels, runs);
    }
    if runs_table("cadence") {
        println!();
        cadence_table(&input, &levels, runs, &cadences);
    }
    if runs_table("recording") {
        println!();
        recording_table(&levels);
    }
    if bench && runs_table("peak") {
        let dir = tempfile::tempdir().unwrap();
        let small = n / 2;
        println!();
        println!("| peak memory (VmHWM, child process, compressed to a file) | {small} events | {} events | ratio |", small * 10);
        println!("|---|---:|---:|---:|");
        for (name, form) in [
            ("aligned form (default)", "aligned"),
            ("perf's form", "perf"),
        ] {
            let (a, b) = (
                peak(form, 1, small, dir.path()),
                peak(form, 1, small * 10, dir.path()),
            );
            println!(
                "| writer, {name}, level 1 | {a} kB | {b} kB | {:.3} |",
                b as f64 / a as f64
            );
        }
        let per_level = 20_000;
        println!();
        println!(
            "| level | peak memory, aligned form ({per_level} events) | peak memory, perf's form |"
        );
        println!("|---|---:|---:|");
        for level in 1..=22 {
            let a = peak("aligned", level, per_level, dir.path());
            let p = peak("perf", level, per_level, dir.path());
            println!("| {level} | {a} kB | {p} kB |");
        }
    }
}
