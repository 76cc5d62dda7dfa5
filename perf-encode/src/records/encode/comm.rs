//! `PERF_RECORD_COMM`: a thread's name.

use crate::records::encode::body::{encode_as_record, name_len, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::records::wire::pad::write_padded;
use crate::{EncodeError, Encoder, Output};
use perf_abi::{misc, record_type};

/// `{header, u32 pid, u32 tid, char comm[] (NUL-terminated, padded to 8), sample_id}`;
/// `exec` sets `misc::COMM_EXEC` (the name changed because of an exec).
///
/// ```
/// use perf_encode::records::{Comm, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default(); // no sample_id_all: no trailer
/// let c = Comm { layout: &layout, pid: 10, tid: 11, comm: b"sleep", exec: true, sample_id: SampleId::default() };
/// let v = to_vec(&c, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 8 + 8);
/// assert_eq!(&v[4..6], &perf_abi::misc::COMM_EXEC.to_le_bytes());
/// assert_eq!(&v[16..22], b"sleep\0");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Comm<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// The name (the kernel's is at most 15 bytes); no NUL inside.
    pub comm: &'a [u8],
    /// The name comes from an exec.
    pub exec: bool,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl Comm<'_> {
    fn name_len(&self) -> Result<usize, EncodeError> {
        name_len("COMM record: comm contains a NUL byte", self.comm)
    }
}

impl RecordBody for Comm<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::COMM
    }

    #[inline]
    fn misc(&self) -> u16 {
        if self.exec {
            misc::COMM_EXEC
        } else {
            0
        }
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        Ok(self.name_len()?.saturating_add(8))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.pid)?;
        enc.u32(self.tid)?;
        write_padded(enc, self.comm, self.name_len()?)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Comm<'_>);
