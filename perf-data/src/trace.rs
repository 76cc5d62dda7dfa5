//! [`Trace`]: a perf.data file or stream taken apart into what a writer needs: its events
//! (attr, name, ids), its feature payloads and its records, in stored order.

use perf_writer_std::perf_encode::Endian;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use tracepoint_decode as td;

/// How the input was laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A file: header, attrs, data and feature sections.
    File,
    /// A stream: a 16-byte header, then records only.
    Pipe,
}

/// One event: what `add_event_desc` takes.
#[derive(Clone, Debug)]
pub struct Event {
    /// Its attr.
    pub attr: td::PerfEventAttr,
    /// Its name.
    pub name: String,
    /// The ids its records carry.
    pub ids: Vec<u64>,
}

/// One record of the input, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordRef {
    /// Its type.
    pub type_: u32,
    /// Its bytes in [`Trace::bytes`]: its header's size and, for the records followed by a
    /// payload (HEADER_TRACING_DATA, AUXTRACE), that payload.
    pub range: Range<usize>,
}

/// A perf.data file or stream taken apart.
#[derive(Debug)]
pub struct Trace {
    /// Where it was read from (`-` for stdin).
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its byte order.
    pub endian: Endian,
    /// File or pipe mode.
    pub mode: Mode,
    /// Its events, in EVENT_DESC order when it has one.
    pub events: Vec<Event>,
    /// Its feature payloads by feature bit, as stored (pipe mode: from HEADER_FEATURE
    /// records; TRACING_DATA from the HEADER_TRACING_DATA record).
    pub features: BTreeMap<u8, Vec<u8>>,
    /// Every record, in stored order (pipe mode: the header records included).
    pub records: Vec<RecordRef>,
    /// Bytes at the end that do not make a whole record (a stream cut short).
    pub cut_tail: usize,
}

impl Trace {
    /// The bytes of `record`.
    pub fn record_bytes(&self, record: &RecordRef) -> &[u8] {
        &self.bytes[record.range.clone()]
    }

    /// It is a perf stat session (STAT_CONFIG, STAT or STAT_ROUND records).
    pub fn has_stat_records(&self) -> bool {
        use perf_abi::record_type::{STAT, STAT_CONFIG, STAT_ROUND};
        self.records
            .iter()
            .any(|r| matches!(r.type_, STAT | STAT_CONFIG | STAT_ROUND))
    }

    /// It holds COMPRESSED records.
    pub fn has_compressed(&self) -> bool {
        self.records
            .iter()
            .any(|r| r.type_ == perf_abi::record_type::COMPRESSED)
    }
}
