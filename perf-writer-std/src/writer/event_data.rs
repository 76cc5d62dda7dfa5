//! Writing records as bytes: `write_event_data` and its vectored form, the records the
//! writer adds on request (FINISHED_INIT, FINISHED_ROUND), the record begun and not
//! finished, and flushing.

use crate::check::checked_events::Quick;
use crate::error::io_err;
use crate::error::{OutputError, RecordError};
use crate::output::{OutputMode, OwnRecord};
use crate::{PerfWriter, WriterError};
use std::io::{self, IoSlice};

/// A checked vectored call of at most this many bytes is joined into one buffer and checked
/// as one `write_event_data` call (cheaper than walking records across slices).
const JOIN_VECTORED_UP_TO: usize = 256 * 1024;

impl<O: OutputMode> PerfWriter<O> {
    /// The record begun and not finished, if any: its type, its whole length once its
    /// header is whole, the bytes given so far and its file offset (what the errors of a
    /// refused call and of finalize name; see
    /// [`abandon_partial_record`](Self::abandon_partial_record)).
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.write_event_data(&[3, 0, 0, 0, 0, 0, 48, 0, 1, 0, 0, 0])?; // 12 of a 48-byte COMM
    /// let p = w.partial_record().unwrap();
    /// assert_eq!((p.type_, p.len, p.given, p.offset), (3, Some(48), 12, 104));
    /// # Ok::<(), perf_writer_std::WriterError>(())
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
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn partial_record_len(&self) -> u64 {
        let held = self.check.held_back() as u64;
        let out = self.out.as_ref().map_or(0, |o| o.partial_len());
        held.saturating_add(out)
    }

    /// Drops the record begun and not finished, if any, and returns the bytes dropped.
    ///
    /// Such a record is one whose `size`, or announced payload, is more than the bytes
    /// given. The stream goes on after the last whole record, as if the record had never
    /// been started. Its bytes never reached a pipe-mode output (the writer holds back a record split
    /// across calls until it is whole, up to
    /// [`MAX_SPLIT_RECORD_LEN`](crate::MAX_SPLIT_RECORD_LEN)). In file mode a record is held
    /// back up to [`FILE_BUFFER_SIZE`](crate::FILE_BUFFER_SIZE) bytes; a longer one goes to
    /// the file as it comes, and dropping it moves the file back to its start, to be
    /// written over (bytes of it past the end of the finished file may remain there, after
    /// everything perf reads).
    pub fn abandon_partial_record(&mut self) -> u64 {
        let held = self.check.abandon() as u64;
        let out = self.out.as_mut().map_or(0, |o| o.abandon_partial());
        self.apply_waiting_check_settings();
        held.saturating_add(out)
    }

    /// Writes out everything buffered but a record begun and not finished.
    ///
    /// In pipe mode the stream is then readable up to here; in file mode the file stays
    /// unreadable until finalized.
    ///
    /// # Errors
    ///
    /// [`OutputError::NotOpen`]; [`OutputError::Io`] when the output fails (what it did
    /// not take stays buffered for the next call).
    pub fn flush(&mut self) -> Result<(), WriterError> {
        match self.out.as_mut() {
            Some(out) => Ok(out.flush(&self.model)?),
            None => Err(WriterError::Output(OutputError::NotOpen)),
        }
    }

    /// Stream position where the next event byte goes, or `None` when no output is open.
    pub fn file_pos(&self) -> Option<u64> {
        let held_back = self.check.held_back() as u64;
        self.out
            .as_ref()
            .map(|o| o.position().saturating_add(held_back))
    }

    /// Appends records given as bytes in the output's byte order.
    ///
    /// `data` holds records (`perf_event_header` then payload, sizes multiples of 8 but for
    /// the COMPRESSED, HEADER_BUILD_ID and HEADER_FEATURE records perf writes unpadded); a
    /// record may be split across calls (see
    /// [`abandon_partial_record`](Self::abandon_partial_record)). An id in a record must
    /// belong to an event description added before finalize (in pipe mode: before the
    /// record; in strict mode a record is checked by its description when that comes, see
    /// [`set_strict`](Self::set_strict)).
    ///
    /// # Errors
    ///
    /// Nothing of `data` is written on error.
    /// - [`OutputError::NotOpen`]; [`RecordError::Framing`]: bytes that are not records.
    /// - [`RecordError::Refused`]: strict mode refused a record.
    /// - [`RecordError::InsidePartial`]: a refusal while a record begun in an earlier
    ///   call waits; it names that record and whether it was dropped
    ///   ([`partial_record`](Self::partial_record) says what waits).
    /// - [`OutputError::Io`]: the output failed. The bytes of earlier calls it did not take
    ///   stay buffered, to be sent by the next write, flush or finish, and the same call may
    ///   simply be made again (`Interrupted` is retried inside).
    #[inline]
    pub fn write_event_data(&mut self, data: &[u8]) -> Result<(), WriterError> {
        self.write_event_data_io(data).map_err(WriterError::from)
    }

    /// [`write_event_data`](Self::write_event_data) as the output layer reports it (the
    /// compatibility face returns this `io::Result` as it is).
    #[inline]
    pub(crate) fn write_event_data_io(&mut self, data: &[u8]) -> io::Result<()> {
        // Inline: a record of an event already checked, or the unchecked path; the rest (the
        // full check, errors) out of line.
        match self.out.as_mut() {
            Some(out) if !self.check.active() => out.write_records(&self.model, data),
            Some(out) => match self.check.sample_passes_inline(&self.model, data) {
                Quick::Passes => out.write_known_record(&self.model, data),
                Quick::DynamicFields => self.write_event_data_dynamic(data),
                Quick::Unsettled => self.write_event_data_learned(data),
                Quick::Undescribed => self.write_event_data_waiting(data),
            },
            None => self.write_event_data_learned(data),
        }
    }

    /// [`write_event_data`](Self::write_event_data) of a tracepoint SAMPLE like the last one
    /// learned, whose RAW's dynamic fields are still to read (out of line, and small).
    #[inline(never)]
    fn write_event_data_dynamic(&mut self, data: &[u8]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) if self.check.dynamic_fields_fit(data) => {
                out.write_known_record(&self.model, data)
            }
            _ => self.write_event_data_checked(data),
        }
    }

    /// [`write_event_data`](Self::write_event_data) of a record of an event already checked
    /// (a SAMPLE with RAW, COMM, MMAP2, …: [`RecordCheck::passes_quickly`](crate::check::record_check::RecordCheck::passes_quickly)), else through the
    /// full check. Out of line, and small: the records of most traces come this way.
    #[inline(never)]
    fn write_event_data_learned(&mut self, data: &[u8]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) if self.check.passes_quickly(&self.model, data) => {
                out.write_known_record(&self.model, data)
            }
            _ => self.write_event_data_waiting(data),
        }
    }

    /// [`write_event_data`](Self::write_event_data) of a SAMPLE written before any
    /// description that is like the SAMPLEs of its group before it
    /// ([`RecordCheck::like_before`](crate::check::record_check::RecordCheck::like_before)),
    /// else through the full check. Out of line: the learned path above stays as small.
    #[inline(never)]
    fn write_event_data_waiting(&mut self, data: &[u8]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => match self.check.like_before(&self.model, data) {
                // Kept for its description once written, as the full check would.
                Some(group) => {
                    out.write_known_record(&self.model, data)?;
                    group.add(data, self.model.endian());
                    Ok(())
                }
                None => self.write_event_data_checked(data),
            },
            None => self.write_event_data_checked(data),
        }
    }

    /// Applies a strict-mode or derived-headers setting made inside a record once the
    /// stream is at a record boundary.
    pub(crate) fn apply_waiting_check_settings(&mut self) {
        self.check
            .apply_waiting_settings(&self.model, self.out.as_ref());
    }

    /// [`write_event_data`](Self::write_event_data) through the record check (strict mode,
    /// derived headers), or without an output.
    #[inline(never)]
    fn write_event_data_checked(&mut self, data: &[u8]) -> io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::Output(OutputError::NotOpen)));
        };
        self.check.apply_waiting_settings(&self.model, Some(&*out));
        let written = if !self.check.checking() {
            out.write_records(&self.model, data)
        } else {
            match self.check.write_whole_record(&self.model, out, data) {
                Some(written) => written,
                None => self.check.write(&self.model, out, &[data]).map(drop),
            }
        };
        self.check.apply_waiting_settings(&self.model, Some(&*out));
        written
    }

    /// Appends the concatenation of `bufs` as [`write_event_data`](Self::write_event_data)
    /// does; returns the number of bytes written, always all of them.
    ///
    /// # Errors
    ///
    /// As [`write_event_data`](Self::write_event_data).
    pub fn write_event_data_vectored(
        &mut self,
        bufs: &[IoSlice<'_>],
    ) -> Result<usize, WriterError> {
        self.write_event_data_vectored_io(bufs)
            .map_err(WriterError::from)
    }

    /// [`write_event_data_vectored`](Self::write_event_data_vectored) as the output layer
    /// reports it.
    fn write_event_data_vectored_io(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let Some(out) = self.out.as_mut() else {
            return Err(io_err(WriterError::Output(OutputError::NotOpen)));
        };
        if !self.check.active() {
            return out.write_records_vectored(&self.model, bufs);
        }
        self.check.apply_waiting_settings(&self.model, Some(&*out));
        if !self.check.checking() {
            let written = out.write_records_vectored(&self.model, bufs);
            self.check.apply_waiting_settings(&self.model, Some(&*out));
            return written;
        }
        let len = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len()));
        // Records of events already checked, read where they lie: no join, no second walk.
        if let Some(n) = self.check.known_records_vectored(&self.model, bufs, len) {
            return out.write_known_records(&self.model, bufs, n).map(|()| len);
        }
        if len > JOIN_VECTORED_UP_TO {
            let written = self.check.write(&self.model, out, bufs);
            self.check.apply_waiting_settings(&self.model, Some(&*out));
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
        let written = self.write_event_data_io(&joined).map(|()| len);
        self.scratch = joined;
        written
    }

    /// Appends a FINISHED_INIT record: the records describing the initial system state (COMM,
    /// MMAP, ID_INDEX, THREAD_MAP, CPU_MAP…) are all written.
    ///
    /// # Errors
    ///
    /// [`OutputError::NotOpen`]; [`RecordError::Incomplete`] inside a record begun and
    /// not finished; [`OutputError::Io`] when the output fails.
    pub fn write_finished_init(&mut self) -> Result<(), WriterError> {
        self.write_own_record(OwnRecord::FinishedInit)
    }

    /// Appends a FINISHED_ROUND record: no record before it is newer than one after it.
    ///
    /// # Errors
    ///
    /// As [`write_finished_init`](Self::write_finished_init).
    pub fn write_finished_round(&mut self) -> Result<(), WriterError> {
        self.write_own_record(OwnRecord::FinishedRound)
    }

    /// Appends a record the writer makes itself, between records.
    fn write_own_record(&mut self, record: OwnRecord) -> Result<(), WriterError> {
        if self.check.inside_record() {
            return Err(WriterError::Record(RecordError::Incomplete));
        }
        match self.out.as_mut() {
            Some(out) => Ok(out.write_own_record(&self.model, record)?),
            None => Err(WriterError::Output(OutputError::NotOpen)),
        }
    }
}
