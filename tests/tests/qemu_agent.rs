//! The encoder on a microcontroller: `embedded/qemu-agent` (a `no_std`, no-heap Cortex-M3
//! firmware) runs under `qemu-system-arm -machine lm3s6965evb`, streams pipe-mode perf.data
//! to a host file over semihosting, and perf 6.1 and linux-perf-data 0.13 must read back
//! exactly what its model (below, mirroring `embedded/qemu-agent/src/agent.rs`) says it
//! wrote. A run counts only when QEMU exits 0 after the agent printed `agent: done` and the
//! stream's byte count: an encoder error, a full buffer or a panic is a failed run, never a
//! partial stream that passes.
//!
//! Needs `qemu-system-arm` and the `thumbv7m-none-eabi` Rust target; installs neither
//! (`.ci/run` does). Without them the tests skip with the reason, and fail in CI.
//!
//! The firmware is built by cargo with its own target directory
//! (`embedded/qemu-agent/target`), so it never waits on the lock of the outer `cargo test`.

use integration_tests::perf_tool::{perf_script_stdin_with, require_perf, script_lines, skip};
use integration_tests::{lpd, Endian};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const TARGET: &str = "thumbv7m-none-eabi";
const QEMU: &str = "qemu-system-arm";
/// A whole run takes well under a second; the build before the first one takes about a
/// minute on a cold cache (it is not under this timeout).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

// ---- The model: what the firmware records (src/agent.rs). ----

const TICKS: u32 = 300;
const TICK_NS: u64 = 1_000_000;
const EVENT_EVERY: u32 = 10;
const CLOCK_ID: u64 = 1;
const EVENT_ID: u64 = 2;
const TRACEPOINT_ID: u16 = 1000;
/// (tid, name)
const TASKS: [(u32, &str); 3] = [(1, "sensor"), (2, "radio"), (3, "logger")];

fn task_at(tick: u32) -> (u32, &'static str) {
    TASKS[(tick / 2 % 3) as usize]
}

fn tick_time(tick: u32) -> u64 {
    u64::from(tick + 1) * TICK_NS
}

/// (channel, millidegrees, sensor) of device event `n`.
fn reading(n: u32) -> (u32, i32, String) {
    let channel = n % 4;
    (
        channel,
        (n % 7) as i32 * 1500 - 4000,
        format!("temp{channel}"),
    )
}

/// One expected SAMPLE.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    id: u64,
    tid: u32,
    comm: &'static str,
    time: u64,
    period: u64,
    /// For the device event: channel, millidegrees, sensor.
    event: Option<(u32, i32, String)>,
}

fn expected_samples() -> Vec<Expected> {
    let mut v = Vec::new();
    for tick in 0..TICKS {
        let (tid, comm) = task_at(tick);
        v.push(Expected {
            id: CLOCK_ID,
            tid,
            comm,
            time: tick_time(tick),
            period: TICK_NS,
            event: None,
        });
        if tick % EVENT_EVERY == 0 {
            v.push(Expected {
                id: EVENT_ID,
                tid: 1,
                comm: "sensor",
                time: tick_time(tick) + TICK_NS / 2,
                period: 1,
                event: Some(reading(tick / EVENT_EVERY)),
            });
        }
    }
    v
}

// ---- Building and running the firmware. ----

fn firmware_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../embedded/qemu-agent")
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// True when QEMU and the Rust target are here; otherwise [`skip`]s naming what is missing.
fn require_toolchain() -> bool {
    let qemu = Command::new(QEMU)
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    if !qemu.is_ok_and(|o| o.status.success()) {
        return skip(&format!(
            "{QEMU} not found (apt-get install qemu-system-arm; .ci/run installs it)"
        ));
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .current_dir(firmware_dir())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let has_core = libdir
        .and_then(|d| std::fs::read_dir(d).ok())
        .is_some_and(|mut d| {
            d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libcore-")))
        });
    if !has_core {
        return skip(&format!(
            "the Rust target {TARGET} is not installed (rustup target add {TARGET}; .ci/run does)"
        ));
    }
    true
}

/// Builds the firmware once per test process (release, its own target directory); returns
/// the ELF.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        let dir = firmware_dir();
        let target_dir = dir.join("target");
        let out = Command::new(cargo())
            .args(["build", "--release", "--locked", "--quiet"])
            .current_dir(&dir)
            // The firmware's .cargo/config.toml gives the target and linker script; flags
            // from the outer build would replace them.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET")
            .env("CARGO_TARGET_DIR", &target_dir)
            .stdin(Stdio::null())
            .output()
            .expect("run cargo build for the firmware");
        assert!(
            out.status.success(),
            "firmware build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let elf = target_dir.join(TARGET).join("release/qemu-agent");
        assert!(elf.is_file(), "no firmware at {}", elf.display());
        elf
    })
}

/// What one QEMU run left.
struct Run {
    status: ExitStatus,
    /// QEMU's stdout and stderr (the agent's console lines among them).
    console: String,
    /// The stream file, as far as it was written.
    data: Vec<u8>,
}

impl Run {
    /// The `agent: KEY...` lines' `name=value` pairs, by the line's first word.
    fn figures(&self, key: &str) -> BTreeMap<String, String> {
        let prefix = format!("agent: {key} ");
        self.console
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .flat_map(|rest| rest.split_whitespace())
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn figure(&self, key: &str, name: &str) -> u64 {
        let f = self.figures(key);
        let v = f
            .get(name)
            .unwrap_or_else(|| panic!("no `{key} {name}=` line:\n{}", self.console));
        v.parse()
            .unwrap_or_else(|_| panic!("`{key} {name}={v}` is not a number"))
    }

    /// The stream, if the run was a success: QEMU exited 0, the agent printed `done`, and
    /// the file holds the bytes it says it wrote. Anything else is `Err` with why.
    fn stream(&self) -> Result<&[u8], String> {
        if !self.status.success() {
            return Err(format!("QEMU exited with {}", self.status));
        }
        if !self.console.lines().any(|l| l == "agent: done") {
            return Err("the agent did not report done".into());
        }
        let said = self
            .figures("stream")
            .get("bytes")
            .and_then(|b| b.parse::<usize>().ok())
            .ok_or("no stream byte count")?;
        if said != self.data.len() {
            return Err(format!(
                "the agent wrote {said} bytes, the file has {}",
                self.data.len()
            ));
        }
        Ok(&self.data)
    }

    fn task_ips(&self) -> BTreeMap<u32, u64> {
        self.console
            .lines()
            .filter_map(|l| l.strip_prefix("agent: task "))
            .map(|rest| {
                let w: Vec<&str> = rest.split_whitespace().collect();
                let tid = w[0].parse().expect("tid");
                let ip = w[2].strip_prefix("ip=0x").expect("ip=");
                (tid, u64::from_str_radix(ip, 16).expect("hex ip"))
            })
            .collect()
    }
}

/// Runs the firmware under QEMU (`-icount shift=0`: one instruction per virtual ns), with
/// `fault` as its second argument; kills QEMU after [`RUN_TIMEOUT`].
fn run_agent(fault: Option<&str>) -> Run {
    let elf = firmware();
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("agent.data");
    let mut semihosting = format!(
        "enable=on,target=native,arg=qemu-agent,arg={}",
        out.to_str().expect("UTF-8 temp path")
    );
    assert!(
        !semihosting.contains(' '),
        "spaces split the semihosting command line"
    );
    if let Some(f) = fault {
        semihosting.push_str(",arg=");
        semihosting.push_str(f);
    }
    let mut child = Command::new(QEMU)
        .args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb"])
        .args(["-display", "none", "-monitor", "none", "-serial", "none"])
        .args(["-icount", "shift=0"])
        .args(["-semihosting-config", &semihosting])
        .arg("-kernel")
        .arg(elf)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qemu-system-arm");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for qemu") {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the agent did not finish within {RUN_TIMEOUT:?} (QEMU killed)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let console =
        out_thread.join().expect("stdout reader") + &err_thread.join().expect("stderr reader");
    let data = std::fs::read(&out).unwrap_or_default();
    Run {
        status,
        console,
        data,
    }
}

// ---- The tests. ----

/// The expected `perf script` line of a sample (fields space-separated).
fn script_line(s: &Expected, ips: &BTreeMap<u32, u64>) -> String {
    let ip = ips[&s.tid];
    let time = format!("{}.{:09}:", s.time / 1_000_000_000, s.time % 1_000_000_000);
    match &s.event {
        None => format!(
            "{} {} [000] {time} {} cpu-clock:HG: {ip:x}",
            s.comm, s.tid, s.period
        ),
        Some((channel, milli, sensor)) => format!(
            "{} {} [000] {time} {} device:sensor_read: sensor={sensor} channel={channel} millidegrees={milli} {ip:x}",
            s.comm, s.tid, s.period
        ),
    }
}

/// The expected RAW payload of a device event (little-endian, as the Cortex-M3 writes it).
fn raw_payload(tid: u32, (channel, milli, sensor): &(u32, i32, String)) -> Vec<u8> {
    let mut raw = Vec::new();
    raw.extend_from_slice(&TRACEPOINT_ID.to_le_bytes());
    raw.extend_from_slice(&[0, 0]);
    raw.extend_from_slice(&tid.to_le_bytes());
    raw.extend_from_slice(&channel.to_le_bytes());
    raw.extend_from_slice(&milli.to_le_bytes());
    let mut name = [0u8; 8];
    name[..sensor.len()].copy_from_slice(sensor.as_bytes());
    raw.extend_from_slice(&name);
    // RAW is padded so that `u32 size` + data ends 8-aligned: 4 + 24 -> 32.
    raw.extend_from_slice(&[0; 4]);
    raw
}

#[test]
fn agent_stream_reads_back_in_perf_and_linux_perf_data() {
    if !require_toolchain() || !require_perf() {
        return;
    }
    let run = run_agent(None);
    let stream = run
        .stream()
        .unwrap_or_else(|e| panic!("{e}; console:\n{}", run.console));
    let ips = run.task_ips();
    assert_eq!(ips.keys().copied().collect::<Vec<_>>(), vec![1, 2, 3]);
    let flash = run.figure("image", "flash");
    for ip in ips.values() {
        assert!(*ip > 0 && *ip < flash, "task ip {ip:#x} outside the image");
    }
    // What the agent measured on itself (BENCHMARKS.md, "The encoder on a microcontroller"),
    // held under ceilings a little above today's figures, so that growth is noticed; the
    // ceiling of the peak stack is the agent's budget of 1 KiB (and of flash, 32 KiB).
    let ceilings = [
        ("image", "flash", 31 * 1024),
        ("image", "static_ram", 1408),
        ("stack", "sample_push", 288),
        ("stack", "agent_run", 832),
        ("stack", "peak", 1024),
        ("cost", "sample_push_instructions_x10", 4_800),
    ];
    for (key, name, max) in ceilings {
        let v = run.figure(key, name);
        assert!(v > 0 && v <= max, "{key} {name}={v}, over {max}");
    }
    let expected = expected_samples();
    assert_eq!(run.figure("stream", "samples"), expected.len() as u64);
    assert!(
        run.figure("stream", "flushes") > 5,
        "the buffer must have filled and been flushed several times"
    );
    assert_eq!(&stream[..8], b"PERFILE2");

    // perf 6.1, from stdin, every sample with its fields and the event's by name.
    let out = perf_script_stdin_with(
        stream,
        &[
            "--ns",
            "-F",
            "sw:comm,tid,cpu,time,period,event,ip",
            "-F",
            "trace:comm,tid,cpu,time,period,event,ip,trace",
        ],
    );
    out.assert_clean();
    let got: Vec<String> = script_lines(&out)
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let want: Vec<String> = expected.iter().map(|s| script_line(s, &ips)).collect();
    assert_eq!(got.len(), want.len(), "perf script:\n{}", out.stdout);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }

    // linux-perf-data 0.13: attrs, COMM names, every SAMPLE field and the RAW bytes.
    let summary = lpd::read_pipe_without_tracing_payload(stream).expect("linux-perf-data");
    assert_eq!(summary.endian, Endian::Little);
    assert_eq!(summary.attrs.len(), 2);
    assert_eq!(summary.attrs[0].ids, vec![CLOCK_ID]);
    assert_eq!(summary.attrs[1].ids, vec![EVENT_ID]);
    assert_eq!(summary.attrs[1].attr_type, 2);
    assert_eq!(summary.attrs[1].config, Some(u64::from(TRACEPOINT_ID)));
    assert_eq!(summary.hostname.as_deref(), Some("qemu-lm3s6965evb"));
    assert_eq!(summary.arch.as_deref(), Some("armv7m"));
    assert!(
        summary.feature_errors.is_empty(),
        "{:?}",
        summary.feature_errors
    );
    assert!(summary.records_with_parse_errors().is_empty());
    let comms: Vec<(u32, u32, String)> = summary
        .records
        .iter()
        .filter(|r| r.record_type == 3)
        .map(|r| {
            let p = &r.payload;
            let pid = u32::from_le_bytes(p[0..4].try_into().unwrap());
            let tid = u32::from_le_bytes(p[4..8].try_into().unwrap());
            let name = p[8..].split(|&b| b == 0).next().unwrap();
            (pid, tid, String::from_utf8_lossy(name).into_owned())
        })
        .collect();
    let want_comms: Vec<(u32, u32, String)> =
        TASKS.iter().map(|&(t, n)| (t, t, n.to_string())).collect();
    assert_eq!(comms, want_comms);
    let samples: Vec<_> = summary
        .records
        .iter()
        .filter(|r| r.record_type == 9)
        .map(|r| r.sample.clone().expect("a parsed sample"))
        .collect();
    assert_eq!(samples.len(), expected.len());
    for (s, w) in samples.iter().zip(&expected) {
        assert_eq!(s.id, Some(w.id));
        assert_eq!(s.ip, Some(ips[&w.tid]));
        assert_eq!((s.pid, s.tid), (Some(w.tid as i32), Some(w.tid as i32)));
        assert_eq!(s.time, Some(w.time));
        assert_eq!(s.cpu, Some(0));
        assert_eq!(s.period, Some(w.period));
        assert_eq!(s.raw, w.event.as_ref().map(|e| raw_payload(w.tid, e)));
    }
}

/// Each injected fault makes QEMU exit 1 with the agent's reason on the console, and the
/// harness refuses whatever stream the agent had flushed by then.
#[test]
fn agent_failures_fail_the_run() {
    if !require_toolchain() {
        return;
    }
    let cases = [
        // 256 bytes cannot hold the tracing data record, even after a flush.
        ("tiny-buffer", "agent: error encoder: buffer too small"),
        // A device event without the RAW payload its attr has.
        (
            "missing-raw",
            "agent: error encoder: missing field SAMPLE.raw",
        ),
        ("panic", "agent: panic at src/agent.rs:"),
        // An undefined instruction: the HardFault handler ends the run (no hang).
        ("hard-fault", "agent: hard fault at pc=0x"),
    ];
    for (fault, message) in cases {
        let run = run_agent(Some(fault));
        assert_eq!(run.status.code(), Some(1), "{fault}: {}", run.console);
        assert!(
            run.console.contains(message),
            "{fault}: no `{message}` in:\n{}",
            run.console
        );
        assert!(run.stream().is_err(), "{fault}: the stream was accepted");
    }
    // The missing-raw run had flushed a partial stream before it stopped: refused anyway.
    let run = run_agent(Some("missing-raw"));
    assert!(!run.data.is_empty(), "missing-raw stops after a flush");
}
