//! The recording: opens the events on every online CPU, maps one ring buffer per CPU,
//! and copies what the kernel writes there into a [`PerfWriter`] until told to stop.

use crate::command::{Command as RecordedCommand, Ended, GRACE};
use crate::describe::{describe, synthesize_threads};
use crate::error::CollectError;
use crate::events::{self, EventKind, EventSpec};
use crate::output::{FileOutput, StdoutOutput};
use crate::ring_reader::{FlightWindow, RingStats};
use crate::rings::{self, online_cpus, Rings};
use crate::save::save;
use crate::tracefs::Tracefs;
use crate::watch::watch;
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use perf_writer_std::{
    Compression, OutputMode, PerfDataFileWriter, PerfPipeWriter, PerfWriter, WriterError,
};
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// What to record, and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Event names (`-e`), each possibly a comma-separated list.
    pub events: Vec<String>,
    /// Files of event names, one or more per line.
    pub event_files: Vec<PathBuf>,
    /// The output path; `-` writes a pipe-mode stream to stdout.
    pub output: PathBuf,
    /// Sampling frequency of counters such as cpu-clock (Hz); `None`: [`DEFAULT_FREQ`],
    /// or the kernel's limit when that is lower.
    pub freq: Option<u64>,
    /// Data pages of each CPU's ring buffer (a power of two).
    pub mmap_pages: usize,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// The command to run and record until it exits (empty: none).
    pub command: Vec<OsString>,
    /// Where tracefs is (default: the usual places).
    pub tracefs: Option<PathBuf>,
    /// Print a progress line on stderr (when it is a terminal).
    pub progress: bool,
    /// Name the threads that exist when the recording starts (COMM records from `/proc`).
    pub synthesize_threads: bool,
    /// The writer's strict mode for the kernel's records (the default): every record checked
    /// against its event's attr, a refused one left out and reported. Off (`--unchecked`),
    /// the records go in as the kernel wrote them. Either way a ring's pending bytes go to
    /// the writer in one call (record by record only after a refusal), and the descriptions
    /// and the records the collector makes itself are checked.
    pub strict: bool,
    /// Flight-recorder mode: the rings overwrite their oldest records, nothing is read
    /// while recording, and when it stops the records of this last stretch of time are
    /// saved.
    pub flight_recorder: Option<Duration>,
    /// Compress the records with zstd at this level (1 to 22) into COMPRESSED records, as
    /// `perf record -z` does.
    pub compression_level: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            events: Vec::new(),
            event_files: Vec::new(),
            output: PathBuf::from("perf.data"),
            freq: None,
            mmap_pages: 128,
            duration: None,
            command: Vec::new(),
            tracefs: None,
            progress: false,
            synthesize_threads: true,
            strict: true,
            flight_recorder: None,
            compression_level: None,
        }
    }
}

/// Why the recording stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The command exited.
    CommandExited,
    /// SIGINT or SIGTERM.
    Signal(i32),
    /// The duration (`-d`) passed.
    Duration,
    /// The reader of the pipe went away.
    OutputClosed,
    /// The output's device is full (or its quota or file size limit reached): the file
    /// keeps the records that reached it ([`Summary::truncated`]).
    OutputFull,
}

/// An output that ends before the recording did: it filled up. A file keeps the whole
/// records that reached it (perf reads it); a stream keeps the bytes stdout took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    /// Records in the file's data section as stored (a COMPRESSED record counts as one);
    /// `None` for a stream.
    pub kept_records: Option<u64>,
    /// Bytes kept: the file's data section, or the stream's bytes.
    pub kept_bytes: u64,
    /// The output's error.
    pub error: String,
}

/// What a recording wrote.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Counts over all rings: what was read from the kernel and given to the writer.
    pub stats: RingStats,
    /// Online CPUs recorded.
    pub cpus: usize,
    /// Why the recording stopped.
    pub stop: StopReason,
    /// How the command ended, when one was run.
    pub command: Option<Ended>,
    /// Warnings (headers that could not be set, …), one line each.
    pub warnings: Vec<String>,
    /// The output holds only the first part of the recording: it filled up.
    pub truncated: Option<Truncation>,
    /// Pipe mode: the bytes of the stream stdout took.
    pub delivered: Option<u64>,
    /// Pipe mode: the reader closed the pipe before the stream's end.
    pub reader_closed: bool,
    /// Pipe mode: once the recording stopped, the reader took nothing for a while and the
    /// rest of the stream was given up.
    pub stalled: bool,
    /// Bytes of records the rings still held when a second signal cut saving short.
    pub unsaved_bytes: u64,
    /// Flight-recorder mode: the rings held less time than asked (`-c`), and what they held.
    pub flight_window: Option<FlightWindow>,
}

/// Records as `opts` says. Errors in what was asked (events, permissions, tracefs, output)
/// come before the output is created; a recording that cannot start or keeps nothing
/// leaves an existing file at the output path as it was.
pub fn record(opts: &Options) -> Result<Summary, CollectError> {
    crate::cli::check_mmap_pages(opts.mmap_pages)
        .map_err(|why| CollectError::BadArgument(format!("-m {}: {why}", opts.mmap_pages)))?;
    if let Some(hz) = opts.freq {
        crate::cli::check_frequency(hz)
            .map_err(|why| CollectError::BadArgument(format!("-F {hz}: {why}")))?;
    }
    let names = events::collect_names(&opts.events, &opts.event_files)?;
    let (mut specs, tracefs) = events::resolve(&names, opts.tracefs.as_deref())?;
    let sampled = specs
        .iter()
        .any(|s| matches!(s.kind, EventKind::Counter { .. }));
    let opts = &Options {
        freq: Some(sample_frequency(opts.freq, sampled)?),
        ..opts.clone()
    };
    specs.push(EventSpec::tracking());
    if let Some(program) = opts.command.first() {
        crate::command::check_program(program)?;
    }
    let pipe = opts.output.as_os_str() == "-";
    let cpus = online_cpus();

    // The stop signals and SIGCHLD arrive through a signalfd that poll watches (the
    // command gets them unblocked: `sys::start_with_default_signals`). SIGXFSZ is ignored:
    // a file size limit then fails the write (EFBIG), which keeps the file, instead of
    // killing perf-collect with it half written.
    let mut mask = SigSet::empty();
    for sig in crate::command::STOP_SIGNALS
        .into_iter()
        .chain([Signal::SIGCHLD])
    {
        mask.add(sig);
        crate::sys::default_disposition(sig).map_err(|source| CollectError::System {
            what: "resetting a signal's disposition",
            source,
        })?;
    }
    crate::sys::ignore(Signal::SIGXFSZ).map_err(|source| CollectError::System {
        what: "ignoring SIGXFSZ",
        source,
    })?;
    mask.thread_block().map_err(|e| CollectError::System {
        what: "blocking signals",
        source: e.into(),
    })?;
    let sigfd = SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        .map_err(|e| CollectError::System {
            what: "signalfd",
            source: e.into(),
        })?;

    let rings = rings::open(&specs, &cpus, opts)?;
    let fs = tracefs.as_ref();
    let output_err = |source: WriterError| CollectError::Output {
        path: opts.output.display().to_string(),
        source: source.into(),
    };
    if pipe {
        let (stream, out) = StdoutOutput::open()?;
        let writer = PerfPipeWriter::from_writer(stream).map_err(output_err)?;
        run(writer, Target::Stdout(out), &specs, fs, rings, &sigfd, opts)
    } else {
        let (file, out) = FileOutput::create(&opts.output)?;
        let writer = PerfDataFileWriter::from_writer(file).map_err(output_err)?;
        run(writer, Target::File(out), &specs, fs, rings, &sigfd, opts)
    }
}

/// The sampling frequency when none is given (`-F`).
pub const DEFAULT_FREQ: u64 = 4000;

/// `kernel.perf_event_max_sample_rate`, when readable: the highest frequency the kernel
/// takes for a sampled event (it lowers it on its own when sampling takes too long).
pub fn max_sample_rate() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_max_sample_rate")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The frequency sampled events are rings with: the one asked for, refused above the
/// kernel's limit (`perf_event_open` would fail with a bare EINVAL); without one,
/// [`DEFAULT_FREQ`] lowered to that limit, as `perf record` lowers its default.
fn sample_frequency(asked: Option<u64>, sampled: bool) -> Result<u64, CollectError> {
    let max = max_sample_rate().filter(|_| sampled);
    match (asked, max) {
        (Some(freq), Some(max)) if freq > max => Err(CollectError::BadArgument(format!(
            "-F {freq}: above kernel.perf_event_max_sample_rate, {max} Hz here; use -F {max} or less, or raise the limit: sysctl -w kernel.perf_event_max_sample_rate={freq}"
        ))),
        (Some(freq), _) => Ok(freq),
        (None, Some(max)) => Ok(DEFAULT_FREQ.min(max.max(1))),
        (None, None) => Ok(DEFAULT_FREQ),
    }
}

pub(crate) fn writer_err(what: &'static str) -> impl Fn(WriterError) -> CollectError {
    move |source| CollectError::Writer { what, source }
}

pub(crate) fn io_writer_err(what: &'static str) -> impl Fn(io::Error) -> CollectError {
    move |e| CollectError::Writer {
        what,
        source: WriterError::from(e),
    }
}

/// Where the recording goes.
pub(crate) enum Target {
    /// A file (a new one renamed to its path once finalized, or a device).
    File(FileOutput),
    /// A pipe-mode stream on stdout.
    Stdout(StdoutOutput),
}

impl Target {
    pub(crate) fn is_pipe(&self) -> bool {
        matches!(self, Target::Stdout(_))
    }

    /// Stdout when it is the output, to wait until it takes bytes.
    pub(crate) fn stdout(&self) -> Option<&StdoutOutput> {
        match self {
            Target::Stdout(s) => Some(s),
            Target::File(_) => None,
        }
    }

    /// Drops an output that holds no recording perf reads: a new file is removed (the path
    /// keeps what it held), a device or stdout is left as it is.
    fn discard(self) {
        if let Target::File(f) = self {
            f.discard();
        }
    }

    /// Puts a finalized recording at its path.
    fn keep(self) -> Result<(), CollectError> {
        match self {
            Target::File(f) => f.keep(),
            Target::Stdout(_) => Ok(()),
        }
    }
}

/// Describes the recording, enables the events and starts the command: everything that,
/// when it fails, leaves no output behind.
fn start<O: OutputMode>(
    w: &mut PerfWriter<O>,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    rings: &Rings,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> Result<Option<RecordedCommand>, CollectError> {
    if let Some(level) = opts.compression_level {
        w.set_compression(Some(Compression::zstd(level)))
            .map_err(writer_err("setting compression (-z)"))?;
    }
    describe(w, specs, tracefs, rings, opts, warnings)?;
    let tracking_id = rings
        .ids
        .last()
        .and_then(|ids| ids.first())
        .copied()
        .unwrap_or(0);
    if opts.synthesize_threads {
        synthesize_threads(w, tracking_id)?;
    }
    w.write_finished_init()
        .map_err(io_writer_err("writing FINISHED_INIT"))?;
    w.set_strict(opts.strict);
    for r in &rings.cpus {
        for (fd, spec) in r.fds.iter().zip(specs) {
            fd.enable().map_err(|source| CollectError::Open {
                event: spec.name.clone(),
                cpu: r.cpu,
                source,
            })?;
        }
    }
    match opts.command.split_first() {
        None => Ok(None),
        Some((program, args)) => {
            RecordedCommand::spawn(program, args, opts.output.as_os_str() == "-").map(Some)
        }
    }
}

fn run<O: OutputMode>(
    mut w: PerfWriter<O>,
    target: Target,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    mut rings: Rings,
    sigfd: &SignalFd,
    opts: &Options,
) -> Result<Summary, CollectError> {
    let mut warnings = Vec::new();
    let mut command = match start(&mut w, specs, tracefs, &rings, opts, &mut warnings) {
        Ok(command) => command,
        Err(e) => {
            w.close_no_finalize();
            target.discard();
            return Err(e);
        }
    };
    let mut stats = vec![RingStats::default(); rings.cpus.len()];
    // The file is finalized before the command is ended, so that a command slow to exit
    // (or one that ignores SIGTERM) never holds the recording back.
    let saved = match watch(
        &mut w,
        &mut rings,
        &mut stats,
        sigfd,
        command.as_mut(),
        &target,
        opts,
    ) {
        // A save that fails leaves no recording perf reads.
        Ok(stop) => {
            save(w, &mut rings, &mut stats, stop, &target, sigfd, opts).map_err(|e| (e, false))
        }
        // The recording failed: what the writer holds is kept if it still finalizes.
        Err(e) => match w.finish() {
            Ok(_) | Err(WriterError::Truncated { .. }) => Err((e, true)),
            Err(_) => {
                w.close_no_finalize();
                Err((e, false))
            }
        },
    };
    let kept = match &saved {
        Ok(_) => true,
        Err((_, kept)) => *kept,
    };
    let placed = match kept {
        true => target.keep(),
        false => {
            target.discard();
            Ok(())
        }
    };
    let command = command.map(|c| {
        c.end(sigfd, |pid| {
            crate::say!(
                "perf-collect: the recording is saved; the command (pid {pid}) has not exited {} s after SIGTERM: waiting for it (Ctrl-C or SIGTERM again kills it)",
                GRACE.as_secs()
            )
        })
    });
    let mut summary = saved.map_err(|(e, _)| e)?;
    placed?;
    summary.command = command;
    summary.warnings.splice(0..0, warnings);
    Ok(summary)
}

/// The stop an output failure means: a pipe whose reader went away, a full device (the
/// file or stream keeps what reached it); `None` for any other failure.
pub(crate) fn output_stop(e: &CollectError) -> Option<StopReason> {
    let CollectError::Writer {
        source: WriterError::Io(io),
        ..
    } = e
    else {
        return None;
    };
    match io.kind() {
        io::ErrorKind::BrokenPipe => Some(StopReason::OutputClosed),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge => {
            Some(StopReason::OutputFull)
        }
        _ => None,
    }
}
