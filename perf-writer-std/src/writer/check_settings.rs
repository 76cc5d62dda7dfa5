//! Strict mode and the headers the writer derives from the events: the public switches of
//! [`RecordCheck`](crate::check::record_check::RecordCheck).

use crate::model::feature_slot::FeatureSlot;
use crate::output::OutputMode;
use crate::PerfWriter;
use perf_abi::{NrCpus, SampleTime};

impl<O: OutputMode> PerfWriter<O> {
    /// Turns strict mode on or off. **On by default in every build**: what the writer accepts
    /// is then something perf 6.1 reads. `set_strict(false)` is the unchecked opt-in: records
    /// are only framed, and one perf cannot attribute or read makes it refuse the whole file.
    /// BENCHMARKS.md gives what the checks cost per event.
    ///
    /// In strict mode every record given to [`write_event_data`](Self::write_event_data),
    /// [`write_event_data_vectored`](Self::write_event_data_vectored) or the typed methods is
    /// checked against its event description, and a call is refused
    /// ([`WriterError::RecordRefused`](crate::WriterError::RecordRefused), naming the record,
    /// its offset and the problem) with nothing of it written when a record:
    /// - is a SAMPLE whose id belongs to no description (with several descriptions; perf
    ///   gives every record to the only one when there is one, and records with id 0, as
    ///   perf synthesizes them, to the first) once its description can no longer come (see
    ///   below);
    /// - is a SAMPLE whose fields disagree with its attr's layout (`sample_type`,
    ///   `read_format`, register masks, `branch_sample_type`): `header.size` must be what
    ///   the layout implies (or that rounded up to 8: padding after the last field, as
    ///   writers that do not count RAW's padding in its size produce, reads the same);
    /// - is a kernel record (COMM, MMAP2, FORK, …) whose `sample_id` trailer names an unknown
    ///   id, or whose size does not fit its type plus the trailer its attr asks for;
    /// - is of a type perf 6.1 does not know (0, 22 to 63, above 83);
    /// - is one of pipe mode's header records (HEADER_ATTR, HEADER_EVENT_TYPE,
    ///   HEADER_TRACING_DATA, HEADER_FEATURE), which the writer makes itself;
    /// - is another tool record (FINISHED_ROUND, ID_INDEX, THREAD_MAP, …) whose size does not
    ///   fit its type;
    /// - is a COMPRESSED record (passed through as given, e.g. from a `perf record -z` file)
    ///   while no HEADER_COMPRESSED (zstd, `mmap_len` above 0) is set, or while the writer
    ///   compresses itself ([`set_compression`](Self::set_compression)). Strict mode does not
    ///   decompress it: the records inside are not checked.
    ///
    /// **Any order, in file mode.** As with `tracepoint_perf` 0.5, records, descriptions and
    /// headers may come in any order before finalize: a record whose description (its
    /// event id's), tracepoint format or HEADER_COMPRESSED is not there yet is written, and
    /// what the check needs of it is kept in a summary per event id, not the records: the
    /// layouts its SAMPLEs all fit (every field of varying length among them) and what
    /// their RAW payloads say to any tracepoint format, or the lengths of its other records.
    /// The description checks them when it is added, as it would have checked each record
    /// had it come first, and is refused when they contradict it
    /// ([`WriterError::ContradictsRecords`](crate::WriterError::ContradictsRecords), naming
    /// how many, the first's offset and id, and what is wrong); a HEADER_COMPRESSED perf
    /// could not decompress them with is refused by `set_header` the same way. Finalize
    /// refuses while records wait
    /// ([`WriterError::UndescribedRecords`](crate::WriterError::UndescribedRecords)): add
    /// what they need and finalize again. A writer dropped (or
    /// [salvaged](Self::finish_truncated)) while records wait ends the data before the first
    /// of them, so perf reads the file: the records from there on are lost.
    ///
    /// The memory this takes is bounded. A record past a bound is refused at its call
    /// ([`WriterError::RecordRefused`](crate::WriterError::RecordRefused), nothing of it
    /// written) until descriptions are added: more than
    /// [`MAX_PENDING_IDS`](crate::MAX_PENDING_IDS) event ids waiting (`TooManyPendingIds`),
    /// summaries taking [`MAX_PENDING_BYTES`](crate::MAX_PENDING_BYTES) (`TooManyPendingBytes`),
    /// or a SAMPLE that, with the SAMPLEs of its id before it, fits more layouts than are
    /// kept track of (`TooManyLayouts`: SAMPLEs of one layout stay far below that). Before
    /// the first description the place of the id in a SAMPLE is not known: records are
    /// grouped by the word at each place a layout can put it, and a place where more than
    /// `MAX_PENDING_IDS` words, or 4 MiB of SAMPLEs each alone in its group, were written is
    /// no longer kept; a first description that puts its id there is refused, naming them.
    ///
    /// Pipe mode keeps the stream's order (perf reads it in order): a record whose
    /// description is not there yet is refused
    /// ([`RecordProblem::DescribeFirstInPipeMode`](crate::RecordProblem::DescribeFirstInPipeMode)),
    /// and so it is in file mode while the writer compresses
    /// ([`set_compression`](Self::set_compression): records are compressed as they come).
    ///
    /// Sizes that are not multiples of 8 are refused in every mode (COMPRESSED and
    /// HEADER_FEATURE records excepted: perf writes them unpadded). A record split across calls is
    /// held back until its last byte arrives, then checked; [`file_pos`](Self::file_pos)
    /// counts it. Its header is judged by the call that completes it: a type perf 6.1 does
    /// not know, or a pipe-mode header record, is refused there and not taken as the start
    /// of a record that would swallow what follows. When such a record is refused, its
    /// held-back start is dropped with it, so the output continues after the last accepted
    /// record (the error, [`WriterError::InsidePartialRecord`](crate::WriterError::InsidePartialRecord),
    /// says so). Attrs perf could not tell apart are refused by `add_event_desc` in every
    /// mode.
    ///
    /// Turning strict mode off drops the checks that wait: their records stay written, as
    /// unchecked ones are.
    ///
    /// Set inside a record (part of it given, the rest not yet), the new setting takes effect
    /// after that record: the record is finished under the setting it began with.
    /// [`strict`](Self::strict) tells the setting as last set.
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, WriterError};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: PerfEventAttrSampleType::Identifier.or(PerfEventAttrSampleType::Time),
    ///     ..Default::default()
    /// };
    /// let mut w = PerfDataFileWriter::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.set_strict(true);
    /// w.add_event_desc(&[1], &attr, "a");
    /// w.add_event_desc(&[2], &attr, "b");
    /// // A SAMPLE of 16 bytes: IDENTIFIER 1, but no TIME.
    /// let mut sample = vec![9, 0, 0, 0, 2, 0, 16, 0];
    /// sample.extend_from_slice(&1u64.to_ne_bytes());
    /// let err = w.write_event_data(&sample).unwrap_err();
    /// assert!(matches!(WriterError::from_io(&err), Some(WriterError::RecordRefused { .. })));
    /// // Nothing written: the data section is an empty file's one FINISHED_ROUND.
    /// let file = w.finish()?.into_inner();
    /// assert_eq!(u64::from_ne_bytes(file[48..56].try_into()?), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_strict(&mut self, strict: bool) {
        self.check.set_strict(strict);
        self.settle_check();
    }

    /// True in strict mode (see [`set_strict`](Self::set_strict)).
    pub fn strict(&self) -> bool {
        self.check.strict()
    }

    /// Turns on (or off) the headers derived from the events: at finalize the writer sets
    /// SAMPLE_TIME to the smallest and largest SAMPLE time it saw and NRCPUS (available and
    /// online) to the highest CPU seen in a SAMPLE or `sample_id` trailer, plus one. A header
    /// the caller set keeps the caller's value; a file without sample times (or CPUs) gets no
    /// such header. Off by default. Like strict mode it looks at whole records, so records
    /// split across calls are held back until complete, and set inside a record it takes
    /// effect after that record.
    ///
    /// ```
    /// use perf_writer_std::perf_encode::records::{Sample, SampleCpu};
    /// use perf_writer_std::{PerfDataFileWriter, PerfHeaderIndex};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: S::Identifier.or(S::Time).or(S::Cpu),
    ///     ..Default::default()
    /// };
    /// let mut w = PerfDataFileWriter::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.set_headers_from_events(true);
    /// w.add_event_desc(&[1], &attr, "cpu-clock");
    /// for (time, cpu) in [(500, 3), (200, 1)] {
    ///     let s = Sample { identifier: Some(1), time: Some(time), cpu: Some(SampleCpu::new(cpu)), ..Default::default() };
    ///     w.write_sample(perf_abi::misc::USER, &s)?;
    /// }
    /// let file = w.finish()?.into_inner();
    /// assert_eq!(file.len() % 8, 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_headers_from_events(&mut self, on: bool) {
        self.check.set_derive(on);
        self.settle_check();
    }

    /// Puts the derived headers into the session (the caller's own values win).
    pub(crate) fn set_headers_derived_from_events(&mut self) {
        let stats = self.check.stats;
        if let Some((first, last)) = stats.time {
            self.session
                .set_derived(FeatureSlot::SAMPLE_TIME, &SampleTime { first, last });
        }
        if let Some(cpu) = stats.max_cpu {
            let n = cpu.saturating_add(1);
            let nr = NrCpus {
                available: n,
                online: n,
            };
            self.session.set_derived(FeatureSlot::NRCPUS, &nr);
        }
    }
}
