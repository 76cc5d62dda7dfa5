//! A careless user and a failing disk: a sequence of public writer calls (descriptions,
//! tracepoint format texts, whole and split SAMPLEs, junk records, feature headers, partial
//! records abandoned or not, output faults armed and healed), run against a writer in file or
//! pipe mode, in either byte order, over an output that fails when told to.
//!
//! What [`run`] asserts: no call panics; a call that returns `Ok` took all its bytes and one
//! that fails took none; right records are accepted whenever the output is healthy and no
//! record is left open; records perf cannot read (a SAMPLE of a size its attr contradicts, a
//! tracepoint SAMPLE whose RAW is not its format's; in pipe mode also one of an id no event
//! owns) are refused; and after the output heals, `finish` succeeds and its output holds
//! exactly the accepted records, in order, byte for byte (the file's data section, or the
//! pipe stream without the writer's own header records), which linux-perf-data then reads,
//! one SAMPLE for each accepted. In file mode a record of an id no event owns is taken, to
//! be checked by a description that may come later: when none does, `finish` refuses (and
//! again), and dropping the writer finalizes the file with the records before the first of
//! those.
//!
//! The SAMPLE and header bytes are made here with plain `to_le_bytes`/`to_be_bytes`, not by
//! perf-encode, and the output is walked here too: the target says what the bytes must be.

use crate::{ref_u16, ref_u32, ref_u64, ArbEndian};
use arbitrary::Arbitrary;
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use perf_abi::{attr_flags, sample_type};
use perf_writer_std::RecordError;
use perf_writer_std::{
    FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter, PerfWriter, WriterError,
};
use std::cell::RefCell;
use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::rc::Rc;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
};

/// The tracefs format of sched_switch on x86_64 (id 372), as the tests use it.
pub const SCHED_SWITCH_FORMAT: &str = include_str!("../../tests/data/sched_switch.format");
/// Its id.
const SWITCH_ID: u16 = 372;
/// Its fields' extent: the RAW data of one of its SAMPLEs.
const SWITCH_RAW_LEN: usize = 64;

/// The fields of every SAMPLE here (a tracepoint's add RAW).
const COMMON: u64 = sample_type::IDENTIFIER
    | sample_type::IP
    | sample_type::TID
    | sample_type::TIME
    | sample_type::CPU
    | sample_type::PERIOD;

const SAMPLE: u32 = 9;

/// Which writer.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `PerfWriter<FileOutput<_>>` (file mode) over a `Write + Seek`.
    File,
    /// `PerfPipeWriter` over a `Write`.
    Pipe,
}

/// How an armed output fails.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// An error of kind `Other` (EIO).
    Other,
    /// `Interrupted` (EINTR).
    Interrupted,
    /// `WouldBlock` (a non-blocking pipe that is full).
    WouldBlock,
    /// `write` returns `Ok(0)` (`WriteZero` for `write_all`).
    WriteZero,
    /// ENOSPC (disk full).
    StorageFull,
    /// `write` takes half of what it is given (a short write), or fails as `Other` when that
    /// is nothing.
    Short,
}

/// The output's state of failure, shared between the test and the output the writer owns.
#[derive(Debug, Default)]
struct Faults {
    /// Calls (write, flush, seek) to let through before failing.
    countdown: u32,
    /// Failures left once failing starts (`u32::MAX`: until healed).
    left: u32,
    kind: Option<FaultKind>,
}

impl Faults {
    /// The failure of this call, if it is one.
    fn next(&mut self) -> Option<FaultKind> {
        let kind = self.kind?;
        if self.countdown > 0 {
            self.countdown -= 1;
            return None;
        }
        if self.left != u32::MAX {
            self.left = self.left.saturating_sub(1);
            if self.left == 0 {
                self.kind = None;
            }
        }
        Some(kind)
    }
}

fn fault_error(kind: FaultKind) -> io::Error {
    match kind {
        FaultKind::Interrupted => io::ErrorKind::Interrupted.into(),
        FaultKind::WouldBlock => io::ErrorKind::WouldBlock.into(),
        FaultKind::StorageFull => io::Error::from_raw_os_error(28),
        FaultKind::Other | FaultKind::WriteZero | FaultKind::Short => {
            io::Error::other("injected failure")
        }
    }
}

/// A `Write + Seek` over bytes in memory that fails as armed ([`FaultyOutput::arm`]).
#[derive(Clone, Debug, Default)]
pub struct FaultyOutput(Rc<RefCell<(Cursor<Vec<u8>>, Faults)>>);

impl FaultyOutput {
    /// From the `countdown`-th next call on, fail `times` times (0: until healed) as `kind`.
    pub fn arm(&self, countdown: u32, times: u32, kind: FaultKind) {
        self.0.borrow_mut().1 = Faults {
            countdown,
            left: if times == 0 { u32::MAX } else { times },
            kind: Some(kind),
        };
    }

    /// Fail no more.
    pub fn heal(&self) {
        self.0.borrow_mut().1 = Faults::default();
    }

    /// Everything written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.borrow().0.get_ref().clone()
    }
}

impl Write for FaultyOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut s = self.0.borrow_mut();
        match s.1.next() {
            None => s.0.write(buf),
            Some(FaultKind::WriteZero) => Ok(0),
            Some(FaultKind::Short) if buf.len() > 1 => s.0.write(&buf[..buf.len() / 2]),
            Some(kind) => Err(fault_error(kind)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        match s.1.next() {
            None | Some(FaultKind::WriteZero) | Some(FaultKind::Short) => Ok(()),
            Some(kind) => Err(fault_error(kind)),
        }
    }
}

impl Seek for FaultyOutput {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let mut s = self.0.borrow_mut();
        match s.1.next() {
            None | Some(FaultKind::WriteZero) | Some(FaultKind::Short) => s.0.seek(pos),
            Some(kind) => Err(fault_error(kind)),
        }
    }
}

/// A mistake a SAMPLE can carry.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleFault {
    /// None: a right SAMPLE.
    None,
    /// An id no event owns.
    UnknownId,
    /// One word more than its attr gives it.
    ExtraWord,
    /// A tracepoint SAMPLE whose RAW starts with 0, not its format's id.
    ZeroCommonType,
}

/// One call of the sequence.
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    /// A cpu-clock event with some of these ids (up to 3).
    AddClock {
        /// Its sample ids.
        ids: [u16; 3],
        /// How many of them (modulo 4).
        n: u8,
    },
    /// sched_switch from its format text, or from these bytes taken as one.
    AddTracepoint {
        /// Its sample ids.
        ids: [u16; 3],
        /// How many of them (modulo 4).
        n: u8,
        /// A text of the fuzzer's instead of sched_switch's.
        text: Option<String>,
        /// The tracefs system (directory) name.
        system: String,
    },
    /// A SAMPLE of event `desc` (modulo their number).
    Sample {
        /// Which event.
        desc: u8,
        /// Which of its ids.
        id: u8,
        /// Its time, after the last.
        dt: u16,
        /// Its cpu.
        cpu: u8,
        /// A mistake.
        fault: SampleFault,
        /// Write it in two calls, cut here (modulo its length).
        split: Option<u16>,
        /// With `split`: leave the second piece unwritten.
        leave_open: bool,
    },
    /// A record header and words, whatever they say.
    Junk {
        /// `type`.
        type_: u32,
        /// `misc`.
        misc: u16,
        /// `size` (modulo 512, not checked against the words).
        size: u16,
        /// How many words follow the header (modulo 33).
        words: u8,
        /// What they are made of.
        fill: u64,
    },
    /// A string feature.
    SetString {
        /// The feature index (modulo 32).
        index: u8,
        /// Its text.
        text: Vec<u8>,
    },
    /// A tracing-data header_page.
    SetHeaderPage(Vec<u8>),
    /// HEADER_STAT: a perf stat session, whose events perf may not tell apart.
    SetStat,
    /// FINISHED_ROUND.
    FinishedRound,
    /// `flush`.
    Flush,
    /// `abandon_partial_record`.
    Abandon,
    /// Fail the output from the `after`-th call on, `times` times (0: until healed).
    Fail {
        /// Calls let through first.
        after: u8,
        /// Failures (0: until healed).
        times: u8,
        /// How.
        kind: FaultKind,
    },
    /// The output works again.
    Heal,
}

/// A sequence and the writer it runs on.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// File or pipe.
    pub mode: Mode,
    /// Byte order of the output.
    pub endian: ArbEndian,
    /// Start with a cpu-clock event (ids 1 and 2).
    pub clock: bool,
    /// Start with sched_switch (ids 3 and 4).
    pub sched_switch: bool,
    /// The calls.
    pub ops: Vec<Op>,
}

impl Input {
    /// An input from fuzzer bytes: the settings, then ops until the bytes run out (at most
    /// 200). Unlike `arbitrary_take_rest`, which stops a sequence at each op with even odds,
    /// every op the bytes hold is taken, so long sequences are as likely as short ones.
    pub fn from_bytes(data: &[u8]) -> arbitrary::Result<Input> {
        let mut u = arbitrary::Unstructured::new(data);
        let mut input = Input {
            mode: u.arbitrary()?,
            endian: u.arbitrary()?,
            clock: u.arbitrary()?,
            sched_switch: u.arbitrary()?,
            ops: Vec::new(),
        };
        while !u.is_empty() && input.ops.len() < 200 {
            match u.arbitrary() {
                Ok(op) => input.ops.push(op),
                Err(_) => break,
            }
        }
        Ok(input)
    }
}

/// An event added.
#[derive(Debug)]
struct Event {
    ids: Vec<u64>,
    tracepoint: bool,
}

/// What the writer was seen to accept.
#[derive(Debug)]
struct Model {
    e: perf_encode::Endian,
    events: Vec<Event>,
    /// Every id given to an event.
    used: Vec<u64>,
    /// The accepted whole records, in order.
    accepted: Vec<Vec<u8>>,
    /// Accepted bytes of a record not yet complete.
    open: Vec<u8>,
    /// SAMPLEs among the accepted records.
    samples: usize,
    time: u64,
    /// The output may fail.
    armed: bool,
    /// sched_switch's format was added.
    switch_format: bool,
    /// A call that writes was made (a pipe stream may have started).
    started: bool,
    /// Pipe mode.
    pipe: bool,
    /// Events perf cannot tell apart were taken (one without ids among several, described
    /// after HEADER_STAT and before any record): strict mode refuses their SAMPLEs.
    untold: bool,
}

impl Model {
    /// Notes an event of `ids` the writer took.
    fn add_event(&mut self, ids: Vec<u64>, tracepoint: bool) {
        self.untold |= !self.events.is_empty()
            && (ids.is_empty() || self.events.iter().any(|e| e.ids.is_empty()));
        self.used.extend(&ids);
        self.events.push(Event { ids, tracepoint });
    }
}

impl Model {
    /// Keeps the accepted records that start before file offset `end` (the data starts
    /// after the 104-byte file header).
    /// Keeps the accepted records before file offset `end`, the data starting at
    /// `data_start`.
    fn keep_before(&mut self, end: u64, data_start: u64) {
        let mut at = data_start;
        let mut kept = 0;
        for r in &self.accepted {
            if at >= end {
                break;
            }
            at += r.len() as u64;
            kept += 1;
        }
        self.accepted.truncate(kept);
        self.samples = self
            .accepted
            .iter()
            .filter(|r| read_u32(self.e, r) == SAMPLE)
            .count();
    }
}

/// What [`run`] saw, for the caller to check further (e.g. with perf itself).
#[derive(Debug)]
pub struct Outcome {
    /// The finished output (file or pipe stream).
    pub bytes: Vec<u8>,
    /// File or pipe.
    pub mode: Mode,
    /// SAMPLEs accepted.
    pub samples: usize,
    /// Calls refused or failed.
    pub refusals: usize,
}

/// Runs `input`, checks everything the module documentation says, and returns the output.
pub fn run(input: &Input) -> Outcome {
    let e = input.endian.endian();
    let out = FaultyOutput::default();
    match input.mode {
        Mode::File => {
            let w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(out.clone(), e)
                .expect("opening over a healthy output");
            drive(w, &out, input)
        }
        Mode::Pipe => {
            let w = PerfPipeWriter::from_writer_with_endian(out.clone(), e)
                .expect("opening over a healthy output");
            drive(w, &out, input)
        }
    }
}

fn drive<O: OutputMode>(mut w: PerfWriter<O>, out: &FaultyOutput, input: &Input) -> Outcome {
    let mut m = Model {
        e: input.endian.endian(),
        events: Vec::new(),
        used: Vec::new(),
        accepted: Vec::new(),
        open: Vec::new(),
        samples: 0,
        time: 1_000,
        armed: false,
        switch_format: false,
        started: false,
        pipe: O::PIPE,
        untold: false,
    };
    let mut refusals = 0;
    let setup = [
        (
            input.clock,
            Op::AddClock {
                ids: [1, 2, 0],
                n: 2,
            },
        ),
        (
            // perf cannot parse the SAMPLEs of an event with RAW in a big-endian pipe
            // stream: strict mode refuses the tracepoint there.
            input.sched_switch && !(O::PIPE && m.e == perf_encode::Endian::Big),
            Op::AddTracepoint {
                ids: [3, 4, 0],
                n: 2,
                text: None,
                system: "sched".into(),
            },
        ),
    ];
    for (_, op) in setup.iter().filter(|(on, _)| *on) {
        assert!(apply(&mut w, out, &mut m, op), "{op:?} on a new writer");
    }
    for op in input.ops.iter().take(200) {
        if !apply(&mut w, out, &mut m, op) {
            refusals += 1;
        }
    }
    out.heal();
    m.armed = false;
    match w.finish() {
        Ok(stream) => {
            assert!(
                m.open.is_empty(),
                "finish dropped an open record without a word"
            );
            drop(stream);
        }
        // An open record is dropped by finish, which says so; finish again gives the output.
        Err(WriterError::Record(RecordError::PartialDropped(p))) => {
            assert_eq!(p.given, m.open.len() as u64, "{p}");
            m.open.clear();
            drop(w.finish().expect("finish again"));
        }
        // Records of ids no event owns wait for their descriptions: finish refuses, and
        // again; dropped, the writer ends the data before the first of them.
        Err(WriterError::Record(RecordError::Undescribed(p))) if !O::PIPE => {
            assert_eq!(
                w.finish().err(),
                Some(WriterError::Record(RecordError::Undescribed(p)))
            );
            drop(w);
            // The data starts after the header and the recovery block: the header says where.
            let bytes = out.bytes();
            let data_start = read_u64(m.e, &bytes[40..48]);
            m.keep_before(p.offset, data_start);
        }
        Err(e) => panic!("finish over a healed output: {e}"),
    }
    let bytes = out.bytes();
    check_output(&bytes, input.mode, &m);
    Outcome {
        bytes,
        mode: input.mode,
        samples: m.samples,
        refusals,
    }
}

/// Applies one op; false when the writer refused it or the output failed.
fn apply<O: OutputMode>(w: &mut PerfWriter<O>, out: &FaultyOutput, m: &mut Model, op: &Op) -> bool {
    let e = m.e;
    // A call that may write (even one that fails) may have started a pipe stream.
    if matches!(
        op,
        Op::Sample { .. } | Op::Junk { .. } | Op::FinishedRound | Op::Flush
    ) {
        m.started = true;
    }
    match op {
        Op::AddClock { ids, n } => {
            let ids = fresh_ids(m, &ids[..usize::from(n % 4)]);
            let ok = w.add_event_desc(&ids, &clock_attr(), "cpu-clock").is_ok();
            if ok {
                m.add_event(ids, false);
            }
            ok
        }
        Op::AddTracepoint {
            ids,
            n,
            text,
            system,
        } => {
            let ids = fresh_ids(m, &ids[..usize::from(n % 4)]);
            let (text, switch) = match text {
                Some(t) => (t.as_str(), false),
                None => (SCHED_SWITCH_FORMAT, true),
            };
            let attr = tracepoint_attr(SWITCH_ID);
            let r = w.add_tracepoint_event_desc_from_text(
                &ids,
                &attr,
                "sched:sched_switch",
                system,
                text,
            );
            // The first event, sched_switch's own text, a plain system name: accepted (but
            // for an event with RAW in a big-endian pipe stream).
            let be_pipe = m.pipe && m.e == perf_encode::Endian::Big;
            let owed =
                switch && m.events.is_empty() && !m.started && plain_name(system) && !be_pipe;
            if owed {
                r.as_ref().expect("sched_switch's own format");
            }
            match r {
                Ok(format) => {
                    m.switch_format |= format.id() == u32::from(SWITCH_ID);
                    m.add_event(ids, format.id() == u32::from(SWITCH_ID));
                    true
                }
                Err(_) => false,
            }
        }
        Op::Sample {
            desc,
            id,
            dt,
            cpu,
            fault,
            split,
            leave_open,
        } => {
            if m.events.is_empty() {
                return true;
            }
            let event = &m.events[usize::from(*desc) % m.events.len()];
            let mut fault = *fault;
            if fault == SampleFault::ZeroCommonType && !event.tracepoint {
                fault = SampleFault::None;
            }
            let sid = match (fault, event.ids.is_empty()) {
                (SampleFault::UnknownId, _) => (0xdead_0000u64..)
                    .find(|i| !m.used.contains(i))
                    .unwrap_or(1),
                (_, true) => 0,
                (_, false) => event.ids[usize::from(*id) % event.ids.len()],
            };
            m.time += u64::from(*dt);
            let rec = sample_bytes(e, sid, m.time, u32::from(*cpu), event.tracepoint, fault);
            // Refusals the writer owes: with more than one event perf cannot attribute an
            // unknown id; a size or RAW its attr contradicts.
            let must_refuse = match fault {
                SampleFault::None => false,
                // File mode takes it for a description that may come later.
                SampleFault::UnknownId => !m.used.is_empty() && m.pipe,
                SampleFault::ExtraWord | SampleFault::ZeroCommonType => true,
            };
            // A right SAMPLE the writer owes acceptance: the output is healthy, no record is
            // open, and perf can attribute it (an id of its own, or the only event).
            let owed = fault == SampleFault::None
                && !m.armed
                && m.open.is_empty()
                && !m.untold
                && (sid != 0 || m.events.len() == 1);
            match split {
                None => {
                    let r = w.write_event_data(&rec);
                    if must_refuse && m.open.is_empty() {
                        assert!(r.is_err(), "{fault:?} SAMPLE accepted");
                    }
                    if owed {
                        r.as_ref().expect("a right SAMPLE on a healthy output");
                    }
                    took(w, m, &rec, &r)
                }
                Some(cut) => {
                    let cut = usize::from(*cut) % rec.len();
                    let first = w.write_event_data(&rec[..cut]);
                    if !took(w, m, &rec[..cut], &first) {
                        return false;
                    }
                    if *leave_open {
                        return true;
                    }
                    let second = w.write_event_data(&rec[cut..]);
                    if must_refuse && m.open.len() == cut {
                        assert!(second.is_err(), "{fault:?} SAMPLE accepted in two pieces");
                    }
                    took(w, m, &rec[cut..], &second)
                }
            }
        }
        Op::Junk {
            type_,
            misc,
            size,
            words,
            fill,
        } => {
            let mut rec = header(e, *type_, *misc, *size % 512);
            for i in 0..u32::from(*words % 33) {
                rec.extend_from_slice(&ref_u64(fill.rotate_left(i * 8), e));
            }
            let r = w.write_event_data(&rec);
            took(w, m, &rec, &r)
        }
        Op::SetString { index, text } => w
            .set_string_header(PerfHeaderIndex(*index % 32), text)
            .is_ok(),
        Op::SetHeaderPage(data) => w.set_tracing_data_header_page(data).is_ok(),
        Op::SetStat => {
            w.set_stat_header();
            true
        }
        Op::FinishedRound => {
            let r = w.write_finished_round();
            if r.is_ok() {
                assert!(m.open.is_empty(), "FINISHED_ROUND accepted inside a record");
                m.accepted.push(header(e, 68, 0, 8));
            }
            r.is_ok()
        }
        Op::Flush => w.flush().is_ok(),
        Op::Abandon => {
            let held = w.partial_record_len();
            assert_eq!(
                held,
                m.open.len() as u64,
                "the writer holds what the model left open"
            );
            w.abandon_partial_record();
            assert_eq!(w.partial_record_len(), 0);
            m.open.clear();
            true
        }
        Op::Fail { after, times, kind } => {
            // `Interrupted` means "try again": writers (std's `write_all` too) retry it for
            // as long as it comes, so an output interrupted forever is a hang by contract,
            // not a finding. It fails a bounded number of times.
            let times = match kind {
                FaultKind::Interrupted => u32::from(*times).clamp(1, 64),
                _ => u32::from(*times),
            };
            out.arm(u32::from(*after), times, *kind);
            m.armed = true;
            true
        }
        Op::Heal => {
            out.heal();
            m.armed = false;
            true
        }
    }
}

/// The writer answered a call of `bytes` with `ok`: when it did, they continue the stream
/// (whole records move to `accepted`). Returns `ok`.
fn took<O: OutputMode>(
    w: &PerfWriter<O>,
    m: &mut Model,
    bytes: &[u8],
    answer: &Result<(), WriterError>,
) -> bool {
    if let Err(e) = answer {
        // A refused record whose start an earlier call left open is dropped whole (the
        // stream goes on from the record before it); anything else leaves the writer as it
        // was.
        let held = w.partial_record_len();
        let refused = matches!(
            e,
            WriterError::Record(RecordError::Refused { .. })
                | WriterError::Record(RecordError::Framing(_))
                | WriterError::Record(RecordError::InsidePartial { .. })
        );
        if held == 0 && refused {
            m.open.clear();
        }
        assert_eq!(
            held,
            m.open.len() as u64,
            "a failed call changed what is held: {e}"
        );
        return false;
    }
    m.open.extend_from_slice(bytes);
    m.started = true;
    // Whole records leave `open` as the stream's own framing says: size at bytes 6..8.
    loop {
        if m.open.len() < 8 {
            break;
        }
        let size = usize::from(read_u16(m.e, &m.open[6..8]));
        let type_ = read_u32(m.e, &m.open[..4]);
        let payload = payload_after(m.e, type_, &m.open);
        let Some(payload) = payload else { break };
        let whole = size + payload;
        if size < 8 || m.open.len() < whole {
            break;
        }
        if type_ == SAMPLE {
            m.samples += 1;
        }
        m.accepted.push(m.open.drain(..whole).collect());
    }
    true
}

/// The bytes a record of `type_` carries after its `header.size`: `None` while its header is
/// not all there.
fn payload_after(e: perf_encode::Endian, type_: u32, rec: &[u8]) -> Option<usize> {
    match type_ {
        // HEADER_TRACING_DATA: a u32 size, the payload padded to 8.
        66 => rec
            .get(8..12)
            .map(|b| (read_u32(e, b) as usize).div_ceil(8) * 8),
        // AUXTRACE: a u64 size.
        71 => rec.get(8..16).map(|b| read_u64(e, b) as usize),
        _ => Some(0),
    }
}

fn fresh_ids(m: &Model, ids: &[u16]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for &i in ids.iter().take(4) {
        let id = 1000 + u64::from(i);
        if !m.used.contains(&id) && !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

fn plain_name(s: &str) -> bool {
    !s.is_empty() && s.len() < 64 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn clock_attr() -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        config: 0,
        sample_time: 1_000_000,
        sample_type: PerfEventAttrSampleType(COMMON),
        options: PerfEventAttrOptions(attr_flags::SAMPLE_ID_ALL),
        ..Default::default()
    }
}

fn tracepoint_attr(id: u16) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Tracepoint,
        config: u64::from(id),
        sample_time: 1,
        sample_type: PerfEventAttrSampleType(COMMON | sample_type::RAW),
        options: PerfEventAttrOptions(attr_flags::SAMPLE_ID_ALL),
        ..Default::default()
    }
}

fn header(e: perf_encode::Endian, type_: u32, misc: u16, size: u16) -> Vec<u8> {
    [&ref_u32(type_, e)[..], &ref_u16(misc, e), &ref_u16(size, e)].concat()
}

/// A SAMPLE of `COMMON` (and RAW for a tracepoint), made by hand.
fn sample_bytes(
    e: perf_encode::Endian,
    id: u64,
    time: u64,
    cpu: u32,
    tracepoint: bool,
    fault: SampleFault,
) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&ref_u64(id, e));
    body.extend_from_slice(&ref_u64(0x40_1000, e));
    body.extend_from_slice(&ref_u32(7, e));
    body.extend_from_slice(&ref_u32(7, e));
    body.extend_from_slice(&ref_u64(time, e));
    body.extend_from_slice(&ref_u32(cpu, e));
    body.extend_from_slice(&ref_u32(0, e));
    body.extend_from_slice(&ref_u64(1, e));
    if tracepoint {
        // The RAW size counts the data and the padding that ends the record on 8 bytes.
        let raw_size = (4 + SWITCH_RAW_LEN).div_ceil(8) * 8 - 4;
        body.extend_from_slice(&ref_u32(raw_size as u32, e));
        let mut raw = vec![0u8; raw_size];
        let common_type = match fault {
            SampleFault::ZeroCommonType => 0,
            _ => SWITCH_ID,
        };
        raw[..2].copy_from_slice(&ref_u16(common_type, e));
        raw[4..8].copy_from_slice(&ref_u32(7, e)); // common_pid
        raw[8..12].copy_from_slice(b"fuzz"); // prev_comm
        raw[40..44].copy_from_slice(b"idle"); // next_comm
        body.extend(raw);
    }
    if fault == SampleFault::ExtraWord {
        body.extend_from_slice(&ref_u64(0, e));
    }
    let size = u16::try_from(8 + body.len()).expect("small");
    [header(e, SAMPLE, 2, size), body].concat()
}

fn read_u16(e: perf_encode::Endian, b: &[u8]) -> u16 {
    let b = [b[0], b[1]];
    if e.is_big() {
        u16::from_be_bytes(b)
    } else {
        u16::from_le_bytes(b)
    }
}

fn read_u32(e: perf_encode::Endian, b: &[u8]) -> u32 {
    let b = [b[0], b[1], b[2], b[3]];
    if e.is_big() {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    }
}

fn read_u64(e: perf_encode::Endian, b: &[u8]) -> u64 {
    let b: [u8; 8] = b[..8].try_into().expect("8 bytes");
    if e.is_big() {
        u64::from_be_bytes(b)
    } else {
        u64::from_le_bytes(b)
    }
}

/// The records of `bytes[from..]`, each with its payload.
fn records(e: perf_encode::Endian, bytes: &[u8], from: usize) -> Vec<(u32, &[u8])> {
    let mut out = Vec::new();
    let mut pos = from;
    while pos + 8 <= bytes.len() {
        let rest = &bytes[pos..];
        let type_ = read_u32(e, rest);
        let size = usize::from(read_u16(e, &rest[6..8]));
        let whole = size + payload_after(e, type_, rest).expect("a whole header");
        assert!(
            size >= 8 && whole <= rest.len(),
            "record at {pos} runs past the end"
        );
        out.push((type_, &rest[..whole]));
        pos += whole;
    }
    assert_eq!(pos, bytes.len(), "the records end where the bytes do");
    out
}

/// The writer makes these records in pipe mode.
const PIPE_HEADER_RECORDS: [u32; 5] = [64, 65, 66, 78, 80];

fn check_output(bytes: &[u8], mode: Mode, m: &Model) {
    let e = m.e;
    let magic: &[u8] = if e.is_big() { b"2ELIFREP" } else { b"PERFILE2" };
    assert_eq!(&bytes[..8], magic);
    let got: Vec<&[u8]> = match mode {
        Mode::File => {
            // perf_file_header: magic, size, attr_size, attrs {offset, size}, data {offset, size}.
            let offset = read_u64(e, &bytes[40..48]) as usize;
            let size = read_u64(e, &bytes[48..56]) as usize;
            records(e, &bytes[..offset + size], offset)
                .into_iter()
                .map(|(_, r)| r)
                .collect()
        }
        Mode::Pipe => records(e, bytes, 16)
            .into_iter()
            .filter(|(t, _)| !PIPE_HEADER_RECORDS.contains(t))
            .map(|(_, r)| r)
            .collect(),
    };
    let want: Vec<&[u8]> = m
        .accepted
        .iter()
        .filter(|r| mode == Mode::File || !PIPE_HEADER_RECORDS.contains(&read_u32(e, r)))
        .map(Vec::as_slice)
        .collect();
    // A file with no record gets one FINISHED_ROUND (perf refuses an empty data section).
    let round = header(e, 68, 0, 8);
    if !(want.is_empty() && got == [round.as_slice()]) {
        assert_eq!(got.len(), want.len(), "records in the output");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(g == w, "record {i} of the output is not the accepted one");
        }
    }
    // linux-perf-data reads it: one SAMPLE for each accepted. It reads a pipe stream's
    // attrs only before its first other record (HEADER_FEATURE aside) and does not skip its
    // tracing data: a stream with attrs later (events added after it started) is perf's
    // alone to read (tests/tests/failures/call_sequences.rs), and the tracing data is taken out.
    let samples = match mode {
        Mode::File => count_samples(PerfFileReader::parse_file(Cursor::new(bytes))),
        Mode::Pipe => {
            let all = records(e, bytes, 16);
            let first_other = all.iter().position(|(t, _)| *t != 64 && *t != 80);
            let late_attr = first_other.is_some_and(|i| all[i..].iter().any(|(t, _)| *t == 64));
            if late_attr {
                return;
            }
            let mut stream = bytes[..16].to_vec();
            for (t, r) in all {
                let keep = match t {
                    66 => &r[..usize::from(read_u16(e, &r[6..8]))],
                    _ => r,
                };
                stream.extend_from_slice(keep);
            }
            count_samples(PerfFileReader::parse_pipe(Cursor::new(&stream[..])))
        }
    };
    assert_eq!(samples, m.samples, "SAMPLEs linux-perf-data reads");
}

fn count_samples<R: io::Read>(reader: Result<PerfFileReader<R>, linux_perf_data::Error>) -> usize {
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = reader.expect("linux-perf-data parses the output");
    let mut n = 0;
    while let Some(r) = record_iter
        .next_record(&mut perf_file)
        .expect("linux-perf-data reads every record")
    {
        if let PerfFileRecord::EventRecord { record, .. } = r {
            n += usize::from(record.record_type.0 == SAMPLE);
        }
    }
    n
}
