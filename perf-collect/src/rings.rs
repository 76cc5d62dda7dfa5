//! The events opened on every online CPU, one ring buffer per CPU: [`CpuRing`].

use crate::error::{perf_event_paranoid, CollectError};
use crate::events::EventSpec;
use crate::options::{Options, DEFAULT_FREQ};
use crate::sys::{page_size, EventFd, Ring};
use std::io;

/// One CPU's events and the ring buffer they all write to.
#[derive(Debug)]
pub struct CpuRing {
    /// The CPU.
    pub cpu: u32,
    /// Its ring buffer.
    pub ring: Ring,
    /// Its events' descriptors, in the order of the events; the first owns the ring (the
    /// others are redirected into it).
    pub fds: Vec<EventFd>,
}

impl CpuRing {
    /// The descriptor that owns the ring: poll it to wait for records.
    pub fn owner(&self) -> Option<&EventFd> {
        self.fds.first()
    }

    /// Stops every event of this CPU: the kernel adds nothing to the ring after this.
    pub fn disable(&self) {
        for fd in &self.fds {
            let _ = fd.disable();
        }
    }

    /// The records the kernel dropped on this ring, by the events' `PERF_FORMAT_LOST`
    /// counts (those it could read).
    pub fn lost(&self) -> u64 {
        self.fds.iter().filter_map(|fd| fd.read_lost().ok()).sum()
    }
}

/// The events, opened on every CPU.
#[derive(Debug)]
pub struct Rings {
    /// Per CPU.
    pub cpus: Vec<CpuRing>,
    /// Per event: the ids of its descriptors (one per CPU).
    pub ids: Vec<Vec<u64>>,
    /// The events were opened with `PERF_FORMAT_LOST`.
    pub read_lost: bool,
}

/// Online CPUs, from `/sys/devices/system/cpu/online` (`0-3,5`), or
/// `0..available_parallelism`.
pub fn online_cpus() -> Vec<u32> {
    if let Some(list) = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|t| perf_writer_std::parse_cpu_list(&t))
        .filter(|l| !l.is_empty())
    {
        return list.into_iter().collect();
    }
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    (0..n as u32).collect()
}

/// The wakeup watermark: a quarter of the ring (the kernel's default is half).
pub fn wakeup_bytes(opts: &Options) -> u32 {
    let data_size = opts.mmap_pages.saturating_mul(page_size());
    u32::try_from(data_size / 4).unwrap_or(u32::MAX).max(1)
}

/// The attr `spec` is opened with and described by.
pub fn attr_of(
    spec: &EventSpec,
    opts: &Options,
    read_lost: bool,
) -> tracepoint_decode::PerfEventAttr {
    spec.attr(
        wakeup_bytes(opts),
        opts.freq.unwrap_or(DEFAULT_FREQ),
        read_lost,
        opts.flight_recorder.is_some(),
    )
}

/// True when this kernel takes `PERF_FORMAT_LOST` (6.0 and later) for `spec` on `cpu`.
fn kernel_reads_lost(spec: &EventSpec, cpu: u32, opts: &Options) -> bool {
    let attr = perf_abi::PerfEventAttr::from(&attr_of(spec, opts, true));
    match EventFd::open(&attr, -1, cpu as i32) {
        Ok(_) => true,
        Err(e) => e.raw_os_error() != Some(nix::libc::EINVAL),
    }
}

/// Opens every event of `specs` on every CPU of `cpus`, disabled, and maps one ring per
/// CPU (the CPU's first event owns it; the others write to it).
///
/// # Errors
/// The first event or ring that cannot be opened, said for the user (permission,
/// support, memory).
pub fn open(specs: &[EventSpec], cpus: &[u32], opts: &Options) -> Result<Rings, CollectError> {
    let data_size = opts.mmap_pages.saturating_mul(page_size());
    let read_lost = match (specs.first(), cpus.first()) {
        (Some(spec), Some(&cpu)) => kernel_reads_lost(spec, cpu, opts),
        _ => false,
    };
    let attrs: Vec<perf_abi::PerfEventAttr> = specs
        .iter()
        .map(|s| perf_abi::PerfEventAttr::from(&attr_of(s, opts, read_lost)))
        .collect();
    let mut rings = Rings {
        cpus: Vec::with_capacity(cpus.len()),
        ids: vec![Vec::with_capacity(cpus.len()); specs.len()],
        read_lost,
    };
    for &cpu in cpus {
        let mut fds: Vec<EventFd> = Vec::with_capacity(specs.len());
        let mut ring = None;
        for (i, (spec, attr)) in specs.iter().zip(&attrs).enumerate() {
            let fd = EventFd::open(attr, -1, cpu as i32).map_err(|e| open_error(spec, cpu, e))?;
            match fds.first() {
                None => {
                    let overwrite = opts.flight_recorder.is_some();
                    let mapped = Ring::map(&fd, opts.mmap_pages, overwrite).map_err(|source| {
                        CollectError::Mmap {
                            cpu,
                            kib: data_size / 1024,
                            source,
                        }
                    })?;
                    ring = Some(mapped);
                }
                Some(owner) => fd.set_output(owner).map_err(|source| CollectError::Open {
                    event: spec.name.clone(),
                    cpu,
                    source,
                })?,
            }
            let id = fd.id().map_err(|source| CollectError::Open {
                event: spec.name.clone(),
                cpu,
                source,
            })?;
            rings.ids[i].push(id);
            fds.push(fd);
        }
        if let Some(ring) = ring {
            rings.cpus.push(CpuRing { cpu, ring, fds });
        }
    }
    Ok(rings)
}

fn open_error(spec: &EventSpec, cpu: u32, source: io::Error) -> CollectError {
    match source.raw_os_error() {
        Some(nix::libc::EACCES) | Some(nix::libc::EPERM) => CollectError::Permission {
            event: spec.name.clone(),
            paranoid: perf_event_paranoid(),
            source,
        },
        Some(nix::libc::ENOENT) | Some(nix::libc::ENODEV) | Some(nix::libc::EOPNOTSUPP) => {
            CollectError::NotSupported {
                event: spec.name.clone(),
                source,
            }
        }
        _ => CollectError::Open {
            event: spec.name.clone(),
            cpu,
            source,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_online_cpus() {
        let cpus = online_cpus();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]));
    }
}
