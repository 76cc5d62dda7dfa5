//! `perf-data info` against perf 6.1's own `perf report --header-only` and `perf report
//! --stats` on perf's recordings (and on streams and compressed files made from them): the
//! same features, events and attrs, record counts and SAMPLE counts per event, read from
//! both outputs by the harness's parsers.

mod common;

use common::{clean, fixture, run_ok, s, FIXTURES};
use integration_tests::perf_tool::{self, parse_header_only, parse_stats_full, HeaderInfo};

/// Header keys that say when the file was written or which perf read it, not what it holds.
const NOT_CONTENT: [&str; 2] = ["captured on", "header version"];

fn entries(h: &HeaderInfo) -> Vec<(String, String)> {
    h.entries
        .iter()
        .filter(|(k, _)| !NOT_CONTENT.contains(&k.as_str()))
        .map(|(k, v)| {
            // A stream announces HEADER_COMPRESSED before its first COMPRESSED record (ratio
            // 0) and again at its end with the ratio; `perf report --header-only` stops
            // reading at the first, `info` says the last.
            let v = match (
                k.as_str(),
                h.entries
                    .iter()
                    .any(|(k, v)| k == "data offset" && v == "0"),
            ) {
                ("compressed", true) => v.split(", ratio").next().unwrap_or(v).to_string(),
                _ => v.clone(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// `info` of `path` says what perf says of it. `stats`: perf can give `--stats` for it.
fn same_as_perf(what: &str, path: &std::path::Path, stats: bool) {
    let ours = String::from_utf8(run_ok(&["info", s(path)], None).stdout).unwrap();
    let our_header = parse_header_only(&ours);
    assert!(!our_header.events.is_empty(), "{what}: events\n{ours}");
    let our_stats = parse_stats_full(&ours);
    assert!(
        our_stats.aggregated.get("SAMPLE").copied().unwrap_or(0) > 0,
        "{what}\n{ours}"
    );
    let total: u64 = our_stats
        .aggregated
        .iter()
        .filter(|(k, _)| *k != "TOTAL")
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        our_stats.aggregated["TOTAL"], total,
        "{what}: TOTAL is the sum"
    );
    if !perf_tool::require_perf() {
        return;
    }
    let perfs = clean(perf_tool::perf_report_header(path, false));
    let perf_header = parse_header_only(&perfs.stdout);
    assert_eq!(
        entries(&our_header),
        entries(&perf_header),
        "{what}: header lines"
    );
    assert_eq!(our_header.events, perf_header.events, "{what}: events");
    assert_eq!(
        our_header.missing_features, perf_header.missing_features,
        "{what}: missing features"
    );
    if stats {
        let perf_stats = parse_stats_full(&clean(perf_tool::perf_report_stats(path)).stdout);
        assert_eq!(our_stats, perf_stats, "{what}: --stats");
    }
}

#[test]
fn perfs_recordings() {
    for name in FIXTURES {
        let (path, _) = fixture(name);
        // perf 6.1's --stats fails on a stream with tracing data (its own reader's limit).
        same_as_perf(name, &path, name != "pipe_sched.data");
    }
}

/// Streams and compressed files written by `convert`.
#[test]
fn converted_recordings() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in [
        ("cpu_clock.data", &["--to", "pipe"][..]),
        ("cpu_clock.data", &["--compress=2"][..]),
        ("rounds_getppid.data", &["--compress", "--form", "perf"][..]),
        ("zstd_sched.data", &["--decompress"][..]),
        ("sched_switch.data", &["--to", "pipe", "--compress"][..]),
    ] {
        let (path, _) = fixture(name);
        let out = dir.path().join("out.data");
        let mut a = vec!["convert", s(&path), s(&out)];
        a.extend_from_slice(args);
        run_ok(&a, None);
        let stream_with_tracepoints = args.contains(&"pipe") && name == "sched_switch.data";
        // perf 6.1's --stats also fails on compressed streams (perf's own included).
        let compressed_stream = args.contains(&"pipe") && args.contains(&"--compress");
        same_as_perf(
            &format!("{name} {args:?}"),
            &out,
            !stream_with_tracepoints && !compressed_stream,
        );
    }
}
