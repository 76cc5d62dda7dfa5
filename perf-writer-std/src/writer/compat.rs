//! [`PerfDataFileWriter`]: the file-mode writer with `tracepoint_perf` 0.5's method names and
//! signatures, over the native [`PerfWriter`].

use crate::{FileOutput, PerfHeaderIndex, PerfWriter};
use std::fmt;
use std::fs::File;
use std::io::{self, IoSlice, Seek, Write};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use tracepoint_decode::{PerfEventAttr, PerfEventFormat, PerfSessionInfo};

/// Writes `perf.data` in file mode with the methods of `tracepoint_perf` 0.5's
/// `PerfDataFileWriter`: a program written for it compiles after changing its `use` line.
///
/// This is a compatibility face over the native writer, `PerfWriter<FileOutput<W>>`. Each
/// 0.5 method calls the native method of the same name and converts its
/// `Result<_, `[`WriterError`](crate::WriterError)`>` at this edge only:
///
/// | 0.5 returns | here |
/// |---|---|
/// | `bool` | `true` for `Ok`; the reason of a `false` is the native method's error |
/// | `io::Result` | the native error as an `io::Error` ([`WriterError::from_io`](crate::WriterError::from_io) gets it back; an error of the stream itself is the stream's own `io::Error`) |
/// | `()` | `set_tracing_data_required` ignores a refusal, as 0.5 did; the native method returns it |
///
/// Everything 0.5 did not have is the native writer's: the face dereferences to it
/// ([`Deref`]/[`DerefMut`]), so `w.finish()`, `w.set_strict(..)` or `w.write_sample(..)` work
/// on a `PerfDataFileWriter` as they are. Where a name exists in both (`add_event_desc`,
/// `set_header`, `write_event_data`, …) the face's 0.5 method is the one called; reach the
/// native one with [`native_mut`](Self::native_mut), or convert for good with
/// [`into_native`](Self::into_native) or `From` (both ways, free). The behaviour is the
/// native writer's throughout (see the README's migration notes for where it differs from
/// 0.5: every difference is a fix).
///
/// ```
/// use perf_writer_std::{FileOutput, PerfDataFileWriter, PerfHeaderIndex, PerfWriter};
/// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
///
/// let attr = PerfEventAttr {
///     attr_type: PerfEventAttrType::Software,
///     sample_type: PerfEventAttrSampleType::Identifier.or(PerfEventAttrSampleType::Time),
///     ..Default::default()
/// };
/// let native = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
/// let mut w = PerfDataFileWriter::from(native);
/// assert!(w.add_event_desc(&[1], &attr, "cpu-clock"));
/// assert!(w.set_string_header(PerfHeaderIndex::Hostname, b"vm"));
/// // A SAMPLE record: header {type 9, misc 2 (user), size 24}, then IDENTIFIER and TIME.
/// let mut sample = vec![9, 0, 0, 0, 2, 0, 24, 0];
/// sample.extend_from_slice(&1u64.to_ne_bytes());
/// sample.extend_from_slice(&1000u64.to_ne_bytes());
/// w.write_event_data(&sample)?;
/// // `finish` is the native writer's, reached through `Deref`.
/// let bytes = w.finish()?.into_inner();
/// assert_eq!(&bytes[..8], b"PERFILE2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PerfDataFileWriter<W: Write + Seek = File> {
    native: PerfWriter<FileOutput<W>>,
}

impl PerfDataFileWriter {
    /// A writer with no file open (0.5: `new`).
    pub fn new() -> Self {
        PerfWriter::new().into()
    }

    /// Creates (truncates) the file at `path` and starts writing it (0.5: `create_file`);
    /// see [`PerfWriter::create_file`]. As in 0.5, a file already open is closed first
    /// without finalizing ([`close_no_finalize`](PerfWriter::close_no_finalize)), where the
    /// native writer refuses.
    ///
    /// # Errors
    ///
    /// The native error as an `io::Error`.
    pub fn create_file(&mut self, path: &str) -> io::Result<()> {
        if self.native.is_open() {
            self.native.close_no_finalize();
        }
        Ok(self.native.create_file(path)?)
    }
}

impl Default for PerfDataFileWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Write + Seek> PerfDataFileWriter<W> {
    /// The native writer.
    pub fn native(&self) -> &PerfWriter<FileOutput<W>> {
        &self.native
    }

    /// The native writer, to call its methods whose names the face shadows.
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, PerfHeaderIndex, WriterError};
    /// let mut w = PerfDataFileWriter::new();
    /// assert!(!w.set_header(PerfHeaderIndex(40), b"x")); // 0.5: a bool
    /// let err = w.native_mut().set_header(PerfHeaderIndex(40), b"x").unwrap_err();
    /// assert_eq!(err, WriterError::Feature(perf_writer_std::FeatureError::BadIndex(40)));
    /// ```
    pub fn native_mut(&mut self) -> &mut PerfWriter<FileOutput<W>> {
        &mut self.native
    }

    /// The native writer, for good.
    pub fn into_native(self) -> PerfWriter<FileOutput<W>> {
        self.native
    }

    /// Closes the file without finalizing it; see [`PerfWriter::close_no_finalize`].
    pub fn close_no_finalize(&mut self) {
        self.native.close_no_finalize();
    }

    /// Finalizes the file and closes it; see [`PerfWriter::finalize_and_close`].
    ///
    /// # Errors
    ///
    /// The native error as an `io::Error`.
    pub fn finalize_and_close(&mut self) -> io::Result<()> {
        Ok(self.native.finalize_and_close()?)
    }

    /// Where the next event byte goes; see [`PerfWriter::file_pos`].
    pub fn file_pos(&self) -> Option<u64> {
        self.native.file_pos()
    }

    /// Appends records; see [`PerfWriter::write_event_data`].
    ///
    /// # Errors
    ///
    /// The native error as an `io::Error`.
    #[inline]
    pub fn write_event_data(&mut self, data: &[u8]) -> io::Result<()> {
        // The output layer's io::Result as it is: the same error as the native one's,
        // converted, without a round trip through `WriterError` per record.
        self.native.write_event_data_io(data)
    }

    /// Appends the concatenation of `bufs`; see [`PerfWriter::write_event_data_vectored`].
    ///
    /// # Errors
    ///
    /// The native error as an `io::Error`.
    pub fn write_event_data_vectored(&mut self, bufs: &[IoSlice]) -> io::Result<usize> {
        Ok(self.native.write_event_data_vectored(bufs)?)
    }

    /// Appends a FINISHED_INIT record; see [`PerfWriter::write_finished_init`].
    ///
    /// # Errors
    ///
    /// The native error as an `io::Error`.
    pub fn write_finished_init(&mut self) -> io::Result<()> {
        Ok(self.native.write_finished_init()?)
    }

    /// Appends a FINISHED_ROUND record; see [`PerfWriter::write_finished_round`].
    ///
    /// # Errors
    ///
    /// The native error as an `io::Error`.
    pub fn write_finished_round(&mut self) -> io::Result<()> {
        Ok(self.native.write_finished_round()?)
    }

    /// The payload set for a feature; see [`PerfWriter::get_header`]. `index` is this
    /// crate's [`PerfHeaderIndex`], or (feature `tracepoint_perf`) tracepoint_perf's.
    pub fn get_header(&self, index: impl Into<PerfHeaderIndex>) -> &[u8] {
        self.native.get_header(index.into())
    }

    /// Sets a feature's raw payload; false where [`PerfWriter::set_header`] refuses.
    pub fn set_header(&mut self, index: impl Into<PerfHeaderIndex>, data: &[u8]) -> bool {
        self.native.set_header(index.into(), data).is_ok()
    }

    /// Sets a string feature; false where [`PerfWriter::set_string_header`] refuses.
    pub fn set_string_header(&mut self, index: impl Into<PerfHeaderIndex>, data: &[u8]) -> bool {
        self.native.set_string_header(index.into(), data).is_ok()
    }

    /// Sets NRCPUS; see [`PerfWriter::set_nr_cpus_header`].
    pub fn set_nr_cpus_header(&mut self, available: u32, online: u32) {
        self.native.set_nr_cpus_header(available, online);
    }

    /// Sets SAMPLE_TIME; see [`PerfWriter::set_sample_time_header`].
    pub fn set_sample_time_header(&mut self, first: u64, last: u64) {
        self.native.set_sample_time_header(first, last);
    }

    /// Sets CLOCKID; see [`PerfWriter::set_clockid_header`].
    pub fn set_clockid_header(&mut self, clockid: u32) {
        self.native.set_clockid_header(clockid);
    }

    /// Sets CLOCK_DATA; see [`PerfWriter::set_clock_data_header`].
    pub fn set_clock_data_header(
        &mut self,
        clockid: u32,
        wall_clock_ns: u64,
        clockid_time_ns: u64,
    ) {
        self.native
            .set_clock_data_header(clockid, wall_clock_ns, clockid_time_ns);
    }

    /// Sets CLOCKID and CLOCK_DATA; see [`PerfWriter::set_session_info_headers`].
    pub fn set_session_info_headers(&mut self, session_info: &PerfSessionInfo) {
        self.native.set_session_info_headers(session_info);
    }

    /// Sets HOSTNAME, OSRELEASE and ARCH; false where [`PerfWriter::set_utsname_headers`]
    /// refuses.
    pub fn set_utsname_headers(&mut self, hostname: &[u8], os_release: &[u8], arch: &[u8]) -> bool {
        self.native
            .set_utsname_headers(hostname, os_release, arch)
            .is_ok()
    }

    /// Sets `sizeof(long)` and the page size of the tracing data, ignoring a refusal as 0.5
    /// did; [`PerfWriter::set_tracing_data_required`] returns it.
    pub fn set_tracing_data_required(&mut self, long_size: u8, page_size: u32) {
        let _refused_values_change_nothing =
            self.native.set_tracing_data_required(long_size, page_size);
    }

    /// Sets the `header_page` text; false where
    /// [`PerfWriter::set_tracing_data_header_page`] refuses.
    pub fn set_tracing_data_header_page(&mut self, data: &[u8]) -> bool {
        self.native.set_tracing_data_header_page(data).is_ok()
    }

    /// Sets the `header_event` text; false where
    /// [`PerfWriter::set_tracing_data_header_event`] refuses.
    pub fn set_tracing_data_header_event(&mut self, data: &[u8]) -> bool {
        self.native.set_tracing_data_header_event(data).is_ok()
    }

    /// Sets the kallsyms text; false where [`PerfWriter::set_tracing_data_kallsyms`]
    /// refuses.
    pub fn set_tracing_data_kallsyms(&mut self, data: &[u8]) -> bool {
        self.native.set_tracing_data_kallsyms(data).is_ok()
    }

    /// Sets the printk formats; false where [`PerfWriter::set_tracing_data_printk`]
    /// refuses.
    pub fn set_tracing_data_printk(&mut self, data: &[u8]) -> bool {
        self.native.set_tracing_data_printk(data).is_ok()
    }

    /// Sets the saved cmdlines; false where
    /// [`PerfWriter::set_tracing_data_saved_cmd_line`] refuses.
    pub fn set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> bool {
        self.native.set_tracing_data_saved_cmd_line(data).is_ok()
    }

    /// Removes the ftrace formats; see [`PerfWriter::set_tracing_data_clear_ftraces`] (which
    /// refuses only in pipe mode).
    pub fn set_tracing_data_clear_ftraces(&mut self) {
        let _file_mode_never_refuses = self.native.set_tracing_data_clear_ftraces();
    }

    /// Adds an ftrace format; false where [`PerfWriter::set_tracing_data_add_ftrace`]
    /// refuses.
    pub fn set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> bool {
        self.native.set_tracing_data_add_ftrace(ftrace).is_ok()
    }

    /// Adds an event without a tracefs format; false where [`PerfWriter::add_event_desc`]
    /// refuses.
    pub fn add_event_desc(&mut self, ids: &[u64], attr: &PerfEventAttr, name: &str) -> bool {
        self.native.add_event_desc(ids, attr, name).is_ok()
    }

    /// True when a tracepoint format with id `common_type` was added; see
    /// [`PerfWriter::has_tracepoint_event_desc`].
    pub fn has_tracepoint_event_desc(&self, common_type: u32) -> bool {
        self.native.has_tracepoint_event_desc(common_type)
    }

    /// Adds a tracepoint event; false where [`PerfWriter::add_tracepoint_event_desc`]
    /// refuses.
    pub fn add_tracepoint_event_desc(
        &mut self,
        ids: &[u64],
        attr: &PerfEventAttr,
        name: &str,
        format: &Arc<PerfEventFormat>,
    ) -> bool {
        self.native
            .add_tracepoint_event_desc(ids, attr, name, format)
            .is_ok()
    }
}

/// The native writer's methods, for everything `tracepoint_perf` 0.5 did not have.
impl<W: Write + Seek> Deref for PerfDataFileWriter<W> {
    type Target = PerfWriter<FileOutput<W>>;

    fn deref(&self) -> &Self::Target {
        &self.native
    }
}

impl<W: Write + Seek> DerefMut for PerfDataFileWriter<W> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.native
    }
}

impl<W: Write + Seek> From<PerfWriter<FileOutput<W>>> for PerfDataFileWriter<W> {
    fn from(native: PerfWriter<FileOutput<W>>) -> Self {
        PerfDataFileWriter { native }
    }
}

impl<W: Write + Seek> From<PerfDataFileWriter<W>> for PerfWriter<FileOutput<W>> {
    fn from(face: PerfDataFileWriter<W>) -> Self {
        face.native
    }
}

impl<W: Write + Seek> fmt::Debug for PerfDataFileWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PerfDataFileWriter")
            .field(&self.native)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::PerfDataFileWriter;
    use crate::{OutputError, WriterError};

    #[test]
    fn io_results_carry_the_native_error() {
        let mut w = PerfDataFileWriter::new();
        let err = w.write_event_data(&[0; 8]).unwrap_err();
        assert_eq!(
            WriterError::from_io(&err),
            Some(&WriterError::Output(OutputError::NotOpen))
        );
        assert_eq!(
            w.native_mut().flush(),
            Err(WriterError::Output(OutputError::NotOpen))
        );
        assert!(!w.set_tracing_data_header_page(b"0123456789"));
        w.set_tracing_data_required(3, 4096);
        assert!(w.native_mut().set_tracing_data_required(3, 4096).is_err());
    }
}
