//! Field-by-field conversions between [`PerfEventAttr`] and `tracepoint_decode`'s.

use crate::PerfEventAttr;
use core::fmt;
use tracepoint_decode as td;

/// Why a [`PerfEventAttr`] has no `tracepoint_decode::PerfEventAttr` equivalent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrConversionError {
    /// `config3` is set; `tracepoint_decode` 0.5 stops at `sig_data` (VER7).
    Config3Set,
}

impl fmt::Display for AttrConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config3Set => {
                f.write_str("attr has config3 set, which tracepoint_decode cannot hold")
            }
        }
    }
}

impl core::error::Error for AttrConversionError {}

/// ```
/// let mut td_attr = tracepoint_decode::PerfEventAttr::default();
/// td_attr.config = 0x174;
/// let attr = perf_abi::PerfEventAttr::from(&td_attr);
/// assert_eq!(attr.config, 0x174);
/// ```
impl From<&td::PerfEventAttr> for PerfEventAttr {
    fn from(a: &td::PerfEventAttr) -> Self {
        PerfEventAttr {
            type_: a.attr_type.0,
            size: a.size.0,
            config: a.config,
            sample_period: a.sample_time,
            sample_type: a.sample_type.0,
            read_format: a.read_format.0,
            flags: a.options.0,
            wakeup_events: a.wakeup_value,
            bp_type: a.bp_type,
            config1: a.config1,
            config2: a.config2,
            branch_sample_type: a.branch_sample_type,
            sample_regs_user: a.sample_regs_user,
            sample_stack_user: a.sample_stack_user,
            clockid: i32::from_ne_bytes(a.clockid.to_ne_bytes()),
            sample_regs_intr: a.sample_regs_intr,
            aux_watermark: a.aux_watermark,
            sample_max_stack: a.sample_max_stack,
            reserved_2: a.reserved2,
            aux_sample_size: a.aux_sample_size,
            reserved_3: a.reserved3,
            sig_data: a.sig_data,
            config3: 0,
        }
    }
}

impl From<td::PerfEventAttr> for PerfEventAttr {
    fn from(a: td::PerfEventAttr) -> Self {
        PerfEventAttr::from(&a)
    }
}

/// ```
/// let attr = perf_abi::PerfEventAttr { config: 9, ..Default::default() };
/// let td_attr = tracepoint_decode::PerfEventAttr::try_from(&attr).unwrap();
/// assert_eq!(td_attr.config, 9);
/// ```
impl TryFrom<&PerfEventAttr> for td::PerfEventAttr {
    type Error = AttrConversionError;

    fn try_from(a: &PerfEventAttr) -> Result<Self, Self::Error> {
        if a.config3 != 0 {
            return Err(AttrConversionError::Config3Set);
        }
        Ok(td::PerfEventAttr {
            attr_type: td::PerfEventAttrType(a.type_),
            size: td::PerfEventAttrSize(a.size),
            config: a.config,
            sample_time: a.sample_period,
            sample_type: td::PerfEventAttrSampleType(a.sample_type),
            read_format: td::PerfEventAttrReadFormat(a.read_format),
            options: td::PerfEventAttrOptions(a.flags),
            wakeup_value: a.wakeup_events,
            bp_type: a.bp_type,
            config1: a.config1,
            config2: a.config2,
            branch_sample_type: a.branch_sample_type,
            sample_regs_user: a.sample_regs_user,
            sample_stack_user: a.sample_stack_user,
            clockid: u32::from_ne_bytes(a.clockid.to_ne_bytes()),
            sample_regs_intr: a.sample_regs_intr,
            aux_watermark: a.aux_watermark,
            sample_max_stack: a.sample_max_stack,
            reserved2: a.reserved_2,
            aux_sample_size: a.aux_sample_size,
            reserved3: a.reserved_3,
            sig_data: a.sig_data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips() {
        // Distinct values in every field, so a swapped pair of fields would show.
        let a = PerfEventAttr {
            type_: 1,
            size: 2,
            config: 3,
            sample_period: 4,
            sample_type: 5,
            read_format: 6,
            flags: 7,
            wakeup_events: 8,
            bp_type: 9,
            config1: 10,
            config2: 11,
            branch_sample_type: 12,
            sample_regs_user: 13,
            sample_stack_user: 14,
            clockid: -15,
            sample_regs_intr: 16,
            aux_watermark: 17,
            sample_max_stack: 18,
            reserved_2: 19,
            aux_sample_size: 20,
            reserved_3: 21,
            sig_data: 22,
            config3: 0,
        };
        let t = td::PerfEventAttr::try_from(&a).unwrap();
        assert_eq!(t.clockid, (-15i32) as u32);
        assert_eq!(PerfEventAttr::from(&t), a);
        // Same bytes as the C struct prefix.
        let td_bytes: [u8; 128] = {
            let mut b = [0u8; 128];
            let fields: [(usize, &[u8]); 4] = [
                (0, &t.attr_type.0.to_ne_bytes()),
                (40, &t.options.0.to_ne_bytes()),
                (92, &t.clockid.to_ne_bytes()),
                (120, &t.sig_data.to_ne_bytes()),
            ];
            for (off, bytes) in fields {
                b[off..off + bytes.len()].copy_from_slice(bytes);
            }
            b
        };
        let ours = zerocopy::IntoBytes::as_bytes(&a);
        for off in [0usize, 40, 92, 120] {
            assert_eq!(ours[off..off + 4], td_bytes[off..off + 4], "offset {off}");
        }
    }

    #[test]
    fn config3_does_not_fit() {
        let a = PerfEventAttr {
            config3: 1,
            ..Default::default()
        };
        assert_eq!(
            td::PerfEventAttr::try_from(&a).unwrap_err(),
            AttrConversionError::Config3Set
        );
    }
}
