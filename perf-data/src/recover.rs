//! `recover`: a file-mode perf.data whose writer died before finalize, written again as a
//! whole file holding every whole record that reached the disk.
//!
//! perf-writer-std's file mode writes a zeroed header, then, before the first record, a
//! recovery block holding the file as it would be finalized with no records (see
//! [`perf_writer_std::recovery_block`]), then the records. Recover reads the events and
//! features from the block's image, walks the data after it up to the last whole record
//! (the first bytes that do not frame as a record end it), and writes them through the
//! writer as `convert` does: COMPRESSED records are expanded, and a record they begin and do
//! not finish is left out.
//!
//! The block holds the descriptions as they stood at the writer's last record or flush
//! (the writer writes them there again when they change). What it cannot give back:
//! descriptions that outgrew the block's room, or were added after the last record and
//! flush (the records of an event no description of the block has are left out and
//! counted, since perf cannot read a record it cannot give to an event); features the
//! writer derives at finalize (SAMPLE_TIME, build ids a recorder adds at the end). A file
//! whose writer had no event described at its first record, or could not encode its
//! descriptions then (a tracepoint format still missing), has no block and cannot be
//! recovered.
//!
//! A file that already has perf's header (finalized, or a stream) needs no recovery: it is
//! written again as `convert` writes it.

use crate::convert::{convert, ConvertOptions};
use crate::decompress::Decompressor;
use crate::error::DataError;
use crate::read::{endian_of_magic, parse, record_at, u32_at, u64_at};
use crate::trace::{Mode, RecordRef, Trace};
use perf_abi::{attr_flags, record_type};
use perf_writer_std::perf_encode::records::SampleLayout;
use perf_writer_std::recovery_block::{find_recovery_block, RECOVERY_BLOCK_AT};
use std::collections::HashSet;
use std::path::Path;

/// What `recover` found and kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovered {
    /// The input already had perf's header: it was written again as it was.
    pub already_whole: bool,
    /// Whole records of the data section kept (COMPRESSED records counted as one each).
    pub records: usize,
    /// Bytes at the end of the data that make no whole record, left out.
    pub cut_tail: usize,
    /// Whole records left out: their event id is not among the block's descriptions.
    pub undescribed: usize,
}

/// Recovers `bytes` (read from `input`) into `out` (`-` for stdout).
///
/// # Errors
///
/// [`DataError`]: the input has neither perf's header nor a usable recovery block, the
/// block's image cannot be read, the writer refuses what the file holds, or the output
/// cannot be written. A file OUT is then left as it was.
pub fn recover(input: &Path, bytes: Vec<u8>, out: &Path) -> Result<Recovered, DataError> {
    let has_header = endian_of_magic(&bytes).is_some();
    let has_block = find_recovery_block(&bytes).is_ok();
    if has_header {
        // A writer that went on after a finalize leaves a header that no longer fits what
        // follows it: the recovery block then says what the records are.
        let whole = if has_block {
            rewrite_whole(input, bytes.clone(), out)
        } else {
            return rewrite_whole(input, bytes, out);
        };
        if whole.is_ok() {
            return whole;
        }
    }
    let mut trace = recoverable_trace(input, bytes, has_header)?;
    expand_compressed(&mut trace)?;
    let undescribed = keep_described(&mut trace);
    // COMPRESSED records are expanded above: a record they begin and do not finish is
    // left out there.
    let opts = ConvertOptions {
        to: Some(Mode::File),
        ..ConvertOptions::default()
    };
    convert(&trace, out, &opts)?;
    Ok(Recovered {
        already_whole: false,
        records: trace.records.len(),
        cut_tail: trace.cut_tail,
        undescribed,
    })
}

/// Replaces the trace's COMPRESSED records by the records they hold (appended to its
/// bytes), so that each is kept or left out on its own; a record they begin and do not
/// finish is left out.
///
/// # Errors
///
/// [`DataError::BadInput`] when the COMPRESSED payloads do not decompress to records.
fn expand_compressed(trace: &mut Trace) -> Result<(), DataError> {
    if !trace.has_compressed() {
        return Ok(());
    }
    let mut decompressor = Decompressor::new(trace.endian)
        .map_err(|e| DataError::bad(&trace.path, format!("zstd: {e}")))?;
    let mut expanded = Vec::new();
    let mut records = Vec::with_capacity(trace.records.len());
    for r in std::mem::take(&mut trace.records) {
        if r.type_ != record_type::COMPRESSED {
            records.push(r);
            continue;
        }
        let payload = trace
            .bytes
            .get(r.range.start.saturating_add(8)..r.range.end);
        let fed = decompressor.feed(payload.unwrap_or_default(), |rec| {
            let start = trace.bytes.len().saturating_add(expanded.len());
            expanded.extend_from_slice(rec);
            let type_ = u32_at(rec, 0, trace.endian).unwrap_or(0);
            records.push(RecordRef {
                type_,
                range: start..start.saturating_add(rec.len()),
            });
            Ok::<(), ()>(())
        });
        if let Err(e) = fed {
            let at = r.range.start;
            return Err(DataError::bad(
                &trace.path,
                format!("COMPRESSED record at byte {at}: {e}"),
            ));
        }
    }
    trace.bytes.extend_from_slice(&expanded);
    trace.records = records;
    Ok(())
}

/// A file with perf's header, written again as `convert` writes it.
fn rewrite_whole(input: &Path, bytes: Vec<u8>, out: &Path) -> Result<Recovered, DataError> {
    let trace = parse(input, bytes)?;
    let cut_tail = trace.cut_tail;
    let records = trace.records.len();
    convert(&trace, out, &ConvertOptions::default())?;
    Ok(Recovered {
        already_whole: true,
        records,
        cut_tail,
        undescribed: 0,
    })
}

/// Leaves out the kernel records whose event id (where the first event's layout puts it:
/// perf requires every event to put it at the same place) belongs to no event of the
/// trace; returns how many. Records without an id, or with id 0 (synthesized), stay.
fn keep_described(trace: &mut Trace) -> usize {
    let Some(first) = trace.events.first() else {
        return 0;
    };
    let known: HashSet<u64> = trace
        .events
        .iter()
        .flat_map(|e| e.ids.iter().copied())
        .collect();
    if known.is_empty() {
        return 0;
    }
    let layout = SampleLayout {
        sample_type: first.attr.sample_type.0,
        sample_id_all: first.attr.options.0 & attr_flags::SAMPLE_ID_ALL != 0,
        ..SampleLayout::default()
    };
    let endian = trace.endian;
    let before = trace.records.len();
    let bytes = &trace.bytes;
    trace.records.retain(|r| {
        let record = &bytes[r.range.clone()];
        let at = match r.type_ {
            record_type::SAMPLE => layout.sample_id_offset(),
            t if !record_type::is_user(t) => layout
                .trailer_id_offset_from_end()
                .and_then(|back| record.len().checked_sub(back)),
            _ => None,
        };
        match at.and_then(|at| u64_at(record, at, endian)) {
            Some(id) => id == 0 || known.contains(&id),
            None => true,
        }
    });
    before - trace.records.len()
}

/// The trace a killed writer's file holds: the recovery block's events and features, and
/// the whole records after it. `stale_header`: the file has perf's header, written by a
/// finalize its writer went on after; otherwise the header must be the writer's zeros.
///
/// # Errors
///
/// [`DataError::NotPerfData`] when the header is neither perf's nor zeroed;
/// [`DataError::BadInput`] when there is no usable recovery block.
pub fn recoverable_trace(
    input: &Path,
    bytes: Vec<u8>,
    stale_header: bool,
) -> Result<Trace, DataError> {
    let header = bytes.get(..RECOVERY_BLOCK_AT).unwrap_or(&bytes);
    let zeroed = header.iter().all(|&b| b == 0);
    if !(zeroed || stale_header) || bytes.len() < RECOVERY_BLOCK_AT {
        return Err(DataError::NotPerfData {
            path: input.to_path_buf(),
            magic: bytes.iter().take(8).copied().collect(),
        });
    }
    let block = find_recovery_block(&bytes)
        .map_err(|e| DataError::bad(input, format!("cannot recover: {e}")))?;
    let image = parse(input, block.image.to_vec())
        .map_err(|e| DataError::bad(input, format!("cannot recover: its recovery block: {e}")))?;
    if image.mode != Mode::File || image.endian != block.endian {
        return Err(DataError::bad(
            input,
            "cannot recover: the recovery block's image is not a file of the block's byte order",
        ));
    }
    let (endian, data_start) = (block.endian, block.data_start);
    let (records, cut_tail) = whole_records(&bytes, data_start, endian);
    Ok(Trace {
        path: input.to_path_buf(),
        bytes,
        endian,
        mode: Mode::File,
        events: image.events,
        features: image.features,
        records,
        cut_tail,
    })
}

/// The whole records from `start`, up to the first bytes that do not make one (cut short,
/// or never written: a size its type cannot have ends the walk as well), and how many bytes
/// are left after them.
fn whole_records(
    bytes: &[u8],
    start: usize,
    endian: perf_writer_std::Endian,
) -> (Vec<RecordRef>, usize) {
    let mut records = Vec::new();
    let mut pos = start;
    while let Ok(Some(r)) = record_at(bytes, pos, bytes.len(), endian) {
        pos = r.range.end;
        records.push(r);
    }
    (records, bytes.len().saturating_sub(pos))
}
