//! The recording: opens the events on every online CPU, maps one ring buffer per CPU,
//! and copies what the kernel writes there into a [`PerfWriter`] until told to stop.

use crate::command::{Command as RecordedCommand, Ended, GRACE};
use crate::error::{perf_event_paranoid, CollectError};
use crate::events::{self, EventKind, EventSpec};
use crate::ring_reader::{self, FlightWindow, RingStats};
use crate::sys::{page_size, EventFd, Ring, Snapshot};
use crate::tracefs::Tracefs;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use perf_writer_std::perf_encode::records::{PidTid, SampleCpu, SampleId};
use perf_writer_std::{
    Compression, OutputMode, PerfDataFileWriter, PerfHeaderIndex, PerfPipeWriter, PerfWriter,
    WriterError,
};
use std::cell::Cell;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// What to record, and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Event names (`-e`), each possibly a comma-separated list.
    pub events: Vec<String>,
    /// Files of event names, one or more per line.
    pub event_files: Vec<PathBuf>,
    /// The output path; `-` writes a pipe-mode stream to stdout.
    pub output: String,
    /// Sampling frequency of counters such as cpu-clock (Hz).
    pub freq: u64,
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
            output: "perf.data".to_string(),
            freq: 4000,
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

/// A file that ends before the recording did: its output filled up, and the writer kept
/// the whole records that reached it. perf reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    /// Records in the file's data section.
    pub kept_records: u64,
    /// Bytes of the data section.
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
    /// Why it stopped.
    pub stop: StopReason,
    /// How the command ended, when one was run.
    pub command: Option<Ended>,
    /// Warnings (headers that could not be set, …), one line each.
    pub warnings: Vec<String>,
    /// The file holds only the first part of the recording: its output filled up.
    pub truncated: Option<Truncation>,
    /// Pipe mode: the bytes of the stream stdout took (all of it, unless its reader closed
    /// it first).
    pub delivered: Option<u64>,
    /// Flight-recorder mode: the rings held less time than asked (`-c`), and what they held.
    pub flight_window: Option<FlightWindow>,
}

/// Online CPUs, from `/sys/devices/system/cpu/online` (`0-3,5`), or `0..available_parallelism`.
pub fn online_cpus() -> Vec<u32> {
    if let Some(list) = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|t| parse_cpu_list(t.trim()))
    {
        return list;
    }
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    (0..n as u32).collect()
}

/// Parses a kernel CPU list (`0-3,5`).
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<u32>().ok()?..=b.parse::<u32>().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    (!cpus.is_empty()).then_some(cpus)
}

/// The opened events: per CPU, the ring buffer and every event's descriptor.
struct Opened {
    /// Per CPU: (cpu, ring, descriptors in `specs` order; the first owns the ring).
    cpus: Vec<(u32, Ring, Vec<EventFd>)>,
    /// Per event: the ids of its descriptors (one per CPU).
    ids: Vec<Vec<u64>>,
    /// The events were opened with `PERF_FORMAT_LOST`.
    read_lost: bool,
}

/// The wakeup watermark: a quarter of the ring (the kernel's default is half).
fn wakeup_bytes(opts: &Options) -> u32 {
    let data_size = opts.mmap_pages.saturating_mul(page_size());
    u32::try_from(data_size / 4).unwrap_or(u32::MAX).max(1)
}

/// True when this kernel takes `PERF_FORMAT_LOST` (6.0 and later) for `spec` on `cpu`.
fn kernel_reads_lost(spec: &EventSpec, cpu: u32, opts: &Options) -> bool {
    let attr = perf_abi::PerfEventAttr::from(&spec.attr(
        wakeup_bytes(opts),
        opts.freq,
        true,
        opts.flight_recorder.is_some(),
    ));
    match EventFd::open(&attr, -1, cpu as i32) {
        Ok(_) => true,
        Err(e) => e.raw_os_error() != Some(nix::libc::EINVAL),
    }
}

fn open_events(specs: &[EventSpec], cpus: &[u32], opts: &Options) -> Result<Opened, CollectError> {
    let data_size = opts.mmap_pages.saturating_mul(page_size());
    let wakeup = wakeup_bytes(opts);
    let read_lost = match (specs.first(), cpus.first()) {
        (Some(spec), Some(&cpu)) => kernel_reads_lost(spec, cpu, opts),
        _ => false,
    };
    let attrs: Vec<perf_abi::PerfEventAttr> = specs
        .iter()
        .map(|s| {
            perf_abi::PerfEventAttr::from(&s.attr(
                wakeup,
                opts.freq,
                read_lost,
                opts.flight_recorder.is_some(),
            ))
        })
        .collect();
    let mut opened = Opened {
        cpus: Vec::with_capacity(cpus.len()),
        ids: vec![Vec::with_capacity(cpus.len()); specs.len()],
        read_lost,
    };
    for &cpu in cpus {
        let mut fds: Vec<EventFd> = Vec::with_capacity(specs.len());
        let mut ring = None;
        for (i, (spec, attr)) in specs.iter().zip(&attrs).enumerate() {
            let fd = EventFd::open(attr, -1, cpu as i32).map_err(|e| open_error(spec, cpu, e))?;
            match &ring {
                None => {
                    let overwrite = opts.flight_recorder.is_some();
                    let mapped = Ring::map(&fd, opts.mmap_pages, overwrite).map_err(|source| {
                        CollectError::Mmap {
                            cpu,
                            kib: data_size / 1024,
                            source,
                        }
                    })?;
                    ring = Some(mapped);
                }
                Some(_) => {
                    let owner = fds.first().ok_or_else(|| CollectError::System {
                        what: "ring buffer owner missing",
                        source: io::Error::from(io::ErrorKind::Other),
                    })?;
                    fd.set_output(owner).map_err(|source| CollectError::Open {
                        event: spec.name.clone(),
                        cpu,
                        source,
                    })?
                }
            }
            let id = fd.id().map_err(|source| CollectError::Open {
                event: spec.name.clone(),
                cpu,
                source,
            })?;
            opened.ids[i].push(id);
            fds.push(fd);
        }
        if let Some(ring) = ring {
            opened.cpus.push((cpu, ring, fds));
        }
    }
    Ok(opened)
}

fn open_error(spec: &EventSpec, cpu: u32, source: io::Error) -> CollectError {
    match source.raw_os_error() {
        Some(nix::libc::EACCES) | Some(nix::libc::EPERM) => CollectError::Permission {
            event: spec.name.clone(),
            paranoid: perf_event_paranoid(),
            source,
        },
        Some(nix::libc::ENOENT) | Some(nix::libc::ENODEV) | Some(nix::libc::EOPNOTSUPP) => {
            CollectError::NotSupported {
                event: spec.name.clone(),
                source,
            }
        }
        _ => CollectError::Open {
            event: spec.name.clone(),
            cpu,
            source,
        },
    }
}

/// Records as `opts` says. Errors in what was asked (events, permissions, tracefs, output)
/// come before the output is created; an output created before a later failure to start
/// (the command cannot run) is removed.
pub fn record(opts: &Options) -> Result<Summary, CollectError> {
    crate::cli::check_mmap_pages(opts.mmap_pages)
        .map_err(|why| CollectError::BadArgument(format!("-m {}: {why}", opts.mmap_pages)))?;
    crate::cli::check_frequency(opts.freq)
        .map_err(|why| CollectError::BadArgument(format!("-F {}: {why}", opts.freq)))?;
    let names = events::collect_names(&opts.events, &opts.event_files)?;
    let (mut specs, tracefs) = events::resolve(&names, opts.tracefs.as_deref())?;
    if specs
        .iter()
        .any(|s| matches!(s.kind, EventKind::Counter { .. }))
    {
        check_sample_rate(opts.freq)?;
    }
    specs.push(EventSpec::tracking());
    if let Some(program) = opts.command.first() {
        check_program(program)?;
    }
    let cpus = online_cpus();

    // SIGINT, SIGTERM and SIGCHLD arrive through a signalfd that poll watches (the command
    // gets them unblocked: `sys::start_with_default_signals`).
    let mut mask = SigSet::empty();
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGCHLD] {
        mask.add(sig);
        crate::sys::default_disposition(sig).map_err(|source| CollectError::System {
            what: "resetting a signal's disposition",
            source,
        })?;
    }
    mask.thread_block().map_err(|e| CollectError::System {
        what: "blocking signals",
        source: e.into(),
    })?;
    let sigfd = SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        .map_err(|e| CollectError::System {
            what: "signalfd",
            source: e.into(),
        })?;

    let opened = open_events(&specs, &cpus, opts)?;

    if opts.output == "-" {
        let out = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map_err(|source| CollectError::Output {
                path: "-".into(),
                source,
            })?;
        let taken = Rc::new(Cell::new(0));
        let stdout = CountedStdout {
            out: File::from(out),
            taken: Rc::clone(&taken),
        };
        let writer = PerfPipeWriter::from_writer(stdout).map_err(|e| CollectError::Output {
            path: "-".into(),
            source: e.into(),
        })?;
        let target = Target::Stdout(taken);
        run(
            writer,
            &target,
            &specs,
            tracefs.as_ref(),
            opened,
            &sigfd,
            opts,
        )
    } else {
        let mut writer = PerfDataFileWriter::new();
        writer
            .create_file(&opts.output)
            .map_err(|source| CollectError::Output {
                path: opts.output.clone(),
                source,
            })?;
        let target = Target::File(PathBuf::from(&opts.output));
        run(
            writer,
            &target,
            &specs,
            tracefs.as_ref(),
            opened,
            &sigfd,
            opts,
        )
    }
}

/// `kernel.perf_event_max_sample_rate`, when readable: the highest frequency the kernel
/// takes for a sampled event (it lowers it on its own when sampling takes too long).
pub fn max_sample_rate() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_max_sample_rate")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Refuses a sampling frequency above the kernel's limit (`perf_event_open` would fail
/// with a bare EINVAL).
fn check_sample_rate(freq: u64) -> Result<(), CollectError> {
    match max_sample_rate() {
        Some(max) if freq > max => Err(CollectError::BadArgument(format!(
            "-F {freq}: above kernel.perf_event_max_sample_rate, {max} Hz here; use -F {max} or less, or raise the limit: sysctl -w kernel.perf_event_max_sample_rate={freq}"
        ))),
        _ => Ok(()),
    }
}

/// Refuses a command that cannot be found before anything is created.
fn check_program(program: &OsString) -> Result<(), CollectError> {
    let p = std::path::Path::new(program);
    let found = if p.components().count() > 1 {
        p.is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(p).is_file()))
    };
    match found {
        true => Ok(()),
        false => Err(CollectError::Command {
            program: program.to_string_lossy().into_owned(),
            source: io::Error::from(io::ErrorKind::NotFound),
        }),
    }
}

fn writer_err(what: &'static str) -> impl Fn(WriterError) -> CollectError {
    move |source| CollectError::Writer { what, source }
}

fn io_writer_err(what: &'static str) -> impl Fn(io::Error) -> CollectError {
    move |e| CollectError::Writer {
        what,
        source: WriterError::from(e),
    }
}

/// Describes the recording to the writer: events, tracing data, host headers.
fn describe<O: OutputMode>(
    w: &mut PerfWriter<O>,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    opened: &Opened,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> Result<(), CollectError> {
    if let Err(e) = w.set_host_headers_from_this_machine() {
        warnings.push(format!("a host header was left out: {e}"));
    }
    if let Some(fs) = tracefs {
        for (file, what) in [("header_page", 0), ("header_event", 1)] {
            if let Some(text) = fs.events_file(file) {
                let set = match what {
                    0 => w.try_set_tracing_data_header_page(&text),
                    _ => w.try_set_tracing_data_header_event(&text),
                };
                if let Err(e) = set {
                    warnings.push(format!("tracefs {file} left out: {e}"));
                }
            }
        }
        if let Some(text) = fs.printk_formats() {
            if let Err(e) = w.try_set_tracing_data_printk(&text) {
                warnings.push(format!("tracefs printk_formats left out: {e}"));
            }
        }
    }
    let wakeup = wakeup_bytes(opts);
    for (spec, ids) in specs.iter().zip(&opened.ids) {
        let attr = spec.attr(
            wakeup,
            opts.freq,
            opened.read_lost,
            opts.flight_recorder.is_some(),
        );
        match &spec.kind {
            EventKind::Tracepoint(f) => {
                w.add_tracepoint_event_desc_from_text(ids, &attr, &spec.name, &f.system, &f.text)
                    .map_err(writer_err("describing a tracepoint"))?;
            }
            _ => w
                .try_add_event_desc(ids, &attr, &spec.name)
                .map_err(writer_err("describing an event"))?,
        }
    }
    Ok(())
}

/// COMM records for the threads that exist now (as `perf record` synthesizes them), so
/// that their samples are named. Time 0: before every record of the recording.
fn synthesize_threads<O: OutputMode>(
    w: &mut PerfWriter<O>,
    tracking_id: u64,
) -> Result<u64, CollectError> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Ok(0);
    };
    let mut n = 0;
    let mut comm = Vec::with_capacity(16);
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let Some(tid) = task
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(text) = std::fs::read(task.path().join("comm")) else {
                continue;
            };
            comm.clear();
            comm.extend_from_slice(text.strip_suffix(b"\n").unwrap_or(&text));
            let trailer = SampleId {
                tid: Some(PidTid { pid, tid }),
                time: Some(0),
                cpu: Some(SampleCpu { cpu: 0, res: 0 }),
                identifier: Some(tracking_id),
                ..Default::default()
            };
            w.write_comm(pid, tid, &comm, false, &trailer)
                .map_err(writer_err("writing the COMM of a running thread"))?;
            n += 1;
        }
    }
    Ok(n)
}

/// Where the recording goes.
enum Target {
    /// A file, removed when the recording cannot start.
    File(PathBuf),
    /// A pipe-mode stream on stdout; the count of bytes its reader took.
    Stdout(Rc<Cell<u64>>),
}

impl Target {
    fn is_pipe(&self) -> bool {
        matches!(self, Target::Stdout(_))
    }

    /// Removes an output that is not a recording perf reads, when it is a regular file
    /// (an output such as `/dev/null` or a FIFO is left alone).
    fn remove_unusable(&self) {
        if let Target::File(p) = self {
            if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Stdout, counting the bytes it took (to say how much a reader that closed the pipe got).
struct CountedStdout {
    out: File,
    taken: Rc<Cell<u64>>,
}

impl Write for CountedStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.taken.set(self.taken.get().saturating_add(n as u64));
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Describes the recording, enables the events and starts the command: everything that,
/// when it fails, leaves no output behind.
fn start<O: OutputMode>(
    w: &mut PerfWriter<O>,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    opened: &Opened,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> Result<Option<RecordedCommand>, CollectError> {
    if let Some(level) = opts.compression_level {
        w.set_compression(Some(Compression::zstd(level)))
            .map_err(writer_err("setting compression (-z)"))?;
    }
    describe(w, specs, tracefs, opened, opts, warnings)?;
    let tracking_id = opened
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
    for (cpu, _, fds) in &opened.cpus {
        for (fd, spec) in fds.iter().zip(specs) {
            fd.enable().map_err(|source| CollectError::Open {
                event: spec.name.clone(),
                cpu: *cpu,
                source,
            })?;
        }
    }
    match opts.command.split_first() {
        None => Ok(None),
        Some((program, args)) => {
            RecordedCommand::spawn(program, args, opts.output == "-").map(Some)
        }
    }
}

fn run<O: OutputMode>(
    mut w: PerfWriter<O>,
    target: &Target,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    mut opened: Opened,
    sigfd: &SignalFd,
    opts: &Options,
) -> Result<Summary, CollectError> {
    let mut warnings = Vec::new();
    let mut command = match start(&mut w, specs, tracefs, &opened, opts, &mut warnings) {
        Ok(command) => command,
        Err(e) => {
            w.close_no_finalize();
            target.remove_unusable();
            return Err(e);
        }
    };
    let mut stats = vec![RingStats::default(); opened.cpus.len()];
    // The file is finalized before the command is ended, so that a command slow to exit
    // (or one that ignores SIGTERM) never holds the recording back.
    let saved = match watch(
        &mut w,
        &mut opened,
        &mut stats,
        sigfd,
        command.as_mut(),
        target,
        opts,
    ) {
        Ok(stop) => save(w, &mut opened, &mut stats, stop, target, opts),
        Err(e) => {
            drop(w);
            Err(e)
        }
    };
    let command = command.map(|c| {
        c.end(sigfd, |pid| {
            eprintln!(
                "perf-collect: the recording is saved; the command (pid {pid}) has not exited {} s after SIGTERM: waiting for it (Ctrl-C or SIGTERM again kills it)",
                GRACE.as_secs()
            )
        })
    });
    let mut summary = saved?;
    summary.command = command;
    summary.warnings.splice(0..0, warnings);
    Ok(summary)
}

/// Records until the command exits, SIGINT / SIGTERM, the duration passes, or the output
/// is closed or full; returns why it stopped.
fn watch<O: OutputMode>(
    w: &mut PerfWriter<O>,
    opened: &mut Opened,
    stats: &mut [RingStats],
    sigfd: &SignalFd,
    mut command: Option<&mut RecordedCommand>,
    target: &Target,
    opts: &Options,
) -> Result<StopReason, CollectError> {
    let pipe = target.is_pipe();
    let flight = opts.flight_recorder.is_some();
    // (A flight recorder writes nothing until it stops: no progress to show.)
    let progress = opts.progress && !flight && io::stderr().is_terminal();
    let start = Instant::now();
    // A duration beyond what the clock can add is no deadline.
    let deadline = opts.duration.and_then(|d| start.checked_add(d));
    let mut last_progress = start;
    loop {
        // Sleep until a ring passes its watermark, a signal, the deadline, or (for the
        // progress line and a live pipe) a second at most.
        let mut wait: Option<Duration> =
            deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if progress || pipe {
            wait = Some(wait.map_or(Duration::from_secs(1), |w| w.min(Duration::from_secs(1))));
        }
        let timeout = match wait {
            Some(d) => PollTimeout::try_from(d.as_millis().max(1)).unwrap_or(PollTimeout::MAX),
            None => PollTimeout::NONE,
        };
        {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(opened.cpus.len() + 1);
            fds.push(PollFd::new(sigfd.as_fd(), PollFlags::POLLIN));
            if !flight {
                for (_, _, evs) in &opened.cpus {
                    if let Some(owner) = evs.first() {
                        fds.push(PollFd::new(owner.as_fd(), PollFlags::POLLIN));
                    }
                }
            }
            match poll(&mut fds, timeout) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(e) => {
                    return Err(CollectError::System {
                        what: "poll",
                        source: e.into(),
                    })
                }
            }
        }
        if !flight {
            if let Err(e) = drain_all(w, opened, stats) {
                return output_stop(&e, pipe).ok_or(e);
            }
            if pipe {
                if let Err(e) = w.flush() {
                    let e = writer_err("writing the output")(e);
                    return output_stop(&e, pipe).ok_or(e);
                }
            }
        }
        if progress && last_progress.elapsed() >= Duration::from_secs(1) {
            last_progress = Instant::now();
            print_progress(&RingStats::total(stats), start.elapsed());
        }
        let mut stop = None;
        while let Ok(Some(info)) = sigfd.read_signal() {
            let signo = info.ssi_signo as i32;
            if signo == Signal::SIGCHLD as i32 {
                if command.as_mut().is_some_and(|c| c.try_ended().is_some()) {
                    stop = Some(StopReason::CommandExited);
                }
            } else if signo == Signal::SIGINT as i32 || signo == Signal::SIGTERM as i32 {
                stop = stop.or(Some(StopReason::Signal(signo)));
            }
        }
        if let Some(s) = stop {
            return Ok(s);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(StopReason::Duration);
        }
    }
}

/// Takes what the rings still hold and finalizes the output.
fn save<O: OutputMode>(
    mut w: PerfWriter<O>,
    opened: &mut Opened,
    stats: &mut [RingStats],
    mut stop: StopReason,
    target: &Target,
    opts: &Options,
) -> Result<Summary, CollectError> {
    let pipe = target.is_pipe();
    // Nothing new after this; then take what is left.
    for (_, _, fds) in &opened.cpus {
        for fd in fds {
            let _ = fd.disable();
        }
    }
    let mut flight_window = None;
    let output_ok =
        |stop: StopReason| !matches!(stop, StopReason::OutputClosed | StopReason::OutputFull);
    if output_ok(stop) {
        let taken = match opts.flight_recorder {
            Some(window) => {
                let snaps: Vec<Snapshot> =
                    opened.cpus.iter().map(|(_, r, _)| r.snapshot()).collect();
                let written = ring_reader::write_snapshots(&snaps, &mut w, stats, window)
                    .map(|coverage| flight_window = coverage);
                written.and_then(|()| {
                    w.write_finished_round()
                        .map_err(io_writer_err("writing FINISHED_ROUND"))
                })
            }
            None => drain_all(&mut w, opened, stats),
        };
        let taken = taken.and_then(|()| add_unreported_losses(&mut w, opened, stats));
        if let Err(e) = taken {
            stop = output_stop(&e, pipe).ok_or(e)?;
        }
    }
    // SAMPLE_TIME and (when the host description had none) NRCPUS, from the records:
    // counted on the way, so that the writer's own derivation, which would walk every
    // record again, stays off.
    let total = RingStats::total(stats);
    if let Some((first, last)) = total.sample_time {
        w.set_sample_time_header(first, last);
    }
    if !w.has_header(PerfHeaderIndex::NrCpus) {
        let n = total
            .max_cpu
            .map_or(0, |c| c.saturating_add(1))
            .max(opened.cpus.iter().map(|(c, ..)| c + 1).max().unwrap_or(1));
        w.set_nr_cpus_header(n, n);
    }
    let mut truncated = None;
    match w.finish() {
        Ok(_) => {}
        Err(WriterError::Truncated {
            kept_records,
            kept_bytes,
            error,
        }) => {
            stop = StopReason::OutputFull;
            truncated = Some(Truncation {
                kept_records,
                kept_bytes,
                error: error.to_string(),
            });
        }
        Err(e) if pipe && broken_pipe(&e) => stop = StopReason::OutputClosed,
        Err(e) => {
            // Not even an empty recording fits what the output took: it is not a file perf
            // reads, so it is not left looking like one.
            let full = matches!(&e, WriterError::Io(io) if is_full(io));
            w.close_no_finalize();
            if !full {
                return Err(writer_err("finishing the output")(e));
            }
            target.remove_unusable();
            return Err(CollectError::OutputFull {
                path: opts.output.clone(),
                source: e,
            });
        }
    }
    Ok(Summary {
        stats: total,
        cpus: opened.cpus.len(),
        stop,
        command: None,
        warnings: Vec::new(),
        truncated,
        delivered: match target {
            Target::Stdout(taken) => Some(taken.get()),
            Target::File(_) => None,
        },
        flight_window,
    })
}

/// The stop an output failure means: a pipe whose reader went away, a file on a full
/// device (both still end in a readable recording); `None` for any other failure.
fn output_stop(e: &CollectError, pipe: bool) -> Option<StopReason> {
    let CollectError::Writer { source, .. } = e else {
        return None;
    };
    match source {
        s if pipe && broken_pipe(s) => Some(StopReason::OutputClosed),
        WriterError::Io(io) if !pipe && is_full(io) => Some(StopReason::OutputFull),
        _ => None,
    }
}

/// An output that says it is full (the writer then keeps what reached it).
fn is_full(e: &perf_writer_std::SharedIoError) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge
    )
}

fn broken_pipe(e: &WriterError) -> bool {
    matches!(e, WriterError::Io(io) if io.kind() == io::ErrorKind::BrokenPipe)
}

fn drain_all<O: OutputMode>(
    w: &mut PerfWriter<O>,
    opened: &mut Opened,
    stats: &mut [RingStats],
) -> Result<(), CollectError> {
    let mut wrote = false;
    for ((_, ring, _), stats) in opened.cpus.iter_mut().zip(stats) {
        wrote |= ring_reader::drain(ring, w, stats)?;
    }
    if wrote {
        w.write_finished_round()
            .map_err(io_writer_err("writing FINISHED_ROUND"))?;
    }
    Ok(())
}

/// The kernel writes a LOST record only when a record fits again: records dropped just
/// before the events were disabled are never reported that way. Their count is in each
/// event's `PERF_FORMAT_LOST` value: what it adds up to beyond the LOST records of a ring
/// goes into the file as one more LOST record of that ring (timed after its last record).
fn add_unreported_losses<O: OutputMode>(
    w: &mut PerfWriter<O>,
    opened: &Opened,
    stats: &mut [RingStats],
) -> Result<(), CollectError> {
    if !opened.read_lost {
        return Ok(());
    }
    let last_time = stats.iter().map(|s| s.last_time).max().unwrap_or(0);
    for ((cpu, _, fds), stats) in opened.cpus.iter().zip(stats) {
        let lost: u64 = fds.iter().filter_map(|fd| fd.read_lost().ok()).sum();
        let missing = lost.saturating_sub(stats.lost_events);
        let Some(owner) = fds.first() else { continue };
        if missing == 0 {
            continue;
        }
        let id = owner.id().map_err(|source| CollectError::System {
            what: "reading an event id",
            source,
        })?;
        let trailer = SampleId {
            tid: Some(PidTid {
                pid: u32::MAX,
                tid: u32::MAX,
            }),
            time: Some(last_time),
            cpu: Some(SampleCpu { cpu: *cpu, res: 0 }),
            identifier: Some(id),
            ..Default::default()
        };
        w.write_lost(id, missing, &trailer)
            .map_err(writer_err("writing a LOST record"))?;
        stats.lost_events += missing;
        stats.lost_records += 1;
        stats.lost_added += missing;
    }
    w.write_finished_round()
        .map_err(io_writer_err("writing FINISHED_ROUND"))?;
    Ok(())
}

fn print_progress(stats: &RingStats, elapsed: Duration) {
    let mut err = io::stderr().lock();
    let _ = write!(
        err,
        "\rperf-collect: {:.0} s, {} events, {:.1} MB, {} lost   ",
        elapsed.as_secs_f64(),
        stats.samples,
        stats.bytes as f64 / 1e6,
        stats.lost_events
    );
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0"), Some(vec![0]));
        assert_eq!(parse_cpu_list("0-3,5,7-8"), Some(vec![0, 1, 2, 3, 5, 7, 8]));
        assert_eq!(parse_cpu_list(""), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert!(!online_cpus().is_empty());
    }
}
