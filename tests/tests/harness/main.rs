//! The reader harness itself: its readings of the stored recordings (here) and perf's output
//! independent of the machine (`host_independence`).
//!
//! Self-check of the reader harness against the real perf 6.1 recordings in
//! `tests/data/perf-6.1`. The expected values were read off the tools (perf 6.1.187,
//! linux-perf-data 0.13.0, tracepoint_perf 0.5.0) on these exact files.

mod host_independence;

use std::collections::{BTreeMap, BTreeSet};

use integration_tests::fixtures::{self, DataMode, FixtureContent, RecordBody};
use integration_tests::perf_tool::{self, script_lines};
use integration_tests::{feature_name, lpd, tp_reader, Endian};

const SCHED: &str = "sched_switch.data";
const CPU: &str = "cpu_clock.data";
const PIPE: &str = "pipe_sched.data";
const ZSTD: &str = "zstd_sched.data";
const ROUNDS: &str = "rounds_getppid.data";

const SAMPLE: u32 = 9;
const FINISHED_ROUND: u32 = 68;

fn ids(v: &[u64]) -> BTreeSet<u64> {
    v.iter().copied().collect()
}

// ---------------------------------------------------------------- fixtures (raw walk)

#[test]
fn fixtures_are_listed_and_resolved() {
    let list = fixtures::list_fixtures();
    let names: Vec<String> = list
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec![
            "build_ids_injected.data",
            CPU,
            PIPE,
            ROUNDS,
            SCHED,
            "stat_pipe.data",
            "stat_record.data",
            "stat_unsupported.data",
            ZSTD
        ],
        "fixtures in {:?}",
        fixtures::fixtures_dir()
    );
    for p in &list {
        assert!(p.is_file());
        assert_eq!(
            p,
            &fixtures::fixture_path(p.file_name().unwrap().to_str().unwrap())
        );
    }
}

#[test]
fn raw_sched_switch_content() {
    let fc = FixtureContent::load(SCHED);
    assert_eq!(fc.mode, DataMode::File);
    assert_eq!(fc.endian, Endian::Little);
    let h = fc.header.as_ref().unwrap();
    assert_eq!((h.size, h.attr_size), (104, 144));
    assert_eq!((h.data.offset, h.data.size), (424, 26296));
    assert_eq!(h.event_types.size, 0);

    assert_eq!(fc.attrs.len(), 2);
    let a0 = &fc.attrs[0];
    assert_eq!(a0.name.as_deref(), Some("sched:sched_switch"));
    assert_eq!(a0.ids, vec![102, 103]);
    assert_eq!((a0.attr_type, a0.attr_size, a0.config), (2, 128, 0x174));
    assert_eq!(a0.bytes.len(), 128);
    assert!(a0.sample_id_all());
    let a1 = &fc.attrs[1];
    assert_eq!(a1.name.as_deref(), Some("dummy:HG"));
    assert_eq!(a1.ids, vec![104, 105]);
    assert_eq!((a1.attr_type, a1.config), (1, 9));

    let present: Vec<u32> = fc.feature_bits();
    assert_eq!(
        present,
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 20, 21, 22, 25, 26, 31]
    );
    assert_eq!(h.feature_bits(), present);
    assert_eq!(fc.tracing_data.as_ref().map(Vec::len), Some(6317));
    assert!(fc
        .tracing_data
        .as_ref()
        .unwrap()
        .starts_with(b"\x17\x08\x44tracing0.6\0"));
    assert_eq!(fc.event_desc.len(), 2);

    let stats = fc.perf_stats();
    let expect: BTreeMap<String, u64> = [
        ("TOTAL", 272),
        ("MMAP", 1),
        ("COMM", 72),
        ("EXIT", 1),
        ("FORK", 71),
        ("SAMPLE", 31),
        ("MMAP2", 90),
        ("FINISHED_ROUND", 2),
        ("ID_INDEX", 1),
        ("THREAD_MAP", 1),
        ("CPU_MAP", 1),
        ("FINISHED_INIT", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(stats, expect);

    // The walk covers the data section exactly, records back to back.
    let mut pos = h.data.offset;
    for r in &fc.records {
        assert_eq!(r.offset, pos);
        assert_eq!(r.bytes.len(), r.size as usize);
        assert!(r.extra.is_empty());
        pos += r.size as u64;
    }
    assert_eq!(pos, h.data.offset + h.data.size);
    // Every sample belongs to the tracepoint (IDENTIFIER is the first u64 after the header).
    for s in fc.records_of_type(SAMPLE) {
        let id = fc.endian.u64_at(&s.bytes, 8).unwrap();
        assert_eq!(fc.attr_for_id(id).unwrap().0, 0);
    }
}

#[test]
fn raw_cpu_clock_content() {
    let fc = FixtureContent::load(CPU);
    assert_eq!(fc.mode, DataMode::File);
    assert_eq!(fc.attrs.len(), 1);
    assert_eq!(fc.attrs[0].name.as_deref(), Some("cpu-clock"));
    assert_eq!(fc.attrs[0].ids, vec![113, 114]);
    assert_eq!((fc.attrs[0].attr_type, fc.attrs[0].config), (1, 0));
    assert!(fc.attrs[0].freq());
    assert_eq!(fc.attrs[0].sample_period_or_freq, 2000);
    // IP|TID|TIME|CALLCHAIN|PERIOD, no IDENTIFIER.
    assert_eq!(fc.attrs[0].sample_type, 0x1 | 0x2 | 0x4 | 0x20 | 0x100);
    assert!(
        !fc.features.contains_key(&1),
        "no tracing data without tracepoints"
    );
    let c = fc.counts_by_type();
    assert_eq!(c[&SAMPLE], 52);
    assert_eq!(c[&69], 1, "ID_INDEX");
    assert_eq!(c[&78], 2, "EVENT_UPDATE");
    assert_eq!(fc.records.len(), 67);
}

#[test]
fn raw_pipe_sched_content() {
    let fc = FixtureContent::load(PIPE);
    assert_eq!(fc.mode, DataMode::Pipe);
    assert!(fc.header.is_none());
    let names: Vec<_> = fc.event_names();
    assert_eq!(
        names,
        vec![
            Some("sched:sched_switch".to_string()),
            Some("sched:sched_wakeup".to_string()),
            Some("dummy:HG".to_string())
        ]
    );
    assert_eq!(fc.attrs[0].ids, vec![126, 127]);
    assert_eq!(fc.attrs[1].ids, vec![128, 129]);
    assert_eq!(fc.attrs[2].ids, vec![130, 131]);
    assert_eq!(fc.attrs[1].config, 0x176);

    // Stream order: 3 HEADER_ATTR, 18 HEADER_FEATURE + end marker, HEADER_TRACING_DATA, ...
    let types: Vec<u32> = fc.records.iter().map(|r| r.record_type).collect();
    assert_eq!(&types[..3], &[64, 64, 64]);
    assert!(types[3..22].iter().all(|&t| t == 80));
    assert_eq!(types[22], 66);
    assert_eq!(fc.pipe_feature_end_marker, Some(32));
    assert_eq!(
        fc.feature_bits(),
        vec![3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 21, 22, 25, 26, 31]
    );
    let td = &fc.records[22];
    assert_eq!(td.size, 16);
    match td.body(fc.endian) {
        RecordBody::TracingData { size, payload } => {
            assert_eq!(size, 6912);
            assert_eq!(payload.len(), 6912);
            assert!(payload.starts_with(b"\x17\x08\x44tracing0.6\0"));
        }
        other => panic!("expected tracing data, got {other:?}"),
    }
    match fc.records[0].body(fc.endian) {
        RecordBody::HeaderAttr { attr, ids } => {
            assert_eq!(attr.len(), 128);
            assert_eq!(ids, vec![126, 127]);
        }
        other => panic!("expected HEADER_ATTR, got {other:?}"),
    }
    let c = fc.counts_by_type();
    assert_eq!(c[&SAMPLE], 38);
    assert_eq!(c[&64], 3);
    assert_eq!(c[&80], 19);
    assert_eq!(c[&66], 1);
    assert_eq!(fc.records.len(), 298);
    let end: u64 = fc
        .records
        .last()
        .map(|r| r.offset + r.full_bytes().len() as u64)
        .unwrap();
    assert_eq!(end as usize, fixtures::read_fixture(PIPE).len());
}

// ---------------------------------------------------------------- linux-perf-data

#[test]
fn lpd_reads_sched_switch() {
    let bytes = fixtures::read_fixture(SCHED);
    let s = lpd::read_file(&bytes).expect("linux-perf-data reads the fixture");
    assert_eq!(s.endian, Endian::Little);
    assert!(s.feature_errors.is_empty(), "{:?}", s.feature_errors);
    assert_eq!(s.attrs.len(), 2);
    assert_eq!(
        s.attr_names(),
        vec![Some("sched:sched_switch"), Some("dummy:HG")]
    );
    assert_eq!(s.attrs[0].ids, vec![102, 103]);
    assert_eq!(s.attrs[1].ids, vec![104, 105]);
    assert_eq!((s.attrs[0].attr_type, s.attrs[0].config), (2, Some(0x174)));
    assert_eq!((s.attrs[1].attr_type, s.attrs[1].config), (1, Some(9)));
    assert_eq!(s.attrs[0].sample_period, Some(1));
    assert!(s.attrs.iter().all(|a| a.sample_id_all));

    assert_eq!(s.hostname.as_deref(), Some("vm"));
    assert_eq!(s.os_release.as_deref(), Some("6.18.44-fc-v1045"));
    assert_eq!(s.perf_version.as_deref(), Some("6.1.187"));
    assert_eq!(s.arch.as_deref(), Some("x86_64"));
    assert_eq!(s.cpu_desc.as_deref(), Some("Intel(R) Xeon(R) Processor"));
    assert_eq!(s.cpu_id.as_deref(), Some("GenuineIntel,6,167,1"));
    assert_eq!(s.total_mem, Some(24683584));
    assert_eq!(
        s.nr_cpus,
        Some(lpd::LpdNrCpus {
            available: 2,
            online: 2
        })
    );
    assert_eq!(
        s.cmdline.as_ref().unwrap().join(" "),
        "/usr/bin/perf record -q -o sched_switch.data -e sched:sched_switch -a -- sleep 0.3"
    );
    assert_eq!(s.sample_time_range, Some((797773892808, 798076924209)));
    assert_eq!(s.clock_frequency, None);
    assert_eq!(s.clock_data, None);

    // Features and their raw bytes agree with the plain-bytes parser.
    let fc = FixtureContent::from_bytes(&bytes).unwrap();
    assert_eq!(s.features, fc.feature_bits());
    assert!(s.feature_sections == fc.features, "feature payloads differ");
    assert_eq!(s.feature_names[0], "TRACING_DATA");

    // Same records as the raw walk, minus FINISHED_ROUND (consumed by the crate), in time order.
    let mut raw_counts = fc.counts_by_type();
    raw_counts.remove(&FINISHED_ROUND);
    assert_eq!(s.counts_by_type, raw_counts);
    assert!(s.records_with_parse_errors().is_empty());
    let mut lpd_bytes: Vec<Vec<u8>> = s
        .records
        .iter()
        .map(|r| r.reconstructed_bytes(s.endian))
        .collect();
    let mut raw_bytes: Vec<Vec<u8>> = fc
        .records
        .iter()
        .filter(|r| r.record_type != FINISHED_ROUND)
        .map(|r| r.bytes.clone())
        .collect();
    lpd_bytes.sort();
    raw_bytes.sort();
    assert_eq!(lpd_bytes, raw_bytes);
    let times: Vec<u64> = s.records.iter().filter_map(|r| r.timestamp).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "linux-perf-data sorts by time"
    );
    let samples: Vec<&lpd::LpdSample> =
        s.records.iter().filter_map(|r| r.sample.as_ref()).collect();
    assert_eq!(samples.len(), 31);
    assert!(samples
        .iter()
        .all(|x| ids(&[102, 103]).contains(&x.id.unwrap())));
    assert!(samples
        .iter()
        .all(|x| x.raw.as_ref().map(Vec::len) == Some(68)));
    assert!(s
        .records
        .iter()
        .filter(|r| r.record_type == SAMPLE)
        .all(|r| r.attr_index == Some(0)));
}

#[test]
fn lpd_reads_cpu_clock() {
    let s = lpd::read_file(&fixtures::read_fixture(CPU)).unwrap();
    assert_eq!(s.attr_names(), vec![Some("cpu-clock")]);
    assert_eq!(s.attrs[0].sample_freq, Some(2000));
    assert!(s.attrs[0].freq);
    assert_eq!(s.attrs[0].config, Some(0));
    assert_eq!(s.count(SAMPLE), 52);
    let chains: Vec<usize> = s
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref()?.callchain.as_ref().map(Vec::len))
        .collect();
    assert_eq!(chains.len(), 52);
    assert!(chains.iter().all(|&n| n > 0));
}

#[test]
fn lpd_pipe_mode_and_tracing_data_quirk() {
    let bytes = fixtures::read_fixture(PIPE);
    // linux-perf-data 0.13 reads the tracing data after HEADER_TRACING_DATA as records.
    let err = lpd::read_pipe(&bytes).unwrap_err();
    assert!(err.contains("smaller than the header"), "{err}");

    let s = lpd::read_pipe_without_tracing_payload(&bytes).unwrap();
    assert_eq!(
        s.attr_names(),
        vec![
            Some("sched:sched_switch"),
            Some("sched:sched_wakeup"),
            Some("dummy:HG")
        ]
    );
    assert_eq!(s.attrs[0].ids, vec![126, 127]);
    assert_eq!(s.attrs[1].ids, vec![128, 129]);
    assert_eq!(s.attrs[2].ids, vec![130, 131]);
    assert_eq!(s.hostname.as_deref(), Some("vm"));
    assert!(s.feature_errors.is_empty(), "{:?}", s.feature_errors);
    let fc = FixtureContent::from_bytes(&bytes).unwrap();
    // linux-perf-data keeps the end marker (feat_id 32 = HEADER_LAST_FEATURE, no payload)
    // as a feature of its own.
    let mut sections = s.feature_sections.clone();
    assert_eq!(sections.remove(&32), Some(Vec::new()));
    assert!(sections == fc.features, "feature payloads differ");
    assert_eq!(s.features.last(), Some(&32));
    // HEADER_ATTR / HEADER_FEATURE are consumed; FINISHED_ROUND too.
    let mut raw = fc.counts_by_type();
    for t in [64, 80, FINISHED_ROUND] {
        raw.remove(&t);
    }
    assert_eq!(s.counts_by_type, raw);
    assert_eq!(s.count(SAMPLE), 38);
    assert!(s.records_with_parse_errors().is_empty());
}

// ---------------------------------------------------------------- tracepoint_perf

#[test]
fn tp_reads_sched_switch() {
    let t = tp_reader::read(fixtures::fixture_path(SCHED)).unwrap();
    assert!(!t.pipe_mode);
    assert_eq!(t.endian, Endian::Little);
    assert_eq!(t.raw_desc_count, 4, "the reader lists every desc twice");
    let names: Vec<&str> = t.descs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, vec!["sched:sched_switch", "dummy:HG"]);
    let d = t.desc("sched:sched_switch").unwrap();
    assert_eq!(d.ids, vec![102, 103]);
    assert_eq!((d.attr_type, d.attr_config, d.attr_size), (2, 0x174, 128));
    let f = d.format.as_ref().unwrap();
    assert_eq!(
        (f.system.as_str(), f.name.as_str(), f.id),
        ("sched", "sched_switch", 0x174)
    );
    assert_eq!(
        &f.fields[f.common_field_count..],
        &[
            "prev_comm",
            "prev_pid",
            "prev_prio",
            "prev_state",
            "next_comm",
            "next_pid",
            "next_prio"
        ]
    );
    assert!(t.desc("dummy:HG").unwrap().format.is_none());
    assert_eq!(t.hostname.as_deref(), Some("vm"));
    assert_eq!(t.os_release.as_deref(), Some("6.18.44-fc-v1045"));
    assert_eq!(
        (t.tracing_data_long_size, t.tracing_data_page_size),
        (8, 4096)
    );

    let samples = t.samples();
    assert_eq!(samples.len(), 31);
    for s in &samples {
        assert_eq!(s.name, "sched:sched_switch");
        assert!(s.field("prev_comm").is_some_and(|v| !v.is_empty()));
        assert!(s.field("next_comm").is_some_and(|v| !v.is_empty()));
        assert_eq!(s.field_i64("prev_pid"), Some(i64::from(s.pid)));
    }
    let first = samples[0];
    assert_eq!(
        first.field_strings(),
        vec![
            "prev_comm=perf",
            "prev_pid=0x3FAA",
            "prev_prio=120",
            "prev_state=2",
            "next_comm=migration/0",
            "next_pid=0x12",
            "next_prio=0"
        ]
    );
    assert_eq!((first.pid, first.cpu, first.time), (16298, 0, 797773892808));

    // File order: the reader's records are the raw walk's records, byte for byte.
    let fc = FixtureContent::load(SCHED);
    let tp_bytes: Vec<&Vec<u8>> = t.records.iter().map(|r| &r.bytes).collect();
    let raw_bytes: Vec<&Vec<u8>> = fc.records.iter().map(|r| &r.bytes).collect();
    assert_eq!(tp_bytes, raw_bytes);
    assert_eq!(t.counts_by_type, fc.counts_by_type());
    assert!(t.headers == fc.features, "feature payloads differ");
}

#[test]
fn tp_needs_sample_ids() {
    let t = tp_reader::read(fixtures::fixture_path(CPU)).unwrap();
    assert_eq!(t.descs.len(), 1);
    assert_eq!(t.descs[0].name, "cpu-clock");
    assert_eq!(t.count(SAMPLE), 52);
    // No IDENTIFIER/ID in sample_type: the reader cannot attribute samples.
    assert!(t.samples().is_empty());
    assert!(t
        .records
        .iter()
        .filter(|r| r.record_type == SAMPLE)
        .all(|r| r.sample_error.as_deref() == Some("NoData")));
}

#[test]
fn tp_reads_pipe_sched() {
    let t = tp_reader::read(fixtures::fixture_path(PIPE)).unwrap();
    assert!(t.pipe_mode);
    let names: Vec<&str> = t.descs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["sched:sched_switch", "sched:sched_wakeup", "dummy:HG"]
    );
    assert_eq!(t.desc("sched:sched_wakeup").unwrap().ids, vec![128, 129]);
    let samples = t.samples();
    assert_eq!(samples.len(), 38);
    let wakeups = samples
        .iter()
        .filter(|s| s.name == "sched:sched_wakeup")
        .count();
    assert_eq!(wakeups, 10);
    assert_eq!(samples[0].name, "sched:sched_wakeup");
    assert_eq!(
        samples[0].field_strings(),
        vec!["comm=migration/0", "pid=0x12", "prio=0", "target_cpu=0"]
    );
    let fc = FixtureContent::load(PIPE);
    assert_eq!(t.counts_by_type, fc.counts_by_type());
    assert_eq!(t.headers.get(&3), fc.features.get(&3));
}

// ---------------------------------------------------------------- perf 6.1

#[test]
fn perf_script_sched_switch() {
    if !perf_tool::require_perf() {
        return;
    }
    let out = perf_tool::perf_script(fixtures::fixture_path(SCHED), &[]);
    out.assert_clean();
    let lines = script_lines(&out);
    assert_eq!(lines.len(), 31);
    assert!(lines.iter().all(|l| l.contains("sched:sched_switch:")));
    assert!(
        lines[0].starts_with("perf 16298 [000]   797.773892: sched:sched_switch: prev_comm=perf")
    );

    // perf's text and tracepoint_perf's decoded fields agree sample by sample (both in
    // time order).
    let t = tp_reader::read_with_order(fixtures::fixture_path(SCHED), tp_reader::TpOrder::Time)
        .unwrap();
    for (line, s) in lines.iter().zip(t.samples()) {
        for key in ["prev_comm", "next_comm", "prev_prio", "next_prio"] {
            let want = format!("{key}={}", s.field(key).unwrap());
            assert!(line.contains(&want), "{line:?} lacks {want:?}");
        }
        let want = format!("next_pid={}", s.field_i64("next_pid").unwrap());
        assert!(line.contains(&want), "{line:?} lacks {want:?}");
    }

    // A field list.
    let out = perf_tool::perf_script(fixtures::fixture_path(SCHED), &["-F", "tid,event"]);
    out.assert_clean();
    let lines = script_lines(&out);
    assert_eq!(lines.len(), 31);
    assert_eq!(lines[0], "16298 sched:sched_switch:");
}

#[test]
fn perf_script_cpu_clock() {
    if !perf_tool::require_perf() {
        return;
    }
    let out = perf_tool::perf_script(fixtures::fixture_path(CPU), &["-F", "comm,tid,time,event"]);
    out.assert_clean();
    let lines = script_lines(&out);
    assert_eq!(lines.len(), 52);
    assert!(lines
        .iter()
        .all(|l| l.starts_with("sh 16304") && l.ends_with("cpu-clock:")));
}

#[test]
fn perf_header_only() {
    if !perf_tool::require_perf() {
        return;
    }
    let out = perf_tool::perf_report_header(fixtures::fixture_path(SCHED), true);
    out.assert_clean();
    let h = perf_tool::parse_header_only(&out.stdout);
    assert_eq!(h.hostname(), Some("vm"));
    assert_eq!(h.os_release(), Some("6.18.44-fc-v1045"));
    assert_eq!(h.perf_version(), Some("6.1.187"));
    assert_eq!(h.arch(), Some("x86_64"));
    assert_eq!((h.nrcpus_online(), h.nrcpus_avail()), (Some(2), Some(2)));
    assert_eq!(h.cpudesc(), Some("Intel(R) Xeon(R) Processor"));
    assert_eq!(h.cpuid(), Some("GenuineIntel,6,167,1"));
    assert_eq!(h.total_memory_kb(), Some(24683584));
    assert_eq!(
        h.cmdline(),
        Some("/usr/bin/perf record -q -o sched_switch.data -e sched:sched_switch -a -- sleep 0.3")
    );
    assert_eq!(h.clockid_frequency_mhz(), None);
    assert_eq!(
        (h.data_offset(), h.data_size(), h.feat_offset()),
        (Some(424), Some(26296), Some(26720))
    );
    assert_eq!(h.get_all("sibling threads"), vec!["0", "1"]);
    assert_eq!(h.get("time of first sample"), Some("797.773892"));

    assert_eq!(h.event_names(), vec!["sched:sched_switch", "dummy:HG"]);
    let ev = h.event("sched:sched_switch").unwrap();
    assert_eq!(ids(&ev.ids), ids(&[102, 103]));
    assert_eq!(
        (ev.number("type"), ev.number("size"), ev.number("config")),
        (Some(2), Some(128), Some(0x174))
    );
    assert_eq!(ev.period_or_freq(), Some(1));
    assert_eq!(
        ev.flags("sample_type"),
        vec!["IP", "TID", "TIME", "CPU", "PERIOD", "RAW", "IDENTIFIER"]
    );
    assert_eq!(ev.flags("read_format"), vec!["ID", "LOST"]);
    assert_eq!(ev.number("sample_id_all"), Some(1));
    let dummy = h.event("dummy:HG").unwrap();
    assert_eq!(ids(&dummy.ids), ids(&[104, 105]));
    assert_eq!(
        (dummy.number("type"), dummy.number("config")),
        (Some(1), Some(9))
    );
    assert_eq!(dummy.number("mmap2"), Some(1));

    assert_eq!(
        h.missing_features,
        vec![
            "BRANCH_STACK",
            "GROUP_DESC",
            "AUXTRACE",
            "STAT",
            "CLOCKID",
            "DIR_FORMAT",
            "COMPRESSED",
            "CPU_PMU_CAPS",
            "CLOCK_DATA",
            "HYBRID_TOPOLOGY"
        ]
    );
    // Present features (raw walk) and missing ones (perf) cover bits 1..=31 exactly.
    let fc = FixtureContent::load(SCHED);
    let mut all: Vec<&str> = fc
        .feature_bits()
        .iter()
        .filter_map(|&b| feature_name(b))
        .collect();
    all.extend(h.missing_features.iter().map(String::as_str));
    let mut want: Vec<&str> = (1..=31).filter_map(feature_name).collect();
    all.sort();
    want.sort();
    assert_eq!(all, want);

    // Without -I the topology sections are summarised.
    let short = perf_tool::perf_report_header(fixtures::fixture_path(SCHED), false);
    short.assert_clean();
    let hs = perf_tool::parse_header_only(&short.stdout);
    assert!(hs
        .other_lines
        .iter()
        .any(|l| l == "CPU_TOPOLOGY info available, use -I to display"));
    assert!(!hs.has("sibling threads"));
    assert_eq!(hs.event_names(), h.event_names());
}

#[test]
fn perf_header_only_pipe() {
    if !perf_tool::require_perf() {
        return;
    }
    let out = perf_tool::perf_report_header(fixtures::fixture_path(PIPE), true);
    out.assert_clean();
    let h = perf_tool::parse_header_only(&out.stdout);
    assert_eq!((h.data_offset(), h.data_size()), (Some(0), Some(0)));
    assert_eq!(h.hostname(), Some("vm"));
    assert_eq!(
        h.event_names(),
        vec!["sched:sched_switch", "sched:sched_wakeup", "dummy:HG"]
    );
    assert_eq!(
        ids(&h.event("sched:sched_wakeup").unwrap().ids),
        ids(&[128, 129])
    );
    assert!(
        h.missing_features.is_empty(),
        "pipe mode prints no missing-features line"
    );
}

#[test]
fn perf_evlist_names() {
    if !perf_tool::require_perf() {
        return;
    }
    let out = perf_tool::perf_evlist(fixtures::fixture_path(SCHED));
    out.assert_clean();
    let ev = perf_tool::parse_evlist(&out.stdout);
    let names: Vec<&str> = ev.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, vec!["sched:sched_switch", "dummy:HG"]);
    assert_eq!(
        (ev[0].number("type"), ev[0].number("config")),
        (Some(2), Some(0x174))
    );
    assert_eq!(
        ev[0].get("sample_type"),
        Some("IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER")
    );
    assert_eq!(ev[1].number("config"), Some(9));
    assert!(
        out.stdout.contains("# Tip:"),
        "perf evlist prints a tip line on stdout"
    );

    let out = perf_tool::perf_evlist(fixtures::fixture_path(CPU));
    out.assert_clean();
    let ev = perf_tool::parse_evlist(&out.stdout);
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].name, "cpu-clock");
    assert_eq!(ev[0].get("config"), None, "perf omits zero fields");
    assert_eq!(ev[0].number("{ sample_period, sample_freq }"), Some(2000));

    // Pipe mode: perf evlist does not read the tracing data.
    let out = perf_tool::perf_evlist(fixtures::fixture_path(PIPE));
    out.assert_clean();
    let names: Vec<String> = perf_tool::parse_evlist(&out.stdout)
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(
        names,
        vec!["unknown tracepoint", "unknown tracepoint", "dummy:HG"]
    );
}

#[test]
fn perf_stats_match_raw_walk() {
    if !perf_tool::require_perf() {
        return;
    }
    for name in [SCHED, CPU] {
        let out = perf_tool::perf_report_stats(fixtures::fixture_path(name));
        out.assert_clean();
        let full = perf_tool::parse_stats_full(&out.stdout);
        let fc = FixtureContent::load(name);
        assert_eq!(full.aggregated, fc.perf_stats(), "{name}");
        assert_eq!(perf_tool::parse_stats(&out.stdout), full.aggregated);
        let samples = fc.counts_by_type()[&SAMPLE];
        let ev = fc.attrs[0].name.clone().unwrap();
        assert_eq!(full.per_event[&ev]["SAMPLE"], samples, "{name}");
    }
}

#[test]
fn perf_stats_pipe_with_tracing_data_is_a_perf_bug() {
    if !perf_tool::require_perf() {
        return;
    }
    // perf 6.1 `report --stats` does not skip the HEADER_TRACING_DATA payload (exit 0 though).
    let out = perf_tool::perf_report_stats(fixtures::fixture_path(PIPE));
    assert!(
        out.stderr.contains("failed to process"),
        "{}",
        out.describe()
    );
    assert!(!out.stderr_findings().is_empty());
    assert!(std::panic::catch_unwind(|| out.assert_clean()).is_err());
}

#[test]
fn pipe_stdin_matches_file_and_readers() {
    if !perf_tool::require_perf() {
        return;
    }
    let bytes = fixtures::read_fixture(PIPE);
    let from_file = perf_tool::perf_script(fixtures::fixture_path(PIPE), &[]);
    from_file.assert_clean();
    let from_stdin = perf_tool::perf_script_stdin(&bytes);
    from_stdin.assert_clean();
    let lines = script_lines(&from_file);
    assert_eq!(lines.len(), 38);
    assert_eq!(script_lines(&from_stdin), lines);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("sched:sched_wakeup:"))
            .count(),
        10
    );

    // Same bytes through a temp file, and with a field list.
    let via_tmp = perf_tool::perf_script_bytes(&bytes, &[]);
    via_tmp.assert_clean();
    assert_eq!(script_lines(&via_tmp), lines);
    let f1 = perf_tool::perf_script_stdin_with(&bytes, &["-F", "tid,event"]);
    f1.assert_clean();
    assert_eq!(script_lines(&f1).len(), 38);

    // linux-perf-data (with the tracing-data workaround) sees the same samples in the same order.
    let s = lpd::read_pipe_without_tracing_payload(&bytes).unwrap();
    let lpd_tids: Vec<String> = s
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref())
        .map(|x| x.tid.unwrap().to_string())
        .collect();
    let perf_tids: Vec<String> = lines
        .iter()
        .map(|l| {
            let before_cpu = l.split(" [").next().unwrap();
            before_cpu.split_whitespace().last().unwrap().to_string()
        })
        .collect();
    assert_eq!(lpd_tids, perf_tids);

    // A file-mode stream on stdin is refused by perf.
    let refused = perf_tool::perf_script_stdin(&fixtures::read_fixture(SCHED));
    assert!(
        refused.stderr.contains("incompatible file format"),
        "{}",
        refused.describe()
    );
}

#[test]
fn perf_force_reads_files_of_other_users() {
    if !perf_tool::require_perf() {
        return;
    }
    // A file owned by another (non-root) user is refused unless --force is given; the
    // runners always pass it. chown needs root; without it only the plain read is checked.
    let copy = integration_tests::temp_data_file(&fixtures::read_fixture(SCHED));
    let chowned = std::os::unix::fs::chown(copy.path(), Some(65534), Some(65534)).is_ok();
    let out = perf_tool::perf_script(copy.path(), &["-F", "event"]);
    out.assert_clean();
    assert_eq!(script_lines(&out).len(), 31);
    if chowned {
        let p = copy.path().to_str().unwrap();
        let refused = perf_tool::run_perf(&["script", "-i", p], None);
        assert!(!refused.success());
        assert!(
            refused.stderr.contains("not owned by current user or root"),
            "{}",
            refused.describe()
        );
    } else {
        eprintln!("note: not root, ownership refusal not checked");
    }
}

#[test]
fn perf_inject_round_trip() {
    if !perf_tool::require_perf() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("injected.data");
    perf_tool::perf_inject(fixtures::fixture_path(SCHED), &out_path).assert_clean();
    let a = perf_tool::perf_script(fixtures::fixture_path(SCHED), &[]);
    let b = perf_tool::perf_script(&out_path, &[]);
    b.assert_clean();
    assert_eq!(script_lines(&a), script_lines(&b));
}

#[test]
fn assert_clean_flags_red_words() {
    if !perf_tool::require_perf() {
        return;
    }
    let missing = perf_tool::perf_script("/nonexistent/perf.data", &[]);
    assert!(!missing.success());
    assert!(std::panic::catch_unwind(|| missing.assert_clean()).is_err());
    // The "No kallsyms or vmlinux" note perf prints for foreign kernels is not a finding.
    let ok = perf_tool::perf_script(fixtures::fixture_path(SCHED), &[]);
    assert!(ok.stderr_findings().is_empty(), "{}", ok.stderr);
}
