//! A deterministic workload for perf-collect's tests and benchmark (it records nothing).
//!
//! `perf-collect-loop getppid N`: N getppid system calls. `perf-collect-loop fork N`: N
//! children (`/bin/true`), one after the other. `perf-collect-loop spin MS`: a busy loop of MS
//! milliseconds. Several may follow each other (`fork 10 spin 50`). Prints `pid PID` on
//! stderr first, so a caller recording every CPU can pick this process's events.
#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    eprintln!("pid {}", std::process::id());
    let mut it = args.chunks(2);
    for pair in &mut it {
        let [what, n] = pair else {
            usage();
        };
        let Ok(n) = n.parse::<u64>() else { usage() };
        match what.as_str() {
            "getppid" => {
                // getppid(2) each time (glibc does not cache it).
                let mut sum = 0u64;
                for _ in 0..n {
                    sum = sum.wrapping_add(u64::from(std::os::unix::process::parent_id()));
                }
                std::hint::black_box(sum);
            }
            "fork" => {
                for _ in 0..n {
                    // One clone (sched_process_fork in this process) per child.
                    let status = std::process::Command::new("/bin/true").status();
                    if !status.is_ok_and(|s| s.success()) {
                        eprintln!("perf-collect-loop: /bin/true failed");
                        std::process::exit(1);
                    }
                }
            }
            "spin" => {
                let end = Instant::now() + Duration::from_millis(n);
                let mut x = 0u64;
                while Instant::now() < end {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            }
            _ => usage(),
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: perf-collect-loop (getppid N | fork N | spin MS)...");
    std::process::exit(2);
}
