//! `perf-collect`: the command line. See the library's documentation.
#![forbid(unsafe_code)]

#[cfg(target_os = "linux")]
mod cli {
    use clap::Parser;
    use perf_collect::{record, Options, StopReason};
    use std::ffi::OsString;
    use std::path::PathBuf;
    use std::process::ExitCode;
    use std::time::Duration;

    /// Record tracepoints and software events into perf.data, without perf.
    ///
    /// Records every online CPU until COMMAND exits, SIGINT / SIGTERM, or -d SECONDS.
    /// Needs root (or CAP_PERFMON, or kernel.perf_event_paranoid <= -1) and, for
    /// tracepoints, a readable tracefs.
    #[derive(Parser, Debug)]
    #[command(name = "perf-collect", version)]
    struct Args {
        /// Event to record: a tracepoint SYSTEM:EVENT (sched:sched_switch,
        /// user_events:my_event), or a software event (cpu-clock, task-clock, page-faults,
        /// context-switches, cpu-migrations); several -e, or names separated by commas.
        #[arg(short = 'e', long = "event", value_name = "EVENT")]
        events: Vec<String>,

        /// A file of event names (one or more per line, # starts a comment).
        #[arg(long = "events-file", value_name = "FILE")]
        event_files: Vec<PathBuf>,

        /// Output file; - writes a pipe-mode stream to stdout (for perf script -i -).
        #[arg(short = 'o', long, default_value = "perf.data")]
        output: String,

        /// Sampling frequency of software events such as cpu-clock, in Hz.
        #[arg(short = 'F', long = "freq", default_value_t = 4000)]
        freq: u64,

        /// Data pages of each CPU's ring buffer (a power of two; 128 pages = 512 KiB).
        #[arg(short = 'm', long = "mmap-pages", default_value_t = 128)]
        mmap_pages: usize,

        /// Stop after SECONDS (fractions allowed).
        #[arg(short = 'd', long = "duration", value_name = "SECONDS")]
        duration: Option<f64>,

        /// Flight recorder: the ring buffers overwrite their oldest records and nothing is
        /// written while recording; when it stops (command exit, SIGINT / SIGTERM, -d), the
        /// last SECONDS of what the buffers still hold are saved.
        #[arg(short = 'c', long = "flight-recorder", value_name = "SECONDS")]
        flight_recorder: Option<f64>,

        /// tracefs directory (default: /sys/kernel/tracing, /sys/kernel/debug/tracing, or
        /// a tracefs mount in /proc/mounts).
        #[arg(long, value_name = "DIR")]
        tracefs: Option<PathBuf>,

        /// No progress line and no summary on stderr (losses are still reported).
        #[arg(short = 'q', long)]
        quiet: bool,

        /// Compress the records with zstd (LEVEL 1 to 22, default 1), as perf record -z
        /// does; perf 5.x and later read them.
        #[arg(short = 'z', long = "compression-level", value_name = "LEVEL", num_args = 0..=1, default_missing_value = "1")]
        compression_level: Option<i32>,

        /// Write the kernel's records without the writer's strict check (by default each is
        /// checked against its event's attr, and one perf could not read is left out and
        /// reported). The check costs little: a record like the one before it of the same
        /// event is compared, not walked.
        #[arg(long)]
        unchecked: bool,

        /// Command to run; recording stops when it exits.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    }

    pub fn main() -> ExitCode {
        let args = Args::parse();
        let duration = match args.duration {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
            Some(s) => {
                eprintln!("perf-collect: -d {s}: give a positive number of seconds");
                return ExitCode::from(2);
            }
        };
        let flight_recorder = match args.flight_recorder {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
            Some(s) => {
                eprintln!("perf-collect: -c {s}: give a positive number of seconds");
                return ExitCode::from(2);
            }
        };
        let opts = Options {
            flight_recorder,
            events: args.events,
            event_files: args.event_files,
            output: args.output,
            freq: args.freq,
            mmap_pages: args.mmap_pages,
            duration,
            command: args.command,
            tracefs: args.tracefs,
            progress: !args.quiet,
            strict: !args.unchecked,
            compression_level: args.compression_level,
            ..Options::default()
        };
        match record(&opts) {
            Ok(summary) => {
                for w in &summary.warnings {
                    eprintln!("perf-collect: warning: {w}");
                }
                let s = &summary.stats;
                if !args.quiet {
                    let target = match opts.output.as_str() {
                        "-" => "stdout".to_string(),
                        p => p.to_string(),
                    };
                    let why = match summary.stop {
                        StopReason::CommandExited => "the command exited".to_string(),
                        StopReason::Signal(n) => format!("signal {n}"),
                        StopReason::Duration => "the duration passed".to_string(),
                        StopReason::OutputClosed => "the output was closed".to_string(),
                    };
                    eprintln!(
                        "perf-collect: wrote {} events ({} records, {} bytes) from {} CPUs to {target}; stopped: {why}",
                        s.samples, s.records, s.bytes, summary.cpus
                    );
                }
                // Losses are always reported, even with -q.
                if s.lost_events > 0 || s.lost_records > 0 || s.lost_samples > 0 {
                    let late = match s.lost_added {
                        0 => String::new(),
                        n => format!(", {n} of them counted when the recording stopped"),
                    };
                    eprintln!(
                        "perf-collect: the kernel lost {} events ({} LOST records{late}) and {} samples: the ring buffers filled up; try a larger -m",
                        s.lost_events, s.lost_records, s.lost_samples
                    );
                } else if !args.quiet {
                    eprintln!("perf-collect: lost 0 events");
                }
                if let Some(status) = summary.command_status.filter(|s| !s.success()) {
                    eprintln!("perf-collect: the command ended with {status}");
                }
                if s.refused > 0 {
                    eprintln!(
                        "perf-collect: {} records were refused by the writer and left out; the first: {}",
                        s.refused,
                        s.first_refusal.as_deref().unwrap_or("?")
                    );
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("perf-collect: {e}");
                ExitCode::FAILURE
            }
        }
    }
}

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!("perf-collect: Linux only");
    std::process::ExitCode::FAILURE
}
