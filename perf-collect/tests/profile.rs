//! perf-collect as a profiler, against `perf record` on the same workload: a C program
//! built here with known hot functions and frame pointers, profiled by both, read by perf
//! 6.1 (`perf report`, `perf script`, `perf buildid-list`) and linux-perf-data.
//!
//! perf sees the test program and nothing else of the host: every run gets an empty `HOME`
//! and a `--symfs` holding only the program, copied at its absolute path
//! (`HostSymbols::Symfs`). Its functions are named from there; the host's libraries and
//! kernel stay `[unknown]`, and nothing is asserted about them but that the file says
//! where the kernel is.

mod support;

use integration_tests::fixtures::{FixtureContent, RawRecord};
use integration_tests::lpd;
use integration_tests::perf_tool::{
    require_perf_record, run_perf, run_perf_with_host, skip, HostSymbols, PerfOutput,
};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use support::*;

/// The profiled program. Each hot function calls `sink`, so that it has a frame of its
/// own (compilers omit the frame pointer of leaf functions); `spin_long` does three times the
/// work of `spin_short`, both called from `work`, called from `main`.
const PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink_value;

__attribute__((noinline)) void sink(unsigned long x) { sink_value = x; }

__attribute__((noinline)) unsigned long spin_short(unsigned long x) {
    for (int i = 0; i < 100000; i++) x = x * 6364136223846793005UL + 1;
    sink(x);
    return x;
}

__attribute__((noinline)) unsigned long spin_long(unsigned long x) {
    for (int i = 0; i < 300000; i++) x = x * 2862933555777941757UL + 3;
    sink(x);
    return x;
}

__attribute__((noinline)) unsigned long work(unsigned long x) {
    return spin_short(x) ^ spin_long(x);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* prog rounds N: N rounds of work. prog seconds S: rounds until S seconds have passed.
   Prints "pid PID" on stderr first. */
int main(int argc, char **argv) {
    if (argc != 3) return 2;
    fprintf(stderr, "pid %d\n", getpid());
    fflush(stderr);
    unsigned long s = 0;
    long n = atol(argv[2]);
    if (strcmp(argv[1], "rounds") == 0) {
        for (long i = 0; i < n; i++) s += work(i);
    } else {
        double end = now() + n;
        for (long i = 0; now() < end; i++) s += work(i);
    }
    printf("%lu\n", s);
    return 0;
}
"#;

/// The program's functions: the only names perf can give here.
const FUNCTIONS: [&str; 5] = ["spin_long", "spin_short", "work", "main", "sink"];

/// Sampling frequency of both recorders: about 4,000 samples for a second of work, so
/// that a share is known to a point or so.
const FREQ: &str = "4000";

/// Rounds of work of a profiled run (about a second).
const ROUNDS: &str = "2000";

/// The test program, built, and the symfs that holds only it.
struct Program {
    _dir: tempfile::TempDir,
    path: PathBuf,
    symfs: PathBuf,
}

impl Program {
    fn path(&self) -> &str {
        path_str(&self.path)
    }

    /// `perf ARGS` seeing only this program's symbols.
    fn perf(&self, args: &[&str]) -> PerfOutput {
        let host = HostSymbols::Symfs {
            dir: self.symfs.clone(),
        };
        run_perf_with_host(args, None, &host)
    }

    /// Starts `prog seconds S` and returns it once it runs, with its pid.
    fn start_for(&self, seconds: u32) -> (Child, u32) {
        let mut child = Command::new(&self.path)
            .args(["seconds", &seconds.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (child, workload_pid(&line))
    }
}

/// Root, perf 6.1, `perf record` and a C compiler (`cc`, the one Rust links with); builds
/// the program with frame pointers.
fn program() -> Option<Program> {
    if !is_root() {
        skip("perf-collect's profiles of every CPU need root: run the tests as root");
        return None;
    }
    if !require_perf_record() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("prog.c");
    let path = dir.path().join("prog");
    std::fs::write(&source, PROGRAM).unwrap();
    let cc = Command::new("cc")
        .args(["-O1", "-fno-omit-frame-pointer", "-Wl,--build-id", "-o"])
        .arg(&path)
        .arg(&source)
        .output();
    match cc {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!("cc failed: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => {
            skip(&format!("cc cannot run ({e}): the profiled program is C"));
            return None;
        }
    }
    // The symfs: the program at its absolute path below it.
    let symfs = dir.path().join("symfs");
    let copy = symfs.join(path.strip_prefix("/").unwrap());
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&path, &copy).unwrap();
    Some(Program {
        _dir: dir,
        path,
        symfs,
    })
}

/// `perf-collect -m RING_PAGES ARGS`, which must succeed; returns its stderr. Both
/// recorders get rings of 4 MiB per CPU: with `--call-graph dwarf` a sample is about 4 KiB,
/// and a busy machine must not make either lose any (perf report would warn of it).
fn collect_ok(args: &[&str]) -> String {
    let mut all = vec!["-m", RING_PAGES];
    all.extend_from_slice(args);
    let out = collect(&all);
    let err = stderr(&out);
    assert!(out.status.success(), "perf-collect {args:?}:\n{err}");
    assert!(!err.contains("refused"), "{err}");
    err
}

/// `perf record -q -m RING_PAGES ARGS`, which must succeed.
fn record_ok(args: &[&str]) {
    let mut all = vec!["record", "-q", "-m", RING_PAGES];
    all.extend_from_slice(args);
    run_perf(&all, None).assert_success();
}

/// How often each of the program's functions was sampled.
struct Profile {
    /// Samples per function, from `perf report --sort dso,sym -n` (no children: each
    /// sample counted at its own function).
    samples: BTreeMap<String, u64>,
    /// The program's samples: the host's libraries and kernel, whose share depends on
    /// what else the machine does, are left out.
    total: u64,
}

impl Profile {
    /// The share (%) of the program's samples taken in `function`.
    fn share(&self, function: &str) -> f64 {
        let n = self.samples.get(function).copied().unwrap_or(0);
        100.0 * n as f64 / self.total.max(1) as f64
    }

    /// The functions with at least 1% of the program's samples, most sampled first.
    fn top(&self) -> Vec<&str> {
        let mut v: Vec<&str> = FUNCTIONS
            .into_iter()
            .filter(|f| self.share(f) >= 1.0)
            .collect();
        v.sort_by(|a, b| self.share(b).total_cmp(&self.share(a)));
        v
    }
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} samples", self.total)?;
        for (function, n) in &self.samples {
            write!(f, ", {function} {n} ({:.2}%)", self.share(function))?;
        }
        Ok(())
    }
}

/// The profile of the program in `data`.
fn profile(program: &Program, data: &Path) -> Profile {
    let out = program.perf(&[
        "report",
        "--force",
        "--stdio",
        "--no-children",
        "-n",
        "-g",
        "none",
        "--sort",
        "dso,sym",
        "-i",
        path_str(data),
    ]);
    out.assert_clean();
    let mut samples = BTreeMap::new();
    for line in out.stdout.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [_, n, "prog", "[.]", sym] = words.as_slice() {
            *samples.entry(sym.to_string()).or_insert(0) += n.parse::<u64>().unwrap();
        }
    }
    let total = samples.values().sum();
    Profile { samples, total }
}

/// The two profiles name the same functions, in the same order, `spin_long` and
/// `spin_short` on top, and each function's share differs by no more than sampling
/// explains: 5 standard errors of the difference of two shares, plus a point.
fn assert_same_profile(ours: &Profile, theirs: &Profile) {
    assert!(
        ours.total >= 1000 && theirs.total >= 1000,
        "too few samples of the program: {ours:?} / {theirs:?}"
    );
    assert_eq!(
        ours.top(),
        theirs.top(),
        "perf-collect (left) and perf record: {ours:?} / {theirs:?}"
    );
    assert_eq!(
        ours.top()[..2],
        ["spin_long", "spin_short"],
        "{ours:?} / {theirs:?}"
    );
    let (n1, n2) = (ours.total as f64, theirs.total as f64);
    for f in FUNCTIONS {
        let (a, b) = (ours.share(f), theirs.share(f));
        let p = (a * n1 + b * n2) / (n1 + n2) / 100.0;
        let standard_error = 100.0 * (p * (1.0 - p) * (1.0 / n1 + 1.0 / n2)).sqrt();
        let tolerance = 5.0 * standard_error + 1.0;
        assert!(
            (a - b).abs() <= tolerance,
            "{f}: {a:.2}% against perf record's {b:.2}% (tolerance {tolerance:.2}): \
             {ours:?} / {theirs:?}"
        );
    }
}

/// The call stacks of `perf script -F ip,sym` (one per sample, innermost first), each
/// cut to the program's functions, and the share (%) of samples with each.
fn stacks(program: &Program, data: &Path) -> BTreeMap<Vec<String>, f64> {
    let out = program.perf(&[
        "script",
        "--force",
        "--no-inline",
        "-F",
        "ip,sym",
        "-i",
        path_str(data),
    ]);
    out.assert_clean();
    let mut counts: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    let mut total = 0;
    for block in out.stdout.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let stack: Vec<String> = block
            .lines()
            .filter_map(|l| l.split_whitespace().nth(1))
            .filter(|sym| FUNCTIONS.contains(sym))
            .map(str::to_string)
            .collect();
        total += 1;
        *counts.entry(stack).or_insert(0) += 1;
    }
    counts
        .into_iter()
        .map(|(s, n)| (s, n as f64 * 100.0 / total.max(1) as f64))
        .collect()
}

/// The stacks of at least 5% of the samples are the same in both, and the hot functions
/// are named through `work` up to `main`.
fn assert_same_stacks(ours: &BTreeMap<Vec<String>, f64>, theirs: &BTreeMap<Vec<String>, f64>) {
    let common = |s: &BTreeMap<Vec<String>, f64>| -> BTreeSet<Vec<String>> {
        s.iter()
            .filter(|(_, &p)| p >= 5.0)
            .map(|(s, _)| s.clone())
            .collect()
    };
    assert_eq!(
        common(ours),
        common(theirs),
        "perf-collect (left) and perf record: {ours:?} / {theirs:?}"
    );
    for hot in ["spin_long", "spin_short"] {
        let full = [hot, "work", "main"].map(String::from).to_vec();
        assert!(
            ours.get(&full).is_some_and(|&p| p >= 5.0),
            "{full:?} in {ours:?}"
        );
    }
}

/// `perf buildid-list` lines as (path, build id).
fn build_ids(program: &Program, data: &Path) -> BTreeMap<String, String> {
    let out = program.perf(&["buildid-list", "--force", "-i", path_str(data)]);
    out.assert_clean();
    out.stdout
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(id, path)| (path.to_string(), id.to_string()))
        .collect()
}

/// The kernel's MMAP record (`[kernel.kallsyms]_text`, pid -1) as linux-perf-data reads
/// it: `(addr, len, pgoff)`; and every record read without a parse error.
fn kernel_map(data: &Path) -> Option<(u64, u64, u64)> {
    let summary = lpd::read_file(&std::fs::read(data).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
    let u64_at = |p: &[u8], at: usize| u64::from_ne_bytes(p[at..at + 8].try_into().unwrap());
    summary
        .records
        .iter()
        .filter(|r| r.record_type == 1)
        .find(|r| {
            r.payload[..4] == [0xff; 4] && r.payload[32..].starts_with(b"[kernel.kallsyms]_text\0")
        })
        .map(|r| {
            (
                u64_at(&r.payload, 8),
                u64_at(&r.payload, 16),
                u64_at(&r.payload, 24),
            )
        })
}

/// Record types, as perf numbers them.
const MMAP: u32 = 1;
const COMM: u32 = 3;
const EXIT: u32 = 4;
const FORK: u32 = 7;
const MMAP2: u32 = 10;
const FINISHED_INIT: u32 = 82;
/// `misc` of a COMM record written at an exec.
const MISC_COMM_EXEC: u16 = 0x2000;

/// The records of a file in stored order, split at its one FINISHED_INIT: what was
/// synthesized before it and what came after.
fn split_at_finished_init(data: &Path) -> (Vec<RawRecord>, Vec<RawRecord>) {
    let content = FixtureContent::from_path(data).unwrap();
    let records = content.records;
    let at: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].record_type == FINISHED_INIT)
        .collect();
    assert_eq!(at.len(), 1, "FINISHED_INIT records at {at:?}");
    let mut before = records;
    let after = before.split_off(at[0] + 1);
    before.pop();
    (before, after)
}

/// A record's `u32` at `at` of its body (after the 8-byte header).
fn u32_at(body: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(body[at..at + 4].try_into().unwrap())
}

/// The NUL-terminated string at `at` of a record's body.
fn c_str_at(body: &[u8], at: usize) -> &[u8] {
    let s = &body[at..];
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// The path of an MMAP2 record's body (after pid, tid, addr, len, pgoff, the 24 bytes of
/// device and inode or build id, prot and flags).
fn mmap2_path(body: &[u8]) -> &[u8] {
    c_str_at(body, 64)
}

#[test]
fn a_profile_names_the_functions_perf_record_names() {
    let Some(program) = program() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("collect.data");
    let theirs = dir.path().join("record.data");
    // The workflow a perf user knows: no event named (cpu-clock), -g, the command.
    collect_ok(&[
        "-q",
        "-F",
        FREQ,
        "-g",
        "-o",
        path_str(&ours),
        "--",
        program.path(),
        "rounds",
        ROUNDS,
    ]);
    record_ok(&[
        "-F",
        FREQ,
        "-g",
        "-o",
        path_str(&theirs),
        "--",
        program.path(),
        "rounds",
        ROUNDS,
    ]);

    assert_same_profile(&profile(&program, &ours), &profile(&program, &theirs));
    assert_same_stacks(&stacks(&program, &ours), &stacks(&program, &theirs));

    // The program's build id is the one perf record found.
    let (our_ids, their_ids) = (build_ids(&program, &ours), build_ids(&program, &theirs));
    let id = their_ids
        .get(program.path())
        .expect("perf record's build id of the program");
    assert_eq!(our_ids.get(program.path()), Some(id), "{our_ids:?}");

    // The kernel's map, where perf record puts it.
    let map = kernel_map(&ours).expect("a kernel MMAP in perf-collect's file");
    assert_eq!(Some(map), kernel_map(&theirs));
    let mmaps = program.perf(&[
        "script",
        "--force",
        "--show-mmap-events",
        "-i",
        path_str(&ours),
    ]);
    mmaps.assert_clean();
    assert!(
        mmaps.stdout.contains("PERF_RECORD_MMAP -1/0: [0x")
            && mmaps.stdout.contains(" [kernel.kallsyms]_text"),
        "{}",
        mmaps.describe()
    );
    // linux-perf-data reads the call chains.
    let summary = lpd::read_file(&std::fs::read(&ours).unwrap()).unwrap();
    let chains = summary
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref()?.callchain.as_ref())
        .filter(|c| c.len() >= 3)
        .count();
    assert!(chains > 100, "{chains} call chains");
}

#[test]
fn the_state_comes_before_finished_init_and_the_kernel_tells_the_rest() {
    let Some(program) = program() else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("collect.data");
    // A shell that starts the program in a child: the kernel's FORK, COMM (the exec) and
    // EXIT records of the child are what names it.
    let script = format!("{} rounds 300 & wait", program.path());
    let err = collect_ok(&[
        "-q",
        "-F",
        FREQ,
        "-o",
        path_str(&data),
        "--",
        "/bin/sh",
        "-c",
        &script,
    ]);
    let pid = workload_pid(&err);

    // Stored order: the kernel's map, synthesized, then FINISHED_INIT, then what the kernel
    // wrote.
    let (before, after) = split_at_finished_init(&data);
    let types: BTreeSet<u32> = before.iter().map(|r| r.record_type).collect();
    assert!(
        types.is_subset(&BTreeSet::from([MMAP, COMM, MMAP2])),
        "before FINISHED_INIT: {types:?}"
    );
    let kernel_map = |r: &&RawRecord| {
        r.record_type == MMAP
            && u32_at(r.payload(), 0) == u32::MAX
            && c_str_at(r.payload(), 32) == b"[kernel.kallsyms]_text"
    };
    assert_eq!(before.iter().filter(kernel_map).count(), 1);
    assert_eq!(after.iter().filter(kernel_map).count(), 0);
    let fork = after
        .iter()
        .find(|r| r.record_type == FORK && u32_at(r.payload(), 0) == pid)
        .expect("the kernel's FORK of the program");
    let shell = u32_at(fork.payload(), 4);
    assert_ne!(shell, pid);
    let exec = |of: u32, name: &[u8]| {
        after.iter().any(|r| {
            r.record_type == COMM
                && r.misc & MISC_COMM_EXEC != 0
                && u32_at(r.payload(), 0) == of
                && c_str_at(r.payload(), 8) == name
        })
    };
    assert!(exec(shell, b"sh") && exec(pid, b"prog"));
    assert!(after.iter().any(|r| r.record_type == MMAP2
        && u32_at(r.payload(), 0) == pid
        && mmap2_path(r.payload()) == program.path().as_bytes()));
    for of in [pid, shell] {
        assert!(
            after
                .iter()
                .any(|r| r.record_type == EXIT && u32_at(r.payload(), 0) == of),
            "no EXIT of {of}"
        );
    }

    // linux-perf-data reads them, in time order: the fork, the exec, the exit.
    let summary = lpd::read_file(&std::fs::read(&data).unwrap()).unwrap();
    assert!(summary.records_with_parse_errors().is_empty());
    let time_of = |record_type: u32| {
        let found: Vec<u64> = summary
            .records
            .iter()
            .filter(|r| r.record_type == record_type && u32_at(&r.payload, 0) == pid)
            .filter(|r| record_type != COMM || c_str_at(&r.payload, 8) == b"prog")
            .filter_map(|r| r.timestamp)
            .collect();
        assert_eq!(found.len(), 1, "type {record_type} of {pid}: {found:?}");
        found[0]
    };
    let (forked, named, exited) = (time_of(FORK), time_of(COMM), time_of(EXIT));
    assert!(
        forked <= named && named <= exited,
        "{forked} {named} {exited}"
    );

    // perf reads them: the program's thread is named, and its samples too.
    let tasks = program.perf(&[
        "script",
        "--force",
        "--show-task-events",
        "-F",
        "comm,pid",
        "-i",
        path_str(&data),
    ]);
    tasks.assert_clean();
    for line in [
        format!("PERF_RECORD_FORK({pid}:{pid}):({shell}:{shell})"),
        format!("PERF_RECORD_COMM exec: prog:{pid}/{pid}"),
        format!("PERF_RECORD_EXIT({pid}:{pid}):({shell}:{shell})"),
    ] {
        assert!(tasks.stdout.contains(&line), "{line}\n{}", tasks.describe());
    }
    let profile = profile(&program, &data);
    assert!(profile.share("spin_long") > 50.0, "{profile:?}");
}

#[test]
fn dwarf_call_stacks_unwind_as_perf_records_do() {
    let Some(program) = program() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("collect.data");
    let theirs = dir.path().join("record.data");
    let graph = ["--call-graph", "dwarf,4096"];
    let mut args = vec!["-q", "-F", FREQ, "-o", path_str(&ours)];
    args.extend(graph);
    args.extend(["--", program.path(), "rounds", ROUNDS]);
    collect_ok(&args);
    let mut args = vec!["-F", FREQ, "-o", path_str(&theirs)];
    args.extend(graph);
    args.extend(["--", program.path(), "rounds", ROUNDS]);
    record_ok(&args);
    assert_same_profile(&profile(&program, &ours), &profile(&program, &theirs));
    assert_same_stacks(&stacks(&program, &ours), &stacks(&program, &theirs));
    // The user registers and stack, as linux-perf-data reads them.
    let summary = lpd::read_file(&std::fs::read(&ours).unwrap()).unwrap();
    let dumps = summary
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref())
        .filter(|s| s.user_regs.as_ref().is_some_and(|r| !r.is_empty()))
        .filter(|s| {
            s.user_stack
                .as_ref()
                .is_some_and(|(stack, _)| stack.len() == 4096)
        })
        .count();
    assert!(dumps > 100, "{dumps} samples with user registers and stack");
}

#[test]
fn a_process_started_before_the_recording_is_named_too() {
    let Some(program) = program() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("collect.data");
    let theirs = dir.path().join("record.data");
    let (mut child, pid) = program.start_for(30);
    let pid_text = pid.to_string();
    // -p: its mappings come from /proc, as perf record synthesizes them.
    let err = collect_ok(&[
        "-F",
        FREQ,
        "-g",
        "-p",
        &pid_text,
        "-d",
        "1",
        "-o",
        path_str(&ours),
    ]);
    assert!(err.contains("stopped: the duration passed"), "{err}");
    record_ok(&[
        "-F",
        FREQ,
        "-g",
        "-p",
        &pid_text,
        "-o",
        path_str(&theirs),
        "--",
        "sleep",
        "1",
    ]);
    // -t, the same thread.
    let by_tid = dir.path().join("tid.data");
    collect_ok(&[
        "-q",
        "-F",
        FREQ,
        "-t",
        &pid_text,
        "-d",
        "0.5",
        "-o",
        path_str(&by_tid),
    ]);
    // -a: every CPU, the program among what runs.
    let all = dir.path().join("all.data");
    collect_ok(&["-q", "-a", "-F", FREQ, "-d", "0.5", "-o", path_str(&all)]);
    // -C 0: every task on CPU 0 only.
    let cpu0 = dir.path().join("cpu0.data");
    collect_ok(&[
        "-q",
        "-C",
        "0",
        "-F",
        FREQ,
        "-d",
        "0.5",
        "-o",
        path_str(&cpu0),
    ]);
    child.kill().unwrap();
    child.wait().unwrap();

    assert_same_profile(&profile(&program, &ours), &profile(&program, &theirs));
    assert_same_stacks(&stacks(&program, &ours), &stacks(&program, &theirs));
    assert_eq!(
        build_ids(&program, &ours).get(program.path()),
        build_ids(&program, &theirs).get(program.path())
    );
    assert!(kernel_map(&ours).is_some());
    // Its name and mappings were synthesized from /proc, before FINISHED_INIT.
    let (before, _) = split_at_finished_init(&ours);
    assert!(before.iter().any(|r| r.record_type == COMM
        && u32_at(r.payload(), 0) == pid
        && c_str_at(r.payload(), 8) == b"prog"));
    assert!(before.iter().any(|r| r.record_type == MMAP2
        && u32_at(r.payload(), 0) == pid
        && mmap2_path(r.payload()) == program.path().as_bytes()));

    let tids = program.perf(&[
        "script",
        "--force",
        "-F",
        "pid,tid",
        "-i",
        path_str(&by_tid),
    ]);
    tids.assert_clean();
    let lines: Vec<&str> = tids.stdout.lines().collect();
    assert!(lines.len() > 100, "{}", tids.describe());
    assert!(
        lines.iter().all(|l| l
            .split(['/', ' '])
            .filter(|w| !w.is_empty())
            .all(|w| w == pid_text)),
        "{}",
        tids.describe()
    );
    let profile = profile(&program, &by_tid);
    assert!(profile.share("spin_long") > 50.0, "{profile:?}");

    let everyone = program.perf(&[
        "report",
        "--force",
        "--stdio",
        "--no-children",
        "--sort",
        "pid,sym",
        "-i",
        path_str(&all),
    ]);
    everyone.assert_clean();
    assert!(
        everyone
            .stdout
            .lines()
            .any(|l| l.contains(&format!("{pid}:prog")) && l.contains("spin_long")),
        "{}",
        everyone.describe()
    );
    let cpus = program.perf(&["script", "--force", "-F", "cpu", "-i", path_str(&cpu0)]);
    cpus.assert_clean();
    assert!(!cpus.stdout.trim().is_empty(), "{}", cpus.describe());
    assert!(
        cpus.stdout.lines().all(|l| l.trim() == "[000]"),
        "{}",
        cpus.describe()
    );
}

#[test]
fn recording_processes_that_exit_stops_and_a_missing_one_is_refused() {
    let Some(program) = program() else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("collect.data");
    // Three seconds: time enough for perf-collect to start on a busy machine before the
    // program exits (it then refuses a process that is gone, as below).
    let (mut child, pid) = program.start_for(3);
    let err = collect_ok(&["-F", FREQ, "-p", &pid.to_string(), "-o", path_str(&data)]);
    child.wait().unwrap();
    assert!(err.contains("stopped: the recorded tasks exited"), "{err}");
    let profile = profile(&program, &data);
    assert!(profile.share("spin_long") > 50.0, "{profile:?}");
    // The program has exited and been reaped: no such process.
    let never = dir.path().join("never.data");
    refused_with(2, &["-p", &pid.to_string()], &never, "no such process");
    refused_with(2, &["-p", &pid.to_string(), "-a"], &never, "do not combine");
}
