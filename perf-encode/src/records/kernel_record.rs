//! What every kernel record encoder shares: the header with its checked size, the
//! `sample_id` trailer, and NUL-terminated names padded to 8 (private).

use crate::records::record::MAX_RECORD_SIZE;
use crate::records::sample::align8;
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{EncodeError, Encoder, Output};
use perf_abi::PerfEventHeader;

/// The header of a record with a `body_len`-byte body (a multiple of 8) followed by the
/// trailer `layout` asks for; checks `sample_id` against `layout`.
pub(crate) fn header(
    record: &'static str,
    type_: u32,
    misc: u16,
    body_len: usize,
    layout: &SampleLayout,
    sample_id: &SampleId,
) -> Result<PerfEventHeader, EncodeError> {
    sample_id.check(layout, record)?;
    let size = body_len
        .checked_add(PerfEventHeader::SIZE)
        .and_then(|n| n.checked_add(layout.sample_id_len()))
        .ok_or(EncodeError::Overflow { what: record })?;
    if size > MAX_RECORD_SIZE {
        return Err(EncodeError::TooLong {
            what: record,
            len: size as u64,
            max: MAX_RECORD_SIZE as u64,
        });
    }
    let size16 = u16::try_from(size)
        .ok()
        .filter(|s| s % 8 == 0)
        .ok_or(EncodeError::InvalidRecordSize { size: size as u64 })?;
    Ok(PerfEventHeader {
        type_,
        misc,
        size: size16,
    })
}

/// Bytes a NUL-terminated `name` takes, padded to 8; a NUL inside `name` is an error.
pub(crate) fn name_len(what: &'static str, name: &[u8]) -> Result<usize, EncodeError> {
    if name.contains(&0) {
        return Err(EncodeError::InvalidValue { what });
    }
    align8(name.len().saturating_add(1), what)
}

/// Writes `name`, its NUL and zero padding up to `padded` bytes.
pub(crate) fn write_name<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    name: &[u8],
    padded: usize,
) -> Result<(), EncodeError> {
    enc.bytes(name)?;
    enc.zeros(padded.saturating_sub(name.len()))
}

/// The fields MMAP and MMAP2 begin with: `u32 pid, u32 tid, u64 addr, u64 len, u64 pgoff`.
pub(crate) fn write_map_start<O: Output + ?Sized>(
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
