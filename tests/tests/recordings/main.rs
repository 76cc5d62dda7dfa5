//! Real perf 6.1 recordings: rewritten by the writer (here), their kernel SAMPLEs encoded
//! again byte for byte (`kernel_samples`).
//!
//! Real recordings rewritten with `PerfDataFileWriter`.
//!
//! For each perf 6.1 recording in `tests/data/perf-6.1` (file mode and pipe mode) the
//! attrs, names, ids, feature sections and records (in file order) are taken out of the
//! recording, written again with the writer (file mode), and both files are compared with
//! perf 6.1 (`perf script`, `perf report --stats`, `perf report --header-only`,
//! `perf evlist -v`), linux-perf-data 0.13, tracepoint_perf 0.5 and the harness's raw walk.
//!
//! Where the inputs come from:
//! - attrs: the raw `perf_event_attr` bytes (attrs section, or HEADER_ATTR records in pipe
//!   mode) converted field by field into `tracepoint_decode::PerfEventAttr`;
//! - names and ids: linux-perf-data (`PerfFile::event_attributes`), cross-checked with the
//!   harness's EVENT_DESC / HEADER_ATTR parse;
//! - feature payloads: linux-perf-data's `feature_section_data` (cross-checked with the raw
//!   walk); in pipe mode the HEADER_FEATURE records, and TRACING_DATA from the
//!   HEADER_TRACING_DATA record without its NUL padding (perf 6.1 puts the padded size in
//!   the record's `size` field: 6912 = 6907 bytes of tracing data + 5 NULs);
//! - records: the harness's raw walk (`FixtureContent::records`), in stored order
//!   (linux-perf-data sorts records).
//!
//! Every feature is copied with `set_header` except EVENT_DESC, which the writer has to
//! synthesize from the event descriptions (so its EVENT_DESC is what perf reads names from).
//!
//! What legitimately differs between a pipe recording and its file-mode rewrite: the
//! pipe-only records HEADER_ATTR (64), HEADER_TRACING_DATA (66) and HEADER_FEATURE (80,
//! including its end marker) are not data records in file mode (their content moves to the
//! attrs section and the feature sections), so they are not written. Every other record
//! (FINISHED_ROUND 68, ID_INDEX 69, THREAD_MAP 73, CPU_MAP 74, EVENT_UPDATE 78,
//! FINISHED_INIT 82, and all kernel records) is valid in file mode and is copied as is.

mod kernel_samples;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use integration_tests::fixtures::{self, DataMode, EventDescEntry, FixtureContent, RawRecord};
use integration_tests::lpd::{self, LpdSummary};
use integration_tests::perf_tool::{self, script_lines, HeaderEvent, PerfOutput, StatsInfo};
use integration_tests::tp_reader::{self, TpSummary};
use integration_tests::{record_type_name, Endian};
use perf_writer_std::{FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter, PerfWriter};
use tracepoint_decode as td;

const SCHED: &str = "sched_switch.data";
const CPU: &str = "cpu_clock.data";
const PIPE: &str = "pipe_sched.data";

const SAMPLE: u32 = 9;
const HEADER_ATTR: u32 = 64;
const HEADER_TRACING_DATA: u32 = 66;
const HEADER_FEATURE: u32 = 80;
/// Records that only exist in pipe mode (their content is the file header's in file mode).
const PIPE_ONLY_RECORDS: [u32; 3] = [HEADER_ATTR, HEADER_TRACING_DATA, HEADER_FEATURE];

const FEAT_TRACING_DATA: u32 = 1;
const FEAT_EVENT_DESC: u32 = 12;
/// `HEADER_LAST_FEATURE` of perf 6.1: feat_id of the pipe-mode HEADER_FEATURE end marker.
const FEAT_LAST: u32 = 32;

const ATTR_TYPE_TRACEPOINT: u32 = 2;
const SAMPLE_TYPE_IDENTIFIER: u64 = 1 << 16;

/// `perf report --header-only` keys whose values depend on where sections sit in the file
/// or on the file's mtime, not on its content.
const LAYOUT_HEADER_KEYS: [&str; 4] = ["captured on", "data offset", "data size", "feat offset"];

/// Names of the features perf 6.1 knows (bits 1..=31) that are absent from `present`, in
/// bit order: what `perf report --header-only` lists as missing.
fn missing_features(present: &BTreeMap<u32, Vec<u8>>) -> Vec<String> {
    (1..=31u32)
        .filter(|b| !present.contains_key(b))
        .map(|b| integration_tests::feature_name(b).unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------- attrs

/// `perf_event_attr` (PERF_ATTR_SIZE_VER7, 128 bytes, little-endian) into
/// `tracepoint_decode::PerfEventAttr`, field by field.
fn td_attr_from_bytes(b: &[u8], endian: Endian) -> td::PerfEventAttr {
    assert_eq!(
        endian,
        Endian::Little,
        "the fixtures are little-endian; the flags word of a big-endian attr needs bit reversal"
    );
    assert_eq!(b.len(), 128, "perf 6.1 writes PERF_ATTR_SIZE_VER7 attrs");
    let u16_at = |p| endian.u16_at(b, p).unwrap();
    let u32_at = |p| endian.u32_at(b, p).unwrap();
    let u64_at = |p| endian.u64_at(b, p).unwrap();
    td::PerfEventAttr {
        attr_type: td::PerfEventAttrType(u32_at(0)),
        size: td::PerfEventAttrSize(u32_at(4)),
        config: u64_at(8),
        sample_time: u64_at(16),
        sample_type: td::PerfEventAttrSampleType(u64_at(24)),
        read_format: td::PerfEventAttrReadFormat(u64_at(32)),
        options: td::PerfEventAttrOptions(u64_at(40)),
        wakeup_value: u32_at(48),
        bp_type: u32_at(52),
        config1: u64_at(56),
        config2: u64_at(64),
        branch_sample_type: u64_at(72),
        sample_regs_user: u64_at(80),
        sample_stack_user: u32_at(88),
        clockid: u32_at(92),
        sample_regs_intr: u64_at(96),
        aux_watermark: u32_at(104),
        sample_max_stack: u16_at(108),
        reserved2: u16_at(110),
        aux_sample_size: u32_at(112),
        reserved3: u32_at(116),
        sig_data: u64_at(120),
    }
}

/// The 128 little-endian bytes of a `tracepoint_decode::PerfEventAttr` (to check that
/// [`td_attr_from_bytes`] covers every byte).
fn td_attr_to_le_bytes(a: &td::PerfEventAttr) -> Vec<u8> {
    let mut v = Vec::with_capacity(128);
    v.extend_from_slice(&a.attr_type.0.to_le_bytes());
    v.extend_from_slice(&a.size.0.to_le_bytes());
    for x in [
        a.config,
        a.sample_time,
        a.sample_type.0,
        a.read_format.0,
        a.options.0,
    ] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&a.wakeup_value.to_le_bytes());
    v.extend_from_slice(&a.bp_type.to_le_bytes());
    for x in [
        a.config1,
        a.config2,
        a.branch_sample_type,
        a.sample_regs_user,
    ] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&a.sample_stack_user.to_le_bytes());
    v.extend_from_slice(&a.clockid.to_le_bytes());
    v.extend_from_slice(&a.sample_regs_intr.to_le_bytes());
    v.extend_from_slice(&a.aux_watermark.to_le_bytes());
    v.extend_from_slice(&a.sample_max_stack.to_le_bytes());
    v.extend_from_slice(&a.reserved2.to_le_bytes());
    v.extend_from_slice(&a.aux_sample_size.to_le_bytes());
    v.extend_from_slice(&a.reserved3.to_le_bytes());
    v.extend_from_slice(&a.sig_data.to_le_bytes());
    v
}

// ---------------------------------------------------------------- a recording taken apart

/// One event of a recording: what `add_event_desc` gets.
#[derive(Clone, Debug)]
struct EventSpec {
    attr: td::PerfEventAttr,
    /// The attr bytes as stored in the recording.
    attr_bytes: Vec<u8>,
    name: String,
    ids: Vec<u64>,
}

/// A recording taken apart into what the writer needs.
struct Recording {
    name: &'static str,
    path: PathBuf,
    content: FixtureContent,
    /// linux-perf-data's view of the recording.
    lpd: LpdSummary,
    /// Events in EVENT_DESC order (linux-perf-data's order).
    events: Vec<EventSpec>,
    /// Every feature payload the rewrite must carry, TRACING_DATA included (pipe mode: from
    /// HEADER_TRACING_DATA), EVENT_DESC included (it is not copied: the rewrite's is compared).
    features: BTreeMap<u32, Vec<u8>>,
    /// The data records of the rewrite, in stored order (pipe-only records left out).
    records: Vec<RawRecord>,
}

impl Recording {
    fn load(name: &'static str) -> Recording {
        Recording::from_bytes(
            name,
            fixtures::fixture_path(name),
            &fixtures::read_fixture(name),
        )
    }

    /// A recording from bytes stored at `path` (perf reads the original from there).
    fn from_bytes(name: &'static str, path: PathBuf, bytes: &[u8]) -> Recording {
        let bytes = bytes.to_vec();
        let content = FixtureContent::from_bytes(&bytes)
            .unwrap_or_else(|e| panic!("{name}: raw walk failed: {e}"));
        assert_eq!(content.endian, Endian::Little, "{name}");
        let lpd = match content.mode {
            DataMode::File => lpd::read_file(&bytes),
            // linux-perf-data 0.13 reads the HEADER_TRACING_DATA payload as records; the
            // harness's workaround leaves the payload out.
            DataMode::Pipe => lpd::read_pipe_without_tracing_payload(&bytes),
        }
        .unwrap_or_else(|e| panic!("{name}: linux-perf-data: {e}"));
        assert!(
            lpd.feature_errors.is_empty(),
            "{name}: {:?}",
            lpd.feature_errors
        );

        // Names and ids from linux-perf-data; attr bytes from the raw walk, matched by ids.
        assert_eq!(lpd.attrs.len(), content.attrs.len(), "{name}: attr count");
        let events: Vec<EventSpec> =
            lpd.attrs
                .iter()
                .map(|la| {
                    let raw = content
                        .attrs
                        .iter()
                        .find(|ra| ra.ids == la.ids)
                        .unwrap_or_else(|| panic!("{name}: no raw attr with ids {:?}", la.ids));
                    let ev_name = la.name.clone().unwrap_or_else(|| {
                        panic!("{name}: linux-perf-data has no name for {la:?}")
                    });
                    assert_eq!(raw.name.as_deref(), Some(ev_name.as_str()), "{name}: names");
                    assert_eq!(raw.attr_type, la.attr_type, "{name}: {ev_name} type");
                    assert_eq!(
                        raw.sample_type, la.sample_type,
                        "{name}: {ev_name} sample_type"
                    );
                    let attr = td_attr_from_bytes(&raw.bytes, content.endian);
                    assert_eq!(
                        td_attr_to_le_bytes(&attr),
                        raw.bytes,
                        "{name}: {ev_name}: the field-by-field conversion must keep every byte"
                    );
                    EventSpec {
                        attr,
                        attr_bytes: raw.bytes.clone(),
                        name: ev_name,
                        ids: la.ids.clone(),
                    }
                })
                .collect();

        // Feature payloads from linux-perf-data, equal to the raw walk's.
        let mut features = lpd.feature_sections.clone();
        match content.mode {
            DataMode::File => {}
            DataMode::Pipe => {
                // linux-perf-data keeps the HEADER_FEATURE end marker as feature 32.
                assert_eq!(features.remove(&FEAT_LAST), Some(Vec::new()), "{name}");
                assert_eq!(content.pipe_feature_end_marker, Some(u64::from(FEAT_LAST)));
                assert!(
                    !features.contains_key(&FEAT_TRACING_DATA),
                    "{name}: pipe mode sends tracing data as a record"
                );
            }
        }
        assert!(
            features == content.features,
            "{name}: linux-perf-data and the raw walk disagree on feature payloads"
        );
        if content.mode == DataMode::Pipe && content.tracing_data.is_some() {
            // HEADER_TRACING_DATA's `size` counts the NUL padding perf adds to reach a
            // multiple of 8; the TRACING_DATA feature of a file is the blob without it.
            let padded = content
                .tracing_data
                .clone()
                .unwrap_or_else(|| panic!("{name}: no HEADER_TRACING_DATA record"));
            let len = TracingDataParts::parse(&padded)
                .unwrap_or_else(|e| panic!("{name}: tracing data: {e}"))
                .len;
            assert_eq!(padded.len(), len.div_ceil(8) * 8, "{name}: padding to 8");
            assert!(padded[len..].iter().all(|&b| b == 0), "{name}: NUL padding");
            features.insert(FEAT_TRACING_DATA, padded[..len].to_vec());
        }
        assert!(
            features.contains_key(&FEAT_EVENT_DESC),
            "{name}: recording has EVENT_DESC"
        );

        let records: Vec<RawRecord> = content
            .records
            .iter()
            .filter(|r| !PIPE_ONLY_RECORDS.contains(&r.record_type))
            .cloned()
            .collect();
        if content.mode == DataMode::File {
            assert_eq!(
                records.len(),
                content.records.len(),
                "{name}: no pipe-only records"
            );
        }
        Recording {
            name,
            path,
            content,
            lpd,
            events,
            features,
            records,
        }
    }

    fn has_tracepoints(&self) -> bool {
        self.events
            .iter()
            .any(|e| e.attr.attr_type.0 == ATTR_TYPE_TRACEPOINT)
    }

    /// Counts of the rewrite's records by perf's type name, plus TOTAL.
    fn expected_stats(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for r in &self.records {
            *m.entry(record_type_name(r.record_type).to_string())
                .or_insert(0) += 1;
        }
        m.insert("TOTAL".to_string(), self.records.len() as u64);
        m
    }

    /// SAMPLE count per event name, attributed by IDENTIFIER / ID (or to the only event).
    fn samples_per_event(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        let e = self.content.endian;
        for r in self.records.iter().filter(|r| r.record_type == SAMPLE) {
            let ev = if self.events.len() == 1 {
                &self.events[0]
            } else {
                // perf adds IDENTIFIER when there are several events: first u64 of the body.
                let id = e.u64_at(&r.bytes, 8).unwrap();
                let ev = self
                    .events
                    .iter()
                    .find(|ev| ev.ids.contains(&id))
                    .unwrap_or_else(|| panic!("{}: sample id {id} has no event", self.name));
                assert!(
                    ev.attr.sample_type.0 & SAMPLE_TYPE_IDENTIFIER != 0,
                    "{}: {} lacks IDENTIFIER",
                    self.name,
                    ev.name
                );
                ev
            };
            *m.entry(ev.name.clone()).or_insert(0) += 1;
        }
        m
    }
}

// ---------------------------------------------------------------- writing

/// How tracepoint events get their formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TracepointMode {
    /// `add_event_desc` + the recording's TRACING_DATA through `set_header`.
    CopyTracingData,
    /// `add_tracepoint_event_desc` with formats parsed from the recording's tracing data;
    /// the writer synthesizes TRACING_DATA.
    ParsedFormats,
    /// `add_tracepoint_event_desc_from_text` with the recording's format texts.
    FormatTexts,
}

/// Writes the recording again with the writer over a `Cursor`.
fn rewrite(rec: &Recording, mode: TracepointMode) -> Vec<u8> {
    let w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new()))
        .expect("writer over a Cursor");
    fill_and_finish(rec, mode, w).into_inner()
}

fn fill_and_finish<O: OutputMode>(
    rec: &Recording,
    mode: TracepointMode,
    mut w: PerfWriter<O>,
) -> O::Stream {
    let name = rec.name;
    let tracing = match mode {
        TracepointMode::CopyTracingData => None,
        TracepointMode::ParsedFormats | TracepointMode::FormatTexts => {
            let blob = &rec.features[&FEAT_TRACING_DATA];
            let t = TracingDataParts::parse(blob)
                .unwrap_or_else(|e| panic!("{name}: cannot parse TRACING_DATA: {e}"));
            assert!(!t.big_endian, "{name}");
            w.set_tracing_data_required(t.long_size, t.page_size)
                .unwrap();
            w.set_tracing_data_header_page(&t.header_page).unwrap();
            w.set_tracing_data_header_event(&t.header_event).unwrap();
            w.set_tracing_data_clear_ftraces().unwrap();
            for f in &t.ftraces {
                w.set_tracing_data_add_ftrace(f).unwrap();
            }
            w.set_tracing_data_kallsyms(&t.kallsyms).unwrap();
            w.set_tracing_data_printk(&t.printk).unwrap();
            w.set_tracing_data_saved_cmd_line(&t.saved_cmdline).unwrap();
            Some(t)
        }
    };

    for ev in &rec.events {
        let is_tp = ev.attr.attr_type.0 == ATTR_TYPE_TRACEPOINT;
        match (&tracing, is_tp) {
            (Some(t), true) => {
                let (system, text) = t
                    .format_text_for_id(ev.attr.config)
                    .unwrap_or_else(|| panic!("{name}: no format for {}", ev.name));
                let text = std::str::from_utf8(text).expect("format text is UTF-8");
                if mode == TracepointMode::ParsedFormats {
                    let format = td::PerfEventFormat::parse(t.long_size == 8, system, text)
                        .unwrap_or_else(|| panic!("{name}: format of {} does not parse", ev.name));
                    assert_eq!(u64::from(format.id()), ev.attr.config);
                    w.add_tracepoint_event_desc(&ev.ids, &ev.attr, &ev.name, &Arc::new(format))
                        .unwrap_or_else(|e| {
                            panic!("{name}: add_tracepoint_event_desc {}: {e}", ev.name)
                        });
                    assert!(w.has_tracepoint_event_desc(ev.attr.config as u32));
                } else {
                    let format = w
                        .add_tracepoint_event_desc_from_text(
                            &ev.ids, &ev.attr, &ev.name, system, text,
                        )
                        .unwrap_or_else(|e| {
                            panic!(
                                "{name}: add_tracepoint_event_desc_from_text {}: {e}",
                                ev.name
                            )
                        });
                    assert_eq!(u64::from(format.id()), ev.attr.config);
                }
            }
            _ => {
                w.add_event_desc(&ev.ids, &ev.attr, &ev.name)
                    .unwrap_or_else(|e| panic!("{name}: add_event_desc {}: {e}", ev.name));
            }
        }
    }

    for (&bit, payload) in &rec.features {
        let copy = match bit {
            FEAT_EVENT_DESC => false,
            FEAT_TRACING_DATA => mode == TracepointMode::CopyTracingData,
            _ => true,
        };
        if copy {
            let index = PerfHeaderIndex(u8::try_from(bit).unwrap());
            w.set_header(index, payload)
                .unwrap_or_else(|e| panic!("{name}: set_header({index}): {e}"));
            assert_eq!(w.get_header(index), payload.as_slice());
        }
    }
    assert!(
        w.get_header(PerfHeaderIndex::EventDesc).is_empty(),
        "EVENT_DESC is left to the writer"
    );

    for r in &rec.records {
        w.write_event_data(&r.full_bytes())
            .unwrap_or_else(|e| panic!("{name}: write_event_data at {}: {e}", r.offset));
    }
    w.finish().unwrap_or_else(|e| panic!("{name}: finish: {e}"))
}

// ---------------------------------------------------------------- tracing data

/// A TRACING_DATA blob taken apart (layout of perf's `tracing_data_get`, version 0.6).
#[derive(Clone, Debug, PartialEq, Eq)]
struct TracingDataParts {
    big_endian: bool,
    long_size: u8,
    page_size: u32,
    header_page: Vec<u8>,
    header_event: Vec<u8>,
    ftraces: Vec<Vec<u8>>,
    /// (system name, format texts).
    systems: Vec<(String, Vec<Vec<u8>>)>,
    kallsyms: Vec<u8>,
    printk: Vec<u8>,
    saved_cmdline: Vec<u8>,
    /// Length of the blob without trailing padding.
    len: usize,
}

struct Cur<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| {
                format!(
                    "{what}: {n} bytes at {} past the end {}",
                    self.pos,
                    self.b.len()
                )
            })?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }
    fn expect(&mut self, lit: &[u8], what: &str) -> Result<(), String> {
        let got = self.take(lit.len(), what)?;
        if got == lit {
            Ok(())
        } else {
            Err(format!("{what}: expected {lit:?}, found {got:?}"))
        }
    }
    fn cstr(&mut self, what: &str) -> Result<String, String> {
        let rest = &self.b[self.pos..];
        let nul = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or_else(|| format!("{what}: no NUL"))?;
        let s = String::from_utf8_lossy(&rest[..nul]).into_owned();
        self.pos += nul + 1;
        Ok(s)
    }
    fn blob64(&mut self, what: &str) -> Result<Vec<u8>, String> {
        let n = self.u64(what)? as usize;
        Ok(self.take(n, what)?.to_vec())
    }
    fn blob32(&mut self, what: &str) -> Result<Vec<u8>, String> {
        let n = self.u32(what)? as usize;
        Ok(self.take(n, what)?.to_vec())
    }
}

impl TracingDataParts {
    /// Parses a little-endian TRACING_DATA blob; the blob must be consumed exactly, up to
    /// fewer than 8 NUL padding bytes.
    fn parse(b: &[u8]) -> Result<TracingDataParts, String> {
        let mut c = Cur { b, pos: 0 };
        c.expect(b"\x17\x08\x44tracing0.6\0", "magic and version")?;
        let big_endian = c.u8("endian")? != 0;
        if big_endian {
            return Err("big-endian tracing data is not handled here".into());
        }
        let long_size = c.u8("long_size")?;
        let page_size = c.u32("page_size")?;
        c.expect(b"header_page\0", "header_page tag")?;
        let header_page = c.blob64("header_page")?;
        c.expect(b"header_event\0", "header_event tag")?;
        let header_event = c.blob64("header_event")?;
        let nr_ftraces = c.u32("nr_ftraces")?;
        let ftraces = (0..nr_ftraces)
            .map(|_| c.blob64("ftrace format"))
            .collect::<Result<_, _>>()?;
        let nr_systems = c.u32("nr_systems")?;
        let mut systems = Vec::new();
        for _ in 0..nr_systems {
            let sys = c.cstr("system name")?;
            let nr_events = c.u32("nr_events")?;
            let formats = (0..nr_events)
                .map(|_| c.blob64("event format"))
                .collect::<Result<_, _>>()?;
            systems.push((sys, formats));
        }
        let kallsyms = c.blob32("kallsyms")?;
        let printk = c.blob32("printk")?;
        let saved_cmdline = c.blob64("saved_cmdline")?;
        // A pipe stream's HEADER_TRACING_DATA pads the blob with NULs to a multiple of 8
        // (perf's `perf_event__synthesize_tracing_data` counts the padding in `size`).
        let rest = &b[c.pos..];
        if rest.len() >= 8 || rest.iter().any(|&x| x != 0) {
            return Err(format!("{} bytes left after saved_cmdline", rest.len()));
        }
        Ok(TracingDataParts {
            big_endian,
            long_size,
            page_size,
            header_page,
            header_event,
            ftraces,
            systems,
            kallsyms,
            printk,
            saved_cmdline,
            len: c.pos,
        })
    }

    /// Every event format: (system, text).
    fn formats(&self) -> Vec<(&str, &[u8])> {
        self.systems
            .iter()
            .flat_map(|(s, f)| f.iter().map(move |t| (s.as_str(), t.as_slice())))
            .collect()
    }

    /// The format whose `ID:` is `id`.
    fn format_text_for_id(&self, id: u64) -> Option<(&str, &[u8])> {
        self.formats().into_iter().find(|(sys, text)| {
            let text = std::str::from_utf8(text).ok();
            text.and_then(|t| td::PerfEventFormat::parse(self.long_size == 8, sys, t))
                .is_some_and(|f| u64::from(f.id()) == id)
        })
    }
}

/// What a parsed format says, comparable: system, name, id, print fmt, common field
/// count, and per field (declaration, offset, size, signed).
type FormatSig = (
    String,
    String,
    u32,
    String,
    usize,
    Vec<(String, u16, u16, Option<bool>)>,
);

fn format_sig(long_is_64: bool, system: &str, text: &[u8]) -> FormatSig {
    let text = std::str::from_utf8(text).expect("format text is UTF-8");
    let f = td::PerfEventFormat::parse(long_is_64, system, text)
        .unwrap_or_else(|| panic!("format of {system} does not parse:\n{text}"));
    (
        f.system_name().to_string(),
        f.name().to_string(),
        f.id(),
        f.print_fmt().to_string(),
        f.common_field_count(),
        f.fields()
            .iter()
            .map(|x| (x.field().to_string(), x.offset(), x.size(), x.signed()))
            .collect(),
    )
}

// ---------------------------------------------------------------- comparisons

/// Panics with a readable diff when two line lists differ.
fn assert_same_lines(what: &str, original: &[String], rewrite: &[String]) {
    if original == rewrite {
        return;
    }
    let first = original
        .iter()
        .zip(rewrite)
        .position(|(a, b)| a != b)
        .unwrap_or(original.len().min(rewrite.len()));
    let mut msg = format!(
        "{what}: output differs ({} lines in the original, {} in the rewrite); first difference at line {first}\n",
        original.len(),
        rewrite.len()
    );
    let end = (first + 6).max(first + 1);
    for i in first.saturating_sub(2)..end {
        let a = original.get(i).map(String::as_str).unwrap_or("<none>");
        let b = rewrite.get(i).map(String::as_str).unwrap_or("<none>");
        if a == b {
            msg.push_str(&format!("  {i}: {a}\n"));
        } else {
            msg.push_str(&format!("- {i}: {a}\n+ {i}: {b}\n"));
        }
    }
    let a: BTreeSet<&String> = original.iter().collect();
    let b: BTreeSet<&String> = rewrite.iter().collect();
    let only_a: Vec<&&String> = a.difference(&b).take(10).collect();
    let only_b: Vec<&&String> = b.difference(&a).take(10).collect();
    msg.push_str(&format!(
        "lines only in the original: {only_a:#?}\nlines only in the rewrite: {only_b:#?}"
    ));
    panic!("{msg}");
}

/// A perf run that must exit 0 with no red flag on stderr (original and rewrite alike: for
/// the recordings perf only prints its "No kallsyms or vmlinux" note).
fn clean(out: PerfOutput) -> PerfOutput {
    out.assert_clean();
    out
}

/// The raw content of the rewrite equals what went in.
fn check_raw(rec: &Recording, bytes: &[u8]) -> FixtureContent {
    let name = rec.name;
    let fc = FixtureContent::from_bytes(bytes)
        .unwrap_or_else(|e| panic!("{name}: raw walk of the rewrite: {e}"));
    assert_eq!(
        fc.mode,
        DataMode::File,
        "{name}: the writer writes file mode"
    );
    assert_eq!(fc.endian, Endian::Little);
    let h = fc.header.as_ref().unwrap();
    assert_eq!((h.size, h.attr_size), (104, 128 + 16), "{name}: header");
    assert_eq!(h.event_types.size, 0);

    // Attrs: same bytes, same ids, same names, in EVENT_DESC order.
    assert_eq!(fc.attrs.len(), rec.events.len(), "{name}: attr count");
    for (got, want) in fc.attrs.iter().zip(&rec.events) {
        assert_eq!(got.ids, want.ids, "{name}: ids of {}", want.name);
        assert_eq!(got.name.as_deref(), Some(want.name.as_str()), "{name}");
        assert_eq!(
            got.bytes, want.attr_bytes,
            "{name}: attr bytes of {}",
            want.name
        );
    }

    // Records: byte for byte, in order.
    assert_eq!(fc.records.len(), rec.records.len(), "{name}: record count");
    for (i, (got, want)) in fc.records.iter().zip(&rec.records).enumerate() {
        assert_eq!(
            got.full_bytes(),
            want.full_bytes(),
            "{name}: record {i} (type {}, original offset {})",
            want.record_type,
            want.offset
        );
    }

    // Features: the same set; every payload byte-identical but EVENT_DESC, whose entries
    // must equal the recording's.
    let want_bits: Vec<u32> = rec.features.keys().copied().collect();
    assert_eq!(fc.feature_bits(), want_bits, "{name}: feature bits");
    for (bit, want) in &rec.features {
        if *bit != FEAT_EVENT_DESC {
            assert!(
                &fc.features[bit] == want,
                "{name}: feature {bit} payload differs ({} bytes, want {})",
                fc.features[bit].len(),
                want.len()
            );
        }
    }
    let want_desc = fixtures::parse_event_desc(&rec.features[&FEAT_EVENT_DESC], rec.content.endian)
        .expect("recording's EVENT_DESC parses");
    let desc_key = |v: &[EventDescEntry]| -> Vec<(String, Vec<u64>, Vec<u8>)> {
        v.iter()
            .map(|e| (e.name.clone(), e.ids.clone(), e.attr.clone()))
            .collect()
    };
    assert_eq!(
        desc_key(&fc.event_desc),
        desc_key(&want_desc),
        "{name}: synthesized EVENT_DESC entries (name, ids, attr bytes)"
    );
    fc
}

/// linux-perf-data reads the same attrs, features and records from the rewrite.
fn check_lpd(rec: &Recording, bytes: &[u8]) {
    let name = rec.name;
    let s = lpd::read_file(bytes).unwrap_or_else(|e| panic!("{name}: rewrite: {e}"));
    assert!(
        s.feature_errors.is_empty(),
        "{name}: {:?}",
        s.feature_errors
    );
    assert_eq!(
        s.attrs, rec.lpd.attrs,
        "{name}: linux-perf-data attrs (names, ids, fields)"
    );
    assert_eq!(s.attr_names(), rec.lpd.attr_names());
    assert_eq!(
        (
            s.hostname.as_ref(),
            s.os_release.as_ref(),
            s.perf_version.as_ref()
        ),
        (
            rec.lpd.hostname.as_ref(),
            rec.lpd.os_release.as_ref(),
            rec.lpd.perf_version.as_ref()
        ),
        "{name}"
    );
    assert_eq!(s.cmdline, rec.lpd.cmdline, "{name}");
    assert_eq!(s.nr_cpus, rec.lpd.nr_cpus, "{name}");
    assert_eq!(s.sample_time_range, rec.lpd.sample_time_range, "{name}");
    // Feature payloads: everything copied is identical.
    for (bit, want) in &rec.features {
        if *bit != FEAT_EVENT_DESC {
            assert!(
                s.feature_sections.get(bit) == Some(want),
                "{name}: linux-perf-data feature {bit}"
            );
        }
    }
    // Records in linux-perf-data's order: the original's, without HEADER_TRACING_DATA (which
    // linux-perf-data returns as a user record in pipe mode).
    let want: Vec<&lpd::LpdRecord> = rec
        .lpd
        .records
        .iter()
        .filter(|r| !PIPE_ONLY_RECORDS.contains(&r.record_type))
        .collect();
    let got: Vec<&lpd::LpdRecord> = s.records.iter().collect();
    assert!(s.records_with_parse_errors().is_empty(), "{name}");
    assert_eq!(
        got.len(),
        want.len(),
        "{name}: linux-perf-data record count"
    );
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: linux-perf-data record {i}");
    }
    let mut counts = rec.lpd.counts_by_type.clone();
    for t in PIPE_ONLY_RECORDS {
        counts.remove(&t);
    }
    assert_eq!(s.counts_by_type, counts, "{name}");
}

/// tracepoint_perf's reader sees the same descs, records and decoded samples.
fn check_tp(rec: &Recording, path: &Path) -> TpSummary {
    let name = rec.name;
    let orig = tp_reader::read(&rec.path).unwrap_or_else(|e| panic!("{name}: original: {e}"));
    let new = tp_reader::read(path).unwrap_or_else(|e| panic!("{name}: rewrite: {e}"));
    assert!(!new.pipe_mode, "{name}");
    // Name, ids, attr type/config/size/sample_type and tracefs format of every event.
    assert_eq!(new.descs, orig.descs, "{name}: tracepoint_perf descs");
    assert_eq!(new.descs.len(), rec.events.len(), "{name}");
    assert_eq!(
        (new.tracing_data_long_size, new.tracing_data_page_size),
        (orig.tracing_data_long_size, orig.tracing_data_page_size),
        "{name}"
    );
    let want: Vec<&tp_reader::TpRecord> = orig
        .records
        .iter()
        .filter(|r| !PIPE_ONLY_RECORDS.contains(&r.record_type))
        .collect();
    let got: Vec<&tp_reader::TpRecord> = new.records.iter().collect();
    assert_eq!(
        got.len(),
        want.len(),
        "{name}: tracepoint_perf record count"
    );
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: tracepoint_perf record {i}");
    }
    assert_eq!(new.samples(), orig.samples(), "{name}: decoded samples");
    new
}

fn header_events(path: &Path) -> (Vec<HeaderEvent>, perf_tool::HeaderInfo) {
    let out = clean(perf_tool::perf_report_header(path, true));
    let info = perf_tool::parse_header_only(&out.stdout);
    (info.events.clone(), info)
}

/// `perf report --header-only -I` entries that describe content, not layout.
fn content_entries(info: &perf_tool::HeaderInfo) -> Vec<(String, String)> {
    info.entries
        .iter()
        .filter(|(k, _)| !LAYOUT_HEADER_KEYS.contains(&k.as_str()))
        .cloned()
        .collect()
}

fn script(path: &Path, args: &[&str]) -> Vec<String> {
    script_lines(&clean(perf_tool::perf_script(path, args)))
}

/// `perf script` field lists perf 6.1 accepts for the recording's events.
fn script_field_args(rec: &Recording) -> Vec<Vec<&'static str>> {
    if rec.has_tracepoints() {
        vec![
            vec!["-F", "comm,tid,pid,time,cpu,event,trace"],
            vec!["-F", "comm,tid,time,event,ip,sym,period,trace"],
        ]
    } else {
        vec![
            vec!["-F", "comm,tid,pid,time,event,ip,sym,dso,period"],
            vec!["-F", "comm,tid,time,period,event"],
        ]
    }
}

/// Lines of `perf script` output that start a sample (callchain lines do not name the event).
fn sample_line_count(rec: &Recording, lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| {
            rec.events
                .iter()
                .any(|e| l.contains(&format!(" {}:", e.name)))
        })
        .count()
}

/// Every perf comparison of the rewrite at `path` with the recording.
fn check_perf(rec: &Recording, path: &Path, expected_samples: usize) {
    let name = rec.name;

    // perf script: default fields, field lists, and the non-sample records.
    let orig = script(&rec.path, &[]);
    let new = script(path, &[]);
    assert_eq!(
        sample_line_count(rec, &orig),
        expected_samples,
        "{name}: original sample lines"
    );
    assert_same_lines(&format!("{name}: perf script"), &orig, &new);
    for args in script_field_args(rec) {
        let orig = script(&rec.path, &args);
        let new = script(path, &args);
        assert_eq!(
            sample_line_count(rec, &orig),
            expected_samples,
            "{name}: {args:?}"
        );
        assert_same_lines(&format!("{name}: perf script {args:?}"), &orig, &new);
    }
    let args = ["--show-task-events", "--show-mmap-events"];
    let orig = script(&rec.path, &args);
    let new = script(path, &args);
    let side_band = |lines: &[String]| lines.iter().filter(|l| l.contains("PERF_RECORD_")).count();
    assert!(side_band(&orig) > 0, "{name}: task/mmap events shown");
    assert_eq!(
        sample_line_count(rec, &orig),
        expected_samples,
        "{name}: {args:?}"
    );
    assert_same_lines(&format!("{name}: perf script {args:?}"), &orig, &new);

    // perf report --stats.
    let new_stats = perf_tool::parse_stats_full(&clean(perf_tool::perf_report_stats(path)).stdout);
    assert_eq!(
        new_stats.aggregated,
        rec.expected_stats(),
        "{name}: rewrite's perf report --stats against its records"
    );
    let per_event: BTreeMap<String, BTreeMap<String, u64>> = rec
        .samples_per_event()
        .into_iter()
        .map(|(ev, n)| (ev, BTreeMap::from([("SAMPLE".to_string(), n)])))
        .collect();
    assert_eq!(new_stats.per_event, per_event, "{name}: per-event stats");
    match rec.content.mode {
        DataMode::File => {
            let orig_stats: StatsInfo =
                perf_tool::parse_stats_full(&clean(perf_tool::perf_report_stats(&rec.path)).stdout);
            assert_eq!(new_stats, orig_stats, "{name}: perf report --stats");
        }
        DataMode::Pipe => {
            // perf 6.1 cannot count a pipe file with tracing data; the raw walk of the
            // stream, minus exactly the pipe-only records, is the reference.
            let mut want = rec.content.perf_stats();
            let mut dropped = 0;
            for t in PIPE_ONLY_RECORDS {
                dropped += want.remove(record_type_name(t)).unwrap_or_else(|| {
                    panic!("{name}: pipe stream has {} records", record_type_name(t))
                });
            }
            *want.get_mut("TOTAL").unwrap() -= dropped;
            assert_eq!(
                dropped,
                3 + 19 + 1,
                "{name}: 3 ATTR, 19 FEATURE, 1 TRACING_DATA"
            );
            assert_eq!(new_stats.aggregated, want, "{name}: perf report --stats");
        }
    }

    // perf report --header-only -I: event lines, and (file mode) every content entry.
    let (orig_events, orig_info) = header_events(&rec.path);
    let (new_events, new_info) = header_events(path);
    assert_eq!(orig_events.len(), rec.events.len(), "{name}");
    assert_eq!(new_events, orig_events, "{name}: --header-only event lines");
    for (ev, spec) in new_events.iter().zip(&rec.events) {
        assert_eq!(ev.name, spec.name);
        assert_eq!(
            ev.ids.iter().collect::<BTreeSet<_>>(),
            spec.ids.iter().collect::<BTreeSet<_>>()
        );
        assert_eq!(
            ev.number("type").unwrap_or(0),
            u64::from(spec.attr.attr_type.0)
        );
        assert_eq!(ev.number("config").unwrap_or(0), spec.attr.config);
    }
    let data_size: usize = rec.records.iter().map(|r| r.full_bytes().len()).sum();
    assert_eq!(
        new_info.data_size(),
        Some(data_size as u64),
        "{name}: data size"
    );
    assert_eq!(
        new_info.missing_features,
        missing_features(&rec.features),
        "{name}: missing features"
    );
    match rec.content.mode {
        DataMode::File => {
            assert_eq!(new_info.data_size(), orig_info.data_size(), "{name}");
            assert_same_lines(
                &format!("{name}: perf report --header-only -I entries"),
                &content_entries(&orig_info)
                    .iter()
                    .map(|(k, v)| format!("{k} : {v}"))
                    .collect::<Vec<_>>(),
                &content_entries(&new_info)
                    .iter()
                    .map(|(k, v)| format!("{k} : {v}"))
                    .collect::<Vec<_>>(),
            );
            assert_eq!(
                new_info.missing_features, orig_info.missing_features,
                "{name}"
            );
            assert_eq!(new_info.other_lines, orig_info.other_lines, "{name}");
        }
        DataMode::Pipe => {
            // Pipe mode prints no layout and no missing-features line; every feature perf
            // prints for the pipe stream is printed identically for the rewrite.
            for (k, v) in content_entries(&orig_info) {
                assert!(
                    new_info.entries.contains(&(k.clone(), v.clone())),
                    "{name}: header entry {k} : {v} missing from the rewrite"
                );
            }
        }
    }

    // perf evlist -v.
    let orig_ev = perf_tool::parse_evlist(&clean(perf_tool::perf_evlist(&rec.path)).stdout);
    let new_ev = perf_tool::parse_evlist(&clean(perf_tool::perf_evlist(path)).stdout);
    assert_eq!(new_ev.len(), rec.events.len(), "{name}: evlist entries");
    let names: Vec<&str> = rec.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        new_ev.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        names,
        "{name}: evlist names"
    );
    match rec.content.mode {
        DataMode::File => assert_eq!(new_ev, orig_ev, "{name}: perf evlist -v"),
        DataMode::Pipe => {
            // perf evlist names the tracepoints of a pipe stream "unknown tracepoint" (it
            // does not read the tracing data); every attr field must still be equal.
            assert_eq!(orig_ev.len(), new_ev.len());
            for ((o, n), spec) in orig_ev.iter().zip(&new_ev).zip(&rec.events) {
                assert_eq!(n.fields, o.fields, "{name}: evlist -v fields of {}", n.name);
                if spec.attr.attr_type.0 == ATTR_TYPE_TRACEPOINT {
                    assert_eq!(o.name, "unknown tracepoint", "{name}: perf 6.1 quirk");
                } else {
                    assert_eq!(o.name, n.name, "{name}");
                }
            }
        }
    }
}

fn run_full(name: &'static str, expected_samples: usize) {
    let rec = Recording::load(name);
    let bytes = rewrite(&rec, TracepointMode::CopyTracingData);
    let file = integration_tests::temp_data_file(&bytes);
    check_raw(&rec, &bytes);
    check_lpd(&rec, &bytes);
    check_tp(&rec, file.path());
    if perf_tool::require_perf() {
        check_perf(&rec, file.path(), expected_samples);
    }
}

// ---------------------------------------------------------------- tests

#[test]
fn rewrite_sched_switch() {
    run_full(SCHED, 31);
}

#[test]
fn rewrite_cpu_clock() {
    run_full(CPU, 52);
}

#[test]
fn rewrite_pipe_sched() {
    run_full(PIPE, 38);
}

/// The writer's `create_file` (a buffered file) writes the same bytes as a `Cursor`.
#[test]
fn create_file_writes_the_same_bytes() {
    let rec = Recording::load(SCHED);
    let via_cursor = rewrite(&rec, TracepointMode::CopyTracingData);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rewrite.data");
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(path.to_str().unwrap()).unwrap();
    drop(fill_and_finish(&rec, TracepointMode::CopyTracingData, w));
    assert!(
        std::fs::read(&path).unwrap() == via_cursor,
        "create_file and Cursor output differ"
    );
}

/// sched_switch.data written with `add_tracepoint_event_desc` and formats parsed from the
/// recording's tracing data: the writer synthesizes TRACING_DATA itself.
#[test]
fn rewrite_sched_switch_with_parsed_formats() {
    let rec = Recording::load(SCHED);
    let orig_td = TracingDataParts::parse(&rec.features[&FEAT_TRACING_DATA]).unwrap();
    assert_eq!((orig_td.long_size, orig_td.page_size), (8, 4096));
    assert_eq!(orig_td.formats().len(), 1, "one tracepoint recorded");

    let bytes = rewrite(&rec, TracepointMode::ParsedFormats);
    let fc = FixtureContent::from_bytes(&bytes).unwrap();
    let new_td = TracingDataParts::parse(fc.tracing_data.as_ref().expect("TRACING_DATA"))
        .unwrap_or_else(|e| panic!("synthesized TRACING_DATA does not parse: {e}"));
    // Everything but the format texts is what the recording had.
    assert_eq!(
        (new_td.big_endian, new_td.long_size, new_td.page_size),
        (orig_td.big_endian, orig_td.long_size, orig_td.page_size)
    );
    assert_eq!(new_td.header_page, orig_td.header_page, "header_page");
    assert_eq!(new_td.header_event, orig_td.header_event, "header_event");
    assert_eq!(new_td.ftraces, orig_td.ftraces, "ftraces");
    assert_eq!(new_td.kallsyms, orig_td.kallsyms, "kallsyms");
    assert_eq!(new_td.printk, orig_td.printk, "printk");
    assert_eq!(new_td.saved_cmdline, orig_td.saved_cmdline, "saved_cmdline");
    // The formats are rendered by PerfEventFormat::write_to: they may be worded differently,
    // but must say the same (name, id, print fmt, fields with offsets, sizes, signedness).
    let sigs = |t: &TracingDataParts| -> Vec<FormatSig> {
        t.formats()
            .into_iter()
            .map(|(sys, text)| format_sig(t.long_size == 8, sys, text))
            .collect()
    };
    assert_eq!(sigs(&new_td), sigs(&orig_td), "tracepoint formats");
    // Everything else is the plain rewrite's.
    let mut no_td = rec.features.clone();
    no_td.remove(&FEAT_TRACING_DATA);
    for (bit, want) in &no_td {
        if *bit != FEAT_EVENT_DESC {
            assert!(&fc.features[bit] == want, "feature {bit}");
        }
    }
    let raw_records: Vec<Vec<u8>> = fc.records.iter().map(RawRecord::full_bytes).collect();
    let want_records: Vec<Vec<u8>> = rec.records.iter().map(RawRecord::full_bytes).collect();
    assert!(raw_records == want_records, "records differ");

    let file = integration_tests::temp_data_file(&bytes);
    let tp = check_tp(&rec, file.path());
    // prev_comm / next_comm of every sample as the original's (check_tp compares whole
    // samples; this names the fields the issue asks for).
    let orig_tp = tp_reader::read(&rec.path).unwrap();
    let comms = |t: &TpSummary| -> Vec<(String, String)> {
        t.samples()
            .iter()
            .map(|s| {
                (
                    s.field("prev_comm").unwrap().to_string(),
                    s.field("next_comm").unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(comms(&tp).len(), 31);
    assert_eq!(comms(&tp), comms(&orig_tp));

    // perf: script lines (default, field lists with trace fields, task/mmap events),
    // stats, header and evlist all as for the original.
    if perf_tool::require_perf() {
        check_perf(&rec, file.path(), 31);
    }
}

/// With the recording's own format texts (`add_tracepoint_event_desc_from_text`) and its
/// tracing-data settings, the synthesized TRACING_DATA is byte for byte perf's.
#[test]
fn rewrite_sched_switch_with_format_texts() {
    assert_format_texts_give_perfs_tracing_data(SCHED);
}

fn assert_format_texts_give_perfs_tracing_data(name: &'static str) {
    let rec = Recording::load(name);
    let bytes = rewrite(&rec, TracepointMode::FormatTexts);
    let fc = FixtureContent::from_bytes(&bytes).unwrap();
    let new_td = fc.tracing_data.as_ref().expect("TRACING_DATA");
    let orig_td = &rec.features[&FEAT_TRACING_DATA];
    if new_td != orig_td {
        let at = new_td
            .iter()
            .zip(orig_td)
            .position(|(a, b)| a != b)
            .unwrap_or(new_td.len().min(orig_td.len()));
        panic!(
            "{name}: synthesized TRACING_DATA ({} bytes) differs from perf's ({} bytes) at byte {at}: \
             rewrite {:?} / perf {:?}\nparts: {:#?}\nvs {:#?}",
            new_td.len(),
            orig_td.len(),
            String::from_utf8_lossy(&new_td[at.saturating_sub(16)..(at + 48).min(new_td.len())]),
            String::from_utf8_lossy(&orig_td[at.saturating_sub(16)..(at + 48).min(orig_td.len())]),
            TracingDataParts::parse(new_td).map(|p| (p.long_size, p.page_size, p.systems.len())),
            TracingDataParts::parse(orig_td).map(|p| (p.long_size, p.page_size, p.systems.len())),
        );
    }
    // With that, the whole rewrite is the plain rewrite.
    assert!(
        bytes == rewrite(&rec, TracepointMode::CopyTracingData),
        "{name}: rewrites differ"
    );
}

/// The pipe recording's two tracepoints through `add_tracepoint_event_desc` as well.
#[test]
fn rewrite_pipe_sched_with_parsed_formats() {
    let rec = Recording::load(PIPE);
    let orig_td = TracingDataParts::parse(&rec.features[&FEAT_TRACING_DATA]).unwrap();
    assert_eq!(orig_td.formats().len(), 2);
    let bytes = rewrite(&rec, TracepointMode::ParsedFormats);
    let fc = FixtureContent::from_bytes(&bytes).unwrap();
    let new_td = TracingDataParts::parse(fc.tracing_data.as_ref().unwrap()).unwrap();
    let sigs = |t: &TracingDataParts| -> BTreeSet<FormatSig> {
        t.formats()
            .into_iter()
            .map(|(sys, text)| format_sig(t.long_size == 8, sys, text))
            .collect()
    };
    assert_eq!(sigs(&new_td), sigs(&orig_td));
    assert_eq!(
        (
            &new_td.header_page,
            &new_td.header_event,
            &new_td.kallsyms,
            &new_td.printk,
            &new_td.saved_cmdline
        ),
        (
            &orig_td.header_page,
            &orig_td.header_event,
            &orig_td.kallsyms,
            &orig_td.printk,
            &orig_td.saved_cmdline
        )
    );
    let file = integration_tests::temp_data_file(&bytes);
    check_tp(&rec, file.path());
    if perf_tool::require_perf() {
        check_perf(&rec, file.path(), 38);
    }
}

/// The pipe recording with its format texts: the synthesized TRACING_DATA is the blob of
/// the HEADER_TRACING_DATA record without its padding.
#[test]
fn rewrite_pipe_sched_with_format_texts() {
    assert_format_texts_give_perfs_tracing_data(PIPE);
}

// ---------------------------------------------------------------- pipe mode

/// Writes the recording as a pipe-mode stream with `PerfPipeWriter`.
fn rewrite_as_pipe(rec: &Recording) -> Vec<u8> {
    let w = PerfPipeWriter::from_writer(Vec::new()).expect("pipe writer over a Vec");
    fill_and_finish(rec, TracepointMode::CopyTracingData, w)
}

/// A recording converted file → pipe → file (or pipe → pipe → file) prints the same
/// `perf script` lines as the recording at every step, and the pipe stream reads the same
/// from a path and from a real pipe on stdin.
fn pipe_round_trip(name: &'static str, expected_samples: usize) {
    let rec = Recording::load(name);
    let pipe = rewrite_as_pipe(&rec);
    assert_eq!(
        &pipe[..16],
        b"PERFILE2\x10\0\0\0\0\0\0\0",
        "{name}: pipe header"
    );
    let pipe_file = integration_tests::temp_data_file(&pipe);
    let mut via_pipe = Recording::from_bytes(name, pipe_file.path().to_path_buf(), &pipe);
    assert_eq!(via_pipe.content.mode, DataMode::Pipe);
    // The pipe writer names every event with an EVENT_UPDATE record before the caller's
    // records (as perf record does); those are pipe-mode metadata, not part of the data.
    let named = rec.events.iter().filter(|e| !e.ids.is_empty()).count();
    let ours: Vec<RawRecord> = via_pipe.records.drain(..named).collect();
    for (r, ev) in ours
        .iter()
        .zip(rec.events.iter().filter(|e| !e.ids.is_empty()))
    {
        assert_eq!(r.record_type, 78, "{name}: EVENT_UPDATE first");
        let e = via_pipe.content.endian;
        assert_eq!(
            (e.u64_at(&r.bytes, 8), e.u64_at(&r.bytes, 16)),
            (Some(2), Some(ev.ids[0])),
            "{name}"
        );
        assert!(
            r.bytes[24..].starts_with(ev.name.as_bytes()),
            "{name}: EVENT_UPDATE name"
        );
    }
    let names = |r: &Recording| {
        r.events
            .iter()
            .map(|e| (e.name.clone(), e.ids.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&via_pipe),
        names(&rec),
        "{name}: events through the pipe stream"
    );
    for ev in &via_pipe.events {
        let orig = rec.events.iter().find(|e| e.ids == ev.ids).unwrap();
        assert_eq!(
            ev.attr_bytes, orig.attr_bytes,
            "{name}: {} attr through HEADER_ATTR",
            ev.name
        );
    }
    let tp_blob = |r: &Recording| r.features.get(&FEAT_TRACING_DATA).cloned();
    assert_eq!(
        tp_blob(&via_pipe),
        tp_blob(&rec),
        "{name}: TRACING_DATA through HEADER_TRACING_DATA"
    );
    let kernel = |r: &Recording| {
        r.records
            .iter()
            .filter(|x| x.record_type < 64)
            .map(|x| x.full_bytes())
            .collect::<Vec<_>>()
    };
    assert!(
        kernel(&via_pipe) == kernel(&rec),
        "{name}: kernel records through the pipe stream"
    );

    let back = rewrite(&via_pipe, TracepointMode::CopyTracingData);
    let back_file = integration_tests::temp_data_file(&back);
    check_tp(&rec, back_file.path());
    if !perf_tool::require_perf() {
        return;
    }
    let orig = script(&rec.path, &[]);
    assert_eq!(sample_line_count(&rec, &orig), expected_samples, "{name}");
    assert_same_lines(
        &format!("{name}: perf script of the pipe stream"),
        &orig,
        &script(pipe_file.path(), &[]),
    );
    let stdin = clean(perf_tool::perf_script_stdin(&pipe));
    assert_same_lines(
        &format!("{name}: perf script -i - of the pipe stream"),
        &orig,
        &script_lines(&stdin),
    );
    assert_same_lines(
        &format!("{name}: perf script after file → pipe → file"),
        &orig,
        &script(back_file.path(), &[]),
    );
    // With -F, perf prints callchains of pipe-mode streams but not of files: compare a
    // file recording with perf's own pipe-mode copy of it (`perf inject -o -`). perf 6.1
    // cannot read back its injected copy of a tracepoint recording ("failed to process type"
    // at the tracing data), so those compare with the file (they have no callchains).
    let dir = tempfile::tempdir().unwrap();
    let reference = if rec.content.mode == DataMode::File && !rec.has_tracepoints() {
        let out = dir.path().join("inject.pipe");
        let input = rec.path.to_str().unwrap();
        let mut inject = perf_tool::PerfCommand::new(&["inject", "-i", input, "-o", "-"]);
        let mut child = inject
            .command()
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        assert!(child.wait().unwrap().success(), "{name}: perf inject -o -");
        out
    } else {
        rec.path.clone()
    };
    for args in script_field_args(&rec) {
        assert_same_lines(
            &format!("{name}: perf script {args:?} of the pipe stream"),
            &script(&reference, &args),
            &script(pipe_file.path(), &args),
        );
    }
    let (orig_events, _) = header_events(&rec.path);
    let (pipe_events, pipe_info) = header_events(pipe_file.path());
    assert_eq!(
        pipe_events
            .iter()
            .map(|e| (&e.name, &e.ids))
            .collect::<Vec<_>>(),
        orig_events
            .iter()
            .map(|e| (&e.name, &e.ids))
            .collect::<Vec<_>>(),
        "{name}: perf report --header-only events of the pipe stream"
    );
    assert_eq!(
        pipe_info.hostname(),
        Some("vm"),
        "{name}: features through HEADER_FEATURE"
    );
}

#[test]
fn sched_switch_through_pipe_mode() {
    pipe_round_trip(SCHED, 31);
}

#[test]
fn cpu_clock_through_pipe_mode() {
    pipe_round_trip(CPU, 52);
}

#[test]
fn pipe_sched_through_pipe_mode() {
    pipe_round_trip(PIPE, 38);
}
