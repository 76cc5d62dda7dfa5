//! The recording loop: sleeps until a ring fills past its watermark (or a signal, the
//! deadline, a stream that can take bytes again), moves what the rings hold into the writer
//! a chunk at a time, and marks rounds as perf expects them.

use crate::build_ids::Hits;
use crate::command::Command as RecordedCommand;
use crate::error::writer_err;
use crate::error::CollectError;
use crate::options::Options;
use crate::output::{output_stop, Target};
use crate::ring_reader::{self, RingStats};
use crate::rings::Rings;
use crate::summary::StopReason;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;
use nix::sys::signalfd::SignalFd;
use perf_writer_std::OutputError;
use perf_writer_std::{OutputMode, PerfWriter, WriterError};
use std::io::{self, IsTerminal, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// Bytes of records moved from one ring to the writer at a time: between two such moves
/// the signals are looked at, so that a recording stops at once even when its rings hold
/// hundreds of MB to compress.
const DRAIN_CHUNK: usize = 1024 * 1024;

/// What the rings' drains of one pass did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pass {
    /// Records went to the writer.
    pub(crate) wrote: bool,
    /// Bytes the rings still held at the end (a ring reached [`DRAIN_CHUNK`]).
    pub(crate) left: u64,
}

/// Moves up to [`DRAIN_CHUNK`] bytes of each ring into the writer.
pub(crate) fn drain_pass<O: OutputMode>(
    w: &mut PerfWriter<O>,
    rings: &mut Rings,
    stats: &mut [RingStats],
    hits: &mut Hits,
) -> Result<Pass, CollectError> {
    let mut pass = Pass::default();
    for (r, stats) in rings.cpus.iter_mut().zip(stats) {
        let d = ring_reader::drain(&mut r.ring, w, stats, hits, DRAIN_CHUNK)?;
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
pub(crate) struct Rounds {
    /// Records went to the writer since the last FINISHED_ROUND.
    pub(crate) wrote: bool,
    /// A FINISHED_ROUND is due before the next records (it could not be written yet).
    pub(crate) due: bool,
}

impl Rounds {
    /// Counts a pass.
    pub(crate) fn after(&mut self, pass: Pass) {
        self.wrote |= pass.wrote;
        if pass.left == 0 && self.wrote {
            self.due = true;
        }
    }

    /// Writes the FINISHED_ROUND that is due.
    pub(crate) fn write<O: OutputMode>(
        &mut self,
        w: &mut PerfWriter<O>,
    ) -> Result<(), CollectError> {
        if self.due {
            w.write_finished_round()
                .map_err(writer_err("writing FINISHED_ROUND"))?;
            *self = Rounds::default();
        }
        Ok(())
    }
}

/// The stream would block: stdout is a full pipe whose reader has not taken its bytes.
pub(crate) fn would_block(e: &CollectError) -> bool {
    matches!(e, CollectError::Writer { source: WriterError::Output(OutputError::Io(io)), .. } if io.kind() == io::ErrorKind::WouldBlock)
}

/// What the loop works with besides the writer and the rings.
pub(crate) struct Watched<'a> {
    /// Counts per ring.
    pub(crate) stats: &'a mut [RingStats],
    /// Where the samples' code was.
    pub(crate) hits: &'a mut Hits,
    /// The stop signals and SIGCHLD.
    pub(crate) sigfd: &'a SignalFd,
    /// The recorded tasks were listed (`-p`, `-t`): the recording stops once every event
    /// has hung up (they and what they started have exited).
    pub(crate) stop_when_tasks_exit: bool,
}

/// Records until the command exits, SIGINT / SIGTERM / SIGHUP, the duration passes, the
/// listed tasks exit, or the output is closed or full; returns why it stopped.
pub(crate) fn watch<O: OutputMode>(
    w: &mut PerfWriter<O>,
    rings: &mut Rings,
    watched: Watched<'_>,
    mut command: Option<&mut RecordedCommand>,
    target: &Target,
    opts: &Options,
) -> Result<StopReason, CollectError> {
    let Watched {
        stats,
        hits,
        sigfd,
        stop_when_tasks_exit,
    } = watched;
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
        // The rings whose polled event hung up (its task exited).
        let mut hung: Vec<usize> = Vec::new();
        {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(rings.cpus.len() + 1);
            fds.push(PollFd::new(sigfd.as_fd(), PollFlags::POLLIN));
            // Per entry after the signals: its ring.
            let mut ring_of: Vec<usize> = Vec::with_capacity(rings.cpus.len());
            match (blocked, target.stdout()) {
                (true, Some(out)) => fds.push(PollFd::new(out.as_fd(), PollFlags::POLLOUT)),
                // A flight recorder reads nothing while recording, but hears of exits.
                _ => {
                    let wanted = match flight {
                        true => PollFlags::empty(),
                        false => PollFlags::POLLIN,
                    };
                    for (i, r) in rings.cpus.iter().enumerate() {
                        if let Some(fd) = r.poll_fd() {
                            fds.push(PollFd::new(fd.as_fd(), wanted));
                            ring_of.push(i);
                        }
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
            for (fd, &ring) in fds.iter().skip(1).zip(&ring_of) {
                if fd.revents().is_some_and(|r| r.contains(PollFlags::POLLHUP)) {
                    hung.push(ring);
                }
            }
        }
        for ring in hung {
            if let Some(r) = rings.cpus.get_mut(ring) {
                r.hung_up();
            }
        }
        if !flight {
            let moved = rounds.write(w).and_then(|()| {
                let pass = drain_pass(w, rings, stats, hits)?;
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
        if stop_when_tasks_exit && rings.cpus.iter().all(|r| r.poll_fd().is_none()) {
            break StopReason::TasksExited;
        }
    };
    if progress {
        crate::say!();
    }
    Ok(stop)
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
