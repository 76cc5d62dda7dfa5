//! Self-check of the harness: perf's output in the tests does not depend on the machine.
//!
//! perf resolves addresses to symbols from whatever the host offers: the build-id cache in
//! `~/.debug` (which `perf record` fills), the running kernel's `/proc/kallsyms` (for
//! streams without build ids, such as pipe mode) and the host's binaries. Two tests made
//! on different machines would then print different text for the same file. The harness
//! hides all of it (`perf_tool::HostSymbols::Hidden`); these tests make the host's symbols
//! reachable on purpose, show that perf run as a user does resolve them (so the check can
//! fail), and that every harness run prints the same text as on a host with nothing.
//!
//! This file sets `HOME` for its own process, so it holds only these tests.

use integration_tests::fixtures::fixture_path;
use integration_tests::perf_tool::{
    perf_script, require_perf, require_perf_record, run_perf, run_perf_with_host, script_lines,
    skip, HostSymbols, PerfCommand, PerfOutput,
};
use std::path::Path;
use std::process::Stdio;

/// Prefix of the symbol names the fake build-id cache holds.
const FAKE_SYMBOL: &str = "selfcheck_symbol_";

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Every `ADDRESS SYMBOL (DSO)` frame line of `perf script` whose DSO is the kernel.
fn kernel_frames(out: &PerfOutput) -> Vec<String> {
    script_lines(out)
        .into_iter()
        .filter(|l| l.ends_with("([kernel.kallsyms])"))
        .collect()
}

/// The kernel addresses in a `perf script` output, sorted and unique.
fn kernel_addresses(out: &PerfOutput) -> Vec<u64> {
    let mut addrs: Vec<u64> = kernel_frames(out)
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|a| u64::from_str_radix(a, 16).ok())
        .collect();
    addrs.sort_unstable();
    addrs.dedup();
    addrs
}

/// The kernel build id `perf buildid-list` reads from a recording.
fn kernel_build_id(recording: &Path) -> String {
    let out = run_perf(
        &["buildid-list", "--force", "-i", path_str(recording)],
        None,
    );
    out.assert_clean();
    out.stdout
        .lines()
        .find_map(|l| l.strip_suffix(" [kernel.kallsyms]"))
        .unwrap_or_else(|| panic!("no kernel build id in {}", out.describe()))
        .to_owned()
}

/// A `HOME` whose build-id cache (`~/.debug`) holds a kallsyms for the kernel `build_id`,
/// naming a symbol 4 bytes below each of `addresses` (and `_text` at `text`, the anchor
/// perf relocates kernel symbols by).
fn home_with_cached_kallsyms(build_id: &str, text: u64, addresses: &[u64]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home
        .path()
        .join(".debug")
        .join("[kernel.kallsyms]")
        .join(build_id);
    std::fs::create_dir_all(&dir).unwrap();
    let mut kallsyms = format!("{text:016x} T _text\n");
    for (i, a) in addresses.iter().enumerate() {
        kallsyms += &format!("{:016x} t {FAKE_SYMBOL}{i}\n", a - 4);
    }
    std::fs::write(dir.join("kallsyms"), kallsyms).unwrap();
    home
}

/// perf's pipe-mode copy of `recording` (`perf inject -o -`): no build ids, so perf
/// symbolizes the kernel from the running kernel's `/proc/kallsyms`.
fn pipe_copy(recording: &Path, dir: &Path) -> std::path::PathBuf {
    let out = dir.join("copy.pipe");
    let mut inject = PerfCommand::new(&["inject", "-i", path_str(recording), "-o", "-"]);
    let status = inject
        .command()
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "perf inject -o - of {}",
        recording.display()
    );
    out
}

/// `perf script` of `path` as the harness runs it, with this process's `HOME` set to `home`
/// (the host state perf would see if the harness let it).
fn harness_script_with_home(path: &Path, home: &Path) -> PerfOutput {
    std::env::set_var("HOME", home);
    let out = perf_script(path, &[]);
    out.assert_clean();
    out
}

#[test]
fn host_symbols_never_reach_perf_output() {
    if !require_perf() {
        return;
    }
    // cpu_clock.data samples the kernel; its build id names a kernel no machine here runs.
    let recording = fixture_path("cpu_clock.data");
    let addresses = kernel_addresses(&perf_script(&recording, &[]));
    assert!(addresses.len() >= 5, "kernel frames in cpu_clock.data");
    let reachable = home_with_cached_kallsyms(
        &kernel_build_id(&recording),
        0xffff_ffff_8100_0000, // `[kernel.kallsyms]_text` in the recording's MMAP
        &addresses,
    );
    let nothing = tempfile::tempdir().unwrap();

    // Control: perf as a user runs it finds the cached symbols, so the check below can fail.
    let user = run_perf_with_host(
        &[
            "script",
            "--force",
            "--no-inline",
            "-i",
            path_str(&recording),
        ],
        None,
        &HostSymbols::Visible {
            home: reachable.path().to_owned(),
        },
    );
    user.assert_success();
    let resolved = kernel_frames(&user)
        .iter()
        .filter(|l| l.contains(FAKE_SYMBOL))
        .count();
    assert!(
        resolved >= addresses.len(),
        "perf did not read the fake build-id cache: the self-check proves nothing\n{}",
        user.describe()
    );

    // The harness: the same text with the symbols reachable and with nothing, file and pipe.
    let dir = tempfile::tempdir().unwrap();
    let pipe = pipe_copy(&recording, dir.path());
    for path in [recording.as_path(), pipe.as_path()] {
        let with_symbols = harness_script_with_home(path, reachable.path());
        let without = harness_script_with_home(path, nothing.path());
        assert_eq!(
            with_symbols.stdout,
            without.stdout,
            "{}: perf output changed with the host's symbols",
            path.display()
        );
        let frames = kernel_frames(&with_symbols);
        assert!(
            frames.len() >= addresses.len(),
            "{}",
            with_symbols.describe()
        );
        for frame in frames {
            assert!(
                frame.contains(" [unknown] "),
                "{}: a kernel symbol reached the output: {frame}",
                path.display()
            );
        }
    }
}

#[test]
fn running_kernel_symbols_never_reach_perf_output() {
    if !require_perf_record() {
        return;
    }
    // A fresh recording of this machine's kernel: its addresses are in /proc/kallsyms.
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("fresh.data");
    run_perf(
        &[
            "record",
            "-q",
            "-e",
            "cpu-clock",
            "-F",
            "4000",
            "-o",
            path_str(&recording),
            "--",
            "dd",
            "if=/dev/zero",
            "of=/dev/null",
            "bs=1",
            "count=300000",
        ],
        None,
    )
    .assert_clean();
    let pipe = pipe_copy(&recording, dir.path());
    let empty_home = tempfile::tempdir().unwrap();
    // The file (its build id is the running kernel's) and its pipe copy (no build id).
    for path in [recording.as_path(), pipe.as_path()] {
        let args = [
            "script",
            "--force",
            "--no-inline",
            "-F",
            "ip,sym,dso",
            "-i",
            path_str(path),
        ];
        // Control: perf as a user runs it names the running kernel's functions.
        let user = run_perf_with_host(
            &args,
            None,
            &HostSymbols::Visible {
                home: empty_home.path().to_owned(),
            },
        );
        user.assert_success();
        let user_frames = kernel_frames(&user);
        assert!(
            !user_frames.is_empty(),
            "no kernel samples\n{}",
            user.describe()
        );
        if user_frames.iter().all(|l| l.contains(" [unknown] ")) {
            let reason = format!(
                "/proc/kallsyms names nothing here (kptr_restrict {}, not root?)",
                std::fs::read_to_string("/proc/sys/kernel/kptr_restrict")
                    .unwrap_or_default()
                    .trim()
            );
            skip(&format!(
                "the running kernel's symbols are not reachable: {reason}"
            ));
            return;
        }
        // The harness: the same frames with every symbol unknown.
        let harness = run_perf(&args, None);
        harness.assert_clean();
        let unknown = |out: &PerfOutput| -> Vec<String> {
            script_lines(out)
                .iter()
                .map(|l| match (l.split_once(' '), l.rfind(" (")) {
                    (Some((addr, _)), Some(dso)) => format!("{addr} [unknown]{}", &l[dso..]),
                    _ => l.clone(),
                })
                .collect()
        };
        assert_eq!(
            script_lines(&harness),
            unknown(&user),
            "{}: the harness's frames are not the user's with symbols unknown",
            path.display()
        );
    }
}
