//! The command being recorded: started as a shell would start it, and ended when the
//! recording stops before it does.
//!
//! A command whose process is recorded is started held ([`HeldCommand`]): forked, and
//! stopped before its exec until the events are opened on it, so that they start at its
//! exec (`enable_on_exec`) and miss nothing of it ([`sys::hold_before_exec`]).
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
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::process::{Child, ExitStatus, Stdio};
use std::thread::JoinHandle;
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

/// The `std::process::Command` for `program` with `args`, started as a shell would start
/// it; with `stdout_to_stderr` its stdout goes to stderr (a pipe-mode stream is on stdout).
fn prepare(program: &OsString, args: &[OsString], stdout_to_stderr: bool) -> std::process::Command {
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    if stdout_to_stderr {
        if let Ok(fd) = io::stderr().as_fd().try_clone_to_owned() {
            cmd.stdout(Stdio::from(fd));
        }
    }
    sys::start_with_default_signals(&mut cmd);
    cmd
}

fn command_error(program: &OsString, source: io::Error) -> CollectError {
    CollectError::Command {
        program: program.to_string_lossy().into_owned(),
        source,
    }
}

/// A command forked and held before its exec ([`HeldCommand::spawn`]), until
/// [`HeldCommand::release`]. Dropped without a release, its process exits without exec.
#[derive(Debug)]
pub struct HeldCommand {
    program: OsString,
    pid: u32,
    /// The go pipe's write end.
    go: Option<OwnedFd>,
    /// The thread in `spawn`, which returns once the process has exec'd (or failed to).
    spawned: Option<JoinHandle<io::Result<Child>>>,
}

impl HeldCommand {
    /// Forks the command (as [`Command::spawn`] starts it) and holds it before its exec.
    ///
    /// # Errors
    /// [`CollectError::Command`] when it cannot be forked; [`CollectError::System`] when
    /// the pipes or the thread cannot be made.
    pub fn spawn(
        program: &OsString,
        args: &[OsString],
        stdout_to_stderr: bool,
    ) -> Result<HeldCommand, CollectError> {
        let system = |what| {
            move |e: nix::errno::Errno| CollectError::System {
                what,
                source: e.into(),
            }
        };
        let flags = nix::fcntl::OFlag::O_CLOEXEC;
        let (pid_from, pid_to) =
            nix::unistd::pipe2(flags).map_err(system("making the command's pid pipe"))?;
        let (go_from, go) =
            nix::unistd::pipe2(flags).map_err(system("making the command's go pipe"))?;
        let mut cmd = prepare(program, args, stdout_to_stderr);
        sys::hold_before_exec(
            &mut cmd,
            pid_to.as_raw_fd(),
            go_from.as_raw_fd(),
            go.as_raw_fd(),
        );
        let spawned = std::thread::Builder::new()
            .spawn(move || {
                let child = cmd.spawn();
                // The child has its own copies; these close so that the reader of the pid
                // sees the end when the child fails before writing it.
                drop((pid_to, go_from));
                child
            })
            .map_err(|source| CollectError::System {
                what: "starting the thread that spawns the command",
                source,
            })?;
        let mut held = HeldCommand {
            program: program.clone(),
            pid: 0,
            go: Some(go),
            spawned: Some(spawned),
        };
        let mut bytes = [0u8; 4];
        let mut got = 0;
        while got < bytes.len() {
            match nix::unistd::read(pid_from.as_raw_fd(), &mut bytes[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(nix::errno::Errno::EINTR) => {}
                Err(e) => return Err(command_error(program, e.into())),
            }
        }
        if got < bytes.len() {
            // The child ended before it could say its pid: spawn says why.
            held.go = None;
            let why = match held.spawned.take().map(JoinHandle::join) {
                Some(Ok(Err(e))) => e,
                _ => io::Error::other("the command's process ended before its exec"),
            };
            return Err(command_error(program, why));
        }
        held.pid = u32::from_ne_bytes(bytes);
        Ok(held)
    }

    /// The held process's id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Lets the process exec; returns the command once it has.
    ///
    /// # Errors
    /// [`CollectError::Command`] when the exec fails (the process has then exited and is
    /// reaped).
    pub fn release(mut self) -> Result<Command, CollectError> {
        if let Some(go) = self.go.take() {
            let _ = nix::unistd::write(&go, &[1]);
        }
        let joined = self.spawned.take().map(JoinHandle::join);
        match joined {
            Some(Ok(Ok(child))) => Ok(Command { child, ended: None }),
            Some(Ok(Err(e))) => Err(command_error(&self.program, e)),
            _ => Err(command_error(
                &self.program,
                io::Error::other("the thread that spawned it panicked"),
            )),
        }
    }
}

impl Drop for HeldCommand {
    /// A command never released exits before its exec (its go pipe closes) and is reaped.
    fn drop(&mut self) {
        self.go = None;
        if let Some(spawned) = self.spawned.take() {
            let _ = spawned.join();
        }
    }
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
        let child = prepare(program, args, stdout_to_stderr)
            .spawn()
            .map_err(|source| command_error(program, source))?;
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
