//! Write Linux `perf.data` files from std programs.
//!
//! [`PerfWriter`] is the writer: `PerfWriter<`[`FileOutput<W>`](FileOutput)`>` writes file
//! mode over any `Write + Seek` (a `File` by default), [`PerfPipeWriter`] writes pipe mode over
//! any `Write`, readable while it is written and after a crash. Every fallible method returns
//! `Result<_, `[`WriterError`]`>`. Every byte is encoded by [`perf_encode`]. On top of I/O and
//! state this crate adds checks and facts derived for the caller: strict mode (below), headers
//! derived from the events ([`PerfWriter::set_headers_from_events`]), the host description
//! ([`HostDescription`], [`PerfWriter::set_host_headers`]), the synthesized TRACING_DATA, typed
//! records and typed feature setters.
//!
//! ```no_run
//! use perf_writer_std::{FileOutput, PerfWriter};
//! let mut w = PerfWriter::<FileOutput>::new();
//! w.create_file("perf.data")?;
//! // add_event_desc / add_tracepoint_event_desc, write_event_data, set_*_header…
//! w.finalize_and_close()?;
//! # Ok::<(), perf_writer_std::WriterError>(())
//! ```
//!
//! [`PerfDataFileWriter`] is a compatibility face for programs written for `tracepoint_perf`
//! 0.5: its writer's method names and signatures (`bool`, `io::Result`) over the native
//! file-mode writer, which it dereferences to for everything 0.5 did not have.
//!
//! ```no_run
//! use perf_writer_std::PerfDataFileWriter; // was: use tracepoint_perf::PerfDataFileWriter;
//! let mut w = PerfDataFileWriter::new();
//! w.create_file("perf.data")?;
//! w.finalize_and_close()?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Errors
//!
//! - **The native writer** ([`PerfWriter`]) returns `Result<_, `[`WriterError`]`>` from every
//!   method that can fail; an error of the output stream itself is [`OutputError::Io`].
//!   Setters whose value cannot be refused (`set_nr_cpus_header`, `set_stat_header`, …)
//!   return nothing.
//! - **The compatibility face** ([`PerfDataFileWriter`]) keeps 0.5's signatures: `bool` for
//!   setters (the native method of the same name says why), `io::Result` for writes, with the
//!   `WriterError` inside ([`WriterError::from_io`]).
//!
//! `WriterError` converts to `io::Error` (giving back the stream's own error for
//! `OutputError::Io`) and from it, so `?` works across the two.
//!
//! # Strict mode
//!
//! On by default ([`PerfWriter::set_strict`]). Every record given to
//! [`write_event_data`](PerfWriter::write_event_data),
//! [`write_event_data_vectored`](PerfWriter::write_event_data_vectored) or the typed methods
//! is checked against its event description, and a call is refused
//! ([`RecordError::Refused`], naming the record, its offset and the problem) with
//! nothing of it written when a record:
//! - is a SAMPLE whose id belongs to no description (with several descriptions; perf
//!   gives every record to the only one when there is one, and records with id 0, as
//!   perf synthesizes them, to the first) once its description can no longer come (see
//!   below);
//! - is a SAMPLE whose fields disagree with its attr's layout (`sample_type`,
//!   `read_format`, register masks, `branch_sample_type`): `header.size` must be what
//!   the layout implies (or, in a little-endian output, that rounded up to 8: padding
//!   after the last field, as writers that do not count RAW's padding in its size
//!   produce, reads the same). In a big-endian output every field ends at a multiple of
//!   8 (RAW's size counts its padding; STACK_USER's and AUX's sizes are multiples of 8):
//!   perf swaps such a SAMPLE as 8-byte words
//!   ([`RecordProblem::SampleFieldUnaligned`]);
//! - is a tracepoint SAMPLE whose RAW payload breaks its format's rule
//!   ([`PerfWriter::tracepoint_raw_rule`]): a `common_type` other than the format's id, a
//!   payload shorter than its fields, a dynamic field's data outside it, or no NUL in the
//!   data of a field the print format gives to `__get_str` (perf prints up to the NUL);
//! - is a kernel record (COMM, MMAP2, FORK, …) whose `sample_id` trailer names an unknown
//!   id, or whose size does not fit its type plus the trailer its attr asks for (for a
//!   NAMESPACES or TEXT_POKE, the body its counts give: perf reads that many bytes; a READ
//!   must hold its pid, tid and first value, the only fields perf 6.1 reads but in `perf
//!   report -D`, which prints the `read_format`'s other values from fixed places even where
//!   the kernel writes fewer, and so reads past a READ shorter than they are), or whose
//!   name (COMM, MMAP, MMAP2, CGROUP, KSYMBOL) holds no NUL before the trailer
//!   ([`RecordProblem::NameWithoutNul`]: perf reads it to its NUL);
//! - is of a type perf 6.1 does not know (0, 22 to 63, above 83);
//! - is a SAMPLE (or a kernel record, the first event having `sample_id_all`) while the
//!   events are ones perf cannot tell apart, which strict mode takes for a perf stat
//!   session, with HEADER_STAT set and before any record (see
//!   [`PerfWriter::add_event_desc`]):
//!   [`RecordProblem::EventsNotToldApart`];
//! - is, in a big-endian output, one perf 6.1 cannot swap back on a little-endian machine:
//!   a SWITCH with a `sample_id` (its first 8 bytes stay unswapped:
//!   [`RecordProblem::UnswappedSwitchSampleId`]), a KSYMBOL or BPF_EVENT (nothing of them is
//!   swapped: [`RecordProblem::UnswappedRecord`]), a READ shorter than 48 bytes (perf swaps
//!   48, into the next record: [`RecordProblem::ReadSwappedPastEnd`]) or whose `sample_id`
//!   starts before byte 56, but for a TID at 48 (perf swaps none of bytes 48 to 56:
//!   [`RecordProblem::ReadSampleIdUnswapped`]). Fields perf leaves
//!   unswapped that only show a wrong value (MMAP2's `prot`, …) are taken: README, "Big-endian
//!   outputs";
//! - is one of pipe mode's header records (HEADER_ATTR, HEADER_EVENT_TYPE,
//!   HEADER_TRACING_DATA, HEADER_FEATURE), which the writer makes itself;
//! - is another tool record (FINISHED_ROUND, ID_INDEX, THREAD_MAP, …) whose size does not
//!   fit its type, or whose fields do not fill it (a count running past it; an
//!   AUXTRACE_ERROR without the `time` or `machine_pid` and `vcpu` its `fmt` says it has; a
//!   TIME_CONV of more than `time_zero` without its `time_mask` and caps), or whose text
//!   perf reads to its NUL holds none (an AUXTRACE_ERROR's message, an EVENT_UPDATE's unit
//!   or name, a HEADER_BUILD_ID's filename), or whose build id size is over 20 (an MMAP2's
//!   or HEADER_BUILD_ID's: perf copies it into 20 bytes), or holds a
//!   value perf refuses or misreads (a CPU_MAP kind, a STAT_CONFIG tag or an AUXTRACE_INFO
//!   trace type it does not know, a cpu range it sizes wrong, an EVENT_UPDATE cpu map in
//!   a big-endian output, which it does not swap; it leaves a scale unswapped too, and
//!   prints a wrong factor);
//! - is an AUXTRACE_INFO whose settings perf's decoder for its hardware refuses or
//!   divides by zero with (Intel PT and BTS time conversions, which strict mode holds to
//!   perf's division even where perf would decode without timestamps; a PT filter string;
//!   CoreSight's cpu blocks), or whose decoder needs what the output does not give it
//!   ([`AuxtraceNeed`]: a TIME_CONV before it; the event of its PMU type, with ids; PT's
//!   switch event; ids free for the events perf synthesizes; in a file a first event with
//!   `sample_id_all`). In file mode the events may come later: a description that breaks
//!   a need is refused, and finish refuses while an event it needs has not come. An
//!   AUXTRACE record needs an AUXTRACE_INFO before it, and an `idx` perf can make a queue
//!   for. In an Intel PT or Arm SPE trace, the context switches it takes a cpu's thread
//!   from (PT: a switch in, and out when recorded CPU-wide; SPE: a switch out, also one
//!   without a time, which perf would skip; and PT's ITRACE_START) need a cpu; PT's
//!   `sched:sched_switch` tracepoint needs CPU and RAW in its `sample_type`, and its
//!   SAMPLEs a cpu (every event of that name is held to it: perf takes the last);
//!   a PT trace takes no guest's switch in, nor, when its switches were recorded
//!   CPU-wide, a per-cpu SWITCH out; an EVENT_UPDATE (or the caller's EVENT_DESC, which
//!   perf names events by) that gives an event the name `sched:sched_switch`, or takes it
//!   from one, before a PT AUXTRACE_INFO of sched_switch switches makes that AUXTRACE_INFO
//!   refused (and such an EVENT_DESC after it). An AUX_OUTPUT_HW_ID in a PT trace is
//!   refused (perf takes it into a trace queue strict mode does not follow). After records written with strict mode off,
//!   which may hold such an AUXTRACE_INFO, what it would refuse is refused. A context
//!   switch or `sched:sched_switch` SAMPLE written before its description is judged when
//!   the description comes, by the cpu its layout gives it. Not checked: AUXTRACE trace data, passed through as given (perf's
//!   decoders may crash on trace data that is not what the hardware writes);
//! - names an id perf finds no event for (an ID_INDEX entry, looked up among the events'
//!   ids; an EVENT_UPDATE's or STAT's, given to the only event, or to the first without
//!   `sample_id_all`), once its description can no longer come;
//! - is a STAT or STAT_ROUND that perf script cannot count
//!   ([`StatProblem`]): before the output's first CPU_MAP and THREAD_MAP, on a cpu perf
//!   does not find among its event's cpus (that CPU_MAP's, or those the last EVENT_UPDATE
//!   of its event gave before it), on a thread index past that THREAD_MAP, or (pipe mode) of an event
//!   described after both came; a second CPU_MAP or THREAD_MAP, which perf ignores; after
//!   records written with strict mode off, which may
//!   have held those maps, STATs are refused. In file mode a STAT whose event the
//!   descriptions still to come decide is held: a description that would make perf
//!   refuse it is refused, and so is finish while perf's rule would refuse it;
//! - is a COMPRESSED record (passed through as given, e.g. from a `perf record -z` file)
//!   while no HEADER_COMPRESSED (zstd, `mmap_len` above 0) is set, or while the writer
//!   compresses itself ([`set_compression`](PerfWriter::set_compression)). Strict mode does not
//!   decompress it: the records inside are not checked.
//!
//! A SAMPLE names ids besides the one its event is found by, and perf counts it for the
//! event that has them: an ID field beside IDENTIFIER must be the IDENTIFIER, a single READ
//! value's id one of its event's, and a READ group's members must be described (in file
//! mode by finalize, which waits for them; in pipe mode before the SAMPLE); an ID beside
//! IDENTIFIER in another record's `sample_id` must be it too. Not checked: READ values that
//! do not go up (perf counts a value as its difference from the id's last one, and skips it
//! when that is 0).
//!
//! A caller's TRACING_DATA ([`PerfWriter::set_header`]) is read as perf reads it, and
//! refused when perf would not ([`TracingError::BadTracingData`], or its texts as the
//! synthesized ones are checked); its formats then check tracepoint SAMPLEs' RAW payloads,
//! in its byte order, which perf reads them in
//! ([`raw_endian`](PerfWriter::raw_endian); a converted file may keep the recording's).
//! SAMPLEs are checked by the format their event has when they are written: after records,
//! a TRACING_DATA that changes an event's format or its byte order is refused
//! ([`TracingError::ChangesWrittenFormat`]).
//!
//! **Any order, in file mode.** As with `tracepoint_perf` 0.5, records, descriptions and
//! headers may come in any order before finalize: a record whose description (its
//! event id's, or the ids it names), tracepoint format or HEADER_COMPRESSED is not there
//! yet is written, and
//! what the check needs of it is kept in a summary per event id, not the records: the
//! layouts its SAMPLEs all fit (every field of varying length among them) and what
//! their RAW payloads say to any tracepoint format, or the lengths of its other records.
//! The description checks them when it is added, as it would have checked each record
//! had it come first, and is refused when they contradict it
//! ([`EventError::ContradictsRecords`], naming
//! how many, the first's offset and id, and what is wrong); a HEADER_COMPRESSED perf
//! could not decompress them with is refused by `set_header` the same way. Finalize
//! refuses while records wait
//! ([`RecordError::Undescribed`]): add
//! what they need and finalize again. A writer dropped (or
//! [salvaged](PerfWriter::finish_truncated)) while records wait ends the data before the first
//! of them, so perf reads the file: the records from there on are lost.
//!
//! The memory this takes is bounded. A record past a bound is refused at its call
//! ([`RecordError::Refused`], nothing of it
//! written) until descriptions are added: more than
//! [`MAX_PENDING_IDS`] event ids waiting (`TooManyPendingIds`),
//! summaries taking [`MAX_PENDING_BYTES`] (`TooManyPendingBytes`),
//! or a SAMPLE that, with the SAMPLEs of its id before it, fits more layouts than are
//! kept track of (`TooManyLayouts`: SAMPLEs of one layout stay far below that). Before
//! the first description the place of the id in a SAMPLE is not known: SAMPLEs are
//! grouped by the words at every place a layout can put it (one group per combination, and
//! by one place's words alone once the combinations pass 4,096), and a place where more
//! than `MAX_PENDING_IDS` words were written, or whose words (a time, an address) leave
//! 4 MiB of SAMPLEs each alone in its group, is no longer kept; a first
//! description that puts its id there is refused, naming them. A description refused for
//! the records before it names the group that holds a record it contradicts (all of one
//! id): its first record and how many it holds, not the one record at fault.
//!
//! Pipe mode keeps the stream's order (perf reads it in order): a record whose
//! description is not there yet is refused
//! ([`RecordProblem::DescribeFirstInPipeMode`]),
//! and so it is in file mode while the writer compresses
//! ([`set_compression`](PerfWriter::set_compression): records are compressed as they come).
//!
//! Sizes that are not multiples of 8 are refused in every mode (COMPRESSED, HEADER_BUILD_ID
//! and HEADER_FEATURE records excepted: perf writes them unpadded). A record split across calls is
//! held back until its last byte arrives, then checked; [`file_pos`](PerfWriter::file_pos)
//! counts it. Its header is judged by the call that completes it: a type perf 6.1 does
//! not know, or a pipe-mode header record, is refused there and not taken as the start
//! of a record that would swallow what follows. When such a record is refused, its
//! held-back start is dropped with it, so the output continues after the last accepted
//! record (the error, [`RecordError::InsidePartial`],
//! says so). Attrs perf could not tell apart are refused by `add_event_desc` in every
//! mode.
//!
//! # Compression
//!
//! [`PerfWriter::set_compression`] compresses records with zstd (the `zstd` cargo feature).
//! Kernel records (SAMPLE, COMM, MMAP…) are compressed from the first SAMPLE or
//! FINISHED_INIT on; the records before them (the initial state), FINISHED_INIT and the
//! other tool records stay uncompressed, as perf writes them. Compressed records wait, whole, in a 256 KiB buffer
//! ([`MAX_DECOMPRESSED_CHUNK`]) that becomes COMPRESSED
//! records of at most 65,535 bytes when the next record does not fit, before an
//! uncompressed record, on [`flush`](PerfWriter::flush) and on finish;
//! [`file_pos`](PerfWriter::file_pos) does not count the waiting bytes. A FINISHED_ROUND among
//! them does not end the buffer: it is written where the buffer ends anyway, once 256 KiB
//! of records went by since the last one written; the others are left out (the aligned
//! form) or compressed in their place (perf's form), which perf and linux-perf-data read
//! as the same records in the same order (all of them stay where they were when some
//! events' records carry a time and others' do not). HEADER_COMPRESSED is set when
//! compression is switched on (pipe
//! mode sends it just before the first COMPRESSED record, with `mmap_len` 512 KiB and
//! ratio 0) and rewritten on finish with the ratio of the records compressed to the
//! COMPRESSED records written and `mmap_len` twice the largest piece one record
//! decompresses to (the margin perf 6.1's decompression needs); when no COMPRESSED record
//! was written, a file gets back the HEADER_COMPRESSED it had before (none, unless the
//! caller set one), and a pipe stream carries none but the caller's.
//!
//! A flush ends a piece: in the aligned form (the default) that ends a zstd frame, so a
//! trace flushed every 1,000 records of 64 bytes is about 1% larger than one flushed
//! never, and a piece that would not shrink (a flush after every record) is written as
//! its records, uncompressed; perf's form keeps zstd's history across flushes (its
//! records shrink even one at a time). BENCHMARKS.md ("Compression") has the numbers.
//!
//! It may be switched between records. perf reads one zstd stream per output, and a
//! stream in perf's form ([`CompressionForm::PerfStream`](crate::CompressionForm)) is
//! never ended (its end would be a record that decompresses to nothing, which perf 6.1
//! refuses): once it has written records, compression may go off and on again in perf's
//! form, at any level, continuing that stream, but not in the aligned form.
//!
//! Failures follow the writer's rules: the compressor gets only whole records, so the
//! start of an unfinished record is held (in memory, out of the compressor) until its
//! last byte arrives and [`abandon_partial_record`](PerfWriter::abandon_partial_record) drops
//! it; COMPRESSED records the output did not take wait and are sent again first. Limits
//! while compressing: an unfinished record is held in memory whole in file mode too (it
//! is not written out early, as a record longer than the buffer is without
//! compression), so in both modes a record split across calls may be at most
//! [`MAX_SPLIT_RECORD_LEN`] bytes
//! ([`RecordError::SplitTooLong`] at the call that would hold more; a longer
//! record is taken in one call); a call that compressed records is taken even when the output then
//! fails to take them (the error comes back at the next call that writes, flushes or
//! finishes, which is refused whole until they are sent); and the records
//! [`finish_truncated`](PerfWriter::finish_truncated) keeps are counted as they are in the
//! file, a COMPRESSED record as one.
//!
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// A record's way through the crate: `writer` (the public face) takes it, `check` (strict mode
// and the derived headers) looks at it against what `model` says the file describes,
// `output` frames and buffers it for file or pipe mode, and `compress` packs it into
// COMPRESSED records when asked. `host` describes the machine; `error` says why a call was
// refused.
mod check;
mod compress;
mod error;
mod host;
mod model;
mod output;
pub use output::recovery_block;
mod writer;

pub use check::refusal::{MAX_PENDING_BYTES, MAX_PENDING_IDS};
pub use compress::{Compression, CompressionForm, MAX_DECOMPRESSED_CHUNK, STREAM_WINDOW};
pub use error::{
    AuxtraceNeed, CompressionError, Contradiction, EventError, FeatureError, OutputError,
    PartialRecord, PendingSummary, RecordError, RecordProblem, SharedIoError, StatProblem,
    TracingError, WriterError,
};
pub use host::description::{
    parse_cpu_list, CacheInfo, CpuTopologyInfo, HostDescription, HybridNodeInfo, MemTopologyInfo,
    MemoryNodeInfo, NumaNodeInfo, PmuCapInfo, PmuCapsInfo, PmuInfo, UnameInfo,
};
pub use model::header_index::PerfHeaderIndex;
pub use model::trace_model::PLACEHOLDER_EVENT_NAME;
pub use output::file_mode::FileOutput;
pub use output::pipe_mode::PipeOutput;
pub use output::record_stream::{FILE_BUFFER_SIZE, MAX_SPLIT_RECORD_LEN};
pub use output::OutputMode;
pub use perf_encode::records::MAX_RECORD_LEN;
pub use perf_encode::Endian;
pub use writer::compat::PerfDataFileWriter;
pub use writer::{PerfPipeWriter, PerfWriter};

/// The encoder crate, re-exported.
pub use perf_encode;

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
