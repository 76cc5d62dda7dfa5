//! Records: a generic record writer; typed kernel records (SAMPLE laid out by the attr's
//! `sample_type`, COMM, MMAP, MMAP2, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE, SWITCH,
//! KSYMBOL, READ), each with the `sample_id` trailer its attr asks for; the records tools
//! write (FINISHED_ROUND, FINISHED_INIT, ID_INDEX, TIME_CONV, EVENT_UPDATE, THREAD_MAP,
//! CPU_MAP, COMPRESSED around caller-given zstd bytes); pipe mode's header records (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA);
//! parsers of SAMPLE records and trailers by layout; and a framing checker for raw record
//! streams.

mod encode;
mod framing;
mod parse;
pub(crate) mod sample;
mod wire;

pub use encode::{
    zstd_pad_len, BasicSampleRecord, Comm, Compressed, CpuMap, EventUpdateName, Exit, FinishedInit,
    FinishedRound, Fork, HeaderAttr, HeaderFeature, HeaderTracingData, HeaderTracingDataOf,
    IdIndex, Ksymbol, Lost, LostSamples, Mmap, Mmap2, Mmap2File, ReadRecord, Record, RecordBody,
    SampleRecord, Switch, SwitchCpuWide, Task, ThreadMap, ThreadMapEntry, Throttle,
    MAX_COMPRESSED_DATA, MAX_PADDED_DATA, ZSTD_PAD_MIN, ZSTD_SKIPPABLE_MAGIC,
};
pub use framing::{
    first_plain_record, header_type_and_size, is_plain_record, payload_len, record_extent,
    FramingError, RecordExtent, RecordFault, RecordFramer, RecordStart, RecordWalker, SizeFault,
    Step, MAX_RECORD_LEN,
};
pub use parse::auxtrace_info::{ParsedAuxtraceInfo, SwitchEvent, SwitchesNeedingCpu};
pub use parse::cpu_map::ParsedCpuMap;
pub use parse::sample::parse_sample;
pub use sample::field_choices::{FieldLength, SampleField};
pub use sample::fields::{
    BranchEntry, BranchStack, ParsedBranchStack, ParsedRegs, Regs, StackUser, WeightStruct,
};
pub use sample::layout::SampleLayout;
pub use sample::read_values::{
    ParsedReadCounters, ParsedReadValues, ReadCounters, ReadGroup, ReadValue, ReadValues,
};
pub use sample::sample_id::{id_of_non_sample, SampleId, SampleIdTrailer};
pub use sample::table::{CallchainPlace, ParsedSample, RawPlace, Sample, SAMPLE_FIELDS};
pub use wire::error::ParseError;
pub use wire::pair::{PidTid, SampleCpu};
pub use wire::reader::U64Array;
