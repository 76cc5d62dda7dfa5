//! Where a recording goes, and what becomes of it when the recording fails.
//!
//! - A file path: the recording is written to a new file beside it
//!   (`.NAME.XXXXXX.perf-collect`) and renamed to NAME once finalized, so a recording that
//!   cannot start or keeps nothing leaves an existing NAME as it was. A symbolic link is
//!   followed: its target is replaced. A device (`/dev/null`) is written in place and never
//!   removed. A FIFO, a socket or a directory is refused before anything is opened: file
//!   mode must seek back to write the header; `-o -` writes a stream instead.
//! - `-` (stdout): a pipe-mode stream. When stdout is a pipe or a socket it is made
//!   non-blocking for the recording (and put back after), so that a reader that stops
//!   reading never holds up a signal: a write the pipe cannot take is retried once poll
//!   says it can. The bytes stdout took are counted.

use crate::error::CollectError;
use crate::summary::StopReason;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use perf_writer_std::OutputError;
use perf_writer_std::WriterError;
use std::cell::Cell;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use tempfile::TempPath;

/// A file-mode output: the file to write and what to do with it when done.
#[derive(Debug)]
pub struct FileOutput {
    /// The path the recording ends up at.
    path: PathBuf,
    /// The new file, while it is not renamed to `path` (`None` for a device).
    temp: Option<TempPath>,
}

impl FileOutput {
    /// Opens the output for `path` (see the module documentation).
    ///
    /// # Errors
    /// [`CollectError::Output`]: a FIFO, socket or directory at `path`, or the file cannot
    /// be created.
    pub fn create(path: &Path) -> Result<(File, FileOutput), CollectError> {
        let refuse = |source| CollectError::Output {
            path: path.display().to_string(),
            source,
        };
        // Through a link, the target is what the recording replaces.
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            }
            _ => path.to_path_buf(),
        };
        match std::fs::metadata(&target) {
            Ok(m) if m.file_type().is_fifo() || m.file_type().is_socket() => {
                return Err(refuse(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a FIFO or socket cannot hold a perf.data file (the header is written last, at its start); use -o - for a pipe-mode stream",
                )))
            }
            Ok(m) if m.is_dir() => {
                return Err(refuse(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "is a directory",
                )))
            }
            Ok(m) if m.file_type().is_char_device() || m.file_type().is_block_device() => {
                let file = File::options()
                    .write(true)
                    .open(&target)
                    .map_err(refuse)?;
                let output = FileOutput { path: target, temp: None };
                return Ok((file, output));
            }
            _ => {}
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".perf-collect")
            .tempfile_in(&dir)
            .map_err(refuse)?;
        let (file, temp) = temp.into_parts();
        Ok((
            file,
            FileOutput {
                path: target,
                temp: Some(temp),
            },
        ))
    }

    /// The path the recording ends up at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Puts the finalized recording at its path.
    ///
    /// # Errors
    /// [`CollectError::Output`] when the rename fails (the new file is then removed).
    pub fn keep(self) -> Result<(), CollectError> {
        match self.temp {
            None => Ok(()),
            Some(temp) => temp
                .persist(&self.path)
                .map(drop)
                .map_err(|e| CollectError::Output {
                    path: self.path.display().to_string(),
                    source: e.error,
                }),
        }
    }

    /// Removes the new file: the path keeps what it held before.
    pub fn discard(self) {
        drop(self.temp);
    }
}

/// A pipe-mode output on stdout.
#[derive(Debug)]
pub struct StdoutOutput {
    /// A descriptor of stdout kept to wait on and to put its flags back.
    fd: OwnedFd,
    /// Its flags before the recording, when they were changed.
    restore: Option<OFlag>,
    /// Bytes stdout took.
    taken: Rc<Cell<u64>>,
}

/// The stream the writer writes to: stdout, counting what it takes.
#[derive(Debug)]
pub struct CountedStdout {
    out: File,
    taken: Rc<Cell<u64>>,
}

impl Write for CountedStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.taken.set(self.taken.get().saturating_add(n as u64));
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl StdoutOutput {
    /// Takes stdout for a stream; a pipe or socket is made non-blocking.
    ///
    /// # Errors
    /// [`CollectError::Output`] when stdout cannot be duplicated.
    pub fn open() -> Result<(CountedStdout, StdoutOutput), CollectError> {
        let refuse = |source| CollectError::Output {
            path: "-".into(),
            source,
        };
        let dup = || io::stdout().as_fd().try_clone_to_owned().map_err(refuse);
        let (out, fd) = (dup()?, dup()?);
        let streamed = File::from(fd.try_clone().map_err(refuse)?)
            .metadata()
            .is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket());
        let mut restore = None;
        if streamed {
            if let Ok(bits) = fcntl(fd.as_raw_fd(), FcntlArg::F_GETFL) {
                let flags = OFlag::from_bits_truncate(bits);
                if fcntl(fd.as_raw_fd(), FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).is_ok() {
                    restore = Some(flags);
                }
            }
        }
        let taken = Rc::new(Cell::new(0));
        let stream = CountedStdout {
            out: File::from(out),
            taken: Rc::clone(&taken),
        };
        Ok((stream, StdoutOutput { fd, restore, taken }))
    }

    /// Bytes stdout took so far.
    pub fn taken(&self) -> u64 {
        self.taken.get()
    }

    /// Stdout, to wait until it takes bytes again.
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for StdoutOutput {
    /// Puts stdout's flags back as they were (the pipe is shared with whoever made it).
    fn drop(&mut self) {
        if let Some(flags) = self.restore {
            let _ = fcntl(self.fd.as_raw_fd(), FcntlArg::F_SETFL(flags));
        }
    }
}

/// Where the recording goes.
pub(crate) enum Target {
    /// A file (a new one renamed to its path once finalized, or a device).
    File(FileOutput),
    /// A pipe-mode stream on stdout.
    Stdout(StdoutOutput),
}

impl Target {
    pub(crate) fn is_pipe(&self) -> bool {
        matches!(self, Target::Stdout(_))
    }

    /// Stdout when it is the output, to wait until it takes bytes.
    pub(crate) fn stdout(&self) -> Option<&StdoutOutput> {
        match self {
            Target::Stdout(s) => Some(s),
            Target::File(_) => None,
        }
    }

    /// Drops an output that holds no recording perf reads: a new file is removed (the path
    /// keeps what it held), a device or stdout is left as it is.
    pub(crate) fn discard(self) {
        if let Target::File(f) = self {
            f.discard();
        }
    }

    /// Puts a finalized recording at its path.
    pub(crate) fn keep(self) -> Result<(), CollectError> {
        match self {
            Target::File(f) => f.keep(),
            Target::Stdout(_) => Ok(()),
        }
    }
}

/// The stop an output failure means: a pipe whose reader went away, a full device (the
/// file or stream keeps what reached it); `None` for any other failure.
pub(crate) fn output_stop(e: &CollectError) -> Option<StopReason> {
    let CollectError::Writer {
        source: WriterError::Output(OutputError::Io(io)),
        ..
    } = e
    else {
        return None;
    };
    match io.kind() {
        io::ErrorKind::BrokenPipe => Some(StopReason::OutputClosed),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge => {
            Some(StopReason::OutputFull)
        }
        _ => None,
    }
}
