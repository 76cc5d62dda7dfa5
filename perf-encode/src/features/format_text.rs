//! Checks of the tracefs texts that go into TRACING_DATA (an event's `format` file, the
//! `header_page` file), made before any parser reads them: perf 6.1's parser crashes or
//! hangs on texts it cannot read, so a writer refuses them instead of writing them.

use core::fmt;
use perf_abi::record_fields::MAX_RECORD_SIZE;

/// Why a tracefs text is refused: the problem and the 1-based line it is on (0: the text as
/// a whole).
///
/// ```
/// use perf_encode::features::{check_format_text, FormatTextError, FormatTextProblem};
/// let err = check_format_text(b"name: x\nID: 70000\n").unwrap_err();
/// assert_eq!(err, FormatTextError { line: 2, problem: FormatTextProblem::IdOutOfRange });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatTextError {
    /// 1-based line of the problem; 0 when it concerns the whole text.
    pub line: u32,
    /// What is wrong.
    pub problem: FormatTextProblem,
}

/// What is wrong with a tracefs text (see [`FormatTextError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatTextProblem {
    /// A NUL byte (perf reads the texts as C strings).
    Nul,
    /// No `name:` line, or an empty name.
    MissingName,
    /// No `ID:` line.
    MissingId,
    /// The `ID:` is not a number from 0 to 65535 (the `u16` `common_type` of the records).
    IdOutOfRange,
    /// No `format:` line before the fields.
    MissingFormat,
    /// A line in the fields that is not `field:DECL; offset:N; size:N;[ signed:N;]`.
    BadField,
    /// An `offset`, `size`, `signed` or array length that is not a decimal number that fits
    /// a `u32`.
    BadNumber,
    /// A field that ends past the largest RAW payload a record can carry.
    FieldOutsideRecord,
    /// No `common_type` field of 2 bytes (perf finds a record's event by it).
    MissingCommonType,
    /// The fields are not two blocks each ended by an empty line (the common fields, then
    /// the event's own, possibly none), as tracefs writes them and perf's parser expects.
    FieldBlocks,
    /// No `print fmt:` line after the fields.
    MissingPrintFmt,
}

impl fmt::Display for FormatTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.problem {
            FormatTextProblem::Nul => "a NUL byte",
            FormatTextProblem::MissingName => "no `name:` line",
            FormatTextProblem::MissingId => "no `ID:` line",
            FormatTextProblem::IdOutOfRange => "the ID is not a number from 0 to 65535",
            FormatTextProblem::MissingFormat => "no `format:` line",
            FormatTextProblem::BadField => {
                "not a field line (`field:DECL; offset:N; size:N; signed:N;`)"
            }
            FormatTextProblem::BadNumber => "a number that is not decimal or does not fit a u32",
            FormatTextProblem::FieldOutsideRecord => {
                "a field that ends past the largest RAW payload (65528 bytes)"
            }
            FormatTextProblem::MissingCommonType => "no 2-byte `common_type` field",
            FormatTextProblem::FieldBlocks => {
                "the fields are not two blocks (common fields, the event's) each ended by an empty line"
            }
            FormatTextProblem::MissingPrintFmt => "no `print fmt:` line",
        };
        if self.line == 0 {
            write!(f, "tracefs text: {what}")
        } else {
            write!(f, "tracefs text, line {}: {what}", self.line)
        }
    }
}

impl core::error::Error for FormatTextError {}

/// One field of a format text, as [`check_format_text`] read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatField<'a> {
    /// The field's name (the last word of its declaration, without `[N]`).
    pub name: &'a [u8],
    /// Byte offset in the RAW payload.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// What [`check_format_text`] found in a valid format text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatSummary<'a> {
    /// The event's name.
    pub name: &'a [u8],
    /// The event's id (`common_type` of its records).
    pub id: u16,
    /// Where `common_type` is in the RAW payload.
    pub common_type_offset: u32,
    /// The end of the last field: the least RAW payload a record of this event holds.
    pub fields_end: u32,
}

/// Checks an event's tracefs `format` text as perf 6.1 will read it: `name:`, an `ID:` from 0
/// to 65535, `format:`, then two blocks of field lines each ended by an empty line (the
/// common fields, with a 2-byte `common_type`; the event's own, possibly none), with decimal
/// numbers that fit and every field within the largest RAW payload, then `print fmt:`.
/// Never panics.
///
/// ```
/// use perf_encode::features::check_format_text;
/// let text = b"name: tick\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:u64 n;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"n=%llu\", REC->n\n";
/// let s = check_format_text(text).unwrap();
/// assert_eq!((s.name, s.id, s.fields_end), (&b"tick"[..], 7, 16));
/// assert!(check_format_text(b"name: tick\nID: 7\n").is_err()); // no fields
/// ```
pub fn check_format_text(text: &[u8]) -> Result<FormatSummary<'_>, FormatTextError> {
    no_nul(text)?;
    let mut name = None;
    let mut id = None;
    let mut part = Part::Head;
    let mut common_type = None;
    let mut fields_end = 0u32;
    let mut line_no = 0u32;
    for line in text.split(|&b| b == b'\n') {
        line_no = line_no.saturating_add(1);
        let err = |problem| FormatTextError {
            line: line_no,
            problem,
        };
        let trimmed = trim(line);
        part = match (part, trimmed) {
            (Part::Head, t) if t.starts_with(b"name:") => {
                name = t.get(5..).map(trim).filter(|n| !n.is_empty());
                Part::Head
            }
            (Part::Head, t) if t.starts_with(b"ID:") => {
                let n = t.get(3..).map(trim).and_then(decimal);
                let n = n.and_then(|n| u16::try_from(n).ok());
                id = Some(n.ok_or(err(FormatTextProblem::IdOutOfRange))?);
                Part::Head
            }
            (Part::Head, b"format:") => Part::Common { fields: 0 },
            (Part::Head, _) => Part::Head,
            (Part::Common { fields: 0 }, b"") => return Err(err(FormatTextProblem::FieldBlocks)),
            (Part::Common { .. }, b"") => Part::Own,
            (Part::Own, b"") => Part::Tail,
            (Part::Common { .. } | Part::Own, t) if !t.starts_with(b"field:") => {
                return Err(err(FormatTextProblem::FieldBlocks))
            }
            (Part::Common { .. } | Part::Own, t) => {
                let field = field_line(t).map_err(err)?;
                let end = field
                    .offset
                    .checked_add(field.size)
                    .filter(|&e| e as usize <= MAX_RECORD_SIZE)
                    .ok_or(err(FormatTextProblem::FieldOutsideRecord))?;
                fields_end = fields_end.max(end);
                if field.name == b"common_type" && field.size == 2 {
                    common_type = Some(field.offset);
                }
                match part {
                    Part::Common { fields } => Part::Common {
                        fields: fields.saturating_add(1),
                    },
                    other => other,
                }
            }
            (Part::Tail, b"") => Part::Tail,
            (Part::Tail, t) if t.starts_with(b"print fmt:") => Part::Done,
            (Part::Tail, _) => return Err(err(FormatTextProblem::MissingPrintFmt)),
            (Part::Done, _) => Part::Done,
        };
    }
    let whole = |problem| FormatTextError { line: 0, problem };
    let name = name.ok_or(whole(FormatTextProblem::MissingName))?;
    let id = id.ok_or(whole(FormatTextProblem::MissingId))?;
    match part {
        Part::Head => return Err(whole(FormatTextProblem::MissingFormat)),
        Part::Common { .. } | Part::Own => return Err(whole(FormatTextProblem::FieldBlocks)),
        Part::Tail => return Err(whole(FormatTextProblem::MissingPrintFmt)),
        Part::Done => {}
    }
    let common_type_offset = common_type.ok_or(whole(FormatTextProblem::MissingCommonType))?;
    Ok(FormatSummary {
        name,
        id,
        common_type_offset,
        fields_end,
    })
}

/// Where [`check_format_text`] is in a format text.
#[derive(Clone, Copy)]
enum Part {
    /// `name:`, `ID:`, up to `format:`.
    Head,
    /// The common fields' block (this many so far).
    Common { fields: u32 },
    /// The event's own fields' block.
    Own,
    /// After the fields, before `print fmt:`.
    Tail,
    /// `print fmt:` and what follows it.
    Done,
}

/// Checks a `header_page` text (the ring buffer page header perf decodes the data with):
/// only field lines, with decimal numbers that fit. perf 6.1 loops forever on some texts
/// that are not.
///
/// ```
/// use perf_encode::features::{check_header_page, tracing_data::DEFAULT_HEADER_PAGE};
/// assert!(check_header_page(DEFAULT_HEADER_PAGE).is_ok());
/// assert!(check_header_page(b"0123456789").is_err());
/// ```
pub fn check_header_page(text: &[u8]) -> Result<(), FormatTextError> {
    no_nul(text)?;
    let mut line_no = 0u32;
    let mut fields = 0usize;
    for line in text.split(|&b| b == b'\n') {
        line_no = line_no.saturating_add(1);
        let trimmed = trim(line);
        if trimmed.is_empty() {
            continue;
        }
        field_line(trimmed).map_err(|problem| FormatTextError {
            line: line_no,
            problem,
        })?;
        fields = fields.saturating_add(1);
    }
    if fields == 0 {
        return Err(FormatTextError {
            line: 0,
            problem: FormatTextProblem::BadField,
        });
    }
    Ok(())
}

fn no_nul(text: &[u8]) -> Result<(), FormatTextError> {
    match text.iter().position(|&b| b == 0) {
        None => Ok(()),
        Some(at) => {
            let before = text.get(..at).unwrap_or(&[]);
            let line = before.iter().filter(|&&b| b == b'\n').count();
            Err(FormatTextError {
                line: u32::try_from(line).unwrap_or(u32::MAX).saturating_add(1),
                problem: FormatTextProblem::Nul,
            })
        }
    }
}

/// `field:DECL;` then `offset:N;`, `size:N;` and optionally `signed:N;`, separated by
/// white space (tracefs puts tabs).
fn field_line(line: &[u8]) -> Result<FormatField<'_>, FormatTextProblem> {
    let mut parts = line
        .split(|&b| b == b';')
        .map(trim)
        .filter(|p| !p.is_empty());
    let decl = parts
        .next()
        .and_then(|p| p.strip_prefix(b"field:"))
        .ok_or(FormatTextProblem::BadField)?;
    let name = decl_name(decl)?;
    let mut number = |key: &[u8]| -> Result<u32, FormatTextProblem> {
        let value = parts
            .next()
            .and_then(|p| p.strip_prefix(key))
            .ok_or(FormatTextProblem::BadField)?;
        decimal(trim(value)).ok_or(FormatTextProblem::BadNumber)
    };
    let offset = number(b"offset:")?;
    let size = number(b"size:")?;
    match parts.next() {
        None => {}
        Some(p) => {
            let signed = p
                .strip_prefix(b"signed:")
                .ok_or(FormatTextProblem::BadField)?;
            decimal(trim(signed)).ok_or(FormatTextProblem::BadNumber)?;
        }
    }
    if parts.next().is_some() {
        return Err(FormatTextProblem::BadField);
    }
    Ok(FormatField { name, offset, size })
}

/// The name a declaration gives its field (`char comm[16]` → `comm`), checking any array
/// length.
fn decl_name(decl: &[u8]) -> Result<&[u8], FormatTextProblem> {
    let last = decl
        .rsplit(|b| b.is_ascii_whitespace() || *b == b'*')
        .find(|w| !w.is_empty())
        .ok_or(FormatTextProblem::BadField)?;
    let (name, array) = match last.iter().position(|&b| b == b'[') {
        Some(open) => (
            last.get(..open).unwrap_or(&[]),
            last.get(open..).unwrap_or(&[]),
        ),
        None => (last, &[][..]),
    };
    if !array.is_empty() {
        let len = array
            .strip_prefix(b"[")
            .and_then(|a| a.strip_suffix(b"]"))
            .ok_or(FormatTextProblem::BadField)?;
        // `char[]` of `__data_loc` has no length; others must be a number that fits.
        if !len.is_empty() {
            decimal(len).ok_or(FormatTextProblem::BadNumber)?;
        }
    }
    if name.is_empty() && array.is_empty() {
        return Err(FormatTextProblem::BadField);
    }
    Ok(name)
}

/// A decimal `u32` (no sign, at least one digit), `None` for anything else or overflow.
fn decimal(s: &[u8]) -> Option<u32> {
    if s.is_empty() {
        return None;
    }
    s.iter().try_fold(0u32, |n, &b| {
        let digit = u32::from(b.checked_sub(b'0').filter(|d| *d <= 9)?);
        n.checked_mul(10)?.checked_add(digit)
    })
}

fn trim(s: &[u8]) -> &[u8] {
    s.trim_ascii()
}

#[allow(clippy::unwrap_used)] // test helpers: a failed unwrap fails the test
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec::Vec;

    const SCHED_SWITCH: &[u8] = b"name: sched_switch\nID: 372\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\tfield:__data_loc char[] filename;\toffset:24;\tsize:4;\tsigned:0;\n\nprint fmt: \"prev_comm=%s\", REC->prev_comm\n";

    /// The same, with its own fields' block empty (tracefs writes events without fields so).
    const NO_OWN_FIELDS: &[u8] = b"name: tick\nID: 9\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\nprint fmt: \"tick\"\n";

    fn problem(text: &[u8]) -> FormatTextProblem {
        check_format_text(text).unwrap_err().problem
    }

    fn with(from: &str, to: &str) -> Vec<u8> {
        let s = core::str::from_utf8(SCHED_SWITCH).unwrap();
        assert!(s.contains(from), "{from}");
        s.replacen(from, to, 1).into_bytes()
    }

    #[test]
    fn an_event_without_fields_of_its_own_passes() {
        let s = check_format_text(NO_OWN_FIELDS).unwrap();
        assert_eq!((s.id, s.fields_end), (9, 2));
    }

    #[test]
    fn a_real_format_passes() {
        let s = check_format_text(SCHED_SWITCH).unwrap();
        assert_eq!(s.name, b"sched_switch");
        assert_eq!(s.id, 372);
        assert_eq!(s.common_type_offset, 0);
        assert_eq!(s.fields_end, 28);
    }

    #[test]
    fn every_problem_is_found() {
        use FormatTextProblem::*;
        assert_eq!(problem(&with("ID: 372", "ID: 65536")), IdOutOfRange);
        assert_eq!(problem(&with("ID: 372", "ID: 99999999999")), IdOutOfRange);
        assert_eq!(problem(&with("ID: 372", "ID: -1")), IdOutOfRange);
        assert_eq!(problem(&with("ID: 372\n", "")), MissingId);
        assert_eq!(problem(&with("name: sched_switch\n", "")), MissingName);
        assert_eq!(problem(&with("format:\n", "")), MissingFormat);
        assert_eq!(
            problem(&with("offset:8;", "offset:99999999999;")),
            BadNumber
        );
        assert_eq!(
            problem(&with("size:16;", "size:4294967295;")),
            FieldOutsideRecord
        );
        assert_eq!(
            problem(&with("offset:8;", "offset:65520;")),
            FieldOutsideRecord
        );
        assert_eq!(
            problem(&with("prev_comm[16]", "prev_comm[99999999999]")),
            BadNumber
        );
        assert_eq!(problem(&with("prev_comm[16]", "prev_comm[16")), BadField);
        assert_eq!(problem(&with("common_type;", "kind;")), MissingCommonType);
        assert_eq!(problem(&with("print fmt:", "print:")), MissingPrintFmt);
        // One block of fields only: perf 6.1 reads `print` where it wants `field`.
        assert_eq!(
            problem(&with(
                "signed:1;\n\n\tfield:char",
                "signed:1;\n\tfield:char"
            )),
            FieldBlocks
        );
        assert_eq!(problem(&with("format:\n", "format:\n\n")), FieldBlocks);
        let no_print = with("print fmt: \"prev_comm=%s\", REC->prev_comm\n", "");
        assert_eq!(problem(&no_print), MissingPrintFmt);
        assert_eq!(
            problem(&with("\tsize:4;\tsigned:1;", "\tsigned:1;")),
            BadField
        );
        assert_eq!(problem(&with("sched_switch\n", "sched\0switch\n")), Nul);
        assert_eq!(problem(b"name: x\nID: 7\n"), MissingFormat);
        assert_eq!(problem(b""), MissingName);
    }

    #[test]
    fn the_line_is_named() {
        let err = check_format_text(&with("offset:8;", "offset:x;")).unwrap_err();
        assert_eq!(err.line, 7);
        assert!(format!("{err}").contains("line 7"));
    }

    #[test]
    fn header_page() {
        let text = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
        assert_eq!(check_header_page(text), Ok(()));
        assert!(check_header_page(b"0123456789").is_err());
        assert!(check_header_page(b"").is_err());
        assert!(check_header_page(b"\tfield: u64 t;\toffset:0;\n").is_err());
    }
}
