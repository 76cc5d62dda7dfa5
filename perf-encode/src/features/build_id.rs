//! `HEADER_BUILD_ID`: the build ids of the binaries the samples hit.

use crate::{c_str_prefix, Encode, EncodeError, Encoder, HeaderString, Output};
use perf_abi::misc;
use perf_abi::record_fields::BUILD_ID_MAX_LEN;

/// Bytes of an entry before its file name: `perf_event_header`, `i32 pid`,
/// `u8 build_id[20]`, `u8 size`, 3 bytes of padding.
const ENTRY_FIXED_LEN: usize = 8 + 4 + BUILD_ID_MAX_LEN + 1 + 3;

/// Longest file name an entry holds: its record size (36 bytes and the name padded to 64)
/// must fit `perf_event_header.size`.
const MAX_FILENAME_LEN: usize = 65_471;
const _: () = assert!(ENTRY_FIXED_LEN + ((MAX_FILENAME_LEN + 64) & !63) <= u16::MAX as usize);
const _: () = assert!(ENTRY_FIXED_LEN + ((MAX_FILENAME_LEN + 65) & !63) > u16::MAX as usize);

/// One `build_id_event`: a binary (by path) and its build id.
///
/// perf writes `header.type = 0`, `header.misc` = the binary's cpu mode
/// ([`misc::KERNEL`], [`misc::USER`], [`misc::GUEST_KERNEL`], [`misc::GUEST_USER`]) with
/// [`misc::BUILD_ID_SIZE`] set, `pid = -1` for the host (a guest machine's pid otherwise),
/// the build id padded to 20 bytes followed by its length, and the file name NUL-padded to a
/// multiple of 64 bytes. The encoder sets `BUILD_ID_SIZE` itself; the entry size is not a
/// multiple of 8 (perf's own entries are 100 bytes for short names).
///
/// ```
/// use perf_encode::features::BuildIdEntry;
/// let e = BuildIdEntry { misc: perf_abi::misc::KERNEL, pid: -1, build_id: &[0xab; 20], filename: b"[kernel.kallsyms]" };
/// let v = perf_encode::to_vec(&e, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), 100);
/// assert_eq!(&v[4..8], &[0x01, 0x80, 100, 0]); // misc KERNEL | BUILD_ID_SIZE, size 100
/// assert_eq!(v[32], 20); // the build id's length
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildIdEntry<'a> {
    /// `header.misc`: the cpu mode of the binary (`BUILD_ID_SIZE` is added when encoding).
    pub misc: u16,
    /// `-1` for the host machine, else the pid of the guest machine.
    pub pid: i32,
    /// The build id, at most `BUILD_ID_MAX_LEN` bytes.
    pub build_id: &'a [u8],
    /// Path of the binary (`[kernel.kallsyms]`, `[vdso]`, `/usr/lib/...`); it ends at its first NUL.
    pub filename: &'a [u8],
}

impl BuildIdEntry<'_> {
    /// The record size: the fixed part and the padded file name.
    fn size(&self) -> Result<u16, EncodeError> {
        let name_len = HeaderString::new(self.filename).padded_len()?;
        usize::try_from(name_len)
            .ok()
            .and_then(|n| n.checked_add(ENTRY_FIXED_LEN))
            .and_then(|n| u16::try_from(n).ok())
            .ok_or(EncodeError::TooLong {
                what: "build id file name",
                len: self.filename.len() as u64,
                max: MAX_FILENAME_LEN as u64,
            })
    }
}

impl Encode for BuildIdEntry<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let id_len = self.build_id.len();
        let id_pad = BUILD_ID_MAX_LEN
            .checked_sub(id_len)
            .ok_or(EncodeError::TooLong {
                what: "build id",
                len: id_len as u64,
                max: BUILD_ID_MAX_LEN as u64,
            })?;
        let size = self.size()?;
        let name = c_str_prefix(self.filename);
        let name_pad = usize::from(size)
            .checked_sub(ENTRY_FIXED_LEN)
            .and_then(|n| n.checked_sub(name.len()))
            .ok_or(EncodeError::Overflow {
                what: "build id entry",
            })?;
        enc.u32(0)?;
        enc.u16(self.misc | misc::BUILD_ID_SIZE)?;
        enc.u16(size)?;
        enc.i32(self.pid)?;
        enc.bytes(self.build_id)?;
        enc.zeros(id_pad)?;
        enc.u8(u8::try_from(id_len).map_err(|_| EncodeError::Overflow { what: "build id" })?)?;
        enc.zeros(3)?;
        enc.bytes(name)?;
        enc.zeros(name_pad)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        if self.build_id.len() > BUILD_ID_MAX_LEN {
            return Err(EncodeError::TooLong {
                what: "build id",
                len: self.build_id.len() as u64,
                max: BUILD_ID_MAX_LEN as u64,
            });
        }
        self.size().map(usize::from)
    }
}

/// The BUILD_ID payload: its entries one after the other (no count).
///
/// ```
/// use perf_encode::features::{BuildIdEntry, BuildIdFeature};
/// let entries = [
///     BuildIdEntry { misc: perf_abi::misc::KERNEL, pid: -1, build_id: &[1; 20], filename: b"[kernel.kallsyms]" },
///     BuildIdEntry { misc: perf_abi::misc::USER, pid: -1, build_id: &[2; 20], filename: b"/usr/bin/true" },
/// ];
/// let v = perf_encode::to_vec(&BuildIdFeature::new(&entries), perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), 200);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BuildIdFeature<'a> {
    entries: &'a [BuildIdEntry<'a>],
}

impl<'a> BuildIdFeature<'a> {
    /// The feature listing `entries`.
    pub fn new(entries: &'a [BuildIdEntry<'a>]) -> Self {
        BuildIdFeature { entries }
    }
}

impl Encode for BuildIdFeature<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.entries.iter().try_for_each(|e| enc.encode(e))
    }
}
