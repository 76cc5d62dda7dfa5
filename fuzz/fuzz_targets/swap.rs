//! perf-encode's byte-order swapper over arbitrary records and feature payloads (seeds:
//! records and features of perf's own recordings): never a panic; what it accepts, swapped
//! back, gives the input again, and the swapped record's header reads the same in the other
//! byte order; the AUXTRACE_INFO reader never panics on it.
//!
//! Input: byte 0 says what the rest is (bit 0: a feature payload, else a record; bit 1:
//! big-endian; bit 2: the record's `header.size` is set to its length; bit 3:
//! `sample_id_all`; bit 4: BRANCH_STACK has `hw_idx`), bytes 1..9 the `sample_type`
//! (little-endian), byte 9 the `read_format`, bytes 10 and 11 the registers of REGS_USER
//! and REGS_INTR (for a feature: byte 10 bit 0 says whether NRCPUS is known, byte 11 is
//! its count), byte 12 the feature bit; the bytes after 13 are the record or payload.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_encode::records::{ParsedAuxtraceInfo, SampleLayout};
use perf_encode::swap::{swap_feature, FeatureContext, RecordSwapper, SwapEvent};
use perf_encode::Endian;

fuzz_target!(|data: &[u8]| {
    let Some((head, body)) = data.split_first_chunk::<13>() else {
        return;
    };
    let (from, back) = match head[0] & 2 {
        0 => (Endian::Little, Endian::Big),
        _ => (Endian::Big, Endian::Little),
    };
    if head[0] & 1 != 0 {
        let ctx = FeatureContext {
            nr_cpus_avail: (head[10] & 1 != 0).then_some(u32::from(head[11])),
        };
        let mut once = body.to_vec();
        if swap_feature(head[12], &mut once, from, &ctx).is_ok() {
            let mut twice = once.clone();
            swap_feature(head[12], &mut twice, back, &ctx).expect("a swapped payload swaps back");
            assert_eq!(twice, body, "feature {}: swapped twice", head[12]);
        }
        return;
    }
    let mut record = body.to_vec();
    if head[0] & 4 != 0 && record.len() >= 8 {
        let size = u16::try_from(record.len()).unwrap_or(u16::MAX);
        record[6..8].copy_from_slice(&from.u16_bytes(size));
    }
    let sample_type = u64::from_le_bytes(head[1..9].try_into().expect("8 bytes")) & ((1 << 25) - 1);
    let layout = SampleLayout {
        sample_type,
        read_format: u64::from(head[9] & 31),
        regs_user: u32::from(head[10] & 63),
        regs_intr: u32::from(head[11] & 63),
        branch_hw_index: head[0] & 16 != 0,
        sample_id_all: head[0] & 8 != 0,
    };
    let events = [SwapEvent { layout, ids: &[] }];
    let mut once = record.clone();
    if RecordSwapper::new(&events, from)
        .swap_record(&mut once)
        .is_ok()
    {
        let (h0, h1): ([u8; 8], [u8; 8]) = (
            record[..8].try_into().expect("a header"),
            once[..8].try_into().expect("a header"),
        );
        assert_eq!(
            from.read_u32([h0[0], h0[1], h0[2], h0[3]]),
            back.read_u32([h1[0], h1[1], h1[2], h1[3]])
        );
        assert_eq!(from.read_u16([h0[6], h0[7]]), back.read_u16([h1[6], h1[7]]));
        let mut twice = once.clone();
        RecordSwapper::new(&events, back)
            .swap_record(&mut twice)
            .expect("a swapped record swaps back");
        assert_eq!(twice, record, "swapped twice");
    }
    // The AUXTRACE_INFO reader takes any bytes without a panic.
    let _ = ParsedAuxtraceInfo::parse(&record, from);
});
