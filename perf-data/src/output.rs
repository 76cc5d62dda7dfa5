//! Where a command's output goes: stdout, or a new file beside OUT renamed to OUT once
//! whole, so that a failed command leaves no partial OUT (and an existing OUT as it was).

use crate::error::DataError;
use std::io::Write;
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
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map_or_else(|| "perf.data".into(), |n| n.to_string_lossy().into_owned());
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".perf-data")
            .tempfile_in(dir)
            .map_err(|source| DataError::WriteOutput {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Sink::File {
            path: path.to_path_buf(),
            tmp,
        })
    }

    /// The name to report errors under.
    pub fn path(&self) -> PathBuf {
        match self {
            Sink::Stdout => PathBuf::from("-"),
            Sink::File { path, .. } => path.clone(),
        }
    }
}

/// Renames a finished new file to its final name.
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
