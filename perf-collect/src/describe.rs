//! What the file says of the recording besides its records: the events, the tracing
//! data, the host.

use crate::error::writer_err;
use crate::error::CollectError;
use crate::events::{EventKind, EventSpec};
use crate::rings::{attr_of, Rings};
use crate::tracefs::Tracefs;
use perf_writer_std::{OutputMode, PerfWriter};

/// Describes the recording to the writer: events, tracing data, host headers.
pub fn describe<O: OutputMode>(
    w: &mut PerfWriter<O>,
    specs: &[EventSpec],
    tracefs: Option<&Tracefs>,
    rings: &Rings,
    warnings: &mut Vec<String>,
) -> Result<(), CollectError> {
    if let Err(e) = w.set_host_headers_from_this_machine() {
        warnings.push(format!("a host header was left out: {e}"));
    }
    if let Some(fs) = tracefs {
        for (file, what) in [("header_page", 0), ("header_event", 1)] {
            if let Some(text) = fs.events_file(file) {
                let set = match what {
                    0 => w.set_tracing_data_header_page(&text),
                    _ => w.set_tracing_data_header_event(&text),
                };
                if let Err(e) = set {
                    warnings.push(format!("tracefs {file} left out: {e}"));
                }
            }
        }
        if let Some(text) = fs.printk_formats() {
            if let Err(e) = w.set_tracing_data_printk(&text) {
                warnings.push(format!("tracefs printk_formats left out: {e}"));
            }
        }
    }
    for (spec, ids) in specs.iter().zip(&rings.ids) {
        let attr = attr_of(spec, rings);
        match &spec.kind {
            EventKind::Tracepoint(f) => {
                w.add_tracepoint_event_desc_from_text(ids, &attr, &spec.name, &f.system, &f.text)
                    .map_err(writer_err("describing a tracepoint"))?;
            }
            _ => w
                .add_event_desc(ids, &attr, &spec.name)
                .map_err(writer_err("describing an event"))?,
        }
    }
    Ok(())
}
