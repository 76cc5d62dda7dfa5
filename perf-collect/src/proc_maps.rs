//! A running process's mappings, from `/proc/PID/maps`: [`Mapping`], what perf's MMAP2
//! records of running processes are synthesized from.

/// One line of `/proc/PID/maps`:
/// `START-END PERMS OFFSET MAJ:MIN INODE [PATH]` (numbers in hex but the inode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First address.
    pub start: u64,
    /// Address after the last.
    pub end: u64,
    /// `PROT_READ`, `PROT_WRITE`, `PROT_EXEC` bits.
    pub prot: u32,
    /// `MAP_SHARED` or `MAP_PRIVATE`.
    pub flags: u32,
    /// Offset in the file.
    pub pgoff: u64,
    /// Device major number.
    pub maj: u32,
    /// Device minor number.
    pub min: u32,
    /// Inode.
    pub ino: u64,
    /// The file, or a name such as `[vdso]`; `//anon` for an anonymous mapping (the name
    /// perf gives them).
    pub path: Vec<u8>,
}

/// `PROT_READ`.
const PROT_READ: u32 = 1;
/// `PROT_WRITE`.
const PROT_WRITE: u32 = 2;
/// `PROT_EXEC`.
pub const PROT_EXEC: u32 = 4;
/// `MAP_SHARED`.
const MAP_SHARED: u32 = 1;
/// `MAP_PRIVATE`.
const MAP_PRIVATE: u32 = 2;

impl Mapping {
    /// Parses one line (without its newline); `None` for a line of another shape.
    ///
    /// ```
    /// use perf_collect::proc_maps::Mapping;
    /// let m = Mapping::parse(b"55c9d1aeb000-55c9d1aec000 r-xp 00001000 fe:00 10100869    /tmp/my app").unwrap();
    /// assert_eq!((m.start, m.end, m.pgoff, m.maj, m.ino), (0x55c9d1aeb000, 0x55c9d1aec000, 0x1000, 0xfe, 10100869));
    /// assert_eq!(m.path, b"/tmp/my app");
    /// assert!(m.is_executable());
    /// ```
    pub fn parse(line: &[u8]) -> Option<Mapping> {
        let mut rest = line;
        let mut field = || -> Option<&[u8]> {
            let trimmed = trim_start(rest);
            let len = trimmed
                .iter()
                .position(u8::is_ascii_whitespace)
                .unwrap_or(trimmed.len());
            let (word, after) = trimmed.split_at(len);
            rest = after;
            (!word.is_empty()).then_some(word)
        };
        let (range, perms, offset, dev, inode) = (field()?, field()?, field()?, field()?, field()?);
        let hex = |b: &[u8]| u64::from_str_radix(std::str::from_utf8(b).ok()?, 16).ok();
        let (start, end) = split_at_byte(range, b'-')?;
        let (maj, min) = split_at_byte(dev, b':')?;
        let perm = |i: usize, c: u8| perms.get(i) == Some(&c);
        let prot = [
            (0, b'r', PROT_READ),
            (1, b'w', PROT_WRITE),
            (2, b'x', PROT_EXEC),
        ]
        .into_iter()
        .filter(|&(i, c, _)| perm(i, c))
        .fold(0, |p, (.., bit)| p | bit);
        let path = trim_start(rest);
        let (start, end) = (hex(start)?, hex(end)?);
        if end < start {
            return None;
        }
        Some(Mapping {
            start,
            end,
            prot,
            flags: match perm(3, b's') {
                true => MAP_SHARED,
                false => MAP_PRIVATE,
            },
            pgoff: hex(offset)?,
            maj: u32::try_from(hex(maj)?).ok()?,
            min: u32::try_from(hex(min)?).ok()?,
            ino: std::str::from_utf8(inode).ok()?.parse().ok()?,
            path: match path.is_empty() {
                true => b"//anon".to_vec(),
                false => path.to_vec(),
            },
        })
    }

    /// Mapped executable: the mappings perf describes (code).
    pub fn is_executable(&self) -> bool {
        self.prot & PROT_EXEC != 0
    }

    /// Mapped readable.
    pub fn is_readable(&self) -> bool {
        self.prot & PROT_READ != 0
    }
}

fn trim_start(b: &[u8]) -> &[u8] {
    let skip = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    &b[skip..]
}

fn split_at_byte(b: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    let at = b.iter().position(|&c| c == sep)?;
    Some((&b[..at], &b[at + 1..]))
}

/// The mappings of process `pid` perf describes, in address order: the executable ones,
/// and with `data` the readable ones too; empty when it has none or is gone (a kernel
/// thread has none).
pub fn mappings(pid: u32, data: bool) -> Vec<Mapping> {
    let Ok(text) = std::fs::read(format!("/proc/{pid}/maps")) else {
        return Vec::new();
    };
    text.split(|&b| b == b'\n')
        .filter_map(Mapping::parse)
        .filter(|m| m.is_executable() || (data && m.is_readable()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_every_shape() {
        let anon = Mapping::parse(b"7f0000000000-7f0000001000 rwxs 00000000 00:00 0 ").unwrap();
        assert_eq!(anon.path, b"//anon");
        assert_eq!(anon.prot, PROT_READ | PROT_WRITE | PROT_EXEC);
        assert_eq!(anon.flags, MAP_SHARED);
        let vdso =
            Mapping::parse(b"7ffd1b3f0000-7ffd1b3f2000 r-xp 00000000 00:00 0   [vdso]").unwrap();
        assert_eq!(
            (vdso.path.as_slice(), vdso.flags),
            (&b"[vdso]"[..], MAP_PRIVATE)
        );
        let data = Mapping::parse(b"1000-2000 r--p 00000000 08:01 5 /lib/x.so").unwrap();
        assert!(!data.is_executable());
        assert_eq!((data.maj, data.min), (8, 1));
        let deleted = Mapping::parse(b"1000-2000 r-xp 0 08:01 5 /tmp/a (deleted)").unwrap();
        assert_eq!(deleted.path, b"/tmp/a (deleted)");
        for bad in [
            &b""[..],
            b"1000 r-xp 0 08:01 5",
            b"1000-2000 r-xp 0 0801 5",
            b"x-2000 r-xp 0 08:01 5",
            b"1000-2000 r-xp 0 08:01",
            b"2000-1000 r-xp 0 08:01 5 /a",
        ] {
            assert_eq!(
                Mapping::parse(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn this_process_maps_its_own_code() {
        let here = this_process_maps_its_own_code as *const () as usize as u64;
        let maps = mappings(std::process::id(), false);
        assert!(maps.iter().any(|m| m.start <= here && here < m.end));
        assert!(maps.iter().all(Mapping::is_executable));
        let with_data = mappings(std::process::id(), true);
        assert!(with_data.len() > maps.len());
        assert!(with_data
            .iter()
            .all(|m| m.is_readable() || m.is_executable()));
    }
}
