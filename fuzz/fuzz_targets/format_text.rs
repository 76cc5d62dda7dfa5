//! perf-encode's tracefs text checks (`check_format_text`, `check_header_page`, and the
//! kallsyms, printk and saved-cmdlines line checks) on arbitrary bytes: none panics (the
//! target is built with overflow checks), and whatever `check_format_text` accepts,
//! `tracepoint_decode` 0.5 parses without panicking into a format with the same id, and the
//! writer takes as a tracepoint event and finalizes into a file linux-perf-data reads.
//!
//! Input: one byte of flags (bit 0: `long` is 64 bits), then the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_encode::features::{
    check_format_text, check_header_event, check_header_page, check_kallsyms, check_printk,
    check_saved_cmdlines,
};
use perf_writer_std::PerfDataFileWriter;
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
    let mut w = PerfDataFileWriter::from_writer(Cursor::new(Vec::new())).unwrap();
    w.add_tracepoint_event_desc_from_text(&[1], &attr, "fuzz:event", "fuzz", text)
        .expect("the writer takes a text the check accepted");
    assert!(w.tracepoint_raw_rule(Some(1)).is_some());
    let bytes = w.finish().expect("finalize").into_inner();
    linux_perf_data::PerfFileReader::parse_file(Cursor::new(&bytes[..]))
        .expect("linux-perf-data reads the file");
});
