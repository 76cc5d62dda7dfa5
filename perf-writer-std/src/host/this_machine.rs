//! Facts about the machine this runs on, used as defaults.

use nix::time::{clock_getres, ClockId};
use nix::unistd::{sysconf, SysconfVar};
use std::ffi::c_long;

/// The page size assumed when `sysconf` cannot tell it.
const DEFAULT_PAGE_SIZE: u32 = 4096;

/// `sizeof(long)` here: the default `long_size` of synthesized tracing data.
pub fn long_size() -> u8 {
    std::mem::size_of::<c_long>() as u8
}

/// The page size here ([`DEFAULT_PAGE_SIZE`] when it cannot be read): the default
/// `page_size` of synthesized tracing data.
pub fn page_size() -> u32 {
    page_size_from(sysconf(SysconfVar::PAGE_SIZE).ok().flatten())
}

/// The page size `sysconf(_SC_PAGESIZE)` answered `answer`, as [`page_size`] takes it:
/// [`DEFAULT_PAGE_SIZE`] for no answer or one that is no `u32`.
fn page_size_from(answer: Option<c_long>) -> u32 {
    answer
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(DEFAULT_PAGE_SIZE)
}

/// Resolution in ns of clock `clockid` here, or `None` when the clock is unknown.
pub fn clock_resolution_ns(clockid: u32) -> Option<u64> {
    let id = ClockId::from_raw(i32::try_from(clockid).ok()?);
    let res = clock_getres(id).ok()?;
    timespec_ns(res.tv_sec(), res.tv_nsec())
}

/// A `timespec` (`secs` seconds and `nanos` nanoseconds) in nanoseconds; `None` when a
/// part is negative or the sum does not fit in a `u64`.
fn timespec_ns(secs: impl TryInto<u64>, nanos: impl TryInto<u64>) -> Option<u64> {
    let secs = secs.try_into().ok()?;
    let nanos = nanos.try_into().ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// This machine's host name, if it can be read.
pub fn hostname() -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    nix::unistd::gethostname().ok().map(|h| h.into_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timespec_ns_converts_exactly_and_refuses_what_does_not_fit() {
        assert_eq!(timespec_ns(0i64, 0i64), Some(0));
        assert_eq!(timespec_ns(0i64, 1i64), Some(1));
        assert_eq!(timespec_ns(0i64, 999_999_999i64), Some(999_999_999));
        assert_eq!(timespec_ns(1i64, 0i64), Some(1_000_000_000));
        assert_eq!(
            timespec_ns(0i64, 4_000_250i64),
            Some(4_000_250),
            "a 250 Hz tick"
        );
        assert_eq!(timespec_ns(2i64, 500i64), Some(2_000_000_500));
        // u64::MAX = 18446744073 s + 709551615 ns: the last value that fits.
        assert_eq!(
            timespec_ns(18_446_744_073i64, 709_551_615i64),
            Some(u64::MAX)
        );
        assert_eq!(
            timespec_ns(18_446_744_073i64, 709_551_616i64),
            None,
            "sum overflows"
        );
        assert_eq!(
            timespec_ns(18_446_744_074i64, 0i64),
            None,
            "product overflows"
        );
        assert_eq!(timespec_ns(i64::MAX, 0i64), None);
        assert_eq!(timespec_ns(-1i64, 0i64), None, "negative seconds");
        assert_eq!(timespec_ns(0i64, -1i64), None, "negative nanoseconds");
        assert_eq!(timespec_ns(i32::MIN, 0i32), None);
    }

    #[test]
    fn page_size_falls_back_when_sysconf_has_no_answer() {
        assert_eq!(page_size_from(Some(4096)), 4096);
        assert_eq!(page_size_from(Some(65536)), 65536);
        assert_eq!(page_size_from(None), DEFAULT_PAGE_SIZE);
        assert_eq!(page_size_from(Some(-1)), DEFAULT_PAGE_SIZE);
    }

    /// Only what holds on every Linux machine: the values themselves are the host's.
    #[test]
    fn host_facts_are_plausible() {
        assert!(long_size() == 8 || long_size() == 4);
        assert!(page_size().is_power_of_two());
        // CLOCK_MONOTONIC (1) exists on every Linux; its resolution depends on the kernel
        // (1 ns with high-resolution timers, one tick of 1 to 10 ms without), but is never 0
        // and always below a second.
        let res = clock_resolution_ns(1);
        assert!(
            res.is_some_and(|ns| (1..1_000_000_000).contains(&ns)),
            "{res:?}"
        );
        // Not a clock id (no i32): refused before asking the kernel.
        assert_eq!(clock_resolution_ns(u32::MAX), None);
    }
}
