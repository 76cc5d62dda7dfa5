//! Reading a TRACING_DATA payload as perf 6.1 reads it (`trace_report`): its parts, where
//! they are, and what perf refuses of its framing. The texts are checked by the functions
//! that check them when the writer makes the payload itself.

use crate::Endian;
use core::fmt;

/// perf reads strings (the version, each system name) into a buffer of this many bytes,
/// their NUL included, and overruns it with a longer one.
const MAX_STRING: usize = 8192;

/// perf reads counts and sizes into a C `int`: larger ones it misreads.
const MAX_INT: u64 = 0x7fff_ffff;

/// Where a TRACING_DATA payload is not what perf 6.1 reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracingDataError {
    /// What perf expects there.
    pub expected: &'static str,
    /// Offset in the payload.
    pub offset: usize,
}

impl fmt::Display for TracingDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TRACING_DATA: expected {} at byte {}",
            self.expected, self.offset
        )
    }
}

/// A TRACING_DATA payload's parts, as perf 6.1 reads them.
///
/// ```
/// use perf_encode::features::{TracingData, TracingDataParts};
/// use perf_encode::{to_vec, Endian};
/// let blob = to_vec(&TracingData::new(8, 4096), Endian::Little).unwrap();
/// let parts = TracingDataParts::parse(&blob).unwrap();
/// assert_eq!((parts.long_size, parts.page_size, parts.len), (8, 4096, blob.len()));
/// assert_eq!(parts.events().count(), 0);
/// assert!(TracingDataParts::parse(&blob[..blob.len() - 1]).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TracingDataParts<'a> {
    /// Numbers in it are big-endian.
    pub big_endian: bool,
    /// `sizeof(long)` of the recording kernel.
    pub long_size: u8,
    /// Its page size.
    pub page_size: u32,
    /// The `events/header_page` text.
    pub header_page: &'a [u8],
    /// The `events/header_event` text.
    pub header_event: &'a [u8],
    ftraces: Section<'a>,
    events: Section<'a>,
    /// The kallsyms text (perf 6.1 skips it).
    pub kallsyms: &'a [u8],
    /// The printk formats text.
    pub printk: &'a [u8],
    /// The saved cmdlines text (version 0.6).
    pub saved_cmdline: Option<&'a [u8]>,
    /// Bytes perf reads: the payload may go on after them.
    pub len: usize,
}

/// A counted list of parts, its bytes walked once by [`TracingDataParts::parse`].
#[derive(Clone, Copy, Debug)]
struct Section<'a> {
    count: u32,
    bytes: &'a [u8],
}

/// A position in the payload.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    endian: Endian,
}

impl<'a> Cursor<'a> {
    fn error(&self, expected: &'static str) -> TracingDataError {
        TracingDataError {
            expected,
            offset: self.at,
        }
    }

    fn take(&mut self, n: u64, expected: &'static str) -> Result<&'a [u8], TracingDataError> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.at.checked_add(n))
            .filter(|&end| end <= self.bytes.len())
            .ok_or(self.error(expected))?;
        let b = self.bytes.get(self.at..end).ok_or(self.error(expected))?;
        self.at = end;
        Ok(b)
    }

    fn u8(&mut self, expected: &'static str) -> Result<u8, TracingDataError> {
        let b = self.take(1, expected)?;
        b.first().copied().ok_or(self.error(expected))
    }

    fn u32(&mut self, expected: &'static str) -> Result<u32, TracingDataError> {
        let b = self.take(4, expected)?;
        let b = b.first_chunk::<4>().ok_or(self.error(expected))?;
        Ok(self.endian.read_u32(*b))
    }

    fn u64(&mut self, expected: &'static str) -> Result<u64, TracingDataError> {
        let b = self.take(8, expected)?;
        let b = b.first_chunk::<8>().ok_or(self.error(expected))?;
        Ok(self.endian.read_u64(*b))
    }

    /// A count or size perf reads into a C `int`.
    fn int(&mut self, n: u64, expected: &'static str) -> Result<u64, TracingDataError> {
        match n <= MAX_INT {
            true => Ok(n),
            false => Err(self.error(expected)),
        }
    }

    /// A NUL-terminated string that fits perf's buffer (returned without its NUL).
    fn string(&mut self, expected: &'static str) -> Result<&'a [u8], TracingDataError> {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .filter(|&n| n < MAX_STRING)
            .ok_or(self.error(expected))?;
        let s = rest.get(..len).ok_or(self.error(expected))?;
        self.at = self.at.saturating_add(len).saturating_add(1);
        Ok(s)
    }

    /// A part: its size (`u64`), then its bytes.
    fn part(&mut self, expected: &'static str) -> Result<&'a [u8], TracingDataError> {
        let size = self.u64(expected)?;
        let size = self.int(size, expected)?;
        self.take(size, expected)
    }
}

impl<'a> TracingDataParts<'a> {
    /// The parts of `blob`, or where perf 6.1 would stop reading it (or overrun its
    /// buffers). Versions other than 0.5 and 0.6 (what perf writes) are refused: perf
    /// reads the version as a float to know whether saved cmdlines follow.
    ///
    /// # Errors
    ///
    /// [`TracingDataError`], naming what perf expects where.
    pub fn parse(blob: &'a [u8]) -> Result<Self, TracingDataError> {
        let mut c = Cursor {
            bytes: blob,
            at: 0,
            endian: Endian::Little,
        };
        if c.take(10, "the magic \\x17\\x08Dtracing")? != b"\x17\x08Dtracing" {
            c.at = 0;
            return Err(c.error("the magic \\x17\\x08Dtracing"));
        }
        let version_at = c.at;
        let version = c.string("a version string with its NUL")?;
        let cmdline = match version {
            b"0.5" => false,
            b"0.6" => true,
            _ => {
                c.at = version_at;
                return Err(c.error("version 0.5 or 0.6"));
            }
        };
        let big_endian = match c.u8("the byte order (0 or 1)")? {
            0 => false,
            1 => true,
            _ => return Err(c.error("the byte order (0 or 1)")),
        };
        c.endian = match big_endian {
            true => Endian::Big,
            false => Endian::Little,
        };
        let long_size = c.u8("sizeof(long) (4 or 8)")?;
        if !matches!(long_size, 4 | 8) {
            return Err(c.error("sizeof(long) (4 or 8)"));
        }
        let page_size = c.u32("a page size other than 0")?;
        if page_size == 0 {
            return Err(c.error("a page size other than 0"));
        }
        if c.take(12, "header_page")? != b"header_page\0" {
            return Err(c.error("header_page"));
        }
        let header_page = c.part("the header_page text")?;
        if c.take(13, "header_event")? != b"header_event\0" {
            return Err(c.error("header_event"));
        }
        let header_event = c.part("the header_event text")?;
        let start = c.at;
        let count = c.u32("an ftrace format count")?;
        c.int(u64::from(count), "an ftrace format count below 2^31")?;
        for _ in 0..count {
            c.part("an ftrace format")?;
        }
        let ftraces = Section {
            count,
            bytes: blob.get(start..c.at).unwrap_or_default(),
        };
        let start = c.at;
        let systems = c.u32("a system count")?;
        c.int(u64::from(systems), "a system count below 2^31")?;
        for _ in 0..systems {
            c.string("a system name with its NUL")?;
            let formats = c.u32("a format count")?;
            c.int(u64::from(formats), "a format count below 2^31")?;
            for _ in 0..formats {
                c.part("an event format")?;
            }
        }
        let events = Section {
            count: systems,
            bytes: blob.get(start..c.at).unwrap_or_default(),
        };
        let size = c.u32("the kallsyms size")?;
        let kallsyms = c.take(u64::from(size), "the kallsyms text")?;
        let size = c.u32("the printk size")?;
        let printk = c.take(u64::from(size), "the printk text")?;
        let saved_cmdline = match cmdline {
            true => Some(c.part("the saved cmdlines")?),
            false => None,
        };
        Ok(TracingDataParts {
            big_endian,
            long_size,
            page_size,
            header_page,
            header_event,
            ftraces,
            events,
            kallsyms,
            printk,
            saved_cmdline,
            len: c.at,
        })
    }

    fn endian(&self) -> Endian {
        match self.big_endian {
            true => Endian::Big,
            false => Endian::Little,
        }
    }

    /// The ftrace format texts.
    pub fn ftraces(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let mut c = Cursor {
            bytes: self.ftraces.bytes,
            at: 4,
            endian: self.endian(),
        };
        (0..self.ftraces.count).map_while(move |_| c.part("").ok())
    }

    /// The event format texts, each with its system's name.
    pub fn events(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + 'a {
        let mut c = Cursor {
            bytes: self.events.bytes,
            at: 4,
            endian: self.endian(),
        };
        let mut system: &[u8] = &[];
        let mut left = 0u32;
        let mut systems = self.events.count;
        core::iter::from_fn(move || loop {
            if let Some(l) = left.checked_sub(1) {
                left = l;
                return Some((system, c.part("").ok()?));
            }
            systems = systems.checked_sub(1)?;
            system = c.string("").ok()?;
            left = c.u32("").ok()?;
        })
    }
}

#[cfg(all(test, feature = "alloc"))]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)] // test code
mod tests {
    use super::*;
    use crate::features::{FormatText, TracepointFormat, TracingData};
    use alloc::vec::Vec;

    /// What the encoder writes, the reader reads back part by part, in both byte orders;
    /// every shorter prefix is refused.
    #[test]
    fn the_parts_written_are_read_back() {
        let events = [
            TracepointFormat {
                system: "a",
                format: FormatText::Text(b"name: x\nID: 1\n"),
            },
            TracepointFormat {
                system: "a",
                format: FormatText::Text(b"name: y\nID: 2\n"),
            },
            TracepointFormat {
                system: "b",
                format: FormatText::Text(b"name: z\nID: 3\n"),
            },
        ];
        let ftraces: [&[u8]; 1] = [b"name: function\nID: 1\n"];
        for endian in [Endian::Little, Endian::Big] {
            let td = TracingData {
                events: &events,
                ftraces: &ftraces,
                printk: b"0x1 : \"x\"\n",
                ..TracingData::new(4, 8192)
            };
            let blob = crate::to_vec(&td, endian).unwrap();
            let p = TracingDataParts::parse(&blob).unwrap();
            assert_eq!(
                (p.big_endian, p.long_size, p.page_size),
                (endian == Endian::Big, 4, 8192)
            );
            assert_eq!(p.len, blob.len());
            assert_eq!(p.printk, b"0x1 : \"x\"\n");
            assert_eq!(p.ftraces().collect::<Vec<_>>(), ftraces);
            let got: Vec<(&[u8], &[u8])> = p.events().collect();
            let want: Vec<(&[u8], &[u8])> = events
                .iter()
                .map(|e| match e.format {
                    FormatText::Text(t) => (e.system.as_bytes(), t),
                    #[allow(unreachable_patterns)]
                    _ => unreachable!(),
                })
                .collect();
            assert_eq!(got, want);
            for n in 0..blob.len() {
                assert!(TracingDataParts::parse(&blob[..n]).is_err(), "{n}");
            }
        }
    }
}
