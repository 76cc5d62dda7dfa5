//! The recording: opens the events on each recorded CPU for what it covers
//! ([`Scope`]), maps one ring buffer per CPU, and copies what the kernel writes there into
//! a [`PerfWriter`] until told to stop.

use crate::build_ids::Hits;
use crate::call_graph::CallGraph;
use crate::command::{Command as RecordedCommand, HeldCommand, GRACE};
use crate::describe::describe;
use crate::error::{writer_err, CollectError};
use crate::events::{self, EventKind, EventSpec};
use crate::options::{Options, DEFAULT_FREQ};
use crate::output::{FileOutput, StdoutOutput, Target};
use crate::ring_reader::RingStats;
use crate::rings::{self, online_cpus, Rings};
use crate::save::save;
use crate::scope::{Plan, Scope};
use crate::summary::Summary;
use crate::synthesize::{synthesize, Synthesis};
use crate::tracefs::Tracefs;
use crate::watch::{watch, Watched};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use perf_writer_std::OutputError;
use perf_writer_std::{Compression, OutputMode, PerfPipeWriter, PerfWriter, WriterError};

/// Records as `opts` says. Errors in what was asked (events, targets, permissions,
/// tracefs, output) come before the output is created; a recording that cannot start or
/// keeps nothing leaves an existing file at the output path as it was.
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
    if matches!(opts.call_graph, Some(CallGraph::Dwarf { .. }))
        && crate::call_graph::USER_REGS.is_none()
    {
        return Err(CollectError::BadArgument(
            "--call-graph dwarf: perf-collect does not know this architecture's registers; use -g (frame pointers)".to_string(),
        ));
    }
    let scope = Scope::of(opts)?;
    let pipe = opts.output.as_os_str() == "-";
    let cpus = crate::scope::cpus(opts, &online_cpus())?;

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

    // A command recorded with what it starts is forked and held before its exec, so that
    // the events are opened on it first and start at its exec.
    let held = match (&scope, opts.command.split_first()) {
        (Scope::Command, Some((program, args))) => Some(HeldCommand::spawn(program, args, pipe)?),
        _ => None,
    };
    let plan = scope.plan(cpus, held.as_ref().map(HeldCommand::pid));
    let rings = rings::open(&specs, &plan, opts)?;
    let started = Started {
        scope: &scope,
        plan: &plan,
        held,
    };
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
            rings,
            started,
            &sigfd,
            opts,
        )
    } else {
        let (file, out) = FileOutput::create(&opts.output)?;
        let writer =
            PerfWriter::<perf_writer_std::FileOutput<_>>::from_writer(file).map_err(output_err)?;
        run(
            writer,
            Target::File(out),
            &specs,
            fs,
            rings,
            started,
            &sigfd,
            opts,
        )
    }
}

/// What the recording covers, once its events are open.
struct Started<'a> {
    scope: &'a Scope,
    plan: &'a Plan,
    /// The command held before its exec ([`Scope::Command`]).
    held: Option<HeldCommand>,
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

/// Describes the recording and the state it starts from, enables the events and starts
/// the command (or lets the held one exec): everything that, when it fails, leaves no
/// output behind.
#[allow(clippy::too_many_arguments)]
fn start<O: OutputMode>(
    w: &mut PerfWriter<O>,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    rings: &Rings,
    started: &mut Started<'_>,
    hits: &mut Hits,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> Result<Option<RecordedCommand>, CollectError> {
    if let Some(level) = opts.compression_level {
        w.set_compression(Some(Compression::zstd(level)))
            .map_err(writer_err("setting compression (-z)"))?;
    }
    describe(w, specs, tracefs, rings, warnings)?;
    let tracking_id = rings
        .ids
        .last()
        .and_then(|ids| ids.first())
        .copied()
        .unwrap_or(0);
    if opts.synthesize_threads {
        let what = Synthesis {
            tasks: started.plan.tasks.as_deref(),
            mappings: !matches!(started.scope, Scope::Command),
            data_mappings: opts.call_graph.is_some_and(CallGraph::needs_data_mappings),
        };
        synthesize(w, tracking_id, what, hits, warnings)?;
    }
    w.write_finished_init()
        .map_err(writer_err("writing FINISHED_INIT"))?;
    w.set_strict(opts.strict);
    // Events opened with enable_on_exec start at the held command's exec.
    if !started.plan.enable_on_exec {
        for r in &rings.cpus {
            for e in &r.fds {
                let name = specs.get(e.event).map_or("?", |s| s.name.as_str());
                e.fd.enable().map_err(|source| CollectError::Open {
                    event: name.to_string(),
                    cpu: r.cpu,
                    source,
                })?;
            }
        }
    }
    match (started.held.take(), opts.command.split_first()) {
        (Some(held), _) => held.release().map(Some),
        (None, None) => Ok(None),
        (None, Some((program, args))) => {
            RecordedCommand::spawn(program, args, opts.output.as_os_str() == "-").map(Some)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run<O: OutputMode>(
    mut w: PerfWriter<O>,
    target: Target,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    mut rings: Rings,
    mut started: Started<'_>,
    sigfd: &SignalFd,
    opts: &Options,
) -> Result<Summary, CollectError> {
    let mut warnings = Vec::new();
    // A stream carries no build ids (as with perf): nothing to note for them.
    let mut hits = Hits::new(!target.is_pipe());
    let begun = start(
        &mut w,
        specs,
        tracefs,
        &rings,
        &mut started,
        &mut hits,
        opts,
        &mut warnings,
    );
    let mut command = match begun {
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
    let watched = Watched {
        stats: &mut stats,
        hits: &mut hits,
        sigfd,
        stop_when_tasks_exit: matches!(started.scope, Scope::Tasks(_)),
    };
    let saved = match watch(&mut w, &mut rings, watched, command.as_mut(), &target, opts) {
        // A save that fails leaves no recording perf reads.
        Ok(stop) => save(
            w, &mut rings, &mut stats, &mut hits, stop, &target, sigfd, opts,
        )
        .map_err(|e| (e, false)),
        // The recording failed: what the writer holds is kept if it still finalizes.
        Err(e) => match w.finish() {
            Ok(_) | Err(WriterError::Output(OutputError::Truncated { .. })) => Err((e, true)),
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
