//! `PERF_RECORD_MMAP`: an executable mapping (the original record; see MMAP2).

use crate::records::kernel_record::{header, name_len, write_map_start, write_name};
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventHeader};

const RECORD: &str = "MMAP";

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
    fn parts(&self) -> Result<(PerfEventHeader, usize), EncodeError> {
        let name = name_len("MMAP record: filename contains a NUL byte", self.filename)?;
        let h = header(
            RECORD,
            record_type::MMAP,
            self.misc,
            name.saturating_add(32),
            self.layout,
            &self.sample_id,
        )?;
        Ok((h, name))
    }
}

impl Encode for Mmap<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let (h, name) = self.parts()?;
        enc.encode(&h)?;
        write_map_start(enc, (self.pid, self.tid), (self.addr, self.len, self.pgoff))?;
        write_name(enc, self.filename, name)?;
        self.sample_id.write(enc, self.layout, RECORD)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.parts()?.0.size))
    }
}
