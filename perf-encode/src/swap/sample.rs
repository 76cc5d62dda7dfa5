//! SAMPLE records, walked by their event's layout with the SAMPLE table.

use crate::records::sample::field_swap::FieldSwap;
use crate::records::sample::fields::{branch_flags_from_file, branch_flags_to_file};
use crate::records::{SampleLayout, SAMPLE_FIELDS};
use crate::swap::cursor::Cursor;
use crate::swap::error::SwapError;
use crate::swap::other;
use crate::Endian;

const WHAT: &str = "SAMPLE";

/// Swaps the fields of the SAMPLE `record` (its `header.size` bytes, header included, not
/// yet swapped) as `layout` lays them out.
pub(crate) fn swap_sample(
    record: &mut [u8],
    layout: &SampleLayout,
    from: Endian,
) -> Result<(), SwapError> {
    let len = record.len();
    let mut pos = 8usize;
    for f in &SAMPLE_FIELDS {
        let choice = f.choice(layout);
        if choice == 0 {
            continue;
        }
        let bad = SwapError::Truncated {
            what: WHAT,
            field: f.name(),
            offset: pos,
            len,
        };
        let end = f.end(choice, from, record, pos).ok_or(bad)?;
        let bytes = record.get_mut(pos..end).ok_or(bad)?;
        let mut c = Cursor::new(bytes, from, WHAT, pos);
        let name = f.name();
        match f.swap() {
            FieldSwap::Words => c.rest_u64(name)?,
            FieldSwap::U32Pair => c.numbers(2, 4, name)?,
            FieldSwap::Raw => {
                c.number(4, name)?;
                c.keep(c.rest() as u64, name)?;
            }
            FieldSwap::Branches => branches(&mut c, layout, from)?,
            FieldSwap::Stack => {
                if c.number(8, name)? != 0 {
                    c.keep(c.rest().saturating_sub(8) as u64, name)?;
                    c.number(8, name)?;
                }
            }
            FieldSwap::SizedBytes => {
                c.number(8, name)?;
                c.keep(c.rest() as u64, name)?;
            }
        }
        c.end()?;
        pos = end;
    }
    match pos == len {
        true => Ok(()),
        false => Err(SwapError::Leftover {
            what: WHAT,
            offset: pos,
            len,
        }),
    }
}

/// BRANCH_STACK: `nr`, `hw_idx` when the layout has it, and `{from, to, flags}` per entry;
/// the flags' bit-fields move to where the other byte order's kernel packs them.
fn branches(c: &mut Cursor<'_>, layout: &SampleLayout, from: Endian) -> Result<(), SwapError> {
    let field = "branch_stack";
    let nr = c.number(8, field)?;
    if layout.branch_hw_index {
        c.number(8, field)?;
    }
    for _ in 0..nr {
        c.numbers(2, 8, field)?;
        let flags = c.number(8, field)?;
        let moved = branch_flags_to_file(branch_flags_from_file(flags, from), other(from));
        c.set_last(&other(from).u64_bytes(moved));
    }
    Ok(())
}
