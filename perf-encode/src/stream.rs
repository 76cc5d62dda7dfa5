//! A pipe-mode session over a fixed caller buffer, for `no_std` users without an allocator.

use crate::records::{HeaderAttr, HeaderFeature, RecordBody, RecordFramer};
use crate::{to_slice, Encode, EncodeError, Encoder, Endian, SliceOutput};
use perf_abi::{feature, record_type, PerfEventAttr, PerfPipeHeader, PERF_MAGIC, PIPE_HEADER_SIZE};

/// Where a pipe stream is: what may come next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// HEADER_ATTR records (and anything after them) may come.
    Attrs,
    /// HEADER_FEATURE records have started; the end marker has not been written.
    Features,
    /// Past the header records: HEADER_ATTR and HEADER_FEATURE are refused.
    Records,
}

/// Builds a pipe-mode `perf.data` stream in a fixed buffer: the pipe header, HEADER_ATTR
/// records, HEADER_FEATURE records and their end marker, then any records. The caller
/// drains the written bytes ([`PipeStream::pending`] and [`PipeStream::consume`], or
/// [`PipeStream::drain_to`]) to a file, socket or larger buffer; the bytes drained, in
/// order, are a valid pipe-mode stream.
///
/// Nothing allocates. A record that does not fit the free space is
/// [`EncodeError::BufferTooSmall`] and nothing of it is written: drain and retry. The
/// order perf needs is enforced: an attr after a feature or a record, or a feature after a
/// record, is [`EncodeError::Unordered`]; the first record after features writes the end
/// marker first (both or neither).
///
/// Every append is all or nothing: on any error the pending bytes, the free space and the
/// place in the order are as they were (the bytes past the pending ones may have changed).
///
/// The largest record must fit the buffer. For tracepoints that is usually
/// HEADER_TRACING_DATA; [`HeaderTracingDataOf`](crate::records::HeaderTracingDataOf) encodes
/// it straight into the buffer, with no second buffer for the blob
/// (`embedded/qemu-agent` in the repository streams from a Cortex-M3 this way, in 1,152 bytes).
///
/// ```
/// use perf_abi::{attr, feature, PerfEventAttr};
/// use perf_encode::records::FinishedRound;
/// use perf_encode::{stream::PipeStream, Endian, HeaderString, to_slice};
///
/// let mut buf = [0u8; 512];
/// let mut out = [0u8; 1024];
/// let mut out_len = 0;
/// let mut s = PipeStream::new(&mut buf, Endian::Little)?;
/// let a = PerfEventAttr { type_: attr::TYPE_SOFTWARE, size: 128, config: attr::SW_DUMMY, ..Default::default() };
/// s.add_attr(&a, &[1])?;
/// let mut host = [0u8; 68];
/// let host = to_slice(&HeaderString::new(b"vm"), Endian::Little, &mut host)?;
/// s.add_feature(feature::HOSTNAME, host)?;
/// s.push(&FinishedRound)?; // writes the features' end marker first
/// s.drain_to(|chunk| {
///     out[out_len..out_len + chunk.len()].copy_from_slice(chunk);
///     out_len += chunk.len();
///     Ok::<usize, ()>(chunk.len())
/// }).unwrap();
/// assert_eq!(out_len, 16 + (8 + 128 + 8) + (16 + 68) + 16 + 8);
/// assert_eq!(&out[..8], b"PERFILE2");
/// # Ok::<(), perf_encode::EncodeError>(())
/// ```
#[derive(Debug)]
pub struct PipeStream<'b> {
    buf: &'b mut [u8],
    start: usize,
    end: usize,
    endian: Endian,
    phase: Phase,
}

impl<'b> PipeStream<'b> {
    /// A stream in `buf`, which must hold at least the 16-byte pipe header (written now).
    ///
    /// # Errors
    ///
    /// [`EncodeError::BufferTooSmall`] `{ needed: 16, available }` when `buf` is shorter
    /// than the pipe header; `buf` is untouched.
    pub fn new(buf: &'b mut [u8], endian: Endian) -> Result<Self, EncodeError> {
        let header = PerfPipeHeader {
            magic: PERF_MAGIC,
            size: PIPE_HEADER_SIZE,
        };
        let n = to_slice(&header, endian, buf)?.len();
        Ok(PipeStream {
            buf,
            start: 0,
            end: n,
            endian,
            phase: Phase::Attrs,
        })
    }

    /// The stream's byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Bytes written and not yet consumed, in stream order.
    pub fn pending(&self) -> &[u8] {
        self.buf.get(self.start..self.end).unwrap_or(&[])
    }

    /// True when every written byte has been consumed.
    pub fn is_drained(&self) -> bool {
        self.start == self.end
    }

    /// Marks the first `n` pending bytes as consumed (at most all of them).
    pub fn consume(&mut self, n: usize) {
        self.start = self.start.saturating_add(n).min(self.end);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Hands the pending bytes to `sink` until all are consumed or `sink` takes none.
    ///
    /// `sink` returns how many bytes of the chunk it took (more than the chunk counts as
    /// all of it). Returns the bytes drained.
    ///
    /// # Errors
    ///
    /// The first error `sink` returns, as it is. The bytes it took in earlier calls stay
    /// consumed; the rest stay pending.
    pub fn drain_to<E>(
        &mut self,
        mut sink: impl FnMut(&[u8]) -> Result<usize, E>,
    ) -> Result<usize, E> {
        let mut total = 0usize;
        while !self.is_drained() {
            let pending = self.pending().len();
            let took = sink(self.pending())?.min(pending);
            if took == 0 {
                break;
            }
            self.consume(took);
            total = total.saturating_add(took);
        }
        Ok(total)
    }

    /// Bytes a record may take now (after moving the pending bytes to the buffer's start).
    pub fn free(&self) -> usize {
        self.buf
            .len()
            .saturating_sub(self.end.saturating_sub(self.start))
    }

    /// Appends a HEADER_ATTR record: `attr` (written with its `size`) and its ids.
    ///
    /// # Errors
    ///
    /// - [`EncodeError::Unordered`] after a feature or a record;
    /// - [`EncodeError::InvalidAttrSize`] when `attr.size` is not a published
    ///   `PERF_ATTR_SIZE_VER*` or cuts off a non-zero field;
    /// - [`EncodeError::TooLong`] `{ what: "HEADER_ATTR", .. }` when the record (header, attr,
    ///   ids) is longer than a record can be (see
    ///   [`HeaderAttr::max_ids`](crate::records::HeaderAttr::max_ids));
    /// - [`EncodeError::BufferTooSmall`] `{ needed, available }` when the record (`needed`
    ///   bytes) does not fit the [`free`](Self::free) space (`available`): drain and retry.
    pub fn add_attr(&mut self, attr: &PerfEventAttr, ids: &[u64]) -> Result<(), EncodeError> {
        if self.phase != Phase::Attrs {
            return Err(EncodeError::Unordered {
                what: "HEADER_ATTR records (they come before features and records)",
            });
        }
        self.append(&HeaderAttr { attr, ids }, false, Phase::Attrs)
    }

    /// Appends a HEADER_FEATURE record with feature `index`'s payload.
    ///
    /// `payload` is the bytes the feature's file-mode section would hold.
    ///
    /// # Errors
    ///
    /// - [`EncodeError::InvalidFeature`] when `index` is 0 (reserved) or not below
    ///   `HEADER_LAST_FEATURE`;
    /// - [`EncodeError::Unordered`] after a record or [`end_features`](Self::end_features);
    /// - [`EncodeError::TooLong`] `{ what: "HEADER_FEATURE payload", .. }` when `payload` is
    ///   longer than [`MAX_FEATURE_PAYLOAD`](perf_abi::MAX_FEATURE_PAYLOAD);
    /// - [`EncodeError::BufferTooSmall`] `{ needed, available }` when the record does not fit
    ///   the [`free`](Self::free) space: drain and retry.
    pub fn add_feature(&mut self, index: u8, payload: &[u8]) -> Result<(), EncodeError> {
        if index == feature::RESERVED || index >= feature::LAST_FEATURE {
            return Err(EncodeError::InvalidFeature {
                index: u32::from(index),
            });
        }
        self.append_feature(&HeaderFeature { index, payload }, Phase::Features)
    }

    /// Appends the end marker of the features (`feat_id = HEADER_LAST_FEATURE`).
    ///
    /// Optional: the first record after features writes it; after it, features are refused.
    ///
    /// # Errors
    ///
    /// - [`EncodeError::Unordered`] after a record or an earlier end marker;
    /// - [`EncodeError::BufferTooSmall`] `{ needed: 16, available }` when the marker does not
    ///   fit the [`free`](Self::free) space: drain and retry.
    ///
    /// ```
    /// use perf_encode::{stream::PipeStream, EncodeError, Endian};
    /// let mut buf = [0u8; 64];
    /// let mut s = PipeStream::new(&mut buf, Endian::Little)?;
    /// s.end_features()?;
    /// assert!(matches!(s.end_features(), Err(EncodeError::Unordered { .. })));
    /// assert!(matches!(s.add_feature(perf_abi::feature::HOSTNAME, &[]), Err(EncodeError::Unordered { .. })));
    /// assert_eq!(s.pending().len(), 16 + 16);
    /// # Ok::<(), EncodeError>(())
    /// ```
    pub fn end_features(&mut self) -> Result<(), EncodeError> {
        self.append_feature(&HeaderFeature::END, Phase::Records)
    }

    /// Appends `record`, after the features' end marker if features are open.
    ///
    /// Any record goes here (SAMPLE, COMM, TIME_CONV, HEADER_TRACING_DATA, …) but HEADER_ATTR
    /// and HEADER_FEATURE, which go through [`add_attr`](Self::add_attr) and
    /// [`add_feature`](Self::add_feature).
    ///
    /// # Errors
    ///
    /// - [`EncodeError::Unordered`] when `record` is a HEADER_ATTR or HEADER_FEATURE record;
    /// - the errors of `record`'s [`Encode`] (its checks of its fields);
    /// - [`EncodeError::BufferTooSmall`] `{ needed, available }` when the record, and the end
    ///   marker's 16 bytes if it is due, do not fit the [`free`](Self::free) space (neither
    ///   is written): drain and retry;
    /// - [`EncodeError::InvalidRecordSize`] `{ size }`, `size` the length `record`
    ///   announced, when it wrote fewer bytes, or bytes that are not whole records as a
    ///   reader frames them (a raw [`Record`](crate::records::Record) of a type followed by
    ///   a payload, HEADER_TRACING_DATA or AUXTRACE, that does not carry the payload it
    ///   announces);
    /// - [`EncodeError::Overflow`] when the record's and the marker's lengths together pass
    ///   `usize::MAX`.
    pub fn push<R: RecordBody + Encode + ?Sized>(&mut self, record: &R) -> Result<(), EncodeError> {
        match record.record_type() {
            record_type::HEADER_ATTR | record_type::HEADER_FEATURE => {
                Err(EncodeError::Unordered {
                    what: "HEADER_ATTR and HEADER_FEATURE records (add them with add_attr and add_feature)",
                })
            }
            _ => self.append(record, self.phase == Phase::Features, Phase::Records),
        }
    }

    fn append_feature(
        &mut self,
        record: &HeaderFeature<'_>,
        next: Phase,
    ) -> Result<(), EncodeError> {
        if self.phase == Phase::Records {
            return Err(EncodeError::Unordered {
                what: "HEADER_FEATURE records (they come before other records)",
            });
        }
        self.append(record, false, next)
    }

    /// Appends `record`, after the features' end marker when `marker`, checking that the
    /// bytes are whole records; then the stream is in phase `next`.
    fn append<E: Encode + ?Sized>(
        &mut self,
        record: &E,
        marker: bool,
        next: Phase,
    ) -> Result<(), EncodeError> {
        let marker_len = if marker {
            HeaderFeature::END.encoded_len()?
        } else {
            0
        };
        let len = record.encoded_len()?;
        let needed = len
            .checked_add(marker_len)
            .ok_or(EncodeError::Overflow { what: "record" })?;
        let endian = self.endian;
        let space = self.reserve(needed)?;
        let written = write_into(space, record, len, marker_len, endian)?;
        if written != len || !whole_records(endian, space.get(..needed).unwrap_or(&[])) {
            return Err(EncodeError::InvalidRecordSize { size: len as u64 });
        }
        self.end = self.end.saturating_add(needed);
        self.phase = next;
        Ok(())
    }

    /// `needed` free bytes after the pending ones, moving those to the buffer's start if
    /// that makes room.
    fn reserve(&mut self, needed: usize) -> Result<&mut [u8], EncodeError> {
        let available = self.free();
        if needed > available {
            return Err(EncodeError::BufferTooSmall { needed, available });
        }
        if self.buf.len().saturating_sub(self.end) < needed && self.start > 0 {
            // `copy_within(start..end, 0)` would panic on a range outside the buffer; the
            // pending bytes, taken with `get_mut`, cannot be (and no panic path is linked).
            if let Some(live) = self.buf.get_mut(..self.end) {
                if let Some(pending) = live.len().checked_sub(self.start) {
                    live.copy_within(self.start.., 0);
                    self.end = pending;
                    self.start = 0;
                }
            }
        }
        let end = self.end.saturating_add(needed);
        self.buf
            .get_mut(self.end..end)
            .ok_or(EncodeError::BufferTooSmall { needed, available })
    }
}

/// Writes the features' end marker (when `marker_len`, its length, is not 0) and `record`, of
/// length `len`, at the start of `space`; returns the bytes of `record` written.
///
/// Not inlined, nor is [`whole_records`]: the encoder's locals and the framer's are then on
/// the stack one after the other, not together (a device's stack is a few KiB).
#[inline(never)]
fn write_into<E: Encode + ?Sized>(
    space: &mut [u8],
    record: &E,
    len: usize,
    marker_len: usize,
    endian: Endian,
) -> Result<usize, EncodeError> {
    let (head, tail) = space.split_at_mut(marker_len.min(space.len()));
    // Encoded straight into the reserved bytes with the lengths `append` computed: `to_slice`
    // would compute them a second time.
    if marker_len > 0 {
        let mut out = SliceOutput::new(head);
        HeaderFeature::END.encode_with_len(&mut Encoder::new(&mut out, endian), marker_len)?;
    }
    let mut out = SliceOutput::new(tail);
    record.encode_with_len(&mut Encoder::new(&mut out, endian), len)?;
    Ok(out.written())
}

/// True when `bytes` are whole records, as the framer checks them.
#[inline(never)]
fn whole_records(endian: Endian, bytes: &[u8]) -> bool {
    let mut framer = RecordFramer::new(endian);
    framer.feed(bytes).is_ok() && framer.at_boundary()
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::records::{FinishedInit, FinishedRound};
    use alloc::vec::Vec;

    #[test]
    fn full_buffer_refuses_and_retries_after_drain() {
        let mut buf = [0u8; 40];
        let mut s = PipeStream::new(&mut buf, Endian::Big).unwrap();
        let mut out = Vec::new();
        for _ in 0..3 {
            s.push(&FinishedRound).unwrap();
        }
        assert_eq!(s.free(), 0);
        assert_eq!(
            s.push(&FinishedInit),
            Err(EncodeError::BufferTooSmall {
                needed: 8,
                available: 0
            })
        );
        s.drain_to(|c| {
            out.extend_from_slice(&c[..c.len().min(5)]);
            Ok::<_, ()>(c.len().min(5))
        })
        .unwrap();
        s.push(&FinishedInit).unwrap();
        out.extend_from_slice(s.pending());
        assert_eq!(out.len(), 16 + 32);
        assert_eq!(&out[out.len() - 8..], &[0, 0, 0, 82, 0, 0, 0, 8]);
    }

    #[test]
    fn partly_consumed_bytes_move_to_the_start_for_a_record() {
        let mut buf = [0u8; 40];
        let mut s = PipeStream::new(&mut buf, Endian::Little).unwrap();
        for _ in 0..3 {
            s.push(&FinishedRound).unwrap();
        }
        let before = s.pending()[8..].to_vec();
        s.consume(8);
        assert_eq!(s.free(), 8);
        s.push(&FinishedInit).unwrap();
        assert_eq!(s.pending().len(), 40);
        assert_eq!(&s.pending()[..32], &before[..]);
        assert_eq!(&s.pending()[32..], &[82, 0, 0, 0, 0, 0, 8, 0]);
        assert_eq!(s.free(), 0);
    }

    #[test]
    fn order_is_enforced() {
        let mut buf = [0u8; 512];
        let mut s = PipeStream::new(&mut buf, Endian::Little).unwrap();
        let attr = PerfEventAttr {
            size: 128,
            ..Default::default()
        };
        s.add_feature(feature::HOSTNAME, &[]).unwrap();
        assert!(matches!(
            s.add_attr(&attr, &[]),
            Err(EncodeError::Unordered { .. })
        ));
        // The end marker and the record go in together, or neither.
        let free = s.free();
        let mut small = [0u8; 16 + 16 + 8 - 1];
        let mut t = PipeStream::new(&mut small, Endian::Little).unwrap();
        t.add_feature(feature::HOSTNAME, &[]).unwrap();
        assert!(t.push(&FinishedRound).is_err());
        assert_eq!(t.pending().len(), 32);
        s.push(&FinishedRound).unwrap();
        assert_eq!(free - s.free(), 16 + 8);
        assert!(matches!(
            s.add_feature(feature::ARCH, &[]),
            Err(EncodeError::Unordered { .. })
        ));
        assert!(s.add_feature(0, &[]).is_err());
    }
}
