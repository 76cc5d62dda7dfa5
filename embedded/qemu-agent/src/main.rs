//! A device agent on a Cortex-M3 (QEMU `lm3s6965evb`) that records three tasks, periodic
//! samples and a device tracepoint as a pipe-mode `perf.data` stream, built by
//! `perf_encode::stream::PipeStream` in one static buffer and written to a host file over
//! semihosting whenever the buffer fills. No heap.
//!
//! Command line (QEMU `-semihosting-config enable=on,target=native,arg=...`):
//! `qemu-agent OUTPUT [FAULT]`, FAULT one of `tiny-buffer`, `missing-raw`, `panic`,
//! `hard-fault`. It prints `agent: ...` lines on the semihosting console (the tasks'
//! addresses, the stream's size, the measured stack, image size and encoding cost) and
//! exits 0 only after the whole stream is on the host; any encoder or host error, a panic
//! or a fault exits 1.
#![no_std]
#![no_main]

mod agent;
mod host;
mod stack;

use agent::{AgentError, Fault, Sink};
use cortex_m::peripheral::{syst::SystClkSource, SYST};
use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::nr;
use host::Line;
use perf_encode::abi::misc;
use perf_encode::records::{BasicSampleRecord, PidTid};
use perf_encode::stream::PipeStream;
use perf_encode::{EncodeError, Endian};

/// The stream buffer: the largest record (the tracing data, 1,080 bytes) must fit.
const STREAM_BUF: usize = 1152;
/// What the `tiny-buffer` fault leaves of it.
const TINY_BUF: usize = 256;

#[entry]
fn main() -> ! {
    static mut BUF: [u8; STREAM_BUF] = [0; STREAM_BUF];
    static mut CMDLINE: [u8; 160] = [0; 160];
    let (result, run_stack) = measured(|| agent_main(BUF, CMDLINE));
    print_peak(run_stack);
    finish(result)
}

/// Prints how the run ended and exits (a function of its own: its console line is not in
/// `main`'s frame, under every other part).
#[inline(never)]
fn finish(result: Result<(), AgentError>) -> ! {
    match result {
        Ok(()) => {
            Line::new().str("done").print();
            host::exit(true)
        }
        Err(e) => {
            report(e);
            host::exit(false)
        }
    }
}

/// Runs `f` on a freshly painted stack; returns its result and the deepest the stack went
/// (from its top) meanwhile.
#[inline(always)]
fn measured<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let mark = stack::paint();
    let r = f();
    let used = stack::used_below(mark);
    (r, stack::top() - mark + used)
}

/// Runs `f` on a freshly painted stack; returns its result and the bytes of stack it used
/// below its caller.
#[inline(always)]
fn measured_below<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let mark = stack::paint();
    let r = f();
    (r, stack::used_below(mark))
}

/// The output path (NUL-terminated in place in `cmdline`) and the fault, from the
/// semihosting command line `qemu-agent OUTPUT [FAULT]`.
#[inline(never)]
fn parse_args(cmdline: &mut [u8]) -> Result<(&[u8], Fault), AgentError> {
    let len = host::cmdline(cmdline).map(<[u8]>::len).unwrap_or(0);
    let line = cmdline.get_mut(..len).unwrap_or(&mut []);
    // Words: the program, the output, the fault.
    let mut start = line.iter().position(|&b| b == b' ').map_or(len, |p| p + 1);
    if start >= len {
        return Ok((b"qemu-agent.data\0", Fault::None));
    }
    let end = line
        .iter()
        .skip(start)
        .position(|&b| b == b' ')
        .map_or(len, |p| start + p);
    let fault = match line.get(end.saturating_add(1)..).unwrap_or(&[]) {
        b"" => Fault::None,
        b"tiny-buffer" => Fault::TinyBuffer,
        b"missing-raw" => Fault::MissingRaw,
        b"panic" => Fault::Panic,
        b"hard-fault" => Fault::UndefinedInstruction,
        _ => {
            Line::new().str("error unknown fault").print();
            return Err(AgentError::Host);
        }
    };
    // The output path ends at the space (made a NUL) or at the command line's NUL.
    let cut = if end < len { end } else { len };
    match cmdline.get_mut(cut) {
        Some(b) => *b = 0,
        None => return Err(AgentError::Host),
    }
    start = start.min(cut);
    Ok((cmdline.get(start..=cut).unwrap_or(&[]), fault))
}

#[inline(never)]
fn agent_main(buf: &'static mut [u8; STREAM_BUF], cmdline: &mut [u8]) -> Result<(), AgentError> {
    let (path, fault) = parse_args(cmdline)?;
    image_figures();
    print_tasks();
    if fault == Fault::None {
        bench(&mut buf[..])?;
    }

    let file = host::open(path, nr::open::W_TRUNC_BINARY)?;
    let mut sink = Sink {
        file,
        bytes: 0,
        flushes: 0,
    };
    let buf: &mut [u8] = match fault {
        Fault::TinyBuffer => buf.get_mut(..TINY_BUF).unwrap_or(&mut []),
        _ => buf,
    };
    let size = buf.len();
    let mut stream = PipeStream::new(buf, Endian::Little)?;
    let (summary, run_stack) = measured_below(|| agent::run(&mut stream, &mut sink, fault));
    let summary = summary?;
    file.close()?;
    print_stream(&sink, &summary, size, run_stack);
    Ok(())
}

// The console lines are printed by functions of their own (not inlined), so that their
// 100-byte line buffers are not in the frames of the functions that call the encoder.

#[inline(never)]
fn print_peak(run_stack: usize) {
    let mut l = Line::new();
    l.str("stack peak=").dec(run_stack as u32);
    l.str(" size=")
        .dec((stack::top() - stack::bottom()) as u32)
        .print();
}

#[inline(never)]
fn print_tasks() {
    for task in &agent::TASKS {
        let mut l = Line::new();
        l.str("task ").dec(task.tid).str(" ").bytes(task.name);
        l.str(" ip=").hex(agent::ip_of(task)).print();
    }
}

#[inline(never)]
fn print_stream(sink: &Sink, summary: &agent::Summary, size: usize, run_stack: usize) {
    let mut l = Line::new();
    l.str("stream bytes=")
        .dec(sink.bytes)
        .str(" flushes=")
        .dec(sink.flushes);
    l.str(" samples=").dec(summary.samples);
    l.str(" events=").dec(summary.events);
    l.str(" buffer=").dec(size as u32).print();
    Line::new()
        .str("stack agent_run=")
        .dec(run_stack as u32)
        .print();
}

/// Prints the image's flash and static RAM, from cortex-m-rt's linker symbols.
#[inline(never)]
fn image_figures() {
    extern "C" {
        static __sdata: u32;
        static __edata: u32;
        static __sidata: u32;
    }
    let sdata = (&raw const __sdata) as usize;
    let edata = (&raw const __edata) as usize;
    let sidata = (&raw const __sidata) as usize;
    let mut l = Line::new();
    l.str("image flash=").dec((sidata + (edata - sdata)) as u32);
    l.str(" static_ram=")
        .dec((stack::bottom() - sdata) as u32)
        .print();
}

/// SysTick reload: the counter's 24 bits.
const RELOAD: u32 = 0x00ff_ffff;

/// SysTick ticks `f` takes (`f` must take less than 2^24 ticks).
fn ticks(syst: &SYST, f: impl FnOnce()) -> u32 {
    let _ = syst;
    let start = SYST::get_current();
    f();
    let end = SYST::get_current();
    start.wrapping_sub(end) & RELOAD
}

/// Counts, on the emulated core, what encoding a sample costs: SysTick ticks of 1,000
/// `PipeStream::push` calls of one cpu-clock SAMPLE, against ticks of a loop of known
/// instruction count. Under `qemu -icount`, time is instructions, so the ratio is
/// instructions per sample. Also measures the stack one push takes.
#[inline(never)]
fn bench(buf: &mut [u8]) -> Result<(), AgentError> {
    const LOOPS: u32 = 100_000;
    const SAMPLES: u32 = 1000;
    let Some(mut p) = cortex_m::Peripherals::take() else {
        return Err(AgentError::Host);
    };
    let syst = &mut p.SYST;
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_counter();

    // 2 instructions (subs, bne) per loop.
    let loop_ticks = ticks(syst, || {
        let mut n = LOOPS;
        // SAFETY: a register-only countdown loop; it touches no memory and no stack.
        unsafe {
            core::arch::asm!("2:", "subs {n}, {n}, #1", "bne 2b", n = inout(reg) n, options(nomem, nostack));
        }
        core::hint::black_box(n);
    });

    let layout = &agent::CLOCK_LAYOUT;
    let mut stream = PipeStream::new(buf, Endian::Little)?;
    let task = &agent::TASKS[1];
    let push = |stream: &mut PipeStream<'_>, i: u32| -> Result<(), EncodeError> {
        stream.push(&BasicSampleRecord {
            identifier: agent::CLOCK_ID,
            ip: agent::ip_of(task),
            tid: PidTid {
                pid: task.tid,
                tid: task.tid,
            },
            time: agent::tick_time(i),
            period: agent::TICK_NS,
            ..BasicSampleRecord::new(layout, misc::KERNEL)
        })?;
        let n = stream.pending().len();
        stream.consume(n);
        Ok(())
    };
    let (first, push_stack) = measured_below(|| push(&mut stream, 0));
    first?;
    let mut result = Ok(());
    let sample_ticks = ticks(syst, || {
        for i in 0..SAMPLES {
            if let Err(e) = push(&mut stream, i) {
                result = Err(e);
                break;
            }
        }
    });
    result?;
    syst.disable_counter();

    // Instructions per sample, times 10: ticks * (2 * LOOPS) / (loop_ticks * SAMPLES), in
    // 32 bits (2 * LOOPS / SAMPLES = 200; the products stay far below 2^32).
    let x10 = sample_ticks.saturating_mul(2 * LOOPS / SAMPLES * 10) / loop_ticks.max(1);
    let mut l = Line::new();
    l.str("cost sample_push_instructions_x10=").dec(x10);
    l.str(" loop_ticks=").dec(loop_ticks);
    l.str(" sample_ticks=").dec(sample_ticks).print();
    Line::new()
        .str("stack sample_push=")
        .dec(push_stack as u32)
        .print();
    Ok(())
}

/// Prints why the agent stopped.
#[inline(never)]
fn report(e: AgentError) {
    let mut l = Line::new();
    l.str("error ");
    let encode = match e {
        AgentError::Host => {
            l.str("host refused a call").print();
            return;
        }
        AgentError::Encode => agent::last_encode_error(),
    };
    match encode {
        Some(EncodeError::BufferTooSmall { needed, available }) => l
            .str("encoder: buffer too small, needed=")
            .dec(needed as u32)
            .str(" available=")
            .dec(available as u32),
        Some(EncodeError::MissingField { record, field }) => l
            .str("encoder: missing field ")
            .str(record)
            .str(".")
            .str(field),
        Some(EncodeError::TooLong { what, .. }) => l.str("encoder: too long: ").str(what),
        Some(EncodeError::InvalidValue { what }) => l.str("encoder: invalid value: ").str(what),
        _ => l.str("encoder: other error"),
    };
    l.print();
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut l = Line::new();
    l.str("panic");
    if let Some(loc) = info.location() {
        l.str(" at ").str(loc.file()).str(":").dec(loc.line());
    }
    l.print();
    host::exit(false)
}

/// A fault (a bad address, an undefined instruction) ends the run as a failure instead of
/// cortex-m-rt's default endless loop, which would leave the host waiting for its timeout.
/// cortex-m-rt requires the handler to be an `unsafe fn`; its body does nothing unsafe.
#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    Line::new()
        .str("hard fault at pc=")
        .hex(frame.pc().into())
        .print();
    host::exit(false)
}
