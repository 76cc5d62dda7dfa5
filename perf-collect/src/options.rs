//! [`Options`]: what to record, and how.

use crate::call_graph::CallGraph;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// What to record, and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Event names (`-e`), each possibly a comma-separated list.
    pub events: Vec<String>,
    /// Files of event names, one or more per line.
    pub event_files: Vec<PathBuf>,
    /// The output path; `-` writes a pipe-mode stream to stdout.
    pub output: PathBuf,
    /// Sampling frequency of counters such as cpu-clock (Hz); `None`: [`DEFAULT_FREQ`],
    /// or the kernel's limit when that is lower.
    pub freq: Option<u64>,
    /// Data pages of each CPU's ring buffer (a power of two).
    pub mmap_pages: usize,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// The command to run until it exits (empty: none). Unless a target below is given,
    /// it is what is recorded, with what it starts ([`crate::scope::Scope`]).
    pub command: Vec<OsString>,
    /// `-a`: every task on every CPU (or those of `cpu_list`).
    pub all_cpus: bool,
    /// `-C`: every task on these CPUs.
    pub cpu_list: Option<Vec<u32>>,
    /// `-p`: these processes (every thread), and what they start.
    pub pids: Vec<u32>,
    /// `-t`: these threads, and what they start.
    pub tids: Vec<u32>,
    /// `-g` / `--call-graph`: a call stack in each sample.
    pub call_graph: Option<CallGraph>,
    /// Where tracefs is (default: the usual places).
    pub tracefs: Option<PathBuf>,
    /// Print a progress line on stderr (when it is a terminal).
    pub progress: bool,
    /// Describe the tasks that exist when the recording starts, from `/proc` (COMM
    /// records naming their threads, MMAP2 records of their executable mappings), and the
    /// kernel's map.
    pub synthesize_threads: bool,
    /// The writer's strict mode for the kernel's records (the default): every record checked
    /// against its event's attr, a refused one left out and reported. Off (`--unchecked`),
    /// the records go in as the kernel wrote them. Either way a ring's pending bytes go to
    /// the writer in one call (record by record only after a refusal), and the descriptions
    /// and the records the collector makes itself are checked.
    pub strict: bool,
    /// Flight-recorder mode: the rings overwrite their oldest records, nothing is read
    /// while recording, and when it stops the records of this last stretch of time are
    /// saved.
    pub flight_recorder: Option<Duration>,
    /// Compress the records with zstd at this level (1 to 22) into COMPRESSED records, as
    /// `perf record -z` does.
    pub compression_level: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            events: Vec::new(),
            event_files: Vec::new(),
            output: PathBuf::from("perf.data"),
            freq: None,
            mmap_pages: 128,
            duration: None,
            command: Vec::new(),
            all_cpus: false,
            cpu_list: None,
            pids: Vec::new(),
            tids: Vec::new(),
            call_graph: None,
            tracefs: None,
            progress: false,
            synthesize_threads: true,
            strict: true,
            flight_recorder: None,
            compression_level: None,
        }
    }
}

/// The sampling frequency when none is given (`-F`).
pub const DEFAULT_FREQ: u64 = 4000;
