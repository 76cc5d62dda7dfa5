//! `perf_event_attr` bytes as a file or stream holds them, read into the writer's attr type.

use perf_writer_std::perf_encode::Endian;
use tracepoint_decode as td;

/// The bytes `tracepoint_decode::PerfEventAttr` holds (`PERF_ATTR_SIZE_VER7`).
const TD_ATTR_LEN: usize = 128;

/// Offset of the bit-field word (`disabled`, `inherit`, …, `sample_id_all`, …).
const FLAGS_AT: usize = 40;

/// Reads the attr at the start of `bytes` (`bytes.len()` is the attr's size as stored:
/// an older, shorter attr reads its missing fields as 0). A longer attr is accepted when
/// its bytes past the 128 the writer's type holds are zero.
///
/// # Errors
///
/// A string saying why: fewer than 64 bytes (`PERF_ATTR_SIZE_VER0`), or non-zero bytes past
/// the 128th (`config3` and later fields, which the writer's attr type cannot carry).
pub fn attr_from_bytes(bytes: &[u8], endian: Endian) -> Result<td::PerfEventAttr, String> {
    if bytes.len() < 64 {
        return Err(format!(
            "attr of {} bytes, shorter than perf's first (64)",
            bytes.len()
        ));
    }
    if bytes.iter().skip(TD_ATTR_LEN).any(|&b| b != 0) {
        return Err(
            "attr has fields past sig_data (config3) set, which this tool cannot carry".into(),
        );
    }
    let mut b = [0u8; TD_ATTR_LEN];
    let n = bytes.len().min(TD_ATTR_LEN);
    b[..n].copy_from_slice(&bytes[..n]);
    // A big-endian file holds the flags' little-endian bytes with each byte's bits reversed.
    if endian.is_big() {
        b[FLAGS_AT..FLAGS_AT + 8]
            .iter_mut()
            .for_each(|x| *x = x.reverse_bits());
    }
    let u16_at = |p: usize| endian.read_u16([b[p], b[p + 1]]);
    let u32_at = |p: usize| endian.read_u32([b[p], b[p + 1], b[p + 2], b[p + 3]]);
    let u64_at = |p: usize| {
        let w: [u8; 8] = b[p..p + 8].try_into().unwrap_or_default();
        endian.read_u64(w)
    };
    let flags = {
        let w: [u8; 8] = b[FLAGS_AT..FLAGS_AT + 8].try_into().unwrap_or_default();
        u64::from_le_bytes(w)
    };
    Ok(td::PerfEventAttr {
        attr_type: td::PerfEventAttrType(u32_at(0)),
        // As stored (the writer writes every attr with a published size of its own).
        size: td::PerfEventAttrSize(u32_at(4)),
        config: u64_at(8),
        sample_time: u64_at(16),
        sample_type: td::PerfEventAttrSampleType(u64_at(24)),
        read_format: td::PerfEventAttrReadFormat(u64_at(32)),
        options: td::PerfEventAttrOptions(flags),
        wakeup_value: u32_at(48),
        bp_type: u32_at(52),
        config1: u64_at(56),
        config2: u64_at(64),
        branch_sample_type: u64_at(72),
        sample_regs_user: u64_at(80),
        sample_stack_user: u32_at(88),
        clockid: u32_at(92),
        sample_regs_intr: u64_at(96),
        aux_watermark: u32_at(104),
        sample_max_stack: u16_at(108),
        reserved2: u16_at(110),
        aux_sample_size: u32_at(112),
        reserved3: u32_at(116),
        sig_data: u64_at(120),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_byte_orders() {
        let mut le = [0u8; 128];
        le[0..4].copy_from_slice(&2u32.to_le_bytes());
        le[4..8].copy_from_slice(&128u32.to_le_bytes());
        le[8..16].copy_from_slice(&0x174u64.to_le_bytes());
        le[40] = 1; // disabled
        let mut be = [0u8; 128];
        be[0..4].copy_from_slice(&2u32.to_be_bytes());
        be[4..8].copy_from_slice(&128u32.to_be_bytes());
        be[8..16].copy_from_slice(&0x174u64.to_be_bytes());
        be[40] = 0x80;
        for (bytes, endian) in [(&le, Endian::Little), (&be, Endian::Big)] {
            let a = attr_from_bytes(bytes, endian).unwrap();
            assert_eq!((a.attr_type.0, a.config, a.options.0), (2, 0x174, 1));
        }
        assert!(attr_from_bytes(&le[..63], Endian::Little).is_err());
        let mut long = le.to_vec();
        long.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1]);
        assert!(attr_from_bytes(&long, Endian::Little).is_err());
    }
}
