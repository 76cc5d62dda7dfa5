//! Swaps fields as a table of [`Part`]s lays them out.

use crate::swap::cursor::Cursor;
use crate::swap::error::SwapError;
use perf_abi::field_widths::Part;

/// Swaps the fields `parts` lay out, from the cursor on. With `may_end_early`, the bytes
/// may end after any whole field of `parts`, or inside bytes kept as stored (perf ends an
/// AUXTRACE_ERROR after its message's NUL), not inside a number.
///
/// Every count is checked against the bytes left before its entries are walked, and each
/// entry passes at least one byte, so a count read from the input bounds no loop beyond
/// the input's length.
pub(crate) fn swap_parts(
    c: &mut Cursor<'_>,
    parts: &[Part],
    may_end_early: bool,
) -> Result<(), SwapError> {
    for part in parts {
        if may_end_early && c.rest() == 0 {
            return Ok(());
        }
        match *part {
            Part::U16(f) => c.number(2, f).map(drop)?,
            Part::U32(f) => c.number(4, f).map(drop)?,
            Part::U64(f) => c.number(8, f).map(drop)?,
            Part::Bytes(n, f) if may_end_early => c.keep(u64::from(n).min(c.rest() as u64), f)?,
            Part::Bytes(n, f) => c.keep(u64::from(n), f)?,
            Part::RestU64(f) => c.rest_u64(f)?,
            Part::RestBytes(f) => c.keep(c.rest() as u64, f)?,
            Part::Str(f) => string(c, f)?,
            Part::StrList(f) => {
                let n = c.number(4, f)?;
                entries(c, n, 4, f, |c| string(c, f))?;
            }
            Part::List16(f, inner) => list(c, 2, f, inner)?,
            Part::List32(f, inner) => list(c, 4, f, inner)?,
            Part::List64(f, inner) => list(c, 8, f, inner)?,
            Part::Bitmap64(f) => {
                let nbits = c.number(8, f)?;
                c.numbers(nbits.div_ceil(64), 8, f)?;
            }
        }
    }
    Ok(())
}

/// A perf string: `u32 len`, then `len` bytes kept.
fn string(c: &mut Cursor<'_>, field: &'static str) -> Result<(), SwapError> {
    let len = c.number(4, field)?;
    c.keep(len, field)
}

/// A count of `width` bytes, then that many entries of `inner`.
fn list(
    c: &mut Cursor<'_>,
    width: usize,
    field: &'static str,
    inner: &[Part],
) -> Result<(), SwapError> {
    let n = c.number(width, field)?;
    let least = inner.iter().map(least_len).sum::<usize>().max(1);
    entries(c, n, least, field, |c| swap_parts(c, inner, false))
}

/// Walks `n` entries of at least `least` bytes each with `each`, refused at once when they
/// cannot fit in the bytes left.
fn entries(
    c: &mut Cursor<'_>,
    n: u64,
    least: usize,
    field: &'static str,
    mut each: impl FnMut(&mut Cursor<'_>) -> Result<(), SwapError>,
) -> Result<(), SwapError> {
    let fits = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(least))
        .is_some_and(|need| need <= c.rest());
    if !fits {
        return Err(c.truncated(field));
    }
    for _ in 0..n {
        each(c)?;
    }
    Ok(())
}

/// The fewest bytes a part takes.
fn least_len(part: &Part) -> usize {
    match *part {
        Part::U16(_) | Part::List16(..) => 2,
        Part::U32(_) | Part::Str(_) | Part::StrList(_) | Part::List32(..) => 4,
        Part::U64(_) | Part::List64(..) | Part::Bitmap64(_) => 8,
        Part::Bytes(n, _) => usize::from(n),
        Part::RestU64(_) | Part::RestBytes(_) => 0,
    }
}
