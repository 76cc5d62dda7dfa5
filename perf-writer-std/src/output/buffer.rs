//! [`OutputBuffer`]: the buffer in front of every output. It does what `std::io::BufWriter`
//! does, and what `BufWriter` cannot: the record path copies a small record straight into the
//! free space, inline, without a call to `memcpy`; the start of a record that is not whole yet
//! stays in the buffer; a call is taken whole or not at all; and it knows where its bytes go
//! and which record boundaries reached the stream.

use std::collections::VecDeque;
use std::io::{self, Seek, SeekFrom, Write};
use std::ops::Deref;

/// Boundaries remembered by [`OutputBuffer::marks`] (one per send of the buffer or of a
/// large call, each at least half the 256 KiB buffer: the last 128 MiB of data or more).
const MAX_MARKS: usize = 1024;

/// A record boundary that reached the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    /// Its stream position.
    pub(crate) pos: u64,
    /// Whole records before it.
    pub(crate) records: u64,
}

/// A fixed-capacity write buffer over `W`.
///
/// Writes are copied in; the buffer goes to `W` when a write does not fit, on
/// [`flush`](Self::flush), and in [`into_inner`](Self::into_inner); a call of half the
/// capacity or more goes to `W` from where it lies when the buffer would be sent anyway
/// (no copy: a collector's ring buffers reach the file as they are). Its last
/// [`hold`](Self::put) bytes (the start of a record not yet whole) are never sent. A call
/// ([`put`](Self::put)) is taken whole, or, when `W` fails before it fits, not at all; a call
/// larger than the buffer grows it for as long as its bytes wait. When `W` fails part-way,
/// the bytes it took leave the buffer and the rest stay, to be sent by the next call: an
/// error of `W` loses nothing. Dropped, it sends what it can of what is not held, ignoring
/// errors (as `BufWriter` does): a pipe reader gets whole records.
pub(crate) struct OutputBuffer<W: Write> {
    /// `buf[..fill]` is pending. `buf.len()` is the capacity, or more while a call larger
    /// than it waits.
    buf: Vec<u8>,
    /// The capacity asked for.
    cap: usize,
    fill: usize,
    /// The last `hold` pending bytes are the start of an unfinished record: not sent.
    hold: usize,
    /// Stream position of `buf[0]`.
    at: u64,
    /// `W`'s position in stream positions, when known (not after a failed seek).
    inner_pos: Option<u64>,
    /// The furthest stream position `W` was given bytes up to.
    high: u64,
    /// Whole records before `fill - hold`, kept by the owner.
    pub(crate) records: u64,
    /// Boundaries that reached `W`, oldest first (see [`marks`](Self::marks)).
    marks: VecDeque<Mark>,
    /// Whether reaching `fill - hold` is a boundary worth a mark (the owner turns it off
    /// while the bytes are not records).
    pub(crate) marking: bool,
    /// `None` only once [`into_inner`](Self::into_inner) took it.
    inner: Option<W>,
}

impl<W: Write> OutputBuffer<W> {
    /// A buffer of `capacity` bytes (at least one) over `inner`, whose position is `at`.
    pub(crate) fn with_capacity(capacity: usize, inner: W, at: u64) -> Self {
        let cap = capacity.max(1);
        OutputBuffer {
            buf: vec![0u8; cap],
            cap,
            fill: 0,
            hold: 0,
            at,
            inner_pos: Some(at),
            high: at,
            records: 0,
            // Allocated once: marks are added as buffers go out, on the write path.
            marks: VecDeque::with_capacity(MAX_MARKS),
            marking: true,
            inner: Some(inner),
        }
    }

    /// Copies `data` into the free space when it fits; returns whether it did (when not,
    /// nothing changed). The owner appends whole records this way only with nothing held.
    #[inline]
    pub(crate) fn append(&mut self, data: &[u8]) -> bool {
        match self.free_for(data.len()) {
            Some(free) => {
                if !copy_small(free, data) {
                    free.copy_from_slice(data);
                }
                self.fill = self.fill.wrapping_add(data.len());
                true
            }
            None => false,
        }
    }

    /// [`append`](Self::append) for 8 to [`SMALL_WRITE`] bytes, copied inline with no call:
    /// false, changing nothing, for any other length or when `data` does not fit. The owner
    /// calls it only for whole records with nothing held.
    #[inline]
    pub(crate) fn append_small(&mut self, data: &[u8]) -> bool {
        let copied = self
            .free_for(data.len())
            .is_some_and(|free| copy_small(free, data));
        if copied {
            self.fill = self.fill.wrapping_add(data.len());
        }
        copied
    }

    /// The next `len` bytes of free space, if there are that many.
    #[inline]
    fn free_for(&mut self, len: usize) -> Option<&mut [u8]> {
        // `fill <= buf.len()` and a slice's length are both at most `isize::MAX`: no wrap.
        let end = self.fill.wrapping_add(len);
        self.buf.get_mut(self.fill..end)
    }

    /// Stream position after the last pending byte.
    #[inline]
    pub(crate) fn end(&self) -> u64 {
        self.at.wrapping_add(self.fill as u64)
    }

    /// Stream position of the first pending byte (everything before it reached `W`).
    pub(crate) fn start(&self) -> u64 {
        self.at
    }

    /// Pending bytes held as the start of an unfinished record.
    pub(crate) fn held(&self) -> usize {
        self.hold
    }

    /// The furthest stream position `W` was given bytes up to.
    pub(crate) fn high(&self) -> u64 {
        self.high
    }

    /// Record boundaries that reached `W` (each after a whole buffer was sent), oldest first,
    /// the last [`MAX_MARKS`] of them and any the owner added.
    pub(crate) fn marks(&self) -> impl DoubleEndedIterator<Item = Mark> + '_ {
        self.marks.iter().copied()
    }

    /// Remembers a boundary the owner knows reached `W` (or is where `W` starts).
    pub(crate) fn add_mark(&mut self, mark: Mark) {
        if self.marks.back() != Some(&mark) {
            if self.marks.len() >= MAX_MARKS {
                // Keep the oldest (the data start): a file can always shrink to it.
                self.marks.remove(1);
            }
            self.marks.push_back(mark);
        }
    }

    /// Forgets the boundaries after `pos` (their bytes are to be written again).
    pub(crate) fn forget_marks_after(&mut self, pos: u64) {
        while self.marks.back().is_some_and(|m| m.pos > pos) {
            self.marks.pop_back();
        }
    }

    /// Bytes waiting for `W`.
    #[cfg(test)]
    pub(crate) fn pending(&self) -> &[u8] {
        self.buf.get(..self.fill).unwrap_or_default()
    }

    /// The stream under the buffer (bytes may still be pending).
    #[cfg(test)]
    pub(crate) fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("not taken")
    }

    /// The stream under the buffer, to change it.
    #[cfg(test)]
    pub(crate) fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect("not taken")
    }

    fn inner(&mut self) -> io::Result<&mut W> {
        self.inner.as_mut().ok_or_else(taken)
    }

    /// Takes all of `parts`, the continuation of the stream, after which the last `hold`
    /// pending bytes are the start of an unfinished record and `records` whole records come
    /// before them; or, when `W` fails before the parts fit, takes none of them and returns
    /// the error (what `W` took of the earlier bytes left the buffer; the rest waits).
    pub(crate) fn put<S: Deref<Target = [u8]>>(
        &mut self,
        parts: &[S],
        hold: usize,
        records: u64,
    ) -> io::Result<()> {
        let total = parts.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
        if self.goes_straight(total, hold) {
            return self.put_straight(parts, total, hold, records);
        }
        self.reserve(total)?;
        for p in parts {
            // Fits: reserved.
            self.append(p);
        }
        self.hold = hold.min(self.fill);
        self.records = records;
        if self.buf.len() > self.cap {
            // A call larger than the buffer: send it now, so that the buffer shrinks back.
            // It is taken either way; an error comes back at the next call that needs room.
            let _later: io::Result<()> = self.flush_buf();
        }
        Ok(())
    }

    /// Whether a call of `total` bytes, the last `hold` of them held, goes to `W` from where
    /// it lies instead of through the buffer: when what it sends is at least half the
    /// capacity (copying it would cost more than a second `write`), nothing pending is held
    /// (the held bytes would have to go first) and the call would send the buffer anyway
    /// (it is empty, or the call does not fit).
    #[inline]
    fn goes_straight(&self, total: usize, hold: usize) -> bool {
        let sent = total.saturating_sub(hold);
        self.hold == 0
            && sent >= self.cap / 2
            && sent > 0
            && (self.fill == 0 || total > self.buf.len().saturating_sub(self.fill))
    }

    /// [`put`](Self::put) for a call that [goes straight](Self::goes_straight) to `W`: the
    /// pending bytes are sent, then the call's bytes but the held ones from where they lie.
    /// When `W` fails before it took any of them, none are taken and the error is returned;
    /// when it fails part-way, what it did not take is copied into the buffer (taken, as
    /// by a call larger than the buffer: the error comes back at the next call that needs
    /// room).
    fn put_straight<S: Deref<Target = [u8]>>(
        &mut self,
        parts: &[S],
        total: usize,
        hold: usize,
        records: u64,
    ) -> io::Result<()> {
        self.flush_buf()?;
        let (sent, result) = self.send_parts(parts, total.saturating_sub(hold));
        let sent_all = match result {
            Err(e) if sent == 0 => return Err(e),
            r => r.is_ok(),
        };
        // What `W` did not take (the held bytes at least) waits in the buffer.
        let rest = total.saturating_sub(sent);
        if self.buf.len() < rest {
            self.buf.resize(rest, 0);
        }
        let mut skip = sent;
        self.fill = 0;
        for p in parts {
            let from = p.get(skip..).unwrap_or_default();
            skip = skip.saturating_sub(p.len());
            // Fits: the buffer holds at least `rest` bytes.
            self.append(from);
        }
        self.hold = hold.min(self.fill);
        self.records = records;
        if sent_all && self.marking {
            self.add_mark(Mark {
                pos: self.at,
                records,
            });
        }
        if self.buf.len() > self.cap && self.fill <= self.cap {
            self.buf.truncate(self.cap);
            self.buf.shrink_to_fit();
        }
        Ok(())
    }

    /// Sends the first `n` bytes of `parts` from where they lie (the buffer must be empty);
    /// returns how many `W` took, and its error if it failed.
    fn send_parts<S: Deref<Target = [u8]>>(
        &mut self,
        parts: &[S],
        n: usize,
    ) -> (usize, io::Result<()>) {
        if self.inner_pos != Some(self.at) || self.fill != 0 {
            return (0, Err(misplaced()));
        }
        let Some(inner) = self.inner.as_mut() else {
            return (0, Err(taken()));
        };
        let mut sent = 0usize;
        let mut result = Ok(());
        'parts: for p in parts {
            let mut rest = p
                .get(..p.len().min(n.saturating_sub(sent)))
                .unwrap_or_default();
            while !rest.is_empty() {
                match inner.write(rest) {
                    Ok(0) => {
                        result = Err(io::ErrorKind::WriteZero.into());
                        break 'parts;
                    }
                    Ok(k) => {
                        let k = k.min(rest.len());
                        sent = sent.saturating_add(k);
                        rest = rest.get(k..).unwrap_or_default();
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        result = Err(e);
                        break 'parts;
                    }
                }
            }
        }
        self.at = self.at.saturating_add(sent as u64);
        self.inner_pos = Some(self.at);
        self.high = self.high.max(self.at);
        (sent, result)
    }

    /// Makes room for `len` more bytes: sends what is not held when they do not fit (an
    /// error of `W` is returned, with nothing more pending), then grows the buffer if they
    /// still do not.
    pub(crate) fn reserve(&mut self, len: usize) -> io::Result<()> {
        if self.buf.len().saturating_sub(self.fill) >= len {
            return Ok(());
        }
        self.flush_buf()?;
        let need = self.fill.saturating_add(len);
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        Ok(())
    }

    /// Drops the last `n` pending bytes, which must all be held (an abandoned record).
    pub(crate) fn drop_held(&mut self, n: usize) {
        let n = n.min(self.hold);
        self.fill = self.fill.saturating_sub(n);
        self.hold = self.hold.saturating_sub(n);
    }

    /// Forgets every pending byte from stream position `pos` on (they are not to be
    /// written); when `pos` is before the pending bytes, the next bytes go to `pos`, which
    /// `W` must be moved to first ([`place`](Self::place)).
    pub(crate) fn cut_at(&mut self, pos: u64) {
        if pos >= self.at {
            let keep = usize::try_from(pos.saturating_sub(self.at)).unwrap_or(usize::MAX);
            self.fill = self.fill.min(keep);
        } else {
            self.fill = 0;
            self.at = pos;
        }
        self.hold = 0;
        self.forget_marks_after(pos);
    }

    /// Sends every pending byte that is not held to `W` (without flushing `W`). `W` must be
    /// where they go (see [`place`](Self::place)).
    pub(crate) fn flush_buf(&mut self) -> io::Result<()> {
        let n = self.fill.saturating_sub(self.hold);
        if n == 0 {
            return Ok(());
        }
        self.send(n)?;
        if self.marking {
            let mark = Mark {
                pos: self.at,
                records: self.records,
            };
            self.add_mark(mark);
        }
        Ok(())
    }

    /// Sends `buf[..n]`; what `W` took leaves the buffer, on error too.
    fn send(&mut self, n: usize) -> io::Result<()> {
        if self.inner_pos != Some(self.at) {
            return Err(misplaced());
        }
        let Some(inner) = self.inner.as_mut() else {
            return Err(taken());
        };
        let mut sent = 0usize;
        let result = loop {
            let Some(rest) = self.buf.get(sent..n).filter(|r| !r.is_empty()) else {
                break Ok(());
            };
            match inner.write(rest) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                // `k <= rest.len()`: no wrap past `n`.
                Ok(k) => sent = sent.saturating_add(k.min(rest.len())),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.buf.copy_within(sent..self.fill, 0);
        self.fill = self.fill.saturating_sub(sent);
        self.at = self.at.saturating_add(sent as u64);
        self.inner_pos = Some(self.at);
        self.high = self.high.max(self.at);
        if self.buf.len() > self.cap && self.fill <= self.cap {
            self.buf.truncate(self.cap);
            self.buf.shrink_to_fit();
        }
        result
    }

    /// Sends every pending byte that is not held, then flushes `W`.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.flush_buf()?;
        flush_retrying(self.inner()?)
    }

    /// Sends every pending byte, then gives `W` back.
    pub(crate) fn into_inner(mut self) -> io::Result<W> {
        self.hold = 0;
        self.flush_buf()?;
        self.inner.take().ok_or_else(taken)
    }
}

impl<W: Write + Seek> OutputBuffer<W> {
    /// Moves `W` to where the pending bytes go, when it may be elsewhere.
    pub(crate) fn place(&mut self) -> io::Result<()> {
        let at = self.at;
        self.seek_inner(at)
    }

    /// Moves `W` to stream position `pos` (no call when it is there).
    pub(crate) fn seek_inner(&mut self, pos: u64) -> io::Result<()> {
        if self.inner_pos == Some(pos) {
            return Ok(());
        }
        self.inner_pos = None;
        let inner = self.inner()?;
        loop {
            match inner.seek(SeekFrom::Start(pos)) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.inner_pos = Some(pos);
        Ok(())
    }

    /// Writes `bytes` at stream position `pos`, straight to `W` (the pending bytes stay
    /// pending); leaves `W` after them. A failure may leave part of them written: calling
    /// again writes them all.
    pub(crate) fn write_at(&mut self, pos: u64, bytes: &[u8]) -> io::Result<()> {
        self.seek_inner(pos)?;
        let inner = self.inner.as_mut().ok_or_else(taken)?;
        let mut done = 0usize;
        let result = loop {
            let Some(rest) = bytes.get(done..).filter(|r| !r.is_empty()) else {
                break Ok(());
            };
            match inner.write(rest) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(k) => done = done.saturating_add(k.min(rest.len())),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let end = pos.saturating_add(done as u64);
        self.inner_pos = Some(end);
        self.high = self.high.max(end);
        // Written again from the start next time.
        if result.is_err() && done > 0 {
            self.inner_pos = None;
        }
        result
    }

    /// Flushes `W` itself.
    pub(crate) fn flush_inner(&mut self) -> io::Result<()> {
        flush_retrying(self.inner()?)
    }
}

impl<W: Write> Drop for OutputBuffer<W> {
    fn drop(&mut self) {
        if self.inner.is_some() {
            // Ignoring the error is the only choice here: `drop` cannot return it, and
            // panicking would turn a full disk or a closed pipe into a crash (or an abort,
            // when the drop happens while unwinding). Callers who need to know call
            // `flush`, `finish` or `finalize_and_close`, which report it; a dropped writer
            // still sends what it can, as `BufWriter` does.
            let _best_effort: io::Result<()> = self.flush_buf();
        }
    }
}

/// `w.flush()`, again when interrupted.
fn flush_retrying<W: Write>(w: &mut W) -> io::Result<()> {
    loop {
        match w.flush() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// The error of a send while `W` is not where the pending bytes go (unreachable from the
/// crate's API: the file output places `W` before it sends).
#[cold]
fn misplaced() -> io::Error {
    io::Error::other("output buffer: the stream is not where the pending bytes go")
}

/// The error of an [`OutputBuffer`] whose stream was taken (unreachable from the crate's API:
/// taking it consumes the buffer).
#[cold]
fn taken() -> io::Error {
    io::Error::other("output buffer: the stream was taken")
}

/// The longest write [`OutputBuffer::append_small`] takes.
pub(crate) const SMALL_WRITE: usize = 64;

/// `dst.copy_from_slice(src)` for slices of equal length from 8 to [`SMALL_WRITE`] bytes,
/// as two overlapping fixed-size moves the compiler emits inline; false, copying nothing,
/// for other lengths.
#[inline]
fn copy_small(dst: &mut [u8], src: &[u8]) -> bool {
    // Longest first: records of 33 to 64 bytes are the commonest.
    match src.len() {
        33..=SMALL_WRITE => copy_ends::<32>(dst, src),
        17..=32 => copy_ends::<16>(dst, src),
        8..=16 => copy_ends::<8>(dst, src),
        _ => false,
    }
}

/// Copies the first and the last `N` bytes of `src` over `dst`'s (all of it when
/// `N <= len <= 2N`); false, copying nothing, when the lengths differ or are under `N`.
#[inline]
fn copy_ends<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
    let n = src.len();
    if dst.len() != n {
        return false;
    }
    let tail = n.saturating_sub(N);
    match (
        dst.first_chunk_mut::<N>(),
        src.first_chunk::<N>(),
        src.get(tail..).and_then(|s| s.first_chunk::<N>()),
    ) {
        (Some(d), Some(s), Some(last)) => {
            *d = *s;
            if let Some(d) = dst.get_mut(tail..).and_then(|d| d.first_chunk_mut::<N>()) {
                *d = *last;
            }
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// Takes at most `step` bytes per call, fails once `room` is used up.
    struct Trickle {
        taken: Vec<u8>,
        step: usize,
        room: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::other("full"));
            }
            let n = buf.len().min(self.step).min(self.room);
            self.taken.extend_from_slice(&buf[..n]);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn copy_small_copies_8_to_64_bytes_and_refuses_the_rest() {
        let src: Vec<u8> = (1..=200u8).collect();
        for n in 0..=200 {
            let mut dst = vec![0u8; n];
            let copied = copy_small(&mut dst, &src[..n]);
            assert_eq!(copied, (8..=SMALL_WRITE).contains(&n), "length {n}");
            if copied {
                assert_eq!(dst, &src[..n], "length {n}");
            } else {
                assert!(dst.iter().all(|&b| b == 0), "length {n}");
            }
        }
        // Unequal lengths copy nothing.
        let mut dst = [0u8; 40];
        assert!(!copy_small(&mut dst, &src[..48]));
        assert_eq!(dst, [0; 40]);
    }

    #[test]
    fn append_small_takes_what_fits() {
        let mut b = OutputBuffer::with_capacity(100, Vec::new(), 0);
        assert!(b.append_small(&[1; 64]));
        assert!(b.append_small(&[2; 32]));
        assert!(!b.append_small(&[3; 8]), "4 bytes free");
        assert!(!b.append_small(&[4; 72]), "over SMALL_WRITE");
        assert_eq!(b.pending().len(), 96);
        b.flush().unwrap();
        assert!(b.append_small(&[3; 8]));
        assert_eq!(b.pending(), &[3; 8]);
    }

    #[test]
    fn bytes_arrive_in_order_whatever_the_write_sizes() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        for cap in [1, 7, 64, 1000, 20_000] {
            let mut b = OutputBuffer::with_capacity(cap, Vec::new(), 0);
            let mut pos = 0;
            for (k, len) in [0usize, 3, 64, 999, 1, 2048, 5000]
                .iter()
                .cycle()
                .enumerate()
            {
                if pos == data.len() || k > 100 {
                    break;
                }
                let end = (pos + len).min(data.len());
                if k % 2 == 0 {
                    b.put(&[&data[pos..end]], 0, 0).unwrap();
                } else {
                    let parts: Vec<&[u8]> = data[pos..end].chunks(7).collect();
                    b.put(&parts, 0, 0).unwrap();
                }
                pos = end;
            }
            b.flush().unwrap();
            assert_eq!(b.get_ref(), &data[..pos], "capacity {cap}");
            assert_eq!(b.start(), pos as u64);
        }
    }

    #[test]
    fn a_failing_stream_keeps_what_it_did_not_take() {
        let inner = Trickle {
            taken: Vec::new(),
            step: 5,
            room: 12,
        };
        let mut b = OutputBuffer::with_capacity(32, inner, 0);
        b.put(&[&[1u8; 20][..]], 0, 0).unwrap();
        assert!(b.flush().is_err());
        assert_eq!(b.get_ref().taken.len(), 12);
        assert_eq!(b.pending(), &[1; 8]);
        // A call that does not fit is refused whole; one that fits is taken.
        assert!(b.put(&[&[2u8; 30][..]], 0, 0).is_err());
        assert_eq!(b.pending(), &[1; 8]);
        b.put(&[&[2u8; 24][..]], 0, 0).unwrap();
        b.get_mut().room = usize::MAX;
        b.flush().unwrap();
        assert_eq!(b.get_ref().taken, [[1u8; 20].as_slice(), &[2; 24]].concat());
    }

    /// Counts the calls that reach it and the largest.
    #[derive(Default)]
    struct Calls {
        taken: Vec<u8>,
        writes: usize,
        largest: usize,
    }

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes += 1;
            self.largest = self.largest.max(buf.len());
            self.taken.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_large_call_goes_straight_to_the_stream() {
        let mut b = OutputBuffer::with_capacity(64, Calls::default(), 0);
        // Small: copied, nothing sent.
        b.put(&[&[1u8; 8][..]], 0, 1).unwrap();
        assert_eq!(b.get_ref().writes, 0);
        // Half the capacity or more, not fitting: the pending bytes, then the call from
        // where it lies (two slices, two writes), none of it through the buffer.
        let (x, y) = ([2u8; 40], [3u8; 24]);
        b.put(&[&x[..], &y[..]], 0, 3).unwrap();
        assert_eq!(b.get_ref().writes, 3);
        assert_eq!(b.get_ref().largest, 40);
        assert_eq!(b.end(), 72);
        assert_eq!(b.start(), 72, "nothing pending");
        assert_eq!(
            b.marks().last(),
            Some(Mark {
                pos: 72,
                records: 3
            })
        );
        // Buffer empty: a large call goes straight even though it fits.
        b.put(&[&[4u8; 32][..]], 0, 4).unwrap();
        assert_eq!(b.get_ref().writes, 4);
        // A held tail stays: only the bytes before it are sent.
        b.put(&[&[5u8; 40][..]], 8, 5).unwrap();
        assert_eq!(b.pending(), &[5; 8]);
        assert_eq!(b.held(), 8);
        assert_eq!(b.start(), 136);
        // With held bytes pending, a call goes through the buffer (they come first).
        b.put(&[&[6u8; 40][..]], 0, 6).unwrap();
        b.flush().unwrap();
        let want = [
            &[1u8; 8][..],
            &[2; 40],
            &[3; 24],
            &[4; 32],
            &[5; 40],
            &[6; 40],
        ]
        .concat();
        assert_eq!(b.get_ref().taken, want);
    }

    #[test]
    fn a_large_call_the_stream_takes_part_of_waits_for_the_rest() {
        // The stream fails before it takes any of the call: refused whole.
        let inner = Trickle {
            taken: Vec::new(),
            step: 5,
            room: 8,
        };
        let mut b = OutputBuffer::with_capacity(32, inner, 0);
        b.put(&[&[1u8; 8][..]], 0, 1).unwrap();
        assert!(b.put(&[&[2u8; 30][..]], 0, 2).is_err());
        assert_eq!(b.get_ref().taken, [1; 8]);
        assert_eq!(b.end(), 8);
        // It fails part-way: taken, the rest waits in the buffer, no mark past what was sent.
        b.get_mut().room = 12;
        b.put(&[&[3u8; 10][..], &[4; 10]], 0, 3).unwrap();
        assert_eq!(
            b.get_ref().taken,
            [[1u8; 8].as_slice(), &[3; 10], &[4; 2]].concat()
        );
        assert_eq!(b.pending(), &[4; 8]);
        assert!(b.marks().all(|m| m.pos <= 8));
        assert!(b.flush().is_err());
        b.get_mut().room = usize::MAX;
        b.flush().unwrap();
        assert_eq!(
            b.get_ref().taken,
            [[1u8; 8].as_slice(), &[3; 10], &[4; 10]].concat()
        );
    }

    #[test]
    fn held_bytes_are_not_sent() {
        let mut b = OutputBuffer::with_capacity(16, Vec::new(), 0);
        b.put(&[&[1u8; 8][..], &[2; 4]], 4, 1).unwrap();
        b.flush().unwrap();
        assert_eq!(b.get_ref(), &[1; 8]);
        assert_eq!(b.marks().last(), Some(Mark { pos: 8, records: 1 }));
        // More of the held record than fits: the buffer grows rather than send it.
        b.put(&[&[2u8; 20][..]], 24, 1).unwrap();
        assert_eq!(b.get_ref(), &[1; 8]);
        b.drop_held(24);
        assert_eq!(b.end(), 8);
        b.put(&[&[3u8; 8][..]], 0, 2).unwrap();
        drop(b);
    }

    #[test]
    fn writes_at_a_place_and_moves_back() {
        let mut b = OutputBuffer::with_capacity(64, Cursor::new(Vec::new()), 0);
        b.put(&[&b"abcdef"[..]], 0, 0).unwrap();
        b.flush_buf().unwrap();
        b.write_at(1, b"XY").unwrap();
        b.put(&[&b"gh"[..]], 0, 0).unwrap();
        assert!(b.flush_buf().is_err(), "not placed");
        b.place().unwrap();
        let c = b.into_inner().unwrap();
        assert_eq!(c.get_ref(), b"aXYdefgh");
    }

    #[test]
    fn dropping_sends_what_is_pending() {
        let mut out = Vec::new();
        {
            let mut b = OutputBuffer::with_capacity(64, &mut out, 0);
            b.put(&[&b"records"[..]], 0, 0).unwrap();
        }
        assert_eq!(out, b"records");
    }
}
