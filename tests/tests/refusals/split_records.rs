//! A record begun in one call and finished in another: its header is judged at the call
//! that gives it, a refusal while it waits names it and the remedy, and a finish that
//! drops it writes the file and says so. Each case writes good SAMPLEs, one bad input, more
//! good SAMPLEs, then finalizes; perf 6.1 and linux-perf-data read every good SAMPLE.

use integration_tests::perf_tool::{perf_script, require_perf, script_lines};
use integration_tests::records::RecordBuilder;
use integration_tests::{lpd, temp_data_file, Endian};
use perf_writer_std::perf_encode::records::FramingError;
use perf_writer_std::RecordError;
use perf_writer_std::{
    FileOutput, OutputMode, PartialRecord, PerfPipeWriter, PerfWriter, RecordProblem, WriterError,
    MAX_RECORD_LEN,
};
use std::io::Cursor;
use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};

const IDENTIFIER: u64 = 1 << 16;
const IP: u64 = 1 << 0;
const TID: u64 = 1 << 1;
const TIME: u64 = 1 << 2;

fn attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: PerfEventAttrSampleType(IDENTIFIER | IP | TID | TIME),
        sample_time: 1000,
        ..Default::default()
    }
}

/// A SAMPLE of id 1, task `pid`, at time `t`: 40 bytes.
fn sample(e: Endian, pid: u32, t: u64) -> Vec<u8> {
    RecordBuilder::new(e, 9, 2)
        .u64(1)
        .u64(0x40_1000)
        .u32(pid)
        .u32(pid)
        .u64(t)
        .finish()
}

fn writer(strict: bool) -> PerfWriter<FileOutput<Cursor<Vec<u8>>>> {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.set_strict(strict);
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    w
}

/// Both readers see exactly the SAMPLEs at `times`.
fn read_back(bytes: &[u8], pipe: bool, times: &[u64]) {
    let l = match pipe {
        false => lpd::read_file(bytes),
        true => lpd::read_pipe(bytes),
    }
    .unwrap();
    assert!(l.records_with_parse_errors().is_empty());
    let got: Vec<u64> = l
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref().and_then(|s| s.time))
        .collect();
    assert_eq!(got, times);
    if require_perf() {
        let f = temp_data_file(bytes);
        let out = perf_script(f.path(), &[]);
        out.assert_clean();
        assert_eq!(script_lines(&out).len(), times.len(), "{}", out.stdout);
    }
}

/// A big-endian writer given a little-endian SAMPLE reads type 0x09000000, size 0x2000: in
/// strict mode a record perf knows no type of is refused at the call that gives its header,
/// not taken as the start of an 8 KiB record that swallows the SAMPLEs after it.
#[test]
fn a_header_of_an_unknown_type_is_refused_at_its_call() {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
        Cursor::new(Vec::new()),
        perf_writer_std::Endian::Big,
    )
    .unwrap();
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    w.write_event_data(&sample(Endian::Big, 7, 100)).unwrap();
    let err = w
        .write_event_data(&sample(Endian::Little, 7, 200))
        .unwrap_err();
    assert_eq!(
        &err,
        &WriterError::Record(RecordError::Refused {
            offset: 0,
            type_: 0x0900_0000,
            problem: RecordProblem::UnknownType
        })
    );
    assert_eq!(w.partial_record(), None);
    w.write_event_data(&sample(Endian::Big, 7, 300)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    read_back(&bytes, false, &[100, 300]);
}

/// An AUXTRACE announcing `u64::MAX` bytes of payload: no perf.data file can hold it, so
/// it is refused at its call in every mode (it would otherwise be every byte after it).
#[test]
fn a_payload_no_file_can_hold_is_refused_at_its_call() {
    for strict in [true, false] {
        let e = Endian::Little;
        let mut w = writer(strict);
        w.write_event_data(&sample(e, 7, 100)).unwrap();
        let aux = RecordBuilder::new(e, 71, 0)
            .u64(u64::MAX)
            .u64(0)
            .u64(0)
            .u32(0)
            .u32(7)
            .u32(0)
            .u32(0)
            .finish();
        let err = w.write_event_data(&aux).unwrap_err();
        assert!(
            matches!(&err, WriterError::Record(RecordError::Framing(FramingError::TooLong { len, .. })) if *len > MAX_RECORD_LEN),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("more than a perf.data file can hold"),
            "{err}"
        );
        assert_eq!(w.partial_record_len(), 0);
        w.write_event_data(&sample(e, 7, 200)).unwrap();
        read_back(&w.finish().unwrap().into_inner(), false, &[100, 200]);
    }
}

/// A pipe-mode HEADER_TRACING_DATA announcing 4 GiB of tracing data, given to a file-mode
/// writer in strict mode: refused by its header at once.
#[test]
fn a_pipe_only_record_is_refused_by_its_header() {
    let e = Endian::Little;
    let mut w = writer(true);
    w.write_event_data(&sample(e, 7, 100)).unwrap();
    let tracing = RecordBuilder::new(e, 66, 0).u32(u32::MAX).u32(0).finish();
    let err = w.write_event_data(&tracing).unwrap_err();
    assert_eq!(
        &err,
        &WriterError::Record(RecordError::Refused {
            offset: 0,
            type_: 66,
            problem: RecordProblem::WriterManaged
        })
    );
    assert_eq!(w.partial_record_len(), 0);
    w.write_event_data(&sample(e, 7, 200)).unwrap();
    read_back(&w.finish().unwrap().into_inner(), false, &[100, 200]);
}

/// The first 8 bytes of a record of `type_` announcing `size` bytes.
fn begun(e: Endian, type_: u32, size: u16) -> Vec<u8> {
    let mut h = RecordBuilder::new(e, type_, 0).finish();
    h[6..8].copy_from_slice(&e.u16_bytes(size));
    h
}

/// The start of a 32-byte COMM waits; a good 40-byte SAMPLE of task 31337 given next
/// continues it: its bytes from 24 on read as a record of type 31337 and size 0. The
/// refusal names the waiting record (type, 32 bytes announced, 8 given, its file offset)
/// and `abandon_partial_record`; every good SAMPLE is refused the same way until it is
/// dropped, and taken after. In strict mode the start of a 40-byte FORK waits too: the
/// SAMPLE completes it, the FORK (a type of 32 bytes here) is refused and dropped, and the
/// error says so.
fn a_refusal_names_the_waiting_record<O: OutputMode>(
    mut w: PerfWriter<O>,
    strict: bool,
) -> O::Stream {
    let e = Endian::Little;
    w.set_strict(strict);
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    w.write_event_data(&sample(e, 7, 100)).unwrap();
    let good = sample(e, 31337, 200);
    let at = w.file_pos().unwrap();
    w.write_event_data(&begun(e, 3, 32)).unwrap();
    let waiting = PartialRecord {
        type_: 3,
        len: Some(32),
        given: 8,
        offset: at,
    };
    assert_eq!(w.partial_record(), Some(waiting));
    let err = w.write_event_data(&good).unwrap_err();
    let msg = err.to_string();
    assert_eq!(
        &err,
        &WriterError::Record(RecordError::InsidePartial {
            partial: waiting,
            dropped: false,
            error: Box::new(WriterError::Record(RecordError::Framing(
                FramingError::BadSize {
                    offset: 24,
                    type_: 31337,
                    size: 0
                }
            ))),
        }),
        "{msg}"
    );
    assert!(msg.contains("abandon_partial_record()"), "{msg}");
    assert!(msg.contains(&format!("file offset {at}")), "{msg}");
    assert!(w.write_event_data(&good).is_err());
    assert_eq!(w.abandon_partial_record(), 8);
    assert_eq!(w.partial_record(), None);
    if strict {
        w.write_event_data(&begun(e, 7, 40)).unwrap();
        let err = w.write_event_data(&good).unwrap_err();
        let msg = err.to_string();
        match &err {
            WriterError::Record(RecordError::InsidePartial {
                partial,
                dropped: true,
                error,
            }) => {
                assert_eq!((partial.type_, partial.given), (7, 8));
                assert!(
                    matches!(
                        **error,
                        WriterError::Record(RecordError::Refused {
                            offset: 0,
                            type_: 7,
                            ..
                        })
                    ),
                    "{msg}"
                );
                assert!(msg.contains("which is dropped"), "{msg}");
            }
            other => panic!("{other}"),
        }
        assert_eq!(w.partial_record(), None);
    }
    w.write_event_data(&good).unwrap();
    w.finish().unwrap()
}

#[test]
fn a_refusal_while_a_record_waits_names_it_and_the_remedy() {
    for strict in [false, true] {
        let file = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        let bytes = a_refusal_names_the_waiting_record(file, strict).into_inner();
        read_back(&bytes, false, &[100, 200]);
        let pipe = PerfPipeWriter::from_writer(Vec::new()).unwrap();
        let stream = a_refusal_names_the_waiting_record(pipe, strict);
        read_back(&stream, true, &[100, 200]);
    }
}

/// A finish that drops a record begun and not finished writes the file with the records
/// before it and returns an error that says what it dropped; finishing again gives the
/// output back.
#[test]
fn a_finish_that_drops_a_record_says_so() {
    for strict in [true, false] {
        let e = Endian::Little;
        let mut w = writer(strict);
        w.write_event_data(&sample(e, 7, 100)).unwrap();
        w.write_event_data(&sample(e, 7, 200)).unwrap();
        let at = w.file_pos().unwrap();
        w.write_event_data(&sample(e, 7, 300)[..12]).unwrap();
        let err = w.finish().unwrap_err();
        let dropped = PartialRecord {
            type_: 9,
            len: Some(40),
            given: 12,
            offset: at,
        };
        assert_eq!(
            err,
            WriterError::Record(RecordError::PartialDropped(dropped))
        );
        assert!(err
            .to_string()
            .contains("the file was written with the records before it"));
        let bytes = w.finish().unwrap().into_inner();
        read_back(&bytes, false, &[100, 200]);
    }
}
