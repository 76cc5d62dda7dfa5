//! The events opened on every recorded CPU, one ring buffer per CPU: [`CpuRing`].

use crate::error::{perf_event_paranoid, CollectError};
use crate::events::{AttrSettings, EventSpec};
use crate::options::{Options, DEFAULT_FREQ};
use crate::scope::{Plan, Task};
use crate::sys::{page_size, EventFd, Ring};
use std::collections::BTreeSet;
use std::io;

/// One event opened on one CPU, for one task or every task.
#[derive(Debug)]
pub struct OpenEvent {
    /// The event's index in the recording's events.
    pub event: usize,
    /// The task it follows; `None`: every task on the CPU.
    pub task: Option<Task>,
    /// Its descriptor.
    pub fd: EventFd,
}

/// One CPU's events and the ring buffer they all write to.
#[derive(Debug)]
pub struct CpuRing {
    /// The CPU.
    pub cpu: u32,
    /// Its ring buffer.
    pub ring: Ring,
    /// Its events, task by task (every event of a task, then the next task's); the first
    /// owns the ring (the others are redirected into it).
    pub fds: Vec<OpenEvent>,
    /// Of `fds`, the one polled for records: a task's events hang up once it and what it
    /// started have exited (poll then reports `POLLHUP` at once, every time), and any
    /// other event of the CPU wakes its reader as well.
    polled: usize,
}

impl CpuRing {
    /// The descriptor that owns the ring.
    pub fn owner(&self) -> Option<&EventFd> {
        self.fds.first().map(|e| &e.fd)
    }

    /// The descriptor to poll to wait for records; `None` once every event of the CPU has
    /// hung up (their tasks exited).
    pub fn poll_fd(&self) -> Option<&EventFd> {
        self.fds.get(self.polled).map(|e| &e.fd)
    }

    /// The polled descriptor hung up: poll the next one from now on.
    pub fn hung_up(&mut self) {
        self.polled = self.polled.saturating_add(1);
    }

    /// Stops every event of this CPU: the kernel adds nothing to the ring after this.
    pub fn disable(&self) {
        for e in &self.fds {
            let _ = e.fd.disable();
        }
    }

    /// The records the kernel dropped on this ring, by the events' `PERF_FORMAT_LOST`
    /// counts (those it could read).
    pub fn lost(&self) -> u64 {
        self.fds.iter().filter_map(|e| e.fd.read_lost().ok()).sum()
    }
}

/// The events, opened on every recorded CPU.
#[derive(Debug)]
pub struct Rings {
    /// Per CPU.
    pub cpus: Vec<CpuRing>,
    /// Per event: the ids of its descriptors (one per CPU and task).
    pub ids: Vec<Vec<u64>>,
    /// How the events were opened (the attrs' settings).
    pub settings: AttrSettings,
}

impl Rings {
    /// The events were opened with `PERF_FORMAT_LOST`.
    pub fn read_lost(&self) -> bool {
        self.settings.read_lost
    }
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

/// How the events of `opts` are opened for `plan` (without `PERF_FORMAT_LOST`, which
/// [`open`] asks the kernel about).
pub fn settings(opts: &Options, plan: &Plan) -> AttrSettings {
    AttrSettings {
        wakeup_bytes: wakeup_bytes(opts),
        freq: opts.freq.unwrap_or(DEFAULT_FREQ),
        read_lost: false,
        backward: opts.flight_recorder.is_some(),
        inherit: plan.inherit,
        enable_on_exec: plan.enable_on_exec,
        call_graph: opts.call_graph,
    }
}

/// The attr `spec` is opened with and described by.
pub fn attr_of(spec: &EventSpec, rings: &Rings) -> tracepoint_decode::PerfEventAttr {
    spec.attr(&rings.settings)
}

/// True when this kernel takes `PERF_FORMAT_LOST` (6.0 and later) for `spec` on `cpu`
/// for `pid`.
fn kernel_reads_lost(spec: &EventSpec, settings: &AttrSettings, pid: i32, cpu: u32) -> bool {
    let with_lost = AttrSettings {
        read_lost: true,
        ..*settings
    };
    let attr = perf_abi::PerfEventAttr::from(&spec.attr(&with_lost));
    match EventFd::open(&attr, pid, cpu as i32) {
        Ok(_) => true,
        Err(e) => e.raw_os_error() != Some(nix::libc::EINVAL),
    }
}

/// Raises the soft limit of open files towards the hard one when `needed` descriptors
/// would not fit (a process of many threads, recorded on many CPUs); what cannot be
/// raised fails later as `EMFILE`, said as such.
fn make_room_for_descriptors(needed: usize) {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return;
    };
    let wanted = (needed as u64).saturating_add(64);
    if wanted > soft {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, wanted.min(hard).max(soft), hard);
    }
}

/// Opens every event of `specs` for the tasks of `plan` on each of its CPUs, disabled,
/// and maps one ring per CPU (the CPU's first event owns it; the others write to it). A
/// listed thread that has exited by then is left out.
///
/// # Errors
/// The first event or ring that cannot be opened, said for the user (permission,
/// support, memory); every listed task gone.
pub fn open(specs: &[EventSpec], plan: &Plan, opts: &Options) -> Result<Rings, CollectError> {
    let data_size = opts.mmap_pages.saturating_mul(page_size());
    let tasks: Vec<Option<Task>> = match &plan.tasks {
        None => vec![None],
        Some(tasks) => tasks.iter().copied().map(Some).collect(),
    };
    let pid_of = |task: Option<Task>| task.map_or(-1, |t| t.tid as i32);
    make_room_for_descriptors(plan.cpus.len() * tasks.len() * specs.len());
    let mut settings = settings(opts, plan);
    settings.read_lost = match (specs.first(), plan.cpus.first(), tasks.first()) {
        (Some(spec), Some(&cpu), Some(&task)) => {
            kernel_reads_lost(spec, &settings, pid_of(task), cpu)
        }
        _ => false,
    };
    let attrs: Vec<perf_abi::PerfEventAttr> = specs
        .iter()
        .map(|s| perf_abi::PerfEventAttr::from(&s.attr(&settings)))
        .collect();
    let mut rings = Rings {
        cpus: Vec::with_capacity(plan.cpus.len()),
        ids: vec![Vec::with_capacity(plan.cpus.len()); specs.len()],
        settings,
    };
    let mut gone: BTreeSet<Task> = BTreeSet::new();
    for &cpu in &plan.cpus {
        let mut fds: Vec<OpenEvent> = Vec::with_capacity(specs.len() * tasks.len());
        let mut ring = None;
        for &task in &tasks {
            if task.is_some_and(|t| gone.contains(&t)) {
                continue;
            }
            for (i, (spec, attr)) in specs.iter().zip(&attrs).enumerate() {
                let fd = match EventFd::open(attr, pid_of(task), cpu as i32) {
                    Ok(fd) => fd,
                    Err(e) if e.raw_os_error() == Some(nix::libc::ESRCH) => {
                        // The thread exited since it was listed.
                        gone.extend(task);
                        break;
                    }
                    Err(e) => return Err(open_error(spec, cpu, task.is_none(), e)),
                };
                match fds.first() {
                    None => {
                        let overwrite = opts.flight_recorder.is_some();
                        let mapped =
                            Ring::map(&fd, opts.mmap_pages, overwrite).map_err(|source| {
                                CollectError::Mmap {
                                    cpu,
                                    kib: data_size / 1024,
                                    source,
                                }
                            })?;
                        ring = Some(mapped);
                    }
                    Some(owner) => {
                        fd.set_output(&owner.fd)
                            .map_err(|source| CollectError::Open {
                                event: spec.name.clone(),
                                cpu,
                                source,
                            })?
                    }
                }
                let id = fd.id().map_err(|source| CollectError::Open {
                    event: spec.name.clone(),
                    cpu,
                    source,
                })?;
                rings.ids[i].push(id);
                fds.push(OpenEvent { event: i, task, fd });
            }
        }
        if let Some(ring) = ring {
            rings.cpus.push(CpuRing {
                cpu,
                ring,
                fds,
                polled: 0,
            });
        }
    }
    if rings.cpus.is_empty() && plan.tasks.is_some() {
        return Err(CollectError::BadArgument(
            "the processes and threads to record have all exited".to_string(),
        ));
    }
    Ok(rings)
}

fn open_error(spec: &EventSpec, cpu: u32, every_task: bool, source: io::Error) -> CollectError {
    match source.raw_os_error() {
        Some(nix::libc::EACCES) | Some(nix::libc::EPERM) => CollectError::Permission {
            event: spec.name.clone(),
            every_task,
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
