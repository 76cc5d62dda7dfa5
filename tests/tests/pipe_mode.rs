//! Pipe mode: streams read by perf from a real pipe, identical to file mode, byte-swapped,
//! extended mid-stream, and readable after the writer is killed.

use integration_tests::fixtures::{DataMode, FixtureContent};
use integration_tests::perf_tool::{
    parse_header_only, perf_report_header, perf_script, perf_script_stdin, require_perf,
    script_lines, PerfCommand,
};
use integration_tests::records::{comm, sample, StdSample};
use integration_tests::{lpd, temp_data_file, tp_reader, Endian};
use perf_writer_std::{FeatureError, TracingError};
use perf_writer_std::{
    FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter, PerfWriter, WriterError,
};
use std::io::{BufRead, BufReader, Cursor, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
    PerfEventFormat,
};

const LAYOUT: u64 =
    sample::IDENTIFIER | sample::IP | sample::TID | sample::TIME | sample::CPU | sample::PERIOD;

fn sw_attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_time: 4000,
        sample_type: PerfEventAttrSampleType(LAYOUT),
        options: PerfEventAttrOptions(1 << 18 | 1 << 9),
        ..Default::default()
    }
}

fn tick(id: u64, tid: u32, time: u64, endian: Endian) -> Vec<u8> {
    StdSample {
        id,
        ip: 0x4000 + time % 64,
        pid: tid,
        tid,
        time,
        cpu: 0,
        period: 4000,
        raw: None,
        misc: 2,
    }
    .encode(endian)
}

/// The same calls for either mode: a tracepoint and a software event, COMMs and samples.
fn fill<O: OutputMode>(w: &mut PerfWriter<O>, endian: Endian) {
    let text = include_str!("../data/sched_switch.format");
    let format = Arc::new(PerfEventFormat::parse(true, "sched", text).unwrap());
    let tp = PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: u64::from(format.id()),
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(LAYOUT | sample::RAW),
        options: PerfEventAttrOptions(1 << 18),
        ..Default::default()
    };
    w.add_tracepoint_event_desc(&[10], &tp, "sched:sched_switch", &format)
        .unwrap();
    w.add_event_desc(&[20], &sw_attr(), "cpu-clock").unwrap();
    w.set_string_header(PerfHeaderIndex::Hostname, b"pipe-host")
        .unwrap();
    w.set_nr_cpus_header(2, 2);
    w.write_event_data(&comm(endian, 300, 300, "streamer", 1, 20))
        .unwrap();
    w.write_finished_init().unwrap();
    for i in 0..5u64 {
        let mut raw = vec![0u8; 64];
        raw[..2].copy_from_slice(&endian.u16_bytes(format.id() as u16));
        raw[8..16].copy_from_slice(b"streamer");
        let s = StdSample {
            id: 10,
            ip: 1,
            pid: 300,
            tid: 300,
            time: 10_000 + i * 100,
            cpu: 1,
            period: 1,
            raw: Some(&raw),
            misc: 1,
        };
        w.write_event_data(&s.encode(endian)).unwrap();
        w.write_event_data(&tick(20, 300, 10_050 + i * 100, endian))
            .unwrap();
    }
    w.write_finished_round().unwrap();
}

#[test]
fn pipe_stream_through_an_os_pipe_to_perf_script() {
    if !require_perf() {
        return;
    }
    let mut command = PerfCommand::new(&["script", "-i", "-"]);
    let mut perf = command
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = perf.stdin.take().unwrap();
    let mut w = PerfPipeWriter::from_writer(stdin).unwrap();
    fill(&mut w, Endian::Little);
    drop(w.finish().unwrap()); // closes the pipe: perf sees the end of the stream
    let out = perf.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stderr.contains("WARNING") && !stderr.contains("failed"),
        "{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 10, "{stdout}");
    for pair in lines.chunks(2) {
        assert!(
            pair[0].contains("sched:sched_switch: prev_comm=streamer"),
            "{}",
            pair[0]
        );
        assert!(pair[0].contains("[001]"), "{}", pair[0]);
        assert!(
            pair[1]
                .split_whitespace()
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| w == ["4000", "cpu-clock:"]),
            "{}",
            pair[1]
        );
        assert!(
            pair[1].trim_start().starts_with("streamer   300"),
            "{}",
            pair[1]
        );
    }
}

#[test]
fn file_mode_and_pipe_mode_print_the_same() {
    let mut file = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    fill(&mut file, Endian::Little);
    let file_bytes = file.finish().unwrap().into_inner();
    let mut pipe = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    fill(&mut pipe, Endian::Little);
    let pipe_bytes = pipe.finish().unwrap();

    let content = FixtureContent::from_bytes(&pipe_bytes).unwrap();
    assert_eq!(content.mode, DataMode::Pipe);
    let types: Vec<u32> = content.records.iter().map(|r| r.record_type).collect();
    // HEADER_ATTR ×2, HEADER_FEATUREs (HOSTNAME, NRCPUS, EVENT_DESC, end marker),
    // HEADER_TRACING_DATA, EVENT_UPDATE ×2, then the caller's records.
    assert_eq!(
        &types[..9],
        &[64, 64, 80, 80, 80, 80, 66, 78, 78],
        "{types:?}"
    );
    assert_eq!(content.pipe_feature_end_marker, Some(32));
    assert_eq!(
        content.event_names(),
        vec![Some("sched:sched_switch".into()), Some("cpu-clock".into())]
    );

    let l = lpd::read_pipe_without_tracing_payload(&pipe_bytes).unwrap();
    assert_eq!(
        l.attr_names(),
        vec![Some("sched:sched_switch"), Some("cpu-clock")]
    );
    assert_eq!(l.hostname.as_deref(), Some("pipe-host"));
    assert_eq!(l.count(9), 10);
    let tp = tp_reader::read_bytes(&pipe_bytes).unwrap();
    assert!(tp.pipe_mode);
    assert_eq!(
        tp.samples()
            .iter()
            .filter(|s| s.name == "sched:sched_switch")
            .count(),
        5
    );
    assert_eq!(tp.samples()[0].field("prev_comm"), Some("streamer"));

    if !require_perf() {
        return;
    }
    let ff = temp_data_file(&file_bytes);
    let pf = temp_data_file(&pipe_bytes);
    let from_file = perf_script(ff.path(), &[]);
    from_file.assert_clean();
    let from_pipe_path = perf_script(pf.path(), &[]);
    from_pipe_path.assert_clean();
    let from_stdin = perf_script_stdin(&pipe_bytes);
    from_stdin.assert_clean();
    assert_eq!(script_lines(&from_file).len(), 10);
    assert_eq!(script_lines(&from_file), script_lines(&from_pipe_path));
    assert_eq!(script_lines(&from_file), script_lines(&from_stdin));
    let header = perf_report_header(pf.path(), false);
    header.assert_clean();
    let h = parse_header_only(&header.stdout);
    assert_eq!(h.hostname(), Some("pipe-host"));
    assert_eq!(h.event_names(), vec!["sched:sched_switch", "cpu-clock"]);
}

/// perf 6.1 does not mark the events of a byte-swapped pipe stream as swapped, so it
/// misreads the u32 pairs of CPU and RAW in their samples (and refuses RAW): the
/// big-endian stream here uses a layout without them.
#[test]
fn big_endian_pipe_stream_decodes_and_perf_report_works() {
    const BE_LAYOUT: u64 =
        sample::IDENTIFIER | sample::IP | sample::TID | sample::TIME | sample::PERIOD;
    let e = Endian::Big;
    let attr = PerfEventAttr {
        sample_type: PerfEventAttrSampleType(BE_LAYOUT),
        ..sw_attr()
    };
    let mut w =
        PerfPipeWriter::from_writer_with_endian(Vec::new(), perf_writer_std::Endian::Big).unwrap();
    w.add_event_desc(&[20], &attr, "cpu-clock").unwrap();
    w.add_event_desc(&[21], &attr, "task-clock").unwrap();
    w.set_string_header(PerfHeaderIndex::Hostname, b"be-host")
        .unwrap();
    w.write_event_data(&comm(e, 300, 300, "streamer", 1, 20))
        .unwrap();
    for i in 0..4u64 {
        let r = integration_tests::records::RecordBuilder::new(e, 9, 2)
            .u64(20 + i % 2)
            .u64(0x4000 + i)
            .u32(300)
            .u32(300)
            .u64(10_000 + i * 100)
            .u64(4000)
            .finish();
        w.write_event_data(&r).unwrap();
    }
    let bytes = w.finish().unwrap();
    assert_eq!(&bytes[..8], b"2ELIFREP");
    let content = FixtureContent::from_bytes(&bytes).unwrap();
    assert_eq!(content.endian, Endian::Big);
    // No HEADER_FEATURE: perf 6.1 would read their feat_id without swapping it.
    assert!(content.records.iter().all(|r| r.record_type != 80));
    let l = lpd::read_pipe(&bytes).unwrap();
    assert_eq!(l.endian, Endian::Big);
    assert_eq!(l.count(9), 4);
    let times: Vec<u64> = l
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref()?.time)
        .collect();
    assert_eq!(times, vec![10_000, 10_100, 10_200, 10_300]);
    if !require_perf() {
        return;
    }
    let f = temp_data_file(&bytes);
    let script = perf_script(f.path(), &[]);
    script.assert_clean();
    let lines = script_lines(&script);
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (i, line) in lines.iter().enumerate() {
        let name = if i % 2 == 0 {
            "cpu-clock"
        } else {
            "task-clock"
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(&tokens[..2], &["streamer", "300"], "{line}");
        assert!(
            tokens
                .windows(2)
                .any(|w| w[0] == "4000" && w[1] == format!("{name}:")),
            "{line}"
        );
        assert!(line.contains(&format!("{:x}", 0x4000 + i)), "{line}");
    }
    // perf prints a pipe stream's header at the HEADER_FEATURE end marker, which a
    // big-endian stream cannot carry: --header-only lists nothing, but runs clean.
    let header = perf_report_header(f.path(), false);
    header.assert_clean();
    let stats = integration_tests::perf_tool::perf_report_stats(f.path());
    stats.assert_clean();
    assert_eq!(
        integration_tests::perf_tool::parse_stats(&stats.stdout).get("SAMPLE"),
        Some(&4)
    );
}

#[test]
fn descriptions_and_features_added_mid_stream() {
    let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    w.add_event_desc(&[1], &sw_attr(), "first").unwrap();
    w.set_nr_cpus_header(2, 2);
    w.write_event_data(&tick(1, 5, 100, Endian::Little))
        .unwrap();
    // A new event after the stream started: HEADER_ATTR + EVENT_UPDATE before its records.
    w.add_event_desc(&[2], &sw_attr(), "second").unwrap();
    w.set_nr_cpus_header(3, 3);
    w.write_event_data(&tick(2, 5, 200, Endian::Little))
        .unwrap();
    // Tracepoint formats cannot follow the tracing data, which perf reads once.
    let format = Arc::new(
        PerfEventFormat::parse(true, "sched", include_str!("../data/sched_switch.format")).unwrap(),
    );
    let mut tp = sw_attr();
    tp.attr_type = PerfEventAttrType::Tracepoint;
    tp.config = u64::from(format.id());
    assert_eq!(
        w.add_tracepoint_event_desc(&[3], &tp, "sched:sched_switch", &format),
        Err(WriterError::Tracing(TracingError::AfterStart))
    );
    // Nor can the tracing data's other parts: each setter says so rather than change
    // what never reaches the stream.
    let after_start = Err(WriterError::Tracing(TracingError::AfterStart));
    assert_eq!(w.set_tracing_data_required(8, 4096), after_start);
    assert_eq!(
        w.set_tracing_data_kallsyms(b"ffffffff81000000 T _text\n"),
        after_start
    );
    assert_eq!(
        w.set_tracing_data_saved_cmd_line(b"42 ticker\n"),
        after_start
    );
    assert_eq!(w.set_tracing_data_clear_ftraces(), after_start);
    let bytes = w.finish().unwrap();
    let content = FixtureContent::from_bytes(&bytes).unwrap();
    let types: Vec<u32> = content.records.iter().map(|r| r.record_type).collect();
    assert_eq!(
        types,
        vec![64, 80, 80, 80, 78, 9, 64, 80, 78, 9],
        "{types:?}"
    );
    // The late NRCPUS is a HEADER_FEATURE record after the first sample.
    let late = &content.records[7];
    assert_eq!(late.bytes[8..16], 7u64.to_le_bytes());
    assert_eq!(late.bytes[16..24], [3, 0, 0, 0, 3, 0, 0, 0]);
    // linux-perf-data 0.13 takes the attrs at the start of the stream only.
    let l = lpd::read_pipe(&bytes).unwrap();
    assert_eq!(l.attr_names(), vec![Some("first")]);
    // tracepoint_perf's reader takes the late HEADER_ATTR: both samples resolve to their event.
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    assert_eq!(
        tp.samples().iter().map(|s| s.id).collect::<Vec<_>>(),
        vec![1, 2]
    );
    if !require_perf() {
        return;
    }
    let f = temp_data_file(&bytes);
    let script = perf_script(f.path(), &[]);
    script.assert_clean();
    let lines = script_lines(&script);
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("first:"), "{lines:?}");
    assert!(lines[1].contains("second:"), "{lines:?}");
    let header = perf_report_header(f.path(), false);
    header.assert_clean();
    let h = parse_header_only(&header.stdout);
    // perf shows the header as it stood at the end of the features (the end marker).
    assert_eq!(h.nrcpus_online(), Some(2));
    assert_eq!(h.event_names(), vec!["first"]);
}

#[test]
fn killed_writer_leaves_every_flushed_event_readable() {
    let dir = tempfile::tempdir().unwrap();
    let batches = 20u64;
    let per_batch = 50u64;
    // Kill points: right after the first flush, one in the middle, and after the last.
    for kill_after in [1, 7, batches] {
        let path = dir.path().join(format!("killed-{kill_after}.data"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_pipe_crash_child"))
            .arg(&path)
            .args([batches.to_string(), per_batch.to_string(), "7".to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut to_child = child.stdin.take().unwrap();
        let mut from_child = BufReader::new(child.stdout.take().unwrap());
        let mut flushed = 0u64;
        for batch in 1..=kill_after {
            let mut line = String::new();
            from_child.read_line(&mut line).unwrap();
            flushed = line
                .trim()
                .strip_prefix("flushed ")
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(flushed, per_batch * batch + 7 * (batch - 1));
            if batch < kill_after {
                writeln!(to_child, "go").unwrap();
            }
        }
        // The child now waits on stdin with 7 events written but not flushed.
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(!status.success());
        let bytes = std::fs::read(&path).unwrap();
        let content = FixtureContent::from_bytes(&bytes).unwrap();
        assert_eq!(
            content
                .records
                .iter()
                .filter(|r| r.record_type == 9)
                .count() as u64,
            flushed
        );
        let l = lpd::read_pipe(&bytes).unwrap();
        assert_eq!(l.count(9), flushed, "linux-perf-data reads the prefix");
        assert_eq!(l.hostname.as_deref(), Some("crash-host"));
        if require_perf() {
            let script = perf_script(&path, &[]);
            script.assert_clean();
            let lines = script_lines(&script);
            assert_eq!(lines.len() as u64, flushed, "kill after batch {kill_after}");
            let last_time = 1_000_000_000 + (flushed - 1) * 1000;
            assert!(
                lines
                    .last()
                    .unwrap()
                    .contains(&format!("1.{:06}:", (last_time - 1_000_000_000) / 1000)),
                "{}",
                lines.last().unwrap()
            );
        }
    }
}

/// A uname triple with one value too long for a HEADER_FEATURE record is refused whole: the
/// other two are not set either.
#[test]
fn a_refused_utsname_triple_changes_nothing() {
    let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    let refused = w.set_utsname_headers(b"h1", b"r1", &[b'a'; 70_000]);
    assert!(
        matches!(
            refused,
            Err(WriterError::Feature(FeatureError::TooLargeForPipe(_)))
        ),
        "{refused:?}"
    );
    for index in [
        PerfHeaderIndex::Hostname,
        PerfHeaderIndex::OSRelease,
        PerfHeaderIndex::Arch,
    ] {
        assert!(!w.has_header(index), "{index:?}");
    }
    w.set_utsname_headers(b"h1", b"r1", b"x86_64").unwrap();
    assert!(w.has_header(PerfHeaderIndex::Arch));
}
