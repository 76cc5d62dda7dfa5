//! Typed records: the writer lays each record out by the attr of the event it names, with
//! `perf-encode`'s encoders, so callers never pack bytes by hand.

use crate::error::{RecordError, TracingError};
use crate::output::OutputMode;
use crate::{PerfWriter, WriterError};
use perf_abi::record_type;
use perf_encode::records::{Comm, Lost, Sample, SampleId, SampleLayout, SampleRecord, Task};
use perf_encode::Encode;

impl<O: OutputMode> PerfWriter<O> {
    /// The record layout of the event that owns sample id `id` (`None`: the first event, for
    /// records without an id).
    ///
    /// Pass it to `perf-encode`'s record encoders and write the result with
    /// [`write_record`](Self::write_record).
    ///
    /// # Errors
    ///
    /// [`RecordError::UnknownEventId`] for an id no event description owns;
    /// [`RecordError::NoEventDescription`] when none was added.
    ///
    /// ```
    /// use perf_writer_std::perf_encode::records::{Mmap2, Mmap2File, SampleId};
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};
    /// let attr = PerfEventAttr { attr_type: PerfEventAttrType::Software, sample_type: S::Identifier.or(S::Tid), options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll, ..Default::default() };
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.add_event_desc(&[7], &attr, "cpu-clock")?;
    /// let layout = w.sample_layout(Some(7))?;
    /// let sample_id = SampleId { identifier: Some(7), tid: Some(perf_writer_std::perf_encode::records::PidTid { pid: 1, tid: 1 }), ..Default::default() };
    /// w.write_record(&Mmap2 {
    ///     layout: &layout, misc: perf_abi::misc::USER, pid: 1, tid: 1, addr: 0x400000, len: 0x1000, pgoff: 0,
    ///     file: Mmap2File::Inode { maj: 8, min: 1, ino: 42, ino_generation: 0 },
    ///     prot: 5, flags: 2, filename: b"/usr/bin/app", sample_id,
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_layout(&self, id: Option<u64>) -> Result<SampleLayout, WriterError> {
        self.model.desc_for(id).map(|d| d.layout)
    }

    /// Encodes `record` in the file's byte order and appends it as
    /// [`write_event_data`](Self::write_event_data) would (checked in strict mode).
    ///
    /// For the records whose layout depends on an attr, build them with
    /// [`sample_layout`](Self::sample_layout), or use the methods below.
    ///
    /// # Errors
    ///
    /// Nothing is written on error: [`WriterError::Encode`] for a record its encoder
    /// refuses; [`RecordError::Incomplete`] while a record begun by
    /// [`write_event_data`](Self::write_event_data) is unfinished
    /// ([`partial_record_len`](Self::partial_record_len)), whose body it would become; then
    /// the refusals of [`write_event_data`](Self::write_event_data).
    pub fn write_record<R: Encode + ?Sized>(&mut self, record: &R) -> Result<(), WriterError> {
        // A whole record given while a caller's record is unfinished would become its body.
        if self.partial_record_len() != 0 {
            return Err(WriterError::Record(RecordError::Incomplete));
        }
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        let result = perf_encode::append_to_vec(record, self.model.endian(), &mut buf)
            .map_err(WriterError::from)
            .and_then(|()| self.write_event_data(&buf));
        self.scratch = buf;
        result
    }

    /// Appends a SAMPLE record laid out by the attr of the event `sample` names (its
    /// `identifier`, else its `id`; with neither, the first event).
    ///
    /// `misc` is the header's `misc` (the cpu mode, `misc::USER`, `misc::KERNEL`, …).
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] for a field the attr's `sample_type` has and `sample` lacks, or
    /// the other way round ([`EncodeError::MissingField`](perf_encode::EncodeError::MissingField)
    /// / [`UnexpectedField`](perf_encode::EncodeError::UnexpectedField));
    /// [`RecordError::UnknownEventId`] / [`RecordError::NoEventDescription`] when no event
    /// owns it; [`TracingError::TracepointRaw`] for a tracepoint SAMPLE whose RAW payload breaks
    /// its format's [`tracepoint_raw_rule`](Self::tracepoint_raw_rule) (perf 6.1 crashes on a
    /// `common_type` that is not the format's id); then those of
    /// [`write_record`](Self::write_record).
    ///
    /// ```
    /// use perf_writer_std::perf_encode::records::{PidTid, Sample};
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};
    /// let attr = PerfEventAttr { attr_type: PerfEventAttrType::Software, sample_type: S::Identifier.or(S::Tid).or(S::Time), ..Default::default() };
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.add_event_desc(&[1], &attr, "cpu-clock")?;
    /// let s = Sample { identifier: Some(1), tid: Some(PidTid { pid: 10, tid: 11 }), time: Some(1000), ..Default::default() };
    /// w.write_sample(perf_abi::misc::USER, &s)?;
    /// let missing_time = Sample { time: None, ..s };
    /// assert!(w.write_sample(perf_abi::misc::USER, &missing_time).is_err());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn write_sample(&mut self, misc: u16, sample: &Sample<'_>) -> Result<(), WriterError> {
        let id = sample.identifier.or(sample.id);
        let desc = self.model.desc_for(id)?;
        let layout = desc.layout;
        if let (Some(raw), Some(rule)) = (sample.raw, self.model.raw_rule_of(desc)) {
            rule.check(raw).map_err(|problem| {
                WriterError::Tracing(TracingError::TracepointRaw { id, problem })
            })?;
        }
        self.write_record(&SampleRecord {
            layout: &layout,
            sample,
            misc,
        })
    }

    /// Appends a COMM record: thread `tid` of process `pid` is named `comm` (`exec`: because of
    /// an exec).
    ///
    /// The `sample_id` trailer follows the attr of the event `sample_id` names (fields the attr
    /// does not ask for must be `None`).
    ///
    /// # Errors
    ///
    /// Those of [`sample_layout`](Self::sample_layout) for the event `sample_id` names, then
    /// those of [`write_record`](Self::write_record).
    pub fn write_comm(
        &mut self,
        pid: u32,
        tid: u32,
        comm: &[u8],
        exec: bool,
        sample_id: &SampleId,
    ) -> Result<(), WriterError> {
        let layout = self.layout_for(sample_id.identifier.or(sample_id.id))?;
        self.write_record(&Comm {
            layout: &layout,
            pid,
            tid,
            comm,
            exec,
            sample_id: *sample_id,
        })
    }

    /// Appends a FORK record: `pid`/`tid` was created by `ppid`/`ptid` at `time`.
    ///
    /// # Errors
    ///
    /// As [`write_comm`](Self::write_comm).
    pub fn write_fork(
        &mut self,
        task: (u32, u32),
        parent: (u32, u32),
        time: u64,
        sample_id: &SampleId,
    ) -> Result<(), WriterError> {
        self.write_task::<{ record_type::FORK }>(task, parent, time, sample_id)
    }

    /// Appends an EXIT record: `pid`/`tid` (child of `ppid`/`ptid`) exited at `time`.
    ///
    /// # Errors
    ///
    /// As [`write_comm`](Self::write_comm).
    pub fn write_exit(
        &mut self,
        task: (u32, u32),
        parent: (u32, u32),
        time: u64,
        sample_id: &SampleId,
    ) -> Result<(), WriterError> {
        self.write_task::<{ record_type::EXIT }>(task, parent, time, sample_id)
    }

    /// A FORK or EXIT record (`TYPE`).
    fn write_task<const TYPE: u32>(
        &mut self,
        (pid, tid): (u32, u32),
        (ppid, ptid): (u32, u32),
        time: u64,
        sample_id: &SampleId,
    ) -> Result<(), WriterError> {
        let layout = self.layout_for(sample_id.identifier.or(sample_id.id))?;
        self.write_record(&Task::<TYPE> {
            layout: &layout,
            misc: 0,
            pid,
            ppid,
            tid,
            ptid,
            time,
            sample_id: *sample_id,
        })
    }

    /// Appends a LOST record: `lost` records of event `id` were dropped.
    ///
    /// # Errors
    ///
    /// As [`write_comm`](Self::write_comm).
    pub fn write_lost(
        &mut self,
        id: u64,
        lost: u64,
        sample_id: &SampleId,
    ) -> Result<(), WriterError> {
        let layout = self.layout_for(sample_id.identifier.or(sample_id.id))?;
        self.write_record(&Lost {
            layout: &layout,
            misc: 0,
            id,
            lost,
            sample_id: *sample_id,
        })
    }

    fn layout_for(&self, id: Option<u64>) -> Result<SampleLayout, WriterError> {
        self.sample_layout(id)
    }
}

#[cfg(test)]
mod tests {
    use crate::{FileOutput, PerfWriter, TracingError, WriterError};
    use perf_encode::features::TracepointRawProblem;
    use perf_encode::records::Sample;
    use perf_encode::Endian;
    use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};

    const TEXT: &str = "name: tick\nID: 300\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\nprint fmt: \"tick\"\n";

    #[test]
    fn the_raw_rule_reads_common_type_in_the_files_byte_order() {
        let attr = PerfEventAttr {
            attr_type: PerfEventAttrType::Tracepoint,
            config: 300,
            sample_type: S::Identifier.or(S::Raw),
            ..Default::default()
        };
        for e in [Endian::Little, Endian::Big] {
            let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
                std::io::Cursor::new(Vec::new()),
                e,
            )
            .unwrap();
            w.add_tracepoint_event_desc_from_text(&[1], &attr, "t:tick", "t", TEXT)
                .unwrap();
            let mut raw = [0u8; 8];
            raw[..2].copy_from_slice(&e.u16_bytes(300));
            let sample = |raw| Sample {
                identifier: Some(1),
                raw: Some(raw),
                ..Default::default()
            };
            w.write_sample(0, &sample(&raw)).unwrap();
            let swapped = [raw[1], raw[0], 0, 0, 0, 0, 0, 0];
            let err = w.write_sample(0, &sample(&swapped)).unwrap_err();
            let found = 300u16.swap_bytes();
            let problem = TracepointRawProblem::CommonType {
                found,
                expected: 300,
            };
            assert_eq!(
                err,
                WriterError::Tracing(TracingError::TracepointRaw {
                    id: Some(1),
                    problem
                }),
                "{e:?}"
            );
        }
    }

    #[test]
    fn formats_must_agree_on_where_common_type_is() {
        let attr = |config| PerfEventAttr {
            attr_type: PerfEventAttrType::Tracepoint,
            config,
            sample_type: S::Identifier.or(S::Raw),
            ..Default::default()
        };
        let moved = TEXT
            .replace("ID: 300", "ID: 301")
            .replace("common_type;\toffset:0;", "common_type;\toffset:2;");
        let mut w =
            PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new())).unwrap();
        w.add_tracepoint_event_desc_from_text(&[1], &attr(300), "t:tick", "t", TEXT)
            .unwrap();
        let err = w
            .add_tracepoint_event_desc_from_text(&[2], &attr(301), "t:moved", "t", &moved)
            .unwrap_err();
        assert_eq!(
            err,
            WriterError::Tracing(TracingError::CommonTypeOffset {
                offset: 2,
                expected: 0
            })
        );
        assert!(w.finish().is_ok());
    }
}
