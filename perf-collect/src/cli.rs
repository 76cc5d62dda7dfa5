//! The command line: every option parsed and range-checked before anything is opened, each
//! refusal said in one line.
//!
//! What can be judged from the text alone is judged here (a duration, a frequency of at
//! least 1 Hz, a ring of a power of two of pages, a zstd level); what depends on the machine
//! (the kernel's highest sampling rate, the events tracefs has) is judged when the recording
//! starts ([`crate::record()`]).

use crate::call_graph::CallGraph;
use crate::options::Options;
use crate::scope::{check_combination, MAX_CPU};
use clap::Parser;
use perf_writer_std::Compression;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The longest duration `-d` and `-c` take, in seconds (about 31 years).
pub const MAX_SECONDS: u64 = 1_000_000_000;

/// The largest ring buffer `-m` takes, in pages (4 GiB per CPU with 4 KiB pages).
pub const MAX_MMAP_PAGES: usize = 1 << 20;

/// Record tracepoints and profiles into perf.data, without perf.
///
/// Records COMMAND and what it starts (or -p / -t tasks, or every task with -a / -C, the
/// default without a command) until COMMAND exits, SIGINT / SIGTERM, or -d SECONDS.
/// Needs root (or CAP_PERFMON, or kernel.perf_event_paranoid <= -1) and, for
/// tracepoints, a readable tracefs.
///
/// Exit status: 0 the recording was written; 1 it could not be made; 2 the command line
/// is wrong; 3 the output filled up (the file is valid and holds the records that
/// reached it).
#[derive(Parser, Debug)]
#[command(name = "perf-collect", version)]
struct Args {
    /// Event to record: a tracepoint SYSTEM:EVENT (sched:sched_switch,
    /// user_events:my_event), or a software event (cpu-clock, task-clock, page-faults,
    /// context-switches, cpu-migrations); several -e, or names separated by commas
    /// [default: cpu-clock].
    #[arg(short = 'e', long = "event", value_name = "EVENT")]
    events: Vec<String>,

    /// A file of event names (one or more per line, # starts a comment; at most 1 MiB).
    #[arg(long = "events-file", value_name = "FILE")]
    event_files: Vec<PathBuf>,

    /// Every task on every online CPU (with a command, until it exits).
    #[arg(short = 'a', long = "all-cpus")]
    all_cpus: bool,

    /// Every task on these CPUs (0-3,8).
    #[arg(short = 'C', long = "cpu", value_name = "CPUS", value_parser = cpu_list, allow_hyphen_values = true)]
    cpu_list: Option<CpuList>,

    /// Processes already running (every thread), and what they start; stops when they
    /// have exited.
    #[arg(short = 'p', long = "pid", value_name = "PID", value_delimiter = ',', value_parser = task_id, allow_hyphen_values = true)]
    pids: Vec<u32>,

    /// Threads already running, and what they start; stops when they have exited.
    #[arg(short = 't', long = "tid", value_name = "TID", value_delimiter = ',', value_parser = task_id, allow_hyphen_values = true)]
    tids: Vec<u32>,

    /// A call stack in each sample, from the frame pointers (--call-graph fp).
    #[arg(short = 'g')]
    call_graph_fp: bool,

    /// A call stack in each sample: fp (frame pointers), or dwarf[,SIZE] (the user
    /// registers and SIZE bytes of user stack, default 8192, which perf unwinds).
    #[arg(long = "call-graph", value_name = "MODE", value_parser = call_graph)]
    call_graph: Option<CallGraph>,

    /// Output file; - writes a pipe-mode stream to stdout (for perf script -i -).
    #[arg(short = 'o', long, default_value = "perf.data")]
    output: PathBuf,

    /// Sampling frequency of software events such as cpu-clock, in Hz (at least 1, at most
    /// kernel.perf_event_max_sample_rate) [default: 4000, or that limit when it is lower]
    #[arg(short = 'F', long = "freq", value_parser = frequency, allow_hyphen_values = true)]
    freq: Option<u64>,

    /// Data pages of each CPU's ring buffer (a power of two; 128 pages = 512 KiB).
    #[arg(short = 'm', long = "mmap-pages", default_value = "128", value_parser = mmap_pages, allow_hyphen_values = true)]
    mmap_pages: usize,

    /// Stop after SECONDS (fractions allowed).
    #[arg(short = 'd', long = "duration", value_name = "SECONDS",
          value_parser = seconds, allow_hyphen_values = true)]
    duration: Option<Duration>,

    /// Flight recorder: the ring buffers overwrite their oldest records and nothing is
    /// written while recording; when it stops (command exit, SIGINT / SIGTERM, -d), the
    /// last SECONDS of what the buffers still hold are saved.
    #[arg(short = 'c', long = "flight-recorder", value_name = "SECONDS",
          value_parser = seconds, allow_hyphen_values = true)]
    flight_recorder: Option<Duration>,

    /// tracefs directory (default: /sys/kernel/tracing, /sys/kernel/debug/tracing, or
    /// a tracefs mount in /proc/mounts).
    #[arg(long, value_name = "DIR")]
    tracefs: Option<PathBuf>,

    /// No progress line and no summary on stderr (losses are still reported).
    #[arg(short = 'q', long)]
    quiet: bool,

    /// Compress the records with zstd (LEVEL 1 to 22, default 1), as perf record -z
    /// does; perf 5.x and later read them.
    #[arg(short = 'z', long = "compression-level", value_name = "LEVEL", num_args = 0..=1,
          default_missing_value = "1", value_parser = zstd_level, allow_negative_numbers = true)]
    compression_level: Option<i32>,

    /// Write the kernel's records without the writer's strict check (by default each is
    /// checked against its event's attr, and one perf could not read is left out and
    /// reported). The check costs little: a record like the one before it of the same
    /// event is compared, not walked.
    #[arg(long)]
    unchecked: bool,

    /// Command to record with what it starts (or, with -a, -C, -p or -t, to run); recording
    /// stops when it exits. It starts with no signal blocked and
    /// the default signal handlers, as from a shell; when the recording stops first it is
    /// sent SIGTERM (a second SIGINT or SIGTERM to perf-collect then kills it).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// A parsed command line.
#[derive(Clone, Debug)]
pub struct Cli {
    /// What to record.
    pub options: Options,
    /// `-q`: no progress line and no summary.
    pub quiet: bool,
}

/// What the command line asks.
#[derive(Clone, Debug)]
pub enum Parsed {
    /// Record.
    Record(Box<Cli>),
    /// Print this text on stdout and exit 0 (`--help`, `--version`).
    Print(String),
}

/// A command line that cannot be used: one line, without the program's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// Parses `args` (the program's name first, as `std::env::args_os` gives them).
///
/// # Errors
/// An unknown option, a missing or malformed value, or a number out of its range: one
/// line naming the option, the value and what it takes.
///
/// ```
/// use perf_collect::cli::{parse, Parsed};
/// let Ok(Parsed::Record(cli)) = parse(["perf-collect", "-e", "sched:sched_switch", "-d", "1.5"])
/// else { panic!() };
/// assert_eq!(cli.options.duration, Some(std::time::Duration::from_millis(1500)));
/// assert!(parse(["perf-collect", "-d", "1e300"]).unwrap_err().0.contains("at most"));
/// ```
pub fn parse<I, T>(args: I) -> Result<Parsed, ArgError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match Args::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    Ok(Parsed::Print(e.render().to_string()))
                }
                _ => Err(ArgError(first_line(&e.render().to_string()))),
            };
        }
    };
    check_combination(
        args.all_cpus,
        args.cpu_list.is_some(),
        !args.pids.is_empty() || !args.tids.is_empty(),
    )
    .map_err(|why| ArgError(why.to_string()))?;
    let call_graph = args
        .call_graph
        .or(args.call_graph_fp.then_some(CallGraph::FramePointer));
    Ok(Parsed::Record(Box::new(Cli {
        quiet: args.quiet,
        options: Options {
            flight_recorder: args.flight_recorder,
            events: args.events,
            event_files: args.event_files,
            output: args.output,
            freq: args.freq,
            mmap_pages: args.mmap_pages,
            duration: args.duration,
            command: args.command,
            all_cpus: args.all_cpus,
            cpu_list: args.cpu_list.map(|l| l.0),
            pids: args.pids,
            tids: args.tids,
            call_graph,
            tracefs: args.tracefs,
            progress: !args.quiet,
            strict: !args.unchecked,
            compression_level: args.compression_level,
            ..Options::default()
        },
    })))
}

/// clap's message in one line: its first line, without the `error: ` prefix.
fn first_line(rendered: &str) -> String {
    let line = rendered
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    line.strip_prefix("error: ")
        .unwrap_or(line)
        .trim()
        .to_string()
}

/// A process or thread id: a positive number.
fn task_id(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(id) if id > 0 && i32::try_from(id).is_ok() => Ok(id),
        _ => Err("give process or thread ids: positive numbers separated by commas".to_string()),
    }
}

/// `-C`'s CPUs (a type of its own: clap takes a `Vec` option for a list of values).
#[derive(Clone, Debug)]
struct CpuList(Vec<u32>);

/// A CPU list (`0-3,8`) of CPUs up to [`MAX_CPU`].
fn cpu_list(text: &str) -> Result<CpuList, String> {
    let refuse = || format!("give a list of CPUs such as 0-3,8 (CPUs 0 to {MAX_CPU})");
    // Every number is bounded before the list is expanded: 0-4000000000 is no list to build.
    let numbers = text
        .split([',', '-'])
        .map(|n| n.trim().parse::<u32>().ok().filter(|&c| c <= MAX_CPU));
    if text.trim().is_empty() || numbers.clone().any(|n| n.is_none()) {
        return Err(refuse());
    }
    perf_writer_std::parse_cpu_list(text)
        .map(|cpus| cpus.into_iter().collect::<Vec<u32>>())
        .filter(|cpus| !cpus.is_empty())
        .map(CpuList)
        .ok_or_else(refuse)
}

/// `--call-graph`'s mode.
fn call_graph(text: &str) -> Result<CallGraph, String> {
    CallGraph::parse(text)
}

/// A positive number of seconds, fractions allowed, at most [`MAX_SECONDS`].
fn seconds(text: &str) -> Result<Duration, String> {
    let refuse = || format!("give a positive number of seconds, at most {MAX_SECONDS}");
    let s: f64 = text.trim().parse().map_err(|_| refuse())?;
    if !(s > 0.0 && s <= MAX_SECONDS as f64) {
        return Err(refuse());
    }
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(refuse)
}

/// A sampling frequency of at least 1 Hz (its upper bound is the kernel's, checked when
/// the events are opened).
fn frequency(text: &str) -> Result<u64, String> {
    let hz = text.trim().parse::<u64>().map_err(|_| {
        format!(
            "give a whole number of samples per second, from 1 to {}",
            u64::MAX
        )
    })?;
    check_frequency(hz)
}

/// Refuses a sampling frequency under 1 Hz (the kernel's upper bound,
/// `kernel.perf_event_max_sample_rate`, is checked when the events are opened).
///
/// # Errors
/// What the option takes, in words.
pub fn check_frequency(hz: u64) -> Result<u64, String> {
    match hz {
        0 => Err(format!(
            "give a whole number of samples per second, from 1 to {}",
            u64::MAX
        )),
        hz => Ok(hz),
    }
}

/// A power of two of pages, from 1 to [`MAX_MMAP_PAGES`].
fn mmap_pages(text: &str) -> Result<usize, String> {
    check_mmap_pages(text.trim().parse::<usize>().unwrap_or(0))
}

/// Refuses a ring buffer size that is not a power of two of pages from 1 to
/// [`MAX_MMAP_PAGES`] (the kernel maps only powers of two).
///
/// # Errors
/// What the option takes, in words.
pub fn check_mmap_pages(pages: usize) -> Result<usize, String> {
    match pages.is_power_of_two() && pages <= MAX_MMAP_PAGES {
        true => Ok(pages),
        false => Err(format!(
            "the ring buffer size must be a power of two of pages, from 1 to {MAX_MMAP_PAGES} (128 pages = 512 KiB)"
        )),
    }
}

/// A zstd level the writer takes ([`Compression::LEVELS`]).
fn zstd_level(text: &str) -> Result<i32, String> {
    let levels = Compression::LEVELS;
    match text.trim().parse::<i32>() {
        Ok(l) if levels.contains(&l) => Ok(l),
        _ => Err(format!(
            "give a zstd level from {} to {}",
            levels.start(),
            levels.end()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(args: &[&str]) -> String {
        let mut all = vec!["perf-collect"];
        all.extend_from_slice(args);
        match parse(all) {
            Err(ArgError(line)) => line,
            Ok(p) => panic!("{args:?} accepted: {p:?}"),
        }
    }

    fn options(args: &[&str]) -> Options {
        let mut all = vec!["perf-collect"];
        all.extend_from_slice(args);
        match parse(all) {
            Ok(Parsed::Record(cli)) => cli.options,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn durations() {
        assert_eq!(
            options(&["-d", "0.25"]).duration,
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            options(&["-c", "1000000000"]).flight_recorder,
            Some(Duration::from_secs(MAX_SECONDS))
        );
        for bad in [
            "0",
            "-1",
            "-0.5",
            "1e300",
            "1e19",
            "1000000001",
            "inf",
            "nan",
            "x",
            "",
        ] {
            for opt in ["-d", "-c"] {
                let line = err(&[opt, bad]);
                assert!(
                    line.contains("positive number of seconds"),
                    "{opt} {bad}: {line}"
                );
                assert!(!line.contains('\n'));
            }
        }
        // A duration so short it rounds to nothing is refused too.
        assert!(err(&["-d", "1e-12"]).contains("positive number"));
    }

    #[test]
    fn numbers_in_range() {
        assert_eq!(options(&[]).freq, None);
        assert_eq!(options(&["-F", "1"]).freq, Some(1));
        assert!(err(&["-F", "0"]).contains("from 1 to"));
        assert!(err(&["-F", "-5"]).contains("from 1 to"));
        assert!(err(&["-F", "99999999999999999999999"]).contains("whole number"));
        assert!(err(&["-d", "-inf"]).contains("positive number of seconds"));
        assert_eq!(options(&["-m", "1"]).mmap_pages, 1);
        assert_eq!(options(&["-m", "1048576"]).mmap_pages, MAX_MMAP_PAGES);
        for bad in ["0", "3", "2097152", "-1", "1e3"] {
            assert!(err(&["-m", bad]).contains("power of two"), "-m {bad}");
        }
        assert_eq!(options(&["-z"]).compression_level, Some(1));
        assert_eq!(options(&["-z=22"]).compression_level, Some(22));
        assert_eq!(options(&["-z", "5"]).compression_level, Some(5));
        for bad in ["0", "23", "-1", "x"] {
            assert!(
                err(&[&format!("-z={bad}")]).contains("from 1 to 22"),
                "-z={bad}"
            );
        }
    }

    #[test]
    fn targets_and_call_graphs() {
        let o = options(&["-p", "12,34", "-p", "5", "-t", "7"]);
        assert_eq!((o.pids, o.tids), (vec![12, 34, 5], vec![7]));
        let o = options(&["-a", "-C", "0-2,5"]);
        assert!(o.all_cpus);
        assert_eq!(o.cpu_list, Some(vec![0, 1, 2, 5]));
        for bad in ["0", "-1", "x", "1,,2", "4294967295"] {
            assert!(
                err(&["-p", bad]).contains("process or thread ids"),
                "-p {bad}"
            );
        }
        for bad in ["", "3-1", "0-4000000000", "8192", "a", "1,", "-1"] {
            assert!(err(&["-C", bad]).contains("list of CPUs"), "-C {bad:?}");
        }
        assert!(err(&["-p", "1", "-a"]).contains("do not combine"));
        assert!(err(&["-t", "1", "-C", "0"]).contains("do not combine"));
        assert_eq!(options(&["-g"]).call_graph, Some(CallGraph::FramePointer));
        assert_eq!(
            options(&["-g", "--call-graph", "dwarf,512"]).call_graph,
            Some(CallGraph::Dwarf { stack_bytes: 512 })
        );
        assert_eq!(options(&[]).call_graph, None);
        assert!(err(&["--call-graph", "lbr"]).contains("fp, dwarf"));
    }

    #[test]
    fn clap_errors_are_one_line() {
        let line = err(&["--no-such-option"]);
        assert!(line.contains("--no-such-option"), "{line}");
        assert!(!line.contains('\n') && !line.starts_with("error"));
        assert!(matches!(
            parse(["perf-collect", "--help"]),
            Ok(Parsed::Print(text)) if text.contains("Exit status")
        ));
    }
}
