//! Where the running kernel's code is, as `perf record` describes it in MMAP records:
//! [`KernelMaps`], the kernel's text (`_text` to `_etext`, from `/proc/kallsyms`) and each
//! module's range (`/proc/modules`) with its file under `/lib/modules/RELEASE`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The file name of the kernel's MMAP record: perf takes the part after `]` as the symbol
/// the record's `pgoff` is the address of (its relocation reference).
pub const KERNEL_MMAP_NAME: &[u8] = b"[kernel.kallsyms]_text";

/// The kernel's name in HEADER_BUILD_ID.
pub const KERNEL_NAME: &[u8] = b"[kernel.kallsyms]";

/// The kernel's text: `_text` up to `_etext`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelText {
    /// `_text`.
    pub start: u64,
    /// `_etext` (the top of the address space when `/proc/kallsyms` lacks it).
    pub end: u64,
}

/// A loaded module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// Its name (`/proc/modules`).
    pub name: String,
    /// Its first address.
    pub start: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its file under `/lib/modules/RELEASE`, or `[NAME]` when none is found (perf's
    /// names for both).
    pub path: Vec<u8>,
}

/// The kernel's maps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelMaps {
    /// The kernel's text; `None` when its addresses are hidden (`kernel.kptr_restrict`, or
    /// no privilege) or `/proc/kallsyms` cannot be read.
    pub text: Option<KernelText>,
    /// The modules whose addresses are visible.
    pub modules: Vec<Module>,
}

impl KernelMaps {
    /// Reads this machine's.
    pub fn read() -> KernelMaps {
        let text = std::fs::File::open("/proc/kallsyms")
            .ok()
            .and_then(|f| kernel_text(BufReader::new(f)));
        let modules = std::fs::read_to_string("/proc/modules")
            .map(|t| parse_modules(&t))
            .unwrap_or_default();
        let modules = match modules.is_empty() {
            true => modules,
            false => with_paths(modules, &modules_dir()),
        };
        KernelMaps { text, modules }
    }
}

/// `_text` and `_etext` from a `/proc/kallsyms` text (`ADDRESS TYPE NAME [MODULE]` lines);
/// `None` when `_text` is missing or hidden (address 0). The text is long (a line per
/// kernel symbol): each line is looked at only for its end.
pub fn kernel_text(mut kallsyms: impl BufRead) -> Option<KernelText> {
    let (mut start, mut end) = (None, None);
    let mut line = Vec::with_capacity(128);
    let address = |line: &[u8]| {
        let hex = line.split(|&b| b == b' ').next()?;
        u64::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    while start.is_none() || end.is_none() {
        line.clear();
        match kallsyms.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let name = line.strip_suffix(b"\n").unwrap_or(&line);
        if name.ends_with(b" _text") {
            start = address(name);
        } else if name.ends_with(b" _etext") {
            end = address(name);
        }
    }
    let start = start.filter(|&a| a != 0)?;
    Some(KernelText {
        start,
        end: end.filter(|&e| e > start).unwrap_or(u64::MAX),
    })
}

/// The modules of a `/proc/modules` text (`NAME SIZE REFS DEPS STATE ADDRESS ...`) whose
/// address is visible; their paths are `[NAME]` until [`with_paths`] finds their files.
pub fn parse_modules(text: &str) -> Vec<Module> {
    text.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_ascii_whitespace().collect();
            let (name, size, addr) = (words.first()?, words.get(1)?, words.get(5)?);
            let start = u64::from_str_radix(addr.strip_prefix("0x")?, 16).ok()?;
            let size = size.parse().ok()?;
            (start != 0).then(|| Module {
                name: name.to_string(),
                start,
                size,
                path: format!("[{name}]").into_bytes(),
            })
        })
        .collect()
}

/// `/lib/modules/RELEASE` of the running kernel.
fn modules_dir() -> PathBuf {
    let release = nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_default();
    Path::new("/lib/modules").join(release)
}

/// A module's name as its file names it (`foo-bar.ko.xz` is module `foo_bar`).
fn module_name_of_file(file: &str) -> Option<String> {
    let stem = file
        .split_once(".ko")
        .filter(|(_, rest)| rest.is_empty() || [".xz", ".zst", ".gz"].contains(rest))?;
    Some(stem.0.replace('-', "_"))
}

/// The modules with the files found for them under `dir` (walked a few levels deep).
pub fn with_paths(mut modules: Vec<Module>, dir: &Path) -> Vec<Module> {
    let mut found = std::collections::HashMap::new();
    let mut dirs = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() && depth < 8 => dirs.push((path, depth + 1)),
                Ok(t) if t.is_file() => {
                    if let Some(name) = e.file_name().to_str().and_then(module_name_of_file) {
                        found.entry(name).or_insert(path);
                    }
                }
                _ => {}
            }
        }
    }
    for m in &mut modules {
        if let Some(path) = found.get(&m.name.replace('-', "_")) {
            use std::os::unix::ffi::OsStrExt;
            m.path = path.as_os_str().as_bytes().to_vec();
        }
    }
    modules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_kallsyms() {
        let text = "0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\nffffffff81000000 T startup_64\nffffffff82259b00 T _etext\nffffffffc0000000 t foo\t[mod]\n";
        assert_eq!(
            kernel_text(text.as_bytes()),
            Some(KernelText {
                start: 0xffff_ffff_8100_0000,
                end: 0xffff_ffff_8225_9b00
            })
        );
        let hidden = "0000000000000000 T _text\n0000000000000000 T _etext\n";
        assert_eq!(kernel_text(hidden.as_bytes()), None);
        let no_end = "ffffffff81000000 T _text\n";
        assert_eq!(kernel_text(no_end.as_bytes()).unwrap().end, u64::MAX);
    }

    #[test]
    fn modules_and_their_files() {
        let text = "ext4 999424 1 - Live 0xffffffffc0400000\nhidden_mod 4096 0 - Live 0x0000000000000000\nfoo_bar 8192 0 - Live 0xffffffffc0300000 (OE)\n";
        let modules = parse_modules(text);
        assert_eq!(modules.len(), 2);
        assert_eq!(modules[0].path, b"[ext4]");
        assert_eq!(
            (modules[1].start, modules[1].size),
            (0xffff_ffff_c030_0000, 8192)
        );
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("kernel/drivers");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("foo-bar.ko.xz"), b"").unwrap();
        std::fs::write(sub.join("ext4.kox"), b"").unwrap();
        let modules = with_paths(modules, dir.path());
        assert_eq!(modules[0].path, b"[ext4]");
        assert!(modules[1].path.ends_with(b"kernel/drivers/foo-bar.ko.xz"));
    }
}
