//! Against `tracepoint_perf` 0.5's writer: its defects, each fixed (here), and its files
//! matched where they are right (`differential`), and a 0.5 program using every method
//! compiled against both (`api_surface`).
//!
//! One test per defect of tracepoint_perf 0.5's writer (the README's "Migrating" table lists
//! them): each asserts the fixed behaviour through real readers, and where it is cheap,
//! shows the seed writer failing the same check.

mod api_surface;
mod differential;
mod reader_to_writer;

use integration_tests::perf_tool::{
    parse_evlist, parse_header_only, perf_evlist, perf_report_header, perf_script, require_perf,
    script_lines,
};
use integration_tests::records::{sample, StdSample};
use integration_tests::{fixtures::FixtureContent, lpd, temp_data_file, tp_reader, Endian};
use perf_writer_std::{EventError, RecordError};
use perf_writer_std::{FileOutput, PerfDataFileWriter, PerfHeaderIndex, PerfWriter, WriterError};
use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrSize,
    PerfEventAttrType, PerfEventFormat,
};

const LAYOUT: u64 =
    sample::IDENTIFIER | sample::IP | sample::TID | sample::TIME | sample::CPU | sample::PERIOD;

fn attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        size: PerfEventAttrSize::Ver7,
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(LAYOUT),
        options: PerfEventAttrOptions(1 << 18),
        ..Default::default()
    }
}

fn one_sample(id: u64) -> Vec<u8> {
    StdSample {
        id,
        ip: 0x1234,
        pid: 7,
        tid: 7,
        time: 1_000_000,
        cpu: 0,
        period: 1,
        raw: None,
        misc: 2,
    }
    .encode(Endian::Little)
}

/// The 0.5 face over memory (0.5 had no such constructor: the native writer has).
fn new_writer() -> PerfDataFileWriter<Cursor<Vec<u8>>> {
    PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new()))
        .unwrap()
        .into()
}

/// Runs the seed writer on a temporary path; returns its file, or `None` if it panicked.
fn seed_file(build: impl FnOnce(&mut tracepoint_perf::PerfDataFileWriter)) -> Option<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seed.data");
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut w = tracepoint_perf::PerfDataFileWriter::new();
        w.create_file(path.to_str().unwrap()).unwrap();
        build(&mut w);
        w.finalize_and_close().unwrap();
    }));
    result.ok().map(|()| std::fs::read(&path).unwrap())
}

#[test]
fn defect_1_non_ascii_name_does_not_panic() {
    let name = "tâche-Ω";
    let seed = seed_file(|w| {
        assert!(w.add_event_desc(&[1], &attr(), name));
        w.write_event_data(&one_sample(1)).unwrap();
    });
    assert!(
        seed.is_none(),
        "tracepoint_perf 0.5 panics in finalize on a non-ASCII name"
    );

    let mut w = new_writer();
    assert!(w.add_event_desc(&[1], &attr(), name));
    w.write_event_data(&one_sample(1)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(
        lpd::read_file(&bytes).unwrap().attr_names(),
        vec![Some(name)]
    );
    if require_perf() {
        let f = temp_data_file(&bytes);
        let ev = perf_evlist(f.path());
        ev.assert_clean();
        assert_eq!(parse_evlist(&ev.stdout)[0].name, name);
    }
}

#[test]
fn defect_2_callers_event_desc_and_tracing_data_are_kept() {
    // A caller's EVENT_DESC naming the event differently than add_event_desc did.
    let mut events_w = new_writer();
    assert!(events_w.add_event_desc(&[1], &attr(), "from-callers-event-desc"));
    let own = FixtureContent::from_bytes(&events_w.finish().unwrap().into_inner()).unwrap();
    let callers_desc = own.features[&12].clone();

    let mut w = new_writer();
    assert!(w.add_event_desc(&[1], &attr(), "from-add-event-desc"));
    assert!(w.set_header(PerfHeaderIndex::EventDesc, &callers_desc));
    w.write_event_data(&one_sample(1)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(
        l.feature_sections[&12], callers_desc,
        "EVENT_DESC written as given"
    );
    assert_eq!(l.attr_names(), vec![Some("from-callers-event-desc")]);

    // A caller's TRACING_DATA (perf's own, from a recording) with a tracepoint desc.
    let fixture = FixtureContent::load("sched_switch.data");
    let tracing_data = fixture.tracing_data.clone().unwrap();
    let tp_attr = fixture.attrs.iter().find(|a| a.attr_type == 2).unwrap();
    let mut td_attr = attr();
    td_attr.attr_type = PerfEventAttrType::Tracepoint;
    td_attr.config = tp_attr.config;
    let format_text = include_str!("../../data/sched_switch.format");
    let mut format = PerfEventFormat::parse(true, "sched", format_text).unwrap();
    if u64::from(format.id()) != tp_attr.config {
        // The recording's kernel numbers the tracepoint differently than this copy.
        let fixed = format_text.replacen(
            &format!("ID: {}", format.id()),
            &format!("ID: {}", tp_attr.config),
            1,
        );
        format = PerfEventFormat::parse(true, "sched", &fixed).unwrap();
    }
    let mut w = new_writer();
    assert!(w.add_tracepoint_event_desc(&[5], &td_attr, "sched:sched_switch", &Arc::new(format)));
    assert!(w.set_header(PerfHeaderIndex::TracingData, &tracing_data));
    w.write_event_data(&one_sample(5)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let written = FixtureContent::from_bytes(&bytes).unwrap();
    assert_eq!(
        written.tracing_data.as_deref(),
        Some(&tracing_data[..]),
        "TRACING_DATA written as given"
    );

    let seed = seed_file(|w| {
        assert!(w.add_event_desc(&[1], &attr(), "x"));
        assert!(w.set_header(tracepoint_perf::PerfHeaderIndex::EventDesc, &callers_desc));
    });
    if let Some(seed) = seed {
        // Release builds of the seed do not panic but overwrite the caller's bytes.
        assert_ne!(
            FixtureContent::from_bytes(&seed).unwrap().features[&12],
            callers_desc
        );
    }
}

#[test]
fn defect_3_attr_size_is_normalized() {
    for size in [0u32, 64, 200] {
        let mut a = attr();
        a.size = PerfEventAttrSize(size);
        let mut w = new_writer();
        assert!(w.add_event_desc(&[41, 42], &a, "sized"));
        w.write_event_data(&one_sample(42)).unwrap();
        let bytes = w.finish().unwrap().into_inner();
        let content = FixtureContent::from_bytes(&bytes).unwrap();
        assert_eq!(content.header.as_ref().unwrap().attr_size, 144);
        assert_eq!(content.attrs[0].attr_size, 128);
        assert_eq!(content.attrs[0].ids, vec![41, 42]);
        let l = lpd::read_file(&bytes).unwrap();
        assert_eq!(l.attrs[0].ids, vec![41, 42]);
        assert_eq!(l.records[0].attr_index, Some(0));
        if require_perf() {
            let f = temp_data_file(&bytes);
            let out = perf_report_header(f.path(), false);
            out.assert_clean();
            let h = parse_header_only(&out.stdout);
            let ev = h.event("sized").unwrap();
            assert_eq!(ev.ids, vec![41, 42], "attr given with size {size}");
            assert_eq!(ev.number("size"), Some(128));
        }
    }
}

#[test]
fn defect_4_cmdline_is_a_string_list() {
    let mut w = new_writer();
    assert!(w.add_event_desc(&[1], &attr(), "e"));
    assert!(w.set_string_header(PerfHeaderIndex::Cmdline, b"./agent --trace all"));
    w.write_event_data(&one_sample(1)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.cmdline, Some(vec!["./agent --trace all".to_owned()]));
    if !require_perf() {
        return;
    }
    let f = temp_data_file(&bytes);
    let out = perf_report_header(f.path(), false);
    out.assert_clean();
    assert_eq!(
        parse_header_only(&out.stdout).cmdline(),
        Some("./agent --trace all")
    );

    // The seed's plain string makes perf report fail.
    let seed = seed_file(|w| {
        assert!(w.add_event_desc(&[1], &attr(), "e"));
        assert!(w.set_string_header(
            tracepoint_perf::PerfHeaderIndex::Cmdline,
            b"./agent --trace all"
        ));
        w.write_event_data(&one_sample(1)).unwrap();
    })
    .unwrap();
    let sf = temp_data_file(&seed);
    let seed_out = perf_report_header(sf.path(), false);
    assert!(
        !seed_out.success()
            || parse_header_only(&seed_out.stdout).cmdline() != Some("./agent --trace all"),
        "{}",
        seed_out.describe()
    );
}

#[test]
fn defect_5_clockid_holds_the_clock_resolution() {
    const CLOCK_MONOTONIC_RAW: u32 = 4;
    use nix::time::{clock_getres, ClockId};
    assert_eq!(
        ClockId::CLOCK_MONOTONIC_RAW.as_raw(),
        CLOCK_MONOTONIC_RAW as i32
    );
    // The resolution depends on the kernel (1 ns with high-resolution timers, one tick
    // without): the writer must store what clock_getres says here. The seed stores the id
    // (4) instead.
    let res = clock_getres(ClockId::CLOCK_MONOTONIC_RAW).unwrap();
    let res_ns = u64::try_from(res.tv_sec()).unwrap() * 1_000_000_000
        + u64::try_from(res.tv_nsec()).unwrap();
    type Writer = PerfDataFileWriter<Cursor<Vec<u8>>>;
    let with_resolution = |set: &dyn Fn(&mut Writer)| {
        let mut w = new_writer();
        assert!(w.add_event_desc(&[1], &attr(), "e"));
        set(&mut w);
        w.write_event_data(&one_sample(1)).unwrap();
        w.finish().unwrap().into_inner()
    };
    let bytes = with_resolution(&|w| w.set_clockid_header(CLOCK_MONOTONIC_RAW));
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.clock_frequency, Some(res_ns));
    // A resolution given directly is stored as given: 1 ns, which perf prints as 1000 MHz
    // on every machine.
    let fixed = with_resolution(&|w| w.set_clock_resolution_header(1));
    assert_eq!(lpd::read_file(&fixed).unwrap().clock_frequency, Some(1));
    if require_perf() {
        let f = temp_data_file(&fixed);
        let out = perf_report_header(f.path(), true);
        out.assert_clean();
        assert_eq!(
            parse_header_only(&out.stdout).clockid_frequency_mhz(),
            Some(1000)
        );
        // perf reads the host's value the same way (resolution × 1000).
        let f = temp_data_file(&bytes);
        let out = perf_report_header(f.path(), true);
        out.assert_clean();
        assert_eq!(
            parse_header_only(&out.stdout).clockid_frequency_mhz(),
            Some(res_ns * 1000)
        );
    }
    let seed = seed_file(|w| {
        assert!(w.add_event_desc(&[1], &attr(), "e"));
        w.set_clockid_header(CLOCK_MONOTONIC_RAW);
        w.write_event_data(&one_sample(1)).unwrap();
    })
    .unwrap();
    assert_eq!(
        lpd::read_file(&seed).unwrap().clock_frequency,
        Some(4),
        "the seed's wrong value"
    );
}

#[test]
fn defect_6_tracing_data_is_synthesized_for_tracepoints() {
    let text = include_str!("../../data/sched_switch.format");
    let format = Arc::new(PerfEventFormat::parse(true, "sched", text).unwrap());
    let mut a = attr();
    a.attr_type = PerfEventAttrType::Tracepoint;
    a.config = u64::from(format.id());
    a.sample_type = PerfEventAttrSampleType(LAYOUT | sample::RAW);
    // RAW: all fields zero but common_type, which perf uses to find the format.
    let mut raw = vec![0u8; 64];
    raw[..2].copy_from_slice(&(format.id() as u16).to_le_bytes());
    let event = StdSample {
        id: 1,
        ip: 1,
        pid: 7,
        tid: 7,
        time: 5,
        cpu: 0,
        period: 1,
        raw: Some(&raw),
        misc: 1,
    }
    .encode(Endian::Little);

    // No set_tracing_data_required call.
    let mut w = new_writer();
    assert!(w.add_tracepoint_event_desc(&[1], &a, "sched:sched_switch", &format));
    w.write_event_data(&event).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let content = FixtureContent::from_bytes(&bytes).unwrap();
    assert!(content
        .tracing_data
        .as_ref()
        .expect("TRACING_DATA present")
        .starts_with(b"\x17\x08\x44tracing0.6\0"));
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    // Synthesized as perf on this machine would write it: sizeof(long) here.
    assert_eq!(
        usize::from(tp.tracing_data_long_size),
        std::mem::size_of::<std::ffi::c_long>()
    );
    assert!(tp.tracing_data_page_size.is_power_of_two());
    assert_eq!(tp.samples()[0].field("prev_comm"), Some(""));
    if require_perf() {
        let f = temp_data_file(&bytes);
        let out = perf_script(f.path(), &[]);
        out.assert_clean();
        assert!(
            script_lines(&out)[0].contains("sched:sched_switch: prev_comm= prev_pid=0"),
            "{}",
            out.stdout
        );
    }

    let seed = seed_file(|w| {
        assert!(w.add_tracepoint_event_desc(&[1], &a, "sched:sched_switch", &format));
        w.write_event_data(&event).unwrap();
    })
    .unwrap();
    assert!(
        FixtureContent::from_bytes(&seed)
            .unwrap()
            .tracing_data
            .is_none(),
        "the seed omits it"
    );
    if require_perf() {
        let sf = temp_data_file(&seed);
        assert!(
            !perf_evlist(sf.path()).success(),
            "perf refuses the seed's tracepoint file"
        );
    }

    // A tracepoint without any format would be refused by perf: finalize says so and can be
    // retried once TRACING_DATA is given, with its format (strict mode refuses one
    // without: perf would not find it).
    let mut w = new_writer();
    assert!(w.add_event_desc(&[1], &a, "sched:sched_switch"));
    let err = w.finish().unwrap_err();
    assert_eq!(
        err,
        perf_writer_std::WriterError::Event(EventError::MissingTracepointFormat {
            config: a.config
        })
    );
    let mut unknown = a;
    unknown.config = 99;
    let mut w2 = new_writer();
    assert!(w2.add_event_desc(&[1], &unknown, "sys:event"));
    assert!(!w2.set_header(
        PerfHeaderIndex::TracingData,
        content.tracing_data.as_ref().unwrap()
    ));
    assert!(w.set_header(
        PerfHeaderIndex::TracingData,
        content.tracing_data.as_ref().unwrap()
    ));
    let bytes = w.finish().unwrap().into_inner();
    if require_perf() {
        let f = temp_data_file(&bytes);
        let ev = perf_evlist(f.path());
        ev.assert_clean();
        assert_eq!(parse_evlist(&ev.stdout)[0].name, "sched:sched_switch");
    }
}

#[test]
fn defect_7_a_file_without_events_opens_everywhere() {
    let bytes = new_writer().finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.records.len(), 0);
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    assert_eq!(tp.count(9), 0);
    if require_perf() {
        let f = temp_data_file(&bytes);
        let out = perf_script(f.path(), &[]);
        out.assert_clean();
        assert!(script_lines(&out).is_empty());
    }
    let seed = seed_file(|_| {}).unwrap();
    assert!(
        lpd::read_file(&seed).is_err(),
        "linux-perf-data refuses the seed's empty file"
    );
    assert!(
        tp_reader::read_bytes(&seed).is_err(),
        "so does tracepoint_perf's own reader"
    );
}

/// Counts the writes that reach the output.
#[derive(Debug, Default)]
struct CountingOutput {
    inner: Cursor<Vec<u8>>,
    writes: usize,
}

impl Write for CountingOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for CountingOutput {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn defect_8_output_is_buffered() {
    let mut w = PerfDataFileWriter::from(
        PerfWriter::<FileOutput<_>>::from_writer(CountingOutput::default()).unwrap(),
    );
    assert!(w.add_event_desc(&[1], &attr(), "e"));
    let event = one_sample(1);
    assert_eq!(event.len(), 56);
    for _ in 0..20_000 {
        w.write_event_data(&event).unwrap();
    }
    let out = w.finish().unwrap();
    // 20,000 events (1.1 MB) reach the output in a handful of writes, not 20,000.
    assert!(out.writes <= 16, "{} writes", out.writes);
    assert_eq!(
        lpd::read_file(out.inner.get_ref()).unwrap().count(9),
        20_000
    );
}

#[test]
fn defect_9_failed_finalize_and_create_file() {
    // Settings made before create_file reach the file (the seed's create_file clears them).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.data");
    let mut w = PerfDataFileWriter::new();
    assert!(w.set_string_header(PerfHeaderIndex::Hostname, b"set-before-create"));
    assert!(w.add_event_desc(&[1], &attr(), "early"));
    w.create_file(path.to_str().unwrap()).unwrap();
    w.write_event_data(&one_sample(1)).unwrap();
    // A record cut short never wedges the writer: finalize drops it, writes the file with
    // the records before it, and says so (a failed finalize's retry: tests/faults.rs,
    // writer_state).
    let half = one_sample(2);
    w.write_event_data(&half[..20]).unwrap();
    assert_eq!(w.partial_record_len(), 20);
    let err = w.finalize_and_close().unwrap_err();
    assert!(
        matches!(
            WriterError::from_io(&err),
            Some(WriterError::Record(RecordError::PartialDropped(p))) if p.given == 20 && p.len == Some(half.len() as u64)
        ),
        "{err}"
    );
    w.finalize_and_close().unwrap();
    let l = lpd::read_file(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(l.hostname.as_deref(), Some("set-before-create"));
    assert_eq!(l.attr_names(), vec![Some("early")]);
    assert_eq!(l.count(9), 1);
}

#[test]
fn defect_10_validation_and_byte_order() {
    let mut w = new_writer();
    assert!(w.add_event_desc(&[1, 2], &attr(), "a"));
    assert!(
        !w.add_event_desc(&[2, 3], &attr(), "b"),
        "id 2 belongs to a"
    );
    // A record whose size is not a multiple of 8 is refused, the file stays intact.
    let mut bad = one_sample(1);
    bad[6] = 50;
    assert!(w.write_event_data(&bad).is_err());
    w.write_event_data(&one_sample(1)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.attrs.len(), 1);
    assert_eq!(l.count(9), 1);
    // Big-endian output is covered by scenarios::big_endian_file_decodes_in_perf_and_linux_perf_data.
}
