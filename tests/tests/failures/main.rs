//! Failures of the output and of the caller: failing writes, dropped writers and careless call
//! sequences (`call_sequences`) never lose what the writer accepted.
//!
//! Nothing accepted is lost: a record begun and not finished
//! can be dropped and never wedges the writer; a dropped writer leaves a file perf reads; a
//! failed write takes nothing, and the same writer retries and ends with every accepted
//! event, or, when the output stays full, finalizes with the records that reached it. Every
//! output is read back by linux-perf-data, and by perf 6.1 where it says most.

mod call_sequences;

use integration_tests::perf_tool::{perf_script, perf_script_stdin, require_perf, script_lines};
use integration_tests::records::{sample, RecordBuilder, StdSample};
use integration_tests::{lpd, temp_data_file, Endian};
use perf_writer_std::perf_encode::records::FramingError;
use perf_writer_std::{EventError, OutputError, RecordError};
use perf_writer_std::{
    FileOutput, OutputMode, PerfPipeWriter, PerfWriter, RecordProblem, WriterError, MAX_RECORD_LEN,
    MAX_SPLIT_RECORD_LEN,
};
use std::cell::RefCell;
use std::io::{self, IoSlice, Seek, SeekFrom, Write};
use std::rc::Rc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrSize,
    PerfEventAttrType,
};

const LAYOUT: u64 =
    sample::IDENTIFIER | sample::IP | sample::TID | sample::TIME | sample::CPU | sample::PERIOD;

/// Length of [`one_sample`]'s records.
const SAMPLE_LEN: usize = 56;

fn attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        size: PerfEventAttrSize::Ver7,
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(LAYOUT),
        // sample_id_all
        options: PerfEventAttrOptions(1 << 18),
        ..Default::default()
    }
}

/// The `n`-th sample: its time is `1000 + n`, which the readers give back.
fn one_sample(n: u64, e: Endian) -> Vec<u8> {
    one_sample_fields(n).encode(e)
}

/// The fields of [`one_sample`].
fn one_sample_fields(n: u64) -> StdSample<'static> {
    StdSample {
        id: 1,
        ip: 0x1000 + n,
        pid: 7,
        tid: 7,
        time: 1000 + n,
        cpu: 0,
        period: 1,
        raw: None,
        misc: 2,
    }
}

fn writer_endian(e: Endian) -> perf_writer_std::Endian {
    match e {
        Endian::Little => perf_writer_std::Endian::Little,
        Endian::Big => perf_writer_std::Endian::Big,
    }
}

/// The times of the samples linux-perf-data reads, in order.
fn lpd_times(bytes: &[u8], pipe: bool) -> Vec<u64> {
    let read = if pipe {
        lpd::read_pipe(bytes)
    } else {
        lpd::read_file(bytes)
    };
    let summary = read.unwrap_or_else(|e| panic!("linux-perf-data: {e}"));
    assert!(summary.records_with_parse_errors().is_empty());
    summary
        .records
        .iter()
        .filter(|r| r.record_type == 9)
        .map(|r| r.sample.as_ref().and_then(|s| s.time).expect("a time"))
        .collect()
}

/// The samples `perf script` prints (`None` when perf is not here).
fn perf_samples(bytes: &[u8], pipe: bool) -> Option<usize> {
    if !require_perf() {
        return None;
    }
    let out = if pipe {
        perf_script_stdin(bytes)
    } else {
        let f = temp_data_file(bytes);
        perf_script(f.path(), &[])
    };
    out.assert_success();
    Some(script_lines(&out).len())
}

/// Asserts that both readers see exactly the samples `times` (perf: their number).
fn assert_read_back(bytes: &[u8], pipe: bool, times: &[u64]) {
    assert_eq!(lpd_times(bytes, pipe), times);
    if let Some(n) = perf_samples(bytes, pipe) {
        assert_eq!(n, times.len(), "perf script's samples");
    }
}

/// The writer's refusal, or `None` for an error of the output stream.
fn refusal(e: &WriterError) -> Option<&WriterError> {
    match e {
        WriterError::Output(OutputError::Io(_)) => None,
        refused => Some(refused),
    }
}

/// The OS error code of an error of the output stream.
fn os_error(e: &WriterError) -> Option<i32> {
    match e {
        WriterError::Output(OutputError::Io(stream)) => stream.get().raw_os_error(),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// A record begun and not finished.

/// Samples, a record cut short and dropped, more samples, one cut short and left: in both
/// modes, both byte orders, strict or not, the output holds exactly the whole samples.
#[test]
fn an_unfinished_record_is_dropped_and_the_writer_goes_on() {
    for pipe in [false, true] {
        for e in [Endian::Little, Endian::Big] {
            for strict in [false, true] {
                let what = format!("pipe {pipe}, {e:?}, strict {strict}");
                let run =
                    |w: &mut dyn FnMut(&[u8]) -> Result<(), WriterError>,
                     partial: &dyn Fn() -> u64,
                     abandon: &mut dyn FnMut() -> u64,
                     round: &mut dyn FnMut() -> Result<(), WriterError>| {
                        for n in 0..3 {
                            w(&one_sample(n, e)).unwrap();
                        }
                        w(&one_sample(99, e)[..20]).unwrap();
                        assert_eq!(partial(), 20, "{what}");
                        // Nothing of the writer's own goes inside it.
                        let err = round().unwrap_err();
                        assert_eq!(
                            refusal(&err),
                            Some(&WriterError::Record(RecordError::Incomplete))
                        );
                        assert_eq!(abandon(), 20, "{what}");
                        assert_eq!(partial(), 0);
                        for n in 3..5 {
                            w(&one_sample(n, e)).unwrap();
                        }
                        // Left unfinished: finish drops it.
                        w(&one_sample(98, e)[..30]).unwrap();
                    };
                let bytes = if pipe {
                    let mut w =
                        PerfPipeWriter::from_writer_with_endian(Vec::new(), writer_endian(e))
                            .unwrap();
                    w.set_strict(strict);
                    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
                    let w = RefCell::new(w);
                    run(
                        &mut |d| w.borrow_mut().write_event_data(d),
                        &|| w.borrow().partial_record_len(),
                        &mut || w.borrow_mut().abandon_partial_record(),
                        &mut || w.borrow_mut().write_finished_round(),
                    );
                    let bytes = finish_dropping(|| w.borrow_mut().finish(), 30);
                    bytes
                } else {
                    let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
                        io::Cursor::new(Vec::new()),
                        writer_endian(e),
                    )
                    .unwrap();
                    w.set_strict(strict);
                    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
                    let w = RefCell::new(w);
                    run(
                        &mut |d| w.borrow_mut().write_event_data(d),
                        &|| w.borrow().partial_record_len(),
                        &mut || w.borrow_mut().abandon_partial_record(),
                        &mut || w.borrow_mut().write_finished_round(),
                    );
                    let bytes = finish_dropping(|| w.borrow_mut().finish(), 30).into_inner();
                    bytes
                };
                assert_read_back(&bytes, pipe, &[1000, 1001, 1002, 1003, 1004]);
            }
        }
    }
}

/// `finish` of a writer left inside a record of which `given` bytes came: it drops the
/// record, writes the output and says so; finishing again gives the output back.
fn finish_dropping<S>(mut finish: impl FnMut() -> Result<S, WriterError>, given: u64) -> S {
    match finish() {
        Err(WriterError::Record(RecordError::PartialDropped(p))) => {
            assert_eq!(p.given, given, "{p}")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("finish dropped an unfinished record without a word"),
    }
    finish().expect("finish again")
}

/// A big-endian writer given a record in the little-endian order reads its type 9 as
/// 0x09000000 and its size 56 (0x38) as 14,336: strict mode refuses it at the call (perf
/// knows no such type); unchecked, it waits for the rest and can be dropped, and the file
/// is whole.
#[test]
fn a_record_in_the_wrong_byte_order_can_be_dropped() {
    for strict in [false, true] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
            io::Cursor::new(Vec::new()),
            perf_writer_std::Endian::Big,
        )
        .unwrap();
        w.set_strict(strict);
        w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
        w.write_event_data(&one_sample(0, Endian::Big)).unwrap();
        let taken = w.write_event_data(&one_sample(1, Endian::Little));
        if strict {
            let err = taken.unwrap_err();
            assert!(
                matches!(
                    refusal(&err),
                    Some(WriterError::Record(RecordError::Refused {
                        offset: 0,
                        type_: 0x0900_0000,
                        problem: RecordProblem::UnknownType
                    }))
                ),
                "{err}"
            );
            assert_eq!(w.partial_record_len(), 0);
        } else {
            taken.unwrap();
            assert_eq!(w.partial_record_len(), SAMPLE_LEN as u64);
            assert_eq!(w.abandon_partial_record(), SAMPLE_LEN as u64);
        }
        w.write_event_data(&one_sample(2, Endian::Big)).unwrap();
        let bytes = w.finish().unwrap().into_inner();
        assert_eq!(&bytes[..8], b"2ELIFREP");
        assert_read_back(&bytes, false, &[1000, 1002]);
    }
}

/// An AUXTRACE record (its 48-byte header part) announcing `payload` bytes after it.
fn auxtrace(e: Endian, payload: u64) -> Vec<u8> {
    RecordBuilder::new(e, 71, 0)
        .u64(payload) // size
        .u64(0) // offset
        .u64(0) // reference
        .u32(0) // idx
        .u32(7) // tid
        .u32(0) // cpu
        .u32(0) // reserved
        .finish()
}

/// The AUXTRACE_INFO an AUXTRACE record needs before it: HiSilicon PTT's, of PMU type 1.
fn auxtrace_info(e: Endian) -> Vec<u8> {
    RecordBuilder::new(e, 70, 0).u32(6).u32(0).u64(1).finish()
}

/// An AUXTRACE record announcing a huge payload: pipe mode refuses it at the call (it would
/// have to hold it back), file mode takes it and drops it at finish, or when asked, also
/// after a part of it larger than the buffer went to the file.
#[test]
fn a_record_announcing_a_huge_payload_does_not_wedge_the_writer() {
    let e = Endian::Little;
    // Strict mode passes the payload through unchecked; the same rules hold either way.
    for strict in [false, true] {
        // Pipe mode: refused, nothing written.
        let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
        w.set_strict(strict);
        w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
        w.write_event_data(&one_sample(0, e)).unwrap();
        w.write_event_data(&auxtrace_info(e)).unwrap();
        let err = w.write_event_data(&auxtrace(e, 1 << 40)).unwrap_err();
        assert!(
            matches!(refusal(&err), Some(WriterError::Record(RecordError::SplitTooLong { max, .. })) if *max == MAX_SPLIT_RECORD_LEN),
            "strict {strict}: {err}"
        );
        assert_eq!(w.partial_record_len(), 0);
        // The same with a sample before it in the same call: nothing of the call is taken.
        let call = [one_sample(5, e), auxtrace(e, 1 << 40)].concat();
        assert!(w.write_event_data(&call).is_err());
        w.write_event_data(&one_sample(1, e)).unwrap();
        let bytes = w.finish().unwrap();
        assert_read_back(&bytes, true, &[1000, 1001]);

        // File mode: taken; finish drops it, and says so.
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(io::Cursor::new(Vec::new())).unwrap();
        w.set_strict(strict);
        w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
        w.write_event_data(&one_sample(0, e)).unwrap();
        w.write_event_data(&auxtrace_info(e)).unwrap();
        w.write_event_data(&auxtrace(e, 1 << 40)).unwrap();
        let bytes = finish_dropping(|| w.finish(), 48).into_inner();
        assert_read_back(&bytes, false, &[1000]);

        // A payload no file can hold: refused at the call in either mode.
        let err = w_refusing_too_long(strict, e);
        assert!(
            matches!(refusal(&err), Some(WriterError::Record(RecordError::Framing(FramingError::TooLong { len, .. }))) if *len > MAX_RECORD_LEN),
            "{err}"
        );

        // File mode, 600 KiB of the payload given (more than the buffer holds back: it
        // reached the file), then dropped: the file goes back over it.
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(io::Cursor::new(Vec::new())).unwrap();
        w.set_strict(strict);
        w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
        w.write_event_data(&one_sample(0, e)).unwrap();
        w.write_event_data(&auxtrace_info(e)).unwrap();
        w.write_event_data(&auxtrace(e, 1 << 20)).unwrap();
        let chunk = vec![0xAAu8; 100 * 1024];
        for _ in 0..6 {
            w.write_event_data(&chunk).unwrap();
        }
        assert_eq!(w.partial_record_len(), 48 + 600 * 1024);
        assert_eq!(w.abandon_partial_record(), 48 + 600 * 1024);
        w.write_event_data(&one_sample(1, e)).unwrap();
        let bytes = w.finish().unwrap().into_inner();
        assert_read_back(&bytes, false, &[1000, 1001]);
    }
}

/// An AUXTRACE announcing `u64::MAX` bytes given to a file-mode writer in strict mode or
/// not, after a SAMPLE: the error, once the writer was shown to go on (the record was not
/// taken).
fn w_refusing_too_long(strict: bool, e: Endian) -> WriterError {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(io::Cursor::new(Vec::new())).unwrap();
    w.set_strict(strict);
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    w.write_event_data(&one_sample(0, e)).unwrap();
    w.write_event_data(&auxtrace_info(e)).unwrap();
    let err = w.write_event_data(&auxtrace(e, u64::MAX)).unwrap_err();
    assert_eq!(w.partial_record_len(), 0);
    w.write_event_data(&one_sample(1, e)).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert_read_back(&bytes, false, &[1000, 1001]);
    err
}

// ---------------------------------------------------------------------------------------
// Dropping an open writer.

/// A tracepoint event whose format never comes: finish refuses (the format can still be
/// added), while a drop writes the event as a software event of the same name, so that
/// perf reads every record the writer took (before and after a refused finish).
#[test]
fn a_tracepoint_without_its_format_does_not_cost_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let e = Endian::NATIVE_FOR_TESTS;
    let tracepoint = PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: 1234,
        ..attr()
    };
    for refused_first in [false, true] {
        let path = dir.path().join(format!("formatless-{refused_first}.data"));
        {
            let mut w = PerfWriter::<FileOutput>::new();
            w.create_file(path.to_str().unwrap()).unwrap();
            w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
            w.add_event_desc(&[2], &tracepoint, "x:y").unwrap();
            for n in 0..10 {
                w.write_event_data(&one_sample(n, e)).unwrap();
            }
            if refused_first {
                assert_eq!(
                    w.finish().unwrap_err(),
                    WriterError::Event(EventError::MissingTracepointFormat { config: 1234 })
                );
            }
        }
        let bytes = std::fs::read(&path).unwrap();
        let times: Vec<u64> = (1000..1010).collect();
        assert_read_back(&bytes, false, &times);
        let summary = lpd::read_file(&bytes).unwrap();
        let names: Vec<_> = summary.attrs.iter().map(|a| a.name.as_deref()).collect();
        assert_eq!(
            names,
            [Some("cpu-clock"), Some("x:y")],
            "refused first {refused_first}"
        );
    }
}

#[test]
fn a_dropped_writer_leaves_a_file_perf_reads() {
    let dir = tempfile::tempdir().unwrap();
    let e = Endian::NATIVE_FOR_TESTS;
    for pipe in [false, true] {
        let path = dir.path().join(format!("dropped-{pipe}.data"));
        let path_str = path.to_str().unwrap();
        // An early return or a panic elsewhere: the writer is dropped with its output open,
        // a record half written.
        if pipe {
            let mut w = PerfPipeWriter::new();
            w.create_file(path_str).unwrap();
            w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
            for n in 0..10 {
                w.write_event_data(&one_sample(n, e)).unwrap();
            }
            w.write_event_data(&one_sample(10, e)[..16]).unwrap();
        } else {
            let mut w = PerfWriter::<FileOutput>::new();
            w.create_file(path_str).unwrap();
            w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
            for n in 0..10 {
                w.write_event_data(&one_sample(n, e)).unwrap();
            }
            w.write_event_data(&one_sample(10, e)[..16]).unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        let times: Vec<u64> = (1000..1010).collect();
        assert_eq!(lpd_times(&bytes, pipe), times, "pipe {pipe}");
        if require_perf() {
            let out = perf_script(&path, &[]);
            out.assert_success();
            assert_eq!(script_lines(&out).len(), 10, "pipe {pipe}");
        }
    }
    // close_no_finalize still closes without: the file is not a perf file.
    let path = dir.path().join("closed.data");
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(path.to_str().unwrap()).unwrap();
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    w.write_event_data(&one_sample(0, e)).unwrap();
    w.close_no_finalize();
    drop(w);
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes[..8].iter().all(|&b| b == 0));
    assert!(lpd::read_file(&bytes).is_err());
}

trait NativeForTests {
    const NATIVE_FOR_TESTS: Endian;
}

impl NativeForTests for Endian {
    const NATIVE_FOR_TESTS: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };
}

// ---------------------------------------------------------------------------------------
// Write failures, and the fault-injecting output.

/// What [`Faulty`] does at its failing calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `EIO`, once per failing call.
    Eio,
    /// `Interrupted` (the writer retries it inside).
    Interrupted,
    /// `WouldBlock`, as a non-blocking pipe says.
    WouldBlock,
    /// A write that takes nothing (`Ok(0)`); other calls fail with `WriteZero`.
    WriteZero,
    /// From the failing call on, the disk is full for good: writes past the file's size
    /// fail with `ENOSPC` (a write up to it is cut short); bytes already in the file can be
    /// written again, as on a real file system.
    DiskFull,
}

const ALL_FAULTS: [Fault; 5] = [
    Fault::Eio,
    Fault::Interrupted,
    Fault::WouldBlock,
    Fault::WriteZero,
    Fault::DiskFull,
];

/// A `Write + Seek` over a shared byte vector that fails every `every`-th call (0: never);
/// a write takes at most 64 KiB, so that a buffer goes out in several calls.
struct Faulty {
    data: Rc<RefCell<Vec<u8>>>,
    pos: usize,
    calls: u64,
    every: u64,
    fault: Fault,
    /// The size at which the disk became full.
    full_at: Option<usize>,
}

impl Faulty {
    fn new(fault: Fault, every: u64) -> (Self, Rc<RefCell<Vec<u8>>>) {
        let data = Rc::new(RefCell::new(Vec::new()));
        let f = Faulty {
            data: data.clone(),
            pos: 0,
            calls: 0,
            every,
            fault,
            full_at: None,
        };
        (f, data)
    }

    /// Counts a call; the error of a transient fault, when this call fails.
    fn call(&mut self) -> Option<io::Error> {
        self.calls += 1;
        if self.every == 0 || self.fault == Fault::DiskFull || self.calls % self.every != 0 {
            return None;
        }
        Some(match self.fault {
            Fault::Eio => io::Error::from_raw_os_error(5),
            Fault::Interrupted => io::ErrorKind::Interrupted.into(),
            Fault::WouldBlock => io::ErrorKind::WouldBlock.into(),
            _ => io::ErrorKind::WriteZero.into(),
        })
    }
}

impl Write for Faulty {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = self.call() {
            return match self.fault {
                Fault::WriteZero => Ok(0),
                _ => Err(e),
            };
        }
        let mut n = buf.len().min(64 * 1024);
        if self.fault == Fault::DiskFull && self.every != 0 && self.calls >= self.every {
            let limit = *self.full_at.get_or_insert(self.data.borrow().len());
            if self.pos >= limit {
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            n = n.min(limit - self.pos);
        }
        let mut data = self.data.borrow_mut();
        let end = self.pos + n;
        if data.len() < end {
            data.resize(end, 0);
        }
        data[self.pos..end].copy_from_slice(&buf[..n]);
        self.pos = end;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.call() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Seek for Faulty {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        if let Some(e) = self.call() {
            return Err(e);
        }
        self.pos = match to {
            SeekFrom::Start(p) => p as usize,
            SeekFrom::End(d) => (self.data.borrow().len() as i64 + d) as usize,
            SeekFrom::Current(d) => (self.pos as i64 + d) as usize,
        };
        Ok(self.pos as u64)
    }
}

/// What one run left.
#[derive(Debug)]
struct Outcome {
    /// The output's bytes.
    bytes: Vec<u8>,
    /// The times of the samples the writer accepted, in order.
    accepted: Vec<u64>,
    /// What `finish` said last.
    finish: Result<(), WriterError>,
}

/// Operations of a run: mostly whole samples, some split across calls, some vectored, a
/// refused record and a record begun and dropped now and then, and two large batches.
const OPS: u64 = 5_000;

/// Samples of the two large batches of a run: 134,400 bytes, more than half the writer's
/// 256 KiB buffer.
const BATCH: u64 = 2_400;

/// Calls `op` until it is not refused by a transient fault; `Err` for a refusal of the
/// writer or (disk full) the output's error.
fn retry(fault: Fault, mut op: impl FnMut() -> Result<(), WriterError>) -> Result<(), WriterError> {
    for _ in 0..10_000 {
        match op() {
            Err(e) if refusal(&e).is_none() && fault != Fault::DiskFull => continue,
            other => return other,
        }
    }
    panic!("a transient fault did not clear after 10,000 tries");
}

/// Runs the operations on `w`, retrying what a transient fault refused and stopping at the
/// first failure of a full disk; then finishes.
fn drive<O: OutputMode>(mut w: PerfWriter<O>, fault: Fault, e: Endian, strict: bool) -> Outcome {
    w.set_strict(strict);
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    let mut accepted = Vec::new();
    let mut n = 0u64;
    for k in 0..OPS {
        if k == OPS / 4 || k == OPS * 3 / 4 {
            // A batch of half the output buffer or more in one call, as a collector gives
            // a ring's pending records: it goes to the output from where it lies, and a
            // failure part-way keeps the rest.
            let batch: Vec<u8> = (0..BATCH).flat_map(|i| one_sample(n + i, e)).collect();
            let r = retry(fault, || w.write_event_data(&batch));
            if r.is_ok() {
                accepted.extend((0..BATCH).map(|i| 1000 + n + i));
                n += BATCH;
            }
            if r.as_ref().is_err_and(|e| refusal(e).is_none()) {
                break; // the disk is full
            }
            continue;
        }
        let s = one_sample(n, e);
        let result = match k % 9 {
            // A sample in two calls (each retried on its own).
            3 => retry(fault, || w.write_event_data(&s[..20]))
                .and_then(|()| retry(fault, || w.write_event_data(&s[20..]))),
            // Four samples, eight slices.
            4 => {
                let more: Vec<Vec<u8>> = (0..4).map(|i| one_sample(n + i, e)).collect();
                let slices: Vec<IoSlice> = more
                    .iter()
                    .flat_map(|m| [IoSlice::new(&m[..8]), IoSlice::new(&m[8..])])
                    .collect();
                let r = retry(fault, || w.write_event_data_vectored(&slices).map(drop));
                if r.is_ok() {
                    accepted.extend((0..4).map(|i| 1000 + n + i));
                    n += 4;
                }
                if r.as_ref().is_err_and(|e| refusal(e).is_none()) {
                    break; // the disk is full
                }
                continue;
            }
            // Not a record in either byte order (size 0x0c0c): refused, nothing taken.
            5 => {
                let err = w.write_event_data(&[9, 0, 0, 9, 0, 0, 12, 12]).unwrap_err();
                assert!(matches!(
                    refusal(&err),
                    Some(WriterError::Record(RecordError::Framing(_)))
                ));
                continue;
            }
            // Begun and dropped.
            6 => {
                let r = retry(fault, || w.write_event_data(&s[..24]));
                if r.is_ok() {
                    assert_eq!(w.abandon_partial_record(), 24);
                }
                if r.is_err() {
                    break; // the disk is full
                }
                continue;
            }
            _ => retry(fault, || w.write_event_data(&s)),
        };
        match result {
            Ok(()) => {
                accepted.push(1000 + n);
                n += 1;
            }
            Err(e) if refusal(&e).is_none() => {
                // The disk is full: a split sample's first part may be in; finish drops it.
                break;
            }
            Err(e) => panic!("refused: {e}"),
        }
    }
    let mut finish = Err(WriterError::Output(OutputError::NotOpen));
    for _ in 0..10_000 {
        finish = w.finish().map(drop);
        match &finish {
            Err(WriterError::Output(OutputError::Io(_))) if fault != Fault::DiskFull => continue,
            _ => break,
        }
    }
    Outcome {
        bytes: Vec::new(),
        accepted,
        finish,
    }
}

/// One run over a [`Faulty`] output failing every `every`-th call.
fn run(pipe: bool, e: Endian, fault: Fault, every: u64) -> Outcome {
    let (out, data) = Faulty::new(fault, every);
    let strict = e == Endian::Little;
    let mut outcome = if pipe {
        let w = PerfPipeWriter::from_writer_with_endian(out, writer_endian(e)).unwrap();
        drive(w, fault, e, strict)
    } else {
        match PerfWriter::<FileOutput<_>>::from_writer_with_endian(out, writer_endian(e)) {
            Ok(w) => drive(w, fault, e, strict),
            Err(err) => panic!("open: {err}"),
        }
    };
    outcome.bytes = data.borrow().clone();
    outcome
}

/// The total calls of a run without faults (the writer's output, dropped, is gone; count
/// them with a counter that never fails).
fn calls_of_a_clean_run(pipe: bool, e: Endian) -> u64 {
    let (out, data) = Faulty::new(Fault::Eio, 0);
    let counter = Rc::new(RefCell::new(0u64));
    struct Counting {
        inner: Faulty,
        calls: Rc<RefCell<u64>>,
    }
    impl Write for Counting {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            *self.calls.borrow_mut() += 1;
            self.inner.write(b)
        }
        fn flush(&mut self) -> io::Result<()> {
            *self.calls.borrow_mut() += 1;
            self.inner.flush()
        }
    }
    impl Seek for Counting {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            *self.calls.borrow_mut() += 1;
            self.inner.seek(to)
        }
    }
    let out = Counting {
        inner: out,
        calls: counter.clone(),
    };
    let outcome = if pipe {
        drive(
            PerfPipeWriter::from_writer_with_endian(out, writer_endian(e)).unwrap(),
            Fault::Eio,
            e,
            true,
        )
    } else {
        drive(
            PerfWriter::<FileOutput<_>>::from_writer_with_endian(out, writer_endian(e)).unwrap(),
            Fault::Eio,
            e,
            true,
        )
    };
    assert_eq!(outcome.finish, Ok(()));
    let bytes = data.borrow().clone();
    assert_eq!(lpd_times(&bytes, pipe), outcome.accepted);
    let calls = *counter.borrow();
    calls
}

/// Checks one run's output against what it accepted; returns the samples kept.
fn check(o: &Outcome, pipe: bool, fault: Fault, what: &str) -> usize {
    match (&o.finish, fault) {
        (Ok(()), _) => {
            assert_eq!(lpd_times(&o.bytes, pipe), o.accepted, "{what}");
            o.accepted.len()
        }
        (
            Err(WriterError::Output(OutputError::Truncated {
                kept_records,
                kept_bytes,
                ..
            })),
            Fault::DiskFull,
        ) if !pipe => {
            let kept = *kept_records as usize;
            assert!(kept <= o.accepted.len(), "{what}");
            assert_eq!(*kept_bytes, (kept * SAMPLE_LEN).max(8) as u64, "{what}");
            assert_eq!(lpd_times(&o.bytes, pipe), o.accepted[..kept], "{what}");
            kept
        }
        (Err(WriterError::Output(OutputError::Io(err))), Fault::DiskFull) => {
            assert_eq!(err.get().raw_os_error(), Some(28), "{what}");
            if pipe {
                // Everything flushed before the failure is readable.
                if o.bytes.len() > 16 {
                    let times = lpd_times(&o.bytes, pipe);
                    assert_eq!(times, o.accepted[..times.len()], "{what}");
                    return times.len();
                }
            } else {
                // No room even for an empty file's tail: nothing of the data was written.
                assert!(
                    o.bytes.len() < 104 + 8 + 4096,
                    "{what}: {} bytes",
                    o.bytes.len()
                );
            }
            0
        }
        (other, _) => panic!("{what}: finish said {other:?}"),
    }
}

/// The sweep: for each mode and byte order, each fault kind fails every N-th call of the
/// output, for every N up to the calls of a whole run. Transient faults end with every
/// accepted sample; a full disk with the samples that reached it. Read by linux-perf-data;
/// perf reads one point of each kind below.
#[test]
fn every_nth_call_fails_and_nothing_accepted_is_lost() {
    let mut truncated_with_samples = 0;
    for pipe in [false, true] {
        for e in [Endian::Little, Endian::Big] {
            let calls = calls_of_a_clean_run(pipe, e);
            assert!(calls >= 5, "{calls} calls");
            let started = std::time::Instant::now();
            for fault in ALL_FAULTS {
                let first = if fault == Fault::DiskFull { 1 } else { 2 };
                for every in first..=calls + 1 {
                    let what = format!("pipe {pipe}, {e:?}, {fault:?} every {every}th call");
                    let o = run(pipe, e, fault, every);
                    let kept = check(&o, pipe, fault, &what);
                    if fault != Fault::DiskFull {
                        assert_eq!(kept, o.accepted.len(), "{what}");
                        assert!(kept > OPS as usize / 2, "{what}");
                    } else if !pipe && kept > 0 && kept < o.accepted.len() {
                        truncated_with_samples += 1;
                    }
                }
            }
            eprintln!("pipe {pipe}, {e:?}: {calls} calls, {:?}", started.elapsed());
        }
    }
    assert!(
        truncated_with_samples > 0,
        "some full disk kept part of the data"
    );
}

/// perf itself on points of the sweep: a transient fault (file and pipe), a full disk
/// (file: finalized with the samples that reached it).
#[test]
fn perf_reads_what_the_faulty_runs_left() {
    let e = Endian::Little;
    for (pipe, fault, every) in [
        (false, Fault::Eio, 3),
        (false, Fault::WouldBlock, 2),
        (true, Fault::WriteZero, 3),
        (true, Fault::Eio, 2),
    ] {
        let o = run(pipe, e, fault, every);
        assert_eq!(o.finish, Ok(()), "{pipe} {fault:?}");
        assert_read_back(&o.bytes, pipe, &o.accepted);
    }
    // A full disk after a few buffers: Truncated, with the samples that reached the disk.
    let mut seen = false;
    for every in 4..12 {
        let o = run(false, e, Fault::DiskFull, every);
        if let Err(WriterError::Output(OutputError::Truncated { kept_records, .. })) = &o.finish {
            let kept = *kept_records as usize;
            if kept == 0 {
                continue;
            }
            assert!(kept < o.accepted.len());
            assert_read_back(&o.bytes, false, &o.accepted[..kept]);
            seen = true;
            break;
        }
    }
    assert!(seen, "a full disk that kept samples");
}

/// One transient failure, then a full disk, on a real writer API path: the same writer
/// retries (EIO), and `finish` on a full disk says how many records were kept.
#[test]
fn a_transient_failure_is_retried_and_a_full_disk_truncates() {
    let e = Endian::Little;
    let (out, data) = Faulty::new(Fault::Eio, 2);
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(out).unwrap();
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    let mut accepted = Vec::new();
    let mut refused = 0;
    for n in 0..20_000u64 {
        for attempt in 0.. {
            assert!(attempt < 100, "sample {n} refused 100 times");
            match w.write_event_data(&one_sample(n, e)) {
                Ok(()) => break,
                Err(err) => {
                    assert!(refusal(&err).is_none(), "{err}");
                    assert_eq!(os_error(&err), Some(5));
                    refused += 1;
                }
            }
        }
        accepted.push(1000 + n);
    }
    assert!(refused > 0);
    let mut tries = 0;
    while let Err(e) = w.finish() {
        tries += 1;
        assert!(tries < 100, "finish keeps failing: {e}");
    }
    drop(w);
    let bytes = data.borrow().clone();
    assert_read_back(&bytes, false, &accepted);
}

/// Samples written compressed until the disk, full from the `every`-th call of the
/// output on, refuses one (their IPs vary, so that zstd's output takes many writes); then
/// finish.
fn run_compressed(every: u64) -> Outcome {
    let (out, data) = Faulty::new(Fault::DiskFull, every);
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(out).unwrap();
    w.set_compression(Some(perf_writer_std::Compression::zstd(1)))
        .unwrap();
    w.add_event_desc(&[1], &attr(), "cpu-clock").unwrap();
    let mut accepted = Vec::new();
    let mut ip = 0x1234_5678u64;
    'batches: for batch in 0..400u64 {
        let mut bytes = Vec::new();
        let mut times = Vec::new();
        for i in 0..100 {
            let n = batch * 100 + i;
            ip = ip
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let s = StdSample {
                ip: ip >> 16,
                ..one_sample_fields(n)
            };
            bytes.extend(s.encode(Endian::Little));
            times.push(1000 + n);
        }
        // As a collector writes a ring pass: its records, then a FINISHED_ROUND.
        match w.write_event_data(&bytes) {
            Ok(()) => accepted.extend(times),
            Err(_) => break 'batches,
        }
        if w.write_finished_round().is_err() {
            break 'batches;
        }
    }
    let finish = w.finish().map(drop);
    drop(w);
    let bytes = data.borrow().clone();
    Outcome {
        bytes,
        accepted,
        finish,
    }
}

/// A full disk while compressing: finish keeps the samples that reached the file (as
/// without compression), whenever the disk fills.
#[test]
fn a_full_disk_while_compressing_keeps_what_reached_it() {
    let mut kept_some = 0;
    for every in 1..400 {
        let what = format!("zstd, disk full from the {every}th call");
        let o = run_compressed(every);
        eprintln!(
            "{every}: {} bytes, {} accepted, {:?}",
            o.bytes.len(),
            o.accepted.len(),
            o.finish.as_ref().err().map(|e| e.to_string())
        );
        match &o.finish {
            Ok(()) => {
                assert_eq!(lpd_times(&o.bytes, false), o.accepted, "{what}");
                break;
            }
            Err(WriterError::Output(OutputError::Truncated { .. })) => {
                let times = lpd_times(&o.bytes, false);
                assert_eq!(times, o.accepted[..times.len()], "{what}");
                kept_some += usize::from(!times.is_empty());
                if every % 5 == 1 {
                    if let Some(n) = perf_samples(&o.bytes, false) {
                        assert_eq!(n, times.len(), "{what}");
                    }
                }
            }
            // No room for even an empty file's tail.
            Err(WriterError::Output(OutputError::Io(err))) => {
                assert_eq!(err.get().raw_os_error(), Some(28), "{what}");
                assert!(
                    o.bytes.len() < 104 + 8 + 4096,
                    "{what}: {} bytes",
                    o.bytes.len()
                );
            }
            Err(other) => panic!("{what}: finish said {other:?}"),
        }
    }
    assert!(kept_some > 0, "no full disk kept part of the data");
}
