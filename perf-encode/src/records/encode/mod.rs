//! Encoders of typed records: each states its record type and writes its body; the
//! [`RecordBody`] path does the rest.

mod basic_sample;
pub(crate) mod body;
mod comm;
mod compressed;
mod cpu_map;
mod event_update;
mod finished;
mod header_attr;
mod header_feature;
mod header_tracing_data;
mod id_index;
mod ksymbol;
mod lost;
mod lost_samples;
mod mmap;
mod mmap2;
mod raw;
mod read_record;
mod sample;
mod switch;
mod task;
mod thread_map;
mod throttle;
mod time_conv;

pub use basic_sample::BasicSampleRecord;
pub use body::RecordBody;
pub use comm::Comm;
pub use compressed::{
    zstd_pad_len, Compressed, MAX_COMPRESSED_DATA, MAX_PADDED_DATA, ZSTD_PAD_MIN,
    ZSTD_SKIPPABLE_MAGIC,
};
pub use cpu_map::CpuMap;
pub use event_update::EventUpdateName;
pub use finished::{FinishedInit, FinishedRound};
pub use header_attr::HeaderAttr;
pub use header_feature::HeaderFeature;
pub use header_tracing_data::{HeaderTracingData, HeaderTracingDataOf};
pub use id_index::IdIndex;
pub use ksymbol::Ksymbol;
pub use lost::Lost;
pub use lost_samples::LostSamples;
pub use mmap::Mmap;
pub use mmap2::{Mmap2, Mmap2File};
pub use raw::Record;
pub use read_record::ReadRecord;
pub use sample::SampleRecord;
pub use switch::{Switch, SwitchCpuWide};
pub use task::{Exit, Fork, Task};
pub use thread_map::{ThreadMap, ThreadMapEntry};
pub use throttle::Throttle;
