//! `perf-data convert` on perf's own recordings (tests/data/perf-6.1), every direction:
//! file and pipe mode, compressed (both forms) and not, through paths and stdin/stdout.
//! Each output must print what the recording prints with `perf script` (perf 6.1), and
//! linux-perf-data must read the same records (by type) and samples (by event) from it.

mod common;

use common::{
    assert_dir_holds, assert_refused, assert_same_lines, clean, fixture, lpd_counts, run, run_ok,
    s, script, FIXTURES,
};
use integration_tests::fixtures::{DataMode, FixtureContent};
use integration_tests::perf_tool::{self, script_lines};

/// The option sets every recording is converted with, to each mode.
const VARIANTS: [&[&str]; 4] = [
    &[],
    &["--compress"],
    &["--compress=3", "--form", "perf"],
    &["--decompress"],
];

fn convert_every_direction(name: &str) {
    let (path, bytes) = fixture(name);
    let expected_counts = lpd_counts(&bytes);
    assert!(
        !expected_counts.1.is_empty(),
        "{name}: the recording has samples"
    );
    let perf = perf_tool::require_perf();
    let original = perf.then(|| script(&path));
    let dir = tempfile::tempdir().unwrap();
    for to in ["file", "pipe"] {
        for variant in VARIANTS {
            let what = format!("{name} --to {to} {variant:?}");
            let out = dir.path().join("out.data");
            let mut args = vec!["convert", s(&path), s(&out), "--to", to];
            args.extend_from_slice(variant);
            run_ok(&args, None);
            let written = std::fs::read(&out).unwrap();
            let content = FixtureContent::from_bytes(&written).expect("raw walk");
            let mode = if to == "file" {
                DataMode::File
            } else {
                DataMode::Pipe
            };
            assert_eq!(content.mode, mode, "{what}");
            let compressed = content
                .records
                .iter()
                .filter(|r| r.record_type == 81)
                .count();
            let input_compressed = FixtureContent::from_bytes(&bytes)
                .unwrap()
                .records
                .iter()
                .any(|r| r.record_type == 81);
            match variant.first().copied() {
                Some("--decompress") => assert_eq!(compressed, 0, "{what}"),
                Some(_) => assert!(compressed > 0, "{what}: COMPRESSED records"),
                None => assert_eq!(compressed > 0, input_compressed, "{what}"),
            }
            assert_eq!(
                lpd_counts(&written),
                expected_counts,
                "{what}: linux-perf-data"
            );
            if let Some(original) = &original {
                assert_same_lines(&what, original, &script(&out));
            }
        }
    }
}

#[test]
fn build_ids_injected() {
    convert_every_direction("build_ids_injected.data");
}

#[test]
fn cpu_clock() {
    convert_every_direction("cpu_clock.data");
}

#[test]
fn sched_switch() {
    convert_every_direction("sched_switch.data");
}

#[test]
fn pipe_sched() {
    convert_every_direction("pipe_sched.data");
}

#[test]
fn zstd_sched() {
    convert_every_direction("zstd_sched.data");
}

#[test]
fn rounds_getppid() {
    convert_every_direction("rounds_getppid.data");
}

/// `-` reads stdin and writes stdout: a stream piped into `perf script -i -`, and a file
/// built from a stream on stdin.
#[test]
fn stdin_and_stdout() {
    let dir = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let (path, bytes) = fixture(name);
        let expected = lpd_counts(&bytes);
        let pipe = run_ok(&["convert", "-", "-", "--to", "pipe"], Some(&bytes)).stdout;
        assert_eq!(
            lpd_counts(&pipe),
            expected,
            "{name}: stdin to a stream on stdout"
        );
        let file = run_ok(&["convert", "-", "-", "--to", "file"], Some(&pipe)).stdout;
        assert_eq!(&file[..8], b"PERFILE2");
        assert_eq!(
            lpd_counts(&file),
            expected,
            "{name}: a stream on stdin to a file on stdout"
        );
        if perf_tool::require_perf() {
            let original = script(&path);
            let stdin = common::clean(perf_tool::perf_script_stdin(&pipe));
            assert_same_lines(
                &format!("{name}: perf script -i -"),
                &original,
                &script_lines(&stdin),
            );
            let out = dir.path().join("back.data");
            std::fs::write(&out, &file).unwrap();
            assert_same_lines(
                &format!("{name}: file from stdout"),
                &original,
                &script(&out),
            );
        }
    }
}

/// This machine's byte order and the other one, as `--endian` says them.
const NATIVE: (&str, &str) = if cfg!(target_endian = "little") {
    ("little", "big")
} else {
    ("big", "little")
};

/// `perf report --header-only` entries that say where the sections are, not what they hold.
const PLACES: [&str; 4] = ["data offset", "data size", "feat offset", "captured on"];

/// The BPF features a byte-swapped output leaves out: perf 6.1 reads neither in the other
/// byte order (it warns), and perf's recordings carry them empty.
const BPF_FEATURES: [u8; 2] = [25, 26];

/// What perf 6.1 prints of a file's header (places left out), its missing features, and
/// its `perf evlist -v` lines.
fn perf_header(path: &std::path::Path) -> (Vec<(String, String)>, Vec<String>, Vec<String>) {
    let header = clean(perf_tool::perf_report_header(path, false));
    let info = perf_tool::parse_header_only(&header.stdout);
    let entries = info
        .entries
        .into_iter()
        .filter(|(k, _)| !PLACES.contains(&k.as_str()))
        .collect();
    let evlist = clean(perf_tool::perf_evlist(path));
    let events = evlist.stdout.lines().map(str::to_string).collect();
    (entries, info.missing_features, events)
}

/// The events, features and records of a perf.data file as perf-data reads them.
fn parsed(bytes: &[u8]) -> perf_data::trace::Trace {
    perf_data::read::parse(std::path::Path::new("t"), bytes.to_vec()).expect("perf-data reads it")
}

/// A recording converted to big-endian prints what the recording prints (perf script,
/// header, evlist), reads the same in linux-perf-data, and converted back to little-endian
/// holds the very records, events and features (the empty BPF ones aside) of a
/// little-endian convert; a second round gives the same bytes.
fn to_big_endian_and_back(name: &str) {
    let (path, bytes) = fixture(name);
    let dir = tempfile::tempdir().unwrap();
    let compressed = FixtureContent::from_bytes(&bytes)
        .unwrap()
        .records
        .iter()
        .any(|r| r.record_type == 81);
    // The reference is the recording, or for a stream the same in a file (perf prints a
    // stream's header and event names otherwise).
    let reference = dir.path().join("le.data");
    run_ok(&["convert", s(&path), s(&reference), "--to", "file"], None);
    let be = dir.path().join("be.data");
    run_ok(
        &[
            "convert",
            s(&path),
            s(&be),
            "--endian",
            "big",
            "--to",
            "file",
        ],
        None,
    );
    let be_bytes = std::fs::read(&be).unwrap();
    assert_eq!(&be_bytes[..8], b"2ELIFREP", "{name}");
    assert_eq!(
        lpd_counts(&be_bytes),
        lpd_counts(&bytes),
        "{name}: linux-perf-data"
    );
    let lpd_be = integration_tests::lpd::read_file(&be_bytes).unwrap();
    assert_eq!(lpd_be.endian, integration_tests::Endian::Big, "{name}");
    if compressed {
        assert!(
            FixtureContent::from_bytes(&be_bytes)
                .unwrap()
                .records
                .iter()
                .any(|r| r.record_type == 81),
            "{name}: compressed again"
        );
    }
    if perf_tool::require_perf() {
        let original = script(&path);
        assert_same_lines(&format!("{name}: perf script"), &original, &script(&be));
        let (want, mut want_missing, want_events) = perf_header(&reference);
        let (got, got_missing, got_events) = perf_header(&be);
        assert_eq!(got, want, "{name}: perf report --header-only");
        for f in ["BPF_PROG_INFO", "BPF_BTF"] {
            if !want_missing.iter().any(|m| m == f) {
                want_missing.push(f.to_string());
            }
        }
        want_missing.sort();
        let mut got_missing = got_missing;
        got_missing.sort();
        assert_eq!(got_missing, want_missing, "{name}: missing features");
        assert_eq!(got_events, want_events, "{name}: perf evlist -v");
        assert!(
            got.iter().any(|(k, v)| k == "hostname" && v == "vm"),
            "{name}"
        );
        // A big-endian file written as a stream of this machine's byte order.
        let stream = dir.path().join("native.pipe");
        let args = [
            "convert",
            s(&be),
            s(&stream),
            "--endian",
            NATIVE.0,
            "--to",
            "pipe",
        ];
        run_ok(&args, None);
        assert_same_lines(&format!("{name}: as a stream"), &original, &script(&stream));
    }

    // Back to little-endian: the same as a little-endian convert, record for record (from
    // an uncompressed big-endian file: a writer that compresses thins out FINISHED_ROUND).
    let be_plain = dir.path().join("be_plain.data");
    run_ok(
        &[
            "convert",
            s(&path),
            s(&be_plain),
            "--endian",
            "big",
            "--to",
            "file",
            "--decompress",
        ],
        None,
    );
    let back = dir.path().join("back.data");
    let plain = dir.path().join("plain.data");
    run_ok(
        &["convert", s(&be_plain), s(&back), "--endian", "little"],
        None,
    );
    run_ok(
        &[
            "convert",
            s(&path),
            s(&plain),
            "--to",
            "file",
            "--decompress",
        ],
        None,
    );
    let (back_bytes, plain_bytes) = (
        std::fs::read(&back).unwrap(),
        std::fs::read(&plain).unwrap(),
    );
    let (b, p) = (parsed(&back_bytes), parsed(&plain_bytes));
    let records = |t: &perf_data::trace::Trace| -> Vec<Vec<u8>> {
        t.records
            .iter()
            .map(|r| t.record_bytes(r).to_vec())
            .collect()
    };
    let (rb, rp) = (records(&b), records(&p));
    let first = rb.iter().zip(&rp).position(|(x, y)| x != y);
    assert!(
        rb.len() == rp.len() && first.is_none(),
        "{name}: records after a round trip: {} against {}, first difference at record {first:?}",
        rb.len(),
        rp.len()
    );
    let events = |t: &perf_data::trace::Trace| format!("{:?}", t.events);
    assert_eq!(events(&b), events(&p), "{name}: events after a round trip");
    let mut want_features = p.features.clone();
    for bit in BPF_FEATURES {
        want_features.remove(&bit);
    }
    assert_eq!(
        b.features, want_features,
        "{name}: features after a round trip"
    );
    // A second round trip changes nothing.
    let be2 = dir.path().join("be2.data");
    let back2 = dir.path().join("back2.data");
    run_ok(&["convert", s(&back), s(&be2), "--endian", "big"], None);
    run_ok(&["convert", s(&be2), s(&back2), "--endian", "little"], None);
    assert_eq!(
        std::fs::read(&back2).unwrap(),
        back_bytes,
        "{name}: second round"
    );
}

#[test]
fn big_endian_build_ids_injected() {
    to_big_endian_and_back("build_ids_injected.data");
}

#[test]
fn big_endian_cpu_clock() {
    to_big_endian_and_back("cpu_clock.data");
}

#[test]
fn big_endian_sched_switch() {
    to_big_endian_and_back("sched_switch.data");
}

#[test]
fn big_endian_pipe_sched() {
    to_big_endian_and_back("pipe_sched.data");
}

#[test]
fn big_endian_zstd_sched() {
    to_big_endian_and_back("zstd_sched.data");
}

#[test]
fn big_endian_rounds_getppid() {
    to_big_endian_and_back("rounds_getppid.data");
}

/// What perf 6.1 cannot read in the other byte order is refused (one line, status 1, no
/// OUT): a stream in the byte order other than this machine's, a BPF_PROG_INFO that
/// describes programs, a record type perf 6.1 does not know, a KSYMBOL.
#[test]
fn the_other_byte_order_refuses_what_perf_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.data");
    let (pipe, _) = fixture("pipe_sched.data");
    let args = [
        "convert",
        s(&pipe),
        s(&out),
        "--endian",
        NATIVE.1,
        "--to",
        "pipe",
    ];
    let err = assert_refused("a stream in the other byte order", &run(&args, None));
    assert!(err.contains("--to file"), "{err}");
    assert_dir_holds("a stream in the other byte order", &out_dir, &[]);

    // sched_switch.data with a BPF_PROG_INFO of one program.
    let (_, mut bytes) = fixture("sched_switch.data");
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let features = u64_at(&bytes, 72);
    assert!(features & 1 << 25 != 0, "the recording has BPF_PROG_INFO");
    let table = (u64_at(&bytes, 40) + u64_at(&bytes, 48)) as usize;
    let index = (features & ((1 << 25) - 1)).count_ones() as usize;
    let payload = u64_at(&bytes, table + 16 * index) as usize;
    bytes[payload] = 1;
    let input = dir.path().join("bpf.data");
    std::fs::write(&input, &bytes).unwrap();
    let err = assert_refused(
        "a BPF program",
        &run(&["convert", s(&input), s(&out), "--endian", "big"], None),
    );
    assert!(err.contains("BPF_PROG_INFO"), "{err}");
    assert_dir_holds("a BPF program", &out_dir, &[]);

    // cpu_clock.data with its FINISHED_ROUND turned into a record type perf 6.1 does not
    // know (the reader frames it by its size; its fields are unknown).
    let (_, mut bytes) = fixture("cpu_clock.data");
    let round = FixtureContent::from_bytes(&bytes)
        .unwrap()
        .records
        .iter()
        .find(|r| r.record_type == 68)
        .map(|r| r.offset as usize)
        .expect("a FINISHED_ROUND");
    bytes[round..round + 4].copy_from_slice(&100u32.to_le_bytes());
    std::fs::write(&input, &bytes).unwrap();
    let err = assert_refused(
        "an unknown record type",
        &run(&["convert", s(&input), s(&out), "--endian", "big"], None),
    );
    assert!(
        err.contains(&format!(
            "record at byte {round}: record type 100 is unknown"
        )),
        "{err}"
    );
    assert_dir_holds("an unknown record type", &out_dir, &[]);

    // A KSYMBOL, which perf 6.1 does not swap (a little-endian file the writer makes).
    let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    w.create_file(&input).unwrap();
    let attr = tracepoint_decode::PerfEventAttr {
        sample_type: tracepoint_decode::PerfEventAttrSampleType::Identifier
            .or(tracepoint_decode::PerfEventAttrSampleType::Time),
        options: tracepoint_decode::PerfEventAttrOptions::SampleIdAll,
        ..Default::default()
    };
    w.add_event_desc(&[1], &attr, "cpu-clock").unwrap();
    let mut ksymbol = Vec::new();
    // Its header (type 17, 56 bytes), addr, then len 256 and ksym_type 1 (flags 0).
    for word in [17u64 | 56 << 48, 0xffff_0000_1234_5678, 0x100 | 1 << 32] {
        ksymbol.extend_from_slice(&word.to_le_bytes());
    }
    ksymbol.extend_from_slice(b"bpf_prog_x\0\0\0\0\0\0");
    ksymbol.extend_from_slice(&1500u64.to_le_bytes());
    ksymbol.extend_from_slice(&1u64.to_le_bytes());
    w.write_event_data(&ksymbol).unwrap();
    w.finalize_and_close().unwrap();
    let err = assert_refused(
        "a KSYMBOL",
        &run(&["convert", s(&input), s(&out), "--endian", "big"], None),
    );
    assert!(err.contains("KSYMBOL or BPF_EVENT"), "{err}");
    assert_dir_holds("a KSYMBOL", &out_dir, &[]);
    run_ok(&["convert", s(&input), s(&out), "--endian", "little"], None);
}

/// A `perf stat record` file: its STAT feature (present with no payload) and its
/// HEADER_COMPRESSED (with no COMPRESSED record) are kept in both byte orders, and `perf stat
/// report` prints the same counts of the little-endian output. (perf 6.1 reads the scale
/// of a byte-swapped EVENT_UPDATE unswapped, so the big-endian counts are not compared.)
#[test]
fn a_perf_stat_recording_keeps_its_features_and_counts() {
    if !perf_tool::require_perf() {
        return;
    }
    let (input, _) = fixture("stat_record.data");
    let dir = tempfile::tempdir().unwrap();
    let header_of = |p: &std::path::Path| clean(perf_tool::perf_report_header(p, false)).stdout;
    let want_counts = stat_counts(&input);
    assert_eq!(want_counts.len(), 2, "{want_counts:?}");
    for endian in ["little", "big"] {
        let out = dir.path().join(format!("{endian}.data"));
        run_ok(&["convert", s(&input), s(&out), "--endian", endian], None);
        let header = header_of(&out);
        for line in ["# contains stat data", "# compressed : Unknown, level = 0"] {
            assert!(header.contains(line), "{endian}: {line:?} in {header}");
        }
        assert_eq!(perf_header(&out).0, perf_header(&input).0, "{endian}");
        if endian == "little" {
            assert_eq!(stat_counts(&out), want_counts);
        }
    }
}

/// `perf stat record` sessions whose events perf cannot tell apart (a stream's attrs without
/// sample ids; an unsupported event without ids) convert in every direction, and `perf stat
/// report` prints the original's counts and names (a stream written as a file gets
/// HEADER_STAT, which perf reads such a file by, and its unnamed `cycles` perf's name), and
/// `perf script` reads them (a stat session written as a stream samples nothing, as `perf
/// stat record -o -` writes it).
#[test]
fn perf_stat_sessions_of_events_perf_cannot_tell_apart_convert() {
    if !perf_tool::require_perf() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stat_files = [
        ("stat_pipe.data", 3),
        ("stat_unsupported.data", 2),
        ("stat_record.data", 2),
    ];
    for (name, lines) in stat_files {
        let (input, _) = fixture(name);
        let want = stat_counts(&input);
        assert_eq!(want.len(), lines, "{name}: {want:?}");
        for args in [
            &[][..],
            &["--to", "file"],
            &["--to", "pipe"],
            &["--compress", "3"],
        ] {
            let out = dir.path().join("out.data");
            let mut all = vec!["convert", s(&input), s(&out)];
            all.extend_from_slice(args);
            run_ok(&all, None);
            assert_eq!(stat_counts(&out), want, "{name} {args:?}");
            // perf script reads it too (it refuses a stat stream whose attrs sample).
            let script = perf_tool::perf_script(&out, &[]);
            assert!(script.success(), "{name} {args:?}: {}", script.describe());
        }
    }
}

/// The count lines `perf stat report` prints of `path` (a time in msec, or `<not
/// supported>`).
fn stat_counts(path: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new("perf")
        .args(["stat", "report", "-i", s(path)])
        .output()
        .unwrap();
    assert!(out.status.success(), "perf stat report {}", path.display());
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.contains("msec") || l.contains("<not supported>"))
        .map(str::to_string)
        .collect()
}
