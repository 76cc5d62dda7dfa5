//! Checks that raw bytes form whole records, across any split into chunks.
//!
//! One walk over record streams, [`RecordWalker`], finds where each record starts and ends
//! (gathering a header split across chunks, skipping the payload that follows
//! HEADER_TRACING_DATA and AUXTRACE), with one rule for how a record is delimited,
//! [`record_extent`]. [`RecordFramer`] is that walk with a record count, for a writer that
//! must refuse bytes that are not whole records, and a fast path for plain records.

use crate::Endian;
use core::fmt;
use perf_abi::record_type::{self, Framing, PayloadLen};

/// Why bytes are not a valid sequence of records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramingError {
    /// A record's `size` is below 8, or not a multiple of 8 (HEADER_FEATURE and COMPRESSED
    /// excepted: perf writes those unpadded).
    BadSize {
        /// Offset of the record within the bytes fed in this call; 0 when its header began
        /// in an earlier call.
        offset: usize,
        /// Record type.
        type_: u32,
        /// The `size` field.
        size: u16,
    },
    /// A record that carries a payload after its header (HEADER_TRACING_DATA, AUXTRACE) is too
    /// short to say how long that payload is.
    ShortHeader {
        /// Offset of the record within this call's bytes.
        offset: usize,
        /// Record type.
        type_: u32,
    },
    /// A record whose header announces a payload no perf.data file can hold: more than
    /// [`MAX_RECORD_LEN`] bytes in all.
    TooLong {
        /// Offset of the record within this call's bytes.
        offset: usize,
        /// Record type.
        type_: u32,
        /// Its announced length (its size and payload).
        len: u64,
    },
}

/// The longest record (its size and the payload after it) a perf.data file can hold: its
/// end must be a file offset perf can seek to (`off_t`, below 2^63) after the file header.
pub const MAX_RECORD_LEN: u64 = (i64::MAX as u64) - 4096;

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BadSize {
                offset,
                type_,
                size,
            } => {
                let rule = match framing_of(type_) {
                    Framing::Unpadded => "at least 8",
                    _ => "a multiple of 8, at least 8",
                };
                write!(
                    f,
                    "record at byte {offset} (type {type_}) has size {size}: its type's sizes are {rule}"
                )
            }
            Self::ShortHeader { offset, type_ } => write!(
                f,
                "record at byte {offset} (type {type_}) is too short to hold its payload size"
            ),
            Self::TooLong { offset, type_, len } => write!(
                f,
                "record at byte {offset} (type {type_}) announces {len} bytes, more than a perf.data file can hold ({MAX_RECORD_LEN})"
            ),
        }
    }
}

impl core::error::Error for FramingError {}

/// The type and size fields of a record header's first 8 bytes (as stored, in `endian`).
///
/// ```
/// use perf_encode::{records::header_type_and_size, Endian};
/// assert_eq!(header_type_and_size(Endian::Little, &[9, 0, 0, 0, 1, 0, 16, 0]), (9, 16));
/// assert_eq!(header_type_and_size(Endian::Big, &[0, 0, 0, 9, 0, 1, 0, 16]), (9, 16));
/// ```
#[inline]
pub const fn header_type_and_size(endian: Endian, h: &[u8; 8]) -> (u32, u16) {
    (
        endian.read_u32([h[0], h[1], h[2], h[3]]),
        endian.read_u16([h[6], h[7]]),
    )
}

/// Walks a stream of records fed in arbitrary chunks, one [`Step`] at a time, without
/// copying the stream (only a header split across chunks is gathered, at most 16 bytes):
/// where each record starts, how long it is (its size and any payload after it), and
/// which bytes belong to it. Every record's size is checked against its type
/// ([`record_extent`]); nothing else is.
///
/// ```
/// use perf_encode::{records::{RecordWalker, Step}, Endian};
/// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
/// let mut w = RecordWalker::new(Endian::Little);
/// assert_eq!(w.step(&rec[..5]), Ok(Step::Header(5))); // the header is not whole yet
/// let Ok(Step::Record(r)) = w.step(&rec[5..]) else { panic!() };
/// assert_eq!((r.type_, r.len, r.held, r.taken), (9, 16, 5, 11));
/// assert_eq!(w.earlier_bytes(&r), &rec[..5]);
/// assert!(w.at_boundary());
/// assert!(w.step(&[9, 0, 0, 0, 0, 0, 12, 0]).is_err()); // size 12: refused
/// ```
#[derive(Clone, Copy)]
pub struct RecordWalker {
    endian: Endian,
    /// The first `have` bytes are a record header gathered across calls; the rest is stale.
    header: [u8; 16],
    have: usize,
    /// Bytes of the current record still to come (0: between records, or in its header).
    remaining: u64,
    /// The whole length (header size and payload) of the current record; meaningful only
    /// while `have == 0 && remaining > 0`.
    len: u64,
}

/// Shows the state: the stale header bytes past the gathered ones are left out.
impl fmt::Debug for RecordWalker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordWalker")
            .field("endian", &self.endian)
            .field("header", &self.gathered())
            .field("remaining", &self.remaining)
            .field("len", &self.len)
            .finish()
    }
}

/// What one [`RecordWalker::step`] found at the start of the bytes it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The first `n` bytes (all of them) are part of a record header that is not whole yet:
    /// the walker keeps them.
    Header(usize),
    /// A record starts (its header became whole): see [`RecordStart`].
    Record(RecordStart),
    /// The first `n` bytes belong to the current record (its body, or the payload after it).
    Body(usize),
}

/// A record found by [`RecordWalker::step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordStart {
    /// Its type.
    pub type_: u32,
    /// Its header's `size`.
    pub size: u16,
    /// How it is delimited.
    pub extent: RecordExtent,
    /// Its whole length: `size`, and the payload after it for
    /// [`RecordExtent::WithPayload`].
    pub len: u64,
    /// Its first bytes that came in earlier steps (a header split across chunks; the
    /// walker kept them: [`RecordWalker::earlier_bytes`]). The record starts `held` bytes
    /// before the bytes of this step.
    pub held: usize,
    /// The bytes of this step that belong to it (the rest of its header, and as much of the
    /// rest of it as they hold).
    pub taken: usize,
}

/// A record header refused by [`RecordWalker::step`]: its size does not fit its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordFault {
    /// What is wrong.
    pub fault: SizeFault,
    /// The record's type.
    pub type_: u32,
    /// Its header's `size`.
    pub size: u16,
    /// Its first bytes that came in earlier steps (see [`RecordStart::held`]).
    pub held: usize,
}

impl RecordFault {
    /// The [`FramingError`] of this fault found by a step at offset `pos` of a call's bytes
    /// (offset 0 when the record began in an earlier call).
    #[inline]
    pub const fn at(self, pos: usize) -> FramingError {
        self.fault
            .at(pos.saturating_sub(self.held), self.type_, self.size)
    }
}

impl RecordWalker {
    /// A walker at the start of a stream of byte order `endian`.
    #[inline]
    pub const fn new(endian: Endian) -> Self {
        Self::within_record(endian, 0)
    }

    /// A walker inside a record (or the payload after it) whose last `remaining` bytes are
    /// still to come; between records for 0.
    #[inline]
    pub const fn within_record(endian: Endian, remaining: u64) -> Self {
        RecordWalker {
            endian,
            header: [0; 16],
            have: 0,
            remaining,
            len: remaining,
        }
    }

    /// True between records.
    #[inline]
    pub const fn at_boundary(&self) -> bool {
        self.have == 0 && self.remaining == 0
    }

    /// Bytes of a record header gathered so far (0 when no header is split).
    #[inline]
    pub const fn held(&self) -> usize {
        self.have
    }

    /// Bytes until the next record boundary: `Some(0)` between records, `None` while the
    /// current record's header (8 bytes, or 16 for a record followed by a payload) is not
    /// whole, so its length is not known yet.
    #[inline]
    pub const fn remaining(&self) -> Option<u64> {
        if self.have != 0 {
            None
        } else {
            Some(self.remaining)
        }
    }

    /// The part of `header` that is state.
    fn gathered(&self) -> &[u8] {
        self.header.get(..self.have).unwrap_or(&self.header)
    }

    /// The first [`held`](RecordStart::held) bytes of `record`, which came in earlier steps:
    /// valid right after the step that returned `record`.
    #[inline]
    pub fn earlier_bytes(&self, record: &RecordStart) -> &[u8] {
        self.header.get(..record.held).unwrap_or(&self.header)
    }

    /// Walks the start of `data`, the continuation of the stream: what its first bytes are.
    ///
    /// The [`Step`] says how many bytes it covers (at least 1 when `data` is not empty).
    ///
    /// # Errors
    ///
    /// A [`RecordFault`] when the record header that becomes whole in this step has a size
    /// its type does not allow ([`record_extent`]'s [`SizeFault`]), or announces a payload
    /// that makes the record longer than [`MAX_RECORD_LEN`] ([`SizeFault::TooLong`]). The
    /// walker is then as it was.
    #[inline]
    pub fn step(&mut self, data: &[u8]) -> Result<Step, RecordFault> {
        if self.have == 0 {
            if self.remaining > 0 {
                let n = usize::try_from(self.remaining)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                self.remaining = self.remaining.saturating_sub(n as u64);
                return Ok(Step::Body(n));
            }
            // The common step: a record whose whole header is here and that is just its size.
            if let Some(h) = data.first_chunk::<8>() {
                let (type_, size) = header_type_and_size(self.endian, h);
                match record_extent(type_, size) {
                    Err(fault) => {
                        return Err(RecordFault {
                            fault,
                            type_,
                            size,
                            held: 0,
                        })
                    }
                    Ok(RecordExtent::Sized) => {
                        let taken = usize::from(size).min(data.len());
                        self.len = u64::from(size);
                        self.remaining = self.len.saturating_sub(taken as u64);
                        return Ok(Step::Record(RecordStart {
                            type_,
                            size,
                            extent: RecordExtent::Sized,
                            len: self.len,
                            held: 0,
                            taken,
                        }));
                    }
                    Ok(RecordExtent::WithPayload(_)) => {} // its second word is read below
                }
            }
        }
        self.gather(data)
    }

    /// [`step`](Self::step) while a header is gathered (or starts): 8 bytes, or 16 for a
    /// record that says how long its payload is.
    fn gather(&mut self, data: &[u8]) -> Result<Step, RecordFault> {
        let held = self.have;
        let (mut header, mut have, mut pos) = (self.header, held, 0usize);
        let mut want: usize = if have >= 8 { 16 } else { 8 };
        loop {
            let take = want
                .saturating_sub(have)
                .min(data.len().saturating_sub(pos));
            let (end, to) = (have.saturating_add(take), pos.saturating_add(take));
            if let (Some(dst), Some(src)) = (header.get_mut(have..end), data.get(pos..to)) {
                // Not `copy_from_slice`: its length-mismatch panic would be linked in.
                for (d, b) in dst.iter_mut().zip(src) {
                    *d = *b;
                }
            }
            (have, pos) = (end, to);
            if have < want {
                // `data` ends inside the header.
                self.header = header;
                self.have = have;
                return Ok(Step::Header(pos));
            }
            let [t0, t1, t2, t3, m0, m1, s0, s1, w @ ..] = header;
            let (type_, size) =
                header_type_and_size(self.endian, &[t0, t1, t2, t3, m0, m1, s0, s1]);
            let extent = record_extent(type_, size).map_err(|fault| RecordFault {
                fault,
                type_,
                size,
                held,
            })?;
            let payload = match extent {
                RecordExtent::Sized => 0,
                RecordExtent::WithPayload(_) if want < 16 => {
                    want = 16; // gather its second word
                    continue;
                }
                RecordExtent::WithPayload(how) => payload_len(how, self.endian, w),
            };
            let len = u64::from(size).saturating_add(payload);
            if len > MAX_RECORD_LEN {
                return Err(RecordFault {
                    fault: SizeFault::TooLong(len),
                    type_,
                    size,
                    held,
                });
            }
            let body = len.saturating_sub(have as u64);
            let more = usize::try_from(body)
                .unwrap_or(usize::MAX)
                .min(data.len().saturating_sub(pos));
            self.header = header;
            self.have = 0;
            self.len = len;
            self.remaining = body.saturating_sub(more as u64);
            return Ok(Step::Record(RecordStart {
                type_,
                size,
                extent,
                len,
                held,
                taken: pos.saturating_add(more),
            }));
        }
    }
}

/// Tracks record boundaries in a stream fed in arbitrary chunks, without copying the stream.
///
/// [`RecordFramer::check`] validates a chunk and returns the state after it without changing
/// `self`, so a caller can refuse a bad chunk and keep the stream as it was;
/// [`RecordFramer::feed`] does both steps.
///
/// HEADER_TRACING_DATA and AUXTRACE records are followed by a payload outside
/// `header.size`; the framer skips it.
///
/// ```
/// use perf_encode::{records::RecordFramer, Endian};
/// let mut f = RecordFramer::new(Endian::Little);
/// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
/// f.feed(&rec[..5]).unwrap();
/// assert!(!f.at_boundary());
/// f.feed(&rec[5..]).unwrap();
/// assert!(f.at_boundary());
/// assert_eq!(f.records(), 1);
/// assert!(f.feed(&[9, 0, 0, 0, 0, 0, 12, 0]).is_err()); // size 12: refused
/// assert!(f.at_boundary());
/// ```
///
/// The framer is a [`RecordWalker`] that counts records, with the common calls checked
/// inline.
///
/// # The fast path: plain records
///
/// Most records are *plain*: one whole record, of a type with no special framing rule
/// (SAMPLE, MMAP, COMM, …) and a size that is a multiple of 8. A writer that hands out
/// whole records can skip the walk for them: [`is_plain_record`] tests one call's bytes
/// without any state ([`first_plain_record`] takes several from one slice), and
/// [`RecordFramer::after_plain_records`] gives the framer's state after `n` of them, as
/// feeding them would, without reading them again.
///
/// ```
/// use perf_encode::{records::{is_plain_record, RecordFramer}, Endian};
/// let mut f = RecordFramer::new(Endian::Little);
/// let (mut out, mut plain) = (Vec::new(), 0);
/// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
/// for call in [&rec[..], &rec[..], &rec[..8]] {
///     if f.at_boundary() && is_plain_record(Endian::Little, call) {
///         plain += 1; // taken without the framer
///     } else {
///         f = f.after_plain_records(plain).unwrap(); // catch up first
///         plain = 0;
///         f.feed(call).unwrap();
///     }
///     out.extend_from_slice(call);
/// }
/// assert_eq!((f.records(), f.partial_len()), (3, 8));
/// ```
#[derive(Clone, Copy)]
pub struct RecordFramer {
    walk: RecordWalker,
    records: u64,
}

/// Two framers are equal when they are in the same state: the stale header bytes past the
/// gathered ones do not count.
impl PartialEq for RecordFramer {
    fn eq(&self, other: &Self) -> bool {
        self.walk.endian == other.walk.endian
            && self.walk.have == other.walk.have
            && self.walk.remaining == other.walk.remaining
            && self.partial_len() == other.partial_len()
            && self.records == other.records
            && self.walk.gathered() == other.walk.gathered()
    }
}

impl Eq for RecordFramer {}

impl fmt::Debug for RecordFramer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordFramer")
            .field("endian", &self.walk.endian)
            .field("header", &self.walk.gathered())
            .field("remaining", &self.walk.remaining)
            .field("partial_len", &self.partial_len())
            .field("records", &self.records)
            .finish()
    }
}

impl RecordFramer {
    /// A framer at the start of a stream of byte order `endian`.
    #[inline]
    pub const fn new(endian: Endian) -> Self {
        RecordFramer {
            walk: RecordWalker::new(endian),
            records: 0,
        }
    }

    /// Bytes of the current, unfinished record fed so far (0 between records): how many
    /// bytes a writer holding records back until they are whole must keep.
    ///
    /// ```
    /// use perf_encode::{records::RecordFramer, Endian};
    /// let mut f = RecordFramer::new(Endian::Little);
    /// let rec = [9u8, 0, 0, 0, 0, 0, 24, 0];
    /// f.feed(&rec[..5]).unwrap();
    /// assert_eq!((f.partial_len(), f.remaining()), (5, None)); // header not whole yet
    /// f.feed(&rec[5..]).unwrap();
    /// assert_eq!((f.partial_len(), f.remaining()), (8, Some(16)));
    /// f.feed(&[0; 16]).unwrap();
    /// assert_eq!((f.partial_len(), f.remaining()), (0, Some(0)));
    /// ```
    #[inline]
    pub const fn partial_len(&self) -> u64 {
        let w = &self.walk;
        if w.have != 0 {
            w.have as u64
        } else if w.remaining == 0 {
            0
        } else {
            w.len.saturating_sub(w.remaining)
        }
    }

    /// Bytes until the next record boundary: `Some(0)` between records, `None` while the
    /// current record's header (8 bytes, or 16 for a record followed by a payload) is not
    /// whole, so its length is not known yet.
    #[inline]
    pub const fn remaining(&self) -> Option<u64> {
        self.walk.remaining()
    }

    /// The whole length of the current record (its size and any payload after it), once its
    /// header is whole; `Some(0)` between records.
    #[inline]
    pub const fn record_len(&self) -> Option<u64> {
        let w = &self.walk;
        if w.have != 0 {
            None
        } else if w.remaining == 0 {
            Some(0)
        } else {
            Some(w.len)
        }
    }

    /// Forgets the current, unfinished record (the caller dropped its bytes) and returns to
    /// the boundary before it; returns how many of its bytes were fed. Between records it
    /// changes nothing and returns 0.
    ///
    /// ```
    /// use perf_encode::{records::RecordFramer, Endian};
    /// let mut f = RecordFramer::new(Endian::Little);
    /// f.feed(&[9, 0, 0, 0, 0, 0, 32, 0, 1, 2]).unwrap();
    /// assert_eq!(f.abandon_record(), 10);
    /// assert!(f.at_boundary());
    /// assert_eq!(f.records(), 0);
    /// ```
    pub fn abandon_record(&mut self) -> u64 {
        let dropped = self.partial_len();
        if self.walk.have == 0 && self.walk.remaining != 0 {
            // A record whose header was whole was counted.
            self.records = self.records.wrapping_sub(1);
        }
        self.walk.have = 0;
        self.walk.remaining = 0;
        dropped
    }

    /// True between records.
    #[inline]
    pub const fn at_boundary(&self) -> bool {
        self.walk.at_boundary()
    }

    /// Records started so far.
    #[inline]
    pub const fn records(&self) -> u64 {
        self.records
    }

    /// Validates `data` as the continuation of the stream; returns the state after it.
    ///
    /// # Errors
    ///
    /// As [`feed`](Self::feed); `self` does not change either way.
    #[inline]
    pub fn check(&self, data: &[u8]) -> Result<RecordFramer, FramingError> {
        let mut s = *self;
        s.feed(data)?;
        Ok(s)
    }

    /// Validates `data` and advances past it; on error nothing changes.
    ///
    /// # Errors
    ///
    /// The [`FramingError`] of the first record of `data` that breaks the framing rule
    /// ([`record_extent`]), with its offset in `data` (0 when its header began in an earlier
    /// call):
    /// - [`FramingError::BadSize`] for a size below 8, or not a multiple of 8 for a type
    ///   that must be aligned;
    /// - [`FramingError::ShortHeader`] for a record followed by a payload (HEADER_TRACING_DATA,
    ///   AUXTRACE) whose size is below 16, too short to say the payload's length;
    /// - [`FramingError::TooLong`] for one whose payload makes it longer than
    ///   [`MAX_RECORD_LEN`].
    #[inline]
    pub fn feed(&mut self, data: &[u8]) -> Result<(), FramingError> {
        // The common calls (one whole record, or a piece of one) are checked inline and in
        // place; the rest (several records, split headers, trailers, errors) goes through the
        // loop.
        if self.advance_within_record(data).is_none() {
            *self = self.check_stream(data)?;
        }
        Ok(())
    }

    /// Validates `data`, then calls `write` (which writes it somewhere); advances if both succeed.
    ///
    /// A refused chunk and a failed write both leave the framer as it was, without the
    /// caller keeping a copy of it. Returns what `write` returned.
    ///
    /// # Errors
    ///
    /// As [`feed`](Self::feed) when `data` is refused; `write` is then not called. An error
    /// of `write` is not an error of this call: it is the `Ok(Err(_))` returned.
    ///
    /// ```
    /// use perf_encode::{records::RecordFramer, Endian};
    /// let mut f = RecordFramer::new(Endian::Little);
    /// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    /// let mut out = Vec::new();
    /// let ok = f.feed_then(&rec, || -> Result<(), ()> {
    ///     out.extend_from_slice(&rec);
    ///     Ok(())
    /// });
    /// assert_eq!(ok, Ok(Ok(())));
    /// assert_eq!(f.records(), 1);
    /// assert_eq!(f.feed_then(&rec[..5], || Err::<(), _>("disk full")), Ok(Err("disk full")));
    /// assert!(f.at_boundary()); // the failed write changed nothing
    /// let bad = [9u8, 0, 0, 0, 0, 0, 12, 0]; // size 12
    /// let refused = f.feed_then(&bad, || -> Result<(), ()> { unreachable!() });
    /// assert!(refused.is_err()); // refused: `write` not called
    /// ```
    #[inline]
    pub fn feed_then<T, E>(
        &mut self,
        data: &[u8],
        write: impl FnOnce() -> Result<T, E>,
    ) -> Result<Result<T, E>, FramingError> {
        if let Some(undo) = self.advance_within_record(data) {
            let written = write();
            if written.is_err() {
                self.undo(undo);
            }
            return Ok(written);
        }
        self.feed_then_stream(data, write)
    }

    /// The framer after `n` more plain records (each one that [`is_plain_record`] accepted,
    /// fed from a record boundary): what [`feed`](Self::feed) of those bytes gives, without
    /// reading them again. `None` when the framer is inside a record.
    ///
    /// ```
    /// use perf_encode::{records::{is_plain_record, RecordFramer}, Endian};
    /// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    /// assert!(is_plain_record(Endian::Little, &rec));
    /// let mut fed = RecordFramer::new(Endian::Little);
    /// fed.feed(&[rec, rec].concat()).unwrap();
    /// assert_eq!(RecordFramer::new(Endian::Little).after_plain_records(2), Some(fed));
    /// ```
    #[inline]
    pub const fn after_plain_records(&self, n: u64) -> Option<RecordFramer> {
        if !self.at_boundary() {
            return None;
        }
        let mut next = *self;
        next.records = next.records.saturating_add(n);
        Some(next)
    }

    /// [`feed_then`](Self::feed_then) for the calls the inline path does not take (out of
    /// line, so that the inline path stays small).
    #[inline(never)]
    fn feed_then_stream<T, E>(
        &mut self,
        data: &[u8],
        write: impl FnOnce() -> Result<T, E>,
    ) -> Result<Result<T, E>, FramingError> {
        let next = self.check_stream(data)?;
        let written = write();
        if written.is_ok() {
            *self = next;
        }
        Ok(written)
    }

    /// The calls checked inline: bytes that all belong to the body of the current record, or
    /// a record starting at a boundary that `data` does not pass (a whole record, or the
    /// first part of one), without a trailer and with a valid size. Advances for those,
    /// leaving the state [`check_stream`](Self::check_stream) would, and returns how to undo
    /// that; returns `None` (changing nothing) for any other call.
    #[inline]
    fn advance_within_record(&mut self, data: &[u8]) -> Option<Undo> {
        if self.walk.have != 0 {
            return None;
        }
        let (remaining, len) = (self.walk.remaining, self.walk.len);
        let (next, started) = plain_step(self.walk.endian, remaining, data)?;
        self.walk.remaining = next;
        if started {
            // 2^64 records do not happen; wrapping keeps `undo` an exact inverse.
            self.records = self.records.wrapping_add(1);
            // `next + data.len()` is the record's size (at most 65,535): no wrap.
            self.walk.len = next.wrapping_add(data.len() as u64);
        }
        Some(Undo {
            remaining,
            len,
            started,
        })
    }

    /// Validates the concatenation of `chunks` and advances past all of them.
    ///
    /// # Errors
    ///
    /// The error [`feed`](Self::feed) of each chunk in turn would return first (its offset
    /// is within its chunk). Nothing changes then: the chunks before it are not taken either.
    ///
    /// ```
    /// use perf_encode::{records::RecordFramer, Endian};
    /// let mut f = RecordFramer::new(Endian::Little);
    /// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    /// f.feed_all([&rec[..8], &rec[8..], &rec[..]]).unwrap();
    /// assert_eq!(f.records(), 2);
    /// let bad = [9u8, 0, 0, 0, 0, 0, 12, 0]; // size 12
    /// assert!(f.feed_all([&rec[..], &bad[..]]).is_err());
    /// assert_eq!(f.records(), 2); // the whole call was refused
    /// ```
    #[inline]
    pub fn feed_all<'d, I>(&mut self, chunks: I) -> Result<(), FramingError>
    where
        I: IntoIterator<Item = &'d [u8]>,
    {
        let plan = self.plan_all(chunks)?;
        self.apply(plan);
        Ok(())
    }

    /// [`feed_all`](Self::feed_all), then `write`, advancing only when both succeed.
    ///
    /// As [`feed_then`](Self::feed_then) does for one chunk; `write` writes the chunks
    /// somewhere.
    ///
    /// # Errors
    ///
    /// As [`feed_all`](Self::feed_all) when the chunks are refused; `write` is then not
    /// called. An error of `write` is the `Ok(Err(_))` returned.
    ///
    /// ```
    /// use perf_encode::{records::RecordFramer, Endian};
    /// let mut f = RecordFramer::new(Endian::Little);
    /// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    /// let chunks = [&rec[..8], &rec[8..]];
    /// assert_eq!(f.feed_all_then(chunks, || Err::<(), _>("disk full")), Ok(Err("disk full")));
    /// assert_eq!(f.records(), 0);
    /// assert_eq!(f.feed_all_then(chunks, || Ok::<_, ()>(16)), Ok(Ok(16)));
    /// assert_eq!(f.records(), 1);
    /// ```
    #[inline]
    pub fn feed_all_then<'d, I, T, E>(
        &mut self,
        chunks: I,
        write: impl FnOnce() -> Result<T, E>,
    ) -> Result<Result<T, E>, FramingError>
    where
        I: IntoIterator<Item = &'d [u8]>,
    {
        let plan = self.plan_all(chunks)?;
        let written = write();
        if written.is_ok() {
            self.apply(plan);
        }
        Ok(written)
    }

    /// The state after `chunks`, without changing `self`.
    #[inline]
    fn plan_all<'d, I>(&self, chunks: I) -> Result<Plan, FramingError>
    where
        I: IntoIterator<Item = &'d [u8]>,
    {
        let mut chunks = chunks.into_iter();
        if self.walk.have != 0 {
            return self.plan_rest(*self, chunks);
        }
        // The inline path on the two words it changes, kept in registers; the first chunk it
        // does not take sends this one and the rest the long way.
        let (mut remaining, mut records, mut len) =
            (self.walk.remaining, self.records, self.walk.len);
        while let Some(c) = chunks.next() {
            match plain_step(self.walk.endian, remaining, c) {
                Some((next, started)) => {
                    remaining = next;
                    if started {
                        records = records.wrapping_add(1);
                        // The record's size (at most 65,535): no wrap.
                        len = next.wrapping_add(c.len() as u64);
                    }
                }
                None => {
                    let s = RecordFramer {
                        walk: RecordWalker {
                            remaining,
                            len,
                            ..self.walk
                        },
                        records,
                    };
                    return self.plan_rest(s.check_stream(c)?, chunks);
                }
            }
        }
        Ok(Plan::Words {
            remaining,
            records,
            len,
        })
    }

    /// The rest of [`plan_all`](Self::plan_all) from the state `s` (out of line).
    #[inline(never)]
    fn plan_rest<'d>(
        &self,
        mut s: RecordFramer,
        chunks: impl Iterator<Item = &'d [u8]>,
    ) -> Result<Plan, FramingError> {
        for c in chunks {
            s.feed(c)?;
        }
        Ok(Plan::Whole(s))
    }

    /// Takes a step planned by [`plan_all`](Self::plan_all).
    #[inline]
    fn apply(&mut self, plan: Plan) {
        match plan {
            Plan::Words {
                remaining,
                records,
                len,
            } => {
                self.walk.remaining = remaining;
                self.records = records;
                self.walk.len = len;
            }
            Plan::Whole(s) => *self = s,
        }
    }

    /// Takes back an [`advance_within_record`](Self::advance_within_record).
    #[cold]
    fn undo(&mut self, undo: Undo) {
        self.walk.remaining = undo.remaining;
        self.walk.len = undo.len;
        if undo.started {
            self.records = self.records.wrapping_sub(1);
        }
    }

    /// [`check`](Self::check) for any chunk: the walk over it.
    ///
    /// Takes the framer by value: a caller that keeps its framer in a local (as a loop over
    /// chunks does) then passes a copy, and its local can stay in registers.
    fn check_stream(self, data: &[u8]) -> Result<RecordFramer, FramingError> {
        let mut s = self;
        let mut pos = 0usize;
        while let Some(rest) = data.get(pos..).filter(|r| !r.is_empty()) {
            let n = match s.walk.step(rest).map_err(|fault| fault.at(pos))? {
                Step::Record(r) => {
                    // 2^64 records do not happen; wrapping keeps `undo` an exact inverse.
                    s.records = s.records.wrapping_add(1);
                    r.taken
                }
                Step::Header(n) | Step::Body(n) => n,
            };
            pos = pos.saturating_add(n);
        }
        Ok(s)
    }
}

/// The inline path on the words it reads and changes, for a framer with `have == 0` whose
/// body bytes still to come are `remaining`: `data` is all body bytes of the current record,
/// or (at a boundary) a record without a trailer, of a valid size, that `data` does not pass.
/// Returns the new `remaining` and whether a record started; `None` for any other call.
#[inline]
fn plain_step(endian: Endian, remaining: u64, data: &[u8]) -> Option<(u64, bool)> {
    if remaining == 0 {
        // At a boundary: a record starts here. (Empty data goes the long way, which
        // changes nothing either.)
        let (type_, size) = header_type_and_size(endian, data.first_chunk::<8>()?);
        let whole = usize::from(size);
        if whole < data.len() || !plain_size_ok(type_, size) {
            return None;
        }
        // `whole >= data.len()`: no wrap.
        return Some((whole.wrapping_sub(data.len()) as u64, true));
    }
    let len = data.len() as u64;
    if remaining < len {
        return None;
    }
    // `remaining >= len`: no wrap.
    Some((remaining.wrapping_sub(len), false))
}

/// The state after a [`RecordFramer::plan_all`].
#[derive(Clone, Copy)]
enum Plan {
    /// Only `remaining` and `records` change (the inline path took every chunk).
    Words {
        /// The new `remaining`.
        remaining: u64,
        /// The new `records`.
        records: u64,
        /// The new `len`.
        len: u64,
    },
    /// The whole state.
    Whole(RecordFramer),
}

/// What [`RecordFramer::advance_within_record`] changed, to take it back.
#[derive(Clone, Copy)]
struct Undo {
    /// `remaining` before.
    remaining: u64,
    /// `len` before.
    len: u64,
    /// A record was started (and counted).
    started: bool,
}

/// How a record is delimited, from its header's type and size (see [`record_extent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordExtent {
    /// The record is `header.size` bytes.
    Sized,
    /// The record is `header.size` bytes and a payload follows it, whose length
    /// [`payload_len`] reads from the record's second word.
    WithPayload(PayloadLen),
}

/// Why a record header's size does not fit its type (see [`record_extent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeFault {
    /// Below 8, or not a multiple of 8 for a type that must be aligned.
    BadSize,
    /// A record followed by a payload is too short (under 16 bytes) to say how long it is.
    ShortHeader,
    /// The payload it announces makes it this long, more than [`MAX_RECORD_LEN`].
    TooLong(u64),
}

impl SizeFault {
    /// The [`FramingError`] of this fault for the record at `offset`.
    pub const fn at(self, offset: usize, type_: u32, size: u16) -> FramingError {
        match self {
            SizeFault::BadSize => FramingError::BadSize {
                offset,
                type_,
                size,
            },
            SizeFault::ShortHeader => FramingError::ShortHeader { offset, type_ },
            SizeFault::TooLong(len) => FramingError::TooLong { offset, type_, len },
        }
    }
}

/// The framing rule: how the record whose header says `type_` and `size` is delimited.
///
/// The rule is `perf_abi::record_type::info`'s framing of the type; a type perf does not
/// know is framed as aligned.
///
/// # Errors
///
/// - [`SizeFault::BadSize`] when `size` is below 8, or not a multiple of 8 for a type other
///   than the unpadded ones (HEADER_FEATURE, COMPRESSED);
/// - [`SizeFault::ShortHeader`] when a record followed by a payload (HEADER_TRACING_DATA,
///   AUXTRACE) is below 16 bytes, too short to say the payload's length.
///
/// The third fault, [`SizeFault::TooLong`], needs the payload's length: the walk reports it.
///
/// ```
/// use perf_abi::record_type;
/// use perf_encode::records::{record_extent, RecordExtent, SizeFault};
/// assert_eq!(record_extent(record_type::SAMPLE, 16), Ok(RecordExtent::Sized));
/// assert_eq!(record_extent(record_type::SAMPLE, 12), Err(SizeFault::BadSize));
/// assert_eq!(record_extent(record_type::HEADER_FEATURE, 84), Ok(RecordExtent::Sized));
/// assert_eq!(record_extent(record_type::COMPRESSED, 0x165), Ok(RecordExtent::Sized));
/// assert_eq!(record_extent(record_type::COMPRESSED, 7), Err(SizeFault::BadSize));
/// assert_eq!(record_extent(record_type::COMPRESSED2, 0x165), Err(SizeFault::BadSize));
/// assert_eq!(record_extent(record_type::AUXTRACE, 8), Err(SizeFault::ShortHeader));
/// ```
#[inline]
pub const fn record_extent(type_: u32, size: u16) -> Result<RecordExtent, SizeFault> {
    match framing_of(type_) {
        Framing::Unpadded if size >= 8 => Ok(RecordExtent::Sized),
        _ if !is_aligned_size(size) => Err(SizeFault::BadSize),
        Framing::Aligned | Framing::Unpadded => Ok(RecordExtent::Sized),
        Framing::PayloadAfter(_) if size < 16 => Err(SizeFault::ShortHeader),
        Framing::PayloadAfter(len) => Ok(RecordExtent::WithPayload(len)),
    }
}

/// The length of the payload that follows a record framed [`RecordExtent::WithPayload`],
/// from the record's second word (its bytes 8..16 as stored).
///
/// ```
/// use perf_abi::record_type::PayloadLen;
/// use perf_encode::{records::payload_len, Endian};
/// assert_eq!(payload_len(PayloadLen::U32At8Padded, Endian::Little, [13, 0, 0, 0, 0, 0, 0, 0]), 16);
/// assert_eq!(payload_len(PayloadLen::U64At8, Endian::Big, [0, 0, 0, 0, 0, 0, 1, 0]), 256);
/// ```
#[inline]
pub const fn payload_len(how: PayloadLen, endian: Endian, word: [u8; 8]) -> u64 {
    match how {
        PayloadLen::U32At8Padded => {
            let size = endian.read_u32([word[0], word[1], word[2], word[3]]) as u64;
            size.saturating_add(7) & !7
        }
        PayloadLen::U64At8 => endian.read_u64(word),
    }
}

/// True when `data` is exactly one whole *plain* record (the
/// [fast path](RecordFramer#the-fast-path-plain-records)): its header's size is `data.len()`, a
/// multiple of 8, and its type has no special framing rule. Between records,
/// [`RecordFramer::feed`] accepts such bytes and ends between records again (as
/// [`RecordFramer::after_plain_records`] says without reading them), so a caller that
/// tracks the boundary itself may take them without the framer; anything this refuses may
/// still be valid for `feed`.
///
/// ```
/// use perf_encode::{records::is_plain_record, Endian};
/// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
/// assert!(is_plain_record(Endian::Little, &rec));
/// assert!(!is_plain_record(Endian::Big, &rec)); // size 0x1000
/// assert!(!is_plain_record(Endian::Little, &rec[..8])); // a piece
/// ```
#[inline]
pub fn is_plain_record(endian: Endian, data: &[u8]) -> bool {
    first_plain_record(endian, data).is_some_and(|r| r.len() == data.len())
}

/// The record at the start of `data` when it is a whole plain record (see
/// [`is_plain_record`]): how a caller holding several whole records in one slice takes them
/// one by one on the fast path. `None` when the first record is not plain or not whole.
///
/// ```
/// use perf_encode::{records::first_plain_record, Endian};
/// let rec = [9u8, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8];
/// let two = [rec, rec].concat();
/// assert_eq!(first_plain_record(Endian::Little, &two), Some(&rec[..]));
/// assert_eq!(first_plain_record(Endian::Little, &rec[..12]), None); // not whole
/// ```
#[inline]
pub fn first_plain_record(endian: Endian, data: &[u8]) -> Option<&[u8]> {
    let (type_, size) = header_type_and_size(endian, data.first_chunk::<8>()?);
    let record = data.get(..usize::from(size))?;
    // `&`, not `&&`: the tests need no branch between them.
    (is_aligned_size(size) & is_plain_type(type_)).then_some(record)
}

/// The size rule of aligned records, in one place: at least 8 (the header) and a multiple
/// of 8.
#[inline]
const fn is_aligned_size(size: u16) -> bool {
    (size >= 8) & (size % 8 == 0)
}

/// How records of `type_` are framed (`perf_abi::record_type::info`'s framing; a type perf
/// does not know is framed as aligned).
#[inline]
const fn framing_of(type_: u32) -> Framing {
    match record_type::info(type_) {
        Some(info) => info.framing,
        None => Framing::Aligned,
    }
}

/// True for a size [`record_extent`] accepts as a record that is just its `size` bytes, for
/// the types the inline path takes (see [`is_plain_type`]).
#[inline]
fn plain_size_ok(type_: u32, size: u16) -> bool {
    if is_plain_type(type_) {
        return is_aligned_size(size);
    }
    matches!(record_extent(type_, size), Ok(RecordExtent::Sized))
}

/// True for a type that [`record_extent`] frames as aligned, tested as one range: the types
/// with another framing rule sit between [`SPECIAL_TYPES`]'s ends, far from the common ones
/// (SAMPLE, MMAP, COMM…). Types in between that are aligned take the long way, which agrees.
#[inline]
fn is_plain_type(type_: u32) -> bool {
    type_.wrapping_sub(SPECIAL_TYPES.0) > SPECIAL_TYPES.1.wrapping_sub(SPECIAL_TYPES.0)
}

/// The smallest and largest record types whose framing is not aligned, found in the facts
/// at compile time.
const SPECIAL_TYPES: (u32, u32) = {
    let (mut first, mut last, mut t) = (u32::MAX, 0u32, 0u32);
    while t < 256 {
        if !matches!(framing_of(t), Framing::Aligned) {
            if t < first {
                first = t;
            }
            if t > last {
                last = t;
            }
        }
        t = t.saturating_add(1);
    }
    (first, last)
};

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(test)]
mod tests {
    use super::*;

    fn rec(type_: u32, size: u16) -> [u8; 8] {
        let mut h = [0u8; 8];
        h[..4].copy_from_slice(&type_.to_le_bytes());
        h[6..].copy_from_slice(&size.to_le_bytes());
        h
    }

    #[test]
    fn every_split_of_a_stream_gives_the_same_result() {
        let mut stream = [0u8; 8 + 24 + 16 + 16];
        stream[..8].copy_from_slice(&rec(68, 8));
        stream[8..16].copy_from_slice(&rec(9, 24));
        // HEADER_TRACING_DATA with 13 bytes of data (padded to 16) after its 16-byte header.
        stream[32..40].copy_from_slice(&rec(66, 16));
        stream[40..44].copy_from_slice(&13u32.to_le_bytes());
        for split in 0..=stream.len() {
            let mut f = RecordFramer::new(Endian::Little);
            f.feed(&stream[..split]).unwrap();
            f.feed(&stream[split..]).unwrap();
            assert!(f.at_boundary(), "split {split}");
            assert_eq!(f.records(), 3);
        }
    }

    /// A small deterministic generator (xorshift64*), so the test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A random stream of records: mostly plain ones, some with trailers (TRACING_DATA,
    /// AUXTRACE), unpadded HEADER_FEATUREs, and now and then a bad size.
    fn random_stream(rng: &mut Rng, buf: &mut [u8; 4096]) -> usize {
        let mut len = 0;
        while len + 64 + 40 < buf.len() {
            let kind = rng.below(20);
            let (type_, size, trailer) = match kind {
                0 => (66u32, 16u16, rng.below(20)),
                1 => (71, 16 + 8 * rng.below(2) as u16, 8 * rng.below(4)),
                2 => (80, 8 + rng.below(30) as u16, 0),
                3 => (9, rng.below(70) as u16, 0),
                _ => (9, 8 * (1 + rng.below(8) as u16), 0),
            };
            let body = usize::from(size).max(8);
            let padded_trailer = if type_ == 66 {
                (trailer + 7) & !7
            } else {
                trailer
            };
            if len + body + padded_trailer as usize > buf.len() {
                break;
            }
            let at = &mut buf[len..];
            at[..4].copy_from_slice(&type_.to_le_bytes());
            at[4..6].copy_from_slice(&0u16.to_le_bytes());
            at[6..8].copy_from_slice(&size.to_le_bytes());
            if body >= 16 {
                match type_ {
                    66 => at[8..12].copy_from_slice(&(trailer as u32).to_le_bytes()),
                    71 => at[8..16].copy_from_slice(&trailer.to_le_bytes()),
                    _ => {}
                }
            }
            len += body + padded_trailer as usize;
        }
        len
    }

    /// Feeds `data` in the chunks `cuts` gives; returns the final state or the error with the
    /// number of records accepted before it.
    fn feed_chunks(
        data: &[u8],
        mut cuts: impl FnMut(usize) -> usize,
    ) -> Result<RecordFramer, (FramingError, u64)> {
        let mut f = RecordFramer::new(Endian::Little);
        let mut pos = 0;
        while pos < data.len() {
            let end = (pos + cuts(data.len() - pos)).min(data.len());
            let before = f;
            f.feed(&data[pos..end]).map_err(|e| (e, before.records()))?;
            pos = end;
        }
        Ok(f)
    }

    fn same_outcome(
        a: &Result<RecordFramer, (FramingError, u64)>,
        b: &Result<RecordFramer, (FramingError, u64)>,
    ) -> bool {
        match (a, b) {
            (Ok(x), Ok(y)) => {
                // Only the gathered part of the header is state.
                x.walk.gathered() == y.walk.gathered()
                    && x.walk.have == y.walk.have
                    && x.walk.remaining == y.walk.remaining
                    && x.partial_len() == y.partial_len()
                    && x.records == y.records
            }
            // Offsets are relative to the failing call, which differs with the chunking, and
            // so do the records accepted before it (that call is refused whole).
            (
                Err((
                    FramingError::BadSize {
                        type_: t1,
                        size: s1,
                        ..
                    },
                    r1,
                )),
                Err((
                    FramingError::BadSize {
                        type_: t2,
                        size: s2,
                        ..
                    },
                    r2,
                )),
            ) => (t1, s1) == (t2, s2) && r2 <= r1,
            (
                Err((FramingError::ShortHeader { type_: t1, .. }, r1)),
                Err((FramingError::ShortHeader { type_: t2, .. }, r2)),
            ) => t1 == t2 && r2 <= r1,
            _ => false,
        }
    }

    #[test]
    fn whole_chunks_agree_with_byte_at_a_time() {
        // Byte at a time never takes the fast paths (a chunk shorter than a header); whole
        // records, random chunks and the whole stream at once do.
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut buf = [0u8; 4096];
        for _ in 0..2000 {
            let len = random_stream(&mut rng, &mut buf);
            let data = &buf[..len];
            let slow = feed_chunks(data, |_| 1);
            let whole = feed_chunks(data, |left| left);
            let mut r2 = Rng(rng.next() | 1);
            let random = feed_chunks(data, |_| 1 + r2.below(40) as usize);
            let mut r3 = Rng(rng.next() | 1);
            let records = feed_chunks(data, |_| 8 * (1 + r3.below(9) as usize));
            for other in [&whole, &random, &records] {
                assert!(same_outcome(&slow, other), "{slow:?} vs {other:?}");
            }
        }
        // Each record in its own call (the writer's common case) through `check`'s inline path.
        let mut f = RecordFramer::new(Endian::Little);
        let mut whole = RecordFramer::new(Endian::Little);
        let mut stream = [0u8; 64];
        for (i, size) in [8u16, 16, 24, 16].into_iter().enumerate() {
            let r = rec(9, size);
            let start: usize = [8usize, 16, 24, 16][..i].iter().sum();
            stream[start..start + 8].copy_from_slice(&r);
            let mut one = [0u8; 24];
            one[..8].copy_from_slice(&r);
            f.feed(&one[..usize::from(size)]).unwrap();
        }
        whole.feed(&stream).unwrap();
        assert_eq!((f.records, f.walk.have, f.walk.remaining), (4, 0, 0));
        assert_eq!(
            (whole.records, whole.walk.have, whole.walk.remaining),
            (4, 0, 0)
        );
    }

    fn state(f: &RecordFramer) -> (usize, u64, u64, [u8; 16]) {
        let mut header = [0u8; 16];
        header[..f.walk.have].copy_from_slice(f.walk.gathered());
        (f.walk.have, f.walk.remaining, f.records, header)
    }

    #[test]
    fn feed_then_and_feed_all_agree_with_feed() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut buf = [0u8; 4096];
        for _ in 0..1000 {
            let len = random_stream(&mut rng, &mut buf);
            let data = &buf[..len];
            let mut all: [&[u8]; 4096] = [&[]; 4096];
            let (mut n, mut pos) = (0, 0);
            while pos < len {
                let end = (pos + 1 + rng.below(40) as usize).min(len);
                all[n] = &data[pos..end];
                n += 1;
                pos = end;
            }
            let chunks = &all[..n];
            // One chunk at a time: feed, feed_then (a write that succeeds, then one that
            // fails: the failed one must change nothing) and feed_all of one chunk.
            let (mut a, mut b, mut c) = (
                RecordFramer::new(Endian::Little),
                RecordFramer::new(Endian::Little),
                RecordFramer::new(Endian::Little),
            );
            for &chunk in chunks {
                let fed = a.feed(chunk);
                let before = state(&b);
                let failed = b.feed_then(chunk, || Err::<(), _>(()));
                assert_eq!(failed.is_err(), fed.is_err());
                assert_eq!(state(&b), before);
                let mut called = false;
                let then = b.feed_then(chunk, || {
                    called = true;
                    Ok::<_, ()>(())
                });
                assert_eq!(then.map(drop), fed);
                assert_eq!(called, fed.is_ok());
                assert_eq!(c.feed_all([chunk]), fed);
                if fed.is_err() {
                    break;
                }
                assert_eq!(state(&a), state(&b));
                assert_eq!(state(&a), state(&c));
            }
            // Groups of chunks through feed_all and feed_all_then: the same as feeding each
            // group's chunks one by one on a copy, kept only when all are accepted.
            let (mut d, mut e, mut g) = (
                RecordFramer::new(Endian::Little),
                RecordFramer::new(Endian::Little),
                RecordFramer::new(Endian::Little),
            );
            let mut at = 0;
            while at < chunks.len() {
                let n = (1 + rng.below(6) as usize).min(chunks.len() - at);
                let group = &chunks[at..at + n];
                at += n;
                let mut copy = d;
                let fed = group.iter().try_for_each(|c| copy.feed(c));
                if fed.is_ok() {
                    d = copy;
                }
                let before = state(&e);
                let failed = e.feed_all_then(group.iter().copied(), || Err::<(), _>(()));
                assert_eq!(failed.is_err(), fed.is_err());
                assert_eq!(state(&e), before);
                let then = e.feed_all_then(group.iter().copied(), || Ok::<_, ()>(()));
                assert_eq!(then.map(drop), fed);
                assert_eq!(g.feed_all(group.iter().copied()), fed);
                assert_eq!(state(&d), state(&e));
                assert_eq!(state(&d), state(&g));
            }
        }
    }

    /// The length of the record at the start of `data` as the random streams lay it out
    /// (header size, plus the trailer of TRACING_DATA and AUXTRACE), or None past the end.
    fn record_len(data: &[u8]) -> Option<usize> {
        let h = data.get(..8)?;
        let type_ = u32::from_le_bytes(h[..4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes([h[6], h[7]])).max(8);
        let trailer = match (type_, data.get(8..16)) {
            (66, Some(t)) => (u32::from_le_bytes(t[..4].try_into().unwrap()) as usize + 7) & !7,
            (71, Some(t)) => u64::from_le_bytes(t.try_into().unwrap()) as usize,
            _ => 0,
        };
        Some((size + trailer).min(data.len()))
    }

    #[test]
    fn is_plain_record_agrees_with_feed() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut buf = [0u8; 4096];
        let (mut taken, mut declined) = (0u32, 0u32);
        for round in 0..2000 {
            let len = random_stream(&mut rng, &mut buf);
            let data = &buf[..len];
            let mut a = RecordFramer::new(Endian::Little);
            let mut pos = 0;
            while pos < len {
                // Mostly whole records (the case it takes), sometimes a random cut.
                let whole = record_len(&data[pos..]).unwrap_or(len - pos);
                let n = if round % 3 == 0 {
                    1 + rng.below(40) as usize
                } else {
                    whole
                };
                let chunk = &data[pos..(pos + n).min(len)];
                pos += chunk.len();
                let before = state(&a);
                let plain = is_plain_record(Endian::Little, chunk);
                let fed = a.feed(chunk);
                if plain && before.0 == 0 && before.1 == 0 {
                    // Taken between records: feed agrees it is one whole record.
                    taken += 1;
                    assert_eq!(fed, Ok(()), "{chunk:?}");
                    assert!(a.at_boundary(), "{chunk:?}");
                    assert_eq!(a.records(), before.2 + 1, "{chunk:?}");
                } else {
                    declined += 1;
                }
                if fed.is_err() {
                    // A refused chunk changes nothing.
                    assert_eq!(state(&a), before);
                    break;
                }
            }
        }
        // Both branches above ran (the random streams hold trailers and bad sizes).
        assert!(taken > 10_000 && declined > 10_000, "{taken} {declined}");
    }

    #[test]
    fn walker_finds_the_records_where_they_start_in_any_chunks() {
        let mut rng = Rng(0x0bad_cafe_f00d_d00d);
        let mut buf = [0u8; 4096];
        for _ in 0..1000 {
            let len = random_stream(&mut rng, &mut buf);
            let data = &buf[..len];
            // The record starts as the stream lays them out.
            let mut want = [0usize; 512];
            let (mut n, mut at) = (0, 0);
            while let Some(l) = record_len(&data[at..]) {
                want[n] = at;
                n += 1;
                at += l;
            }
            let mut w = RecordWalker::new(Endian::Little);
            let (mut got, mut m, mut pos) = ([0usize; 512], 0, 0);
            let mut failed = false;
            'chunks: while pos < len {
                let end = (pos + 1 + rng.below(40) as usize).min(len);
                let mut here = pos;
                while here < end {
                    match w.step(&data[here..end]) {
                        Ok(Step::Record(r)) => {
                            got[m] = here - r.held;
                            m += 1;
                            assert!(r.taken >= 1 && here + r.taken <= end);
                            assert!(r.len >= u64::from(r.size));
                            here += r.taken;
                        }
                        Ok(Step::Header(k) | Step::Body(k)) => {
                            assert!(k >= 1 && here + k <= end);
                            here += k;
                        }
                        Err(e) => {
                            // A bad header, where a record starts; nothing before it refused.
                            assert_eq!(want[m], here - e.held);
                            failed = true;
                            break 'chunks;
                        }
                    }
                }
                pos = end;
            }
            assert!(if failed { m < n } else { m == n }, "{m} of {n}");
            assert_eq!(got[..m], want[..m]);
        }
    }

    #[test]
    fn bad_size_messages_name_the_rule_of_the_type() {
        let msg = |type_, size| {
            let e = RecordFramer::new(Endian::Little)
                .feed(&rec(type_, size))
                .unwrap_err();
            let mut s = [0u8; 200];
            let mut w = Buf(&mut s, 0);
            core::fmt::write(&mut w, format_args!("{e}")).unwrap();
            let n = w.1;
            core::str::from_utf8(&s[..n])
                .unwrap()
                .contains("multiple of 8")
        };
        assert!(msg(9, 12)); // SAMPLE: aligned
        assert!(!msg(81, 7)); // COMPRESSED: unpadded, only "at least 8"
        assert!(!msg(80, 4)); // HEADER_FEATURE: unpadded
    }

    /// A `fmt::Write` into a byte array (the crate is `no_std`).
    struct Buf<'a>(&'a mut [u8], usize);
    impl core::fmt::Write for Buf<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            let end = self.1 + s.len();
            self.0
                .get_mut(self.1..end)
                .ok_or(core::fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.1 = end;
            Ok(())
        }
    }

    #[test]
    fn compressed_records_of_any_size_put_the_next_record_anywhere() {
        // perf 6.1: a COMPRESSED record of size 0x165, then a SAMPLE at an unaligned offset.
        let mut stream = [0u8; 0x165 + 16];
        stream[..8].copy_from_slice(&rec(81, 0x165));
        stream[0x165..0x165 + 8].copy_from_slice(&rec(9, 16));
        for split in 0..=stream.len() {
            let mut f = RecordFramer::new(Endian::Little);
            f.feed(&stream[..split]).unwrap();
            f.feed(&stream[split..]).unwrap();
            assert!(f.at_boundary(), "split {split}");
            assert_eq!(f.records(), 2);
        }
        for size in [8u16, 9, 15, 65535] {
            assert!(RecordFramer::new(Endian::Little)
                .feed(&rec(81, size))
                .is_ok());
        }
        for size in [0u16, 7] {
            assert!(RecordFramer::new(Endian::Little)
                .feed(&rec(81, size))
                .is_err());
        }
        // Only COMPRESSED: its neighbours and COMPRESSED2 stay aligned.
        for type_ in [79u32, 82, 83] {
            let err = RecordFramer::new(Endian::Little).feed(&rec(type_, 0x165));
            assert!(matches!(err, Err(FramingError::BadSize { .. })), "{type_}");
        }
    }

    #[test]
    fn bad_sizes_are_refused_and_leave_state() {
        for size in [0u16, 4, 12, 65535] {
            let mut f = RecordFramer::new(Endian::Little);
            f.feed(&rec(68, 8)).unwrap();
            let err = f.feed(&rec(9, size)).unwrap_err();
            assert_eq!(
                err,
                FramingError::BadSize {
                    offset: 0,
                    type_: 9,
                    size
                }
            );
            assert!(f.at_boundary());
            assert_eq!(f.records(), 1);
        }
        let mut f = RecordFramer::new(Endian::Big);
        let mut h = [0u8; 8];
        h[..4].copy_from_slice(&66u32.to_be_bytes());
        h[6..].copy_from_slice(&8u16.to_be_bytes());
        assert_eq!(
            f.feed(&h),
            Err(FramingError::ShortHeader {
                offset: 0,
                type_: 66
            })
        );
    }

    #[test]
    fn partial_len_counts_the_bytes_since_the_last_boundary() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut buf = [0u8; 4096];
        for _ in 0..300 {
            let len = random_stream(&mut rng, &mut buf);
            let data = &buf[..len];
            // Byte at a time gives the reference: where the last boundary was.
            let mut slow = RecordFramer::new(Endian::Little);
            let mut boundary = 0usize;
            let mut at_len = [(0u64, None); 4096];
            let mut n = 0;
            for (i, b) in data.iter().enumerate() {
                if slow.feed(core::slice::from_ref(b)).is_err() {
                    break;
                }
                if slow.at_boundary() {
                    boundary = i + 1;
                }
                at_len[i] = ((i + 1 - boundary) as u64, slow.remaining());
                n = i + 1;
                assert_eq!(slow.partial_len(), (i + 1 - boundary) as u64);
            }
            // Random chunks agree at every cut, and abandoning returns to the boundary.
            let mut f = RecordFramer::new(Endian::Little);
            let mut pos = 0;
            while pos < n {
                let end = (pos + 1 + rng.below(200) as usize).min(n);
                f.feed(&data[pos..end]).unwrap();
                assert_eq!(
                    (f.partial_len(), f.remaining()),
                    at_len[end - 1],
                    "at {end}"
                );
                if let (Some(total), Some(left)) = (f.record_len(), f.remaining()) {
                    assert_eq!(total, f.partial_len() + left);
                }
                let mut g = f;
                let records = g.records() - u64::from(f.remaining().is_some_and(|r| r > 0));
                assert_eq!(g.abandon_record(), f.partial_len());
                assert!(g.at_boundary());
                assert_eq!(g.records(), records);
                pos = end;
            }
        }
    }
}
