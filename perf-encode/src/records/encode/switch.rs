//! `PERF_RECORD_SWITCH` and `PERF_RECORD_SWITCH_CPU_WIDE`: context switches.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::{EncodeError, Encoder, Output};
use perf_abi::{misc, record_type};

fn switch_misc(out: bool, preempt: bool) -> u16 {
    let mut m = 0;
    if out {
        m |= misc::SWITCH_OUT;
        if preempt {
            m |= misc::SWITCH_OUT_PREEMPT;
        }
    }
    m
}

/// `{header, sample_id}`: the task the record belongs to was switched in, or out (`out`,
/// `misc::SWITCH_OUT`), while still runnable (`preempt`, `misc::SWITCH_OUT_PREEMPT`,
/// only with `out`).
///
/// ```
/// use perf_encode::records::{SampleId, SampleLayout, Switch};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let v = to_vec(&Switch { layout: &layout, out: true, preempt: false, sample_id: SampleId::default() }, Endian::Little).unwrap();
/// assert_eq!(v, [14, 0, 0, 0, 0, 0x20, 8, 0]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Switch<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// Switched out (else in).
    pub out: bool,
    /// Preempted while runnable (with `out`).
    pub preempt: bool,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

/// `{header, u32 next_prev_pid, u32 next_prev_tid, sample_id}`: a switch on a cpu-wide
/// event; `next_prev_*` is the task switched to (when `out`) or from (when in).
///
/// ```
/// use perf_encode::records::{SampleId, SampleLayout, SwitchCpuWide};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let r = SwitchCpuWide { layout: &layout, out: false, preempt: false, next_prev_pid: 4, next_prev_tid: 5, sample_id: SampleId::default() };
/// assert_eq!(to_vec(&r, Endian::Little).unwrap().len(), 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SwitchCpuWide<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// Switched out (else in).
    pub out: bool,
    /// Preempted while runnable (with `out`).
    pub preempt: bool,
    /// Process id of the next (out) or previous (in) task.
    pub next_prev_pid: u32,
    /// Thread id of the next (out) or previous (in) task.
    pub next_prev_tid: u32,
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl RecordBody for Switch<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::SWITCH
    }

    #[inline]
    fn misc(&self) -> u16 {
        switch_misc(self.out, self.preempt)
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, _: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        Ok(()) // the record is its header and trailer
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

impl RecordBody for SwitchCpuWide<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::SWITCH_CPU_WIDE
    }

    #[inline]
    fn misc(&self) -> u16 {
        switch_misc(self.out, self.preempt)
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.next_prev_pid)?;
        enc.u32(self.next_prev_tid)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Switch<'_>, SwitchCpuWide<'_>);
