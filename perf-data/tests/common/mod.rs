//! What the perf-data tests share: running the binary, reading its outputs back with perf
//! 6.1 (the harness's clean-HOME runs) and linux-perf-data 0.13.
#![allow(dead_code)]

use integration_tests::fixtures::{self, DataMode, FixtureContent};
use integration_tests::lpd;
use integration_tests::perf_tool::{self, script_lines, PerfOutput};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// perf's recordings in tests/data/perf-6.1.
pub const FIXTURES: [&str; 6] = [
    "build_ids_injected.data",
    "cpu_clock.data",
    "sched_switch.data",
    "pipe_sched.data",
    "zstd_sched.data",
    "rounds_getppid.data",
];

/// The perf-data binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_perf-data"))
}

/// Runs `perf-data ARGS` with `stdin` fed to it (or /dev/null).
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start perf-data");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    child.wait_with_output().expect("wait for perf-data")
}

/// Runs `perf-data ARGS`, which must succeed with nothing on stderr.
pub fn run_ok(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let out = run(args, stdin);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "perf-data {args:?}: {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A path as a `&str` argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A perf run that must exit 0 with no red flag on stderr.
pub fn clean(out: PerfOutput) -> PerfOutput {
    out.assert_clean();
    out
}

/// `perf script` lines of the file at `path`.
pub fn script(path: &Path) -> Vec<String> {
    script_lines(&clean(perf_tool::perf_script(path, &[])))
}

/// Panics with the first differing line when two `perf script` outputs differ.
pub fn assert_same_lines(what: &str, a: &[String], b: &[String]) {
    if a == b {
        return;
    }
    let first = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    panic!(
        "{what}: {} lines against {}; first difference at line {first}:\n- {:?}\n+ {:?}",
        a.len(),
        b.len(),
        a.get(first),
        b.get(first)
    );
}

/// Record types that say how the records are stored, not what they are: the stream's
/// header records, EVENT_UPDATE (a stream's event names), FINISHED_ROUND (which a writer that
/// compresses thins out) and COMPRESSED.
const STORAGE_TYPES: [u32; 6] = [64, 66, 78, 80, 68, 81];

/// What linux-perf-data reads of `bytes`: record counts by type (storage records left
/// out), and SAMPLE counts by event name.
pub fn lpd_counts(bytes: &[u8]) -> (BTreeMap<u32, u64>, BTreeMap<String, u64>) {
    let summary = match FixtureContent::from_bytes(bytes).expect("raw walk").mode {
        DataMode::File => lpd::read_file(bytes),
        DataMode::Pipe => lpd::read_pipe_without_tracing_payload(bytes),
    }
    .unwrap_or_else(|e| panic!("linux-perf-data: {e}"));
    assert!(
        summary.feature_errors.is_empty(),
        "{:?}",
        summary.feature_errors
    );
    let by_type = summary
        .counts_by_type
        .iter()
        .filter(|(t, _)| !STORAGE_TYPES.contains(t))
        .map(|(&t, &n)| (t, n))
        .collect();
    let mut samples = BTreeMap::new();
    for r in summary.records.iter().filter(|r| r.record_type == 9) {
        let name = r
            .attr_index
            .and_then(|i| summary.attrs.get(i))
            .and_then(|a| a.name.clone())
            .unwrap_or_default();
        *samples.entry(name).or_insert(0) += 1;
    }
    (by_type, samples)
}

/// The fixture's bytes and path.
pub fn fixture(name: &str) -> (PathBuf, Vec<u8>) {
    (fixtures::fixture_path(name), fixtures::read_fixture(name))
}

/// The command failed as a user should see it: status 1, one `perf-data: ` line.
pub fn assert_refused(what: &str, out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{what}: status; stderr: {err}");
    assert!(
        err.starts_with("perf-data: ") && err.ends_with('\n') && err.lines().count() == 1,
        "{what}: one line, got {err:?}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    err
}

/// The directory holds exactly `names`.
pub fn assert_dir_holds(what: &str, dir: &Path, names: &[&str]) {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, names, "{what}: what the output directory holds");
}
