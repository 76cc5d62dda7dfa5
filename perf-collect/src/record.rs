//! The recording: opens the events on every online CPU, maps one ring buffer per CPU,
//! and copies what the kernel writes there into a [`PerfWriter`] until told to stop.

use crate::command::{Command as RecordedCommand, GRACE};
use crate::describe::{describe, synthesize_threads};
use crate::error::{io_writer_err, writer_err, CollectError};
use crate::events::{self, EventKind, EventSpec};
use crate::options::{Options, DEFAULT_FREQ};
use crate::output::{FileOutput, StdoutOutput, Target};
use crate::ring_reader::RingStats;
use crate::rings::{self, online_cpus, Rings};
use crate::save::save;
use crate::summary::Summary;
use crate::tracefs::Tracefs;
use crate::watch::watch;
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use perf_writer_std::{
    Compression, OutputMode, PerfDataFileWriter, PerfPipeWriter, PerfWriter, WriterError,
};

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
