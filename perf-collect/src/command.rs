//! The command being recorded: started as a shell would start it, and ended when the
//! recording stops before it does.
//!
//! perf-collect blocks SIGINT, SIGTERM and SIGCHLD to read them from a signalfd; a child
//! inherits that mask, so it is reset between fork and exec
//! ([`sys::start_with_default_signals`]): the command starts with no signal blocked and
//! the default disposition of the signals perf-collect handles.
//!
//! When the recording stops first (`-d`, SIGINT or SIGTERM, a closed or full output), the
//! file is finalized before the command is ended: [`Command::end`] sends it SIGTERM, waits
//! for it, and after [`GRACE`] without an exit says so once on stderr and goes on waiting;
//! a SIGINT, SIGTERM or SIGHUP then sends it SIGKILL. Only the command is signalled, not its
//! own children: a shell that is killed leaves what it started running, as with `perf
//! record`.

use crate::error::CollectError;
use crate::sys;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{kill, Signal};
use nix::sys::signalfd::SignalFd;
use nix::unistd::Pid;
use std::ffi::OsString;
use std::io;
use std::os::fd::AsFd;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a command has to exit after SIGTERM before perf-collect says it is waiting.
pub const GRACE: Duration = Duration::from_secs(2);

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ended {
    /// Its exit status.
    pub status: ExitStatus,
    /// The recording stopped first and sent it SIGTERM.
    pub terminated: bool,
    /// It did not exit after SIGTERM and was killed with SIGKILL.
    pub killed: bool,
}

/// A running command.
#[derive(Debug)]
pub struct Command {
    child: Child,
    ended: Option<Ended>,
}

impl Command {
    /// Starts `program` with `args`; with `stdout_to_stderr` its stdout goes to stderr (a
    /// pipe-mode stream is on stdout).
    ///
    /// # Errors
    /// [`CollectError::Command`] when it cannot be started.
    pub fn spawn(
        program: &OsString,
        args: &[OsString],
        stdout_to_stderr: bool,
    ) -> Result<Command, CollectError> {
        let mut cmd = std::process::Command::new(program);
        cmd.args(args);
        if stdout_to_stderr {
            if let Ok(fd) = io::stderr().as_fd().try_clone_to_owned() {
                cmd.stdout(Stdio::from(fd));
            }
        }
        sys::start_with_default_signals(&mut cmd);
        let child = cmd.spawn().map_err(|source| CollectError::Command {
            program: program.to_string_lossy().into_owned(),
            source,
        })?;
        Ok(Command { child, ended: None })
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How it ended, once it has (checks without waiting).
    pub fn try_ended(&mut self) -> Option<Ended> {
        if self.ended.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.ended = Some(Ended {
                    status,
                    terminated: false,
                    killed: false,
                });
            }
        }
        self.ended
    }

    fn signal(&self, sig: Signal) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = kill(Pid::from_raw(pid), sig);
        }
    }

    /// Ends the command when it still runs: SIGTERM (and SIGCONT, in case it is stopped),
    /// then waits for it. After [`GRACE`] `waiting` is called once (to say so); a SIGINT,
    /// SIGTERM or SIGHUP read from `signals` (which must take SIGCHLD too) after that sends
    /// SIGKILL. Signals that came before it are not taken as "again": `timeout` and a
    /// terminal send the same signal to perf-collect and to its process group, so a second
    /// copy of the one that stopped the recording is common.
    pub fn end(mut self, signals: &SignalFd, waiting: impl FnOnce(u32)) -> Ended {
        if let Some(ended) = self.try_ended() {
            return ended;
        }
        self.signal(Signal::SIGTERM);
        self.signal(Signal::SIGCONT);
        let start = Instant::now();
        let mut waiting = Some(waiting);
        let mut sent_kill = false;
        loop {
            if let Some(ended) = self.try_ended() {
                use std::os::unix::process::ExitStatusExt;
                let killed = sent_kill && ended.status.signal() == Some(Signal::SIGKILL as i32);
                return Ended {
                    terminated: true,
                    killed,
                    ..ended
                };
            }
            let timeout = match waiting.is_some() {
                true => GRACE.saturating_sub(start.elapsed()),
                false => Duration::from_secs(1),
            };
            let mut fds = [PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
            let ms = PollTimeout::try_from(timeout.as_millis().max(1)).unwrap_or(PollTimeout::MAX);
            let _ = poll(&mut fds, ms);
            while let Ok(Some(info)) = signals.read_signal() {
                let told = waiting.is_none();
                if told && !sent_kill && is_stop_signal(info.ssi_signo as i32) {
                    self.signal(Signal::SIGKILL);
                    sent_kill = true;
                }
            }
            if start.elapsed() >= GRACE && self.try_ended().is_none() {
                if let Some(say) = waiting.take() {
                    say(self.pid());
                }
            }
        }
    }
}

/// The signals that stop a recording (and, once perf-collect waits for a command that
/// ignores SIGTERM, kill it): SIGINT, SIGTERM, SIGHUP.
pub const STOP_SIGNALS: [Signal; 3] = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP];

/// True for a signal number of [`STOP_SIGNALS`].
pub fn is_stop_signal(signo: i32) -> bool {
    STOP_SIGNALS.iter().any(|&s| s as i32 == signo)
}

/// Refuses, before anything is created, a command that cannot be run: one not found (on
/// `PATH` when its name has no `/`), a directory, a file without execute permission. (What
/// exec itself refuses, such as a bad `#!` line, is found when it starts.)
///
/// # Errors
/// [`CollectError::Command`] saying which.
pub fn check_program(program: &OsString) -> Result<(), CollectError> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::path::Path::new(program);
    let candidates: Vec<std::path::PathBuf> = match path.components().count() > 1 {
        true => vec![path.to_path_buf()],
        false => std::env::var_os("PATH")
            .map(|dirs| std::env::split_paths(&dirs).map(|d| d.join(path)).collect())
            .unwrap_or_default(),
    };
    let mut problem = io::Error::new(io::ErrorKind::NotFound, "not found");
    for candidate in candidates {
        match std::fs::metadata(&candidate) {
            Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => return Ok(()),
            Ok(m) if m.is_dir() => {
                problem = io::Error::new(io::ErrorKind::InvalidInput, "is a directory")
            }
            Ok(_) => {
                problem = io::Error::new(io::ErrorKind::PermissionDenied, "not an executable file")
            }
            Err(_) => {}
        }
    }
    Err(CollectError::Command {
        program: program.to_string_lossy().into_owned(),
        source: problem,
    })
}

impl Drop for Command {
    /// A command left running by an early return (a panic) is sent SIGTERM, not waited for.
    fn drop(&mut self) {
        if self.try_ended().is_none() {
            self.signal(Signal::SIGTERM);
        }
    }
}
