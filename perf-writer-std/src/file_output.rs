//! [`FileOutput`]: file mode. Records stream into the data section; finalize appends the
//! feature sections, ids and attrs and then writes the real file header at the start.

use crate::compression::{Compression, CompressionStats};
use crate::output_mode::{OutputMode, OwnRecord};
use crate::record_stream::{IoOutput, RecordStream};
use crate::session::Session;
use crate::WriterError;
use perf_abi::FILE_HEADER_SIZE;
use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, Region, SectionOrder};
use perf_encode::records::{FinishedInit, FinishedRound};
use perf_encode::{append_to_vec, Encode, Endian};
use std::io::{self, IoSlice, Seek, SeekFrom, Write};

fn io_err(e: impl Into<WriterError>) -> io::Error {
    io::Error::from(e.into())
}

/// File mode over a `Write + Seek` stream (see [`PerfDataFileWriter`](crate::PerfDataFileWriter)).
pub struct FileOutput<W: Write + Seek> {
    stream: RecordStream<W>,
    /// Stream position of the file's first byte.
    base: u64,
}

impl<W: Write + Seek> FileOutput<W> {
    #[inline]
    fn reposition(&mut self) -> io::Result<()> {
        // Held: the stream position may not be the data end (after a failed finalize).
        if self.stream.is_held() {
            return self.seek_back();
        }
        Ok(())
    }

    /// [`reposition`](Self::reposition)'s rare case: back to the data end after a failed
    /// finalize (out of line, so the write path stays small).
    #[cold]
    #[inline(never)]
    fn seek_back(&mut self) -> io::Result<()> {
        self.stream.usable()?;
        self.stream.w.seek(SeekFrom::Start(self.stream.pos))?;
        self.stream.hold(false);
        Ok(())
    }

    /// [`write_records`](OutputMode::write_records) the long way.
    #[inline(never)]
    fn write_records_general(&mut self, data: &[u8]) -> io::Result<()> {
        self.reposition()?;
        self.stream.write_records_general(data)
    }

    fn data_size(&self) -> u64 {
        self.stream
            .pos
            .saturating_sub(self.base)
            .saturating_sub(FILE_HEADER_SIZE)
    }
}

impl<W: Write + Seek> OutputMode for FileOutput<W> {
    type Stream = W;

    fn open(mut w: W, endian: Endian) -> io::Result<Self> {
        let base = w.stream_position()?;
        let mut stream = RecordStream::new(w, endian, base);
        // A zeroed header until finalize writes the real one: readers see "not a perf file"
        // rather than a file that looks complete.
        stream.write_raw(&[0u8; FILE_HEADER_SIZE as usize])?;
        Ok(FileOutput { stream, base })
    }

    #[inline]
    fn write_records(&mut self, _: &Session, data: &[u8]) -> io::Result<()> {
        // A held stream keeps its short way closed, so that way never needs to seek.
        if self.stream.write_small_record(data) {
            return Ok(());
        }
        self.write_records_general(data)
    }

    #[inline]
    fn write_records_vectored(&mut self, _: &Session, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.reposition()?;
        self.stream.write_records_vectored(bufs)
    }

    fn write_own_record(&mut self, _: &Session, record: OwnRecord) -> io::Result<()> {
        self.reposition()?;
        match record {
            OwnRecord::FinishedRound => self.stream.write_encoded_record(&FinishedRound),
            OwnRecord::FinishedInit => self.stream.write_encoded_record(&FinishedInit),
        }
    }

    fn flush(&mut self, _: &Session) -> io::Result<()> {
        self.stream.flush()
    }

    fn finalize(&mut self, session: &Session) -> io::Result<()> {
        self.stream.usable()?;
        if !self.stream.at_boundary() {
            return Err(io_err(WriterError::IncompleteRecord));
        }
        session.check_tracepoint_formats().map_err(io_err)?;
        let endian = self.stream.endian();
        let events = session.event_entries();
        let payloads = session.feature_payloads(&events).map_err(io_err)?;
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

        self.reposition()?;
        if self.data_size() == 0 {
            // perf warns about (and `perf script` fails on) an empty data section; one
            // FINISHED_ROUND record, which says nothing, makes an empty trace read as empty.
            self.stream.write_encoded_record(&FinishedRound)?;
        }
        let layout = FileLayout::plan(LayoutInput {
            order: SectionOrder::AttrsLast,
            events: &events,
            data_size: self.data_size(),
            features: &features,
        })
        .map_err(io_err)?;

        let mut header = Vec::with_capacity(FILE_HEADER_SIZE as usize);
        append_to_vec(&layout.header(), endian, &mut header).map_err(io_err)?;

        // From here a failure leaves the stream elsewhere than the data end: the next write
        // or finalize seeks back, and finalize rewrites the same bytes.
        self.stream.hold(true);
        // The regions after the data section, in file order, encoded straight into the
        // buffered stream (one pass, no copy of the whole tail).
        let tail_start = layout.feature_table().offset;
        let mut out = IoOutput::new(&mut self.stream.w);
        for (region, section) in layout.regions() {
            if section.offset < tail_start {
                continue; // header and data: already in place
            }
            if section.offset != tail_start.saturating_add(out.written()) {
                return Err(io::Error::other("layout regions are not contiguous"));
            }
            match region {
                Region::FeatureTable => out.encode(&layout.feature_table_encoder(), endian)?,
                Region::FeaturePayloads => {
                    for (_, p) in &payloads {
                        out.encode(p, endian)?;
                    }
                }
                Region::Ids => out.encode(&layout.ids_encoder(), endian)?,
                Region::Attrs => out.encode(&layout.attrs_encoder(), endian)?,
                Region::Header | Region::Data => {}
            }
        }
        if tail_start.saturating_add(out.written()) != layout.file_size() {
            return Err(io::Error::other(
                "the tail does not end where the layout does",
            ));
        }
        let w = &mut self.stream.w;
        w.seek(SeekFrom::Start(self.base))?;
        w.write_all(&header)?;
        w.seek(SeekFrom::Start(
            self.base.saturating_add(layout.file_size()),
        ))?;
        w.flush()?;
        Ok(())
    }

    fn into_stream(self) -> io::Result<W> {
        // Flushed by finalize, so taking the stream out of its buffer writes nothing more.
        self.stream.w.into_inner()
    }

    fn position(&self) -> u64 {
        self.stream.pos
    }

    fn accepts_new_tracepoint_formats(&self) -> bool {
        true
    }

    fn set_compression(&mut self, setting: Option<Compression>) -> io::Result<()> {
        self.reposition()?;
        self.stream.set_compression(setting)
    }

    fn compression_stats(&mut self) -> io::Result<Option<CompressionStats>> {
        self.reposition()?;
        self.stream.compression_stats()
    }

    fn compression_readable(_: Endian) -> bool {
        true
    }
}
