//! [`FileOutput`]: file mode. Records stream into the data section; finalize appends the
//! feature sections, ids and attrs and then writes the real file header at the start.
//! Before the first record, the descriptions known then go into a recovery block between
//! the header and the data (see [`recovery_block`](crate::recovery_block)); the first
//! record or flush after they change writes them there again.

use crate::compress::{Compression, CompressionStats};
use crate::error::io_err;
use crate::model::feature_slot::FeatureSlot;
use crate::model::trace_model::TraceModel;
use crate::output::record_stream::RecordStream;
use crate::output::recovery_block::{
    encode_recovery_block, image_pointer, slot_at, IMAGE_POINTER_AT,
};
use crate::output::{Mode, OutputMode, OwnRecord};
use perf_abi::FILE_HEADER_SIZE;
use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, Region, SectionOrder};
use perf_encode::records::{FinishedInit, FinishedRound};
use perf_encode::{append_to_vec, Encode, Endian};
use std::io::{self, IoSlice, Seek, Write};

/// File mode over a `Write + Seek` stream: `PerfWriter<FileOutput<W>>` is the native
/// file-mode writer (`PerfWriter<FileOutput>` writes a [`File`](std::fs::File)), and
/// [`PerfDataFileWriter`](crate::PerfDataFileWriter) its face with `tracepoint_perf` 0.5's
/// signatures.
pub struct FileOutput<W: Write + Seek = std::fs::File> {
    stream: RecordStream<W>,
    /// Stream position of the file's first byte.
    base: u64,
    /// A finalize under way: its tail follows the data in the stream.
    tail: Option<Tail>,
    /// The recovery block before the data section.
    recovery: Recovery,
    /// The model revision the recovery block was last brought up to date with: records
    /// take the short way while it is the model's.
    seen_revision: u64,
}

/// Where the recovery block stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Recovery {
    /// Not written yet: written before the first record (the stream is held until then).
    Due,
    /// Encoded at the model's `revision`, to be written before the first record: the
    /// record check takes the records' positions before they are written.
    Encoded { block: Vec<u8>, revision: u64 },
    /// Written.
    Written(WrittenBlock),
    /// Not written: no event was described when the first record went out, or the
    /// descriptions could not be encoded (a tracepoint format still missing); the data
    /// section follows the header.
    Skipped,
}

/// A recovery block in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WrittenBlock {
    /// Its length: the bytes between the file header and the data section.
    len: u64,
    /// The slot its image is in (0 or 1).
    slot: usize,
    /// The model revision its image was encoded at.
    revision: u64,
}

/// What a finalize wrote after the data, kept so that a finalize that failed goes on where
/// it stopped (or, when events or settings changed since, is taken back).
struct Tail {
    /// Where the data section ends and the tail starts.
    data_end: u64,
    /// The tail's bytes (feature table and payloads, ids, attrs).
    bytes: Vec<u8>,
    /// The file header.
    header: Vec<u8>,
    /// The header is written (each step is done once, so that a retry after a failure
    /// makes the next call, not the first one again).
    header_written: bool,
}

/// A finalize's bytes: the file header, and what follows the data.
struct Finalized {
    header: Vec<u8>,
    tail: Vec<u8>,
}

impl<W: Write + Seek> FileOutput<W> {
    #[inline]
    fn reposition(&mut self) -> io::Result<()> {
        // Held: the stream position may not be where the buffer's bytes go (after a
        // finalize, or a spilled record dropped).
        if self.stream.is_held() {
            return self.seek_back();
        }
        Ok(())
    }

    /// [`reposition`](Self::reposition)'s rare case (out of line, so the write path stays
    /// small): takes back a finalize under way, and moves the stream back. Before the
    /// recovery block is written the stream stays held, so that records come through
    /// [`ready`](Self::ready).
    #[cold]
    #[inline(never)]
    fn seek_back(&mut self) -> io::Result<()> {
        if let Some(tail) = self.tail.take() {
            self.stream.w.cut_at(tail.data_end);
            self.stream.w.marking = true;
        }
        self.stream.w.place()?;
        if self.recovery_settled() {
            self.stream.hold(false);
        }
        Ok(())
    }

    /// [`reposition`](Self::reposition) before records: also writes the recovery block
    /// when it is due, and its image again when the model changed since.
    #[inline]
    fn ready(&mut self, model: &TraceModel) -> io::Result<()> {
        if self.stream.is_held() || self.seen_revision != model.revision() {
            return self.seek_back_and_describe(model);
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn seek_back_and_describe(&mut self, model: &TraceModel) -> io::Result<()> {
        if self.stream.is_held() {
            self.seek_back()?;
        }
        if !self.recovery_settled() {
            self.describe(model)?;
            self.stream.hold(false);
        } else {
            self.update_recovery(model)?;
            // An update that failed part-way before may have left the stream elsewhere.
            self.stream.w.place()?;
        }
        self.seen_revision = model.revision();
        Ok(())
    }

    /// The recovery block is written, or left out.
    fn recovery_settled(&self) -> bool {
        matches!(self.recovery, Recovery::Written(_) | Recovery::Skipped)
    }

    /// Encodes the recovery block, unless it is encoded with the model as it is or
    /// settled: the file as finalize would write it with the descriptions known now and no
    /// records. With no event described yet there is nothing to recover the records by, and
    /// descriptions that cannot be encoded yet (a tracepoint format missing) cannot be
    /// written: both leave the block out.
    ///
    /// `settle`: the first record is being written, so a block left out is left out for
    /// good; otherwise (the records of a call about to be checked, which may be refused)
    /// the block stays due.
    fn encode_recovery(&mut self, model: &TraceModel, settle: bool) {
        let revision = model.revision();
        match &self.recovery {
            Recovery::Due => {}
            Recovery::Encoded { revision: r, .. } if *r != revision => {}
            _ => return,
        }
        self.recovery = match self.recovery_block(model) {
            Some(block) => Recovery::Encoded { block, revision },
            None if settle => Recovery::Skipped,
            None => Recovery::Due,
        };
    }

    /// The recovery block's bytes (see [`encode_recovery`](Self::encode_recovery)).
    fn recovery_block(&self, model: &TraceModel) -> Option<Vec<u8>> {
        let image = self.recovery_image(model)?;
        Some(encode_recovery_block(&image, self.stream.endian()))
    }

    /// The recovery block's image: the file finalize would write with the descriptions
    /// known now and one FINISHED_ROUND as its data. `None` with no event described, or
    /// descriptions that cannot be encoded yet.
    fn recovery_image(&self, model: &TraceModel) -> Option<Vec<u8>> {
        if model.descs().is_empty() {
            return None;
        }
        let endian = self.stream.endian();
        let round = finished_round_len().ok()?;
        // Without HEADER_COMPRESSED: `perf-data recover` expands the records, and whether
        // any record ends up compressed is known at finalize only.
        let compressed = FeatureSlot::COMPRESSED.index();
        let image = self
            .encode_features(model, round, 0, |index| index != compressed)
            .ok()?;
        let mut bytes = image.header;
        push(&FinishedRound, endian, &mut bytes).ok()?;
        bytes.extend_from_slice(&image.tail);
        Some(bytes)
    }

    /// Writes the image of the model as it is into the written block's other slot, then
    /// points the block's head at it (a writer killed between the two leaves the old image
    /// whole). An image that cannot be encoded yet or has outgrown its slot leaves the last
    /// one in place.
    fn update_recovery(&mut self, model: &TraceModel) -> io::Result<()> {
        let Recovery::Written(block) = self.recovery else {
            return Ok(());
        };
        if block.revision == model.revision() {
            return Ok(());
        }
        let slot = 1 - block.slot;
        let (at, room) = (
            slot_at(block.len, slot),
            block.len.saturating_sub(slot_at(block.len, 1)),
        );
        let Some(image) = self
            .recovery_image(model)
            .filter(|image| image.len() as u64 <= room)
        else {
            return Ok(());
        };
        let start = self.header_end();
        let pointer = image_pointer(image.len(), at, self.stream.endian());
        let w = &mut self.stream.w;
        // The block's bytes still waiting in the buffer would be sent over the new image.
        if w.start() < start.saturating_add(block.len) {
            w.place()?;
            w.flush_buf()?;
        }
        let written = w
            .write_at(start.saturating_add(at), &image)
            .and_then(|()| w.write_at(start.saturating_add(IMAGE_POINTER_AT), &pointer));
        // Back where the pending bytes go, whether the block took the image or not.
        let placed = w.place();
        written?;
        placed?;
        self.recovery = Recovery::Written(WrittenBlock {
            slot,
            revision: model.revision(),
            ..block
        });
        Ok(())
    }

    /// Writes the recovery block (encoded first, when it is not yet or the model changed
    /// since).
    fn describe(&mut self, model: &TraceModel) -> io::Result<()> {
        self.encode_recovery(model, true);
        if let Recovery::Encoded { block, .. } = &self.recovery {
            self.stream.write_raw(block)?;
            self.recovery = Recovery::Written(WrittenBlock {
                len: block.len() as u64,
                slot: 0,
                revision: model.revision(),
            });
            self.stream.mark_start();
        }
        Ok(())
    }

    /// Bytes between the file header and the data section.
    fn gap(&self) -> u64 {
        match self.recovery {
            Recovery::Written(block) => block.len,
            Recovery::Due | Recovery::Encoded { .. } | Recovery::Skipped => 0,
        }
    }

    /// [`write_records`](Mode::write_records) the long way.
    #[inline(never)]
    fn write_records_general(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()> {
        self.ready(model)?;
        // A compressed record taken the short way needs no round rule looked up.
        if self.stream.compress_whole_record(data, false) {
            return Ok(());
        }
        self.stream.keep_rounds(model.keep_rounds());
        self.stream.write_records_general(data)
    }

    /// Where the file header ends.
    fn header_end(&self) -> u64 {
        self.base.saturating_add(FILE_HEADER_SIZE)
    }

    /// Where the data section starts.
    fn data_start(&self) -> u64 {
        self.header_end().saturating_add(self.gap())
    }

    /// The end of the data section (before any tail).
    fn data_end(&self) -> u64 {
        match &self.tail {
            Some(t) => t.data_end,
            None => self.stream.pos(),
        }
    }

    /// Encodes the header and the tail of a file whose data section is `data_size` bytes
    /// and starts `gap` bytes after the file header.
    fn encode(&self, model: &TraceModel, data_size: u64, gap: u64) -> io::Result<Finalized> {
        self.encode_features(model, data_size, gap, |_| true)
    }

    /// [`encode`](Self::encode) with the features `keep` keeps.
    fn encode_features(
        &self,
        model: &TraceModel,
        data_size: u64,
        gap: u64,
        keep: impl Fn(u8) -> bool,
    ) -> io::Result<Finalized> {
        model.check_tracepoint_formats().map_err(io_err)?;
        let endian = self.stream.endian();
        let events = model.event_entries();
        let mut payloads = model.feature_payloads(&events).map_err(io_err)?;
        payloads.retain(|(index, _)| keep(*index));
        let features = payloads
            .iter()
            .map(|(index, p)| {
                let len = p.encoded_len().map_err(io_err)?;
                Ok(FeatureLen {
                    index: *index,
                    len: len as u64,
                })
            })
            .collect::<io::Result<Vec<FeatureLen>>>()?;
        let layout = FileLayout::plan(LayoutInput {
            order: SectionOrder::AttrsLast,
            events: &events,
            // The gap is laid out as the data's first bytes, and then left out of it.
            data_size: data_size.saturating_add(gap),
            features: &features,
        })
        .map_err(io_err)?;
        let mut file_header = layout.header();
        file_header.data.offset = file_header.data.offset.saturating_add(gap);
        file_header.data.size = data_size;
        let mut header = Vec::with_capacity(FILE_HEADER_SIZE as usize);
        append_to_vec(&file_header, endian, &mut header).map_err(io_err)?;
        // The regions after the data section, in file order.
        let tail_start = layout.feature_table().offset;
        let mut tail = Vec::new();
        for (region, section) in layout.regions() {
            if section.offset < tail_start {
                continue; // header and data: in place
            }
            if section.offset != tail_start.saturating_add(tail.len() as u64) {
                return Err(io::Error::other("layout regions are not contiguous"));
            }
            match region {
                Region::FeatureTable => push(&layout.feature_table_encoder(), endian, &mut tail)?,
                Region::FeaturePayloads => {
                    for (_, p) in &payloads {
                        push(p, endian, &mut tail)?;
                    }
                }
                Region::Ids => push(&layout.ids_encoder(), endian, &mut tail)?,
                Region::Attrs => push(&layout.attrs_encoder(), endian, &mut tail)?,
                Region::Header | Region::Data => {}
            }
        }
        if tail_start.saturating_add(tail.len() as u64) != layout.file_size() {
            return Err(io::Error::other(
                "the tail does not end where the layout does",
            ));
        }
        Ok(Finalized { header, tail })
    }

    /// The output failed for good: writes a file of the records known to have reached it,
    /// as many as leave room, in what was written, for the tail (a full disk still lets a
    /// file's own bytes be written again). Returns the records and data bytes kept.
    fn finalize_what_reached_the_output(&mut self, model: &TraceModel) -> io::Result<(u64, u64)> {
        self.stream.abandon_partial();
        if let Some(tail) = self.tail.take() {
            self.stream.w.cut_at(tail.data_end);
        }
        // The marks start at the header's end, and again at the data's when the recovery
        // block is written: a cut before the data start leaves the block out.
        let header_end = self.header_end();
        let start = self.data_start();
        let high = self.stream.w.high();
        let tail_len = self.encode(model, 0, 0)?.tail.len() as u64;
        let round = finished_round_len()?;
        let cut = self
            .stream
            .w
            .marks()
            .rev()
            .filter(|m| m.pos >= header_end && m.pos <= self.stream.w.start())
            .find(|m| {
                // An empty data section gets a FINISHED_ROUND (see `finalize`).
                let extra = if m.pos <= start { round } else { 0 };
                m.pos.saturating_add(extra).saturating_add(tail_len) <= high
            })
            .ok_or_else(|| io::Error::other("no room left in the file for its tail"))?;
        let gap = cut.pos.saturating_sub(header_end).min(self.gap());
        let mut tail = Vec::new();
        let data_size = if cut.pos <= start {
            push(&FinishedRound, self.stream.endian(), &mut tail)?;
            round
        } else {
            cut.pos.saturating_sub(start)
        };
        let done = self.encode(model, data_size, gap)?;
        tail.extend_from_slice(&done.tail);
        // Nothing pending is written any more.
        self.stream.w.cut_at(cut.pos);
        self.stream.hold(true);
        let w = &mut self.stream.w;
        w.write_at(cut.pos, &tail)?;
        w.write_at(self.base, &done.header)?;
        let end = cut.pos.saturating_add(tail.len() as u64);
        w.seek_inner(end)?;
        w.flush_inner()?;
        Ok((cut.records, data_size))
    }
}

/// Length of a FINISHED_ROUND record: its encoding's, the one the encoder writes.
fn finished_round_len() -> io::Result<u64> {
    let len = FinishedRound.encoded_len().map_err(io_err)?;
    Ok(len as u64)
}

/// Appends the encoding of `value` to `out`.
fn push<E: Encode + ?Sized>(value: &E, endian: Endian, out: &mut Vec<u8>) -> io::Result<()> {
    append_to_vec(value, endian, out).map_err(io_err)
}

impl<W: Write + Seek> OutputMode for FileOutput<W> {
    type Stream = W;
    const PIPE: bool = false;
}

impl<W: Write + Seek> Mode<W> for FileOutput<W> {
    fn open(mut w: W, endian: Endian) -> io::Result<Self> {
        let base = w.stream_position()?;
        let mut stream = RecordStream::new(w, endian, base, None);
        // A zeroed header until finalize writes the real one: readers see "not a perf file"
        // rather than a file that looks complete.
        stream.write_raw(&[0u8; FILE_HEADER_SIZE as usize])?;
        stream.mark_start();
        // Held until the recovery block is written, before the first record.
        stream.hold(true);
        Ok(FileOutput {
            stream,
            base,
            tail: None,
            recovery: Recovery::Due,
            seen_revision: 0,
        })
    }

    #[inline]
    fn write_records(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()> {
        // A held stream keeps its short way closed, so that way never needs to seek.
        if self.seen_revision == model.revision() && self.stream.write_small_record(data) {
            return Ok(());
        }
        self.write_records_general(model, data)
    }

    #[inline]
    fn write_known_record(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()> {
        if self.seen_revision == model.revision() && self.stream.write_known_record(data) {
            return Ok(());
        }
        self.write_records_general(model, data)
    }

    fn write_known_records(
        &mut self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
        n: u64,
    ) -> io::Result<()> {
        self.ready(model)?;
        self.stream.keep_rounds(model.keep_rounds());
        self.stream.write_known_records(bufs, n)
    }

    #[inline]
    fn write_records_vectored(
        &mut self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
    ) -> io::Result<usize> {
        self.ready(model)?;
        self.stream.keep_rounds(model.keep_rounds());
        self.stream.write_records_vectored(bufs)
    }

    fn write_own_record(&mut self, model: &TraceModel, record: OwnRecord) -> io::Result<()> {
        self.ready(model)?;
        self.stream.keep_rounds(model.keep_rounds());
        match record {
            OwnRecord::FinishedRound => self.stream.write_finished_round(),
            OwnRecord::FinishedInit => self.stream.write_encoded_record(&FinishedInit),
        }
    }

    fn reserve(&mut self, model: &TraceModel, len: usize) -> io::Result<()> {
        self.ready(model)?;
        self.stream.reserve(len)
    }

    fn flush(&mut self, model: &TraceModel) -> io::Result<()> {
        if self.recovery_settled() {
            self.ready(model)?;
        } else {
            self.reposition()?;
        }
        self.stream.flush()
    }

    fn partial_len(&self) -> u64 {
        self.stream.partial_len()
    }

    fn partial_record(&self) -> Option<crate::PartialRecord> {
        self.stream.partial_record()
    }

    fn max_split(&self) -> Option<u64> {
        self.stream.split_limit()
    }

    fn abandon_partial(&mut self) -> u64 {
        self.stream.abandon_partial()
    }

    fn drop_from(&mut self, pos: u64, records: u64) {
        // A finalize under way had written its tail after the data: taken back with it.
        self.tail = None;
        // Records go after the recovery block (positions are taken once it is encoded).
        let pos = pos.max(self.data_start());
        self.stream.drop_from(pos, records);
    }

    /// Resumable: a failure leaves what was done, and the next call goes on from there
    /// (the tail is encoded again and compared: when events or settings changed since, the
    /// old tail is taken back first).
    fn finalize(&mut self, model: &TraceModel) -> io::Result<()> {
        if !self.recovery_settled() {
            self.ready(model)?;
        }
        // Encoding can refuse (a missing format): before anything changes.
        let data_end = self.data_end();
        let mut data_size = data_end.saturating_sub(self.data_start());
        if data_size == 0 {
            // perf warns about (and `perf script` fails on) an empty data section; one
            // FINISHED_ROUND record, which says nothing, makes an empty trace read as empty.
            data_size = finished_round_len()?;
        }
        let done = self.encode(model, data_size, self.gap())?;
        let resumed = self
            .tail
            .as_ref()
            .is_some_and(|t| t.bytes == done.tail && t.header == done.header);
        if !resumed {
            self.reposition()?;
            if self.stream.pos() == self.data_start() {
                self.stream.write_encoded_record(&FinishedRound)?;
            }
            let data_end = self.stream.pos();
            // The data first, on its own: its end is a boundary worth remembering, should
            // the output fail for good during the tail. (The stream may be elsewhere after
            // a recovery block update that failed.)
            self.stream.w.place()?;
            self.stream.w.flush_buf()?;
            // From here the short way stays closed: records after the tail take it back.
            self.stream.w.marking = false;
            if let Err(e) = self.stream.write_raw(&done.tail) {
                self.stream.w.marking = true;
                return Err(e);
            }
            self.stream.hold(true);
            self.tail = Some(Tail {
                data_end,
                bytes: done.tail,
                header: done.header,
                header_written: false,
            });
        }
        let Some(tail) = self.tail.as_mut() else {
            return Err(io::Error::other("finalize lost its tail"));
        };
        let w = &mut self.stream.w;
        if w.end() != w.start() {
            w.place()?;
            w.flush_buf()?;
        }
        let end = w.end();
        if !tail.header_written {
            w.write_at(self.base, &tail.header)?;
            tail.header_written = true;
        }
        w.seek_inner(end)?;
        w.flush_inner()?;
        Ok(())
    }

    fn finalize_truncated(&mut self, model: &TraceModel) -> io::Result<(u64, u64)> {
        self.finalize_what_reached_the_output(model)
    }

    fn into_stream(self) -> io::Result<W> {
        // Flushed by finalize, so taking the stream out of its buffer writes nothing more.
        self.stream.w.into_inner()
    }

    fn records(&self) -> u64 {
        self.stream.records()
    }

    fn took_records(&self) -> bool {
        self.stream.took_records()
    }

    fn position(&self) -> u64 {
        match &self.recovery {
            // Where the first record will go: after the block.
            Recovery::Encoded { block, .. } => self.stream.pos().saturating_add(block.len() as u64),
            _ => self.stream.pos(),
        }
    }

    fn prepare_records(&mut self, model: &TraceModel) {
        if !self.recovery_settled() {
            self.encode_recovery(model, false);
        }
    }

    fn accepts_new_tracepoint_formats(&self) -> bool {
        true
    }

    fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()> {
        self.reposition()?;
        self.stream.set_compression(setting)
    }

    fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>> {
        // Only when something is to be written: a finalize under way (retried after a
        // failure) stays as it is.
        if self.stream.compression_waiting() {
            self.reposition()?;
        }
        self.stream.compression_stats()
    }

    fn compression_readable(_: Endian) -> bool {
        true
    }
}
