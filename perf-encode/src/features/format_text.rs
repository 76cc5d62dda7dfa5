//! Checks of the tracefs texts that go into TRACING_DATA (an event's `format` file, the
//! `header_page` file), made before any parser reads them: perf 6.1's parser crashes or
//! hangs on texts it cannot read, and `tracepoint_decode` 0.5's overflows on numbers that do
//! not fit a `u32`, so a writer refuses them instead of writing them.

use crate::features::DynamicFields;
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
    /// A control byte other than tab and newline (tracefs writes none; a carriage return
    /// ends a line for one parser and not for another).
    ControlByte,
    /// The first line is not `name:` with a name of letters, digits and `_`.
    MissingName,
    /// The second line is not `ID:`.
    MissingId,
    /// The `ID:` is not a decimal number from 0 to 65535 (the `u16` `common_type` of the
    /// records; perf 6.1 crashes on larger ones).
    IdOutOfRange,
    /// The third line is not `format:`.
    MissingFormat,
    /// A line in the fields that is not `field:DECL; offset:N; size:N;[ signed:N;]` in
    /// ASCII, or a declaration without a name or with unbalanced brackets, or a 1-byte
    /// `struct` (tracepoint_decode 0.5's parser panics on it in a debug build).
    BadField,
    /// An `offset`, `size` or array length that is not a decimal number that fits a `u32`,
    /// or a `signed` that is not 0 or 1.
    BadNumber,
    /// An array length that does not divide the field's size into elements of at least
    /// one byte.
    ArrayLength,
    /// A field that ends past the largest RAW payload a record can carry.
    FieldOutsideRecord,
    /// No `common_type` field of 2 bytes among the common fields (perf finds a record's
    /// event by it).
    MissingCommonType,
    /// The fields are not two blocks each ended by an empty line (the common fields, then
    /// the event's own, possibly none), as tracefs writes them and perf's parser expects.
    FieldBlocks,
    /// No `print fmt:` line after the fields.
    MissingPrintFmt,
    /// Text after the `print fmt:` value (the parsers would read it as more properties).
    AfterPrintFmt,
    /// A `"` string in the `print fmt:` value that is not closed, or a `'` character not
    /// closed on its line (perf 6.1 hangs on it).
    PrintFmtQuote,
    /// A `REC->NAME` in the `print fmt:` value that names no field of the format, or a
    /// `__get_…(NAME)` whose field is not `__data_loc` or `__rel_loc` (perf 6.1 crashes on
    /// both).
    UnknownField,
    /// A common field whose declaration is more than type words, `*` and its name (with
    /// an array length): perf 6.1 crashes on such a `common_type`.
    CommonFieldDeclaration,
    /// A `__data_loc` or `__rel_loc` field that is not 4 bytes, or more than
    /// [`DynamicFields::MAX`] of them.
    DynamicField,
    /// A `header_page` whose fields are not `timestamp`, `commit`, optionally `overwrite`,
    /// then `data`, the fields perf's parser looks for (it loops forever on others).
    HeaderPageFields,
    /// A line of a kallsyms, printk-formats or saved-cmdlines text that is not in the form
    /// its file has (`ADDR TYPE NAME`, `ADDR : "FORMAT"`, `PID COMM`).
    BadLine,
}

impl FormatTextProblem {
    /// What the problem is, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Nul => "a NUL byte",
            Self::ControlByte => "a control byte other than tab and newline",
            Self::MissingName => "the first line is not `name: NAME` (letters, digits, `_`)",
            Self::MissingId => "the second line is not `ID: N`",
            Self::IdOutOfRange => "the ID is not a decimal number from 0 to 65535",
            Self::MissingFormat => "the third line is not `format:`",
            Self::BadField => "not a field line (`field:DECL NAME; offset:N; size:N; signed:N;`)",
            Self::BadNumber => {
                "a number that is not decimal or does not fit a u32, or a `signed` not 0 or 1"
            }
            Self::ArrayLength => "an array length that does not divide the field's size",
            Self::FieldOutsideRecord => {
                "a field that ends past the largest RAW payload (65528 bytes)"
            }
            Self::MissingCommonType => "no 2-byte `common_type` among the common fields",
            Self::FieldBlocks => {
                "the fields are not two blocks (common fields, the event's) each ended by an empty line"
            }
            Self::MissingPrintFmt => "no `print fmt:` line after the fields",
            Self::AfterPrintFmt => "text after the `print fmt:` value",
            Self::PrintFmtQuote => "an unclosed string or character in the `print fmt:` value",
            Self::UnknownField => {
                "the `print fmt:` value names a field the format has not (`REC->NAME`), or a field that is not dynamic in a `__get_…(NAME)`"
            }
            Self::CommonFieldDeclaration => {
                "a common field's declaration is not type words, `*` and a name"
            }
            Self::DynamicField => {
                "a __data_loc or __rel_loc field not of 4 bytes, or more than 16 of them"
            }
            Self::HeaderPageFields => {
                "the fields are not timestamp, commit, [overwrite,] data (perf would loop forever)"
            }
            Self::BadLine => "a line not in the form of its file",
        }
    }
}

impl fmt::Display for FormatTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.problem.describe();
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
    /// The field's name (the last word of its declaration outside brackets).
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
    /// The end of the last common field: the least RAW payload a record of this event holds.
    pub common_fields_end: u32,
    /// The end of the last field.
    pub fields_end: u32,
    /// The `__data_loc` and `__rel_loc` fields.
    pub dynamic: DynamicFields,
}

/// Checks an event's tracefs `format` text as perf 6.1 and `tracepoint_decode` 0.5 read it.
///
/// The rules are in the [module docs](crate::features#tracefs-texts). Never panics.
///
/// # Errors
///
/// A [`FormatTextError`] for the first rule broken, on its 1-based line (0 when the text
/// ends before the part the problem names, or for a missing `common_type`):
/// - [`Nul`](FormatTextProblem::Nul), [`ControlByte`](FormatTextProblem::ControlByte)
///   anywhere in the text (checked first);
/// - [`MissingName`](FormatTextProblem::MissingName),
///   [`MissingId`](FormatTextProblem::MissingId),
///   [`IdOutOfRange`](FormatTextProblem::IdOutOfRange),
///   [`MissingFormat`](FormatTextProblem::MissingFormat) on the first three lines;
/// - [`BadField`](FormatTextProblem::BadField), [`BadNumber`](FormatTextProblem::BadNumber),
///   [`ArrayLength`](FormatTextProblem::ArrayLength),
///   [`FieldOutsideRecord`](FormatTextProblem::FieldOutsideRecord),
///   [`CommonFieldDeclaration`](FormatTextProblem::CommonFieldDeclaration),
///   [`DynamicField`](FormatTextProblem::DynamicField) on a field line;
/// - [`FieldBlocks`](FormatTextProblem::FieldBlocks),
///   [`MissingCommonType`](FormatTextProblem::MissingCommonType) for the blocks of fields;
/// - [`MissingPrintFmt`](FormatTextProblem::MissingPrintFmt),
///   [`PrintFmtQuote`](FormatTextProblem::PrintFmtQuote),
///   [`UnknownField`](FormatTextProblem::UnknownField),
///   [`AfterPrintFmt`](FormatTextProblem::AfterPrintFmt) for the `print fmt:` value.
///
/// ```
/// use perf_encode::features::check_format_text;
/// let text = b"name: tick\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:u64 n;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"n=%llu\", REC->n\n";
/// let s = check_format_text(text).unwrap();
/// assert_eq!((s.name, s.id, s.common_fields_end, s.fields_end), (&b"tick"[..], 7, 2, 16));
/// assert!(check_format_text(b"name: tick\nID: 7\n").is_err()); // no fields
/// ```
pub fn check_format_text(text: &[u8]) -> Result<FormatSummary<'_>, FormatTextError> {
    plain_bytes(text)?;
    let mut name: &[u8] = &[];
    let mut id = 0u16;
    let mut part = Part::Name;
    let mut fields = Fields::default();
    let mut line_no = 0u32;
    let mut line_start = 0usize;
    // Where the field lines start (the line after `format:`).
    let mut fields_start = 0usize;
    for line in text.split(|&b| b == b'\n') {
        line_no = line_no.saturating_add(1);
        let err = |problem| FormatTextError {
            line: line_no,
            problem,
        };
        let this_line = line_start;
        let rest = text.get(line_start..).unwrap_or(&[]);
        line_start = line_start.saturating_add(line.len()).saturating_add(1);
        let t = trim(line);
        part = match part {
            Part::Name => {
                let value = t
                    .strip_prefix(b"name:")
                    .ok_or(err(FormatTextProblem::MissingName))?;
                name = event_name(value).map_err(err)?;
                Part::Id
            }
            Part::Id => {
                let value = t
                    .strip_prefix(b"ID:")
                    .ok_or(err(FormatTextProblem::MissingId))?;
                id = event_id(decimal(trim(value))).map_err(err)?;
                Part::Format
            }
            Part::Format if t == b"format:" => {
                fields_start = line_start;
                Part::Common
            }
            Part::Format => return Err(err(FormatTextProblem::MissingFormat)),
            // tracepoint_decode ends a block at an empty line only, perf also at one of
            // white space: refuse the ambiguity.
            Part::Common | Part::Own if t.is_empty() && !line.is_empty() => {
                return Err(err(FormatTextProblem::FieldBlocks))
            }
            Part::Common if t.is_empty() => {
                fields.end_common().map_err(err)?;
                Part::Own
            }
            Part::Own if t.is_empty() => Part::Tail,
            Part::Common | Part::Own if !t.starts_with(b"field:") => {
                return Err(err(FormatTextProblem::FieldBlocks))
            }
            Part::Common | Part::Own => {
                let (field, decl) = field_line(t).map_err(err)?;
                fields.add(field, decl).map_err(err)?;
                part
            }
            Part::Tail if t.is_empty() => Part::Tail,
            Part::Tail if t.starts_with(b"print fmt:") => {
                // The field lines were read: each is one again.
                let field_lines = text.get(fields_start..this_line).unwrap_or_default();
                let field_kind = |name: &[u8]| {
                    field_lines
                        .split(|&b| b == b'\n')
                        .filter_map(|l| field_line(trim(l)).ok())
                        .find(|(f, _)| f.name == name)
                        .map(|(f, decl)| dynamic_kind(decl).map(|_| f.offset))
                };
                let mut string = |offset| {
                    fields.dynamic.mark_string(offset);
                };
                print_fmt(rest, &field_kind, &mut string).map_err(|(lines, problem)| {
                    FormatTextError {
                        line: line_no.saturating_add(lines),
                        problem,
                    }
                })?;
                part = Part::Done;
                break;
            }
            Part::Tail => return Err(err(FormatTextProblem::MissingPrintFmt)),
            Part::Done => Part::Done,
        };
    }
    let whole = |problem| FormatTextError { line: 0, problem };
    match part {
        Part::Name => return Err(whole(FormatTextProblem::MissingName)),
        Part::Id => return Err(whole(FormatTextProblem::MissingId)),
        Part::Format => return Err(whole(FormatTextProblem::MissingFormat)),
        Part::Common | Part::Own => return Err(whole(FormatTextProblem::FieldBlocks)),
        Part::Tail => return Err(whole(FormatTextProblem::MissingPrintFmt)),
        Part::Done => {}
    }
    fields.summary(name, id).map_err(whole)
}

/// Checks a parsed tracepoint format as [`check_format_text`] checks its rendered text.
///
/// The text is the one `PerfEventFormat::write_to` renders; it is not rendered: the same
/// rules apply to the format's name, id, fields and print format.
///
/// # Errors
///
/// The [`FormatTextError`] [`check_format_text`] returns for the rendered text, its line a
/// line of that text; a format without common fields is
/// [`FieldBlocks`](FormatTextProblem::FieldBlocks).
///
/// ```
/// use perf_encode::features::{check_format_text, check_parsed_format};
/// use tracepoint_decode::PerfEventFormat;
/// let text = "name: tick\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:u64 n;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"n=%llu\", REC->n\n";
/// let format = PerfEventFormat::parse(true, "x", text).unwrap();
/// assert_eq!(check_parsed_format(&format), check_format_text(text.as_bytes()));
/// let wide = PerfEventFormat::parse(true, "x", &text.replace("ID: 7", "ID: 70000")).unwrap();
/// assert!(check_parsed_format(&wide).is_err()); // perf reads ids as u16
/// ```
#[cfg(feature = "tracepoint_decode")]
pub fn check_parsed_format(
    format: &tracepoint_decode::PerfEventFormat,
) -> Result<FormatSummary<'_>, FormatTextError> {
    let all = format.fields();
    let common = format.common_field_count().min(all.len());
    // The lines of the rendered text: `name:`, `ID:`, `format:`, the fields (an empty line
    // after the common ones, when there are some), an empty line, `print fmt:`.
    // (A name may hold line ends: tracepoint_decode reads a quoted one across lines.)
    let name_lines = memchr::memchr_iter(b'\n', format.name().as_bytes()).count();
    let field_line = |i: usize| {
        i.saturating_add(4)
            .saturating_add(name_lines)
            .saturating_add(usize::from(common > 0 && i >= common))
    };
    let print_line = field_line(all.len()).saturating_add(1);
    let at = |line: usize| {
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        move |problem| FormatTextError { line, problem }
    };
    // As in the text: bytes first, then the lines in order.
    plain_bytes_at(format.name().as_bytes(), 1)?;
    for (i, f) in all.iter().enumerate() {
        plain_bytes_at(f.field().as_bytes(), field_line(i))?;
    }
    plain_bytes_at(format.print_fmt().as_bytes(), print_line)?;
    let name = event_name(format.name().as_bytes()).map_err(at(1))?;
    let id = event_id(Some(format.id())).map_err(at(2))?;
    let mut fields = Fields::default();
    // The fields' names for the print format's references (formats have a few dozen
    // fields at most; past 64 a name is looked for by reading the declarations again).
    let mut names = [(&[][..], None); 64];
    for (i, f) in all.iter().enumerate() {
        if i == common && common > 0 {
            fields.end_common().map_err(at(field_line(i)))?;
        }
        let line = at(field_line(i));
        let decl = f.field().as_bytes();
        let field = field(decl, u32::from(f.offset()), u32::from(f.size())).map_err(line)?;
        if let Some(slot) = names.get_mut(i) {
            *slot = (field.name, dynamic_kind(decl).map(|_| field.offset));
        }
        fields.add(field, decl).map_err(line)?;
    }
    if common == 0 {
        // Without common fields the text has no empty line before the one that ends the
        // fields: read as common fields, they are followed by `print fmt:` where a field
        // or the end of the second block belongs.
        let line = if all.is_empty() {
            field_line(0)
        } else {
            print_line
        };
        return Err(at(line)(FormatTextProblem::FieldBlocks));
    }
    if common == all.len() {
        fields.end_common().map_err(at(field_line(common)))?;
    }
    let field_kind = |name: &[u8]| match names.get(..all.len()) {
        Some(names) => names.iter().find(|(n, _)| *n == name).map(|&(_, d)| d),
        None => all.iter().find_map(|f| {
            let decl = f.field().as_bytes();
            let ok = field(decl, 0, u32::from(f.size())).is_ok_and(|f| f.name == name);
            ok.then(|| dynamic_kind(decl).map(|_| u32::from(f.offset())))
        }),
    };
    let mut string = |offset| {
        fields.dynamic.mark_string(offset);
    };
    print_fmt(format.print_fmt().as_bytes(), &field_kind, &mut string).map_err(
        |(lines, problem)| FormatTextError {
            line: u32::try_from(print_line)
                .unwrap_or(u32::MAX)
                .saturating_add(lines),
            problem,
        },
    )?;
    fields.summary(name, id).map_err(at(0))
}

/// [`plain_bytes`] of a part of a text that starts on line `line`.
#[cfg(feature = "tracepoint_decode")]
fn plain_bytes_at(part: &[u8], line: usize) -> Result<(), FormatTextError> {
    plain_bytes(part).map_err(|e| FormatTextError {
        line: e
            .line
            .saturating_add(u32::try_from(line).unwrap_or(u32::MAX))
            .saturating_sub(1),
        problem: e.problem,
    })
}

/// Where [`check_format_text`] is in a format text: the line it expects next.
#[derive(Clone, Copy)]
enum Part {
    /// `name:`.
    Name,
    /// `ID:`.
    Id,
    /// `format:`.
    Format,
    /// The common fields' block.
    Common,
    /// The event's own fields' block.
    Own,
    /// After the fields, before `print fmt:`.
    Tail,
    /// `print fmt:` was read to the end.
    Done,
}

// The rules of a format's parts, whichever way they arrive: `check_format_text` reads the
// parts from the lines of a text, `check_parsed_format` from a parsed format (whose text is
// what `PerfEventFormat::write_to` renders). Both go through the functions below (to
// `Fields`), so a rule is written once.

/// An event's name: letters, digits and `_` (white space around it is dropped).
fn event_name(value: &[u8]) -> Result<&[u8], FormatTextProblem> {
    let name = trim(value);
    if name.is_empty() || !name.iter().all(|&b| is_ident(b)) {
        return Err(FormatTextProblem::MissingName);
    }
    Ok(name)
}

/// An event's id (`None`: not a number that fits a `u32`) as the `u16` `common_type` of
/// its records.
fn event_id(id: Option<u32>) -> Result<u16, FormatTextProblem> {
    id.and_then(|n| u16::try_from(n).ok())
        .ok_or(FormatTextProblem::IdOutOfRange)
}

/// A field from its declaration (what follows `field:`, up to its `;`), offset and size.
/// The declaration is ASCII (tracepoint_decode 0.5 slices declarations at byte positions
/// that may fall inside a multi-byte character; tracefs writes ASCII) and holds no `;` or
/// line end (in a text they end it).
fn field<'a>(decl: &'a [u8], offset: u32, size: u32) -> Result<FormatField<'a>, FormatTextProblem> {
    let seen = decl.iter().fold(0u8, |seen, &b| {
        seen | DECL_BYTES.get(usize::from(b)).copied().unwrap_or(0)
    });
    if seen & ENDS_DECL != 0 {
        return Err(FormatTextProblem::BadField);
    }
    let name = decl_name(trim(decl), size, seen)?;
    if one_byte_struct(decl, size) {
        return Err(FormatTextProblem::BadField);
    }
    Ok(FormatField { name, offset, size })
}

/// A 1-byte field tracepoint_decode 0.5 reads as a struct (the word `struct`, no `*`,
/// before any `[`): its parser fails a debug assertion on it (a panic in a debug build).
fn one_byte_struct(decl: &[u8], size: u32) -> bool {
    if size != 1 {
        return false;
    }
    let head = decl.split(|&b| b == b'[').next().unwrap_or_default();
    !head.contains(&b'*') && head.split(|&b| !is_ident(b)).any(|w| w == b"struct")
}

/// A byte that cannot be in a declaration: not ASCII, `;`, a line end.
const ENDS_DECL: u8 = 1;
/// `"` or `'`.
const QUOTE: u8 = 2;
/// `[` or `]`.
const BRACKET: u8 = 4;

/// What each byte is to a declaration ([`ENDS_DECL`], [`QUOTE`], [`BRACKET`]).
#[allow(clippy::indexing_slicing)] // evaluated when compiled: an index out of range fails the build
const DECL_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0x80;
    while b < 256 {
        t[b] = ENDS_DECL;
        b += 1;
    }
    t[b';' as usize] = ENDS_DECL;
    t[b'\n' as usize] = ENDS_DECL;
    t[b'"' as usize] = QUOTE;
    t[b'\'' as usize] = QUOTE;
    t[b'[' as usize] = BRACKET;
    t[b']' as usize] = BRACKET;
    t
};

/// Whether a declaration makes its field dynamic, as perf 6.1 decides it (by the prefix of
/// the declaration, trimmed as a text's is read): `Some(false)` for `__data_loc`,
/// `Some(true)` for `__rel_loc` (its offset counts from the end of the field).
fn dynamic_kind(decl: &[u8]) -> Option<bool> {
    let decl = trim(decl);
    if decl.starts_with(b"__data_loc") {
        Some(false)
    } else if decl.starts_with(b"__rel_loc") {
        Some(true)
    } else {
        None
    }
}

/// A declaration of type words, `*` and a name, outside its brackets (`unsigned short
/// common_type`, `char comm[16]`).
fn plain_declaration(decl: &[u8]) -> bool {
    let mut depth = 0u32;
    decl.iter().all(|&b| match b {
        b'[' => {
            depth = depth.saturating_add(1);
            true
        }
        b']' => {
            depth = depth.saturating_sub(1);
            true
        }
        _ => depth > 0 || is_ident(b) || matches!(b, b' ' | b'\t' | b'*'),
    })
}

/// The fields of a format as they are added, common ones first: where `common_type` is
/// and where the common fields and all fields end.
#[derive(Default)]
struct Fields {
    /// Fields of the common block.
    common_fields: u32,
    /// The common block ended: fields added now are the event's own.
    common_ended: bool,
    /// Where the 2-byte `common_type` is, once seen among the common fields.
    common_type: Option<u32>,
    common_fields_end: u32,
    fields_end: u32,
    dynamic: DynamicFields,
}

impl Fields {
    /// Adds a field of the current block (`decl` its declaration): every field lies within
    /// the largest RAW payload; a common field's declaration is plain.
    fn add(&mut self, field: FormatField<'_>, decl: &[u8]) -> Result<(), FormatTextProblem> {
        let end = field_end(&field)?;
        if !self.common_ended && !plain_declaration(decl) {
            return Err(FormatTextProblem::CommonFieldDeclaration);
        }
        if let Some(relative) = dynamic_kind(decl) {
            if field.size != 4 || !self.dynamic.push(field.offset, relative) {
                return Err(FormatTextProblem::DynamicField);
            }
        }
        self.fields_end = self.fields_end.max(end);
        if !self.common_ended {
            self.common_fields = self.common_fields.saturating_add(1);
            self.common_fields_end = self.common_fields_end.max(end);
            if field.name == b"common_type" && field.size == 2 {
                self.common_type = Some(field.offset);
            }
        }
        Ok(())
    }

    /// Ends the common fields' block, which holds at least one field.
    fn end_common(&mut self) -> Result<(), FormatTextProblem> {
        if self.common_fields == 0 {
            return Err(FormatTextProblem::FieldBlocks);
        }
        self.common_ended = true;
        Ok(())
    }

    /// What the fields say, once all were added: a 2-byte `common_type` is among the
    /// common fields.
    fn summary(self, name: &[u8], id: u16) -> Result<FormatSummary<'_>, FormatTextProblem> {
        Ok(FormatSummary {
            name,
            id,
            common_type_offset: self
                .common_type
                .ok_or(FormatTextProblem::MissingCommonType)?,
            common_fields_end: self.common_fields_end,
            fields_end: self.fields_end,
            dynamic: self.dynamic,
        })
    }
}

/// Checks the text from the `print fmt:` line on: its value ends at the first newline
/// outside a `"` string (strings may span lines, as some kernels' formats do; `\`
/// escapes the next byte), after which only white space may follow. A `'` character is
/// closed on its line (perf 6.1 hangs on one that is not). Every `REC->NAME` outside
/// strings names a field, and every `__get_…(NAME)` a dynamic one (`field_kind`). The error gives the line relative to the `print
/// fmt:` line (for an unclosed string, the line it opens on).
fn print_fmt(
    rest: &[u8],
    field_kind: FieldKind<'_>,
    string: &mut dyn FnMut(u32),
) -> Result<(), (u32, FormatTextProblem)> {
    let lines_in = |bytes: &[u8]| u32::try_from(memchr::memchr_iter(b'\n', bytes).count());
    let lines_in = |bytes: &[u8]| lines_in(bytes).unwrap_or(u32::MAX);
    let line_of = |at: usize| lines_in(rest.get(..at).unwrap_or_default());
    // Outside a string or character: its field references are checked, on to the next
    // quote or line end. Inside: on to the closing quote, a `\` taking the byte after it; a
    // string may span lines, a character may not.
    let mut at = 0usize;
    let end = loop {
        let outside = rest.get(at..).unwrap_or_default();
        let found = memchr::memchr3(b'"', b'\'', b'\n', outside);
        let code = outside
            .get(..found.unwrap_or(outside.len()))
            .unwrap_or_default();
        if let Some(k) = unknown_field(code, field_kind, string) {
            return Err((
                line_of(at.saturating_add(k)),
                FormatTextProblem::UnknownField,
            ));
        }
        let Some(k) = found else {
            break None;
        };
        let open = at.saturating_add(k);
        let quote = match rest.get(open) {
            Some(&b'"') => b'"',
            Some(&b'\'') => b'\'',
            _ => break Some(open),
        };
        let unclosed = || Err((line_of(open), FormatTextProblem::PrintFmtQuote));
        at = open.saturating_add(1);
        loop {
            let inside = rest.get(at..).unwrap_or_default();
            let found = match quote {
                b'"' => memchr::memchr2(b'"', b'\\', inside),
                _ => memchr::memchr3(b'\'', b'\\', b'\n', inside),
            };
            let Some(k) = found else {
                return unclosed();
            };
            let found = at.saturating_add(k);
            match rest.get(found) {
                // perf 6.1 closes no quote that follows a `\`, escaped or not (`"a\\"`
                // never ends for it: it hangs).
                Some(&b)
                    if b == quote
                        && found.checked_sub(1).and_then(|p| rest.get(p)) == Some(&b'\\') =>
                {
                    return unclosed();
                }
                Some(&b) if b == quote => {
                    at = found.saturating_add(1);
                    break;
                }
                Some(&b'\n') => return unclosed(),
                _ => {}
            }
            // The escaped byte (a string that ends here is unclosed; a character ends at a
            // line end, escaped or not).
            at = found.saturating_add(2);
            if at > rest.len() || (quote == b'\'' && rest.get(at.saturating_sub(1)) == Some(&b'\n'))
            {
                return unclosed();
            }
        }
    };
    let after = end.and_then(|e| rest.get(e..)).unwrap_or(&[]);
    match after.iter().position(|b| !b.is_ascii_whitespace()) {
        None => Ok(()),
        Some(at) => {
            // Lines up to and with the one the value ends on, then to the text after it.
            let lines = match end {
                Some(e) => lines_in(rest.get(..=e).unwrap_or_default()),
                None => lines_in(rest),
            };
            let more = lines_in(after.get(..at).unwrap_or(&[]));
            Err((
                lines.saturating_sub(1).saturating_add(more),
                FormatTextProblem::AfterPrintFmt,
            ))
        }
    }
}

/// What the print format may know of a field by its name: `None`, no such field;
/// `Some(Some(offset))`, a `__data_loc` or `__rel_loc` one at `offset`.
type FieldKind<'f> = &'f dyn Fn(&[u8]) -> Option<Option<u32>>;

/// Where in `code` (print-format text outside strings) a field reference is wrong: a `REC->NAME`
/// (white space allowed around `->`, as perf reads it) that names no field, or a
/// `__get_…(NAME)` whose field is no `__data_loc` or `__rel_loc` (perf reads any field given
/// to them as dynamic). perf 6.1 crashes on both. `string` gets the offset of each field
/// given to `__get_str` or `__get_rel_str`, which perf prints up to its first NUL.
fn unknown_field(
    code: &[u8],
    field_kind: FieldKind<'_>,
    string: &mut dyn FnMut(u32),
) -> Option<usize> {
    let word = |at: usize| {
        let rest = code.get(at..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|&b| !is_ident(b))
            .unwrap_or(rest.len());
        rest.get(..len).unwrap_or_default()
    };
    let skip_space = |at: usize| {
        let rest = code.get(at..).unwrap_or_default();
        at.saturating_add(rest.iter().take_while(|b| b.is_ascii_whitespace()).count())
    };
    // Only words that start with `R` or `_` can be `REC` or `__get_…`.
    let mut at = 0usize;
    while let Some(k) = memchr::memchr2(b'R', b'_', code.get(at..).unwrap_or_default()) {
        let start = at.saturating_add(k);
        at = start.saturating_add(1);
        let before = start.checked_sub(1).and_then(|b| code.get(b));
        if before.is_some_and(|&b| is_ident(b)) {
            continue; // inside a word
        }
        let w = word(start);
        at = start.saturating_add(w.len()).max(at);
        let next = skip_space(at);
        let wrong = if w == b"REC" {
            match code.get(next..).and_then(|r| r.strip_prefix(b"->")) {
                Some(_) => field_kind(word(skip_space(next.saturating_add(2)))).is_none(),
                None => false,
            }
        } else if w.starts_with(b"__get_") && code.get(next) == Some(&b'(') {
            match field_kind(word(skip_space(next.saturating_add(1)))) {
                Some(Some(offset)) => {
                    if w == b"__get_str" || w == b"__get_rel_str" {
                        string(offset);
                    }
                    false
                }
                _ => true,
            }
        } else {
            false
        };
        if wrong {
            return Some(start);
        }
    }
    None
}

/// The end of a field, if it lies within the largest RAW payload.
fn field_end(field: &FormatField<'_>) -> Result<u32, FormatTextProblem> {
    field
        .offset
        .checked_add(field.size)
        .filter(|&e| e as usize <= MAX_RECORD_SIZE)
        .ok_or(FormatTextProblem::FieldOutsideRecord)
}

/// Checks a `header_page` text, the ring buffer page header perf decodes the data with.
///
/// The rules are in the [module docs](crate::features#tracefs-texts).
///
/// # Errors
///
/// A [`FormatTextError`] for the first rule broken:
/// - [`Nul`](FormatTextProblem::Nul), [`ControlByte`](FormatTextProblem::ControlByte) on
///   the line of the first such byte;
/// - [`BadField`](FormatTextProblem::BadField), [`BadNumber`](FormatTextProblem::BadNumber),
///   [`ArrayLength`](FormatTextProblem::ArrayLength) on a line that is not a field line;
/// - [`HeaderPageFields`](FormatTextProblem::HeaderPageFields) on the first field out of
///   order, or on line 0 when `data` (or a field before it) is missing.
///
/// ```
/// use perf_encode::features::{check_header_page, tracing_data::DEFAULT_HEADER_PAGE};
/// assert!(check_header_page(DEFAULT_HEADER_PAGE).is_ok());
/// assert!(check_header_page(b"0123456789").is_err());
/// ```
pub fn check_header_page(text: &[u8]) -> Result<(), FormatTextError> {
    plain_bytes(text)?;
    const ORDER: [&[u8]; 4] = [b"timestamp", b"commit", b"overwrite", b"data"];
    let mut next = 0usize;
    let mut line_no = 0u32;
    for line in text.split(|&b| b == b'\n') {
        line_no = line_no.saturating_add(1);
        let err = |problem| FormatTextError {
            line: line_no,
            problem,
        };
        let trimmed = trim(line);
        if trimmed.is_empty() {
            continue;
        }
        let (field, _) = field_line(trimmed).map_err(err)?;
        // `overwrite` (index 2) may be left out.
        let found = ORDER
            .iter()
            .enumerate()
            .skip(next)
            .take(if next == 2 { 2 } else { 1 })
            .find(|(_, n)| **n == field.name)
            .map(|(i, _)| i)
            .ok_or(err(FormatTextProblem::HeaderPageFields))?;
        next = found.saturating_add(1);
    }
    if next != ORDER.len() {
        return Err(FormatTextError {
            line: 0,
            problem: FormatTextProblem::HeaderPageFields,
        });
    }
    Ok(())
}

/// Refuses a NUL, and control bytes other than tab and newline.
pub(crate) fn plain_bytes(text: &[u8]) -> Result<(), FormatTextError> {
    // Without branches, so that the loop below is a vector loop.
    let bad = |b: &u8| (*b < 0x20) & (*b != b'\t') & (*b != b'\n') | (*b == 0x7f);
    // Over every byte without stopping (the compiler makes it a vector loop); the place of
    // a bad byte is looked for only when there is one.
    if !text.iter().fold(false, |any, b| any | bad(b)) {
        return Ok(());
    }
    match text.iter().position(bad) {
        None => Ok(()),
        Some(at) => {
            let before = text.get(..at).unwrap_or(&[]);
            let line = before.iter().filter(|&&b| b == b'\n').count();
            let problem = if text.get(at) == Some(&0) {
                FormatTextProblem::Nul
            } else {
                FormatTextProblem::ControlByte
            };
            Err(FormatTextError {
                line: u32::try_from(line).unwrap_or(u32::MAX).saturating_add(1),
                problem,
            })
        }
    }
}

/// `field:DECL;` then `offset:N;`, `size:N;` and optionally `signed:0|1;`, separated by
/// white space (tracefs puts tabs), in ASCII, each part ended by its `;`.
fn field_line(line: &[u8]) -> Result<(FormatField<'_>, &[u8]), FormatTextProblem> {
    // tracepoint_decode takes a number only when a `;` follows it.
    if !line.ends_with(b";") {
        return Err(FormatTextProblem::BadField);
    }
    let mut parts = line
        .split(|&b| b == b';')
        .map(trim)
        .filter(|p| !p.is_empty());
    let decl = parts
        .next()
        .and_then(|p| p.strip_prefix(b"field:"))
        .ok_or(FormatTextProblem::BadField)?;
    let mut number = |key: &[u8]| -> Result<u32, FormatTextProblem> {
        let value = parts
            .next()
            .and_then(|p| p.strip_prefix(key))
            .ok_or(FormatTextProblem::BadField)?;
        decimal(trim(value)).ok_or(FormatTextProblem::BadNumber)
    };
    let offset = number(b"offset:")?;
    let size = number(b"size:")?;
    let field = field(decl, offset, size)?;
    match parts.next() {
        None => {}
        Some(p) => {
            let signed = p
                .strip_prefix(b"signed:")
                .ok_or(FormatTextProblem::BadField)?;
            if !matches!(trim(signed), b"0" | b"1") {
                return Err(FormatTextProblem::BadNumber);
            }
        }
    }
    if parts.next().is_some() {
        return Err(FormatTextProblem::BadField);
    }
    Ok((field, decl))
}

/// The name a declaration gives its field (`char comm[16]` → `comm`, `__data_loc char[]
/// name` → `name`): its last word outside brackets. Every `[..]` holds nothing, a decimal
/// length that divides `size`, or an expression that does not start with a digit
/// (`[sizeof(struct sockaddr_in6)]`).
///
/// `seen`: the [`DECL_BYTES`] classes of its bytes, or-ed.
fn decl_name(decl: &[u8], size: u32, seen: u8) -> Result<&[u8], FormatTextProblem> {
    if seen & QUOTE != 0 {
        return Err(FormatTextProblem::BadField);
    }
    if seen & BRACKET == 0 {
        // No brackets: the name is the last word.
        let end = decl
            .iter()
            .rposition(|&b| is_ident(b))
            .map_or(0, |e| e.saturating_add(1));
        let before = decl.get(..end).unwrap_or_default();
        let start = before
            .iter()
            .rposition(|&b| !is_ident(b))
            .map_or(0, |s| s.saturating_add(1));
        return word_name(before.get(start..).unwrap_or_default());
    }
    // One pass: the word being read and the last one ended, outside brackets; where the
    // open bracket's contents start, inside.
    let mut word_start = None;
    let mut last_word = 0..0;
    let mut bracket = None;
    for (i, &b) in decl.iter().enumerate() {
        match bracket {
            None if is_ident(b) => {
                word_start.get_or_insert(i);
                continue;
            }
            None if b == b']' => return Err(FormatTextProblem::BadField),
            None if b == b'[' => bracket = Some(i.saturating_add(1)),
            None => {}
            Some(_) if b == b'[' => return Err(FormatTextProblem::BadField),
            Some(start) if b == b']' => {
                array_length(decl.get(start..i).unwrap_or_default(), size)?;
                bracket = None;
            }
            Some(_) => {}
        }
        if let Some(w) = word_start.take() {
            last_word = w..i;
        }
    }
    if bracket.is_some() {
        return Err(FormatTextProblem::BadField);
    }
    if let Some(w) = word_start {
        last_word = w..decl.len();
    }
    word_name(decl.get(last_word).unwrap_or_default())
}

/// The last word of a declaration as its field's name: there is one, and it does not start
/// with a digit.
fn word_name(word: &[u8]) -> Result<&[u8], FormatTextProblem> {
    if word.is_empty() || word.first().is_some_and(u8::is_ascii_digit) {
        return Err(FormatTextProblem::BadField);
    }
    Ok(word)
}

/// Checks what is between `[` and `]`.
fn array_length(inside: &[u8], size: u32) -> Result<(), FormatTextProblem> {
    let inside = inside.trim_ascii_start();
    if !inside.first().is_some_and(u8::is_ascii_digit) {
        return Ok(()); // `[]`, or an expression tracefs left as written
    }
    let n = decimal(inside.trim_ascii_end()).ok_or(FormatTextProblem::BadNumber)?;
    if n != 0 && (size < n || size.checked_rem(n) != Some(0)) {
        return Err(FormatTextProblem::ArrayLength);
    }
    Ok(())
}

fn is_ident(b: u8) -> bool {
    matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
}

/// A decimal `u32` (no sign, at least one digit), `None` for anything else or overflow.
pub(crate) fn decimal(s: &[u8]) -> Option<u32> {
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

#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)] // test code: a failed unwrap or index fails the test
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
        assert_eq!(s.dynamic.iter().collect::<Vec<_>>(), [(24, false)]);
    }

    /// The print format's rule byte by byte, as a state machine: the model the scan of
    /// [`print_fmt`] (which jumps from quote to quote) is held to.
    fn print_fmt_model(rest: &[u8]) -> Result<(), (u32, FormatTextProblem)> {
        let (mut lines, mut in_string, mut escaped, mut end) = (0u32, None, false, None);
        let mut opened_on = 0u32;
        for (i, &b) in rest.iter().enumerate() {
            if b == b'\n' {
                lines += 1;
            }
            if let Some(quote) = in_string {
                let after_backslash = i > 0 && rest[i - 1] == b'\\';
                match (escaped, b) {
                    (_, b'\n') if quote == b'\'' => {
                        return Err((opened_on, FormatTextProblem::PrintFmtQuote))
                    }
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b) if b == quote && after_backslash => {
                        return Err((opened_on, FormatTextProblem::PrintFmtQuote))
                    }
                    (false, b) if b == quote => in_string = None,
                    _ => {}
                }
            } else if b == b'"' || b == b'\'' {
                in_string = Some(b);
                opened_on = lines;
            } else if b == b'\n' {
                end = Some(i);
                break;
            }
        }
        if in_string.is_some() {
            return Err((opened_on, FormatTextProblem::PrintFmtQuote));
        }
        let after = end.map_or(&[][..], |e| &rest[e..]);
        match after.iter().position(|b| !b.is_ascii_whitespace()) {
            None => Ok(()),
            Some(at) => {
                let more = after[..at].iter().filter(|&&b| b == b'\n').count() as u32;
                Err((
                    lines.saturating_sub(1) + more,
                    FormatTextProblem::AfterPrintFmt,
                ))
            }
        }
    }

    /// A parsed format is judged as the text `write_to` renders of it: same summary, or
    /// same problem on the same line. Over the tests' texts, tracefs's sched_switch, and
    /// 20,000 edits of them in the grammar's own characters (numbers in field lines kept
    /// below 5 digits: tracepoint_decode's parser overflows on larger ones, and panics on
    /// non-ASCII declarations, so neither can be in a parsed format).
    #[cfg(feature = "tracepoint_decode")]
    #[test]
    fn a_parsed_format_is_judged_as_its_rendered_text() {
        use alloc::string::String;
        use tracepoint_decode::PerfEventFormat;
        const PIECES: &[&str] = &[
            "\n",
            "\t",
            " ",
            ";",
            ":",
            "[",
            "]",
            "\"",
            "\\",
            "field:",
            "offset:",
            "size:",
            "signed:",
            "0",
            "1",
            "8",
            "16",
            "common_type",
            "x",
            "print fmt:",
            "\x01",
            "\0",
            "70000",
            "name:",
            "ID:",
            "REC->",
            "'",
            "(",
        ];
        let real = include_str!("../../../tests/data/sched_switch.format");
        let mut bases: Vec<String> = [SCHED_SWITCH, NO_OWN_FIELDS, real.as_bytes()]
            .iter()
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect();
        for (from, to) in [
            ("ID: 372", "ID: 65536"),
            ("common_type;", "kind;"),
            ("prev_comm[16]", "prev_comm[5]"),
            ("signed:1;\n\n\tfield:char", "signed:1;\n\tfield:char"),
            ("format:\n", "format:\n\n"),
            ("\"prev_comm=%s\"", "\"prev_comm:\n%s"),
            ("sched_switch", "sched switch"),
        ] {
            bases.push(String::from_utf8(with(from, to)).unwrap());
        }
        // A declaration that is only `__data_loc ` (no name; the parsed format keeps the
        // space, the text's reading drops it).
        bases.push(String::from_utf8(with("char prev_comm[16]", "__data_loc ")).unwrap());
        // tracepoint_decode reads a quoted name across lines.
        bases.push(String::from(
            "name: a\"\n\"b\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:int x\x01;\toffset:4;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n",
        ));
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut compared, mut refused) = (0usize, 0usize);
        for round in 0..20_000 {
            let mut text = bases[round % bases.len()].clone();
            for _ in 0..1 + next() % 3 {
                let mut at = (next() as usize) % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + (next() as usize) % 4).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                let piece = PIECES[(next() as usize) % PIECES.len()];
                text.replace_range(at..end, if next() % 4 == 0 { "" } else { piece });
            }
            // tracepoint_decode adds the last common field's offset and size as u16s.
            let digits = |line: &str, n: usize| {
                line.as_bytes()
                    .windows(n)
                    .any(|w| w.iter().all(u8::is_ascii_digit))
            };
            if text
                .lines()
                .any(|l| digits(l, 10) || (digits(l, 5) && !l.starts_with("ID:")))
            {
                continue;
            }
            let Some(format) = PerfEventFormat::parse(true, "sys", &text) else {
                continue;
            };
            let mut rendered = String::new();
            format.write_to(&mut rendered).unwrap();
            let want = check_format_text(rendered.as_bytes());
            assert_eq!(check_parsed_format(&format), want, "{rendered:?}");
            compared += 1;
            refused += usize::from(want.is_err());
        }
        assert!(compared > 5_000 && refused > 1_000, "{compared} {refused}");
    }

    /// The declaration rule segment by segment: the model the one pass of [`decl_name`] is
    /// held to.
    fn decl_name_model(decl: &[u8], size: u32) -> Result<&[u8], FormatTextProblem> {
        if decl.iter().any(|&b| b == b'"' || b == b'\'') {
            return Err(FormatTextProblem::BadField);
        }
        let mut rest = decl;
        let mut last_word: &[u8] = &[];
        loop {
            let (outside, after) = match rest.iter().position(|&b| b == b'[') {
                Some(open) => (&rest[..open], Some(&rest[open + 1..])),
                None => (rest, None),
            };
            if outside.contains(&b']') {
                return Err(FormatTextProblem::BadField);
            }
            if let Some(w) = outside.rsplit(|b| !is_ident(*b)).find(|w| !w.is_empty()) {
                last_word = w;
            }
            let Some(after) = after else { break };
            let close = after
                .iter()
                .position(|&b| b == b']')
                .ok_or(FormatTextProblem::BadField)?;
            if after[..close].contains(&b'[') {
                return Err(FormatTextProblem::BadField);
            }
            array_length(&after[..close], size)?;
            rest = &after[close + 1..];
        }
        if last_word.is_empty() || last_word[0].is_ascii_digit() {
            return Err(FormatTextProblem::BadField);
        }
        Ok(last_word)
    }

    /// The next of a xorshift sequence, and a text of up to `max_len - 1` bytes of
    /// `alphabet` drawn from it.
    fn random_text(x: &mut u64, alphabet: &[u8], max_len: u64) -> Vec<u8> {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        let x = *x;
        (0..(x % max_len) as usize)
            .map(|i| alphabet[((x >> (i * 3 % 60)) as usize ^ i) % alphabet.len()])
            .collect()
    }

    #[test]
    fn the_declaration_scan_agrees_with_the_segment_rule() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut seen = [0usize; 2];
        for _ in 0..50_000 {
            let decl = random_text(&mut x, b"[]a_1 08(\"x", 14);
            let size = [0, 1, 8, 16][(x >> 60) as usize % 4];
            let want = decl_name_model(&decl, size);
            let classes = decl.iter().fold(0, |s, &b| s | DECL_BYTES[usize::from(b)]);
            assert_eq!(
                decl_name(&decl, size, classes),
                want,
                "{:?}",
                core::str::from_utf8(&decl)
            );
            seen[usize::from(want.is_ok())] += 1;
        }
        assert!(seen.iter().all(|&n| n > 2_000), "{seen:?}");
    }

    #[test]
    fn the_print_format_scan_agrees_with_the_byte_by_byte_rule() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut seen = [0usize; 3];
        for _ in 0..20_000 {
            let text = random_text(&mut x, b"\"\\\n a\t'", 24);
            let want = print_fmt_model(&text);
            assert_eq!(
                print_fmt(&text, &|_| Some(Some(0)), &mut |_| {}),
                want,
                "{:?}",
                core::str::from_utf8(&text)
            );
            seen[match want {
                Ok(()) => 0,
                Err((_, FormatTextProblem::PrintFmtQuote)) => 1,
                Err(_) => 2,
            }] += 1;
        }
        assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
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
            problem(&with("offset:24;\tsize:4;", "offset:24;\tsize:4294967295;")),
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
        // perf 6.1 crashes in `__print_flags` over a field the format has not, hangs on an unclosed `'`, crashes on a garbled `common_type`.
        assert_eq!(problem(&with("REC->prev_comm", "REC->nope")), UnknownField);
        let flags = with(
            "REC->prev_comm",
            "__print_flags(REC->nope, \"|\", {1, \"A\"})",
        );
        assert_eq!(check_format_text(&flags).unwrap_err().line, 10);
        assert_eq!(problem(&with(", REC->prev_comm", ", 'x")), PrintFmtQuote);
        assert_eq!(
            problem(&with(", REC->prev_comm", ", '\\\n'")),
            PrintFmtQuote
        );
        assert_eq!(
            problem(&with(
                "unsigned short common_type",
                "unsign(ed short common_type"
            )),
            CommonFieldDeclaration
        );
        // tracepoint_decode debug-asserts on a 1-byte struct.
        let one_byte = |decl: &str| {
            with(
                "int common_pid;\toffset:4;\tsize:4;",
                &format!("{decl};\toffset:4;\tsize:1;"),
            )
        };
        assert_eq!(problem(&one_byte("struct s common_pid")), BadField);
        assert_eq!(problem(&one_byte("const struct s common_pid")), BadField);
        assert!(check_format_text(&one_byte("struct s * common_pid")).is_ok());
        assert!(check_format_text(&one_byte("unsigned char common_pid")).is_ok());
        // A dynamic field is 4 bytes; at most 16 of them.
        assert_eq!(
            problem(&with("offset:24;\tsize:4;", "offset:24;\tsize:8;")),
            DynamicField
        );
        let rel = with("__data_loc char[] filename", "__rel_loc char[] filename");
        let s = check_format_text(&rel).unwrap();
        assert_eq!(s.dynamic.iter().collect::<Vec<_>>(), [(24, true)]);
        let many: alloc::string::String = (0..17)
            .map(|k| {
                format!(
                    "\tfield:__data_loc char[] d{k};\toffset:{};\tsize:4;\tsigned:0;\n",
                    28 + 4 * k
                )
            })
            .collect();
        let many = with("\n\nprint fmt:", &format!("\n{many}\nprint fmt:"));
        assert_eq!(problem(&many), DynamicField);
        // `REC ->` (perf reads white space around `->`), a `__get_str` of a field that is not dynamic, a quote after an escaped `\`.
        assert_eq!(problem(&with("REC->prev_comm", "REC ->nope")), UnknownField);
        assert_eq!(
            problem(&with("REC->prev_comm", "REC\t-> nope")),
            UnknownField
        );
        assert_eq!(
            problem(&with("REC->prev_comm", "__get_str(prev_comm)")),
            UnknownField
        );
        assert_eq!(
            problem(&with("REC->prev_comm", "__get_str(nope)")),
            UnknownField
        );
        assert!(check_format_text(&with("REC->prev_comm", "__get_str( filename )")).is_ok());
        assert!(check_format_text(&with("REC->prev_comm", "REC -> prev_comm")).is_ok());
        assert_eq!(
            problem(&with(", REC->prev_comm", ", '\\\\'")),
            PrintFmtQuote
        );
        assert_eq!(
            problem(&with("\"prev_comm=%s\"", "\"a\\\\\"")),
            PrintFmtQuote
        );
        assert!(check_format_text(&with(", REC->prev_comm", ", '\\''")).is_ok());
        // perf finds dynamic fields by prefix.
        let prefixed = with("__data_loc char[] filename", "__data_locx char[] filename");
        assert_eq!(
            check_format_text(&prefixed).unwrap().dynamic.iter().count(),
            1
        );
        // What real formats have: characters, a name ending in REC, pointers.
        for ok in [
            with(
                ", REC->prev_comm",
                ", REC->prev_comm, REC->filename ? 'R' : '\\''",
            ),
            with(", REC->prev_comm", ", XREC->nope, \"REC->nope\""),
            with("int common_pid", "const char * common_pid"),
        ] {
            assert!(
                check_format_text(&ok).is_ok(),
                "{:?}",
                core::str::from_utf8(&ok)
            );
        }
    }

    #[test]
    fn the_line_is_named() {
        let err = check_format_text(&with("offset:8;", "offset:x;")).unwrap_err();
        assert_eq!(err.line, 7);
        assert!(format!("{err}").contains("line 7"));
    }

    #[test]
    fn header_page() {
        let ts = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
        let commit = "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n";
        let overwrite = "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n";
        let data = "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
        let page = |parts: &[&str]| check_header_page(parts.concat().as_bytes());
        assert_eq!(page(&[ts, commit, overwrite, data]), Ok(()));
        assert_eq!(page(&[ts, commit, data]), Ok(()));
        let fields = |r: Result<(), FormatTextError>| r.unwrap_err().problem;
        use FormatTextProblem::HeaderPageFields;
        assert_eq!(fields(page(&[ts, data])), HeaderPageFields);
        assert_eq!(fields(page(&[commit, ts, data])), HeaderPageFields);
        assert_eq!(fields(page(&[ts, commit, overwrite])), HeaderPageFields);
        assert_eq!(fields(page(&[ts, commit, data, data])), HeaderPageFields);
        assert_eq!(fields(page(&[])), HeaderPageFields);
        assert!(check_header_page(b"0123456789").is_err());
        assert!(check_header_page(b"\tfield: u64 t;\toffset:0;\n").is_err());
    }

    #[test]
    fn numbers_hidden_in_declarations_and_text_after_print_fmt() {
        use FormatTextProblem::*;
        // tracepoint_decode reads the first `[..]` of a declaration, wherever it is.
        let hidden = with("char prev_comm[16]", "char prev_comm[99999999999] x");
        assert_eq!(problem(&hidden), BadNumber);
        assert_eq!(
            problem(&with("prev_comm[16]", "prev_comm[0x10]")),
            BadNumber
        );
        assert_eq!(
            problem(&with("prev_comm[16]", "prev_comm[32]")),
            ArrayLength
        );
        assert_eq!(problem(&with("prev_comm[16]", "prev_comm[5]")), ArrayLength);
        let expr = with("prev_comm[16]", "prev_comm[sizeof(struct sockaddr_in6)]");
        assert!(check_format_text(&expr).is_ok());
        assert_eq!(
            problem(&with("signed:1;", "signed:99999999999;")),
            BadNumber
        );
        assert_eq!(problem(&with("signed:1;", "signed:2;")), BadNumber);
        let mut after = SCHED_SWITCH.to_vec();
        after.extend_from_slice(b"ID: 99999999999\n");
        assert_eq!(problem(&after), AfterPrintFmt);
        assert_eq!(check_format_text(&after).unwrap_err().line, 11);
        // A string of the print format may span lines (ext4_fc_stats's does).
        let multi = with("\"prev_comm=%s\"", "\"prev_comm:\n%s\"");
        assert!(check_format_text(&multi).is_ok());
        let open = with("\"prev_comm=%s\"", "\"prev_comm:\n%s");
        assert_eq!(problem(&open), PrintFmtQuote);
        let escaped = with("\"prev_comm=%s\"", "\"a\\\"\nID: 1\"");
        assert!(check_format_text(&escaped).is_ok());
        assert_eq!(problem(&with("ID: 372\n", "ID: 372\r\n")), ControlByte);
        assert_eq!(
            problem(&with("name: sched_switch", "name: a b")),
            MissingName
        );
        // tracepoint_decode panics on a multi-byte character in a declaration.
        let non_ascii = with("prev_comm[16]", "prev\u{58f}comm[16]");
        assert_eq!(problem(&non_ascii), BadField);
        // A line of white space ends a block for perf, not for tracepoint_decode, which then reads the print format as fields.
        let spaces = with("signed:1;\n\n", "signed:1;\n\t\n");
        assert_eq!(problem(&spaces), FieldBlocks);
        // And: tracepoint_decode drops a field whose last number has no `;` after it.
        let open = with("size:2;\tsigned:0;", "size:2");
        assert_eq!(problem(&open), BadField);
        // common_type must be a common field.
        let moved = with(
            "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
            "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
        );
        assert_eq!(problem(&moved), MissingCommonType);
        let s = check_format_text(SCHED_SWITCH).unwrap();
        assert_eq!(s.common_fields_end, 8);
    }
}
