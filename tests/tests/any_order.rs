//! File mode in strict mode takes records, descriptions and headers in any order, as
//! `tracepoint_perf` 0.5's writer does: a record whose description (or HEADER_COMPRESSED, or
//! tracepoint format) comes later is written, and checked when that arrives.
//!
//! - perf 6.1's recordings in `tests/data/perf-6.1` (file, pipe and `perf record -z`), read
//!   with `tracepoint_perf` 0.5's reader and written again as a converter would: records,
//!   then descriptions, then headers (the seed's order), and the reverse; `perf script`
//!   prints the recording's lines, linux-perf-data and the 0.5 reader read its records.
//! - Records before their descriptions, checked when those arrive: a description they
//!   contradict is refused naming them; finalize waits for the missing ones (and can be
//!   made again); a dropped writer keeps the records before the first undescribed one;
//!   SAMPLEs before their tracepoint's format; COMPRESSED records before HEADER_COMPRESSED;
//!   pipe mode keeps its order and says so. Each file is read back by perf 6.1 and
//!   linux-perf-data.

use integration_tests::fixtures::{self, DataMode, FixtureContent};
use integration_tests::perf_tool::{perf_script, require_perf, script_lines, PerfOutput};
use integration_tests::{lpd, temp_data_file, tp_reader};
use perf_writer_std::perf_encode::abi::{attr_flags, misc, record_type, sample_type as st};
use perf_writer_std::perf_encode::records::{
    Comm, Fork, PidTid, Sample, SampleCpu, SampleId, SampleLayout, SampleRecord,
};
use perf_writer_std::perf_encode::{to_vec, Endian};
use perf_writer_std::{
    Contradiction, PerfDataFileWriter, PerfHeaderIndex, PerfPipeWriter, RecordProblem, WriterError,
    MAX_PENDING_IDS,
};
use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
    PerfEventFormat,
};
use tracepoint_perf as tp;

/// Records that only exist in pipe mode (their content is the file header's in file mode).
const PIPE_ONLY: [u32; 3] = [
    record_type::HEADER_ATTR,
    record_type::HEADER_TRACING_DATA,
    record_type::HEADER_FEATURE,
];

// ---------------------------------------------------------------- a recording, as read

/// An event as the 0.5 reader lists it.
struct Desc {
    ids: Vec<u64>,
    attr: PerfEventAttr,
    name: String,
    format: Option<Arc<PerfEventFormat>>,
}

/// What a converter built on `tracepoint_perf` 0.5's reader has of a recording.
struct Read {
    records: Vec<Vec<u8>>,
    descs: Vec<Desc>,
    headers: Vec<(u8, Vec<u8>)>,
    long_size: u8,
    page_size: u32,
    header_page: Vec<u8>,
    header_event: Vec<u8>,
    ftraces: Vec<Vec<u8>>,
    kallsyms: Vec<u8>,
    printk: Vec<u8>,
    saved_cmdline: Vec<u8>,
}

fn read_with_seed_reader(path: &Path) -> Read {
    let mut r = tp::PerfDataFileReader::new();
    r.open_file(path.to_str().unwrap(), tp::PerfDataFileEventOrder::File)
        .unwrap();
    let mut records = Vec::new();
    while r.move_next_event().unwrap() {
        let e = r.current_event();
        if !PIPE_ONLY.contains(&e.header.ty.0) {
            records.push(e.data.to_vec());
        }
    }
    // The reader lists each event twice (from the attrs and from EVENT_DESC or HEADER_ATTR,
    // one copy possibly unnamed): one per id list, the one with a name (and format).
    let mut descs: Vec<Desc> = Vec::new();
    for d in r.event_desc_list() {
        let desc = Desc {
            ids: d.ids().to_vec(),
            attr: *d.attr(),
            name: d.name().to_string(),
            format: d.format_arc().cloned(),
        };
        match descs.iter_mut().find(|x| x.ids == desc.ids) {
            Some(x) if x.name.is_empty() || (x.format.is_none() && desc.format.is_some()) => {
                *x = desc
            }
            Some(_) => {}
            None => descs.push(desc),
        }
    }
    let headers = (1u8..32)
        .filter(|&b| b != PerfHeaderIndex::EventDesc.0 && b != PerfHeaderIndex::TracingData.0)
        .map(|b| (b, r.header(tp::PerfHeaderIndex(b)).to_vec()))
        .filter(|(_, h)| !h.is_empty())
        .collect();
    Read {
        records,
        descs,
        headers,
        long_size: r.tracing_data_long_size(),
        page_size: r.tracing_data_page_size(),
        header_page: r.tracing_data_header_page().to_vec(),
        header_event: r.tracing_data_header_event().to_vec(),
        ftraces: (0..r.tracing_data_ftrace_count())
            .map(|i| r.tracing_data_ftrace(i).to_vec())
            .collect(),
        kallsyms: r.tracing_data_kallsyms().to_vec(),
        printk: r.tracing_data_printk().to_vec(),
        saved_cmdline: r.tracing_data_saved_cmd_line().to_vec(),
    }
}

/// The order a converter makes its calls in.
#[derive(Clone, Copy, Debug)]
enum Order {
    /// Records, then descriptions, then headers (and the tracing-data settings).
    RecordsFirst,
    /// Headers and settings, then descriptions, then records.
    RecordsLast,
}

fn rewrite(read: &Read, order: Order) -> Vec<u8> {
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    assert!(w.strict());
    let records = |w: &mut PerfDataFileWriter<Cursor<Vec<u8>>>| {
        for (i, r) in read.records.iter().enumerate() {
            w.write_event_data(r)
                .unwrap_or_else(|e| panic!("record {i}: {e}"));
        }
    };
    let descs = |w: &mut PerfDataFileWriter<Cursor<Vec<u8>>>| {
        for d in &read.descs {
            match &d.format {
                Some(f) => w.try_add_tracepoint_event_desc(&d.ids, &d.attr, &d.name, f),
                None => w.try_add_event_desc(&d.ids, &d.attr, &d.name),
            }
            .unwrap_or_else(|e| panic!("{}: {e}", d.name));
        }
    };
    let headers = |w: &mut PerfDataFileWriter<Cursor<Vec<u8>>>| {
        for (bit, h) in &read.headers {
            w.try_set_header(PerfHeaderIndex(*bit), h)
                .unwrap_or_else(|e| panic!("feature {bit}: {e}"));
        }
        if read.long_size != 0 {
            w.try_set_tracing_data_required(read.long_size, read.page_size)
                .unwrap();
            w.try_set_tracing_data_header_page(&read.header_page)
                .unwrap();
            w.try_set_tracing_data_header_event(&read.header_event)
                .unwrap();
            w.set_tracing_data_clear_ftraces();
            for f in &read.ftraces {
                w.try_set_tracing_data_add_ftrace(f).unwrap();
            }
            w.try_set_tracing_data_kallsyms(&read.kallsyms).unwrap();
            w.try_set_tracing_data_printk(&read.printk).unwrap();
            w.try_set_tracing_data_saved_cmd_line(&read.saved_cmdline)
                .unwrap();
        }
    };
    match order {
        Order::RecordsFirst => {
            records(&mut w);
            descs(&mut w);
            headers(&mut w);
        }
        Order::RecordsLast => {
            headers(&mut w);
            descs(&mut w);
            records(&mut w);
        }
    }
    w.finish().unwrap().into_inner()
}

/// linux-perf-data's records of a file or stream, without the pipe-only ones, as
/// (type, misc, payload, time): what a rewrite must keep.
fn lpd_records(bytes: &[u8]) -> Vec<(u32, u16, Vec<u8>, Option<u64>)> {
    let fc = FixtureContent::from_bytes(bytes).unwrap();
    let l = match fc.mode {
        DataMode::File => lpd::read_file(bytes),
        DataMode::Pipe => lpd::read_pipe_without_tracing_payload(bytes),
    }
    .unwrap();
    let errors = l.records_with_parse_errors();
    assert!(errors.is_empty(), "{:?}", &errors[..errors.len().min(3)]);
    l.records
        .into_iter()
        .filter(|r| !PIPE_ONLY.contains(&r.record_type))
        .map(|r| (r.record_type, r.misc, r.payload, r.timestamp))
        .collect()
}

fn script(path: &Path, args: &[&str]) -> Vec<String> {
    let out: PerfOutput = perf_script(path, args);
    out.assert_clean();
    script_lines(&out)
}

/// A recording rewritten in `order` prints the same `perf script` lines (samples, and the
/// task and mmap events), and its records read the same with linux-perf-data and the 0.5
/// reader.
fn rewrite_in_order(name: &str, order: Order, samples: usize) {
    let path = fixtures::fixture_path(name);
    let original = fixtures::read_fixture(name);
    let read = read_with_seed_reader(&path);
    let bytes = rewrite(&read, order);
    let what = format!("{name}, {order:?}");
    assert_eq!(lpd_records(&bytes), lpd_records(&original), "{what}");
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.count(record_type::SAMPLE) as usize, samples, "{what}");
    let file = temp_data_file(&bytes);
    let (a, b) = (
        tp_reader::read(&path).unwrap(),
        tp_reader::read(file.path()).unwrap(),
    );
    assert_eq!(
        a.samples(),
        b.samples(),
        "{what}: decoded by the 0.5 reader"
    );
    if require_perf() {
        for args in [&[][..], &["--show-task-events", "--show-mmap-events"]] {
            let want = script(&path, args);
            assert!(want.len() >= samples, "{what}");
            assert_eq!(
                script(file.path(), args),
                want,
                "{what}: perf script {args:?}"
            );
        }
    }
}

#[test]
fn perf_recordings_rewritten_records_first_read_as_the_recording() {
    for (name, samples) in [
        ("sched_switch.data", 31),
        ("cpu_clock.data", 52),
        ("pipe_sched.data", 38),
        ("zstd_sched.data", 388),
    ] {
        rewrite_in_order(name, Order::RecordsFirst, samples);
    }
}

#[test]
fn perf_recordings_rewritten_records_last_read_as_the_recording() {
    for (name, samples) in [
        ("sched_switch.data", 31),
        ("cpu_clock.data", 52),
        ("pipe_sched.data", 38),
        ("zstd_sched.data", 388),
    ] {
        rewrite_in_order(name, Order::RecordsLast, samples);
    }
}

// ---------------------------------------------------------------- records before descriptions

const SWITCH_IDS: [u64; 2] = [11, 12];
const CLOCK_IDS: [u64; 2] = [21, 22];
const T0: u64 = 5_000_000_000;

fn switch_format() -> Arc<PerfEventFormat> {
    let text = include_str!("../data/sched_switch.format");
    Arc::new(PerfEventFormat::parse(true, "sched", text).unwrap())
}

const COMMON: u64 = st::IDENTIFIER | st::IP | st::TID | st::TIME | st::CPU | st::PERIOD;

fn switch_attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: u64::from(switch_format().id()),
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(COMMON | st::RAW),
        options: PerfEventAttrOptions(attr_flags::SAMPLE_ID_ALL),
        ..Default::default()
    }
}

fn clock_attr(sample_type: u64) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_time: 4000,
        sample_type: PerfEventAttrSampleType(sample_type),
        options: PerfEventAttrOptions(
            attr_flags::SAMPLE_ID_ALL | attr_flags::COMM | attr_flags::TASK,
        ),
        ..Default::default()
    }
}

fn layout_of(a: &PerfEventAttr) -> SampleLayout {
    SampleLayout::from_attr(&perf_writer_std::perf_encode::abi::PerfEventAttr::from(a))
}

/// sched_switch's RAW payload with `common_type` `ct`, from task `prev` to `next`.
fn switch_raw(ct: u16, prev: &str, next: &str) -> Vec<u8> {
    let mut raw = vec![0u8; 68];
    raw[..2].copy_from_slice(&ct.to_le_bytes());
    raw[4..8].copy_from_slice(&300u32.to_le_bytes());
    raw[8..8 + prev.len()].copy_from_slice(prev.as_bytes());
    raw[24..28].copy_from_slice(&300u32.to_le_bytes());
    raw[28..32].copy_from_slice(&120u32.to_le_bytes());
    raw[40..40 + next.len()].copy_from_slice(next.as_bytes());
    raw[56..60].copy_from_slice(&301u32.to_le_bytes());
    raw[60..64].copy_from_slice(&120u32.to_le_bytes());
    raw
}

fn sid(id: u64, time: u64, cpu: u32) -> SampleId {
    SampleId {
        tid: Some(PidTid { pid: 300, tid: 300 }),
        time: Some(time),
        cpu: Some(SampleCpu::new(cpu)),
        identifier: Some(id),
        ..Default::default()
    }
}

fn switch_sample(id: u64, time: u64, ct: u16) -> Vec<u8> {
    let raw = switch_raw(ct, "worker", "idle");
    let s = Sample {
        identifier: Some(id),
        ip: Some(0xffff_ffff_8100_0000),
        tid: Some(PidTid { pid: 300, tid: 300 }),
        time: Some(time),
        cpu: Some(SampleCpu::new((id % 2) as u32)),
        period: Some(1),
        raw: Some(&raw),
        ..Default::default()
    };
    let layout = layout_of(&switch_attr());
    to_vec(
        &SampleRecord {
            layout: &layout,
            sample: &s,
            misc: misc::KERNEL,
        },
        Endian::Little,
    )
    .unwrap()
}

fn clock_sample(id: u64, time: u64) -> Vec<u8> {
    let s = Sample {
        identifier: Some(id),
        ip: Some(0x40_1000 + time % 4096),
        tid: Some(PidTid { pid: 300, tid: 300 }),
        time: Some(time),
        cpu: Some(SampleCpu::new((id % 2) as u32)),
        period: Some(250_000),
        ..Default::default()
    };
    let layout = layout_of(&clock_attr(COMMON));
    to_vec(
        &SampleRecord {
            layout: &layout,
            sample: &s,
            misc: misc::USER,
        },
        Endian::Little,
    )
    .unwrap()
}

/// COMM and FORK of task 300 (the clock event's trailers), then 8 SAMPLEs of the two
/// events on two CPUs, interleaved.
fn trace() -> Vec<Vec<u8>> {
    let layout = layout_of(&clock_attr(COMMON));
    let mut v = vec![
        to_vec(
            &Fork {
                layout: &layout,
                misc: 0,
                pid: 300,
                ppid: 1,
                tid: 300,
                ptid: 1,
                time: T0,
                sample_id: sid(CLOCK_IDS[0], T0, 0),
            },
            Endian::Little,
        )
        .unwrap(),
        to_vec(
            &Comm {
                layout: &layout,
                pid: 300,
                tid: 300,
                comm: b"worker",
                exec: true,
                sample_id: sid(CLOCK_IDS[1], T0 + 1, 1),
            },
            Endian::Little,
        )
        .unwrap(),
    ];
    for k in 0..8u64 {
        let t = T0 + 1000 * (k + 1);
        v.push(match k % 4 {
            0 => switch_sample(SWITCH_IDS[0], t, 372),
            1 => clock_sample(CLOCK_IDS[1], t),
            2 => switch_sample(SWITCH_IDS[1], t, 372),
            _ => clock_sample(CLOCK_IDS[0], t),
        });
    }
    v
}

/// perf 6.1 and linux-perf-data read `bytes`: `samples` SAMPLEs, the names of the events
/// on them.
fn read_back(bytes: &[u8], samples: usize, names: &[&str]) {
    let l = lpd::read_file(bytes).unwrap();
    assert!(l.records_with_parse_errors().is_empty());
    assert_eq!(l.count(record_type::SAMPLE) as usize, samples);
    if require_perf() {
        let file = temp_data_file(bytes);
        let lines = script(file.path(), &[]);
        assert_eq!(lines.len(), samples, "{lines:#?}");
        let seen: BTreeSet<&str> = names
            .iter()
            .copied()
            .filter(|n| lines.iter().any(|l| l.contains(&format!("{n}:"))))
            .collect();
        assert_eq!(seen, names.iter().copied().collect(), "{lines:#?}");
    }
}

fn contradiction(e: WriterError) -> (u64, u64, u32, Option<u64>, Contradiction) {
    match e {
        WriterError::ContradictsRecords {
            records,
            offset,
            type_,
            id,
            problem,
        } => (records, offset, type_, id, problem),
        other => panic!("not a contradiction: {other}"),
    }
}

#[test]
fn records_before_their_descriptions_are_checked_when_they_arrive() {
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    let records = trace();
    for r in &records {
        w.write_event_data(r).unwrap();
    }
    // The first description: its layout has no PERIOD, the records of its ids have one.
    let err = w
        .try_add_event_desc(&CLOCK_IDS, &clock_attr(COMMON & !st::PERIOD), "cpu-clock")
        .unwrap_err();
    let msg = err.to_string();
    let (n, offset, type_, id, problem) = contradiction(err);
    // Its SAMPLEs of id 22 come first: the fourth record, after FORK (64 bytes), COMM (56)
    // and a sched_switch SAMPLE (128).
    assert_eq!(
        (n, offset, type_, id),
        (2, 104 + 64 + 56 + 128, 9, Some(CLOCK_IDS[1]))
    );
    assert_eq!(problem, Contradiction::SampleLength { min: 56, max: 56 });
    assert!(
        msg.contains("file offset 352") && msg.contains("sample id 22"),
        "{msg}"
    );
    // Nothing was added: the right one is.
    w.try_add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
        .unwrap();
    // Still waiting: sched_switch's SAMPLEs.
    match w.finish() {
        Err(WriterError::UndescribedRecords(p)) => {
            assert_eq!((p.records, p.ids, p.offset), (4, 2, 104 + 64 + 56));
        }
        other => panic!("{other:?}"),
    }
    // A format whose common_type is not the one the RAW payloads carry: refused.
    let mut other = include_str!("../data/sched_switch.format").replace("ID: 372", "ID: 373");
    other.push('\n');
    let mut attr = switch_attr();
    attr.config = 373;
    let err = w
        .add_tracepoint_event_desc_from_text(
            &SWITCH_IDS,
            &attr,
            "sched:sched_switch",
            "sched",
            &other,
        )
        .unwrap_err();
    assert_eq!(
        contradiction(err).4,
        Contradiction::Raw(
            perf_writer_std::perf_encode::features::TracepointRawProblem::CommonType {
                found: 372,
                expected: 373
            }
        )
    );
    w.add_tracepoint_event_desc(
        &SWITCH_IDS,
        &switch_attr(),
        "sched:sched_switch",
        &switch_format(),
    );
    let bytes = w.finish().unwrap().into_inner();
    read_back(&bytes, 8, &["sched:sched_switch", "cpu-clock"]);
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(
        (l.count(record_type::COMM), l.count(record_type::FORK)),
        (1, 1)
    );
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    let comms: Vec<_> = tp
        .samples()
        .iter()
        .filter_map(|s| s.field("next_comm"))
        .collect();
    assert_eq!(comms, ["idle"; 4]);
    if require_perf() {
        let file = temp_data_file(&bytes);
        let lines = script(file.path(), &["--show-task-events"]);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("PERF_RECORD_COMM") && l.contains("worker")),
            "{lines:#?}"
        );
    }
}

#[test]
fn a_description_without_the_trailer_the_records_have_is_refused() {
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    for r in trace() {
        w.write_event_data(&r).unwrap();
    }
    let mut attr = clock_attr(COMMON);
    attr.options = PerfEventAttrOptions(attr_flags::COMM | attr_flags::TASK);
    // No sample_id_all: COMM and FORK would be 32 bytes shorter (and perf would read every
    // record as the first event's).
    let err = w
        .try_add_event_desc(&CLOCK_IDS, &attr, "cpu-clock")
        .unwrap_err();
    let (_, offset, type_, _, problem) = contradiction(err);
    assert_eq!((offset, type_), (104, record_type::FORK));
    assert_eq!(problem, Contradiction::SideBandLength { trailer: 0 });
    w.try_add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
        .unwrap();
    w.add_tracepoint_event_desc(
        &SWITCH_IDS,
        &switch_attr(),
        "sched:sched_switch",
        &switch_format(),
    );
    read_back(
        &w.finish().unwrap().into_inner(),
        8,
        &["sched:sched_switch", "cpu-clock"],
    );
}

#[test]
fn finalize_waits_for_descriptions_and_a_dropped_writer_keeps_the_described_records() {
    let dir = tempfile::tempdir().unwrap();
    for fix in [false, true] {
        let path = dir.path().join(format!("waiting-{fix}.data"));
        let mut w = PerfDataFileWriter::new();
        w.create_file(path.to_str().unwrap()).unwrap();
        w.try_add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
            .unwrap();
        for k in 0..3 {
            w.write_event_data(&clock_sample(CLOCK_IDS[0], T0 + k))
                .unwrap();
        }
        // Id 99 has no description yet.
        let first_unknown = w.file_pos().unwrap();
        w.write_event_data(&clock_sample(99, T0 + 10)).unwrap();
        w.write_event_data(&clock_sample(CLOCK_IDS[1], T0 + 11))
            .unwrap();
        let err = w.finalize_and_close().unwrap_err();
        let msg = err.to_string();
        match WriterError::from_io(&err) {
            Some(WriterError::UndescribedRecords(p)) => {
                assert_eq!(
                    (p.records, p.ids, p.offset, p.type_),
                    (1, 1, first_unknown, 9)
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(msg.contains("finalize again"), "{msg}");
        if fix {
            // Described now: finalize succeeds with every record.
            w.try_add_event_desc(&[99], &clock_attr(COMMON), "late")
                .unwrap();
            w.finalize_and_close().unwrap();
            read_back(&std::fs::read(&path).unwrap(), 5, &["cpu-clock", "late"]);
        } else {
            // Dropped: the file ends before the record of id 99.
            drop(w);
            let bytes = std::fs::read(&path).unwrap();
            read_back(&bytes, 3, &["cpu-clock"]);
            let fc = FixtureContent::from_bytes(&bytes).unwrap();
            assert_eq!(fc.header.unwrap().data.size, first_unknown - 104);
        }
    }
}

#[test]
fn tracepoint_samples_before_their_format_are_checked_by_it() {
    for good in [true, false] {
        let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
        // sched_switch described without its format (as `add_event_desc` of a tracepoint
        // does); its SAMPLEs' RAW payloads wait for the format.
        w.try_add_event_desc(&SWITCH_IDS[..1], &switch_attr(), "sched:sched_switch")
            .unwrap();
        let ct = if good { 372 } else { 0 };
        for k in 0..3 {
            w.write_event_data(&switch_sample(SWITCH_IDS[0], T0 + k, ct))
                .unwrap();
        }
        // The format arrives with another id of the event.
        let r = w.try_add_tracepoint_event_desc(
            &SWITCH_IDS[1..],
            &switch_attr(),
            "sched:sched_switch",
            &switch_format(),
        );
        if !good {
            let (n, offset, _, _, problem) = contradiction(r.unwrap_err());
            assert_eq!((n, offset), (3, 104));
            assert!(matches!(problem, Contradiction::Raw(_)), "{problem:?}");
            continue;
        }
        r.unwrap();
        w.write_event_data(&switch_sample(SWITCH_IDS[1], T0 + 9, 372))
            .unwrap();
        let bytes = w.finish().unwrap().into_inner();
        read_back(&bytes, 4, &["sched:sched_switch"]);
    }
}

#[test]
fn compressed_records_wait_for_a_readable_header_compressed() {
    let name = "zstd_sched.data";
    let path = fixtures::fixture_path(name);
    let read = read_with_seed_reader(&path);
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    for r in &read.records {
        w.write_event_data(r).unwrap();
    }
    let compressed = read
        .records
        .iter()
        .filter(|r| u32::from_le_bytes(r[..4].try_into().unwrap()) == record_type::COMPRESSED)
        .count() as u64;
    assert!(compressed > 0);
    for d in &read.descs {
        match &d.format {
            Some(f) => w.try_add_tracepoint_event_desc(&d.ids, &d.attr, &d.name, f),
            None => w.try_add_event_desc(&d.ids, &d.attr, &d.name),
        }
        .unwrap();
    }
    match w.finish() {
        Err(WriterError::UndescribedRecords(p)) => assert_eq!(p.records, compressed),
        other => panic!("{other:?}"),
    }
    let (_, header) = read
        .headers
        .iter()
        .find(|(b, _)| *b == PerfHeaderIndex::Compressed.0)
        .unwrap();
    // Not zstd: refused, naming the COMPRESSED records.
    let mut lz4 = header.clone();
    lz4[4..8].copy_from_slice(&2u32.to_le_bytes());
    let (n, _, type_, _, problem) = contradiction(
        w.try_set_header(PerfHeaderIndex::Compressed, &lz4)
            .unwrap_err(),
    );
    assert_eq!(
        (n, type_, problem),
        (
            compressed,
            record_type::COMPRESSED,
            Contradiction::Compression
        )
    );
    for (bit, h) in &read.headers {
        w.try_set_header(PerfHeaderIndex(*bit), h).unwrap();
    }
    // Taken back now would make them unreadable: refused too.
    assert!(w.try_set_header(PerfHeaderIndex::Compressed, &[]).is_err());
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(
        lpd_records(&bytes),
        lpd_records(&fixtures::read_fixture(name))
    );
    if require_perf() {
        let file = temp_data_file(&bytes);
        assert_eq!(script(file.path(), &[]), script(&path, &[]));
    }
}

#[test]
fn pipe_mode_keeps_its_order_and_says_so() {
    let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    let err = w
        .write_event_data(&clock_sample(CLOCK_IDS[0], T0))
        .unwrap_err();
    let msg = err.to_string();
    match WriterError::from_io(&err) {
        Some(WriterError::RecordRefused { problem, .. }) => {
            assert_eq!(*problem, RecordProblem::DescribeFirstInPipeMode(None))
        }
        other => panic!("{other:?}"),
    }
    assert!(msg.contains("perf reads a pipe stream in order"), "{msg}");
    assert!(msg.contains("file mode takes them in any order"), "{msg}");
    w.try_add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
        .unwrap();
    // A record naming an id added later: refused too.
    let err = w.write_event_data(&clock_sample(99, T0)).unwrap_err();
    assert!(matches!(
        WriterError::from_io(&err),
        Some(WriterError::RecordRefused {
            problem: RecordProblem::DescribeFirstInPipeMode(Some(99)),
            ..
        })
    ));
    for k in 0..3 {
        w.write_event_data(&clock_sample(CLOCK_IDS[0], T0 + k))
            .unwrap();
    }
    let stream = w.finish().unwrap();
    let l = lpd::read_pipe(&stream).unwrap();
    assert_eq!(l.count(record_type::SAMPLE), 3);
    if require_perf() {
        let file = temp_data_file(&stream);
        assert_eq!(script(file.path(), &[]).len(), 3);
    }
}

#[test]
fn the_ids_that_wait_are_bounded_and_the_refusal_says_so() {
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    w.try_add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
        .unwrap();
    for id in 0..MAX_PENDING_IDS as u64 {
        w.write_event_data(&clock_sample(1000 + id, T0 + id))
            .unwrap();
    }
    // One more id: refused at the record, which names the limit.
    let err = w.write_event_data(&clock_sample(999_999, T0)).unwrap_err();
    assert!(matches!(
        WriterError::from_io(&err),
        Some(WriterError::RecordRefused {
            problem: RecordProblem::TooManyPendingIds,
            ..
        })
    ));
    assert!(
        err.to_string().contains(&MAX_PENDING_IDS.to_string()),
        "{err}"
    );
    // Records of the ids that wait are still taken; their descriptions resolve them.
    w.write_event_data(&clock_sample(1000, T0)).unwrap();
    let ids: Vec<u64> = (1000..1000 + MAX_PENDING_IDS as u64).collect();
    w.try_add_event_desc(&ids, &clock_attr(COMMON), "many")
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    read_back(&bytes, MAX_PENDING_IDS + 1, &["many"]);
}

/// One event whose SAMPLEs carry ID without IDENTIFIER (after IP and TID), records first:
/// attributed by the ids found there.
#[test]
fn records_with_id_and_no_identifier_before_the_first_description() {
    let sample_type = st::IP | st::TID | st::ID | st::TIME | st::PERIOD;
    let attr = clock_attr(sample_type);
    let layout = layout_of(&attr);
    let sample = |id: u64, t: u64| {
        let s = Sample {
            ip: Some(0x40_1000),
            tid: Some(PidTid { pid: 300, tid: 300 }),
            id: Some(id),
            time: Some(t),
            period: Some(1),
            ..Default::default()
        };
        to_vec(
            &SampleRecord {
                layout: &layout,
                sample: &s,
                misc: misc::USER,
            },
            Endian::Little,
        )
        .unwrap()
    };
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    for (k, id) in [5u64, 6, 5, 6].into_iter().enumerate() {
        w.write_event_data(&sample(id, T0 + k as u64)).unwrap();
    }
    // A first description that does not own id 6: those records cannot be told apart.
    let err = w.try_add_event_desc(&[5], &attr, "cpu-clock").unwrap_err();
    assert!(matches!(
        contradiction(err).4,
        Contradiction::Unattributable(_)
    ));
    w.try_add_event_desc(&[5, 6], &attr, "cpu-clock").unwrap();
    read_back(&w.finish().unwrap().into_inner(), 4, &["cpu-clock"]);
}
