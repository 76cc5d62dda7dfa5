//! The crate's error convention (crate documentation, "Errors"): the native writer's methods
//! return `Result<_, WriterError>`, a stream error arriving as `OutputError::Io`; the
//! compatibility face's `tracepoint_perf` 0.5 methods keep `io::Result`, giving back the
//! stream's own error.

use perf_writer_std::perf_encode::Endian;
use perf_writer_std::{EventError, FeatureError, OutputError, RecordError, TracingError};
use perf_writer_std::{
    FileOutput, HostDescription, PerfDataFileWriter, PerfHeaderIndex, PerfPipeWriter, PerfWriter,
    WriterError,
};
use std::io::{self, Cursor, Seek, SeekFrom, Write};

/// ENOSPC: a stream error with an OS code, which only the original `io::Error` carries.
const NO_SPACE: i32 = 28;

/// A stream whose writes (and, when asked, seeks) fail with ENOSPC.
struct Full {
    seek_fails: bool,
}

impl Write for Full {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(NO_SPACE))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Full {
    fn seek(&mut self, _: SeekFrom) -> io::Result<u64> {
        if self.seek_fails {
            return Err(io::Error::from_raw_os_error(NO_SPACE));
        }
        Ok(0)
    }
}

fn io_error_code(e: &WriterError) -> Option<i32> {
    match e {
        WriterError::Output(OutputError::Io(shared)) => shared.get().raw_os_error(),
        _ => None,
    }
}

#[test]
fn the_crates_methods_report_stream_errors_as_writer_error_io() {
    // The types are the test as much as the values: these are `Result<_, WriterError>`.
    let opened: Result<PerfWriter<FileOutput<Full>>, WriterError> =
        PerfWriter::<FileOutput<_>>::from_writer(Full { seek_fails: true });
    let err = opened.expect_err("the start position cannot be read");
    assert_eq!(io_error_code(&err), Some(NO_SPACE), "{err}");

    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Full { seek_fails: false }).unwrap();
    let flushed: Result<(), WriterError> = w.flush();
    let err = flushed.unwrap_err();
    assert_eq!(io_error_code(&err), Some(NO_SPACE), "{err}");
    assert!(err.to_string().contains("output stream"), "{err}");
    // Still the stream's error (nothing was written, so there is no room to keep any
    // record either): the writer stays open.
    let finished: Result<Full, WriterError> = w.finish();
    let err = finished.err().expect("nothing can be written");
    assert_eq!(io_error_code(&err), Some(NO_SPACE), "{err}");
    assert!(w.file_pos().is_some());
    w.close_no_finalize();

    let mut pipe = PerfPipeWriter::from_writer(Full { seek_fails: false }).unwrap();
    let err = pipe.flush().unwrap_err();
    assert_eq!(io_error_code(&err), Some(NO_SPACE), "{err}");

    // An output open already is not thrown away by opening another.
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    let reopened: Result<(), WriterError> = w.open_writer(Cursor::new(Vec::new()));
    assert_eq!(reopened, Err(WriterError::Output(OutputError::AlreadyOpen)));
    assert!(w.is_open());
    let first = w.finish().unwrap().into_inner();
    assert_eq!(&first[..8], b"PERFILE2");
    assert!(!w.is_open());
    let reopened: Result<(), WriterError> = w.open_writer(Cursor::new(Vec::new()));
    reopened.unwrap();
}

#[test]
fn the_native_methods_of_the_seeds_names_return_writer_error() {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Full { seek_fails: false }).unwrap();
    let finalized: Result<(), WriterError> = w.finalize_and_close();
    let err = finalized.unwrap_err();
    assert_eq!(io_error_code(&err), Some(NO_SPACE), "{err}");
    w.close_no_finalize();

    let mut closed = PerfWriter::<FileOutput>::new();
    let written: Result<(), WriterError> = closed.write_event_data(&[0; 8]);
    assert_eq!(written, Err(WriterError::Output(OutputError::NotOpen)));
    let round: Result<(), WriterError> = closed.write_finished_round();
    assert_eq!(round, Err(WriterError::Output(OutputError::NotOpen)));
    let vectored: Result<usize, WriterError> =
        closed.write_event_data_vectored(&[io::IoSlice::new(&[0; 8])]);
    assert_eq!(vectored, Err(WriterError::Output(OutputError::NotOpen)));
    // A refusal 0.5's `()` setter dropped is returned.
    let required: Result<(), WriterError> = closed.set_tracing_data_required(3, 4096);
    assert!(matches!(
        required,
        Err(WriterError::Tracing(TracingError::BadSetting(_)))
    ));
    let created: Result<(), WriterError> = closed.create_file("/nonexistent-dir/perf.data");
    assert!(
        matches!(created, Err(WriterError::Output(OutputError::Io(_)))),
        "{created:?}"
    );
}

#[test]
fn the_seeds_methods_give_back_the_streams_own_error() {
    let native = PerfWriter::<FileOutput<_>>::from_writer(Full { seek_fails: false }).unwrap();
    let mut w = PerfDataFileWriter::from(native);
    let err: io::Error = w.finalize_and_close().unwrap_err();
    assert_eq!(err.raw_os_error(), Some(NO_SPACE), "{err}");
    w.close_no_finalize();
    // And their refusals carry the WriterError.
    let mut closed = PerfDataFileWriter::new();
    let err = closed.finalize_and_close().unwrap_err();
    assert_eq!(
        WriterError::from_io(&err),
        Some(&WriterError::Output(OutputError::NotOpen))
    );
    // A closed writer's calls fail with the kind tracepoint_perf 0.5 gives them.
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    let written = closed.write_event_data(&[0; 8]).unwrap_err();
    assert_eq!(written.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn writer_error_and_io_error_convert_both_ways() {
    for e in [
        WriterError::Output(OutputError::NotOpen),
        WriterError::Record(RecordError::Incomplete),
        WriterError::Event(EventError::TooMany),
    ] {
        assert_eq!(WriterError::from(io::Error::from(e.clone())), e);
    }
    let io_err = io::Error::from_raw_os_error(NO_SPACE);
    let e = WriterError::from(io_err);
    assert_eq!(io_error_code(&e), Some(NO_SPACE));
    // A clone still alive: the io::Error carries the WriterError, with the stream's kind.
    let kept = e.clone();
    let back = io::Error::from(e);
    assert_eq!(back.kind(), io::Error::from_raw_os_error(NO_SPACE).kind());
    assert_eq!(WriterError::from_io(&back), Some(&kept));
    // Alone (the other holder dropped): the original comes back.
    drop(back);
    assert_eq!(io::Error::from(kept).raw_os_error(), Some(NO_SPACE));
}

#[test]
fn empty_bpf_lists_are_refused_in_the_foreign_byte_order() {
    let foreign = match Endian::NATIVE {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    };
    let mut w = PerfWriter::<FileOutput>::new_with_endian(foreign);
    assert!(matches!(
        w.set_empty_bpf_headers(),
        Err(WriterError::Feature(FeatureError::ForeignByteOrder(_)))
    ));
    // set_host_headers leaves them out there, without an error.
    let host = HostDescription {
        hostname: Some("vm".into()),
        ..Default::default()
    };
    w.set_host_headers(&host).unwrap();
    assert!(!w.has_header(PerfHeaderIndex::BpfProgInfo));
    assert!(!w.has_header(PerfHeaderIndex::BpfBtf));
    assert!(w.has_header(PerfHeaderIndex::Hostname));

    let mut native = PerfWriter::<FileOutput>::new();
    native.set_host_headers(&host).unwrap();
    assert_eq!(native.get_header(PerfHeaderIndex::BpfBtf), [0; 4]);
}

#[test]
fn the_face_opens_over_an_open_file_as_0_5_did() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.data"), dir.path().join("b.data"));
    let mut w = PerfDataFileWriter::new();
    w.create_file(a.to_str().unwrap()).unwrap();
    // 0.5 closes the first without finalizing; the native writer refuses instead.
    w.create_file(b.to_str().unwrap()).unwrap();
    w.finalize_and_close().unwrap();
    assert_eq!(&std::fs::read(&b).unwrap()[..8], b"PERFILE2");
}
