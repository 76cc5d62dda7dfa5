//! Moving a ring buffer's records into the writer: all pending bytes in one call (two
//! slices when they wrap around the ring's end), counted on the way, and the kernel's tail
//! advanced only once the writer holds them.

use crate::build_ids::Hits;
use crate::cli::MAX_MMAP_PAGES;
use crate::error::{writer_err, CollectError};
use crate::sys::{page_size, Pending, Ring, Snapshot};
use perf_writer_std::{OutputMode, PerfWriter, WriterError};
use std::io::IoSlice;
use std::time::Duration;

use perf_abi::record_type::{LOST, LOST_SAMPLES, MMAP, MMAP2, SAMPLE};
use perf_abi::sample_type::{sample_offset, trailer_offset_from_end, CPU, IP, TID, TIME};
use perf_abi::{LostRecord, LostSamplesRecord, PerfEventHeader};
use perf_writer_std::OutputError;
use zerocopy::FromBytes;

/// The `sample_type` of every event recorded ([`crate::events::SAMPLE_TYPE`]), whose
/// fields these offsets are read from. The fields an event may add
/// ([`crate::events::SAMPLE_EXTRAS`]) all come after them (checked below).
const SAMPLE_TYPE: u64 = crate::events::SAMPLE_TYPE.0;
/// IP in a SAMPLE.
const SAMPLE_IP_AT: usize = present(sample_offset(SAMPLE_TYPE, IP));
/// TID in a SAMPLE: `{u32 pid, u32 tid}`.
const SAMPLE_PID_AT: usize = present(sample_offset(SAMPLE_TYPE, TID));
/// TIME in a SAMPLE.
const SAMPLE_TIME_AT: usize = present(sample_offset(SAMPLE_TYPE, TIME));
/// CPU in a SAMPLE: `{u32 cpu, u32 reserved}`.
const SAMPLE_CPU_AT: usize = present(sample_offset(SAMPLE_TYPE, CPU));
/// TIME in the `sample_id` trailer of the other records, back from their end.
const TRAILER_TIME_FROM_END: usize = present(trailer_offset_from_end(SAMPLE_TYPE, TIME));
/// The count of a LOST record.
const LOST_COUNT_AT: usize = std::mem::offset_of!(LostRecord, lost);
/// The count of a LOST_SAMPLES record.
const LOST_SAMPLES_COUNT_AT: usize = std::mem::offset_of!(LostSamplesRecord, lost);

/// The process id of an MMAP or MMAP2 record: `{header, u32 pid, u32 tid, u64 addr, u64
/// len, u64 pgoff, ...}`.
const MAP_PID_AT: usize = 8;
/// Its first address.
const MAP_ADDR_AT: usize = 16;
/// Its length.
const MAP_LEN_AT: usize = 24;
/// MMAP's file name, after `pgoff`.
const MMAP_FILENAME_AT: usize = 40;
/// MMAP2's file name, after `pgoff`, the file's identity (24 bytes), `u32 prot` and `u32
/// flags`.
const MMAP2_FILENAME_AT: usize = 72;

/// True when `offset` is `Some(expected)`.
const fn is_at(offset: Option<usize>, expected: usize) -> bool {
    match offset {
        Some(at) => at == expected,
        None => false,
    }
}

// The fields read here are where they are whatever fields an event adds.
const _: () = {
    let all = SAMPLE_TYPE | crate::events::SAMPLE_EXTRAS.0;
    assert!(is_at(sample_offset(all, TIME), SAMPLE_TIME_AT));
    assert!(is_at(sample_offset(all, CPU), SAMPLE_CPU_AT));
    assert!(is_at(sample_offset(all, IP), SAMPLE_IP_AT));
    assert!(is_at(sample_offset(all, TID), SAMPLE_PID_AT));
    assert!(is_at(
        trailer_offset_from_end(all, TIME),
        TRAILER_TIME_FROM_END
    ));
};

/// An offset `SAMPLE_TYPE` must have (checked when this compiles).
const fn present(offset: Option<usize>) -> usize {
    match offset {
        Some(at) => at,
        None => panic!("the events' sample_type lacks a field the ring reader reads"),
    }
}

/// A record header as the kernel wrote it (this machine's byte order): type and size.
#[inline(always)]
fn header(bytes: &[u8; 8]) -> (u32, usize) {
    let h = PerfEventHeader::read_from_bytes(bytes).unwrap_or_default();
    (h.type_, usize::from(h.size))
}

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
            t.add(s);
        }
        t
    }

    /// Adds `s`'s counts to these (the first refusal stays the first).
    fn add(&mut self, s: &RingStats) {
        self.records += s.records;
        self.samples += s.samples;
        self.bytes += s.bytes;
        self.lost_events += s.lost_events;
        self.lost_records += s.lost_records;
        self.lost_samples += s.lost_samples;
        self.lost_added += s.lost_added;
        self.last_time = self.last_time.max(s.last_time);
        self.sample_time = match (self.sample_time, s.sample_time) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (x, y) => x.or(y),
        };
        self.max_cpu = self.max_cpu.max(s.max_cpu);
        self.refused += s.refused;
        if self.first_refusal.is_none() {
            self.first_refusal.clone_from(&s.first_refusal);
        }
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

    /// The header's `misc` (a header is never split: records are 8-aligned in the ring).
    #[inline(always)]
    fn misc(&self) -> u16 {
        match self.a.get(4..6) {
            Some(&[lo, hi]) => u16::from_ne_bytes([lo, hi]),
            _ => 0,
        }
    }

    /// The native-endian u32 at `off` in the record.
    #[inline(always)]
    fn u32_at(&self, off: usize) -> Option<u32> {
        // (The u32s read are followed by another in the record: the 8 bytes are there.)
        let [a, b, c, d, ..] = self.u64_at(off)?.to_ne_bytes();
        Some(u32::from_ne_bytes([a, b, c, d]))
    }

    /// The native-endian u64 at `off` in the record.
    #[inline(always)]
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

/// The whole records of a [`Pending`] run, in order (headers are 8-aligned in the ring, so
/// none is split); it ends at the first record that is not whole or has a size under 8.
struct Records<'a> {
    first: &'a [u8],
    second: &'a [u8],
    /// Bytes of the records given so far.
    pos: usize,
}

impl<'a> Records<'a> {
    fn new(p: &Pending<'a>) -> Self {
        Records {
            first: p.first,
            second: p.second,
            pos: 0,
        }
    }

    /// How many bytes the records given so far span.
    fn taken(&self) -> usize {
        self.pos
    }

    /// The record at `pos` when it is not wholly in the first slice: the one that wraps
    /// around the ring's end, and those after it.
    #[inline(never)]
    fn next_across(&mut self) -> Option<RecordView<'a>> {
        let (first, second, pos) = (self.first, self.second, self.pos);
        let head = match pos.checked_sub(first.len()) {
            None => first.get(pos..)?,
            Some(at) => second.get(at..)?,
        };
        let (rtype, size) = header(head.first_chunk::<8>()?);
        let end = pos + size;
        if size < 8 || end > first.len() + second.len() {
            return None;
        }
        let (a, b) = if end <= first.len() {
            (&first[pos..end], &[][..])
        } else if pos >= first.len() {
            (&second[pos - first.len()..end - first.len()], &[][..])
        } else {
            (&first[pos..], &second[..end - first.len()])
        };
        self.pos = end;
        Some(RecordView { rtype, a, b })
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = RecordView<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<RecordView<'a>> {
        // Nearly every record lies wholly in the first slice: read it where it lies.
        if let Some(h) = self
            .first
            .get(self.pos..)
            .and_then(|r| r.first_chunk::<8>())
        {
            let (rtype, size) = header(h);
            if let Some(a) = self.first.get(self.pos..self.pos + size) {
                if size < 8 {
                    return None;
                }
                self.pos += size;
                return Some(RecordView { rtype, a, b: &[] });
            }
        }
        self.next_across()
    }
}

/// Notes where a SAMPLE's code was, and the files an MMAP or MMAP2 record maps, for the
/// build ids of the objects the samples hit.
#[inline(always)]
fn note_hit(hits: &mut Hits, r: &RecordView<'_>) {
    if !hits.is_on() {
        return;
    }
    match r.rtype {
        SAMPLE => {
            if let (Some(ip), Some(pid)) = (r.u64_at(SAMPLE_IP_AT), r.u32_at(SAMPLE_PID_AT)) {
                hits.note_sample(r.misc(), pid, ip);
            }
        }
        // Data mappings (`--call-graph dwarf`) hold no code.
        MMAP | MMAP2 if r.misc() & perf_abi::misc::MMAP_DATA == 0 => note_mapping(hits, r),
        _ => {}
    }
}

/// The mapping of an MMAP or MMAP2 record (they are few: the record is copied whole).
#[inline(never)]
fn note_mapping(hits: &mut Hits, r: &RecordView<'_>) {
    let bytes = [r.a, r.b].concat();
    let name_at = match r.rtype {
        MMAP => MMAP_FILENAME_AT,
        _ => MMAP2_FILENAME_AT,
    };
    let (Some(pid), Some(addr), Some(len), Some(name)) = (
        r.u32_at(MAP_PID_AT),
        r.u64_at(MAP_ADDR_AT),
        r.u64_at(MAP_LEN_AT),
        bytes.get(name_at..),
    ) else {
        return;
    };
    let name = name.split(|&b| b == 0).next().unwrap_or(&[]);
    hits.note_mapping(pid, addr, len, name);
}

/// The record's time: in a SAMPLE after IDENTIFIER, IP and TID; in the others' sample_id
/// trailer before CPU and IDENTIFIER (the layout every event here has).
#[inline(always)]
fn record_time(r: &RecordView<'_>) -> Option<u64> {
    match r.rtype {
        SAMPLE => r.u64_at(SAMPLE_TIME_AT),
        _ => r
            .len()
            .checked_sub(TRAILER_TIME_FROM_END)
            .filter(|&at| at >= 8)
            .and_then(|at| r.u64_at(at)),
    }
}

/// The records of a [`Ring::snapshot`] (newest first) and their times, as far as they are
/// whole.
fn snapshot_records(snap: &[u8]) -> Vec<(RecordView<'_>, Option<u64>)> {
    let mut records = Records {
        first: snap,
        second: &[],
        pos: 0,
    };
    let mut out = Vec::new();
    // What the ring overwrote last may end in a torn record: stop at a size the kernel
    // never writes.
    while let Some(r) = records.next().filter(|r| r.len() % 8 == 0) {
        let time = record_time(&r);
        out.push((r, time));
    }
    out
}

/// How much time a flight recorder's rings held, when it was less than asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlightWindow {
    /// The window asked for (`-c`).
    pub asked: Duration,
    /// How far back from the latest record the saved records reach: a ring had
    /// overwritten what came before.
    pub kept: Duration,
    /// Data pages per CPU that would have held the window at the rate seen (a power of
    /// two); `None` when that is more than `-m` takes.
    pub pages_needed: Option<usize>,
}

/// Flight-recorder mode: writes the records of the rings' snapshots (one per ring, newest
/// first, see [`Ring::snapshot`](crate::sys::Ring::snapshot)), oldest first: every SAMPLE
/// whose time is at most `window` before the latest record of all, and every other record
/// the ring still holds (COMM, FORK, EXIT: they name the threads of the samples kept).
/// Counted in `stats` (one per ring). Returns how far back the records reach when a ring
/// had overwritten part of the window.
pub fn write_snapshots<O: OutputMode>(
    snaps: &[Snapshot],
    w: &mut PerfWriter<O>,
    stats: &mut [RingStats],
    hits: &mut Hits,
    window: Duration,
) -> Result<Option<FlightWindow>, CollectError> {
    let window_ns = u64::try_from(window.as_nanos()).unwrap_or(u64::MAX);
    let records: Vec<_> = snaps.iter().map(|s| snapshot_records(&s.bytes)).collect();
    let latest = records
        .iter()
        .flatten()
        .filter_map(|(_, t)| *t)
        .max()
        .unwrap_or(0);
    let cutoff = latest.saturating_sub(window_ns);
    for (recs, stats) in records.iter().zip(stats) {
        for (r, time) in recs.iter().rev() {
            if r.rtype == SAMPLE && time.is_some_and(|t| t < cutoff) {
                continue;
            }
            write_one(w, r, stats, hits).map_err(writer_err("writing records"))?;
        }
    }
    // The rings that went round: each covers back to its oldest record only.
    let mut short: Option<(u64, Option<usize>)> = None;
    for (snap, recs) in snaps.iter().zip(&records) {
        let times = recs.iter().filter_map(|(_, t)| *t);
        let (Some(newest), Some(oldest)) = (times.clone().max(), times.min()) else {
            continue;
        };
        if !snap.overwritten || oldest <= cutoff {
            continue;
        }
        let span = newest.saturating_sub(oldest).max(1);
        let needed_bytes =
            (snap.bytes.len() as u128 * u128::from(window_ns)).div_ceil(u128::from(span));
        let pages = usize::try_from(needed_bytes.div_ceil(page_size() as u128))
            .ok()
            .and_then(usize::checked_next_power_of_two)
            .filter(|&p| p <= MAX_MMAP_PAGES);
        let pages = match short {
            Some((_, before)) => before.zip(pages).map(|(a, b)| a.max(b)),
            None => pages,
        };
        let reach = short.map_or(oldest, |(o, _)| o.max(oldest));
        short = Some((reach, pages));
    }
    Ok(short.map(|(reach, pages_needed)| FlightWindow {
        asked: window,
        kept: Duration::from_nanos(latest.saturating_sub(reach)),
        pages_needed,
    }))
}

/// The counts of a run of records, kept apart from [`RingStats`] while counting so that
/// they can live in registers.
#[derive(Clone, Copy)]
struct Tally {
    records: u64,
    samples: u64,
    bytes: u64,
    lost_events: u64,
    lost_records: u64,
    lost_samples: u64,
    last_time: u64,
    /// `u64::MAX` and 0 until a SAMPLE has a time.
    first_sample: u64,
    last_sample: u64,
    /// One more than the highest SAMPLE CPU; 0 before any.
    cpus: u64,
}

impl Tally {
    const NONE: Tally = Tally {
        records: 0,
        samples: 0,
        bytes: 0,
        lost_events: 0,
        lost_records: 0,
        lost_samples: 0,
        last_time: 0,
        first_sample: u64::MAX,
        last_sample: 0,
        cpus: 0,
    };

    /// Counts one record.
    #[inline(always)]
    fn add(&mut self, r: &RecordView<'_>) {
        self.records += 1;
        self.bytes += r.len() as u64;
        match r.rtype {
            SAMPLE => {
                self.samples += 1;
                if let Some(t) = record_time(r) {
                    self.last_time = self.last_time.max(t);
                    self.first_sample = self.first_sample.min(t);
                    self.last_sample = self.last_sample.max(t);
                }
                if let Some(v) = r.u64_at(SAMPLE_CPU_AT) {
                    let cpu = match cfg!(target_endian = "little") {
                        true => v as u32,
                        false => (v >> 32) as u32,
                    };
                    self.cpus = self.cpus.max(u64::from(cpu) + 1);
                }
            }
            _ => {
                if let Some(t) = record_time(r) {
                    self.last_time = self.last_time.max(t);
                }
                match r.rtype {
                    LOST => {
                        self.lost_records += 1;
                        self.lost_events += r.u64_at(LOST_COUNT_AT).unwrap_or(0);
                    }
                    LOST_SAMPLES => {
                        self.lost_samples += r.u64_at(LOST_SAMPLES_COUNT_AT).unwrap_or(0)
                    }
                    _ => {}
                }
            }
        }
    }

    /// Adds the tally to `stats`.
    fn into_stats(self, stats: &mut RingStats) {
        stats.add(&RingStats {
            records: self.records,
            samples: self.samples,
            bytes: self.bytes,
            lost_events: self.lost_events,
            lost_records: self.lost_records,
            lost_samples: self.lost_samples,
            last_time: self.last_time,
            sample_time: (self.first_sample <= self.last_sample)
                .then_some((self.first_sample, self.last_sample)),
            max_cpu: self.cpus.checked_sub(1).map(|max| max as u32),
            ..RingStats::default()
        });
    }
}

/// Counts one record.
fn count(r: &RecordView<'_>, stats: &mut RingStats) {
    let mut t = Tally::NONE;
    t.add(r);
    t.into_stats(stats);
}

/// Writes one record (as two slices when it wraps), counts it and notes where its code
/// was; a record the writer refuses is left out and counted as refused (the first named).
/// `Err` only for a failure of the output.
fn write_one<O: OutputMode>(
    w: &mut PerfWriter<O>,
    r: &RecordView<'_>,
    stats: &mut RingStats,
    hits: &mut Hits,
) -> Result<(), WriterError> {
    let result = if r.b.is_empty() {
        w.write_event_data(r.a)
    } else {
        w.write_event_data_vectored(&[IoSlice::new(r.a), IoSlice::new(r.b)])
            .map(drop)
    };
    match result {
        Ok(()) => {
            count(r, stats);
            note_hit(hits, r);
        }
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
            None => return Err(e),
        },
    }
    Ok(())
}

/// A refusal of the writer (as opposed to a failure of its output).
fn refusal(e: &WriterError) -> Option<&WriterError> {
    match e {
        WriterError::Output(OutputError::Io(_)) => None,
        refused => Some(refused),
    }
}

/// What one [`drain`] of a ring did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drained {
    /// Records went to the writer.
    pub wrote: bool,
    /// Bytes the ring still held when the drain ended (its limit was reached).
    pub left: usize,
}

/// Copies the ring's pending records, up to `limit` bytes of whole records (at least one),
/// into `w`, counts them and notes where their code was (`hits`); then gives the ring's bytes back to the kernel up to the last
/// record the writer holds.
///
/// The bytes go in one call: `write_event_data`, or `write_event_data_vectored` with two
/// slices when they wrap around the ring's end (the record that straddles it is split
/// between the slices). When the writer refuses that call (nothing of it is written), one
/// call per record (a wrapping record as two slices): a record the writer refuses is left
/// out and counted (and named in [`RingStats::first_refusal`]).
///
/// # Errors
/// A failure of the output ([`CollectError::Writer`]); the records the writer did not take
/// stay in the ring (an output that would block takes none).
pub fn drain<O: OutputMode>(
    ring: &mut Ring,
    w: &mut PerfWriter<O>,
    stats: &mut RingStats,
    hits: &mut Hits,
    limit: usize,
) -> Result<Drained, CollectError> {
    let all = ring.pending();
    let total = all.first.len() + all.second.len();
    if total == 0 {
        return Ok(Drained::default());
    }
    let take = match total <= limit {
        true => total,
        false => {
            let mut records = Records::new(&all);
            let mut cut = 0;
            while records.next().is_some() {
                let end = records.taken();
                if end > limit && cut > 0 {
                    break;
                }
                cut = end;
            }
            if cut == 0 {
                total
            } else {
                cut
            }
        }
    };
    let first_len = take.min(all.first.len());
    let p = Pending {
        first: &all.first[..first_len],
        second: &all.second[..take - first_len],
        ..all
    };
    let written = match p.second.is_empty() {
        true => w.write_event_data(p.first),
        false => w
            .write_event_data_vectored(&[IoSlice::new(p.first), IoSlice::new(p.second)])
            .map(drop),
    };
    match written {
        Ok(()) => {
            let mut tally = Tally::NONE;
            let mut records = Records::new(&p);
            for r in records.by_ref() {
                tally.add(&r);
                note_hit(hits, &r);
            }
            tally.into_stats(stats);
            let (tail, taken) = (p.tail, records.taken());
            ring.consume(tail.wrapping_add(taken as u64));
            return Ok(Drained {
                wrote: true,
                left: total - taken,
            });
        }
        // Refused (nothing of it was written): record by record below.
        Err(e) if refusal(&e).is_some() => {}
        Err(source) => {
            return Err(CollectError::Writer {
                what: "writing records",
                source,
            })
        }
    }
    let mut failure = None;
    let mut records = Records::new(&p);
    let mut done = 0;
    while let Some(r) = records.next() {
        if let Err(e) = write_one(w, &r, stats, hits) {
            failure = Some(e);
            break;
        }
        done = records.taken();
    }
    let tail = p.tail;
    ring.consume(tail.wrapping_add(done as u64));
    match failure {
        None => Ok(Drained {
            wrote: done > 0,
            left: total - done,
        }),
        Some(source) => Err(CollectError::Writer {
            what: "writing records",
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `rtype` and `size` bytes, its time, CPU and LOST count where the
    /// reader looks for them.
    fn record(rtype: u32, size: u16, time: u64, cpu: u32) -> Vec<u8> {
        let mut r = vec![0u8; usize::from(size)];
        r[..4].copy_from_slice(&rtype.to_ne_bytes());
        r[6..8].copy_from_slice(&size.to_ne_bytes());
        let at = match rtype {
            SAMPLE => SAMPLE_TIME_AT,
            _ => usize::from(size) - TRAILER_TIME_FROM_END,
        };
        r[at..at + 8].copy_from_slice(&time.to_ne_bytes());
        if rtype == SAMPLE {
            r[SAMPLE_CPU_AT..SAMPLE_CPU_AT + 4].copy_from_slice(&cpu.to_ne_bytes());
        }
        if rtype == LOST {
            r[LOST_COUNT_AT..LOST_COUNT_AT + 8].copy_from_slice(&7u64.to_ne_bytes());
        }
        r
    }

    fn tally(p: &Pending<'_>) -> (Vec<(u32, usize, usize)>, usize, RingStats) {
        let mut records = Records::new(p);
        let mut tally = Tally::NONE;
        let mut seen = Vec::new();
        for r in records.by_ref() {
            seen.push((r.rtype, r.a.len(), r.b.len()));
            tally.add(&r);
        }
        let mut stats = RingStats::default();
        tally.into_stats(&mut stats);
        (seen, records.taken(), stats)
    }

    #[test]
    fn records_are_read_across_the_ring_end_and_counted() {
        let bytes = [
            record(SAMPLE, 80, 30, 1),
            record(3, 40, 10, 0),
            record(SAMPLE, 80, 20, 3),
            record(LOST, 48, 40, 0),
            record(SAMPLE, 48, 50, 0),
        ]
        .concat();
        let all = [
            (SAMPLE, 80),
            (3, 40),
            (SAMPLE, 80),
            (LOST, 48),
            (SAMPLE, 48),
        ];
        // Every place the ring's end can fall, on an 8-byte boundary.
        for cut in (0..=bytes.len()).step_by(8) {
            let p = Pending {
                first: &bytes[..cut],
                second: &bytes[cut..],
                tail: 0,
                head: bytes.len() as u64,
            };
            let (seen, taken, stats) = tally(&p);
            let shapes: Vec<(u32, usize)> = seen.iter().map(|&(t, a, b)| (t, a + b)).collect();
            assert_eq!(shapes, all, "cut at {cut}");
            assert_eq!(taken, bytes.len());
            let split = seen.iter().filter(|&&(_, a, b)| a > 0 && b > 0).count();
            let at_boundary = [0, 80, 120, 200, 248, 296].contains(&cut);
            assert_eq!(split, usize::from(!at_boundary), "cut at {cut}");
            assert_eq!(stats.records, 5);
            assert_eq!(stats.samples, 3);
            assert_eq!(stats.bytes, bytes.len() as u64);
            assert_eq!(stats.sample_time, Some((20, 50)));
            assert_eq!(stats.last_time, 50);
            assert_eq!(stats.max_cpu, Some(3));
            assert_eq!((stats.lost_records, stats.lost_events), (1, 7));
        }
    }

    #[test]
    fn records_end_at_one_that_is_not_whole() {
        let mut bytes = [record(SAMPLE, 80, 1, 0), record(SAMPLE, 80, 2, 0)].concat();
        bytes.truncate(120);
        for cut in [40, 80, 96, 120] {
            let p = Pending {
                first: &bytes[..cut],
                second: &bytes[cut..],
                tail: 0,
                head: 120,
            };
            let (seen, taken, stats) = tally(&p);
            assert_eq!(seen.len(), 1, "cut at {cut}");
            assert_eq!(taken, 80);
            assert_eq!(stats.sample_time, Some((1, 1)));
        }
        // A size under 8 ends the walk.
        let zero = [0u8; 16];
        let p = Pending {
            first: &zero,
            second: &[],
            tail: 0,
            head: 16,
        };
        assert_eq!(tally(&p).1, 0);
    }
}
