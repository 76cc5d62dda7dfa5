//! Opening and closing the output: the constructors, `create_file`, `open_writer`, the
//! finishing calls and what a dropped writer does.

use crate::check::record_check::RecordCheck;
use crate::error::io_err;
use crate::error::{OutputError, RecordError};
use crate::model::trace_model::TraceModel;
use crate::output::OutputMode;
use crate::{PerfWriter, SharedIoError, WriterError};
use perf_encode::Endian;
use std::fs::File;
use std::io;
use std::path::Path;

impl<O: OutputMode<Stream = File>> PerfWriter<O> {
    /// A writer with no output open, writing in this machine's byte order.
    pub fn new() -> Self {
        Self::new_with_endian(Endian::NATIVE)
    }

    /// A writer with no output open that writes in `endian`.
    ///
    /// Event bytes given to [`write_event_data`](Self::write_event_data) must be in that byte
    /// order too.
    pub fn new_with_endian(endian: Endian) -> Self {
        PerfWriter::closed(endian)
    }

    /// Creates (truncates) the file at `path` and starts the output in it.
    ///
    /// perf reads pipe-mode files from a path too. Settings made while no output was open
    /// are kept for the new one, also when creating the file fails.
    ///
    /// # Errors
    ///
    /// [`OutputError::AlreadyOpen`] while an output is open (nothing is created);
    /// [`OutputError::Io`] when the file cannot be created or its first bytes written.
    pub fn create_file(&mut self, path: impl AsRef<Path>) -> Result<(), WriterError> {
        if self.out.is_some() {
            return Err(WriterError::Output(OutputError::AlreadyOpen));
        }
        let file = File::create(path).map_err(WriterError::from)?;
        self.open_writer(file)
    }
}

impl<O: OutputMode<Stream = File>> Default for PerfWriter<O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: OutputMode> PerfWriter<O> {
    /// A writer whose output is `stream`, already started, in this machine's byte order.
    ///
    /// The writer buffers the stream itself. A file-mode file begins at the stream's current
    /// position; a pipe-mode stream gets nothing until the first event, flush or finish.
    ///
    /// # Errors
    ///
    /// [`OutputError::Io`] when the stream refuses the first bytes (file mode).
    pub fn from_writer(stream: O::Stream) -> Result<Self, WriterError> {
        Self::from_writer_with_endian(stream, Endian::NATIVE)
    }

    /// A writer whose output is `stream`, already started, writing in `endian`.
    ///
    /// # Errors
    ///
    /// As [`from_writer`](Self::from_writer).
    pub fn from_writer_with_endian(stream: O::Stream, endian: Endian) -> Result<Self, WriterError> {
        let mut writer = PerfWriter::closed(endian);
        writer.open_writer(stream)?;
        Ok(writer)
    }

    /// A writer with no output, in strict mode.
    fn closed(endian: Endian) -> Self {
        PerfWriter {
            model: TraceModel::new(endian, O::PIPE),
            out: None,
            check: RecordCheck::new(true),
            scratch: Vec::new(),
        }
    }
}

impl<O: OutputMode> PerfWriter<O> {
    /// Starts output on `stream`.
    ///
    /// # Errors
    ///
    /// [`OutputError::AlreadyOpen`] while an output is open; otherwise as
    /// [`from_writer`](Self::from_writer).
    pub fn open_writer(&mut self, stream: O::Stream) -> Result<(), WriterError> {
        if self.out.is_some() {
            return Err(WriterError::Output(OutputError::AlreadyOpen));
        }
        let out = O::open(stream, self.model.endian())?;
        self.check.reset_output(!O::PIPE);
        self.check.opened(out.position());
        self.out = Some(out);
        Ok(self.start_compression()?)
    }

    /// True while an output is open (from `create_file`, `open_writer` or `from_writer` to
    /// the finish or close).
    pub fn is_open(&self) -> bool {
        self.out.is_some()
    }

    /// The byte order this writer writes.
    pub fn endian(&self) -> Endian {
        self.model.endian()
    }

    /// Closes the output (if any) without finalizing, forgetting every setting and event
    /// description.
    ///
    /// A file is left unreadable; a pipe stream ends where it is (buffered bytes are
    /// written).
    pub fn close_no_finalize(&mut self) {
        self.out = None;
        self.model.reset();
        self.check.reset_output(!O::PIPE);
    }

    /// Finalizes the output and closes it: [`finish`](Self::finish) without the stream.
    ///
    /// # Errors
    ///
    /// As [`finish`](Self::finish).
    pub fn finalize_and_close(&mut self) -> Result<(), WriterError> {
        self.finish().map(drop)
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
    /// # Errors
    ///
    /// On error nothing is lost unless said below: the writer stays open with its data and
    /// settings, and `finish` can be called again (after more events, or a fixed setting); a
    /// failed write is taken up again where it stopped.
    ///
    /// - [`OutputError::NotOpen`]: no output.
    /// - [`RecordError::Undescribed`] (file mode, strict mode, see
    ///   [`set_strict`](Self::set_strict)): records still wait for their event description,
    ///   tracepoint format or HEADER_COMPRESSED; nothing changed. Add what they need and
    ///   finish again.
    /// - [`EventError::Indistinguishable`](crate::EventError::Indistinguishable) (file
    ///   mode): the events are ones perf cannot tell apart, taken for a perf stat session
    ///   (see [`add_event_desc`](Self::add_event_desc)), and HEADER_STAT was cleared since;
    ///   set it again and finish again. Dropping the writer sets it.
    /// - [`RecordError::PartialDropped`]: a record begun and not finished was dropped
    ///   (as [`abandon_partial_record`](Self::abandon_partial_record) does) and the output
    ///   finalized with the records before it; it stays open, and the next `finish` returns
    ///   it (dropping the writer closes it).
    /// - [`OutputError::Truncated`]: the output said it is full (`StorageFull`,
    ///   `QuotaExceeded`, `FileTooLarge`); file mode finalized the file with what reached it,
    ///   as [`finish_truncated`](Self::finish_truncated) does, and closed it.
    /// - [`OutputError::Io`] and the refusals of finalize (e.g.
    ///   [`EventError::MissingTracepointFormat`](crate::EventError::MissingTracepointFormat)): the writer stays open.
    pub fn finish(&mut self) -> Result<O::Stream, WriterError> {
        Ok(self.finish_output()?)
    }

    /// [`finish`](Self::finish) as `io::Result`: the output's error kinds decide whether
    /// the file is salvaged, and `drop` salvages on any error.
    fn finish_output(&mut self) -> io::Result<O::Stream> {
        if self.out.is_none() {
            return Err(io_err(WriterError::Output(OutputError::NotOpen)));
        }
        if let Some(waiting) = self.check.undescribed(&self.model) {
            return Err(io_err(WriterError::Record(RecordError::Undescribed(
                waiting,
            ))));
        }
        self.model.check_told_apart().map_err(io_err)?;
        let dropped = self.partial_record();
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::Output(OutputError::NotOpen)));
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
                .ok_or_else(|| io_err(WriterError::Output(OutputError::NotOpen)))?;
            out.finalize(&self.model)
        });
        if let Err(e) = finalized {
            if !is_full(&e) {
                return Err(e);
            }
            return Err(match self.finish_truncated() {
                Ok((kept_records, kept_bytes)) => {
                    io_err(WriterError::Output(OutputError::Truncated {
                        kept_records,
                        kept_bytes,
                        error: SharedIoError::new(e),
                    }))
                }
                Err(_) => e,
            });
        }
        if let Some(partial) = dropped {
            // The file is whole without it; the output stays open until finished again.
            return Err(io_err(WriterError::Record(RecordError::PartialDropped(
                partial,
            ))));
        }
        let out = self
            .out
            .take()
            .ok_or_else(|| io_err(WriterError::Output(OutputError::NotOpen)))?;
        self.model.reset();
        self.check.reset_output(!O::PIPE);
        out.into_stream()
    }

    /// Finalizes a file whose output keeps failing (a full disk, a dead device) with the
    /// records that reached it, and closes it; returns the records and data bytes kept.
    ///
    /// The file keeps the whole records known to have reached the output (each buffer sent
    /// ends on a record boundary the writer remembers), as many as leave room, within the
    /// bytes already written, for the file's tail (a full disk still lets a file's own bytes
    /// be written again); events still buffered are dropped.
    ///
    /// # Errors
    ///
    /// [`OutputError::NotOpen`]; [`OutputError::Io`] when there is no room even for an
    /// empty data section or the output refuses to be rewritten, and always in pipe mode,
    /// which has nothing to rewrite (every record flushed is readable as it is). The writer
    /// then stays open as it was.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
    ///
    /// let attr = PerfEventAttr {
    ///     attr_type: PerfEventAttrType::Software,
    ///     sample_type: PerfEventAttrSampleType::Identifier,
    ///     ..Default::default()
    /// };
    /// let mut file = std::io::Cursor::new(Vec::new());
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(&mut file)?;
    /// w.add_event_desc(&[1], &attr, "cpu-clock")?;
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
        self.drop_undescribed();
        self.model.demote_formatless_tracepoints();
        let Some(out) = self.out.as_mut() else {
            return Err(WriterError::Output(OutputError::NotOpen));
        };
        self.check.abandon();
        let kept = out.finalize_truncated(&self.model)?;
        self.out = None;
        self.model.reset();
        self.check.reset_output(!O::PIPE);
        Ok(kept)
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
/// record after the first of them: the file ends before it, and perf reads it. A tracepoint
/// event whose format never came is written as a software event of the same name, ids and
/// layout (perf refuses a tracepoint without its format). To close
/// without finalizing, call [`close_no_finalize`](PerfWriter::close_no_finalize) first; to
/// see errors, call [`finish`](PerfWriter::finish).
impl<O: OutputMode> Drop for PerfWriter<O> {
    fn drop(&mut self) {
        // Records still waiting for their descriptions are not written into a file perf
        // would refuse: the data ends before the first of them.
        self.drop_undescribed();
        // Formats can no longer come: their events are kept as software events.
        self.model.demote_formatless_tracepoints();
        // Events perf cannot tell apart (which have no records that need telling): perf
        // reads the file as the stat session it is.
        self.model.mark_untold_as_stat();
        if self.out.is_some() && self.finish_output().is_err() && self.out.is_some() {
            let _best_effort: Result<(u64, u64), WriterError> = self.finish_truncated();
        }
    }
}

impl<O: OutputMode> PerfWriter<O> {
    /// Ends the data before the first record that still waits for its description (or
    /// for HEADER_COMPRESSED), dropping it and every record after it: what a dropped or
    /// salvaged file keeps.
    fn drop_undescribed(&mut self) {
        if let (Some(first), Some(out)) =
            (self.check.first_undescribed(&self.model), self.out.as_mut())
        {
            self.check.abandon();
            out.drop_from(first.pos, first.records);
            self.check.forget_undescribed();
        }
    }
}
