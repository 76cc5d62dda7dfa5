//! Write Linux `perf.data` files from std programs.
//!
//! [`PerfDataFileWriter`] is a drop-in replacement for `tracepoint_perf` 0.5's writer (same
//! method names and signatures) over any `Write + Seek`, buffered, with its defects fixed.
//! Every byte is encoded by [`perf_encode`]; this crate adds I/O and state.
//!
//! ```no_run
//! use perf_writer_std::PerfDataFileWriter;
//! let mut w = PerfDataFileWriter::new();
//! w.create_file("perf.data")?;
//! // add_event_desc / add_tracepoint_event_desc, write_event_data, set_*_header…
//! w.finalize_and_close()?;
//! # Ok::<(), std::io::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod file_writer;
mod header_index;
mod host;
mod session;

pub use error::WriterError;
pub use file_writer::{PerfDataFileWriter, FILE_BUFFER_SIZE};
pub use header_index::PerfHeaderIndex;
pub use perf_encode::Endian;
pub use session::PLACEHOLDER_EVENT_NAME;

/// The encoder crate, re-exported.
pub use perf_encode;
