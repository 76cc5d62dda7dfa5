//! Encoders of feature-section payloads, one file per feature.
//!
//! String features (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID) are a
//! [`HeaderString`](crate::HeaderString); CMDLINE is a [`StringList`](crate::StringList).
//!
//! # Tracefs texts
//!
//! An event's `format` text, as [`check_format_text`] accepts it: `name:` (letters, digits
//! and `_`), an `ID:` from 0 to 65535 and `format:` on the first three lines; then two
//! blocks of field lines each ended by an empty line (the common fields, with a 2-byte
//! `common_type`; the event's own, possibly none), with decimal numbers that fit, array
//! lengths that divide their field, and every field within the largest RAW payload; then
//! `print fmt:` last (its strings may span lines). No NUL, and no control byte but tab and
//! newline. [`FormatTextProblem`] names each rule.
//!
//! A `header_page` text, as [`check_header_page`] accepts it: field lines only, with
//! decimal numbers that fit, for `timestamp`, `commit`, optionally `overwrite`, then `data`.
//! perf 6.1 loops forever on some texts that are not.

mod build_id;
mod cache;
mod clock_data;
mod clock_resolution;
mod compressed;
mod count;
mod cpu_topology;
mod dir_format;
mod empty;
mod event_desc;
mod format_text;
mod group_desc;
mod hybrid_topology;
mod mem_topology;
mod nr_cpus;
mod numa_topology;
mod payload_check;
mod pmu_caps;
mod pmu_mappings;
mod sample_time;
mod total_mem;
mod tracepoint_raw;
mod tracing_blobs;
pub mod tracing_data;
mod tracing_data_reader;

pub use build_id::{BuildIdEntry, BuildIdFeature};
pub use cache::{CacheLevel, CpuCaches};
pub use clock_resolution::ClockResolution;
pub use compressed::read_compressed_info;
pub use cpu_topology::{CpuTopology, CpuTopologyEntry};
pub use dir_format::DirFormat;
pub use empty::{EmptyBpfList, EmptyFeature};
pub use event_desc::{event_desc_names, EventDescFeature, EventDescNames};
#[cfg(feature = "tracepoint_decode")]
pub use format_text::check_parsed_format;
pub use format_text::{
    check_format_text, check_header_page, FormatField, FormatSummary, FormatTextError,
    FormatTextProblem,
};
pub use group_desc::{GroupDesc, GroupDescFeature};
pub use hybrid_topology::{HybridNode, HybridTopology};
pub use mem_topology::{MemTopology, MemoryNode};
pub use numa_topology::{NumaNode, NumaTopology};
pub use payload_check::{check_feature_payload, FeaturePayloadError};
pub use pmu_caps::{CpuPmuCaps, PmuCap, PmuCaps, PmuCapsEntry};
pub use pmu_mappings::{PmuMapping, PmuMappings};
pub use total_mem::TotalMem;
pub use tracepoint_raw::{DynamicFields, TracepointRawProblem, TracepointRawRule};
pub use tracing_blobs::{check_header_event, check_kallsyms, check_printk, check_saved_cmdlines};
pub use tracing_data::{FormatText, TracepointFormat, TracingData};
pub use tracing_data_reader::{TracingDataError, TracingDataParts};
