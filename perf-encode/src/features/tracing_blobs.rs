//! Checks of the plain-text parts of TRACING_DATA besides the formats: kallsyms, printk
//! formats and saved cmdlines, each in the form its tracefs or procfs file has, so that
//! perf 6.1's line parsers (which read them as C strings, `strtok` and `sscanf`) read what
//! the caller meant. Empty lines are allowed; every check refuses a NUL and control bytes
//! other than tab and newline.

use crate::features::format_text::{decimal, plain_bytes};
use crate::features::{FormatTextError, FormatTextProblem};

/// Checks an `events/header_event` text: only its bytes, as perf 6.1 reads it and skips it.
///
/// # Errors
///
/// [`FormatTextProblem::Nul`] or [`FormatTextProblem::ControlByte`] on the line of the
/// first NUL or control byte other than tab and newline.
///
/// ```
/// use perf_encode::features::{check_header_event, tracing_data::DEFAULT_HEADER_EVENT};
/// assert!(check_header_event(DEFAULT_HEADER_EVENT).is_ok());
/// assert!(check_header_event(b"a\0b").is_err());
/// ```
pub fn check_header_event(text: &[u8]) -> Result<(), FormatTextError> {
    plain_bytes(text)
}

/// Checks a `/proc/kallsyms` text: lines `ADDR TYPE NAME[\t[MODULE]]`, `ADDR` hexadecimal.
///
/// # Errors
///
/// - [`FormatTextProblem::Nul`] or [`FormatTextProblem::ControlByte`] on the line of the
///   first NUL or control byte other than tab and newline;
/// - else [`FormatTextProblem::BadLine`] on the first non-empty line that is not one
///   to 16 hexadecimal digits, a space, one printable character, a space and a name.
///
/// ```
/// use perf_encode::features::check_kallsyms;
/// assert!(check_kallsyms(b"ffffffff81000000 T _text\nffffffffc0000000 t f\t[mod]\n").is_ok());
/// assert!(check_kallsyms(b"0123456789").is_err());
/// ```
pub fn check_kallsyms(text: &[u8]) -> Result<(), FormatTextError> {
    each_line(text, |line| {
        let mut words = line.splitn(3, |&b| b == b' ');
        let addr = words.next().unwrap_or(&[]);
        let kind = words.next().unwrap_or(&[]);
        let name = words.next().unwrap_or(&[]);
        is_hex(addr) && kind.len() == 1 && kind.iter().all(u8::is_ascii_graphic) && !name.is_empty()
    })
}

/// Checks a `printk_formats` text: lines `ADDR : "FORMAT"`, `ADDR` hexadecimal.
///
/// # Errors
///
/// - [`FormatTextProblem::Nul`] or [`FormatTextProblem::ControlByte`] on the line of the
///   first NUL or control byte other than tab and newline;
/// - else [`FormatTextProblem::BadLine`] on the first non-empty line that is not 1 to 16
///   hexadecimal digits (after an optional `0x`), a colon and something after it.
///
/// ```
/// use perf_encode::features::check_printk;
/// assert!(check_printk(b"0xffffffff828125ac : \"thaw_processes\"\n").is_ok());
/// assert!(check_printk(b"no colon here\n").is_err());
/// ```
pub fn check_printk(text: &[u8]) -> Result<(), FormatTextError> {
    each_line(text, |line| match line.iter().position(|&b| b == b':') {
        Some(colon) => {
            let addr = line.get(..colon).unwrap_or(&[]).trim_ascii();
            let addr = addr.strip_prefix(b"0x").unwrap_or(addr);
            let rest = line.get(colon.saturating_add(1)..).unwrap_or(&[]);
            is_hex(addr) && !rest.trim_ascii().is_empty()
        }
        None => false,
    })
}

/// Checks a `saved_cmdlines` text: lines `PID COMM`, `PID` a decimal below 2^31.
///
/// # Errors
///
/// - [`FormatTextProblem::Nul`] or [`FormatTextProblem::ControlByte`] on the line of the
///   first NUL or control byte other than tab and newline;
/// - else [`FormatTextProblem::BadLine`] on the first non-empty line that is not a
///   decimal below 2^31, a space and a name.
///
/// ```
/// use perf_encode::features::check_saved_cmdlines;
/// assert!(check_saved_cmdlines(b"1 systemd\n42 kworker/0:1\n").is_ok());
/// assert!(check_saved_cmdlines(b"systemd 1\n").is_err());
/// ```
pub fn check_saved_cmdlines(text: &[u8]) -> Result<(), FormatTextError> {
    each_line(text, |line| match line.iter().position(|&b| b == b' ') {
        Some(space) => {
            let pid = decimal(line.get(..space).unwrap_or(&[]));
            let comm = line.get(space.saturating_add(1)..).unwrap_or(&[]);
            pid.is_some_and(|p| i32::try_from(p).is_ok()) && !comm.trim_ascii().is_empty()
        }
        None => false,
    })
}

/// Runs `good` on every non-empty line; the first it refuses is a `BadLine`.
fn each_line(text: &[u8], good: impl Fn(&[u8]) -> bool) -> Result<(), FormatTextError> {
    plain_bytes(text)?;
    let mut line_no = 0u32;
    for line in text.split(|&b| b == b'\n') {
        line_no = line_no.saturating_add(1);
        if !line.is_empty() && !good(line) {
            return Err(FormatTextError {
                line: line_no,
                problem: FormatTextProblem::BadLine,
            });
        }
    }
    Ok(())
}

/// 1 to 16 hexadecimal digits.
fn is_hex(s: &[u8]) -> bool {
    (1..=16).contains(&s.len()) && s.iter().all(u8::is_ascii_hexdigit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_judged_and_named() {
        assert_eq!(check_kallsyms(b""), Ok(()));
        let err = check_kallsyms(b"ffffffff81000000 T _text\nffff T\n").unwrap_err();
        assert_eq!((err.line, err.problem), (2, FormatTextProblem::BadLine));
        assert!(check_kallsyms(b"ffffffff81000000 TT x\n").is_err());
        assert!(check_printk(b"0x12 :\n").is_err());
        assert!(check_printk(b"zz : \"x\"\n").is_err());
        assert!(check_saved_cmdlines(b"4294967295 x\n").is_err());
        assert!(check_saved_cmdlines(b"1 \n").is_err());
        assert_eq!(
            check_saved_cmdlines(b"1 a\0b\n").unwrap_err().problem,
            FormatTextProblem::Nul
        );
    }
}
