//! A perf-collect recording killed with SIGKILL mid-run and cut at every 4 KiB boundary:
//! `perf-data recover` makes each cut a file perf 6.1 and linux-perf-data read, holding
//! every whole record of the cut, and refuses the cuts that end before the descriptions.

mod support;

use integration_tests::lpd;
use integration_tests::perf_tool::perf_script;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use perf_writer_std::recovery_block::find_recovery_block;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::*;

const TRACEPOINT: &str = "syscalls:sys_enter_getppid";
/// The killed file is at least this long: more than one of the writer's 256 KiB buffers.
const MIN_KILLED_LEN: u64 = 300 * 1024;
/// Cuts are made at every 4 KiB up to this length, and at the killed file's end (perf
/// script of each cut is the test's cost).
const CUTS_UP_TO: usize = 640 * 1024;

/// The one file in `dir` (perf-collect's new file, not renamed yet), with its length.
fn only_file(dir: &Path) -> Option<(PathBuf, u64)> {
    let mut entries = std::fs::read_dir(dir).ok()?.filter_map(Result::ok);
    let e = entries.next()?;
    Some((e.path(), e.metadata().ok()?.len()))
}

/// Records perf-collect into a new file in `dir` until it holds [`MIN_KILLED_LEN`] bytes,
/// then kills it and its workload with SIGKILL; returns the file's bytes.
fn killed_recording(dir: &Path) -> Vec<u8> {
    let output = dir.join("killed.data");
    let mut collector = Command::new(COLLECT)
        .args(["-m", RING_PAGES, "-o", path_str(&output)])
        .args([
            "-e",
            TRACEPOINT,
            "-e",
            "sched:sched_switch",
            "-e",
            "cpu-clock",
        ])
        .args(["-F", "999", "--", WORKLOAD, "getppid", "1000000000000"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start perf-collect");
    let mut lines = BufReader::new(collector.stderr.take().unwrap()).lines();
    let workload = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| {
            l.strip_prefix("pid ")
                .and_then(|p| p.trim().parse::<i32>().ok())
        })
        .expect("the workload's pid line");
    let start = Instant::now();
    let grown = loop {
        match only_file(dir) {
            Some((path, len)) if len >= MIN_KILLED_LEN => break Some(path),
            _ if start.elapsed() > Duration::from_secs(120) => break None,
            _ => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    collector.kill().unwrap(); // SIGKILL
    collector.wait().unwrap();
    kill(Pid::from_raw(workload), Signal::SIGKILL).unwrap();
    let path = grown.expect("perf-collect's file did not grow");
    assert!(
        !output.exists(),
        "perf-collect finished before it was killed"
    );
    std::fs::read(path).unwrap()
}

/// The records from `start` as (type, end), read from their headers (little-endian: the
/// machine's order, which perf-collect writes).
fn records_from(bytes: &[u8], start: usize) -> Vec<(u32, usize)> {
    let mut records = Vec::new();
    let mut pos = start;
    while let Some(head) = bytes.get(pos..pos + 8) {
        let type_ = u32::from_le_bytes(head[..4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes(head[6..8].try_into().unwrap()));
        if size < 8 || pos + size > bytes.len() {
            break;
        }
        pos += size;
        records.push((type_, pos));
    }
    records
}

#[test]
fn a_killed_recording_cut_at_every_4_kib_recovers_its_whole_records() {
    if !require_collect(TRACEPOINT) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rec_dir = dir.path().join("rec");
    std::fs::create_dir(&rec_dir).unwrap();
    let killed = killed_recording(&rec_dir);
    // Unreadable as it is: the header is written at finalize.
    assert!(killed[..104].iter().all(|&b| b == 0));
    let data_start = find_recovery_block(&killed).unwrap().data_start;
    let records = records_from(&killed, data_start);
    assert!(
        records.iter().filter(|r| r.0 == 9).count() > 1000,
        "a recording of this length holds thousands of samples"
    );

    let cut_path = dir.path().join("cut.data");
    let out_path = dir.path().join("out.data");
    let mut recovered_cuts = 0;
    let cuts = (4096..killed.len().min(CUTS_UP_TO))
        .step_by(4096)
        .chain([killed.len()]);
    for cut in cuts {
        std::fs::write(&cut_path, &killed[..cut]).unwrap();
        let _ = std::fs::remove_file(&out_path);
        let result = perf_data::recover::recover(&cut_path, killed[..cut].to_vec(), &out_path);
        if cut < data_start {
            let err = result.unwrap_err().to_string();
            assert!(err.contains("cannot recover"), "cut {cut}: {err}");
            assert!(!out_path.exists(), "cut {cut}: an OUT was left");
            continue;
        }
        let done = result.unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        let whole: Vec<&(u32, usize)> = records.iter().filter(|r| r.1 <= cut).collect();
        let samples = whole.iter().filter(|r| r.0 == 9).count();
        assert!(!done.already_whole);
        assert_eq!(done.records, whole.len(), "cut {cut}");
        let whole_end = whole.last().map_or(data_start, |r| r.1);
        assert_eq!(done.cut_tail, cut - whole_end, "cut {cut}");

        let bytes = std::fs::read(&out_path).unwrap();
        let summary = lpd::read_file(&bytes).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        assert!(summary.records_with_parse_errors().is_empty(), "cut {cut}");
        assert_eq!(
            summary.count(9),
            samples as u64,
            "cut {cut}: linux-perf-data samples"
        );
        assert_eq!(
            summary.count(3),
            whole.iter().filter(|r| r.0 == 3).count() as u64,
            "cut {cut}: linux-perf-data COMM records"
        );
        let script = perf_script(&out_path, &SCRIPT_FIELDS);
        script.assert_clean();
        let events = script_events(&script);
        assert_eq!(events.len(), samples, "cut {cut}: perf script's samples");
        let getppid = events.iter().filter(|e| e.2 == TRACEPOINT).count();
        assert!(
            samples < 100 || getppid > 0,
            "cut {cut}: named by the recovered formats"
        );
        recovered_cuts += 1;
    }
    assert!(recovered_cuts > 50, "{recovered_cuts} cuts recovered");
}
