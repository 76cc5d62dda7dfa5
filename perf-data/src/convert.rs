//! `convert`: a trace written again by perf-writer-std, in the mode, byte order and
//! compression asked for, with every event, feature and record of the input.

use crate::byte_swap::{in_output_order, Swap};
use crate::decompress::Decompressor;
use crate::error::DataError;
use crate::output::{commit, to_stdout, Sink};
use crate::read::u64_at;
use crate::trace::{Mode, Trace};
use linux_perf_data::PerfFileReader;
use perf_abi::{feature, record_type};
use perf_writer_std::perf_encode::features::read_compressed_info;
use perf_writer_std::perf_encode::Endian;
use perf_writer_std::{
    Compression, FileOutput, OutputMode, PerfHeaderIndex, PerfPipeWriter, PerfWriter, WriterError,
};
use std::io::{Cursor, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// What `convert` writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvertOptions {
    /// File or pipe mode; the input's when `None`.
    pub to: Option<Mode>,
    /// Compress the records (the input's COMPRESSED records are expanded first).
    pub compress: Option<Compression>,
    /// Expand the input's COMPRESSED records (without `compress`: write them plain).
    pub decompress: bool,
    /// The output's byte order; the input's when `None`. In the other byte order every
    /// record and feature payload is swapped ([`Swap`]), COMPRESSED records expanded and
    /// compressed again at the input's level unless `decompress` or `compress` say otherwise.
    pub endian: Option<Endian>,
}

/// Records only a stream has: their content is the file header's in file mode, and the
/// writer makes its own in pipe mode.
const STREAM_HEADER_RECORDS: [u32; 3] = [
    record_type::HEADER_ATTR,
    record_type::HEADER_TRACING_DATA,
    record_type::HEADER_FEATURE,
];

/// EVENT_UPDATE's type for a name.
const EVENT_UPDATE_NAME: u64 = 2;

/// Writes `trace` to `out` (`-` for stdout) as `opts` says.
///
/// # Errors
///
/// [`DataError`]: the writer refused part of the input (naming it), the input's
/// COMPRESSED records do not decompress, or the output cannot be written. A file OUT is
/// then left as it was.
pub fn convert(trace: &Trace, out: &Path, opts: &ConvertOptions) -> Result<(), DataError> {
    let to = opts.to.unwrap_or(trace.mode);
    let endian = opts.endian.unwrap_or(trace.endian);
    let swap = match endian == trace.endian {
        true => None,
        false => Some(Swap::new(trace, to, endian)?),
    };
    let swap = swap.as_ref();
    let sink = Sink::create(out)?;
    let out_path = sink.path();
    let werr = |source: WriterError| DataError::WriteOutput {
        path: out_path.clone(),
        source: source.into(),
    };
    match (to, sink) {
        (Mode::File, Sink::File { path, tmp }) => {
            let w =
                PerfWriter::<FileOutput<_>>::from_writer_with_endian(tmp, endian).map_err(werr)?;
            let tmp = fill(trace, opts, to, swap, w)?;
            check_then_commit(trace, Mode::File, &path, tmp)
        }
        (Mode::File, Sink::Stdout) => {
            let w = PerfWriter::<FileOutput<_>>::from_writer_with_endian(
                Cursor::new(Vec::new()),
                endian,
            )
            .map_err(werr)?;
            let out = fill(trace, opts, to, swap, w)?.into_inner();
            check_readable(trace, Mode::File, Cursor::new(&out[..]))?;
            to_stdout(&out)
        }
        (Mode::Pipe, Sink::File { path, tmp }) => {
            let w = PerfPipeWriter::from_writer_with_endian(tmp, endian).map_err(werr)?;
            let tmp = fill(trace, opts, to, swap, w)?;
            check_then_commit(trace, Mode::Pipe, &path, tmp)
        }
        (Mode::Pipe, Sink::Stdout) => {
            let w = PerfPipeWriter::from_writer_with_endian(std::io::stdout().lock(), endian)
                .map_err(werr)?;
            fill(trace, opts, to, swap, w)?
                .flush()
                .map_err(|source| DataError::WriteOutput {
                    path: "-".into(),
                    source,
                })
        }
    }
}

/// Writes `tmp`, the finished output in `mode`, to `path` once linux-perf-data opens it.
fn check_then_commit(
    trace: &Trace,
    mode: Mode,
    path: &Path,
    mut tmp: tempfile::NamedTempFile,
) -> Result<(), DataError> {
    tmp.seek(SeekFrom::Start(0))
        .map_err(|source| DataError::WriteOutput {
            path: path.to_path_buf(),
            source,
        })?;
    check_readable(trace, mode, std::io::BufReader::new(tmp.as_file_mut()))?;
    commit(path, tmp)
}

/// Refuses an output linux-perf-data cannot open (a file's header, attrs and feature
/// sections; a stream's header records): the writer takes attr fields as given, and an
/// input whose attrs perf itself refuses would otherwise leave an OUT that looks whole.
/// (A stream to stdout is written as it goes, and not checked.)
fn check_readable(trace: &Trace, mode: Mode, out: impl Read + Seek) -> Result<(), DataError> {
    let (parsed, what) = match mode {
        Mode::File => (PerfFileReader::parse_file(out).map(drop), "file"),
        Mode::Pipe => (PerfFileReader::parse_pipe(out).map(drop), "stream"),
    };
    parsed.map_err(|e| {
        DataError::bad(
            &trace.path,
            format!("what it holds makes a {what} linux-perf-data cannot open: {e}"),
        )
    })
}

/// Gives the writer the trace's events, features and records, and finishes it.
fn fill<O: OutputMode>(
    trace: &Trace,
    opts: &ConvertOptions,
    to: Mode,
    swap: Option<&Swap<'_>>,
    mut w: PerfWriter<O>,
) -> Result<O::Stream, DataError> {
    let path = &trace.path;
    let refused = |what: String| {
        move |source: WriterError| DataError::Writer {
            path: path.clone(),
            what,
            source,
        }
    };
    // Records in the other byte order are swapped one by one: COMPRESSED records are
    // expanded, and compressed again (at the input's level) unless `decompress` says not.
    let compress = match (swap, opts.compress) {
        (Some(_), None) if !opts.decompress && trace.has_compressed() => {
            Some(Compression::zstd(input_level(trace)))
        }
        (_, c) => c,
    };
    let expand = opts.decompress || compress.is_some() || swap.is_some();
    w.set_compression(compress)
        .map_err(refused("compression".into()))?;
    // A perf stat session's events may be ones perf cannot tell apart: the writer takes
    // them once HEADER_STAT says it is one (a stream of one has none; a file needs it).
    let stat = trace.has_stat_records() || trace.features.contains_key(&feature::STAT);
    if stat {
        w.set_stat_header();
    }
    for ev in &trace.events {
        // A stat stream's events sample nothing, as `perf stat record -o -` writes them:
        // perf script refuses a stream whose attrs ask for fields its samples lack.
        let mut attr = ev.attr;
        if stat && to == Mode::Pipe {
            attr.sample_type = tracepoint_decode::PerfEventAttrSampleType(0);
        }
        w.add_event_desc(&ev.ids, &attr, &ev.name)
            .map_err(refused(format!("event {}", ev.name)))?;
    }
    for (&bit, payload) in &trace.features {
        // EVENT_DESC is the writer's (from the events above); HEADER_COMPRESSED is the
        // writer's when it compresses, and no longer true once the records are expanded.
        if bit == feature::EVENT_DESC
            || (bit == feature::COMPRESSED && (opts.decompress || compress.is_some()))
        {
            continue;
        }
        // Present with no payload (an empty payload given to set_header clears a feature).
        if payload.is_empty() {
            match bit {
                feature::STAT => w.set_stat_header(),
                feature::BRANCH_STACK => w.set_branch_stack_header(),
                _ => {}
            }
            continue;
        }
        let swapped;
        let payload = match swap {
            None => payload,
            Some(s) => match s.feature(bit, payload)? {
                Some(p) => {
                    swapped = p;
                    &swapped
                }
                None => continue,
            },
        };
        w.set_header(PerfHeaderIndex(bit), payload)
            .map_err(refused(format!("feature {}", feature_label(bit))))?;
    }
    let mut decompressor = None;
    for r in &trace.records {
        let bytes = trace.record_bytes(r);
        let at = r.range.start;
        if STREAM_HEADER_RECORDS.contains(&r.type_) {
            continue;
        }
        // In a stream, the writer names every event with an EVENT_UPDATE of its own.
        if to == Mode::Pipe
            && r.type_ == record_type::EVENT_UPDATE
            && u64_at(bytes, 8, trace.endian) == Some(EVENT_UPDATE_NAME)
        {
            continue;
        }
        if r.type_ == record_type::COMPRESSED && expand {
            let d = match &mut decompressor {
                Some(d) => d,
                None => decompressor.insert(
                    Decompressor::new(trace.endian)
                        .map_err(|e| DataError::bad(path, format!("zstd: {e}")))?,
                ),
            };
            let inside = format!("a record inside the COMPRESSED record at byte {at}");
            d.feed(&bytes[8..], |rec| {
                let rec = in_output_order(swap, rec, &inside)?;
                w.write_event_data(&rec).map_err(|e| DataError::Writer {
                    path: path.clone(),
                    what: inside.clone(),
                    source: e,
                })
            })
            .map_err(|e| DataError::bad(path, format!("COMPRESSED record at byte {at}: {e}")))??;
            continue;
        }
        let bytes = in_output_order(swap, bytes, &format!("record at byte {at}"))?;
        w.write_event_data(&bytes).map_err(|e| DataError::Writer {
            path: path.clone(),
            what: format!("record at byte {at} (type {})", r.type_),
            source: e,
        })?;
    }
    if let Some(d) = &decompressor {
        if d.pending() != 0 {
            return Err(DataError::bad(
                path,
                format!(
                    "the COMPRESSED records end inside a record ({} bytes left)",
                    d.pending()
                ),
            ));
        }
    }
    w.finish().map_err(|source| DataError::Writer {
        path: path.clone(),
        what: "finish".into(),
        source,
    })
}

/// The zstd level HEADER_COMPRESSED gives, 1 when it gives none.
fn input_level(trace: &Trace) -> i32 {
    trace
        .features
        .get(&feature::COMPRESSED)
        .and_then(|p| read_compressed_info(p, trace.endian))
        .and_then(|info| i32::try_from(info.level).ok())
        .filter(|l| Compression::LEVELS.contains(l))
        .unwrap_or(1)
}

/// A feature's name, or its bit for one perf-abi does not know.
pub fn feature_label(bit: u8) -> String {
    feature::name(bit).map_or_else(|| format!("bit {bit}"), str::to_string)
}
