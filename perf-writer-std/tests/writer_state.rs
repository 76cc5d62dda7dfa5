//! The writer's state machine over in-memory outputs: refusals leave the output intact, a
//! failed finalize can be retried, settings survive `create_file`.

use perf_writer_std::{EventError, FeatureError, RecordError};
use perf_writer_std::{FileOutput, PerfHeaderIndex, PerfWriter, WriterError};
use std::cell::Cell;
use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::rc::Rc;
use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};

fn attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: PerfEventAttrSampleType::Identifier,
        ..Default::default()
    }
}

fn sample(id: u64) -> Vec<u8> {
    let mut v = vec![9, 0, 0, 0, 2, 0, 16, 0];
    v.extend_from_slice(&id.to_le_bytes());
    v
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Where a finalized file's data section starts (after the header and the recovery block).
fn data_at(b: &[u8]) -> usize {
    u64_at(b, 40) as usize
}

/// An output that fails every write while `fail` is set.
#[derive(Debug)]
struct Flaky {
    inner: Cursor<Vec<u8>>,
    fail: Rc<Cell<bool>>,
}

impl Write for Flaky {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.fail.get() {
            return Err(io::Error::other("disk full"));
        }
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Flaky {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn refused_event_bytes_leave_the_data_section_unchanged() {
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.add_event_desc(&[1], &attr(), "e").unwrap();
    w.write_event_data(&sample(1)).unwrap();
    let pos = w.file_pos();
    // size 12 is not a multiple of 8; size 4 is below the header.
    for bad in [[9u8, 0, 0, 0, 0, 0, 12, 0], [9, 0, 0, 0, 0, 0, 4, 0]] {
        let err = w.write_event_data(&bad).unwrap_err();
        assert!(
            matches!(err, WriterError::Record(RecordError::Framing(_))),
            "{err}"
        );
        assert_eq!(w.file_pos(), pos);
    }
    // A record split across calls is fine.
    let s = sample(1);
    w.write_event_data(&s[..3]).unwrap();
    // The writer knows it is inside a record.
    assert_eq!(w.partial_record_len(), 3);
    w.write_event_data(&s[3..]).unwrap();
    assert_eq!(w.partial_record_len(), 0);
    let bytes = w.finish().unwrap().into_inner();
    // data: 2 samples of 16 bytes, after the recovery block.
    assert!(data_at(&bytes) > 104);
    assert_eq!(u64_at(&bytes, 48), 32);
}

#[test]
fn a_failed_finalize_can_be_retried() {
    let fail = Rc::new(Cell::new(false));
    let out = Flaky {
        inner: Cursor::new(Vec::new()),
        fail: fail.clone(),
    };
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(out).unwrap();
    w.add_event_desc(&[1, 2], &attr(), "e").unwrap();
    w.write_event_data(&sample(1)).unwrap();
    fail.set(true);
    assert!(w.finish().is_err());
    assert!(w.file_pos().is_some(), "still open after a failed finalize");
    fail.set(false);
    // More events after the failure go where the data section ended, not after the partial tail.
    w.write_event_data(&sample(2)).unwrap();
    let bytes = w.finish().unwrap().inner.into_inner();
    assert_eq!(&bytes[..8], b"PERFILE2");
    assert_eq!(u64_at(&bytes, 48), 32, "two samples in the data section");
    let data = data_at(&bytes);
    assert_eq!(&bytes[data + 8..data + 16], &1u64.to_le_bytes());
    assert_eq!(&bytes[data + 24..data + 32], &2u64.to_le_bytes());
}

#[test]
fn a_failed_event_write_takes_nothing_and_the_writer_goes_on() {
    let fail = Rc::new(Cell::new(false));
    let out = Flaky {
        inner: Cursor::new(Vec::new()),
        fail: fail.clone(),
    };
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(out).unwrap();
    w.add_event_desc(&[1], &attr(), "e").unwrap();
    fail.set(true);
    // The writer buffers: the failure shows once the buffer has to be written out.
    let buffered_events = perf_writer_std::FILE_BUFFER_SIZE / 16;
    let first_error = (0..=buffered_events).position(|_| w.write_event_data(&sample(1)).is_err());
    assert!(
        first_error.is_some_and(|n| n <= buffered_events),
        "{first_error:?}"
    );
    let accepted = first_error.unwrap() as u64;
    // Still failing: refused again, nothing taken.
    assert!(w.write_event_data(&sample(1)).is_err());
    fail.set(false);
    // The same call again is taken, and everything accepted reaches the file.
    w.write_event_data(&sample(1)).unwrap();
    let bytes = w.finish().unwrap().inner.into_inner();
    assert_eq!(u64_at(&bytes, 48), (accepted + 1) * 16);
}

#[test]
fn duplicate_ids_and_bad_names_are_refused() {
    let mut w = PerfWriter::<FileOutput>::new();
    w.add_event_desc(&[1, 2], &attr(), "a").unwrap();
    assert_eq!(
        w.add_event_desc(&[3, 2], &attr(), "b"),
        Err(WriterError::Event(EventError::DuplicateId(2)))
    );
    assert_eq!(
        w.add_event_desc(&[4, 4], &attr(), "c"),
        Err(WriterError::Event(EventError::DuplicateId(4)))
    );
    assert!(w.add_event_desc(&[5], &attr(), "nul\0inside").is_err());
    assert!(w
        .add_event_desc(&[6], &attr(), &"x".repeat(0x10000))
        .is_err());
    w.add_event_desc(&[3], &attr(), &"x".repeat(0xffff))
        .unwrap();
}

#[test]
fn string_headers_are_limited_to_string_features() {
    let mut w = PerfWriter::<FileOutput>::new();
    w.set_string_header(PerfHeaderIndex::Hostname, b"vm\0garbage")
        .unwrap();
    // perf_header_string: len 64, "vm", NUL padding.
    let h = w.get_header(PerfHeaderIndex::Hostname);
    assert_eq!(h.len(), 68);
    assert_eq!(&h[..6], &[64, 0, 0, 0, b'v', b'm']);
    assert!(h[6..].iter().all(|&b| b == 0));
    // CMDLINE becomes a list of one string.
    w.set_string_header(PerfHeaderIndex::Cmdline, b"prog --flag")
        .unwrap();
    let c = w.get_header(PerfHeaderIndex::Cmdline);
    assert_eq!(&c[..4], &1u32.to_le_bytes());
    assert_eq!(&c[8..19], b"prog --flag");
    assert_eq!(
        w.set_string_header(PerfHeaderIndex::NrCpus, b"2"),
        Err(WriterError::Feature(FeatureError::NotAString(7)))
    );
    assert!(w.set_header(PerfHeaderIndex::Reserved, b"x").is_err());
    assert!(w.set_header(PerfHeaderIndex::LastFeature, b"x").is_err());
    // A raw payload perf would not read is refused; an empty PMU_CAPS list is taken.
    assert!(w.set_header(PerfHeaderIndex::PmuCaps, b"x").is_err());
    w.set_header(PerfHeaderIndex::PmuCaps, &0u32.to_ne_bytes())
        .unwrap();
}

#[test]
fn settings_made_before_create_file_are_kept() {
    // Removed when dropped, also when an assertion panics.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = dir.join("kept.data");
    let mut w = PerfWriter::<FileOutput>::new();
    w.set_string_header(PerfHeaderIndex::Hostname, b"kept-host")
        .unwrap();
    w.add_event_desc(&[9], &attr(), "kept-event").unwrap();
    // A failed create keeps them too.
    assert!(w
        .create_file(dir.join("missing/dir/x.data").to_str().unwrap())
        .is_err());
    w.create_file(path.to_str().unwrap()).unwrap();
    w.finalize_and_close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let find = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(find(b"kept-host"));
    assert!(find(b"kept-event"));
    // After finalize the writer starts fresh.
    assert!(w.get_header(PerfHeaderIndex::Hostname).is_empty());
    tmp.close().unwrap();
}

#[test]
fn file_pos_counts_from_the_stream_start() {
    let mut cursor = Cursor::new(vec![0u8; 10]);
    cursor.seek(SeekFrom::Start(10)).unwrap();
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(cursor).unwrap();
    assert_eq!(w.file_pos(), Some(10 + 104));
    w.write_finished_round().unwrap();
    let after_round = w.file_pos().unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(&bytes[10..18], b"PERFILE2");
    let data = data_at(&bytes[10..]) as u64;
    assert_eq!(
        after_round,
        10 + data + 8,
        "offsets are relative to the file start"
    );
}

#[test]
fn events_perf_could_not_tell_apart_are_refused() {
    // Out of strict mode (strict mode takes them before any record, for a perf stat
    // session, and holds the records and the file to it: tests/tests/refusals).
    let with = |sample_type: u64, flags: u64| PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        sample_type: tracepoint_decode::PerfEventAttrSampleType(sample_type),
        options: tracepoint_decode::PerfEventAttrOptions(flags),
        ..Default::default()
    };
    const IP_TID_TIME: u64 = 0x7;
    const ID: u64 = 1 << 6;
    const ADDR: u64 = 1 << 3;
    const IDENTIFIER: u64 = 1 << 16;
    const SAMPLE_ID_ALL: u64 = 1 << 18;
    // One event needs no id in its samples.
    let mut w = PerfWriter::<FileOutput>::new();
    w.set_strict(false);
    w.add_event_desc(&[1], &with(IP_TID_TIME, 0), "only")
        .unwrap();
    // A second one without an id anywhere: perf says "non matching sample_type".
    assert!(matches!(
        w.add_event_desc(&[2], &with(IP_TID_TIME, 0), "second"),
        Err(WriterError::Event(EventError::Indistinguishable(_)))
    ));
    // ID at different positions (ADDR comes before ID).
    let mut w = PerfWriter::<FileOutput>::new();
    w.set_strict(false);
    w.add_event_desc(&[1], &with(IP_TID_TIME | ID, 0), "a")
        .unwrap();
    w.add_event_desc(
        &[2],
        &with(IP_TID_TIME | ID | (1 << 8), 0),
        "same id position",
    )
    .unwrap();
    assert!(matches!(
        w.add_event_desc(&[3], &with(IP_TID_TIME | ID | ADDR, 0), "b"),
        Err(WriterError::Event(EventError::Indistinguishable(_)))
    ));
    // ID at different positions from the end (CPU follows ID in trailers): perf compares
    // that position too, with or without sample_id_all.
    let mut w = PerfWriter::<FileOutput>::new();
    w.set_strict(false);
    w.add_event_desc(&[1], &with(ID, 0), "a").unwrap();
    assert!(matches!(
        w.add_event_desc(&[2], &with(ID | (1 << 7), 0), "b"),
        Err(WriterError::Event(EventError::Indistinguishable(_)))
    ));
    // IDENTIFIER always works; sample_id_all must agree.
    let mut w = PerfWriter::<FileOutput>::new();
    w.set_strict(false);
    w.add_event_desc(&[1], &with(IDENTIFIER, SAMPLE_ID_ALL), "a")
        .unwrap();
    w.add_event_desc(
        &[2],
        &with(IDENTIFIER | IP_TID_TIME | ADDR, SAMPLE_ID_ALL),
        "b",
    )
    .unwrap();
    assert!(matches!(
        w.add_event_desc(&[3], &with(IDENTIFIER, 0), "c"),
        Err(WriterError::Event(EventError::Indistinguishable(_)))
    ));
}

#[test]
fn finished_round_inside_a_split_record_is_refused_in_both_modes() {
    // Without strict mode the framer tracks the split; with it the start is held back.
    for strict in [false, true] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_strict(strict);
        w.add_event_desc(&[1], &attr(), "e").unwrap();
        let s = sample(1);
        w.write_event_data(&s[..6]).unwrap();
        let err = w.write_finished_round().unwrap_err();
        assert_eq!(
            err,
            WriterError::Record(RecordError::Incomplete),
            "strict {strict}"
        );
        w.write_event_data(&s[6..]).unwrap();
        w.write_finished_round().unwrap();
        let bytes = w.finish().unwrap().into_inner();
        assert_eq!(
            u64_at(&bytes, 48),
            16 + 8,
            "the sample, then FINISHED_ROUND"
        );
        let data = data_at(&bytes);
        assert_eq!(&bytes[data..data + 16], s.as_slice());
        assert_eq!(&bytes[data + 16..data + 20], &68u32.to_le_bytes());
    }
}
