//! perf-collect recordings read back by perf 6.1 and linux-perf-data, compared with
//! `perf record` on the same workload in the same test (see `support` for what they need).

mod support;

use integration_tests::lpd;
use integration_tests::perf_tool::{
    parse_header_only, perf_report_header, perf_script, perf_script_stdin, require_perf_record,
    HeaderInfo, PerfOutput,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::*;
#[test]
fn getppid_n_times_exactly_as_perf_record() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) || !require_perf_record() {
        return;
    }
    const N: usize = 20_000;
    let n = N.to_string();
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("collect.data");
    let theirs = dir.path().join("record.data");

    // The writer checks every record of the kernel against its attr (strict, the default).
    let (pid, out) = collect_workload_with(path_str(&ours), &[EVENT], &[], &["getppid", &n]);
    assert!(!stderr(&out).contains("refused"), "{}", stderr(&out));
    let script = perf_script(&ours, &SCRIPT_FIELDS);
    script.assert_clean();
    let events = script_events(&script);
    assert_eq!(count_of(&events, pid, EVENT), N, "{}", stderr(&out));
    assert!(events
        .iter()
        .filter(|(_, p, e, _)| *p == pid && e == EVENT)
        .all(|(comm, ..)| comm == WORKLOAD_COMM));
    assert!(stderr(&out).contains("lost 0 events"), "{}", stderr(&out));

    let record_pid = perf_record(&theirs, &[EVENT], &["getppid", &n]);
    let script = perf_script(&theirs, &SCRIPT_FIELDS);
    script.assert_clean();
    assert_eq!(count_of(&script_events(&script), record_pid, EVENT), N);

    // linux-perf-data reads every record, SAMPLEs of the workload included.
    let summary = lpd::read_file(&std::fs::read(&ours).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
    assert!(summary.count(9) >= N as u64);
}

/// The events of the mixed recording, checked the same way in file and pipe mode.
fn check_mixed(script: &PerfOutput, pid: u32, forks: usize) {
    script.assert_clean();
    let events = script_events(script);
    assert_eq!(count_of(&events, pid, "sched:sched_process_fork"), forks);
    assert!(count_of(&events, pid, "sched:sched_switch") > 0);
    // The children are named from the FORK records of the tracking event: each exits as
    // the workload's fork (before its exec of /bin/true renames it) or as `true`.
    let children: Vec<u32> = events
        .iter()
        .filter(|(_, p, e, _)| *p == pid && e == "sched:sched_process_fork")
        .filter_map(|(.., f)| {
            f.split_whitespace()
                .find_map(|w| w.strip_prefix("child_pid="))
                .and_then(|v| v.parse().ok())
        })
        .collect();
    assert_eq!(children.len(), forks);
    for child in &children {
        let exits: Vec<&String> = events
            .iter()
            .filter(|(_, p, e, _)| p == child && e == "sched:sched_process_exit")
            .map(|(c, ..)| c)
            .collect();
        assert_eq!(exits, ["true"], "child {child}");
    }
    assert!(events.iter().any(|(_, _, e, _)| e == "cpu-clock"));
    // The workload's events are named by its exec's COMM: before it, the forked
    // collector.
    for (comm, _, event, _) in events.iter().filter(|(_, p, _, _)| *p == pid) {
        match event.as_str() {
            "sched:sched_process_fork" => assert_eq!(comm, WORKLOAD_COMM),
            _ => assert!(
                [WORKLOAD_COMM, "perf-collect"].contains(&comm.as_str()),
                "{comm} {event}"
            ),
        }
    }
}

const MIXED_EVENTS: [&str; 2] = [
    "sched:sched_switch,sched:sched_process_fork,sched:sched_process_exit",
    "cpu-clock",
];
const FORKS: usize = 20;

/// The mixed recording into a file with `options` (after `-F 999`), checked by perf script
/// and linux-perf-data; the file stays in the returned directory.
fn mixed_in_a_file(options: &[&str]) -> (PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("collect.data");
    let forks = FORKS.to_string();
    let mut all = vec!["-F", "999"];
    all.extend_from_slice(options);
    let (pid, out) = collect_workload_with(
        path_str(&ours),
        &MIXED_EVENTS,
        &all,
        &["fork", &forks, "spin", "50"],
    );
    assert!(!stderr(&out).contains("refused"), "{}", stderr(&out));
    check_mixed(&perf_script(&ours, &SCRIPT_FIELDS), pid, FORKS);
    let summary = lpd::read_file(&std::fs::read(&ours).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
    (ours, dir)
}

#[test]
fn several_tracepoints_and_cpu_clock_in_a_file() {
    if !require_collect("sched:sched_process_fork") {
        return;
    }
    mixed_in_a_file(&["--unchecked"]);
}

#[test]
fn pipe_mode_into_perf_script() {
    if !require_collect("sched:sched_process_fork") {
        return;
    }
    let forks = FORKS.to_string();
    let (pid, out) = collect_workload_with(
        "-",
        &MIXED_EVENTS,
        &["-F", "999"],
        &["fork", &forks, "spin", "50"],
    );
    assert_eq!(&out.stdout[..8], b"PERFILE2");
    let script = integration_tests::perf_tool::perf_script_stdin_with(&out.stdout, &SCRIPT_FIELDS);
    check_mixed(&script, pid, FORKS);
    perf_script_stdin(&out.stdout).assert_clean();
    // (linux-perf-data 0.13 does not skip the tracing data of a pipe stream.)
    let summary = lpd::read_pipe_without_tracing_payload(&out.stdout).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
}

#[test]
fn pipe_mode_live_into_perf_script_through_an_os_pipe() {
    if !require_collect("sched:sched_process_fork") {
        return;
    }
    let forks = FORKS.to_string();
    let mut collector = Command::new(COLLECT)
        .args(["-m", RING_PAGES, "-o", "-", "-F", "999"])
        .args(["-e", MIXED_EVENTS[0], "-e", MIXED_EVENTS[1], "--", WORKLOAD])
        .args(["fork", &forks, "spin", "50"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stream = collector.stdout.take().unwrap();
    let mut perf = integration_tests::perf_tool::PerfCommand::new(&[
        "script",
        "--force",
        "--no-inline",
        "-i",
        "-",
        SCRIPT_FIELDS[0],
        SCRIPT_FIELDS[1],
    ]);
    let script = perf
        .command()
        .stdin(Stdio::from(stream))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let out = collector.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let script = PerfOutput {
        args: vec!["script".into(), "-i".into(), "-".into()],
        stdout: String::from_utf8_lossy(&script.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&script.stderr).into_owned(),
        status: script.status,
    };
    check_mixed(&script, workload_pid(&err), FORKS);
}

/// PERF_RECORD_COMPRESSED records in the data section of a file-mode perf.data.
fn compressed_records(path: &Path) -> usize {
    let b = std::fs::read(path).unwrap();
    let u64_at = |at: usize| u64::from_ne_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let (offset, size) = (u64_at(40), u64_at(48));
    let (mut pos, mut n) = (offset, 0);
    while pos + 8 <= offset + size {
        let rtype = u32::from_ne_bytes(b[pos..pos + 4].try_into().unwrap());
        let rsize = usize::from(u16::from_ne_bytes(b[pos + 6..pos + 8].try_into().unwrap()));
        assert!(rsize >= 8, "record at {pos}");
        n += usize::from(rtype == 81);
        pos += rsize;
    }
    n
}

#[test]
fn compressed_recordings_read_as_plain_ones() {
    const GETPPID: &str = "syscalls:sys_enter_getppid";
    if !require_collect("sched:sched_process_fork") || !require_collect(GETPPID) {
        return;
    }
    // File mode, -z (level 1): the mixed events, as in the plain recording.
    let (ours, _dir) = mixed_in_a_file(&["-z"]);
    assert!(compressed_records(&ours) > 0);
    let header = perf_report_header(&ours, false);
    header.assert_clean();
    assert!(
        header.stdout.contains("# compressed : Zstd, level = 1,"),
        "{}",
        header.stdout
    );

    // Pipe mode at level 9: every getppid of the workload, exactly.
    const N: usize = 20_000;
    let n = N.to_string();
    let (pid, out) = collect_workload_with("-", &[GETPPID], &["-z=9"], &["getppid", &n]);
    let script = integration_tests::perf_tool::perf_script_stdin_with(&out.stdout, &SCRIPT_FIELDS);
    script.assert_clean();
    assert_eq!(
        count_of(&script_events(&script), pid, GETPPID),
        N,
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("lost 0 events"), "{}", stderr(&out));
}

/// The `--header-only -I` lines that describe the machine.
fn host_lines(h: &HeaderInfo) -> Vec<(String, String)> {
    const KEYS: [&str; 7] = [
        "hostname",
        "os release",
        "arch",
        "nrcpus online",
        "nrcpus avail",
        "cpudesc",
        "cpuid",
    ];
    h.entries
        .iter()
        .filter(|(k, _)| {
            KEYS.contains(&k.as_str())
                || k.starts_with("sibling ")
                || k.strip_prefix("CPU ")
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
                || (k.starts_with("node") && k.ends_with(" cpu list"))
        })
        .cloned()
        .collect()
}

#[test]
fn host_headers_as_perf_record_prints_them() {
    if !require_collect("sched:sched_switch") || !require_perf_record() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("collect.data");
    let theirs = dir.path().join("record.data");
    // Every CPU's switches (-a), so that the file has samples to time whatever the
    // workload does: its own may have none.
    collect_workload_with(
        path_str(&ours),
        &["sched:sched_switch"],
        &["-a"],
        &["getppid", "1"],
    );
    perf_record(&theirs, &["sched:sched_switch"], &["getppid", "1"]);
    let header = |p: &Path| {
        let out = perf_report_header(p, true);
        out.assert_clean();
        parse_header_only(&out.stdout)
    };
    let (o, p) = (header(&ours), header(&theirs));
    let (ol, pl) = (host_lines(&o), host_lines(&p));
    for key in ["hostname", "os release", "arch", "nrcpus online"] {
        assert!(
            pl.iter().any(|(k, _)| k == key),
            "perf record printed no {key}"
        );
    }
    assert_eq!(
        ol, pl,
        "host lines of perf-collect's file (left) and perf record's"
    );
    for key in ["total memory", "cmdline", "sample duration"] {
        assert!(o.has(key), "no {key} in perf-collect's header:\n{o:?}");
    }
    assert_eq!(o.event_names(), ["sched:sched_switch", "dummy:HG"]);
}

#[test]
fn lost_events_are_kept_and_reported() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    const N: u64 = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // One page per CPU (about 50 records): the ring overflows.
    let out = collect(&[
        "-m",
        "1",
        "-e",
        EVENT,
        "-o",
        path_str(&path),
        "--",
        WORKLOAD,
        "getppid",
        &N.to_string(),
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let pid = workload_pid(&err);
    let lost_line = err
        .lines()
        .find(|l| l.contains("the kernel lost"))
        .unwrap_or_else(|| panic!("no loss reported:\n{err}"));
    let reported: u64 = lost_line
        .split_whitespace()
        .nth(4)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{lost_line}"));
    // The file holds LOST records adding up to the count on stderr.
    let bytes = std::fs::read(&path).unwrap();
    let summary = lpd::read_file(&bytes).unwrap();
    let in_file: u64 = summary
        .records
        .iter()
        .filter(|r| r.record_type == 2)
        .map(|r| u64::from_ne_bytes(r.payload[8..16].try_into().unwrap()))
        .sum();
    assert_eq!(in_file, reported);
    // Nothing vanished: every getppid of the workload was recorded or counted as lost.
    let script = perf_script(&path, &SCRIPT_FIELDS);
    script.assert_success();
    let recorded = count_of(&script_events(&script), pid, EVENT) as u64;
    assert!(recorded + reported >= N, "{recorded} + {reported} < {N}");
    assert!(recorded < N);
    // perf counts the same loss.
    let stats = integration_tests::perf_tool::perf_report_stats(&path);
    stats.assert_success();
    assert!(stats.stdout.contains("LOST events"), "{}", stats.stdout);
}

#[test]
fn flight_recorder_keeps_the_last_seconds() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    // 100 calls, a second of spinning, 50 calls: a 0.4 s window (counted back from the
    // latest record, which may come a little after the last call) holds the 50 only, and
    // the COMM that names the workload, older than the window, is kept.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let (pid, out) = collect_workload_with(
        path_str(&path),
        &[EVENT],
        &["-c", "0.4"],
        &["getppid", "100", "spin", "1000", "getppid", "50"],
    );
    assert!(!stderr(&out).contains("refused"), "{}", stderr(&out));
    let script = perf_script(&path, &SCRIPT_FIELDS);
    script.assert_clean();
    let events = script_events(&script);
    assert_eq!(count_of(&events, pid, EVENT), 50);
    assert!(events
        .iter()
        .filter(|(_, p, e, _)| *p == pid && e == EVENT)
        .all(|(comm, ..)| comm == WORKLOAD_COMM));
    // A window longer than the run keeps all of it; pipe mode too.
    let (pid, out) = collect_workload_with(
        "-",
        &[EVENT],
        &["-c", "30"],
        &["getppid", "100", "spin", "100", "getppid", "50"],
    );
    let script = integration_tests::perf_tool::perf_script_stdin_with(&out.stdout, &SCRIPT_FIELDS);
    script.assert_clean();
    assert_eq!(count_of(&script_events(&script), pid, EVENT), 150);
}

#[test]
fn a_tracepoint_recording_follows_its_command_and_every_cpu_with_a() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    // Another process calls getppid all along the recordings, 100 calls every 10 ms or
    // so: few enough that no ring overflows (perf script would warn of lost events), and
    // for a minute at least. It is killed however the test ends.
    let paced: Vec<&str> = ["getppid", "100", "spin", "10"].repeat(6000);
    let mut other = KillOnDrop(
        Command::new(WORKLOAD)
            .args(paced)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(other.0.stderr.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let other_pid = workload_pid(&line);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let calls = |options: &[&str]| {
        let (pid, _) = collect_workload_with(
            path_str(&path),
            &[EVENT],
            options,
            &["getppid", "1000", "spin", "100"],
        );
        let script = perf_script(&path, &SCRIPT_FIELDS);
        script.assert_clean();
        let events = script_events(&script);
        (
            count_of(&events, pid, EVENT),
            count_of(&events, other_pid, EVENT),
        )
    };
    // By default the command alone (as with perf record), every call of it.
    let followed = calls(&[]);
    // With -a every CPU: the other process's calls too.
    let everyone = calls(&["-a"]);
    drop(other);
    assert_eq!(followed, (1000, 0));
    assert_eq!(everyone.0, 1000);
    assert!(everyone.1 > 0, "{everyone:?}");
}

/// A child process killed and reaped when dropped, a panic included.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
