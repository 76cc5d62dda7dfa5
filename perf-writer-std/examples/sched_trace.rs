//! Writes a small but real trace: a `sched:sched_switch` tracepoint (its tracefs format read
//! from /sys/kernel/tracing when present, else a stored copy) and a `cpu-clock` software event,
//! with COMM records naming the threads. Then show it: `perf script -i <file>`.
//!
//! Usage: `cargo run -p perf-writer-std --example sched_trace -- [OUTPUT]` (default
//! `sched_trace.data`). With `-` as OUTPUT it streams pipe mode to stdout:
//! `cargo run -q -p perf-writer-std --example sched_trace -- - | perf script -i -`.

use perf_abi::{attr_flags, misc, sample_type};
use perf_writer_std::perf_encode::records::{PidTid, Sample, SampleCpu, SampleId};
use perf_writer_std::{
    FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter, PerfWriter, WriterError,
};
use std::io;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
    PerfEventFormat,
};

const STORED_FORMAT: &str = include_str!("../../tests/data/sched_switch.format");
const SWITCH_ID: u64 = 1;
const CLOCK_ID: u64 = 2;

/// The RAW payload of a sched_switch event, fields placed where the format says.
fn switch_payload(format: &PerfEventFormat, prev: (&str, u32), next: (&str, u32)) -> Vec<u8> {
    let size = format
        .fields()
        .iter()
        .map(|f| usize::from(f.offset()) + usize::from(f.size()))
        .max()
        .unwrap_or(0);
    let mut raw = vec![0u8; size];
    let mut put = |name: &str, value: &[u8]| {
        let f = format
            .fields()
            .iter()
            .find(|f| f.name() == name)
            .expect("field of sched_switch");
        let at = usize::from(f.offset());
        let n = value.len().min(usize::from(f.size()));
        raw[at..at + n].copy_from_slice(&value[..n]);
    };
    put("common_type", &(format.id() as u16).to_ne_bytes());
    put("common_pid", &prev.1.to_ne_bytes());
    put("prev_comm", prev.0.as_bytes());
    put("prev_pid", &prev.1.to_ne_bytes());
    put("prev_prio", &120i32.to_ne_bytes());
    put("prev_state", &1i64.to_ne_bytes());
    put("next_comm", next.0.as_bytes());
    put("next_pid", &next.1.to_ne_bytes());
    put("next_prio", &120i32.to_ne_bytes());
    raw
}

fn main() -> Result<(), WriterError> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "sched_trace.data".to_owned());
    if path == "-" {
        let mut writer = PerfPipeWriter::from_writer(io::stdout().lock())?;
        write_trace(&mut writer, "-")?;
        writer.finalize_and_close()?;
    } else {
        let mut writer = PerfWriter::<FileOutput>::new();
        writer.create_file(&path)?;
        write_trace(&mut writer, &path)?;
        writer.finalize_and_close()?;
        eprintln!("wrote {path}; show it with: perf script -i {path}");
    }
    Ok(())
}

/// The same calls write file mode and pipe mode.
fn write_trace<O: OutputMode>(writer: &mut PerfWriter<O>, path: &str) -> Result<(), WriterError> {
    let format_text =
        std::fs::read_to_string("/sys/kernel/tracing/events/sched/sched_switch/format")
            .unwrap_or_else(|_| STORED_FORMAT.to_owned());

    let common = sample_type::IDENTIFIER
        | sample_type::IP
        | sample_type::TID
        | sample_type::TIME
        | sample_type::CPU
        | sample_type::PERIOD;
    writer.set_string_header(PerfHeaderIndex::Hostname, b"demo-host")?;
    writer.set_string_header(PerfHeaderIndex::OSRelease, b"6.1.0-demo")?;
    writer.set_string_header(PerfHeaderIndex::Arch, std::env::consts::ARCH.as_bytes())?;
    writer.set_nr_cpus_header(2, 2);
    writer.set_cmdline_header(&["sched_trace", path])?;

    // Look up the format's id so the tracepoint attr's config matches it.
    let parsed =
        PerfEventFormat::parse(true, "sched", &format_text).expect("sched_switch format parses");
    let tp_attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: u64::from(parsed.id()),
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(common | sample_type::RAW),
        options: PerfEventAttrOptions(attr_flags::SAMPLE_ID_ALL),
        ..Default::default()
    };
    let format = writer.add_tracepoint_event_desc_from_text(
        &[SWITCH_ID],
        &tp_attr,
        "sched:sched_switch",
        "sched",
        &format_text,
    )?;

    let clock_attr = PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        config: perf_abi::attr::SW_CPU_CLOCK,
        sample_time: 1_000_000,
        sample_type: PerfEventAttrSampleType(common),
        options: PerfEventAttrOptions(attr_flags::SAMPLE_ID_ALL | attr_flags::COMM),
        ..Default::default()
    };
    writer.add_event_desc(&[CLOCK_ID], &clock_attr, "cpu-clock")?;

    let threads = [("demo-main", 4242u32), ("demo-worker", 4243u32)];
    let t0 = 1_000_000_000u64;
    for (i, &(name, tid)) in threads.iter().enumerate() {
        // COMM names the thread; its sample_id trailer (cpu-clock's TID, TIME, CPU,
        // IDENTIFIER) is laid out by the writer from the event the identifier names.
        let trailer = SampleId {
            tid: Some(PidTid { pid: tid, tid }),
            time: Some(t0 + i as u64),
            cpu: Some(SampleCpu::new(0)),
            identifier: Some(CLOCK_ID),
            ..Default::default()
        };
        writer.write_comm(tid, tid, name.as_bytes(), false, &trailer)?;
    }
    writer.write_finished_init()?;

    for step in 0..8u64 {
        let time = t0 + 1_000_000 * (step + 1);
        let (prev, next) = if step % 2 == 0 {
            (threads[0], threads[1])
        } else {
            (threads[1], threads[0])
        };
        let cpu = Some(SampleCpu::new((step % 2) as u32));
        let raw = switch_payload(&format, prev, next);
        // SAMPLEs: the writer lays the fields out by the sample_type of the event.
        let switch = Sample {
            identifier: Some(SWITCH_ID),
            ip: Some(0xffff_ffff_8100_0000 + step * 16),
            tid: Some(PidTid {
                pid: prev.1,
                tid: prev.1,
            }),
            time: Some(time),
            cpu,
            period: Some(1),
            raw: Some(&raw),
            ..Default::default()
        };
        writer.write_sample(misc::KERNEL, &switch)?;

        let tick = Sample {
            identifier: Some(CLOCK_ID),
            ip: Some(0x40_1000 + step * 4),
            tid: Some(PidTid {
                pid: next.1,
                tid: next.1,
            }),
            time: Some(time + 500_000),
            cpu,
            period: Some(1_000_000),
            ..Default::default()
        };
        writer.write_sample(misc::USER, &tick)?;
    }
    writer.write_finished_round()?;
    Ok(())
}
