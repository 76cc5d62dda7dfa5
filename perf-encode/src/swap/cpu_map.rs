//! `perf_record_cpu_map_data`, in CPU_MAP records and EVENT_UPDATE's cpu maps.

use crate::swap::cursor::Cursor;
use crate::swap::error::SwapError;
use crate::swap::parts::swap_parts;
use perf_abi::field_widths;
use perf_abi::record_fields::CPU_MAP_MASK;

/// Swaps the cpu map data from the cursor to its end (zero padding after the map kept).
pub(crate) fn swap_cpu_map(c: &mut Cursor<'_>) -> Result<(), SwapError> {
    let type_ = c.number(2, "type")?;
    let kind = u16::try_from(type_).unwrap_or(u16::MAX);
    if kind == CPU_MAP_MASK {
        let nr = c.number(2, "nr")?;
        match c.number(2, "long_size")? {
            4 => c.numbers(nr, 4, "mask")?,
            8 => {
                c.keep(4, "pad")?;
                c.numbers(nr, 8, "mask")?;
            }
            value => {
                return Err(SwapError::BadValue {
                    what: c.what,
                    field: "long_size",
                    value,
                })
            }
        }
    } else {
        let parts = field_widths::cpu_map(kind).ok_or(SwapError::BadValue {
            what: c.what,
            field: "type",
            value: type_,
        })?;
        swap_parts(c, parts, false)?;
    }
    c.keep(c.rest() as u64, "padding")
}
