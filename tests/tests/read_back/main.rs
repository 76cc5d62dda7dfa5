//! What the writer writes, every reader reads: chosen scenarios (here) and arbitrary
//! descriptions, headers and records (`arbitrary_files`).
//!
//! Scenarios written by perf-writer-std and read back by perf 6.1, linux-perf-data 0.13 and
//! tracepoint_perf 0.5's reader, asserting what each of them decodes.

mod arbitrary_files;

use integration_tests::perf_tool::{
    parse_evlist, parse_header_only, parse_stats, perf_evlist, perf_report_header,
    perf_report_stats, perf_script, require_perf, script_lines, EvlistEntry, HeaderInfo,
};
use integration_tests::records::{comm, sample, RecordBuilder, StdSample};
use integration_tests::{lpd, perf_tool, temp_data_file, tp_reader, Endian};
use perf_writer_std::{FileOutput, PerfHeaderIndex, PerfWriter};
use std::collections::BTreeMap;
use std::io::Cursor;
use std::sync::Arc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
    PerfEventFormat,
};

const SAMPLE_ID_ALL: u64 = 1 << 18;
const COMM_FLAG: u64 = 1 << 9;
const STD_LAYOUT: u64 =
    sample::IDENTIFIER | sample::IP | sample::TID | sample::TIME | sample::CPU | sample::PERIOD;

type Writer = PerfWriter<FileOutput<Cursor<Vec<u8>>>>;

fn writer() -> Writer {
    PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap()
}

fn software_attr(config: u64, flags: u64) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        config,
        sample_time: 4000,
        sample_type: PerfEventAttrSampleType(STD_LAYOUT),
        options: PerfEventAttrOptions(SAMPLE_ID_ALL | flags),
        ..Default::default()
    }
}

/// What every reader made of one file.
struct Readback {
    _file: tempfile::NamedTempFile,
    script: Vec<String>,
    header: HeaderInfo,
    evlist: Vec<EvlistEntry>,
    stats: BTreeMap<String, u64>,
    lpd: lpd::LpdSummary,
    tp: tp_reader::TpSummary,
}

/// Reads `bytes` with every reader; every perf command must exit 0 with a clean stderr.
/// Returns `None` when perf is missing outside CI.
fn readback(bytes: &[u8]) -> Option<Readback> {
    let lpd = lpd::read_file(bytes).expect("linux-perf-data reads the file");
    assert!(lpd.feature_errors.is_empty(), "{:?}", lpd.feature_errors);
    assert!(lpd.records_with_parse_errors().is_empty());
    let tp = tp_reader::read_bytes(bytes).expect("tracepoint_perf reads the file");
    if !require_perf() {
        return None;
    }
    let file = temp_data_file(bytes);
    let script = perf_script(file.path(), &[]);
    script.assert_clean();
    let header = perf_report_header(file.path(), true);
    header.assert_clean();
    let evlist = perf_evlist(file.path());
    evlist.assert_clean();
    let stats = perf_report_stats(file.path());
    stats.assert_clean();
    Some(Readback {
        script: script_lines(&script),
        header: parse_header_only(&header.stdout),
        evlist: parse_evlist(&evlist.stdout),
        stats: parse_stats(&stats.stdout),
        lpd,
        tp,
        _file: file,
    })
}

/// sched_switch's format as a 6.x kernel gives it, stored in the repository.
const STORED_SCHED_SWITCH_FORMAT: &str = include_str!("../../data/sched_switch.format");

/// Where this kernel's sched_switch format is, when tracefs is mounted and readable.
const LIVE_SCHED_SWITCH_FORMAT: &str = "/sys/kernel/tracing/events/sched/sched_switch/format";

/// RAW payload of sched_switch with fields placed where `format` says.
fn switch_raw(format: &PerfEventFormat, prev: (&str, i32), next: (&str, i32)) -> Vec<u8> {
    let size = format
        .fields()
        .iter()
        .map(|f| f.offset() as usize + f.size() as usize)
        .max()
        .unwrap();
    let mut raw = vec![0u8; size];
    let mut put = |name: &str, value: &[u8]| {
        let f = format.fields().iter().find(|f| f.name() == name).unwrap();
        let at = f.offset() as usize;
        let n = value.len().min(f.size() as usize);
        raw[at..at + n].copy_from_slice(&value[..n]);
    };
    put("common_type", &(format.id() as u16).to_le_bytes());
    put("common_pid", &prev.1.to_le_bytes());
    put("prev_comm", prev.0.as_bytes());
    put("prev_pid", &prev.1.to_le_bytes());
    put("prev_prio", &120i32.to_le_bytes());
    put("prev_state", &0i64.to_le_bytes());
    put("next_comm", next.0.as_bytes());
    put("next_pid", &next.1.to_le_bytes());
    put("next_prio", &100i32.to_le_bytes());
    raw
}

#[test]
fn tracepoint_event_with_stored_tracefs_format() {
    tracepoint_event_with_format(STORED_SCHED_SWITCH_FORMAT);
}

#[test]
fn tracepoint_event_with_this_kernels_tracefs_format() {
    match std::fs::read_to_string(LIVE_SCHED_SWITCH_FORMAT) {
        Ok(text) => tracepoint_event_with_format(&text),
        Err(e) => {
            perf_tool::skip(&format!(
                "{LIVE_SCHED_SWITCH_FORMAT}: {e} (tracefs mounted there? root?)"
            ));
        }
    }
}

/// sched_switch samples with fields placed where the format `text` says, through every reader.
fn tracepoint_event_with_format(text: &str) {
    let format = Arc::new(PerfEventFormat::parse(true, "sched", text).unwrap());
    let tp_attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: u64::from(format.id()),
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(STD_LAYOUT | sample::RAW),
        options: PerfEventAttrOptions(SAMPLE_ID_ALL),
        ..Default::default()
    };
    let mut w = writer();
    // No set_tracing_data_required: TRACING_DATA must be synthesized anyway.
    w.add_tracepoint_event_desc(&[11, 12], &tp_attr, "sched:sched_switch", &format)
        .unwrap();
    let pairs = [
        (("alpha", 100), ("beta", 200)),
        (("beta", 200), ("gamma", 300)),
        (("gamma", 300), ("alpha", 100)),
    ];
    for (i, (prev, next)) in pairs.iter().enumerate() {
        let raw = switch_raw(&format, *prev, *next);
        let s = StdSample {
            id: 11 + (i as u64 % 2),
            ip: 0xffff_ffff_8100_0000,
            pid: prev.1 as u32,
            tid: prev.1 as u32,
            time: 5_000_000_000 + i as u64 * 1000,
            cpu: i as u32 % 2,
            period: 1,
            raw: Some(&raw),
            misc: 1,
        };
        w.write_event_data(&s.encode(Endian::Little)).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();

    // tracepoint_perf decodes the fields through the synthesized TRACING_DATA.
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    let desc = tp.desc("sched:sched_switch").unwrap();
    assert_eq!(desc.ids, vec![11, 12]);
    assert_eq!(desc.format.as_ref().unwrap().id, format.id());
    let samples = tp.samples();
    assert_eq!(samples.len(), 3);
    for (s, (prev, next)) in samples.iter().zip(pairs) {
        assert_eq!(s.field("prev_comm"), Some(prev.0));
        assert_eq!(s.field("next_comm"), Some(next.0));
        assert_eq!(s.field_i64("next_pid"), Some(i64::from(next.1)));
        assert_eq!(s.field_i64("next_prio"), Some(100));
    }

    let Some(r) = readback(&bytes) else { return };
    assert_eq!(r.lpd.attr_names(), vec![Some("sched:sched_switch")]);
    assert_eq!(r.lpd.attrs[0].ids, vec![11, 12]);
    assert_eq!(r.lpd.attrs[0].attr_type, 2);
    assert_eq!(r.lpd.count(9), 3);
    assert_eq!(r.script.len(), 3, "{:?}", r.script);
    for (line, (prev, next)) in r.script.iter().zip(pairs) {
        assert!(line.contains("sched:sched_switch:"), "{line}");
        assert!(
            line.contains(&format!(
                "prev_comm={} prev_pid={} prev_prio=120",
                prev.0, prev.1
            )),
            "{line}"
        );
        assert!(
            line.contains(&format!(
                "next_comm={} next_pid={} next_prio=100",
                next.0, next.1
            )),
            "{line}"
        );
    }
    let ev = r.header.event("sched:sched_switch").unwrap();
    assert_eq!(ev.ids, vec![11, 12]);
    assert_eq!(ev.number("config"), Some(u64::from(format.id())));
    assert_eq!(r.evlist.len(), 1);
    assert_eq!(r.evlist[0].name, "sched:sched_switch");
    assert_eq!(r.stats.get("SAMPLE"), Some(&3));
}

#[test]
fn software_event_with_comm_and_samples() {
    let mut w = writer();
    w.add_event_desc(&[7], &software_attr(0, COMM_FLAG), "cpu-clock")
        .unwrap();
    let e = Endian::Little;
    w.write_event_data(&comm(e, 321, 321, "worker-a", 10, 7))
        .unwrap();
    w.write_event_data(&comm(e, 321, 322, "worker-b", 11, 7))
        .unwrap();
    w.write_finished_init().unwrap();
    for i in 0..6u64 {
        let tid = 321 + (i % 2) as u32;
        let s = StdSample {
            id: 7,
            ip: 0x1000 + i,
            pid: 321,
            tid,
            time: 2_000_000_000 + i * 250_000,
            cpu: 0,
            period: 4000,
            raw: None,
            misc: 2,
        };
        w.write_event_data(&s.encode(e)).unwrap();
    }
    w.write_finished_round().unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let Some(r) = readback(&bytes) else {
        let l = lpd::read_file(&bytes).unwrap();
        assert_eq!(l.count(9), 6);
        return;
    };
    assert_eq!(r.script.len(), 6, "{:?}", r.script);
    for (i, line) in r.script.iter().enumerate() {
        let (name, tid) = if i % 2 == 0 {
            ("worker-a", 321)
        } else {
            ("worker-b", 322)
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[0], name, "{line}");
        assert_eq!(
            fields[1],
            format!("321/{tid}").as_str().split('/').nth(1).unwrap(),
            "{line}"
        );
        assert!(line.contains(&format!("2.{:06}:", i * 250)), "{line}");
        assert!(line.contains("4000 cpu-clock"), "{line}");
    }
    assert_eq!(r.stats.get("COMM"), Some(&2));
    assert_eq!(r.stats.get("SAMPLE"), Some(&6));
    assert_eq!(r.stats.get("FINISHED_ROUND"), Some(&1));
    assert_eq!(r.lpd.count(3), 2);
    assert_eq!(r.lpd.count(9), 6);
    let tids: Vec<i32> = r
        .lpd
        .records
        .iter()
        .filter_map(|x| x.sample.as_ref()?.tid)
        .collect();
    assert_eq!(tids, vec![321, 322, 321, 322, 321, 322]);
    assert_eq!(r.tp.count(3), 2);
    assert_eq!(r.tp.count(9), 6);
    assert_eq!(
        r.tp.samples().iter().map(|s| s.tid).collect::<Vec<_>>(),
        vec![321, 322, 321, 322, 321, 322]
    );
}

#[test]
fn sixty_four_descs_of_four_ids() {
    let mut w = writer();
    for d in 0..64u64 {
        let ids: Vec<u64> = (0..4).map(|i| 1000 + d * 4 + i).collect();
        w.add_event_desc(&ids, &software_attr(d % 12, 0), &format!("event-{d:02}"))
            .unwrap();
    }
    // One sample for the last id of each desc.
    for d in 0..64u64 {
        let s = StdSample {
            id: 1000 + d * 4 + 3,
            ip: 1,
            pid: 1,
            tid: 1,
            time: 1_000 + d,
            cpu: 0,
            period: 1,
            raw: None,
            misc: 2,
        };
        w.write_event_data(&s.encode(Endian::Little)).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let check_lpd = |l: &lpd::LpdSummary| {
        assert_eq!(l.attrs.len(), 64);
        for (d, a) in l.attrs.iter().enumerate() {
            assert_eq!(a.name.as_deref(), Some(format!("event-{d:02}").as_str()));
            let want: Vec<u64> = (0..4).map(|i| 1000 + d as u64 * 4 + i).collect();
            assert_eq!(a.ids, want);
        }
        // Each sample is attributed to its own desc.
        let idx: Vec<usize> = l
            .records
            .iter()
            .filter(|x| x.record_type == 9)
            .map(|x| x.attr_index.unwrap())
            .collect();
        assert_eq!(idx, (0..64).collect::<Vec<_>>());
    };
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    assert_eq!(tp.descs.len(), 64);
    assert_eq!(
        tp.desc("event-63").unwrap().ids,
        vec![1252, 1253, 1254, 1255]
    );
    let Some(r) = readback(&bytes) else {
        check_lpd(&lpd::read_file(&bytes).unwrap());
        return;
    };
    check_lpd(&r.lpd);
    assert_eq!(r.evlist.len(), 64);
    assert_eq!(r.header.events.len(), 64);
    let ev = r.header.event("event-17").unwrap();
    assert_eq!(ev.ids, vec![1068, 1069, 1070, 1071]);
    assert_eq!(ev.number("config"), Some(5));
    assert_eq!(r.script.len(), 64);
    for (d, line) in r.script.iter().enumerate() {
        assert!(line.contains(&format!("event-{d:02}:")), "{line}");
    }
}

#[test]
fn empty_file_is_an_empty_trace_for_every_reader() {
    let mut w = writer();
    let bytes = w.finish().unwrap().into_inner();
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    assert_eq!(tp.count(9), 0);
    let Some(r) = readback(&bytes) else {
        let l = lpd::read_file(&bytes).unwrap();
        assert_eq!(l.records.len(), 0);
        return;
    };
    assert!(r.script.is_empty(), "{:?}", r.script);
    assert_eq!(
        r.header.event_names(),
        vec![perf_writer_std::PLACEHOLDER_EVENT_NAME]
    );
    assert_eq!(r.stats.get("SAMPLE"), None);
    assert_eq!(
        r.stats.get("TOTAL"),
        Some(&1),
        "only the FINISHED_ROUND: {:?}",
        r.stats
    );
    assert_eq!(r.lpd.attrs.len(), 1);
    assert!(r.lpd.attrs[0].ids.is_empty());
    assert_eq!(r.lpd.records.len(), 0);
}

#[test]
fn non_ascii_event_name() {
    let name = "événement-ü-日本";
    let mut w = writer();
    w.add_event_desc(&[5], &software_attr(0, 0), name).unwrap();
    let s = StdSample {
        id: 5,
        ip: 1,
        pid: 9,
        tid: 9,
        time: 77,
        cpu: 0,
        period: 1,
        raw: None,
        misc: 2,
    };
    w.write_event_data(&s.encode(Endian::Little)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    // tracepoint_perf's reader decodes names as Latin-1: the UTF-8 bytes come back one
    // char per byte, unchanged.
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    let latin1: String = name.bytes().map(char::from).collect();
    assert!(tp.desc(&latin1).is_some(), "{:?}", tp.descs);
    let Some(r) = readback(&bytes) else {
        assert_eq!(
            lpd::read_file(&bytes).unwrap().attr_names(),
            vec![Some(name)]
        );
        return;
    };
    assert_eq!(r.lpd.attr_names(), vec![Some(name)]);
    assert_eq!(r.evlist[0].name, name);
    assert_eq!(r.header.event_names(), vec![name]);
    assert!(r.script[0].contains(&format!("{name}:")), "{:?}", r.script);
}

#[test]
fn every_string_header() {
    let mut w = writer();
    w.add_event_desc(&[1], &software_attr(0, 0), "cpu-clock")
        .unwrap();
    w.set_utsname_headers(b"host-\xc3\xa9\0\0\0", b"6.1.0-test", b"x86_64")
        .unwrap();
    w.set_string_header(PerfHeaderIndex::Version, b"6.1.187")
        .unwrap();
    w.set_string_header(PerfHeaderIndex::CpuDesc, b"Test CPU @ 1.00GHz")
        .unwrap();
    w.set_string_header(PerfHeaderIndex::CpuId, b"GenuineIntel,6,167,1")
        .unwrap();
    w.set_cmdline_header(&["/usr/bin/tracer", "--all", "-o", "x.data"])
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let tp = tp_reader::read_bytes(&bytes).unwrap();
    assert_eq!(tp.hostname.as_deref(), Some("host-é"));
    assert_eq!(tp.os_release.as_deref(), Some("6.1.0-test"));
    let Some(r) = readback(&bytes) else { return };
    let h = &r.header;
    assert_eq!(h.hostname(), Some("host-é"));
    assert_eq!(h.os_release(), Some("6.1.0-test"));
    assert_eq!(h.arch(), Some("x86_64"));
    assert_eq!(h.perf_version(), Some("6.1.187"));
    assert_eq!(h.cpudesc(), Some("Test CPU @ 1.00GHz"));
    assert_eq!(h.cpuid(), Some("GenuineIntel,6,167,1"));
    assert_eq!(h.cmdline(), Some("/usr/bin/tracer --all -o x.data"));
    let l = &r.lpd;
    assert_eq!(l.hostname.as_deref(), Some("host-é"));
    assert_eq!(l.os_release.as_deref(), Some("6.1.0-test"));
    assert_eq!(l.arch.as_deref(), Some("x86_64"));
    assert_eq!(l.perf_version.as_deref(), Some("6.1.187"));
    assert_eq!(l.cpu_desc.as_deref(), Some("Test CPU @ 1.00GHz"));
    assert_eq!(l.cpu_id.as_deref(), Some("GenuineIntel,6,167,1"));
    assert_eq!(
        l.cmdline.as_deref(),
        Some(&["/usr/bin/tracer", "--all", "-o", "x.data"].map(String::from)[..])
    );
}

#[test]
fn clock_and_count_headers() {
    let mut w = writer();
    w.add_event_desc(&[1], &software_attr(0, 0), "cpu-clock")
        .unwrap();
    w.set_clock_resolution_header(1);
    w.set_clock_data_header(1, 1_700_000_000_123_456_789, 5_000_000_000);
    w.set_sample_time_header(5_000_000_000, 5_300_000_000);
    w.set_nr_cpus_header(8, 6);
    w.set_total_mem_header(24_683_584);
    let s = StdSample {
        id: 1,
        ip: 1,
        pid: 1,
        tid: 1,
        time: 5_000_000_000,
        cpu: 0,
        period: 1,
        raw: None,
        misc: 2,
    };
    w.write_event_data(&s.encode(Endian::Little)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let Some(r) = readback(&bytes) else { return };
    let h = &r.header;
    assert_eq!(h.clockid_frequency_mhz(), Some(1000), "{:?}", h.lines);
    assert_eq!(h.nrcpus_avail(), Some(8));
    assert_eq!(h.nrcpus_online(), Some(6));
    assert_eq!(h.total_memory_kb(), Some(24_683_584));
    assert!(
        h.lines
            .iter()
            .any(|l| l.contains("time of first sample : 5.000000")),
        "{:?}",
        h.lines
    );
    assert!(
        h.lines
            .iter()
            .any(|l| l.contains("time of last sample : 5.300000")),
        "{:?}",
        h.lines
    );
    assert!(
        h.lines.iter().any(|l| l.contains("clockid: monotonic (1)")),
        "{:?}",
        h.lines
    );
    let l = &r.lpd;
    assert_eq!(l.clock_frequency, Some(1));
    let cd = l.clock_data.unwrap();
    assert_eq!(
        (cd.clockid, cd.wall_clock_ns, cd.clockid_time_ns),
        (1, 1_700_000_000_123_456_789, 5_000_000_000)
    );
    assert_eq!(l.sample_time_range, Some((5_000_000_000, 5_300_000_000)));
    assert_eq!(l.nr_cpus.map(|n| (n.available, n.online)), Some((8, 6)));
    assert_eq!(l.total_mem, Some(24_683_584));
}

#[test]
fn big_endian_file_decodes_in_perf_and_linux_perf_data() {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
        Cursor::new(Vec::new()),
        perf_writer_std::Endian::Big,
    )
    .unwrap();
    w.add_event_desc(&[3], &software_attr(0, COMM_FLAG), "cpu-clock")
        .unwrap();
    w.set_string_header(PerfHeaderIndex::Hostname, b"be-host")
        .unwrap();
    w.set_nr_cpus_header(4, 4);
    let e = Endian::Big;
    w.write_event_data(&comm(e, 55, 55, "be-task", 1, 3))
        .unwrap();
    for i in 0..3u64 {
        let s = StdSample {
            id: 3,
            ip: 0x2000 + i,
            pid: 55,
            tid: 55,
            time: 3_000_000_000 + i * 1000,
            cpu: 1,
            period: 4000,
            raw: None,
            misc: 2,
        };
        w.write_event_data(&s.encode(e)).unwrap();
    }
    w.write_event_data(&RecordBuilder::new(e, 68, 0).finish())
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(&bytes[..8], b"2ELIFREP");
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.endian, Endian::Big);
    assert_eq!(l.attr_names(), vec![Some("cpu-clock")]);
    assert_eq!(l.attrs[0].ids, vec![3]);
    // linux-perf-data byte-swaps the flags word instead of reversing its bits the way perf
    // does; perf's view of the flags is asserted below.
    assert_eq!(l.hostname.as_deref(), Some("be-host"));
    let times: Vec<u64> = l
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref()?.time)
        .collect();
    assert_eq!(times, vec![3_000_000_000, 3_000_001_000, 3_000_002_000]);
    if !require_perf() {
        return;
    }
    let file = temp_data_file(&bytes);
    let script = perf_script(file.path(), &[]);
    script.assert_clean();
    let lines = script_lines(&script);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("be-task") && l.contains("4000 cpu-clock")),
        "{lines:?}"
    );
    let header = perf_report_header(file.path(), false);
    header.assert_clean();
    let h = parse_header_only(&header.stdout);
    assert_eq!(h.hostname(), Some("be-host"));
    assert_eq!(h.nrcpus_online(), Some(4));
    let ev = h.event("cpu-clock").unwrap();
    assert_eq!(ev.ids, vec![3]);
    assert!(
        ev.raw.contains("sample_id_all = 1") && ev.raw.contains("comm = 1"),
        "{}",
        ev.raw
    );
}
