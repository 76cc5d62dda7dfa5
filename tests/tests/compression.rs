//! zstd compression (`set_compression`, the `zstd` feature) and COMPRESSED records passed
//! through: what perf 6.1 (`perf script`, `perf report --header-only`) and linux-perf-data
//! 0.13 read back.
//!
//! - the same events written plain and compressed (both forms) give the same `perf script`
//!   lines, in file and pipe mode, little- and big-endian files (a byte-swapped pipe stream
//!   carries no HEADER_COMPRESSED: refused);
//! - records split across calls and across COMPRESSED records, random (incompressible)
//!   bytes, an empty trace;
//! - a fresh `perf record -z` recording rewritten record by record (its COMPRESSED records
//!   unaligned, as perf writes them) reads the same, in file and pipe mode; strict mode's
//!   checks of such records;
//! - FINISHED_ROUND records left out where compressed pieces go on: a real perf recording
//!   (tests/data/perf-6.1/rounds_getppid.data) and every cadence of rounds and flushes read
//!   the same, within 5% of one zstd frame at perf's cadence, never larger than the
//!   uncompressed output; every round kept when timed and untimed events mix.

use integration_tests::fixtures::{DataMode, FixtureContent};
use integration_tests::perf_tool::{
    perf_report_header, perf_script, perf_script_bytes, perf_script_stdin, require_perf,
    require_perf_record, run_perf, script_lines, PerfOutput,
};
use integration_tests::records::{comm, sample, RecordBuilder, StdSample};
use integration_tests::{lpd, temp_data_file, tp_reader, Endian};
use perf_writer_std::{
    Compression, CompressionForm, FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter,
    PerfWriter, RecordProblem, WriterError,
};
use perf_writer_std::{CompressionError, RecordError};
use std::io::Cursor;
use tracepoint_decode as td;

const LAYOUT: u64 =
    sample::IDENTIFIER | sample::IP | sample::TID | sample::TIME | sample::CPU | sample::PERIOD;
const COMPRESSED: u32 = 81;
const SAMPLE: u32 = 9;
/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

const STREAM: Compression = Compression {
    level: 1,
    form: CompressionForm::PerfStream,
};
const ALIGNED: Compression = Compression {
    level: 3,
    form: CompressionForm::Aligned,
};

fn attr(sample_type: u64) -> td::PerfEventAttr {
    td::PerfEventAttr {
        attr_type: td::PerfEventAttrType::Software,
        sample_time: 4000,
        sample_type: td::PerfEventAttrSampleType(sample_type),
        // sample_id_all, and disabled.
        options: td::PerfEventAttrOptions(1 << 18 | 1),
        ..Default::default()
    }
}

fn writer_endian(e: Endian) -> perf_writer_std::Endian {
    match e {
        Endian::Little => perf_writer_std::Endian::Little,
        Endian::Big => perf_writer_std::Endian::Big,
    }
}

/// The events: a COMM and FINISHED_INIT (the initial state), then `n` samples (each written
/// in two calls when `split`), a FINISHED_ROUND every 1000.
fn fill<O: OutputMode>(w: &mut PerfWriter<O>, e: Endian, n: u64, split: bool) {
    w.add_event_desc(&[20], &attr(LAYOUT), "cpu-clock").unwrap();
    w.set_string_header(PerfHeaderIndex::Hostname, b"zstd-host")
        .unwrap();
    w.write_event_data(&comm(e, 300, 300, "packer", 1, 20))
        .unwrap();
    w.write_finished_init().unwrap();
    for i in 0..n {
        let s = StdSample {
            id: 20,
            ip: 0x40_0000 + (i * 7919) % 4096,
            pid: 300,
            tid: 300 + (i % 3) as u32,
            time: 10_000 + i * 100,
            cpu: (i % 2) as u32,
            period: 4000,
            raw: None,
            misc: 2,
        }
        .encode(e);
        if split {
            w.write_event_data(&s[..13]).unwrap();
            w.write_event_data(&s[13..]).unwrap();
        } else {
            w.write_event_data(&s).unwrap();
        }
        if i % 1000 == 999 {
            w.write_finished_round().unwrap();
        }
    }
}

/// A file or pipe stream of [`fill`]'s events.
fn write(pipe: bool, e: Endian, c: Option<Compression>, n: u64, split: bool) -> Vec<u8> {
    if pipe {
        let mut w = PerfPipeWriter::from_writer_with_endian(Vec::new(), writer_endian(e)).unwrap();
        w.set_compression(c).unwrap();
        fill(&mut w, e, n, split);
        w.finish().unwrap()
    } else {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
            Cursor::new(Vec::new()),
            writer_endian(e),
        )
        .unwrap();
        w.set_compression(c).unwrap();
        fill(&mut w, e, n, split);
        w.finish().unwrap().into_inner()
    }
}

/// `perf script` of a file (from a path) or a pipe stream (from stdin), checked clean.
/// The next state of a xorshift64 generator: reproducible test values without a dependency.
fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

fn script(bytes: &[u8], pipe: bool) -> Vec<String> {
    let out: PerfOutput = if pipe {
        perf_script_stdin(bytes)
    } else {
        perf_script_bytes(bytes, &[])
    };
    out.assert_clean();
    script_lines(&out)
}

/// The stored records (pipe mode: after the header records perf reads first).
fn records(bytes: &[u8]) -> FixtureContent {
    FixtureContent::from_bytes(bytes).unwrap()
}

fn count(c: &FixtureContent, type_: u32) -> usize {
    c.records.iter().filter(|r| r.record_type == type_).count()
}

/// HEADER_COMPRESSED as `perf report --header-only` shows it.
fn compressed_header_line(bytes: &[u8]) -> String {
    let file = temp_data_file(bytes);
    let out = perf_report_header(file.path(), false);
    out.assert_success();
    out.stdout
        .lines()
        .find(|l| l.starts_with("# compressed"))
        .unwrap_or_else(|| panic!("no compressed line:\n{}", out.stdout))
        .to_string()
}

/// linux-perf-data's SAMPLE records (decompressed), their (time, ip, tid) in its order.
fn lpd_samples(bytes: &[u8]) -> Vec<(u64, u64, i32)> {
    let summary = lpd::read_any(bytes).unwrap_or_else(|e| panic!("linux-perf-data: {e}"));
    assert!(summary.records_with_parse_errors().is_empty());
    summary
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref())
        .map(|s| (s.time.unwrap(), s.ip.unwrap(), s.tid.unwrap()))
        .collect()
}

#[test]
fn plain_and_compressed_read_the_same_in_perf_and_linux_perf_data() {
    let perf = require_perf();
    let n = 6000;
    for (pipe, e) in [
        (false, Endian::Little),
        (false, Endian::Big),
        (true, Endian::Little),
    ] {
        let plain = write(pipe, e, None, n, false);
        let plain_lines = perf.then(|| script(&plain, pipe));
        let plain_lpd = lpd_samples(&plain);
        assert_eq!(plain_lpd.len() as u64, n);
        if let Some(lines) = &plain_lines {
            assert_eq!(lines.len() as u64, n, "{}", lines.join("\n"));
        }
        for c in [STREAM, ALIGNED] {
            let what = format!("pipe {pipe}, {e:?}, {c:?}");
            let bytes = write(pipe, e, Some(c), n, false);
            let stored = records(&bytes);
            assert_eq!(
                stored.mode,
                if pipe { DataMode::Pipe } else { DataMode::File }
            );
            // Every SAMPLE went into COMPRESSED records; the COMM before FINISHED_INIT and
            // FINISHED_INIT stayed as they were. The FINISHED_ROUNDs (one per 56,000 bytes of
            // samples) did not end the compressed pieces: one of them is written, where the
            // 256 KiB buffer filled, the others left out; perf and linux-perf-data read the
            // same samples in the same order (below).
            assert_eq!(count(&stored, SAMPLE), 0, "{what}");
            assert!(count(&stored, COMPRESSED) >= 2, "{what}");
            assert_eq!(count(&stored, 3), 1, "{what}");
            assert_eq!(count(&stored, 82), 1, "{what}");
            assert_eq!(count(&stored, 68), 1, "{what}");
            assert!(
                bytes.len() * 4 < plain.len(),
                "{what}: {} bytes",
                bytes.len()
            );
            // Aligned: every COMPRESSED record a multiple of 8 (in a file every record is
            // then aligned; a pipe's HEADER_FEATURE records are unpadded anyway).
            let padded = stored
                .records
                .iter()
                .filter(|r| r.record_type == COMPRESSED)
                .all(|r| r.size % 8 == 0);
            assert_eq!(padded, c.form == CompressionForm::Aligned, "{what}");
            if !pipe {
                let aligned = stored.records.iter().all(|r| r.offset % 8 == 0);
                assert_eq!(aligned, c.form == CompressionForm::Aligned, "{what}");
            }
            // linux-perf-data decompresses them to the same samples.
            assert_eq!(lpd_samples(&bytes), plain_lpd, "{what}");
            // tracepoint_perf 0.5's reader does not decompress: it reads the file (little-
            // endian files; it reads the headers, the event and every record's frame) and
            // sees the COMPRESSED records, no SAMPLE.
            if !pipe && e == Endian::Little {
                let tp = tp_reader::read_bytes(&bytes).unwrap();
                assert!(tp.desc("cpu-clock").is_some(), "{what}");
                let compressed = count(&stored, COMPRESSED) as u64;
                assert_eq!(tp.count(COMPRESSED), compressed, "{what}");
                assert_eq!(tp.count(SAMPLE), 0, "{what}");
                assert_eq!(tp.count(3), 1, "{what}");
            }
            if let Some(lines) = &plain_lines {
                assert_eq!(&script(&bytes, pipe), lines, "{what}");
                if !pipe {
                    let header = compressed_header_line(&bytes);
                    let level = format!("# compressed : Zstd, level = {}, ratio = ", c.level);
                    assert!(header.starts_with(&level), "{what}: {header}");
                    let ratio: u32 = header[level.len()..].trim().parse().unwrap();
                    assert!(ratio >= 4, "{what}: {header}");
                }
            }
        }
    }
    // A byte-swapped pipe stream carries no HEADER_FEATURE, so no HEADER_COMPRESSED.
    let mut w =
        PerfPipeWriter::from_writer_with_endian(Vec::new(), perf_writer_std::Endian::Big).unwrap();
    assert_eq!(
        w.set_compression(Some(STREAM)),
        Err(WriterError::Compression(CompressionError::Unreadable))
    );
    assert_eq!(w.compression(), None);
}

#[test]
fn records_split_across_calls_and_across_compressed_records() {
    // 56-byte samples: the 256 KiB chunks end inside records, so records straddle two
    // COMPRESSED records; each sample also arrives in two calls.
    let perf = require_perf();
    let n = 20_000;
    assert_ne!(perf_writer_std::MAX_DECOMPRESSED_CHUNK % 56, 0);
    for pipe in [false, true] {
        let plain = write(pipe, Endian::Little, None, n, false);
        for c in [STREAM, ALIGNED] {
            let bytes = write(pipe, Endian::Little, Some(c), n, true);
            assert_eq!(
                lpd_samples(&bytes),
                lpd_samples(&plain),
                "pipe {pipe} {c:?}"
            );
            if perf {
                let lines = script(&bytes, pipe);
                assert_eq!(lines.len() as u64, n);
                assert_eq!(lines, script(&plain, pipe), "pipe {pipe} {c:?}");
            }
        }
    }
}

#[test]
fn random_bytes_that_do_not_compress() {
    // SAMPLEs with 2 KiB of random RAW data each: zstd cannot shrink them (its blocks are
    // stored raw), and the aligned form has to make its frames smaller to fit a record.
    for (c, len, plain) in raw_samples(256) {
        assert!(len * 100 > plain * 95, "{c:?}: {len} bytes");
        assert!(len * 100 < plain * 103, "{c:?}: {len} bytes");
    }
}

#[test]
fn random_bytes_that_compress_a_little() {
    // Bytes from 64 values: about 4:3, so zstd's compressed blocks are larger than a record
    // and perf's form cuts them across COMPRESSED records.
    for (c, len, plain) in raw_samples(64) {
        assert!(len * 100 > plain * 70, "{c:?}: {len} bytes");
        assert!(len * 100 < plain * 85, "{c:?}: {len} bytes");
    }
}

#[test]
fn a_zstd_block_split_across_two_compressed_records() {
    // Bytes from 16 values: about 2:1, so a piece of 256 KiB takes two records in perf's
    // form, the second cut inside a zstd block (perf and linux-perf-data feed every record to
    // one decompression stream; each record still ends a block, so gives bytes).
    for (c, len, plain) in raw_samples(16) {
        assert!(len * 100 < plain * 60, "{c:?}: {len} bytes");
    }
}

/// Why perf's form may not cut its stream into records anywhere: perf 6.1 refuses a
/// COMPRESSED record that decompresses to nothing ("Couldn't decompress data"), which a
/// record holding no block's end does (zstd decodes a compressed block only whole).
/// linux-perf-data 0.13 reads such a file. The writer's own output is recut here into
/// records of 300 bytes, shorter than its blocks.
#[test]
fn perf_refuses_a_compressed_record_that_ends_no_zstd_block() {
    if !require_perf() {
        return;
    }
    let bytes = write(false, Endian::Little, Some(STREAM), 20_000, false);
    let mut rec = records(&bytes);
    assert!(records_cut_inside_a_block(&rec).is_empty());
    let stream: Vec<u8> = rec
        .records
        .iter()
        .filter(|r| r.record_type == COMPRESSED)
        .flat_map(|r| r.full_bytes()[8..].to_vec())
        .collect();
    let first = rec
        .records
        .iter()
        .position(|r| r.record_type == COMPRESSED)
        .unwrap();
    let template = rec.records[first].clone();
    rec.records.retain(|r| r.record_type != COMPRESSED);
    let recut = stream.chunks(300).map(|data| {
        let mut bytes = template.bytes[..8].to_vec();
        bytes[6..8].copy_from_slice(&(8 + data.len() as u16).to_le_bytes());
        bytes.extend_from_slice(data);
        integration_tests::fixtures::RawRecord {
            size: bytes.len() as u16,
            bytes,
            ..template.clone()
        }
    });
    rec.records.splice(first..first, recut);
    assert!(!records_cut_inside_a_block(&rec).is_empty());
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    rewrite(&rec, &mut w);
    let recut = w.finish().unwrap().into_inner();
    assert_eq!(lpd_samples(&recut), lpd_samples(&bytes));
    let out = perf_script_bytes(&recut, &[]);
    assert!(
        out.stderr.contains("Couldn't decompress data"),
        "{}",
        out.stderr
    );
}

/// The offsets in the COMPRESSED records' payloads, taken as one zstd stream, where a
/// COMPRESSED record ends inside a zstd block (perf's form; panics on bytes that are not
/// zstd frames back to back).
fn records_cut_inside_a_block(c: &FixtureContent) -> Vec<usize> {
    let mut stream = Vec::new();
    let mut record_ends = Vec::new();
    for r in c.records.iter().filter(|r| r.record_type == COMPRESSED) {
        stream.extend_from_slice(&r.full_bytes()[8..]);
        record_ends.push(stream.len());
    }
    let mut block_ends = std::collections::BTreeSet::new();
    let mut at = 0usize;
    let mut in_frame = false;
    while at < stream.len() {
        if !in_frame {
            assert_eq!(stream[at..at + 4], ZSTD_MAGIC, "a frame at {at}");
            let descriptor = stream[at + 4];
            let single_segment = descriptor & 0x20 != 0;
            let dictionary = [0, 1, 2, 4][usize::from(descriptor & 3)];
            let content_size = [usize::from(single_segment), 2, 4, 8][usize::from(descriptor >> 6)];
            at += 5 + usize::from(!single_segment) + dictionary + content_size;
        }
        let h = u32::from_le_bytes([stream[at], stream[at + 1], stream[at + 2], 0]);
        let size = (h >> 3) as usize;
        at += 3 + if (h >> 1) & 3 == 1 { 1 } else { size };
        block_ends.insert(at);
        // A frame goes on until its last block (bit 0 of the block header).
        in_frame = h & 1 == 0;
    }
    assert_eq!(at, stream.len());
    record_ends
        .into_iter()
        .filter(|end| !block_ends.contains(end))
        .collect()
}

/// SAMPLEs with 2 KiB of RAW bytes drawn from `alphabet` values, written plain and
/// compressed (both forms) and read back by linux-perf-data and perf: each compressed
/// output's form, length and the plain one's length.
fn raw_samples(alphabet: u64) -> Vec<(Compression, usize, usize)> {
    let perf = require_perf();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = move || {
        seed = xorshift(seed);
        seed
    };
    let raws: Vec<Vec<u8>> = (0..400)
        .map(|_| (0..2044).map(|_| (random() % alphabet) as u8).collect())
        .collect();
    let write_raw = |c: Option<Compression>| {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_compression(c).unwrap();
        w.add_event_desc(&[7], &attr(LAYOUT | sample::RAW), "cpu-clock")
            .unwrap();
        for (i, raw) in raws.iter().enumerate() {
            let s = StdSample {
                id: 7,
                ip: u64::from_le_bytes(raw[..8].try_into().unwrap()),
                pid: 1,
                tid: 1,
                time: 1000 + i as u64,
                cpu: 0,
                period: u64::from(u32::from_le_bytes(raw[8..12].try_into().unwrap())),
                raw: Some(raw),
                misc: 2,
            };
            w.write_event_data(&s.encode(Endian::Little)).unwrap();
        }
        w.finish().unwrap().into_inner()
    };
    let plain = write_raw(None);
    let plain_raws: Vec<Vec<u8>> = lpd::read_file(&plain)
        .unwrap()
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref()?.raw.clone())
        .collect();
    assert_eq!(plain_raws.len(), raws.len());
    let mut sizes = Vec::new();
    for c in [STREAM, ALIGNED] {
        let bytes = write_raw(Some(c));
        sizes.push((c, bytes.len(), plain.len()));
        let stored = records(&bytes);
        if c.form == CompressionForm::PerfStream && alphabet == 256 {
            // perf's form stores such blocks as they are, a few bytes longer than the
            // records: the records go out uncompressed.
            assert_eq!(count(&stored, COMPRESSED), 0, "{c:?}");
            assert_eq!(bytes.len(), plain.len(), "{c:?}");
        } else {
            // Records as large as a u16 size and the form allow.
            let largest = stored.records.iter().map(|r| r.size).max().unwrap();
            assert!(largest > 32_768, "{c:?}: {largest}");
            assert!(count(&stored, COMPRESSED) >= 10, "{c:?}");
        }
        if c.form == CompressionForm::PerfStream {
            // Records cut inside zstd blocks (the aligned form's hold whole frames).
            let cut = records_cut_inside_a_block(&stored);
            assert!(
                !cut.is_empty() || alphabet == 256,
                "{c:?}, {alphabet} values"
            );
        }
        let got: Vec<Vec<u8>> = lpd::read_file(&bytes)
            .unwrap()
            .records
            .iter()
            .filter_map(|r| r.sample.as_ref()?.raw.clone())
            .collect();
        assert!(
            got == plain_raws,
            "{c:?}: linux-perf-data reads other RAW bytes"
        );
        if perf {
            assert_eq!(script(&bytes, false), script(&plain, false), "{c:?}");
        }
    }
    sizes
}

#[test]
fn an_empty_trace_compressed() {
    let perf = require_perf();
    for pipe in [false, true] {
        for c in [STREAM, ALIGNED] {
            let bytes = write(pipe, Endian::Little, Some(c), 0, false);
            let stored = records(&bytes);
            assert_eq!(count(&stored, COMPRESSED), 0);
            assert!(lpd_samples(&bytes).is_empty());
            if perf {
                assert!(script(&bytes, pipe).is_empty(), "pipe {pipe} {c:?}");
            }
        }
    }
}

/// An attr from its 128 little-endian bytes (perf 6.1 writes PERF_ATTR_SIZE_VER7).
fn td_attr(b: &[u8]) -> td::PerfEventAttr {
    assert_eq!(b.len(), 128);
    let u16_at = |p: usize| u16::from_le_bytes(b[p..p + 2].try_into().unwrap());
    let u32_at = |p: usize| u32::from_le_bytes(b[p..p + 4].try_into().unwrap());
    let u64_at = |p: usize| u64::from_le_bytes(b[p..p + 8].try_into().unwrap());
    td::PerfEventAttr {
        attr_type: td::PerfEventAttrType(u32_at(0)),
        size: td::PerfEventAttrSize(u32_at(4)),
        config: u64_at(8),
        sample_time: u64_at(16),
        sample_type: td::PerfEventAttrSampleType(u64_at(24)),
        read_format: td::PerfEventAttrReadFormat(u64_at(32)),
        options: td::PerfEventAttrOptions(u64_at(40)),
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
    }
}

/// `rec` written again: its attrs and names, its features (EVENT_DESC synthesized), its
/// records as they are stored, COMPRESSED ones included.
fn rewrite<O: OutputMode>(rec: &FixtureContent, w: &mut PerfWriter<O>) {
    for a in &rec.attrs {
        let name = a.name.clone().unwrap_or_default();
        w.add_event_desc(&a.ids, &td_attr(&a.bytes), &name).unwrap();
    }
    for (&bit, payload) in &rec.features {
        if bit != 12 {
            w.set_header(PerfHeaderIndex(bit as u8), payload).unwrap();
        }
    }
    for r in &rec.records {
        w.write_event_data(&r.full_bytes())
            .unwrap_or_else(|e| panic!("record at {} (type {}): {e}", r.offset, r.record_type));
    }
}

#[test]
fn a_perf_record_z_recording_passes_through_unchanged() {
    if !require_perf_record() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("z.data");
    let path = original.to_str().unwrap();
    let run = run_perf(
        &[
            "record",
            "-q",
            "-z",
            "-e",
            "cpu-clock",
            "-c",
            "20000",
            "-o",
            path,
            "--",
            "sh",
            "-c",
            "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done",
        ],
        None,
    );
    run.assert_success();
    let bytes = std::fs::read(&original).unwrap();
    let rec = records(&bytes);
    // perf's own form: COMPRESSED records of any size, so a record after one whose size is
    // not a multiple of 8 starts unaligned.
    assert!(count(&rec, COMPRESSED) > 0);
    let unpadded_before_another = rec
        .records
        .windows(2)
        .any(|w| w[0].record_type == COMPRESSED && w[0].size % 8 != 0);
    assert_eq!(
        rec.records.iter().any(|r| r.offset % 8 != 0),
        unpadded_before_another
    );
    let original_lines = script_lines(&perf_script(&original, &[]));
    assert!(!original_lines.is_empty());

    // File mode, strict (the default): every record as perf stored it.
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    rewrite(&rec, &mut w);
    let file = w.finish().unwrap().into_inner();
    let again = records(&file);
    assert_eq!(again.records.len(), rec.records.len());
    for (a, b) in again.records.iter().zip(&rec.records) {
        assert_eq!(a.offset % 8, b.offset % 8, "same alignment as perf's");
        assert_eq!(a.full_bytes(), b.full_bytes());
    }
    let out = perf_script_bytes(&file, &[]);
    out.assert_clean();
    assert_eq!(script_lines(&out), original_lines);
    assert_eq!(
        compressed_header_line(&file),
        compressed_header_line(&bytes)
    );
    assert_eq!(lpd_samples(&file), lpd_samples(&bytes));

    // Pipe mode: HEADER_COMPRESSED goes out before the first COMPRESSED record.
    let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    rewrite(&rec, &mut w);
    let pipe = w.finish().unwrap();
    let out = perf_script_stdin(&pipe);
    out.assert_clean();
    assert_eq!(script_lines(&out), original_lines);
    assert_eq!(lpd_samples(&pipe), lpd_samples(&bytes));

    // Strict mode refuses a COMPRESSED record perf could not read: without
    // HEADER_COMPRESSED (in pipe mode at once; in file mode HEADER_COMPRESSED may come
    // later, and finalize waits for it), and while the writer compresses itself.
    let first = rec
        .records
        .iter()
        .find(|r| r.record_type == COMPRESSED)
        .unwrap()
        .full_bytes();
    let refused = |e: WriterError| match e {
        WriterError::Record(RecordError::Refused { problem, .. }) => problem,
        other => panic!("{other:?}"),
    };
    let mut p = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    let e = p.write_event_data(&first).unwrap_err();
    assert_eq!(refused(e), RecordProblem::CompressedWithoutHeader);
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.write_event_data(&first).unwrap();
    assert!(matches!(
        w.finish(),
        Err(WriterError::Record(RecordError::Undescribed(p))) if p.records == 1 && p.type_ == COMPRESSED
    ));
    w.set_header(
        PerfHeaderIndex::Compressed,
        &rec.features[&27], // perf's own HEADER_COMPRESSED
    )
    .unwrap();
    w.set_compression(Some(STREAM)).unwrap();
    let e = w.write_event_data(&first).unwrap_err();
    assert_eq!(refused(e), RecordProblem::CompressedWhileCompressing);
    w.set_compression(None).unwrap();
    // HEADER_COMPRESSED is now the writer's compression's, which goes at finish when the
    // writer compressed nothing: records compressed elsewhere need the caller's own.
    let e = w.write_event_data(&first).unwrap_err();
    assert_eq!(refused(e), RecordProblem::CompressedUnderWritersHeader);
    w.set_header(PerfHeaderIndex::Compressed, &rec.features[&27])
        .unwrap();
    w.write_event_data(&first).unwrap();
    // The same when compression was switched on and off with nothing written, in both
    // modes; with the caller's header set (perf's, by `rewrite`), perf reads the records.
    let mut p = PerfPipeWriter::from_writer(Vec::new()).unwrap();
    p.set_compression(Some(STREAM)).unwrap();
    p.set_compression(None).unwrap();
    let e = p.write_event_data(&first).unwrap_err();
    assert_eq!(refused(e), RecordProblem::CompressedUnderWritersHeader);
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.set_compression(Some(STREAM)).unwrap();
    w.set_compression(None).unwrap();
    let e = w.write_event_data(&first).unwrap_err();
    assert_eq!(refused(e), RecordProblem::CompressedUnderWritersHeader);
    rewrite(&rec, &mut w);
    let file = w.finish().unwrap().into_inner();
    let out = perf_script_bytes(&file, &[]);
    out.assert_clean();
    assert_eq!(script_lines(&out), original_lines);
    // Unchecked, the record goes through as given.
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.set_strict(false);
    w.write_event_data(&first).unwrap();
}

#[test]
fn compression_switched_off_and_on_between_records() {
    // perf's form keeps one stream: switching ends its frame, so the next stream's frame
    // follows a complete one and perf's single decompressor reads on.
    let perf = require_perf();
    for pipe in [false, true] {
        for c in [STREAM, ALIGNED] {
            let plain = write(pipe, Endian::Little, None, 3000, false);
            let bytes_writer = |w: &mut dyn FnMut(Option<Compression>, u64, u64)| {
                w(Some(c), 0, 1000);
                w(None, 1000, 2000);
                w(Some(c), 2000, 3000);
            };
            let e = Endian::Little;
            let sample = |i: u64| {
                StdSample {
                    id: 20,
                    ip: 0x40_0000 + (i * 7919) % 4096,
                    pid: 300,
                    tid: 300 + (i % 3) as u32,
                    time: 10_000 + i * 100,
                    cpu: (i % 2) as u32,
                    period: 4000,
                    raw: None,
                    misc: 2,
                }
                .encode(e)
            };
            let bytes = if pipe {
                let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
                w.add_event_desc(&[20], &attr(LAYOUT), "cpu-clock").unwrap();
                w.set_string_header(PerfHeaderIndex::Hostname, b"zstd-host")
                    .unwrap();
                w.write_event_data(&comm(e, 300, 300, "packer", 1, 20))
                    .unwrap();
                w.write_finished_init().unwrap();
                bytes_writer(&mut |c, from, to| {
                    w.set_compression(c).unwrap();
                    for i in from..to {
                        w.write_event_data(&sample(i)).unwrap();
                    }
                    w.write_finished_round().unwrap();
                });
                w.finish().unwrap()
            } else {
                let mut w =
                    PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
                w.add_event_desc(&[20], &attr(LAYOUT), "cpu-clock").unwrap();
                w.set_string_header(PerfHeaderIndex::Hostname, b"zstd-host")
                    .unwrap();
                w.write_event_data(&comm(e, 300, 300, "packer", 1, 20))
                    .unwrap();
                w.write_finished_init().unwrap();
                bytes_writer(&mut |c, from, to| {
                    w.set_compression(c).unwrap();
                    for i in from..to {
                        w.write_event_data(&sample(i)).unwrap();
                    }
                    w.write_finished_round().unwrap();
                });
                w.finish().unwrap().into_inner()
            };
            let stored = records(&bytes);
            assert_eq!(count(&stored, SAMPLE), 1000, "pipe {pipe} {c:?}");
            assert!(count(&stored, COMPRESSED) >= 2);
            // perf's form: one stream (one frame start) in the whole output.
            let frames = stored
                .records
                .iter()
                .filter(|r| r.record_type == COMPRESSED && r.bytes[8..12] == ZSTD_MAGIC)
                .count();
            if c.form == CompressionForm::PerfStream {
                assert_eq!(frames, 1, "pipe {pipe}");
            }
            assert_eq!(
                lpd_samples(&bytes),
                lpd_samples(&plain),
                "pipe {pipe} {c:?}"
            );
            if perf {
                assert_eq!(
                    script(&bytes, pipe),
                    script(&plain, pipe),
                    "pipe {pipe} {c:?}"
                );
            }
        }
    }
    // After perf's form wrote records, the aligned form would start a second stream.
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.add_event_desc(&[20], &attr(LAYOUT), "cpu-clock").unwrap();
    w.set_compression(Some(STREAM)).unwrap();
    let s = StdSample {
        id: 20,
        ip: 1,
        pid: 1,
        tid: 1,
        time: 2,
        cpu: 0,
        period: 1,
        raw: None,
        misc: 2,
    };
    // Enough records that they shrink: perf's form has started its stream.
    for _ in 0..200 {
        w.write_event_data(&s.encode(Endian::Little)).unwrap();
    }
    w.flush().unwrap();
    for off_first in [false, true] {
        if off_first {
            w.set_compression(None).unwrap();
        }
        assert_eq!(
            w.set_compression(Some(ALIGNED)),
            Err(WriterError::Compression(CompressionError::FormSwitch))
        );
    }
    assert_eq!(w.compression(), None);
    w.set_compression(Some(Compression { level: 9, ..STREAM }))
        .unwrap();
}

#[test]
fn mmap_len_needs_twice_the_largest_chunk_in_perf() {
    // The writer's HEADER_COMPRESSED says mmap_len = 2 x the largest chunk one record
    // decompresses to, the margin perf 6.1's decompression loop needs.
    if !require_perf() {
        return;
    }
    for c in [STREAM, ALIGNED] {
        let bytes = write(false, Endian::Little, Some(c), 3000, false);
        let rec = records(&bytes);
        let header = rec.features[&27].clone();
        let mmap_len = u32::from_le_bytes(header[16..20].try_into().unwrap());
        // The 3000 samples of 56 bytes fit the 256 KiB buffer and the FINISHED_ROUNDs do not
        // end a piece: one piece, the largest (in perf's form with the three rounds in it).
        let rounds_inside = match c.form {
            CompressionForm::PerfStream => 3,
            CompressionForm::Aligned => 0,
        };
        assert_eq!(mmap_len, 2 * (3000 * 56 + 8 * rounds_inside), "{c:?}");
        let with = |mmap_len: u32| {
            let mut h = header.clone();
            h[16..20].copy_from_slice(&mmap_len.to_le_bytes());
            let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
            let mut rec = rec.clone();
            rec.features.insert(27, h);
            rewrite(&rec, &mut w);
            let out = w.finish().unwrap().into_inner();
            perf_script_bytes(&out, &[])
        };
        let ok = with(mmap_len);
        ok.assert_clean();
        assert_eq!(script_lines(&ok).len(), 3000);
        // The chunk itself: the aligned form fails (zstd stops after the complete frame,
        // perf calls it again for the skippable frame with the output position not reset);
        // perf's form, whose records end inside the frame, reads.
        let short = with(mmap_len / 2);
        if c.form == CompressionForm::Aligned {
            assert!(
                short.stderr.contains("Destination buffer is too small"),
                "{c:?}: {}",
                short.stderr
            );
        } else {
            short.assert_clean();
            assert_eq!(script_lines(&short).len(), 3000);
        }
    }
}

/// While compressing, an unfinished record waits in memory in file mode too, so a record
/// split across calls is limited as in pipe mode: an AUXTRACE announcing 1 MiB of payload is
/// refused at the call that begins it (`RecordError::SplitTooLong`), checked or not; the same record
/// in one call is taken, and the file reads.
#[test]
fn a_long_record_split_while_compressing_is_refused_at_its_first_call() {
    let e = Endian::Little;
    const AUXTRACE: u32 = 71;
    let payload = 1u64 << 20;
    let mut head = vec![0u8; 48];
    head[..4].copy_from_slice(&AUXTRACE.to_le_bytes());
    head[6..8].copy_from_slice(&48u16.to_le_bytes());
    head[8..16].copy_from_slice(&payload.to_le_bytes());
    for strict in [true, false] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_strict(strict);
        w.set_compression(Some(ALIGNED)).unwrap();
        fill(&mut w, e, 10, false);
        // The AUXTRACE_INFO an AUXTRACE needs before it (HiSilicon PTT, of PMU type 1).
        let mut info = vec![0u8; 24];
        info[..4].copy_from_slice(&70u32.to_le_bytes());
        info[6..8].copy_from_slice(&24u16.to_le_bytes());
        info[8..12].copy_from_slice(&6u32.to_le_bytes());
        info[16] = 1;
        w.write_event_data(&info).unwrap();
        let err = w.write_event_data(&head).unwrap_err();
        match &err {
            WriterError::Record(RecordError::SplitTooLong { len, max }) => {
                assert_eq!(*len, 48 + payload);
                assert_eq!(*max, perf_writer_std::MAX_SPLIT_RECORD_LEN);
            }
            other => panic!("strict {strict}: {other:?}"),
        }
        assert_eq!(w.partial_record_len(), 0, "nothing held");
        // Whole, in one call: taken.
        let mut whole = head.clone();
        whole.resize(48 + payload as usize, 0x5a);
        w.write_event_data(&whole).unwrap();
        fill_more(&mut w, e);
        let bytes = w.finish().unwrap().into_inner();
        assert_eq!(lpd_samples(&bytes).len(), 11, "strict {strict}");
    }
}

/// One more SAMPLE of [`fill`]'s event.
fn fill_more<O: OutputMode>(w: &mut PerfWriter<O>, e: Endian) {
    let s = StdSample {
        id: 20,
        ip: 0x40_0000,
        pid: 300,
        tid: 300,
        time: 1_000_000,
        cpu: 0,
        period: 4000,
        raw: None,
        misc: 2,
    }
    .encode(e);
    w.write_event_data(&s).unwrap();
}

/// One zstd frame of `bytes` at `level`: the yardstick of a compressed size.
fn one_frame(bytes: &[u8], level: i32) -> usize {
    zstd::bulk::compress(bytes, level).unwrap().len()
}

/// The data section of a file: its records' bytes, in file order.
fn data_bytes(c: &FixtureContent) -> Vec<u8> {
    c.records.iter().flat_map(|r| r.full_bytes()).collect()
}

/// The data section of a file with its COMPRESSED records decompressed, as perf reads
/// them: one zstd stream across the records, each record giving bytes.
fn unpacked_data(c: &FixtureContent) -> Vec<u8> {
    use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
    let mut decoder = Decoder::new().unwrap();
    let (mut out, mut buf) = (Vec::new(), vec![0u8; 1 << 20]);
    for r in &c.records {
        let bytes = r.full_bytes();
        if r.record_type != COMPRESSED {
            out.extend_from_slice(&bytes);
            continue;
        }
        let (mut src, before) = (InBuffer::around(&bytes[8..]), out.len());
        while src.pos() < bytes.len() - 8 {
            let mut dst = OutBuffer::around(&mut buf[..]);
            decoder.run(&mut src, &mut dst).unwrap();
            out.extend_from_slice(dst.as_slice());
        }
        assert!(out.len() > before, "a COMPRESSED record gives no bytes");
    }
    out
}

/// The ratio HEADER_COMPRESSED says (`perf report --header-only`).
fn header_ratio(bytes: &[u8]) -> u32 {
    let line = compressed_header_line(bytes);
    line.rsplit("ratio = ")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// A real `perf record` trace (perf 6.1, getppid syscalls and sched_switch, a FINISHED_ROUND
/// every ~13 records) rewritten compressed, in file and pipe mode: perf script prints what it
/// prints for the recording, linux-perf-data reads the same samples, a few rounds stay
/// outside COMPRESSED records, HEADER_COMPRESSED's ratio is the records' bytes over the
/// COMPRESSED records', and the size is within 5% of one zstd frame of the plain rewrite's
/// data section (perf's rounds in it).
///
/// The aligned form leaves the other rounds out. perf's form compresses them in their place
/// (this trace's frame is 14% smaller with perf's rounds in it than without at levels 1–3:
/// zstd's fast match finders): its COMPRESSED records decompress to the plain data section
/// byte for byte, and perf sees every round (`perf script --show-round-events`).
#[test]
fn a_perf_recording_with_perfs_rounds_rewritten_compressed() {
    let perf = require_perf();
    let bytes = integration_tests::fixtures::read_fixture("rounds_getppid.data");
    let rec = records(&bytes);
    let rounds_before = count(&rec, 68);
    assert!(rounds_before > 1000, "{rounds_before} rounds");
    let write_file = |c: Option<Compression>| {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_compression(c).unwrap();
        rewrite(&rec, &mut w);
        w.finish().unwrap().into_inner()
    };
    let plain = write_file(None);
    let plain_records = records(&plain);
    let plain_data = data_bytes(&plain_records);
    let without_rounds: Vec<u8> = plain_records
        .records
        .iter()
        .filter(|r| r.record_type != 68)
        .flat_map(|r| r.full_bytes())
        .collect();
    let plain_samples = lpd_samples(&plain);
    assert_eq!(plain_samples.len(), 20_133);
    let original_lines = perf.then(|| {
        let path = integration_tests::fixtures::fixture_path("rounds_getppid.data");
        let out = perf_script(&path, &[]);
        out.assert_clean();
        let lines = script_lines(&out);
        assert!(
            script(&plain, false) == lines,
            "the plain rewrite's perf script differs"
        );
        lines
    });
    // The records HEADER_COMPRESSED's ratio is about: the kernel records after
    // FINISHED_INIT (that record and the rounds are taken out below).
    let before_init: usize = plain_records
        .records
        .iter()
        .take_while(|r| r.record_type != 82)
        .map(|r| r.full_bytes().len())
        .sum();
    let records_in = plain_data.len() - before_init - 8 - 8 * rounds_before;
    for form in [CompressionForm::Aligned, CompressionForm::PerfStream] {
        let level = 1;
        let c = Compression { level, form };
        let what = format!("{c:?}");
        let file = write_file(Some(c));
        let stored = records(&file);
        let data = data_bytes(&stored);
        // Rounds left out where the pieces go on: one kept per 128–512 KiB of records.
        let kept = count(&stored, 68);
        assert!((3..=13).contains(&kept), "{what}: {kept} rounds kept");
        assert_eq!(count(&stored, SAMPLE), 0, "{what}");
        let unpacked = unpacked_data(&stored);
        let rounds_seen = match form {
            CompressionForm::Aligned => {
                assert_eq!(
                    unpacked.len(),
                    plain_data.len() - 8 * (rounds_before - kept)
                );
                kept
            }
            CompressionForm::PerfStream => {
                assert!(unpacked == plain_data, "{what}: not the plain data section");
                // 1.6 MB of records: a second frame (one per MiB), the first ended at the
                // start of its first record.
                let new_frames = stored
                    .records
                    .iter()
                    .filter(|r| r.record_type == COMPRESSED)
                    .filter(|r| r.full_bytes()[8..].starts_with(&[1, 0, 0, 0x28, 0xb5, 0x2f, 0xfd]))
                    .count();
                assert_eq!(new_frames, 1, "{what}");
                rounds_before
            }
        };
        let frame = one_frame(&plain_data, level);
        let size = data.len() as f64 / frame as f64;
        eprintln!(
            "{what}: {} bytes, {size:.3}x one frame of the plain data, {:.3}x one frame of the records without rounds",
            data.len(),
            data.len() as f64 / one_frame(&without_rounds, level) as f64
        );
        assert!(size <= 1.05, "{what}: {size:.3}");
        assert!(lpd_samples(&file) == plain_samples, "{what}");
        // linux-perf-data takes the rounds outside COMPRESSED records as rounds and returns
        // those inside as user records.
        let lpd_rounds = lpd::read_any(&file).unwrap().count(68);
        assert_eq!(
            lpd_rounds as usize,
            rounds_seen - kept,
            "{what}: rounds linux-perf-data returns"
        );
        if let Some(lines) = &original_lines {
            assert!(
                &script(&file, false) == lines,
                "{what}: perf script differs"
            );
            let rounds = perf_script_bytes(&file, &["--show-round-events"]);
            rounds.assert_clean();
            let printed = rounds
                .stdout
                .lines()
                .filter(|l| l.trim() == "PERF_RECORD_FINISHED_ROUND")
                .count();
            assert_eq!(printed, rounds_seen, "{what}: rounds perf sees");
            let compressed_in = records_in + 8 * (rounds_seen - kept);
            let packed: usize = stored
                .records
                .iter()
                .filter(|r| r.record_type == COMPRESSED)
                .map(|r| r.full_bytes().len())
                .sum();
            let ratio = (compressed_in + packed / 2) / packed;
            assert!(ratio > 20, "{what}: {ratio}");
            assert_eq!(header_ratio(&file), ratio as u32, "{what}");
        }
        // Pipe mode, from stdin (linux-perf-data 0.13 needs the tracing data's payload
        // taken out of a pipe stream, see `lpd`).
        let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
        w.set_compression(Some(c)).unwrap();
        rewrite(&rec, &mut w);
        let pipe = w.finish().unwrap();
        let pipe_samples: Vec<(u64, u64, i32)> = lpd::read_pipe_without_tracing_payload(&pipe)
            .unwrap()
            .records
            .iter()
            .filter_map(|r| r.sample.as_ref())
            .map(|s| (s.time.unwrap(), s.ip.unwrap(), s.tid.unwrap()))
            .collect();
        assert!(pipe_samples == plain_samples, "{what}, pipe");
        if let Some(lines) = &original_lines {
            assert!(
                &script(&pipe, true) == lines,
                "{what}, pipe: perf script differs"
            );
        }
    }
}

/// Where [`cadence_trace`] puts FINISHED_ROUND records and flushes.
#[derive(Clone, Copy, Debug)]
struct Cadence {
    round_every: Option<u64>,
    flush_every: Option<u64>,
}

/// [`fill`]'s initial state, then `n` samples with FINISHED_ROUND records and flushes at
/// `cadence`. Their ips come from 512 addresses, tids from 8 threads, times rise by a random
/// step (as the compression bench's): repetitive as real traces are, with no long-range
/// pattern a single frame would find and pieces of 256 KiB could not.
fn cadence_trace<O: OutputMode>(w: &mut PerfWriter<O>, n: u64, cadence: Cadence) {
    let e = Endian::Little;
    w.add_event_desc(&[20], &attr(LAYOUT), "cpu-clock").unwrap();
    w.set_string_header(PerfHeaderIndex::Hostname, b"zstd-host")
        .unwrap();
    w.write_event_data(&comm(e, 300, 300, "packer", 1, 20))
        .unwrap();
    w.write_finished_init().unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut time = 10_000u64;
    for i in 1..=n {
        seed = xorshift(seed);
        time += 1000 + (seed >> 40) % 4000;
        let s = StdSample {
            id: 20,
            ip: 0x40_0000 + ((seed >> 8) % 512) * 0x40,
            pid: 300,
            tid: 300 + (seed % 8) as u32,
            time,
            cpu: ((seed >> 20) % 2) as u32,
            period: 4000,
            raw: None,
            misc: 2,
        };
        w.write_event_data(&s.encode(e)).unwrap();
        if cadence.round_every.is_some_and(|k| i % k == 0) {
            w.write_finished_round().unwrap();
        }
        if cadence.flush_every.is_some_and(|k| i % k == 0) {
            w.flush().unwrap();
        }
    }
}

fn cadence_bytes(pipe: bool, c: Option<Compression>, n: u64, cadence: Cadence) -> Vec<u8> {
    if pipe {
        let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
        w.set_compression(c).unwrap();
        cadence_trace(&mut w, n, cadence);
        w.finish().unwrap()
    } else {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_compression(c).unwrap();
        cadence_trace(&mut w, n, cadence);
        w.finish().unwrap().into_inner()
    }
}

/// Whatever the cadence of FINISHED_ROUND records and flushes, both forms give what perf
/// script and linux-perf-data read from the uncompressed output, never more bytes than it,
/// and, at perf's cadence (a round every 20 records, in a file or in a pipe flushed every
/// 1,000 records), at most 1.05x one zstd frame of the uncompressed records. A flush after
/// every record leaves the aligned form's records uncompressed: the file is the
/// uncompressed one, byte for byte (HEADER_COMPRESSED included: none).
#[test]
fn any_cadence_of_rounds_and_flushes_reads_the_same_and_never_grows() {
    let perf = require_perf();
    let n = 20_000;
    // (pipe, a round every, a flush every, held to 1.05x one frame)
    let cadences = [
        (false, Some(20), None, true),
        (true, Some(20), Some(1000), true),
        (false, Some(1), None, false),
        (false, None, Some(1), false),
        (true, None, Some(1), false),
        (true, Some(1), Some(1), false),
    ];
    for (pipe, round_every, flush_every, within_5_percent) in cadences {
        let cadence = Cadence {
            round_every,
            flush_every,
        };
        let plain = cadence_bytes(pipe, None, n, cadence);
        let plain_data: Vec<u8> = records(&plain)
            .records
            .iter()
            .filter(|r| r.record_type < 64 || r.record_type == 68)
            .flat_map(|r| r.full_bytes())
            .collect();
        let plain_samples = lpd_samples(&plain);
        assert_eq!(plain_samples.len() as u64, n);
        let plain_lines = perf.then(|| script(&plain, pipe));
        for form in [CompressionForm::Aligned, CompressionForm::PerfStream] {
            let c = Compression { level: 1, form };
            let what = format!("pipe {pipe}, {cadence:?}, {form:?}");
            let bytes = cadence_bytes(pipe, Some(c), n, cadence);
            assert!(
                bytes.len() <= plain.len(),
                "{what}: {} > {}",
                bytes.len(),
                plain.len()
            );
            if within_5_percent {
                let data: usize = records(&bytes)
                    .records
                    .iter()
                    .filter(|r| matches!(r.record_type, 0..=63 | 68 | COMPRESSED))
                    .map(|r| r.full_bytes().len())
                    .sum();
                let size = data as f64 / one_frame(&plain_data, 1) as f64;
                assert!(size <= 1.05, "{what}: {size:.3}");
            }
            if form == CompressionForm::Aligned && flush_every == Some(1) {
                // Nothing compressed: no HEADER_COMPRESSED, in a pipe stream too, and without
                // rounds the uncompressed output byte for byte.
                let stored = records(&bytes);
                assert_eq!(count(&stored, COMPRESSED), 0, "{what}");
                assert!(!stored.features.contains_key(&27), "{what}");
                if round_every.is_none() {
                    assert!(bytes == plain, "{what}: not the uncompressed output");
                }
            }
            if form == CompressionForm::PerfStream {
                // Every record and round in its place, some rounds inside COMPRESSED records.
                let mut unpacked = &unpacked_data(&records(&bytes))[..];
                let mut kernel_and_rounds = Vec::new();
                while !unpacked.is_empty() {
                    let size = usize::from(u16::from_le_bytes([unpacked[6], unpacked[7]]));
                    let (record, rest) = unpacked.split_at(size);
                    let type_ = u32::from_le_bytes(record[..4].try_into().unwrap());
                    if type_ < 64 || type_ == 68 {
                        kernel_and_rounds.extend_from_slice(record);
                    }
                    unpacked = rest;
                }
                assert!(kernel_and_rounds == plain_data, "{what}: records differ");
            }
            assert!(lpd_samples(&bytes) == plain_samples, "{what}");
            if let Some(lines) = &plain_lines {
                assert!(
                    &script(&bytes, pipe) == lines,
                    "{what}: perf script differs"
                );
            }
        }
    }
}

/// Runs of repetitive samples flushed once, between runs of samples of 252 random bytes of
/// RAW and a random IP flushed one by one (pieces that do not compress, even on zstd's
/// history of the runs before: the event's samples are IP and RAW alone). Both forms write those as they are, perf's
/// form going on in a new zstd frame after each; perf and linux-perf-data read what they read
/// from the uncompressed output.
#[test]
fn pieces_that_do_not_compress_go_out_as_they_are_in_both_forms() {
    /// Hands each record to its argument, and whether a flush follows it.
    type Trace = dyn Fn(&mut dyn FnMut(&[u8], bool));
    let perf = require_perf();
    let trace = |w: &mut dyn FnMut(&[u8], bool)| {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut raw = [0u8; 252];
        for run in 0..40u64 {
            let noisy = run % 2 == 1;
            for i in 0..if noisy { 30 } else { 500 } {
                for (k, b) in raw.chunks_mut(8).enumerate() {
                    seed = xorshift(seed);
                    let word = if noisy {
                        seed
                    } else {
                        (i % 16) * 64 + k as u64
                    };
                    b.copy_from_slice(&word.to_le_bytes()[..b.len()]);
                }
                seed = xorshift(seed);
                let ip = if noisy {
                    seed
                } else {
                    0x40_0000 + (i % 64) * 0x40
                };
                let record = RecordBuilder::new(Endian::Little, SAMPLE, 2)
                    .u64(ip)
                    .u32(raw.len() as u32)
                    .bytes(&raw)
                    .finish();
                w(&record, noisy || i == 499);
            }
        }
    };
    let write = |pipe: bool, c: Option<Compression>| -> Vec<u8> {
        fn go<O: OutputMode>(w: &mut PerfWriter<O>, trace: &Trace) {
            w.add_event_desc(&[20], &attr(sample::IP | sample::RAW), "cpu-clock")
                .unwrap();
            trace(&mut |record, flush| {
                w.write_event_data(record).unwrap();
                if flush {
                    w.flush().unwrap();
                }
            });
        }
        if pipe {
            let mut w = PerfPipeWriter::from_writer(Vec::new()).unwrap();
            w.set_compression(c).unwrap();
            go(&mut w, &trace);
            w.finish().unwrap()
        } else {
            let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
            w.set_compression(c).unwrap();
            go(&mut w, &trace);
            w.finish().unwrap().into_inner()
        }
    };
    for pipe in [false, true] {
        let plain = write(pipe, None);
        let mut plain_sorted = lpd_raw(&plain);
        assert_eq!(plain_sorted.len(), 20 * 500 + 20 * 30);
        plain_sorted.sort();
        let plain_lines = perf.then(|| script(&plain, pipe));
        for form in [CompressionForm::Aligned, CompressionForm::PerfStream] {
            let what = format!("pipe {pipe}, {form:?}");
            let bytes = write(pipe, Some(Compression { level: 1, form }));
            let stored = records(&bytes);
            // The repetitive runs compress; the noisy records go out as they are.
            let outside = count(&stored, SAMPLE);
            assert_eq!(
                outside,
                20 * 30,
                "{what}: samples outside COMPRESSED records"
            );
            assert!(count(&stored, COMPRESSED) >= 20, "{what}");
            assert!(
                bytes.len() < plain.len() / 2,
                "{what}: {} bytes",
                bytes.len()
            );
            // The samples carry no time: linux-perf-data hands those inside COMPRESSED
            // records and those outside in an order of its own, so it is held to the same
            // samples; perf script, below, to the same lines in the same order.
            let mut got = lpd_raw(&bytes);
            got.sort();
            assert!(got == plain_sorted, "{what}");
            if let Some(lines) = &plain_lines {
                assert!(
                    &script(&bytes, pipe) == lines,
                    "{what}: perf script differs"
                );
            }
        }
    }
}

/// The RAW payload of every sample linux-perf-data reads from `bytes`.
fn lpd_raw(bytes: &[u8]) -> Vec<Vec<u8>> {
    let summary = lpd::read_any(bytes).unwrap_or_else(|e| panic!("linux-perf-data: {e}"));
    assert!(summary.records_with_parse_errors().is_empty());
    summary
        .records
        .iter()
        .filter_map(|r| r.sample.as_ref())
        .map(|s| s.raw.clone().expect("RAW"))
        .collect()
}

/// Events whose records carry a time next to events whose records do not (both with
/// sample_id_all): perf hands the untimed records on as it reads them, so where the
/// FINISHED_ROUND records are decides where they print. Every round stays where it was (with
/// the rounds left out, perf script prints the untimed samples elsewhere), from the moment the
/// untimed event is added, whether the rounds come from `write_finished_round` or as bytes.
#[test]
fn every_round_stays_when_timed_and_untimed_events_mix() {
    let perf = require_perf();
    let e = Endian::Little;
    let untimed = sample::IDENTIFIER | sample::IP | sample::TID | sample::CPU | sample::PERIOD;
    let round = RecordBuilder::new(e, 68, 0).finish();
    let write = |c: Option<Compression>, strict: bool| {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_strict(strict);
        w.set_compression(c).unwrap();
        w.add_event_desc(&[20], &attr(LAYOUT), "cpu-clock").unwrap();
        w.write_event_data(&comm(e, 300, 300, "packer", 1, 20))
            .unwrap();
        w.write_finished_init().unwrap();
        let first = StdSample {
            id: 20,
            ip: 0x40_0000,
            pid: 300,
            tid: 300,
            time: 9_000,
            cpu: 0,
            period: 4000,
            raw: None,
            misc: 2,
        };
        w.write_event_data(&first.encode(e)).unwrap();
        w.add_event_desc(&[21], &attr(untimed), "task-clock")
            .unwrap();
        for i in 0..3000u64 {
            // Times out of order within a round, as perf's per-CPU buffers give them.
            let timed = StdSample {
                id: 20,
                ip: 0x40_0000 + i,
                pid: 300,
                tid: 300,
                time: 10_000 + (i / 10) * 1000 + (9 - i % 10) * 10,
                cpu: 0,
                period: 4000,
                raw: None,
                misc: 2,
            };
            w.write_event_data(&timed.encode(e)).unwrap();
            if i % 10 == 9 {
                // IDENTIFIER, IP, TID, CPU, PERIOD: no time.
                let s = RecordBuilder::new(e, SAMPLE, 2)
                    .u64(21)
                    .u64(0x50_0000 + i)
                    .u32(300)
                    .u32(301)
                    .u32(1)
                    .u32(0)
                    .u64(1)
                    .finish();
                w.write_event_data(&s).unwrap();
                if i % 20 == 19 {
                    w.write_finished_round().unwrap();
                } else {
                    w.write_event_data(&round).unwrap();
                }
            }
        }
        w.finish().unwrap().into_inner()
    };
    let plain = write(None, true);
    let plain_lines = perf.then(|| script(&plain, false));
    for strict in [true, false] {
        for form in [CompressionForm::Aligned, CompressionForm::PerfStream] {
            let what = format!("strict {strict}, {form:?}");
            let bytes = write(Some(Compression { level: 1, form }), strict);
            assert_eq!(count(&records(&bytes), 68), 300, "{what}");
            if let Some(plain_lines) = &plain_lines {
                let lines = script(&bytes, false);
                assert_eq!(lines.len(), 3301, "{what}");
                assert!(&lines == plain_lines, "{what}: perf script differs");
            }
        }
    }
}

/// perf's form meeting records that hardly compress after ones that do: zstd's blocks of
/// them would be longer than a COMPRESSED record (one that decompressed to nothing), so the
/// stream goes on in a new frame of short blocks, the old frame ended by an empty last block
/// at the start of the new one's first record. perf 6.1 and linux-perf-data read it all.
#[test]
fn perfs_form_goes_on_in_a_new_frame_when_records_stop_compressing() {
    let perf = require_perf();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = move || {
        seed = xorshift(seed);
        seed
    };
    let raws: Vec<Vec<u8>> = (0..300)
        .map(|_| (0..2044).map(|_| random() as u8).collect())
        .collect();
    let write = |c: Option<Compression>| {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        w.set_compression(c).unwrap();
        w.add_event_desc(&[7], &attr(LAYOUT | sample::RAW), "cpu-clock")
            .unwrap();
        for i in 0..4000u64 {
            let raw = [(i % 7) as u8; 20];
            let long_raw = raws.get((i as usize).wrapping_sub(3000));
            let s = StdSample {
                id: 7,
                ip: 0x40_0000 + i % 64,
                pid: 1,
                tid: 1,
                time: 1000 + i,
                cpu: 0,
                period: 1,
                raw: Some(long_raw.map_or(&raw[..], |r| &r[..])),
                misc: 2,
            };
            w.write_event_data(&s.encode(Endian::Little)).unwrap();
            if i == 2999 {
                w.flush().unwrap(); // the compressible samples go out first
            }
        }
        w.finish().unwrap().into_inner()
    };
    let plain = write(None);
    let bytes = write(Some(STREAM));
    let payloads: Vec<Vec<u8>> = records(&bytes)
        .records
        .iter()
        .filter(|r| r.record_type == COMPRESSED)
        .map(|r| r.bytes[8..].to_vec())
        .collect();
    let starts = |prefix: &[u8]| payloads.iter().filter(|p| p.starts_with(prefix)).count();
    assert_eq!(starts(&ZSTD_MAGIC), 1);
    assert_eq!(starts(&[[1, 0, 0].as_slice(), &ZSTD_MAGIC].concat()), 1);
    assert!(lpd_samples(&bytes) == lpd_samples(&plain));
    if perf {
        let lines = script(&bytes, false);
        assert_eq!(lines.len(), 4000);
        assert!(lines == script(&plain, false), "perf script differs");
    }
}
