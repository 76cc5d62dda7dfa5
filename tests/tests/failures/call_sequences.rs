//! The api_sequence fuzz target's sequences (`perf_data_fuzz::api_sequence`) from a seeded
//! generator: careless calls and failing outputs in file and pipe mode, both byte orders.
//! `run` checks each output against what was accepted and reads it with linux-perf-data;
//! here perf 6.1 reads a share of them too, and prints one line for each accepted SAMPLE.
//! A failing sequence is shrunk (ops dropped while it still fails) before the test fails
//! with it, so the message shows a short reproduction.

use integration_tests::perf_tool::{perf_script, perf_script_stdin, require_perf, script_lines};
use integration_tests::temp_data_file;
use perf_data_fuzz::api_sequence::{run, Input, Mode};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// xorshift64*: the sequences are the same on every machine.
struct Rng(u64);

impl Rng {
    fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            *b = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }
}

/// What one sequence gave.
struct Seen {
    samples: usize,
    refusals: usize,
    perf_read: bool,
}

/// Runs `input`; with `with_perf`, perf script reads the output too (not a big-endian pipe
/// stream: perf 6.1 does not read those) and must print a line for each accepted SAMPLE.
fn check(input: &Input, with_perf: bool) -> Seen {
    let outcome = run(input);
    let big = outcome.bytes.starts_with(b"2ELIFREP");
    let perf_read = with_perf && !(outcome.mode == Mode::Pipe && big);
    if perf_read {
        let script = match outcome.mode {
            Mode::File => perf_script(temp_data_file(&outcome.bytes).path(), &[]),
            Mode::Pipe => perf_script_stdin(&outcome.bytes),
        };
        // A caller who starts a record while another is open writes bytes that continue it:
        // a well-formed SAMPLE of garbage fields, its time too, which perf reads with an
        // "out of order events" warning. Any other warning, or a failure, counts.
        let out_of_order = script.stderr.contains("out of order events recorded");
        let findings: Vec<String> = script
            .stderr_findings()
            .into_iter()
            .filter(|l| !(out_of_order && l.trim() == "Warning:"))
            .collect();
        if !script.success() || !findings.is_empty() {
            script.assert_clean();
        }
        assert_eq!(
            script_lines(&script).len(),
            outcome.samples,
            "perf script prints one line per accepted SAMPLE"
        );
    }
    Seen {
        samples: outcome.samples,
        refusals: outcome.refusals,
        perf_read,
    }
}

/// `input` with ops dropped while it still fails.
fn shrink(input: &Input, with_perf: bool) -> Input {
    let mut min = input.clone();
    let mut i = 0;
    while i < min.ops.len() {
        let mut t = min.clone();
        t.ops.remove(i);
        if catch_unwind(AssertUnwindSafe(|| check(&t, with_perf))).is_err() {
            min = t;
        } else {
            i += 1;
        }
    }
    min
}

#[test]
fn careless_sequences_keep_every_accepted_record_and_perf_reads_them() {
    let perf = require_perf();
    let mut rng = Rng(0x5eed_0000_0017);
    let mut bytes = vec![0u8; 4096];
    let (mut runs, mut samples, mut refusals, mut perf_read) = (0, 0, 0, 0);
    for case in 0..400 {
        rng.fill(&mut bytes);
        let Ok(input) = Input::from_bytes(&bytes[..512 + case * 8]) else {
            continue;
        };
        // perf reads every 4th output.
        let with_perf = perf && case % 4 == 0;
        match catch_unwind(AssertUnwindSafe(|| check(&input, with_perf))) {
            Ok(seen) => {
                runs += 1;
                samples += seen.samples;
                refusals += seen.refusals;
                perf_read += usize::from(seen.perf_read);
            }
            Err(_) => {
                let min = shrink(&input, with_perf);
                panic!("case {case} fails; shrunk: {min:?}");
            }
        }
    }
    // The generator reaches what the test is about.
    assert!(runs > 300, "{runs} sequences ran");
    assert!(samples > 200, "{samples} SAMPLEs accepted in all");
    assert!(refusals > 200, "{refusals} calls refused or failed in all");
    if perf {
        assert!(perf_read >= 60, "perf read {perf_read} outputs");
    }
}
