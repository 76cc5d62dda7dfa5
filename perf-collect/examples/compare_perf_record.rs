//! perf-collect side by side with `perf record` on the same workload and ring size: a tight
//! loop of `getppid` calls, recorded as `syscalls:sys_enter_getppid` on every CPU.
//!
//! ```sh
//! cargo build --release -p perf-collect --bins --examples
//! sudo target/release/examples/compare_perf_record [CALLS] [PAGES] [ROUNDS]
//! ```
//!
//! For each recorder and round: start it on every CPU (no command; it is stopped with
//! SIGINT), give it a second to settle, run `perf-collect-loop getppid CALLS`, wait 0.2 s,
//! stop it. Then count the SAMPLE records and the LOST records' counts in its file, and
//! take its CPU time (user + system, from `getrusage` of the waited child). In each round
//! each recorder also runs once with no calls: that idle cost is subtracted, so the CPU per
//! event is what the events cost, not the start-up (both synthesize the running threads).
//! Prints a Markdown table: medians of the rounds, and the spread of the CPU per event.
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

/// SAMPLE records and the sum of LOST counts of a file-mode perf.data.
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let calls: u64 = args
        .first()
        .map_or(2_000_000, |a| a.parse().expect("CALLS"));
    let pages: String = args.get(1).cloned().unwrap_or_else(|| "128".into());
    let rounds: usize = args.get(2).map_or(3, |a| a.parse().expect("ROUNDS"));
    let exe = std::env::current_exe().unwrap();
    let release = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
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
