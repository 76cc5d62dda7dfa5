//! `PERF_RECORD_THREAD_MAP`: the threads perf record was asked to follow.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_fields::MAX_RECORD_SIZE;
use perf_abi::record_type;

/// One thread: `{u64 pid, char comm[16]}` (pid `u64::MAX` for -1: "any thread").
///
/// ```
/// use perf_encode::records::ThreadMapEntry;
/// let e = ThreadMapEntry::new(7, b"a-name-longer-than-fifteen");
/// assert_eq!(&e.comm[..15], b"a-name-longer-t");
/// assert_eq!(e.comm[15], 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ThreadMapEntry {
    /// The thread id (perf writes `-1` as all ones for a system-wide session).
    pub pid: u64,
    /// The name, NUL padded (perf leaves it zero for `-1`).
    pub comm: [u8; 16],
}

impl ThreadMapEntry {
    /// An entry named by `comm`, cut to 15 bytes so that a NUL follows, as perf does.
    pub fn new(pid: u64, comm: &[u8]) -> Self {
        let mut c = [0u8; 16];
        let n = comm.len().min(15);
        if let (Some(dst), Some(src)) = (c.get_mut(..n), comm.get(..n)) {
            dst.copy_from_slice(src);
        }
        ThreadMapEntry { pid, comm: c }
    }
}

/// `{header, u64 nr, ThreadMapEntry entries[nr]}`.
///
/// ```
/// use perf_encode::records::{ThreadMap, ThreadMapEntry};
/// use perf_encode::{to_vec, Endian};
/// let e = [ThreadMapEntry::new(u64::MAX, b"")];
/// let v = to_vec(&ThreadMap { entries: &e }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 40);
/// assert_eq!(v[0], 73);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ThreadMap<'a> {
    /// The threads.
    pub entries: &'a [ThreadMapEntry],
}

impl ThreadMap<'_> {
    /// Most entries one record holds.
    pub const MAX_ENTRIES: usize = (MAX_RECORD_SIZE - 16) / 24;

    fn check(&self) -> Result<(), EncodeError> {
        if self.entries.len() > Self::MAX_ENTRIES {
            return Err(EncodeError::TooLong {
                what: "THREAD_MAP entries",
                len: self.entries.len() as u64,
                max: Self::MAX_ENTRIES as u64,
            });
        }
        Ok(())
    }
}

impl RecordBody for ThreadMap<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::THREAD_MAP
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        self.check()?;
        Ok(self.entries.len().saturating_mul(24).saturating_add(8))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.entries.len() as u64)?;
        for e in self.entries {
            enc.u64(e.pid)?;
            enc.bytes(&e.comm)?;
        }
        Ok(())
    }
}

encode_as_record!(ThreadMap<'_>);
