//! `recover`: a file whose writer died before finalize becomes a whole file perf 6.1 and
//! linux-perf-data read, with every whole record; what cannot be recovered gets one line,
//! exit status 1 and no OUT. (Recordings of perf-collect killed with SIGKILL and cut at
//! every 4 KiB: perf-collect/tests/recover.rs.)

mod common;

use common::{assert_same_lines, lpd_counts, run, s, script};
use perf_writer_std::{Compression, FileOutput, PerfWriter};
use std::path::Path;
use tracepoint_decode::PerfEventAttrType;
use tracepoint_decode::{PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType};

/// IDENTIFIER | IP | TID | TIME.
const SAMPLE_TYPE: u64 = (1 << 16) | 1 | (1 << 1) | (1 << 2);
const SAMPLE_ID_ALL: u64 = 1 << 18;

fn attr(config: u64) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        config,
        sample_type: PerfEventAttrSampleType(SAMPLE_TYPE),
        options: PerfEventAttrOptions(SAMPLE_ID_ALL),
        ..Default::default()
    }
}

fn sample(id: u64, pid: u32, time: u64) -> Vec<u8> {
    let mut v = vec![9, 0, 0, 0, 2, 0, 40, 0];
    v.extend_from_slice(&id.to_le_bytes());
    v.extend_from_slice(&0xffff_ffff_8100_0000u64.to_le_bytes());
    v.extend_from_slice(&pid.to_le_bytes());
    v.extend_from_slice(&pid.to_le_bytes());
    v.extend_from_slice(&time.to_le_bytes());
    v
}

/// How [`write_with`] ends and what it describes late.
#[derive(Clone, Copy, Default)]
struct Ending {
    /// Describe event 2 (task-clock) after the first records and write records of both.
    late: bool,
    /// With `late`: also set a feature this many bytes long with it.
    late_feature_len: usize,
    /// Finalize; otherwise abandon the writer as a killed one leaves it.
    finalize: bool,
    /// When abandoned: flush first (what reached the disk is then every record).
    flush: bool,
}

/// Writes `n` samples of event 1 (cpu-clock) into `path`, then, when `late`, describes
/// event 2 (task-clock) and writes `n` more of each. Finalized when `finalize`, otherwise
/// flushed and abandoned, as a killed writer leaves it.
fn write(path: &Path, n: u64, late: bool, finalize: bool) {
    write_with(
        path,
        n,
        Ending {
            late,
            finalize,
            flush: true,
            ..Ending::default()
        },
    );
}

/// [`write`] as `end` says.
fn write_with(path: &Path, n: u64, end: Ending) {
    let Ending {
        late,
        late_feature_len,
        finalize,
        flush,
    } = end;
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(s(path)).unwrap();
    w.set_string_header(perf_writer_std::PerfHeaderIndex::Hostname, b"recover-test")
        .unwrap();
    w.add_event_desc(&[1], &attr(0), "cpu-clock").unwrap();
    for k in 0..n {
        w.write_event_data(&sample(1, 100, 1000 + k)).unwrap();
    }
    if late {
        w.add_event_desc(&[2], &attr(1), "task-clock").unwrap();
        if late_feature_len != 0 {
            let desc = vec![b'x'; late_feature_len];
            w.set_string_header(perf_writer_std::PerfHeaderIndex::OSRelease, &desc)
                .unwrap();
        }
        for k in 0..n {
            w.write_event_data(&sample(2, 200, 100_000 + k)).unwrap();
            w.write_event_data(&sample(1, 100, 100_000 + k)).unwrap();
        }
    }
    if finalize {
        w.finalize_and_close().unwrap();
    } else {
        if flush {
            w.flush().unwrap();
        }
        // Never finalized, never dropped (a drop finalizes): what SIGKILL leaves.
        std::mem::forget(w);
    }
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_file_never_finalized_reads_as_the_finalized_one() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, whole, out) = (
        dir.path().join("killed.data"),
        dir.path().join("whole.data"),
        dir.path().join("out.data"),
    );
    write(&killed, 5000, false, false);
    write(&whole, 5000, false, true);
    // Unreadable as it is.
    assert!(!perf_writer_std_reads(&killed));
    let r = run(&["recover", s(&killed), s(&out)], None);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("recovered, 5000 records"),
        "{}",
        stderr(&r)
    );
    let lines = script(&out);
    assert_eq!(lines.len(), 5000);
    assert_same_lines("recovered against finalized", &lines, &script(&whole));
    let (by_type, samples) = lpd_counts(&std::fs::read(&out).unwrap());
    assert_eq!(by_type.get(&9), Some(&5000));
    assert_eq!(samples.get("cpu-clock"), Some(&5000));
    // The host description came back from the block.
    let header = integration_tests::perf_tool::perf_report_header(&out, false);
    header.assert_clean();
    assert!(header.stdout.contains("recover-test"), "{}", header.stdout);
}

/// The killed file has no perf header (a file of the writer's zeroed one).
fn perf_writer_std_reads(path: &Path) -> bool {
    &std::fs::read(path).unwrap()[..8] == b"PERFILE2"
}

#[test]
fn records_of_events_described_after_the_first_record_are_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, whole, out) = (
        dir.path().join("killed.data"),
        dir.path().join("whole.data"),
        dir.path().join("out.data"),
    );
    write(&killed, 300, true, false);
    write(&whole, 300, true, true);
    let r = run(&["recover", s(&killed), s(&out)], None);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let err = stderr(&r);
    assert!(err.contains("recovered, 900 records"), "{err}");
    assert!(!err.contains("left out"), "{err}");
    let lines = script(&out);
    assert_eq!(lines.len(), 900);
    assert_same_lines("recovered against finalized", &lines, &script(&whole));
    let (_, samples) = lpd_counts(&std::fs::read(&out).unwrap());
    assert_eq!(
        samples.into_iter().collect::<Vec<_>>(),
        [
            ("cpu-clock".to_string(), 600),
            ("task-clock".to_string(), 300)
        ]
    );
}

/// The records of a 40-byte sample each that follow the recovery block in `path`.
fn whole_records_on_disk(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let block = perf_writer_std::recovery_block::find_recovery_block(&bytes).unwrap();
    ((bytes.len() - block.data_start) / 40) as u64
}

#[test]
fn a_late_event_is_in_the_block_before_its_records_reach_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, out) = (dir.path().join("killed.data"), dir.path().join("out.data"));
    // No flush: what reached the disk is what the writer's buffer sent.
    let end = Ending {
        late: true,
        ..Ending::default()
    };
    write_with(&killed, 20_000, end);
    let on_disk = whole_records_on_disk(&killed);
    assert!(on_disk > 20_000 && on_disk < 60_000, "{on_disk}");
    let r = run(&["recover", s(&killed), s(&out)], None);
    let err = stderr(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("recovered, {on_disk} records")),
        "{err}"
    );
    assert!(!err.contains("left out"), "{err}");
    let (by_type, samples) = lpd_counts(&std::fs::read(&out).unwrap());
    assert_eq!(by_type.get(&9), Some(&on_disk));
    let late = samples.get("task-clock").copied().unwrap_or(0);
    // After the first 20,000: task-clock, cpu-clock, task-clock...
    assert_eq!(late, (on_disk - 20_000).div_ceil(2), "{samples:?}");
    assert_eq!(script(&out).len() as u64, on_disk);
}

#[test]
fn records_of_a_late_event_whose_description_outgrew_the_block_are_left_out_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, out) = (dir.path().join("killed.data"), dir.path().join("out.data"));
    let end = Ending {
        late: true,
        late_feature_len: 64 << 10,
        flush: true,
        ..Ending::default()
    };
    write_with(&killed, 300, end);
    let r = run(&["recover", s(&killed), s(&out)], None);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(
        stderr(&r).contains(
            "600 records; 300 records of events the recovery block does not describe: left out"
        ),
        "{}",
        stderr(&r)
    );
    let lines = script(&out);
    assert_eq!(lines.len(), 600);
    assert!(lines.iter().all(|l| l.contains("cpu-clock")), "{lines:?}");
    let (_, samples) = lpd_counts(&std::fs::read(&out).unwrap());
    assert_eq!(
        samples.into_iter().collect::<Vec<_>>(),
        [("cpu-clock".to_string(), 600)]
    );
}

#[test]
fn a_feature_changed_after_the_records_reaches_the_block_at_the_next_flush() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, out) = (dir.path().join("killed.data"), dir.path().join("out.data"));
    {
        let mut w = PerfWriter::<FileOutput>::new();
        w.create_file(s(&killed)).unwrap();
        w.set_string_header(perf_writer_std::PerfHeaderIndex::Hostname, b"before")
            .unwrap();
        w.add_event_desc(&[1], &attr(0), "cpu-clock").unwrap();
        for k in 0..10 {
            w.write_event_data(&sample(1, 100, 1000 + k)).unwrap();
        }
        w.set_string_header(perf_writer_std::PerfHeaderIndex::Hostname, b"after-records")
            .unwrap();
        w.flush().unwrap();
        std::mem::forget(w);
    }
    let r = run(&["recover", s(&killed), s(&out)], None);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert_eq!(script(&out).len(), 10);
    let header = integration_tests::perf_tool::perf_report_header(&out, false);
    header.assert_clean();
    assert!(
        header.stdout.contains("# hostname : after-records"),
        "{}",
        header.stdout
    );
}

#[test]
fn compressed_records_of_events_the_block_does_not_describe_are_left_out_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, out) = (dir.path().join("killed.data"), dir.path().join("out.data"));
    {
        let mut w = PerfWriter::<FileOutput>::new();
        w.create_file(s(&killed)).unwrap();
        w.set_compression(Some(Compression::zstd(1))).unwrap();
        w.add_event_desc(&[1], &attr(0), "cpu-clock").unwrap();
        for k in 0..10 {
            w.write_event_data(&sample(1, 100, 1000 + k)).unwrap();
        }
        // Descriptions that outgrow the block's room: its image stays the first one.
        let long = "n".repeat(200);
        for ev in 10..400u64 {
            w.add_event_desc(&[ev], &attr(ev % 9), &format!("{long}{ev}"))
                .unwrap();
        }
        for k in 0..10 {
            w.write_event_data(&sample(1, 100, 3000 + k)).unwrap();
            w.write_event_data(&sample(10, 300, 3000 + k)).unwrap();
        }
        w.flush().unwrap();
        std::mem::forget(w);
    }
    let r = run(&["recover", s(&killed), s(&out)], None);
    let err = stderr(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "20 records; 10 records of events the recovery block does not describe: left out"
        ),
        "{err}"
    );
    assert_eq!(script(&out).len(), 20);
    let (_, samples) = lpd_counts(&std::fs::read(&out).unwrap());
    assert_eq!(
        samples.into_iter().collect::<Vec<_>>(),
        [("cpu-clock".to_string(), 20)]
    );
}

#[test]
fn records_written_after_a_finalize_are_recovered_by_the_block() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, out) = (dir.path().join("killed.data"), dir.path().join("out.data"));
    {
        let mut w = PerfWriter::<FileOutput>::new();
        w.create_file(s(&killed)).unwrap();
        w.add_event_desc(&[1], &attr(0), "cpu-clock").unwrap();
        for k in 0..100 {
            w.write_event_data(&sample(1, 100, 1000 + k)).unwrap();
        }
        // A finish that drops a record begun writes the file and keeps the writer open.
        w.write_event_data(&sample(1, 100, 2000)[..16]).unwrap();
        w.finish().unwrap_err();
        w.add_event_desc(&[2], &attr(1), "task-clock").unwrap();
        for k in 0..100 {
            w.write_event_data(&sample(2, 200, 3000 + k)).unwrap();
            w.write_event_data(&sample(1, 100, 3000 + k)).unwrap();
        }
        w.flush().unwrap();
        std::mem::forget(w);
    }
    // The header written by the finish no longer fits what follows it.
    assert_eq!(&std::fs::read(&killed).unwrap()[..8], b"PERFILE2");
    let r = run(&["recover", s(&killed), s(&out)], None);
    let err = stderr(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(err.contains("recovered, 300 records"), "{err}");
    assert_eq!(script(&out).len(), 300);
    let (_, samples) = lpd_counts(&std::fs::read(&out).unwrap());
    assert_eq!(
        samples.into_iter().collect::<Vec<_>>(),
        [
            ("cpu-clock".to_string(), 200),
            ("task-clock".to_string(), 100)
        ]
    );
}

#[test]
fn a_whole_file_is_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, out) = (dir.path().join("whole.data"), dir.path().join("out.data"));
    write(&whole, 100, true, true);
    let r = run(&["recover", s(&whole), s(&out)], None);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("already a whole perf.data"),
        "{}",
        stderr(&r)
    );
    assert_same_lines("written again", &script(&out), &script(&whole));
    assert_eq!(script(&out).len(), 300);
}

#[test]
fn what_cannot_be_recovered_gets_one_line_and_no_out() {
    let dir = tempfile::tempdir().unwrap();
    let killed = dir.path().join("killed.data");
    write(&killed, 100, false, false);
    let bytes = std::fs::read(&killed).unwrap();
    let data_start = perf_writer_std::recovery_block::find_recovery_block(&bytes)
        .unwrap()
        .data_start;
    // A writer given its records before any description leaves no block.
    let records_first = dir.path().join("records-first.data");
    {
        let mut w = PerfWriter::<FileOutput>::new();
        w.create_file(s(&records_first)).unwrap();
        w.write_event_data(&sample(1, 1, 1)).unwrap();
        w.flush().unwrap();
        std::mem::forget(w);
    }
    let mut random = vec![0u8; 64 * 1024];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in &mut random {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let mut zero_header_random = random.clone();
    zero_header_random[..104].fill(0);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "not a perf.data file"),
        ("random", random, "not a perf.data file"),
        ("zeros", vec![0; 8192], "no recovery block"),
        (
            "zero header, random after",
            zero_header_random,
            "no recovery block",
        ),
        (
            "cut in the header",
            bytes[..50].to_vec(),
            "not a perf.data file",
        ),
        (
            "cut in the block",
            bytes[..data_start - 8].to_vec(),
            "do not fit the file",
        ),
        (
            "records first",
            std::fs::read(&records_first).unwrap(),
            "no recovery block",
        ),
    ];
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.data");
    let input = dir.path().join("in.data");
    for (what, bytes, needle) in cases {
        std::fs::write(&input, &bytes).unwrap();
        let r = run(&["recover", s(&input), s(&out)], None);
        let err = stderr(&r);
        assert_eq!(r.status.code(), Some(1), "{what}: {err}");
        assert!(
            err.starts_with("perf-data: ") && err.lines().count() == 1 && err.contains(needle),
            "{what}: {err:?} lacks {needle:?}"
        );
        assert_eq!(
            std::fs::read_dir(&out_dir).unwrap().count(),
            0,
            "{what}: the output directory is not empty"
        );
    }
}
