//! `HEADER_TRACING_DATA`: the tracefs description of tracepoint events that perf needs to
//! decode their RAW payloads. perf refuses a file with a tracepoint attr and no tracing data.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, Endian, Output};
#[cfg(feature = "tracepoint_decode")]
use core::fmt;

/// The `events/header_page` text of a 64-bit kernel with 4 KiB pages, used when the caller
/// gives none.
pub const DEFAULT_HEADER_PAGE: &[u8] = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/// The `events/header_event` text of current kernels, used when the caller gives none.
pub const DEFAULT_HEADER_EVENT: &[u8] = b"# compressed entry header\n\
\ttype_len    :    5 bits\n\
\ttime_delta  :   27 bits\n\
\tarray       :   32 bits\n\
\n\
\tpadding     : type == 29\n\
\ttime_extend : type == 30\n\
\ttime_stamp : type == 31\n\
\tdata max type_len  == 28\n";

const MAGIC: &[u8] = b"\x17\x08\x44tracing0.6\0";

/// Largest blob accepted in the tracing data (perf reads sizes as signed 32-bit values).
pub const MAX_BLOB_LEN: usize = 0x7fff_ffff;

/// A tracepoint's tracefs `format` file.
#[derive(Clone, Copy, Debug)]
pub enum FormatText<'a> {
    /// The text exactly as tracefs gave it (preferred: nothing is lost).
    Text(&'a [u8]),
    /// A parsed format, written back as text by `PerfEventFormat::write_to`.
    #[cfg(feature = "tracepoint_decode")]
    Parsed(&'a tracepoint_decode::PerfEventFormat),
}

/// One tracepoint of the tracing data: its system (`sched`) and its format.
///
/// ```
/// use perf_encode::features::{FormatText, TracepointFormat};
/// let t = TracepointFormat { system: "sched", format: FormatText::Text(b"name: sched_switch\nID: 316\n") };
/// assert_eq!(t.system, "sched");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TracepointFormat<'a> {
    /// The system: the directory under `events/`.
    pub system: &'a str,
    /// The `format` file.
    pub format: FormatText<'a>,
}

/// The tracing data blob: `\x17\x08Dtracing0.6`, byte order, `long` size, page size,
/// header_page, header_event, ftrace formats, the event formats grouped by system,
/// kallsyms, printk formats and saved cmdlines. Its byte-order flag and every number follow
/// the [`Encoder`]'s byte order.
///
/// `events` must be grouped by system (each system's events contiguous), as perf lists
/// `u32 nr_systems` then per system `name, u32 nr_events, events`; sort them by system.
///
/// ```
/// use perf_encode::features::{FormatText, TracepointFormat, TracingData};
/// let events = [TracepointFormat { system: "sched", format: FormatText::Text(b"name: x\nID: 1\n") }];
/// let td = TracingData { events: &events, ..TracingData::new(8, 4096) };
/// let v = perf_encode::to_vec(&td, perf_encode::Endian::Little).unwrap();
/// assert_eq!(&v[..14], b"\x17\x08\x44tracing0.6\0");
/// assert_eq!(v[14], 0); // little-endian
/// assert_eq!(v[15], 8); // sizeof(long)
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TracingData<'a> {
    /// `sizeof(long)` of the traced kernel: 8 or 4.
    pub long_size: u8,
    /// Page size of the traced kernel.
    pub page_size: u32,
    /// `events/header_page`; empty means [`DEFAULT_HEADER_PAGE`].
    pub header_page: &'a [u8],
    /// `events/header_event`; empty means [`DEFAULT_HEADER_EVENT`].
    pub header_event: &'a [u8],
    /// Formats of `events/ftrace/*`.
    pub ftraces: &'a [&'a [u8]],
    /// Tracepoint formats, grouped by system.
    pub events: &'a [TracepointFormat<'a>],
    /// `/proc/kallsyms`, or empty.
    pub kallsyms: &'a [u8],
    /// `printk_formats`, or empty.
    pub printk: &'a [u8],
    /// `saved_cmdlines`, or empty.
    pub saved_cmdline: &'a [u8],
}

impl TracingData<'static> {
    /// Tracing data with no events and the default header texts.
    pub const fn new(long_size: u8, page_size: u32) -> Self {
        TracingData {
            long_size,
            page_size,
            header_page: &[],
            header_event: &[],
            ftraces: &[],
            events: &[],
            kallsyms: &[],
            printk: &[],
            saved_cmdline: &[],
        }
    }
}

fn blob_len(what: &'static str, len: usize) -> Result<usize, EncodeError> {
    if len > MAX_BLOB_LEN {
        return Err(EncodeError::TooLong {
            what,
            len: len as u64,
            max: MAX_BLOB_LEN as u64,
        });
    }
    Ok(len)
}

fn u64_len(len: usize) -> Result<u64, EncodeError> {
    u64::try_from(len).map_err(|_| EncodeError::Overflow {
        what: "tracing data length",
    })
}

fn named_text<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    name: &[u8],
    text: &[u8],
    default: &[u8],
) -> Result<(), EncodeError> {
    let text = if text.is_empty() { default } else { text };
    enc.bytes(name)?;
    enc.u8(0)?;
    enc.u64(u64_len(blob_len("tracing data header text", text.len())?)?)?;
    enc.bytes(text)
}

/// Counts the bytes a `fmt::Write` user produces.
#[cfg(feature = "tracepoint_decode")]
struct CountWriter(usize);

#[cfg(feature = "tracepoint_decode")]
impl fmt::Write for CountWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.checked_add(s.len()).ok_or(fmt::Error)?;
        Ok(())
    }
}

/// Forwards `fmt::Write` text to an encoder, keeping the first encoding error.
#[cfg(feature = "tracepoint_decode")]
struct EncodeWriter<'e, 'o, O: Output + ?Sized> {
    enc: &'e mut Encoder<'o, O>,
    error: Option<EncodeError>,
}

#[cfg(feature = "tracepoint_decode")]
impl<O: Output + ?Sized> fmt::Write for EncodeWriter<'_, '_, O> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.enc.bytes(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

impl FormatText<'_> {
    fn len(&self) -> Result<usize, EncodeError> {
        match self {
            FormatText::Text(t) => Ok(t.len()),
            #[cfg(feature = "tracepoint_decode")]
            FormatText::Parsed(f) => {
                let mut c = CountWriter(0);
                f.write_to(&mut c).map_err(|_| EncodeError::Format)?;
                Ok(c.0)
            }
        }
    }

    fn write<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        match self {
            FormatText::Text(t) => enc.bytes(t),
            #[cfg(feature = "tracepoint_decode")]
            FormatText::Parsed(f) => {
                let mut w = EncodeWriter { enc, error: None };
                let r = f.write_to(&mut w);
                match (w.error, r) {
                    (Some(e), _) => Err(e),
                    (None, Err(_)) => Err(EncodeError::Format),
                    (None, Ok(())) => Ok(()),
                }
            }
        }
    }
}

impl TracingData<'_> {
    /// Runs of `events` that share a system, in order. Fails when a system comes back after
    /// another one (the events are not grouped).
    fn check_grouped(&self) -> Result<usize, EncodeError> {
        let mut systems = 0usize;
        let mut prev: Option<&str> = None;
        for (i, e) in self.events.iter().enumerate() {
            if e.system.as_bytes().contains(&0) {
                return Err(EncodeError::InvalidValue {
                    what: "tracepoint system name contains a NUL byte",
                });
            }
            if prev == Some(e.system) {
                continue;
            }
            // A new run: its system must not have appeared in an earlier run.
            if self
                .events
                .get(..i)
                .unwrap_or(&[])
                .iter()
                .any(|p| p.system == e.system)
            {
                return Err(EncodeError::Unordered {
                    what: "tracepoint formats (group them by system)",
                });
            }
            systems = systems.saturating_add(1);
            prev = Some(e.system);
        }
        Ok(systems)
    }
}

impl Encode for TracingData<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let systems = self.check_grouped()?;
        enc.bytes(MAGIC)?;
        enc.u8(u8::from(enc.endian() == Endian::Big))?;
        enc.u8(self.long_size)?;
        enc.u32(self.page_size)?;
        named_text(enc, b"header_page", self.header_page, DEFAULT_HEADER_PAGE)?;
        named_text(
            enc,
            b"header_event",
            self.header_event,
            DEFAULT_HEADER_EVENT,
        )?;

        enc.u32(count_u32("ftrace formats", self.ftraces.len())?)?;
        for f in self.ftraces {
            enc.u64(u64_len(blob_len("ftrace format", f.len())?)?)?;
            enc.bytes(f)?;
        }

        enc.u32(count_u32("tracepoint systems", systems)?)?;
        let mut rest = self.events;
        while let Some(first) = rest.first() {
            let run = rest.iter().take_while(|e| e.system == first.system).count();
            let (group, tail) = rest.split_at(run.min(rest.len()));
            enc.bytes(first.system.as_bytes())?;
            enc.u8(0)?;
            enc.u32(count_u32("tracepoints of a system", group.len())?)?;
            for e in group {
                enc.u64(u64_len(blob_len("tracepoint format", e.format.len()?)?)?)?;
                e.format.write(enc)?;
            }
            rest = tail;
        }

        let kallsyms = u32::try_from(blob_len("kallsyms", self.kallsyms.len())?)
            .map_err(|_| EncodeError::Overflow { what: "kallsyms" })?;
        enc.u32(kallsyms)?;
        enc.bytes(self.kallsyms)?;
        let printk =
            u32::try_from(blob_len("printk formats", self.printk.len())?).map_err(|_| {
                EncodeError::Overflow {
                    what: "printk formats",
                }
            })?;
        enc.u32(printk)?;
        enc.bytes(self.printk)?;
        enc.u64(u64_len(blob_len(
            "saved cmdlines",
            self.saved_cmdline.len(),
        )?)?)?;
        enc.bytes(self.saved_cmdline)
    }
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::to_vec;

    #[test]
    fn groups_must_be_contiguous() {
        let t = |s| TracepointFormat {
            system: s,
            format: FormatText::Text(b"x"),
        };
        let ok = [t("a"), t("a"), t("b")];
        let bad = [t("a"), t("b"), t("a")];
        assert!(to_vec(
            &TracingData {
                events: &ok,
                ..TracingData::new(8, 4096)
            },
            Endian::Little
        )
        .is_ok());
        assert_eq!(
            to_vec(
                &TracingData {
                    events: &bad,
                    ..TracingData::new(8, 4096)
                },
                Endian::Little
            ),
            Err(EncodeError::Unordered {
                what: "tracepoint formats (group them by system)"
            })
        );
    }

    #[test]
    fn big_endian_flag_and_numbers() {
        let v = to_vec(&TracingData::new(8, 4096), Endian::Big).unwrap();
        assert_eq!(v[14], 1);
        assert_eq!(&v[16..20], &4096u32.to_be_bytes());
        let le = to_vec(&TracingData::new(8, 4096), Endian::Little).unwrap();
        assert_eq!(le.len(), v.len());
        assert_eq!(&le[16..20], &4096u32.to_le_bytes());
    }
}
