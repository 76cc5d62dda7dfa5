//! Event descriptions: events with and without a tracefs format.

use crate::error::{EventError, FeatureError, TracingError};
use crate::host::this_machine;
use crate::output::OutputMode;
use crate::{PerfWriter, WriterError};
use perf_encode::features::{check_format_text, TracepointRawRule};
use perf_encode::Endian;
use std::sync::Arc;
use tracepoint_decode::{PerfEventAttr, PerfEventFormat};

impl<O: OutputMode> PerfWriter<O> {
    /// Refuses tracepoint formats (and the tracing data's other parts) once a pipe-mode
    /// stream sent its tracing data.
    pub(super) fn check_formats_accepted(&self) -> Result<(), WriterError> {
        match &self.out {
            Some(out) if !out.accepts_new_tracepoint_formats() => {
                Err(WriterError::Tracing(TracingError::AfterStart))
            }
            _ => Ok(()),
        }
    }

    /// Adds an event without a tracefs format: its attr, name and sample ids.
    ///
    /// `attr.size` is ignored: every attr of the file is written with one size. A
    /// tracepoint attr (`config` its tracefs id) added here needs its format in the file:
    /// add it with another description of the same tracepoint
    /// ([`add_tracepoint_event_desc_from_text`](Self::add_tracepoint_event_desc_from_text)),
    /// or set TRACING_DATA with [`set_header`](Self::set_header). Until then finalize (and in
    /// pipe mode the first event) fails with [`EventError::MissingTracepointFormat`], and
    /// succeeds once the format was added: that refusal is retryable, nothing is lost.
    ///
    /// # Errors
    ///
    /// Nothing is added on error: [`WriterError::Encode`] for a name of 64 KiB or more or
    /// with a NUL; [`EventError::DuplicateId`] for an id another event (or this one) owns;
    /// [`EventError::TooMany`]; [`EventError::Indistinguishable`] for an attr
    /// perf could not tell from another's (several events, one without ids or with its
    /// sample id elsewhere than the first's; add IDENTIFIER to every `sample_type`). A perf
    /// stat session has such events, and perf reads them in a stat file (HEADER_STAT) or a
    /// stream: strict mode takes them once [`set_stat_header`](Self::set_stat_header) was
    /// called and before any record, then refuses the SAMPLEs perf would look their event
    /// up for
    /// ([`RecordProblem::EventsNotToldApart`](crate::RecordProblem::EventsNotToldApart)),
    /// and a file's finish while HEADER_STAT is cleared; [`EventError::ContradictsRecords`] when records
    /// written before it contradict it (strict mode). In pipe mode also
    /// [`EventError::NameTooLongForPipe`], [`EventError::TooManyIdsForPipe`],
    /// [`EventError::RawInBigEndianPipe`] (strict mode, a big-endian stream), and
    /// [`EventError::MissingTracepointFormat`] for a tracepoint whose format can no longer
    /// reach the stream (it started without it), and in strict mode for any tracepoint once
    /// the stream sent its tracing data (perf gives formats only to the events described
    /// before it).
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter, WriterError};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: PerfEventAttrSampleType::Identifier,
    ///     ..Default::default()
    /// };
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.add_event_desc(&[1], &attr, "cpu-clock")?;
    /// assert_eq!(w.add_event_desc(&[1], &attr, "again"), Err(WriterError::Event(perf_writer_std::EventError::DuplicateId(1))));
    /// # Ok::<(), WriterError>(())
    /// ```
    pub fn add_event_desc(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
    ) -> Result<(), WriterError> {
        let attr = perf_abi::PerfEventAttr::from(attr);
        if attr.type_ == perf_abi::attr::TYPE_TRACEPOINT && self.check_formats_accepted().is_err() {
            // The stream's tracing data went out without this format; or with it, but perf
            // gives formats to the events it knows when it reads the tracing data, and
            // crashes on the SAMPLEs of one described after (strict mode).
            let sent = self.model.has_own_tracing_data()
                || u32::try_from(attr.config).is_ok_and(|id| self.model.has_tracepoint(id));
            if !sent || self.check.strict() {
                return Err(WriterError::Event(EventError::MissingTracepointFormat {
                    config: attr.config,
                }));
            }
        }
        self.add_desc_checked(ids, attr, name, None)
    }

    /// Adds a description to the model once the records that wait for it agree with it
    /// (strict mode; see [`set_strict`](Self::set_strict)).
    fn add_desc_checked(
        &mut self,
        ids: &[u64],
        attr: perf_abi::PerfEventAttr,
        name: &str,
        tracepoint: Option<(&Arc<PerfEventFormat>, Option<&[u8]>)>,
    ) -> Result<(), WriterError> {
        let raw = attr.sample_type & perf_abi::sample_type::RAW != 0;
        if O::PIPE && raw && self.model.endian() == Endian::Big && self.check.strict() {
            return Err(WriterError::Event(EventError::RawInBigEndianPipe));
        }
        // With a caller's EVENT_DESC perf names the event at this place by it (or, named
        // not there, by its format): one that gives it the name sched:sched_switch or takes
        // it is judged as a rename.
        let event_desc = self.model.header_if_set(perf_abi::feature::EVENT_DESC);
        let place = self.model.descs().len();
        let format = tracepoint.map(|(f, _)| &**f);
        let renames = self
            .model
            .renames_switch_event(event_desc, place, (name, &attr, format));
        if renames && !self.check.event_desc_rename_allowed() {
            return Err(WriterError::Feature(
                FeatureError::EventDescRenamesSwitchEvent,
            ));
        }
        if self.check.strict() {
            self.model.check_given_format(&attr)?;
        }
        let check = &self.check;
        // Events perf cannot tell apart are a perf stat session's: strict mode takes them
        // once HEADER_STAT says it is one and while no record was written, and refuses the
        // records that would need telling them apart.
        let untold_allowed = self.check.strict()
            && self.model.is_stat_session()
            && !self.out.as_ref().is_some_and(|o| o.took_records())
            && !self.check.inside_record();
        let resolution =
            self.model
                .add_desc(ids, attr, name, tracepoint, untold_allowed, |model, new| {
                    check.check_description(model, new)
                })?;
        self.check.description_added(&self.model, resolution);
        if renames {
            self.check.event_desc_renamed();
        }
        Ok(())
    }

    /// The rule the RAW payload of a SAMPLE of the event that owns sample id `id` must follow
    /// (`None`: that event is no tracepoint, or its format is not known: not added yet, or
    /// not in the caller's own TRACING_DATA, whose formats perf reads when it is set).
    ///
    /// [`write_sample`](Self::write_sample) applies it; callers that build RAW bytes themselves
    /// can too, in the byte order [`raw_endian`](Self::raw_endian) gives.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};
    /// let text = "name: tick\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\nprint fmt: \"tick\"\n";
    /// let attr = PerfEventAttr { attr_type: PerfEventAttrType::Tracepoint, config: 7, sample_type: S::Identifier.or(S::Raw), ..Default::default() };
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.add_tracepoint_event_desc_from_text(&[1], &attr, "x:tick", "x", text)?;
    /// let rule = w.tracepoint_raw_rule(Some(1)).unwrap();
    /// let mut raw = [0u8; 8];
    /// assert!(rule.check(&raw, w.raw_endian()).is_err()); // common_type left 0
    /// raw[..2].copy_from_slice(&w.raw_endian().u16_bytes(7));
    /// assert!(rule.check(&raw, w.raw_endian()).is_ok());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn tracepoint_raw_rule(&self, id: Option<u64>) -> Option<TracepointRawRule> {
        self.model.tracepoint_raw_rule(id).map(|r| r.rule)
    }

    /// The byte order perf 6.1 reads RAW payloads in, which
    /// [`tracepoint_raw_rule`](Self::tracepoint_raw_rule)'s rules are checked in: that of a
    /// TRACING_DATA set with [`set_header`](Self::set_header) (a converted file may keep the
    /// recording's order there and in its RAW payloads), else the output's.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// let w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// assert_eq!(w.raw_endian(), w.endian());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn raw_endian(&self) -> perf_encode::Endian {
        self.model.raw_order()
    }

    /// True when a tracepoint format with id `common_type` was added.
    pub fn has_tracepoint_event_desc(&self, common_type: u32) -> bool {
        self.model.has_tracepoint(common_type)
    }

    /// Adds a tracepoint event: its attr, name, sample ids and tracefs format.
    ///
    /// The format is written to the synthesized TRACING_DATA as `PerfEventFormat::write_to`
    /// renders it, at finalize; it is checked now, without rendering, by
    /// [`check_parsed_format`](perf_encode::features::check_parsed_format).
    ///
    /// # Errors
    ///
    /// Nothing is added on error. The refusals of [`add_event_desc`](Self::add_event_desc),
    /// and [`TracingError::DuplicateFormat`] when a format with the same id was added,
    /// [`EventError::TracepointConfigMismatch`] when a tracepoint attr's `config` is not
    /// the format's id, [`TracingError::BadSystemName`] and [`TracingError::FormatText`] for a
    /// system name or text (as `write_to` renders it) perf cannot read,
    /// [`TracingError::CommonTypeOffset`] when its `common_type` is not where the formats
    /// added before have it, and in pipe mode [`TracingError::AfterStart`] after the
    /// stream started.
    pub fn add_tracepoint_event_desc(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
        format: &Arc<PerfEventFormat>,
    ) -> Result<(), WriterError> {
        self.check_formats_accepted()?;
        self.add_desc_checked(
            ids,
            perf_abi::PerfEventAttr::from(attr),
            name,
            Some((format, None)),
        )
    }

    /// Adds a tracepoint event from its tracefs `format` text and returns the parsed format.
    ///
    /// The text is kept byte for byte in the TRACING_DATA (perf then sees exactly what
    /// tracefs said). `system` is the directory under `events/`.
    ///
    /// # Errors
    ///
    /// Nothing is added on error. The refusals of
    /// [`add_tracepoint_event_desc`](Self::add_tracepoint_event_desc), with the text checked
    /// before any parser reads it: [`TracingError::FormatText`] names the line and the
    /// problem ([`check_format_text`]);
    /// [`TracingError::BadFormatText`] when the parser still refuses it.
    ///
    /// ```
    /// use perf_writer_std::{perf_encode::features::FormatTextProblem, FileOutput, PerfWriter, WriterError};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrType};
    /// let attr = PerfEventAttr { attr_type: PerfEventAttrType::Tracepoint, config: 7, ..Default::default() };
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let err = w.add_tracepoint_event_desc_from_text(&[1], &attr, "x:y", "x", "name: y\nID: 99999999999\n").unwrap_err();
    /// assert!(matches!(err, WriterError::Tracing(perf_writer_std::TracingError::FormatText(e)) if e.problem == FormatTextProblem::IdOutOfRange));
    /// ```
    pub fn add_tracepoint_event_desc_from_text(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
        system: &str,
        format_text: &str,
    ) -> Result<Arc<PerfEventFormat>, WriterError> {
        self.check_formats_accepted()?;
        crate::model::trace_model::check_system_name(system)?;
        // Before the parser: tracepoint_decode 0.5 overflows on numbers above u32::MAX.
        check_format_text(format_text.as_bytes()).map_err(TracingError::FormatText)?;
        let long_is_64 = match self.model.tracing.long_size {
            0 => this_machine::long_size() == 8,
            n => n == 8,
        };
        let format = PerfEventFormat::parse(long_is_64, system, format_text)
            .ok_or(WriterError::Tracing(TracingError::BadFormatText))?;
        let format = Arc::new(format);
        self.add_desc_checked(
            ids,
            perf_abi::PerfEventAttr::from(attr),
            name,
            Some((&format, Some(format_text.as_bytes()))),
        )?;
        Ok(format)
    }
}
