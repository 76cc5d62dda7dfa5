//! [`say!`](crate::say): a line on stderr that never stops the recording.

/// Writes one line to stderr, as `eprintln!` does, but ignores a stderr that cannot be
/// written (closed, a full disk, a reader gone): `eprintln!` panics then, which would end
/// a recording without finalizing it and leave its command running.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
