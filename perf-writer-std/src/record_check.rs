//! [`RecordCheck`]: strict mode, and the statistics the writer derives from the events
//! (SAMPLE_TIME, NRCPUS). Both look at whole records, so while either is on a record split
//! across calls is held back until its last byte arrives; nothing of a refused call is
//! written.

use crate::error::{RecordProblem, WriterError};
use crate::output_mode::OutputMode;
use crate::session::{EventDescData, Session};
use perf_abi::record_type::{self, BodyLen};
use perf_encode::records::{
    first_plain_record, id_of_non_sample, is_plain_record, parse_sample, ParseError, ParsedSample,
    RecordExtent, RecordWalker, SampleLayout, Step,
};
use perf_encode::Endian;
use std::io::{self, IoSlice};
use std::ops::Deref;

/// What the events told the writer (see [`RecordCheck`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventStats {
    /// Smallest and largest SAMPLE time.
    pub(crate) time: Option<(u64, u64)>,
    /// Highest CPU number in a SAMPLE or a `sample_id` trailer.
    pub(crate) max_cpu: Option<u32>,
}

impl EventStats {
    fn add_time(&mut self, t: u64) {
        self.time = Some(match self.time {
            Some((first, last)) => (first.min(t), last.max(t)),
            None => (t, t),
        });
    }

    fn add_cpu(&mut self, cpu: u32) {
        self.max_cpu = Some(self.max_cpu.map_or(cpu, |m| m.max(cpu)));
    }
}

/// Checks records in strict mode and gathers [`EventStats`]; idle (and free) when both are
/// off.
#[derive(Debug, Default)]
pub(crate) struct RecordCheck {
    /// Refuse records perf would misread.
    strict: bool,
    /// Gather [`EventStats`].
    derive: bool,
    /// Strict mode and derived headers as last set, to take effect at the next record
    /// boundary (a record begun under one setting is finished under it): `Some` while that
    /// boundary has not come.
    wanted: Option<(bool, bool)>,
    /// `strict || derive || wanted.is_some()`, kept by the setters: the write path tests one
    /// flag, and a setting waiting for its boundary sends every call the long way, where
    /// it is applied.
    active: bool,
    /// The start of a record whose end has not arrived (held back).
    pending: Vec<u8>,
    /// Bytes of a HEADER_TRACING_DATA or AUXTRACE payload still to pass through unchecked.
    skip: u64,
    /// Gathered so far in this output.
    pub(crate) stats: EventStats,
    /// Reused to join a record split across calls.
    scratch: Vec<u8>,
    /// The last SAMPLE that passed the full check, when its size alone proves the next of
    /// the same event right (see [`LastSample`]); `None` while the stream is inside a record.
    last_sample: Option<LastSample>,
}

/// A SAMPLE that passed the full check, of an event whose layout has no field of varying
/// length but RAW: a SAMPLE of the same size naming the same event (the same id bytes at the
/// same place), with the same RAW size and `common_type` when it has RAW, is right too, as
/// long as no description was added since (a new one can change who owns an id, and perf's
/// attribution with it). Those are all the full check reads of such a record.
#[derive(Clone, Copy, Debug)]
struct LastSample {
    /// `session.descs().len()` when it passed.
    descs: usize,
    /// Its length.
    size: usize,
    /// Its header's first 8 bytes, as stored, masked by [`TYPE_AND_SIZE`].
    head: u64,
    /// Where every SAMPLE of the file holds its event id, the bits of the 8 bytes there
    /// that count, and those bits (with one event, which owns every SAMPLE: the header's
    /// type and size again).
    id_at: usize,
    id_mask: u64,
    id: u64,
    /// With RAW: its size word and the `common_type` after it (see [`Word`]).
    raw: Option<Word>,
}

/// Bits of the 8 bytes at a fixed place of a record, as stored.
#[derive(Clone, Copy, Debug)]
struct Word {
    at: usize,
    mask: u64,
    bits: u64,
}

impl Word {
    #[inline]
    fn matches(&self, bytes: [u8; 8]) -> bool {
        u64::from_ne_bytes(bytes) & self.mask == self.bits
    }
}

/// The 8 bytes of `data` at `at`.
#[inline]
fn word_at(data: &[u8], at: usize) -> Option<[u8; 8]> {
    data.get(at..).and_then(|d| d.first_chunk::<8>()).copied()
}

impl LastSample {
    /// `data` is a SAMPLE like this one: right without reading further.
    #[inline]
    fn passes(&self, session: &Session, data: &[u8]) -> bool {
        // The header's type and size as stored (misc may differ), and the id's bits.
        let (Some(head), Some(id)) = (data.first_chunk::<8>(), data.get(self.id_at..)) else {
            return false;
        };
        let id = id
            .first_chunk::<8>()
            .map(|w| u64::from_ne_bytes(*w) & self.id_mask);
        data.len() == self.size
            && u64::from_ne_bytes(*head) & TYPE_AND_SIZE == self.head
            && id == Some(self.id)
            && session.descs().len() == self.descs
            && self
                .raw
                .is_none_or(|r| word_at(data, r.at).is_some_and(|w| r.matches(w)))
    }

    /// [`passes`](Self::passes) for a record of this one's size whose first 8 bytes are
    /// `head`, whose 8 bytes at `id_at` are `id` and whose 8 bytes at RAW's place are `raw`
    /// (as stored); the caller checks the descriptions' count once.
    #[inline]
    fn passes_words(&self, head: [u8; 8], id: [u8; 8], raw: Option<[u8; 8]>) -> bool {
        u64::from_ne_bytes(head) & TYPE_AND_SIZE == self.head
            && u64::from_ne_bytes(id) & self.id_mask == self.id
            && self.raw.is_none_or(|r| raw.is_some_and(|w| r.matches(w)))
    }
}

/// The bytes of a record header's first 8 that hold `type` (0..4) and `size` (6..8), as a
/// mask over the 8 bytes read in the machine's order.
const TYPE_AND_SIZE: u64 = u64::from_ne_bytes([0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff]);

/// Why a call wrote nothing.
enum Refusal {
    /// The refused record began in the bytes held back from earlier calls: they are dropped
    /// with it.
    Held(WriterError),
    /// The call's own bytes were refused (or the output failed); the held-back bytes stay.
    Call(io::Error),
}

/// Where the bytes of one call stop being whole records.
struct Walk {
    /// What to remember of the last SAMPLE checked (see [`LastSample`]).
    last_sample: Option<LastSample>,
    /// Logical offset (held-back bytes first, then the call's bytes) of the first byte held
    /// back.
    tail: usize,
    /// Payload bytes to pass through after this call.
    skip: u64,
    /// The whole length of a record with a payload that begins in this call and does not
    /// end in it (0: none).
    open_len: u64,
    stats: EventStats,
}

impl RecordCheck {
    /// A check in strict mode or not, deriving nothing.
    pub(crate) fn new(strict: bool) -> Self {
        RecordCheck {
            strict,
            active: strict,
            ..RecordCheck::default()
        }
    }

    /// True when calls take the long way: records are checked, or a setting waits for the
    /// next record boundary (see [`settle`](Self::settle)).
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.active
    }

    /// True when records go through this check (as opposed to straight to the output).
    pub(crate) fn checking(&self) -> bool {
        self.strict || self.derive
    }

    /// Strict mode as last set (it takes effect at the next record boundary).
    pub(crate) fn strict(&self) -> bool {
        self.wanted.map_or(self.strict, |(strict, _)| strict)
    }

    /// Derived headers as last set (they take effect at the next record boundary).
    pub(crate) fn derive(&self) -> bool {
        self.wanted.map_or(self.derive, |(_, derive)| derive)
    }

    /// Strict mode: refuse records perf would misread. Takes effect at the next record
    /// boundary ([`settle`](Self::settle)).
    pub(crate) fn set_strict(&mut self, on: bool) {
        self.want(on, self.derive());
    }

    /// Gathering the stats the derived headers come from. Takes effect at the next record
    /// boundary ([`settle`](Self::settle)).
    pub(crate) fn set_derive(&mut self, on: bool) {
        self.want(self.strict(), on);
    }

    fn want(&mut self, strict: bool, derive: bool) {
        self.last_sample = None;
        self.wanted = ((strict, derive) != (self.strict, self.derive)).then_some((strict, derive));
        self.active = self.strict || self.derive || self.wanted.is_some();
    }

    /// Applies the settings waiting for a record boundary when the stream is at one:
    /// `output_inside_record` tells whether the output holds part of a record (written to
    /// it while nothing was checked). Call after every call that writes records.
    pub(crate) fn settle(&mut self, output_inside_record: bool) {
        if let Some((strict, derive)) = self.wanted {
            if !output_inside_record && !self.inside_record() {
                self.strict = strict;
                self.derive = derive;
                self.wanted = None;
                self.active = strict || derive;
            }
        }
    }

    /// Bytes held back (a record begun but not complete).
    pub(crate) fn held_back(&self) -> usize {
        self.pending.len()
    }

    /// The stream ends inside a record.
    pub(crate) fn inside_record(&self) -> bool {
        !self.pending.is_empty() || self.skip != 0
    }

    /// Drops the record held back or being passed through (the output drops its own part
    /// of it); returns the bytes held back.
    pub(crate) fn abandon(&mut self) -> usize {
        let held = self.pending.len();
        self.pending.clear();
        self.skip = 0;
        held
    }

    /// Forgets what belongs to the current output (settings stay).
    pub(crate) fn reset_output(&mut self) {
        self.pending.clear();
        self.skip = 0;
        self.stats = EventStats::default();
    }

    /// Checks the concatenation of `chunks` as the continuation of the stream, then writes
    /// its whole records to `out` and holds back an incomplete last one. A refused call
    /// writes nothing and changes nothing. Returns the bytes accepted (all of them).
    pub(crate) fn write<O: OutputMode, C: Deref<Target = [u8]>>(
        &mut self,
        session: &Session,
        out: &mut O,
        chunks: &[C],
    ) -> io::Result<usize> {
        if let Some(written) = self.write_whole_records(session, out, chunks) {
            return written;
        }
        let pending = std::mem::take(&mut self.pending);
        match self.write_parts(session, out, &pending, chunks) {
            Ok(n) => Ok(n),
            Err(Refusal::Held(e)) => Err(e.into()),
            Err(Refusal::Call(e)) => {
                self.pending = pending;
                Err(e)
            }
        }
    }

    /// [`write`](Self::write) when nothing is held back and every chunk is one whole record
    /// (a vectored call of records, the commonest): each is checked where it is, then all are
    /// written. `None` when the call needs the general path.
    fn write_whole_records<O: OutputMode, C: Deref<Target = [u8]>>(
        &mut self,
        session: &Session,
        out: &mut O,
        chunks: &[C],
    ) -> Option<io::Result<usize>> {
        let endian = session.endian();
        if !self.pending.is_empty()
            || self.skip != 0
            || !chunks.iter().all(|c| is_plain_record(endian, c))
        {
            return None;
        }
        let (mut stats, mut last, mut offset) = (self.stats, self.last_sample, 0usize);
        for chunk in chunks {
            if !last.is_some_and(|l| l.passes(session, chunk)) {
                if let Err(problem) = self.check_record(session, chunk, &mut stats) {
                    let type_ = endian.read_u32(first_bytes(chunk));
                    return Some(Err(WriterError::RecordRefused {
                        offset,
                        type_,
                        problem,
                    }
                    .into()));
                }
                last = self.last_sample_of(session, chunk);
            }
            offset = offset.saturating_add(chunk.len());
        }
        // Room for all of them first: then none of the writes below can fail on I/O, and the
        // call is written whole or not at all.
        if let Err(e) = out.reserve(session, offset) {
            return Some(Err(e));
        }
        for chunk in chunks {
            if let Err(e) = out.write_records(session, chunk) {
                return Some(Err(e));
            }
        }
        self.stats = stats;
        self.last_sample = last;
        Some(Ok(offset))
    }

    fn write_parts<O: OutputMode, C: Deref<Target = [u8]>>(
        &mut self,
        session: &Session,
        out: &mut O,
        pending: &[u8],
        chunks: &[C],
    ) -> Result<usize, Refusal> {
        let parts = Parts { pending, chunks };
        let walk = self.walk(session, &parts)?;
        if let Some(max) = out.max_split().filter(|&max| walk.open_len > max) {
            let len = walk.open_len;
            return Err(Refusal::Call(
                WriterError::SplitRecordTooLong { len, max }.into(),
            ));
        }
        // Room for every byte written below first: then none of those writes can fail on
        // I/O, and the call is written whole or not at all.
        out.reserve(session, walk.tail).map_err(Refusal::Call)?;
        // Everything before the tail is whole records (or pass-through payload): written in
        // vectored batches, so that records split across parts cost one framer pass.
        const BATCH: usize = 32;
        let mut batch = [IoSlice::new(&[]); BATCH];
        let mut used = 0usize;
        let mut start = 0usize;
        for part in parts.iter() {
            let end = start.saturating_add(part.len());
            let upto = walk.tail.clamp(start, end).saturating_sub(start);
            if let Some(bytes) = part.get(..upto).filter(|b| !b.is_empty()) {
                if let Some(slot) = batch.get_mut(used) {
                    *slot = IoSlice::new(bytes);
                    used = used.saturating_add(1);
                }
                if used == BATCH {
                    out.write_records_vectored(session, &batch)
                        .map_err(Refusal::Call)?;
                    used = 0;
                }
            }
            start = end;
        }
        if let Some(rest) = batch.get(..used).filter(|b| !b.is_empty()) {
            out.write_records_vectored(session, rest)
                .map_err(Refusal::Call)?;
        }
        let mut tail = Vec::new();
        parts.copy_from(walk.tail, &mut tail);
        self.pending = tail;
        self.skip = walk.skip;
        self.stats = walk.stats;
        // The short way takes a call as whole records: closed while the stream is inside one.
        self.last_sample = walk
            .last_sample
            .filter(|_| self.pending.is_empty() && self.skip == 0);
        Ok(parts.len().saturating_sub(pending.len()))
    }

    /// Finds the records of `parts` and checks each complete one.
    fn walk<C: Deref<Target = [u8]>>(
        &mut self,
        session: &Session,
        parts: &Parts<'_, C>,
    ) -> Result<Walk, Refusal> {
        let total = parts.len();
        let mut cursor = Cursor::default();
        let held = parts.pending.len();
        let mut stats = self.stats;
        let mut last = self.last_sample;
        // A payload begun in an earlier call passes through first.
        let mut walker = RecordWalker::within_record(session.endian(), self.skip);
        let mut open_len = 0u64;
        // The start of the first record that is not whole (held back), when there is one.
        let mut cut = None;
        let mut base = 0usize;
        'parts: for part in parts.iter() {
            let mut at = 0usize;
            while let Some(rest) = part.get(at..).filter(|r| !r.is_empty()) {
                let here = base.saturating_add(at);
                // A refused record begun in an earlier call is dropped whole: its first bytes
                // were held back, so the stream stays at the record before it.
                let refuse = |pos: usize, e: WriterError| {
                    if pos < held {
                        Refusal::Held(e)
                    } else {
                        Refusal::Call(e.into())
                    }
                };
                let r = match walker.step(rest) {
                    Ok(Step::Record(r)) => r,
                    Ok(Step::Header(n) | Step::Body(n)) => {
                        at = at.saturating_add(n);
                        continue;
                    }
                    Err(fault) => {
                        let pos = here.saturating_sub(fault.held);
                        let e = fault.at(pos.saturating_sub(held)).into();
                        return Err(refuse(pos, e));
                    }
                };
                at = at.saturating_add(r.taken);
                let pos = here.saturating_sub(r.held);
                let size = usize::from(r.size);
                let end = pos.saturating_add(size);
                if end > total {
                    cut = Some(pos);
                    break 'parts;
                }
                if let RecordExtent::WithPayload(_) = r.extent {
                    // The payload passes through unchecked.
                    if (pos as u64).saturating_add(r.len) > total as u64 {
                        open_len = r.len;
                    }
                    continue;
                }
                let record = match parts.contiguous(&mut cursor, pos, end) {
                    Some(r) => r,
                    None => {
                        self.scratch.clear();
                        parts.copy_range_at(&mut cursor, pos, end, &mut self.scratch);
                        &self.scratch
                    }
                };
                if !last.is_some_and(|l| l.passes(session, record)) {
                    if let Err(problem) = self.check_record(session, record, &mut stats) {
                        let offset = pos.saturating_sub(held);
                        let e = WriterError::RecordRefused {
                            offset,
                            type_: r.type_,
                            problem,
                        };
                        return Err(refuse(pos, e));
                    }
                    last = self.last_sample_of(session, record);
                }
            }
            base = base.saturating_add(part.len());
        }
        // Past the last whole record: a record cut short, or a header not whole yet; or the
        // rest of a payload still to come.
        let (tail, skip) = match cut {
            Some(pos) => (pos, 0),
            None => (
                total.saturating_sub(walker.held()),
                walker.remaining().unwrap_or(0),
            ),
        };
        Ok(Walk {
            tail,
            skip,
            open_len,
            stats,
            last_sample: last,
        })
    }

    /// Checks and gathers the statistics of `data` when it is whole records and nothing is
    /// held back (the commonest call: one record, or a joined vectored call), each checked
    /// where it lies, then writes it: `None` when the call needs the general path
    /// ([`write`](Self::write)).
    #[inline]
    pub(crate) fn write_whole_record<O: OutputMode>(
        &mut self,
        session: &Session,
        out: &mut O,
        data: &[u8],
    ) -> Option<io::Result<()>> {
        if !self.pending.is_empty() || self.skip != 0 || data.is_empty() {
            return None;
        }
        let endian = session.endian();
        let (mut stats, mut last, mut pos) = (self.stats, self.last_sample, 0usize);
        let mut records = 0u64;
        while let Some(rest) = data.get(pos..).filter(|r| !r.is_empty()) {
            let record = first_plain_record(endian, rest)?;
            if !last.is_some_and(|l| l.passes(session, record)) {
                if let Err(problem) = self.check_record(session, record, &mut stats) {
                    let type_ = endian.read_u32(first_bytes(record));
                    return Some(Err(WriterError::RecordRefused {
                        offset: pos,
                        type_,
                        problem,
                    }
                    .into()));
                }
                last = self.last_sample_of(session, record);
            }
            pos = pos.saturating_add(record.len());
            records = records.saturating_add(1);
        }
        // One call to the output: taken whole or not at all.
        let written = match records {
            1 => out.write_records(session, data),
            n => out.write_known_records(session, &[IoSlice::new(data)], n),
        };
        if written.is_ok() {
            self.stats = stats;
            self.last_sample = last;
        }
        Some(written)
    }

    /// `data` is a SAMPLE of the size of the last one that passed, naming the same event:
    /// right without reading further (the commonest call, inline). Only in strict mode
    /// without derived headers (they need each record's time and cpu): the setters forget
    /// the last sample otherwise.
    #[inline]
    pub(crate) fn is_like_last_sample(&self, session: &Session, data: &[u8]) -> bool {
        self.last_sample
            .as_ref()
            .is_some_and(|last| last.passes(session, data))
    }

    /// A vectored call (`len` bytes in all) that is nothing but SAMPLEs like the last one
    /// that passed (see [`LastSample`]), read where they lie: how many, or `None` when the
    /// call needs a full check.
    pub(crate) fn like_last_samples_vectored(
        &self,
        session: &Session,
        bufs: &[IoSlice<'_>],
        len: usize,
    ) -> Option<u64> {
        let last = self.last_sample.as_ref()?;
        if !self.pending.is_empty()
            || self.skip != 0
            || last.size == 0
            || len % last.size != 0
            || session.descs().len() != last.descs
        {
            return None;
        }
        // Read where they lie: 8-byte words at rising offsets (`id_at` and RAW's place both
        // within the record, RAW's after the id's).
        let parts = Parts {
            pending: &[],
            chunks: bufs,
        };
        let mut cursor = Cursor::default();
        let mut word = |at: usize| {
            let mut w = [0u8; 8];
            (parts.copy_into(&mut cursor, at, &mut w) == 8).then_some(w)
        };
        let mut start = 0usize;
        while start < len {
            let head = word(start)?;
            let id = word(start.checked_add(last.id_at)?)?;
            let raw = match last.raw {
                Some(r) => Some(word(start.checked_add(r.at)?)?),
                None => None,
            };
            if !last.passes_words(head, id, raw) {
                return None;
            }
            start = start.saturating_add(last.size);
        }
        u64::try_from(len / last.size).ok()
    }

    /// After `data` passed the full check: what to remember of it, when it is a SAMPLE
    /// whose event's layout fixes its size (in strict mode without derived headers).
    fn last_sample_of(&self, session: &Session, data: &[u8]) -> Option<LastSample> {
        let endian = session.endian();
        if !self.strict
            || self.derive
            || self.wanted.is_some()
            || endian.read_u32(first_bytes(data)) != record_type::SAMPLE
        {
            return None;
        }
        let first = session.descs().first()?;
        let descs = session.descs().len();
        // One event without ids owns every SAMPLE; otherwise the id must stay the same.
        let id = match (
            descs == 1 && session.has_no_ids(),
            first.layout.sample_id_offset(),
        ) {
            (true, _) => None,
            (false, Some(at)) => Some((at, read_u64(data, at, endian)?)),
            (false, None) => return None,
        };
        let owner = match id {
            None => Some(first),
            Some((_, id)) => self.event_of(session, first, Some(id)).ok(),
        };
        let owner = owner?;
        let raw = match owner.layout.fixed_sample_len() {
            Some(len) if len == data.len() => None,
            Some(_) => return None,
            // RAW the only field of varying length: its size word, and the common_type
            // bytes after it that the tracepoint rule reads, must match too.
            None => {
                let at = owner.layout.raw_size_offset()?;
                let mut mask = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
                if let Some(rule) = session.raw_rule_of(owner) {
                    let ct = usize::try_from(rule.common_type_offset())
                        .ok()?
                        .checked_add(4)?;
                    mask.get_mut(ct..ct.checked_add(2)?)?.fill(0xff);
                }
                let mask = u64::from_ne_bytes(mask);
                let bits = u64::from_ne_bytes(word_at(data, at)?) & mask;
                Some(Word { at, mask, bits })
            }
        };
        // With one event, compare the header's type and size twice rather than test for no id.
        let (id_at, id_mask) = id.map_or((0, TYPE_AND_SIZE), |(at, _)| (at, u64::MAX));
        let head = data.first_chunk::<8>()?;
        let id = data.get(id_at..).and_then(|d| d.first_chunk::<8>())?;
        Some(LastSample {
            descs,
            size: data.len(),
            head: u64::from_ne_bytes(*head) & TYPE_AND_SIZE,
            id_at,
            id_mask,
            id: u64::from_ne_bytes(*id) & id_mask,
            raw,
        })
    }

    /// Strict checks and statistics of one whole record.
    #[inline]
    fn check_record(
        &self,
        session: &Session,
        record: &[u8],
        stats: &mut EventStats,
    ) -> Result<(), RecordProblem> {
        let endian = session.endian();
        let type_ = endian.read_u32(first_bytes(record));
        if type_ == record_type::SAMPLE {
            return match self.owner(session, record, true)? {
                Some(desc) => self.check_sample(session, desc, record, stats),
                None => self.refused_if_strict(RecordProblem::NoEventDescription),
            };
        }
        let Some(info) = record_type::info(type_) else {
            return self.refused_if_strict(RecordProblem::UnknownType);
        };
        if record_type::is_user(type_) {
            if self.strict && WRITER_MANAGED.contains(&type_) {
                return Err(RecordProblem::WriterManaged);
            }
            if self.strict && type_ == record_type::COMPRESSED {
                crate::compressed_check::check_compressed(session)?;
            }
            return match self.strict {
                true => check_body(info.body, record.len(), 0),
                false => Ok(()),
            };
        }
        let Some(desc) = self.owner(session, record, false)? else {
            return Ok(());
        };
        let trailer = desc.layout.sample_id_len();
        if self.strict {
            check_body(info.body, record.len(), trailer)?;
        }
        if self.derive && trailer != 0 {
            if let Ok(Some(cpu)) = id_of_non_sample(&desc.layout, endian, record).map(|s| s.cpu) {
                stats.add_cpu(cpu.cpu);
            }
        }
        Ok(())
    }

    /// [`check_record`](Self::check_record) of a SAMPLE that the event `desc` owns: its size
    /// is what that event's layout makes it.
    #[inline]
    fn check_sample(
        &self,
        session: &Session,
        desc: &EventDescData,
        record: &[u8],
        stats: &mut EventStats,
    ) -> Result<(), RecordProblem> {
        let endian = session.endian();
        if self.strict {
            check_sample_len(&desc.layout, endian, record)?;
            if let Some(rule) = session.raw_rule_of(desc) {
                // perf finds a RAW payload's format by its common_type: the one rule of
                // `write_sample`, on bytes.
                // (A tracepoint without RAW in its layout has nothing to decode.)
                with_parsed(&desc.layout, endian, record, |s| {
                    s.raw.map_or(Ok(()), |raw| rule.check(raw, endian))
                })
                .map_err(RecordProblem::SampleLayout)?
                .map_err(RecordProblem::TracepointRaw)?;
            }
        }
        if self.derive {
            if let Ok((time, cpu)) = time_and_cpu(&desc.layout, endian, record) {
                if let Some(t) = time {
                    stats.add_time(t);
                }
                if let Some(cpu) = cpu {
                    stats.add_cpu(cpu);
                }
            }
        }
        Ok(())
    }

    /// The description the kernel record `record` (a SAMPLE when `sample`) belongs to, by
    /// the event id where the first description's layout puts it (a SAMPLE's own place, or
    /// the `sample_id` trailer's); `None` without descriptions.
    #[inline]
    fn owner<'s>(
        &self,
        session: &'s Session,
        record: &[u8],
        sample: bool,
    ) -> Result<Option<&'s EventDescData>, RecordProblem> {
        let Some(first) = session.descs().first() else {
            return Ok(None);
        };
        let layout = &first.layout;
        let at = match sample {
            true => layout.sample_id_offset(),
            false => layout
                .trailer_id_offset_from_end()
                .and_then(|back| record.len().checked_sub(back)),
        };
        let id = at.and_then(|at| read_u64(record, at, session.endian()));
        self.event_of(session, first, id).map(Some)
    }

    /// `problem` in strict mode; out of it, nothing is refused.
    #[inline]
    fn refused_if_strict(&self, problem: RecordProblem) -> Result<(), RecordProblem> {
        match self.strict {
            true => Err(problem),
            false => Ok(()),
        }
    }

    /// The description a record with event id `id` belongs to ([`Session::desc_for`]); out
    /// of strict mode, the first when no description owns the id.
    fn event_of<'s>(
        &self,
        session: &'s Session,
        first: &'s EventDescData,
        id: Option<u64>,
    ) -> Result<&'s EventDescData, RecordProblem> {
        match session.desc_for(id) {
            Ok(d) => Ok(d),
            Err(_) if !self.strict => Ok(first),
            Err(_) => Err(RecordProblem::UnknownId(id.unwrap_or(0))),
        }
    }
}

/// Pipe mode's header records: the writer makes them from the event descriptions and
/// features (`add_event_desc`, `set_header`), and perf reads them only where it puts them.
const WRITER_MANAGED: [u32; 4] = [
    record_type::HEADER_ATTR,
    record_type::HEADER_EVENT_TYPE,
    record_type::HEADER_TRACING_DATA,
    record_type::HEADER_FEATURE,
];

/// A record of `len` bytes whose body is `body` long before a `trailer`-byte trailer.
#[inline]
fn check_body(body: BodyLen, len: usize, trailer: usize) -> Result<(), RecordProblem> {
    let (body, exact) = match body {
        BodyLen::Exact(n) => (n, true),
        BodyLen::AtLeast(n) => (n, false),
        BodyLen::Varies => return Ok(()),
    };
    let expected = usize::from(body).saturating_add(8).saturating_add(trailer);
    if len == expected || (!exact && len > expected) {
        return Ok(());
    }
    Err(RecordProblem::Size {
        size: u16::try_from(len).unwrap_or(u16::MAX),
        expected: u16::try_from(expected).unwrap_or(u16::MAX),
        exact,
    })
}

/// A SAMPLE's `header.size` is the length its layout gives its fields (found without
/// reading them when the layout has no variable-length field), or that rounded up to 8.
#[inline]
fn check_sample_len(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(), RecordProblem> {
    let implied = match layout.fixed_sample_len() {
        Some(n) => n,
        None => layout
            .sample_len(record, endian)
            .map_err(RecordProblem::SampleLayout)?,
    };
    if implied == record.len() || implied.next_multiple_of(8) == record.len() {
        return Ok(());
    }
    Err(RecordProblem::SampleLayout(ParseError::SizeMismatch {
        record: "SAMPLE",
        header_size: record.len(),
        implied,
    }))
}

/// Parses a SAMPLE by its layout; returns its TIME and CPU. `header.size` must be the
/// layout's length, or that length rounded up to 8 (padding after the last field, which
/// perf reads alike: writers that pad RAW without counting the padding make those).
fn time_and_cpu(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
) -> Result<(Option<u64>, Option<u32>), ParseError> {
    with_parsed(layout, endian, record, |s| (s.time, s.cpu.map(|c| c.cpu)))
}

/// `f` of the SAMPLE `record` parsed by its layout, also when `header.size` counts padding
/// after the last field that the layout does not (see [`time_and_cpu`]).
fn with_parsed<T>(
    layout: &SampleLayout,
    endian: Endian,
    record: &[u8],
    f: impl FnOnce(&ParsedSample<'_>) -> T,
) -> Result<T, ParseError> {
    match parse_sample(layout, endian, record) {
        Ok(s) => Ok(f(&s)),
        Err(ParseError::SizeMismatch {
            header_size,
            implied,
            ..
        }) if implied < header_size && implied.next_multiple_of(8) == header_size => {
            let size = u16::try_from(implied).unwrap_or(u16::MAX);
            let mut copy = record.to_vec();
            if let Some(field) = copy.get_mut(6..8) {
                field.copy_from_slice(&endian.u16_bytes(size));
            }
            parse_sample(layout, endian, &copy).map(|s| f(&s))
        }
        Err(e) => Err(e),
    }
}

#[inline]
fn first_bytes(record: &[u8]) -> [u8; 4] {
    record.first_chunk::<4>().copied().unwrap_or_default()
}

#[inline]
fn read_u64(record: &[u8], at: usize, endian: Endian) -> Option<u64> {
    let bytes = record.get(at..)?.first_chunk::<8>()?;
    Some(endian.read_u64(*bytes))
}

/// The held-back bytes followed by a call's chunks, addressed as one byte string.
struct Parts<'a, C> {
    pending: &'a [u8],
    chunks: &'a [C],
}

/// Where a walk over [`Parts`] is: the part holding the bytes last asked for and the
/// logical offset its first byte has. Walks only go forward, so each part is passed once.
#[derive(Clone, Copy, Default)]
struct Cursor {
    part: usize,
    base: usize,
}

impl<C: Deref<Target = [u8]>> Parts<'_, C> {
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(self.pending).chain(self.chunks.iter().map(|c| &**c))
    }

    fn len(&self) -> usize {
        self.iter().fold(0usize, |n, p| n.saturating_add(p.len()))
    }

    /// Part `i` (0: the held-back bytes).
    #[inline]
    fn part(&self, i: usize) -> Option<&[u8]> {
        match i.checked_sub(1) {
            None => Some(self.pending),
            Some(c) => self.chunks.get(c).map(|c| &**c),
        }
    }

    /// Moves `cur` forward to the part that holds logical offset `pos` (or past the end).
    #[inline]
    fn seek(&self, cur: &mut Cursor, pos: usize) {
        while let Some(p) = self.part(cur.part) {
            let end = cur.base.saturating_add(p.len());
            if pos < end {
                return;
            }
            cur.base = end;
            cur.part = cur.part.saturating_add(1);
        }
    }

    /// The bytes `start..end` when one part holds them all.
    fn contiguous(&self, cur: &mut Cursor, start: usize, end: usize) -> Option<&[u8]> {
        self.seek(cur, start);
        let p = self.part(cur.part)?;
        p.get(start.saturating_sub(cur.base)..end.saturating_sub(cur.base))
    }

    /// Appends the bytes `start..end` to `out`.
    fn copy_range_at(&self, cur: &mut Cursor, start: usize, end: usize, out: &mut Vec<u8>) {
        self.seek(cur, start);
        let (mut i, mut base) = (cur.part, cur.base);
        while let Some(p) = self.part(i) {
            if base >= end {
                break;
            }
            let part_end = base.saturating_add(p.len());
            let from = start.clamp(base, part_end).saturating_sub(base);
            let to = end.clamp(base, part_end).saturating_sub(base);
            if let Some(b) = p.get(from..to) {
                out.extend_from_slice(b);
            }
            base = part_end;
            i = i.saturating_add(1);
        }
    }

    /// Appends the bytes from `start` to the end to `out`.
    fn copy_from(&self, start: usize, out: &mut Vec<u8>) {
        self.copy_range_at(&mut Cursor::default(), start, usize::MAX, out);
    }

    /// Copies up to `dst.len()` bytes from `start`; returns how many there were.
    #[inline]
    fn copy_into(&self, cur: &mut Cursor, start: usize, dst: &mut [u8]) -> usize {
        self.seek(cur, start);
        // The commonest case: all of it in the part at the cursor.
        let at = start.saturating_sub(cur.base);
        let whole = self
            .part(cur.part)
            .and_then(|p| p.get(at..at.checked_add(dst.len())?));
        if let Some(src) = whole {
            dst.copy_from_slice(src);
            return dst.len();
        }
        let (mut i, mut base) = (cur.part, cur.base);
        let mut copied = 0usize;
        while let Some(p) = self.part(i) {
            if copied == dst.len() {
                break;
            }
            let at = start.saturating_add(copied);
            let src = p.get(at.saturating_sub(base)..).unwrap_or(&[]);
            let n = src.len().min(dst.len().saturating_sub(copied));
            let to = copied.saturating_add(n);
            if let (Some(d), Some(s)) = (dst.get_mut(copied..to), src.get(..n)) {
                d.copy_from_slice(s);
            }
            copied = to;
            base = base.saturating_add(p.len());
            i = i.saturating_add(1);
        }
        copied
    }
}
