//! [`CompressionError`]: why a compression setting was refused or compression failed.

use std::fmt;

/// Why the writer's compression was refused or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompressionError {
    /// A zstd compression level outside 1..=22 (HEADER_COMPRESSED stores it unsigned).
    Level(i32),
    /// zstd failed (its error name), or this build has no `zstd` feature.
    Zstd(&'static str),
    /// The aligned form after perf's form in one output: perf's zstd stream cannot be ended
    /// (its last record would decompress to nothing, which perf 6.1 refuses), and perf
    /// decompresses one stream per output. Keep perf's form (any level), or none.
    FormSwitch,
    /// Compression cannot be read back in this output: a byte-swapped pipe stream carries no
    /// HEADER_FEATURE records (see `PerfPipeWriter`), so perf would not have the
    /// HEADER_COMPRESSED it needs.
    Unreadable,
}

impl fmt::Display for CompressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Level(level) => write!(f, "zstd level {level} is outside 1..=22"),
            Self::Zstd(why) => write!(f, "zstd compression failed: {why}"),
            Self::FormSwitch => f.write_str(
                "perf's zstd stream of this output is open: only perf's form can follow it",
            ),
            Self::Unreadable => f.write_str(
                "a byte-swapped pipe stream carries no HEADER_COMPRESSED: perf could not decompress it",
            ),
        }
    }
}
