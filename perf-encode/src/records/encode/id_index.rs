//! `PERF_RECORD_ID_INDEX`: which mmap, cpu and thread each sample id was opened on.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{EncodeError, Encoder, Output};
use perf_abi::{record_type, IdIndexEntry};

/// `{perf_event_header, u64 nr, {u64 id, idx, cpu, tid}[nr]}`. At most 2046 entries fit one
/// record; write several records for more.
///
/// ```
/// use perf_abi::IdIndexEntry;
/// use perf_encode::{records::IdIndex, to_vec, Endian};
/// let e = [IdIndexEntry { id: 126, idx: 0, cpu: 0, tid: u64::MAX }];
/// assert_eq!(to_vec(&IdIndex { entries: &e }, Endian::Little).unwrap().len(), 16 + 32);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct IdIndex<'a> {
    /// The entries.
    pub entries: &'a [IdIndexEntry],
}

impl IdIndex<'_> {
    /// Most entries one record holds.
    pub const MAX_ENTRIES: usize = (u16::MAX as usize - 16) / 32;

    fn check(&self) -> Result<(), EncodeError> {
        if self.entries.len() > Self::MAX_ENTRIES {
            return Err(EncodeError::TooLong {
                what: "ID_INDEX entries",
                len: self.entries.len() as u64,
                max: Self::MAX_ENTRIES as u64,
            });
        }
        Ok(())
    }
}

impl RecordBody for IdIndex<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::ID_INDEX
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        self.check()?;
        Ok(self.entries.len().saturating_mul(32).saturating_add(8))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.entries.len() as u64)?;
        for e in self.entries {
            enc.u64(e.id)?;
            enc.u64(e.idx)?;
            enc.u64(e.cpu)?;
            enc.u64(e.tid)?;
        }
        Ok(())
    }
}

encode_as_record!(IdIndex<'_>);
