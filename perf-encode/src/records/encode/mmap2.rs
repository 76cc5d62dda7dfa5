//! `PERF_RECORD_MMAP2`: a mapping with its file's identity (device and inode, or build id).

use crate::records::encode::body::{encode_as_record, name_len, RecordBody};
use crate::records::encode::mmap::write_map_start;
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::records::wire::pad::write_padded;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_fields::BUILD_ID_MAX_LEN;
use perf_abi::{misc, record_type};

/// How MMAP2 identifies the mapped file.
///
/// ```
/// use perf_encode::records::Mmap2File;
/// let by_inode = Mmap2File::Inode { maj: 8, min: 1, ino: 1234, ino_generation: 0 };
/// let by_build_id = Mmap2File::BuildId(&[0xab; 20]);
/// assert_ne!(by_inode, by_build_id);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mmap2File<'a> {
    /// `{u32 maj, u32 min, u64 ino, u64 ino_generation}`.
    Inode {
        /// Device major number.
        maj: u32,
        /// Device minor number.
        min: u32,
        /// Inode number.
        ino: u64,
        /// Inode generation.
        ino_generation: u64,
    },
    /// `{u8 build_id_size, u8, u16, u8 build_id[20]}` and `misc::MMAP_BUILD_ID` in
    /// `header.misc` (attr `build_id`, Linux 5.12 and later).
    BuildId(&'a [u8]),
}

/// `{header, u32 pid, u32 tid, u64 addr, u64 len, u64 pgoff, file identity (24 bytes),
/// u32 prot, u32 flags, char filename[] (padded to 8), sample_id}`.
///
/// ```
/// use perf_encode::records::{Mmap2, Mmap2File, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let m = Mmap2 { layout: &layout, misc: perf_abi::misc::USER, pid: 5, tid: 5, addr: 0x4000, len: 0x1000, pgoff: 0,
///     file: Mmap2File::BuildId(&[0xab; 20]), prot: 5, flags: 2, filename: b"/bin/true", sample_id: SampleId::default() };
/// let v = to_vec(&m, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 64 + 16);
/// assert_eq!(u16::from_le_bytes([v[4], v[5]]), perf_abi::misc::USER | perf_abi::misc::MMAP_BUILD_ID);
/// assert_eq!(v[40], 20);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Mmap2<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc`: cpu mode, `misc::MMAP_DATA`, …; `misc::MMAP_BUILD_ID` is set or
    /// cleared to match `file`.
    pub misc: u16,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Start address.
    pub addr: u64,
    /// Length.
    pub len: u64,
    /// File offset.
    pub pgoff: u64,
    /// The file's identity.
    pub file: Mmap2File<'a>,
    /// `PROT_*` bits.
    pub prot: u32,
    /// `MAP_*` bits.
    pub flags: u32,
    /// The file (no NUL inside).
    pub filename: &'a [u8],
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl Mmap2<'_> {
    fn name_len(&self) -> Result<usize, EncodeError> {
        name_len("MMAP2 record: filename contains a NUL byte", self.filename)
    }
}

impl RecordBody for Mmap2<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::MMAP2
    }

    #[inline]
    fn misc(&self) -> u16 {
        match self.file {
            Mmap2File::Inode { .. } => self.misc & !misc::MMAP_BUILD_ID,
            Mmap2File::BuildId(_) => self.misc | misc::MMAP_BUILD_ID,
        }
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        if let Mmap2File::BuildId(id) = self.file {
            if id.len() > BUILD_ID_MAX_LEN {
                return Err(EncodeError::TooLong {
                    what: "MMAP2 build id",
                    len: id.len() as u64,
                    max: BUILD_ID_MAX_LEN as u64,
                });
            }
        }
        Ok(self.name_len()?.saturating_add(64))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        write_map_start(enc, (self.pid, self.tid), (self.addr, self.len, self.pgoff))?;
        match self.file {
            Mmap2File::Inode {
                maj,
                min,
                ino,
                ino_generation,
            } => {
                enc.u32(maj)?;
                enc.u32(min)?;
                enc.u64(ino)?;
                enc.u64(ino_generation)?;
            }
            Mmap2File::BuildId(id) => {
                // body_len checked it: at most 20 bytes.
                enc.u8(u8::try_from(id.len()).unwrap_or(u8::MAX))?;
                enc.zeros(3)?;
                write_padded(enc, id, BUILD_ID_MAX_LEN)?;
            }
        }
        enc.u32(self.prot)?;
        enc.u32(self.flags)?;
        write_padded(enc, self.filename, self.name_len()?)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Mmap2<'_>);
