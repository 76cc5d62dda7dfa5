//! `info`: what `perf report --header-only` and `perf report --stats` say of a trace, in
//! their words, without perf: the header's features and events, record counts by type and
//! SAMPLE counts by event (the records inside COMPRESSED records counted too).

use crate::decompress::Decompressor;
use crate::error::DataError;
use crate::read::{u32_at, u64_at};
use crate::trace::{Event, Mode, Trace};
use byteorder::{BigEndian, LittleEndian};
use linux_perf_data::{CompressionInfo, NrCpus, SampleTimeRange};
use perf_abi::{attr_flags as af, feature, read_format as rf, record_type, sample_type as st};
use perf_writer_std::perf_encode::Endian;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// `sample_type` bits by name, in perf's order.
const SAMPLE_TYPE_NAMES: [(u64, &str); 25] = [
    (st::IP, "IP"),
    (st::TID, "TID"),
    (st::TIME, "TIME"),
    (st::ADDR, "ADDR"),
    (st::READ, "READ"),
    (st::CALLCHAIN, "CALLCHAIN"),
    (st::ID, "ID"),
    (st::CPU, "CPU"),
    (st::PERIOD, "PERIOD"),
    (st::STREAM_ID, "STREAM_ID"),
    (st::RAW, "RAW"),
    (st::BRANCH_STACK, "BRANCH_STACK"),
    (st::REGS_USER, "REGS_USER"),
    (st::STACK_USER, "STACK_USER"),
    (st::WEIGHT, "WEIGHT"),
    (st::DATA_SRC, "DATA_SRC"),
    (st::IDENTIFIER, "IDENTIFIER"),
    (st::TRANSACTION, "TRANSACTION"),
    (st::REGS_INTR, "REGS_INTR"),
    (st::PHYS_ADDR, "PHYS_ADDR"),
    (st::AUX, "AUX"),
    (st::CGROUP, "CGROUP"),
    (st::DATA_PAGE_SIZE, "DATA_PAGE_SIZE"),
    (st::CODE_PAGE_SIZE, "CODE_PAGE_SIZE"),
    (st::WEIGHT_STRUCT, "WEIGHT_STRUCT"),
];

/// `read_format` bits by name.
const READ_FORMAT_NAMES: [(u64, &str); 5] = [
    (rf::TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"),
    (rf::TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"),
    (rf::ID, "ID"),
    (rf::GROUP, "GROUP"),
    (rf::LOST, "LOST"),
];

/// The attr's bit-field flags by name, in perf's order (`precise_ip` is two bits).
const FLAG_NAMES: [(u64, &str); 37] = [
    (af::DISABLED, "disabled"),
    (af::INHERIT, "inherit"),
    (af::PINNED, "pinned"),
    (af::EXCLUSIVE, "exclusive"),
    (af::EXCLUDE_USER, "exclude_user"),
    (af::EXCLUDE_KERNEL, "exclude_kernel"),
    (af::EXCLUDE_HV, "exclude_hv"),
    (af::EXCLUDE_IDLE, "exclude_idle"),
    (af::MMAP, "mmap"),
    (af::COMM, "comm"),
    (af::FREQ, "freq"),
    (af::INHERIT_STAT, "inherit_stat"),
    (af::ENABLE_ON_EXEC, "enable_on_exec"),
    (af::TASK, "task"),
    (af::WATERMARK, "watermark"),
    (af::PRECISE_IP_MASK, "precise_ip"),
    (af::MMAP_DATA, "mmap_data"),
    (af::SAMPLE_ID_ALL, "sample_id_all"),
    (af::EXCLUDE_HOST, "exclude_host"),
    (af::EXCLUDE_GUEST, "exclude_guest"),
    (af::EXCLUDE_CALLCHAIN_KERNEL, "exclude_callchain_kernel"),
    (af::EXCLUDE_CALLCHAIN_USER, "exclude_callchain_user"),
    (af::MMAP2, "mmap2"),
    (af::COMM_EXEC, "comm_exec"),
    (af::USE_CLOCKID, "use_clockid"),
    (af::CONTEXT_SWITCH, "context_switch"),
    (af::WRITE_BACKWARD, "write_backward"),
    (af::NAMESPACES, "namespaces"),
    (af::KSYMBOL, "ksymbol"),
    (af::BPF_EVENT, "bpf_event"),
    (af::AUX_OUTPUT, "aux_output"),
    (af::CGROUP, "cgroup"),
    (af::TEXT_POKE, "text_poke"),
    (af::BUILD_ID, "build_id"),
    (af::INHERIT_THREAD, "inherit_thread"),
    (af::REMOVE_ON_EXEC, "remove_on_exec"),
    (af::SIGTRAP, "sigtrap"),
];

/// Features perf summarizes as "info available" without `-I`.
const SUMMARIZED: [u8; 4] = [
    feature::CPU_TOPOLOGY,
    feature::NUMA_TOPOLOGY,
    feature::CACHE,
    feature::MEM_TOPOLOGY,
];

/// The last feature bit perf 6.1 knows (its "missing features" list stops there).
const PERF_6_1_LAST_FEATURE: u8 = 31;

/// The name `perf report --stats` gives a record type.
fn stats_name(type_: u32) -> String {
    let name = record_type::name(type_).unwrap_or("UNKNOWN");
    name.strip_prefix("HEADER_").unwrap_or(name).to_string()
}

/// A perf header string: `u32 len`, then up to `len` bytes ending at the first NUL.
fn header_string(b: &[u8], pos: usize, endian: Endian) -> Option<(String, usize)> {
    let len = u32_at(b, pos, endian)? as usize;
    let bytes = b.get(pos + 4..pos + 4 + len)?;
    let text = bytes.split(|&c| c == 0).next().unwrap_or_default();
    Some((String::from_utf8_lossy(text).into_owned(), pos + 4 + len))
}

fn string_list(b: &[u8], endian: Endian) -> Option<Vec<String>> {
    let n = u32_at(b, 0, endian)?;
    let mut pos = 4;
    let mut v = Vec::new();
    for _ in 0..n {
        let (s, next) = header_string(b, pos, endian)?;
        v.push(s);
        pos = next;
    }
    Some(v)
}

fn parse_with<T>(
    b: &[u8],
    endian: Endian,
    le: fn(&[u8]) -> std::io::Result<T>,
    be: fn(&[u8]) -> std::io::Result<T>,
) -> Option<T> {
    match endian {
        Endian::Little => le(b),
        Endian::Big => be(b),
    }
    .ok()
}

/// A perf time stamp as `perf report` prints it: seconds and microseconds.
fn usec_time(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1000)
}

/// The `# event :` line of one event.
fn event_line(ev: &Event) -> String {
    let a = &ev.attr;
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut num = |k: &str, v: u64, hex: bool| {
        if v != 0 {
            fields.push((
                k.into(),
                if hex {
                    format!("{v:#x}")
                } else {
                    v.to_string()
                },
            ));
        }
    };
    num("type", a.attr_type.0.into(), false);
    num("size", a.size.0.into(), false);
    num("config", a.config, true);
    num("{ sample_period, sample_freq }", a.sample_time, false);
    let names = |v: u64, table: &[(u64, &str)]| {
        let mut parts: Vec<String> = table
            .iter()
            .filter(|(bit, _)| v & bit != 0)
            .map(|(_, n)| n.to_string())
            .collect();
        let known = table.iter().fold(0, |acc, (bit, _)| acc | bit);
        if v & !known != 0 {
            parts.push(format!("{:#x}", v & !known));
        }
        parts.join("|")
    };
    if a.sample_type.0 != 0 {
        fields.push((
            "sample_type".into(),
            names(a.sample_type.0, &SAMPLE_TYPE_NAMES),
        ));
    }
    if a.read_format.0 != 0 {
        fields.push((
            "read_format".into(),
            names(a.read_format.0, &READ_FORMAT_NAMES),
        ));
    }
    let flags = a.options.0;
    for (bits, name) in FLAG_NAMES {
        let v = (flags & bits) >> bits.trailing_zeros();
        if v != 0 {
            fields.push((name.into(), v.to_string()));
        }
    }
    let mut num = |k: &str, v: u64, hex: bool| {
        if v != 0 {
            fields.push((
                k.into(),
                if hex {
                    format!("{v:#x}")
                } else {
                    v.to_string()
                },
            ));
        }
    };
    num(
        "{ wakeup_events, wakeup_watermark }",
        a.wakeup_value.into(),
        false,
    );
    num("bp_type", a.bp_type.into(), false);
    num("{ bp_addr, config1 }", a.config1, true);
    num("{ bp_len, config2 }", a.config2, true);
    num("branch_sample_type", a.branch_sample_type, true);
    num("sample_regs_user", a.sample_regs_user, true);
    num("sample_stack_user", a.sample_stack_user.into(), false);
    if a.clockid != 0 {
        fields.push(("clockid".into(), (a.clockid as i32).to_string()));
    }
    let mut num = |k: &str, v: u64| {
        if v != 0 {
            fields.push((k.into(), v.to_string()));
        }
    };
    num("sample_regs_intr", a.sample_regs_intr);
    num("aux_watermark", a.aux_watermark.into());
    num("sample_max_stack", a.sample_max_stack.into());
    num("aux_sample_size", a.aux_sample_size.into());
    num("sig_data", a.sig_data);
    let ids: Vec<String> = ev.ids.iter().map(u64::to_string).collect();
    let mut line = format!(
        "# event : name = {}, , id = {{ {} }}",
        ev.name,
        ids.join(", ")
    );
    for (k, v) in fields {
        let _ = write!(line, ", {k} = {v}");
    }
    line
}

/// Record counts: by type over the whole trace, and SAMPLEs by event index.
struct Counts {
    by_type: BTreeMap<u32, u64>,
    samples: BTreeMap<usize, u64>,
}

/// The event a SAMPLE belongs to, by its IDENTIFIER or ID (the only event when there is one).
fn sample_event(trace: &Trace, rec: &[u8]) -> Option<usize> {
    if trace.events.len() == 1 {
        return Some(0);
    }
    let first = &trace.events.first()?.attr;
    let sample_type = first.sample_type.0;
    let at = st::sample_offset(sample_type, st::IDENTIFIER)
        .or_else(|| st::sample_offset(sample_type, st::ID))?;
    let id = u64_at(rec, at, trace.endian)?;
    trace.events.iter().position(|e| e.ids.contains(&id))
}

fn count(trace: &Trace) -> Result<Counts, DataError> {
    let mut c = Counts {
        by_type: BTreeMap::new(),
        samples: BTreeMap::new(),
    };
    let mut decompressor = None;
    let tally = |c: &mut Counts, type_: u32, rec: &[u8]| {
        *c.by_type.entry(type_).or_insert(0) += 1;
        if type_ == record_type::SAMPLE {
            if let Some(i) = sample_event(trace, rec) {
                *c.samples.entry(i).or_insert(0) += 1;
            }
        }
    };
    for r in &trace.records {
        let bytes = trace.record_bytes(r);
        tally(&mut c, r.type_, bytes);
        if r.type_ == record_type::COMPRESSED {
            let d = match &mut decompressor {
                Some(d) => d,
                None => decompressor.insert(
                    Decompressor::new(trace.endian)
                        .map_err(|e| DataError::bad(&trace.path, format!("zstd: {e}")))?,
                ),
            };
            let endian = trace.endian;
            d.feed(&bytes[8..], |rec| {
                let type_ = u32_at(rec, 0, endian).unwrap_or(0);
                tally(&mut c, type_, rec);
                Ok::<(), ()>(())
            })
            .map_err(|e| {
                DataError::bad(
                    &trace.path,
                    format!("COMPRESSED record at byte {}: {e}", r.range.start),
                )
            })?
            .ok();
        }
    }
    Ok(c)
}

/// The feature payloads `perf report --header-only` shows, by feature bit. A stream's are
/// those before the HEADER_FEATURE that ends its header, where perf stops reading (a
/// HEADER_COMPRESSED the writer sends once compressed records went out comes later).
fn header_features(trace: &Trace) -> BTreeMap<u8, &[u8]> {
    if trace.mode == Mode::File {
        return trace
            .features
            .iter()
            .map(|(&bit, p)| (bit, &p[..]))
            .collect();
    }
    let mut shown = BTreeMap::new();
    for r in &trace.records {
        let b = trace.record_bytes(r);
        let (id, payload) = match r.type_ {
            record_type::HEADER_FEATURE => (u64_at(b, 8, trace.endian), b.get(16..)),
            record_type::HEADER_TRACING_DATA => (
                Some(u64::from(feature::TRACING_DATA)),
                trace
                    .features
                    .get(&feature::TRACING_DATA)
                    .map(Vec::as_slice),
            ),
            _ => continue,
        };
        match id.map(u8::try_from) {
            Some(Ok(bit)) if bit < feature::LAST_FEATURE => {
                shown.entry(bit).or_insert(payload.unwrap_or_default());
            }
            _ => break,
        }
    }
    shown
}

/// The report: header lines as `perf report --header-only` prints them, then the record
/// counts as `perf report --stats` prints them.
///
/// # Errors
///
/// [`DataError::BadInput`] when COMPRESSED records do not decompress.
pub fn report(trace: &Trace) -> Result<String, DataError> {
    let e = trace.endian;
    let f = &header_features(trace);
    let mut out = String::from("# ========\n");
    // A stream has no sections: perf says 0 for each.
    let (data_off, data_size) = match trace.mode {
        Mode::File => (
            u64_at(&trace.bytes, 40, e).unwrap_or(0),
            u64_at(&trace.bytes, 48, e).unwrap_or(0),
        ),
        Mode::Pipe => (0, 0),
    };
    let _ = writeln!(out, "# data offset    : {data_off}");
    let _ = writeln!(out, "# data size      : {data_size}");
    let _ = writeln!(out, "# feat offset    : {}", data_off + data_size);
    for (bit, label) in [
        (feature::HOSTNAME, "hostname"),
        (feature::OSRELEASE, "os release"),
        (feature::VERSION, "perf version"),
        (feature::ARCH, "arch"),
    ] {
        if let Some((s, _)) = f.get(&bit).and_then(|b| header_string(b, 0, e)) {
            let _ = writeln!(out, "# {label} : {s}");
        }
    }
    if let Some(n) = f.get(&feature::NRCPUS).and_then(|b| {
        parse_with(
            b,
            e,
            |b| NrCpus::parse::<_, LittleEndian>(b),
            |b| NrCpus::parse::<_, BigEndian>(b),
        )
    }) {
        let _ = writeln!(out, "# nrcpus online : {}", n.nr_cpus_online);
        let _ = writeln!(out, "# nrcpus avail : {}", n.nr_cpus_available);
    }
    for (bit, label) in [(feature::CPUDESC, "cpudesc"), (feature::CPUID, "cpuid")] {
        if let Some((s, _)) = f.get(&bit).and_then(|b| header_string(b, 0, e)) {
            let _ = writeln!(out, "# {label} : {s}");
        }
    }
    if let Some(kb) = f.get(&feature::TOTAL_MEM).and_then(|b| u64_at(b, 0, e)) {
        let _ = writeln!(out, "# total memory : {kb} kB");
    }
    if let Some(args) = f.get(&feature::CMDLINE).and_then(|b| string_list(b, e)) {
        let mut line = String::from("# cmdline : ");
        for a in args {
            let _ = write!(line, "{a} ");
        }
        let _ = writeln!(out, "{line}");
    }
    for ev in &trace.events {
        let _ = writeln!(out, "{}", event_line(ev));
    }
    for &bit in &SUMMARIZED[..2] {
        if f.contains_key(&bit) {
            let _ = writeln!(
                out,
                "# {} info available, use -I to display",
                feature_name(bit)
            );
        }
    }
    if let Some(b) = f.get(&feature::PMU_MAPPINGS) {
        let mut pos = 4;
        let mut parts = Vec::new();
        for _ in 0..u32_at(b, 0, e).unwrap_or(0) {
            let Some(type_) = u32_at(b, pos, e) else {
                break;
            };
            let Some((name, next)) = header_string(b, pos + 4, e) else {
                break;
            };
            parts.push(format!("{name} = {type_}"));
            pos = next;
        }
        let _ = writeln!(out, "# pmu mappings: {}", parts.join(", "));
    }
    if f.contains_key(&feature::CACHE) {
        let _ = writeln!(out, "# CACHE info available, use -I to display");
    }
    if let Some(t) = f.get(&feature::SAMPLE_TIME).and_then(|b| {
        parse_with(
            b,
            e,
            |b| SampleTimeRange::parse::<_, LittleEndian>(b),
            |b| SampleTimeRange::parse::<_, BigEndian>(b),
        )
    }) {
        let _ = writeln!(
            out,
            "# time of first sample : {}",
            usec_time(t.first_sample_time)
        );
        let _ = writeln!(
            out,
            "# time of last sample : {}",
            usec_time(t.last_sample_time)
        );
        let ms = t.last_sample_time.saturating_sub(t.first_sample_time) as f64 / 1e6;
        let _ = writeln!(out, "# sample duration : {ms:10.3} ms");
    }
    if f.contains_key(&feature::MEM_TOPOLOGY) {
        let _ = writeln!(out, "# MEM_TOPOLOGY info available, use -I to display");
    }
    if let Some(ns) = f.get(&feature::CLOCKID).and_then(|b| u64_at(b, 0, e)) {
        let _ = writeln!(out, "# clockid frequency: {} MHz", 1000 / ns.max(1));
    }
    if let Some(c) = f.get(&feature::COMPRESSED).and_then(|b| {
        parse_with(
            b,
            e,
            |b| CompressionInfo::parse::<_, LittleEndian>(b),
            |b| CompressionInfo::parse::<_, BigEndian>(b),
        )
    }) {
        let kind = if c.type_ == 1 { "Zstd" } else { "Unknown" };
        let _ = writeln!(
            out,
            "# compressed : {kind}, level = {}, ratio = {}",
            c.level, c.ratio
        );
    }
    let missing: Vec<String> = (1..=PERF_6_1_LAST_FEATURE)
        .filter(|b| !f.contains_key(b))
        .map(feature_name)
        .collect();
    // perf lists the missing features of a file only (a stream's header has no bitmap).
    if !missing.is_empty() && trace.mode == Mode::File {
        let _ = writeln!(out, "# missing features: {} ", missing.join(" "));
    }
    out.push_str("# ========\n#\n\n");

    let counts = count(trace)?;
    let total: u64 = counts.by_type.values().sum();
    out.push_str("Aggregated stats:\n");
    let _ = writeln!(out, "{:>20} events: {total:>10}", "TOTAL");
    for (&type_, &n) in &counts.by_type {
        let pct = 100.0 * n as f64 / total.max(1) as f64;
        let _ = writeln!(
            out,
            "{:>20} events: {n:>10}  ({pct:4.1}%)",
            stats_name(type_)
        );
    }
    for (&i, &n) in &counts.samples {
        let _ = writeln!(out, "{} stats:", trace.events[i].name);
        let _ = writeln!(out, "{:>20} events: {n:>10}", "SAMPLE");
    }
    Ok(out)
}

fn feature_name(bit: u8) -> String {
    crate::convert::feature_label(bit)
}
