//! Strict mode and the headers the writer derives from the events: the public switches of
//! [`RecordCheck`](crate::check::record_check::RecordCheck).

use crate::model::feature_slot::FeatureSlot;
use crate::output::OutputMode;
use crate::PerfWriter;
use perf_abi::{NrCpus, SampleTime};

impl<O: OutputMode> PerfWriter<O> {
    /// Turns strict mode on or off (on by default): what the writer accepts is then
    /// something perf 6.1 reads.
    ///
    /// In strict mode every record given to [`write_event_data`](Self::write_event_data),
    /// [`write_event_data_vectored`](Self::write_event_data_vectored) or the typed methods is
    /// checked against its event description, and a call with a record perf could not
    /// attribute or read is refused with nothing of it written
    /// ([`RecordError::Refused`](crate::RecordError::Refused)). In file mode a
    /// record may come before its description and is checked when that comes; pipe mode
    /// keeps the stream's order. `set_strict(false)` is the unchecked opt-in: records are
    /// only framed, and one perf cannot read makes it refuse the whole file. The crate
    /// documentation's "Strict mode" says what is checked and the memory it takes;
    /// BENCHMARKS.md what the checks cost per event.
    ///
    /// Set inside a record (part of it given), the new setting takes effect after that
    /// record. Turning strict mode off drops the checks that wait: their records stay
    /// written, as unchecked ones are; turned on again before any record is written or any
    /// description or header changes, it takes them back. What AUXTRACE_INFO records
    /// written in strict mode need of descriptions still to come (their event, ids free for
    /// the events perf synthesizes) holds again whenever it is turned on. After records
    /// written with it off, STAT and STAT_ROUND records, and the AUXTRACE_INFO and
    /// AUXTRACE records that depend on a TIME_CONV or AUXTRACE_INFO before them, are
    /// refused (those may be among them). [`strict`](Self::strict) tells the setting as
    /// last set.
    ///
    /// ```
    /// use perf_writer_std::{WriterError, FileOutput, PerfWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: PerfEventAttrSampleType::Identifier.or(PerfEventAttrSampleType::Time),
    ///     ..Default::default()
    /// };
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.set_strict(true);
    /// w.add_event_desc(&[1], &attr, "a")?;
    /// w.add_event_desc(&[2], &attr, "b")?;
    /// // A SAMPLE of 16 bytes: IDENTIFIER 1, but no TIME.
    /// let mut sample = vec![9, 0, 0, 0, 2, 0, 16, 0];
    /// sample.extend_from_slice(&1u64.to_ne_bytes());
    /// let err = w.write_event_data(&sample).unwrap_err();
    /// assert!(matches!(err, WriterError::Record(perf_writer_std::RecordError::Refused { .. })));
    /// // Nothing written: the data section is an empty file's one FINISHED_ROUND.
    /// let file = w.finish()?.into_inner();
    /// assert_eq!(u64::from_ne_bytes(file[48..56].try_into()?), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_strict(&mut self, strict: bool) {
        self.check.set_strict(strict);
        self.apply_waiting_check_settings();
    }

    /// True in strict mode (see [`set_strict`](Self::set_strict)).
    pub fn strict(&self) -> bool {
        self.check.strict()
    }

    /// Turns on (or off) the headers derived from the events (off by default).
    ///
    /// At finalize the writer sets SAMPLE_TIME to the smallest and largest SAMPLE time it saw and NRCPUS (available and
    /// online) to the highest CPU seen in a SAMPLE or `sample_id` trailer, plus one. A header
    /// the caller set keeps the caller's value; a file without sample times (or CPUs) gets no
    /// such header. Like strict mode it looks at whole records, so records
    /// split across calls are held back until complete, and set inside a record it takes
    /// effect after that record.
    ///
    /// ```
    /// use perf_writer_std::perf_encode::records::{Sample, SampleCpu};
    /// use perf_writer_std::{PerfHeaderIndex, FileOutput, PerfWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: S::Identifier.or(S::Time).or(S::Cpu),
    ///     ..Default::default()
    /// };
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.set_headers_from_events(true);
    /// w.add_event_desc(&[1], &attr, "cpu-clock")?;
    /// for (time, cpu) in [(500, 3), (200, 1)] {
    ///     let s = Sample { identifier: Some(1), time: Some(time), cpu: Some(SampleCpu::new(cpu)), ..Default::default() };
    ///     w.write_sample(perf_abi::misc::USER, &s)?;
    /// }
    /// let file = w.finish()?.into_inner();
    /// assert_eq!(file.len() % 8, 0);
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_headers_from_events(&mut self, on: bool) {
        self.check.set_derive(on);
        self.apply_waiting_check_settings();
    }

    /// Puts the derived headers into the model (the caller's own values win).
    pub(crate) fn set_headers_derived_from_events(&mut self) {
        let stats = self.check.stats;
        if let Some((first, last)) = stats.time {
            self.model
                .set_derived(FeatureSlot::SAMPLE_TIME, &SampleTime { first, last });
        }
        if let Some(cpu) = stats.max_cpu {
            let n = cpu.saturating_add(1);
            let nr = NrCpus {
                available: n,
                online: n,
            };
            self.model.set_derived(FeatureSlot::NRCPUS, &nr);
        }
    }
}
