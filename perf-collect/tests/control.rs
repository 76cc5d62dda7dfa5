//! perf-collect under control: how it stops (the command exits, -d, SIGINT, SIGTERM,
//! `timeout`, a closed or full output), what the command it runs inherits, and what it says
//! about each, with every file it keeps read back by perf 6.1 and linux-perf-data. Each
//! wait on the collector is bounded: a hang fails the test instead of holding it up.

mod support;

use integration_tests::lpd;
use integration_tests::perf_tool::{perf_script, skip};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::*;

/// The longest any collector here may take to stop once told to (they stop within a
/// second; the margin is for a loaded machine).
const BOUND: Duration = Duration::from_secs(30);

/// perf-collect started with `args`, stdout and stderr piped.
fn start(args: &[&str]) -> Child {
    Command::new(COLLECT)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start perf-collect")
}

/// Waits for `child` at most [`BOUND`]; past it the child is killed and the test fails.
fn wait_bounded(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > BOUND {
            // Its output is not read: a command it left running may hold the pipes open.
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: perf-collect had not stopped after {BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` (a name for kill(1)) to `pid`.
fn send(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Waits until the collector has made its output (it blocks its signals before that): a
/// new file in `path`'s directory, renamed to `path` once finalized. Then waits a moment
/// more for the recording to run.
fn wait_for_output(path: &Path) {
    let dir = path.parent().unwrap();
    let made = || std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some());
    let start = Instant::now();
    while !made() && start.elapsed() < BOUND {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(made(), "nothing appeared in {}", dir.display());
    std::thread::sleep(Duration::from_millis(300));
}

/// Waits until the command of the collector `pid` runs: a child of it that has left the
/// collector's image (perf-collect starts the command, or lets the one it holds exec, once
/// its events are enabled), so that a signal sent now comes mid-recording.
fn wait_for_command(pid: u32) {
    let started = || {
        std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // "PID (COMM) STATE PPID ...": the comm may hold spaces and parentheses.
            let Some((head, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            ppid == Some(pid) && !head.ends_with("(perf-collect")
        })
    };
    let start = Instant::now();
    while !started() && start.elapsed() < BOUND {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(started(), "the command of perf-collect {pid} did not start");
}

/// A recording perf 6.1 and linux-perf-data read whole: returns its sched_switch events.
fn readable(path: &Path) -> usize {
    let script = perf_script(path, &SCRIPT_FIELDS);
    script.assert_clean();
    let summary = lpd::read_file(&std::fs::read(path).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
    script_events(&script).len()
}

#[test]
fn the_command_starts_with_no_signal_blocked_or_ignored() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // Also when perf-collect itself starts with SIGINT and SIGTERM ignored, as a shell
    // starts a background job.
    for shell in ["exec \"$0\" \"$@\"", "trap '' INT TERM; exec \"$0\" \"$@\""] {
        let out = Command::new("sh")
            .args(["-c", shell, COLLECT, "-e", "sched:sched_switch", "-o"])
            .arg(&path)
            .args(["--", "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(out.status.success(), "{err}");
        let status = String::from_utf8(out.stdout).unwrap();
        let mask = |key: &str| {
            let line = status.lines().find(|l| l.starts_with(key)).unwrap();
            u64::from_str_radix(line[key.len()..].trim(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{shell}: {status}");
        // SIGINT, SIGTERM, SIGCHLD and SIGPIPE (bits 1, 14, 16, 12) are not ignored.
        let handled = (1 << 1) | (1 << 14) | (1 << 16) | (1 << 12);
        assert_eq!(mask("SigIgn:") & handled, 0, "{shell}: {status}");
        assert!(err.contains("stopped: the command exited"), "{err}");
        readable(&path);
    }
}

#[test]
fn a_command_that_forks_and_waits_ends_the_recording() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // The shell's `wait` needs SIGCHLD: blocked, it waited forever.
    let child = start(&[
        "-e",
        "sched:sched_switch",
        "-o",
        path_str(&path),
        "--",
        "sh",
        "-c",
        "sleep 0.1 & wait",
    ]);
    let out = wait_bounded(child, "sh -c 'sleep 0.1 & wait'");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stopped: the command exited"), "{err}");
    assert!(readable(&path) > 0);
}

#[test]
fn duration_stops_the_recording() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let out = wait_bounded(
        start(&[
            "-e",
            "sched:sched_switch",
            "-d",
            "0.3",
            "-o",
            path_str(&path),
        ]),
        "-d 0.3",
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stopped: the duration passed"), "{err}");
    readable(&path);
}

#[test]
fn duration_ends_a_longer_command() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // `sleep 600` would hold the test for ten minutes if the SIGTERM sent at -d did not
    // reach it.
    let out = wait_bounded(
        start(&[
            "-e",
            "sched:sched_switch",
            "-d",
            "0.5",
            "-o",
            path_str(&path),
            "--",
            "sleep",
            "600",
        ]),
        "-d 0.5 -- sleep 600",
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stopped: the duration passed"), "{err}");
    assert!(
        err.contains("the command was sent SIGTERM and ended with signal: 15 (SIGTERM)"),
        "{err}"
    );
    readable(&path);
}

/// perf-collect recording `command` (none when empty), stopped by `signal` once the
/// command runs, or `pause` after its output appeared when there is none; started with
/// SIGINT and SIGTERM ignored when `ignored` (as a shell starts a background job).
fn stopped_by(
    signal: &str,
    ignored: bool,
    command: &[&str],
    pause: Duration,
) -> (PathBuf, tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let mut cmd = match ignored {
        false => Command::new(COLLECT),
        true => {
            let mut c = Command::new("sh");
            c.args(["-c", "trap '' INT TERM; exec \"$0\" \"$@\"", COLLECT]);
            c
        }
    };
    // Every CPU's switches (-a): the recorded command alone may have none.
    cmd.args(["-a", "-e", "sched:sched_switch", "-o", path_str(&path)]);
    if !command.is_empty() {
        cmd.arg("--").args(command);
    }
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_output(&path);
    match command.is_empty() {
        true => std::thread::sleep(pause),
        false => wait_for_command(child.id()),
    }
    send(signal, child.id());
    let out = wait_bounded(child, &format!("kill -{signal}"));
    (path, dir, out)
}

#[test]
fn sigint_and_sigterm_mid_recording_leave_a_file_perf_reads() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    for (signal, number, ignored) in [("INT", 2, false), ("TERM", 15, false), ("INT", 2, true)] {
        for command in [&[][..], &["sleep", "600"][..]] {
            // With no command nothing outside tells when the events are enabled (after
            // perf-collect has described what runs, which takes long on a busy machine):
            // a signal before it leaves a readable file with no switch, and the next try
            // waits longer.
            let mut switches = 0;
            for pause in [300, 1000, 3000].map(Duration::from_millis) {
                let (path, _dir, out) = stopped_by(signal, ignored, command, pause);
                let err = stderr(&out);
                assert!(out.status.success(), "{err}");
                assert!(err.contains(&format!("stopped: signal {number}")), "{err}");
                if !command.is_empty() {
                    assert!(err.contains("the command was sent SIGTERM"), "{err}");
                }
                switches = readable(&path);
                if switches > 0 {
                    break;
                }
            }
            assert!(
                switches > 0,
                "kill -{signal}, command {command:?}: no switch"
            );
        }
    }
}

#[test]
fn timeout_ends_a_recording() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // timeout(1) sends SIGTERM to perf-collect and to its process group, the command
    // included: whichever perf-collect sees first ends the recording.
    let child = Command::new("timeout")
        .args([
            "1",
            COLLECT,
            "-e",
            "sched:sched_switch",
            "-o",
            path_str(&path),
        ])
        .args(["--", "sleep", "600"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, "timeout 1");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(124), "{err}");
    assert!(
        err.contains("stopped: signal 15") || err.contains("stopped: the command exited"),
        "{err}"
    );
    assert!(readable(&path) > 0);
}

/// Lines of `child`'s stderr, as they come.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn a_command_that_ignores_sigterm_is_waited_for_after_the_file_is_saved() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let mut child = start(&[
        "-e",
        "sched:sched_switch",
        "-o",
        path_str(&path),
        "--",
        "sh",
        "-c",
        "trap '' INT TERM; exec sleep 600",
    ]);
    let lines = stderr_lines(&mut child);
    wait_for_output(&path);
    wait_for_command(child.id());
    send("INT", child.id());
    // The recording is saved and perf-collect says it waits for the command.
    let mut seen = Vec::new();
    let waiting = loop {
        match lines.recv_timeout(BOUND) {
            Ok(line) if line.contains("has not exited") => break line,
            Ok(line) => seen.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("no word of waiting for the command: {seen:?}");
            }
        }
    };
    assert!(
        waiting.contains("Ctrl-C or SIGTERM again kills it"),
        "{waiting}"
    );
    // The file is complete while the command still runs.
    assert!(child.try_wait().unwrap().is_none());
    assert!(readable(&path) > 0);
    // A second signal kills the command, and perf-collect exits.
    send("TERM", child.id());
    let rest: Vec<String> = lines.iter().collect();
    let out = wait_bounded(child, "a second SIGTERM");
    assert!(out.status.success(), "{rest:?}");
    let rest = rest.join("\n");
    assert!(rest.contains("stopped: signal 2"), "{rest}");
    assert!(rest.contains("was killed (SIGKILL)"), "{rest}");
}

/// A refused command line: exit status 2, one line on stderr naming `needle`, no output.
fn refused_usage(args: &[&str], output: &Path, needle: &str) {
    refused_with(2, args, output, needle);
}

#[test]
fn numbers_out_of_range_get_one_line_and_status_2() {
    // Judged from the text alone: no root, perf or tracefs needed.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.data");
    let ev = ["-e", "cpu-clock"];
    for (opt, value) in [
        ("-d", "1e300"),
        ("-d", "1e19"),
        ("-d", "-1"),
        ("-d", "0"),
        ("-d", "nan"),
        ("-c", "1e20"),
        ("-c", "-3"),
    ] {
        refused_usage(
            &[ev[0], ev[1], opt, value],
            &out,
            "positive number of seconds",
        );
    }
    for value in ["0", "-5", "x", "99999999999999999999999"] {
        refused_usage(
            &[ev[0], ev[1], "-F", value],
            &out,
            "whole number of samples",
        );
    }
    for value in ["0", "3", "2097152", "-1"] {
        refused_usage(&[ev[0], ev[1], "-m", value], &out, "power of two");
    }
    for value in ["-z=0", "-z=23", "-z=-1"] {
        refused_usage(&[ev[0], ev[1], value], &out, "from 1 to 22");
    }
    refused_usage(&["--no-such-option"], &out, "'--no-such-option'");
}

#[test]
fn limits_of_this_machine_and_unbounded_input_get_one_line_and_status_1() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.data");
    // Above kernel.perf_event_max_sample_rate, read here as perf-collect reads it.
    let max: u64 = std::fs::read_to_string("/proc/sys/kernel/perf_event_max_sample_rate")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let above = (max + 1).to_string();
    let err = refused_with(
        2,
        &["-e", "cpu-clock", "-F", &above],
        &out,
        "kernel.perf_event_max_sample_rate",
    );
    assert!(err.contains(&format!("{max} Hz here")), "{err}");
    // A tracepoint alone does not sample by frequency: -F is not judged against the kernel.
    let ok = collect(&[
        "-e",
        "sched:sched_switch",
        "-F",
        &above,
        "-d",
        "0.1",
        "-o",
        path_str(&out),
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    std::fs::remove_file(&out).unwrap();
    // An events file is read up to 1 MiB.
    refused(
        &["--events-file", "/dev/zero"],
        &out,
        "longer than 1024 KiB",
    );
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "sched:sched_switch\n".repeat(60_000)).unwrap();
    refused(
        &["--events-file", path_str(&big)],
        &out,
        "longer than 1024 KiB",
    );
}

#[test]
fn a_full_output_keeps_a_valid_truncated_file_and_says_so() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    // /dev/full takes nothing: one line, status 1, and the device is left alone.
    let out = collect(&["-e", EVENT, "-o", "/dev/full", "--", "true"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'/dev/full' is full") && err.contains("nothing was kept"),
        "{err}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());

    // A 1 MiB tmpfs fills up with 200,000 getppid samples (about 13 MB).
    let dir = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(dir.path())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        skip("cannot mount a tmpfs (mount -t tmpfs needs root)");
        return;
    }
    let _unmount = Unmount(dir.path());
    let path = dir.path().join("collect.data");
    let out = wait_bounded(
        start(&[
            "-m",
            RING_PAGES,
            "-e",
            EVENT,
            "-o",
            path_str(&path),
            "--",
            WORKLOAD,
            "getppid",
            "200000",
        ]),
        "a full tmpfs",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("stopped: the output is full"), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("the output filled up"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("No space left on device"), "{line}");
    let kept: u64 = line
        .split("records (")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    // perf and linux-perf-data read what was kept: exactly that many records. (How many
    // samples that is depends on where the disk filled: the writer keeps the records it
    // knows reached the file whole, and a large write cut short counts as none.)
    readable(&path);
    let content = integration_tests::fixtures::FixtureContent::from_path(&path).unwrap();
    assert_eq!(content.records.len() as u64, kept, "{line}");
    std::fs::remove_file(&path).unwrap();

    // Compressed, the records wait in the compressor: the disk fills as its last ones go
    // out, at finish, and the file still keeps what reached it. The tmpfs shrinks to 128
    // KiB first: getppid samples compress about 40 times, and on a busy machine the
    // kernel may drop most of the 2,000,000 (once 1.6 M), which left too little to fill a
    // MiB.
    let shrunk = Command::new("mount")
        .args(["-o", "remount,size=128k"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(shrunk.success(), "remount the tmpfs at 128 KiB");
    let out = wait_bounded(
        start(&[
            "-z",
            "-m",
            RING_PAGES,
            "-e",
            EVENT,
            "-o",
            path_str(&path),
            "--",
            WORKLOAD,
            "getppid",
            "2000000",
        ]),
        "a full tmpfs, compressed",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("is a valid perf.data that ends early"),
        "{err}"
    );
    perf_script(&path, &SCRIPT_FIELDS).assert_success();
    let summary = lpd::read_file(&std::fs::read(&path).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
}

#[test]
fn a_pipe_closed_by_its_reader_is_reported_with_what_it_took() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let mut child = start(&["-e", "sched:sched_switch", "-o", "-", "--", "sleep", "3"]);
    let mut stream = child.stdout.take().unwrap();
    let mut first = [0u8; 1000];
    stream.read_exact(&mut first).unwrap();
    assert_eq!(&first[..8], b"PERFILE2");
    drop(stream);
    let out = wait_bounded(child, "a closed pipe");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stopped: the output was closed"), "{err}");
    let taken: u64 = err
        .split("closed it after ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(taken >= 1000, "{err}");
    assert!(!err.contains("wrote "), "{err}");
}

#[test]
fn a_flight_recorder_window_the_rings_cannot_hold_is_reported() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // One page per CPU holds about 50 getppid samples: far less than 10 s of 20,000.
    let out = collect(&[
        "-m",
        "1",
        "-c",
        "10",
        "-e",
        EVENT,
        "-o",
        path_str(&path),
        "--",
        WORKLOAD,
        "getppid",
        "20000",
        "spin",
        "200",
        "getppid",
        "20000",
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("held only the last"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("of the 10.000 s asked"), "{line}");
    let pages: usize = line
        .split("-m ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(pages > 1 && pages.is_power_of_two(), "{line}");
    assert!(readable(&path) > 0);
    // A window the ring holds says nothing.
    let (_, out) = collect_workload_with(
        path_str(&path),
        &[EVENT],
        &["-c", "30"],
        &["getppid", "100"],
    );
    assert!(!stderr(&out).contains("held only"), "{}", stderr(&out));
}

#[test]
fn bad_input_gets_one_line_and_no_file() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.data");
    refused(
        &["-e", "sched:no_such_event"],
        &out,
        "'sched:no_such_event'",
    );
    refused(&["-e", "no-such-counter"], &out, "'no-such-counter'");
    refused(
        &["-e", "sched:sched_switch", "-e", "nosys:x"],
        &out,
        "'nosys:x'",
    );
    let empty = dir.path().join("not-tracefs");
    std::fs::create_dir(&empty).unwrap();
    let err = refused(
        &["--tracefs", path_str(&empty), "-e", "sched:sched_switch"],
        &out,
        "tracefs not found",
    );
    assert!(err.contains(path_str(&empty)), "{err}");
    refused(
        &["-e", "sched:sched_switch", "--", "/no/such/program"],
        &out,
        "'/no/such/program'",
    );
    let list = dir.path().join("events.txt");
    std::fs::write(&list, "# the switch\nsched:sched_switch\nsched:nope\n").unwrap();
    refused(&["--events-file", path_str(&list)], &out, "'sched:nope'");
    let bad_out = dir.path().join("no-dir").join("x.data");
    refused(
        &["-e", "sched:sched_switch"],
        &bad_out,
        "cannot create the output",
    );
}

#[test]
fn without_privilege_the_error_names_perf_event_paranoid() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let paranoid: i32 = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    if paranoid < 1 {
        skip(&format!(
            "kernel.perf_event_paranoid is {paranoid}: an unprivileged user may record every CPU here"
        ));
        return;
    }
    let Some(setpriv) = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        skip("setpriv (util-linux) not installed: cannot run as an unprivileged user");
        return;
    };
    // A copy of the binary an unprivileged user can run, in a directory it can write.
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("perf-collect");
    std::fs::copy(COLLECT, &bin).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = dir.path().join("never.data");
    let out = Command::new(setpriv)
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
            path_str(&bin),
            "-e",
            "cpu-clock",
            "-o",
            path_str(&output),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("perf_event_paranoid"), "{err}");
    assert!(err.contains(&format!("is {paranoid}")), "{err}");
    assert!(!output.exists());
    // A tracepoint: tracefs is root's (mode 0700) on most systems, or perf_event_open is
    // refused as above; either way one line saying to run as root.
    let out = Command::new(setpriv)
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
            path_str(&bin),
            "-e",
            "sched:sched_switch",
            "-o",
            path_str(&output),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("run as root"), "{err}");
    assert!(!output.exists());
}

#[test]
fn a_timeout_lets_a_command_clean_up_after_sigterm() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // timeout(1) signals perf-collect and then its process group: the command gets
    // SIGTERM twice, perf-collect a second one too, which is not "again" (nothing was
    // said yet): the command's handler runs to its end.
    let child = Command::new("timeout")
        .args([
            "1",
            COLLECT,
            "-e",
            "sched:sched_switch",
            "-o",
            path_str(&path),
        ])
        .args([
            "--",
            "sh",
            "-c",
            "trap 'kill $!; sleep 0.3; exit 7' TERM; sleep 600 & wait",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, "timeout 1 with a cleaning command");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(124), "{err}");
    assert!(!err.contains("SIGKILL"), "{err}");
    assert!(err.contains("exit status: 7"), "{err}");
    assert!(readable(&path) > 0);
}

#[test]
fn sighup_stops_a_recording_and_a_stopped_command_is_continued() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let (path, _dir, out) = stopped_by("HUP", false, &["sleep", "600"], Duration::ZERO);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stopped: signal 1"), "{err}");
    assert!(readable(&path) > 0);
    // A command stopped by SIGSTOP still gets its SIGTERM (with SIGCONT).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let child = start(&[
        "-e",
        "sched:sched_switch",
        "-d",
        "0.5",
        "-o",
        path_str(&path),
        "--",
        "sh",
        "-c",
        "kill -STOP $$; sleep 600",
    ]);
    let out = wait_bounded(child, "a stopped command");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("ended with signal: 15 (SIGTERM)"), "{err}");
}

#[test]
fn a_fifo_or_a_directory_is_refused_as_a_file_output_and_left_alone() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for output in [fifo.as_path(), dir.path()] {
        let child = start(&[
            "-e",
            "sched:sched_switch",
            "-o",
            path_str(output),
            "--",
            "true",
        ]);
        let out = wait_bounded(child, "a FIFO output with no reader");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("cannot create the output"), "{err}");
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let err = stderr(&collect(&[
        "-e",
        "sched:sched_switch",
        "-o",
        path_str(&fifo),
        "--",
        "true",
    ]));
    assert!(err.contains("use -o -"), "{err}");
}

#[test]
fn a_recording_that_cannot_start_leaves_an_existing_file_as_it_was() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.data");
    std::fs::write(&path, b"an earlier recording").unwrap();
    // Not executable; a directory; a bad #! line (refused by exec only).
    let script = dir.path().join("script.sh");
    std::fs::write(&script, "#!/no/such/interpreter\n").unwrap();
    let plain = dir.path().join("plain.sh");
    std::fs::write(&plain, "true\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (command, needle) in [
        (path_str(&plain), "not an executable file"),
        (path_str(dir.path()), "is a directory"),
        (path_str(&script), "cannot run"),
    ] {
        let out = collect(&[
            "-e",
            "sched:sched_switch",
            "-o",
            path_str(&path),
            "--",
            command,
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(needle), "{command}: {err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"an earlier recording");
    }
    // Nothing is left beside it either.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    // Through a symbolic link the target is replaced, and the link stays one.
    let link = dir.path().join("link.data");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let out = collect(&[
        "-a",
        "-e",
        "sched:sched_switch",
        "-o",
        path_str(&link),
        "--",
        "true",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(readable(&path) > 0);
}

#[test]
fn a_file_size_limit_keeps_a_valid_truncated_file() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // 1024 blocks of 1 KiB: SIGXFSZ would kill perf-collect mid-write; ignored, the write
    // fails with EFBIG and the file keeps what fits.
    let child = Command::new("sh")
        .args([
            "-c",
            "ulimit -f 1024; exec \"$@\"",
            "sh",
            COLLECT,
            "-e",
            EVENT,
        ])
        .args(["-o", path_str(&path), "--", WORKLOAD, "getppid", "200000"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, "ulimit -f 1024");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(std::fs::metadata(&path).unwrap().len() <= 1024 * 1024);
    readable(&path);
}

#[test]
fn a_pipe_whose_reader_stops_reading_does_not_hold_up_a_stop() {
    if !require_collect("syscalls:sys_enter_getppid") {
        return;
    }
    // The read end stays open and unread: the pipe fills (64 KiB) and stays full.
    let (reader, writer) = std::io::pipe().unwrap();
    let child = Command::new(COLLECT)
        .args([
            "-e",
            "syscalls:sys_enter_getppid",
            "-d",
            "1",
            "-o",
            "-",
            "--",
        ])
        .args([WORKLOAD, "getppid", "1000000"])
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, "an unread pipe");
    drop(reader);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("took nothing for a while"), "{err}");
}

#[test]
fn stderr_or_stdout_that_cannot_be_written_changes_nothing() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let full = || {
        std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let status = |args: &[&str], out: Stdio, err: Stdio| {
        Command::new(COLLECT)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .status()
            .unwrap()
            .code()
    };
    let record = [
        "-a",
        "-e",
        "sched:sched_switch",
        "-o",
        path_str(&path),
        "--",
        "true",
    ];
    assert_eq!(status(&record, Stdio::null(), full().into()), Some(0));
    assert!(readable(&path) > 0);
    assert_eq!(status(&["-d", "0"], Stdio::null(), full().into()), Some(2));
    assert_eq!(status(&["--help"], full().into(), Stdio::null()), Some(0));
    assert_eq!(
        status(&["--version"], full().into(), Stdio::null()),
        Some(0)
    );
}

#[test]
fn a_stream_to_a_full_disk_says_what_it_kept() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(dir.path())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        skip("cannot mount a tmpfs (mount -t tmpfs needs root)");
        return;
    }
    let _unmount = Unmount(dir.path());
    let path = dir.path().join("stream.data");
    let out = wait_bounded(
        Command::new(COLLECT)
            .args(["-e", EVENT, "-o", "-", "--", WORKLOAD, "getppid", "200000"])
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&path).unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        "a stream to a full tmpfs",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("after 65536 bytes of the stream"), "{err}");
}

/// Unmounts a test's tmpfs when dropped.
struct Unmount<'a>(&'a Path);

impl Drop for Unmount<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

#[test]
fn a_long_save_is_announced_and_a_second_signal_cuts_it_short() {
    const EVENT: &str = "syscalls:sys_enter_getppid";
    if !require_collect(EVENT) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    // 16 MiB rings compressed at zstd's slowest level: seconds of saving once stopped.
    let mut child = start(&[
        "-z=22",
        "-m",
        "4096",
        "-e",
        EVENT,
        "-o",
        path_str(&path),
        "--",
        WORKLOAD,
        "getppid",
        "100000000",
    ]);
    let lines = stderr_lines(&mut child);
    wait_for_output(&path);
    std::thread::sleep(Duration::from_millis(1500));
    send("INT", child.id());
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(BOUND) {
            Ok(line) if line.contains("saving the") => break,
            Ok(line) => seen.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("saving was not announced: {seen:?}");
            }
        }
    }
    send("INT", child.id());
    let rest: Vec<String> = lines.iter().collect();
    let out = wait_bounded(child, "a second SIGINT while saving");
    let rest = rest.join("\n");
    assert!(out.status.success(), "{rest}");
    assert!(rest.contains("saving was cut short"), "{rest}");
    // The rings overflowed at that level: perf warns of the kernel's losses, and of
    // nothing else.
    let script = perf_script(&path, &SCRIPT_FIELDS);
    script.assert_success();
    assert!(rest.contains("the kernel lost"), "{rest}");
    assert!(!script.stderr.contains("out of order"), "{}", script.stderr);
    assert!(!script_events(&script).is_empty());
    let summary = lpd::read_file(&std::fs::read(&path).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
}

/// Sets `kernel.perf_event_max_sample_rate` for a test and puts it back when dropped.
struct MaxSampleRate(String);

impl MaxSampleRate {
    const PATH: &'static str = "/proc/sys/kernel/perf_event_max_sample_rate";

    fn set(hz: u64) -> Option<MaxSampleRate> {
        let before = std::fs::read_to_string(Self::PATH).ok()?;
        std::fs::write(Self::PATH, hz.to_string()).ok()?;
        Some(MaxSampleRate(before))
    }
}

impl Drop for MaxSampleRate {
    fn drop(&mut self) {
        let _ = std::fs::write(Self::PATH, self.0.trim());
    }
}

#[test]
fn the_default_frequency_is_lowered_to_the_kernels_limit() {
    if !require_collect("sched:sched_switch") {
        return;
    }
    // The kernel lowers its limit on its own under load; 1999 Hz is below the default
    // 4000 and above what the other tests ask (-F 999).
    let Some(_limit) = MaxSampleRate::set(1999) else {
        skip("cannot write kernel.perf_event_max_sample_rate");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collect.data");
    let out = collect(&["-e", "cpu-clock", "-d", "0.3", "-o", path_str(&path)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let evlist = integration_tests::perf_tool::perf_evlist(&path);
    evlist.assert_clean();
    assert!(
        evlist.stdout.contains("sample_freq }: 1999"),
        "{}",
        evlist.stdout
    );
    // Asked for above it: refused, naming it.
    let err = refused_with(
        2,
        &["-e", "cpu-clock", "-F", "4000"],
        &dir.path().join("never.data"),
        "1999 Hz here",
    );
    assert!(
        err.contains("sysctl -w kernel.perf_event_max_sample_rate=4000"),
        "{err}"
    );
}
