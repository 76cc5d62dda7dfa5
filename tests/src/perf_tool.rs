//! Running the real `perf` binary (Debian's perf 6.1, `/usr/bin/perf`) and parsing what it prints.
//!
//! Every runner passes `--force` (`-f`): perf refuses a file that is owned by neither root
//! nor the current user ("File X not owned by current user or root (use -f to override)",
//! exit 255); `--force` only skips that ownership check. `perf script` also gets
//! `--no-inline` (no addr2line look-ups of inlined frames: faster, and the same on both sides
//! of a comparison).
//!
//! perf runs with `LC_ALL=C`, `PERF_PAGER=cat` and `PERF_CONFIG=/dev/null` (a user's
//! `~/.perfconfig` cannot change the output), stdin closed unless bytes are fed, and a
//! timeout (`PERF_HARNESS_TIMEOUT_SECS`, default 120 s) after which it is killed and the
//! test panics.
//!
//! **perf sees nothing of the host's symbols** ([`HostSymbols::Hidden`], every runner here):
//! each run gets a new empty `HOME` and build-id directory (no `~/.debug` cache, which
//! `perf record` fills, and nothing left for the next run), and the commands that symbolize
//! (`script`, `report`, `annotate`, `diff`, `top`) get `--symfs` pointing at an empty
//! directory, so perf reads neither `/proc/kallsyms` nor the host's binaries. Every
//! kernel and user address prints as `[unknown]`, whatever the running kernel, its
//! `kptr_restrict` or the installed libraries; the self-check test
//! `host_symbols_never_reach_perf_output` proves it against a host whose symbols are reachable.
//!
//! What perf 6.1 normally prints on stderr for the fixtures (none of it is flagged by
//! [`PerfOutput::assert_clean`], so nothing needs whitelisting):
//! - `perf script` (file and pipe mode, path or stdin): nothing.
//! - `perf report --header-only [-I]`, `perf report --stats` (file mode), `perf evlist -v`,
//!   `perf inject`: nothing. (`perf evlist` prints `# Tip: use 'perf evlist --trace-fields'
//!   ...` on STDOUT when there are tracepoints; [`parse_evlist`] skips `#` lines.)
//!
//! Known perf 6.1 quirks (see also the harness self-check test):
//! - `perf report --stats` on a pipe-mode file with tracepoints (a HEADER_TRACING_DATA
//!   record) fails: from a path it prints `failed to process type: ...` / `Error: failed to
//!   process sample` and still exits 0; from stdin it prints nothing at all. Pipe files
//!   without tracepoints are counted fine (with `ATTR` and `FEATURE` rows).
//! - `perf evlist` on a pipe-mode file names tracepoints `unknown tracepoint` (it does not
//!   read the tracing data); `perf report --header-only` names them correctly.
//! - `perf script -i -` only reads pipe-mode data; a file-mode stream on stdin gives
//!   "incompatible file format".
//! - perf omits attr fields whose value is zero from `--header-only` event lines and from
//!   `evlist -v` (e.g. `config` for cpu-clock, `type` for hardware events).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Default perf binary; override with the `PERF` environment variable.
pub const DEFAULT_PERF_BIN: &str = "/usr/bin/perf";

/// Substrings of stderr that [`PerfOutput::assert_clean`] treats as a finding.
pub const STDERR_RED_FLAGS: &[&str] = &[
    "WARNING",
    "Warning",
    "failed",
    "incompatible",
    "error",
    "Error",
    "Can't",
    "cannot",
    "invalid",
    "corrupt",
    "properly terminated",
];

/// The perf binary the harness runs: `$PERF` if set, else `/usr/bin/perf`.
pub fn perf_binary() -> PathBuf {
    match std::env::var_os("PERF") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(DEFAULT_PERF_BIN),
    }
}

/// `perf --version` output (e.g. `"perf version 6.1.187"`), or `None` when perf cannot run.
/// Computed once per test process.
pub fn perf_version() -> Option<String> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let out = Command::new(perf_binary())
                .arg("--version")
                .stdin(Stdio::null())
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (out.status.success() && text.starts_with("perf version")).then_some(text)
        })
        .clone()
}

/// True when the perf binary exists and answers `perf --version`.
pub fn perf_available() -> bool {
    perf_version().is_some()
}

/// True when the tests run in CI (`CI` set to anything but empty, `0` or `false`). There every
/// check must run: what would be a skip elsewhere is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Skips the calling test's check for `reason`: prints `skipped: REASON` on stderr and
/// returns false (the test should `return`), or panics in CI ([`in_ci`]).
pub fn skip(reason: &str) -> bool {
    assert!(!in_ci(), "CI must run every check, but: {reason}");
    eprintln!("skipped: {reason}");
    false
}

/// The perf version whose output the tests' expectations were read from.
pub const EXPECTED_PERF_VERSION: &str = "perf version 6.1.";

/// Gate for tests that need perf. True when perf runs and is 6.1 (the expected outputs,
/// quirks included, are perf 6.1's). Otherwise [`skip`]s, naming what is missing: the test
/// should `return`.
///
/// ```no_run
/// if !integration_tests::perf_tool::require_perf() {
///     return;
/// }
/// ```
pub fn require_perf() -> bool {
    match perf_version() {
        Some(v) if v.starts_with(EXPECTED_PERF_VERSION) => true,
        Some(v) => skip(&format!(
            "{} is {v}; the tests expect perf 6.1's output (set PERF to a perf 6.1 binary)",
            perf_binary().display()
        )),
        None => skip(&format!(
            "perf not available at {} (install linux-perf, or set PERF to the binary)",
            perf_binary().display()
        )),
    }
}

/// Gate for tests that run `perf record` on this machine: [`require_perf`], and a probe
/// recording (`perf record -e cpu-clock -- true`, once per test process) must succeed; it
/// needs root or `kernel.perf_event_paranoid` ≤ 2 and a kernel that allows
/// `perf_event_open` (a container may not). Otherwise [`skip`]s with perf's own words.
pub fn require_perf_record() -> bool {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    if !require_perf() {
        return false;
    }
    let probe = PROBE.get_or_init(|| {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = dir.path().join("probe.data");
        let path = out.to_str().ok_or("non UTF-8 temp path")?;
        let run = run_perf(
            &["record", "-q", "-e", "cpu-clock", "-o", path, "--", "true"],
            None,
        );
        match run.success() {
            true => Ok(()),
            false => Err(format!(
                "perf record cannot run here (kernel.perf_event_paranoid = {}): {}",
                std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                    .unwrap_or_default()
                    .trim(),
                run.stderr.trim()
            )),
        }
    });
    match probe {
        Ok(()) => true,
        Err(reason) => skip(reason),
    }
}

/// What one perf run produced.
#[derive(Clone, Debug)]
pub struct PerfOutput {
    /// The arguments perf was run with (without the binary), for messages.
    pub args: Vec<String>,
    /// Standard output (lossy UTF-8).
    pub stdout: String,
    /// Standard error (lossy UTF-8).
    pub stderr: String,
    /// Exit status.
    pub status: ExitStatus,
}

impl PerfOutput {
    /// True when perf exited with status 0.
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// Exit code, `None` if perf was killed by a signal.
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Lines of stderr that contain one of [`STDERR_RED_FLAGS`].
    pub fn stderr_findings(&self) -> Vec<String> {
        self.stderr
            .lines()
            .filter(|line| STDERR_RED_FLAGS.iter().any(|flag| line.contains(flag)))
            .map(str::to_string)
            .collect()
    }

    /// Panics on a non-zero exit or when stderr has a line with one of
    /// [`STDERR_RED_FLAGS`]; the message carries the command, stdout and stderr.
    pub fn assert_clean(&self) {
        let findings = self.stderr_findings();
        if !self.success() || !findings.is_empty() {
            panic!(
                "perf {} was not clean (status {}, flagged stderr lines: {:?})\n{}",
                self.args.join(" "),
                self.status,
                findings,
                self.describe()
            );
        }
    }

    /// Panics on a non-zero exit only (stderr may carry findings).
    pub fn assert_success(&self) {
        if !self.success() {
            panic!(
                "perf {} failed with {}\n{}",
                self.args.join(" "),
                self.status,
                self.describe()
            );
        }
    }

    /// Command, status, stdout and stderr as one text block (stdout cut to 20,000 chars).
    pub fn describe(&self) -> String {
        let mut stdout = self.stdout.as_str();
        let mut cut = "";
        if stdout.len() > 20_000 {
            let mut end = 20_000;
            while !stdout.is_char_boundary(end) {
                end -= 1;
            }
            stdout = &stdout[..end];
            cut = "\n[... stdout cut ...]";
        }
        format!(
            "--- command: perf {}\n--- status: {}\n--- stdout:\n{}{}\n--- stderr:\n{}",
            self.args.join(" "),
            self.status,
            stdout,
            cut,
            self.stderr
        )
    }
}

fn timeout() -> Duration {
    let secs = std::env::var("PERF_HARNESS_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// What a perf run may read of the host besides its input.
#[derive(Clone, Debug)]
pub enum HostSymbols {
    /// The harness default: a new empty `HOME` and build-id directory for the run, and
    /// `--symfs` set to an empty directory for the commands that symbolize (see the module
    /// docs). Output does not depend on the machine.
    Hidden,
    /// As [`HostSymbols::Hidden`], with `--symfs` pointing at `dir` instead of an empty
    /// directory: perf symbolizes the binaries the test put there (at their absolute paths
    /// below `dir`, as `--symfs` reads them) and nothing else of the host.
    Symfs {
        /// The symbol file system: the test's binaries at their paths below it.
        dir: PathBuf,
    },
    /// perf as a user runs it, with `HOME` set to `home`: its build-id cache, the running
    /// kernel's `/proc/kallsyms` and the host's binaries are all reachable. Only for the
    /// self-check that shows what [`HostSymbols::Hidden`] hides.
    Visible {
        /// `HOME` for the run (its `.debug` is perf's build-id cache).
        home: PathBuf,
    },
}

/// perf subcommands that take `--symfs` (they resolve addresses to symbols).
const SYMBOLIZING_COMMANDS: [&str; 5] = ["script", "report", "annotate", "diff", "top"];

/// A perf command ready to run: `LC_ALL=C`, no pager, no config file, and the host's
/// symbols hidden as [`HostSymbols::Hidden`] says. Set stdin/stdout/stderr and spawn it
/// through [`PerfCommand::command`]; keep the `PerfCommand` alive until perf has exited
/// (it owns the run's private `HOME`).
pub struct PerfCommand {
    command: Command,
    _private_home: Option<tempfile::TempDir>,
}

impl PerfCommand {
    /// `perf ARGS` with the host's symbols hidden.
    pub fn new(args: &[&str]) -> PerfCommand {
        PerfCommand::with_host(args, &HostSymbols::Hidden)
    }

    /// `perf ARGS` with what `host` says perf may see.
    pub fn with_host(args: &[&str], host: &HostSymbols) -> PerfCommand {
        let mut command = Command::new(perf_binary());
        command
            .env("LC_ALL", "C")
            // perf prints wall-clock times (`perf script -F tod`, the header's clock
            // reference) in the local time zone.
            .env("TZ", "UTC")
            .env("PERF_PAGER", "cat")
            .env("PAGER", "cat")
            .env("PERF_CONFIG", "/dev/null")
            .stdin(Stdio::null());
        let private_home = match host {
            HostSymbols::Hidden | HostSymbols::Symfs { .. } => {
                let home = tempfile::Builder::new()
                    .prefix("perf-harness-home-")
                    .tempdir()
                    .expect("create a private HOME for perf");
                let symfs = match host {
                    HostSymbols::Symfs { dir } => dir.clone(),
                    _ => {
                        let empty = home.path().join("symfs");
                        std::fs::create_dir(&empty).expect("create an empty symfs");
                        empty
                    }
                };
                command
                    .env("HOME", home.path())
                    .env("PERF_BUILDID_DIR", home.path().join(".debug"));
                let (sub, rest) = args
                    .split_first()
                    .map_or((None, args), |(s, r)| (Some(*s), r));
                if let Some(sub) = sub {
                    command.arg(sub);
                    if SYMBOLIZING_COMMANDS.contains(&sub) {
                        command.arg(format!("--symfs={}", path_str(&symfs)));
                    }
                }
                command.args(rest);
                Some(home)
            }
            HostSymbols::Visible { home } => {
                command.env("HOME", home).env_remove("PERF_BUILDID_DIR");
                command.args(args);
                None
            }
        };
        PerfCommand {
            command,
            _private_home: private_home,
        }
    }

    /// The command, to set its stdio and spawn it.
    pub fn command(&mut self) -> &mut Command {
        &mut self.command
    }
}

/// Runs perf with `args`, the host's symbols hidden ([`HostSymbols::Hidden`]), feeding
/// `stdin` through an OS pipe when given (stdin is `/dev/null` otherwise). Panics if perf
/// cannot be started or exceeds the timeout.
pub fn run_perf(args: &[&str], stdin: Option<&[u8]>) -> PerfOutput {
    run_perf_with_host(args, stdin, &HostSymbols::Hidden)
}

/// [`run_perf`] with what `host` says perf may see of the host.
pub fn run_perf_with_host(args: &[&str], stdin: Option<&[u8]>, host: &HostSymbols) -> PerfOutput {
    let mut perf = PerfCommand::with_host(args, host);
    let cmd = perf.command();
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", perf_binary().display()));

    let writer = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || {
                // perf may stop reading early (e.g. on a bad header): a broken pipe is fine,
                // its exit status and stderr tell the story.
                let _ = pipe.write_all(&bytes);
                drop(pipe);
            }))
        }
        _ => None,
    };
    let mut out_pipe = child.stdout.take().expect("stdout pipe");
    let mut err_pipe = child.stderr.take().expect("stderr pipe");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });

    let limit = timeout();
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "perf {} did not finish within {:?} (set PERF_HARNESS_TIMEOUT_SECS)",
                    args.join(" "),
                    limit
                );
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("waiting for perf failed: {e}"),
        }
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    PerfOutput {
        args: args.iter().map(|s| s.to_string()).collect(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        status,
    }
}

fn path_str(path: &Path) -> String {
    path.to_str()
        .unwrap_or_else(|| panic!("non UTF-8 path {}", path.display()))
        .to_string()
}

/// `perf script --force --no-inline -i PATH EXTRA...` (e.g. `&["-F", "comm,tid,time,event,trace"]`).
pub fn perf_script(path: impl AsRef<Path>, extra_args: &[&str]) -> PerfOutput {
    let p = path_str(path.as_ref());
    let mut args = vec!["script", "--force", "--no-inline", "-i", p.as_str()];
    args.extend_from_slice(extra_args);
    run_perf(&args, None)
}

/// `perf script --force --no-inline -i -` with `bytes` fed through a pipe on stdin
/// (perf only reads pipe-mode data this way).
pub fn perf_script_stdin(bytes: &[u8]) -> PerfOutput {
    perf_script_stdin_with(bytes, &[])
}

/// [`perf_script_stdin`] with extra arguments.
pub fn perf_script_stdin_with(bytes: &[u8], extra_args: &[&str]) -> PerfOutput {
    let mut args = vec!["script", "--force", "--no-inline", "-i", "-"];
    args.extend_from_slice(extra_args);
    run_perf(&args, Some(bytes))
}

/// Writes `bytes` to a temporary file and runs [`perf_script`] on it.
pub fn perf_script_bytes(bytes: &[u8], extra_args: &[&str]) -> PerfOutput {
    let file = crate::temp_data_file(bytes);
    perf_script(file.path(), extra_args)
}

/// `perf report --header-only --force -i PATH`, plus `-I` (all feature details) when `all`.
pub fn perf_report_header(path: impl AsRef<Path>, all: bool) -> PerfOutput {
    let p = path_str(path.as_ref());
    let mut args = vec!["report", "--header-only", "--force", "-i", p.as_str()];
    if all {
        args.push("-I");
    }
    run_perf(&args, None)
}

/// `perf report --stats --force -i PATH`. See the module notes: perf 6.1 cannot do this
/// for pipe-mode files that carry tracing data.
pub fn perf_report_stats(path: impl AsRef<Path>) -> PerfOutput {
    let p = path_str(path.as_ref());
    run_perf(&["report", "--stats", "--force", "-i", p.as_str()], None)
}

/// `perf evlist -v --force -i PATH`.
pub fn perf_evlist(path: impl AsRef<Path>) -> PerfOutput {
    let p = path_str(path.as_ref());
    run_perf(&["evlist", "-v", "--force", "-i", p.as_str()], None)
}

/// `perf inject --force -i INPUT -o OUTPUT` (rewrites a recording through perf itself).
pub fn perf_inject(input: impl AsRef<Path>, output: impl AsRef<Path>) -> PerfOutput {
    let i = path_str(input.as_ref());
    let o = path_str(output.as_ref());
    run_perf(
        &["inject", "--force", "-i", i.as_str(), "-o", o.as_str()],
        None,
    )
}

/// Trimmed, non-empty lines of perf's stdout (for `perf script` output).
pub fn script_lines(output: &PerfOutput) -> Vec<String> {
    output
        .stdout
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Splits `s` at `sep` occurrences that are not inside `{ }` braces.
fn split_outside_braces<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    let bytes = s.as_bytes();
    let mut i = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && s[i..].starts_with(sep) {
            parts.push(&s[start..i]);
            i += sep.len();
            start = i;
            continue;
        }
        i += 1;
    }
    parts.push(&s[start..]);
    parts
}

/// Parses an attr value printed by perf: decimal, or hex with `0x`.
pub fn parse_perf_number(value: &str) -> Option<u64> {
    let v = value.trim();
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Parses `{ 102, 103 }` (or a bare number) into numbers.
fn parse_id_list(value: &str) -> Vec<u64> {
    value
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .filter_map(parse_perf_number)
        .collect()
}

/// One `# event : name = ..., id = { ... }, type = ..., ...` line of `perf report --header-only`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderEvent {
    /// Event name (text between `name = ` and the next `, `).
    pub name: String,
    /// Sample ids listed in `id = { ... }`.
    pub ids: Vec<u64>,
    /// Every other `key = value` pair, e.g. `type` → `2`, `config` → `0x174`,
    /// `sample_type` → `IP|TID|TIME|...`, `{ sample_period, sample_freq }` → `1`,
    /// `sample_id_all` → `1`. perf prints only non-zero fields.
    pub fields: BTreeMap<String, String>,
    /// The line without the leading `# event : `.
    pub raw: String,
}

impl HeaderEvent {
    /// A field's text value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    /// A numeric field (decimal or `0x` hex). Absent fields are `None`; perf omits zeros,
    /// so use `.unwrap_or(0)` where zero is meant.
    pub fn number(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(parse_perf_number)
    }

    /// `sample_type` / `read_format` style values split at `|`.
    pub fn flags(&self, key: &str) -> Vec<String> {
        self.get(key)
            .map(|v| v.split('|').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    }

    /// `{ sample_period, sample_freq }` value.
    pub fn period_or_freq(&self) -> Option<u64> {
        self.number("{ sample_period, sample_freq }")
    }
}

/// Parsed `perf report --header-only [-I]` output.
#[derive(Clone, Debug, Default)]
pub struct HeaderInfo {
    /// Every stdout line, untouched.
    pub lines: Vec<String>,
    /// Every `# key : value` line in order (key and value trimmed; keys can repeat, e.g.
    /// `sibling threads`; `event` lines are also in [`HeaderInfo::events`]).
    pub entries: Vec<(String, String)>,
    /// `# event :` lines.
    pub events: Vec<HeaderEvent>,
    /// Names after `# missing features:`.
    pub missing_features: Vec<String>,
    /// Lines starting with `#` that have no `key : value` shape (e.g. cache rows), trimmed.
    pub other_lines: Vec<String>,
}

impl HeaderInfo {
    /// The first value for `key` (e.g. `"hostname"`, `"os release"`, `"cpudesc"`).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// All values for `key`, in order.
    pub fn get_all(&self, key: &str) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// True when some entry has this key.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn number(&self, key: &str) -> Option<u64> {
        let v = self.get(key)?;
        parse_perf_number(v.split_whitespace().next()?)
    }

    /// `# hostname :`.
    pub fn hostname(&self) -> Option<&str> {
        self.get("hostname")
    }
    /// `# os release :`.
    pub fn os_release(&self) -> Option<&str> {
        self.get("os release")
    }
    /// `# perf version :`.
    pub fn perf_version(&self) -> Option<&str> {
        self.get("perf version")
    }
    /// `# arch :`.
    pub fn arch(&self) -> Option<&str> {
        self.get("arch")
    }
    /// `# nrcpus online :`.
    pub fn nrcpus_online(&self) -> Option<u64> {
        self.number("nrcpus online")
    }
    /// `# nrcpus avail :`.
    pub fn nrcpus_avail(&self) -> Option<u64> {
        self.number("nrcpus avail")
    }
    /// `# cpudesc :`.
    pub fn cpudesc(&self) -> Option<&str> {
        self.get("cpudesc")
    }
    /// `# cpuid :`.
    pub fn cpuid(&self) -> Option<&str> {
        self.get("cpuid")
    }
    /// `# total memory : N kB` → N.
    pub fn total_memory_kb(&self) -> Option<u64> {
        self.number("total memory")
    }
    /// `# cmdline :` (perf joins the list with spaces and adds a trailing space; trimmed here).
    pub fn cmdline(&self) -> Option<&str> {
        self.get("cmdline")
    }
    /// `# clockid frequency: N MHz` → N.
    pub fn clockid_frequency_mhz(&self) -> Option<u64> {
        self.number("clockid frequency")
    }
    /// `# data offset :`.
    pub fn data_offset(&self) -> Option<u64> {
        self.number("data offset")
    }
    /// `# data size :`.
    pub fn data_size(&self) -> Option<u64> {
        self.number("data size")
    }
    /// `# feat offset :`.
    pub fn feat_offset(&self) -> Option<u64> {
        self.number("feat offset")
    }
    /// Event names in header order.
    pub fn event_names(&self) -> Vec<&str> {
        self.events.iter().map(|e| e.name.as_str()).collect()
    }
    /// The event line with this name.
    pub fn event(&self, name: &str) -> Option<&HeaderEvent> {
        self.events.iter().find(|e| e.name == name)
    }
}

fn parse_header_event(text: &str) -> HeaderEvent {
    let mut ev = HeaderEvent {
        raw: text.to_string(),
        ..HeaderEvent::default()
    };
    let mut rest = text;
    if let Some(after) = text.strip_prefix("name = ") {
        match after.find(", ") {
            Some(end) => {
                ev.name = after[..end].to_string();
                rest = &after[end + 2..];
            }
            None => {
                ev.name = after.trim_end_matches(',').to_string();
                rest = "";
            }
        }
    }
    for part in split_outside_braces(rest, ",") {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (key, value) = match part.split_once(" = ") {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (part, ""),
        };
        if key == "id" {
            ev.ids = parse_id_list(value);
        } else {
            ev.fields.insert(key.to_string(), value.to_string());
        }
    }
    ev
}

/// Parses `perf report --header-only [-I]` stdout: `# key : value` lines (the key is the
/// text before the first `:`), `# event :` lines, `# missing features:`.
pub fn parse_header_only(stdout: &str) -> HeaderInfo {
    let mut info = HeaderInfo::default();
    for line in stdout.lines() {
        info.lines.push(line.to_string());
        let Some(body) = line.strip_prefix('#') else {
            continue;
        };
        let body = body.trim();
        if body.is_empty() || body.starts_with("========") {
            continue;
        }
        if let Some(list) = body.strip_prefix("missing features:") {
            info.missing_features = list.split_whitespace().map(str::to_string).collect();
            continue;
        }
        match body.split_once(':') {
            Some((key, value)) => {
                let key = key.trim().to_string();
                let value = value.trim().to_string();
                if key == "event" {
                    info.events.push(parse_header_event(&value));
                }
                info.entries.push((key, value));
            }
            None => info.other_lines.push(body.to_string()),
        }
    }
    info
}

/// One event of `perf evlist -v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvlistEntry {
    /// Event name (the whole line without `-v`).
    pub name: String,
    /// `key: value` pairs after the name, e.g. `type` → `2`, `size` → `128`,
    /// `sample_type` → `IP|TID|...`. perf prints only non-zero fields.
    pub fields: BTreeMap<String, String>,
    /// The whole line.
    pub raw: String,
}

impl EvlistEntry {
    /// A field's text value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }
    /// A numeric field (decimal or `0x` hex); absent (= zero for perf) gives `None`.
    pub fn number(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(parse_perf_number)
    }
}

/// Parses `perf evlist [-v]` stdout. Lines starting with `#` (tips) and blank lines are
/// skipped. With `-v` the name ends at the `: ` before the first attr field (`type: ` or, when
/// type is 0 and so omitted, `size: `).
pub fn parse_evlist(stdout: &str) -> Vec<EvlistEntry> {
    let mut entries = Vec::new();
    for line in stdout.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let split = trimmed
            .find(": type: ")
            .or_else(|| trimmed.find(": size: "));
        let (name, rest) = match split {
            Some(pos) => (&trimmed[..pos], &trimmed[pos + 2..]),
            None => (trimmed, ""),
        };
        let mut fields = BTreeMap::new();
        for part in split_outside_braces(rest, ",") {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match part.rsplit_once(": ") {
                Some((k, v)) => fields.insert(k.trim().to_string(), v.trim().to_string()),
                None => fields.insert(part.to_string(), String::new()),
            };
        }
        entries.push(EvlistEntry {
            name: name.to_string(),
            fields,
            raw: trimmed.to_string(),
        });
    }
    entries
}

/// Parsed `perf report --stats` output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsInfo {
    /// "Aggregated stats": record type name (as [`crate::record_type_name`]) → count,
    /// including `TOTAL`. Only non-zero rows are printed by perf.
    pub aggregated: BTreeMap<String, u64>,
    /// Per-event sections (`<event name> stats:`): name → record type → count.
    pub per_event: BTreeMap<String, BTreeMap<String, u64>>,
}

/// Parses `perf report --stats` stdout fully (aggregated and per-event sections).
/// Lines look like `          SAMPLE events:         31  (11.4%)`.
pub fn parse_stats_full(stdout: &str) -> StatsInfo {
    let mut info = StatsInfo::default();
    let mut current: Option<String> = None;
    for line in stdout.lines() {
        let t = line.trim();
        if t.is_empty() || t == "Aggregated stats:" {
            continue;
        }
        if let Some((name, rest)) = t.split_once(" events:") {
            let Some(count) = rest.split_whitespace().next().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let map = match &current {
                None => &mut info.aggregated,
                Some(ev) => info.per_event.entry(ev.clone()).or_default(),
            };
            map.insert(name.trim().to_string(), count);
        } else if let Some(ev) = t.strip_suffix(" stats:") {
            current = Some(ev.to_string());
        }
    }
    info
}

/// The aggregated record counts of `perf report --stats` (record type name → count,
/// `TOTAL` included).
pub fn parse_stats(stdout: &str) -> BTreeMap<String, u64> {
    parse_stats_full(stdout).aggregated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_event_line() {
        let ev = parse_header_event(
            "name = sched:sched_switch, , id = { 102, 103 }, type = 2, size = 128, config = 0x174, \
             { sample_period, sample_freq } = 1, sample_type = IP|TID|TIME, sample_id_all = 1",
        );
        assert_eq!(ev.name, "sched:sched_switch");
        assert_eq!(ev.ids, vec![102, 103]);
        assert_eq!(ev.number("type"), Some(2));
        assert_eq!(ev.number("config"), Some(0x174));
        assert_eq!(ev.period_or_freq(), Some(1));
        assert_eq!(ev.flags("sample_type"), vec!["IP", "TID", "TIME"]);
        assert_eq!(ev.number("sample_id_all"), Some(1));
    }

    #[test]
    fn evlist_line() {
        let e = parse_evlist(
            "cpu-clock: size: 128, { sample_period, sample_freq }: 2000, freq: 1\n# Tip: x\n",
        );
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].name, "cpu-clock");
        assert_eq!(e[0].number("size"), Some(128));
        assert_eq!(e[0].number("{ sample_period, sample_freq }"), Some(2000));
        assert_eq!(e[0].get("type"), None);
    }

    #[test]
    fn stats_text() {
        let s = parse_stats_full(
            "\nAggregated stats:\n           TOTAL events:        272\n          SAMPLE events:         31  (11.4%)\nsched:sched_switch stats:\n          SAMPLE events:         31\n",
        );
        assert_eq!(s.aggregated["TOTAL"], 272);
        assert_eq!(s.aggregated["SAMPLE"], 31);
        assert_eq!(s.per_event["sched:sched_switch"]["SAMPLE"], 31);
    }
}
