//! `perf-collect`: record tracepoints and profiles from the kernel's perf ring buffers into
//! `perf.data`, without `perf`.
//!
//! [`record::record`] opens each event with `perf_event_open` on each CPU for what the
//! recording covers ([`scope::Scope`]: a command and what it starts, processes or threads
//! already running, or every task), plus a dummy event for the task records (COMM, FORK,
//! EXIT) and mappings (MMAP2) that name threads and code; maps one ring buffer per CPU (the
//! CPU's other events redirected into it); describes what already runs
//! ([`synthesize`]); and copies the records into a
//! file-mode [`perf_writer_std::PerfWriter`] (or a [`perf_writer_std::PerfPipeWriter`] for
//! `-o -`) as the kernel writes them, one FINISHED_ROUND after each pass over the buffers,
//! until the command it runs exits, the recorded tasks exit, a signal, or a duration; then
//! adds the build ids of the objects the samples hit ([`build_ids`]). The kernel's LOST
//! records go into the file like the others and are counted. In flight-recorder mode
//! ([`Options::flight_recorder`]) the rings overwrite themselves and only the last stretch
//! of time is saved when recording stops.
//!
//! All `unsafe` code of the workspace is in one module, [`sys`] (the system call, its
//! ioctls and the shared ring memory), each block with its SAFETY argument. Linux only.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(target_os = "linux")]
mod say;

#[cfg(target_os = "linux")]
pub mod build_ids;
#[cfg(target_os = "linux")]
pub mod call_graph;
#[cfg(target_os = "linux")]
pub mod cli;
#[cfg(target_os = "linux")]
pub mod command;
#[cfg(target_os = "linux")]
mod describe;
#[cfg(target_os = "linux")]
pub mod error;
#[cfg(target_os = "linux")]
pub mod events;
#[cfg(target_os = "linux")]
pub mod kernel_maps;
#[cfg(target_os = "linux")]
pub mod options;
#[cfg(target_os = "linux")]
pub mod output;
#[cfg(target_os = "linux")]
pub mod proc_maps;
#[cfg(target_os = "linux")]
pub mod record;
#[cfg(target_os = "linux")]
pub mod ring_reader;
#[cfg(target_os = "linux")]
pub mod rings;
#[cfg(target_os = "linux")]
mod save;
#[cfg(target_os = "linux")]
pub mod scope;
#[cfg(target_os = "linux")]
pub mod summary;
#[cfg(target_os = "linux")]
pub mod synthesize;
#[cfg(target_os = "linux")]
pub mod sys;
#[cfg(target_os = "linux")]
pub mod tracefs;
#[cfg(target_os = "linux")]
mod watch;

#[cfg(target_os = "linux")]
pub use error::CollectError;
#[cfg(target_os = "linux")]
pub use options::Options;
#[cfg(target_os = "linux")]
pub use record::record;
#[cfg(target_os = "linux")]
pub use summary::{StopReason, Summary, Truncation};
