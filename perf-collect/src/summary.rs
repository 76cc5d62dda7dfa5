//! [`Summary`]: what a recording wrote, why it stopped, and what became of its output.

use crate::command::Ended;
use crate::ring_reader::{FlightWindow, RingStats};

/// Why the recording stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The command exited.
    CommandExited,
    /// SIGINT or SIGTERM.
    Signal(i32),
    /// The duration (`-d`) passed.
    Duration,
    /// The processes and threads recorded (`-p`, `-t`) and what they started have exited.
    TasksExited,
    /// The reader of the pipe went away.
    OutputClosed,
    /// The output's device is full (or its quota or file size limit reached): the file
    /// keeps the records that reached it ([`Summary::truncated`]).
    OutputFull,
}

/// An output that ends before the recording did: it filled up. A file keeps the whole
/// records that reached it (perf reads it); a stream keeps the bytes stdout took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    /// Records in the file's data section as stored (a COMPRESSED record counts as one);
    /// `None` for a stream.
    pub kept_records: Option<u64>,
    /// Bytes kept: the file's data section, or the stream's bytes.
    pub kept_bytes: u64,
    /// The output's error.
    pub error: String,
}

/// What a recording wrote.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Counts over all rings: what was read from the kernel and given to the writer.
    pub stats: RingStats,
    /// Online CPUs recorded.
    pub cpus: usize,
    /// Why the recording stopped.
    pub stop: StopReason,
    /// How the command ended, when one was run.
    pub command: Option<Ended>,
    /// Warnings (headers that could not be set, …), one line each.
    pub warnings: Vec<String>,
    /// The output holds only the first part of the recording: it filled up.
    pub truncated: Option<Truncation>,
    /// Pipe mode: the bytes of the stream stdout took.
    pub delivered: Option<u64>,
    /// Pipe mode: the reader closed the pipe before the stream's end.
    pub reader_closed: bool,
    /// Pipe mode: once the recording stopped, the reader took nothing for a while and the
    /// rest of the stream was given up.
    pub stalled: bool,
    /// Bytes of records the rings still held when a second signal cut saving short.
    pub unsaved_bytes: u64,
    /// Flight-recorder mode: the rings held less time than asked (`-c`), and what they held.
    pub flight_window: Option<FlightWindow>,
}
