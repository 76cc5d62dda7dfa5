//! The recordings made by `perf record` 6.1 that the workspace keeps in `tests/data/perf-6.1`
//! (its README says how each was made).

use std::path::{Path, PathBuf};

/// The path of recording `name` (e.g. `"sched_switch.data"`).
pub fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/perf-6.1")
        .join(name)
}

/// The bytes of recording `name`; panics with the path when it cannot be read.
pub fn read(name: &str) -> Vec<u8> {
    let path = path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}
