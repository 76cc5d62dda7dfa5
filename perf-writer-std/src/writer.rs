//! [`PerfWriter`]: the writer, in file mode ([`PerfDataFileWriter`]) or pipe mode
//! ([`PerfPipeWriter`]). Settings and event descriptions live in a session shared by both
//! modes; the mode decides how they reach the stream.

use crate::feature_slot::FeatureSlot;
use crate::output_mode::{OutputMode, OwnRecord};
use crate::record_check::RecordCheck;
use crate::session::Session;
use crate::{host, FileOutput, PerfHeaderIndex, PipeOutput, WriterError};
use perf_abi::{feature, ClockData, NrCpus, SampleTime, CLOCK_DATA_VERSION};
use perf_encode::features::{ClockResolution, TotalMem};
use perf_encode::{Endian, HeaderString, StringList};
use std::fmt;
use std::fs::File;
use std::io::{self, IoSlice};
use std::sync::Arc;
use tracepoint_decode::{PerfEventAttr, PerfEventFormat, PerfSessionInfo};

/// Largest blob the tracing-data setters accept (below 2 GiB, as perf reads sizes as `int`).
const MAX_BLOB: usize = perf_encode::features::tracing_data::MAX_BLOB_LEN;

fn io_err(e: impl Into<WriterError>) -> io::Error {
    io::Error::from(e.into())
}

/// Writes `perf.data` in file mode: records stream into the data section, and
/// [`finalize_and_close`](PerfWriter::finalize_and_close) (or [`finish`](PerfWriter::finish))
/// appends the feature sections, the ids and the attrs, then writes the real file header.
///
/// Its methods have the names and signatures of `tracepoint_perf` 0.5's writer, so a
/// program written for it compiles after changing its `use` line; the differences are
/// fixes (see the README's migration notes). Output is buffered; event bytes are checked to
/// be whole records (sizes multiples of 8); every encoding goes through `perf-encode`.
///
/// ```
/// use perf_writer_std::{PerfDataFileWriter, PerfHeaderIndex};
/// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
///
/// let attr = PerfEventAttr {
///     attr_type: PerfEventAttrType::Software,
///     sample_type: PerfEventAttrSampleType::Identifier.or(PerfEventAttrSampleType::Time),
///     ..Default::default()
/// };
/// let mut w = PerfDataFileWriter::from_writer(std::io::Cursor::new(Vec::new()))?;
/// assert!(w.add_event_desc(&[1], &attr, "cpu-clock"));
/// assert!(w.set_string_header(PerfHeaderIndex::Hostname, b"vm"));
/// // A SAMPLE record: header {type 9, misc 2 (user), size 24}, then IDENTIFIER and TIME.
/// let mut sample = vec![9, 0, 0, 0, 2, 0, 24, 0];
/// sample.extend_from_slice(&1u64.to_ne_bytes());
/// sample.extend_from_slice(&1000u64.to_ne_bytes());
/// w.write_event_data(&sample)?;
/// let bytes = w.finish()?.into_inner();
/// assert_eq!(&bytes[..8], b"PERFILE2");
/// # Ok::<(), std::io::Error>(())
/// ```
pub type PerfDataFileWriter<W = File> = PerfWriter<FileOutput<W>>;

/// Writes `perf.data` in pipe mode, over any `Write` (a pipe, a socket, stdout): every header
/// is a record, sent before the first event that needs it, so the stream is readable as far
/// as it got — `perf script -i -` reads it live, and a writer killed mid-way leaves every
/// flushed event readable.
///
/// It has the file writer's methods; switching modes is a change of type. Event descriptions
/// may be added after events were written (each gets a HEADER_ATTR and an EVENT_UPDATE name
/// record before the next event); tracepoint formats must come before the first event,
/// because perf reads the tracing data once. Feature setters called later are sent as
/// HEADER_FEATURE records; perf 6.1 keeps them but its `--header-only` view shows the
/// features sent before the first event.
///
/// A big-endian stream carries no HEADER_FEATURE records: perf 6.1 reads their `feat_id`
/// without swapping it and then fails. Names still arrive (EVENT_UPDATE). perf 6.1 also
/// misreads CPU and RAW sample fields of byte-swapped pipe streams (it does not mark their
/// events as swapped); that is perf's limitation, not the stream's.
///
/// ```
/// use perf_writer_std::PerfPipeWriter;
/// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
///
/// let attr = PerfEventAttr {
///     attr_type: PerfEventAttrType::Software,
///     sample_type: PerfEventAttrSampleType::Identifier,
///     ..Default::default()
/// };
/// let mut w = PerfPipeWriter::from_writer(Vec::new())?;
/// assert!(w.add_event_desc(&[1], &attr, "cpu-clock"));
/// w.write_event_data(&[9, 0, 0, 0, 2, 0, 16, 0, 1, 0, 0, 0, 0, 0, 0, 0])?; // SAMPLE, id 1
/// w.flush()?; // everything so far is readable now
/// let stream = w.finish()?;
/// assert_eq!(&stream[..16], b"PERFILE2\x10\0\0\0\0\0\0\0");
/// # Ok::<(), std::io::Error>(())
/// ```
pub type PerfPipeWriter<W = File> = PerfWriter<PipeOutput<W>>;

/// The writer, generic over its [`OutputMode`]; use it as [`PerfDataFileWriter`] or
/// [`PerfPipeWriter`].
pub struct PerfWriter<O: OutputMode> {
    /// Settings and descriptions (other modules add typed setters on top of them).
    pub(crate) session: Session,
    /// The open output, if any.
    pub(crate) out: Option<O>,
    /// Strict mode and the statistics derived from the events.
    pub(crate) check: RecordCheck,
    /// Reused by the typed record methods to encode a record.
    pub(crate) scratch: Vec<u8>,
}

impl<O: OutputMode> fmt::Debug for PerfWriter<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PerfWriter")
            .field("endian", &self.session.endian())
            .field("event_descs", &self.session.descs().len())
            .field("file_pos", &self.file_pos())
            .field("strict", &self.check.strict())
            .finish()
    }
}

impl<O: OutputMode<Stream = File>> PerfWriter<O> {
    /// A writer with no output open, writing in this machine's byte order.
    pub fn new() -> Self {
        Self::new_with_endian(Endian::NATIVE)
    }

    /// A writer with no output open that writes in `endian`. Event bytes given to
    /// [`write_event_data`](Self::write_event_data) must be in that byte order too.
    pub fn new_with_endian(endian: Endian) -> Self {
        PerfWriter::closed(endian)
    }

    /// Creates (truncates) the file at `path` and starts the output in it (perf reads
    /// pipe-mode files from a path too). An output already open is closed first without
    /// finalizing (as `close_no_finalize`), which discards its settings; settings made while
    /// no output was open are kept for the new one, also when creating the file fails.
    pub fn create_file(&mut self, path: &str) -> io::Result<()> {
        self.open_output(File::create(path)?)
    }
}

impl<O: OutputMode<Stream = File>> Default for PerfWriter<O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: OutputMode> PerfWriter<O> {
    /// A writer whose output is `stream`, already started, in this machine's byte order.
    /// The writer buffers the stream itself. A file-mode file begins at the stream's current
    /// position; a pipe-mode stream gets nothing until the first event, flush or finish.
    pub fn from_writer(stream: O::Stream) -> Result<Self, WriterError> {
        Self::from_writer_with_endian(stream, Endian::NATIVE)
    }

    /// A writer whose output is `stream`, already started, writing in `endian`.
    pub fn from_writer_with_endian(stream: O::Stream, endian: Endian) -> Result<Self, WriterError> {
        let mut writer = PerfWriter::closed(endian);
        writer.open_writer(stream)?;
        Ok(writer)
    }

    /// A writer with no output, strict in debug builds.
    fn closed(endian: Endian) -> Self {
        PerfWriter {
            session: Session::new(endian),
            out: None,
            check: RecordCheck::new(true),
            scratch: Vec::new(),
        }
    }
}

impl<O: OutputMode> PerfWriter<O> {
    /// Starts output on `stream` (see [`create_file`](PerfDataFileWriter::create_file) for
    /// what happens to an output already open and to settings).
    pub fn open_writer(&mut self, stream: O::Stream) -> Result<(), WriterError> {
        Ok(self.open_output(stream)?)
    }

    /// [`open_writer`](Self::open_writer) for the `io::Result` methods.
    fn open_output(&mut self, stream: O::Stream) -> io::Result<()> {
        if self.out.is_some() {
            self.close_no_finalize();
        }
        self.out = Some(O::open(stream, self.session.endian())?);
        self.check.reset_output();
        self.start_compression()
    }

    /// The byte order this writer writes.
    pub fn endian(&self) -> Endian {
        self.session.endian()
    }

    /// Closes the output (if any) without finalizing: a file is left unreadable, a pipe
    /// stream ends where it is (buffered bytes are written). Forgets every setting and event
    /// description.
    pub fn close_no_finalize(&mut self) {
        self.out = None;
        self.session.reset();
        self.check.reset_output();
    }

    /// Finalizes the output and closes it. See [`finish`](Self::finish).
    pub fn finalize_and_close(&mut self) -> io::Result<()> {
        self.finish_output().map(drop)
    }

    /// Finalizes the output and returns its stream, flushed (for a `Cursor`, its bytes).
    ///
    /// File mode writes after the data section the feature section table and payloads
    /// (EVENT_DESC and, when a tracepoint event exists, TRACING_DATA synthesized unless set by
    /// the caller), the ids and the attrs (all with one size); then the file header. Pipe mode
    /// sends what was not sent yet and flushes. An output with no event description gets a
    /// placeholder dummy event, and an empty file one FINISHED_ROUND record, so that every
    /// reader opens it as an empty trace.
    ///
    /// On error nothing is lost: the writer stays open with its data and settings, and
    /// `finish` can be called again (after more events, or a fixed setting).
    pub fn finish(&mut self) -> Result<O::Stream, WriterError> {
        Ok(self.finish_output()?)
    }

    /// [`finish`](Self::finish) for the `io::Result` methods.
    fn finish_output(&mut self) -> io::Result<O::Stream> {
        if self.out.is_none() {
            return Err(io_err(WriterError::NotOpen));
        }
        if self.check.inside_record() {
            return Err(io_err(WriterError::IncompleteRecord));
        }
        if self.check.derive() {
            self.set_headers_derived_from_events();
        }
        self.finish_compression()?;
        let out = self
            .out
            .as_mut()
            .ok_or_else(|| io_err(WriterError::NotOpen))?;
        out.finalize(&self.session)?;
        let out = self
            .out
            .take()
            .ok_or_else(|| io_err(WriterError::NotOpen))?;
        self.session.reset();
        self.check.reset_output();
        out.into_stream()
    }

    /// Writes out everything buffered. In pipe mode the stream is then readable up to here;
    /// in file mode the file stays unreadable until finalized.
    pub fn flush(&mut self) -> Result<(), WriterError> {
        match self.out.as_mut() {
            Some(out) => Ok(out.flush(&self.session)?),
            None => Err(WriterError::NotOpen),
        }
    }

    /// Stream position where the next event byte goes, or `None` when no output is open.
    pub fn file_pos(&self) -> Option<u64> {
        let held_back = self.check.held_back() as u64;
        self.out
            .as_ref()
            .map(|o| o.position().saturating_add(held_back))
    }

    /// Appends records. `data` holds records in the output's byte order
    /// (`perf_event_header` then payload, sizes multiples of 8); a record may be split across
    /// calls. Bytes that are not records are refused with nothing written.
    ///
    /// An id in a record must belong to an event description added before finalize (in pipe
    /// mode: before the record).
    #[inline]
    pub fn write_event_data(&mut self, data: &[u8]) -> io::Result<()> {
        // Inline: a SAMPLE like the last checked one, or the unchecked path; the rest (the
        // full check, errors) out of line.
        match self.out.as_mut() {
            Some(out)
                if !self.check.active() || self.check.is_like_last_sample(&self.session, data) =>
            {
                out.write_records(&self.session, data)
            }
            _ => self.write_event_data_checked(data),
        }
    }

    /// [`write_event_data`](Self::write_event_data) through the record check (strict mode,
    /// derived headers), or without an output.
    #[inline(never)]
    fn write_event_data_checked(&mut self, data: &[u8]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => match self.check.write_whole_record(&self.session, out, data) {
                Some(written) => written,
                None => self.check.write(&self.session, out, &[data]).map(drop),
            },
            None => Err(io_err(WriterError::NotOpen)),
        }
    }

    /// Appends the concatenation of `bufs` (see [`write_event_data`](Self::write_event_data));
    /// returns the number of bytes written, always all of them.
    pub fn write_event_data_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        match self.out.as_mut() {
            Some(out) if !self.check.active() => out.write_records_vectored(&self.session, bufs),
            Some(out) => self.check.write(&self.session, out, bufs),
            None => Err(io_err(WriterError::NotOpen)),
        }
    }

    /// Appends a FINISHED_INIT record: the records describing the initial system state (COMM,
    /// MMAP, ID_INDEX, THREAD_MAP, CPU_MAP…) are all written.
    pub fn write_finished_init(&mut self) -> io::Result<()> {
        if self.check.inside_record() {
            return Err(io_err(WriterError::IncompleteRecord));
        }
        match self.out.as_mut() {
            Some(out) => out.write_own_record(&self.session, OwnRecord::FinishedInit),
            None => Err(io_err(WriterError::NotOpen)),
        }
    }

    /// Appends a FINISHED_ROUND record: no record before it is newer than one after it.
    pub fn write_finished_round(&mut self) -> io::Result<()> {
        if self.check.inside_record() {
            return Err(io_err(WriterError::IncompleteRecord));
        }
        match self.out.as_mut() {
            Some(out) => out.write_own_record(&self.session, OwnRecord::FinishedRound),
            None => Err(io_err(WriterError::NotOpen)),
        }
    }

    fn check_formats_accepted(&self) -> Result<(), WriterError> {
        match &self.out {
            Some(out) if !out.accepts_new_tracepoint_formats() => {
                Err(WriterError::FormatAfterStart)
            }
            _ => Ok(()),
        }
    }

    /// The payload set for a feature (empty when unset; EVENT_DESC and TRACING_DATA are
    /// synthesized only at finalize and read empty here unless set).
    pub fn get_header(&self, index: PerfHeaderIndex) -> &[u8] {
        self.session.header(index.0)
    }

    /// Sets (or, with empty `data`, clears) the raw payload of feature `index` (1..=31), in
    /// the file's byte order. A caller's EVENT_DESC or TRACING_DATA is written as given instead
    /// of the synthesized one. Returns false for index 0 or above 31.
    pub fn set_header(&mut self, index: PerfHeaderIndex, data: &[u8]) -> bool {
        self.session.set_header(index.0, data).is_ok()
    }

    /// Sets a string feature: HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID, or CMDLINE
    /// (written as a list of this one string, the form perf reads). The value ends at its
    /// first NUL. Returns false for other features or a value of 2 GiB or more.
    pub fn set_string_header(&mut self, index: PerfHeaderIndex, data: &[u8]) -> bool {
        self.try_set_string_header(index, data).is_ok()
    }

    /// [`set_string_header`](Self::set_string_header) with the reason of a refusal.
    pub fn try_set_string_header(
        &mut self,
        index: PerfHeaderIndex,
        data: &[u8],
    ) -> Result<(), WriterError> {
        match index.0 {
            feature::CMDLINE => self.session.set_encoded(index.0, &StringList::new(&[data])),
            feature::HOSTNAME
            | feature::OSRELEASE
            | feature::VERSION
            | feature::ARCH
            | feature::CPUDESC
            | feature::CPUID => self.session.set_encoded(index.0, &HeaderString::new(data)),
            other => Err(WriterError::NotAStringFeature(other)),
        }
    }

    /// Sets CMDLINE to the command line `args` (perf shows them joined by spaces).
    pub fn set_cmdline_header<S: AsRef<[u8]>>(&mut self, args: &[S]) -> Result<(), WriterError> {
        self.session
            .set_encoded(feature::CMDLINE, &StringList::new(args))
    }

    /// Sets NRCPUS.
    pub fn set_nr_cpus_header(&mut self, available: u32, online: u32) {
        self.session
            .set_fixed(FeatureSlot::NRCPUS, &NrCpus { available, online });
    }

    /// Sets SAMPLE_TIME: time stamps of the first and last sample.
    pub fn set_sample_time_header(&mut self, first: u64, last: u64) {
        self.session
            .set_fixed(FeatureSlot::SAMPLE_TIME, &SampleTime { first, last });
    }

    /// Sets TOTAL_MEM, in kB.
    pub fn set_total_mem_header(&mut self, kib: u64) {
        self.session
            .set_fixed(FeatureSlot::TOTAL_MEM, &TotalMem { kib });
    }

    /// Sets CLOCKID for the clock `clockid`: perf reads this feature as the clock's
    /// resolution in ns, so the writer stores this machine's `clock_getres(clockid)`. When
    /// this machine does not know the clock, the feature is cleared rather than filled with a
    /// wrong value; use [`set_clock_resolution_header`](Self::set_clock_resolution_header)
    /// to give the resolution of the recording machine.
    pub fn set_clockid_header(&mut self, clockid: u32) {
        match host::clock_resolution_ns(clockid) {
            Some(ns) => self.set_clock_resolution_header(ns),
            None => self.session.clear_header(FeatureSlot::CLOCKID),
        }
    }

    /// Sets CLOCKID to a clock resolution of `ns` nanoseconds.
    pub fn set_clock_resolution_header(&mut self, ns: u64) {
        self.session
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
        self.session.set_fixed(FeatureSlot::CLOCK_DATA, &data);
    }

    /// Sets or clears CLOCKID and CLOCK_DATA from a session's clock: CLOCKID gets the
    /// resolution of `clock_id()` (cleared when it is `u32::MAX` or unknown here), CLOCK_DATA
    /// the clock offset (cleared when unknown).
    pub fn set_session_info_headers(&mut self, session_info: &PerfSessionInfo) {
        let clock_id = session_info.clock_id();
        if clock_id == u32::MAX {
            self.session.clear_header(FeatureSlot::CLOCKID);
        } else {
            self.set_clockid_header(clock_id);
        }
        if session_info.clock_offset_known() {
            let (wall_clock_ns, clockid_time_ns) = session_info.get_clock_data();
            self.set_clock_data_header(clock_id, wall_clock_ns, clockid_time_ns);
        } else {
            self.session.clear_header(FeatureSlot::CLOCK_DATA);
        }
    }

    /// Sets HOSTNAME, OSRELEASE and ARCH (from `uname`'s nodename, release and machine).
    /// Returns false and changes nothing when a value is 2 GiB or longer.
    pub fn set_utsname_headers(&mut self, hostname: &[u8], os_release: &[u8], arch: &[u8]) -> bool {
        let values = [
            (feature::HOSTNAME, hostname),
            (feature::OSRELEASE, os_release),
            (feature::ARCH, arch),
        ];
        let mut encoded = Vec::with_capacity(3);
        for (index, v) in values {
            match perf_encode::to_vec(&HeaderString::new(v), self.session.endian()) {
                Ok(bytes) => encoded.push((index, bytes)),
                Err(_) => return false,
            }
        }
        encoded
            .into_iter()
            .all(|(index, bytes)| self.session.set_header(index, &bytes).is_ok())
    }

    /// Sets `sizeof(long)` and the page size of the traced machine for the synthesized
    /// TRACING_DATA, and asks for TRACING_DATA even without tracepoint events. Zeros mean
    /// "this machine's" (the default whenever a tracepoint event exists).
    pub fn set_tracing_data_required(&mut self, long_size: u8, page_size: u32) {
        let t = self.session.tracing_mut();
        t.long_size = long_size;
        t.page_size = page_size;
    }

    /// Sets the `events/header_page` text of the synthesized TRACING_DATA (empty: the
    /// default of a 64-bit kernel). False for 2 GiB or more.
    pub fn set_tracing_data_header_page(&mut self, data: &[u8]) -> bool {
        set_blob(&mut self.session.tracing_mut().header_page, data)
    }

    /// Sets the `events/header_event` text (empty: the default). False for 2 GiB or more.
    pub fn set_tracing_data_header_event(&mut self, data: &[u8]) -> bool {
        set_blob(&mut self.session.tracing_mut().header_event, data)
    }

    /// Sets the kallsyms of the synthesized TRACING_DATA. False for 2 GiB or more.
    pub fn set_tracing_data_kallsyms(&mut self, data: &[u8]) -> bool {
        set_blob(&mut self.session.tracing_mut().kallsyms, data)
    }

    /// Sets the printk formats of the synthesized TRACING_DATA. False for 2 GiB or more.
    pub fn set_tracing_data_printk(&mut self, data: &[u8]) -> bool {
        set_blob(&mut self.session.tracing_mut().printk, data)
    }

    /// Sets the saved cmdlines of the synthesized TRACING_DATA. False for 2 GiB or more.
    pub fn set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> bool {
        set_blob(&mut self.session.tracing_mut().saved_cmdline, data)
    }

    /// Removes the ftrace formats of the synthesized TRACING_DATA.
    pub fn set_tracing_data_clear_ftraces(&mut self) {
        self.session.tracing_mut().ftraces.clear();
    }

    /// Adds an ftrace format to the synthesized TRACING_DATA. False for 2 GiB or more, or
    /// past 2^31 formats.
    pub fn set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> bool {
        if ftrace.len() > MAX_BLOB || self.session.tracing.ftraces.len() >= i32::MAX as usize {
            return false;
        }
        let ftraces = &mut self.session.tracing_mut().ftraces;
        ftraces.push(ftrace.to_vec());
        true
    }

    /// Adds an event without a tracefs format: its attr, name and sample ids. Returns false
    /// (and adds nothing) for a name of 64 KiB or more or with a NUL, an id already used by
    /// this or another event, or too many events; [`try_add_event_desc`](Self::try_add_event_desc)
    /// says which. `attr.size` is ignored: every attr of the file is written with one size.
    pub fn add_event_desc(&mut self, ids: &[u64], attr: &PerfEventAttr, name: &str) -> bool {
        self.try_add_event_desc(ids, attr, name).is_ok()
    }

    /// [`add_event_desc`](Self::add_event_desc) with the reason of a refusal.
    pub fn try_add_event_desc(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
    ) -> Result<(), WriterError> {
        self.session
            .add_desc(ids, perf_abi::PerfEventAttr::from(attr), name, None)
    }

    /// True when a tracepoint format with id `common_type` was added.
    pub fn has_tracepoint_event_desc(&self, common_type: u32) -> bool {
        self.session.has_tracepoint(common_type)
    }

    /// Adds a tracepoint event: its attr, name, sample ids and tracefs format (written to the
    /// synthesized TRACING_DATA, rendered by `PerfEventFormat::write_to`). Returns false for
    /// the reasons of [`add_event_desc`](Self::add_event_desc), when a format with the same
    /// id was added, or when a tracepoint attr's `config` is not the format's id.
    pub fn add_tracepoint_event_desc(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
        format: &Arc<PerfEventFormat>,
    ) -> bool {
        self.try_add_tracepoint_event_desc(ids, attr, name, format)
            .is_ok()
    }

    /// [`add_tracepoint_event_desc`](Self::add_tracepoint_event_desc) with the reason of a
    /// refusal.
    pub fn try_add_tracepoint_event_desc(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
        format: &Arc<PerfEventFormat>,
    ) -> Result<(), WriterError> {
        self.check_formats_accepted()?;
        self.session.add_desc(
            ids,
            perf_abi::PerfEventAttr::from(attr),
            name,
            Some((format, None)),
        )
    }

    /// Adds a tracepoint event from its tracefs `format` text, kept byte for byte in the
    /// TRACING_DATA (perf then sees exactly what tracefs said). `system` is the directory
    /// under `events/`. Returns the parsed format.
    pub fn add_tracepoint_event_desc_from_text(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
        system: &str,
        format_text: &str,
    ) -> Result<Arc<PerfEventFormat>, WriterError> {
        let long_is_64 = match self.session.tracing.long_size {
            0 => host::long_size() == 8,
            n => n == 8,
        };
        let format = PerfEventFormat::parse(long_is_64, system, format_text)
            .ok_or(WriterError::BadFormatText)?;
        let format = Arc::new(format);
        self.check_formats_accepted()?;
        self.session.add_desc(
            ids,
            perf_abi::PerfEventAttr::from(attr),
            name,
            Some((&format, Some(format_text.as_bytes()))),
        )?;
        Ok(format)
    }
}

fn set_blob(dst: &mut Vec<u8>, data: &[u8]) -> bool {
    if data.len() > MAX_BLOB {
        return false;
    }
    dst.clear();
    dst.extend_from_slice(data);
    true
}
