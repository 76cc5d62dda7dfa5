//! The kernel's SAMPLE records in the real perf 6.1 recordings (`tests/data/perf-6.1`),
//! decoded by linux-perf-data 0.13 and encoded again by perf-encode's `SampleRecord` from the
//! fields linux-perf-data decoded (and the attr's layout): the bytes must equal the kernel's.
//!
//! perf-encode's own fixture test (`perf-encode/tests/typed_records.rs`) does the same with
//! this project's parser for every record kind; this one takes the decoding from a reader
//! nobody here wrote.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use integration_tests::fixtures::{DataMode, FixtureContent};
use integration_tests::lpd;
use perf_writer_std::perf_encode::abi::record_fields::BRANCH_SAMPLE_HW_INDEX;
use perf_writer_std::perf_encode::abi::record_fields::REGS_ABI_64;
use perf_writer_std::perf_encode::abi::{record_type, sample_type};
use perf_writer_std::perf_encode::records::{
    PidTid, Regs, Sample, SampleCpu, SampleLayout, SampleRecord, StackUser,
};
use perf_writer_std::perf_encode::{to_vec, Endian};
use std::collections::HashMap;

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap()))
}

/// The layout of a stored little-endian `perf_event_attr` (fields past its size are 0).
fn layout_of(attr: &[u8]) -> SampleLayout {
    SampleLayout {
        sample_type: u64_at(attr, 24),
        read_format: u64_at(attr, 32),
        regs_user: u64_at(attr, 80).count_ones(),
        regs_intr: u64_at(attr, 104).count_ones(),
        branch_hw_index: u64_at(attr, 72) & BRANCH_SAMPLE_HW_INDEX != 0,
        sample_id_all: u64_at(attr, 40) & (1 << 18) != 0,
    }
}

/// Re-encodes every SAMPLE of fixture `name` from linux-perf-data's decoding; returns how many
/// were compared.
fn reencode_samples(name: &str) -> usize {
    let bytes = integration_tests::fixtures::read_fixture(name);
    let content = FixtureContent::from_bytes(&bytes).unwrap();
    assert_eq!(content.endian, integration_tests::Endian::Little);
    let read = match content.mode {
        // linux-perf-data 0.13 cannot step over perf 6.1's HEADER_TRACING_DATA payload.
        DataMode::Pipe => lpd::read_pipe_without_tracing_payload(&bytes),
        DataMode::File => lpd::read_file(&bytes),
    }
    .unwrap();
    assert!(read.records_with_parse_errors().is_empty());
    // linux-perf-data hands records out in time order; match them by their bytes.
    let decoded: HashMap<&[u8], &lpd::LpdSample> = read
        .records
        .iter()
        .filter(|r| r.record_type == record_type::SAMPLE)
        .map(|r| (&r.payload[..], r.sample.as_ref().expect("decoded")))
        .collect();
    let by_id: HashMap<u64, SampleLayout> = content
        .attrs
        .iter()
        .flat_map(|a| a.ids.iter().map(move |&id| (id, layout_of(&a.bytes))))
        .collect();
    let mut compared = 0;
    for r in content
        .records
        .iter()
        .filter(|r| r.record_type == record_type::SAMPLE)
    {
        let l = decoded[&r.bytes[8..]];
        let layout = if content.attrs.len() == 1 {
            layout_of(&content.attrs[0].bytes)
        } else {
            by_id[&l.id.expect("several events: samples carry an id")]
        };
        assert_eq!(
            layout.sample_type & !lpd::DECODED_SAMPLE_BITS,
            0,
            "{name}: a sample field linux-perf-data does not decode"
        );
        let has = |bit: u64| layout.sample_type & bit != 0;
        let regs_user = l.user_regs.as_deref();
        let stack = l.user_stack.as_ref();
        let sample = Sample {
            identifier: l.id.filter(|_| has(sample_type::IDENTIFIER)),
            ip: l.ip,
            tid: l.pid.zip(l.tid).map(|(pid, tid)| PidTid {
                pid: pid as u32,
                tid: tid as u32,
            }),
            time: l.time,
            addr: l.addr,
            id: l.id.filter(|_| has(sample_type::ID)),
            stream_id: l.stream_id,
            // The reader drops `res`, which the kernel writes as 0.
            cpu: l.cpu.map(SampleCpu::new),
            period: l.period,
            callchain: l.callchain.as_deref(),
            // The stored size, padding included: the encoder adds none.
            raw: l.raw.as_deref(),
            regs_user: has(sample_type::REGS_USER).then(|| Regs {
                // The reader gives no ABI; x86-64 is what these recordings hold.
                abi: if regs_user.is_some() { REGS_ABI_64 } else { 0 },
                regs: regs_user.unwrap_or(&[]),
            }),
            stack_user: stack.map(|(data, dyn_size)| StackUser {
                data,
                dyn_size: *dyn_size,
            }),
            phys_addr: l.phys_addr,
            data_page_size: l.data_page_size,
            code_page_size: l.code_page_size,
            ..Default::default()
        };
        let ours = to_vec(
            &SampleRecord {
                layout: &layout,
                sample: &sample,
                misc: r.misc,
            },
            Endian::Little,
        )
        .unwrap();
        assert_eq!(ours, r.bytes, "{name}: SAMPLE at offset {}", r.offset);
        compared += 1;
    }
    compared
}

#[test]
fn kernel_samples_reencode_from_linux_perf_data_fields() {
    // Every SAMPLE the recordings hold (the fixtures' README says 31 for sched_switch).
    assert_eq!(reencode_samples("cpu_clock.data"), 52);
    assert_eq!(reencode_samples("sched_switch.data"), 31);
    assert_eq!(reencode_samples("pipe_sched.data"), 38);
}
