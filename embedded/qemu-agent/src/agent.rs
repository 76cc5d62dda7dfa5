//! What the agent records: three tasks (COMM), a cpu-clock sample per scheduler tick, and a
//! `device:sensor_read` tracepoint with a RAW payload every tenth tick. Every value is a
//! function of the tick number, so the host test can predict the stream exactly (the
//! `tests/tests/qemu_agent.rs` model follows these definitions).

use crate::host::{HostError, HostFile};
use core::cell::Cell;
use cortex_m::interrupt::{self, Mutex};
use perf_encode::abi::{attr, attr_flags, feature, misc, sample_type, PerfEventAttr};
use perf_encode::features::{FormatText, TracepointFormat, TracingData};
use perf_encode::records::{
    BasicSampleRecord, Comm, FinishedRound, HeaderTracingDataOf, PidTid, RecordBody, SampleCpu,
    SampleId, SampleLayout,
};
use perf_encode::stream::PipeStream;
use perf_encode::{to_slice, Encode, EncodeError, HeaderString};

/// Scheduler ticks the agent records.
pub const TICKS: u32 = 300;
/// Nanoseconds per tick (a 1 kHz scheduler tick).
pub const TICK_NS: u64 = 1_000_000;
/// A device event every this many ticks.
pub const EVENT_EVERY: u32 = 10;
/// A FINISHED_ROUND every this many ticks.
pub const ROUND_EVERY: u32 = 50;
/// The cpu-clock event's id.
pub const CLOCK_ID: u64 = 1;
/// The tracepoint event's id.
pub const EVENT_ID: u64 = 2;
/// The tracepoint's tracefs id (`attr.config` and `common_type`).
pub const TRACEPOINT_ID: u16 = 1000;

/// The tracepoint's format, as tracefs would print it.
pub const FORMAT: &[u8] = b"name: sensor_read\n\
ID: 1000\n\
format:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\n\
\tfield:unsigned int channel;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:int millidegrees;\toffset:12;\tsize:4;\tsigned:1;\n\
\tfield:char sensor[8];\toffset:16;\tsize:8;\tsigned:0;\n\
\n\
print fmt: \"sensor=%s channel=%u millidegrees=%d\", REC->sensor, REC->channel, REC->millidegrees\n";

/// Length of the RAW payload of `sensor_read` (common fields and the event's own).
pub const RAW_LEN: usize = 24;

/// A task: its thread id, name, and the function that is its body (the samples' IP).
pub struct Task {
    /// Thread (and process) id.
    pub tid: u32,
    /// COMM name.
    pub name: &'static [u8],
    /// The task's body.
    pub body: fn(u32) -> u32,
}

#[inline(never)]
fn sensor_task(x: u32) -> u32 {
    x.wrapping_mul(3).wrapping_add(1)
}

#[inline(never)]
fn radio_task(x: u32) -> u32 {
    x.rotate_left(5) ^ 0x55
}

#[inline(never)]
fn logger_task(x: u32) -> u32 {
    x.wrapping_sub(7).wrapping_mul(x | 1)
}

/// The tasks, by tid.
pub const TASKS: [Task; 3] = [
    Task {
        tid: 1,
        name: b"sensor",
        body: sensor_task,
    },
    Task {
        tid: 2,
        name: b"radio",
        body: radio_task,
    },
    Task {
        tid: 3,
        name: b"logger",
        body: logger_task,
    },
];

/// The task running at `tick`.
pub fn task_at(tick: u32) -> &'static Task {
    let i = (tick / 2 % 3) as usize;
    TASKS.get(i).unwrap_or(&TASKS[0])
}

/// The sample IP of a task: its body's address without the Thumb bit.
pub fn ip_of(task: &Task) -> u64 {
    (task.body as usize as u64) & !1
}

/// The time of `tick` in ns.
pub fn tick_time(tick: u32) -> u64 {
    u64::from(tick + 1) * TICK_NS
}

/// The device event's fields at event number `n` (tick `n * EVENT_EVERY`): channel,
/// millidegrees, sensor name.
pub fn reading(n: u32) -> (u32, i32, [u8; 8]) {
    let channel = n % 4;
    let millidegrees = (n % 7) as i32 * 1500 - 4000;
    let mut name = *b"temp0\0\0\0";
    if let Some(digit) = name.get_mut(4) {
        *digit = b'0' + channel as u8;
    }
    (channel, millidegrees, name)
}

/// An attr of zeros: `PerfEventAttr::default()`, usable in a constant.
const ZERO_ATTR: PerfEventAttr = PerfEventAttr {
    type_: 0,
    size: 0,
    config: 0,
    sample_period: 0,
    sample_type: 0,
    read_format: 0,
    flags: 0,
    wakeup_events: 0,
    bp_type: 0,
    config1: 0,
    config2: 0,
    branch_sample_type: 0,
    sample_regs_user: 0,
    sample_stack_user: 0,
    clockid: 0,
    sample_regs_intr: 0,
    aux_watermark: 0,
    sample_max_stack: 0,
    reserved_2: 0,
    aux_sample_size: 0,
    reserved_3: 0,
    sig_data: 0,
    config3: 0,
};

/// The cpu-clock attr: every field a sample has, and `sample_id_all` for COMM. (The attrs
/// and layouts are statics: no function builds them on its stack.)
pub static CLOCK_ATTR: PerfEventAttr = PerfEventAttr {
    type_: attr::TYPE_SOFTWARE,
    size: attr::ATTR_SIZE_VER7,
    config: attr::SW_CPU_CLOCK,
    sample_period: TICK_NS,
    sample_type: CLOCK_SAMPLE_TYPE,
    flags: attr_flags::SAMPLE_ID_ALL,
    ..ZERO_ATTR
};

/// The fields of a cpu-clock sample.
const CLOCK_SAMPLE_TYPE: u64 = sample_type::IDENTIFIER
    | sample_type::IP
    | sample_type::TID
    | sample_type::TIME
    | sample_type::CPU
    | sample_type::PERIOD;

/// The tracepoint attr: the cpu-clock fields and RAW.
pub static EVENT_ATTR: PerfEventAttr = PerfEventAttr {
    type_: attr::TYPE_TRACEPOINT,
    config: TRACEPOINT_ID as u64,
    sample_period: 1,
    sample_type: CLOCK_SAMPLE_TYPE | sample_type::RAW,
    ..CLOCK_ATTR
};

/// The sample layout of the cpu-clock event.
pub static CLOCK_LAYOUT: SampleLayout = SampleLayout::from_attr(&CLOCK_ATTR);

/// The sample layout of the tracepoint event.
pub static EVENT_LAYOUT: SampleLayout = SampleLayout::from_attr(&EVENT_ATTR);

/// Why the agent stopped. One byte, so that the `Result` every part of the agent returns
/// takes next to no stack (with the encoder's error inside it was 40 bytes, in every frame);
/// the encoder's error itself is kept for the report ([`last_encode_error`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentError {
    /// The encoder refused something: [`last_encode_error`] says what.
    Encode,
    /// The host refused a write.
    Host,
}

/// The encoder's last error.
static LAST_ENCODE_ERROR: Mutex<Cell<Option<EncodeError>>> = Mutex::new(Cell::new(None));

/// The error of the encoder's last refusal, if any.
pub fn last_encode_error() -> Option<EncodeError> {
    interrupt::free(|cs| LAST_ENCODE_ERROR.borrow(cs).get())
}

impl From<EncodeError> for AgentError {
    #[inline(never)]
    fn from(e: EncodeError) -> Self {
        interrupt::free(|cs| LAST_ENCODE_ERROR.borrow(cs).set(Some(e)));
        AgentError::Encode
    }
}

impl From<HostError> for AgentError {
    fn from(_: HostError) -> Self {
        AgentError::Host
    }
}

/// Where the stream goes: a host file, and what went to it.
pub struct Sink {
    /// The host file.
    pub file: HostFile,
    /// Bytes written.
    pub bytes: u32,
    /// Flushes (writes of the buffer's pending bytes).
    pub flushes: u32,
}

impl Sink {
    /// Writes the stream's pending bytes to the host.
    pub fn flush(&mut self, s: &mut PipeStream<'_>) -> Result<(), AgentError> {
        if s.is_drained() {
            return Ok(());
        }
        let pending = s.pending();
        self.file.write_all(pending)?;
        let n = pending.len();
        s.consume(n);
        self.bytes = self.bytes.saturating_add(n as u32);
        self.flushes += 1;
        Ok(())
    }

    /// Runs `f` on the stream; when the buffer is full, flushes it and runs `f` once more
    /// (a second refusal is the error).
    pub fn put(
        &mut self,
        s: &mut PipeStream<'_>,
        mut f: impl FnMut(&mut PipeStream<'_>) -> Result<(), EncodeError>,
    ) -> Result<(), AgentError> {
        match f(s) {
            Err(EncodeError::BufferTooSmall { .. }) => {
                self.flush(s)?;
                Ok(f(s)?)
            }
            other => Ok(other?),
        }
    }

    /// [`Sink::put`] of one record.
    pub fn push<R: RecordBody + Encode + ?Sized>(
        &mut self,
        s: &mut PipeStream<'_>,
        record: &R,
    ) -> Result<(), AgentError> {
        self.put(s, |s| s.push(record))
    }
}

/// A fault to inject, from the command line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// None: the normal run.
    None,
    /// The stream gets only 256 bytes of the buffer: the tracing data cannot fit.
    TinyBuffer,
    /// One device event leaves out the RAW payload its attr says it has.
    MissingRaw,
    /// The firmware panics halfway.
    Panic,
    /// The firmware executes an undefined instruction halfway: a HardFault.
    UndefinedInstruction,
}

/// What the run produced.
pub struct Summary {
    /// SAMPLE records (both events).
    pub samples: u32,
    /// Device events.
    pub events: u32,
}

/// Records the whole session into `stream`, flushing to `sink`. Each part is a function
/// of its own (not inlined), so that only one part's locals are on the stack at a time.
#[inline(never)]
pub fn run(
    stream: &mut PipeStream<'_>,
    sink: &mut Sink,
    fault: Fault,
) -> Result<Summary, AgentError> {
    header(stream, sink)?;
    for task in &TASKS {
        comm(stream, sink, task)?;
    }
    let mut summary = Summary {
        samples: 0,
        events: 0,
    };
    let mut work = 0u32;
    for tick in 0..TICKS {
        let task = task_at(tick);
        work = (task.body)(work ^ tick);
        clock_sample(stream, sink, task, tick)?;
        summary.samples += 1;
        if tick % EVENT_EVERY == 0 {
            let n = tick / EVENT_EVERY;
            let raw = !(fault == Fault::MissingRaw && n == 3);
            device_event(stream, sink, tick, raw)?;
            summary.samples += 1;
            summary.events += 1;
        }
        if tick == TICKS / 2 && matches!(fault, Fault::Panic | Fault::UndefinedInstruction) {
            inject(fault);
        }
        if (tick + 1) % ROUND_EVERY == 0 {
            round(stream, sink)?;
        }
    }
    core::hint::black_box(work);
    sink.flush(stream)?;
    Ok(summary)
}

/// Panics or faults, as `fault` says (a function of its own: the panic's arguments are not
/// in `run`'s frame).
#[inline(never)]
fn inject(fault: Fault) {
    if fault == Fault::Panic {
        panic!("injected");
    }
    if fault == Fault::UndefinedInstruction {
        // A permanently undefined instruction: a UsageFault, taken as a HardFault.
        cortex_m::asm::udf();
    }
}

/// A FINISHED_ROUND (a function of its own, not inlined into the loop: the frames of the
/// encoder's push stay out of `run`'s).
#[inline(never)]
fn round(stream: &mut PipeStream<'_>, sink: &mut Sink) -> Result<(), AgentError> {
    sink.push(stream, &FinishedRound)
}

/// The attrs, features and tracing data. Each part is a function of its own (not inlined):
/// only one part's locals (an attr is 136 bytes, the tracing data's description more) are on
/// the stack at a time.
#[inline(never)]
fn header(stream: &mut PipeStream<'_>, sink: &mut Sink) -> Result<(), AgentError> {
    add_attr(stream, sink, &CLOCK_ATTR, CLOCK_ID)?;
    add_attr(stream, sink, &EVENT_ATTR, EVENT_ID)?;
    features(stream, sink)?;
    tracing_data(stream, sink)
}

/// The HEADER_ATTR of `attr`, with its id.
#[inline(never)]
fn add_attr(
    stream: &mut PipeStream<'_>,
    sink: &mut Sink,
    attr: &PerfEventAttr,
    id: u64,
) -> Result<(), AgentError> {
    sink.put(stream, |s| s.add_attr(attr, &[id]))
}

/// The HOSTNAME, ARCH and NRCPUS features.
#[inline(never)]
fn features(stream: &mut PipeStream<'_>, sink: &mut Sink) -> Result<(), AgentError> {
    let e = stream.endian();
    let mut text = [0u8; 68];
    let host = to_slice(&HeaderString::new(b"qemu-lm3s6965evb"), e, &mut text)?;
    sink.put(stream, |s| s.add_feature(feature::HOSTNAME, host))?;
    let arch = to_slice(&HeaderString::new(b"armv7m"), e, &mut text)?;
    sink.put(stream, |s| s.add_feature(feature::ARCH, arch))?;
    let nr_cpus = perf_encode::abi::NrCpus {
        available: 1,
        online: 1,
    };
    let nr = to_slice(&nr_cpus, e, &mut text)?;
    sink.put(stream, |s| s.add_feature(feature::NRCPUS, nr))
}

/// The tracepoint's format, as the tracing data holds it.
static FORMATS: [TracepointFormat<'static>; 1] = [TracepointFormat {
    system: "device",
    format: FormatText::Text(FORMAT),
}];

/// The tracing data's description (a static: it is not built on the stack).
static TRACING: TracingData<'static> = TracingData {
    events: &FORMATS,
    ..TracingData::new(4, 4096)
};

/// The tracing data: the tracepoint's format, encoded in place.
#[inline(never)]
fn tracing_data(stream: &mut PipeStream<'_>, sink: &mut Sink) -> Result<(), AgentError> {
    sink.push(stream, &HeaderTracingDataOf { data: &TRACING })
}

/// The COMM record of `task`.
#[inline(never)]
fn comm(stream: &mut PipeStream<'_>, sink: &mut Sink, task: &Task) -> Result<(), AgentError> {
    let comm = Comm {
        layout: &CLOCK_LAYOUT,
        pid: task.tid,
        tid: task.tid,
        comm: task.name,
        exec: false,
        sample_id: SampleId {
            tid: Some(PidTid {
                pid: task.tid,
                tid: task.tid,
            }),
            time: Some(0),
            cpu: Some(SampleCpu { cpu: 0, res: 0 }),
            identifier: Some(CLOCK_ID),
            ..Default::default()
        },
    };
    sink.push(stream, &comm)
}

/// The cpu-clock sample of `tick`, in `task`.
#[inline(never)]
fn clock_sample(
    stream: &mut PipeStream<'_>,
    sink: &mut Sink,
    task: &Task,
    tick: u32,
) -> Result<(), AgentError> {
    let layout = &CLOCK_LAYOUT;
    let record = BasicSampleRecord {
        identifier: CLOCK_ID,
        ip: ip_of(task),
        tid: PidTid {
            pid: task.tid,
            tid: task.tid,
        },
        time: tick_time(tick),
        period: TICK_NS,
        ..BasicSampleRecord::new(layout, misc::KERNEL)
    };
    sink.push(stream, &record)
}

/// The device event at `tick` (from the sensor task), with its RAW payload unless `raw`
/// is false (a fault: the attr says it has one).
#[inline(never)]
fn device_event(
    stream: &mut PipeStream<'_>,
    sink: &mut Sink,
    tick: u32,
    raw: bool,
) -> Result<(), AgentError> {
    let layout = &EVENT_LAYOUT;
    let e = stream.endian();
    let sensor = &TASKS[0];
    let (channel, millidegrees, name) = reading(tick / EVENT_EVERY);
    // common_type, common_flags, common_preempt_count, common_pid; channel, millidegrees,
    // sensor.
    let mut payload = [0u8; RAW_LEN];
    let [t0, t1] = e.u16_bytes(TRACEPOINT_ID);
    let fields = [
        [t0, t1, 0, 0],
        e.u32_bytes(sensor.tid),
        e.u32_bytes(channel),
        e.u32_bytes(millidegrees as u32),
    ];
    for (r, b) in payload.iter_mut().zip(fields.iter().flatten().chain(&name)) {
        *r = *b;
    }
    let record = BasicSampleRecord {
        identifier: EVENT_ID,
        ip: ip_of(sensor),
        tid: PidTid {
            pid: sensor.tid,
            tid: sensor.tid,
        },
        time: tick_time(tick) + TICK_NS / 2,
        period: 1,
        raw: raw.then_some(&payload[..]),
        ..BasicSampleRecord::new(layout, misc::KERNEL)
    };
    sink.push(stream, &record)
}
