//! [`PipeOutput`]: pipe mode. The stream starts with the 16-byte pipe header; descriptions
//! and features are records sent before the first event that follows them.

use crate::compress::{Compression, CompressionStats};
use crate::error::io_err;
use crate::error::FeatureError;
use crate::model::feature_slot::{sent_in_pipe, FEATURE_SLOTS};
use crate::model::trace_model::TraceModel;
use crate::output::record_stream::{RecordStream, MAX_SPLIT_RECORD_LEN};
use crate::output::{Mode, OutputMode, OwnRecord};
use crate::WriterError;
use perf_abi::{feature, PerfPipeHeader, MAX_FEATURE_PAYLOAD, PERF_MAGIC, PIPE_HEADER_SIZE};
use perf_encode::records::{
    EventUpdateName, FinishedInit, HeaderAttr, HeaderFeature, HeaderTracingData,
};
use perf_encode::{append_to_vec, Encode, Endian, EventEntry};
use std::io::{self, IoSlice, Write};

/// Pipe mode over a `Write` stream (see [`PerfPipeWriter`](crate::PerfPipeWriter)).
pub struct PipeOutput<W: Write = std::fs::File> {
    stream: RecordStream<W>,
    /// The pipe header, first descriptions, features and tracing data are out.
    started: bool,
    /// TraceModel revision at the last sync.
    seen_revision: u64,
    /// Descriptions sent as HEADER_ATTR.
    attrs_sent: usize,
    /// The placeholder attr of a stream that ended without descriptions was sent.
    placeholder_sent: bool,
    /// Revision of each feature when it was sent.
    features_sent: [u64; FEATURE_SLOTS],
}

/// The records one sync sends, gathered so that they go out in one write.
struct Batch {
    bytes: Vec<u8>,
    endian: Endian,
}

impl Batch {
    fn new(endian: Endian) -> Self {
        Batch {
            bytes: Vec::new(),
            endian,
        }
    }

    fn push<E: Encode>(&mut self, record: &E) -> io::Result<()> {
        append_to_vec(record, self.endian, &mut self.bytes).map_err(io_err)
    }

    /// perf 6.1 does not byte-swap the `feat_id` of HEADER_FEATURE records, so a
    /// byte-swapped stream's features would break `perf report`: a big-endian stream carries
    /// none (names still arrive as EVENT_UPDATE records).
    fn carries_features(&self) -> bool {
        self.endian == Endian::Little
    }

    /// The pipe header, which starts the stream; refused when a tracepoint event has no
    /// format (the tracing data, sent once, could not describe it).
    fn pipe_header(&mut self, model: &TraceModel) -> io::Result<()> {
        model.check_tracepoint_formats().map_err(io_err)?;
        self.push(&PerfPipeHeader {
            magic: PERF_MAGIC,
            size: PIPE_HEADER_SIZE,
        })
    }

    /// A HEADER_ATTR record for each event.
    fn attrs<'a>(&mut self, events: impl IntoIterator<Item = EventEntry<'a>>) -> io::Result<()> {
        for e in events {
            let attr = e.attr_with_size(e.attr.minimal_file_size());
            self.push(&HeaderAttr {
                attr: &attr,
                ids: e.ids,
            })?;
        }
        Ok(())
    }

    /// An EVENT_UPDATE name record for each event that has an id to name it by.
    fn names<'a>(&mut self, events: impl IntoIterator<Item = EventEntry<'a>>) -> io::Result<()> {
        for e in events {
            if let Some(&id) = e.ids.first() {
                self.push(&EventUpdateName { id, name: e.name })?;
            }
        }
        Ok(())
    }

    /// Every feature perf reads from a pipe (with the synthesized EVENT_DESC), then the
    /// end-of-features record; HEADER_COMPRESSED not when `held`.
    fn all_features(&mut self, model: &TraceModel, held: bool) -> io::Result<()> {
        if !self.carries_features() {
            return Ok(());
        }
        let events = model.event_entries();
        for (index, payload) in model.feature_payloads(&events).map_err(io_err)? {
            if !sent_in_pipe(index) || (held && index == feature::COMPRESSED) {
                continue;
            }
            let payload = payload.bytes(self.endian).map_err(io_err)?;
            if payload.len() > MAX_FEATURE_PAYLOAD && index == feature::EVENT_DESC {
                continue; // the names also go out as EVENT_UPDATE records
            }
            self.feature(index, &payload)?;
        }
        self.push(&HeaderFeature::END)
    }

    /// The features set or changed since `sent` (each feature's revision when it was sent);
    /// HEADER_COMPRESSED not when `held`.
    fn changed_features(
        &mut self,
        model: &TraceModel,
        sent: &[u64; FEATURE_SLOTS],
        held: bool,
    ) -> io::Result<()> {
        if !self.carries_features() {
            return Ok(());
        }
        for index in 1..feature::LAST_FEATURE {
            let sent_at = sent.get(usize::from(index)).copied().unwrap_or(0);
            let payload = model.header(index);
            if model.feature_revision(index) != sent_at
                && !payload.is_empty()
                && sent_in_pipe(index)
                && !(held && index == feature::COMPRESSED)
            {
                self.feature(index, payload)?;
            }
        }
        Ok(())
    }

    /// One HEADER_FEATURE record.
    fn feature(&mut self, index: u8, payload: &[u8]) -> io::Result<()> {
        if payload.len() > MAX_FEATURE_PAYLOAD {
            return Err(io_err(WriterError::Feature(FeatureError::TooLargeForPipe(
                index,
            ))));
        }
        self.push(&HeaderFeature { index, payload })
    }

    /// The TRACING_DATA record, when the events need one (perf reads it once).
    fn tracing_data(&mut self, model: &TraceModel) -> io::Result<()> {
        match model.tracing_data().map_err(io_err)? {
            Some(data) => self.push(&HeaderTracingData { data: &data }),
            None => Ok(()),
        }
    }
}

impl<W: Write> PipeOutput<W> {
    /// Sends what the model has that the stream does not, between two records. The first
    /// sync starts the stream: the pipe header, the attrs (a placeholder when finishing
    /// without any, as readers refuse a stream without attrs), every feature, the tracing
    /// data. Later ones send the new attrs and the changed features. Both end with the
    /// names of the new events.
    fn sync(&mut self, model: &TraceModel, finishing: bool) -> io::Result<()> {
        // A stream that started (a flush, a record) before any description still needs one
        // attr when it ends.
        let placeholder = finishing && model.descs().is_empty() && !self.placeholder_sent;
        if self.is_synced(model) && !placeholder {
            return Ok(());
        }
        self.stream.keep_rounds(model.keep_rounds());
        let held = self.compressed_header_held(model);
        let mut batch = Batch::new(self.stream.endian());
        if !self.started {
            batch.pipe_header(model)?;
        }
        if placeholder {
            batch.attrs(model.event_entries())?;
        }
        if self.started {
            batch.attrs(self.new_events(model))?;
            batch.changed_features(model, &self.features_sent, held)?;
        } else {
            batch.attrs(self.new_events(model))?;
            batch.all_features(model, held)?;
            batch.tracing_data(model)?;
        }
        batch.names(self.new_events(model))?;
        let prelude = match held && batch.carries_features() {
            true => {
                let mut header = Batch::new(self.stream.endian());
                header.feature(feature::COMPRESSED, model.header(feature::COMPRESSED))?;
                header.bytes
            }
            false => Vec::new(),
        };
        self.stream.write_raw(&batch.bytes)?;
        self.stream.set_compressed_prelude(prelude);
        self.mark_sent(model);
        self.placeholder_sent |= placeholder;
        Ok(())
    }

    /// The HEADER_COMPRESSED the writer's compression set waits to go out just before the
    /// first COMPRESSED record it writes (see [`RecordStream::set_compressed_prelude`]): a
    /// stream in which nothing ends up compressed carries none, as a file does not.
    fn compressed_header_held(&self, model: &TraceModel) -> bool {
        model.compressed_header_is_writers() && !self.stream.compressed_out()
    }

    /// True when the stream has started and nothing changed in the model since.
    #[inline]
    fn is_synced(&self, model: &TraceModel) -> bool {
        self.started && model.revision() == self.seen_revision
    }

    /// The events whose attrs were not sent yet.
    fn new_events<'s>(&self, model: &'s TraceModel) -> impl Iterator<Item = EventEntry<'s>> {
        let descs = model.descs().iter_from(self.attrs_sent);
        descs.map(move |d| model.entry(d))
    }

    /// Notes that everything the model has was sent.
    fn mark_sent(&mut self, model: &TraceModel) {
        self.started = true;
        self.attrs_sent = model.descs().len();
        self.seen_revision = model.revision();
        for index in 1..feature::LAST_FEATURE {
            if let Some(r) = self.features_sent.get_mut(usize::from(index)) {
                *r = model.feature_revision(index);
            }
        }
    }

    /// Syncs when the stream is between two records (never inside a caller's record).
    #[inline]
    fn sync_at_boundary(&mut self, model: &TraceModel) -> io::Result<()> {
        // The same test `sync` starts with, here so that the common call (nothing new) does
        // not leave the write path.
        if !self.is_synced(model) && self.stream.at_boundary() {
            self.sync(model, false)?;
        }
        Ok(())
    }
}

impl<W: Write> OutputMode for PipeOutput<W> {
    type Stream = W;
    const PIPE: bool = true;
}

impl<W: Write> Mode<W> for PipeOutput<W> {
    fn open(w: W, endian: Endian) -> io::Result<Self> {
        Ok(PipeOutput {
            stream: RecordStream::new(w, endian, 0, Some(MAX_SPLIT_RECORD_LEN)),
            started: false,
            seen_revision: 0,
            attrs_sent: 0,
            placeholder_sent: false,
            features_sent: [0; FEATURE_SLOTS],
        })
    }

    #[inline]
    fn write_records(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()> {
        self.sync_at_boundary(model)?;
        self.stream.write_records(data)
    }

    #[inline]
    fn write_known_record(&mut self, model: &TraceModel, data: &[u8]) -> io::Result<()> {
        self.sync_at_boundary(model)?;
        if self.stream.write_known_record(data) {
            return Ok(());
        }
        self.stream.write_records_general(data)
    }

    fn write_known_records(
        &mut self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
        n: u64,
    ) -> io::Result<()> {
        self.sync_at_boundary(model)?;
        self.stream.write_known_records(bufs, n)
    }

    #[inline]
    fn write_records_vectored(
        &mut self,
        model: &TraceModel,
        bufs: &[IoSlice<'_>],
    ) -> io::Result<usize> {
        self.sync_at_boundary(model)?;
        self.stream.write_records_vectored(bufs)
    }

    fn write_own_record(&mut self, model: &TraceModel, record: OwnRecord) -> io::Result<()> {
        self.sync_at_boundary(model)?;
        match record {
            OwnRecord::FinishedRound => self.stream.write_finished_round(),
            OwnRecord::FinishedInit => self.stream.write_encoded_record(&FinishedInit),
        }
    }

    fn reserve(&mut self, model: &TraceModel, len: usize) -> io::Result<()> {
        self.sync_at_boundary(model)?;
        self.stream.reserve(len)
    }

    fn flush(&mut self, model: &TraceModel) -> io::Result<()> {
        self.sync_at_boundary(model)?;
        self.stream.flush()
    }

    fn partial_len(&self) -> u64 {
        self.stream.partial_len()
    }

    fn partial_record(&self) -> Option<crate::PartialRecord> {
        self.stream.partial_record()
    }

    fn max_split(&self) -> Option<u64> {
        Some(MAX_SPLIT_RECORD_LEN)
    }

    fn abandon_partial(&mut self) -> u64 {
        self.stream.abandon_partial()
    }

    fn finalize(&mut self, model: &TraceModel) -> io::Result<()> {
        self.stream.abandon_partial();
        self.sync(model, true)?;
        self.stream.flush()
    }

    /// Nothing to rewrite: every record flushed before the failure is readable as it is.
    fn finalize_truncated(&mut self, _: &TraceModel) -> io::Result<(u64, u64)> {
        Err(io::Error::other("a pipe-mode stream cannot be rewritten"))
    }

    fn into_stream(self) -> io::Result<W> {
        self.stream.w.into_inner()
    }

    fn drop_from(&mut self, _: u64, _: u64) {}

    fn records(&self) -> u64 {
        self.stream.records()
    }

    fn took_records(&self) -> bool {
        self.stream.took_records()
    }

    fn position(&self) -> u64 {
        self.stream.pos()
    }

    fn accepts_new_tracepoint_formats(&self) -> bool {
        !self.started
    }

    fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()> {
        self.stream.set_compression(setting)
    }

    fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>> {
        self.stream.compression_stats()
    }

    /// A byte-swapped stream carries no HEADER_FEATURE, so no HEADER_COMPRESSED.
    fn compression_readable(endian: Endian) -> bool {
        endian == Endian::Little
    }
}

#[cfg(test)]
mod tests {
    use crate::{PerfHeaderIndex, PerfPipeWriter};
    use perf_abi::{feature, record_type as rt};
    use perf_encode::Endian;
    use tracepoint_decode::{PerfEventAttr, PerfEventAttrSampleType, PerfEventAttrType};

    const SCHED_SWITCH: &str = include_str!("../../../tests/data/sched_switch.format");
    /// HEADER_FEATURE's end marker.
    const END: u64 = feature::LAST_FEATURE as u64;

    fn attr(type_: PerfEventAttrType, config: u64) -> PerfEventAttr {
        PerfEventAttr {
            attr_type: type_,
            config,
            sample_type: PerfEventAttrSampleType::Identifier,
            ..Default::default()
        }
    }

    fn sample(id: u64, e: Endian) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&e.u32_bytes(rt::SAMPLE));
        v.extend_from_slice(&e.u16_bytes(2));
        v.extend_from_slice(&e.u16_bytes(16));
        v.extend_from_slice(&e.u64_bytes(id));
        v
    }

    /// The stream's records after the pipe header: the type of each, with the feature index
    /// of a HEADER_FEATURE and the event id of an EVENT_UPDATE (0 for the others).
    fn records(stream: &[u8], e: Endian) -> Vec<(u32, u64)> {
        let u64_at = |at: usize| e.read_u64(stream[at..at + 8].try_into().unwrap());
        assert_eq!(u64_at(0), perf_abi::PERF_MAGIC);
        let mut out = Vec::new();
        let mut at = 16;
        while at < stream.len() {
            let type_ = e.read_u32(stream[at..at + 4].try_into().unwrap());
            let mut size = usize::from(e.read_u16(stream[at + 6..at + 8].try_into().unwrap()));
            let detail = match type_ {
                rt::HEADER_FEATURE => u64_at(at + 8),
                rt::EVENT_UPDATE => u64_at(at + 16),
                rt::HEADER_TRACING_DATA => {
                    size += e.read_u32(stream[at + 8..at + 12].try_into().unwrap()) as usize;
                    0
                }
                _ => 0,
            };
            out.push((type_, detail));
            at += size;
        }
        assert_eq!(at, stream.len());
        out
    }

    fn format_id() -> u64 {
        let f = tracepoint_decode::PerfEventFormat::parse(true, "sched", SCHED_SWITCH).unwrap();
        u64::from(f.id())
    }

    #[test]
    fn first_sync_starts_the_stream_and_later_ones_send_what_changed() {
        let e = Endian::Little;
        let mut w = PerfPipeWriter::from_writer_with_endian(Vec::new(), e).unwrap();
        w.set_string_header(PerfHeaderIndex::Hostname, b"vm")
            .unwrap();
        w.add_event_desc(&[1], &attr(PerfEventAttrType::Software, 0), "a")
            .unwrap();
        let tp = attr(PerfEventAttrType::Tracepoint, format_id());
        w.add_tracepoint_event_desc_from_text(
            &[2],
            &tp,
            "sched:sched_switch",
            "sched",
            SCHED_SWITCH,
        )
        .unwrap();
        w.write_event_data(&sample(1, e)).unwrap();
        // Nothing new: no sync.
        w.write_event_data(&sample(2, e)).unwrap();
        // A new description, a changed feature and a new one.
        w.add_event_desc(&[3, 4], &attr(PerfEventAttrType::Software, 1), "c")
            .unwrap();
        w.set_string_header(PerfHeaderIndex::Hostname, b"vm2")
            .unwrap();
        w.set_nr_cpus_header(2, 2);
        w.write_event_data(&sample(3, e)).unwrap();
        let stream = w.finish().unwrap();
        let (attr_, feat, name) = (rt::HEADER_ATTR, rt::HEADER_FEATURE, rt::EVENT_UPDATE);
        assert_eq!(
            records(&stream, e),
            [
                // The first sync: attrs, features (with the synthesized EVENT_DESC), the
                // end marker, the tracing data, the names.
                (attr_, 0),
                (attr_, 0),
                (feat, u64::from(feature::HOSTNAME)),
                (feat, u64::from(feature::EVENT_DESC)),
                (feat, END),
                (rt::HEADER_TRACING_DATA, 0),
                (name, 1),
                (name, 2),
                (rt::SAMPLE, 0),
                (rt::SAMPLE, 0),
                // The second: the new attr, the changed features, the new name.
                (attr_, 0),
                (feat, u64::from(feature::HOSTNAME)),
                (feat, u64::from(feature::NRCPUS)),
                (name, 3),
                (rt::SAMPLE, 0),
            ]
        );
    }

    #[test]
    fn an_empty_stream_gets_the_placeholder_and_a_big_endian_one_no_features() {
        for e in [Endian::Little, Endian::Big] {
            let mut w = PerfPipeWriter::from_writer_with_endian(Vec::new(), e).unwrap();
            w.set_string_header(PerfHeaderIndex::Hostname, b"vm")
                .unwrap();
            let stream = w.finish().unwrap();
            let expected: &[(u32, u64)] = match e {
                Endian::Little => &[
                    (rt::HEADER_ATTR, 0),
                    (rt::HEADER_FEATURE, u64::from(feature::HOSTNAME)),
                    (rt::HEADER_FEATURE, u64::from(feature::EVENT_DESC)),
                    (rt::HEADER_FEATURE, END),
                ],
                Endian::Big => &[(rt::HEADER_ATTR, 0)],
            };
            assert_eq!(records(&stream, e), expected, "{e:?}");
        }
    }

    /// A flush starts the stream before any description: the placeholder still comes at the
    /// end (readers refuse a stream without attrs), and only once.
    #[test]
    fn a_stream_started_without_descriptions_ends_with_the_placeholder() {
        for e in [Endian::Little, Endian::Big] {
            let mut w = PerfPipeWriter::from_writer_with_endian(Vec::new(), e).unwrap();
            w.flush().unwrap();
            w.flush().unwrap();
            let stream = w.finish().unwrap();
            let attrs = records(&stream, e)
                .iter()
                .filter(|(t, _)| *t == rt::HEADER_ATTR)
                .count();
            assert_eq!(attrs, 1, "{e:?}");
        }
    }
}
