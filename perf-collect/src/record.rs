//! The recording: opens the events on every online CPU, maps one ring buffer per CPU,
//! and copies what the kernel writes there into a [`PerfWriter`] until told to stop.

use crate::command::{Command as RecordedCommand, Ended, GRACE};
use crate::error::{perf_event_paranoid, CollectError};
use crate::events::{self, EventKind, EventSpec};
use crate::output::{FileOutput, StdoutOutput};
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
use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
        opts.freq.unwrap_or(DEFAULT_FREQ),
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
                opts.freq.unwrap_or(DEFAULT_FREQ),
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

    let opened = open_events(&specs, &cpus, opts)?;
    let fs = tracefs.as_ref();
    let output_err = |source: WriterError| CollectError::Output {
        path: opts.output.display().to_string(),
        source: source.into(),
    };
    if pipe {
        let (stream, out) = StdoutOutput::open()?;
        let writer = PerfPipeWriter::from_writer(stream).map_err(output_err)?;
        run(
            writer,
            Target::Stdout(out),
            &specs,
            fs,
            opened,
            &sigfd,
            opts,
        )
    } else {
        let (file, out) = FileOutput::create(&opts.output)?;
        let writer = PerfDataFileWriter::from_writer(file).map_err(output_err)?;
        run(writer, Target::File(out), &specs, fs, opened, &sigfd, opts)
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

/// The frequency sampled events are opened with: the one asked for, refused above the
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
            opts.freq.unwrap_or(DEFAULT_FREQ),
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
    /// A file (a new one renamed to its path once finalized, or a device).
    File(FileOutput),
    /// A pipe-mode stream on stdout.
    Stdout(StdoutOutput),
}

impl Target {
    fn is_pipe(&self) -> bool {
        matches!(self, Target::Stdout(_))
    }

    /// Stdout when it is the output, to wait until it takes bytes.
    fn stdout(&self) -> Option<&StdoutOutput> {
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

/// Bytes of records moved from one ring to the writer at a time: between two such moves
/// the signals are looked at, so that a recording stops at once even when its rings hold
/// hundreds of MB to compress.
const DRAIN_CHUNK: usize = 1024 * 1024;

/// How long a stream's reader may take nothing, once the recording stopped, before the
/// stream is given up.
const STALL: Duration = Duration::from_secs(2);

/// How long saving may take before perf-collect says so (and a second signal cuts it).
const SAVING_NOTICE: Duration = Duration::from_secs(1);

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
            RecordedCommand::spawn(program, args, opts.output.as_os_str() == "-").map(Some)
        }
    }
}

fn run<O: OutputMode>(
    mut w: PerfWriter<O>,
    target: Target,
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
            target.discard();
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
        &target,
        opts,
    ) {
        // A save that fails leaves no recording perf reads.
        Ok(stop) => {
            save(w, &mut opened, &mut stats, stop, &target, sigfd, opts).map_err(|e| (e, false))
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

/// What the rings' drains of one pass did.
#[derive(Clone, Copy, Debug, Default)]
struct Pass {
    /// Records went to the writer.
    wrote: bool,
    /// Bytes the rings still held at the end (a ring reached [`DRAIN_CHUNK`]).
    left: u64,
}

/// Moves up to [`DRAIN_CHUNK`] bytes of each ring into the writer.
fn drain_pass<O: OutputMode>(
    w: &mut PerfWriter<O>,
    opened: &mut Opened,
    stats: &mut [RingStats],
) -> Result<Pass, CollectError> {
    let mut pass = Pass::default();
    for ((_, ring, _), stats) in opened.cpus.iter_mut().zip(stats) {
        let d = ring_reader::drain(ring, w, stats, DRAIN_CHUNK)?;
        pass.wrote |= d.wrote;
        pass.left += d.left as u64;
    }
    Ok(pass)
}

/// When FINISHED_ROUND records go in: after a pass that left every ring empty, when
/// records were written since the last one. perf sorts the records up to the latest time
/// of the round before the last one; a ring left partly unread would break that, so a
/// round spans passes until one reads everything.
#[derive(Clone, Copy, Debug, Default)]
struct Rounds {
    /// Records went to the writer since the last FINISHED_ROUND.
    wrote: bool,
    /// A FINISHED_ROUND is due before the next records (it could not be written yet).
    due: bool,
}

impl Rounds {
    /// Counts a pass.
    fn after(&mut self, pass: Pass) {
        self.wrote |= pass.wrote;
        if pass.left == 0 && self.wrote {
            self.due = true;
        }
    }

    /// Writes the FINISHED_ROUND that is due.
    fn write<O: OutputMode>(&mut self, w: &mut PerfWriter<O>) -> Result<(), CollectError> {
        if self.due {
            w.write_finished_round()
                .map_err(io_writer_err("writing FINISHED_ROUND"))?;
            *self = Rounds::default();
        }
        Ok(())
    }
}

/// The stream would block: stdout is a full pipe whose reader has not taken its bytes.
fn would_block(e: &CollectError) -> bool {
    matches!(e, CollectError::Writer { source: WriterError::Io(io), .. } if io.kind() == io::ErrorKind::WouldBlock)
}

/// Records until the command exits, SIGINT / SIGTERM / SIGHUP, the duration passes, or
/// the output is closed or full; returns why it stopped.
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
    let mut rounds = Rounds::default();
    // The stream's pipe is full: wait until it takes bytes, not for the rings.
    let mut blocked = false;
    let mut left = 0u64;
    let stop = loop {
        // Sleep until a ring passes its watermark (or stdout can take bytes again), a
        // signal, the deadline, or (for the progress line and a live pipe) a second at
        // most; not at all while a ring holds more than one pass took.
        let mut wait: Option<Duration> =
            deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if progress || pipe {
            wait = Some(wait.map_or(Duration::from_secs(1), |w| w.min(Duration::from_secs(1))));
        }
        if left > 0 && !blocked {
            wait = Some(Duration::ZERO);
        }
        let timeout = match wait {
            Some(Duration::ZERO) => PollTimeout::ZERO,
            Some(d) => PollTimeout::try_from(d.as_millis().max(1)).unwrap_or(PollTimeout::MAX),
            None => PollTimeout::NONE,
        };
        {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(opened.cpus.len() + 1);
            fds.push(PollFd::new(sigfd.as_fd(), PollFlags::POLLIN));
            match (blocked, target.stdout()) {
                (true, Some(out)) => fds.push(PollFd::new(out.as_fd(), PollFlags::POLLOUT)),
                _ if !flight => {
                    for (_, _, evs) in &opened.cpus {
                        if let Some(owner) = evs.first() {
                            fds.push(PollFd::new(owner.as_fd(), PollFlags::POLLIN));
                        }
                    }
                }
                _ => {}
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
            let moved = rounds.write(w).and_then(|()| {
                let pass = drain_pass(w, opened, stats)?;
                rounds.after(pass);
                left = pass.left;
                rounds.write(w)?;
                if pipe {
                    w.flush().map_err(writer_err("writing the output"))?;
                }
                Ok(())
            });
            blocked = false;
            match moved {
                Ok(()) => {}
                Err(e) if would_block(&e) => blocked = true,
                Err(e) => match output_stop(&e) {
                    Some(stop) => break stop,
                    None => return Err(e),
                },
            }
        }
        if progress && last_progress.elapsed() >= Duration::from_secs(1) {
            last_progress = Instant::now();
            print_progress(&RingStats::total(stats), start.elapsed());
        }
        // A signal that came with the command's end is why it ended (a terminal or
        // `timeout` signals the whole process group).
        let mut signal = None;
        let mut exited = false;
        while let Ok(Some(info)) = sigfd.read_signal() {
            let signo = info.ssi_signo as i32;
            if signo == Signal::SIGCHLD as i32 {
                exited |= command.as_mut().is_some_and(|c| c.try_ended().is_some());
            } else if crate::command::is_stop_signal(signo) {
                signal = signal.or(Some(signo));
            }
        }
        match (signal, exited) {
            (Some(signo), _) => break StopReason::Signal(signo),
            (None, true) => break StopReason::CommandExited,
            (None, false) => {}
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break StopReason::Duration;
        }
    };
    if progress {
        crate::say!();
    }
    Ok(stop)
}

/// How saving goes.
#[derive(Clone, Copy, Debug, Default)]
struct Saving {
    /// When saving started.
    started: Option<Instant>,
    /// Saving was announced (a second signal now cuts it).
    announced: bool,
}

/// Runs `step` until it does not fail for a full stream: between tries, waits until
/// stdout takes bytes. Gives up (the stream is `Stalled`) when stdout takes nothing for
/// [`STALL`].
fn through_stream<T, O: OutputMode>(
    w: &mut PerfWriter<O>,
    target: &Target,
    mut step: impl FnMut(&mut PerfWriter<O>) -> Result<T, CollectError>,
) -> Result<T, CollectError> {
    let mut since = Instant::now();
    let mut taken = target.stdout().map_or(0, |s| s.taken());
    loop {
        let e = match step(w) {
            Err(e) if would_block(&e) => e,
            other => return other,
        };
        let Some(out) = target.stdout() else {
            return Err(e);
        };
        if out.taken() != taken {
            taken = out.taken();
            since = Instant::now();
        }
        let left = STALL.saturating_sub(since.elapsed());
        if left.is_zero() {
            return Err(CollectError::Stalled { taken });
        }
        let mut fds = [PollFd::new(out.as_fd(), PollFlags::POLLOUT)];
        let ms = PollTimeout::try_from(left.as_millis().max(1)).unwrap_or(PollTimeout::MAX);
        let _ = poll(&mut fds, ms);
    }
}

/// Takes what the rings still hold and finalizes the output.
#[allow(clippy::too_many_arguments)]
fn save<O: OutputMode>(
    mut w: PerfWriter<O>,
    opened: &mut Opened,
    stats: &mut [RingStats],
    stop: StopReason,
    target: &Target,
    sigfd: &SignalFd,
    opts: &Options,
) -> Result<Summary, CollectError> {
    // Nothing new after this; then take what is left.
    for (_, _, fds) in &opened.cpus {
        for fd in fds {
            let _ = fd.disable();
        }
    }
    let mut summary = Summary {
        stats: RingStats::default(),
        cpus: opened.cpus.len(),
        stop,
        command: None,
        warnings: Vec::new(),
        truncated: None,
        delivered: None,
        reader_closed: stop == StopReason::OutputClosed,
        stalled: false,
        unsaved_bytes: 0,
        flight_window: None,
    };
    let mut saving = Saving::default();
    let mut rounds = Rounds::default();
    let mut output_error = None;
    // An output closed or full takes nothing more.
    if !matches!(stop, StopReason::OutputClosed | StopReason::OutputFull) {
        let taken = match opts.flight_recorder {
            Some(window) => {
                let snaps: Vec<Snapshot> =
                    opened.cpus.iter().map(|(_, r, _)| r.snapshot()).collect();
                through_stream(&mut w, target, |w| {
                    summary.flight_window = ring_reader::write_snapshots(&snaps, w, stats, window)?;
                    Ok(())
                })
                .and_then(|()| {
                    rounds.due = true;
                    through_stream(&mut w, target, |w| rounds.write(w))
                })
            }
            None => drain_for_save(
                &mut w,
                opened,
                stats,
                target,
                sigfd,
                &mut saving,
                &mut rounds,
            )
            .map(|unsaved| summary.unsaved_bytes = unsaved),
        };
        let taken = taken.and_then(|()| {
            through_stream(&mut w, target, |w| add_unreported_losses(w, opened, stats))
        });
        if let Err(e) = taken {
            output_error = Some(e);
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
    summary.stats = total;
    // A full output is finished all the same: the writer keeps what reached it.
    let finished = match output_error {
        Some(e) if output_stop(&e) != Some(StopReason::OutputFull) => Err(e),
        _ => through_stream(&mut w, target, |w| {
            w.finish()
                .map(drop)
                .map_err(writer_err("finishing the output"))
        }),
    };
    summary.delivered = target.stdout().map(|s| s.taken());
    let failure = match finished {
        Ok(()) => return Ok(summary),
        Err(e) => e,
    };
    match failure {
        CollectError::Writer {
            source:
                WriterError::Truncated {
                    kept_records,
                    kept_bytes,
                    error,
                },
            ..
        } => {
            summary.truncated = Some(Truncation {
                kept_records: Some(kept_records),
                kept_bytes,
                error: error.to_string(),
            });
            Ok(summary)
        }
        CollectError::Stalled { .. } => {
            w.close_no_finalize();
            summary.stalled = true;
            Ok(summary)
        }
        e => match (output_stop(&e), target) {
            (Some(StopReason::OutputClosed), _) => {
                w.close_no_finalize();
                summary.reader_closed = true;
                Ok(summary)
            }
            (Some(StopReason::OutputFull), Target::Stdout(out)) => {
                w.close_no_finalize();
                summary.truncated = Some(Truncation {
                    kept_records: None,
                    kept_bytes: out.taken(),
                    error: full_error(&e),
                });
                Ok(summary)
            }
            (Some(StopReason::OutputFull), Target::File(_)) => {
                // Not even an empty recording fits what the output took.
                w.close_no_finalize();
                let CollectError::Writer { source, .. } = e else {
                    return Err(e);
                };
                Err(CollectError::OutputFull {
                    path: opts.output.display().to_string(),
                    source,
                })
            }
            _ => {
                // The output failed otherwise: the writer, dropped, keeps what it can.
                drop(w);
                Err(e)
            }
        },
    }
}

/// The output's error of a full output, for the report.
fn full_error(e: &CollectError) -> String {
    match e {
        CollectError::Writer { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// The rings' last records into the writer, a chunk at a time. Saving that takes longer
/// than [`SAVING_NOTICE`] is announced, and a stop signal after that leaves the rest out;
/// returns the bytes left out.
fn drain_for_save<O: OutputMode>(
    w: &mut PerfWriter<O>,
    opened: &mut Opened,
    stats: &mut [RingStats],
    target: &Target,
    sigfd: &SignalFd,
    saving: &mut Saving,
    rounds: &mut Rounds,
) -> Result<u64, CollectError> {
    let started = *saving.started.get_or_insert_with(Instant::now);
    loop {
        let pass = through_stream(w, target, |w| {
            rounds.write(w)?;
            drain_pass(w, opened, stats)
        })?;
        rounds.after(pass);
        if pass.left == 0 {
            rounds.due |= rounds.wrote;
            through_stream(w, target, |w| rounds.write(w))?;
            return Ok(0);
        }
        let mut cut = false;
        while let Ok(Some(info)) = sigfd.read_signal() {
            cut |= saving.announced && crate::command::is_stop_signal(info.ssi_signo as i32);
        }
        if cut {
            through_stream(w, target, |w| rounds.write(w))?;
            return Ok(pass.left);
        }
        if !saving.announced && started.elapsed() >= SAVING_NOTICE {
            saving.announced = true;
            crate::say!(
                "perf-collect: saving the {:.1} MB the ring buffers still hold; Ctrl-C or SIGTERM again leaves it out",
                pass.left as f64 / 1e6
            );
        }
    }
}

/// The stop an output failure means: a pipe whose reader went away, a full device (the
/// file or stream keeps what reached it); `None` for any other failure.
fn output_stop(e: &CollectError) -> Option<StopReason> {
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
