//! [`OutputMode`]: what differs between file mode and pipe mode.

use crate::compression::{Compression, CompressionStats};
use crate::session::Session;
use perf_encode::Endian;
use std::io::{self, IoSlice};

mod sealed {
    pub trait Sealed {}
    impl<W: std::io::Write + std::io::Seek> Sealed for crate::FileOutput<W> {}
    impl<W: std::io::Write> Sealed for crate::PipeOutput<W> {}
}

/// How a [`PerfWriter`](crate::PerfWriter) lays out its output: [`FileOutput`](crate::FileOutput)
/// (file mode, needs `Seek`) or [`PipeOutput`](crate::PipeOutput) (pipe mode, `Write` only).
/// Implemented by this crate only.
pub trait OutputMode: Sized + sealed::Sealed {
    /// The stream written to.
    type Stream;

    /// Pipe mode: every description and feature travels in a record of its own, so it
    /// must fit one (see [`PerfPipeWriter`](crate::PerfPipeWriter)).
    #[doc(hidden)]
    const PIPE: bool = false;

    #[doc(hidden)]
    fn open(stream: Self::Stream, endian: Endian) -> io::Result<Self>;
    #[doc(hidden)]
    fn write_records(&mut self, session: &Session, data: &[u8]) -> io::Result<()>;
    /// [`write_records`](Self::write_records) for `data` known to be one whole plain
    /// record in the output's byte order.
    #[doc(hidden)]
    fn write_known_record(&mut self, session: &Session, data: &[u8]) -> io::Result<()>;
    /// [`write_records_vectored`](Self::write_records_vectored) for `bufs` known to be `n`
    /// whole plain records in the output's byte order; all of them or none.
    #[doc(hidden)]
    fn write_known_records(
        &mut self,
        session: &Session,
        bufs: &[IoSlice<'_>],
        n: u64,
    ) -> io::Result<()>;
    #[doc(hidden)]
    fn write_records_vectored(
        &mut self,
        session: &Session,
        bufs: &[IoSlice<'_>],
    ) -> io::Result<usize>;
    #[doc(hidden)]
    fn write_own_record(&mut self, session: &Session, record: OwnRecord) -> io::Result<()>;
    #[doc(hidden)]
    fn reserve(&mut self, session: &Session, len: usize) -> io::Result<()>;
    #[doc(hidden)]
    fn flush(&mut self, session: &Session) -> io::Result<()>;
    #[doc(hidden)]
    fn partial_len(&self) -> u64;
    /// The record begun and not finished in the output, if any.
    #[doc(hidden)]
    fn partial_record(&self) -> Option<crate::PartialRecord>;
    #[doc(hidden)]
    fn max_split(&self) -> Option<u64>;
    #[doc(hidden)]
    fn abandon_partial(&mut self) -> u64;
    /// Ends the data at stream position `pos`, a record boundary with `records` whole
    /// records before it (what follows is dropped; the file is finalized after it). Pipe
    /// mode cannot take back what it sent: nothing changes.
    #[doc(hidden)]
    fn drop_from(&mut self, pos: u64, records: u64);
    #[doc(hidden)]
    fn salvage(&mut self, session: &Session) -> io::Result<(u64, u64)>;
    #[doc(hidden)]
    fn finalize(&mut self, session: &Session) -> io::Result<()>;
    #[doc(hidden)]
    fn into_stream(self) -> io::Result<Self::Stream>;
    #[doc(hidden)]
    fn position(&self) -> u64;
    /// Settles what goes before the next record, so that [`position`](Self::position) says
    /// where it will go (file mode: the recovery block before the first record).
    #[doc(hidden)]
    fn prepare_records(&mut self, _session: &Session) {}
    /// Whole records in the stream (at a record boundary: all of them).
    #[doc(hidden)]
    fn records(&self) -> u64;
    #[doc(hidden)]
    fn accepts_new_tracepoint_formats(&self) -> bool;
    #[doc(hidden)]
    fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()>;
    #[doc(hidden)]
    fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>>;
    /// perf can read compressed records in this mode and byte order.
    #[doc(hidden)]
    fn compression_readable(endian: Endian) -> bool;
}

/// Records the writer writes on the caller's request.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum OwnRecord {
    /// FINISHED_ROUND.
    FinishedRound,
    /// FINISHED_INIT.
    FinishedInit,
}
