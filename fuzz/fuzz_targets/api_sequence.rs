//! Sequences of public writer calls as a careless user and a failing output make them (see
//! `perf_data_fuzz::api_sequence`): no panic, refusals where perf could not read a record,
//! and after `finish` exactly the accepted records, which linux-perf-data reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_data_fuzz::api_sequence::{run, Input};

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = Input::from_bytes(data) {
        run(&input);
    }
});
