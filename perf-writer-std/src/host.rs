//! Facts about the machine this runs on, used as defaults.

use nix::time::{clock_getres, ClockId};
use nix::unistd::{sysconf, SysconfVar};

/// `sizeof(long)` here: the default `long_size` of synthesized tracing data.
pub fn long_size() -> u8 {
    std::mem::size_of::<usize>() as u8
}

/// The page size here (4096 when it cannot be read): the default `page_size` of synthesized
/// tracing data.
pub fn page_size() -> u32 {
    match sysconf(SysconfVar::PAGE_SIZE) {
        Ok(Some(n)) => u32::try_from(n).unwrap_or(4096),
        _ => 4096,
    }
}

/// Resolution in ns of clock `clockid` here, or `None` when the clock is unknown.
pub fn clock_resolution_ns(clockid: u32) -> Option<u64> {
    let id = ClockId::from_raw(i32::try_from(clockid).ok()?);
    let res = clock_getres(id).ok()?;
    let secs = u64::try_from(res.tv_sec()).ok()?;
    let nanos = u64::try_from(res.tv_nsec()).ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// This machine's host name, if it can be read.
pub fn hostname() -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    nix::unistd::gethostname().ok().map(|h| h.into_vec())
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_facts_are_plausible() {
        assert!(super::long_size() == 8 || super::long_size() == 4);
        assert!(super::page_size().is_power_of_two());
        // CLOCK_MONOTONIC (1) exists everywhere and has a resolution of at most 1 ms.
        let res = super::clock_resolution_ns(1).unwrap();
        assert!((1..=1_000_000).contains(&res));
        assert_eq!(super::clock_resolution_ns(u32::MAX), None);
    }
}
