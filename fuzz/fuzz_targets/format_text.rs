//! perf-encode's tracefs text checks (`check_format_text`, `check_header_page`, and the
//! kallsyms, printk and saved-cmdlines line checks) on arbitrary bytes: none panics (the
//! target is built with overflow checks), and whatever `check_format_text` accepts,
//! `tracepoint_decode` 0.5 parses without panicking into a format with the same id, and the
//! writer takes as a tracepoint event and finalizes into a file linux-perf-data reads.
//! Whatever tracepoint_decode parses (where it cannot overflow or panic), `check_parsed_format`
//! judges as `check_format_text` judges the text `write_to` renders of it.
//!
//! Input: one byte of flags (bit 0: `long` is 64 bits), then the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_encode::features::{
    check_format_text, check_header_event, check_header_page, check_kallsyms, check_parsed_format,
    check_printk, check_saved_cmdlines,
};
use perf_writer_std::{FileOutput, PerfWriter};
use std::io::Cursor;
use tracepoint_decode::{PerfEventAttr, PerfEventAttrType, PerfEventFormat};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let long_is_64 = flags & 1 != 0;
    let _ = check_header_page(text);
    let _ = check_header_event(text);
    let _ = check_kallsyms(text);
    let _ = check_printk(text);
    let _ = check_saved_cmdlines(text);
    parsed_as_rendered(long_is_64, text);
    let Ok(summary) = check_format_text(text) else {
        return;
    };
    assert!(summary.common_fields_end <= summary.fields_end);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let format = PerfEventFormat::parse(long_is_64, "fuzz", text)
        .expect("tracepoint_decode parses a text the check accepted");
    assert_eq!(format.id(), u32::from(summary.id));
    assert!(format.common_field_count() >= 1);

    // The writer takes it, and the file it makes is read.
    let attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: u64::from(summary.id),
        ..Default::default()
    };
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.add_tracepoint_event_desc_from_text(&[1], &attr, "fuzz:event", "fuzz", text)
        .expect("the writer takes a text the check accepted");
    assert!(w.tracepoint_raw_rule(Some(1)).is_some());
    let bytes = w.finish().expect("finalize").into_inner();
    linux_perf_data::PerfFileReader::parse_file(Cursor::new(&bytes[..]))
        .expect("linux-perf-data reads the file");
});

/// A text tracepoint_decode parses: its parsed format is judged as the text it renders to.
/// Only texts the parser survives: ASCII, one `format:` line, no number of 5 digits or more
/// in a field line (it adds offsets and sizes as u16s) or of 10 digits anywhere (u32), field
/// lines the check accepts.
fn parsed_as_rendered(long_is_64: bool, text: &[u8]) {
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    // A run of `n` decimal digits, or of `n - 2` hex digits after `0x` (it reads both).
    let digits = |line: &str, n: usize| {
        let b = line.as_bytes();
        b.windows(n).any(|w| w.iter().all(u8::is_ascii_digit))
            || b.windows(n).any(|w| {
                matches!(w, [b'0', b'x' | b'X', ..])
                    && w.get(2..)
                        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
            })
    };
    let lines = || text.split(['\n', '\r']);
    // A second `format:` clears the fields but not their common count: the parser then
    // indexes past them.
    let formats = lines()
        .filter(|l| l.trim_start_matches([' ', '\t']).split(':').next() == Some("format"))
        .count();
    if !text.is_ascii()
        || formats > 1
        || lines().any(|l| digits(l, 10) || (digits(l, 5) && !l.trim_start().starts_with("ID:")))
    {
        return;
    }
    // tracepoint_decode debug-asserts on some field lines our check refuses (an array
    // length its deduced element size contradicts): parse only texts whose every
    // field-like line is one the check accepts.
    let field_ok = |line: &str| {
        let alone = format!(
            "name: a\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n{}\n\nprint fmt: \"\"\n",
            line.trim()
        );
        check_format_text(alone.as_bytes()).is_ok()
    };
    if lines().any(|l| l.contains("offset") && l.contains("size") && !field_ok(l)) {
        return;
    }
    let Some(format) = PerfEventFormat::parse(long_is_64, "fuzz", text) else {
        return;
    };
    let mut rendered = String::new();
    format.write_to(&mut rendered).unwrap();
    assert_eq!(
        check_parsed_format(&format),
        check_format_text(rendered.as_bytes()),
        "{rendered:?}"
    );
}
