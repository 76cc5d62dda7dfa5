//! The layout FORK and EXIT share: `{header, u32 pid, u32 ppid, u32 tid, u32 ptid, u64 time,
//! sample_id}`.

use crate::records::kernel_record::header;
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::PerfEventHeader;

/// A FORK or EXIT record: which one, and its fields.
pub(super) struct Task<'a> {
    /// The record's name, for errors.
    pub(super) record: &'static str,
    /// `record_type::FORK` or `record_type::EXIT`.
    pub(super) type_: u32,
    pub(super) layout: &'a SampleLayout,
    pub(super) misc: u16,
    pub(super) pid: u32,
    pub(super) ppid: u32,
    pub(super) tid: u32,
    pub(super) ptid: u32,
    pub(super) time: u64,
    pub(super) sample_id: SampleId,
}

impl Task<'_> {
    fn header(&self) -> Result<PerfEventHeader, EncodeError> {
        header(
            self.record,
            self.type_,
            self.misc,
            24,
            self.layout,
            &self.sample_id,
        )
    }
}

impl Encode for Task<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.encode(&self.header()?)?;
        enc.u32(self.pid)?;
        enc.u32(self.ppid)?;
        enc.u32(self.tid)?;
        enc.u32(self.ptid)?;
        enc.u64(self.time)?;
        self.sample_id.write(enc, self.layout, self.record)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.header()?.size))
    }
}
