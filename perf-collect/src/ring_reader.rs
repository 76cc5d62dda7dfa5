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
    fn u64_at(&self, off: usize) -> Option<u64> {
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

/// Walks the records of `p` (headers are 8-aligned in the ring, so none is split).
fn for_each_record<'a>(p: &Pending<'a>, mut f: impl FnMut(RecordView<'a>)) {
    let total = p.first.len() + p.second.len();
    let mut pos = 0usize;
    while pos + 8 <= total {
        let head: &[u8] = if pos < p.first.len() {
            &p.first[pos..]
        } else {
            &p.second[pos - p.first.len()..]
        };
        let Some(h) = head.first_chunk::<8>() else {
            return;
        };
        let rtype = u32::from_ne_bytes([h[0], h[1], h[2], h[3]]);
        let size = usize::from(u16::from_ne_bytes([h[6], h[7]]));
        if size < 8 || pos + size > total {
            return;
        }
        let end = pos + size;
        let (a, b) = if end <= p.first.len() {
            (&p.first[pos..end], &[][..])
        } else if pos >= p.first.len() {
            (&p.second[pos - p.first.len()..end - p.first.len()], &[][..])
        } else {
            (&p.first[pos..], &p.second[..end - p.first.len()])
        };
        f(RecordView { rtype, a, b });
        pos = end;
    }
}

fn count(p: &Pending<'_>, stats: &mut RingStats) {
    for_each_record(p, |r| {
        stats.records += 1;
        // TIME: in a SAMPLE after IDENTIFIER, IP and TID; in the others' sample_id
        // trailer before CPU and IDENTIFIER (the layout every event here has).
        let time_at = match r.rtype {
            RECORD_SAMPLE => Some(32),
            _ => r.len().checked_sub(24).filter(|&at| at >= 8),
        };
        if let Some(t) = time_at.and_then(|at| r.u64_at(at)) {
            stats.last_time = stats.last_time.max(t);
        }
        match r.rtype {
            RECORD_SAMPLE => stats.samples += 1,
            RECORD_LOST => {
                stats.lost_records += 1;
                stats.lost_events += r.u64_at(16).unwrap_or(0);
            }
            RECORD_LOST_SAMPLES => stats.lost_samples += r.u64_at(8).unwrap_or(0),
            _ => {}
        }
    });
    stats.bytes += (p.first.len() + p.second.len()) as u64;
}

/// A refusal of the writer (as opposed to a failure of its output).
fn refusal(e: &io::Error) -> Option<&WriterError> {
    match WriterError::from_io(e) {
        Some(WriterError::Io(_)) | None => None,
        Some(w) => Some(w),
    }
}

/// Copies the ring's pending records into `w`; true when there were any.
pub fn drain<O: OutputMode>(
    ring: &mut Ring,
    w: &mut PerfWriter<O>,
    stats: &mut RingStats,
) -> Result<bool, CollectError> {
    let p = ring.pending();
    if p.first.is_empty() {
        return Ok(false);
    }
    let written = if p.second.is_empty() {
        w.write_event_data(p.first)
    } else {
        w.write_event_data_vectored(&[IoSlice::new(p.first), IoSlice::new(p.second)])
            .map(drop)
    };
    match written {
        Ok(()) => count(&p, stats),
        Err(e) if refusal(&e).is_some() => write_one_by_one(&p, w, stats)?,
        Err(e) => {
            return Err(CollectError::Writer {
                what: "writing records",
                source: WriterError::from(e),
            })
        }
    }
    let head = p.head;
    ring.consume(head);
    Ok(true)
}

/// The writer refused the run: write its records one at a time, keeping every record it
/// takes and counting (and naming) those it refuses.
fn write_one_by_one<O: OutputMode>(
    p: &Pending<'_>,
    w: &mut PerfWriter<O>,
    stats: &mut RingStats,
) -> Result<(), CollectError> {
    let mut failure = None;
    let mut refused = 0u64;
    let mut first_refusal = None;
    for_each_record(p, |r| {
        if failure.is_some() {
            return;
        }
        let result = if r.b.is_empty() {
            w.write_event_data(r.a)
        } else {
            w.write_event_data_vectored(&[IoSlice::new(r.a), IoSlice::new(r.b)])
                .map(drop)
        };
        match result {
            Ok(()) => {}
            Err(e) => match refusal(&e) {
                Some(why) => {
                    refused += 1;
                    if first_refusal.is_none() {
                        first_refusal = Some(format!(
                            "record type {} of {} bytes: {why}",
                            r.rtype,
                            r.a.len() + r.b.len()
                        ));
                    }
                }
                None => failure = Some(e),
            },
        }
    });
    if let Some(e) = failure {
        return Err(CollectError::Writer {
            what: "writing records",
            source: WriterError::from(e),
        });
    }
    count(p, stats);
    stats.records -= refused.min(stats.records);
    stats.refused += refused;
    if stats.first_refusal.is_none() {
        stats.first_refusal = first_refusal;
    }
    Ok(())
}
