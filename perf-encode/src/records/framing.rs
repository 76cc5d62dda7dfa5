//! Checks that raw bytes form whole records, across any split into chunks.

use crate::Endian;
use core::fmt;
use perf_abi::record_type;

/// Why bytes are not a valid sequence of records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramingError {
    /// A record's `size` is below 8, or not a multiple of 8 (HEADER_FEATURE excepted: perf
    /// writes those unpadded).
    BadSize {
        /// Offset of the record within the bytes fed in this call (may be negative when the
        /// header began in an earlier call: then 0).
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
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BadSize { offset, type_, size } => write!(
                f,
                "record at byte {offset} (type {type_}) has size {size}: sizes are multiples of 8, at least 8"
            ),
            Self::ShortHeader { offset, type_ } => write!(
                f,
                "record at byte {offset} (type {type_}) is too short to hold its payload size"
            ),
        }
    }
}

impl core::error::Error for FramingError {}

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
#[derive(Clone, Copy, Debug)]
pub struct RecordFramer {
    endian: Endian,
    header: [u8; 16],
    have: usize,
    remaining: u64,
    records: u64,
}

impl RecordFramer {
    /// A framer at the start of a stream of byte order `endian`.
    pub const fn new(endian: Endian) -> Self {
        RecordFramer {
            endian,
            header: [0; 16],
            have: 0,
            remaining: 0,
            records: 0,
        }
    }

    /// True between records.
    pub const fn at_boundary(&self) -> bool {
        self.have == 0 && self.remaining == 0
    }

    /// Records started so far.
    pub const fn records(&self) -> u64 {
        self.records
    }

    /// Validates `data` as the continuation of the stream; returns the state after it.
    pub fn check(&self, data: &[u8]) -> Result<RecordFramer, FramingError> {
        let mut s = *self;
        let mut pos = 0usize;
        while pos < data.len() {
            let rest = data.get(pos..).unwrap_or(&[]);
            if s.remaining > 0 {
                let skip = usize::try_from(s.remaining)
                    .unwrap_or(usize::MAX)
                    .min(rest.len());
                pos = pos.saturating_add(skip);
                s.remaining = s.remaining.saturating_sub(skip as u64);
                continue;
            }
            let start = pos.saturating_sub(s.have);
            // Gather the fixed part of the header: 8 bytes, or 16 for records with a trailer.
            let want = if s.have >= 8 && has_trailer(s.type_()) {
                16
            } else {
                8
            };
            if s.have < want {
                let take = want.saturating_sub(s.have).min(rest.len());
                let end = s.have.saturating_add(take);
                if let (Some(dst), Some(src)) = (s.header.get_mut(s.have..end), rest.get(..take)) {
                    dst.copy_from_slice(src);
                }
                s.have = end;
                pos = pos.saturating_add(take);
                if s.have == 8 {
                    let (type_, size) = (s.type_(), s.size());
                    // perf itself writes pipe-mode HEADER_FEATURE records unpadded.
                    let aligned = size % 8 == 0 || type_ == record_type::HEADER_FEATURE;
                    if size < 8 || !aligned {
                        return Err(FramingError::BadSize {
                            offset: start,
                            type_,
                            size,
                        });
                    }
                    if has_trailer(type_) {
                        if size < 16 {
                            return Err(FramingError::ShortHeader {
                                offset: start,
                                type_,
                            });
                        }
                        continue;
                    }
                    s.begin_body(0);
                } else if s.have == 16 {
                    let extra = s.trailer_len();
                    s.begin_body(extra);
                }
                continue;
            }
        }
        Ok(s)
    }

    /// Validates `data` and advances past it; on error nothing changes.
    pub fn feed(&mut self, data: &[u8]) -> Result<(), FramingError> {
        *self = self.check(data)?;
        Ok(())
    }

    fn type_(&self) -> u32 {
        let b = self.header;
        self.endian.read_u32([b[0], b[1], b[2], b[3]])
    }

    fn size(&self) -> u16 {
        let b = self.header;
        self.endian.read_u16([b[6], b[7]])
    }

    fn trailer_len(&self) -> u64 {
        let b = self.header;
        if self.type_() == record_type::HEADER_TRACING_DATA {
            let size = u64::from(self.endian.read_u32([b[8], b[9], b[10], b[11]]));
            size.saturating_add(7) & !7
        } else {
            self.endian
                .read_u64([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]])
        }
    }

    fn begin_body(&mut self, extra: u64) {
        let consumed = self.have as u64;
        self.remaining = u64::from(self.size())
            .saturating_sub(consumed)
            .saturating_add(extra);
        self.have = 0;
        self.records = self.records.saturating_add(1);
    }
}

fn has_trailer(type_: u32) -> bool {
    type_ == record_type::HEADER_TRACING_DATA || type_ == record_type::AUXTRACE
}

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
}
