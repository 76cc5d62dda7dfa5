//! `perf-data recover` over arbitrary bytes (seeds: files whose writer never finalized, cut
//! at various places, a finalized one, and inputs that once broke it): never a panic; when
//! it refuses, no output is left; when it succeeds, linux-perf-data opens the file or stream
//! it wrote (header, attrs, features) and walks its records without panicking. Records are written as
//! the input holds them (strict mode refusing what it can tell is wrong), so arbitrary
//! record bytes can still be records linux-perf-data cannot parse: not asserted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linux_perf_data::PerfFileReader;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A directory for the outputs, made once per process.
fn out_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("recover-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let out = out_dir().join("out.data");
    let _ = std::fs::remove_file(&out);
    let Ok(_done) = perf_data::recover::recover(Path::new("input"), data.to_vec(), &out) else {
        assert!(!out.exists(), "a refused input left an output");
        return;
    };
    let bytes = std::fs::read(&out).expect("the output exists");
    // A stream that already had perf's header is written again as a stream (its header's
    // size word is 16, either byte order); anything else as a file.
    let cursor = std::io::Cursor::new(&bytes[..]);
    let pipe = bytes.get(8..16).is_some_and(|w| w[0] == 16 || w[7] == 16);
    let reader = match pipe {
        true => PerfFileReader::parse_pipe(cursor),
        false => PerfFileReader::parse_file(cursor),
    }
    .expect("linux-perf-data parses what recover wrote");
    let (mut file, mut records) = (reader.perf_file, reader.record_iter);
    while let Ok(Some(_)) = records.next_record(&mut file) {}
});
