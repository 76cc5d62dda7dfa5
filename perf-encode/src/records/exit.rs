//! `PERF_RECORD_EXIT`: a task's end.

use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::records::task::Task;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u32 pid, u32 ppid, u32 tid, u32 ptid, u64 time, sample_id}`.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::{Exit, PidTid, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::TID | sample_type::TIME, sample_id_all: true, ..Default::default() };
/// let sid = SampleId { tid: Some(PidTid { pid: 2, tid: 2 }), time: Some(100), ..Default::default() };
/// let r = Exit { layout: &layout, misc: 0, pid: 2, ppid: 1, tid: 2, ptid: 1, time: 100, sample_id: sid };
/// assert_eq!(to_vec(&r, Endian::Little).unwrap().len(), 8 + 24 + 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Exit<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc`.
    pub misc: u16,
    /// Process id.
    pub pid: u32,
    /// Parent process id.
    pub ppid: u32,
    /// Thread id.
    pub tid: u32,
    /// Parent thread id.
    pub ptid: u32,
    /// Time stamp.
    pub time: u64,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl<'a> Exit<'a> {
    fn task(&self) -> Task<'a> {
        Task {
            record: "EXIT",
            type_: record_type::EXIT,
            layout: self.layout,
            misc: self.misc,
            pid: self.pid,
            ppid: self.ppid,
            tid: self.tid,
            ptid: self.ptid,
            time: self.time,
            sample_id: self.sample_id,
        }
    }
}

impl Encode for Exit<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.task().encode(enc)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.task().encoded_len()
    }
}
