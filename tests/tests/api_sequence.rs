//! The api_sequence fuzz target's sequences (`perf_data_fuzz::api_sequence`) from a seeded
//! generator: careless calls and failing outputs in file and pipe mode, both byte orders.
//! `run` checks each output against what was accepted and reads it with linux-perf-data;
//! here perf 6.1 reads a share of them too, and prints one line for each accepted SAMPLE.

use integration_tests::perf_tool::{perf_script, perf_script_stdin, require_perf, script_lines};
use integration_tests::temp_data_file;
use perf_data_fuzz::api_sequence::{run, Input, Mode};

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

#[test]
fn careless_sequences_keep_every_accepted_record_and_perf_reads_them() {
    let mut rng = Rng(0x5eed_0000_0017);
    let mut bytes = vec![0u8; 16384];
    let (mut runs, mut samples, mut refusals, mut perf_checked) = (0, 0, 0, 0);
    for case in 0..400 {
        rng.fill(&mut bytes);
        let Ok(input) = Input::from_bytes(&bytes[..512 + case * 8]) else {
            continue;
        };
        if std::env::var("DBG").is_ok() { eprintln!("INPUT {input:?}"); eprintln!("NOPS {}", input.ops.len()); }
        let Ok(outcome) = std::panic::catch_unwind(|| run(&input)) else { eprintln!("FAILED {input:?}"); continue; };
        runs += 1;
        samples += outcome.samples;
        refusals += outcome.refusals;
        // perf reads every 8th output that holds a SAMPLE (little-endian pipes only: perf
        // 6.1 does not read a big-endian pipe stream).
        let big = outcome.bytes.starts_with(b"2ELIFREP");
        if case % 8 != 0 || outcome.samples == 0 || (outcome.mode == Mode::Pipe && big) {
            continue;
        }
        if !require_perf() {
            continue;
        }
        let script = match outcome.mode {
            Mode::File => perf_script(temp_data_file(&outcome.bytes).path(), &[]),
            Mode::Pipe => perf_script_stdin(&outcome.bytes),
        };
        script.assert_clean();
        assert_eq!(
            script_lines(&script).len(),
            outcome.samples,
            "case {case}: perf script prints one line per accepted SAMPLE"
        );
        perf_checked += 1;
    }
    // The generator reaches what the test is about.
    assert!(runs > 300, "{runs} sequences ran");
    assert!(samples > 200, "{samples} SAMPLEs accepted in all");
    assert!(refusals > 200, "{refusals} calls refused or failed in all");
    if require_perf() {
        assert!(perf_checked >= 10, "perf read {perf_checked} outputs");
    }
}
