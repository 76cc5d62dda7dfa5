//! A tracepoint_perf 0.5 program that reads a recording with tracepoint_perf's reader and
//! writes it again with the writer, as tracepoint_perf's own rewrite example does, needs
//! only its writer's `use` line changed: the reader's `PerfHeaderIndex` goes straight into
//! the face's header methods (feature `tracepoint_perf`).

use integration_tests::fixtures::fixture_path;
use integration_tests::perf_tool::{perf_script, require_perf, script_lines};
use perf_writer_std::PerfDataFileWriter;
use tracepoint_perf::{PerfDataFileEventOrder, PerfDataFileReader, PerfHeaderIndex};

/// The program: the reader's events, headers, tracing data and records into the writer.
fn rewrite(input_path: &str, output_path: &str) -> std::io::Result<()> {
    let mut input = PerfDataFileReader::new();
    input.open_file(input_path, PerfDataFileEventOrder::File)?;
    let mut output = PerfDataFileWriter::new();
    output.create_file(output_path)?;
    for index in 1..32u8 {
        let index = PerfHeaderIndex(index);
        if index == PerfHeaderIndex::EventDesc || index == PerfHeaderIndex::TracingData {
            continue;
        }
        let data = input.header(index);
        if !data.is_empty() {
            assert!(output.set_header(index, data), "{index:?}");
        }
        assert_eq!(output.get_header(index), data);
    }
    output.set_tracing_data_required(
        input.tracing_data_long_size(),
        input.tracing_data_page_size(),
    );
    assert!(output.set_tracing_data_header_page(input.tracing_data_header_page()));
    assert!(output.set_tracing_data_header_event(input.tracing_data_header_event()));
    while input.move_next_event()? {
        let event = input.current_event();
        // Records a stream carries for its header: the writer makes a file's header itself.
        if event.header.ty.0 >= 64 && event.header.ty.0 <= 70 && event.header.ty.0 != 68 {
            continue;
        }
        output.write_event_data(event.data)?;
    }
    let mut named: Vec<Vec<u64>> = Vec::new();
    for desc in input.event_desc_list() {
        if desc.name().is_empty() || named.iter().any(|ids| ids == desc.ids()) {
            continue;
        }
        named.push(desc.ids().to_vec());
        let added = match desc.format_arc() {
            Some(format) => {
                output.add_tracepoint_event_desc(desc.ids(), desc.attr(), desc.name(), format)
            }
            None => output.add_event_desc(desc.ids(), desc.attr(), desc.name()),
        };
        assert!(added, "{}", desc.name());
    }
    output.finalize_and_close()
}

#[test]
fn a_05_rewrite_program_runs_with_only_its_writer_use_line_changed() {
    let input = fixture_path("sched_switch.data");
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.data");
    rewrite(input.to_str().unwrap(), output.to_str().unwrap()).unwrap();
    assert_eq!(&std::fs::read(&output).unwrap()[..8], b"PERFILE2");
    if require_perf() {
        let want = script_lines(&perf_script(&input, &[]));
        let got = script_lines(&perf_script(&output, &[]));
        assert!(!want.is_empty());
        assert_eq!(got, want);
    }
}
