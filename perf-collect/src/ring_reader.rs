//! Moving a ring buffer's records into the writer: all pending bytes in one call (two
//! slices when they wrap around the ring's end), counted on the way, and the kernel's tail
//! advanced only once the writer holds them.

use crate::error::CollectError;
use crate::sys::{Pending, Ring};
use perf_writer_std::{OutputMode, PerfWriter, WriterError};
use std::io::{self, IoSlice};

/// PERF_RECORD_LOST: `{header, u64 id, u64 lost, sample_id}`.
const RECORD_LOST: u32 = 2;
/// PERF_RECORD_SAMPLE.
const RECORD_SAMPLE: u32 = 9;
/// PERF_RECORD_LOST_SAMPLES: `{header, u64 lost, sample_id}`.
const RECORD_LOST_SAMPLES: u32 = 13;

/// What the rings held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RingStats {
    /// Records written.
    pub records: u64,
    /// SAMPLE records among them (one per tracepoint hit or counter sample).
    pub samples: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Events the kernel could not store (the sum of its LOST records' counts).
    pub lost_events: u64,
    /// LOST records.
    pub lost_records: u64,
    /// Samples dropped by the kernel (the sum of LOST_SAMPLES records' counts).
    pub lost_samples: u64,
    /// Of `lost_events`, those the kernel had not reported in a LOST record when the
    /// recording stopped (counted from the events' `PERF_FORMAT_LOST` values and written
    /// as one more LOST record).
    pub lost_added: u64,
    /// The latest time stamp seen.
    pub last_time: u64,
    /// The first and last SAMPLE times.
    pub sample_time: Option<(u64, u64)>,
    /// The highest CPU of a SAMPLE.
    pub max_cpu: Option<u32>,
    /// Records the writer refused (kept out of the file, counted here).
    pub refused: u64,
    /// The first refusal, for the report.
    pub first_refusal: Option<String>,
}

impl RingStats {
    /// The sum of `all`.
    pub fn total(all: &[RingStats]) -> RingStats {
        let mut t = RingStats::default();
        for s in all {
            t.records += s.records;
            t.samples += s.samples;
            t.bytes += s.bytes;
            t.lost_events += s.lost_events;
            t.lost_records += s.lost_records;
            t.lost_samples += s.lost_samples;
            t.lost_added += s.lost_added;
            t.last_time = t.last_time.max(s.last_time);
            t.sample_time = match (t.sample_time, s.sample_time) {
                (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                (x, y) => x.or(y),
            };
            t.max_cpu = t.max_cpu.max(s.max_cpu);
            t.refused += s.refused;
            if t.first_refusal.is_none() {
                t.first_refusal.clone_from(&s.first_refusal);
            }
        }
        t
    }
}

/// One record of a [`Pending`] run: its bytes, in two pieces when it wraps.
struct RecordView<'a> {
    rtype: u32,
    a: &'a [u8],
    b: &'a [u8],
}

impl RecordView<'_> {
    fn len(&self) -> usize {
        self.a.len() + self.b.len()
    }

    /// The native-endian u64 at `off` in the record.
    #[inline]
    fn u64_at(&self, off: usize) -> Option<u64> {
        if let Some(b) = self.a.get(off..).and_then(|a| a.first_chunk::<8>()) {
            return Some(u64::from_ne_bytes(*b));
        }
        let mut bytes = [0u8; 8];
        for (i, byte) in bytes.iter_mut().enumerate() {
            let at = off + i;
            *byte = match self.a.get(at) {
                Some(v) => *v,
                None => *self.b.get(at - self.a.len())?,
            };
        }
        Some(u64::from_ne_bytes(bytes))
    }
}

/// Walks the records of `p` (headers are 8-aligned in the ring, so none is split) until
/// `f` says stop; returns how many bytes the records it was given (and kept going after)
/// span.
fn for_each_record<'a>(p: &Pending<'a>, mut f: impl FnMut(RecordView<'a>) -> bool) -> usize {
    let total = p.first.len() + p.second.len();
    let mut pos = 0usize;
    while pos + 8 <= total {
        let head: &[u8] = if pos < p.first.len() {
            &p.first[pos..]
        } else {
            &p.second[pos - p.first.len()..]
        };
        let Some(h) = head.first_chunk::<8>() else {
            break;
        };
        let rtype = u32::from_ne_bytes([h[0], h[1], h[2], h[3]]);
        let size = usize::from(u16::from_ne_bytes([h[6], h[7]]));
        if size < 8 || pos + size > total {
            break;
        }
        let end = pos + size;
        let (a, b) = if end <= p.first.len() {
            (&p.first[pos..end], &[][..])
        } else if pos >= p.first.len() {
            (&p.second[pos - p.first.len()..end - p.first.len()], &[][..])
        } else {
            (&p.first[pos..], &p.second[..end - p.first.len()])
        };
        if !f(RecordView { rtype, a, b }) {
            break;
        }
        pos = end;
    }
    pos
}

/// The record's time: in a SAMPLE after IDENTIFIER, IP and TID; in the others' sample_id
/// trailer before CPU and IDENTIFIER (the layout every event here has).
#[inline]
fn record_time(r: &RecordView<'_>) -> Option<u64> {
    match r.rtype {
        RECORD_SAMPLE => r.u64_at(32),
        _ => r
            .len()
            .checked_sub(24)
            .filter(|&at| at >= 8)
            .and_then(|at| r.u64_at(at)),
    }
}

/// The records of a [`Ring::snapshot`] (newest first): their (offset, length, time), as
/// far as they are whole.
fn snapshot_records(snap: &[u8]) -> Vec<(usize, usize, Option<u64>)> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while let Some(h) = snap.get(pos..).and_then(|s| s.first_chunk::<8>()) {
        let rtype = u32::from_ne_bytes([h[0], h[1], h[2], h[3]]);
        let size = usize::from(u16::from_ne_bytes([h[6], h[7]]));
        let Some(bytes) = snap
            .get(pos..pos + size)
            .filter(|_| size >= 8 && size % 8 == 0)
        else {
            break;
        };
        let view = RecordView {
            rtype,
            a: bytes,
            b: &[],
        };
        out.push((pos, size, record_time(&view)));
        pos += size;
    }
    out
}

/// Flight-recorder mode: writes the records of the rings' snapshots (one per ring, newest
/// first, see [`Ring::snapshot`]), oldest first: every SAMPLE whose time is at most
/// `window_ns` before the latest record of all, and every other record the ring still
/// holds (COMM, FORK, EXIT: they name the threads of the samples kept). Counted in `stats`
/// (one per ring).
pub fn write_snapshots<O: OutputMode>(
    snaps: &[Vec<u8>],
    w: &mut PerfWriter<O>,
    stats: &mut [RingStats],
    window_ns: u64,
) -> Result<(), CollectError> {
    let records: Vec<_> = snaps.iter().map(|s| snapshot_records(s)).collect();
    let is_sample = |snap: &[u8], pos: usize| {
        snap.get(pos..pos + 4)
            .is_some_and(|t| t == RECORD_SAMPLE.to_ne_bytes())
    };
    let latest = records
        .iter()
        .flatten()
        .filter_map(|(.., t)| *t)
        .max()
        .unwrap_or(0);
    let cutoff = latest.saturating_sub(window_ns);
    for ((snap, recs), stats) in snaps.iter().zip(&records).zip(stats) {
        for &(pos, size, time) in recs.iter().rev() {
            if time.is_some_and(|t| t < cutoff) && is_sample(snap, pos) {
                continue;
            }
            let bytes = &snap[pos..pos + size];
            let view = RecordView {
                rtype: u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
                a: bytes,
                b: &[],
            };
            match w.write_event_data(bytes) {
                Ok(()) => count(&view, stats),
                Err(e) => match refusal(&e) {
                    Some(why) => {
                        stats.refused += 1;
                        if stats.first_refusal.is_none() {
                            stats.first_refusal =
                                Some(format!("record type {} of {size} bytes: {why}", view.rtype));
                        }
                    }
                    None => {
                        return Err(CollectError::Writer {
                            what: "writing records",
                            source: WriterError::from(e),
                        })
                    }
                },
            }
        }
    }
    Ok(())
}

/// Counts one record.
#[inline]
fn count(r: &RecordView<'_>, stats: &mut RingStats) {
    stats.records += 1;
    stats.bytes += r.len() as u64;
    match r.rtype {
        RECORD_SAMPLE => {
            stats.samples += 1;
            if let Some(t) = record_time(r) {
                stats.last_time = stats.last_time.max(t);
                stats.sample_time = Some(match stats.sample_time {
                    Some((first, last)) => (first.min(t), last.max(t)),
                    None => (t, t),
                });
            }
            // CPU: after TIME.
            // CPU: after TIME, `{u32 cpu, u32 reserved}`.
            if let Some(v) = r.u64_at(40) {
                let cpu = match cfg!(target_endian = "little") {
                    true => v as u32,
                    false => (v >> 32) as u32,
                };
                stats.max_cpu = Some(stats.max_cpu.map_or(cpu, |m| m.max(cpu)));
            }
        }
        _ => {
            if let Some(t) = record_time(r) {
                stats.last_time = stats.last_time.max(t);
            }
            match r.rtype {
                RECORD_LOST => {
                    stats.lost_records += 1;
                    stats.lost_events += r.u64_at(16).unwrap_or(0);
                }
                RECORD_LOST_SAMPLES => stats.lost_samples += r.u64_at(8).unwrap_or(0),
                _ => {}
            }
        }
    }
}

/// A refusal of the writer (as opposed to a failure of its output).
fn refusal(e: &io::Error) -> Option<&WriterError> {
    match WriterError::from_io(e) {
        Some(WriterError::Io(_)) | None => None,
        Some(w) => Some(w),
    }
}

/// Copies the ring's pending records into `w` and counts them; then gives the ring's bytes
/// back to the kernel up to the last record the writer holds. True when there were records.
///
/// All pending bytes go in one call: `write_event_data`, or
/// `write_event_data_vectored` with two slices when they wrap around the ring's end (the
/// record that straddles it is split between the slices). When the writer refuses that
/// call (nothing of it is written), one call per record (a wrapping record as two slices): a record the
/// writer refuses is left out and counted (and named in [`RingStats::first_refusal`]). A
/// failure of the output stops the drain with an error.
pub fn drain<O: OutputMode>(
    ring: &mut Ring,
    w: &mut PerfWriter<O>,
    stats: &mut RingStats,
) -> Result<bool, CollectError> {
    let p = ring.pending();
    if p.first.is_empty() {
        return Ok(false);
    }
    let written = match p.second.is_empty() {
        true => w.write_event_data(p.first),
        false => w
            .write_event_data_vectored(&[IoSlice::new(p.first), IoSlice::new(p.second)])
            .map(drop),
    };
    match written {
        Ok(()) => {
            let done = for_each_record(&p, |r| {
                count(&r, stats);
                true
            });
            ring.consume(p.tail.wrapping_add(done as u64));
            return Ok(true);
        }
        // Refused (nothing of it was written): record by record below.
        Err(e) if refusal(&e).is_some() => {}
        Err(e) => {
            return Err(CollectError::Writer {
                what: "writing records",
                source: WriterError::from(e),
            })
        }
    }
    let mut failure = None;
    let done = for_each_record(&p, |r| {
        let result = if r.b.is_empty() {
            w.write_event_data(r.a)
        } else {
            w.write_event_data_vectored(&[IoSlice::new(r.a), IoSlice::new(r.b)])
                .map(drop)
        };
        match result {
            Ok(()) => count(&r, stats),
            Err(e) => match refusal(&e) {
                Some(why) => {
                    stats.refused += 1;
                    if stats.first_refusal.is_none() {
                        stats.first_refusal = Some(format!(
                            "record type {} of {} bytes: {why}",
                            r.rtype,
                            r.len()
                        ));
                    }
                }
                None => {
                    failure = Some(e);
                    return false;
                }
            },
        }
        true
    });
    ring.consume(p.tail.wrapping_add(done as u64));
    match failure {
        None => Ok(true),
        Some(e) => Err(CollectError::Writer {
            what: "writing records",
            source: WriterError::from(e),
        }),
    }
}
