//! [`OutputBuffer`]: the buffer in front of every output. It does what `std::io::BufWriter`
//! does, and one thing `BufWriter` cannot: the record path copies a small record straight
//! into the free space, inline, without a call to `memcpy`.

use std::io::{self, Seek, SeekFrom, Write};

/// A fixed-capacity write buffer over `W`.
///
/// Writes that fit are copied in; the buffer goes to `W` when it is full, on
/// [`flush`](Write::flush), before a seek and in [`into_inner`](Self::into_inner). A write at
/// least as large as the buffer bypasses it once the buffer is empty. When `W` fails part-way,
/// the bytes it took leave the buffer and the rest stay. Dropped, it sends what is pending,
/// ignoring errors (as `BufWriter` does): a pipe reader still gets every whole record.
pub(crate) struct OutputBuffer<W: Write> {
    /// Always `capacity` bytes; `buf[..fill]` is pending.
    buf: Box<[u8]>,
    fill: usize,
    /// `None` only once [`into_inner`](Self::into_inner) took it.
    inner: Option<W>,
}

impl<W: Write> OutputBuffer<W> {
    /// A buffer of `capacity` bytes (at least one) over `inner`.
    pub(crate) fn with_capacity(capacity: usize, inner: W) -> Self {
        OutputBuffer {
            buf: vec![0u8; capacity.max(1)].into_boxed_slice(),
            fill: 0,
            inner: Some(inner),
        }
    }

    /// Copies `data` into the free space when it fits; returns whether it did (when not,
    /// nothing changed: go through [`Write`]).
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
    /// false, changing nothing, for any other length or when `data` does not fit.
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
        // `fill <= capacity` and a slice's length are both at most `isize::MAX`: no wrap.
        let end = self.fill.wrapping_add(len);
        self.buf.get_mut(self.fill..end)
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

    fn inner(&mut self) -> io::Result<&mut W> {
        self.inner.as_mut().ok_or_else(taken)
    }

    /// Sends every pending byte to `W` (without flushing `W`).
    pub(crate) fn flush_buf(&mut self) -> io::Result<()> {
        let Some(inner) = self.inner.as_mut() else {
            return Err(taken());
        };
        let mut sent = 0;
        let result = loop {
            let Some(rest) = self.buf.get(sent..self.fill).filter(|r| !r.is_empty()) else {
                break Ok(());
            };
            match inner.write(rest) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                // `n <= rest.len()`: no wrap past `fill`.
                Ok(n) => sent = sent.saturating_add(n.min(rest.len())),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        // What `W` took leaves the buffer, on error too.
        self.buf.copy_within(sent..self.fill, 0);
        self.fill = self.fill.saturating_sub(sent);
        result
    }

    /// Sends every pending byte, then gives `W` back.
    pub(crate) fn into_inner(mut self) -> io::Result<W> {
        self.flush_buf()?;
        self.inner.take().ok_or_else(taken)
    }
}

impl<W: Write> Write for OutputBuffer<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.append(data) {
            return Ok(data.len());
        }
        self.flush_buf()?;
        if data.len() >= self.buf.len() {
            return self.inner()?.write(data);
        }
        // Fits now: the buffer is empty.
        self.append(data);
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if self.append(data) {
            return Ok(());
        }
        self.write_all_cold(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_buf()?;
        self.inner()?.flush()
    }
}

impl<W: Write> OutputBuffer<W> {
    /// [`write_all`](Write::write_all) when `data` does not fit in the free space.
    #[cold]
    #[inline(never)]
    fn write_all_cold(&mut self, data: &[u8]) -> io::Result<()> {
        self.flush_buf()?;
        if data.len() >= self.buf.len() {
            return self.inner()?.write_all(data);
        }
        self.append(data);
        Ok(())
    }
}

impl<W: Write + Seek> Seek for OutputBuffer<W> {
    /// Sends the pending bytes where they belong first.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.flush_buf()?;
        self.inner()?.seek(to)
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
        let mut b = OutputBuffer::with_capacity(100, Vec::new());
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
            let mut b = OutputBuffer::with_capacity(cap, Vec::new());
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
                    b.write_all(&data[pos..end]).unwrap();
                } else {
                    let mut p = pos;
                    while p < end {
                        p += b.write(&data[p..end]).unwrap();
                    }
                }
                pos = end;
            }
            b.flush().unwrap();
            assert_eq!(b.get_ref(), &data[..pos], "capacity {cap}");
        }
    }

    #[test]
    fn a_failing_stream_keeps_what_it_did_not_take() {
        let inner = Trickle {
            taken: Vec::new(),
            step: 5,
            room: 12,
        };
        let mut b = OutputBuffer::with_capacity(32, inner);
        b.write_all(&[1; 20]).unwrap();
        assert!(b.flush().is_err());
        assert_eq!(b.get_ref().taken.len(), 12);
        assert_eq!(b.pending(), &[1; 8]);
        assert!(b.into_inner().is_err());
    }

    #[test]
    fn seeking_sends_pending_bytes_first() {
        let mut b = OutputBuffer::with_capacity(64, Cursor::new(Vec::new()));
        b.write_all(b"abcdef").unwrap();
        b.seek(SeekFrom::Start(1)).unwrap();
        b.write_all(b"XY").unwrap();
        let c = b.into_inner().unwrap();
        assert_eq!(c.get_ref(), b"aXYdef");
    }

    #[test]
    fn dropping_sends_what_is_pending() {
        let mut out = Vec::new();
        {
            let mut b = OutputBuffer::with_capacity(64, &mut out);
            b.write_all(b"records").unwrap();
        }
        assert_eq!(out, b"records");
    }
}
