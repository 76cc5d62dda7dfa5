//! Bad input and unusable outputs: one line on stderr, exit status 1, never a panic, and
//! no OUT left behind (an existing OUT stays as it was, and no temporary file remains).

mod common;

use common::{assert_dir_holds, assert_refused, fixture, lpd_counts, run, s};

/// A file-mode recording cut short anywhere is refused by `convert` and `info` alike, and
/// an OUT that existed is left as it was.
#[test]
fn truncated_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.data");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.data");
    std::fs::write(&out, b"kept").unwrap();
    for name in ["sched_switch.data", "cpu_clock.data", "zstd_sched.data"] {
        let (_, bytes) = fixture(name);
        let step = (bytes.len() / 60).max(1);
        for cut in (0..bytes.len())
            .step_by(step)
            .chain([7, 8, 103, 104, bytes.len() - 1])
        {
            let what = format!("{name} cut at {cut} of {}", bytes.len());
            std::fs::write(&input, &bytes[..cut]).unwrap();
            let err = assert_refused(&what, &run(&["convert", s(&input), s(&out)], None));
            assert!(err.contains("in.data"), "{what}: names the input: {err}");
            assert_refused(&what, &run(&["info", s(&input)], None));
            assert_eq!(
                std::fs::read(&out).unwrap(),
                b"kept",
                "{what}: OUT untouched"
            );
            assert_dir_holds(&what, &out_dir, &["out.data"]);
        }
    }
}

/// A stream cut short keeps its whole records (the pipe form survives its writer's death):
/// `convert` says how much was left out and writes the rest, which linux-perf-data reads.
#[test]
fn truncated_stream_keeps_whole_records() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes) = fixture("pipe_sched.data");
    let full = lpd_counts(&bytes).0;
    let mut last_total = 0;
    for cut in (bytes.len() / 2..=bytes.len()).step_by(bytes.len() / 8) {
        let input = dir.path().join("cut.data");
        std::fs::write(&input, &bytes[..cut]).unwrap();
        let out = dir.path().join("out.data");
        let o = run(&["convert", s(&input), s(&out), "--to", "file"], None);
        assert!(
            o.status.success(),
            "cut at {cut}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let counts = lpd_counts(&std::fs::read(&out).unwrap()).0;
        let total: u64 = counts.values().sum();
        assert!(
            total >= last_total && counts.iter().all(|(t, n)| *n <= full[t]),
            "cut at {cut}"
        );
        last_total = total;
    }
    assert_eq!(
        last_total,
        full.values().sum::<u64>(),
        "the whole stream keeps every record"
    );
}

/// A stream cut short whose conversion is refused gets the refusal alone, one line (the
/// note about the cut is for an output that was written).
#[test]
fn a_refused_convert_of_a_cut_stream_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes) = fixture("pipe_sched.data");
    let input = dir.path().join("cut.data");
    std::fs::write(&input, &bytes[..bytes.len() - 20]).unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.data");
    // A stream in the byte order other than this machine's is refused (perf 6.1 misreads it).
    let foreign = if cfg!(target_endian = "little") {
        "big"
    } else {
        "little"
    };
    let o = run(
        &[
            "convert",
            s(&input),
            s(&out),
            "--to",
            "pipe",
            "--endian",
            foreign,
        ],
        None,
    );
    assert_refused("cut stream, other byte order", &o);
    assert_dir_holds("cut stream, other byte order", &out_dir, &[]);
    // Converted, it says what was left out.
    let o = run(&["convert", s(&input), s(&out)], None);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("record cut short; left out"), "{err}");
}

#[test]
fn not_perf_data() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.data");
    for (what, bytes) in [
        ("empty", &b""[..]),
        ("text", &b"hello, this is not a perf.data file at all\n"[..]),
        ("magic only", &b"PERFILE2"[..]),
        ("bad header size", &b"PERFILE2\x20\0\0\0\0\0\0\0"[..]),
    ] {
        let input = dir.path().join("in.data");
        std::fs::write(&input, bytes).unwrap();
        assert_refused(what, &run(&["convert", s(&input), s(&out)], None));
        assert_refused(what, &run(&["info", s(&input)], None));
        assert_refused(what, &run(&["convert", "-", "-"], Some(bytes)));
        assert_dir_holds(what, dir.path(), &["in.data"]);
    }
    let missing = dir.path().join("missing.data");
    let err = assert_refused("missing", &run(&["info", s(&missing)], None));
    assert!(err.contains("missing.data"), "{err}");
}

#[test]
fn unwritable_output() {
    let (path, _) = fixture("cpu_clock.data");
    let dir = tempfile::tempdir().unwrap();
    let no_dir = dir.path().join("no/such/dir/out.data");
    let err = assert_refused(
        "missing dir",
        &run(&["convert", s(&path), s(&no_dir)], None),
    );
    assert!(err.contains("out.data"), "{err}");
    // A read-only directory (root ignores permissions, so a file stands in for the
    // directory there: nothing can be created under it either).
    let ro = dir.path().join("ro");
    std::fs::write(&ro, b"").unwrap();
    let out = ro.join("out.data");
    assert_refused("file as dir", &run(&["convert", s(&path), s(&out)], None));
    // /dev/full takes no bytes: stdout there fails after the conversion.
    let full = std::fs::File::create("/dev/full");
    if let Ok(full) = full {
        let o = std::process::Command::new(common::bin())
            .args(["convert", s(&path), "-"])
            .stdout(full)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_refused("stdout /dev/full", &o);
    }
}

/// Recordings with bytes changed at random (a fixed sequence): every run ends with status 0
/// or 1 and at most one line on stderr, never an abort (a length field read as a huge
/// allocation) or a panic.
#[test]
fn corrupted_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.data");
    let out = dir.path().join("out.data");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for name in [
        "sched_switch.data",
        "pipe_sched.data",
        "zstd_sched.data",
        "cpu_clock.data",
    ] {
        let (_, original) = fixture(name);
        for round in 0..40 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 8 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = next() as u8;
            }
            std::fs::write(&input, &bytes).unwrap();
            for args in [
                &["info", s(&input)][..],
                &["convert", s(&input), s(&out), "--to", "pipe"][..],
                &["convert", s(&input), s(&out), "--decompress"][..],
            ] {
                let o = run(args, None);
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(
                    matches!(o.status.code(), Some(0 | 1)) && err.lines().count() <= 1,
                    "{name} round {round} {args:?}: {:?} {err}",
                    o.status
                );
            }
        }
    }
}

/// A file without EVENT_DESC whose (unused) event_types section has an entry announcing
/// more ids than the file holds: refused with one line naming it (linux-perf-data, which
/// reads event_types then, would size a list by the announcement and abort).
#[test]
fn event_types_ids_past_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.data");
    let (_, mut bytes) = fixture("cpu_clock.data");
    // The EVENT_DESC bit off, and an event_types entry (an attr, then its ids section) at
    // the end of the file whose ids run far past it.
    bytes[72 + 1] &= !(1 << (12 - 8));
    let attr_size = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let at = bytes.len() as u64;
    let mut entry = vec![0u8; attr_size];
    entry.extend_from_slice(&0u64.to_le_bytes());
    entry.extend_from_slice(&(1u64 << 40).to_le_bytes());
    bytes[56..64].copy_from_slice(&at.to_le_bytes());
    bytes[64..72].copy_from_slice(&(entry.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&entry);
    std::fs::write(&input, &bytes).unwrap();
    let err = assert_refused("event_types ids", &run(&["info", s(&input)], None));
    assert!(err.contains("event_types"), "{err}");
}

/// An attr_size no file can hold (near `u64::MAX`) in a file whose event_types section is
/// read (no EVENT_DESC): refused by the header's check, before any reader adds to it.
#[test]
fn an_attr_size_past_any_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.data");
    let (_, mut bytes) = fixture("cpu_clock.data");
    bytes[72 + 1] &= !(1 << (12 - 8));
    bytes[16..24].copy_from_slice(&(u64::MAX - 4).to_le_bytes());
    // A non-empty event_types section: the first 16 bytes of the file.
    bytes[56..64].copy_from_slice(&0u64.to_le_bytes());
    bytes[64..72].copy_from_slice(&16u64.to_le_bytes());
    std::fs::write(&input, &bytes).unwrap();
    let err = assert_refused("a huge attr_size", &run(&["info", s(&input)], None));
    assert!(err.contains("attr"), "{err}");
}

/// A stream whose attr linux-perf-data cannot read (USE_CLOCKID with a clock id no Linux
/// has) converted to a stream is refused like a file is: no OUT left.
#[test]
fn a_stream_linux_perf_data_cannot_open_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut bytes) = fixture("pipe_sched.data");
    // The first record is HEADER_ATTR; its attr starts at 24 (flags at +40, clockid at +92).
    assert_eq!(&bytes[16..20], &64u32.to_le_bytes());
    let flags_at = 24 + 40;
    let flags = u64::from_le_bytes(bytes[flags_at..flags_at + 8].try_into().unwrap());
    bytes[flags_at..flags_at + 8].copy_from_slice(&(flags | 1 << 25).to_le_bytes());
    bytes[24 + 92..24 + 96].copy_from_slice(&99u32.to_le_bytes());
    let input = dir.path().join("in.data");
    std::fs::write(&input, &bytes).unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.data");
    let err = assert_refused(
        "a bad clock id",
        &run(&["convert", s(&input), s(&out)], None),
    );
    assert!(
        err.contains("makes a stream linux-perf-data cannot open"),
        "{err}"
    );
    assert_dir_holds("a bad clock id", &out_dir, &[]);
}
