//! Once the recording stops: the rings' last records, the losses the kernel did not report,
//! and the output finalized, with what became of it (complete, cut short, closed).

use crate::build_ids::Hits;
use crate::error::writer_err;
use crate::error::CollectError;
use crate::options::Options;
use crate::output::{output_stop, Target};
use crate::ring_reader::{self, RingStats};
use crate::rings::Rings;
use crate::summary::{StopReason, Summary, Truncation};
use crate::sys::Snapshot;
use crate::watch::{drain_pass, would_block, Rounds};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signalfd::SignalFd;
use perf_writer_std::perf_encode::features::BuildIdEntry;
use perf_writer_std::perf_encode::records::{PidTid, SampleCpu, SampleId};
use perf_writer_std::OutputError;
use perf_writer_std::{OutputMode, PerfHeaderIndex, PerfWriter, WriterError};
use std::time::{Duration, Instant};

/// How long a stream's reader may take nothing, once the recording stopped, before the
/// stream is given up.
const STALL: Duration = Duration::from_secs(2);

/// How long saving may take before perf-collect says so (and a second signal cuts it).
const SAVING_NOTICE: Duration = Duration::from_secs(1);

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

/// Takes what the rings still hold, adds the build ids of the objects the samples hit,
/// and finalizes the output.
#[allow(clippy::too_many_arguments)]
pub(crate) fn save<O: OutputMode>(
    mut w: PerfWriter<O>,
    rings: &mut Rings,
    stats: &mut [RingStats],
    hits: &mut Hits,
    stop: StopReason,
    target: &Target,
    sigfd: &SignalFd,
    opts: &Options,
) -> Result<Summary, CollectError> {
    // Nothing new after this; then take what is left.
    for r in &rings.cpus {
        r.disable();
    }
    let mut summary = Summary {
        stats: RingStats::default(),
        cpus: rings.cpus.len(),
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
                let snaps: Vec<Snapshot> = rings.cpus.iter().map(|r| r.ring.snapshot()).collect();
                through_stream(&mut w, target, |w| {
                    summary.flight_window =
                        ring_reader::write_snapshots(&snaps, w, stats, hits, window)?;
                    Ok(())
                })
                .and_then(|()| {
                    rounds.due = true;
                    through_stream(&mut w, target, |w| rounds.write(w))
                })
            }
            None => drain_for_save(
                &mut w,
                rings,
                stats,
                hits,
                target,
                sigfd,
                &mut saving,
                &mut rounds,
            )
            .map(|unsaved| summary.unsaved_bytes = unsaved),
        };
        let taken = taken.and_then(|()| {
            through_stream(&mut w, target, |w| add_unreported_losses(w, rings, stats))
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
            .max(rings.cpus.iter().map(|r| r.cpu + 1).max().unwrap_or(1));
        w.set_nr_cpus_header(n, n);
    }
    summary.stats = total;
    if hits.is_on() {
        add_build_ids(&mut w, hits, &mut summary.warnings);
    }
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
                WriterError::Output(OutputError::Truncated {
                    kept_records,
                    kept_bytes,
                    error,
                }),
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

/// HEADER_BUILD_ID: the build ids of the objects the samples hit (what cannot be read is
/// left out; a header the writer refuses is a warning).
fn add_build_ids<O: OutputMode>(w: &mut PerfWriter<O>, hits: &Hits, warnings: &mut Vec<String>) {
    let ids = hits.build_ids();
    if ids.is_empty() {
        return;
    }
    let entries: Vec<BuildIdEntry<'_>> = ids
        .iter()
        .map(|o| BuildIdEntry {
            misc: o.cpumode,
            pid: -1,
            build_id: &o.build_id,
            filename: &o.path,
        })
        .collect();
    if let Err(e) = w.set_build_id_header(&entries) {
        warnings.push(format!("the build ids were left out: {e}"));
    }
}

/// The rings' last records into the writer, a chunk at a time. Saving that takes longer
/// than [`SAVING_NOTICE`] is announced, and a stop signal after that leaves the rest out;
/// returns the bytes left out.
#[allow(clippy::too_many_arguments)]
fn drain_for_save<O: OutputMode>(
    w: &mut PerfWriter<O>,
    rings: &mut Rings,
    stats: &mut [RingStats],
    hits: &mut Hits,
    target: &Target,
    sigfd: &SignalFd,
    saving: &mut Saving,
    rounds: &mut Rounds,
) -> Result<u64, CollectError> {
    let started = *saving.started.get_or_insert_with(Instant::now);
    loop {
        let pass = through_stream(w, target, |w| {
            rounds.write(w)?;
            drain_pass(w, rings, stats, hits)
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

/// The kernel writes a LOST record only when a record fits again: records dropped just
/// before the events were disabled are never reported that way. Their count is in each
/// event's `PERF_FORMAT_LOST` value: what it adds up to beyond the LOST records of a ring
/// goes into the file as one more LOST record of that ring (timed after its last record).
fn add_unreported_losses<O: OutputMode>(
    w: &mut PerfWriter<O>,
    rings: &Rings,
    stats: &mut [RingStats],
) -> Result<(), CollectError> {
    if !rings.read_lost() {
        return Ok(());
    }
    let last_time = stats.iter().map(|s| s.last_time).max().unwrap_or(0);
    for (r, stats) in rings.cpus.iter().zip(stats) {
        let missing = r.lost().saturating_sub(stats.lost_events);
        let Some(owner) = r.owner() else { continue };
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
            cpu: Some(SampleCpu { cpu: r.cpu, res: 0 }),
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
        .map_err(writer_err("writing FINISHED_ROUND"))?;
    Ok(())
}
