//! Records: a generic record writer; typed kernel records (SAMPLE laid out by the attr's
//! `sample_type`, COMM, MMAP, MMAP2, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE, SWITCH,
//! KSYMBOL, READ), each with the `sample_id` trailer its attr asks for; the records tools
//! write (FINISHED_ROUND, FINISHED_INIT, ID_INDEX, TIME_CONV, EVENT_UPDATE, THREAD_MAP,
//! CPU_MAP); pipe mode's header records (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA);
//! parsers of SAMPLE records and trailers by layout; and a framing checker for raw record
//! streams.

mod comm;
mod cpu_map;
mod event_update;
mod exit;
mod finished;
mod fork;
mod framing;
mod header_attr;
mod header_feature;
mod header_tracing_data;
mod id_index;
mod kernel_record;
mod ksymbol;
mod lost;
mod lost_samples;
mod mmap;
mod mmap2;
mod parse_error;
mod read_record;
mod read_values;
mod reader;
mod record;
mod sample;
mod sample_id;
mod sample_layout;
mod sample_parse;
mod switch;
mod task;
mod thread_map;
mod throttle;
mod time_conv;

pub use comm::Comm;
pub use cpu_map::{CpuMap, CPU_MAP_CPUS, CPU_MAP_MASK, CPU_MAP_RANGE_CPUS};
pub use event_update::{EventUpdateName, EVENT_UPDATE_NAME};
pub use exit::Exit;
pub use finished::{FinishedInit, FinishedRound};
pub use fork::Fork;
pub use framing::{FramingError, RecordFramer};
pub use header_attr::HeaderAttr;
pub use header_feature::{HeaderFeature, MAX_FEATURE_PAYLOAD};
pub use header_tracing_data::HeaderTracingData;
pub use id_index::IdIndex;
pub use ksymbol::{
    Ksymbol, KSYMBOL_FLAGS_UNREGISTER, KSYMBOL_TYPE_BPF, KSYMBOL_TYPE_OOL, KSYMBOL_TYPE_UNKNOWN,
};
pub use lost::Lost;
pub use lost_samples::LostSamples;
pub use mmap::Mmap;
pub use mmap2::{Mmap2, Mmap2File, MMAP2_MAX_BUILD_ID};
pub use parse_error::ParseError;
pub use read_record::ReadRecord;
pub use read_values::{
    ParsedReadCounters, ParsedReadValues, ReadCounters, ReadGroup, ReadValue, ReadValues,
};
pub use record::{Record, MAX_RECORD_SIZE};
pub use sample::{BranchEntry, BranchStack, Regs, Sample, SampleRecord, StackUser, WeightStruct};
pub use sample_id::{id_of_non_sample, PidTid, SampleCpu, SampleId, SampleIdTrailer};
pub use sample_layout::{
    SampleLayout, BRANCH_SAMPLE_HW_INDEX, REGS_ABI_32, REGS_ABI_64, REGS_ABI_NONE, SAMPLE_ID_BITS,
};
pub use sample_parse::{parse_sample, ParsedBranchStack, ParsedRegs, ParsedSample, U64Array};
pub use switch::{Switch, SwitchCpuWide};
pub use thread_map::{ThreadMap, ThreadMapEntry};
pub use throttle::Throttle;
