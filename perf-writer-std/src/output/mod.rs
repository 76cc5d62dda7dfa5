//! The output: how records and descriptions reach the stream. [`OutputMode`] is what differs
//! between file mode ([`FileOutput`](crate::FileOutput): records stream into the data
//! section, finalize writes the features and the header) and pipe mode
//! ([`PipeOutput`](crate::PipeOutput): descriptions and features travel as records). Both
//! write through a `RecordStream` (framing, counts, the unfinished record held back) over an
//! `OutputBuffer`.

use crate::compress::{Compression, CompressionStats};
use crate::model::trace_model::TraceModel;
use perf_encode::Endian;
use std::io::{self, IoSlice};

pub(crate) mod buffer;
pub(crate) mod file_mode;
pub(crate) mod pipe_mode;
pub(crate) mod record_stream;
pub mod recovery_block;

/// True when `data` is one whole FINISHED_ROUND of the 8 bytes of its header (its body is
/// empty): not a plain record by its type, but framed as simply. Uncompressed, the stream
/// takes it as a plain one ([`Mode::write_known_record`]); compressing, it ends a round
/// and takes the general way.
#[inline]
pub(crate) fn is_whole_round(endian: Endian, data: &[u8]) -> bool {
    data.first_chunk::<8>().is_some_and(|head| {
        let (type_, size) = perf_encode::records::header_type_and_size(endian, head);
        type_ == perf_abi::record_type::FINISHED_ROUND && size == 8 && data.len() == 8
    })
}

/// How a [`PerfWriter`](crate::PerfWriter) lays out its output: [`FileOutput`](crate::FileOutput)
/// (file mode, needs `Seek`) or [`PipeOutput`](crate::PipeOutput) (pipe mode, `Write` only).
/// Implemented by this crate only: what a mode does for the writer is the crate's own.
// The supertrait is crate-private, which seals this trait (no other crate can implement it)
// and keeps the writer's internals (the model, the compression statistics) out of the API.
#[allow(private_bounds)]
pub trait OutputMode: Sized + Mode<Self::Stream> {
    /// The stream written to.
    type Stream;

    /// Pipe mode: every description and feature travels in a record of its own, so it
    /// must fit one (see [`PerfPipeWriter`](crate::PerfPipeWriter)).
    const PIPE: bool;
}

/// What an output mode does for the writer, over a stream of type `S`.
pub(crate) trait Mode<S>: Sized {
    fn open(stream: S, endian: Endian) -> io::Result<Self>;
    fn write_records(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()>;
    /// [`write_records`](Self::write_records) for `data` known to be one whole plain
    /// record in the output's byte order, or one whole FINISHED_ROUND ([`is_whole_round`]).
    fn write_known_record(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()>;
    /// [`write_records_vectored`](Self::write_records_vectored) for `bufs` known to be `n`
    /// whole plain records in the output's byte order; all of them or none.
    fn write_known_records(
        &mut self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
        n: u64,
    ) -> io::Result<()>;
    fn write_records_vectored(
        &mut self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
    ) -> io::Result<usize>;
    fn write_own_record(&mut self, model: &TraceModel, record: OwnRecord) -> io::Result<()>;
    fn reserve(&mut self, model: &TraceModel, len: usize) -> io::Result<()>;
    fn flush(&mut self, model: &TraceModel) -> io::Result<()>;
    fn partial_len(&self) -> u64;
    /// The record begun and not finished in the output, if any.
    fn partial_record(&self) -> Option<crate::PartialRecord>;
    fn max_split(&self) -> Option<u64>;
    fn abandon_partial(&mut self) -> u64;
    /// Ends the data at stream position `pos`, a record boundary with `records` whole
    /// records before it (what follows is dropped; the file is finalized after it). Pipe
    /// mode cannot take back what it sent: nothing changes.
    fn drop_from(&mut self, pos: u64, records: u64);
    fn finalize_truncated(&mut self, model: &TraceModel) -> io::Result<(u64, u64)>;
    fn finalize(&mut self, model: &TraceModel) -> io::Result<()>;
    fn into_stream(self) -> io::Result<S>;
    fn position(&self) -> u64;
    /// Settles what goes before the next record, so that [`position`](Self::position) says
    /// where it will go (file mode: the recovery block before the first record).
    fn prepare_records(&mut self, _model: &TraceModel) {}
    /// Whole records in the stream (at a record boundary: all of them).
    fn records(&self) -> u64;
    /// Records were taken: in the stream, or held by its compressor.
    fn took_records(&self) -> bool;
    fn accepts_new_tracepoint_formats(&self) -> bool;
    fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()>;
    fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>>;
    /// perf can read compressed records in this mode and byte order.
    fn compression_readable(endian: Endian) -> bool;
}

/// Records the writer writes on the caller's request.
#[derive(Clone, Copy, Debug)]
pub(crate) enum OwnRecord {
    /// FINISHED_ROUND.
    FinishedRound,
    /// FINISHED_INIT.
    FinishedInit,
}
