//! `PERF_RECORD_FORK` and `PERF_RECORD_EXIT`: a task's start and end, one layout.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u32 pid, u32 ppid, u32 tid, u32 ptid, u64 time, sample_id}`: FORK when `TYPE`
/// is `record_type::FORK` ([`Fork`]), EXIT when it is `record_type::EXIT` ([`Exit`]).
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::{Exit, Fork, PidTid, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::TID | sample_type::TIME, sample_id_all: true, ..Default::default() };
/// let sid = SampleId { tid: Some(PidTid { pid: 2, tid: 2 }), time: Some(100), ..Default::default() };
/// let fork = Fork { layout: &layout, misc: 0, pid: 2, ppid: 1, tid: 2, ptid: 1, time: 100, sample_id: sid };
/// let exit = Exit { layout: &layout, misc: 0, pid: 2, ppid: 1, tid: 2, ptid: 1, time: 200, sample_id: sid };
/// assert_eq!(to_vec(&fork, Endian::Little).unwrap().len(), 8 + 24 + 16);
/// assert_eq!(to_vec(&exit, Endian::Little).unwrap()[0], 4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Task<'a, const TYPE: u32> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc` (`misc::FORK_EXEC` marks the threads perf synthesizes at start).
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

/// `PERF_RECORD_FORK`: a new task (see [`Task`]).
pub type Fork<'a> = Task<'a, { record_type::FORK }>;

/// `PERF_RECORD_EXIT`: a task's end (see [`Task`]).
pub type Exit<'a> = Task<'a, { record_type::EXIT }>;

impl<const TYPE: u32> RecordBody for Task<'_, TYPE> {
    #[inline]
    fn record_type(&self) -> u32 {
        TYPE
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.pid)?;
        enc.u32(self.ppid)?;
        enc.u32(self.tid)?;
        enc.u32(self.ptid)?;
        enc.u64(self.time)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(impl [const TYPE: u32] Task<'_, TYPE>);
