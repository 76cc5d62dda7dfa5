//! Encoders of feature-section payloads, one file per feature.
//!
//! String features (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID) are a
//! [`HeaderString`](crate::HeaderString); CMDLINE is a [`StringList`](crate::StringList).

mod clock_data;
mod clock_resolution;
mod event_desc;
mod nr_cpus;
mod sample_time;
mod total_mem;
pub mod tracing_data;

pub use clock_resolution::ClockResolution;
pub use event_desc::EventDescFeature;
pub use total_mem::TotalMem;
pub use tracing_data::{FormatText, TracepointFormat, TracingData};
