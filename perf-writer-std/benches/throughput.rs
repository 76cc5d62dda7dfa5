//! Throughput of `perf-writer-std` next to `tracepoint_perf` 0.5's writer (the seed) and a plain
//! `BufWriter<File>` writing the same bytes, plus `perf-encode` alone.
//!
//! ```text
//! cargo bench -p perf-writer-std --bench throughput              # full run (7 runs, under a minute)
//! cargo bench -p perf-writer-std --bench throughput -- --quick   # smoke run (3 runs, 1/10 of the events)
//! cargo bench -p perf-writer-std --bench throughput -- --runs 9 --only small64
//! ```
//!
//! Every file workload runs to a temporary file and to a sink (CPU cost alone): our writer and
//! the BufWriters over [`SinkSeek`], the seed (which only opens paths) over `/dev/null`. Within
//! a run the writers of one cell run back to back in a rotating order, so machine noise falls
//! on all of them alike; the table shows medians over the runs. Timings are printed and never
//! asserted (only the files' sizes are): targets are reported as met or not. BENCHMARKS.md at
//! the workspace root explains each row.
//!
//! Options: `--quick`, `--runs N`, `--only NAME[,NAME]` (small64, big4k, vectored, tp64,
//! tpalt, mixed, sideband, first, firstblocks, recording, recordingfirst, finalize, encode,
//! peak), `--imps ours,seed,buf,buf256` (to profile one writer), `--no-peak`. Run
//! without `--bench` (as `cargo test --benches` does) it only makes a tiny smoke run.

use perf_abi::{attr_flags, misc, record_type, sample_type};
use perf_writer_std::perf_encode::records::{
    Comm, Fork, Mmap2, Mmap2File, PidTid, Record, Sample as SampleFields, SampleCpu, SampleId,
    SampleLayout, SampleRecord,
};
use perf_writer_std::perf_encode::{to_slice, to_vec, Endian};
use perf_writer_std::{FileOutput, PerfDataFileWriter, PerfWriter};
use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::hint::black_box;
use std::io::{self, BufWriter, Cursor, IoSlice, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrSize,
    PerfEventAttrType, PerfEventFormat,
};

// ---------------------------------------------------------------------------------------------
// Allocation counting

/// Counts every allocation (and reallocation) of the process, then defers to `System`.
struct CountingAlloc;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the only addition is a relaxed atomic increment, which neither
// allocates nor touches the memory handed out.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

// ---------------------------------------------------------------------------------------------
// A seekable sink

/// `io::sink()` with a position: discards bytes, tracks where they would have gone.
#[derive(Debug, Default)]
struct SinkSeek {
    pos: u64,
    len: u64,
}

impl Write for SinkSeek {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pos += buf.len() as u64;
        self.len = self.len.max(self.pos);
        Ok(buf.len())
    }
    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let n: usize = bufs.iter().map(|b| b.len()).sum();
        self.pos += n as u64;
        self.len = self.len.max(self.pos);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for SinkSeek {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let new = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = new.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}

// ---------------------------------------------------------------------------------------------
// Events

/// The sample id of the 64-byte events (and of the finalize workload's first desc).
const ID_SMALL: u64 = 1;
/// The sample id of the 4 KiB events.
const ID_BIG: u64 = 2;
/// Distinct events cycled through (their bytes are prepared before timing).
const DISTINCT: usize = 1024;

/// Records to a call in the `firstblocks` row (16 × [`DISTINCT`]: about 1.4 MiB).
const BLOCK_RECORDS: usize = 16 * DISTINCT;
const SMALL: usize = 64;
const BIG: usize = 4096;
const FILE_HEADER: usize = 104;

/// IDENTIFIER first, then IP, TID, TIME, ADDR, CPU, PERIOD: 8 + 7 × 8 = 64 bytes.
const SMALL_SAMPLE_TYPE: u64 = sample_type::IDENTIFIER
    | sample_type::IP
    | sample_type::TID
    | sample_type::TIME
    | sample_type::ADDR
    | sample_type::CPU
    | sample_type::PERIOD;
/// IDENTIFIER, TIME, RAW (u32 size + 4068 bytes): 8 + 8 + 8 + 4 + 4068 = 4096 bytes.
const BIG_SAMPLE_TYPE: u64 = sample_type::IDENTIFIER | sample_type::TIME | sample_type::RAW;

fn header(size: usize) -> [u8; 8] {
    let mut h = [0u8; 8];
    h[..4].copy_from_slice(&record_type::SAMPLE.to_ne_bytes());
    h[4..6].copy_from_slice(&misc::USER.to_ne_bytes());
    h[6..].copy_from_slice(&u16::try_from(size).expect("record fits u16").to_ne_bytes());
    h
}

/// The fields after the header of small event `i` (id, ip, pid|tid, time, addr, cpu, period).
fn small_fields(i: u64) -> [u64; 7] {
    let pid = 1000 + (i % 7);
    [
        ID_SMALL,
        0x40_0000 + i * 16,
        pid | (pid << 32),
        1_000_000 + i * 1000,
        0x7fff_0000 + i * 64,
        i % 2,
        1,
    ]
}

fn small_event(i: u64) -> Vec<u8> {
    let mut v = header(SMALL).to_vec();
    for f in small_fields(i) {
        v.extend_from_slice(&f.to_ne_bytes());
    }
    assert_eq!(v.len(), SMALL);
    v
}

fn big_event(i: u64) -> Vec<u8> {
    let mut v = header(BIG).to_vec();
    v.extend_from_slice(&ID_BIG.to_ne_bytes());
    v.extend_from_slice(&(1_000_000 + i * 1000).to_ne_bytes());
    let raw = BIG - v.len() - 4;
    v.extend_from_slice(&u32::try_from(raw).expect("small").to_ne_bytes());
    v.extend((0..raw).map(|k| (k as u64 ^ i) as u8));
    assert_eq!(v.len(), BIG);
    v
}

/// `DISTINCT` events of one size, back to back.
struct Events {
    bytes: Vec<u8>,
    size: usize,
}

impl Events {
    fn new(size: usize, make: fn(u64) -> Vec<u8>) -> Self {
        let bytes = (0..DISTINCT as u64).flat_map(make).collect();
        Events { bytes, size }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> &[u8] {
        let at = (i % DISTINCT) * self.size;
        &self.bytes[at..at + self.size]
    }
}

fn attr(type_: PerfEventAttrType, config: u64, sample_type: u64) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: type_,
        size: PerfEventAttrSize(std::mem::size_of::<PerfEventAttr>() as u32),
        config,
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(sample_type),
        // Side-band records carry a `sample_id` trailer (every event of a file agrees).
        options: PerfEventAttrOptions(attr_flags::SAMPLE_ID_ALL),
        ..Default::default()
    }
}

// Tracepoint events: SAMPLEs with RAW as `perf record -e SYSTEM:EVENT -a` writes them.

/// A tracepoint with a `__data_loc` string: common fields (8 bytes), `name` (its data after
/// the fields), `value`. Its RAW payload is 20 bytes: a SAMPLE of 64.
const TICK_FORMAT: &str = "name: bench_tick\nID: 9001\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:unsigned int value;\toffset:12;\tsize:4;\tsigned:0;\n\n\
print fmt: \"name=%s value=%u\", __get_str(name), REC->value\n";
/// bench_tick's two sample ids (one per CPU, as perf opens a tracepoint on each).
const TICK_IDS: [u64; 2] = [10, 11];
/// sched_switch's two sample ids.
const SWITCH_IDS: [u64; 2] = [20, 21];
/// IDENTIFIER, TID, TIME, CPU, RAW: the fields perf records for a tracepoint (PERIOD aside).
const TP_SAMPLE_TYPE: u64 = sample_type::IDENTIFIER
    | sample_type::TID
    | sample_type::TIME
    | sample_type::CPU
    | sample_type::RAW;

fn tp_layout() -> SampleLayout {
    SampleLayout::from_attr(&perf_abi::PerfEventAttr::from(&attr(
        PerfEventAttrType::Tracepoint,
        0,
        TP_SAMPLE_TYPE,
    )))
}

/// The `sample_id` trailer of record `i` of a tracepoint event's CPU `cpu`.
fn tp_trailer(i: u64, id: u64) -> SampleId {
    let pid = 2000 + (i % 5) as u32;
    SampleId {
        tid: Some(PidTid { pid, tid: pid }),
        time: Some(1_000_000 + i * 1000),
        cpu: Some(SampleCpu::new((id & 1) as u32)),
        identifier: Some(id),
        ..Default::default()
    }
}

/// A tracepoint SAMPLE of event id `id` with RAW payload `raw`.
fn tp_sample(i: u64, id: u64, raw: &[u8]) -> Vec<u8> {
    let t = tp_trailer(i, id);
    let s = SampleFields {
        identifier: t.identifier,
        tid: t.tid,
        time: t.time,
        cpu: t.cpu,
        raw: Some(raw),
        ..Default::default()
    };
    let layout = tp_layout();
    let rec = SampleRecord {
        layout: &layout,
        sample: &s,
        misc: misc::KERNEL,
    };
    to_vec(&rec, Endian::NATIVE).expect("tracepoint sample")
}

/// bench_tick's RAW payload: common fields, `name` = "ab" + NUL (+ a pad byte), `value` = i.
fn tick_raw(i: u64) -> Vec<u8> {
    let mut raw = vec![0u8; 20];
    raw[..2].copy_from_slice(&9001u16.to_ne_bytes());
    raw[4..8].copy_from_slice(&(2000 + (i % 5) as u32).to_ne_bytes());
    raw[8..12].copy_from_slice(&((4u32 << 16) | 16).to_ne_bytes()); // 4 bytes at 16
    raw[12..16].copy_from_slice(&(i as u32).to_ne_bytes());
    raw[16..19].copy_from_slice(b"ab\0");
    raw
}

/// sched_switch's RAW payload (64 bytes of fields, 4 of padding).
fn switch_raw(i: u64) -> Vec<u8> {
    let mut raw = vec![0u8; 68];
    raw[..2].copy_from_slice(&372u16.to_ne_bytes());
    raw[8..13].copy_from_slice(b"bench");
    raw[24..28].copy_from_slice(&(2000 + (i % 5) as u32).to_ne_bytes());
    raw[40..44].copy_from_slice(b"idle");
    raw
}

/// bench_tick's SAMPLE `i` on one CPU (id 10).
fn tick_event(i: u64) -> Vec<u8> {
    let v = tp_sample(i, TICK_IDS[0], &tick_raw(i));
    assert_eq!(v.len(), SMALL);
    v
}

/// bench_tick's SAMPLE `i`, the two CPUs' ids taking turns.
fn tick_event_alternating(i: u64) -> Vec<u8> {
    let v = tp_sample(i, TICK_IDS[(i % 2) as usize], &tick_raw(i));
    assert_eq!(v.len(), SMALL);
    v
}

/// Several events interleaved: bench_tick and sched_switch on two CPUs each, and the
/// 64-byte software event.
fn mixed_event(i: u64) -> Vec<u8> {
    match i % 5 {
        0 => tp_sample(i, TICK_IDS[0], &tick_raw(i)),
        1 => tp_sample(i, SWITCH_IDS[0], &switch_raw(i)),
        2 => small_event(i),
        3 => tp_sample(i, TICK_IDS[1], &tick_raw(i)),
        _ => tp_sample(i, SWITCH_IDS[1], &switch_raw(i)),
    }
}

/// bench_tick's samples on two CPUs with COMM, FORK and MMAP2 records (with their
/// `sample_id` trailers) among them: three side-band records in every eight.
fn side_band_event(i: u64) -> Vec<u8> {
    let layout = tp_layout();
    let id = TICK_IDS[(i % 2) as usize];
    let t = tp_trailer(i, id);
    let pid = 2000 + (i % 5) as u32;
    let out = match i % 8 {
        2 => to_vec(
            &Comm {
                layout: &layout,
                pid,
                tid: pid,
                comm: b"bench-worker",
                exec: false,
                sample_id: t,
            },
            Endian::NATIVE,
        ),
        5 => to_vec(
            &Fork {
                layout: &layout,
                misc: 0,
                pid,
                ppid: 1999,
                tid: pid,
                ptid: 1999,
                time: 1_000_000 + i * 1000,
                sample_id: t,
            },
            Endian::NATIVE,
        ),
        7 => to_vec(
            &Mmap2 {
                layout: &layout,
                misc: misc::USER,
                pid,
                tid: pid,
                addr: 0x7f00_0000_0000 + i * 4096,
                len: 0x2_1000,
                pgoff: 0,
                file: Mmap2File::Inode {
                    maj: 8,
                    min: 1,
                    ino: 4242 + i,
                    ino_generation: 0,
                },
                prot: 5,
                flags: 2,
                filename: b"/usr/lib/x86_64-linux-gnu/libbench.so.1",
                sample_id: t,
            },
            Endian::NATIVE,
        ),
        _ => return tp_sample(i, id, &tick_raw(i)),
    };
    out.expect("side-band record")
}

/// `DISTINCT` events of varying sizes, back to back.
struct MixedEvents {
    bytes: Vec<u8>,
    ranges: Vec<std::ops::Range<usize>>,
}

impl MixedEvents {
    fn new(make: fn(u64) -> Vec<u8>) -> Self {
        let (mut bytes, mut ranges) = (Vec::new(), Vec::with_capacity(DISTINCT));
        for i in 0..DISTINCT as u64 {
            let e = make(i);
            ranges.push(bytes.len()..bytes.len() + e.len());
            bytes.extend_from_slice(&e);
        }
        MixedEvents { bytes, ranges }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.ranges[i % DISTINCT].clone()]
    }
    /// Bytes of `n` events.
    fn len_of(&self, n: usize) -> usize {
        let whole: usize = self.ranges.iter().map(|r| r.len()).sum();
        let rest: usize = self.ranges[..n % DISTINCT].iter().map(|r| r.len()).sum();
        whole * (n / DISTINCT) + rest
    }
}

// ---------------------------------------------------------------------------------------------
// perf's own recording, as a converter has it

/// The recording the `recording` rows rewrite: two tracepoints with TIME and `sample_id_all`,
/// a FINISHED_ROUND every ~13 records, COMM/FORK/EXIT/MMAP2 (see tests/data/perf-6.1).
const RECORDING: &str = "../tests/data/perf-6.1/rounds_getppid.data";

/// Record types the kernel writes (repeated to make a longer trace); the others are perf's
/// synthesized state (ID_INDEX, THREAD_MAP, CPU_MAP, FINISHED_INIT), written once.
const KERNEL_TYPES: [u32; 6] = [
    record_type::SAMPLE,
    record_type::MMAP2,
    record_type::COMM,
    record_type::FORK,
    record_type::EXIT,
    record_type::FINISHED_ROUND,
];

/// [`RECORDING`] as `tracepoint_perf` 0.5's reader gives it to a converter: its records
/// (all once, then the kernel's again, to `n` in all) and its events.
struct Recording {
    bytes: Vec<u8>,
    ranges: Vec<std::ops::Range<usize>>,
    descs: Vec<StreamDesc>,
}

impl Recording {
    fn read(n: usize) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDING);
        let mut r = tracepoint_perf::PerfDataFileReader::new();
        r.open_file(
            path.to_str().expect("utf-8 path"),
            tracepoint_perf::PerfDataFileEventOrder::File,
        )
        .expect("the recording opens");
        let mut records: Vec<(bool, Vec<u8>)> = Vec::new();
        while r.move_next_event().expect("the recording reads") {
            let e = r.current_event();
            records.push((KERNEL_TYPES.contains(&e.header.ty.0), e.data.to_vec()));
        }
        // The reader lists each event twice (from the attrs and from EVENT_DESC): keep one
        // per id list, the one with a name and format.
        let mut descs: Vec<StreamDesc> = Vec::new();
        for d in r.event_desc_list() {
            let name: &'static str = d.name().to_string().leak();
            let desc = (d.ids().to_vec(), *d.attr(), name, d.format_arc().cloned());
            match descs.iter_mut().find(|x| x.0 == desc.0) {
                Some(x) if x.2.is_empty() || (x.3.is_none() && desc.3.is_some()) => *x = desc,
                Some(_) => {}
                None => descs.push(desc),
            }
        }
        let (mut bytes, mut ranges) = (Vec::new(), Vec::new());
        let kernel = records.iter().filter(|(k, _)| *k);
        let once = records.iter().map(|(_, r)| r);
        let again = kernel.map(|(_, r)| r).cycle();
        for r in once.chain(again) {
            if ranges.len() >= n.max(records.len()) {
                break;
            }
            ranges.push(bytes.len()..bytes.len() + r.len());
            bytes.extend_from_slice(r);
        }
        Recording {
            bytes,
            ranges,
            descs,
        }
    }

    #[inline(always)]
    fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.ranges[i].clone()]
    }
}

// ---------------------------------------------------------------------------------------------
// The three writers behind one interface

/// What the event workloads call: one writer of the three.
trait EventOut {
    fn event(&mut self, data: &[u8]) -> io::Result<()>;
    fn vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<()>;
}

impl<W: Write + Seek> EventOut for PerfDataFileWriter<W> {
    #[inline]
    fn event(&mut self, data: &[u8]) -> io::Result<()> {
        self.write_event_data(data)
    }
    #[inline]
    fn vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<()> {
        self.write_event_data_vectored(bufs).map(drop)
    }
}

impl EventOut for tracepoint_perf::PerfDataFileWriter {
    #[inline]
    fn event(&mut self, data: &[u8]) -> io::Result<()> {
        self.write_event_data(data)
    }
    #[inline]
    fn vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<()> {
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        let mut done = self.write_event_data_vectored(bufs)?;
        if done < total {
            // A short writev (not seen on files): write the rest as the caller would have to.
            for b in bufs {
                let skip = done.min(b.len());
                done -= skip;
                if skip < b.len() {
                    self.write_event_data(&b[skip..])?;
                }
            }
        }
        Ok(())
    }
}

impl<W: Write> EventOut for BufWriter<W> {
    #[inline]
    fn event(&mut self, data: &[u8]) -> io::Result<()> {
        self.write_all(data)
    }
    #[inline]
    fn vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<()> {
        bufs.iter().try_for_each(|b| self.write_all(b))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Imp {
    /// perf-writer-std.
    Ours,
    /// tracepoint_perf 0.5.0.
    Seed,
    /// `BufWriter::new` (8 KiB), the plain baseline.
    Buf,
    /// `BufWriter::with_capacity(FILE_BUFFER_SIZE)`: the baseline with our buffer size, to
    /// separate buffer size from per-call cost. Stream workloads only.
    Buf256,
}

const IMPS: [Imp; 4] = [Imp::Ours, Imp::Seed, Imp::Buf, Imp::Buf256];

impl Imp {
    fn name(self) -> &'static str {
        match self {
            Imp::Ours => "ours",
            Imp::Seed => "seed",
            Imp::Buf => "buf",
            Imp::Buf256 => "buf256",
        }
    }
    fn parse(s: &str) -> Option<Imp> {
        IMPS.into_iter().find(|i| i.name() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    File,
    Sink,
}

/// The workloads that stream events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EventLoad {
    /// One `write_event_data` per 64-byte event.
    Small64,
    /// One `write_event_data` per 4 KiB event.
    Big4k,
    /// `write_event_data_vectored` with 16 slices per call: 4 events of 64 bytes, each in
    /// 4 slices (header 8, id 8, ip+tid 16, time+addr+cpu+period 32).
    Vectored16,
    /// One `write_event_data` per 64-byte tracepoint SAMPLE with RAW, one id.
    Tp64,
    /// The same, two ids of the event (two CPUs) taking turns.
    TpAlternating,
    /// Three events on two CPUs interleaved: 64- and 112-byte tracepoint SAMPLEs, 64-byte
    /// software SAMPLEs.
    Mixed,
    /// Tracepoint SAMPLEs of two CPUs with COMM, FORK and MMAP2 records among them.
    SideBand,
    /// The records of `Mixed`, written before the descriptions (as a converter that reads a
    /// recording writes them).
    MixedFirst,
    /// The same, [`BLOCK_RECORDS`] records to a call (a converter that copies a data section
    /// in blocks of about a MiB).
    MixedFirstBlocks,
    /// perf's own [`RECORDING`] rewritten one record a call, its events described first.
    Recording,
    /// The same, the records before the descriptions (the 0.5 reader's converter's order).
    RecordingFirst,
}

impl EventLoad {
    /// Its records are written before their descriptions.
    fn records_first(self) -> bool {
        matches!(
            self,
            EventLoad::MixedFirst | EventLoad::MixedFirstBlocks | EventLoad::RecordingFirst
        )
    }

    /// Its events are [`RECORDING`]'s.
    fn of_recording(self) -> bool {
        matches!(self, EventLoad::Recording | EventLoad::RecordingFirst)
    }
}

struct Inputs {
    small: Events,
    big: Events,
    tick: Events,
    tick_alternating: Events,
    mixed: MixedEvents,
    /// [`BLOCK_RECORDS`] of `mixed`, back to back.
    mixed_block: Vec<u8>,
    side_band: MixedEvents,
    recording: Recording,
    scratch: PathBuf,
}

impl Inputs {
    fn new(scratch: PathBuf, recording_records: usize) -> Self {
        Inputs {
            small: Events::new(SMALL, small_event),
            big: Events::new(BIG, big_event),
            tick: Events::new(SMALL, tick_event),
            tick_alternating: Events::new(SMALL, tick_event_alternating),
            mixed: MixedEvents::new(mixed_event),
            mixed_block: {
                // The events repeat every DISTINCT: a block is copies of all of them.
                let all = MixedEvents::new(mixed_event).bytes;
                all.repeat(BLOCK_RECORDS / DISTINCT)
            },
            side_band: MixedEvents::new(side_band_event),
            recording: Recording::read(recording_records),
            scratch,
        }
    }

    /// Bytes of `n` events of `load`.
    fn bytes(&self, load: EventLoad, n: usize) -> usize {
        match load {
            EventLoad::Big4k => n * BIG,
            EventLoad::Small64
            | EventLoad::Vectored16
            | EventLoad::Tp64
            | EventLoad::TpAlternating => n * SMALL,
            EventLoad::Mixed | EventLoad::MixedFirst | EventLoad::MixedFirstBlocks => {
                self.mixed.len_of(n)
            }
            EventLoad::SideBand => self.side_band.len_of(n),
            EventLoad::Recording | EventLoad::RecordingFirst => {
                self.recording.ranges[..n].iter().map(|r| r.len()).sum()
            }
        }
    }
}

/// Writes `n` events of `load` to `out`.
#[inline(never)]
fn stream<O: EventOut>(out: &mut O, load: EventLoad, n: usize, inp: &Inputs) -> io::Result<()> {
    match load {
        EventLoad::Small64 => {
            for i in 0..n {
                out.event(inp.small.get(i))?;
            }
        }
        EventLoad::Big4k => {
            for i in 0..n {
                out.event(inp.big.get(i))?;
            }
        }
        EventLoad::Tp64 => {
            for i in 0..n {
                out.event(inp.tick.get(i))?;
            }
        }
        EventLoad::TpAlternating => {
            for i in 0..n {
                out.event(inp.tick_alternating.get(i))?;
            }
        }
        EventLoad::Mixed | EventLoad::MixedFirst => {
            for i in 0..n {
                out.event(inp.mixed.get(i))?;
            }
        }
        EventLoad::SideBand => {
            for i in 0..n {
                out.event(inp.side_band.get(i))?;
            }
        }
        EventLoad::Recording | EventLoad::RecordingFirst => {
            for i in 0..n {
                out.event(inp.recording.get(i))?;
            }
        }
        EventLoad::MixedFirstBlocks => {
            for _ in 0..n / BLOCK_RECORDS {
                out.event(&inp.mixed_block)?;
            }
            for i in n - n % BLOCK_RECORDS..n {
                out.event(inp.mixed.get(i))?;
            }
        }
        EventLoad::Vectored16 => {
            let mut i = 0;
            while i < n {
                let e = [
                    inp.small.get(i),
                    inp.small.get(i + 1),
                    inp.small.get(i + 2),
                    inp.small.get(i + 3),
                ];
                let s = |k: usize, r: std::ops::Range<usize>| IoSlice::new(&e[k][r]);
                let slices = [
                    s(0, 0..8),
                    s(0, 8..16),
                    s(0, 16..32),
                    s(0, 32..64),
                    s(1, 0..8),
                    s(1, 8..16),
                    s(1, 16..32),
                    s(1, 32..64),
                    s(2, 0..8),
                    s(2, 8..16),
                    s(2, 16..32),
                    s(2, 32..64),
                    s(3, 0..8),
                    s(3, 8..16),
                    s(3, 16..32),
                    s(3, 32..64),
                ];
                out.vectored(&slices)?;
                i += 4;
            }
        }
    }
    Ok(())
}

/// One event of the stream workloads: its ids, attr, name and tracefs format.
type StreamDesc = (
    Vec<u64>,
    PerfEventAttr,
    &'static str,
    Option<Arc<PerfEventFormat>>,
);

/// The stream workloads' events.
fn stream_descs() -> Vec<StreamDesc> {
    let small = attr(PerfEventAttrType::Software, 0, SMALL_SAMPLE_TYPE);
    let big = attr(PerfEventAttrType::Software, 0, BIG_SAMPLE_TYPE);
    let format = |system: &str, text: &str| {
        Arc::new(PerfEventFormat::parse(true, system, text).expect("bench format"))
    };
    let tick = format("bench", TICK_FORMAT);
    let switch = format("sched", SCHED_SWITCH);
    let tp = |f: &PerfEventFormat| {
        attr(
            PerfEventAttrType::Tracepoint,
            u64::from(f.id()),
            TP_SAMPLE_TYPE,
        )
    };
    vec![
        (vec![ID_SMALL], small, "cpu-clock", None),
        (vec![ID_BIG], big, "raw-4k", None),
        (TICK_IDS.to_vec(), tp(&tick), "bench:bench_tick", Some(tick)),
        (
            SWITCH_IDS.to_vec(),
            tp(&switch),
            "sched:sched_switch",
            Some(switch),
        ),
    ]
}

fn add_stream_descs_ours<W: Write + Seek>(w: &mut PerfDataFileWriter<W>, descs: &[StreamDesc]) {
    for (ids, a, name, format) in descs.iter().cloned() {
        match format {
            Some(f) => w
                .native_mut()
                .add_tracepoint_event_desc(&ids, &a, name, &f)
                .expect(name),
            None => w.native_mut().add_event_desc(&ids, &a, name).expect(name),
        }
    }
}

fn add_stream_descs_seed(w: &mut tracepoint_perf::PerfDataFileWriter, descs: &[StreamDesc]) {
    for (ids, a, name, format) in descs.iter().cloned() {
        assert!(match format {
            Some(f) => w.add_tracepoint_event_desc(&ids, &a, name, &f),
            None => w.add_event_desc(&ids, &a, name),
        });
    }
}

/// One timed sample.
#[derive(Clone, Copy, Debug)]
struct Sample {
    secs: f64,
    allocs: u64,
}

/// What a writer that does not take part in a workload records.
const NO_SAMPLE: Sample = Sample {
    secs: f64::NAN,
    allocs: 0,
};

fn timed(f: impl FnOnce() -> io::Result<()>) -> io::Result<Sample> {
    let a0 = allocations();
    let t0 = Instant::now();
    f()?;
    let secs = t0.elapsed().as_secs_f64();
    Ok(Sample {
        secs,
        allocs: allocations() - a0,
    })
}

fn seed_path(target: Target, file: &Path) -> String {
    match target {
        Target::File => file.to_str().expect("utf-8 temp path").to_owned(),
        Target::Sink => "/dev/null".to_owned(),
    }
}

/// Opens, adds the two descs, streams `n` events, finalizes and closes: all timed.
fn run_stream(
    imp: Imp,
    target: Target,
    load: EventLoad,
    n: usize,
    inp: &Inputs,
) -> io::Result<Sample> {
    let path = inp.scratch.join(format!("{}.data", imp.name()));
    let first = load.records_first();
    let descs = match load.of_recording() {
        true => inp.recording.descs.clone(),
        false => stream_descs(),
    };
    let s = timed(|| match (imp, target) {
        (Imp::Ours, Target::File) => {
            let mut w = PerfDataFileWriter::new();
            w.create_file(path.to_str().expect("utf-8"))?;
            if !first {
                add_stream_descs_ours(&mut w, &descs);
            }
            stream(&mut w, load, n, inp)?;
            if first {
                add_stream_descs_ours(&mut w, &descs);
            }
            w.finalize_and_close()
        }
        (Imp::Ours, Target::Sink) => {
            let mut w = PerfDataFileWriter::from(PerfWriter::<FileOutput<_>>::from_writer(
                SinkSeek::default(),
            )?);
            if !first {
                add_stream_descs_ours(&mut w, &descs);
            }
            stream(&mut w, load, n, inp)?;
            if first {
                add_stream_descs_ours(&mut w, &descs);
            }
            black_box(w.finish()?);
            Ok(())
        }
        (Imp::Seed, _) => {
            let mut w = tracepoint_perf::PerfDataFileWriter::new();
            w.create_file(&seed_path(target, &path))?;
            if !first {
                add_stream_descs_seed(&mut w, &descs);
            }
            stream(&mut w, load, n, inp)?;
            if first {
                add_stream_descs_seed(&mut w, &descs);
            }
            w.finalize_and_close()
        }
        (Imp::Buf, Target::File) => buf_stream(BufWriter::new(File::create(&path)?), load, n, inp),
        (Imp::Buf, Target::Sink) => buf_stream(BufWriter::new(SinkSeek::default()), load, n, inp),
        (Imp::Buf256, Target::File) => buf_stream(big_buf(File::create(&path)?), load, n, inp),
        (Imp::Buf256, Target::Sink) => buf_stream(big_buf(SinkSeek::default()), load, n, inp),
    })?;
    if target == Target::File {
        let len = std::fs::metadata(&path)?.len();
        let data = inp.bytes(load, n) as u64;
        assert!(
            len >= data + FILE_HEADER as u64,
            "{imp:?} wrote {len} bytes"
        );
        std::fs::remove_file(&path)?;
    }
    Ok(s)
}

fn big_buf<W: Write>(w: W) -> BufWriter<W> {
    BufWriter::with_capacity(perf_writer_std::FILE_BUFFER_SIZE, w)
}

/// The baseline: a placeholder header, the events, then the real header, through `bw`.
fn buf_stream<W: Write + Seek>(
    mut bw: BufWriter<W>,
    load: EventLoad,
    n: usize,
    inp: &Inputs,
) -> io::Result<()> {
    bw.write_all(&[0u8; FILE_HEADER])?;
    stream(&mut bw, load, n, inp)?;
    bw.seek(SeekFrom::Start(0))?;
    bw.write_all(&[1u8; FILE_HEADER])?;
    bw.flush()?;
    black_box(bw.into_inner().map_err(|e| e.into_error())?);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Finalize: 10,000 descs × 16 ids, 500 tracepoint formats

const FINALIZE_DESCS: usize = 10_000;
const FINALIZE_IDS: usize = 16;
const FINALIZE_FORMATS: usize = 500;
const FINALIZE_SYSTEMS: usize = 20;
const FINALIZE_EVENTS: usize = 1000;
const SCHED_SWITCH: &str = include_str!("../../tests/data/sched_switch.format");

struct FinalizeInputs {
    formats: Vec<Arc<PerfEventFormat>>,
    names: Vec<String>,
    /// Our writer's output for the same descs and events, in memory: the BufWriter baseline
    /// writes its tail and header.
    image: Vec<u8>,
    data_end: usize,
}

/// `count` tracefs formats: sched_switch's layout under distinct names, ids and systems.
fn synth_formats(count: usize) -> Vec<Arc<PerfEventFormat>> {
    let body = SCHED_SWITCH
        .split_once("format:")
        .map(|(_, rest)| rest)
        .expect("format section");
    (0..count)
        .map(|k| {
            let system = format!("bench_sys{:02}", k % FINALIZE_SYSTEMS);
            let text = format!(
                "name: bench_event_{k}\nID: {}\nformat:{}",
                10_000 + k,
                body.replace("prev_comm", &format!("prev_comm_{k}"))
            );
            let f = PerfEventFormat::parse(true, &system, &text).expect("synthesized format");
            assert_eq!(f.id() as usize, 10_000 + k);
            Arc::new(f)
        })
        .collect()
}

fn desc_ids(d: usize) -> [u64; FINALIZE_IDS] {
    std::array::from_fn(|k| (d * FINALIZE_IDS + k) as u64 + ID_SMALL)
}

/// Adds the finalize workload's descs through `add` (tracepoint or not) in the same order for
/// both writers.
fn add_finalize_descs(
    fi: &FinalizeInputs,
    mut add_tp: impl FnMut(&[u64], &PerfEventAttr, &str, &Arc<PerfEventFormat>) -> bool,
    mut add: impl FnMut(&[u64], &PerfEventAttr, &str) -> bool,
) {
    let sw = attr(PerfEventAttrType::Software, 0, SMALL_SAMPLE_TYPE);
    for d in 0..FINALIZE_DESCS {
        let ids = desc_ids(d);
        let ok = match fi.formats.get(d) {
            Some(f) => {
                let tp = attr(
                    PerfEventAttrType::Tracepoint,
                    u64::from(f.id()),
                    SMALL_SAMPLE_TYPE,
                );
                add_tp(&ids, &tp, &fi.names[d], f)
            }
            None => add(&ids, &sw, &fi.names[d]),
        };
        assert!(ok, "desc {d}");
    }
}

fn finalize_inputs() -> FinalizeInputs {
    let formats = synth_formats(FINALIZE_FORMATS);
    let names = (0..FINALIZE_DESCS)
        .map(|d| match formats.get(d) {
            Some(f) => format!("{}:{}", f.system_name(), f.name()),
            None => format!("bench-sw-event-{d}"),
        })
        .collect();
    let mut fi = FinalizeInputs {
        formats,
        names,
        image: Vec::new(),
        data_end: 0,
    };
    let small = Events::new(SMALL, small_event);
    let mut w = PerfDataFileWriter::from(
        PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).expect("cursor"),
    );
    prepare_ours(&mut w, &fi, &small);
    fi.data_end = w.file_pos().expect("open") as usize;
    fi.image = w.finish().expect("finalize").into_inner();
    fi
}

fn prepare_ours<W: Write + Seek>(w: &mut PerfDataFileWriter<W>, fi: &FinalizeInputs, ev: &Events) {
    w.set_tracing_data_required(8, 4096);
    let cell = std::cell::RefCell::new(w);
    add_finalize_descs(
        fi,
        |ids, a, n, f| cell.borrow_mut().add_tracepoint_event_desc(ids, a, n, f),
        |ids, a, n| cell.borrow_mut().add_event_desc(ids, a, n),
    );
    let w = cell.into_inner();
    for i in 0..FINALIZE_EVENTS {
        w.write_event_data(ev.get(i)).expect("event");
    }
}

fn prepare_seed(w: &mut tracepoint_perf::PerfDataFileWriter, fi: &FinalizeInputs, ev: &Events) {
    // The seed synthesizes TRACING_DATA only when asked to.
    w.set_tracing_data_required(8, 4096);
    let cell = std::cell::RefCell::new(w);
    add_finalize_descs(
        fi,
        |ids, a, n, f| cell.borrow_mut().add_tracepoint_event_desc(ids, a, n, f),
        |ids, a, n| cell.borrow_mut().add_event_desc(ids, a, n),
    );
    let w = cell.into_inner();
    for i in 0..FINALIZE_EVENTS {
        w.write_event_data(ev.get(i)).expect("event");
    }
}

/// Setup (open, 10,000 descs, 1000 events) untimed, then `finalize_and_close` timed; returns
/// (desc-adding sample, finalize sample).
fn run_finalize(
    imp: Imp,
    target: Target,
    fi: &FinalizeInputs,
    inp: &Inputs,
) -> io::Result<(Sample, Sample)> {
    let path = inp.scratch.join(format!("fin-{}.data", imp.name()));
    let (add, fin) = match (imp, target) {
        (Imp::Ours, Target::File) => {
            let mut w = PerfDataFileWriter::new();
            w.create_file(path.to_str().expect("utf-8"))?;
            let add = timed(|| {
                prepare_ours(&mut w, fi, &inp.small);
                Ok(())
            })?;
            (add, timed(|| w.finalize_and_close())?)
        }
        (Imp::Ours, Target::Sink) => {
            let mut w = PerfDataFileWriter::from(PerfWriter::<FileOutput<_>>::from_writer(
                SinkSeek::default(),
            )?);
            let add = timed(|| {
                prepare_ours(&mut w, fi, &inp.small);
                Ok(())
            })?;
            let fin = timed(|| w.finish().map(drop).map_err(io::Error::from))?;
            (add, fin)
        }
        (Imp::Seed, _) => {
            let mut w = tracepoint_perf::PerfDataFileWriter::new();
            w.create_file(&seed_path(target, &path))?;
            let add = timed(|| {
                prepare_seed(&mut w, fi, &inp.small);
                Ok(())
            })?;
            (add, timed(|| w.finalize_and_close())?)
        }
        (Imp::Buf, Target::File) => buf_finalize(File::create(&path)?, fi)?,
        (Imp::Buf, Target::Sink) => buf_finalize(SinkSeek::default(), fi)?,
        (Imp::Buf256, _) => return Ok((NO_SAMPLE, NO_SAMPLE)),
    };
    if target == Target::File {
        let len = std::fs::metadata(&path)?.len();
        assert!(len > fi.data_end as u64, "{imp:?} wrote {len} bytes");
        std::fs::remove_file(&path)?;
    }
    Ok((add, fin))
}

/// Writes our file image's data untimed, then its tail and header (what finalize adds) timed,
/// up to and including closing the output.
fn buf_finalize<W: Write + Seek>(w: W, fi: &FinalizeInputs) -> io::Result<(Sample, Sample)> {
    let mut bw = BufWriter::new(w);
    bw.write_all(&[0u8; FILE_HEADER])?;
    bw.write_all(&fi.image[FILE_HEADER..fi.data_end])?;
    let fin = timed(move || {
        bw.write_all(&fi.image[fi.data_end..])?;
        bw.seek(SeekFrom::Start(0))?;
        bw.write_all(&fi.image[..FILE_HEADER])?;
        bw.flush()?;
        drop(black_box(bw));
        Ok(())
    })?;
    Ok((NO_SAMPLE, fin))
}

// ---------------------------------------------------------------------------------------------
// perf-encode alone

/// Encodes `n` 64-byte SAMPLE records into a 64 KiB caller buffer (wrapping around), with
/// `perf_encode::to_slice` of a `Record`.
#[inline(never)]
fn encode_records(n: usize, buf: &mut [u8]) -> usize {
    let mut off = 0usize;
    let mut total = 0usize;
    for i in 0..n {
        let f = small_fields(black_box(i as u64)).map(u64::to_ne_bytes);
        let parts: [&[u8]; 7] = [&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]];
        let r = Record::new(record_type::SAMPLE, misc::USER, &parts);
        let used = to_slice(&r, Endian::NATIVE, &mut buf[off..])
            .expect("buffer has room")
            .len();
        off += used;
        total += used;
        if off + SMALL > buf.len() {
            off = 0;
        }
    }
    black_box(&buf);
    total
}

/// The same bytes written by hand (header then fields with `copy_from_slice`): the floor.
#[inline(never)]
fn hand_records(n: usize, buf: &mut [u8]) -> usize {
    let mut off = 0usize;
    let mut total = 0usize;
    let h = header(SMALL);
    for i in 0..n {
        let f = small_fields(black_box(i as u64));
        let dst = &mut buf[off..off + SMALL];
        dst[..8].copy_from_slice(&h);
        for (k, v) in f.iter().enumerate() {
            dst[8 + k * 8..16 + k * 8].copy_from_slice(&v.to_ne_bytes());
        }
        off += SMALL;
        total += SMALL;
        if off + SMALL > buf.len() {
            off = 0;
        }
    }
    black_box(&buf);
    total
}

// ---------------------------------------------------------------------------------------------
// Peak memory, in a child process

fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The child: writes `n` 64-byte events with `imp` to a file in `dir`, prints VmHWM in kB.
fn peak_child(imp: Imp, n: usize, dir: &Path) -> io::Result<()> {
    let inp = Inputs::new(dir.to_owned(), 0);
    let before = vm_hwm_kib();
    run_stream(imp, Target::File, EventLoad::Small64, n, &inp)?;
    println!("{before} {}", vm_hwm_kib());
    Ok(())
}

fn peak_run(imp: Imp, n: usize, dir: &Path) -> io::Result<(u64, u64)> {
    let out = Command::new(std::env::current_exe()?)
        .args(["__peak", imp.name(), &n.to_string()])
        .arg(dir)
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "peak child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text
        .split_whitespace()
        .map(|v| v.parse::<u64>().unwrap_or(0));
    Ok((it.next().unwrap_or(0), it.next().unwrap_or(0)))
}

// ---------------------------------------------------------------------------------------------
// Driver

struct Opts {
    runs: usize,
    /// Events of each stream workload are divided by this.
    scale: usize,
    only: Option<Vec<String>>,
    /// Writers to run (all three unless `--imps` names some).
    imps: Vec<Imp>,
    peak: bool,
    mode: &'static str,
}

impl Opts {
    fn wants(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| x == name))
    }
}

fn parse_opts() -> Opts {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick");
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mut o = if quick {
        Opts {
            runs: 3,
            scale: 10,
            only: None,
            imps: IMPS.to_vec(),
            peak: true,
            mode: "quick",
        }
    } else if bench {
        Opts {
            runs: 7,
            scale: 1,
            only: None,
            imps: IMPS.to_vec(),
            peak: true,
            mode: "full",
        }
    } else {
        // `cargo test --benches`: prove it runs, measure nothing worth reading.
        Opts {
            runs: 1,
            scale: 1000,
            only: None,
            imps: IMPS.to_vec(),
            peak: false,
            mode: "smoke (no --bench)",
        }
    };
    if let Some(r) = value("--runs").and_then(|v| v.parse().ok()) {
        o.runs = r;
    }
    o.only = value("--only").map(|v| v.split(',').map(str::to_owned).collect());
    if let Some(v) = value("--imps") {
        o.imps = v.split(',').filter_map(Imp::parse).collect();
    }
    if args.iter().any(|a| a == "--no-peak") {
        o.peak = false;
    }
    o
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Samples of one (workload, target) cell: per writer, one sample per run.
#[derive(Default)]
struct Cell {
    samples: [Vec<Sample>; IMPS.len()],
}

impl Cell {
    fn push(&mut self, imp: Imp, s: Sample) {
        self.samples[imp as usize].push(s);
    }
    fn median_secs(&self, imp: Imp) -> f64 {
        let mut v: Vec<f64> = self.samples[imp as usize].iter().map(|s| s.secs).collect();
        median(&mut v)
    }
    fn spread(&self, imp: Imp) -> String {
        let v: Vec<f64> = self.samples[imp as usize]
            .iter()
            .map(|s| s.secs)
            .filter(|s| !s.is_nan())
            .collect();
        if v.is_empty() {
            return "–".to_owned();
        }
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        format!("{:.1}–{:.1} ms", lo * 1e3, hi * 1e3)
    }
    fn max_allocs(&self, imp: Imp) -> u64 {
        self.samples[imp as usize]
            .iter()
            .map(|s| s.allocs)
            .max()
            .unwrap_or(0)
    }
}

/// Runs each writer once in a rotating order (`round` picks the first).
fn round_robin(
    round: usize,
    imps: &[Imp],
    cell: &mut Cell,
    mut f: impl FnMut(Imp) -> io::Result<Sample>,
) -> io::Result<()> {
    for k in 0..imps.len() {
        let imp = imps[(round + k) % imps.len()];
        cell.push(imp, f(imp)?);
    }
    Ok(())
}

struct Row {
    name: String,
    target: Target,
    /// Bytes per run (0 for finalize: time only).
    bytes: u64,
    cell: Cell,
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("__peak") {
        let imp = args.get(2).and_then(|s| Imp::parse(s)).expect("imp");
        let n = args.get(3).and_then(|s| s.parse().ok()).expect("n");
        let dir = PathBuf::from(args.get(4).expect("dir"));
        return peak_child(imp, n, &dir);
    }

    let o = parse_opts();
    let scratch = tempfile::tempdir()?;
    let n_small = 1_000_000 / o.scale;
    let inp = Inputs::new(scratch.path().to_owned(), n_small);
    let n_recording = inp.recording.ranges.len();
    let n_big = 100_000 / o.scale;
    let n_vec = (1_000_000 / o.scale) / 4 * 4;
    let targets = [Target::File, Target::Sink];
    let t_start = Instant::now();

    print_machine(&o);

    let loads = [
        ("small64", EventLoad::Small64, n_small),
        ("big4k", EventLoad::Big4k, n_big),
        ("vectored", EventLoad::Vectored16, n_vec),
        ("tp64", EventLoad::Tp64, n_small),
        ("tpalt", EventLoad::TpAlternating, n_small),
        ("mixed", EventLoad::Mixed, n_small),
        ("sideband", EventLoad::SideBand, n_small),
        ("first", EventLoad::MixedFirst, n_small),
        ("firstblocks", EventLoad::MixedFirstBlocks, n_small),
        ("recording", EventLoad::Recording, n_recording),
        ("recordingfirst", EventLoad::RecordingFirst, n_recording),
    ];
    let mut rows: Vec<Row> = Vec::new();
    let fi = o.wants("finalize").then(finalize_inputs);
    let mut add_rows: Vec<Row> = Vec::new();

    for (name, load, n) in loads {
        if !o.wants(name) {
            continue;
        }
        for target in targets {
            rows.push(Row {
                name: match load {
                    EventLoad::Small64 => format!("{n} × 64 B, write_event_data"),
                    EventLoad::Big4k => format!("{n} × 4 KiB, write_event_data"),
                    EventLoad::Vectored16 => {
                        format!("{n} × 64 B, vectored 16 slices/call")
                    }
                    EventLoad::Tp64 => format!("{n} × 64 B tracepoint (RAW), one id"),
                    EventLoad::TpAlternating => {
                        format!("{n} × 64 B tracepoint (RAW), 2 ids alternating")
                    }
                    EventLoad::Mixed => format!("{n} × 64/112 B, 3 events on 2 CPUs interleaved"),
                    EventLoad::MixedFirst => {
                        format!("{n} × 64/112 B, 3 events, records before descriptions")
                    }
                    EventLoad::MixedFirstBlocks => {
                        format!("{n} × 64/112 B, records before descriptions, 16384 a call")
                    }
                    EventLoad::SideBand => {
                        format!("{n} × tracepoint + COMM/FORK/MMAP2 (3 in 8)")
                    }
                    EventLoad::Recording => {
                        format!("{n} records of perf's rounds_getppid.data, described first")
                    }
                    EventLoad::RecordingFirst => {
                        format!("{n} records of perf's rounds_getppid.data, records before descriptions")
                    }
                },
                target,
                bytes: inp.bytes(load, n) as u64,
                cell: Cell::default(),
            });
        }
    }
    if fi.is_some() {
        for target in targets {
            rows.push(Row {
                name: format!(
                    "finalize: {FINALIZE_DESCS} descs × {FINALIZE_IDS} ids, {FINALIZE_FORMATS} formats"
                ),
                target,
                bytes: 0,
                cell: Cell::default(),
            });
            add_rows.push(Row {
                name: format!("(setup) add {FINALIZE_DESCS} descs + {FINALIZE_EVENTS} events"),
                target,
                bytes: 0,
                cell: Cell::default(),
            });
        }
    }

    // Warm-up (page cache, allocator, CPU frequency): one round at 1/10 of the events.
    for (name, load, n) in loads {
        if o.wants(name) {
            for target in targets {
                for &imp in &o.imps {
                    run_stream(imp, target, load, (n / 10).max(4), &inp)?;
                }
            }
        }
    }

    for round in 0..o.runs {
        let mut r = 0;
        for (name, load, n) in loads {
            if !o.wants(name) {
                continue;
            }
            for target in targets {
                round_robin(round, &o.imps, &mut rows[r].cell, |imp| {
                    run_stream(imp, target, load, n, &inp)
                })?;
                r += 1;
            }
        }
        if let Some(fi) = &fi {
            for (t, target) in targets.into_iter().enumerate() {
                let mut adds = Vec::new();
                round_robin(round, &o.imps, &mut rows[r].cell, |imp| {
                    let (add, fin) = run_finalize(imp, target, fi, &inp)?;
                    adds.push((imp, add));
                    Ok(fin)
                })?;
                for (imp, add) in adds {
                    add_rows[t].cell.push(imp, add);
                }
                r += 1;
            }
        }
        eprintln!(
            "run {}/{} done ({:.1} s)",
            round + 1,
            o.runs,
            t_start.elapsed().as_secs_f64()
        );
    }

    print_table(&rows, &add_rows);
    let encode = o
        .wants("encode")
        .then(|| run_encode(1_000_000 / o.scale, o.runs));
    let peak = if o.peak && o.wants("peak") {
        Some(run_peak(1_000_000 / o.scale, scratch.path())?)
    } else {
        None
    };
    print_targets(&rows, encode.as_ref(), peak.as_deref());
    println!(
        "\nTotal time: {:.1} s ({} mode, {} runs)",
        t_start.elapsed().as_secs_f64(),
        o.mode,
        o.runs
    );
    Ok(())
}

fn print_machine(o: &Opts) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let ncpu = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("# perf-writer-std throughput ({} mode)", o.mode);
    println!(
        "machine: {ncpu} CPUs, {cpu}; runs: {} (medians), interleaved round-robin",
        o.runs
    );
    println!(
        "ours = perf-writer-std PerfDataFileWriter (buffer {} KiB); seed = tracepoint_perf 0.5.0; \
         buf = std BufWriter<File> (default 8 KiB) writing the same bytes; buf256 = the same \
         with a {} KiB buffer",
        perf_writer_std::FILE_BUFFER_SIZE / 1024,
        perf_writer_std::FILE_BUFFER_SIZE / 1024
    );
    println!(
        "sink: ours and buf over a Write+Seek that discards; seed over /dev/null (it opens paths only)\n"
    );
}

fn fmt_cell(row: &Row, imp: Imp) -> String {
    let secs = row.cell.median_secs(imp);
    if secs.is_nan() {
        "–".to_owned()
    } else if row.bytes == 0 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.0} MB/s", row.bytes as f64 / secs / 1e6)
    }
}

fn ratio(row: &Row, other: Imp) -> f64 {
    row.cell.median_secs(other) / row.cell.median_secs(Imp::Ours)
}

fn fmt_ratio(row: &Row, other: Imp) -> String {
    let r = ratio(row, other);
    if r.is_nan() {
        "–".to_owned()
    } else {
        format!("{r:.2}×")
    }
}

fn fmt_allocs(row: &Row) -> String {
    IMPS.iter()
        .map(|&imp| {
            if row.cell.median_secs(imp).is_nan() {
                "–".to_owned()
            } else {
                row.cell.max_allocs(imp).to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

fn print_table(rows: &[Row], add_rows: &[Row]) {
    println!(
        "| workload | to | perf-writer-std | tracepoint_perf 0.5 | BufWriter 8 KiB | BufWriter 256 KiB \
         | ours ÷ seed | ours ÷ BufWriter | ours ÷ BufWriter 256 KiB | allocations ours / seed / buf / buf256 |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for row in rows.iter().chain(add_rows) {
        let to = match row.target {
            Target::File => "file",
            Target::Sink => "sink",
        };
        println!(
            "| {} | {to} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            fmt_cell(row, Imp::Ours),
            fmt_cell(row, Imp::Seed),
            fmt_cell(row, Imp::Buf),
            fmt_cell(row, Imp::Buf256),
            fmt_ratio(row, Imp::Seed),
            fmt_ratio(row, Imp::Buf),
            fmt_ratio(row, Imp::Buf256),
            fmt_allocs(row),
        );
    }
    println!(
        "\nRatios are speedups: median time of the other writer ÷ median time of ours (> 1: ours is faster)."
    );
    println!(
        "Allocations: the most counted in one timed run (stream rows: open → descs → events → \
         finalize and close; finalize rows: finalize alone; setup rows: adding descs and events)."
    );
    println!("\nSpread (min–max time over runs):");
    for row in rows.iter().chain(add_rows) {
        let spreads: Vec<String> = IMPS
            .iter()
            .map(|&imp| format!("{} {}", imp.name(), row.cell.spread(imp)))
            .collect();
        println!("  {} [{:?}]: {}", row.name, row.target, spreads.join(", "));
    }
}

struct EncodeResult {
    n: usize,
    encode_secs: f64,
    hand_secs: f64,
    allocs: u64,
}

fn run_encode(n: usize, runs: usize) -> EncodeResult {
    let mut buf = vec![0u8; 64 * 1024];
    encode_records(n / 10, &mut buf); // warm-up
    let (mut enc, mut hand, mut allocs) = (Vec::new(), Vec::new(), 0u64);
    for round in 0..runs {
        let mut one = |which: bool| {
            let a0 = allocations();
            let t0 = Instant::now();
            let bytes = if which {
                encode_records(n, &mut buf)
            } else {
                hand_records(n, &mut buf)
            };
            let secs = t0.elapsed().as_secs_f64();
            assert_eq!(bytes, n * SMALL);
            (secs, allocations() - a0)
        };
        let order = if round % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for which in order {
            let (secs, a) = one(which);
            if which {
                enc.push(secs);
                allocs = allocs.max(a);
            } else {
                hand.push(secs);
            }
        }
    }
    let r = EncodeResult {
        n,
        encode_secs: median(&mut enc),
        hand_secs: median(&mut hand),
        allocs,
    };
    println!(
        "\n| perf-encode alone | records/s | ns/record | heap allocations | vs hand-written copy |"
    );
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| to_slice(Record) × {} into a 64 KiB caller buffer | {:.1} M | {:.1} | {} | {:.2}× the time |",
        r.n,
        r.n as f64 / r.encode_secs / 1e6,
        r.encode_secs * 1e9 / r.n as f64,
        r.allocs,
        r.encode_secs / r.hand_secs
    );
    println!(
        "| hand-written copy_from_slice (floor) | {:.1} M | {:.1} | – | 1.00× |",
        r.n as f64 / r.hand_secs / 1e6,
        r.hand_secs * 1e9 / r.n as f64
    );
    r
}

/// (writer, events, VmHWM before, VmHWM after) for N and 10×N events.
type PeakRow = (Imp, usize, u64, u64);

fn run_peak(n: usize, dir: &Path) -> io::Result<Vec<PeakRow>> {
    let mut out = Vec::new();
    println!("\n| peak memory (VmHWM, child process, 64-byte events to a file) | {} events | {} events | ratio |", n, 10 * n);
    println!("|---|---:|---:|---:|");
    for imp in [Imp::Ours, Imp::Seed, Imp::Buf] {
        let (b1, a1) = peak_run(imp, n, dir)?;
        let (b10, a10) = peak_run(imp, 10 * n, dir)?;
        println!(
            "| {} | {} kB | {} kB | {:.3} |",
            match imp {
                Imp::Ours => "perf-writer-std",
                Imp::Seed => "tracepoint_perf 0.5",
                Imp::Buf | Imp::Buf256 => "BufWriter",
            },
            a1,
            a10,
            a10 as f64 / a1 as f64
        );
        out.push((imp, n, b1, a1));
        out.push((imp, 10 * n, b10, a10));
    }
    Ok(out)
}

fn print_targets(rows: &[Row], encode: Option<&EncodeResult>, peak: Option<&[PeakRow]>) {
    println!("\nTargets (from the medians above):");
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    // A ratio is NaN when one of its writers was left out (`--imps`): nothing to judge.
    let at_least = |x: f64, min: f64| {
        if x.is_nan() {
            "not measured"
        } else {
            verdict(x >= min)
        }
    };
    let find = |prefix: &str, t: Target| {
        rows.iter()
            .find(|r| r.target == t && r.name.contains(prefix))
    };
    for t in [Target::File, Target::Sink] {
        if let Some(r) = find("64 B, write_event_data", t) {
            let (s, b, b256) = (
                ratio(r, Imp::Seed),
                ratio(r, Imp::Buf),
                ratio(r, Imp::Buf256),
            );
            println!(
                "  64-byte writes [{t:?}]: {s:.1}× the seed (target ≥ 10×: {}), {b:.2}× BufWriter \
                 (target ≥ 0.95×: {}); {b256:.2}× a BufWriter with our 256 KiB buffer (no target)",
                at_least(s, 10.0),
                at_least(b, 0.95)
            );
        }
        if let Some(r) = find("vectored", t) {
            let s = ratio(r, Imp::Seed);
            println!(
                "  vectored [{t:?}]: {s:.2}× the seed (target ≥ 1×: {})",
                at_least(s, 1.0)
            );
        }
        if let Some(r) = find("finalize", t) {
            let s = ratio(r, Imp::Seed);
            println!(
                "  finalize [{t:?}]: {s:.2}× the seed's speed (target: no slower, ≥ 1×: {})",
                at_least(s, 1.0)
            );
        }
    }
    if let Some(e) = encode {
        println!(
            "  perf-encode hot path: {} heap allocations for {} records (target 0: {})",
            e.allocs,
            e.n,
            verdict(e.allocs == 0)
        );
    }
    if let Some(p) = peak {
        let ours: Vec<&PeakRow> = p.iter().filter(|r| r.0 == Imp::Ours).collect();
        if let [small, big] = ours[..] {
            let grow = big.3 as f64 / small.3 as f64;
            let delta = big.3 as i64 - small.3 as i64;
            // Retaining anything per event would add hundreds of MB for the 9×N extra events;
            // VmHWM itself moves by a few hundred kB from run to run.
            println!(
                "  peak memory: {} kB after {} events, {} kB after {} ({grow:.3}×, {delta:+} kB; \
                 target: no growth with the data, ≤ 1 MiB: {})",
                small.3,
                small.1,
                big.3,
                big.1,
                verdict(delta <= 1024)
            );
        }
    }
}
