//! [`PerfWriter`]: the writer, in file mode ([`PerfDataFileWriter`]) or pipe mode
//! ([`PerfPipeWriter`]). Settings and event descriptions live in a session shared by both
//! modes; the mode decides how they reach the stream.
//!
//! This folder is the writer's public face: opening, describing, writing and finishing
//! (here), the strict-mode and derived-header switches (`check_settings`), the compression
//! setting (`compression_setting`), the typed feature setters (`typed_features`) and the
//! typed records (`typed_records`).

mod check_settings;
mod compression_setting;
mod typed_features;
mod typed_records;

use crate::check::checked_events::Quick;
use crate::check::record_check::RecordCheck;
use crate::error::io_err;
use crate::host::this_machine;
use crate::model::feature_slot::FeatureSlot;
use crate::model::session::Session;
use crate::output::{OutputMode, OwnRecord};
use crate::{FileOutput, PerfHeaderIndex, PipeOutput, SharedIoError, WriterError};
use perf_abi::feature::{self, Payload};
use perf_abi::{ClockData, NrCpus, SampleTime, CLOCK_DATA_VERSION};
use perf_encode::features::{
    check_format_text, check_header_event, check_header_page, check_kallsyms, check_printk,
    check_saved_cmdlines, ClockResolution, FormatTextError, TotalMem, TracepointRawRule,
};
use perf_encode::{Endian, HeaderString, StringList};
use std::fmt;
use std::fs::File;
use std::io::{self, IoSlice};
use std::sync::Arc;
use tracepoint_decode::{PerfEventAttr, PerfEventFormat, PerfSessionInfo};

/// Largest blob the tracing-data setters accept (below 2 GiB, as perf reads sizes as `int`).
const MAX_BLOB: usize = perf_encode::features::tracing_data::MAX_BLOB_LEN;

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

/// A checked vectored call of at most this many bytes is joined into one buffer and checked
/// as one `write_event_data` call (cheaper than walking records across slices).
const JOIN_VECTORED_UP_TO: usize = 256 * 1024;

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
            session: Session::new(endian, O::PIPE),
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
        self.check.reset_output(!O::PIPE);
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
        self.check.reset_output(!O::PIPE);
    }

    /// Finalizes the output and closes it. See [`finish`](Self::finish).
    pub fn finalize_and_close(&mut self) -> io::Result<()> {
        self.finish_output().map(drop)
    }

    /// Finalizes the output and returns its stream, flushed (for a `Cursor`, its bytes).
    ///
    /// Refused, changing nothing, while records wait for their event description, tracepoint
    /// format or HEADER_COMPRESSED (file mode in strict mode, see
    /// [`set_strict`](Self::set_strict)): [`WriterError::UndescribedRecords`] names them; add
    /// what they need and finish again.
    ///
    /// A record begun and not finished is dropped (as
    /// [`abandon_partial_record`](Self::abandon_partial_record) does): the data ends after
    /// the last whole record, the output is finalized, and `finish` returns
    /// [`WriterError::PartialRecordDropped`] naming what was dropped; the output stays open,
    /// finalized, and the next `finish` returns it (`finalize_and_close` callers have their
    /// file written; dropping the writer closes it).
    ///
    /// File mode writes after the data section the feature section table and payloads
    /// (EVENT_DESC and, when a tracepoint event exists, TRACING_DATA synthesized unless set by
    /// the caller), the ids and the attrs (all with one size); then the file header. Pipe mode
    /// sends what was not sent yet and flushes. An output with no event description gets a
    /// placeholder dummy event, and an empty file one FINISHED_ROUND record, so that every
    /// reader opens it as an empty trace.
    ///
    /// On error nothing is lost: the writer stays open with its data and settings, and
    /// `finish` can be called again (after more events, or a fixed setting); a failed write
    /// is taken up again where it stopped. One exception: when the output says it is full
    /// (`StorageFull`, `QuotaExceeded`, `FileTooLarge`), file mode stops retrying and
    /// finalizes the file with what reached it, as [`finish_truncated`](Self::finish_truncated)
    /// does, and returns [`WriterError::Truncated`] (the output is then closed); when even
    /// that fails, the error is the output's and the writer stays open.
    pub fn finish(&mut self) -> Result<O::Stream, WriterError> {
        Ok(self.finish_output()?)
    }

    /// [`finish`](Self::finish) for the `io::Result` methods.
    fn finish_output(&mut self) -> io::Result<O::Stream> {
        if self.out.is_none() {
            return Err(io_err(WriterError::NotOpen));
        }
        if let Some(waiting) = self.check.undescribed() {
            return Err(io_err(WriterError::UndescribedRecords(waiting)));
        }
        let dropped = self.partial_record();
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::NotOpen));
        };
        self.check.abandon();
        out.abandon_partial();
        if self.check.derive() {
            self.set_headers_derived_from_events();
        }
        // The compressor's last records go out first: a full output then is salvaged as a
        // full output while finalizing is.
        let finalized = self.finish_compression().and_then(|()| {
            let out = self
                .out
                .as_mut()
                .ok_or_else(|| io_err(WriterError::NotOpen))?;
            out.finalize(&self.session)
        });
        if let Err(e) = finalized {
            if !is_full(&e) {
                return Err(e);
            }
            return Err(match self.finish_truncated_io() {
                Ok((kept_records, kept_bytes)) => io_err(WriterError::Truncated {
                    kept_records,
                    kept_bytes,
                    error: SharedIoError::new(e),
                }),
                Err(_) => e,
            });
        }
        if let Some(partial) = dropped {
            // The file is whole without it; the output stays open until finished again.
            return Err(io_err(WriterError::PartialRecordDropped(partial)));
        }
        let out = self
            .out
            .take()
            .ok_or_else(|| io_err(WriterError::NotOpen))?;
        self.session.reset();
        self.check.reset_output(!O::PIPE);
        out.into_stream()
    }

    /// Finalizes a file whose output keeps failing (a full disk, a dead device): the file
    /// keeps the whole records known to have reached the output (each buffer sent ends on
    /// a record boundary the writer remembers), as many as leave room, within the bytes
    /// already written, for the file's tail (a full disk still lets a file's own bytes be
    /// written again); events still buffered are dropped. Then the output is closed.
    /// Returns the records and data bytes kept.
    ///
    /// On error (no room even for an empty data section, or the output refuses to be
    /// rewritten) the writer stays open as it was. Pipe mode has nothing to rewrite (every
    /// record flushed is readable as it is): it returns an error.
    ///
    /// ```
    /// use perf_writer_std::PerfDataFileWriter;
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
    ///
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: PerfEventAttrSampleType::Identifier,
    ///     ..Default::default()
    /// };
    /// let mut file = std::io::Cursor::new(Vec::new());
    /// let mut w = PerfDataFileWriter::from_writer(&mut file)?;
    /// assert!(w.add_event_desc(&[1], &attr, "cpu-clock"));
    /// for _ in 0..40_000 {
    ///     w.write_event_data(&[9, 0, 0, 0, 2, 0, 16, 0, 1, 0, 0, 0, 0, 0, 0, 0])?;
    /// }
    /// // Records were sent (a buffer's worth at a time); some still wait in the buffer.
    /// let (records, bytes) = w.finish_truncated()?;
    /// assert!(records > 0 && records < 40_000);
    /// assert_eq!(bytes, records * 16);
    /// drop(w);
    /// assert_eq!(&file.get_ref()[..8], b"PERFILE2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish_truncated(&mut self) -> Result<(u64, u64), WriterError> {
        Ok(self.finish_truncated_io()?)
    }

    /// [`finish_truncated`](Self::finish_truncated) for the `io::Result` methods.
    fn finish_truncated_io(&mut self) -> io::Result<(u64, u64)> {
        self.drop_undescribed();
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::NotOpen));
        };
        self.check.abandon();
        let kept = out.finalize_truncated(&self.session)?;
        self.out = None;
        self.session.reset();
        self.check.reset_output(!O::PIPE);
        Ok(kept)
    }

    /// The record begun and not finished, if any: its type, its whole length once its
    /// header is whole, the bytes given so far and its file offset (what the errors of a
    /// refused call and of finalize name; see
    /// [`abandon_partial_record`](Self::abandon_partial_record)).
    ///
    /// ```
    /// use perf_writer_std::PerfDataFileWriter;
    /// let mut w = PerfDataFileWriter::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.write_event_data(&[3, 0, 0, 0, 0, 0, 48, 0, 1, 0, 0, 0])?; // 12 of a 48-byte COMM
    /// let p = w.partial_record().unwrap();
    /// assert_eq!((p.type_, p.len, p.given, p.offset), (3, Some(48), 12, 104));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn partial_record(&self) -> Option<crate::PartialRecord> {
        self.check
            .partial()
            .or_else(|| self.out.as_ref().and_then(|o| o.partial_record()))
    }

    /// Bytes of a record begun and not finished (given so far, held back by the writer);
    /// 0 between records.
    ///
    /// ```
    /// use perf_writer_std::PerfPipeWriter;
    /// let mut w = PerfPipeWriter::from_writer(Vec::new())?;
    /// w.set_strict(false);
    /// w.write_event_data(&[9, 0, 0, 0, 2, 0, 32, 0])?; // the first 8 of a 32-byte record
    /// assert_eq!(w.partial_record_len(), 8);
    /// assert_eq!(w.abandon_partial_record(), 8);
    /// assert_eq!(w.partial_record_len(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn partial_record_len(&self) -> u64 {
        let held = self.check.held_back() as u64;
        let out = self.out.as_ref().map_or(0, |o| o.partial_len());
        held.saturating_add(out)
    }

    /// Drops the record begun and not finished, if any (one whose `size`, or announced
    /// payload, is more than the bytes given): the stream goes on after the last whole
    /// record, as if the record had never been started. Returns the bytes dropped.
    ///
    /// Its bytes never reached a pipe-mode output (the writer holds back a record split
    /// across calls until it is whole, up to
    /// [`MAX_SPLIT_RECORD_LEN`](crate::MAX_SPLIT_RECORD_LEN)). In file mode a record is held
    /// back up to [`FILE_BUFFER_SIZE`](crate::FILE_BUFFER_SIZE) bytes; a longer one goes to
    /// the file as it comes, and dropping it moves the file back to its start, to be
    /// written over (bytes of it past the end of the finished file may remain there, after
    /// everything perf reads).
    pub fn abandon_partial_record(&mut self) -> u64 {
        let held = self.check.abandon() as u64;
        let out = self.out.as_mut().map_or(0, |o| o.abandon_partial());
        self.settle_check();
        held.saturating_add(out)
    }

    /// Writes out everything buffered but a record begun and not finished. In pipe mode the
    /// stream is then readable up to here; in file mode the file stays unreadable until
    /// finalized. On error, what the output did not take stays buffered for the next call.
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
    /// calls (see [`abandon_partial_record`](Self::abandon_partial_record)). Bytes that are
    /// not records are refused with nothing written.
    ///
    /// An error of the output means nothing of `data` was taken: the bytes of earlier calls
    /// the output did not take stay buffered, to be sent by the next write, flush or finish,
    /// and the same call may simply be made again (`Interrupted` is retried inside).
    ///
    /// An id in a record must belong to an event description added before finalize (in pipe
    /// mode: before the record; in strict mode a record is checked by its description when
    /// that comes, see [`set_strict`](Self::set_strict)). A refusal while a record begun in an
    /// earlier call waits is [`WriterError::InsidePartialRecord`]: it names that record and
    /// whether it was dropped; [`partial_record`](Self::partial_record) says what waits.
    #[inline]
    pub fn write_event_data(&mut self, data: &[u8]) -> io::Result<()> {
        // Inline: a record of an event already checked, or the unchecked path; the rest (the
        // full check, errors) out of line.
        match self.out.as_mut() {
            Some(out) if !self.check.active() => out.write_records(&self.session, data),
            Some(out) => match self.check.sample_passes_inline(&self.session, data) {
                Quick::Passes => out.write_known_record(&self.session, data),
                Quick::DynamicFields => self.write_event_data_dynamic(data),
                Quick::Unsettled => self.write_event_data_learned(data),
            },
            None => self.write_event_data_learned(data),
        }
    }

    /// [`write_event_data`](Self::write_event_data) of a tracepoint SAMPLE like the last one
    /// learned, whose RAW's dynamic fields are still to read (out of line, and small).
    #[inline(never)]
    fn write_event_data_dynamic(&mut self, data: &[u8]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) if self.check.dynamic_fields_fit(&self.session, data) => {
                out.write_known_record(&self.session, data)
            }
            _ => self.write_event_data_checked(data),
        }
    }

    /// [`write_event_data`](Self::write_event_data) of a record of an event already checked
    /// (a SAMPLE with RAW, COMM, MMAP2, …: [`RecordCheck::passes_quickly`]), else through the
    /// full check. Out of line, and small: the records of most traces come this way.
    #[inline(never)]
    fn write_event_data_learned(&mut self, data: &[u8]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) if self.check.passes_quickly(&self.session, data) => {
                out.write_known_record(&self.session, data)
            }
            _ => self.write_event_data_checked(data),
        }
    }

    /// Applies a strict-mode or derived-headers setting made inside a record once the
    /// stream is at a record boundary.
    pub(crate) fn settle_check(&mut self) {
        let inside = self.out.as_ref().is_some_and(|o| o.partial_len() != 0);
        self.check.settle(inside);
    }

    /// [`write_event_data`](Self::write_event_data) through the record check (strict mode,
    /// derived headers), or without an output.
    #[inline(never)]
    fn write_event_data_checked(&mut self, data: &[u8]) -> io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::NotOpen));
        };
        self.check.settle(out.partial_len() != 0);
        let written = if !self.check.checking() {
            out.write_records(&self.session, data)
        } else {
            match self.check.write_whole_record(&self.session, out, data) {
                Some(written) => written,
                None => self.check.write(&self.session, out, &[data]).map(drop),
            }
        };
        self.check.settle(out.partial_len() != 0);
        written
    }

    /// Appends the concatenation of `bufs` (see [`write_event_data`](Self::write_event_data));
    /// returns the number of bytes written, always all of them.
    pub fn write_event_data_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::NotOpen));
        };
        if !self.check.active() {
            return out.write_records_vectored(&self.session, bufs);
        }
        self.check.settle(out.partial_len() != 0);
        if !self.check.checking() {
            let written = out.write_records_vectored(&self.session, bufs);
            self.check.settle(out.partial_len() != 0);
            return written;
        }
        let len = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len()));
        // Records of events already checked, read where they lie: no join, no second walk.
        if let Some(n) = self.check.known_records_vectored(&self.session, bufs, len) {
            return out
                .write_known_records(&self.session, bufs, n)
                .map(|()| len);
        }
        if len > JOIN_VECTORED_UP_TO {
            let written = self.check.write(&self.session, out, bufs);
            self.check.settle(out.partial_len() != 0);
            return written;
        }
        // Small calls are joined and checked in one piece (records split across slices
        // are then whole where the check reads them), as `write_event_data` would.
        let mut joined = std::mem::take(&mut self.scratch);
        joined.clear();
        joined.reserve(len);
        for b in bufs {
            joined.extend_from_slice(b);
        }
        let written = self.write_event_data(&joined).map(|()| len);
        self.scratch = joined;
        written
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
    /// of the synthesized one. Returns false, changing nothing, where
    /// [`try_set_header`](Self::try_set_header) gives an error.
    pub fn set_header(&mut self, index: PerfHeaderIndex, data: &[u8]) -> bool {
        self.try_set_header(index, data).is_ok()
    }

    /// [`set_header`](Self::set_header) with the reason for a refusal: an index outside
    /// 1..=31, a payload too long for a pipe-mode record, or one whose counts, strings or
    /// fields perf 6.1 would not read
    /// ([`check_feature_payload`](perf_encode::features::check_feature_payload) says which
    /// features are checked and how; TRACING_DATA, BRANCH_STACK, STAT and BPF lists with
    /// entries are taken as given). DIR_FORMAT belongs only in the `data` file of a
    /// directory recording: in a plain file perf 6.1 drops the features after it.
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, PerfHeaderIndex, WriterError};
    /// let mut w = PerfDataFileWriter::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// // PMU_MAPPINGS: a count of one, then nothing.
    /// let err = w.try_set_header(PerfHeaderIndex(16), &1u32.to_ne_bytes()).unwrap_err();
    /// assert!(matches!(err, WriterError::BadFeaturePayload(_)));
    /// assert!(w.get_header(PerfHeaderIndex(16)).is_empty());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_set_header(
        &mut self,
        index: PerfHeaderIndex,
        data: &[u8],
    ) -> Result<(), WriterError> {
        let compressed = index.0 == feature::COMPRESSED;
        if compressed {
            let readable =
                crate::check::compressed_check::readable_header(self.session.endian(), data);
            self.check.check_compression_header(readable)?;
        }
        self.session.set_header(index.0, data)?;
        if compressed && !data.is_empty() {
            self.check.compression_header_set();
        }
        if index.0 == feature::TRACING_DATA && !data.is_empty() {
            self.check.formats_given();
        }
        Ok(())
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
        match feature::info(index.0).map(|f| f.payload) {
            Some(Payload::StringList) => {
                self.session.set_encoded(index.0, &StringList::new(&[data]))
            }
            Some(Payload::String) => self.session.set_encoded(index.0, &HeaderString::new(data)),
            _ => Err(WriterError::NotAStringFeature(index.0)),
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
        match this_machine::clock_resolution_ns(clockid) {
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
        self.try_set_utsname_headers(hostname, os_release, arch)
            .is_ok()
    }

    /// [`set_utsname_headers`](Self::set_utsname_headers) with the reason of a refusal.
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] when a value is 2 GiB or longer (nothing changes); in pipe
    /// mode, [`WriterError::FeatureTooLargeForPipe`] for the first value too long for a
    /// HEADER_FEATURE record (the values before it are set).
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, PerfHeaderIndex};
    /// let mut w = PerfDataFileWriter::new();
    /// w.try_set_utsname_headers(b"vm", b"6.1.0", b"x86_64")?;
    /// assert_eq!(&w.get_header(PerfHeaderIndex::Arch)[4..10], b"x86_64");
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn try_set_utsname_headers(
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
                perf_encode::to_vec(&HeaderString::new(v), self.session.endian())?,
            ));
        }
        for (index, bytes) in encoded {
            self.session.set_header(index, &bytes)?;
        }
        Ok(())
    }

    /// Sets `sizeof(long)` and the page size of the traced machine for the synthesized
    /// TRACING_DATA, and asks for TRACING_DATA even without tracepoint events. Zeros mean
    /// "this machine's" (the default whenever a tracepoint event exists). Values
    /// [`try_set_tracing_data_required`](Self::try_set_tracing_data_required) refuses are
    /// ignored (nothing changes).
    pub fn set_tracing_data_required(&mut self, long_size: u8, page_size: u32) {
        let _ = self.try_set_tracing_data_required(long_size, page_size);
    }

    /// [`set_tracing_data_required`](Self::set_tracing_data_required) with the reason of a
    /// refusal: a `long_size` other than 0, 4 or 8 (perf reads `long` fields of no other
    /// size), a `page_size` other than 0 or a power of two of at least 4096.
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, WriterError};
    /// let mut w = PerfDataFileWriter::new();
    /// assert!(w.try_set_tracing_data_required(8, 16384).is_ok());
    /// assert!(matches!(w.try_set_tracing_data_required(3, 4096), Err(WriterError::BadTracingDataSetting(_))));
    /// ```
    pub fn try_set_tracing_data_required(
        &mut self,
        long_size: u8,
        page_size: u32,
    ) -> Result<(), WriterError> {
        if !matches!(long_size, 0 | 4 | 8) {
            return Err(WriterError::BadTracingDataSetting(
                "sizeof(long) must be 4 or 8 (0: this machine's)",
            ));
        }
        if page_size != 0 && (!page_size.is_power_of_two() || page_size < 4096) {
            return Err(WriterError::BadTracingDataSetting(
                "the page size must be a power of two of at least 4096 (0: this machine's)",
            ));
        }
        let t = self.session.tracing_mut();
        t.long_size = long_size;
        t.page_size = page_size;
        Ok(())
    }

    /// Sets the `events/header_page` text of the synthesized TRACING_DATA (empty: the
    /// default of a 64-bit kernel). False, keeping the old text, for a text
    /// [`try_set_tracing_data_header_page`](Self::try_set_tracing_data_header_page) refuses.
    pub fn set_tracing_data_header_page(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_header_page(data).is_ok()
    }

    /// [`set_tracing_data_header_page`](Self::set_tracing_data_header_page) with the reason
    /// of a refusal: 2 GiB or more, or not the field lines perf reads (`timestamp`,
    /// `commit`, optionally `overwrite`, then `data`; perf 6.1 loops forever on others).
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, WriterError};
    /// let mut w = PerfDataFileWriter::new();
    /// let err = w.try_set_tracing_data_header_page(b"0123456789").unwrap_err();
    /// assert!(matches!(err, WriterError::TracingDataText { part: "header_page", .. }));
    /// ```
    pub fn try_set_tracing_data_header_page(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("header_page", data)?;
        if !data.is_empty() {
            check_header_page(data).map_err(text_err("header_page"))?;
        }
        set_blob(&mut self.session.tracing_mut().header_page, data);
        Ok(())
    }

    /// Sets the `events/header_event` text (empty: the default). False, keeping the old
    /// text, for a text [`try_set_tracing_data_header_event`](Self::try_set_tracing_data_header_event)
    /// refuses.
    pub fn set_tracing_data_header_event(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_header_event(data).is_ok()
    }

    /// [`set_tracing_data_header_event`](Self::set_tracing_data_header_event) with the
    /// reason of a refusal: 2 GiB or more, or a NUL or control byte other than tab and
    /// newline (perf reads the text and skips it).
    pub fn try_set_tracing_data_header_event(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("header_event", data)?;
        check_header_event(data).map_err(text_err("header_event"))?;
        set_blob(&mut self.session.tracing_mut().header_event, data);
        Ok(())
    }

    /// Sets the kallsyms of the synthesized TRACING_DATA. False, keeping the old text, for
    /// a text [`try_set_tracing_data_kallsyms`](Self::try_set_tracing_data_kallsyms) refuses.
    pub fn set_tracing_data_kallsyms(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_kallsyms(data).is_ok()
    }

    /// [`set_tracing_data_kallsyms`](Self::set_tracing_data_kallsyms) with the reason of a
    /// refusal: 2 GiB or more, or lines not `ADDR TYPE NAME` as in `/proc/kallsyms`.
    pub fn try_set_tracing_data_kallsyms(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("kallsyms", data)?;
        check_kallsyms(data).map_err(text_err("kallsyms"))?;
        set_blob(&mut self.session.tracing_mut().kallsyms, data);
        Ok(())
    }

    /// Sets the printk formats of the synthesized TRACING_DATA. False, keeping the old
    /// text, for a text [`try_set_tracing_data_printk`](Self::try_set_tracing_data_printk)
    /// refuses.
    pub fn set_tracing_data_printk(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_printk(data).is_ok()
    }

    /// [`set_tracing_data_printk`](Self::set_tracing_data_printk) with the reason of a
    /// refusal: 2 GiB or more, or lines not `ADDR : "FORMAT"` as in `printk_formats`.
    pub fn try_set_tracing_data_printk(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("printk", data)?;
        check_printk(data).map_err(text_err("printk"))?;
        set_blob(&mut self.session.tracing_mut().printk, data);
        Ok(())
    }

    /// Sets the saved cmdlines of the synthesized TRACING_DATA. False, keeping the old
    /// text, for a text
    /// [`try_set_tracing_data_saved_cmd_line`](Self::try_set_tracing_data_saved_cmd_line)
    /// refuses.
    pub fn set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_saved_cmd_line(data).is_ok()
    }

    /// [`set_tracing_data_saved_cmd_line`](Self::set_tracing_data_saved_cmd_line) with the
    /// reason of a refusal: 2 GiB or more, or lines not `PID COMM` as in `saved_cmdlines`.
    pub fn try_set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("saved_cmdline", data)?;
        check_saved_cmdlines(data).map_err(text_err("saved_cmdline"))?;
        set_blob(&mut self.session.tracing_mut().saved_cmdline, data);
        Ok(())
    }

    /// Removes the ftrace formats of the synthesized TRACING_DATA.
    pub fn set_tracing_data_clear_ftraces(&mut self) {
        self.session.tracing_mut().ftraces.clear();
    }

    /// Adds an ftrace format (`events/ftrace/*/format`) to the synthesized TRACING_DATA.
    /// False, adding nothing, for a format
    /// [`try_set_tracing_data_add_ftrace`](Self::try_set_tracing_data_add_ftrace) refuses.
    pub fn set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> bool {
        self.try_set_tracing_data_add_ftrace(ftrace).is_ok()
    }

    /// [`set_tracing_data_add_ftrace`](Self::set_tracing_data_add_ftrace) with the reason
    /// of a refusal: 2 GiB or more, past 2^31 formats, or a format text
    /// [`check_format_text`](perf_encode::features::check_format_text) refuses.
    pub fn try_set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> Result<(), WriterError> {
        blob_len("ftrace format", ftrace)?;
        if self.session.tracing.ftraces.len() >= i32::MAX as usize {
            return Err(WriterError::Encode(perf_encode::EncodeError::TooLong {
                what: "ftrace formats",
                len: self.session.tracing.ftraces.len() as u64,
                max: i32::MAX as u64,
            }));
        }
        check_format_text(ftrace).map_err(text_err("ftrace format"))?;
        self.session.tracing_mut().ftraces.push(ftrace.to_vec());
        Ok(())
    }

    /// Adds an event without a tracefs format: its attr, name and sample ids. Returns false
    /// (and adds nothing) for a name of 64 KiB or more or with a NUL, an id already used by
    /// this or another event, or too many events; in pipe mode also for a name or ids that
    /// do not fit their records ([`EventUpdateName::MAX_NAME_LEN`](perf_encode::records::EventUpdateName::MAX_NAME_LEN),
    /// [`HeaderAttr::max_ids`](perf_encode::records::HeaderAttr::max_ids)), and for a
    /// tracepoint whose format can no longer reach the stream (it started without it).
    /// [`try_add_event_desc`](Self::try_add_event_desc) says which. `attr.size` is ignored:
    /// every attr of the file is written with one size.
    ///
    /// A tracepoint attr (`config` its tracefs id) added here needs its format in the file:
    /// add it with another description of the same tracepoint
    /// ([`add_tracepoint_event_desc_from_text`](Self::add_tracepoint_event_desc_from_text)),
    /// or set TRACING_DATA with [`set_header`](Self::set_header). Until then finalize (and in
    /// pipe mode the first event) fails with [`WriterError::MissingTracepointFormat`], and
    /// succeeds once the format was added: that refusal is retryable, nothing is lost.
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
        let attr = perf_abi::PerfEventAttr::from(attr);
        if attr.type_ == perf_abi::attr::TYPE_TRACEPOINT
            && self.check_formats_accepted().is_err()
            && !self.session.has_own_tracing_data()
            && !u32::try_from(attr.config).is_ok_and(|id| self.session.has_tracepoint(id))
        {
            // The stream's tracing data went out without this format.
            return Err(WriterError::MissingTracepointFormat {
                config: attr.config,
            });
        }
        self.add_desc_checked(ids, attr, name, None)
    }

    /// Adds a description to the session once the records that wait for it agree with it
    /// (strict mode; see [`set_strict`](Self::set_strict)).
    fn add_desc_checked(
        &mut self,
        ids: &[u64],
        attr: perf_abi::PerfEventAttr,
        name: &str,
        tracepoint: Option<(&Arc<PerfEventFormat>, Option<&[u8]>)>,
    ) -> Result<(), WriterError> {
        let check = &self.check;
        let resolution = self
            .session
            .add_desc(ids, attr, name, tracepoint, |session, new| {
                check.check_description(session, new)
            })?;
        self.check.description_added(resolution);
        Ok(())
    }

    /// The rule the RAW payload of a SAMPLE of the event that owns sample id `id` must
    /// follow (`None`: that event is no tracepoint, or its format is the caller's own
    /// TRACING_DATA). [`write_sample`](Self::write_sample) applies it; callers that build
    /// RAW bytes themselves can too.
    ///
    /// ```
    /// use perf_writer_std::{perf_encode::Endian, PerfDataFileWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType};
    /// let text = "name: tick\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\nprint fmt: \"tick\"\n";
    /// let attr = PerfEventAttr { attr_type: PerfEventAttrType::Tracepoint, config: 7, sample_type: S::Identifier.or(S::Raw), ..Default::default() };
    /// let mut w = PerfDataFileWriter::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.add_tracepoint_event_desc_from_text(&[1], &attr, "x:tick", "x", text)?;
    /// let rule = w.tracepoint_raw_rule(Some(1)).unwrap();
    /// let mut raw = [0u8; 8];
    /// assert!(rule.check(&raw, w.endian()).is_err()); // common_type left 0
    /// raw[..2].copy_from_slice(&w.endian().u16_bytes(7));
    /// assert!(rule.check(&raw, w.endian()).is_ok());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn tracepoint_raw_rule(&self, id: Option<u64>) -> Option<TracepointRawRule> {
        self.session.tracepoint_raw_rule(id)
    }

    /// True when a tracepoint format with id `common_type` was added.
    pub fn has_tracepoint_event_desc(&self, common_type: u32) -> bool {
        self.session.has_tracepoint(common_type)
    }

    /// Adds a tracepoint event: its attr, name, sample ids and tracefs format (written to the
    /// synthesized TRACING_DATA as `PerfEventFormat::write_to` renders it, at finalize;
    /// checked now, without rendering, by
    /// [`check_parsed_format`](perf_encode::features::check_parsed_format)). Returns false for
    /// the reasons of [`add_event_desc`](Self::add_event_desc), when a format with the same
    /// id was added, when a tracepoint attr's `config` is not the format's id, when the
    /// format's system name or its text (as `write_to` renders it) is one perf cannot read
    /// ([`WriterError::BadSystemName`], [`WriterError::FormatText`]), when its
    /// `common_type` is not where the formats added before have it
    /// ([`WriterError::CommonTypeOffset`]), or in pipe mode after the stream started
    /// ([`WriterError::FormatAfterStart`]).
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
        self.add_desc_checked(
            ids,
            perf_abi::PerfEventAttr::from(attr),
            name,
            Some((format, None)),
        )
    }

    /// Adds a tracepoint event from its tracefs `format` text, kept byte for byte in the
    /// TRACING_DATA (perf then sees exactly what tracefs said). `system` is the directory
    /// under `events/`. Returns the parsed format.
    ///
    /// Refused, adding nothing, for the reasons of
    /// [`add_tracepoint_event_desc`](Self::add_tracepoint_event_desc), with the text checked
    /// before any parser reads it: [`WriterError::FormatText`] names the line and the
    /// problem ([`check_format_text`](perf_encode::features::check_format_text)).
    ///
    /// ```
    /// use perf_writer_std::{perf_encode::features::FormatTextProblem, PerfDataFileWriter, WriterError};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrType};
    /// let attr = PerfEventAttr { attr_type: PerfEventAttrType::Tracepoint, config: 7, ..Default::default() };
    /// let mut w = PerfDataFileWriter::new();
    /// let err = w.add_tracepoint_event_desc_from_text(&[1], &attr, "x:y", "x", "name: y\nID: 99999999999\n").unwrap_err();
    /// assert!(matches!(err, WriterError::FormatText(e) if e.problem == FormatTextProblem::IdOutOfRange));
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
        crate::model::session::check_system_name(system)?;
        // Before the parser: tracepoint_decode 0.5 overflows on numbers above u32::MAX.
        check_format_text(format_text.as_bytes()).map_err(WriterError::FormatText)?;
        let long_is_64 = match self.session.tracing.long_size {
            0 => this_machine::long_size() == 8,
            n => n == 8,
        };
        let format = PerfEventFormat::parse(long_is_64, system, format_text)
            .ok_or(WriterError::BadFormatText)?;
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

/// The output says it has no room left: retrying will not help.
fn is_full(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge
    )
}

/// A writer dropped with its output open finishes it, ignoring errors (`drop` cannot return
/// them): a file is finalized (when that fails, it is finalized with what reached it, as
/// [`finish_truncated`](PerfWriter::finish_truncated) does; when that fails too, it is left
/// as it was), a pipe-mode stream gets what was not sent yet and is flushed. A record begun
/// and not finished is dropped. Records still waiting for their description (file mode,
/// strict mode: see [`set_strict`](PerfWriter::set_strict)) are dropped too, with every
/// record after the first of them: the file ends before it, and perf reads it. To close
/// without finalizing, call [`close_no_finalize`](PerfWriter::close_no_finalize) first; to
/// see errors, call [`finish`](PerfWriter::finish).
impl<O: OutputMode> Drop for PerfWriter<O> {
    fn drop(&mut self) {
        // Records still waiting for their descriptions are not written into a file perf
        // would refuse: the data ends before the first of them.
        self.drop_undescribed();
        if self.out.is_some() && self.finish_output().is_err() && self.out.is_some() {
            let _best_effort: io::Result<(u64, u64)> = self.finish_truncated_io();
        }
    }
}

impl<O: OutputMode> PerfWriter<O> {
    /// Ends the data before the first record that still waits for its description (or
    /// for HEADER_COMPRESSED), dropping it and every record after it: what a dropped or
    /// salvaged file keeps.
    fn drop_undescribed(&mut self) {
        if let (Some(first), Some(out)) = (self.check.first_undescribed(), self.out.as_mut()) {
            self.check.abandon();
            out.drop_from(first.pos, first.records);
            self.check.forget_undescribed();
        }
    }
}

/// Refuses a tracing-data text of 2 GiB or more (perf reads sizes as `int`).
fn blob_len(what: &'static str, data: &[u8]) -> Result<(), WriterError> {
    if data.len() > MAX_BLOB {
        return Err(WriterError::Encode(perf_encode::EncodeError::TooLong {
            what,
            len: data.len() as u64,
            max: MAX_BLOB as u64,
        }));
    }
    Ok(())
}

/// The error of a refused tracing-data text.
fn text_err(part: &'static str) -> impl Fn(FormatTextError) -> WriterError {
    move |error| WriterError::TracingDataText { part, error }
}

fn set_blob(dst: &mut Vec<u8>, data: &[u8]) {
    dst.clear();
    dst.extend_from_slice(data);
}
