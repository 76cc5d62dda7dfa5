//! A program written for `tracepoint_perf` 0.5's `PerfDataFileWriter`, calling every one of
//! its methods, compiled twice: once with `use tracepoint_perf::…`, once with
//! `use perf_writer_std::…` (the only line that differs). Each method is also named with its
//! exact 0.5 type, so a changed signature fails to compile here. Both programs run; the
//! file perf-writer-std wrote is read back by perf, linux-perf-data and tracepoint_perf.

use integration_tests::perf_tool::{
    parse_evlist, parse_header_only, perf_evlist, perf_report_header, perf_script, require_perf,
    script_lines,
};
use integration_tests::{lpd, tp_reader};

/// The program, over whichever crate the `use` line names.
macro_rules! program_written_for_0_5 {
    ($module:ident, $($use_line:tt)*) => {
        mod $module {
            $($use_line)*
            use integration_tests::formats::{tick_as_ftrace, TICK};
            use integration_tests::records::{sample, StdSample};
            use integration_tests::Endian;
            use std::io::{self, IoSlice};
            use std::sync::Arc;
            use tracepoint_decode::{
                PerfByteReader, PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType,
                PerfEventAttrType, PerfEventFormat, PerfSessionInfo,
            };

            const LAYOUT: u64 = sample::IDENTIFIER
                | sample::IP
                | sample::TID
                | sample::TIME
                | sample::CPU
                | sample::PERIOD;

            /// Every method of 0.5's writer, by its exact type.
            #[allow(clippy::type_complexity)]
            pub fn signatures() {
                type W = PerfDataFileWriter;
                type Index = PerfHeaderIndex;
                let _: fn() -> W = W::new;
                let _: fn() -> W = <W as Default>::default;
                let _: fn(&W) -> String = |w| format!("{w:?}");
                let _: fn(&mut W) = W::close_no_finalize;
                let _: fn(&mut W) -> io::Result<()> = W::finalize_and_close;
                let _: fn(&mut W, &str) -> io::Result<()> = W::create_file;
                let _: fn(&W) -> Option<u64> = W::file_pos;
                let _: fn(&mut W, &[u8]) -> io::Result<()> = W::write_event_data;
                let _: fn(&mut W, &[IoSlice<'_>]) -> io::Result<usize> =
                    W::write_event_data_vectored;
                let _: fn(&mut W) -> io::Result<()> = W::write_finished_init;
                let _: fn(&mut W) -> io::Result<()> = W::write_finished_round;
                let _: for<'a> fn(&'a W, Index) -> &'a [u8] = W::get_header;
                let _: fn(&mut W, Index, &[u8]) -> bool = W::set_header;
                let _: fn(&mut W, Index, &[u8]) -> bool = W::set_string_header;
                let _: fn(&mut W, u32, u32) = W::set_nr_cpus_header;
                let _: fn(&mut W, u64, u64) = W::set_sample_time_header;
                let _: fn(&mut W, u32) = W::set_clockid_header;
                let _: fn(&mut W, u32, u64, u64) = W::set_clock_data_header;
                let _: fn(&mut W, &PerfSessionInfo) = W::set_session_info_headers;
                let _: fn(&mut W, &[u8], &[u8], &[u8]) -> bool = W::set_utsname_headers;
                let _: fn(&mut W, u8, u32) = W::set_tracing_data_required;
                let _: fn(&mut W, &[u8]) -> bool = W::set_tracing_data_header_page;
                let _: fn(&mut W, &[u8]) -> bool = W::set_tracing_data_header_event;
                let _: fn(&mut W, &[u8]) -> bool = W::set_tracing_data_kallsyms;
                let _: fn(&mut W, &[u8]) -> bool = W::set_tracing_data_printk;
                let _: fn(&mut W, &[u8]) -> bool = W::set_tracing_data_saved_cmd_line;
                let _: fn(&mut W) = W::set_tracing_data_clear_ftraces;
                let _: fn(&mut W, &[u8]) -> bool = W::set_tracing_data_add_ftrace;
                let _: fn(&mut W, &[u64], &PerfEventAttr, &str) -> bool = W::add_event_desc;
                let _: fn(&W, u32) -> bool = W::has_tracepoint_event_desc;
                let _: fn(&mut W, &[u64], &PerfEventAttr, &str, &Arc<PerfEventFormat>) -> bool =
                    W::add_tracepoint_event_desc;
            }

            fn sample(id: u64, time: u64, raw: Option<&[u8]>) -> Vec<u8> {
                let (ip, pid, cpu, period, misc) = (0x4000, 42, 1, 1, 2);
                StdSample { id, ip, pid, tid: pid, time, cpu, period, raw, misc }
                    .encode(Endian::Little)
            }

            /// Writes `path` (and a scratch file closed unfinalized at `scratch`) with every
            /// method, `header_page` as the tracing data's; returns what the `bool` and
            /// `Option` methods answered.
            pub fn write(path: &str, scratch: &str, header_page: &[u8]) -> io::Result<Vec<bool>> {
                let mut answers = Vec::new();

                let mut abandoned = PerfDataFileWriter::default();
                abandoned.create_file(scratch)?;
                abandoned.close_no_finalize();

                let mut w = PerfDataFileWriter::new();
                w.create_file(path)?;
                answers.push(w.file_pos().is_some());

                let clock = PerfEventAttr {
                    attr_type: PerfEventAttrType::Software,
                    sample_type: PerfEventAttrSampleType(LAYOUT),
                    options: PerfEventAttrOptions::SampleIdAll,
                    ..Default::default()
                };
                answers.push(w.add_event_desc(&[1], &clock, "cpu-clock"));
                let tick = Arc::new(PerfEventFormat::parse(true, "test", TICK).expect("parses"));
                let tick_attr = PerfEventAttr {
                    attr_type: PerfEventAttrType::Tracepoint,
                    config: u64::from(tick.id()),
                    sample_type: PerfEventAttrSampleType(LAYOUT | sample::RAW),
                    options: PerfEventAttrOptions::SampleIdAll,
                    ..Default::default()
                };
                answers.push(w.add_tracepoint_event_desc(&[2], &tick_attr, "test:tick", &tick));
                answers.push(w.has_tracepoint_event_desc(7));
                answers.push(!w.has_tracepoint_event_desc(8));

                w.set_tracing_data_required(8, 4096);
                answers.push(w.set_tracing_data_header_page(header_page));
                answers.push(w.set_tracing_data_header_event(b"# compressed entry header\n"));
                answers.push(w.set_tracing_data_kallsyms(b"ffffffff81000000 T _text\n"));
                answers.push(w.set_tracing_data_printk(b"0xffffffff828125ac : \"thaw\"\n"));
                answers.push(w.set_tracing_data_saved_cmd_line(b"42 ticker\n"));
                answers.push(w.set_tracing_data_add_ftrace(tick_as_ftrace().as_bytes()));
                w.set_tracing_data_clear_ftraces();
                answers.push(w.set_tracing_data_add_ftrace(tick_as_ftrace().as_bytes()));

                answers.push(w.set_utsname_headers(b"vm-05", b"6.1.0-test", b"x86_64"));
                answers.push(w.set_string_header(PerfHeaderIndex::CpuDesc, b"Test CPU"));
                answers.push(w.set_header(PerfHeaderIndex::TotalMem, &(1u64 << 20).to_le_bytes()));
                answers.push(w.get_header(PerfHeaderIndex::Hostname).len() > 4);
                w.set_nr_cpus_header(2, 2);
                w.set_sample_time_header(1_000, 4_000);
                w.set_clockid_header(1);
                w.set_clock_data_header(1, 1_700_000_000_000_000_000, 1_000);
                let mut session = PerfSessionInfo::new(PerfByteReader::new(false));
                session.set_clock_data(1, 1_700_000_000_000_000_000, 1_000);
                w.set_session_info_headers(&session);

                let mut raw = [0u8; 12];
                raw[..2].copy_from_slice(&7u16.to_le_bytes());
                raw[4..8].copy_from_slice(&42i32.to_le_bytes());
                raw[8..].copy_from_slice(&5i32.to_le_bytes());
                w.write_event_data(&sample(1, 1_000, None))?;
                w.write_finished_init()?;
                let split = sample(2, 2_000, Some(&raw));
                let slices = [IoSlice::new(&split[..20]), IoSlice::new(&split[20..])];
                answers.push(w.write_event_data_vectored(&slices)? == split.len());
                w.write_finished_round()?;
                w.write_event_data(&sample(1, 4_000, None))?;
                w.finalize_and_close()?;
                Ok(answers)
            }
        }
    };
}

program_written_for_0_5!(
    on_seed,
    use tracepoint_perf::{PerfDataFileWriter, PerfHeaderIndex};
);
program_written_for_0_5!(
    on_ours,
    use perf_writer_std::{PerfDataFileWriter, PerfHeaderIndex};
);

#[test]
fn a_program_written_for_0_5_compiles_and_runs_with_only_its_use_line_changed() {
    on_seed::signatures();
    on_ours::signatures();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let header_page = perf_writer_std::perf_encode::features::tracing_data::DEFAULT_HEADER_PAGE;
    let seed = on_seed::write(&path("seed.data"), &path("seed-scratch.data"), header_page);
    let ours = on_ours::write(&path("ours.data"), &path("ours-scratch.data"), header_page);
    let (seed, ours) = (seed.unwrap(), ours.unwrap());
    assert!(ours.iter().all(|&a| a), "{ours:?}");
    assert_eq!(ours, seed, "the same answers as 0.5");

    let ours_path = path("ours.data");
    let bytes = std::fs::read(&ours_path).unwrap();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.attr_names(), vec![Some("cpu-clock"), Some("test:tick")]);
    let t = tp_reader::read(&ours_path).unwrap();
    assert_eq!(t.hostname.as_deref(), Some("vm-05"));
    assert_eq!(t.os_release.as_deref(), Some("6.1.0-test"));
    assert_eq!(
        (t.tracing_data_long_size, t.tracing_data_page_size),
        (8, 4096)
    );
    let tick = t.desc("test:tick").unwrap();
    assert_eq!(tick.format.as_ref().map(|f| f.id), Some(7));
    let samples = t.samples();
    assert_eq!(samples.len(), 3);
    let ticked: Vec<_> = samples.iter().filter(|s| s.name == "test:tick").collect();
    assert_eq!(ticked.len(), 1);
    assert_eq!(ticked[0].field_i64("value"), Some(5));
    // The seed's file, read by its own reader, has the same events (0.5's reader names only
    // the tracepoint one there).
    let s = tp_reader::read(path("seed.data")).unwrap();
    assert_eq!(s.descs.len(), t.descs.len());
    assert_eq!(
        s.desc("test:tick")
            .and_then(|d| d.format.as_ref())
            .map(|f| f.id),
        Some(7)
    );

    if !require_perf() {
        return;
    }
    let ev = perf_evlist(&ours_path);
    ev.assert_clean();
    let evlist: Vec<_> = parse_evlist(&ev.stdout)
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(evlist, ["cpu-clock", "test:tick"]);
    let header = perf_report_header(&ours_path, false);
    header.assert_clean();
    let h = parse_header_only(&header.stdout);
    assert_eq!(h.get("hostname"), Some("vm-05"));
    assert_eq!(h.get("os release"), Some("6.1.0-test"));
    assert_eq!(h.get("arch"), Some("x86_64"));
    assert_eq!(h.get("cpudesc"), Some("Test CPU"));
    let script = perf_script(&ours_path, &[]);
    script.assert_clean();
    let lines = script_lines(&script);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[1].contains("test:tick:") && lines[1].contains("value=5"),
        "{lines:?}"
    );
}
