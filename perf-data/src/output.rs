//! Where a command's output goes: stdout, or a new file beside OUT renamed to OUT once
//! whole, so that a failed command leaves no partial OUT (and an existing OUT as it was).
//!
//! OUT is the file a symbolic link names (the link stays), and an existing OUT keeps its
//! permissions. An OUT that is not a regular file (a device such as `/dev/null`, a FIFO)
//! is written to once the output is whole, never replaced.

use crate::error::DataError;
use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// An output being written.
pub enum Sink {
    /// Standard output (`-`).
    Stdout,
    /// A new file beside `path`, renamed to it by [`commit`].
    File {
        /// The final name.
        path: PathBuf,
        /// The new file.
        tmp: NamedTempFile,
    },
}

impl Sink {
    /// Opens `path` (`-` for stdout): a new file in its directory, named
    /// `.NAME.XXXXXX.perf-data`.
    ///
    /// # Errors
    ///
    /// [`DataError::WriteOutput`] when the file cannot be created.
    pub fn create(path: &Path) -> Result<Sink, DataError> {
        if path == Path::new("-") {
            return Ok(Sink::Stdout);
        }
        let err = |source| DataError::WriteOutput {
            path: path.to_path_buf(),
            source,
        };
        let target = link_target(path).map_err(err)?;
        let existing = fs::metadata(&target).ok();
        let special = existing
            .as_ref()
            .is_some_and(|m| !m.is_file() && !m.is_dir());
        let dir = match target.parent() {
            // The whole output waits elsewhere for a device or FIFO, not in its directory.
            _ if special => std::env::temp_dir(),
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map_or_else(|| "perf.data".into(), |n| n.to_string_lossy().into_owned());
        // A new OUT gets what the umask leaves of rw-rw-rw-, an existing one its own mode.
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".perf-data")
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(err)?;
        if let Some(m) = existing.filter(|m| m.is_file()) {
            let mode = Permissions::from_mode(m.permissions().mode() & 0o7777);
            tmp.as_file().set_permissions(mode).map_err(err)?;
        }
        Ok(Sink::File { path: target, tmp })
    }

    /// The name to report errors under.
    pub fn path(&self) -> PathBuf {
        match self {
            Sink::Stdout => PathBuf::from("-"),
            Sink::File { path, .. } => path.clone(),
        }
    }
}

/// The file `path` names: itself, or what the symbolic link it is points to.
fn link_target(path: &Path) -> io::Result<PathBuf> {
    let mut target = path.to_path_buf();
    // A chain of links ends within the kernel's limit of 40.
    for _ in 0..40 {
        match fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() => {
                let next = fs::read_link(&target)?;
                target = match target.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
            }
            _ => return Ok(target),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Renames a finished new file to its final name; a device or FIFO is written to instead.
///
/// # Errors
///
/// [`DataError::WriteOutput`] when the rename (or the last write) fails; the new file is
/// removed.
pub fn commit(path: &Path, mut tmp: NamedTempFile) -> Result<(), DataError> {
    let err = |source| DataError::WriteOutput {
        path: path.to_path_buf(),
        source,
    };
    tmp.flush().map_err(err)?;
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut out = OpenOptions::new().write(true).open(path).map_err(err)?;
        let file = tmp.as_file_mut();
        file.seek(SeekFrom::Start(0)).map_err(err)?;
        io::copy(file, &mut out).map_err(err)?;
        return out.flush().map_err(err);
    }
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// Writes `bytes` to stdout.
///
/// # Errors
///
/// [`DataError::WriteOutput`] when stdout cannot take them.
pub fn to_stdout(bytes: &[u8]) -> Result<(), DataError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|source| DataError::WriteOutput {
            path: PathBuf::from("-"),
            source,
        })
}
