//! [`PerfWriter`]: the native writer, in file mode (`PerfWriter<FileOutput<W>>`) or pipe
//! mode ([`PerfPipeWriter`]), and [`PerfDataFileWriter`](compat::PerfDataFileWriter), its
//! file-mode face with `tracepoint_perf` 0.5's signatures (`compat`). Settings and event
//! descriptions live in a model shared by both modes; the mode decides how they reach the
//! stream.
//!
//! The native methods, one file per task: opening and finishing (`lifecycle`), records as
//! bytes (`event_data`), event descriptions (`event_descs`), feature headers given as bytes
//! or plain values (`headers`), the synthesized TRACING_DATA's parts (`tracing_data`), the
//! strict-mode and derived-header switches (`check_settings`), the compression setting
//! (`compression_setting`), the typed feature setters (`typed_features`) and the typed
//! records (`typed_records`). Every fallible one returns `Result<_, WriterError>`.

mod check_settings;
pub(crate) mod compat;
mod compression_setting;
mod event_data;
mod event_descs;
mod headers;
mod lifecycle;
mod tracing_data;
mod typed_features;
mod typed_records;

use crate::check::record_check::RecordCheck;
use crate::model::trace_model::TraceModel;
use crate::output::OutputMode;
use crate::PipeOutput;
use std::fmt;
use std::fs::File;

/// Writes `perf.data` in pipe mode, over any `Write` (a pipe, a socket, stdout): every header
/// is a record, sent before the first event that needs it, so the stream is readable as far
/// as it got — `perf script -i -` reads it live, and a writer killed mid-way leaves every
/// flushed event readable.
///
/// A type alias of the native writer (`tracepoint_perf` 0.5 had no pipe-mode writer, so
/// there is no compatibility face): its methods are [`PerfWriter`]'s, and switching from
/// `PerfWriter<FileOutput<W>>` is a change of type. Event descriptions
/// may be added after events were written (each gets a HEADER_ATTR and an EVENT_UPDATE name
/// record before the next event); tracepoint formats and the tracing data's other parts
/// (`set_tracing_data_*`, or a TRACING_DATA given to `set_header`) must come before the
/// first event, because perf reads the tracing
/// data once: later calls are refused ([`TracingError::AfterStart`](crate::TracingError::AfterStart)). Feature setters called later are sent as
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
/// w.add_event_desc(&[1], &attr, "cpu-clock")?;
/// w.write_event_data(&[9, 0, 0, 0, 2, 0, 16, 0, 1, 0, 0, 0, 0, 0, 0, 0])?; // SAMPLE, id 1
/// w.flush()?; // everything so far is readable now
/// let stream = w.finish()?;
/// assert_eq!(&stream[..16], b"PERFILE2\x10\0\0\0\0\0\0\0");
/// # Ok::<(), perf_writer_std::WriterError>(())
/// ```
pub type PerfPipeWriter<W = File> = PerfWriter<PipeOutput<W>>;

/// The writer, generic over its [`OutputMode`]: `PerfWriter<`[`FileOutput<W>`](crate::FileOutput)`>`
/// writes file mode over a `Write + Seek`, [`PerfPipeWriter`] pipe mode over a `Write`.
///
/// Every method that can fail returns `Result<_, `[`WriterError`](crate::WriterError)`>`;
/// setters whose value cannot be refused return nothing.
/// [`PerfDataFileWriter`](crate::PerfDataFileWriter) is the file-mode writer with
/// `tracepoint_perf` 0.5's signatures, over this one.
///
/// ```
/// use perf_writer_std::{FileOutput, PerfHeaderIndex, PerfWriter};
/// use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};
///
/// let attr = PerfEventAttr {
///     attr_type: PerfEventAttrType::Software,
///     sample_type: PerfEventAttrSampleType::Identifier.or(PerfEventAttrSampleType::Time),
///     ..Default::default()
/// };
/// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
/// w.add_event_desc(&[1], &attr, "cpu-clock")?;
/// w.set_string_header(PerfHeaderIndex::Hostname, b"vm")?;
/// // A SAMPLE record: header {type 9, misc 2 (user), size 24}, then IDENTIFIER and TIME.
/// let mut sample = vec![9, 0, 0, 0, 2, 0, 24, 0];
/// sample.extend_from_slice(&1u64.to_ne_bytes());
/// sample.extend_from_slice(&1000u64.to_ne_bytes());
/// w.write_event_data(&sample)?;
/// let bytes = w.finish()?.into_inner();
/// assert_eq!(&bytes[..8], b"PERFILE2");
/// # Ok::<(), perf_writer_std::WriterError>(())
/// ```
pub struct PerfWriter<O: OutputMode> {
    /// Settings and descriptions (other modules add typed setters on top of them).
    pub(crate) model: TraceModel,
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
            .field("endian", &self.model.endian())
            .field("event_descs", &self.model.descs().len())
            .field("file_pos", &self.file_pos())
            .field("strict", &self.check.strict())
            .finish()
    }
}
