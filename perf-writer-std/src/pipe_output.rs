//! [`PipeOutput`]: pipe mode. The stream starts with the 16-byte pipe header; descriptions
//! and features are records sent before the first event that follows them.

use crate::output_mode::{OutputMode, OwnRecord};
use crate::record_stream::RecordStream;
use crate::session::{Session, FEATURE_SLOTS};
use crate::WriterError;
use perf_abi::{feature, PerfPipeHeader, PERF_MAGIC, PIPE_HEADER_SIZE};
use perf_encode::records::{
    EventUpdateName, FinishedInit, FinishedRound, HeaderAttr, HeaderFeature, HeaderTracingData,
    MAX_FEATURE_PAYLOAD,
};
use perf_encode::{append_to_vec, Encode, Endian};
use std::io::{self, IoSlice, Write};

fn io_err(e: impl Into<WriterError>) -> io::Error {
    io::Error::from(e.into())
}

/// Pipe mode over a `Write` stream (see [`PerfPipeWriter`](crate::PerfPipeWriter)).
pub struct PipeOutput<W: Write> {
    stream: RecordStream<W>,
    /// The pipe header, first descriptions, features and tracing data are out.
    started: bool,
    /// Session revision at the last sync.
    seen_revision: u64,
    /// Descriptions sent as HEADER_ATTR.
    attrs_sent: usize,
    /// Revision of each feature when it was sent.
    features_sent: [u64; FEATURE_SLOTS],
}

/// Features perf 6.1 does not send in pipe mode, either because they have their own record
/// (TRACING_DATA) or because perf cannot use them there.
fn sent_in_pipe(index: u8) -> bool {
    !matches!(
        index,
        feature::TRACING_DATA
            | feature::BUILD_ID
            | feature::BRANCH_STACK
            | feature::AUXTRACE
            | feature::STAT
            | feature::CACHE
            | feature::DIR_FORMAT
            | feature::HYBRID_TOPOLOGY
    )
}

fn push<E: Encode>(out: &mut Vec<u8>, value: &E, endian: Endian) -> io::Result<()> {
    append_to_vec(value, endian, out).map_err(io_err)
}

impl<W: Write> PipeOutput<W> {
    /// Sends what the session has that the stream does not, between two records.
    fn sync(&mut self, session: &Session, finishing: bool) -> io::Result<()> {
        if self.started && session.revision() == self.seen_revision {
            return Ok(());
        }
        self.stream.usable()?;
        let endian = self.stream.endian();
        // perf 6.1 does not byte-swap the feat_id of HEADER_FEATURE records, so a
        // byte-swapped stream's features would break `perf report`: a big-endian stream
        // carries none (names still arrive as EVENT_UPDATE records).
        let features_ok = endian == Endian::Little;
        let mut out = Vec::new();

        if !self.started {
            session.check_tracepoint_formats().map_err(io_err)?;
            push(
                &mut out,
                &PerfPipeHeader {
                    magic: PERF_MAGIC,
                    size: PIPE_HEADER_SIZE,
                },
                endian,
            )?;
        }
        if session.descs().is_empty() && finishing && !self.started {
            // Readers refuse a stream without attrs: the same placeholder as file mode.
            let events = session.event_entries();
            for e in &events {
                let attr = e.attr_with_size(e.attr.minimal_file_size());
                push(
                    &mut out,
                    &HeaderAttr {
                        attr: &attr,
                        ids: e.ids,
                    },
                    endian,
                )?;
            }
        }
        for d in session.descs().iter_from(self.attrs_sent) {
            let e = session.entry(d);
            let attr = e.attr_with_size(e.attr.minimal_file_size());
            push(
                &mut out,
                &HeaderAttr {
                    attr: &attr,
                    ids: e.ids,
                },
                endian,
            )?;
        }

        if !self.started {
            if features_ok {
                let events = session.event_entries();
                for (index, payload) in session.feature_payloads(&events).map_err(io_err)? {
                    if !sent_in_pipe(index) {
                        continue;
                    }
                    let payload = payload.bytes(endian).map_err(io_err)?;
                    if payload.len() > MAX_FEATURE_PAYLOAD {
                        if index == feature::EVENT_DESC {
                            continue; // the names also go out as EVENT_UPDATE records
                        }
                        return Err(io_err(WriterError::FeatureTooLargeForPipe(index)));
                    }
                    push(
                        &mut out,
                        &HeaderFeature {
                            index,
                            payload: &payload,
                        },
                        endian,
                    )?;
                }
                push(&mut out, &HeaderFeature::END, endian)?;
            }
            if let Some(td) = session.tracing_data().map_err(io_err)? {
                push(&mut out, &HeaderTracingData { data: &td }, endian)?;
            }
        } else if features_ok {
            // Features changed since they were sent.
            for index in 1..feature::LAST_FEATURE {
                let changed = session.feature_revision(index) != self.sent_revision(index);
                let payload = session.header(index);
                if !changed || payload.is_empty() || !sent_in_pipe(index) {
                    continue;
                }
                if payload.len() > MAX_FEATURE_PAYLOAD {
                    return Err(io_err(WriterError::FeatureTooLargeForPipe(index)));
                }
                push(&mut out, &HeaderFeature { index, payload }, endian)?;
            }
        }
        // Before the first sync no attr was sent: the new descriptions are all of them.
        for d in session.descs().iter_from(self.attrs_sent) {
            let e = session.entry(d);
            if let Some(&id) = e.ids.first() {
                push(&mut out, &EventUpdateName { id, name: e.name }, endian)?;
            }
        }

        self.stream.write_raw(&out)?;
        self.started = true;
        self.attrs_sent = session.descs().len();
        self.seen_revision = session.revision();
        for index in 1..feature::LAST_FEATURE {
            if let Some(r) = self.features_sent.get_mut(usize::from(index)) {
                *r = session.feature_revision(index);
            }
        }
        Ok(())
    }

    fn sent_revision(&self, index: u8) -> u64 {
        self.features_sent
            .get(usize::from(index))
            .copied()
            .unwrap_or(0)
    }

    /// Syncs when the stream is between two records (never inside a caller's record).
    #[inline]
    fn sync_at_boundary(&mut self, session: &Session) -> io::Result<()> {
        // The same test `sync` starts with, here so that the common call (nothing new) does
        // not leave the write path.
        let synced = self.started && session.revision() == self.seen_revision;
        if !synced && self.stream.at_boundary() {
            self.sync(session, false)?;
        }
        Ok(())
    }
}

impl<W: Write> OutputMode for PipeOutput<W> {
    type Stream = W;

    fn open(w: W, endian: Endian) -> io::Result<Self> {
        Ok(PipeOutput {
            stream: RecordStream::new(w, endian, 0),
            started: false,
            seen_revision: 0,
            attrs_sent: 0,
            features_sent: [0; FEATURE_SLOTS],
        })
    }

    #[inline]
    fn write_records(&mut self, session: &Session, data: &[u8]) -> io::Result<()> {
        self.sync_at_boundary(session)?;
        self.stream.write_records(data)
    }

    #[inline]
    fn write_records_vectored(
        &mut self,
        session: &Session,
        bufs: &[IoSlice<'_>],
    ) -> io::Result<usize> {
        self.sync_at_boundary(session)?;
        self.stream.write_records_vectored(bufs)
    }

    fn write_own_record(&mut self, session: &Session, record: OwnRecord) -> io::Result<()> {
        self.sync_at_boundary(session)?;
        match record {
            OwnRecord::FinishedRound => self.stream.write_encoded_record(&FinishedRound),
            OwnRecord::FinishedInit => self.stream.write_encoded_record(&FinishedInit),
        }
    }

    fn flush(&mut self, session: &Session) -> io::Result<()> {
        self.sync_at_boundary(session)?;
        self.stream.flush()
    }

    fn finalize(&mut self, session: &Session) -> io::Result<()> {
        if !self.stream.at_boundary() {
            return Err(io_err(WriterError::IncompleteRecord));
        }
        self.sync(session, true)?;
        self.stream.flush()
    }

    fn into_stream(self) -> io::Result<W> {
        self.stream.w.into_inner()
    }

    fn position(&self) -> u64 {
        self.stream.pos
    }

    fn accepts_new_tracepoint_formats(&self) -> bool {
        !self.started
    }
}
