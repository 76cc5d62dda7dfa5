//! `perf-data convert` on perf's own recordings (tests/data/perf-6.1), every direction:
//! file and pipe mode, compressed (both forms) and not, through paths and stdin/stdout.
//! Each output must print what the recording prints with `perf script` (perf 6.1), and
//! linux-perf-data must read the same records (by type) and samples (by event) from it.

mod common;

use common::{assert_same_lines, fixture, lpd_counts, run_ok, s, script, FIXTURES};
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
