//! [`CollectError`]: why a recording could not start or go on, each said in one line.

use perf_writer_std::WriterError;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why `perf-collect` stopped with an error. `Display` is one line, meant for the user.
#[derive(Debug)]
#[non_exhaustive]
pub enum CollectError {
    /// A command-line value that cannot be used.
    BadArgument(String),
    /// An event name that names no tracepoint or known event.
    UnknownEvent {
        /// The name as given.
        name: String,
        /// What was looked at.
        why: String,
    },
    /// A file of event names could not be read.
    EventFile {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// No tracefs with an `events` directory was found.
    TracefsNotFound {
        /// The directories looked at.
        looked: Vec<PathBuf>,
    },
    /// A tracefs file could not be read.
    TracefsRead {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// `perf_event_open` was refused for lack of privilege.
    Permission {
        /// The event.
        event: String,
        /// It was to record every task of the CPUs (not the recorded processes alone).
        every_task: bool,
        /// `kernel.perf_event_paranoid`, when readable.
        paranoid: Option<i32>,
        /// The error.
        source: io::Error,
    },
    /// The kernel or this machine does not support the event.
    NotSupported {
        /// The event.
        event: String,
        /// The error.
        source: io::Error,
    },
    /// `perf_event_open` or one of its ioctls failed otherwise.
    Open {
        /// The event.
        event: String,
        /// The CPU.
        cpu: u32,
        /// The error.
        source: io::Error,
    },
    /// A ring buffer could not be mapped.
    Mmap {
        /// The CPU.
        cpu: u32,
        /// Its size in KiB.
        kib: usize,
        /// The error.
        source: io::Error,
    },
    /// The output could not be created.
    Output {
        /// The output as given.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// The output filled up before even the recording's headers fit: nothing was kept (a
    /// regular file is removed).
    OutputFull {
        /// The output as given.
        path: String,
        /// The output's error.
        source: WriterError,
    },
    /// Once the recording stopped, stdout took nothing for a while: the stream was given up.
    Stalled {
        /// Bytes of the stream stdout took.
        taken: u64,
    },
    /// The command to record could not be started.
    Command {
        /// Its name.
        program: String,
        /// The error.
        source: io::Error,
    },
    /// The writer refused something or its output failed.
    Writer {
        /// What was being written.
        what: &'static str,
        /// The error.
        source: WriterError,
    },
    /// Another system error.
    System {
        /// What was being done.
        what: &'static str,
        /// The error.
        source: io::Error,
    },
}

impl fmt::Display for CollectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollectError::BadArgument(s) => write!(f, "{s}"),
            CollectError::UnknownEvent { name, why } => {
                write!(f, "unknown event '{name}': {why}")
            }
            CollectError::EventFile { path, source } => {
                write!(f, "cannot read the event list {}: {source}", path.display())
            }
            CollectError::TracefsNotFound { looked } => {
                let dirs: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "tracefs not found (looked in {} and /proc/mounts); mount it: mount -t tracefs nodev /sys/kernel/tracing",
                    dirs.join(", ")
                )
            }
            CollectError::TracefsRead { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())?;
                if source.kind() == io::ErrorKind::PermissionDenied {
                    write!(f, " (tracefs is readable by root only; run as root)")?;
                }
                Ok(())
            }
            CollectError::Permission {
                event,
                every_task,
                paranoid,
                source,
            } => {
                let now = paranoid.map_or_else(|| "unreadable".to_string(), |p| p.to_string());
                let what = match every_task {
                    true => "on all CPUs",
                    false => "for the recorded processes",
                };
                write!(
                    f,
                    "no permission to record '{event}' {what} ({source}): kernel.perf_event_paranoid is {now}; run as root (or with CAP_PERFMON), or set it to -1: sysctl -w kernel.perf_event_paranoid=-1"
                )
            }
            CollectError::NotSupported { event, source } => {
                write!(f, "event '{event}' is not supported here ({source})")
            }
            CollectError::Open { event, cpu, source } => {
                write!(f, "cannot open event '{event}' on CPU {cpu}: {source}")
            }
            CollectError::Mmap { cpu, kib, source } => {
                write!(f, "cannot map the {kib} KiB ring buffer of CPU {cpu}: {source} ")?;
                // kernel.perf_event_mlock_kb limits users without CAP_IPC_LOCK only.
                match nix::unistd::geteuid().is_root() {
                    true => write!(f, "(the kernel could not allocate it: use a smaller -m)"),
                    false => write!(f, "(use a smaller -m, or raise kernel.perf_event_mlock_kb)"),
                }
            }
            CollectError::Output { path, source } => {
                write!(f, "cannot create the output '{path}': {source}")
            }
            CollectError::OutputFull { path, source } => write!(
                f,
                "the output '{path}' is full ({source}): not even the recording's headers fit, nothing was kept"
            ),
            CollectError::Stalled { taken } => write!(
                f,
                "the stream's reader took nothing for a while after {taken} bytes: the rest was given up"
            ),
            CollectError::Command { program, source } => {
                write!(f, "cannot run '{program}': {source}")
            }
            CollectError::Writer { what, source } => write!(f, "{what}: {source}"),
            CollectError::System { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl std::error::Error for CollectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CollectError::EventFile { source, .. }
            | CollectError::TracefsRead { source, .. }
            | CollectError::Permission { source, .. }
            | CollectError::NotSupported { source, .. }
            | CollectError::Open { source, .. }
            | CollectError::Mmap { source, .. }
            | CollectError::Output { source, .. }
            | CollectError::Command { source, .. }
            | CollectError::System { source, .. } => Some(source),
            CollectError::Writer { source, .. } | CollectError::OutputFull { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

/// `kernel.perf_event_paranoid`, when readable.
pub fn perf_event_paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Makes a refusal or failure of the writer a [`CollectError::Writer`] saying `what` was
/// being written.
pub(crate) fn writer_err(what: &'static str) -> impl Fn(WriterError) -> CollectError {
    move |source| CollectError::Writer { what, source }
}
