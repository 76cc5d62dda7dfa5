//! Feature headers given as bytes or as plain values: `set_header`, the string headers,
//! the counts, the clocks and the `uname` strings.

use crate::check::switch_kinds::SCHED_SWITCH;
use crate::error::{FeatureError, TracingError};
use crate::host::this_machine;
use crate::model::feature_slot::FeatureSlot;
use crate::model::raw_rule::RawRule;
use crate::output::OutputMode;
use crate::{PerfHeaderIndex, PerfWriter, WriterError};
use perf_abi::feature::{self, Payload};
use perf_abi::{ClockData, NrCpus, SampleTime, CLOCK_DATA_VERSION};
use perf_encode::features::{
    check_format_text, check_header_page, check_printk, check_saved_cmdlines, event_desc_names,
    ClockResolution, TotalMem, TracepointRawRule, TracingDataError, TracingDataParts,
};
use perf_encode::{Endian, HeaderString, StringList};
use std::collections::{BTreeMap, BTreeSet};

/// The RAW rules of a caller's TRACING_DATA's formats by id, (read in strict mode) the ids
/// of its formats, and its byte order.
type GivenFormats = (BTreeMap<u32, RawRule>, Option<BTreeSet<u32>>, Endian);
use tracepoint_decode::PerfSessionInfo;

impl<O: OutputMode> PerfWriter<O> {
    /// The payload set for a feature (empty when unset; EVENT_DESC and TRACING_DATA are
    /// synthesized only at finalize and read empty here unless set).
    pub fn get_header(&self, index: PerfHeaderIndex) -> &[u8] {
        self.model.header(index.0)
    }

    /// Sets (or, with empty `data`, clears) the raw payload of feature `index`, in the
    /// file's byte order.
    ///
    /// A caller's EVENT_DESC or TRACING_DATA is written as given instead of the synthesized
    /// one. DIR_FORMAT belongs only in the `data` file of a directory recording: in a plain
    /// file perf 6.1 drops the features after it.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`FeatureError::BadIndex`] for an index outside
    /// 1..=31; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record; [`FeatureError::BadPayload`] for counts, strings or fields
    /// perf 6.1 would not read
    /// ([`check_feature_payload`](perf_encode::features::check_feature_payload) says which
    /// features are checked and how; BRANCH_STACK, STAT and BPF lists with entries are taken
    /// as given); in strict mode a TRACING_DATA perf 6.1 would not read
    /// ([`TracingError::BadTracingData`], `DataText`,
    /// `FormatText`, `CommonTypeOffset`); [`EventError::ContradictsRecords`](crate::EventError::ContradictsRecords) for a
    /// HEADER_COMPRESSED the COMPRESSED records written before it contradict, or a
    /// TRACING_DATA whose formats the RAW payloads of SAMPLEs still waiting for their
    /// format contradict; in strict mode, after records were written,
    /// [`TracingError::ChangesWrittenFormat`] for a TRACING_DATA set, replaced or cleared
    /// that changes a tracepoint event's format or the byte order of its RAW; in pipe mode
    /// [`TracingError::AfterStart`] for a TRACING_DATA once the stream started (it sent
    /// its tracing data then).
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfHeaderIndex, PerfWriter, WriterError};
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// // PMU_MAPPINGS: a count of one, then nothing.
    /// let err = w.set_header(PerfHeaderIndex(16), &1u32.to_ne_bytes()).unwrap_err();
    /// assert!(matches!(err, WriterError::Feature(perf_writer_std::FeatureError::BadPayload(_))));
    /// assert!(w.get_header(PerfHeaderIndex(16)).is_empty());
    /// # Ok::<(), WriterError>(())
    /// ```
    pub fn set_header(&mut self, index: PerfHeaderIndex, data: &[u8]) -> Result<(), WriterError> {
        let compressed = index.0 == feature::COMPRESSED;
        if compressed {
            let readable =
                crate::check::compressed_check::readable_header(self.model.endian(), data);
            self.check.check_compression_header(readable)?;
        }
        let given_rules = match index.0 == feature::TRACING_DATA && !data.is_empty() {
            true => Some(self.tracing_data_rules(data)?),
            false => None,
        };
        if index.0 == feature::TRACING_DATA {
            // A pipe-mode stream sent its tracing data when it started.
            self.check_formats_accepted()?;
            self.check_written_formats_kept(given_rules.as_ref().map(|(rules, ..)| rules))?;
        }
        if let Some((rules, formats, _)) = &given_rules {
            self.check.check_given_formats(rules)?;
            // Every tracepoint event needs its format there.
            if let Some(ids) = formats {
                self.model.check_formats_among(ids)?;
            }
        }
        let renames = index.0 == feature::EVENT_DESC && self.event_desc_renames_switch_event(data);
        if renames && !self.check.event_desc_rename_allowed() {
            return Err(WriterError::Feature(
                FeatureError::EventDescRenamesSwitchEvent,
            ));
        }
        self.model.set_header(index.0, data)?;
        if renames {
            self.check.event_desc_renamed();
        }
        if compressed && !data.is_empty() {
            self.check.compression_header_set();
        }
        if let Some((rules, formats, order)) = given_rules {
            self.model.set_given_rules(rules, formats, order);
            self.check.formats_given();
        }
        Ok(())
    }

    /// In strict mode, after records were written, a caller's TRACING_DATA of `rules`
    /// (`None`: cleared) keeps the RAW rule of every tracepoint event that had one: the
    /// SAMPLEs written were checked by it, and perf reads them all by the new one.
    fn check_written_formats_kept(
        &self,
        rules: Option<&BTreeMap<u32, RawRule>>,
    ) -> Result<(), WriterError> {
        let written = self.out.as_ref().is_some_and(|o| o.took_records());
        match self.check.strict() && written {
            true => match self.model.raw_rule_changed(rules) {
                Some(config) => Err(WriterError::Tracing(TracingError::ChangesWrittenFormat {
                    config,
                })),
                None => Ok(()),
            },
            false => Ok(()),
        }
    }

    /// The RAW rules of the event formats of a caller's TRACING_DATA `data`, by id, in its
    /// byte order (perf reads RAW payloads in it), and in strict mode the ids of its formats.
    /// In strict mode it must be one perf 6.1 reads: its framing, and its texts as the
    /// synthesized ones are checked (every format's `common_type` at one offset); in pipe
    /// mode nothing after what perf reads but padding to 8, and no kallsyms. Out of strict
    /// mode, the rules of the formats it reads (none when it cannot read the framing).
    fn tracing_data_rules(&self, data: &[u8]) -> Result<GivenFormats, WriterError> {
        let strict = self.check.strict();
        let bad = |e| WriterError::Tracing(TracingError::BadTracingData(e));
        let parts = match TracingDataParts::parse(data) {
            Ok(parts) => parts,
            Err(e) if strict => return Err(bad(e)),
            Err(_) => return Ok((BTreeMap::new(), None, self.model.endian())),
        };
        if strict {
            self.check_tracing_data_parts(&parts, data.len())?;
        }
        // perf reads RAW payloads in the tracing data's byte order, which a converted file
        // may keep from the recording.
        let order = match parts.big_endian {
            true => Endian::Big,
            false => Endian::Little,
        };
        let (mut rules, mut ids, mut offset) = (BTreeMap::new(), BTreeSet::new(), None);
        for (_, f) in parts.events() {
            let summary = match check_format_text(f) {
                Ok(summary) => summary,
                Err(e) if strict => return Err(WriterError::Tracing(TracingError::FormatText(e))),
                Err(_) => continue,
            };
            let at = summary.common_type_offset;
            match offset {
                Some(expected) if strict && expected != at => {
                    return Err(WriterError::Tracing(TracingError::CommonTypeOffset {
                        offset: at,
                        expected,
                    }))
                }
                _ => offset = Some(at),
            }
            let rule = TracepointRawRule::from_summary(&summary);
            ids.insert(u32::from(rule.common_type));
            rules.insert(u32::from(rule.common_type), RawRule { rule, order });
        }
        Ok((rules, strict.then_some(ids), order))
    }

    /// What strict mode asks of a caller's TRACING_DATA `parts` (of a payload of `len`
    /// bytes) but its event formats: see [`tracing_data_rules`](Self::tracing_data_rules).
    fn check_tracing_data_parts(
        &self,
        parts: &TracingDataParts<'_>,
        len: usize,
    ) -> Result<(), WriterError> {
        let bad = |e| WriterError::Tracing(TracingError::BadTracingData(e));
        // perf skips kallsyms with lseek, which a pipe does not do.
        if O::PIPE && !parts.kallsyms.is_empty() {
            return Err(bad(TracingDataError {
                expected: "no kallsyms in a pipe stream (perf 6.1 skips them by seeking)",
                offset: 0,
            }));
        }
        // The record pads the payload to 8; perf reads what it parses, then the padding
        // to 8 after that, and refuses the stream unless that ends the record.
        if O::PIPE && parts.len.div_ceil(8) != len.div_ceil(8) {
            return Err(bad(TracingDataError {
                expected: "the end of the payload (perf reads a pipe stream's to its end)",
                offset: parts.len,
            }));
        }
        let text = |part| move |error| WriterError::Tracing(TracingError::DataText { part, error });
        check_header_page(parts.header_page).map_err(text("header_page"))?;
        check_printk(parts.printk).map_err(text("printk"))?;
        if let Some(cmdline) = parts.saved_cmdline {
            check_saved_cmdlines(cmdline).map_err(text("saved_cmdline"))?;
        }
        for f in parts.ftraces() {
            check_format_text(f).map_err(text("ftrace format"))?;
        }
        Ok(())
    }

    /// The EVENT_DESC `data`, set, would give a described event the name
    /// `sched:sched_switch` or take it from one (by perf's name of each place, see
    /// [`TraceModel::renames_switch_event`]), or names so a
    /// place no description has yet.
    ///
    /// [`TraceModel::renames_switch_event`]: crate::model::trace_model::TraceModel::renames_switch_event
    fn event_desc_renames_switch_event(&self, data: &[u8]) -> bool {
        let m = &self.model;
        let renames =
            m.descs().iter().enumerate().any(|(i, d)| {
                m.renames_switch_event(Some(data), i, (m.entry(d).name, &d.attr, None))
            });
        let mut beyond = event_desc_names(data, m.endian()).skip(m.descs().len());
        renames || beyond.any(|n| n == SCHED_SWITCH.as_bytes())
    }

    /// Sets a string feature: HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID, or CMDLINE.
    ///
    /// CMDLINE is written as a list of this one string, the form perf reads. The value ends
    /// at its first NUL.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`FeatureError::NotAString`] for other features,
    /// [`WriterError::Encode`] for a value of 2 GiB or more,
    /// [`FeatureError::TooLargeForPipe`] for one too long for a pipe-mode record.
    pub fn set_string_header(
        &mut self,
        index: PerfHeaderIndex,
        data: &[u8],
    ) -> Result<(), WriterError> {
        match feature::info(index.0).map(|f| f.payload) {
            Some(Payload::StringList) => self.model.set_encoded(index.0, &StringList::new(&[data])),
            Some(Payload::String) => self.model.set_encoded(index.0, &HeaderString::new(data)),
            _ => Err(WriterError::Feature(FeatureError::NotAString(index.0))),
        }
    }

    /// Sets CMDLINE to the command line `args` (perf shows them joined by spaces).
    ///
    /// # Errors
    ///
    /// As [`set_string_header`](Self::set_string_header), for the list.
    pub fn set_cmdline_header<S: AsRef<[u8]>>(&mut self, args: &[S]) -> Result<(), WriterError> {
        self.model
            .set_encoded(feature::CMDLINE, &StringList::new(args))
    }

    /// Sets NRCPUS.
    pub fn set_nr_cpus_header(&mut self, available: u32, online: u32) {
        self.model
            .set_fixed(FeatureSlot::NRCPUS, &NrCpus { available, online });
    }

    /// Sets SAMPLE_TIME: time stamps of the first and last sample.
    pub fn set_sample_time_header(&mut self, first: u64, last: u64) {
        self.model
            .set_fixed(FeatureSlot::SAMPLE_TIME, &SampleTime { first, last });
    }

    /// Sets TOTAL_MEM, in kB.
    pub fn set_total_mem_header(&mut self, kib: u64) {
        self.model
            .set_fixed(FeatureSlot::TOTAL_MEM, &TotalMem { kib });
    }

    /// Sets CLOCKID for the clock `clockid`, as this machine's resolution of that clock.
    ///
    /// perf reads this feature as the clock's resolution in ns, so the writer stores this
    /// machine's `clock_getres(clockid)`. When this machine does not know the clock, the
    /// feature is cleared rather than filled with a wrong value; use
    /// [`set_clock_resolution_header`](Self::set_clock_resolution_header) to give the
    /// resolution of the recording machine.
    pub fn set_clockid_header(&mut self, clockid: u32) {
        match this_machine::clock_resolution_ns(clockid) {
            Some(ns) => self.set_clock_resolution_header(ns),
            None => self.model.clear_header(FeatureSlot::CLOCKID),
        }
    }

    /// Sets CLOCKID to a clock resolution of `ns` nanoseconds.
    pub fn set_clock_resolution_header(&mut self, ns: u64) {
        self.model
            .set_fixed(FeatureSlot::CLOCKID, &ClockResolution { ns });
    }

    /// Sets CLOCK_DATA: `wall_clock_ns` and `clockid_time_ns` read at the same instant.
    pub fn set_clock_data_header(
        &mut self,
        clockid: u32,
        wall_clock_ns: u64,
        clockid_time_ns: u64,
    ) {
        let data = ClockData {
            version: CLOCK_DATA_VERSION,
            clockid,
            wall_clock_ns,
            clockid_time_ns,
        };
        self.model.set_fixed(FeatureSlot::CLOCK_DATA, &data);
    }

    /// Sets or clears CLOCKID and CLOCK_DATA from a session's clock.
    ///
    /// CLOCKID gets the resolution of `clock_id()` (cleared when it is `u32::MAX` or unknown
    /// here), CLOCK_DATA the clock offset (cleared when unknown).
    pub fn set_session_info_headers(&mut self, session_info: &PerfSessionInfo) {
        let clock_id = session_info.clock_id();
        if clock_id == u32::MAX {
            self.model.clear_header(FeatureSlot::CLOCKID);
        } else {
            self.set_clockid_header(clock_id);
        }
        if session_info.clock_offset_known() {
            let (wall_clock_ns, clockid_time_ns) = session_info.get_clock_data();
            self.set_clock_data_header(clock_id, wall_clock_ns, clockid_time_ns);
        } else {
            self.model.clear_header(FeatureSlot::CLOCK_DATA);
        }
    }

    /// Sets HOSTNAME, OSRELEASE and ARCH (from `uname`'s nodename, release and machine).
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] when a value is 2 GiB or longer; in pipe mode,
    /// [`FeatureError::TooLargeForPipe`] for a value too long for a HEADER_FEATURE record.
    /// A refusal changes none of the three.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfHeaderIndex, PerfWriter};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_utsname_headers(b"vm", b"6.1.0", b"x86_64")?;
    /// assert_eq!(&w.get_header(PerfHeaderIndex::Arch)[4..10], b"x86_64");
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_utsname_headers(
        &mut self,
        hostname: &[u8],
        os_release: &[u8],
        arch: &[u8],
    ) -> Result<(), WriterError> {
        let values = [
            (feature::HOSTNAME, hostname),
            (feature::OSRELEASE, os_release),
            (feature::ARCH, arch),
        ];
        let mut encoded = Vec::with_capacity(3);
        for (index, v) in values {
            encoded.push((
                index,
                perf_encode::to_vec(&HeaderString::new(v), self.model.endian())?,
            ));
        }
        // All three are checked before any is set: a refusal changes nothing.
        for (index, bytes) in &encoded {
            self.model.check_header(*index, bytes)?;
        }
        for (index, bytes) in encoded {
            self.model.set_header(index, &bytes)?;
        }
        Ok(())
    }
}
