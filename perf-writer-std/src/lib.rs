//! Write Linux `perf.data` files from std programs.
//!
//! [`PerfDataFileWriter`] (file mode, over any `Write + Seek`) is a drop-in replacement for
//! `tracepoint_perf` 0.5's writer: same method names and signatures, buffered, with its
//! defects fixed. [`PerfPipeWriter`] has the same methods and writes pipe mode over any
//! `Write`: readable while it is written and after a crash. Every byte is encoded by
//! [`perf_encode`]. On top of I/O and state this crate adds checks and facts derived for the
//! caller: strict mode ([`PerfWriter::set_strict`]), headers derived from the events
//! ([`PerfWriter::set_headers_from_events`]), the host description ([`HostDescription`],
//! [`PerfWriter::set_host_headers`]), the synthesized TRACING_DATA, typed records and typed
//! feature setters.
//!
//! ```no_run
//! use perf_writer_std::PerfDataFileWriter;
//! let mut w = PerfDataFileWriter::new();
//! w.create_file("perf.data")?;
//! // add_event_desc / add_tracepoint_event_desc, write_event_data, set_*_header…
//! w.finalize_and_close()?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Errors
//!
//! - **Methods of this crate** return `Result<_, `[`WriterError`]`>` when they can fail:
//!   constructors over a stream (`from_writer`, `open_writer`), `flush` and `finish`, the
//!   `try_*` variants, the typed feature setters, `set_host_headers`, `sample_layout`,
//!   `add_tracepoint_event_desc_from_text`, and the typed record writers (`write_record`,
//!   `write_sample`, `write_comm`, `write_fork`, `write_exit`, `write_lost`). An error of the output stream itself is
//!   [`WriterError::Io`]. Setters whose value cannot be refused (`set_total_mem_header`,
//!   `set_stat_header`, …) return nothing.
//! - **The methods of `tracepoint_perf` 0.5's writer** keep its signatures: `bool` for
//!   setters (each has a `try_*` variant saying why), `io::Result` for writes, with the
//!   `WriterError` inside ([`WriterError::from_io`]).
//!
//! `WriterError` converts to `io::Error` (giving back the stream's own error for
//! `WriterError::Io`) and from it, so `?` works across the two.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// A record's way through the crate: `writer` (the public face) takes it, `check` (strict mode
// and the derived headers) looks at it against what `model` says the file describes,
// `output` frames and buffers it for file or pipe mode, and `compress` packs it into
// COMPRESSED records when asked. `host` describes the machine; `error` says why a call was
// refused.
mod check;
mod compress;
mod error;
mod host;
mod model;
mod output;
pub use output::recovery_block;
mod writer;

pub use check::refusal::{MAX_PENDING_BYTES, MAX_PENDING_IDS};
pub use compress::{Compression, CompressionForm, MAX_DECOMPRESSED_CHUNK, STREAM_WINDOW};
pub use error::{
    Contradiction, PartialRecord, PendingSummary, RecordProblem, SharedIoError, WriterError,
};
pub use host::description::{
    parse_cpu_list, CacheInfo, CpuTopologyInfo, HostDescription, HybridNodeInfo, MemTopologyInfo,
    MemoryNodeInfo, NumaNodeInfo, PmuCapInfo, PmuCapsInfo, PmuInfo, UnameInfo,
};
pub use model::header_index::PerfHeaderIndex;
pub use model::session::PLACEHOLDER_EVENT_NAME;
pub use output::file_mode::FileOutput;
pub use output::pipe_mode::PipeOutput;
pub use output::record_stream::{FILE_BUFFER_SIZE, MAX_SPLIT_RECORD_LEN};
pub use output::OutputMode;
pub use perf_encode::records::MAX_RECORD_LEN;
pub use perf_encode::Endian;
pub use writer::compat::PerfDataFileWriter;
pub use writer::{PerfPipeWriter, PerfWriter};

/// The encoder crate, re-exported.
pub use perf_encode;

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
