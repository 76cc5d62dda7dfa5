//! Bad input refused at the call that gives it, the writer left usable: whole inputs (here)
//! and records split across calls (`split_records`).
//!
//! Every input is judged at the call that introduces it. Each test
//! makes the refused call between two accepted samples, asserts the typed error, then
//! finalizes and reads the file (or stream) back with perf 6.1 and linux-perf-data: both
//! samples are there, so the refusal left the writer usable and damaged nothing.

mod split_records;

use integration_tests::perf_tool::{
    self, parse_evlist, parse_header_only, perf_evlist, perf_report_header, perf_script,
    perf_script_stdin, require_perf, script_lines, PerfOutput,
};
use integration_tests::{lpd, temp_data_file};
use perf_writer_std::perf_encode::features::{
    check_format_text, check_parsed_format, FormatTextProblem, TracepointRawProblem,
};
use perf_writer_std::perf_encode::records::{EventUpdateName, HeaderAttr, PidTid, Record, Sample};
use perf_writer_std::{
    FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter, PerfWriter, WriterError,
};
use std::io::Cursor;
use std::sync::Arc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrSampleType as S, PerfEventAttrType, PerfEventFormat,
};

use integration_tests::formats::{tick_as_ftrace, TICK};
use perf_writer_std::{EventError, FeatureError, TracingError};

const TICK_ID: u64 = 7;
/// The sample id of the tick event.
const TICK_SAMPLE_ID: u64 = 1;

fn tp_attr(config: u64) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config,
        sample_type: S::Identifier.or(S::Tid).or(S::Time).or(S::Raw),
        ..Default::default()
    }
}

/// A software event (perf script wants an IP in its samples).
fn sw_attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: S::Identifier.or(S::IP).or(S::Tid).or(S::Time),
        ..Default::default()
    }
}

fn file_writer() -> PerfWriter<FileOutput<Cursor<Vec<u8>>>> {
    PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap()
}

fn pipe_writer() -> PerfPipeWriter<Vec<u8>> {
    PerfPipeWriter::from_writer(Vec::new()).unwrap()
}

/// Adds the tick tracepoint (sample id 1).
fn add_tick<O: OutputMode>(w: &mut PerfWriter<O>) {
    w.add_tracepoint_event_desc_from_text(
        &[TICK_SAMPLE_ID],
        &tp_attr(TICK_ID),
        "test:tick",
        "test",
        TICK,
    )
    .unwrap();
}

/// A tick RAW payload: common_type, pid 42, `value`.
fn tick_raw<O: OutputMode>(w: &PerfWriter<O>, common_type: u16, value: i32) -> Vec<u8> {
    let e = w.endian();
    let mut raw = vec![0u8; 12];
    raw[..2].copy_from_slice(&e.u16_bytes(common_type));
    raw[4..8].copy_from_slice(&e.u32_bytes(42));
    raw[8..12].copy_from_slice(&e.u32_bytes(value as u32));
    raw
}

/// A caller's TRACING_DATA holding one event format of system `test`, in `order`.
fn tracing_data_of(format: &str, order: perf_writer_std::perf_encode::Endian) -> Vec<u8> {
    use perf_writer_std::perf_encode::features::{FormatText, TracepointFormat, TracingData};
    let events = [TracepointFormat {
        system: "test",
        format: FormatText::Text(format.as_bytes()),
    }];
    let td = TracingData {
        events: &events,
        ..TracingData::new(8, 4096)
    };
    perf_writer_std::perf_encode::to_vec(&td, order).unwrap()
}

fn tick_sample(raw: &[u8], time: u64) -> Sample<'_> {
    Sample {
        identifier: Some(TICK_SAMPLE_ID),
        tid: Some(PidTid { pid: 42, tid: 42 }),
        time: Some(time),
        raw: Some(raw),
        ..Default::default()
    }
}

/// Writes a tick with `value`.
fn write_tick<O: OutputMode>(w: &mut PerfWriter<O>, value: i32, time: u64) {
    let raw = tick_raw(w, TICK_ID as u16, value);
    w.write_sample(
        perf_writer_std::perf_encode::abi::misc::USER,
        &tick_sample(&raw, time),
    )
    .unwrap();
}

/// What the readers found in a file or stream.
struct Readback {
    /// perf script's lines; `None` when perf is missing outside CI.
    script: Option<Vec<String>>,
    /// SAMPLE records linux-perf-data read.
    lpd_samples: u64,
    /// Event names linux-perf-data read.
    lpd_names: Vec<Option<String>>,
}

/// Reads file-mode bytes; perf must exit cleanly.
fn read_file(bytes: &[u8]) -> Readback {
    read_file_noting(bytes, &[])
}

/// perf exited with status 0, and every line of its stderr that would flag a problem is
/// one of `notices` (lines that contain it, or are it).
fn assert_clean_but(out: &PerfOutput, notices: &[&str]) {
    out.assert_success();
    let flagged = out.stderr_findings();
    let left: Vec<&String> = flagged
        .iter()
        .filter(|l| !notices.iter().any(|n| l.trim() == *n || l.contains(n)))
        .collect();
    assert!(left.is_empty(), "{left:?}\n{}", out.describe());
}

/// What perf's trace decoders print about a file they read (no AUXTRACE data in it).
const DECODER_NOTICES: &[&str] = &[
    "Warning:",
    "Arm SPE CONTEXT packets not found",
    "Intel PT with pipe mode is not recommended",
    "The output cannot relied upon",
    "CS ETM warning",
];

/// [`read_file`], with the stderr lines `notices` taken as clean.
fn read_file_noting(bytes: &[u8], notices: &[&str]) -> Readback {
    let l = lpd::read_file(bytes).expect("linux-perf-data reads the file");
    assert!(l.records_with_parse_errors().is_empty());
    let script = require_perf().then(|| {
        let file = temp_data_file(bytes);
        let out = perf_script(file.path(), &[]);
        assert_clean_but(&out, notices);
        script_lines(&out)
    });
    Readback {
        script,
        lpd_samples: l.count(9),
        lpd_names: l
            .attr_names()
            .into_iter()
            .map(|n| n.map(str::to_string))
            .collect(),
    }
}

/// Reads a pipe-mode stream from stdin; perf must exit cleanly.
fn read_pipe(bytes: &[u8]) -> Readback {
    read_pipe_noting(bytes, &[])
}

/// [`read_pipe`], with the stderr lines `notices` taken as clean.
fn read_pipe_noting(bytes: &[u8], notices: &[&str]) -> Readback {
    let l = lpd::read_pipe_without_tracing_payload(bytes).expect("linux-perf-data reads it");
    assert!(l.records_with_parse_errors().is_empty());
    let script = require_perf().then(|| {
        let out = perf_script_stdin(bytes);
        assert_clean_but(&out, notices);
        script_lines(&out)
    });
    Readback {
        script,
        lpd_samples: l.count(9),
        lpd_names: l
            .attr_names()
            .into_iter()
            .map(|n| n.map(str::to_string))
            .collect(),
    }
}

/// The two ticks written around a refusal (values 1 and 2) are both read.
fn assert_both_ticks(r: &Readback) {
    assert_eq!(r.lpd_samples, 2);
    let Some(script) = &r.script else { return };
    assert_eq!(script.len(), 2, "{script:?}");
    for (line, value) in script.iter().zip([1, 2]) {
        assert!(line.contains("test:tick:"), "{line}");
        assert!(line.contains(&format!("value={value}")), "{line}");
    }
}

/// A file with a tick, then `refuse` (which must return the refusal), then a tick.
fn file_around(refuse: impl FnOnce(&mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>)) -> Readback {
    let mut w = file_writer();
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    refuse(&mut w);
    write_tick(&mut w, 2, 2000);
    read_file(&w.finish().unwrap().into_inner())
}

/// The same in pipe mode (the stream starts at the first tick).
fn pipe_around(refuse: impl FnOnce(&mut PerfPipeWriter<Vec<u8>>)) -> Readback {
    let mut w = pipe_writer();
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    refuse(&mut w);
    write_tick(&mut w, 2, 2000);
    read_pipe(&w.finish().unwrap())
}

/// A format text refused at `add_tracepoint_event_desc_from_text` with `problem` on `line`,
/// in both modes.
fn format_refused(text: &str, problem: FormatTextProblem, line: u32) {
    let refuse = |w: &mut dyn FnMut(&str, &str) -> Result<(), WriterError>| {
        let err = w(text, "test").unwrap_err();
        match err {
            WriterError::Tracing(TracingError::FormatText(e)) => {
                assert_eq!((e.problem, e.line), (problem, line))
            }
            other => panic!("{other:?}"),
        }
    };
    let r = file_around(|w| {
        refuse(&mut |t, s| {
            w.add_tracepoint_event_desc_from_text(&[5], &tp_attr(8), "test:bad", s, t)
                .map(drop)
        });
        // Nothing of it stayed: its id and the name are free.
        assert!(!w.has_tracepoint_event_desc(8));
        w.add_event_desc(&[5], &sw_attr(), "after").unwrap();
    });
    assert_both_ticks(&r);
    let names: Vec<Option<&str>> = r.lpd_names.iter().map(Option::as_deref).collect();
    assert_eq!(names, [Some("test:tick"), Some("after")]);
    // In pipe mode before the stream started (after it, formats are refused anyway).
    let mut w = pipe_writer();
    let err = w
        .add_tracepoint_event_desc_from_text(&[5], &tp_attr(8), "test:bad", "test", text)
        .unwrap_err();
    assert!(
        matches!(err, WriterError::Tracing(TracingError::FormatText(e)) if e.problem == problem)
    );
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    write_tick(&mut w, 2, 2000);
    assert_both_ticks(&read_pipe(&w.finish().unwrap()));
}

/// TICK with `from` replaced by `to`.
fn tick_with(from: &str, to: &str) -> String {
    assert!(TICK.contains(from), "{from}");
    TICK.replacen(from, to, 1)
        .replace("name: tick", "name: bad")
        .replace("ID: 7", "ID: 8")
}

/// A valid format other than TICK (id 8).
fn other_format() -> String {
    tick_with("", "")
}

// Item 3: numbers above u32::MAX (tracepoint_decode's parser panics in debug builds, wraps
// in release, and perf 6.1 then crashes on the file).

#[test]
fn item3_id_above_u32_max_is_refused() {
    format_refused(
        &tick_with("ID: 7", "ID: 99999999999"),
        FormatTextProblem::IdOutOfRange,
        2,
    );
}

#[test]
fn item3_field_offset_above_u32_max_is_refused() {
    format_refused(
        &tick_with("offset:8;", "offset:99999999999;"),
        FormatTextProblem::BadNumber,
        9,
    );
}

#[test]
fn item3_field_size_beyond_the_record_is_refused() {
    format_refused(
        &tick_with("offset:8;\tsize:4;", "offset:65530;\tsize:4;"),
        FormatTextProblem::FieldOutsideRecord,
        9,
    );
}

#[test]
fn item3_array_length_above_u32_max_or_out_of_range_is_refused() {
    format_refused(
        &tick_with("int value;", "int value[99999999999];"),
        FormatTextProblem::BadNumber,
        9,
    );
    format_refused(
        &tick_with("int value;", "int value[8];"),
        FormatTextProblem::ArrayLength,
        9,
    );
}

/// A parsed format (`add_tracepoint_event_desc`) perf could not read is refused at the add,
/// with the problem and line of the text `write_to` renders of it (checked without
/// rendering), and nothing of it stays.
#[test]
fn a_parsed_format_perf_cannot_read_is_refused_at_the_add() {
    for (from, to, problem, line) in [
        ("ID: 7", "ID: 65536", FormatTextProblem::IdOutOfRange, 2),
        ("int value;", "int va\0lue;", FormatTextProblem::Nul, 9),
        (
            "int value;",
            "int value[3];",
            FormatTextProblem::ArrayLength,
            9,
        ),
        (
            "\"value=%d\"",
            "\"value=%d",
            FormatTextProblem::PrintFmtQuote,
            11,
        ),
        (
            "common_type;",
            "kind;",
            FormatTextProblem::MissingCommonType,
            0,
        ),
        ("REC->value", "REC->y", FormatTextProblem::UnknownField, 11),
        (
            ", REC->value",
            ", RE'C->value",
            FormatTextProblem::PrintFmtQuote,
            11,
        ),
        (
            "unsigned short common_type",
            "unsign(ed short common_type",
            FormatTextProblem::CommonFieldDeclaration,
            4,
        ),
    ] {
        let parsed = PerfEventFormat::parse(true, "test", &tick_with(from, to)).unwrap();
        let mut rendered = String::new();
        parsed.write_to(&mut rendered).unwrap();
        let want = check_format_text(rendered.as_bytes()).unwrap_err();
        assert_eq!((want.problem, want.line), (problem, line), "{rendered}");
        let parsed = Arc::new(parsed);
        let r = file_around(|w| {
            let err = w
                .add_tracepoint_event_desc(
                    &[5],
                    &tp_attr(u64::from(parsed.id())),
                    "test:bad",
                    &parsed,
                )
                .unwrap_err();
            assert_eq!(err, WriterError::Tracing(TracingError::FormatText(want)));
            assert!(!w.has_tracepoint_event_desc(parsed.id()));
            w.add_event_desc(&[5], &sw_attr(), "after").unwrap();
        });
        assert_both_ticks(&r);
    }
}

// Format texts perf 6.1 crashes or hangs on, each refused by the format check.

/// `__print_flags` over a field the format has not: perf script, evlist and report
/// --header-only segfault.
#[test]
fn print_flags_over_a_missing_field_is_refused() {
    format_refused(
        &tick_with("REC->value", "__print_flags(REC->y, \"|\", {1, \"A\"})"),
        FormatTextProblem::UnknownField,
        11,
    );
}

/// An unclosed `'` in the print format: all three perf commands hang.
#[test]
fn an_unclosed_character_in_the_print_format_is_refused() {
    format_refused(
        &tick_with(", REC->value", ", RE'C->value"),
        FormatTextProblem::PrintFmtQuote,
        11,
    );
}

/// A stray byte in `common_type`'s declaration: perf script segfaults.
#[test]
fn a_garbled_common_type_declaration_is_refused() {
    format_refused(
        &tick_with("unsigned short common_type", "unsign(ed short common_type"),
        FormatTextProblem::CommonFieldDeclaration,
        4,
    );
}

/// From a second probe: perf 6.1 reads `REC ->NAME` (white space before the arrow) as a
/// field reference too, and segfaults on one to no field in `__print_flags`; it reads any
/// field given to `__get_str` as dynamic; it never closes a quote that follows a `\`.
#[test]
fn field_references_perf_reads_and_quotes_it_never_closes_are_refused() {
    for (to, problem) in [
        (
            "__print_flags(REC ->y, \"|\", {1, \"A\"})",
            FormatTextProblem::UnknownField,
        ),
        ("__get_str(value)", FormatTextProblem::UnknownField),
        ("'\\\\'", FormatTextProblem::PrintFmtQuote),
    ] {
        format_refused(&tick_with("REC->value", to), problem, 11);
    }
}

/// A 1-byte `struct` field: tracepoint_decode 0.5's parser fails a debug assertion on it,
/// so a debug build of the writer would panic in the parse after the check.
#[test]
fn a_one_byte_struct_field_is_refused_before_the_parser() {
    format_refused(
        &tick_with(
            "int value;\toffset:8;\tsize:4;",
            "struct s value;\toffset:8;\tsize:1;",
        ),
        FormatTextProblem::BadField,
        9,
    );
}

/// A `__data_loc` field whose data lies outside the RAW payload (perf script dies of
/// SIGBUS) is refused at the write; one whose data lies within is shown.
#[test]
fn dynamic_field_data_must_lie_within_the_raw_payload() {
    let text = TICK
        .replace(
            "int value;\toffset:8;\tsize:4;\tsigned:1;",
            "__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;",
        )
        .replace("\"value=%d\", REC->value", "\"s=%s\", __get_str(s)");
    let mut w = file_writer();
    w.add_tracepoint_event_desc_from_text(
        &[TICK_SAMPLE_ID],
        &tp_attr(TICK_ID),
        "test:str",
        "test",
        &text,
    )
    .unwrap();
    let e = w.endian();
    let mut raw = vec![0x41u8; 16];
    raw[..2].copy_from_slice(&e.u16_bytes(TICK_ID as u16));
    raw[2..4].copy_from_slice(&[0, 0]);
    raw[4..8].copy_from_slice(&e.u32_bytes(42));
    let err = w
        .write_sample(
            perf_writer_std::perf_encode::abi::misc::USER,
            &tick_sample(&raw, 1000),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            WriterError::Tracing(TracingError::TracepointRaw {
                problem: TracepointRawProblem::DynamicData { field: 8, .. },
                ..
            })
        ),
        "{err:?}"
    );
    // The data at 12: 3 bytes, "hi" and its NUL.
    raw[8..12].copy_from_slice(&e.u32_bytes(3 << 16 | 12));
    raw[12..16].copy_from_slice(b"hi\0\0");
    w.write_sample(
        perf_writer_std::perf_encode::abi::misc::USER,
        &tick_sample(&raw, 2000),
    )
    .unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 1);
    if let Some(script) = &r.script {
        assert_eq!(script.len(), 1, "{script:?}");
        assert!(script[0].contains("s=hi"), "{script:?}");
    }
}

/// perf prints a field given to `__get_str` from its data up to the first NUL: data without
/// one makes it print the bytes after the record. Such a string is refused at the write, or
/// (written before its description) by the description; one with its NUL is shown.
#[test]
fn a_string_fields_data_holds_its_nul() {
    use perf_writer_std::perf_encode::features::TracepointRawProblem as P;
    use perf_writer_std::perf_encode::records::{SampleLayout, SampleRecord};
    use perf_writer_std::perf_encode::{to_vec, Endian};
    let text = TICK
        .replace(
            "int value;\toffset:8;\tsize:4;\tsigned:1;",
            "__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;",
        )
        .replace("\"value=%d\", REC->value", "\"s=%s\", __get_str(s)");
    // `s` at 12: 8 bytes, "abcdefgh" or "abcdefg" and its NUL.
    let record = |nul: bool| {
        let e = Endian::Little;
        let mut raw = vec![0u8; 20];
        raw[..2].copy_from_slice(&e.u16_bytes(TICK_ID as u16));
        raw[4..8].copy_from_slice(&e.u32_bytes(42));
        raw[8..12].copy_from_slice(&e.u32_bytes(8 << 16 | 12));
        raw[12..20].copy_from_slice(if nul { b"abcdefg\0" } else { b"abcdefgh" });
        let layout = SampleLayout {
            sample_type: tp_attr(TICK_ID).sample_type.0,
            ..Default::default()
        };
        to_vec(
            &SampleRecord {
                layout: &layout,
                misc: perf_writer_std::perf_encode::abi::misc::USER,
                sample: &tick_sample(&raw, 1000),
            },
            e,
        )
        .unwrap()
    };
    let describe = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        w.add_tracepoint_event_desc_from_text(
            &[TICK_SAMPLE_ID],
            &tp_attr(TICK_ID),
            "test:str",
            "test",
            &text,
        )
    };
    let unterminated = P::UnterminatedString { field: 8 };
    let mut w = file_writer();
    describe(&mut w).unwrap();
    match w.write_event_data(&record(false)).unwrap_err() {
        WriterError::Record(perf_writer_std::RecordError::Refused {
            problem: perf_writer_std::RecordProblem::TracepointRaw(p),
            ..
        }) => assert_eq!(p, unterminated),
        other => panic!("{other:?}"),
    }
    w.write_event_data(&record(true)).unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 1);
    if let Some(script) = &r.script {
        assert_eq!(script.len(), 1, "{script:?}");
        assert!(script[0].ends_with("s=abcdefg"), "{script:?}");
    }
    // Written first: the description is refused, naming the record; the good one waits for
    // it and is shown.
    let mut w = file_writer();
    w.write_event_data(&record(false)).unwrap();
    match describe(&mut w).unwrap_err() {
        WriterError::Event(EventError::ContradictsRecords { records, .. }) => {
            assert_eq!(records, 1)
        }
        other => panic!("{other:?}"),
    }
    let mut w = file_writer();
    w.write_event_data(&record(true)).unwrap();
    describe(&mut w).unwrap();
    assert_eq!(read_file(&w.finish().unwrap().into_inner()).lpd_samples, 1);
    // Written with strict mode off, perf prints bytes from past the record.
    if require_perf() {
        let mut w = file_writer();
        w.set_strict(false);
        describe(&mut w).unwrap();
        w.write_event_data(&record(false)).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &[]);
        let line = out
            .stdout
            .lines()
            .find(|l| l.contains("s="))
            .unwrap_or_default();
        assert!(
            line.contains("s=abcdefgh") && !line.trim_end().ends_with("s=abcdefgh"),
            "{line:?}"
        );
    }
}

// Item 5's format texts perf 6.1 segfaults on.

#[test]
fn item5_format_with_only_name_and_id_is_refused() {
    format_refused("name: bad\nID: 8\n", FormatTextProblem::MissingFormat, 3);
}

#[test]
fn item5_format_with_a_nul_inside_is_refused() {
    format_refused(
        &tick_with("int value;", "int va\0lue;"),
        FormatTextProblem::Nul,
        9,
    );
}

#[test]
fn item5_format_id_above_65535_is_refused() {
    format_refused(
        &tick_with("ID: 7", "ID: 65536"),
        FormatTextProblem::IdOutOfRange,
        2,
    );
}

#[test]
fn item5_tracepoint_sample_with_wrong_common_type_is_refused() {
    let r = file_around(|w| {
        let rule = w.tracepoint_raw_rule(Some(TICK_SAMPLE_ID)).unwrap();
        // min_len: the end of the last field (common fields end at 8).
        assert_eq!((rule.common_type, rule.min_len), (7, 12));
        for (common_type, len, problem) in [
            (
                0,
                12,
                TracepointRawProblem::CommonType {
                    found: 0,
                    expected: 7,
                },
            ),
            (
                8,
                12,
                TracepointRawProblem::CommonType {
                    found: 8,
                    expected: 7,
                },
            ),
            (7, 4, TracepointRawProblem::TooShort { len: 4, min: 12 }),
            // The common fields but not the event's own: perf would print the bytes after
            // the record as its value.
            (7, 8, TracepointRawProblem::TooShort { len: 8, min: 12 }),
        ] {
            let raw = tick_raw(w, common_type, 3);
            let err = w
                .write_sample(0, &tick_sample(&raw[..len], 1500))
                .unwrap_err();
            assert_eq!(
                err,
                WriterError::Tracing(TracingError::TracepointRaw {
                    id: Some(TICK_SAMPLE_ID),
                    problem
                })
            );
        }
    });
    assert_both_ticks(&r);
}

#[test]
fn item5_header_page_junk_is_refused() {
    let r = file_around(|w| {
        assert!(w.set_tracing_data_header_page(b"0123456789").is_err());
        let err = w.set_tracing_data_header_page(b"0123456789").unwrap_err();
        assert!(matches!(
            err,
            WriterError::Tracing(TracingError::DataText {
                part: "header_page",
                error
            }) if error.problem == FormatTextProblem::BadField && error.line == 1
        ));
        // A page header without `commit`: perf's parser would look for it forever.
        let no_commit = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
        let err = w.set_tracing_data_header_page(no_commit).unwrap_err();
        assert!(matches!(
            err,
            WriterError::Tracing(TracingError::DataText { error, .. })
                if error.problem == FormatTextProblem::HeaderPageFields
        ));
        // The default text (the one tracefs gives) is accepted.
        let default = perf_writer_std::perf_encode::features::tracing_data::DEFAULT_HEADER_PAGE;
        w.set_tracing_data_header_page(default).unwrap();
    });
    assert_both_ticks(&r);
    // `overwrite` may be left out (older kernels have none): perf reads such a page header.
    let no_overwrite = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
    let r = file_around(|w| {
        w.set_tracing_data_header_page(no_overwrite).unwrap();
    });
    assert_both_ticks(&r);
}

#[test]
fn item5_other_tracing_data_texts_are_judged() {
    let r = file_around(|w| {
        let part = |e: WriterError| match e {
            WriterError::Tracing(TracingError::DataText { part, error }) => (part, error.problem),
            other => panic!("{other:?}"),
        };
        let bad_line = FormatTextProblem::BadLine;
        let e = w.set_tracing_data_kallsyms(b"junk\n").unwrap_err();
        assert_eq!(part(e), ("kallsyms", bad_line));
        let e = w.set_tracing_data_printk(b"no colon\n").unwrap_err();
        assert_eq!(part(e), ("printk", bad_line));
        let e = w.set_tracing_data_saved_cmd_line(b"x 42\n").unwrap_err();
        assert_eq!(part(e), ("saved_cmdline", bad_line));
        let e = w.set_tracing_data_header_event(b"a\0b").unwrap_err();
        assert_eq!(part(e), ("header_event", FormatTextProblem::Nul));
        let e = w
            .set_tracing_data_add_ftrace(b"name: f\nID: 1\n")
            .unwrap_err();
        assert_eq!(part(e), ("ftrace format", FormatTextProblem::MissingFormat));
        assert!(w.set_tracing_data_add_ftrace(b"junk").is_err());
        for (long_size, page_size) in [(3, 4096), (8, 5000), (8, 1024)] {
            let e = w
                .set_tracing_data_required(long_size, page_size)
                .unwrap_err();
            assert!(
                matches!(e, WriterError::Tracing(TracingError::BadSetting(_))),
                "{e:?}"
            );
        }
        w.set_tracing_data_required(8, 4096).unwrap();
        // Texts in their files' form are accepted.
        w.set_tracing_data_kallsyms(b"ffffffff81000000 T _text\n")
            .unwrap();
        w.set_tracing_data_printk(b"0xffffffff828125ac : \"thaw\"\n")
            .unwrap();
        w.set_tracing_data_saved_cmd_line(b"42 ticker\n").unwrap();
        w.set_tracing_data_add_ftrace(tick_as_ftrace().as_bytes())
            .unwrap();
    });
    assert_both_ticks(&r);
}

// Item 4: inputs accepted then failing forever.

#[test]
fn item4_nul_in_system_name_is_refused_at_the_call() {
    let r = file_around(|w| {
        let err = w
            .add_tracepoint_event_desc_from_text(
                &[5],
                &tp_attr(8),
                "s:bad",
                "s\0x",
                &other_format(),
            )
            .unwrap_err();
        assert_eq!(
            err,
            WriterError::Tracing(TracingError::BadSystemName("it contains a NUL byte"))
        );
        let err = w
            .add_tracepoint_event_desc_from_text(&[5], &tp_attr(8), "s:bad", "", &other_format())
            .unwrap_err();
        assert_eq!(
            err,
            WriterError::Tracing(TracingError::BadSystemName("it is empty"))
        );
        // A parsed format with such a system is refused too.
        let parsed = PerfEventFormat::parse(true, "s\0x", &other_format()).unwrap();
        let err = w
            .add_tracepoint_event_desc(&[5], &tp_attr(8), "s:bad", &std::sync::Arc::new(parsed))
            .unwrap_err();
        assert_eq!(
            err,
            WriterError::Tracing(TracingError::BadSystemName("it contains a NUL byte"))
        );
    });
    assert_both_ticks(&r);
}

#[test]
fn item4_tracepoint_without_format_is_retryable_in_file_mode() {
    // Documented case: reported at finalize, which succeeds once the format is added.
    let mut w = file_writer();
    w.add_event_desc(&[5], &tp_attr(TICK_ID), "test:tick")
        .unwrap();
    let err = w.finish().unwrap_err();
    assert_eq!(
        err,
        WriterError::Event(EventError::MissingTracepointFormat { config: TICK_ID })
    );
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    write_tick(&mut w, 2, 2000);
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_both_ticks(&r);
}

#[test]
fn item4_pipe_tracepoint_without_format_after_start_is_refused() {
    let r = pipe_around(|w| {
        let err = w
            .add_event_desc(&[5], &tp_attr(8), "test:other")
            .unwrap_err();
        assert_eq!(
            err,
            WriterError::Event(EventError::MissingTracepointFormat { config: 8 })
        );
        // Another event of a tracepoint whose format went out too (strict mode): perf gives
        // formats only to the events it knows when it reads the tracing data.
        let err = w
            .add_event_desc(&[6], &tp_attr(TICK_ID), "test:tick2")
            .unwrap_err();
        assert_eq!(
            err,
            WriterError::Event(EventError::MissingTracepointFormat { config: TICK_ID })
        );
    });
    assert_both_ticks(&r);
    // perf's verdict on such an event's SAMPLE (taken with strict mode off): a crash.
    if require_perf() {
        let mut w = pipe_writer();
        add_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        w.set_strict(false);
        w.add_event_desc(&[6], &tp_attr(TICK_ID), "test:tick2")
            .unwrap();
        let raw = tick_raw(&w, TICK_ID as u16, 2);
        let s = Sample {
            identifier: Some(6),
            ..tick_sample(&raw, 2000)
        };
        w.write_sample(perf_writer_std::perf_encode::abi::misc::USER, &s)
            .unwrap();
        let out = perf_script_stdin(&w.finish().unwrap());
        assert!(!out.success(), "{}", out.describe());
    }
}

#[test]
fn item4_pipe_format_after_start_is_refused_at_the_call() {
    let r = pipe_around(|w| {
        let err = w
            .add_tracepoint_event_desc_from_text(
                &[5],
                &tp_attr(8),
                "test:bad",
                "test",
                &other_format(),
            )
            .unwrap_err();
        assert_eq!(err, WriterError::Tracing(TracingError::AfterStart));
    });
    assert_both_ticks(&r);
}

/// In pipe mode: `refuse` mid-stream (between the two ticks); then on a new stream `refuse`
/// and `accept` (which returns a sample id of the event it added), a tick, a sample of that
/// event, a tick. Returns perf script's lines of the second stream (`None` without perf).
fn pipe_refused_and_boundary_accepted(
    refuse: impl Fn(&mut PerfPipeWriter<Vec<u8>>),
    accept: impl FnOnce(&mut PerfPipeWriter<Vec<u8>>) -> u64,
) -> Option<Vec<String>> {
    assert_both_ticks(&pipe_around(&refuse));
    let mut w = pipe_writer();
    add_tick(&mut w);
    refuse(&mut w);
    let id = accept(&mut w);
    write_tick(&mut w, 1, 1000);
    let s = Sample {
        identifier: Some(id),
        ip: Some(0x1000),
        tid: Some(PidTid { pid: 42, tid: 42 }),
        time: Some(1500),
        ..Default::default()
    };
    w.write_sample(perf_writer_std::perf_encode::abi::misc::USER, &s)
        .unwrap();
    write_tick(&mut w, 2, 2000);
    let r = read_pipe(&w.finish().unwrap());
    assert_eq!(r.lpd_samples, 3);
    let script = r.script?;
    assert_eq!(script.len(), 3);
    assert!(script[0].contains("value=1") && script[2].contains("value=2"));
    Some(script)
}

#[test]
fn item4_pipe_event_name_must_fit_event_update() {
    let max = EventUpdateName::MAX_NAME_LEN;
    let long = "n".repeat(65_510);
    let longest = "m".repeat(max);
    let script = pipe_refused_and_boundary_accepted(
        |w| {
            let err = w.add_event_desc(&[5], &sw_attr(), &long).unwrap_err();
            assert_eq!(
                err,
                WriterError::Event(EventError::NameTooLongForPipe { len: 65_510, max })
            );
            assert!(w
                .add_event_desc(&[5], &sw_attr(), &"n".repeat(max + 1))
                .is_err());
        },
        |w| {
            w.add_event_desc(&[5], &sw_attr(), &longest).unwrap();
            5
        },
    );
    // perf names the sample's event by the longest name (sent as EVENT_UPDATE).
    if let Some(script) = script {
        let line = &script[1];
        assert!(
            line.contains(&format!(" {longest}:")),
            "a line of {} bytes",
            line.len()
        );
    }
    // File mode keeps its own limit (64 KiB): the same name is accepted there.
    let mut w = file_writer();
    w.add_event_desc(&[5], &sw_attr(), &long).unwrap();
}

#[test]
fn item4_pipe_ids_must_fit_header_attr() {
    let ids: Vec<u64> = (100..8_300).collect();
    let max = HeaderAttr::max_ids(perf_writer_std::perf_encode::abi::attr::ATTR_SIZE_VER7);
    assert!(max < 8_200);
    let script = pipe_refused_and_boundary_accepted(
        |w| {
            let err = w
                .add_event_desc(&ids[..8_200], &sw_attr(), "many")
                .unwrap_err();
            assert_eq!(
                err,
                WriterError::Event(EventError::TooManyIdsForPipe { ids: 8_200, max })
            );
        },
        |w| {
            w.add_event_desc(&ids[..max], &sw_attr(), "many").unwrap();
            ids[max - 1] // the last id reached perf
        },
    );
    if let Some(script) = script {
        assert!(script[1].contains(" many:"), "{}", script[1]);
    }
    // File mode takes far more.
    let mut w = file_writer();
    let many: Vec<u64> = (100..100_100).collect();
    w.add_event_desc(&many, &sw_attr(), "many").unwrap();
}

#[test]
fn item4_pipe_feature_must_fit_header_feature() {
    let big = vec![b'h'; perf_writer_std::perf_encode::abi::MAX_FEATURE_PAYLOAD];
    let mut w = pipe_writer();
    w.set_string_header(PerfHeaderIndex::Hostname, b"before")
        .unwrap();
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    let err = w
        .set_string_header(PerfHeaderIndex::Hostname, &big)
        .unwrap_err();
    assert_eq!(
        err,
        WriterError::Feature(FeatureError::TooLargeForPipe(
            perf_writer_std::perf_encode::abi::feature::HOSTNAME
        ))
    );
    let over = vec![b'o'; big.len() + 1];
    assert!(w.set_header(PerfHeaderIndex::OSRelease, &over).is_err());
    write_tick(&mut w, 2, 2000);
    let bytes = w.finish().unwrap();
    assert_both_ticks(&read_pipe(&bytes));
    if require_perf() {
        let file = temp_data_file(&bytes);
        let header = perf_report_header(file.path(), false);
        header.assert_clean();
        assert_eq!(parse_header_only(&header.stdout).hostname(), Some("before"));
    }
    // File mode has no such limit.
    let mut w = file_writer();
    w.set_string_header(PerfHeaderIndex::Hostname, &big)
        .unwrap();
}

/// Every tracefs format of this machine (events and ftrace) is accepted, as text and parsed,
/// and the files with all of them are read by perf.
#[test]
fn every_tracefs_format_of_this_machine_is_accepted() {
    let root = std::path::Path::new("/sys/kernel/tracing/events");
    let systems = match std::fs::read_dir(root) {
        Ok(d) => d,
        Err(e) => {
            perf_tool::skip(&format!(
                "{}: {e} (tracefs mounted there? root?)",
                root.display()
            ));
            return;
        }
    };
    let mut formats = Vec::new();
    for system in systems.flatten() {
        let Ok(events) = std::fs::read_dir(system.path()) else {
            continue;
        };
        for event in events.flatten() {
            if let Ok(text) = std::fs::read_to_string(event.path().join("format")) {
                let sys = system.file_name().to_string_lossy().into_owned();
                formats.push((sys, text));
            }
        }
    }
    assert!(!formats.is_empty());
    let mut w = file_writer();
    // The same formats parsed, through add_tracepoint_event_desc (checked without being
    // rendered): judged as their rendered texts are, and accepted.
    let mut parsed_w = file_writer();
    let mut events = 0u64;
    for (i, (system, text)) in formats.iter().enumerate() {
        if system == "ftrace" {
            w.set_tracing_data_add_ftrace(text.as_bytes())
                .unwrap_or_else(|e| panic!("ftrace {text}: {e}"));
            continue;
        }
        let format = PerfEventFormat::parse(true, system, text).unwrap();
        let attr = PerfEventAttr {
            sample_type: S::Identifier.or(S::Raw),
            ..tp_attr(u64::from(format.id()))
        };
        let name = format!("{system}:{}", format.name());
        w.add_tracepoint_event_desc_from_text(&[i as u64 + 1], &attr, &name, system, text)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let mut rendered = String::new();
        format.write_to(&mut rendered).unwrap();
        assert_eq!(
            check_parsed_format(&format),
            check_format_text(rendered.as_bytes()),
            "{name}"
        );
        parsed_w
            .add_tracepoint_event_desc(&[i as u64 + 1], &attr, &name, &Arc::new(format))
            .unwrap_or_else(|e| panic!("{name} parsed: {e}\n{rendered}"));
        events += 1;
    }
    let parsed_bytes = parsed_w.finish().unwrap().into_inner();
    assert_eq!(
        lpd::read_file(&parsed_bytes).unwrap().attrs.len() as u64,
        events
    );
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!(l.attrs.len() as u64, events);
    if require_perf() {
        let file = temp_data_file(&bytes);
        let evlist = perf_evlist(file.path());
        // perf 6.1's libtraceevent warns about print formats of newer kernels it cannot
        // parse (`expected type 4 but read 5`); it reads the events all the same.
        evlist.assert_success();
        assert_eq!(parse_evlist(&evlist.stdout).len() as u64, events);
        let file = temp_data_file(&parsed_bytes);
        let evlist = perf_evlist(file.path());
        evlist.assert_success();
        assert_eq!(parse_evlist(&evlist.stdout).len() as u64, events);
    }
}

/// Raw feature payloads perf 6.1 stops at (pipe mode: "failed to process type: 80", exit 234,
/// no sample printed) or crashes on (file mode, PMU_MAPPINGS) are refused by `set_header`,
/// in both modes; the writer goes on and perf reads what it wrote.
#[test]
fn raw_feature_payloads_perf_cannot_read_are_refused() {
    let attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: S::Identifier.or(S::Time),
        ..Default::default()
    };
    let mut sample = vec![9u8, 0, 0, 0, 2, 0, 24, 0];
    sample.extend_from_slice(&1u64.to_ne_bytes());
    sample.extend_from_slice(&5u64.to_ne_bytes());
    // The features perf 6.1 refused three junk bytes for (checked by hand with perf 6.1).
    let refused_by_perf = [
        6u8, 7, 9, 10, 11, 13, 14, 16, 17, 21, 22, 23, 25, 26, 27, 28, 29, 31,
    ];
    type SetHeader<'a> = dyn FnMut(u8, &[u8]) -> Result<(), WriterError> + 'a;
    let feed = |w: &mut SetHeader<'_>| {
        for &index in &refused_by_perf {
            let err = w(index, &[1, 2, 3]).unwrap_err();
            assert!(
                matches!(err, WriterError::Feature(FeatureError::BadPayload(ref e)) if e.feature == index),
                "{index}: {err}"
            );
        }
        // A count of PMU mappings with nothing after it: refused, and says where.
        let err = w(16, &2u32.to_ne_bytes()).unwrap_err();
        assert!(
            err.to_string().contains("feature 16 payload at byte 4"),
            "{err}"
        );
    };
    let mut pipe = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    pipe.add_event_desc(&[1], &attr, "e").unwrap();
    feed(&mut |i, d| pipe.set_header(PerfHeaderIndex(i), d));
    pipe.write_event_data(&sample).unwrap();
    let pipe = pipe.finish().unwrap();
    let mut file = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    file.add_event_desc(&[1], &attr, "e").unwrap();
    feed(&mut |i, d| file.set_header(PerfHeaderIndex(i), d));
    for &index in &refused_by_perf {
        assert!(
            file.get_header(PerfHeaderIndex(index)).is_empty(),
            "{index}"
        );
    }
    file.write_event_data(&sample).unwrap();
    let file = file.finish().unwrap().into_inner();
    assert_eq!(
        lpd::read_file(&file)
            .unwrap()
            .count(perf_writer_std::perf_encode::abi::record_type::SAMPLE),
        1
    );
    if require_perf() {
        let out = perf_tool::perf_script_stdin_with(&pipe, &["-F", "time"]);
        out.assert_clean();
        assert_eq!(out.stdout.lines().count(), 1);
        let f = temp_data_file(&file);
        let out = perf_script(f.path(), &["-F", "time"]);
        out.assert_clean();
        assert_eq!(out.stdout.lines().count(), 1);
    }
}

/// `attr` is refused at `add_event_desc` as an invalid value whose message says `says`, in
/// both modes, and the ticks written around the refusal are read.
fn refused_at_the_add(attr: &PerfEventAttr, says: &str) {
    let refused = |e: WriterError| {
        assert!(
            matches!(
                e,
                WriterError::Encode(perf_writer_std::perf_encode::EncodeError::InvalidValue { .. })
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains(says), "{e}");
    };
    let r = file_around(|w| refused(w.add_event_desc(&[9], attr, "x").unwrap_err()));
    assert_both_ticks(&r);
    assert_eq!(r.lpd_names.len(), 1, "{:?}", r.lpd_names);
    let r = pipe_around(|w| refused(w.add_event_desc(&[9], attr, "x").unwrap_err()));
    assert_both_ticks(&r);
    assert_eq!(r.lpd_names.len(), 1, "{:?}", r.lpd_names);
}

/// An event whose `sample_type` has READ and whose `read_format` lacks ID is refused at the
/// add, in both modes: perf 6.1 reads an id after each value of a SAMPLE's READ whatever the
/// `read_format` says, and refuses a file whose first event is such an event ("non matching
/// read_format"), as it refuses the file the seed writer makes of one.
#[test]
fn an_event_with_read_and_no_read_format_id_is_refused_at_the_add() {
    use perf_writer_std::perf_encode::abi::{read_format as rf, sample_type as st};
    use tracepoint_decode::PerfEventAttrReadFormat;
    let with = |read_format: u64| PerfEventAttr {
        sample_type: S(sw_attr().sample_type.0 | st::READ),
        read_format: PerfEventAttrReadFormat(read_format),
        ..sw_attr()
    };
    for format in [0, rf::TOTAL_TIME_ENABLED | rf::LOST, rf::GROUP] {
        refused_at_the_add(&with(format), "read_format lacks ID");
    }
    // With ID it is taken.
    let r = file_around(|w| w.add_event_desc(&[9], &with(rf::ID), "read").unwrap());
    assert_both_ticks(&r);
    assert_eq!(r.lpd_names.len(), 2, "{:?}", r.lpd_names);
    if require_perf() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seed.data");
        let mut seed = tracepoint_perf::PerfDataFileWriter::new();
        seed.create_file(path.to_str().unwrap()).unwrap();
        assert!(seed.add_event_desc(&[9], &with(rf::TOTAL_TIME_ENABLED), "read"));
        seed.finalize_and_close().unwrap();
        let out = perf_script(&path, &[]);
        assert!(!out.success(), "{}", out.describe());
        assert!(
            out.stderr.contains("non matching read_format"),
            "{}",
            out.describe()
        );
    }
}

/// An attr whose `sample_type` has a bit perf does not know (PERF_SAMPLE_MAX and above) is
/// refused at the add, in both modes: no reader can place that field in a SAMPLE, and perf
/// 6.1 refuses such an event in a stream ("failed to process type: 64").
#[test]
fn a_sample_type_bit_past_perf_sample_max_is_refused_at_the_add() {
    let unknown = |bit: u32| PerfEventAttr {
        sample_type: S(sw_attr().sample_type.0 | 1 << bit),
        ..sw_attr()
    };
    for bit in [25, 26, 40, 63] {
        refused_at_the_add(&unknown(bit), "PERF_SAMPLE_MAX");
    }
    // The last bit perf knows is taken.
    let r = file_around(|w| {
        w.add_event_desc(&[9], &unknown(24), "weight_struct")
            .unwrap()
    });
    assert_both_ticks(&r);
    assert_eq!(r.lpd_names.len(), 2, "{:?}", r.lpd_names);
}

/// One of perf's own records of `type_` whose body is the `u64` words `body`, in the
/// writers' byte order here (little-endian).
fn user_record(type_: u32, body: &[u64]) -> Vec<u8> {
    let body: Vec<u8> = body.iter().flat_map(|w| w.to_le_bytes()).collect();
    let parts: [&[u8]; 1] = [&body];
    perf_writer_std::perf_encode::to_vec(
        &Record::new(type_, 0, &parts),
        perf_writer_std::perf_encode::Endian::Little,
    )
    .expect("a record of whole words encodes")
}

/// perf's own records whose fields do not fill them as perf reads them are refused at the
/// call, in both modes and both ways strict mode checks a record (one per call after a
/// run of good ones, and several in one call); whole ones are taken, and perf reads both
/// ticks around them.
#[test]
fn user_records_whose_fields_do_not_fill_them_are_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::{RecordError, RecordProblem};
    let bad = [
        (
            "ID_INDEX, nr 5 and one entry",
            user_record(rt::ID_INDEX, &[5, 1, 0, 0, 0]),
        ),
        (
            "THREAD_MAP, nr 100 and one entry",
            user_record(rt::THREAD_MAP, &[100, 42, 0, 0]),
        ),
        (
            "STAT_CONFIG, nr 50 and none",
            user_record(rt::STAT_CONFIG, &[50]),
        ),
        (
            "STAT_CONFIG, a word after its entries",
            user_record(rt::STAT_CONFIG, &[1, 0, 1, 7]),
        ),
        ("CPU_MAP with no body", user_record(rt::CPU_MAP, &[])),
        ("CPU_MAP of kind 99", user_record(rt::CPU_MAP, &[99])),
    ];
    // The whole forms of the same records.
    let good = [
        user_record(rt::ID_INDEX, &[1, TICK_SAMPLE_ID, 0, 0, 42]),
        user_record(rt::THREAD_MAP, &[1, 42, 0, 0]),
        user_record(rt::STAT_CONFIG, &[1, 0, 1]),
    ];
    let refused = |what: &str, e: WriterError| match e {
        WriterError::Record(RecordError::Refused {
            problem: RecordProblem::Fields(_),
            ..
        }) => {}
        other => panic!("{what}: {other:?}"),
    };
    for (what, r) in &bad {
        let file = file_around(|w| {
            refused(what, w.write_event_data(r).unwrap_err());
            let mut two = good[1].clone();
            two.extend_from_slice(r);
            refused(what, w.write_event_data(&two).unwrap_err());
            for g in &good {
                w.write_event_data(g).unwrap();
            }
        });
        assert_both_ticks(&file);
        let pipe = pipe_around(|w| {
            refused(what, w.write_event_data(r).unwrap_err());
            for g in &good {
                w.write_event_data(g).unwrap();
            }
        });
        assert_both_ticks(&pipe);
    }
}

/// perf's own records naming an id no event has are refused at the call in pipe mode,
/// where perf reads them with the descriptions before them: an ID_INDEX entry (perf looks
/// each up), and an EVENT_UPDATE or STAT when perf's rule for them finds no event (several
/// events with `sample_id_all`); with one event, or events without `sample_id_all`, perf
/// gives them to the first, and they are taken. perf reads every stream.
#[test]
fn user_records_naming_an_unknown_id_are_refused_in_pipe_mode() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::{RecordError, RecordProblem};
    use tracepoint_decode::PerfEventAttrOptions;
    let name = |id: u64| {
        let mut body = vec![2, id];
        body.push(u64::from_le_bytes(*b"renamed\0"));
        user_record(rt::EVENT_UPDATE, &body)
    };
    let stat = |id: u64| user_record(rt::STAT, &[id, 0, 1, 1, 1]);
    let index = |id: u64| user_record(rt::ID_INDEX, &[2, TICK_SAMPLE_ID, 0, 0, 42, id, 0, 0, 42]);
    let unknown = |e: WriterError| match e {
        WriterError::Record(RecordError::Refused {
            problem: RecordProblem::UnknownId(77),
            ..
        }) => {}
        other => panic!("{other:?}"),
    };
    // One event: perf gives the EVENT_UPDATE and the STAT to it.
    let r = pipe_around(|w| {
        // STAT needs perf script's maps first.
        for r in stat_maps() {
            w.write_event_data(&r).unwrap();
        }
        unknown(w.write_event_data(&index(77)).unwrap_err());
        w.write_event_data(&stat(77)).unwrap();
        w.write_event_data(&user_record(rt::ID_INDEX, &[1, TICK_SAMPLE_ID, 0, 0, 42]))
            .unwrap();
    });
    assert_both_ticks(&r);
    // Two events with sample_id_all: an id neither has names no event.
    let mut w = pipe_writer();
    let attr = PerfEventAttr {
        options: PerfEventAttrOptions::SampleIdAll,
        ..sw_attr()
    };
    w.add_event_desc(&[1], &attr, "a").unwrap();
    w.add_event_desc(&[2], &attr, "b").unwrap();
    for r in stat_maps() {
        w.write_event_data(&r).unwrap();
    }
    for r in [index(77), name(77), stat(77)] {
        unknown(w.write_event_data(&r).unwrap_err());
    }
    w.write_event_data(&name(2)).unwrap();
    let r = read_pipe(&w.finish().unwrap());
    assert_eq!(r.lpd_samples, 0);
}

/// A CPU_MAP of cpus 1, 0, 2 (out of order: perf, looking cpus up by bisection, finds 0
/// and 2 only) and a THREAD_MAP of one thread.
fn stat_maps() -> [Vec<u8>; 2] {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::records::CpuMap;
    let cpus = perf_writer_std::perf_encode::to_vec(
        &CpuMap::Cpus(&[1, 0, 2]),
        perf_writer_std::perf_encode::Endian::Little,
    )
    .expect("a cpu map encodes");
    [user_record(rt::THREAD_MAP, &[1, 42, 0, 0]), cpus]
}

/// A STAT of the tick's id on `cpu` and thread index `thread`, counting `val`.
fn stat(cpu: u32, thread: u32, val: u64) -> Vec<u8> {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    let at = u64::from(cpu) | u64::from(thread) << 32;
    user_record(rt::STAT, &[TICK_SAMPLE_ID, at, val, 1, 1])
}

fn stat_refused(e: WriterError, want: perf_writer_std::StatProblem) {
    use perf_writer_std::{RecordError, RecordProblem};
    match e {
        WriterError::Record(RecordError::Refused {
            problem: RecordProblem::Stat(p),
            ..
        }) => assert_eq!(p, want),
        other => panic!("{other:?}"),
    }
}

/// STAT and STAT_ROUND records perf script cannot read where they are are refused at the
/// call, in both modes: before the maps it counts them by (perf crashes on a STAT_ROUND
/// there), on a cpu it does not find in the first CPU_MAP, or past its threads. A refused
/// call keeps none of its maps. Those it can read are taken, and perf reads the ticks.
#[test]
fn stat_records_perf_script_cannot_read_are_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::StatProblem;
    let round = user_record(rt::STAT_ROUND, &[0, 5]);
    let [threads, cpus] = stat_maps();
    let refuse = |w: &mut dyn FnMut(&[u8]) -> Result<(), WriterError>| {
        stat_refused(w(&round).unwrap_err(), StatProblem::NoMaps);
        stat_refused(w(&stat(0, 0, 1)).unwrap_err(), StatProblem::NoMaps);
        // The maps in a call refused for its STAT do not count.
        let call = [threads.clone(), cpus.clone(), stat(1, 0, 1)].concat();
        stat_refused(w(&call).unwrap_err(), StatProblem::Cpu(1));
        stat_refused(w(&stat(0, 0, 1)).unwrap_err(), StatProblem::NoMaps);
        // In one call, the maps count for the STAT after them.
        w(&[threads.clone(), cpus.clone(), stat(0, 0, 1)].concat()).unwrap();
        stat_refused(w(&stat(1, 0, 1)).unwrap_err(), StatProblem::Cpu(1));
        stat_refused(w(&stat(9, 0, 1)).unwrap_err(), StatProblem::Cpu(9));
        stat_refused(w(&stat(2, 1, 1)).unwrap_err(), StatProblem::Thread(1));
        w(&stat(2, 0, 1)).unwrap();
    };
    let r = file_around(|w| refuse(&mut |b| w.write_event_data(b)));
    assert_both_ticks(&r);
    let r = pipe_around(|w| refuse(&mut |b| w.write_event_data(b)));
    assert_both_ticks(&r);
}

/// perf counts an event's STATs on the cpus the last EVENT_UPDATE of it gave, whichever of
/// its ids that names: a STAT on those is taken (and printed), one on the cpus an earlier
/// EVENT_UPDATE of another of its ids gave is refused, in both modes and with the records
/// before the description.
#[test]
fn the_last_event_update_of_an_event_gives_its_cpus() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::records::CpuMap;
    use perf_writer_std::perf_encode::{to_vec, Endian};
    use perf_writer_std::StatProblem;
    let map = |cpus: &[u16]| to_vec(&CpuMap::Cpus(cpus), Endian::Little).unwrap();
    let update_cpus = |id: u64, cpus: &[u16]| {
        let m = map(cpus);
        let mut r = user_record(rt::EVENT_UPDATE, &[3, id]);
        r.extend_from_slice(&m[8..]);
        let len = r.len() as u16;
        r[6..8].copy_from_slice(&len.to_le_bytes());
        r
    };
    let stat_of = |cpu: u64, val: u64| user_record(rt::STAT, &[5, cpu, val, 1, 1]);
    let before_stats = [
        update_cpus(5, &[0]),
        update_cpus(6, &[2]),
        user_record(rt::THREAD_MAP, &[1, 42, 0, 0]),
        map(&[0, 1, 2]),
    ];
    let round = user_record(rt::STAT_ROUND, &[0, 5]);
    fn write_all<O: OutputMode>(w: &mut PerfWriter<O>, records: &[Vec<u8>]) {
        for r in records {
            w.write_event_data(r).unwrap();
        }
    }
    fn described<O: OutputMode>(w: &mut PerfWriter<O>) {
        w.add_event_desc(&[5, 6], &sw_attr(), "counted").unwrap();
    }
    let printed = |script: &Option<Vec<String>>| {
        if let Some(script) = script {
            assert!(script.iter().any(|l| l.contains("31337")), "{script:?}");
            assert!(!script.iter().any(|l| l.contains("4242")), "{script:?}");
        }
    };
    // Described first: the STAT on cpu 0 is refused, the one on cpu 2 taken.
    let stats = |w: &mut dyn FnMut(&[u8]) -> Result<(), WriterError>| {
        for r in &before_stats {
            w(r).unwrap();
        }
        stat_refused(w(&stat_of(0, 4242)).unwrap_err(), StatProblem::EventCpus(0));
        w(&stat_of(2, 31337)).unwrap();
        w(&round).unwrap();
    };
    let mut w = file_writer();
    described(&mut w);
    stats(&mut |b| w.write_event_data(b));
    let r = read_file(&w.finish().unwrap().into_inner());
    printed(&r.script);
    let mut w = pipe_writer();
    described(&mut w);
    stats(&mut |b| w.write_event_data(b));
    let r = read_pipe(&w.finish().unwrap());
    printed(&r.script);
    // Records first: both STATs wait for the description that tells whether ids 5 and 6
    // are one event; it is, so the one on cpu 0 contradicts it.
    let mut w = file_writer();
    write_all(&mut w, &before_stats);
    write_all(&mut w, &[stat_of(0, 4242)]);
    match w
        .add_event_desc(&[5, 6], &sw_attr(), "counted")
        .unwrap_err()
    {
        WriterError::Event(EventError::ContradictsRecords {
            records: 1,
            id: Some(5),
            problem: perf_writer_std::Contradiction::StatCpus,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let mut w = file_writer();
    write_all(&mut w, &before_stats);
    write_all(&mut w, &[stat_of(2, 31337), round.clone()]);
    described(&mut w);
    let r = read_file(&w.finish().unwrap().into_inner());
    printed(&r.script);
}

/// A second CPU_MAP or THREAD_MAP is refused in both modes (perf reads the first of each
/// and ignores the others, with a warning); what was taken reads as before.
#[test]
fn a_second_cpu_map_or_thread_map_is_refused() {
    use perf_writer_std::StatProblem;
    let [threads, cpus] = stat_maps();
    let refuse = |w: &mut dyn FnMut(&[u8]) -> Result<(), WriterError>| {
        w(&threads).unwrap();
        stat_refused(w(&threads).unwrap_err(), StatProblem::ExtraMap);
        // A call that brings the first and a second CPU_MAP is refused whole.
        let both = [cpus.clone(), cpus.clone()].concat();
        stat_refused(w(&both).unwrap_err(), StatProblem::ExtraMap);
        w(&cpus).unwrap();
        stat_refused(w(&cpus).unwrap_err(), StatProblem::ExtraMap);
        w(&stat(2, 0, 31337)).unwrap();
    };
    let r = file_around(|w| refuse(&mut |b| w.write_event_data(b)));
    assert_both_ticks(&r);
    let r = pipe_around(|w| refuse(&mut |b| w.write_event_data(b)));
    assert_both_ticks(&r);
}

/// perf script prints the counts of a STAT_ROUND taken after the maps; in pipe mode an
/// event described after the maps has no counts (perf crashes on a STAT_ROUND then).
#[test]
fn a_stat_round_after_the_maps_is_printed_by_perf_script() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::StatProblem;
    let round = user_record(rt::STAT_ROUND, &[0, 5]);
    let [threads, cpus] = stat_maps();
    let mut w = file_writer();
    add_tick(&mut w);
    for r in [&threads, &cpus, &stat(2, 0, 31337), &round] {
        w.write_event_data(r).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).expect("linux-perf-data reads the file");
    assert_eq!(l.count(rt::STAT), 1);
    if require_perf() {
        let file = temp_data_file(&bytes);
        let out = perf_script(file.path(), &[]);
        out.assert_clean();
        let lines = script_lines(&out);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("31337") && l.contains("test:tick")),
            "{lines:?}"
        );
    }
    let mut p = pipe_writer();
    add_tick(&mut p);
    for r in [&threads, &cpus] {
        p.write_event_data(r).unwrap();
    }
    p.add_event_desc(&[5], &sw_attr(), "later").unwrap();
    stat_refused(
        p.write_event_data(&round).unwrap_err(),
        StatProblem::DescribedAfterMaps,
    );
    let r = read_pipe(&p.finish().unwrap());
    assert_eq!(r.lpd_samples, 0);
}

/// An AUXTRACE_INFO of a trace type perf 6.1 has no decoder for (0, or past the last) is
/// refused at the call; one it decodes is taken, and perf reads both ticks.
#[test]
fn an_auxtrace_info_of_an_unknown_trace_type_is_refused() {
    use perf_writer_std::perf_encode::abi::{record_fields, record_type as rt};
    use perf_writer_std::{RecordError, RecordProblem};
    let info = |t: u32| user_record(rt::AUXTRACE_INFO, &[u64::from(t), 0, 0]);
    for t in [
        record_fields::AUXTRACE_UNKNOWN,
        record_fields::AUXTRACE_HISI_PTT + 1,
    ] {
        let r = file_around(|w| match w.write_event_data(&info(t)).unwrap_err() {
            WriterError::Record(RecordError::Refused {
                problem:
                    RecordProblem::Value {
                        field: "type",
                        value,
                    },
                ..
            }) => assert_eq!(value, u64::from(t)),
            other => panic!("{other:?}"),
        });
        assert_both_ticks(&r);
    }
    let r = file_around(|w| {
        w.write_event_data(&info(record_fields::AUXTRACE_HISI_PTT))
            .unwrap()
    });
    assert_both_ticks(&r);
}

/// The tick, with `sample_id_all` (perf reads a file in time order only then, which the
/// trace decoders of Intel PT and BTS, Arm SPE and CoreSight need).
fn add_ordered_tick<O: OutputMode>(w: &mut PerfWriter<O>) {
    try_add_ordered_tick(w).unwrap();
}

/// `record` is taken before any description, and the ordered tick's description is then
/// refused for contradicting it.
fn ordered_tick_contradicts(w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>, record: &[u8]) {
    w.write_event_data(record).unwrap();
    let refused = try_add_ordered_tick(w).unwrap_err();
    assert!(
        matches!(
            refused,
            WriterError::Event(EventError::ContradictsRecords { .. })
        ),
        "{refused:?}"
    );
}

/// [`add_ordered_tick`], its refusal returned.
fn try_add_ordered_tick<O: OutputMode>(w: &mut PerfWriter<O>) -> Result<(), WriterError> {
    let attr = PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..tp_attr(TICK_ID)
    };
    w.add_tracepoint_event_desc_from_text(&[TICK_SAMPLE_ID], &attr, "test:tick", "test", TICK)
        .map(drop)
}

/// A file with the ordered tick, then `between`, then a tick.
fn ordered_file_around(
    between: impl FnOnce(&mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>),
) -> Readback {
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    between(&mut w);
    write_tick(&mut w, 2, 2000);
    read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES)
}

/// [`ordered_file_around`] of `a` then `b`, and of `b` then `a`: the second of each is
/// refused for `need`.
fn refused_after_either(a: &[u8], b: &[u8], need: perf_writer_std::AuxtraceNeed) -> [Readback; 2] {
    [(a, b), (b, a)].map(|(first, second)| {
        ordered_file_around(|w| {
            w.write_event_data(first).unwrap();
            aux_refused(w.write_event_data(second).unwrap_err(), Some(need));
        })
    })
}

/// The same in pipe mode.
fn ordered_pipe_around(between: impl FnOnce(&mut PerfPipeWriter<Vec<u8>>)) -> Readback {
    let mut w = pipe_writer();
    add_ordered_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    between(&mut w);
    write_tick(&mut w, 2, 2000);
    read_pipe_noting(&w.finish().unwrap(), DECODER_NOTICES)
}

/// An AUXTRACE_INFO record of `trace_type` with private `words`.
fn auxtrace_info(trace_type: u64, words: &[u64]) -> Vec<u8> {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    user_record(rt::AUXTRACE_INFO, &[&[trace_type][..], words].concat())
}

/// A TIME_CONV whose multiplier is perf's (`mult` 1) or 0.
fn time_conv(mult: u64) -> Vec<u8> {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    user_record(rt::TIME_CONV, &[31, mult * 858_993_459, 0])
}

fn aux_refused(e: WriterError, want: Option<perf_writer_std::AuxtraceNeed>) {
    use perf_writer_std::{RecordError, RecordProblem};
    match (e, want) {
        (
            WriterError::Record(RecordError::Refused {
                problem: RecordProblem::Auxtrace(n),
                ..
            }),
            Some(want),
        ) => assert_eq!(n, want),
        (
            WriterError::Record(RecordError::Refused {
                problem: RecordProblem::Value { field, .. } | RecordProblem::Fields(field),
                ..
            }),
            None,
        ) => assert!(field.starts_with("priv") || field == "size", "{field}"),
        (other, _) => panic!("{other:?}"),
    }
}

/// AUXTRACE_INFO settings perf 6.1's trace decoders crash on (a division by zero, a read
/// outside the record) or refuse the file for are refused at the call, in both modes;
/// written with strict mode off, perf fails on each (its verdict, checked here). The
/// settings perf reads are taken, and perf reads both ticks around them.
#[test]
fn auxtrace_info_settings_perf_fails_on_are_refused() {
    use perf_writer_std::perf_encode::abi::auxtrace_priv;
    use perf_writer_std::perf_encode::Endian;
    let pt_real = [
        8,
        31,
        858_993_459,
        0x0fff_e123_4567,
        1,
        0x400,
        0x800,
        0,
        0,
        1,
    ];
    let filter = |text: &[u8; 24]| {
        let mut w = vec![0u64; 17];
        w[16] = text.iter().position(|&b| b == 0).unwrap() as u64;
        w.extend(
            text.chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
        );
        w
    };
    let etm = |cpus: u64, blocks: &[u64]| [&[1, 9 << 32 | cpus, 0][..], blocks].concat();
    let v4 = |id: u64| {
        [
            auxtrace_priv::CS_ETM_MAGIC_ETMV4,
            0,
            7,
            0x1000,
            id,
            1,
            2,
            3,
            4,
            5,
        ]
    };
    let refused = [
        // Intel BTS with a time multiplier of 0: SIGFPE at the first timed record.
        auxtrace_info(2, &[7, 31, 0, 0, 1]),
        // Intel PT: a TSC under 50 MHz makes a maximum non-turbo ratio of 0 (SIGFPE).
        auxtrace_info(1, &[0, 0, 21, 0, 0, 0, 0, 0, 0]),
        // Intel PT with timestamps on and a multiplier of 0 (SIGFPE).
        auxtrace_info(1, &[&pt_real[..2], &[0], &pt_real[3..]].concat()),
        // Intel PT: a filter perf does not parse, or one that runs past the record.
        auxtrace_info(1, &filter(b"jump 0x10\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0")),
        auxtrace_info(1, &[vec![0; 16], vec![u64::MAX]].concat()),
        // CoreSight: two cpus of one trace id; a parameter count far past the record.
        auxtrace_info(3, &etm(2, &[v4(0x10), v4(0x10)].concat())),
        auxtrace_info(3, &etm(2, &[&v4(0x10)[..2], &[0x1000_0000]].concat())),
    ];
    for record in &refused {
        let r = ordered_file_around(|w| aux_refused(w.write_event_data(record).unwrap_err(), None));
        assert_both_ticks(&r);
        let r = ordered_pipe_around(|w| aux_refused(w.write_event_data(record).unwrap_err(), None));
        assert_both_ticks(&r);
    }
    // What perf reads is taken.
    let taken = [
        auxtrace_info(2, &[7, 31, 1, 0, 1]),
        auxtrace_info(1, &[0; 9]),
        auxtrace_info(1, &pt_real),
        auxtrace_info(1, &filter(b"filter 0x1000/0x100\0\0\0\0\0")),
        auxtrace_info(5, &[]),
        auxtrace_info(6, &[1]),
    ];
    for record in &taken {
        assert_both_ticks(&ordered_file_around(|w| {
            w.write_event_data(record).unwrap()
        }));
        assert_both_ticks(&ordered_pipe_around(|w| {
            w.write_event_data(record).unwrap()
        }));
    }
    // In a big-endian file perf (on this little-endian machine) swaps the private words,
    // parses the filter string as swapped, then checks the last byte of its copy swapped
    // back: it reads a filter of a whole number of words (swapped with the rest), and
    // refuses the others.
    let be_file = |text: &[u8]| {
        let mut words = vec![0u64; 17];
        words[16] = text.len() as u64;
        let mut bytes = text.to_vec();
        bytes.resize((text.len() + 1).next_multiple_of(8), 0);
        words.extend(
            bytes
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
        );
        let mut record = auxtrace_info(1, &words);
        perf_writer_std::perf_encode::swap::RecordSwapper::new(&[], Endian::Little)
            .swap_record(&mut record)
            .unwrap();
        let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
            Cursor::new(Vec::new()),
            Endian::Big,
        )
        .unwrap();
        add_ordered_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        (w, record)
    };
    let (mut w, record) = be_file(b"filter 0x10000/0x1000000");
    w.write_event_data(&record).unwrap();
    write_tick(&mut w, 2, 2000);
    let r = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    assert_both_ticks(&r);
    let (mut w, record) = be_file(b"filter 0x1000/0x100");
    aux_refused(w.write_event_data(&record).unwrap_err(), None);
    if require_perf() {
        w.set_strict(false);
        w.write_event_data(&record).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
    // perf's verdict on the refused ones, written with strict mode off.
    if require_perf() {
        for record in &refused {
            let mut w = file_writer();
            add_ordered_tick(&mut w);
            w.set_strict(false);
            w.write_event_data(record).unwrap();
            write_tick(&mut w, 1, 1000);
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            let out = perf_script(file.path(), &[]);
            assert!(!out.success(), "perf read a refused record: {record:?}");
        }
    }
}

/// What an AUXTRACE_INFO's decoder needs of the rest of the output: Arm SPE a TIME_CONV
/// with a multiplier before it; CoreSight an event of its PMU type; Arm SPE and CoreSight
/// ids on the first event of their PMU type; in a file, Intel PT and BTS, Arm SPE and
/// CoreSight a first event with `sample_id_all`. Refused at the call when the output
/// cannot give it there; in file mode, a description that breaks it is refused, naming
/// the record, and finish refuses while no description came. perf reads what is taken,
/// and fails on the file with strict mode off.
#[test]
fn auxtrace_info_needs_of_the_output_are_checked() {
    use perf_writer_std::perf_encode::abi::{auxtrace_priv, record_type as rt};
    use perf_writer_std::{AuxtraceNeed as Need, Contradiction, RecordError};
    let spe = auxtrace_info(4, &[8, 1]);
    let bts = auxtrace_info(2, &[7, 31, 1, 0, 1]);
    let v4 = [
        auxtrace_priv::CS_ETM_MAGIC_ETMV4,
        0,
        7,
        0x1000,
        0x10,
        1,
        2,
        3,
        4,
        5,
    ];
    let etm = auxtrace_info(3, &[&[1, 9 << 32 | 1, 0][..], &v4].concat());
    let with_options = |t: u32, ids: bool| {
        let attr = PerfEventAttr {
            attr_type: PerfEventAttrType::from(t),
            options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
            ..sw_attr()
        };
        (attr, if ids { vec![u64::from(t) * 10] } else { vec![] })
    };
    // Arm SPE: the last TIME_CONV before it must have a multiplier; a call refused keeps
    // none of its TIME_CONV.
    let r = ordered_file_around(|w| {
        aux_refused(w.write_event_data(&spe).unwrap_err(), Some(Need::TimeConv));
        let call = [time_conv(0), spe.clone()].concat();
        aux_refused(w.write_event_data(&call).unwrap_err(), Some(Need::TimeConv));
        let call = [
            time_conv(1),
            spe.clone(),
            auxtrace_info(2, &[7, 31, 0, 0, 1]),
        ]
        .concat();
        aux_refused(w.write_event_data(&call).unwrap_err(), None);
        aux_refused(w.write_event_data(&spe).unwrap_err(), Some(Need::TimeConv));
        w.write_event_data(&[time_conv(1), spe.clone()].concat())
            .unwrap();
    });
    assert_both_ticks(&r);
    // CoreSight of a PMU type no event has, in both modes; taken once it has one.
    let r = ordered_pipe_around(|w| {
        aux_refused(w.write_event_data(&etm).unwrap_err(), Some(Need::Event(9)));
    });
    assert_both_ticks(&r);
    // In a file it waits for the event: finish refuses until it comes.
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    w.write_event_data(&etm).unwrap();
    write_tick(&mut w, 2, 2000);
    match w.finish().unwrap_err() {
        WriterError::Record(RecordError::Undescribed(p)) => assert_eq!(p.type_, rt::AUXTRACE_INFO),
        other => panic!("{other:?}"),
    }
    let (attr, ids) = with_options(9, true);
    w.add_event_desc(&ids, &attr, "cs_etm").unwrap();
    let r = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    assert_both_ticks(&r);
    // In a file whose first event has no sample_id_all.
    let r = file_around(|w| {
        aux_refused(
            w.write_event_data(&bts).unwrap_err(),
            Some(Need::SampleIdAll),
        );
    });
    assert_both_ticks(&r);
    // Arm SPE of the only event, which has no ids (perf reads its first id: SIGSEGV).
    let (spe_attr, _) = with_options(8, false);
    let spe8 = [time_conv(1), spe.clone()].concat();
    let mut w = file_writer();
    w.add_event_desc(&[], &spe_attr, "arm_spe").unwrap();
    aux_refused(
        w.write_event_data(&spe8).unwrap_err(),
        Some(Need::EventIds(8)),
    );
    // Records first: the descriptions that break a need are refused, naming the record.
    let refused = |e: WriterError, want: Contradiction| match e {
        WriterError::Event(EventError::ContradictsRecords {
            type_,
            offset,
            problem,
            ..
        }) => {
            assert_eq!((type_, problem), (rt::AUXTRACE_INFO, want));
            offset
        }
        other => panic!("{other:?}"),
    };
    let mut w = file_writer();
    w.write_event_data(&spe8).unwrap();
    let ids_at = refused(
        w.add_event_desc(&[], &spe_attr, "arm_spe").unwrap_err(),
        Contradiction::AuxtraceEventIds,
    );
    let order_at = refused(
        w.add_event_desc(&[80], &sw_attr(), "unordered")
            .unwrap_err(),
        Contradiction::AuxtraceOrder,
    );
    // Both name the AUXTRACE_INFO, after the 32-byte TIME_CONV.
    assert_eq!(ids_at, order_at);
    assert!(ids_at >= 32);
    // Finish refuses while no description came (it can be retried).
    match w.finish().unwrap_err() {
        WriterError::Record(RecordError::Undescribed(p)) => assert_eq!(p.type_, rt::AUXTRACE_INFO),
        other => panic!("{other:?}"),
    }
    w.add_event_desc(&[80], &spe_attr, "arm_spe").unwrap();
    read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    // A drop with no description cuts the file before the record; perf reads the rest.
    let mut file = Cursor::new(Vec::new());
    {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(&mut file).unwrap();
        w.write_event_data(&bts).unwrap();
    }
    read_file(file.get_ref());
    // perf's verdict: with strict mode off, perf fails on a BTS record in a file whose
    // first event has no sample_id_all, and on Arm SPE without a TIME_CONV.
    if require_perf() {
        for (record, ordered) in [(&bts, false), (&spe, true)] {
            let mut w = file_writer();
            match ordered {
                true => add_ordered_tick(&mut w),
                false => add_tick(&mut w),
            }
            w.set_strict(false);
            w.write_event_data(record).unwrap();
            write_tick(&mut w, 1, 1000);
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            assert!(!perf_script(file.path(), &[]).success());
        }
    }
}

/// More of what the trace decoders need: Intel PT's switch event (`have_sched_switch` 1:
/// a `sched:sched_switch` tracepoint; 2: an event with `context_switch`); ids free for the
/// events perf synthesizes from a trace (its PMU event's first id plus one billion, and
/// the next 15); an AUXTRACE_INFO before AUXTRACE records; in a file, `sample_id_all` on
/// the first event for s390 CPU-MF too. After records written with strict mode off, the
/// TIME_CONV and AUXTRACE_INFO they may hold are unknown: what depends on them is refused.
/// perf's verdict is checked on each refusal, and perf reads what is taken.
#[test]
fn auxtrace_info_more_needs_are_checked() {
    use integration_tests::records::RecordBuilder;
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::{AuxtraceNeed as Need, Contradiction, RecordError, RecordProblem};
    let pt = |switch: u64| {
        let mut w = vec![
            8,
            31,
            858_993_459,
            0x0fff_e123_4567,
            1,
            0x400,
            0x800,
            switch,
            0,
            1,
        ];
        w.truncate(10);
        auxtrace_info(1, &w)
    };
    let perf_fails = |bytes: Vec<u8>| {
        if require_perf() {
            let file = temp_data_file(&bytes);
            assert!(!perf_script(file.path(), &[]).success());
        }
    };
    // have_sched_switch 1 and 2: refused in a pipe stream without the event; in a file the
    // record waits for it.
    for (switch, want) in [(1, Need::SchedSwitchEvent), (2, Need::ContextSwitchEvent)] {
        let r = ordered_pipe_around(|w| {
            aux_refused(w.write_event_data(&pt(switch)).unwrap_err(), Some(want));
        });
        assert_both_ticks(&r);
        let mut w = file_writer();
        add_ordered_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        w.write_event_data(&pt(switch)).unwrap();
        write_tick(&mut w, 2, 2000);
        assert!(matches!(
            w.finish().unwrap_err(),
            WriterError::Record(RecordError::Undescribed(_))
        ));
        match switch {
            1 => {
                w.add_tracepoint_event_desc_from_text(
                    &[77],
                    &PerfEventAttr {
                        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
                        sample_type: tp_attr(0).sample_type.or(S::Cpu),
                        ..tp_attr(TICK_ID + 1)
                    },
                    "sched:sched_switch",
                    "sched",
                    &TICK
                        .replace("tick", "sched_switch")
                        .replace(&format!("ID: {TICK_ID}"), &format!("ID: {}", TICK_ID + 1)),
                )
                .unwrap();
            }
            _ => {
                let mut attr = PerfEventAttr {
                    options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
                    ..sw_attr()
                };
                attr.options = attr
                    .options
                    .or(tracepoint_decode::PerfEventAttrOptions::ContextSwitch);
                w.add_event_desc(&[77], &attr, "switches").unwrap();
            }
        }
        let r = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
        assert_both_ticks(&r);
        // perf's verdict without the event.
        let mut w = file_writer();
        add_ordered_tick(&mut w);
        w.set_strict(false);
        w.write_event_data(&pt(switch)).unwrap();
        write_tick(&mut w, 1, 1000);
        perf_fails(w.finish().unwrap().into_inner());
    }
    // Synthesized ids: the PT event's first id is 10, so perf synthesizes from 1000000010.
    let pt_attr = PerfEventAttr {
        attr_type: PerfEventAttrType::from(8),
        config: 0x400,
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..sw_attr()
    };
    let sw_all = PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..sw_attr()
    };
    let mut w = file_writer();
    w.add_event_desc(&[1_000_000_012], &sw_all, "sw").unwrap();
    w.add_event_desc(&[10], &pt_attr, "intel_pt//").unwrap();
    aux_refused(
        w.write_event_data(&pt(0)).unwrap_err(),
        Some(Need::FreeSynthIds(1_000_000_010)),
    );
    // Records first: the description that takes one is refused, naming the record.
    let mut w = file_writer();
    w.write_event_data(&pt(0)).unwrap();
    w.add_event_desc(&[10], &pt_attr, "intel_pt//").unwrap();
    match w
        .add_event_desc(&[1_000_000_012], &sw_all, "sw")
        .unwrap_err()
    {
        WriterError::Event(EventError::ContradictsRecords { type_, problem, .. }) => {
            assert_eq!(
                (type_, problem),
                (rt::AUXTRACE_INFO, Contradiction::AuxtraceSynthIds)
            )
        }
        other => panic!("{other:?}"),
    }
    w.add_event_desc(&[1_000_000_026], &sw_all, "sw").unwrap();
    read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    // Strict mode off and on again, with records between: the record's needs hold again
    // for the descriptions made after.
    let mut w = file_writer();
    w.write_event_data(&pt(0)).unwrap();
    w.add_event_desc(&[10], &pt_attr, "intel_pt//").unwrap();
    w.set_strict(false);
    w.write_event_data(&time_conv(1)).unwrap();
    w.set_strict(true);
    match w
        .add_event_desc(&[1_000_000_012], &sw_all, "sw")
        .unwrap_err()
    {
        WriterError::Event(EventError::ContradictsRecords { problem, .. }) => {
            assert_eq!(problem, Contradiction::AuxtraceSynthIds)
        }
        other => panic!("{other:?}"),
    }
    // perf's verdict on the collision: it takes the sw event's records for its own.
    let mut w = file_writer();
    w.add_event_desc(&[1_000_000_010], &sw_all, "sw").unwrap();
    w.add_event_desc(&[10], &pt_attr, "intel_pt//").unwrap();
    w.set_strict(false);
    w.write_event_data(&pt(0)).unwrap();
    let sample = Sample {
        identifier: Some(1_000_000_010),
        ip: Some(0x1000),
        tid: Some(PidTid { pid: 42, tid: 42 }),
        time: Some(1000),
        ..Default::default()
    };
    w.write_sample(perf_writer_std::perf_encode::abi::misc::USER, &sample)
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    if require_perf() {
        let file = temp_data_file(&bytes);
        let report = integration_tests::perf_tool::run_perf(
            &["report", "--stdio", "-i", file.path().to_str().unwrap()],
            None,
        );
        assert!(
            !report.success() || !report.stderr_findings().is_empty(),
            "{}",
            report.describe()
        );
    }
    // An AUXTRACE needs an AUXTRACE_INFO before it.
    let aux = RecordBuilder::new(integration_tests::Endian::Little, rt::AUXTRACE, 0)
        .u64(0)
        .u64(0)
        .u64(0)
        .u32(0)
        .u32(42)
        .u32(0)
        .u32(0)
        .finish();
    let r = ordered_file_around(|w| {
        aux_refused(w.write_event_data(&aux).unwrap_err(), Some(Need::Info));
        w.write_event_data(&[auxtrace_info(6, &[1]), aux.clone()].concat())
            .unwrap();
        w.write_event_data(&aux).unwrap();
    });
    assert_both_ticks(&r);
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    w.set_strict(false);
    w.write_event_data(&aux).unwrap();
    write_tick(&mut w, 1, 1000);
    perf_fails(w.finish().unwrap().into_inner());
    // An AUXTRACE's own fields: its size, and an idx perf can make a queue for.
    let aux_at = |idx: u32, payload: &[u8]| {
        let mut r = RecordBuilder::new(integration_tests::Endian::Little, rt::AUXTRACE, 0)
            .u64(payload.len() as u64)
            .u64(0)
            .u64(0)
            .u32(idx)
            .u32(42)
            .u32(0)
            .u32(0)
            .finish();
        r.extend_from_slice(payload);
        r
    };
    let hisi = auxtrace_info(6, &[1]);
    let huge = aux_at(0xffff_fff0, &[0; 8]);
    let mut short = aux_at(0, &[]);
    short.truncate(40);
    short[6..8].copy_from_slice(&40u16.to_le_bytes());
    let r = ordered_file_around(|w| {
        w.write_event_data(&hisi).unwrap();
        let refused = |e: WriterError| match e {
            WriterError::Record(RecordError::Refused {
                problem: RecordProblem::Value { field: "idx", .. } | RecordProblem::Size { .. },
                ..
            }) => {}
            other => panic!("{other:?}"),
        };
        refused(w.write_event_data(&huge).unwrap_err());
        refused(w.write_event_data(&short).unwrap_err());
        w.write_event_data(&aux_at(4095, &[0; 8])).unwrap();
    });
    assert_both_ticks(&r);
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    w.add_event_desc(&[10], &pt_attr, "intel_pt//").unwrap();
    w.set_strict(false);
    w.write_event_data(&[pt(0), huge].concat()).unwrap();
    write_tick(&mut w, 1, 1000);
    perf_fails(w.finish().unwrap().into_inner());
    // perf takes the last event named sched:sched_switch as PT's switch event: once a PT
    // record needs it, a later event of that name that is not the tracepoint is refused.
    let sched_switch_tp = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        let format = TICK
            .replace("tick", "sched_switch")
            .replace(&format!("ID: {TICK_ID}"), &format!("ID: {}", TICK_ID + 1));
        let attr = PerfEventAttr {
            options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
            sample_type: tp_attr(0).sample_type.or(S::Cpu),
            ..tp_attr(TICK_ID + 1)
        };
        w.add_tracepoint_event_desc_from_text(&[77], &attr, "sched:sched_switch", "sched", &format)
            .unwrap();
    };
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    sched_switch_tp(&mut w);
    w.write_event_data(&pt(1)).unwrap();
    match w
        .add_event_desc(&[78], &sw_all, "sched:sched_switch")
        .unwrap_err()
    {
        WriterError::Event(EventError::ContradictsRecords { problem, .. }) => {
            assert_eq!(problem, Contradiction::AuxtraceSwitchEvent)
        }
        other => panic!("{other:?}"),
    }
    read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    // s390 CPU-MF needs the first event's sample_id_all in a file too.
    let s390 = auxtrace_info(5, &[]);
    let r = file_around(|w| {
        aux_refused(
            w.write_event_data(&s390).unwrap_err(),
            Some(Need::SampleIdAll),
        );
    });
    assert_both_ticks(&r);
    let mut w = file_writer();
    add_tick(&mut w);
    w.set_strict(false);
    w.write_event_data(&s390).unwrap();
    write_tick(&mut w, 1, 1000);
    perf_fails(w.finish().unwrap().into_inner());
    // Records written with strict mode off may hold a TIME_CONV or an AUXTRACE_INFO.
    let spe = auxtrace_info(4, &[8, 1]);
    let r = ordered_file_around(|w| {
        w.write_event_data(&time_conv(1)).unwrap();
        w.set_strict(false);
        w.write_event_data(&time_conv(0)).unwrap();
        w.set_strict(true);
        aux_refused(w.write_event_data(&spe).unwrap_err(), Some(Need::Unchecked));
        aux_refused(w.write_event_data(&aux).unwrap_err(), Some(Need::Unchecked));
        // A TIME_CONV checked since is known, but context switches without a cpu may be
        // among those records: Arm SPE stays refused. An AUXTRACE_INFO checked since is
        // known.
        let call = [time_conv(1), spe.clone()].concat();
        aux_refused(
            w.write_event_data(&call).unwrap_err(),
            Some(Need::Unchecked),
        );
        w.write_event_data(&[hisi.clone(), aux.clone()].concat())
            .unwrap();
    });
    assert_both_ticks(&r);
    // Arm SPE keeps each cpu's current thread from context switches: one without a cpu
    // (the tick's sample_id has none) is refused after the record, and the record after
    // one.
    let switch = |misc: u16| {
        let mut r = user_record(rt::SWITCH, &[42 | 42 << 32, 1500, TICK_SAMPLE_ID]);
        r[4..6].copy_from_slice(&misc.to_le_bytes());
        r
    };
    let out = 1 << 13;
    let spe = [time_conv(1), auxtrace_info(4, &[8, 1])].concat();
    let r = ordered_pipe_around(|w| {
        w.write_event_data(&spe).unwrap();
        aux_refused(
            w.write_event_data(&switch(out)).unwrap_err(),
            Some(Need::SwitchCpu),
        );
    });
    assert_both_ticks(&r);
    let r = ordered_file_around(|w| {
        w.write_event_data(&switch(out)).unwrap();
        aux_refused(w.write_event_data(&spe).unwrap_err(), Some(Need::SwitchCpu));
    });
    assert_eq!(r.lpd_samples, 2);
    // With CPU in its sample_id, the switch is taken.
    let mut w = file_writer();
    let attr = PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        sample_type: tp_attr(0).sample_type.or(S::Cpu),
        ..tp_attr(TICK_ID)
    };
    w.add_tracepoint_event_desc_from_text(&[TICK_SAMPLE_ID], &attr, "test:tick", "test", TICK)
        .unwrap();
    w.write_event_data(&spe).unwrap();
    let mut with_cpu = user_record(rt::SWITCH, &[42 | 42 << 32, 1500, 3, TICK_SAMPLE_ID]);
    with_cpu[4..6].copy_from_slice(&out.to_le_bytes());
    w.write_event_data(&with_cpu).unwrap();
    read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    // perf's verdict on a switch without a cpu.
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    w.set_strict(false);
    w.write_event_data(&[spe.clone(), switch(out)].concat())
        .unwrap();
    write_tick(&mut w, 1, 1000);
    perf_fails(w.finish().unwrap().into_inner());
    // Intel PT: a per-cpu SWITCH out in a trace of CPU-wide switches (have_sched_switch 3),
    // and a guest's switch in (its current thread is kept by a virtual cpu no record has),
    // with a cpu, are refused after the record, and the record after them.
    let cpu_tick = || {
        let mut w = file_writer();
        w.add_tracepoint_event_desc_from_text(&[TICK_SAMPLE_ID], &attr, "test:tick", "test", TICK)
            .unwrap();
        w
    };
    let with_misc = |misc: u16| {
        let mut r = user_record(rt::SWITCH, &[42 | 42 << 32, 1500, 3, TICK_SAMPLE_ID]);
        r[4..6].copy_from_slice(&misc.to_le_bytes());
        r
    };
    let guest_in = perf_writer_std::perf_encode::abi::misc::GUEST_KERNEL;
    for (info, record) in [(pt(3), with_misc(out)), (pt(0), with_misc(guest_in))] {
        let mut w = cpu_tick();
        w.write_event_data(&info).unwrap();
        aux_refused(
            w.write_event_data(&record).unwrap_err(),
            Some(Need::SwitchKind),
        );
        let mut w = cpu_tick();
        w.write_event_data(&record).unwrap();
        aux_refused(
            w.write_event_data(&info).unwrap_err(),
            Some(Need::SwitchKind),
        );
        read_file(&w.finish().unwrap().into_inner());
        let mut w = cpu_tick();
        w.set_strict(false);
        w.write_event_data(&[info, record].concat()).unwrap();
        perf_fails(w.finish().unwrap().into_inner());
    }
}

/// In a file, a context switch written before its event's description is judged when the
/// description comes: a layout that leaves it no cpu perf can keep a thread by, in an Arm
/// SPE trace, is refused, naming the switch, whether the AUXTRACE_INFO came before that
/// description or after; what its header says (a per-cpu switch out in an Intel PT trace of
/// CPU-wide switches) is judged at its call. perf fails on the refused shape written with
/// strict mode off; the switch with a cpu is taken, and read as when described first.
#[test]
fn context_switches_before_their_description_are_checked_when_it_comes() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::{AuxtraceNeed as Need, Contradiction};
    let out = 1 << 13;
    let switch = |words: &[u64]| {
        let mut r = user_record(rt::SWITCH, words);
        r[4..6].copy_from_slice(&u16::to_le_bytes(out));
        r
    };
    let no_cpu = switch(&[42 | 42 << 32, 1500, TICK_SAMPLE_ID]);
    let on_cpu = |cpu: u64| switch(&[42 | 42 << 32, 1500, cpu, TICK_SAMPLE_ID]);
    let spe = [time_conv(1), auxtrace_info(4, &[8, 1])].concat();
    let with_cpu = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        let attr = PerfEventAttr {
            options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
            sample_type: tp_attr(0).sample_type.or(S::Cpu),
            ..tp_attr(TICK_ID)
        };
        w.add_tracepoint_event_desc_from_text(&[TICK_SAMPLE_ID], &attr, "test:tick", "test", TICK)
    };
    let contradiction = |e: WriterError| match e {
        WriterError::Event(EventError::ContradictsRecords {
            problem,
            records,
            type_,
            ..
        }) => {
            assert_eq!((records, type_), (1, rt::SWITCH));
            problem
        }
        other => panic!("{other:?}"),
    };
    for info_first in [true, false] {
        // No CPU in the sample_id.
        let mut w = file_writer();
        if info_first {
            w.write_event_data(&spe).unwrap();
        }
        w.write_event_data(&no_cpu).unwrap();
        if !info_first {
            w.write_event_data(&spe).unwrap();
        }
        let e = try_add_ordered_tick(&mut w).unwrap_err();
        assert_eq!(contradiction(e), Contradiction::AuxtraceSwitchCpu);
        // A cpu above what perf keeps threads for.
        let mut w = file_writer();
        if info_first {
            w.write_event_data(&spe).unwrap();
        }
        w.write_event_data(&on_cpu(70_000)).unwrap();
        if !info_first {
            w.write_event_data(&spe).unwrap();
        }
        assert_eq!(
            contradiction(with_cpu(&mut w).unwrap_err()),
            Contradiction::AuxtraceSwitchCpu
        );
        // A cpu perf keeps a thread for: taken, and the same file as described first.
        let mut w = file_writer();
        if info_first {
            w.write_event_data(&spe).unwrap();
        }
        w.write_event_data(&on_cpu(3)).unwrap();
        if !info_first {
            w.write_event_data(&spe).unwrap();
        }
        with_cpu(&mut w).unwrap();
        let first = w.finish().unwrap().into_inner();
        let mut w = file_writer();
        with_cpu(&mut w).unwrap();
        let records = match info_first {
            true => [spe.clone(), on_cpu(3)].concat(),
            false => [on_cpu(3), spe.clone()].concat(),
        };
        w.write_event_data(&records).unwrap();
        let described = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
        let r = read_file_noting(&first, DECODER_NOTICES);
        assert_eq!(r.lpd_names, [Some("test:tick".to_string())]);
        assert_eq!(
            (r.lpd_names, r.script),
            (described.lpd_names, described.script)
        );
    }
    // Described, then the AUXTRACE_INFO: refused at its call.
    let mut w = file_writer();
    w.write_event_data(&on_cpu(70_000)).unwrap();
    with_cpu(&mut w).unwrap();
    aux_refused(w.write_event_data(&spe).unwrap_err(), Some(Need::SwitchCpu));
    // perf's verdict on the switch without a cpu written first.
    if require_perf() {
        let mut w = file_writer();
        w.set_strict(false);
        w.write_event_data(&[no_cpu.clone(), spe.clone()].concat())
            .unwrap();
        add_ordered_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
    // Intel PT of CPU-wide switches: a per-cpu switch out is refused at its call, before
    // any description, after the AUXTRACE_INFO; and the AUXTRACE_INFO after it.
    let mut pt = vec![
        8,
        31,
        858_993_459,
        0x0fff_e123_4567,
        1,
        0x400,
        0x800,
        3,
        0,
        1,
    ];
    pt.truncate(10);
    let pt = auxtrace_info(1, &pt);
    let mut w = file_writer();
    w.write_event_data(&pt).unwrap();
    aux_refused(
        w.write_event_data(&on_cpu(3)).unwrap_err(),
        Some(Need::SwitchKind),
    );
    let mut w = file_writer();
    w.write_event_data(&on_cpu(3)).unwrap();
    aux_refused(w.write_event_data(&pt).unwrap_err(), Some(Need::SwitchKind));
}

/// perf's trace decoders keep a cpu's current thread from some context switches only:
/// Intel PT from a host's switch in (and out, when its switches were recorded CPU-wide),
/// Arm SPE from a switch out. Those need a cpu (refused without one, and perf fails on
/// them); the others are taken without one, in either order, and perf reads the file.
#[test]
fn only_the_context_switches_a_decoder_reads_need_a_cpu() {
    use perf_writer_std::perf_encode::abi::{misc, record_type as rt};
    use perf_writer_std::AuxtraceNeed as Need;
    let pt = |have_sched_switch: u64| {
        let words = [8, 31, 858_993_459, 0x0fff_e123_4567, 1, 0x400, 0x800];
        auxtrace_info(1, &[&words[..], &[have_sched_switch, 0, 1]].concat())
    };
    let spe = [time_conv(1), auxtrace_info(4, &[8, 1])].concat();
    let out = misc::SWITCH_OUT;
    // No cpu in the tick's sample_id: TID, TIME and IDENTIFIER.
    let switch = |type_: u32, misc: u16| {
        let body: &[u64] = match type_ {
            rt::SWITCH_CPU_WIDE => &[43 | 43 << 32, 42 | 42 << 32, 1500, TICK_SAMPLE_ID],
            _ => &[42 | 42 << 32, 1500, TICK_SAMPLE_ID],
        };
        let mut r = user_record(type_, body);
        r[4..6].copy_from_slice(&misc.to_le_bytes());
        r
    };
    let guest = misc::GUEST_KERNEL;
    let taken = [
        ("PT, a switch out", pt(0), switch(rt::SWITCH, out)),
        (
            "PT, a guest's switch out",
            pt(0),
            switch(rt::SWITCH, guest | out),
        ),
        (
            "PT of CPU-wide switches, a guest's per-cpu switch out",
            pt(3),
            switch(rt::SWITCH, guest | out),
        ),
        ("SPE, a switch in", spe.clone(), switch(rt::SWITCH, 0)),
        (
            "SPE, a guest's switch in",
            spe.clone(),
            switch(rt::SWITCH_CPU_WIDE, guest),
        ),
    ];
    for (what, info, record) in taken {
        for info_first in [true, false] {
            let r = ordered_file_around(|w| {
                let (a, b) = match info_first {
                    true => (&info, &record),
                    false => (&record, &info),
                };
                w.write_event_data(a)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                w.write_event_data(b)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            });
            assert_both_ticks(&r);
        }
    }
    let refused = [
        ("PT, a switch in", pt(0), switch(rt::SWITCH, 0)),
        (
            "PT of CPU-wide switches, a switch in",
            pt(3),
            switch(rt::SWITCH_CPU_WIDE, 0),
        ),
        (
            "PT of CPU-wide switches, a switch out",
            pt(3),
            switch(rt::SWITCH_CPU_WIDE, out),
        ),
        (
            "SPE, a switch out",
            spe.clone(),
            switch(rt::SWITCH_CPU_WIDE, out),
        ),
        (
            "SPE, a guest's switch out",
            spe.clone(),
            switch(rt::SWITCH, guest | out),
        ),
    ];
    for (what, info, record) in refused {
        let [r, reversed] = refused_after_either(&info, &record, Need::SwitchCpu);
        assert_both_ticks(&r);
        assert_eq!(reversed.lpd_samples, 2, "{what}");
        if require_perf() {
            let mut w = file_writer();
            add_ordered_tick(&mut w);
            write_tick(&mut w, 1, 1000);
            w.set_strict(false);
            w.write_event_data(&[&info[..], &record].concat()).unwrap();
            write_tick(&mut w, 2, 2000);
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            assert!(!perf_script(file.path(), &[]).success(), "{what}");
        }
        // Records written with strict mode off may hold the AUXTRACE_INFO: such a switch
        // after them is refused; one with a cpu is taken.
        let r = ordered_file_around(|w| {
            w.set_strict(false);
            w.write_event_data(&info).unwrap();
            w.set_strict(true);
            aux_refused(
                w.write_event_data(&record).unwrap_err(),
                Some(Need::Unchecked),
            );
        });
        assert_eq!(r.lpd_samples, 2, "{what}");
    }
}

/// A caller's TRACING_DATA is read as perf 6.1 reads it (strict mode): a blob cut short, or
/// with a format text perf cannot read, is refused by `set_header`, and perf fails on the
/// same bytes taken with strict mode off; in pipe mode bytes after what perf reads are
/// refused too. A whole blob is taken, and perf decodes the tick by it; its formats check
/// the ticks' RAW payloads, before it (records first) and after it.
#[test]
fn a_callers_tracing_data_is_read_as_perf_reads_it() {
    use perf_writer_std::perf_encode::features::{FormatText, TracepointFormat, TracingData};
    use perf_writer_std::perf_encode::{to_vec, Endian};
    let blob = |format: &str| tracing_data_of(format, Endian::Little);
    let good = blob(TICK);
    let cut = good[..good.len() - 5].to_vec();
    let broken = blob(&TICK.replace("offset:8;", "offset:99999999999;"));
    let tracing = PerfHeaderIndex(1);
    let with_blob = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>, b: &[u8]| {
        w.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
            .unwrap();
        w.set_header(tracing, b)
    };
    for bad in [&cut, &broken] {
        let mut w = file_writer();
        let e = with_blob(&mut w, bad).unwrap_err();
        assert!(
            matches!(
                e,
                WriterError::Tracing(TracingError::BadTracingData(_) | TracingError::FormatText(_))
            ),
            "{e}"
        );
        if require_perf() {
            let mut w = file_writer();
            w.set_strict(false);
            with_blob(&mut w, bad).unwrap();
            write_tick(&mut w, 1, 1000);
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            assert!(!perf_script(file.path(), &[]).success());
        }
    }
    let mut w = file_writer();
    with_blob(&mut w, &good).unwrap();
    write_tick(&mut w, 1, 1000);
    write_tick(&mut w, 2, 2000);
    assert_both_ticks(&read_file(&w.finish().unwrap().into_inner()));
    // Its formats check the RAW payloads: a tick whose common_type is not its format's is
    // refused, at its call, or (written before the TRACING_DATA) by set_header, naming it.
    let mut bad_tick = tick_raw(&file_writer(), 99, 3);
    let sample = |raw: &[u8]| {
        let s = tick_sample(raw, 1500);
        let layout = perf_writer_std::perf_encode::records::SampleLayout {
            sample_type: tp_attr(TICK_ID).sample_type.0,
            ..Default::default()
        };
        perf_writer_std::perf_encode::to_vec(
            &perf_writer_std::perf_encode::records::SampleRecord {
                layout: &layout,
                misc: perf_writer_std::perf_encode::abi::misc::USER,
                sample: &s,
            },
            Endian::Little,
        )
        .unwrap()
    };
    let mut w = file_writer();
    with_blob(&mut w, &good).unwrap();
    write_tick(&mut w, 1, 1000);
    assert!(w.write_event_data(&sample(&bad_tick)).is_err());
    write_tick(&mut w, 2, 2000);
    assert_both_ticks(&read_file(&w.finish().unwrap().into_inner()));
    let mut w = file_writer();
    w.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
        .unwrap();
    w.write_event_data(&sample(&bad_tick)).unwrap();
    match w.set_header(tracing, &good).unwrap_err() {
        WriterError::Event(EventError::ContradictsRecords { records, .. }) => {
            assert_eq!(records, 1)
        }
        other => panic!("{other:?}"),
    }
    bad_tick[..2].copy_from_slice(&(TICK_ID as u16).to_le_bytes());
    let mut w = file_writer();
    w.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
        .unwrap();
    w.write_event_data(&sample(&bad_tick)).unwrap();
    w.set_header(tracing, &good).unwrap();
    assert_eq!(read_file(&w.finish().unwrap().into_inner()).lpd_samples, 1);
    // Every tracepoint event needs its format there: perf refuses the file (and crashes
    // on a pipe stream) otherwise. Refused by set_header, or by the description after it.
    let other = blob(&TICK.replace("ID: 7", "ID: 8"));
    let missing = WriterError::Event(EventError::MissingTracepointFormat { config: TICK_ID });
    let mut w = file_writer();
    assert_eq!(with_blob(&mut w, &other).unwrap_err(), missing);
    let mut w = file_writer();
    w.set_header(tracing, &other).unwrap();
    let e = w
        .add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
        .unwrap_err();
    assert_eq!(e, missing);
    if require_perf() {
        let mut w = file_writer();
        w.set_strict(false);
        with_blob(&mut w, &other).unwrap();
        write_tick(&mut w, 1, 1000);
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
    // In pipe mode perf skips kallsyms by seeking, which a pipe does not do.
    let with_kallsyms = {
        let events = [TracepointFormat {
            system: "test",
            format: FormatText::Text(TICK.as_bytes()),
        }];
        let td = TracingData {
            events: &events,
            kallsyms: b"ffffffff81000000 T _stext\n",
            ..TracingData::new(8, 4096)
        };
        to_vec(&td, Endian::Little).unwrap()
    };
    let mut p = pipe_writer();
    p.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
        .unwrap();
    assert!(matches!(
        p.set_header(tracing, &with_kallsyms).unwrap_err(),
        WriterError::Tracing(TracingError::BadTracingData(_))
    ));
    if require_perf() {
        let mut p = pipe_writer();
        p.set_strict(false);
        p.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
            .unwrap();
        p.set_header(tracing, &with_kallsyms).unwrap();
        write_tick(&mut p, 1, 1000);
        assert!(!perf_script_stdin(&p.finish().unwrap()).success());
    }
    let mut p = pipe_writer();
    p.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
        .unwrap();
    let trailing = [&good[..], &[0u8; 8]].concat();
    assert!(matches!(
        p.set_header(tracing, &trailing).unwrap_err(),
        WriterError::Tracing(TracingError::BadTracingData(_))
    ));
}

/// perf reads RAW payloads in the byte order of the TRACING_DATA holding their format. A
/// caller's may keep a recording's order in a file of the other (a converted file does), and
/// strict mode checks RAW in its order: a payload in the output's order is refused, at its
/// call or, written before the TRACING_DATA, by `set_header`; one in the blob's is shown.
#[test]
fn raw_payloads_are_checked_in_the_byte_order_of_a_callers_tracing_data() {
    use perf_writer_std::perf_encode::{to_vec, Endian};
    let text = TICK
        .replace(
            "int value;\toffset:8;\tsize:4;\tsigned:1;",
            "__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;",
        )
        .replace("\"value=%d\", REC->value", "\"s=%s\", __get_str(s)");
    let big = tracing_data_of(&text, Endian::Big);
    // "hi" at 12, 3 bytes with its NUL, in `order`.
    let raw = |order: Endian| {
        let mut raw = vec![0u8; 16];
        raw[..2].copy_from_slice(&order.u16_bytes(TICK_ID as u16));
        raw[4..8].copy_from_slice(&order.u32_bytes(42));
        raw[8..12].copy_from_slice(&order.u32_bytes(3 << 16 | 12));
        raw[12..16].copy_from_slice(b"hi\0\0");
        raw
    };
    let tracing = PerfHeaderIndex(1);
    // As bytes: a record may come before its description.
    let write = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>, raw: &[u8], time| {
        let layout = perf_writer_std::perf_encode::records::SampleLayout {
            sample_type: tp_attr(TICK_ID).sample_type.0,
            ..Default::default()
        };
        let record = to_vec(
            &perf_writer_std::perf_encode::records::SampleRecord {
                layout: &layout,
                misc: perf_writer_std::perf_encode::abi::misc::USER,
                sample: &tick_sample(raw, time),
            },
            Endian::Little,
        )
        .unwrap();
        w.write_event_data(&record)
    };
    let describe = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        w.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:str")
            .unwrap()
    };
    let shown = |bytes: Vec<u8>| {
        let r = read_file(&bytes);
        assert_eq!(r.lpd_samples, 1);
        if let Some(script) = &r.script {
            assert_eq!(script.len(), 1, "{script:?}");
            assert!(script[0].contains("s=hi"), "{script:?}");
        }
    };
    let (own, other) = (Endian::Little, Endian::Big);
    // The TRACING_DATA first: the payload in the output's order is refused at its call.
    let mut w = file_writer();
    assert_eq!(w.endian(), own);
    describe(&mut w);
    w.set_header(tracing, &big).unwrap();
    assert_eq!(w.raw_endian(), other);
    let e = write(&mut w, &raw(own), 1000).unwrap_err();
    assert!(
        matches!(
            e,
            WriterError::Record(perf_writer_std::RecordError::Refused {
                problem: perf_writer_std::RecordProblem::TracepointRaw(_),
                ..
            })
        ),
        "{e:?}"
    );
    write(&mut w, &raw(other), 2000).unwrap();
    shown(w.finish().unwrap().into_inner());
    // The records first: set_header refuses the TRACING_DATA, naming the record.
    for first_desc in [true, false] {
        let mut w = file_writer();
        if first_desc {
            describe(&mut w);
        }
        write(&mut w, &raw(own), 1000).unwrap();
        if !first_desc {
            describe(&mut w);
        }
        match w.set_header(tracing, &big).unwrap_err() {
            WriterError::Event(EventError::ContradictsRecords { records, .. }) => {
                assert_eq!(records, 1)
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(w.raw_endian(), own);
        let mut w = file_writer();
        if first_desc {
            describe(&mut w);
        }
        write(&mut w, &raw(other), 1000).unwrap();
        if !first_desc {
            describe(&mut w);
        }
        w.set_header(tracing, &big).unwrap();
        shown(w.finish().unwrap().into_inner());
    }
    // What strict mode refuses, perf misreads: written with it off, perf 6.1 reads the
    // string's place in the other order, far past the record, and dies.
    if require_perf() {
        let mut w = file_writer();
        w.set_strict(false);
        describe(&mut w);
        w.set_header(tracing, &big).unwrap();
        write(&mut w, &raw(own), 1000).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &[]);
        assert!(!out.success(), "{}", out.stdout);
    }
}

/// perf's Intel PT decoder takes an AUX_OUTPUT_HW_ID record into the AUXTRACE queue of its
/// sample id and fails unless that queue holds trace data, which strict mode does not
/// follow: such a record is refused in an Intel PT trace, in either order (conservative),
/// and taken in an Arm SPE trace; perf's verdict on the PT one is checked.
#[test]
fn an_aux_output_hw_id_in_an_intel_pt_trace_is_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::AuxtraceNeed as Need;
    let words = [
        8,
        31,
        858_993_459,
        0x0fff_e123_4567,
        1,
        0x400,
        0x800,
        0,
        0,
        1,
    ];
    let pt = auxtrace_info(1, &words);
    let spe = [time_conv(1), auxtrace_info(4, &[8, 1])].concat();
    let hw_id = user_record(
        rt::AUX_OUTPUT_HW_ID,
        &[0, 42 | 42 << 32, 1500, TICK_SAMPLE_ID],
    );
    let [r, reversed] = refused_after_either(&pt, &hw_id, Need::AuxOutputHwId);
    assert_both_ticks(&r);
    assert_eq!(reversed.lpd_samples, 2);
    let r = ordered_file_around(|w| {
        w.write_event_data(&[spe, hw_id.clone()].concat()).unwrap();
    });
    assert_both_ticks(&r);
    if require_perf() {
        let mut w = file_writer();
        add_ordered_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        w.set_strict(false);
        w.write_event_data(&[pt, hw_id].concat()).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
}

/// perf 6.1 swaps a big-endian SWITCH record's `sample_id` from 8 bytes too far on, so its
/// first field stays unswapped: with the event id first, perf finds no event and fails.
/// Strict mode refuses a big-endian SWITCH with a `sample_id`, in file and pipe mode, before
/// and after its description; SWITCH_CPU_WIDE is taken and read.
#[test]
fn a_big_endian_switch_with_a_sample_id_is_refused() {
    use perf_writer_std::perf_encode::abi::{misc, record_type as rt};
    use perf_writer_std::perf_encode::Endian;
    use perf_writer_std::{RecordError, RecordProblem};
    let attr = |config: u64| PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        sample_type: S::Id.or(S::Cpu).or(S::Raw),
        ..tp_attr(config)
    };
    let be_record = |type_: u32, misc: u16, words: &[u64]| {
        let mut r = vec![0u8; 8];
        r[..4].copy_from_slice(&type_.to_be_bytes());
        r[4..6].copy_from_slice(&misc.to_be_bytes());
        for w in words {
            r.extend_from_slice(&w.to_be_bytes());
        }
        let len = r.len() as u16;
        r[6..8].copy_from_slice(&len.to_be_bytes());
        r
    };
    // sample_id: ID 2, CPU (cpu 3, res 0).
    let switch = be_record(rt::SWITCH, misc::SWITCH_OUT, &[2, 3 << 32]);
    let wide = be_record(
        rt::SWITCH_CPU_WIDE,
        misc::SWITCH_OUT,
        &[43 << 32 | 43, 2, 3 << 32],
    );
    let two_events = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        let plain = TICK.replace("ID: 7", "ID: 8").replace("tick", "tock");
        w.add_tracepoint_event_desc_from_text(&[1], &attr(TICK_ID), "test:tick", "test", TICK)
            .unwrap();
        w.add_tracepoint_event_desc_from_text(&[2], &attr(8), "test:tock", "test", &plain)
            .unwrap();
    };
    let refused = |e: WriterError| match e {
        WriterError::Record(RecordError::Refused { problem, .. }) => {
            assert_eq!(problem, RecordProblem::UnswappedSwitchSampleId)
        }
        other => panic!("{other:?}"),
    };
    let be_file = || {
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), Endian::Big)
            .unwrap()
    };
    // Described first, and before any description.
    let mut w = be_file();
    two_events(&mut w);
    refused(w.write_event_data(&switch).unwrap_err());
    w.write_event_data(&wide).unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_names.len(), 2);
    let mut w = be_file();
    refused(w.write_event_data(&switch).unwrap_err());
    // In pipe mode too.
    let mut p = PerfPipeWriter::from_writer_with_endian(Vec::new(), Endian::Big).unwrap();
    let sw = PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        sample_type: S::Id.or(S::Cpu),
        ..sw_attr()
    };
    p.add_event_desc(&[2], &sw, "sw").unwrap();
    refused(p.write_event_data(&switch).unwrap_err());
    // perf's verdict, strict mode off.
    if require_perf() {
        let mut w = be_file();
        two_events(&mut w);
        w.set_strict(false);
        w.write_event_data(&switch).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
}

/// A kernel record of `type_` in byte order `e`: `body`, then the ordered tick's
/// `sample_id` (TID 42/42, TIME 1500, IDENTIFIER 1).
fn ordered_side_band(e: perf_writer_std::perf_encode::Endian, type_: u32, body: &[u8]) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(&e.u32_bytes(type_));
    r.extend_from_slice(&e.u16_bytes(0));
    r.extend_from_slice(&e.u16_bytes(8 + body.len() as u16 + 24));
    r.extend_from_slice(body);
    r.extend_from_slice(&e.u32_bytes(42));
    r.extend_from_slice(&e.u32_bytes(42));
    r.extend_from_slice(&e.u64_bytes(1500));
    r.extend_from_slice(&e.u64_bytes(TICK_SAMPLE_ID));
    r
}

/// perf 6.1 swaps nothing of a KSYMBOL or BPF_EVENT record, and 48 bytes of every READ,
/// when it reads a big-endian file on a little-endian machine: it shows the first two wrong
/// and sorts them by their unswapped time, and after a READ shorter than 48 bytes it swaps
/// the next record's header and stops. Strict mode refuses the three in a big-endian output:
/// whole or by their header alone, before any description or after the event's side-band
/// records were learned, in file and pipe mode, the writer left usable. A little-endian
/// output takes them, and perf shows them; a big-endian READ of 48 bytes is taken and read.
/// perf's verdicts on the big-endian bytes written with strict mode off are checked.
#[test]
fn a_big_endian_ksymbol_bpf_event_or_short_read_is_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::Endian;
    use perf_writer_std::{RecordError, RecordProblem};
    let record = ordered_side_band;
    let ksymbol = |e: Endian| {
        let mut b = e.u64_bytes(0xffff_0000_1234_5678).to_vec();
        b.extend_from_slice(&e.u32_bytes(0x100));
        b.extend_from_slice(&e.u16_bytes(1));
        b.extend_from_slice(&e.u16_bytes(0));
        b.extend_from_slice(b"bpf_prog_x\0\0\0\0\0\0");
        record(e, rt::KSYMBOL, &b)
    };
    let bpf_event = |e: Endian| {
        let mut b = e.u16_bytes(1).to_vec();
        b.extend_from_slice(&e.u16_bytes(0));
        b.extend_from_slice(&e.u32_bytes(77));
        b.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        record(e, rt::BPF_EVENT, &b)
    };
    // pid, tid, value 999; with the trailer 48 bytes, or 40 with the trailer's TID cut.
    let read = |e: Endian, short: bool| {
        let mut b = e.u32_bytes(42).to_vec();
        b.extend_from_slice(&e.u32_bytes(42));
        b.extend_from_slice(&e.u64_bytes(999));
        let mut r = record(e, rt::READ, &b);
        if short {
            r.drain(24..32);
            r[6..8].copy_from_slice(&e.u16_bytes(40));
        }
        r
    };
    let comm = |e: Endian| {
        let mut b = e.u32_bytes(42).to_vec();
        b.extend_from_slice(&e.u32_bytes(42));
        b.extend_from_slice(b"tick\0\0\0\0");
        record(e, rt::COMM, &b)
    };
    let writer = |e: Endian| {
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e).unwrap()
    };
    let refused = |e: WriterError, want: RecordProblem| match e {
        WriterError::Record(RecordError::Refused { problem, .. }) => assert_eq!(problem, want),
        other => panic!("{other:?}"),
    };
    let big = Endian::Big;
    let bad = [
        (ksymbol(big), RecordProblem::UnswappedRecord),
        (bpf_event(big), RecordProblem::UnswappedRecord),
        (read(big, true), RecordProblem::ReadSwappedPastEnd),
    ];
    for (bytes, problem) in &bad {
        // Described, after a learned COMM, whole and by its header alone; the ticks around
        // the refusals are read.
        let mut w = writer(big);
        add_ordered_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        w.write_event_data(&comm(big)).unwrap();
        w.write_event_data(&comm(big)).unwrap();
        refused(w.write_event_data(bytes).unwrap_err(), *problem);
        refused(w.write_event_data(&bytes[..8]).unwrap_err(), *problem);
        w.write_event_data(&read(big, false)).unwrap();
        write_tick(&mut w, 2, 2000);
        let file_bytes = w.finish().unwrap().into_inner();
        assert_both_ticks(&read_file(&file_bytes));
        if require_perf() {
            let file = temp_data_file(&file_bytes);
            let out = perf_script(file.path(), &["-D"]);
            assert!(
                out.stdout.contains("PERF_RECORD_READ: 42 42 test:tick 999"),
                "{}",
                out.stdout
            );
        }
        // Before any description, and in pipe mode.
        refused(writer(big).write_event_data(bytes).unwrap_err(), *problem);
        let mut p = PerfPipeWriter::from_writer_with_endian(Vec::new(), big).unwrap();
        p.add_event_desc(&[1], &sw_attr(), "sw").unwrap();
        refused(p.write_event_data(bytes).unwrap_err(), *problem);
    }
    // Little-endian: taken and shown.
    let mut w = writer(Endian::Little);
    add_ordered_tick(&mut w);
    let little = [
        ksymbol(Endian::Little),
        bpf_event(Endian::Little),
        read(Endian::Little, false),
    ];
    for r in &little {
        w.write_event_data(r).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    assert!(read_file(&bytes).lpd_names.len() == 1);
    if require_perf() {
        let file = temp_data_file(&bytes);
        let out = perf_script(file.path(), &["-D"]);
        for shown in [
            "PERF_RECORD_KSYMBOL addr ffff000012345678 len 256 type 1 flags 0x0 name bpf_prog_x",
            "PERF_RECORD_BPF_EVENT type 1, flags 0, id 77",
            "PERF_RECORD_READ: 42 42 test:tick 999",
        ] {
            assert!(out.stdout.contains(shown), "{shown}\n{}", out.stdout);
        }
        // Big-endian, strict mode off: the first two misread, and perf stops after the READ.
        let mut w = writer(big);
        w.set_strict(false);
        add_ordered_tick(&mut w);
        w.write_event_data(&[ksymbol(big), bpf_event(big)].concat())
            .unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &["-D"]);
        assert!(
            out.stdout
                .contains("PERF_RECORD_KSYMBOL addr 785634120000ffff")
                && out
                    .stdout
                    .contains("PERF_RECORD_BPF_EVENT type 256, flags 0, id 1291845632"),
            "{}",
            out.stdout
        );
        let mut w = writer(big);
        w.set_strict(false);
        add_ordered_tick(&mut w);
        w.write_event_data(&read(big, true)).unwrap();
        write_tick(&mut w, 1, 2000);
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &[]);
        assert!(!out.stdout.contains("value=1"), "{}", out.describe());
    }
}

/// perf 6.1 reads as many bytes as a NAMESPACES record's `nr_namespaces` or a TEXT_POKE's
/// `old_len + new_len` say, past the record when they run past it (SIGBUS on large ones,
/// in either byte order), and in a big-endian file swaps the trailer from where they end
/// (the records after it lost, or the record sorted by a wrong time). Strict mode holds
/// both to the length their counts give, as the kernel writes them: refused at the call,
/// also after the event's side-band records were learned, and when written before the
/// description at the call if the counts run past the record, else at the description;
/// the exact ones are taken and shown by perf in both byte orders.
#[test]
fn a_namespaces_or_text_poke_whose_counts_run_past_it_is_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::Endian;
    use perf_writer_std::{RecordError, RecordProblem};
    // pid and tid 42, `nr` as the count, `entries` (dev, ino) pairs.
    let namespaces = |e: Endian, nr: u64, entries: u64| {
        let mut b = e.u32_bytes(42).to_vec();
        b.extend_from_slice(&e.u32_bytes(42));
        b.extend_from_slice(&e.u64_bytes(nr));
        for i in 0..entries {
            b.extend_from_slice(&e.u64_bytes(4));
            b.extend_from_slice(&e.u64_bytes(0xf000_0000 + i));
        }
        ordered_side_band(e, rt::NAMESPACES, &b)
    };
    // Its lengths as given, `room` bytes after them.
    let text_poke = |e: Endian, old: u16, new: u16, room: usize| {
        let mut b = e.u64_bytes(0xffff_ffff_8100_0000).to_vec();
        b.extend_from_slice(&e.u16_bytes(old));
        b.extend_from_slice(&e.u16_bytes(new));
        b.extend((0..room).map(|i| i as u8 + 1));
        ordered_side_band(e, rt::TEXT_POKE, &b)
    };
    let writer = |e: Endian| {
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e).unwrap()
    };
    let size_refused = |e: WriterError| {
        assert!(
            matches!(
                e,
                WriterError::Record(RecordError::Refused {
                    problem: RecordProblem::Size { exact: true, .. },
                    ..
                })
            ),
            "{e:?}"
        )
    };
    for e in [Endian::Little, Endian::Big] {
        let good = [namespaces(e, 7, 7), text_poke(e, 3, 3, 12)];
        // Each with whether its counts give a body longer than it (no trailer can fit).
        let bad = [
            (namespaces(e, 9, 7), true),
            (namespaces(e, 100_000_000, 7), true),
            (namespaces(e, 5, 7), false),
            (text_poke(e, 20, 20, 4), true),
            (text_poke(e, 0xffff, 0xffff, 4), true),
            (text_poke(e, 3, 3, 20), false),
        ];
        for (bad, longer) in &bad {
            // Described, after the good ones were learned; the ticks around it are read.
            let mut w = writer(e);
            add_ordered_tick(&mut w);
            write_tick(&mut w, 1, 1000);
            for r in good.iter().chain(&good) {
                w.write_event_data(r).unwrap();
            }
            size_refused(w.write_event_data(bad).unwrap_err());
            write_tick(&mut w, 2, 2000);
            let bytes = w.finish().unwrap().into_inner();
            assert_both_ticks(&read_file(&bytes));
            if require_perf() {
                let file = temp_data_file(&bytes);
                let out = perf_script(
                    file.path(),
                    &["--show-namespace-events", "--show-text-poke-events"],
                );
                for shown in [
                    "PERF_RECORD_NAMESPACES 42/42 - nr_namespaces: 7",
                    "PERF_RECORD_TEXT_POKE ffffffff81000000  old len 3 new len 3",
                ] {
                    assert_eq!(
                        out.stdout.matches(shown).count(),
                        2,
                        "{e:?}\n{}",
                        out.stdout
                    );
                }
            }
            // Written before the description: refused at the call when its counts run past
            // it; otherwise the description is refused.
            let mut w = writer(e);
            if *longer {
                size_refused(w.write_event_data(bad).unwrap_err());
                try_add_ordered_tick(&mut w).unwrap();
                continue;
            }
            ordered_tick_contradicts(&mut w, bad);
        }
    }
    // perf's verdicts with strict mode off: a large count kills it in either byte order,
    // and a count two entries long loses the big-endian file's records after it.
    if require_perf() {
        for (e, r) in [
            (Endian::Little, namespaces(Endian::Little, 100_000_000, 7)),
            (Endian::Big, namespaces(Endian::Big, 100_000_000, 7)),
            (Endian::Little, text_poke(Endian::Little, 0xffff, 0xffff, 4)),
            (Endian::Big, namespaces(Endian::Big, 9, 7)),
        ] {
            let mut w = writer(e);
            w.set_strict(false);
            add_ordered_tick(&mut w);
            write_tick(&mut w, 1, 1000);
            w.write_event_data(&r).unwrap();
            write_tick(&mut w, 2, 2000);
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            let out = perf_script(
                file.path(),
                &["-D", "--show-namespace-events", "--show-text-poke-events"],
            );
            assert!(
                !out.success() && !out.stdout.contains("value=2"),
                "{e:?}\n{}",
                out.describe()
            );
        }
    }
}

/// A little-endian record of `type_` with `misc` and `body` (no trailer).
fn record_of(type_: u32, misc: u16, body: &[u8]) -> Vec<u8> {
    let mut r = type_.to_le_bytes().to_vec();
    r.extend_from_slice(&misc.to_le_bytes());
    r.extend_from_slice(&(8 + body.len() as u16).to_le_bytes());
    r.extend_from_slice(body);
    r
}

/// perf 6.1 reads some fields by what other fields say, whatever the record's size: an
/// MMAP2's or HEADER_BUILD_ID's build id size (it copies that many bytes into 20: stack
/// smashing past 20), an AUXTRACE_ERROR's kind's name by its `type` (read as an `int`) and
/// its `time` and `machine_pid`/`vcpu` by its `fmt`, TIME_CONV's `time_mask` and caps once
/// it holds more than `time_zero`, a READ's first value, and texts to their NUL (an
/// AUXTRACE_ERROR's message, an EVENT_UPDATE's name or unit, a HEADER_BUILD_ID's filename).
/// Strict mode refuses each that would make perf read past the record (or before its table
/// of error kinds), at the call, the writer left usable; the shapes perf and the kernel
/// write are taken and shown by perf. perf's verdicts on three refused ones, written with
/// strict mode off, are checked.
#[test]
fn fields_perf_reads_whatever_the_size_stay_within_the_record() {
    use perf_writer_std::perf_encode::abi::{misc, record_type as rt};
    use perf_writer_std::perf_encode::Endian;
    use perf_writer_std::RecordProblem as P;
    let le = Endian::Little;
    // MMAP2 of /usr/bin/bad carrying a build id of `size` bytes (0xcd).
    let mmap2 = |size: u8| {
        let mut b = Vec::new();
        b.extend_from_slice(&le.u32_bytes(42));
        b.extend_from_slice(&le.u32_bytes(42));
        for word in [0x40_0000u64, 0x1000, 0] {
            b.extend_from_slice(&le.u64_bytes(word));
        }
        b.extend_from_slice(&[size, 0, 0, 0]);
        b.extend_from_slice(&[0xcd; 20]);
        b.extend_from_slice(&le.u32_bytes(5));
        b.extend_from_slice(&le.u32_bytes(2));
        b.extend_from_slice(b"/usr/bin/bad\0\0\0\0");
        let mut r = ordered_side_band(le, rt::MMAP2, &b);
        r[4..6].copy_from_slice(&(misc::USER | misc::MMAP_BUILD_ID).to_le_bytes());
        r
    };
    // HEADER_BUILD_ID of pid -1, a build id of `size` bytes (0xee), `filename` in 64 bytes.
    let build_id = |size: u8, filename: &[u8]| {
        let mut b = (-1i32).to_le_bytes().to_vec();
        b.extend_from_slice(&[0xee; 20]);
        b.extend_from_slice(&[size, 0, 0, 0]);
        let mut name = [0u8; 64];
        name[..filename.len()].copy_from_slice(filename);
        b.extend_from_slice(&name);
        record_of(rt::HEADER_BUILD_ID, misc::USER | misc::BUILD_ID_SIZE, &b)
    };
    // AUXTRACE_ERROR of `fmt` with `msg` in its 64 bytes, cut to `len` bytes.
    let auxtrace_error = |fmt: u32, msg: &[u8], len: usize| {
        let mut b = Vec::new();
        for word in [1, 7, 0, 42, 42, fmt] {
            b.extend_from_slice(&le.u32_bytes(word));
        }
        b.extend_from_slice(&le.u64_bytes(0xdead));
        b.extend_from_slice(&le.u64_bytes(1_500_000_123));
        let mut text = [0u8; 64];
        text[..msg.len()].copy_from_slice(msg);
        b.extend_from_slice(&text);
        b.extend_from_slice(&le.u32_bytes(77));
        b.extend_from_slice(&le.u32_bytes(3));
        b.truncate(len - 8);
        record_of(rt::AUXTRACE_ERROR, 0, &b)
    };
    // An AUXTRACE_ERROR whose `type` perf reads as a negative `int`.
    let negative_type = || {
        let mut r = auxtrace_error(1, b"bad trace", 64);
        r[8..12].copy_from_slice(&le.u32_bytes(1 << 31));
        r
    };
    // TIME_CONV of `words` u64s (shift, mult, zero, cycles, mask, caps).
    let time_conv = |words: usize| {
        let all = [10u64, 1 << 20, 1000, 5, u64::MAX, 0x0101];
        user_record(rt::TIME_CONV, &all[..words])
    };
    // EVENT_UPDATE of `kind` with `text` (8 bytes).
    let update = |kind: u64, text: &[u8; 8]| {
        user_record(
            rt::EVENT_UPDATE,
            &[kind, TICK_SAMPLE_ID, u64::from_le_bytes(*text)],
        )
    };
    // READ of pid and tid 42, and `values` u64s.
    let read = |values: &[u64]| {
        let mut b = le.u32_bytes(42).to_vec();
        b.extend_from_slice(&le.u32_bytes(42));
        for v in values {
            b.extend_from_slice(&le.u64_bytes(*v));
        }
        ordered_side_band(le, rt::READ, &b)
    };
    let refused = [
        (
            "build id of 21",
            mmap2(21),
            P::Value {
                field: "build_id size",
                value: 21,
            },
        ),
        (
            "build id of 255",
            mmap2(255),
            P::Value {
                field: "build_id size",
                value: 255,
            },
        ),
        (
            "HEADER_BUILD_ID of 40",
            build_id(40, b"/usr/lib/bad.so"),
            P::Value {
                field: "build_id size",
                value: 40,
            },
        ),
        (
            "filename without NUL",
            build_id(20, &[b'a'; 64]),
            P::NameWithoutNul,
        ),
        (
            "fmt 2 ending at its message",
            auxtrace_error(2, b"bad", 112),
            P::Fields("vcpu"),
        ),
        (
            "fmt 1 ending before time",
            auxtrace_error(1, b"bad", 40),
            P::Fields("time"),
        ),
        (
            "message without NUL",
            auxtrace_error(1, &[b'M'; 64], 112),
            P::NameWithoutNul,
        ),
        (
            "fmt 0 ending where its message starts",
            auxtrace_error(0, b"bad", 40),
            P::NameWithoutNul,
        ),
        (
            "type of 2^31",
            negative_type(),
            P::Value {
                field: "type",
                value: 1 << 31,
            },
        ),
        ("TIME_CONV of 4 words", time_conv(4), P::Fields("time_mask")),
        ("TIME_CONV of 5 words", time_conv(5), P::Fields("time_mask")),
        (
            "name without NUL",
            update(2, b"BADNAMEX"),
            P::NameWithoutNul,
        ),
        (
            "unit without NUL",
            update(0, b"UNITUNIT"),
            P::NameWithoutNul,
        ),
        (
            "READ without its value",
            read(&[]),
            P::Size {
                size: 40,
                expected: 48,
                exact: false,
            },
        ),
    ];
    for (what, record, problem) in &refused {
        let r = ordered_file_around(|w| match w.write_event_data(record).expect_err(what) {
            WriterError::Record(perf_writer_std::RecordError::Refused { problem: p, .. }) => {
                assert_eq!(p, *problem, "{what}")
            }
            other => panic!("{what}: {other:?}"),
        });
        assert_both_ticks(&r);
    }
    // What perf and the kernel write: taken and shown.
    let taken = [
        mmap2(20),
        build_id(20, b"/usr/lib/good.so"),
        auxtrace_error(1, b"bad trace", 64),
        auxtrace_error(2, b"worse trace", 120),
        time_conv(3),
        time_conv(6),
        update(2, b"renamed\0"),
        read(&[999]),
    ];
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    for record in &taken {
        w.write_event_data(record).unwrap();
    }
    write_tick(&mut w, 1, 2000);
    let bytes = w.finish().unwrap().into_inner();
    let errors = ["Warning:", "2 instruction trace errors"];
    assert_eq!(read_file_noting(&bytes, &errors).lpd_samples, 1);
    if require_perf() {
        let file = temp_data_file(&bytes);
        let out = perf_script(file.path(), &["-D", "--show-mmap-events"]);
        for shown in [
            "[0x400000(0x1000) @ 0 <cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd>]: r-xp /usr/bin/bad",
            "code 7: bad trace",
            "code 7: worse trace",
            "PERF_RECORD_READ: 42 42 renamed 999",
        ] {
            assert!(out.stdout.contains(shown), "{shown}\n{}", out.describe());
        }
        // Strict mode off: perf smashes its stack on the build ids of 255, and reads before
        // its table of error kinds by a negative `type`.
        for record in [
            mmap2(255),
            build_id(255, b"/usr/lib/bad.so"),
            negative_type(),
        ] {
            let mut w = file_writer();
            w.set_strict(false);
            add_ordered_tick(&mut w);
            w.write_event_data(&record).unwrap();
            write_tick(&mut w, 1, 2000);
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            let out = perf_script(file.path(), &["--show-mmap-events"]);
            assert!(!out.success(), "{}", out.describe());
        }
    }
}

/// Events perf cannot tell apart (several, one without ids or without a sample id): perf
/// refuses a file of them ("non matching sample_type") but for a stat file, and reads a
/// stream. A user who forgot IDENTIFIER hears of it at `add_event_desc`. With HEADER_STAT
/// set first (a perf stat session), strict mode takes them before any record, takes the
/// records perf gives the first event (a COMM without `sample_id_all`), refuses the
/// SAMPLEs perf would look their event up for (whole, by their header, and after records
/// of the event were checked), and refuses to finish a file once HEADER_STAT is cleared. A
/// dropped writer sets it again. Out of strict mode, or after records, they are refused.
#[test]
fn events_perf_cannot_tell_apart_are_taken_for_a_stat_session() {
    use perf_writer_std::perf_encode::abi::{misc, record_type as rt};
    use perf_writer_std::{RecordError, RecordProblem};
    let attr = |config: u64| PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        config,
        sample_type: S::None,
        ..Default::default()
    };
    let sample = record_of(rt::SAMPLE, misc::USER, &[]);
    let mut longer = sample.clone();
    longer[6..8].copy_from_slice(&16u16.to_le_bytes());
    let comm = {
        let mut b = 42u32.to_le_bytes().to_vec();
        b.extend_from_slice(&42u32.to_le_bytes());
        b.extend_from_slice(b"stat\0\0\0\0\0\0\0\0\0\0\0\0");
        record_of(rt::COMM, misc::USER, &b)
    };
    let round = user_record(rt::FINISHED_ROUND, &[]);
    let untold = |e: WriterError| {
        assert!(
            matches!(e, WriterError::Event(EventError::Indistinguishable(_))),
            "{e:?}"
        )
    };
    let not_told = |e: WriterError| match e {
        WriterError::Record(RecordError::Refused { problem, .. }) => {
            assert_eq!(problem, RecordProblem::EventsNotToldApart)
        }
        other => panic!("{other:?}"),
    };
    let two = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        w.add_event_desc(&[1], &attr(0), "cpu-clock")?;
        w.add_event_desc(&[2], &attr(1), "task-clock")
    };
    // Not a stat session, out of strict mode, or after a record: refused.
    untold(two(&mut file_writer()).unwrap_err());
    let mut w = file_writer();
    w.set_stat_header();
    w.set_strict(false);
    untold(two(&mut w).unwrap_err());
    let mut w = file_writer();
    w.set_stat_header();
    w.write_event_data(&round).unwrap();
    untold(two(&mut w).unwrap_err());
    // A stat session.
    let mut w = file_writer();
    w.set_stat_header();
    two(&mut w).unwrap();
    for _ in 0..3 {
        w.write_event_data(&comm).unwrap();
    }
    for bytes in [
        &sample[..],
        &longer[..],
        &[comm.clone(), sample.clone()].concat(),
    ] {
        not_told(w.write_event_data(bytes).unwrap_err());
    }
    w.write_event_data(&round).unwrap();
    w.set_header(PerfHeaderIndex::Stat, &[]).unwrap();
    untold(w.finish().unwrap_err());
    w.set_stat_header();
    let bytes = w.finish().unwrap().into_inner();
    let l = lpd::read_file(&bytes).unwrap();
    assert_eq!((l.attr_names().len(), l.count(rt::COMM)), (2, 3));
    if require_perf() {
        let file = temp_data_file(&bytes);
        let header = perf_report_header(file.path(), false);
        assert!(
            header.stdout.contains("# contains stat data"),
            "{}",
            header.describe()
        );
        let evlist = perf_evlist(file.path());
        assert!(
            evlist.success() && evlist.stdout.contains("task-clock"),
            "{}",
            evlist.describe()
        );
        let out = perf_script(file.path(), &["--show-task-events"]);
        assert_eq!(
            out.stdout.matches("PERF_RECORD_COMM: stat:42/42").count(),
            3,
            "{}",
            out.describe()
        );
    }
    // An event without ids.
    let mut w = file_writer();
    w.set_stat_header();
    w.add_event_desc(&[1], &sw_attr(), "sw").unwrap();
    w.add_event_desc(&[], &sw_attr(), "unsupported").unwrap();
    w.finish().unwrap();
    // Dropped with HEADER_STAT cleared: the file is a stat file perf reads.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dropped.data");
    {
        let mut w = PerfWriter::<FileOutput>::new();
        w.create_file(&path).unwrap();
        w.set_stat_header();
        w.add_event_desc(&[1], &attr(0), "cpu-clock").unwrap();
        w.add_event_desc(&[2], &attr(1), "task-clock").unwrap();
        w.set_header(PerfHeaderIndex::Stat, &[]).unwrap();
    }
    if require_perf() {
        let header = perf_report_header(&path, false);
        assert!(
            header.stdout.contains("# contains stat data"),
            "{}",
            header.describe()
        );
    }
    // Pipe mode: taken; the SAMPLE refused after a COMM; perf reads the stream.
    let mut p = pipe_writer();
    p.set_stat_header();
    p.add_event_desc(&[1], &attr(0), "cpu-clock").unwrap();
    p.add_event_desc(&[2], &attr(1), "task-clock").unwrap();
    p.write_event_data(&comm).unwrap();
    p.write_event_data(&comm).unwrap();
    not_told(p.write_event_data(&sample).unwrap_err());
    let stream = p.finish().unwrap();
    if require_perf() {
        let out = perf_script_stdin(&stream);
        assert!(out.success(), "{}", out.describe());
    }
}

/// perf 6.1 swaps a big-endian READ's fields to byte 48 and its `sample_id` from byte 56
/// (the end of its struct, `lost` included), leaving bytes 48 to 56 as they are: a
/// `sample_id` field there is read wrong (a time: perf sorts the record last), but for the
/// trailer's pid and tid, which perf never reads of a READ. Strict mode refuses a READ
/// longer than 48 whose `sample_id` starts before 56 (before 48 when it starts with TID) in
/// a big-endian output, at the call, after learned READs, and at the description when
/// written before it; one that starts at 56, or with TID at 48 (what `perf record -s`
/// writes without PERF_FORMAT_LOST), or a READ of 48 bytes, is taken and read in order; a
/// little-endian output takes all.
#[test]
fn a_big_endian_reads_sample_id_starts_where_perf_swaps_it() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::Endian;
    use perf_writer_std::{RecordError, RecordProblem};
    // pid and tid 42, value 999, then `more` values, then the ordered tick's sample_id.
    let read = |e: Endian, more: usize| {
        let mut b = e.u32_bytes(42).to_vec();
        b.extend_from_slice(&e.u32_bytes(42));
        for v in 0..=more as u64 {
            b.extend_from_slice(&e.u64_bytes(999 + v));
        }
        ordered_side_band(e, rt::READ, &b)
    };
    let writer = |e: Endian| {
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e).unwrap()
    };
    let big = Endian::Big;
    assert_eq!(
        (read(big, 0).len(), read(big, 2).len(), read(big, 3).len()),
        (48, 64, 72)
    );
    // Described, after two learned READs: the 64-byte one refused; the ticks around it read.
    let mut w = writer(big);
    add_ordered_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    for r in [read(big, 0), read(big, 4), read(big, 4), read(big, 3)] {
        w.write_event_data(&r).unwrap();
    }
    match w.write_event_data(&read(big, 2)).unwrap_err() {
        WriterError::Record(RecordError::Refused { problem, .. }) => {
            assert_eq!(problem, RecordProblem::ReadSampleIdUnswapped)
        }
        other => panic!("{other:?}"),
    }
    write_tick(&mut w, 2, 2000);
    let bytes = w.finish().unwrap().into_inner();
    assert_both_ticks(&read_file(&bytes));
    if require_perf() {
        let file = temp_data_file(&bytes);
        let out = perf_script(file.path(), &["-D"]);
        assert_eq!(out.stdout.matches("1500 0x").count(), 4, "{}", out.stdout);
    }
    // A trailer of TIME and IDENTIFIER at 48: its time would be read unswapped.
    let timed = PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: S::Identifier.or(S::Time),
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..Default::default()
    };
    let mut untimed_tid = read(big, 3);
    untimed_tid.drain(48..56);
    untimed_tid[6..8].copy_from_slice(&big.u16_bytes(64));
    let mut w = writer(big);
    w.add_event_desc(&[TICK_SAMPLE_ID], &timed, "timed")
        .unwrap();
    match w.write_event_data(&untimed_tid).unwrap_err() {
        WriterError::Record(RecordError::Refused { problem, .. }) => {
            assert_eq!(problem, RecordProblem::ReadSampleIdUnswapped)
        }
        other => panic!("{other:?}"),
    }
    // Written before the description: the description is refused.
    ordered_tick_contradicts(&mut writer(big), &read(big, 2));
    for taken in [read(big, 4), read(big, 3)] {
        let mut w = writer(big);
        w.write_event_data(&taken).unwrap();
        try_add_ordered_tick(&mut w).unwrap();
    }
    // Little-endian: taken.
    let mut w = writer(Endian::Little);
    add_ordered_tick(&mut w);
    w.write_event_data(&read(Endian::Little, 2)).unwrap();
    w.finish().unwrap();
    // Strict mode off, big-endian: perf reads the time wrong.
    if require_perf() {
        let mut w = writer(big);
        w.set_strict(false);
        add_ordered_tick(&mut w);
        w.write_event_data(&read(big, 2)).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &["-D"]);
        assert!(
            out.stdout.contains("PERF_RECORD_READ") && !out.stdout.contains("1500 0x"),
            "{}",
            out.stdout
        );
    }
}

/// perf 6.1 leaves an MMAP2's `prot` and `flags` unswapped when it reads a big-endian file
/// on a little-endian machine: it shows `---p` for a mapping the record says is `r-xp`. That
/// is what a big-endian kernel writes, and every real recording's MMAP2 has them, so strict
/// mode takes it (README, "Big-endian outputs"): this pins perf's reading the README
/// describes.
#[test]
fn a_big_endian_mmap2s_protection_is_taken_and_perf_6_1_shows_it_unswapped() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::Endian;
    let mmap2 = |e: Endian| {
        let mut b = Vec::new();
        for half in [42, 42] {
            b.extend_from_slice(&e.u32_bytes(half));
        }
        for word in [0x40_0000, 0x1000, 0] {
            b.extend_from_slice(&e.u64_bytes(word));
        }
        b.extend_from_slice(&e.u32_bytes(8));
        b.extend_from_slice(&e.u32_bytes(1));
        b.extend_from_slice(&e.u64_bytes(1234));
        b.extend_from_slice(&e.u64_bytes(0));
        b.extend_from_slice(&e.u32_bytes(5)); // PROT_READ | PROT_EXEC
        b.extend_from_slice(&e.u32_bytes(2)); // MAP_PRIVATE
        b.extend_from_slice(b"/bin/mapped\0\0\0\0\0");
        ordered_side_band(e, rt::MMAP2, &b)
    };
    for (e, shown) in [(Endian::Little, "r-xp"), (Endian::Big, "---p")] {
        let mut w =
            PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e)
                .unwrap();
        add_ordered_tick(&mut w);
        w.write_event_data(&mmap2(e)).unwrap();
        write_tick(&mut w, 1, 2000);
        let bytes = w.finish().unwrap().into_inner();
        assert_eq!(read_file(&bytes).lpd_samples, 1);
        if require_perf() {
            let file = temp_data_file(&bytes);
            let out = perf_script(file.path(), &["--show-mmap-events"]);
            let line = "PERF_RECORD_MMAP2 42/42: [0x400000(0x1000) @ 0 08:01 1234 0]: ";
            assert!(
                out.stdout.contains(&format!("{line}{shown} /bin/mapped")),
                "{e:?}\n{}",
                out.describe()
            );
        }
    }
}

/// perf 6.1 reads a big-endian pipe stream's RAW size unswapped and cannot parse the
/// SAMPLEs of an event with RAW: strict mode refuses such an event in a big-endian pipe
/// stream (in a file it is read); perf's verdict on its SAMPLE is checked.
#[test]
fn an_event_with_raw_in_a_big_endian_pipe_stream_is_refused() {
    use perf_writer_std::perf_encode::Endian;
    let be_pipe = || PerfPipeWriter::from_writer_with_endian(Vec::new(), Endian::Big).unwrap();
    let mut w = be_pipe();
    assert_eq!(
        w.add_tracepoint_event_desc_from_text(&[1], &tp_attr(TICK_ID), "test:tick", "test", TICK)
            .unwrap_err(),
        WriterError::Event(EventError::RawInBigEndianPipe)
    );
    w.add_event_desc(&[2], &sw_attr(), "sw").unwrap();
    let mut f =
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), Endian::Big)
            .unwrap();
    add_tick(&mut f);
    write_tick(&mut f, 1, 1000);
    assert_eq!(read_file(&f.finish().unwrap().into_inner()).lpd_samples, 1);
    if require_perf() {
        let mut w = be_pipe();
        w.set_strict(false);
        add_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        let out = perf_script_stdin(&w.finish().unwrap());
        assert!(!out.success(), "{}", out.describe());
    }
}

/// The kernel's `sched:sched_switch` format (id 372): Intel PT's decoder reads its
/// `next_pid` (at 56).
const SCHED_SWITCH: &str = include_str!("../../data/sched_switch.format");

/// An Intel PT trace whose context switches were recorded with `sched:sched_switch` takes
/// each cpu's current thread from that tracepoint's SAMPLEs: their cpu must be one perf
/// keeps a thread by (perf 6.1 fails on one of 2^31 and up; strict mode holds it to
/// 65535 as for context switch records), in every order: the SAMPLE after the
/// AUXTRACE_INFO, the AUXTRACE_INFO after it, checked by the event's facts after a run of
/// good ones, and written before the description. The tracepoint needs RAW: without it
/// perf crashes. perf's verdicts on both are checked.
#[test]
fn sched_switch_samples_of_an_intel_pt_trace_need_a_cpu() {
    use perf_writer_std::perf_encode::records::SampleCpu;
    use perf_writer_std::{AuxtraceNeed as Need, Contradiction};
    const ID: u64 = 77;
    let pt = auxtrace_info(
        1,
        &[
            8,
            31,
            858_993_459,
            0x0fff_e123_4567,
            1,
            0x400,
            0x800,
            1,
            0,
            1,
        ],
    );
    let attr = |raw: bool| PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        sample_type: match raw {
            true => S::Identifier.or(S::Tid).or(S::Time).or(S::Cpu).or(S::Raw),
            false => S::Identifier.or(S::Tid).or(S::Time).or(S::Cpu),
        },
        ..tp_attr(372)
    };
    let add_switch = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>, raw: bool| {
        w.add_tracepoint_event_desc_from_text(
            &[ID],
            &attr(raw),
            "sched:sched_switch",
            "sched",
            SCHED_SWITCH,
        )
    };
    let sample = |cpu: u32, raw: bool| {
        // 64 bytes of fields, 4 of padding.
        let mut payload = [0u8; 68];
        payload[..2].copy_from_slice(&372u16.to_le_bytes());
        payload[56..60].copy_from_slice(&1234u32.to_le_bytes());
        let s = Sample {
            identifier: Some(ID),
            tid: Some(PidTid { pid: 42, tid: 42 }),
            time: Some(1500),
            cpu: Some(SampleCpu { cpu, res: 0 }),
            raw: raw.then_some(&payload[..]),
            ..Default::default()
        };
        perf_writer_std::perf_encode::to_vec(
            &perf_writer_std::perf_encode::records::SampleRecord {
                layout: &perf_writer_std::perf_encode::records::SampleLayout {
                    sample_type: attr(raw).sample_type.0,
                    sample_id_all: true,
                    ..Default::default()
                },
                misc: perf_writer_std::perf_encode::abi::misc::KERNEL,
                sample: &s,
            },
            perf_writer_std::perf_encode::Endian::Little,
        )
        .unwrap()
    };
    let big = 0x8000_0000;
    let described = || {
        let mut w = file_writer();
        add_ordered_tick(&mut w);
        add_switch(&mut w, true).unwrap();
        w
    };
    // After the AUXTRACE_INFO: a cpu perf keeps a thread by is taken, a big one refused,
    // also after a run of SAMPLEs checked by their event's facts.
    let mut w = described();
    w.write_event_data(&pt).unwrap();
    write_tick(&mut w, 1, 1000);
    for _ in 0..200 {
        w.write_event_data(&sample(3, true)).unwrap();
    }
    aux_refused(
        w.write_event_data(&sample(big, true)).unwrap_err(),
        Some(Need::SwitchCpu),
    );
    aux_refused(
        w.write_event_data(&sample(65_536, true)).unwrap_err(),
        Some(Need::SwitchCpu),
    );
    w.write_event_data(&sample(65_535, true)).unwrap();
    write_tick(&mut w, 2, 2000);
    let r = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    assert_eq!(r.lpd_samples, 203);
    if let Some(script) = &r.script {
        let switches = script
            .iter()
            .filter(|l| l.contains("next_pid=1234"))
            .count();
        assert_eq!(switches, 201, "{script:?}");
    }
    // Before it: the AUXTRACE_INFO is refused, also when the big cpu came after a run.
    let mut w = described();
    for _ in 0..200 {
        w.write_event_data(&sample(3, true)).unwrap();
    }
    w.write_event_data(&sample(big, true)).unwrap();
    aux_refused(w.write_event_data(&pt).unwrap_err(), Some(Need::SwitchCpu));
    // Written before the descriptions: the description of the tracepoint is refused,
    // naming the SAMPLEs, when the AUXTRACE_INFO came; the AUXTRACE_INFO when it comes
    // after the description.
    for info_first in [true, false] {
        let mut w = file_writer();
        w.write_event_data(&sample(3, true)).unwrap();
        w.write_event_data(&sample(big, true)).unwrap();
        w.write_event_data(&sample(big - 1, true)).unwrap();
        if info_first {
            w.write_event_data(&pt).unwrap();
        }
        add_ordered_tick(&mut w);
        match info_first {
            true => match add_switch(&mut w, true).unwrap_err() {
                WriterError::Event(EventError::ContradictsRecords {
                    problem,
                    records,
                    id,
                    ..
                }) => {
                    assert_eq!(
                        (problem, records, id),
                        (Contradiction::AuxtraceSwitchCpu, 2, Some(ID))
                    )
                }
                other => panic!("{other:?}"),
            },
            false => {
                add_switch(&mut w, true).unwrap();
                aux_refused(w.write_event_data(&pt).unwrap_err(), Some(Need::SwitchCpu));
            }
        }
    }
    // An AUXTRACE_INFO written with strict mode off may be that one: a big cpu after it is
    // refused.
    let mut w = described();
    w.set_strict(false);
    w.write_event_data(&pt).unwrap();
    w.set_strict(true);
    w.write_event_data(&sample(3, true)).unwrap();
    aux_refused(
        w.write_event_data(&sample(big, true)).unwrap_err(),
        Some(Need::Unchecked),
    );
    // An EVENT_UPDATE that gives another event the name, or takes it from this one, before
    // the AUXTRACE_INFO: perf takes the last event of that name when it reads it. One that
    // gives this event its own name (as perf's pipe streams do) changes nothing, nor does one
    // after the AUXTRACE_INFO.
    let rename = |id: u64, name: &[u8]| {
        let mut words = vec![2, id];
        let mut bytes = name.to_vec();
        // NUL-terminated, to a multiple of 8.
        bytes.resize((name.len() / 8 + 1) * 8, 0);
        words.extend(
            bytes
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
        );
        user_record(
            perf_writer_std::perf_encode::abi::record_type::EVENT_UPDATE,
            &words,
        )
    };
    let other = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        w.add_event_desc(&[78], &attr(false), "other").unwrap();
    };
    for (id, name) in [(78, &b"sched:sched_switch"[..]), (ID, b"renamed")] {
        let mut w = described();
        other(&mut w);
        w.write_event_data(&rename(id, name)).unwrap();
        aux_refused(
            w.write_event_data(&pt).unwrap_err(),
            Some(Need::SwitchEventRenamed),
        );
        if require_perf() {
            w.set_strict(false);
            w.write_event_data(&pt).unwrap();
            write_tick(&mut w, 1, 1000);
            // A SAMPLE of the event perf took (its IDENTIFIER first).
            let mut of_id = sample(3, id == ID);
            of_id[8..16].copy_from_slice(&id.to_le_bytes());
            w.write_event_data(&of_id).unwrap();
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            assert!(!perf_script(file.path(), &[]).success(), "{id}");
        }
    }
    let mut w = described();
    other(&mut w);
    w.write_event_data(&rename(ID, b"sched:sched_switch"))
        .unwrap();
    w.write_event_data(&pt).unwrap();
    w.write_event_data(&rename(78, b"sched:sched_switch"))
        .unwrap();
    write_tick(&mut w, 1, 1000);
    w.write_event_data(&sample(3, true)).unwrap();
    let r = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    assert_eq!(r.lpd_samples, 2);
    // A caller's EVENT_DESC names events by their place, as perf reads it, and is kept as
    // given: one that gives another event the name sched:sched_switch, or takes it, is a
    // rename before every record. An Intel PT AUXTRACE_INFO of sched_switch switches is
    // refused after it, and it (or the description it renames) after such an
    // AUXTRACE_INFO.
    let event_desc = |names: [&str; 2]| {
        use perf_writer_std::perf_encode::features::EventDescFeature;
        use perf_writer_std::perf_encode::{to_vec, Endian, EventEntry};
        let (a, b) = (
            perf_writer_std::perf_encode::abi::PerfEventAttr::from(&attr(true)),
            perf_writer_std::perf_encode::abi::PerfEventAttr::from(&attr(false)),
        );
        let entries = [
            EventEntry {
                attr: a,
                name: names[0],
                ids: &[ID],
            },
            EventEntry {
                attr: b,
                name: names[1],
                ids: &[78],
            },
        ];
        to_vec(&EventDescFeature::new(&entries), Endian::Little).unwrap()
    };
    let desc_index = PerfHeaderIndex::EventDesc;
    let renames = |e: WriterError| {
        assert_eq!(
            e,
            WriterError::Feature(perf_writer_std::FeatureError::EventDescRenamesSwitchEvent)
        )
    };
    let switch_first = || {
        let mut w = file_writer();
        add_switch(&mut w, true).unwrap();
        w.add_event_desc(&[78], &attr(false), "other").unwrap();
        w
    };
    let two = event_desc(["sched:sched_switch", "sched:sched_switch"]);
    let mut w = switch_first();
    w.set_header(desc_index, &event_desc(["sched:sched_switch", "renamed"]))
        .unwrap();
    w.write_event_data(&pt).unwrap();
    renames(w.set_header(desc_index, &two).unwrap_err());
    let r = read_file_noting(&w.finish().unwrap().into_inner(), DECODER_NOTICES);
    assert_eq!(
        r.lpd_names,
        [Some("sched:sched_switch".into()), Some("renamed".into())]
    );
    let mut w = switch_first();
    w.set_header(desc_index, &two).unwrap();
    aux_refused(
        w.write_event_data(&pt).unwrap_err(),
        Some(Need::SwitchEventRenamed),
    );
    let mut w = file_writer();
    w.set_header(desc_index, &event_desc(["x", "other"]))
        .unwrap();
    w.write_event_data(&pt).unwrap();
    let e = w
        .add_tracepoint_event_desc_from_text(
            &[ID],
            &attr(true),
            "sched:sched_switch",
            "sched",
            SCHED_SWITCH,
        )
        .unwrap_err();
    renames(e);
    // A place the caller's EVENT_DESC names not (it has fewer entries, or stops at an
    // attr of size 0, as perf stops taking names there) perf names from the tracepoint's
    // format: "foo:sched_switch" for a description named sched:sched_switch of system foo,
    // and "sched:sched_switch" for the "other" event of that format.
    let empty = {
        use perf_writer_std::perf_encode::features::EventDescFeature;
        use perf_writer_std::perf_encode::{to_vec, Endian};
        to_vec(&EventDescFeature::new(&[]), Endian::Little).unwrap()
    };
    for (system, taken) in [("sched", true), ("foo", false)] {
        let mut w = file_writer();
        w.set_header(desc_index, &empty).unwrap();
        w.add_tracepoint_event_desc_from_text(
            &[ID],
            &attr(true),
            "sched:sched_switch",
            system,
            SCHED_SWITCH,
        )
        .unwrap();
        match taken {
            true => {
                w.write_event_data(&[pt.clone(), sample(3, true)].concat())
                    .unwrap();
                // (linux-perf-data takes the attrs from EVENT_DESC only: this one has none.)
                if require_perf() {
                    let file = temp_data_file(&w.finish().unwrap().into_inner());
                    let out = perf_script(file.path(), &[]);
                    assert_clean_but(&out, DECODER_NOTICES);
                    assert!(script_lines(&out)[0].contains("next_pid=1234"));
                }
            }
            false => {
                aux_refused(
                    w.write_event_data(&pt).unwrap_err(),
                    Some(Need::SwitchEventRenamed),
                );
                // perf's verdict: it finds no sched:sched_switch.
                if require_perf() {
                    w.set_strict(false);
                    w.write_event_data(&[pt.clone(), sample(3, true)].concat())
                        .unwrap();
                    let file = temp_data_file(&w.finish().unwrap().into_inner());
                    assert!(!perf_script(file.path(), &[]).success());
                }
            }
        }
    }
    let mut stops = event_desc(["sched:sched_switch", "other"]);
    stops[12..16].fill(0);
    let mut w = switch_first();
    w.set_header(desc_index, &stops).unwrap();
    aux_refused(
        w.write_event_data(&pt).unwrap_err(),
        Some(Need::SwitchEventRenamed),
    );
    // perf's verdict on the misnamed one, strict mode off: a crash.
    if require_perf() {
        let mut w = switch_first();
        w.set_strict(false);
        w.set_header(desc_index, &two).unwrap();
        w.write_event_data(&pt).unwrap();
        let mut of_78 = sample(3, false);
        of_78[8..16].copy_from_slice(&78u64.to_le_bytes());
        w.write_event_data(&of_78).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
    // Without RAW, the event is not one PT can take: refused once the AUXTRACE_INFO came.
    let mut w = file_writer();
    add_ordered_tick(&mut w);
    w.write_event_data(&pt).unwrap();
    match add_switch(&mut w, false).unwrap_err() {
        WriterError::Event(EventError::ContradictsRecords { problem, .. }) => {
            assert_eq!(problem, Contradiction::AuxtraceSwitchEvent)
        }
        other => panic!("{other:?}"),
    }
    // perf's verdicts: a cpu of 2^31 fails it, a SAMPLE without RAW crashes it.
    if require_perf() {
        for (cpu, raw) in [(big, true), (3, false)] {
            let mut w = file_writer();
            add_ordered_tick(&mut w);
            add_switch(&mut w, raw).unwrap();
            w.set_strict(false);
            w.write_event_data(&pt).unwrap();
            write_tick(&mut w, 1, 1000);
            w.write_event_data(&sample(cpu, raw)).unwrap();
            let file = temp_data_file(&w.finish().unwrap().into_inner());
            assert!(
                !perf_script(file.path(), &[]).success(),
                "cpu {cpu:#x}, RAW {raw}"
            );
        }
    }
}

/// A refused call before any description leaves nothing of itself: the file, recovery
/// block included, is byte for byte the one written without it.
#[test]
fn a_refused_first_call_leaves_the_layout_as_it_was() {
    let write = |refused_first: bool| {
        let mut w = file_writer();
        if refused_first {
            let unknown = user_record(30, &[0]);
            assert!(w.write_event_data(&unknown).is_err());
            assert!(w.write_event_data(&auxtrace_info(2, &[0; 5])).is_err());
        }
        add_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        write_tick(&mut w, 2, 2000);
        w.finish().unwrap().into_inner()
    };
    let plain = write(false);
    assert_eq!(write(true), plain);
    assert_both_ticks(&read_file(&plain));
}

/// In file mode, perf's own records naming an id no description has yet (an ID_INDEX
/// entry, EVENT_UPDATE, STAT) wait for it: taken when it comes, refused by `finish` while
/// it has not (the writer stays open: add it and finish again), and cut off by a drop.
/// perf reads every file that results.
#[test]
fn user_records_naming_an_id_described_later_wait_for_it_in_file_mode() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::RecordError;
    let name = |id: u64| {
        user_record(
            rt::EVENT_UPDATE,
            &[2, id, u64::from_le_bytes(*b"renamed\0")],
        )
    };
    let index = |id: u64| user_record(rt::ID_INDEX, &[2, TICK_SAMPLE_ID, 0, 0, 42, id, 0, 0, 42]);
    let [threads, cpus] = stat_maps();
    let stat77 = user_record(rt::STAT, &[77, 0, 1, 1, 1]);
    // Described later: taken, and perf reads the file.
    let r = file_around(|w| {
        for r in [&index(77), &name(77), &threads, &cpus, &stat77] {
            w.write_event_data(r).unwrap();
        }
        w.add_event_desc(&[77], &sw_attr(), "later").unwrap();
    });
    assert_both_ticks(&r);
    assert!(
        r.lpd_names.contains(&Some("later".into())),
        "{:?}",
        r.lpd_names
    );
    // Never described: finish names the first record and the ids, and changes nothing.
    let mut w = file_writer();
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    w.write_event_data(&index(77)).unwrap();
    w.write_event_data(&index(78)).unwrap();
    write_tick(&mut w, 2, 2000);
    match w.finish().unwrap_err() {
        WriterError::Record(RecordError::Undescribed(p)) => {
            assert_eq!((p.records, p.ids, p.type_), (2, 2, rt::ID_INDEX), "{p:?}")
        }
        other => panic!("{other:?}"),
    }
    w.add_event_desc(&[77, 78], &sw_attr(), "later").unwrap();
    assert_both_ticks(&read_file(&w.finish().unwrap().into_inner()));
    // Dropped while waiting: the file ends before the first waiting record.
    let mut file = Cursor::new(Vec::new());
    {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(&mut file).unwrap();
        add_tick(&mut w);
        write_tick(&mut w, 1, 1000);
        w.write_event_data(&index(77)).unwrap();
        write_tick(&mut w, 2, 2000);
    }
    let r = read_file(file.get_ref());
    assert_eq!(r.lpd_samples, 1);
    // With one event, perf gives an EVENT_UPDATE of any id to it: finish takes it.
    let mut w = file_writer();
    add_tick(&mut w);
    write_tick(&mut w, 1, 1000);
    w.write_event_data(&name(77)).unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 1);
    if let Some(script) = r.script {
        assert_eq!(script.len(), 1, "{script:?}");
    }
}

/// Values in perf's own records that perf 6.1 sizes wrong, does not know or does not swap
/// are refused at the call: a cpu range whose end is below its start minus one (perf
/// allocates too few entries and crashes), in a CPU_MAP or an EVENT_UPDATE; a STAT_CONFIG
/// tag past SCALE (perf warns of it); in a big-endian output an EVENT_UPDATE cpu map
/// (perf swaps only its kind and id). perf reads both ticks around each.
#[test]
fn values_perf_sizes_wrong_or_misreads_are_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::records::CpuMap;
    use perf_writer_std::perf_encode::{to_vec, Endian};
    use perf_writer_std::{RecordError, RecordProblem};
    let range = |start, end| {
        to_vec(
            &CpuMap::Range {
                any_cpu: false,
                start,
                end,
            },
            Endian::Little,
        )
        .unwrap()
    };
    let update_cpus = |map: &[u8]| {
        let mut r = user_record(rt::EVENT_UPDATE, &[3, TICK_SAMPLE_ID]);
        r.extend_from_slice(&map[8..]);
        let len = r.len() as u16;
        r[6..8].copy_from_slice(&len.to_le_bytes());
        r
    };
    let refused = |e: WriterError, want: RecordProblem| match e {
        WriterError::Record(RecordError::Refused { problem, .. }) => assert_eq!(problem, want),
        other => panic!("{other:?}"),
    };
    let end_cpu = RecordProblem::Value {
        field: "end_cpu",
        value: 0,
    };
    let r = file_around(|w| {
        refused(w.write_event_data(&range(2, 0)).unwrap_err(), end_cpu);
        refused(
            w.write_event_data(&update_cpus(&range(60000, 0)))
                .unwrap_err(),
            end_cpu,
        );
        refused(
            w.write_event_data(&user_record(rt::STAT_CONFIG, &[2, 0, 1, 3, 1]))
                .unwrap_err(),
            RecordProblem::Value {
                field: "tag",
                value: 3,
            },
        );
        // An empty range (end one below start) is read as no cpu.
        w.write_event_data(&update_cpus(&range(1, 0))).unwrap();
        w.write_event_data(&user_record(rt::STAT_CONFIG, &[1, 2, 1]))
            .unwrap();
    });
    assert_both_ticks(&r);
    // Big-endian: the name is a string (read alike), the cpus are not swapped.
    let mut w =
        PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), Endian::Big)
            .unwrap();
    w.add_event_desc(&[1], &sw_attr(), "a").unwrap();
    let be = |kind: u64, rest: &[u8]| {
        let mut r = vec![0u8; 24];
        r[..4].copy_from_slice(&rt::EVENT_UPDATE.to_be_bytes());
        r[8..16].copy_from_slice(&kind.to_be_bytes());
        r[16..24].copy_from_slice(&1u64.to_be_bytes());
        r.extend_from_slice(rest);
        let len = r.len() as u16;
        r[6..8].copy_from_slice(&len.to_be_bytes());
        r
    };
    let cpus = to_vec(&CpuMap::Cpus(&[0]), Endian::Big).unwrap();
    refused(
        w.write_event_data(&be(3, &cpus[8..])).unwrap_err(),
        RecordProblem::Unswapped(3),
    );
    w.write_event_data(&be(2, b"renamed\0")).unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 0);
}

/// An EVENT_UPDATE's cpus, given before the maps, are the cpus perf counts its event's
/// STATs on (unless the CPU_MAP's first cpu is -1): a STAT on another cpu is refused
/// (perf: "Invalid CPU"), one on a cpu of both is taken, and perf prints it.
#[test]
fn a_stat_is_held_to_the_cpus_an_event_update_gave_its_event() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::records::CpuMap;
    use perf_writer_std::perf_encode::{to_vec, Endian};
    use perf_writer_std::StatProblem;
    let map = |cpus: &[u16]| to_vec(&CpuMap::Cpus(cpus), Endian::Little).unwrap();
    let update_cpus = |cpus: &[u16]| {
        let m = map(cpus);
        let mut r = user_record(rt::EVENT_UPDATE, &[3, TICK_SAMPLE_ID]);
        r.extend_from_slice(&m[8..]);
        let len = r.len() as u16;
        r[6..8].copy_from_slice(&len.to_le_bytes());
        r
    };
    let threads = user_record(rt::THREAD_MAP, &[1, 42, 0, 0]);
    let round = user_record(rt::STAT_ROUND, &[0, 5]);
    let r = file_around(|w| {
        w.write_event_data(&update_cpus(&[2])).unwrap();
        w.write_event_data(&threads).unwrap();
        w.write_event_data(&map(&[0, 1, 2])).unwrap();
        stat_refused(
            w.write_event_data(&stat(0, 0, 1)).unwrap_err(),
            StatProblem::EventCpus(0),
        );
        w.write_event_data(&stat(2, 0, 31337)).unwrap();
        w.write_event_data(&round).unwrap();
    });
    assert_eq!(r.lpd_samples, 2);
    if let Some(script) = &r.script {
        assert!(script.iter().any(|l| l.contains("31337")), "{script:?}");
    }
    // perf gives id 0 to the first event, whichever owns it: an EVENT_UPDATE of id 0 gives
    // the first event its cpus, in file mode too.
    let mut w = file_writer();
    let attr = PerfEventAttr {
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..sw_attr()
    };
    w.add_event_desc(&[5], &attr, "a").unwrap();
    w.add_event_desc(&[0], &attr, "b").unwrap();
    let mut update = update_cpus(&[2]);
    update[16..24].copy_from_slice(&0u64.to_le_bytes());
    w.write_event_data(&update).unwrap();
    w.write_event_data(&threads).unwrap();
    w.write_event_data(&map(&[0, 1, 2])).unwrap();
    let of_a = |cpu: u64| user_record(rt::STAT, &[5, cpu, 7, 1, 1]);
    stat_refused(
        w.write_event_data(&of_a(0)).unwrap_err(),
        StatProblem::EventCpus(0),
    );
    w.write_event_data(&of_a(2)).unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 0);
    // Records before descriptions: whether the EVENT_UPDATE's event is the STAT's is not
    // known yet, so the STAT is held; descriptions that make them two events let it go, one
    // that makes them one event is refused, naming it.
    let mut update = update_cpus(&[3]);
    update[16..24].copy_from_slice(&10u64.to_le_bytes());
    let first_records = |stat_id: u64| {
        [
            update.clone(),
            threads.clone(),
            map(&[0, 1, 2, 3]),
            user_record(rt::STAT, &[stat_id, 1, 7, 1, 1]),
        ]
    };
    fn records_first<O: OutputMode>(w: &mut PerfWriter<O>, records: [Vec<u8>; 4]) {
        for r in records {
            w.write_event_data(&r).unwrap();
        }
    }
    let mut w = file_writer();
    records_first(&mut w, first_records(20));
    w.add_event_desc(&[10], &sw_attr(), "core").unwrap();
    w.add_event_desc(&[20], &sw_attr(), "atom").unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 0);
    let mut w = file_writer();
    records_first(&mut w, first_records(11));
    match w.add_event_desc(&[10, 11], &sw_attr(), "core").unwrap_err() {
        WriterError::Event(EventError::ContradictsRecords {
            records: 1,
            type_,
            id: Some(11),
            problem: perf_writer_std::Contradiction::StatCpus,
            ..
        }) => assert_eq!(type_, rt::STAT),
        other => panic!("{other:?}"),
    }
    w.add_event_desc(&[10], &sw_attr(), "core").unwrap();
    w.add_event_desc(&[11], &sw_attr(), "other").unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 0);
    // Never told apart: with one event perf gives it both ids, and would refuse the STAT;
    // finish refuses, and a drop ends the file before it.
    let mut file = Cursor::new(Vec::new());
    {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(&mut file).unwrap();
        records_first(&mut w, first_records(11));
        w.add_event_desc(&[5], &sw_attr(), "only").unwrap();
        match w.finish().unwrap_err() {
            WriterError::Record(perf_writer_std::RecordError::Undescribed(p)) => {
                assert_eq!(p.type_, rt::STAT)
            }
            other => panic!("{other:?}"),
        }
    }
    read_file(file.get_ref());
    // A CPU_MAP of -1 first: every event counts on it.
    let r = file_around(|w| {
        w.write_event_data(&update_cpus(&[2])).unwrap();
        w.write_event_data(&threads).unwrap();
        w.write_event_data(&map(&[u16::MAX])).unwrap();
        w.write_event_data(&stat(u32::MAX, 0, 31337)).unwrap();
        w.write_event_data(&round).unwrap();
    });
    assert_eq!(r.lpd_samples, 2);
    if let Some(script) = &r.script {
        assert!(script.iter().any(|l| l.contains("31337")), "{script:?}");
    }
}

/// Strict mode turned off and on again: with nothing written meanwhile, STATs are judged
/// as before; with records written unchecked (maps perhaps among them), STAT and
/// STAT_ROUND are refused as not judgeable, and perf reads what was taken.
#[test]
fn stats_after_records_written_unchecked_are_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::StatProblem;
    let round = user_record(rt::STAT_ROUND, &[0, 5]);
    let r = pipe_around(|w| {
        w.set_strict(false);
        w.set_strict(true);
        stat_refused(w.write_event_data(&round).unwrap_err(), StatProblem::NoMaps);
    });
    assert_both_ticks(&r);
    let r = pipe_around(|w| {
        w.set_strict(false);
        w.write_event_data(&stat_maps()[0]).unwrap();
        w.set_strict(true);
        stat_refused(
            w.write_event_data(&round).unwrap_err(),
            StatProblem::Unchecked,
        );
        stat_refused(
            w.write_event_data(&stat(0, 0, 1)).unwrap_err(),
            StatProblem::Unchecked,
        );
    });
    assert_both_ticks(&r);
}

/// Strict mode turned off and on again with nothing written or changed between keeps the
/// checks that wait (file mode): a STAT naming an id no event has still makes `finish`
/// refuse, and the description that comes then is taken. With a record written between,
/// what waited went out unchecked, as documented: `finish` takes it (and perf, reading a
/// STAT of an id it cannot find, would refuse it; strict mode was off).
#[test]
fn a_strict_toggle_with_nothing_between_keeps_the_checks_that_wait() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::RecordError;
    use tracepoint_decode::PerfEventAttrOptions;
    let attr = PerfEventAttr {
        options: PerfEventAttrOptions::SampleIdAll,
        ..sw_attr()
    };
    let mut w = file_writer();
    w.add_event_desc(&[1], &attr, "a").unwrap();
    w.add_event_desc(&[2], &attr, "b").unwrap();
    for r in stat_maps() {
        w.write_event_data(&r).unwrap();
    }
    w.write_event_data(&user_record(rt::STAT, &[77, 0, 1, 1, 1]))
        .unwrap();
    w.set_strict(false);
    w.set_strict(true);
    match w.finish().unwrap_err() {
        WriterError::Record(RecordError::Undescribed(p)) => assert_eq!(p.type_, rt::STAT),
        other => panic!("{other:?}"),
    }
    w.add_event_desc(&[77], &attr, "c").unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 0);
}

/// The cpus EVENT_UPDATEs give events before the maps are kept for a bounded number of
/// events: one more is refused, naming the bound, and the stream stays readable.
#[test]
fn event_cpus_past_the_bound_are_refused() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::StatProblem;
    let update = |id: u64| user_record(rt::EVENT_UPDATE, &[3, id, 0x0000_0000_0001_0000]);
    let r = pipe_around(|w| {
        // One event: perf gives every id to it, so each is taken.
        for id in 1..=4096 {
            w.write_event_data(&update(id)).unwrap();
        }
        stat_refused(
            w.write_event_data(&update(5000)).unwrap_err(),
            StatProblem::TooManyEventCpus,
        );
        // A kept id may give new cpus.
        w.write_event_data(&update(7)).unwrap();
    });
    assert_both_ticks(&r);
}

/// A STAT refused for another reason (its thread) is not held: a description that would
/// have contradicted it, had it been taken, is taken, and perf reads the file.
#[test]
fn a_refused_stat_leaves_nothing_held() {
    use perf_writer_std::perf_encode::abi::record_type as rt;
    use perf_writer_std::perf_encode::records::CpuMap;
    use perf_writer_std::perf_encode::{to_vec, Endian};
    use perf_writer_std::StatProblem;
    let cpus = to_vec(&CpuMap::Cpus(&[3]), Endian::Little).unwrap();
    let mut update = user_record(rt::EVENT_UPDATE, &[3, 10]);
    update.extend_from_slice(&cpus[8..]);
    let len = update.len() as u16;
    update[6..8].copy_from_slice(&len.to_le_bytes());
    let mut w = file_writer();
    w.write_event_data(&update).unwrap();
    w.write_event_data(&user_record(rt::THREAD_MAP, &[1, 42, 0, 0]))
        .unwrap();
    w.write_event_data(&to_vec(&CpuMap::Cpus(&[0, 1, 2, 3]), Endian::Little).unwrap())
        .unwrap();
    stat_refused(
        w.write_event_data(&user_record(rt::STAT, &[20, 1 | 5 << 32, 7, 1, 1]))
            .unwrap_err(),
        StatProblem::Thread(5),
    );
    // A SAMPLE of id 10 (IDENTIFIER, IP, TID, TIME), written before its description.
    w.write_event_data(&user_record(rt::SAMPLE, &[10, 0x1000, 42 | 42 << 32, 1000]))
        .unwrap();
    w.add_event_desc(&[10, 20], &sw_attr(), "core").unwrap();
    let r = read_file(&w.finish().unwrap().into_inner());
    assert_eq!(r.lpd_samples, 1);
}

/// SAMPLEs are checked by the format their event has when they are written, and not kept.
/// After records, strict mode refuses a caller's TRACING_DATA that would change how perf
/// reads their RAW payloads (another format for the id, or the other byte order: perf
/// crashes on the latter); the same one again is taken, as is any before the records.
#[test]
fn a_callers_tracing_data_after_records_keeps_the_formats_they_were_checked_by() {
    use perf_writer_std::perf_encode::Endian;
    let blob = tracing_data_of;
    // `value`, then a field past the ticks' 12 bytes of RAW.
    let longer = TICK.replace(
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n",
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int more;\toffset:12;\tsize:4;\tsigned:1;\n",
    );
    let tracing = PerfHeaderIndex(1);
    let changes = WriterError::Tracing(TracingError::ChangesWrittenFormat {
        config: TICK_ID as u32,
    });
    // The format a description brought, then another.
    let mut w = file_writer();
    add_tick(&mut w);
    w.set_header(tracing, &blob(&longer, Endian::Little))
        .unwrap();
    w.set_header(tracing, &[]).unwrap();
    write_tick(&mut w, 1, 1000);
    assert_eq!(
        w.set_header(tracing, &blob(&longer, Endian::Little)),
        Err(changes.clone())
    );
    w.set_header(tracing, &blob(TICK, Endian::Little)).unwrap();
    write_tick(&mut w, 2, 2000);
    assert_both_ticks(&read_file(&w.finish().unwrap().into_inner()));
    // A caller's, then the same in the other byte order, or none (the description's); also
    // while the writer compresses, its records not written yet.
    for compress in [false, true] {
        let mut w = file_writer();
        if compress {
            let level1 = perf_writer_std::Compression {
                level: 1,
                form: perf_writer_std::CompressionForm::PerfStream,
            };
            w.set_compression(Some(level1)).unwrap();
        }
        w.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
            .unwrap();
        w.set_header(tracing, &blob(&longer, Endian::Little))
            .unwrap();
        w.set_header(tracing, &blob(TICK, Endian::Little)).unwrap();
        write_tick(&mut w, 1, 1000);
        assert_eq!(
            w.set_header(tracing, &blob(TICK, Endian::Big)),
            Err(changes.clone())
        );
        w.set_header(tracing, &blob(TICK, Endian::Little)).unwrap();
        write_tick(&mut w, 2, 2000);
        assert_both_ticks(&read_file(&w.finish().unwrap().into_inner()));
    }
    let mut w = file_writer();
    add_tick(&mut w);
    w.set_header(tracing, &blob(&longer, Endian::Little))
        .unwrap();
    let raw = tick_raw(&w, TICK_ID as u16, 1);
    let long_raw = [&raw[..], &[0; 4]].concat();
    w.write_sample(
        perf_writer_std::perf_encode::abi::misc::USER,
        &tick_sample(&long_raw, 1000),
    )
    .unwrap();
    assert_eq!(w.set_header(tracing, &[]), Err(changes));
    // Written with strict mode off, perf 6.1 reads the ticks' RAW in the other order, and
    // dies.
    if require_perf() {
        let mut w = file_writer();
        w.set_strict(false);
        w.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
            .unwrap();
        w.set_header(tracing, &blob(TICK, Endian::Little)).unwrap();
        write_tick(&mut w, 1, 1000);
        w.set_header(tracing, &blob(TICK, Endian::Big)).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        assert!(!perf_script(file.path(), &[]).success());
    }
}

/// perf on a little-endian host reads a big-endian file's SAMPLE as 8-byte words swapped,
/// and swaps back only as many of RAW's words as its size counts. A RAW whose size leaves
/// its padding uncounted (the SAMPLE's size rounded up to 8 over it) reads right in a
/// little-endian file and is taken there; in a big-endian one its last word stays swapped
/// (perf prints the field there as 0), and strict mode refuses it.
#[test]
fn raw_padding_must_be_counted_in_a_big_endian_file() {
    use perf_writer_std::perf_encode::records::{SampleLayout, SampleRecord};
    use perf_writer_std::perf_encode::{to_vec, Endian};
    let text = TICK.replace(
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n",
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int v2;\toffset:12;\tsize:4;\tsigned:1;\n",
    ).replace("\"value=%d\", REC->value", "\"value=%d v2=%d\", REC->value, REC->v2");
    let run = |order: Endian, strict: bool| {
        let mut w =
            PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), order)
                .unwrap();
        w.set_strict(strict);
        w.add_tracepoint_event_desc_from_text(
            &[TICK_SAMPLE_ID],
            &tp_attr(TICK_ID),
            "test:tick",
            "test",
            &text,
        )
        .unwrap();
        let mut raw = vec![0u8; 16];
        raw[..2].copy_from_slice(&order.u16_bytes(TICK_ID as u16));
        raw[4..8].copy_from_slice(&order.u32_bytes(42));
        raw[8..12].copy_from_slice(&order.u32_bytes(1111));
        raw[12..16].copy_from_slice(&order.u32_bytes(2222));
        let layout = SampleLayout {
            sample_type: tp_attr(TICK_ID).sample_type.0,
            ..Default::default()
        };
        let sample = tick_sample(&raw, 1000);
        let mut record = to_vec(
            &SampleRecord {
                layout: &layout,
                misc: perf_writer_std::perf_encode::abi::misc::USER,
                sample: &sample,
            },
            order,
        )
        .unwrap();
        // RAW is last: its size word 24 bytes from the end counts 20 (16 and padding).
        let at = record.len() - 24;
        assert_eq!(record[at..at + 4], order.u32_bytes(20));
        record[at..at + 4].copy_from_slice(&order.u32_bytes(16));
        let written = w.write_event_data(&record);
        (written, w.finish().unwrap().into_inner())
    };
    let (written, file) = run(Endian::Little, true);
    written.unwrap();
    let r = read_file(&file);
    assert_eq!(r.lpd_samples, 1);
    if let Some(script) = &r.script {
        assert!(script[0].contains("value=1111 v2=2222"), "{script:?}");
    }
    let (written, _) = run(Endian::Big, true);
    match written {
        Err(e) => assert!(
            matches!(
                e,
                WriterError::Record(perf_writer_std::RecordError::Refused { .. })
            ),
            "{e}"
        ),
        Ok(()) => panic!("a big-endian RAW with its padding uncounted was taken"),
    }
    if require_perf() {
        let (written, file) = run(Endian::Big, false);
        written.unwrap();
        let file = temp_data_file(&file);
        let out = perf_script(file.path(), &[]);
        assert!(out.stdout.contains("value=1111 v2=0"), "{}", out.stdout);
    }
}

/// A pipe-mode stream sends its tracing data when it starts, and perf reads it once: a
/// TRACING_DATA given after is refused (it would never be sent, and SAMPLEs would be
/// checked by formats perf does not read), in strict mode or not; before, it is sent.
#[test]
fn a_pipe_streams_tracing_data_is_set_before_it_starts() {
    use perf_writer_std::perf_encode::Endian;
    let blob = |order| tracing_data_of(TICK, order);
    let tracing = PerfHeaderIndex(1);
    for strict in [true, false] {
        let mut p = pipe_writer();
        p.set_strict(strict);
        p.add_event_desc(&[TICK_SAMPLE_ID], &tp_attr(TICK_ID), "test:tick")
            .unwrap();
        p.set_header(tracing, &blob(Endian::Little)).unwrap();
        write_tick(&mut p, 1, 1000);
        for late in [blob(Endian::Big), blob(Endian::Little), Vec::new()] {
            assert_eq!(
                p.set_header(tracing, &late),
                Err(WriterError::Tracing(TracingError::AfterStart))
            );
        }
        assert_eq!(p.raw_endian(), Endian::Little);
        write_tick(&mut p, 2, 2000);
        let r = read_pipe(&p.finish().unwrap());
        assert_both_ticks(&r);
    }
}

/// perf on a little-endian host swaps a big-endian SAMPLE as 8-byte words and swaps back
/// RAW's words: a RAW whose size leaves 4 bytes of padding uncounted, followed by an AUX
/// of 4 bytes, adds up to the SAMPLE's size but puts AUX off the 8-byte grid, and perf
/// fails on it ("Can't parse sample"). Strict mode refuses it in a big-endian output, at
/// its call or (written first) at its description; a little-endian output takes the same
/// bytes, and perf reads them.
#[test]
fn a_big_endian_samples_fields_end_at_multiples_of_8() {
    use perf_writer_std::perf_encode::Endian;
    let text = TICK.replace(
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n",
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int more;\toffset:12;\tsize:4;\tsigned:1;\n",
    ).replace("\"value=%d\", REC->value", "\"value=%d more=%d\", REC->value, REC->more");
    let attr = PerfEventAttr {
        sample_type: tp_attr(TICK_ID).sample_type.or(S::Aux),
        ..tp_attr(TICK_ID)
    };
    // IDENTIFIER, TID, TIME; RAW: size 16 and 16 bytes; AUX: size 4 and 4 bytes: 64 bytes.
    let record = |e: Endian| {
        let mut r = Vec::new();
        r.extend_from_slice(&e.u32_bytes(9));
        r.extend_from_slice(&e.u16_bytes(perf_writer_std::perf_encode::abi::misc::USER));
        r.extend_from_slice(&e.u16_bytes(64));
        r.extend_from_slice(&e.u64_bytes(TICK_SAMPLE_ID));
        r.extend_from_slice(&e.u32_bytes(42));
        r.extend_from_slice(&e.u32_bytes(42));
        r.extend_from_slice(&e.u64_bytes(1000));
        r.extend_from_slice(&e.u32_bytes(16));
        r.extend_from_slice(&e.u16_bytes(TICK_ID as u16));
        r.extend_from_slice(&[0, 0]);
        r.extend_from_slice(&e.u32_bytes(42));
        r.extend_from_slice(&e.u32_bytes(1111));
        r.extend_from_slice(&e.u32_bytes(2222));
        r.extend_from_slice(&e.u64_bytes(4));
        r.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(r.len(), 64);
        r
    };
    let writer = |e: Endian, strict: bool| {
        let mut w =
            PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e)
                .unwrap();
        w.set_strict(strict);
        w
    };
    let describe = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
        w.add_tracepoint_event_desc_from_text(&[TICK_SAMPLE_ID], &attr, "test:tick", "test", &text)
    };
    let unaligned = |e: WriterError| {
        assert!(e.to_string().contains("multiple of 8"), "{e}");
    };
    // Described first: refused at the call.
    let mut w = writer(Endian::Big, true);
    describe(&mut w).unwrap();
    match w.write_event_data(&record(Endian::Big)).unwrap_err() {
        e @ WriterError::Record(perf_writer_std::RecordError::Refused {
            problem: perf_writer_std::RecordProblem::SampleFieldUnaligned("RAW"),
            ..
        }) => unaligned(e),
        other => panic!("{other:?}"),
    }
    // Written first, one or two of them (a group of one is judged as a record, of more by
    // the layouts its records fit): its description is refused.
    for n in [1, 2] {
        let mut w = writer(Endian::Big, true);
        for _ in 0..n {
            w.write_event_data(&record(Endian::Big)).unwrap();
        }
        match describe(&mut w).unwrap_err() {
            WriterError::Event(EventError::ContradictsRecords { records, .. }) => {
                assert_eq!(records, n)
            }
            other => panic!("{other:?}"),
        }
    }
    // Little-endian: taken, and read.
    for first in [false, true] {
        let mut w = writer(Endian::Little, true);
        if !first {
            describe(&mut w).unwrap();
        }
        w.write_event_data(&record(Endian::Little)).unwrap();
        if first {
            describe(&mut w).unwrap();
        }
        let r = read_file(&w.finish().unwrap().into_inner());
        assert_eq!(r.lpd_samples, 1);
        if let Some(script) = &r.script {
            assert!(script[0].contains("value=1111 more=2222"), "{script:?}");
        }
    }
    if require_perf() {
        let mut w = writer(Endian::Big, false);
        describe(&mut w).unwrap();
        w.write_event_data(&record(Endian::Big)).unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &[]);
        assert!(!out.success(), "{}", out.stdout);
    }
}

/// perf reads a COMM's `comm` (and MMAP's, MMAP2's, CGROUP's, KSYMBOL's name) to its NUL,
/// and when it swaps a big-endian record looks for the `sample_id` trailer after that name's
/// length and NUL, rounded up to 8. A name without a NUL before the trailer is refused in
/// either byte order, at the call or (written first) at the description; perf reads a
/// big-endian one's trailer unswapped. Names with their NUL, early or late in the field,
/// are taken, and perf reads the trailer's time.
#[test]
fn a_side_band_records_name_ends_where_perf_looks_for_its_sample_id() {
    use perf_writer_std::perf_encode::Endian;
    let attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: S::Identifier.or(S::IP).or(S::Time),
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..Default::default()
    };
    // COMM of pid 42 with a 16-byte comm field holding `name`, then the trailer: TIME
    // 0x1234, IDENTIFIER 1.
    let comm = |e: Endian, name: &[u8]| {
        let mut r = Vec::new();
        r.extend_from_slice(&e.u32_bytes(3));
        r.extend_from_slice(&e.u16_bytes(perf_writer_std::perf_encode::abi::misc::USER));
        r.extend_from_slice(&e.u16_bytes(48));
        r.extend_from_slice(&e.u32_bytes(42));
        r.extend_from_slice(&e.u32_bytes(42));
        let mut field = [0u8; 16];
        field[..name.len()].copy_from_slice(name);
        r.extend_from_slice(&field);
        r.extend_from_slice(&e.u64_bytes(0x1234));
        r.extend_from_slice(&e.u64_bytes(1));
        assert_eq!(r.len(), 48);
        r
    };
    let run = |e: Endian, strict: bool, first: bool, name: &[u8]| {
        let mut w =
            PerfWriter::<FileOutput<_>>::from_writer_with_endian(Cursor::new(Vec::new()), e)
                .unwrap();
        w.set_strict(strict);
        if !first {
            w.add_event_desc(&[1], &attr, "a").unwrap();
        }
        let written = w.write_event_data(&comm(e, name));
        let described = match first {
            true => w.add_event_desc(&[1], &attr, "a").map(|_| ()),
            false => Ok(()),
        };
        (written, described, w)
    };
    let refused = |written: Result<(), WriterError>, described: Result<(), WriterError>| match (
        written, described,
    ) {
        (Err(e), Ok(())) => assert!(
            matches!(
                e,
                WriterError::Record(perf_writer_std::RecordError::Refused {
                    problem: perf_writer_std::RecordProblem::NameWithoutNul,
                    ..
                })
            ),
            "{e:?}"
        ),
        (Ok(()), Err(e)) => assert!(
            matches!(e, WriterError::Event(EventError::ContradictsRecords { .. })),
            "{e:?}"
        ),
        other => panic!("{other:?}"),
    };
    for first in [false, true] {
        for e in [Endian::Little, Endian::Big] {
            // 16 bytes, no NUL: refused in either order.
            let (written, described, _) = run(e, true, first, b"abcdefghijklmnop");
            refused(written, described);
            // A NUL in the first word or in the last: taken, and the trailer's time read.
            for name in [&b"abc"[..], b"abcdefghijk"] {
                let (written, described, mut w) = run(e, true, first, name);
                written.unwrap();
                described.unwrap();
                let bytes = w.finish().unwrap().into_inner();
                assert_eq!(read_file(&bytes).lpd_samples, 0);
                if require_perf() {
                    let file = temp_data_file(&bytes);
                    let out = perf_script(file.path(), &["-D"]);
                    assert!(out.stdout.contains("4660 0x"), "{}", out.stdout);
                }
            }
        }
    }
    // Written with strict mode off, perf reads the big-endian one's time unswapped.
    if require_perf() {
        let (written, _, mut w) = run(Endian::Big, false, false, b"abcdefghijklmnop");
        written.unwrap();
        let file = temp_data_file(&w.finish().unwrap().into_inner());
        let out = perf_script(file.path(), &["-D"]);
        assert!(
            out.stdout.contains("PERF_RECORD_COMM") && !out.stdout.contains("4660 0x"),
            "{}",
            out.stdout
        );
    }
}
