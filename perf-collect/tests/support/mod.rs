//! What the perf-collect tests share: running the collector and its workload, and reading
//! what perf script prints of their events.
//!
//! The tests need root (perf_event_open on every CPU, tracefs) and a readable tracefs at
//! `/sys/kernel/tracing`: without either each test prints `skipped: REASON`; with `CI` set
//! that is a failure instead. The workload (`perf-collect-loop`) prints its pid, and every
//! count is of that pid's events, so other activity on the machine (other tests recording
//! at the same time) does not change it.
#![allow(dead_code)] // each test binary uses a part

use integration_tests::perf_tool::{require_perf, run_perf, script_lines, skip, PerfOutput};
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub const COLLECT: &str = env!("CARGO_BIN_EXE_perf-collect");
pub const WORKLOAD: &str = env!("CARGO_BIN_EXE_perf-collect-loop");
/// The workload's comm as the kernel keeps it (15 bytes).
pub const WORKLOAD_COMM: &str = "perf-collect-lo";
/// Ring buffer pages per CPU for both recorders: 4 MiB, room for every event of the
/// workloads here even when the (debug-built) collector does not read the ring until
/// the end.
pub const RING_PAGES: &str = "1024";
pub const TRACEFS: &str = "/sys/kernel/tracing";

pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|v| v.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// Root, perf 6.1 and tracefs (with `tracepoint`'s format readable); otherwise skips.
pub fn require_collect(tracepoint: &str) -> bool {
    if !is_root() {
        return skip("perf-collect records every CPU: run the tests as root");
    }
    let (sys, name) = tracepoint.split_once(':').unwrap();
    let format = Path::new(TRACEFS)
        .join("events")
        .join(sys)
        .join(name)
        .join("format");
    if !format.is_file() {
        return skip(&format!(
            "{} not readable: mount tracefs (mount -t tracefs nodev {TRACEFS})",
            format.display()
        ));
    }
    require_perf()
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// Runs perf-collect with `args`, stdin closed, and returns what it printed.
pub fn collect(args: &[&str]) -> Output {
    Command::new(COLLECT)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run perf-collect")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The workload's pid, from its `pid N` line.
pub fn workload_pid(stderr: &str) -> u32 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("pid "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid line from the workload in:\n{stderr}"))
}

/// `perf script -F comm,pid,event,trace` lines as (comm, pid, event, fields).
pub fn script_events(out: &PerfOutput) -> Vec<(String, u32, String, String)> {
    script_lines(out)
        .iter()
        .filter_map(|l| {
            // "comm  pid event: fields"; comm may hold spaces, so split at the event.
            let (head, fields) = match l.find(": ") {
                Some(colon) => (&l[..colon], l[colon + 2..].to_string()),
                None => (l.strip_suffix(':')?, String::new()),
            };
            let mut words: Vec<&str> = head.split_whitespace().collect();
            let event = words.pop()?.to_string();
            let pid = words.pop()?.parse().ok()?;
            Some((words.join(" "), pid, event, fields))
        })
        .collect()
}

pub fn count_of(events: &[(String, u32, String, String)], pid: u32, event: &str) -> usize {
    events
        .iter()
        .filter(|(_, p, e, _)| *p == pid && e == event)
        .count()
}

pub const SCRIPT_FIELDS: [&str; 2] = ["-F", "comm,pid,event,trace"];

/// `perf record` of `workload` into `path`; returns the workload's pid.
pub fn perf_record(path: &Path, events: &[&str], workload: &[&str]) -> u32 {
    let mut args = vec!["record", "-q", "-m", RING_PAGES, "-o", path_str(path)];
    for e in events {
        args.extend(["-e", e]);
    }
    args.push("--");
    args.push(WORKLOAD);
    args.extend_from_slice(workload);
    let out = run_perf(&args, None);
    out.assert_success();
    workload_pid(&out.stderr)
}

/// perf-collect of `workload` into `output`; returns the workload's pid and stderr.
pub fn collect_workload(output: &str, events: &[&str], workload: &[&str]) -> (u32, Output) {
    collect_workload_with(output, events, &[], workload)
}

/// [`collect_workload`] with more options.
pub fn collect_workload_with(
    output: &str,
    events: &[&str],
    options: &[&str],
    workload: &[&str],
) -> (u32, Output) {
    let mut args = vec!["-m", RING_PAGES, "-o", output];
    for e in events {
        args.extend(["-e", e]);
    }
    args.extend_from_slice(options);
    args.push("--");
    args.push(WORKLOAD);
    args.extend_from_slice(workload);
    let out = collect(&args);
    let err = stderr(&out);
    assert!(out.status.success(), "perf-collect failed:\n{err}");
    (workload_pid(&err), out)
}

/// A refused start: exit status 1, one line on stderr naming `needle`, and no output.
pub fn refused(args: &[&str], output: &Path, needle: &str) -> String {
    refused_with(1, args, output, needle)
}

/// A refused start with exit status `code`, one line on stderr naming `needle`, and no
/// output.
pub fn refused_with(code: i32, args: &[&str], output: &Path, needle: &str) -> String {
    let mut all = vec!["-o", path_str(output)];
    all.extend_from_slice(args);
    let out = collect(&all);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("perf-collect: "), "{err}");
    assert!(err.contains(needle), "{args:?}: {err} lacks {needle:?}");
    assert!(!output.exists(), "{args:?} left {}", output.display());
    err
}
