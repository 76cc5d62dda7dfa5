//! Reading perf.data with `tracepoint_perf` 0.5.0's `PerfDataFileReader` (file and pipe
//! mode; it opens a path) and decoding tracepoint fields with `tracepoint_decode` 0.5.0.
//!
//! Quirks of this reader:
//! - `event_desc_list()` lists each event twice (once from the attrs, once more from
//!   EVENT_DESC / HEADER_ATTR). For a non-tracepoint event one copy has an empty name
//!   (e.g. `""` and `"dummy:HG"`, both with ids `[104, 105]`). [`TpSummary::descs`] is
//!   deduplicated by (name, ids), an empty-named copy merging into the named one with the
//!   same ids; [`TpSummary::raw_desc_count`] keeps the count before deduplication.
//! - `get_sample_event_info` needs PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID: for events
//!   without them (e.g. `cpu_clock.data`) every SAMPLE gets `NoData`
//!   ([`TpRecord::sample_error`]).
//! - Field values are formatted by `tracepoint_decode`: types it does not know (e.g.
//!   `pid_t`) print as hex (`prev_pid` = `0x3FAA`), `char[]` as text, `long` as decimal.
//!   [`TpSample::field_i64`] parses either form.
//! - It refuses a file with zero attrs, and fails on byte-swapped files that carry features.
//! - In pipe mode the descs only exist once the HEADER_ATTR records have been read, so
//!   [`read`] collects them after the last record.

use std::collections::BTreeMap;
use std::path::Path;

use tracepoint_decode as td;
use tracepoint_perf as tp;

use crate::Endian;

/// Tracefs format of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpFormat {
    /// System, e.g. `sched`.
    pub system: String,
    /// Event name, e.g. `sched_switch`.
    pub name: String,
    /// Tracefs id (= attr.config of the tracepoint).
    pub id: u32,
    /// Field names in order, common fields included.
    pub fields: Vec<String>,
    /// Number of leading `common_*` fields.
    pub common_field_count: usize,
}

/// One event descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpEventDesc {
    /// Name (EVENT_DESC, else `system:name` from the format, else empty).
    pub name: String,
    /// Sample ids.
    pub ids: Vec<u64>,
    /// `attr.type`.
    pub attr_type: u32,
    /// `attr.config`.
    pub attr_config: u64,
    /// `attr.size`.
    pub attr_size: u32,
    /// `attr.sample_type`.
    pub sample_type: u64,
    /// Tracefs format, when the tracing data has one for this event.
    pub format: Option<TpFormat>,
}

/// A decoded SAMPLE record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpSample {
    /// Event name.
    pub name: String,
    /// Sample id.
    pub id: u64,
    /// pid (valid with PERF_SAMPLE_TID).
    pub pid: u32,
    /// tid (valid with PERF_SAMPLE_TID).
    pub tid: u32,
    /// time (valid with PERF_SAMPLE_TIME).
    pub time: u64,
    /// cpu (valid with PERF_SAMPLE_CPU).
    pub cpu: u32,
    /// Raw data length (PERF_SAMPLE_RAW).
    pub raw_len: usize,
    /// `(field name, value)` for the non-common tracefs fields, formatted with
    /// `PerfItemValue::display()` (e.g. `("prev_comm", "perf")`). Empty without a format.
    pub fields: Vec<(String, String)>,
    /// The same for the `common_*` fields.
    pub common_fields: Vec<(String, String)>,
}

impl TpSample {
    /// The value of field `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .chain(self.common_fields.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Field `name` as a number (decimal, or hex with `0x` as tracepoint_decode prints
    /// types it does not know, e.g. `pid_t`).
    pub fn field_i64(&self, name: &str) -> Option<i64> {
        let v = self.field(name)?.trim();
        match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok().map(|u| u as i64),
            None => v.parse().ok(),
        }
    }

    /// `name=value` strings of the non-common fields, in format order.
    pub fn field_strings(&self) -> Vec<String> {
        self.fields
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect()
    }
}

/// One record as the reader returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpRecord {
    /// `header.type`.
    pub record_type: u32,
    /// `header.misc`.
    pub misc: u16,
    /// `header.size`.
    pub size: u16,
    /// The record bytes the reader hands out (header included, file byte order).
    pub bytes: Vec<u8>,
    /// For SAMPLE records whose info could be read.
    pub sample: Option<TpSample>,
    /// `get_sample_event_info` error for a SAMPLE record (e.g. `IdNotFound`).
    pub sample_error: Option<String>,
}

/// Event order for [`read_with_order`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpOrder {
    /// As stored.
    File,
    /// Stable-sorted by time within rounds (FINISHED_INIT / FINISHED_ROUND / end of file).
    Time,
}

/// What `tracepoint_perf` reads.
#[derive(Clone, Debug)]
pub struct TpSummary {
    /// Byte order of the data.
    pub endian: Endian,
    /// True for a pipe-mode file (`data_end_file_pos() == u64::MAX`).
    pub pipe_mode: bool,
    /// Event descriptors, deduplicated by (name, ids), in first-seen order.
    pub descs: Vec<TpEventDesc>,
    /// `event_desc_list().len()` before deduplication.
    pub raw_desc_count: usize,
    /// Raw header (feature) payloads the reader loaded, by feature bit.
    pub headers: BTreeMap<u32, Vec<u8>>,
    /// HOSTNAME string (via `header_string`), if present.
    pub hostname: Option<String>,
    /// OSRELEASE string, if present.
    pub os_release: Option<String>,
    /// `long_size` from the tracing data (0 without tracing data).
    pub tracing_data_long_size: u8,
    /// `page_size` from the tracing data (0 without tracing data).
    pub tracing_data_page_size: u32,
    /// Records in the requested order.
    pub records: Vec<TpRecord>,
    /// Record counts by type.
    pub counts_by_type: BTreeMap<u32, u64>,
}

impl TpSummary {
    /// Decoded samples in record order.
    pub fn samples(&self) -> Vec<&TpSample> {
        self.records
            .iter()
            .filter_map(|r| r.sample.as_ref())
            .collect()
    }

    /// The desc with this name.
    pub fn desc(&self, name: &str) -> Option<&TpEventDesc> {
        self.descs.iter().find(|d| d.name == name)
    }

    /// Number of records of one type.
    pub fn count(&self, record_type: u32) -> u64 {
        self.counts_by_type.get(&record_type).copied().unwrap_or(0)
    }
}

/// Reads `path` in file order. See [`read_with_order`].
pub fn read(path: impl AsRef<Path>) -> Result<TpSummary, String> {
    read_with_order(path, TpOrder::File)
}

/// Writes `bytes` to a temporary file and [`read`]s it.
pub fn read_bytes(bytes: &[u8]) -> Result<TpSummary, String> {
    let file = crate::temp_data_file(bytes);
    read(file.path())
}

fn value_string(field: &td::PerfFieldFormat, info: &td::PerfSampleEventInfo) -> String {
    field.get_field_value(info).display().to_string()
}

fn desc_summary(d: &td::PerfEventDesc) -> TpEventDesc {
    let attr = d.attr();
    TpEventDesc {
        name: d.name().to_string(),
        ids: d.ids().to_vec(),
        attr_type: attr.attr_type.0,
        attr_config: attr.config,
        attr_size: attr.size.0,
        sample_type: attr.sample_type.0,
        format: d.format().map(|f| TpFormat {
            system: f.system_name().to_string(),
            name: f.name().to_string(),
            id: f.id(),
            fields: f.fields().iter().map(|x| x.name().to_string()).collect(),
            common_field_count: f.common_field_count(),
        }),
    }
}

/// Opens `path` with `PerfDataFileReader::open_file` and reads every record in `order`;
/// SAMPLE records are decoded with `get_sample_event_info` and their tracefs fields
/// formatted. Errors: the open failure, or a `move_next_event` failure (with the number of
/// records read before it).
pub fn read_with_order(path: impl AsRef<Path>, order: TpOrder) -> Result<TpSummary, String> {
    let path = path.as_ref();
    let path_str = path
        .to_str()
        .ok_or_else(|| format!("non UTF-8 path {}", path.display()))?;
    let mut reader = tp::PerfDataFileReader::new();
    let tp_order = match order {
        TpOrder::File => tp::PerfDataFileEventOrder::File,
        TpOrder::Time => tp::PerfDataFileEventOrder::Time,
    };
    reader
        .open_file(path_str, tp_order)
        .map_err(|e| format!("tracepoint_perf open_file({}): {e}", path.display()))?;

    let mut records = Vec::new();
    let mut counts_by_type = BTreeMap::new();
    loop {
        match reader.move_next_event() {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                return Err(format!(
                    "tracepoint_perf move_next_event after {} records: {e}",
                    records.len()
                ))
            }
        }
        let event = reader.current_event();
        let record_type = event.header.ty.0;
        let mut rec = TpRecord {
            record_type,
            misc: event.header.misc.0,
            size: event.header.size,
            bytes: event.data.to_vec(),
            sample: None,
            sample_error: None,
        };
        if event.header.ty == td::PerfEventHeaderType::Sample {
            match reader.get_sample_event_info(&event) {
                Ok(info) => {
                    let mut fields = Vec::new();
                    let mut common_fields = Vec::new();
                    if let Some(format) = info.format() {
                        let common = format.common_field_count();
                        for (i, field) in format.fields().iter().enumerate() {
                            let pair = (field.name().to_string(), value_string(field, &info));
                            if i < common {
                                common_fields.push(pair);
                            } else {
                                fields.push(pair);
                            }
                        }
                    }
                    rec.sample = Some(TpSample {
                        name: info.name().to_string(),
                        id: info.id,
                        pid: info.pid,
                        tid: info.tid,
                        time: info.time,
                        cpu: info.cpu,
                        raw_len: info.raw_data().len(),
                        fields,
                        common_fields,
                    });
                }
                Err(e) => rec.sample_error = Some(e.to_string()),
            }
        }
        *counts_by_type.entry(record_type).or_insert(0) += 1;
        records.push(rec);
    }

    let list = reader.event_desc_list();
    let mut descs: Vec<TpEventDesc> = Vec::new();
    for d in list {
        let s = desc_summary(d);
        // The duplicate of an event has the same ids; one copy may lack the name (the
        // attrs-section copy of a non-tracepoint event) or the format. Keep the richer one.
        match descs.iter_mut().find(|x| {
            x.ids == s.ids && (x.name == s.name || x.name.is_empty() || s.name.is_empty())
        }) {
            Some(existing) => {
                let richer = |d: &TpEventDesc| (!d.name.is_empty(), d.format.is_some());
                if richer(&s) > richer(existing) {
                    *existing = s;
                }
            }
            None => descs.push(s),
        }
    }
    let mut headers = BTreeMap::new();
    for bit in 1u8..=255 {
        let h = reader.header(tp::PerfHeaderIndex(bit));
        if !h.is_empty() {
            headers.insert(u32::from(bit), h.to_vec());
        }
    }
    let string_header = |index: tp::PerfHeaderIndex| {
        let s = reader.header_string(index);
        (!reader.header(index).is_empty()).then(|| String::from_utf8_lossy(s).into_owned())
    };
    Ok(TpSummary {
        endian: if reader.source_big_endian() {
            Endian::Big
        } else {
            Endian::Little
        },
        pipe_mode: reader.data_end_file_pos() == u64::MAX,
        raw_desc_count: list.len(),
        descs,
        hostname: string_header(tp::PerfHeaderIndex::Hostname),
        os_release: string_header(tp::PerfHeaderIndex::OSRelease),
        headers,
        tracing_data_long_size: reader.tracing_data_long_size(),
        tracing_data_page_size: reader.tracing_data_page_size(),
        records,
        counts_by_type,
    })
}
