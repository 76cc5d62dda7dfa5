//! perf-collect side by side with `perf record` on the same workload and ring size: a tight
//! loop of `getppid` calls, recorded as `syscalls:sys_enter_getppid` on every CPU; or, with
//! `profile`, a profile of every CPU with call stacks (`-a -g -e cpu-clock`).
//!
//! ```sh
//! cargo build --release -p perf-collect --bins --examples
//! sudo target/release/examples/compare_perf_record [CALLS] [PAGES] [ROUNDS]
//! sudo target/release/examples/compare_perf_record profile [SECONDS] [ROUNDS]
//! ```
//!
//! For each recorder and round: start it on every CPU (no command; it is stopped with
//! SIGINT), give it a second to settle, run `perf-collect-loop getppid CALLS`, wait 0.2 s,
//! stop it. Then count the SAMPLE records and the LOST records' counts in its file, and
//! take its CPU time (user + system, from `getrusage` of the waited child). In each round
//! each recorder also runs once with no calls: that idle cost is subtracted, so the CPU per
//! event is what the events cost, not the start-up (both synthesize the running threads).
//! Prints a Markdown table: medians of the rounds, and the spread of the CPU per event.
//!
//! `profile`: every CPU is kept busy by a spinning `perf-collect-loop spin` per CPU, and
//! each recorder profiles every CPU (`-a -g -e cpu-clock`) at 999 Hz and at 10,000 Hz, the
//! kernel's ring of perf's default size (`-m 128`) for both. Each recorder runs twice per
//! round, stopped with SIGINT after 1 s and after 1 + SECONDS s: the difference of the two
//! runs' CPU over the difference of their samples is the CPU per sample, start-up and
//! shutdown (perf's synthesis and its build-id pass, perf-collect's) cancelling out. Lost
//! samples: the sum of the LOST and LOST_SAMPLES records of the longer run.
#![forbid(unsafe_code)]

use nix::sys::resource::{getrusage, UsageWho};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EVENT: &str = "syscalls:sys_enter_getppid";

/// CPU time of the children waited for so far.
fn children_cpu() -> Duration {
    let u = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    tv(u.user_time()) + tv(u.system_time())
}

/// SAMPLE records and the sum of LOST and LOST_SAMPLES counts of a file-mode perf.data.
fn count(path: &Path) -> (u64, u64) {
    let b = std::fs::read(path).expect("read the recording");
    let u64_at = |at: usize| u64::from_ne_bytes(b[at..at + 8].try_into().unwrap());
    let (offset, size) = (u64_at(40) as usize, u64_at(48) as usize);
    let (mut samples, mut lost) = (0, 0);
    let mut pos = offset;
    while pos + 8 <= offset + size {
        let rtype = u32::from_ne_bytes(b[pos..pos + 4].try_into().unwrap());
        let rsize = u16::from_ne_bytes(b[pos + 6..pos + 8].try_into().unwrap()) as usize;
        if rsize < 8 {
            break;
        }
        match rtype {
            9 => samples += 1,
            2 => lost += u64_at(pos + 16),
            13 => lost += u64_at(pos + 8),
            _ => {}
        }
        pos += rsize;
    }
    (samples, lost)
}

struct Run {
    samples: u64,
    lost: u64,
    cpu: Duration,
    workload: Duration,
}

fn run(recorder: &[String], out: &Path, loop_bin: &Path, calls: u64) -> Run {
    let mut child: Child = Command::new(&recorder[0])
        .args(&recorder[1..])
        .arg("-o")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the recorder");
    std::thread::sleep(Duration::from_secs(1));
    let before = children_cpu();
    let start = Instant::now();
    let status = Command::new(loop_bin)
        .args(["getppid", &calls.to_string()])
        .stderr(Stdio::null())
        .status()
        .expect("run the workload");
    let workload = start.elapsed();
    assert!(status.success());
    let after_workload = children_cpu();
    std::thread::sleep(Duration::from_millis(200));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    child.wait().expect("wait for the recorder");
    let cpu = children_cpu() - after_workload;
    let _ = before;
    let (samples, lost) = count(out);
    Run {
        samples,
        lost,
        cpu,
        workload,
    }
}

/// A recorder run for `window` (then SIGINT), its CPU time (user + system) and its file's
/// counts.
fn run_for(recorder: &[String], out: &Path, window: Duration) -> (Duration, u64, u64) {
    let before = children_cpu();
    let mut child: Child = Command::new(&recorder[0])
        .args(&recorder[1..])
        .arg("-o")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the recorder");
    std::thread::sleep(window);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    child.wait().expect("wait for the recorder");
    let cpu = children_cpu() - before;
    let (samples, lost) = count(out);
    (cpu, samples, lost)
}

/// One round of one recorder in the profile comparison.
#[derive(Clone, Copy)]
struct ProfileRound {
    /// CPU per sample, in ns.
    per_sample_ns: f64,
    /// Samples per second between the short and the long run.
    samples_per_second: f64,
    /// Lost samples of the long run.
    lost: u64,
    /// CPU of the long run.
    cpu: Duration,
}

/// The median of `f` over `rounds`.
fn median(rounds: &[ProfileRound], f: impl Fn(&ProfileRound) -> f64) -> f64 {
    let mut v: Vec<f64> = rounds.iter().map(f).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The profile comparison (see the module's documentation).
fn profile(args: &[String], collect: &Path, loop_bin: &Path) {
    let seconds: u64 = args.first().map_or(5, |a| a.parse().expect("SECONDS"));
    let rounds: usize = args.get(1).map_or(3, |a| a.parse().expect("ROUNDS"));
    let perf = std::env::var("PERF").unwrap_or_else(|_| "perf".into());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.data");
    // Spinners, one per CPU, for the whole comparison.
    let spin_ms = (rounds as u64 * 2 * 3 * (2 * (seconds + 2) + 2) * 1000).to_string();
    let mut spinners: Vec<Child> = (0..cpus)
        .map(|_| {
            Command::new(loop_bin)
                .args(["spin", &spin_ms])
                .stderr(Stdio::null())
                .spawn()
                .expect("start a spinner")
        })
        .collect();
    println!(
        "every CPU profiled with call stacks while {cpus} spinning loops keep the {cpus} CPUs busy; 128 pages per CPU; {seconds} s between the short and the long run, median of {rounds} rounds\n"
    );
    println!("| recorder | -F | samples per second | lost samples (long run) | recorder CPU (long run) | CPU per sample (min–max) |");
    println!("|---|---|---|---|---|---|");
    for freq in ["999", "10000"] {
        let common = ["-a", "-g", "-e", "cpu-clock", "-F", freq, "-m", "128"];
        let mut record = vec![perf.clone(), "record".into(), "-q".into()];
        record.extend(common.iter().map(|s| s.to_string()));
        let mut record_b = record.clone();
        record_b.push("-B".into());
        let mut ours = vec![collect.to_str().unwrap().to_string(), "-q".into()];
        ours.extend(common.iter().map(|s| s.to_string()));
        let recorders = [
            ("perf record -a -g", record),
            ("perf record -a -g -B", record_b),
            ("perf-collect -a -g", ours),
        ];
        let mut results: Vec<Vec<ProfileRound>> = vec![Vec::new(); recorders.len()];
        for _ in 0..rounds {
            for ((_, cmd), results) in recorders.iter().zip(&mut results) {
                let short = Duration::from_secs(1);
                let long = short + Duration::from_secs(seconds);
                let (cpu_s, samples_s, _) = run_for(cmd, &out, short);
                let (cpu_l, samples_l, lost_l) = run_for(cmd, &out, long);
                let samples = samples_l.saturating_sub(samples_s).max(1);
                results.push(ProfileRound {
                    per_sample_ns: cpu_l.saturating_sub(cpu_s).as_secs_f64() * 1e9 / samples as f64,
                    samples_per_second: samples as f64 / seconds as f64,
                    lost: lost_l,
                    cpu: cpu_l,
                });
            }
        }
        for ((name, _), results) in recorders.iter().zip(&results) {
            let mut per: Vec<f64> = results.iter().map(|r| r.per_sample_ns).collect();
            per.sort_by(f64::total_cmp);
            println!(
                "| {name} | {freq} | {:.0} | {:.0} | {:.0} ms | {:.2} µs ({:.2}–{:.2}) |",
                median(results, |r| r.samples_per_second),
                median(results, |r| r.lost as f64),
                median(results, |r| r.cpu.as_secs_f64() * 1e3),
                per[per.len() / 2] / 1e3,
                per[0] / 1e3,
                per[per.len() - 1] / 1e3,
            );
        }
    }
    for s in &mut spinners {
        let _ = s.kill();
        let _ = s.wait();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let exe = std::env::current_exe().unwrap();
    let release = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    if args.first().map(String::as_str) == Some("profile") {
        let (collect, loop_bin) = (
            release.join("perf-collect"),
            release.join("perf-collect-loop"),
        );
        return profile(&args[1..], &collect, &loop_bin);
    }
    let calls: u64 = args
        .first()
        .map_or(2_000_000, |a| a.parse().expect("CALLS"));
    let pages: String = args.get(1).cloned().unwrap_or_else(|| "128".into());
    let rounds: usize = args.get(2).map_or(3, |a| a.parse().expect("ROUNDS"));
    let collect: PathBuf = release.join("perf-collect");
    let loop_bin: PathBuf = release.join("perf-collect-loop");
    for bin in [&collect, &loop_bin] {
        assert!(
            bin.exists(),
            "{} missing: cargo build --release -p perf-collect --bins",
            bin.display()
        );
    }
    let perf = std::env::var("PERF").unwrap_or_else(|_| "perf".into());
    let dir = tempfile::tempdir().unwrap();
    let recorder = |extra: &[&str]| -> Vec<String> {
        let mut v = vec![collect.to_str().unwrap().to_string(), "-q".into()];
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend(["-m", &pages, "-e", EVENT].map(String::from));
        v
    };
    let recorders: [(&str, Vec<String>); 4] = [
        (
            "perf record -a",
            [&perf, "record", "-a", "-q", "-m", &pages, "-e", EVENT]
                .map(String::from)
                .to_vec(),
        ),
        (
            // Without the pass over the whole file for build-ids at the end.
            "perf record -a -B",
            [&perf, "record", "-a", "-B", "-q", "-m", &pages, "-e", EVENT]
                .map(String::from)
                .to_vec(),
        ),
        ("perf-collect", recorder(&[])),
        ("perf-collect --unchecked", recorder(&["--unchecked"])),
    ];
    println!(
        "{calls} getppid calls, {pages} pages per CPU, {} CPUs, median of {rounds} rounds (the recorders take turns)\n",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let out = dir.path().join("out.data");
    // Per recorder, the rounds' (loaded run, idle run): each round runs both, so that the
    // idle cost subtracted is of the same moment of the machine.
    let mut runs: Vec<Vec<(Run, Run)>> = recorders.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for ((_, cmd), runs) in recorders.iter().zip(&mut runs) {
            let idle = run(cmd, &out, &loop_bin, 0);
            runs.push((run(cmd, &out, &loop_bin, calls), idle));
        }
    }
    println!("| recorder | events recorded | recorded per second of the loop | lost (LOST records) | not in the file | recorder CPU (idle run) | CPU per recorded event (min–max) |");
    println!("|---|---|---|---|---|---|---|");
    let sorted = |mut v: Vec<f64>| -> Vec<f64> {
        v.sort_by(f64::total_cmp);
        v
    };
    for ((name, _), runs) in recorders.iter().zip(&runs) {
        let m = |f: &dyn Fn(&(Run, Run)) -> f64| {
            let v = sorted(runs.iter().map(f).collect());
            v[v.len() / 2]
        };
        let per_event = sorted(
            runs.iter()
                .map(|(r, idle)| {
                    r.cpu.saturating_sub(idle.cpu).as_secs_f64() * 1e9 / r.samples.max(1) as f64
                })
                .collect(),
        );
        println!(
            "| {name} | {:.0} | {:.2} M/s | {:.0} | {:.0} | {:.0} ms ({:.0} ms) | {:.0} ns ({:.0}–{:.0}) |",
            m(&|(r, _)| r.samples as f64),
            m(&|(r, _)| r.samples as f64 / r.workload.as_secs_f64() / 1e6),
            m(&|(r, _)| r.lost as f64),
            m(&|(r, _)| calls.saturating_sub(r.samples) as f64),
            m(&|(r, _)| r.cpu.as_secs_f64() * 1e3),
            m(&|(_, idle)| idle.cpu.as_secs_f64() * 1e3),
            per_event[per_event.len() / 2],
            per_event[0],
            per_event[per_event.len() - 1],
        );
    }
}
