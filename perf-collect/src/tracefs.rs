//! Finding tracefs and reading the texts a recording needs from it: each tracepoint's
//! `format`, `header_page`, `header_event` and `printk_formats`.

use crate::error::CollectError;
use std::path::{Path, PathBuf};

/// The places looked at, in order, when no directory is given.
pub const DEFAULT_TRACEFS_DIRS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// A tracefs mount.
#[derive(Clone, Debug)]
pub struct Tracefs {
    root: PathBuf,
}

/// A tracepoint's format, as tracefs gives it.
#[derive(Clone, Debug)]
pub struct TracepointFormat {
    /// The directory under `events/` (`sched`).
    pub system: String,
    /// The event's name (`sched_switch`).
    pub name: String,
    /// The `format` file's text.
    pub text: String,
    /// The `ID:` line's value (the attr's `config`).
    pub id: u32,
}

impl Tracefs {
    /// tracefs at `dir` when given (it must have `events/`), else the first of
    /// [`DEFAULT_TRACEFS_DIRS`] with `events/`, else a tracefs mount listed in
    /// `/proc/mounts`.
    pub fn find(dir: Option<&Path>) -> Result<Tracefs, CollectError> {
        let mut looked = Vec::new();
        let candidates: Vec<PathBuf> = match dir {
            Some(d) => vec![d.to_path_buf()],
            None => {
                let mut c: Vec<PathBuf> = DEFAULT_TRACEFS_DIRS.iter().map(PathBuf::from).collect();
                c.extend(mounts_of_type("tracefs"));
                c
            }
        };
        let mut denied = None;
        for root in candidates {
            let events = root.join("events");
            match std::fs::metadata(&events) {
                Ok(m) if m.is_dir() => return Ok(Tracefs { root }),
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    denied.get_or_insert((events, e));
                }
                _ => {}
            }
            if !looked.contains(&root) {
                looked.push(root);
            }
        }
        match denied {
            // tracefs is there, for root only.
            Some((path, source)) => Err(CollectError::TracefsRead { path, source }),
            None => Err(CollectError::TracefsNotFound { looked }),
        }
    }

    /// The mount's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads the format of `system:name`.
    pub fn format(
        &self,
        system: &str,
        name: &str,
        spec: &str,
    ) -> Result<TracepointFormat, CollectError> {
        let path = self
            .root
            .join("events")
            .join(system)
            .join(name)
            .join("format");
        if !valid_component(system) || !valid_component(name) {
            return Err(CollectError::UnknownEvent {
                name: spec.to_string(),
                why: "not a tracepoint name (SYSTEM:EVENT)".to_string(),
            });
        }
        let text = match read_file(&path).and_then(|b| {
            String::from_utf8(b)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        }) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CollectError::UnknownEvent {
                    name: spec.to_string(),
                    why: format!("no tracepoint format at {}", path.display()),
                })
            }
            Err(source) => return Err(CollectError::TracefsRead { path, source }),
        };
        let id = text
            .lines()
            .find_map(|l| l.strip_prefix("ID:"))
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| CollectError::TracefsRead {
                path: path.clone(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, "no ID: line"),
            })?;
        Ok(TracepointFormat {
            system: system.to_string(),
            name: name.to_string(),
            text,
            id,
        })
    }

    /// Reads `events/FILE` (`header_page`, `header_event`); `None` when it cannot be read.
    pub fn events_file(&self, file: &str) -> Option<Vec<u8>> {
        read_file(&self.root.join("events").join(file)).ok()
    }

    /// Reads `printk_formats`; `None` when it cannot be read.
    pub fn printk_formats(&self) -> Option<Vec<u8>> {
        read_file(&self.root.join("printk_formats")).ok()
    }
}

/// The most a tracefs text may hold: far more than any kernel's formats or
/// `printk_formats` (tens to hundreds of KiB), far less than memory.
pub const MAX_TRACEFS_FILE_BYTES: usize = 16 * 1024 * 1024;

/// Reads a tracefs file of at most [`MAX_TRACEFS_FILE_BYTES`].
pub fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    read_bounded(path, MAX_TRACEFS_FILE_BYTES)
}

/// Reads a file of at most `limit` bytes with reads of 64 KiB; a longer one (or an endless
/// one such as `/dev/zero`) is an `InvalidData` error once `limit` is passed. Some tracefs
/// files (`events/header_page`) size what one `read` returns by the count asked for and
/// give nothing more after a short first read, so `std::fs::read` (which starts with a
/// 32-byte probe read on files that report size 0) gets only their first 32 bytes.
pub fn read_bounded(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    const CHUNK: usize = 64 * 1024;
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let mut len = 0;
    loop {
        if len > limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("longer than {} KiB", limit / 1024),
            ));
        }
        if buf.len() - len < CHUNK {
            buf.resize(len + CHUNK, 0);
        }
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(len);
    Ok(buf)
}

fn valid_component(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains('/') && !s.contains('\0')
}

/// Mount points of file systems of type `fstype`, from `/proc/mounts`.
fn mounts_of_type(fstype: &str) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string("/proc/mounts") else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let (_dev, dir, ty) = (f.next()?, f.next()?, f.next()?);
            (ty == fstype).then(|| PathBuf::from(dir.replace("\\040", " ")))
        })
        .collect()
}
