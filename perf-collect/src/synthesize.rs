//! The state of what already runs when the recording starts, written before
//! FINISHED_INIT as `perf record` synthesizes it, so that perf can name the code and the
//! threads of the samples: the kernel's map (an MMAP record of `[kernel.kallsyms]_text`
//! from `_text` to `_etext`, its `pgoff` the address of `_text`, and one MMAP per module),
//! and for the recorded processes a COMM record per thread and an MMAP2 record per
//! executable mapping (`/proc/PID/maps`). Every record is timed 0, before the kernel's.

use crate::build_ids::Hits;
use crate::error::{writer_err, CollectError};
use crate::kernel_maps::{KernelMaps, KERNEL_MMAP_NAME};
use crate::proc_maps;
use crate::scope::Task;
use perf_writer_std::perf_encode::records::{
    Mmap, Mmap2, Mmap2File, PidTid, SampleCpu, SampleId, SampleLayout,
};
use perf_writer_std::{OutputMode, PerfWriter};

/// What to describe of the tasks.
#[derive(Clone, Copy, Debug)]
pub struct Synthesis<'a> {
    /// The threads to name; `None`: every thread of every process.
    pub tasks: Option<&'a [Task]>,
    /// Describe the processes' executable mappings too (not for a command held before its
    /// exec, whose mappings the exec replaces).
    pub mappings: bool,
    /// With the mappings, the readable ones that are not executable (`MMAP_DATA`: perf's
    /// DWARF unwinder reads the CFI there).
    pub data_mappings: bool,
}

/// How many records [`synthesize`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Synthesized {
    /// MMAP records of the kernel and its modules.
    pub kernel_maps: u64,
    /// COMM records.
    pub threads: u64,
    /// MMAP2 records.
    pub mappings: u64,
}

/// The `sample_id` trailer of a synthesized record of `pid`/`tid`.
fn trailer(pid: u32, tid: u32, tracking_id: u64) -> SampleId {
    SampleId {
        tid: Some(PidTid { pid, tid }),
        time: Some(0),
        cpu: Some(SampleCpu { cpu: 0, res: 0 }),
        identifier: Some(tracking_id),
        ..Default::default()
    }
}

/// Writes the kernel's map and what `what` says of the tasks, with the tracking event's
/// trailer (`tracking_id`), and notes the maps in `hits`. A kernel whose addresses are
/// hidden gets no map, and a warning.
///
/// # Errors
/// A record the writer refuses, or a failure of the output.
pub fn synthesize<O: OutputMode>(
    w: &mut PerfWriter<O>,
    tracking_id: u64,
    what: Synthesis<'_>,
    hits: &mut Hits,
    warnings: &mut Vec<String>,
) -> Result<Synthesized, CollectError> {
    let layout = w
        .sample_layout(Some(tracking_id))
        .map_err(writer_err("finding the tracking event's layout"))?;
    let mut n = Synthesized::default();
    let kernel = KernelMaps::read();
    match kernel.text {
        Some(text) => {
            let kernel_map = Mmap {
                layout: &layout,
                misc: perf_abi::misc::KERNEL,
                pid: u32::MAX,
                tid: 0,
                addr: text.start,
                len: text.end.wrapping_sub(text.start),
                pgoff: text.start,
                filename: KERNEL_MMAP_NAME,
                sample_id: trailer(0, 0, tracking_id),
            };
            w.write_record(&kernel_map)
                .map_err(writer_err("writing the kernel's MMAP"))?;
            n.kernel_maps += 1;
        }
        None => warnings.push(
            "the kernel's addresses are hidden (kernel.kptr_restrict, or no privilege): the file has no kernel map, and perf will not name kernel code".to_string(),
        ),
    }
    for m in &kernel.modules {
        let module_map = Mmap {
            layout: &layout,
            misc: perf_abi::misc::KERNEL,
            pid: u32::MAX,
            tid: 0,
            addr: m.start,
            len: m.size,
            pgoff: 0,
            filename: &m.path,
            sample_id: trailer(0, 0, tracking_id),
        };
        w.write_record(&module_map)
            .map_err(writer_err("writing a module's MMAP"))?;
        n.kernel_maps += 1;
    }
    hits.set_kernel(kernel);
    let processes: Vec<(u32, Vec<u32>)> = match what.tasks {
        Some(tasks) => {
            let mut by_pid: Vec<(u32, Vec<u32>)> = Vec::new();
            for t in tasks {
                match by_pid.last_mut() {
                    Some((pid, tids)) if *pid == t.pid => tids.push(t.tid),
                    _ => by_pid.push((t.pid, vec![t.tid])),
                }
            }
            by_pid
        }
        None => all_processes(),
    };
    let mut comm = Vec::with_capacity(16);
    for (pid, tids) in processes {
        for tid in tids {
            let Ok(text) = std::fs::read(format!("/proc/{pid}/task/{tid}/comm")) else {
                continue;
            };
            comm.clear();
            comm.extend_from_slice(text.strip_suffix(b"\n").unwrap_or(&text));
            w.write_comm(pid, tid, &comm, false, &trailer(pid, tid, tracking_id))
                .map_err(writer_err("writing the COMM of a running thread"))?;
            n.threads += 1;
        }
        if what.mappings {
            n.mappings +=
                describe_mappings(w, &layout, pid, what.data_mappings, tracking_id, hits)?;
        }
    }
    Ok(n)
}

/// Every process and its threads, from `/proc`.
fn all_processes() -> Vec<(u32, Vec<u32>)> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut all: Vec<(u32, Vec<u32>)> = procs
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, crate::scope::threads_of(pid)?)))
        .collect();
    all.sort_unstable();
    all
}

/// The MMAP2 records of process `pid`'s executable mappings (and with `data` its other
/// readable ones).
fn describe_mappings<O: OutputMode>(
    w: &mut PerfWriter<O>,
    layout: &SampleLayout,
    pid: u32,
    data: bool,
    tracking_id: u64,
    hits: &mut Hits,
) -> Result<u64, CollectError> {
    let mut n = 0;
    for m in proc_maps::mappings(pid, data) {
        let misc = match m.is_executable() {
            true => perf_abi::misc::USER,
            false => perf_abi::misc::USER | perf_abi::misc::MMAP_DATA,
        };
        let record = Mmap2 {
            layout,
            misc,
            pid,
            tid: pid,
            addr: m.start,
            len: m.end - m.start,
            pgoff: m.pgoff,
            file: Mmap2File::Inode {
                maj: m.maj,
                min: m.min,
                ino: m.ino,
                ino_generation: 0,
            },
            prot: m.prot,
            flags: m.flags,
            filename: &m.path,
            sample_id: trailer(pid, pid, tracking_id),
        };
        w.write_record(&record)
            .map_err(writer_err("writing the MMAP2 of a running process"))?;
        if m.is_executable() {
            hits.note_mapping(pid, m.start, m.end - m.start, &m.path);
        }
        n += 1;
    }
    Ok(n)
}
