//! Reading perf.data with the `linux-perf-data` 0.13 crate.
//!
//! Record order: linux-perf-data has no raw (file-order) iteration. Its `next_record`
//! sorts records by (timestamp, file offset) like perf's ordered-events queue, using
//! FINISHED_ROUND markers as flush points (a record is released once the next round cannot
//! hold an earlier one); records without a timestamp (user records such as ID_INDEX,
//! THREAD_MAP, and kernel records without a `sample_id_all` time) count as the lowest key
//! and come out first among what is flushed. FINISHED_ROUND records themselves are
//! consumed and never returned. So
//! [`LpdSummary::records`] is in linux-perf-data's order, NOT file order; use
//! [`crate::fixtures::FixtureContent`] for file order.
//!
//! Pipe mode: the leading HEADER_ATTR and HEADER_FEATURE records are consumed by
//! `parse_pipe` (they become attrs and feature sections) and are not in `records`.
//! linux-perf-data 0.13 does not know that HEADER_TRACING_DATA (66) is followed by its
//! payload outside `header.size`, so on a pipe stream with tracepoints it reads the
//! tracing data as records: on `pipe_sched.data` `next_record` fails with "The specified
//! size in the perf event header was smaller than the header itself".
//! [`read_pipe_without_tracing_payload`] works around it.

use std::collections::BTreeMap;
use std::io::Cursor;

use linux_perf_data::linux_perf_event_reader::{
    AttrFlags, EventRecord, HardwareCacheId, HardwareCacheOp, HardwareCacheOpResult,
    HardwareEventId, PerfEventType, SampleFormat, SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::{Endianness, Feature, PerfFile, PerfFileReader, PerfFileRecord};

use crate::Endian;

/// One attr as linux-perf-data sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LpdAttr {
    /// Name (from EVENT_DESC), if any.
    pub name: Option<String>,
    /// Sample ids.
    pub ids: Vec<u64>,
    /// `attr.type` number.
    pub attr_type: u32,
    /// `attr.config`, reconstructed from the crate's typed event (`None` when the crate's
    /// enum cannot be mapped back).
    pub config: Option<u64>,
    /// The crate's `PerfEventType`, Debug-formatted.
    pub event_type: String,
    /// `attr.sample_type` bits.
    pub sample_type: u64,
    /// `attr.read_format` bits.
    pub read_format: u64,
    /// `attr.flags` bits (as far as the crate knows them).
    pub flags: u64,
    /// `sample_period` when not in frequency mode (`None` for no sampling / freq mode).
    pub sample_period: Option<u64>,
    /// `sample_freq` when `attr.freq` is set.
    pub sample_freq: Option<u64>,
    /// `attr.sample_id_all`.
    pub sample_id_all: bool,
    /// `attr.freq`.
    pub freq: bool,
    /// `attr.disabled`.
    pub disabled: bool,
    /// `attr.inherit`.
    pub inherit: bool,
    /// `attr.use_clockid`.
    pub use_clockid: bool,
    /// The crate's clock, Debug-formatted.
    pub clock: String,
}

/// The `NRCPUS` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LpdNrCpus {
    /// CPUs available.
    pub available: u32,
    /// CPUs online.
    pub online: u32,
}

/// The `CLOCK_DATA` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LpdClockData {
    /// Clock id.
    pub clockid: u32,
    /// Wall clock ns.
    pub wall_clock_ns: u64,
    /// Clock-id time ns at the same instant.
    pub clockid_time_ns: u64,
}

/// SAMPLE record fields that linux-perf-data parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LpdSample {
    /// `id` / `identifier`.
    pub id: Option<u64>,
    /// `ip`.
    pub ip: Option<u64>,
    /// `pid`.
    pub pid: Option<i32>,
    /// `tid`.
    pub tid: Option<i32>,
    /// `time`.
    pub time: Option<u64>,
    /// `cpu`.
    pub cpu: Option<u32>,
    /// `period`.
    pub period: Option<u64>,
    /// Raw data bytes (PERF_SAMPLE_RAW), if any.
    pub raw: Option<Vec<u8>>,
    /// Callchain addresses, if any.
    pub callchain: Option<Vec<u64>>,
    /// `addr`.
    pub addr: Option<u64>,
    /// `stream_id`.
    pub stream_id: Option<u64>,
    /// `phys_addr`.
    pub phys_addr: Option<u64>,
    /// `data_page_size`.
    pub data_page_size: Option<u64>,
    /// `code_page_size`.
    pub code_page_size: Option<u64>,
    /// REGS_USER values in register order (None: absent, or abi NONE).
    pub user_regs: Option<Vec<u64>>,
    /// REGS_INTR values in register order (None: absent, or abi NONE).
    pub intr_regs: Option<Vec<u64>>,
    /// STACK_USER: the stack bytes (as stored, padding included) and the dynamic size.
    pub user_stack: Option<(Vec<u8>, u64)>,
}

/// The `sample_type` bits whose fields linux-perf-event-reader 0.10.2 hands out in its
/// `SampleRecord` (and so [`LpdSample`] carries).
pub const DECODED_SAMPLE_BITS: u64 = SampleFormat::IDENTIFIER
    .union(SampleFormat::IP)
    .union(SampleFormat::TID)
    .union(SampleFormat::TIME)
    .union(SampleFormat::ADDR)
    .union(SampleFormat::ID)
    .union(SampleFormat::STREAM_ID)
    .union(SampleFormat::CPU)
    .union(SampleFormat::PERIOD)
    .union(SampleFormat::CALLCHAIN)
    .union(SampleFormat::RAW)
    .union(SampleFormat::REGS_USER)
    .union(SampleFormat::STACK_USER)
    .union(SampleFormat::REGS_INTR)
    .union(SampleFormat::PHYS_ADDR)
    .union(SampleFormat::DATA_PAGE_SIZE)
    .union(SampleFormat::CODE_PAGE_SIZE)
    .bits();

/// The bits whose fields that reader steps over in kernel order without handing them out.
/// Not here: READ (it swaps the group and single-counter layouts), CGROUP and WEIGHT_STRUCT
/// (unknown to it), and AUX (it expects AUX before DATA_PAGE_SIZE and CODE_PAGE_SIZE; the
/// kernel writes it after them).
pub const SKIPPED_SAMPLE_BITS: u64 = SampleFormat::BRANCH_STACK
    .union(SampleFormat::WEIGHT)
    .union(SampleFormat::DATA_SRC)
    .union(SampleFormat::TRANSACTION)
    .bits();

/// One record returned by linux-perf-data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LpdRecord {
    /// `header.type`.
    pub record_type: u32,
    /// `header.misc`.
    pub misc: u16,
    /// Index into [`LpdSummary::attrs`] for kernel records; `None` for user records.
    pub attr_index: Option<usize>,
    /// The record body WITHOUT the 8-byte header (linux-perf-data does not expose the
    /// header bytes). For AUXTRACE the aux data is appended.
    pub payload: Vec<u8>,
    /// Timestamp the crate found (kernel records only).
    pub timestamp: Option<u64>,
    /// Parsed SAMPLE fields (SAMPLE records that parsed).
    pub sample: Option<LpdSample>,
    /// The crate's parse error for this record, if parsing it failed.
    pub parse_error: Option<String>,
}

impl LpdRecord {
    /// Rebuilds header + payload in byte order `endian` (size = 8 + payload length,
    /// capped at u16::MAX; exact except for AUXTRACE).
    pub fn reconstructed_bytes(&self, endian: Endian) -> Vec<u8> {
        let size = (8 + self.payload.len()).min(u16::MAX as usize) as u16;
        let mut v = Vec::with_capacity(8 + self.payload.len());
        v.extend_from_slice(&endian.u32_bytes(self.record_type));
        v.extend_from_slice(&endian.u16_bytes(self.misc));
        v.extend_from_slice(&endian.u16_bytes(size));
        v.extend_from_slice(&self.payload);
        v
    }
}

/// What linux-perf-data reads from a file or stream.
#[derive(Clone, Debug)]
pub struct LpdSummary {
    /// Byte order.
    pub endian: Endian,
    /// Attrs (file mode: EVENT_DESC if present, else the attrs section; pipe mode:
    /// HEADER_ATTR records, named from EVENT_DESC by first id).
    pub attrs: Vec<LpdAttr>,
    /// Feature bits present (pipe mode: inferred from HEADER_FEATURE records), ascending.
    pub features: Vec<u32>,
    /// Names of those features (crate's Display, e.g. `HOSTNAME`).
    pub feature_names: Vec<String>,
    /// Raw payload per feature bit (`perf_file.feature_section_data`).
    pub feature_sections: BTreeMap<u32, Vec<u8>>,
    /// HOSTNAME.
    pub hostname: Option<String>,
    /// OSRELEASE.
    pub os_release: Option<String>,
    /// ARCH.
    pub arch: Option<String>,
    /// VERSION (perf version).
    pub perf_version: Option<String>,
    /// CMDLINE (string list).
    pub cmdline: Option<Vec<String>>,
    /// NRCPUS.
    pub nr_cpus: Option<LpdNrCpus>,
    /// CPUDESC.
    pub cpu_desc: Option<String>,
    /// CPUID.
    pub cpu_id: Option<String>,
    /// TOTAL_MEM (kB).
    pub total_mem: Option<u64>,
    /// CLOCKID (clock resolution, ns per tick).
    pub clock_frequency: Option<u64>,
    /// CLOCK_DATA.
    pub clock_data: Option<LpdClockData>,
    /// SAMPLE_TIME (first, last).
    pub sample_time_range: Option<(u64, u64)>,
    /// Errors from the crate's feature accessors ("hostname: ..."); tests usually assert
    /// this is empty.
    pub feature_errors: Vec<String>,
    /// Records in linux-perf-data's order (see the module notes: time-sorted per round,
    /// FINISHED_ROUND consumed, pipe metadata consumed).
    pub records: Vec<LpdRecord>,
    /// Record counts by type over [`LpdSummary::records`].
    pub counts_by_type: BTreeMap<u32, u64>,
}

impl LpdSummary {
    /// Attr names in order (`None` where unnamed).
    pub fn attr_names(&self) -> Vec<Option<&str>> {
        self.attrs.iter().map(|a| a.name.as_deref()).collect()
    }

    /// Number of records of one type.
    pub fn count(&self, record_type: u32) -> u64 {
        self.counts_by_type.get(&record_type).copied().unwrap_or(0)
    }

    /// Records with a parse error.
    pub fn records_with_parse_errors(&self) -> Vec<&LpdRecord> {
        self.records
            .iter()
            .filter(|r| r.parse_error.is_some())
            .collect()
    }
}

/// Reads file-mode bytes with `PerfFileReader::parse_file(Cursor)`.
pub fn read_file(bytes: &[u8]) -> Result<LpdSummary, String> {
    let reader = PerfFileReader::parse_file(Cursor::new(bytes))
        .map_err(|e| format!("linux-perf-data parse_file: {e}"))?;
    summarize(reader)
}

/// Reads pipe-mode bytes with `PerfFileReader::parse_pipe`.
pub fn read_pipe(bytes: &[u8]) -> Result<LpdSummary, String> {
    let reader = PerfFileReader::parse_pipe(Cursor::new(bytes))
        .map_err(|e| format!("linux-perf-data parse_pipe: {e}"))?;
    summarize(reader)
}

/// Works around linux-perf-data 0.13 not skipping the HEADER_TRACING_DATA payload in
/// pipe mode: rebuilds the stream without the bytes that follow each HEADER_TRACING_DATA
/// record outside its `header.size` (the record itself stays), then [`read_pipe`]s it.
/// Everything else linux-perf-data sees is unchanged. Errors if the stream cannot be walked.
pub fn read_pipe_without_tracing_payload(bytes: &[u8]) -> Result<LpdSummary, String> {
    let endian = Endian::from_magic(bytes).ok_or("no perf.data magic")?;
    let records = crate::fixtures::walk_records(bytes, 16, bytes.len(), endian)?;
    let mut stream = bytes[..16].to_vec();
    for r in &records {
        stream.extend_from_slice(&r.bytes);
        if r.record_type != 66 {
            stream.extend_from_slice(&r.extra);
        }
    }
    read_pipe(&stream)
}

/// Reads either mode, choosing from the header size (16 = pipe).
pub fn read_any(bytes: &[u8]) -> Result<LpdSummary, String> {
    let endian = Endian::from_magic(bytes).ok_or("no perf.data magic")?;
    if endian.u64_at(bytes, 8) == Some(16) {
        read_pipe(bytes)
    } else {
        read_file(bytes)
    }
}

fn hw_config(id: HardwareEventId) -> Option<u64> {
    Some(match id {
        HardwareEventId::CpuCycles => 0,
        HardwareEventId::Instructions => 1,
        HardwareEventId::CacheReferences => 2,
        HardwareEventId::CacheMisses => 3,
        HardwareEventId::BranchInstructions => 4,
        HardwareEventId::BranchMisses => 5,
        HardwareEventId::BusCycles => 6,
        HardwareEventId::StalledCyclesFrontend => 7,
        HardwareEventId::StalledCyclesBackend => 8,
        HardwareEventId::RefCpuCycles => 9,
        _ => return None,
    })
}

fn sw_config(c: SoftwareCounterType) -> Option<u64> {
    Some(match c {
        SoftwareCounterType::CpuClock => 0,
        SoftwareCounterType::TaskClock => 1,
        SoftwareCounterType::PageFaults => 2,
        SoftwareCounterType::ContextSwitches => 3,
        SoftwareCounterType::CpuMigrations => 4,
        SoftwareCounterType::PageFaultsMin => 5,
        SoftwareCounterType::PageFaultsMaj => 6,
        SoftwareCounterType::AlignmentFaults => 7,
        SoftwareCounterType::EmulationFaults => 8,
        SoftwareCounterType::Dummy => 9,
        SoftwareCounterType::BpfOutput => 10,
        SoftwareCounterType::CgroupSwitches => 11,
        _ => return None,
    })
}

fn cache_config(
    id: HardwareCacheId,
    op: HardwareCacheOp,
    res: HardwareCacheOpResult,
) -> Option<u64> {
    let id = match id {
        HardwareCacheId::L1d => 0,
        HardwareCacheId::L1i => 1,
        HardwareCacheId::Ll => 2,
        HardwareCacheId::Dtlb => 3,
        HardwareCacheId::Itlb => 4,
        HardwareCacheId::Bpu => 5,
        HardwareCacheId::Node => 6,
        _ => return None,
    };
    let op: u64 = match op {
        HardwareCacheOp::Read => 0,
        HardwareCacheOp::Write => 1,
        HardwareCacheOp::Prefetch => 2,
    };
    let res: u64 = match res {
        HardwareCacheOpResult::Access => 0,
        HardwareCacheOpResult::Miss => 1,
    };
    Some(id | (op << 8) | (res << 16))
}

fn type_and_config(t: &PerfEventType) -> (u32, Option<u64>) {
    match *t {
        PerfEventType::Hardware(id, pmu) => {
            (0, hw_config(id).map(|c| c | (u64::from(pmu.0) << 32)))
        }
        PerfEventType::Software(c) => (1, sw_config(c)),
        PerfEventType::Tracepoint(c) => (2, Some(c)),
        PerfEventType::HwCache(id, op, res, pmu) => (
            3,
            cache_config(id, op, res).map(|c| c | (u64::from(pmu.0) << 32)),
        ),
        PerfEventType::Breakpoint(..) => (5, Some(0)),
        PerfEventType::DynamicPmu(ty, config, _, _) => (ty, Some(config)),
    }
}

fn feature_string(
    name: &str,
    r: Result<Option<&str>, linux_perf_data::Error>,
    errs: &mut Vec<String>,
) -> Option<String> {
    match r {
        Ok(v) => v.map(str::to_string),
        Err(e) => {
            errs.push(format!("{name}: {e}"));
            None
        }
    }
}

fn summarize_file(perf_file: &PerfFile) -> LpdSummary {
    let endian = match perf_file.endian() {
        Endianness::LittleEndian => Endian::Little,
        Endianness::BigEndian => Endian::Big,
    };
    let attrs = perf_file
        .event_attributes()
        .iter()
        .map(|d| {
            let a = &d.attr;
            let (attr_type, config) = type_and_config(&a.type_);
            let (sample_period, sample_freq) = match a.sampling_policy {
                SamplingPolicy::NoSampling => (None, None),
                SamplingPolicy::Period(p) => (Some(p.get()), None),
                SamplingPolicy::Frequency(f) => (None, Some(f)),
            };
            LpdAttr {
                name: d.name.clone(),
                ids: d.event_ids.clone(),
                attr_type,
                config,
                event_type: format!("{:?}", a.type_),
                sample_type: a.sample_format.bits(),
                read_format: a.read_format.bits(),
                flags: a.flags.bits(),
                sample_period,
                sample_freq,
                sample_id_all: a.flags.contains(AttrFlags::SAMPLE_ID_ALL),
                freq: a.flags.contains(AttrFlags::FREQ),
                disabled: a.flags.contains(AttrFlags::DISABLED),
                inherit: a.flags.contains(AttrFlags::INHERIT),
                use_clockid: a.flags.contains(AttrFlags::USE_CLOCKID),
                clock: format!("{:?}", a.clock),
            }
        })
        .collect();

    let features: Vec<Feature> = perf_file.features().iter().collect();
    let mut feature_sections = BTreeMap::new();
    for f in &features {
        if let Some(data) = perf_file.feature_section_data(*f) {
            feature_sections.insert(f.0, data.to_vec());
        }
    }
    let mut errs = Vec::new();
    let hostname = feature_string("hostname", perf_file.hostname(), &mut errs);
    let os_release = feature_string("os_release", perf_file.os_release(), &mut errs);
    let arch = feature_string("arch", perf_file.arch(), &mut errs);
    let perf_version = feature_string("perf_version", perf_file.perf_version(), &mut errs);
    let cpu_desc = feature_string("cpu_desc", perf_file.cpu_desc(), &mut errs);
    let cpu_id = feature_string("cpu_id", perf_file.cpu_id(), &mut errs);
    let cmdline = match perf_file.cmdline() {
        Ok(v) => v.map(|l| l.into_iter().map(str::to_string).collect()),
        Err(e) => {
            errs.push(format!("cmdline: {e}"));
            None
        }
    };
    let nr_cpus = match perf_file.nr_cpus() {
        Ok(v) => v.map(|n| LpdNrCpus {
            available: n.nr_cpus_available,
            online: n.nr_cpus_online,
        }),
        Err(e) => {
            errs.push(format!("nr_cpus: {e}"));
            None
        }
    };
    let total_mem = perf_file.total_mem().unwrap_or_else(|e| {
        errs.push(format!("total_mem: {e}"));
        None
    });
    let clock_frequency = perf_file.clock_frequency().unwrap_or_else(|e| {
        errs.push(format!("clock_frequency: {e}"));
        None
    });
    let clock_data = match perf_file.clock_data() {
        Ok(v) => v.map(|c| LpdClockData {
            clockid: c.clockid,
            wall_clock_ns: c.wall_clock_ns,
            clockid_time_ns: c.clockid_time_ns,
        }),
        Err(e) => {
            errs.push(format!("clock_data: {e}"));
            None
        }
    };
    let sample_time_range = match perf_file.sample_time_range() {
        Ok(v) => v.map(|r| (r.first_sample_time, r.last_sample_time)),
        Err(e) => {
            errs.push(format!("sample_time_range: {e}"));
            None
        }
    };
    LpdSummary {
        endian,
        attrs,
        features: features.iter().map(|f| f.0).collect(),
        feature_names: features.iter().map(|f| f.to_string()).collect(),
        feature_sections,
        hostname,
        os_release,
        arch,
        perf_version,
        cmdline,
        nr_cpus,
        cpu_desc,
        cpu_id,
        total_mem,
        clock_frequency,
        clock_data,
        sample_time_range,
        feature_errors: errs,
        records: Vec::new(),
        counts_by_type: BTreeMap::new(),
    }
}

fn summarize<R: std::io::Read>(reader: PerfFileReader<R>) -> Result<LpdSummary, String> {
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = reader;
    let mut summary = summarize_file(&perf_file);
    loop {
        let next = record_iter.next_record(&mut perf_file).map_err(|e| {
            format!(
                "linux-perf-data next_record after {} records: {e}",
                summary.records.len()
            )
        })?;
        let Some(record) = next else { break };
        let rec = match record {
            PerfFileRecord::EventRecord { attr_index, record } => {
                let (sample, parse_error) = match record.parse() {
                    Ok(EventRecord::Sample(s)) => (
                        Some(LpdSample {
                            id: s.id,
                            ip: s.ip,
                            pid: s.pid,
                            tid: s.tid,
                            time: s.timestamp,
                            cpu: s.cpu,
                            period: s.period,
                            raw: s.raw.map(|r| r.as_slice().into_owned()),
                            callchain: s
                                .callchain
                                .map(|c| (0..c.len()).filter_map(|i| c.get(i)).collect()),
                            addr: s.addr,
                            stream_id: s.stream_id,
                            phys_addr: s.phys_addr,
                            data_page_size: s.data_page_size,
                            code_page_size: s.code_page_size,
                            // The reader keeps the mask private: the values are those of the
                            // registers it answers for, in register order.
                            user_regs: s
                                .user_regs
                                .map(|r| (0..64).filter_map(|i| r.get(i)).collect()),
                            intr_regs: s
                                .intr_regs
                                .map(|r| (0..64).filter_map(|i| r.get(i)).collect()),
                            user_stack: s
                                .user_stack
                                .map(|(d, dyn_size)| (d.as_slice().into_owned(), dyn_size)),
                        }),
                        None,
                    ),
                    Ok(_) => (None, None),
                    Err(e) => (None, Some(e.to_string())),
                };
                LpdRecord {
                    record_type: record.record_type.0,
                    misc: record.misc,
                    attr_index: Some(attr_index),
                    payload: record.data.as_slice().into_owned(),
                    timestamp: record.timestamp(),
                    sample,
                    parse_error,
                }
            }
            PerfFileRecord::UserRecord(record) => {
                let parse_error = record.parse().err().map(|e| e.to_string());
                LpdRecord {
                    record_type: record.record_type.record_type().0,
                    misc: record.misc,
                    attr_index: None,
                    payload: record.data.as_slice().into_owned(),
                    timestamp: None,
                    sample: None,
                    parse_error,
                }
            }
        };
        *summary.counts_by_type.entry(rec.record_type).or_insert(0) += 1;
        summary.records.push(rec);
    }
    Ok(summary)
}
