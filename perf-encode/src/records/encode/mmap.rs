//! `PERF_RECORD_MMAP`: an executable mapping (the original record; see MMAP2).

use crate::records::encode::body::{encode_as_record, name_len, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::records::wire::pad::write_padded;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u32 pid, u32 tid, u64 addr, u64 len, u64 pgoff, char filename[] (padded to 8),
/// sample_id}`. perf synthesizes one for the kernel (`[kernel.kallsyms]_text`, pid -1).
///
/// ```
/// use perf_encode::records::{Mmap, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let m = Mmap { layout: &layout, misc: perf_abi::misc::KERNEL, pid: u32::MAX, tid: 0, addr: 0xffff_ffff_8100_0000,
///     len: 0x1000, pgoff: 0, filename: b"[kernel.kallsyms]_text", sample_id: SampleId::default() };
/// assert_eq!(to_vec(&m, Endian::Little).unwrap().len(), 8 + 32 + 24);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Mmap<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc`: cpu mode, `misc::MMAP_DATA`, `misc::PROC_MAP_PARSE_TIMEOUT`.
    pub misc: u16,
    /// Process id (`u32::MAX` for -1).
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Start address.
    pub addr: u64,
    /// Length.
    pub len: u64,
    /// File offset.
    pub pgoff: u64,
    /// The file (no NUL inside).
    pub filename: &'a [u8],
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl Mmap<'_> {
    fn name_len(&self) -> Result<usize, EncodeError> {
        name_len("MMAP record: filename contains a NUL byte", self.filename)
    }
}

/// The fields MMAP and MMAP2 begin with: `u32 pid, u32 tid, u64 addr, u64 len, u64 pgoff`.
pub(super) fn write_map_start<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    (pid, tid): (u32, u32),
    (addr, len, pgoff): (u64, u64, u64),
) -> Result<(), EncodeError> {
    enc.u32(pid)?;
    enc.u32(tid)?;
    enc.u64(addr)?;
    enc.u64(len)?;
    enc.u64(pgoff)
}

impl RecordBody for Mmap<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::MMAP
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        Ok(self.name_len()?.saturating_add(32))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        write_map_start(enc, (self.pid, self.tid), (self.addr, self.len, self.pgoff))?;
        write_padded(enc, self.filename, self.name_len()?)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Mmap<'_>);
