//! The `perf.data` file format of Linux `perf`, as plain-old-data types and constants.
//!
//! Every struct here is `#[repr(C)]` with no implicit padding and derives zerocopy's
//! [`IntoBytes`](zerocopy::IntoBytes), [`FromBytes`](zerocopy::FromBytes),
//! [`Immutable`](zerocopy::Immutable) and [`KnownLayout`](zerocopy::KnownLayout) (and
//! bytemuck's `Pod` and `Zeroable` with the `bytemuck` feature). Field values are numbers as
//! the program sees them; byte order is applied when they are encoded (see `perf-encode`).
//! Sizes and field offsets are checked against the kernel ABI at compile time.
//!
//! Constants keep the names perf gives them, minus the `PERF_` prefix where a module already
//! says it: [`record_type::SAMPLE`] is `PERF_RECORD_SAMPLE`, [`feature::HOSTNAME`] is
//! `HEADER_HOSTNAME`.
//!
//! ```
//! use perf_abi::{PerfFileHeader, PERF_MAGIC, FILE_HEADER_SIZE};
//! use zerocopy::IntoBytes;
//!
//! let header = PerfFileHeader { magic: PERF_MAGIC, size: FILE_HEADER_SIZE, ..Default::default() };
//! assert_eq!(header.as_bytes().len(), 104);
//! assert_eq!(&header.as_bytes()[..8], b"PERFILE2"); // on a little-endian host
//! # assert!(cfg!(target_endian = "little"));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attr;
pub mod attr_flags;
pub mod auxtrace_priv;
mod event_header;
pub mod feature;
mod feature_payloads;
pub mod field_widths;
mod file_header;
mod kernel_records;
pub mod misc;
mod pipe_records;
pub mod read_format;
pub mod record_fields;
pub mod record_type;
pub mod sample_type;
#[cfg(feature = "tracepoint_decode")]
mod tracepoint_decode_conv;

pub use attr::PerfEventAttr;
pub use event_header::PerfEventHeader;
pub use feature_payloads::{
    ClockData, CompressedInfo, EventDescHeader, NrCpus, SampleTime, ANON_GROUP_NAME, CACHE_VERSION,
    CLOCK_DATA_VERSION, COMPRESSED_VERSION, COMPRESSION_ZSTD, DIR_FORMAT_VERSION,
    MEM_TOPOLOGY_VERSION,
};
pub use file_header::{
    PerfFileHeader, PerfFileSection, PerfPipeHeader, FILE_HEADER_SIZE, PERF_MAGIC,
    PERF_MAGIC_SWAPPED, PIPE_HEADER_SIZE,
};
pub use kernel_records::{LostRecord, LostSamplesRecord};
pub use pipe_records::{IdIndexEntry, Stat, TimeConv, MAX_FEATURE_PAYLOAD};
#[cfg(feature = "tracepoint_decode")]
pub use tracepoint_decode_conv::AttrConversionError;
