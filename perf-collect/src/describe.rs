//! What the file says besides the kernel's records: the events, the tracing data, the
//! host, and the threads that already run when the recording starts.

use crate::error::writer_err;
use crate::error::CollectError;
use crate::events::{EventKind, EventSpec};
use crate::options::Options;
use crate::rings::{attr_of, Rings};
use crate::tracefs::Tracefs;
use perf_writer_std::perf_encode::records::{PidTid, SampleCpu, SampleId};
use perf_writer_std::{OutputMode, PerfWriter};

/// Describes the recording to the writer: events, tracing data, host headers.
pub fn describe<O: OutputMode>(
    w: &mut PerfWriter<O>,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    rings: &Rings,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> Result<(), CollectError> {
    if let Err(e) = w.set_host_headers_from_this_machine() {
        warnings.push(format!("a host header was left out: {e}"));
    }
    if let Some(fs) = tracefs {
        for (file, what) in [("header_page", 0), ("header_event", 1)] {
            if let Some(text) = fs.events_file(file) {
                let set = match what {
                    0 => w.try_set_tracing_data_header_page(&text),
                    _ => w.try_set_tracing_data_header_event(&text),
                };
                if let Err(e) = set {
                    warnings.push(format!("tracefs {file} left out: {e}"));
                }
            }
        }
        if let Some(text) = fs.printk_formats() {
            if let Err(e) = w.try_set_tracing_data_printk(&text) {
                warnings.push(format!("tracefs printk_formats left out: {e}"));
            }
        }
    }
    for (spec, ids) in specs.iter().zip(&rings.ids) {
        let attr = attr_of(spec, opts, rings.read_lost);
        match &spec.kind {
            EventKind::Tracepoint(f) => {
                w.add_tracepoint_event_desc_from_text(ids, &attr, &spec.name, &f.system, &f.text)
                    .map_err(writer_err("describing a tracepoint"))?;
            }
            _ => w
                .try_add_event_desc(ids, &attr, &spec.name)
                .map_err(writer_err("describing an event"))?,
        }
    }
    Ok(())
}

/// COMM records for the threads that exist now (as `perf record` synthesizes them), so
/// that their samples are named. Time 0: before every record of the recording.
pub fn synthesize_threads<O: OutputMode>(
    w: &mut PerfWriter<O>,
    tracking_id: u64,
) -> Result<u64, CollectError> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Ok(0);
    };
    let mut n = 0;
    let mut comm = Vec::with_capacity(16);
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let Some(tid) = task
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(text) = std::fs::read(task.path().join("comm")) else {
                continue;
            };
            comm.clear();
            comm.extend_from_slice(text.strip_suffix(b"\n").unwrap_or(&text));
            let trailer = SampleId {
                tid: Some(PidTid { pid, tid }),
                time: Some(0),
                cpu: Some(SampleCpu { cpu: 0, res: 0 }),
                identifier: Some(tracking_id),
                ..Default::default()
            };
            w.write_comm(pid, tid, &comm, false, &trailer)
                .map_err(writer_err("writing the COMM of a running thread"))?;
            n += 1;
        }
    }
    Ok(n)
}
