//! The writer's compression setting ([`PerfWriter::set_compression`]).

use crate::model::feature_slot::FeatureSlot;
use crate::output::OutputMode;
use crate::{Compression, PerfWriter, WriterError};
use std::io;

impl<O: OutputMode> PerfWriter<O> {
    /// Compresses the records written from now on with zstd into PERF_RECORD_COMPRESSED
    /// records, as `perf record -z` does (`None`: stops). Needs the `zstd` cargo feature;
    /// off by default.
    ///
    /// Records keep flowing through [`write_event_data`](Self::write_event_data) and the
    /// typed calls, checked as before. Kernel records (SAMPLE, COMM, MMAP…) are compressed
    /// from the first SAMPLE or FINISHED_INIT on; the records before them (the initial
    /// state), FINISHED_INIT and the other tool records stay uncompressed, as perf writes
    /// them. Compressed records wait, whole, in a 256 KiB buffer
    /// ([`MAX_DECOMPRESSED_CHUNK`](crate::MAX_DECOMPRESSED_CHUNK)) that becomes COMPRESSED
    /// records of at most 65,535 bytes when the next record does not fit, before an
    /// uncompressed record, on [`flush`](Self::flush) and on finish;
    /// [`file_pos`](Self::file_pos) does not count the waiting bytes. A FINISHED_ROUND among
    /// them does not end the buffer: it is written where the buffer ends anyway, once 256 KiB
    /// of records went by since the last one written; the others are left out (the aligned
    /// form) or compressed in their place (perf's form), which perf and linux-perf-data read
    /// as the same records in the same order (all of them stay where they were when some
    /// events' records carry a time and others' do not). HEADER_COMPRESSED is set now (pipe
    /// mode sends it just before the first COMPRESSED record, with `mmap_len` 512 KiB and
    /// ratio 0) and rewritten on finish with the ratio of the records compressed to the
    /// COMPRESSED records written and `mmap_len` twice the largest piece one record
    /// decompresses to (the margin perf 6.1's decompression needs); when no COMPRESSED record
    /// was written, a file gets back the HEADER_COMPRESSED it had before (none, unless the
    /// caller set one), and a pipe stream carries none but the caller's.
    ///
    /// A flush ends a piece: in the aligned form (the default) that ends a zstd frame, so a
    /// trace flushed every 1,000 records of 64 bytes is about 1% larger than one flushed
    /// never, and a piece that would not shrink (a flush after every record) is written as
    /// its records, uncompressed; perf's form keeps zstd's history across flushes (its
    /// records shrink even one at a time). BENCHMARKS.md ("Compression") has the numbers.
    ///
    /// It may be switched between records. perf reads one zstd stream per output, and a
    /// stream in perf's form ([`CompressionForm::PerfStream`](crate::CompressionForm)) is
    /// never ended (its end would be a record that decompresses to nothing, which perf 6.1
    /// refuses): once it has written records, compression may go off and on again in perf's
    /// form, at any level, continuing that stream, but not in the aligned form.
    ///
    /// Refused (nothing changes): a level outside 1..=22, a build without the `zstd`
    /// feature, a byte-swapped pipe stream (it carries no HEADER_COMPRESSED), a call in the
    /// middle of a record, the aligned form after perf's ([`WriterError::CompressionSwitch`]).
    /// A dropped writer finishes, so the bytes waiting for compression are written.
    ///
    /// Failures follow the writer's rules: the compressor gets only whole records, so the
    /// start of an unfinished record is held (in memory, out of the compressor) until its
    /// last byte arrives and [`abandon_partial_record`](Self::abandon_partial_record) drops
    /// it; COMPRESSED records the output did not take wait and are sent again first. Limits
    /// while compressing: an unfinished record is held in memory whole in file mode too (it
    /// is not written out early, as a record longer than the buffer is without
    /// compression), so in both modes a record split across calls may be at most
    /// [`MAX_SPLIT_RECORD_LEN`](crate::MAX_SPLIT_RECORD_LEN) bytes
    /// ([`WriterError::SplitRecordTooLong`] at the call that would hold more; a longer
    /// record is taken in one call); a call that compressed records is taken even when the output then
    /// fails to take them (the error comes back at the next call that writes, flushes or
    /// finishes, which is refused whole until they are sent); and the records
    /// [`finish_truncated`](Self::finish_truncated) keeps are counted as they are in the
    /// file, a COMPRESSED record as one.
    ///
    /// ```
    /// # #[cfg(feature = "zstd")] {
    /// use perf_writer_std::{Compression, PerfDataFileWriter};
    /// let mut w = PerfWriter::<FileOutput<_>>::from_writer(std::io::Cursor::new(Vec::new()))?;
    /// w.set_compression(Some(Compression::zstd(1)))?;
    /// assert_eq!(w.compression(), Some(Compression::zstd(1)));
    /// assert!(w.set_compression(Some(Compression::zstd(0))).is_err());
    /// # }
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_compression(&mut self, setting: Option<Compression>) -> Result<(), WriterError> {
        if let Some(c) = setting {
            c.check()?;
            if !O::compression_readable(self.session.endian()) {
                return Err(WriterError::CompressionUnreadable);
            }
        }
        if self.check.inside_record() {
            return Err(WriterError::IncompleteRecord);
        }
        if let Some(out) = self.out.as_mut() {
            out.set_compression(setting)?;
        } else if let Some(c) = setting {
            // Without an output, only what `open_writer` will do is checked (the feature).
            crate::compress::Compressor::new(c, self.session.endian())?;
        }
        self.session.compression = setting;
        if let Some(c) = setting {
            let slot = FeatureSlot::COMPRESSED;
            if self.session.compressed_before.is_none() {
                let before = self.session.header_if_set(slot.index()).map(<[u8]>::to_vec);
                self.session.compressed_before = Some(before);
            }
            self.session.set_fixed(slot, &c.announced());
            self.session.compressed_revision = self.session.feature_revision(slot.index());
        }
        Ok(())
    }

    /// The compression setting ([`set_compression`](Self::set_compression)).
    pub fn compression(&self) -> Option<Compression> {
        self.session.compression
    }

    /// Starts the session's compression on a new output.
    pub(crate) fn start_compression(&mut self) -> io::Result<()> {
        match (self.out.as_mut(), self.session.compression) {
            (Some(out), Some(c)) => out.set_compression(Some(c)),
            _ => Ok(()),
        }
    }

    /// Writes what waits for compression and puts the true ratio and `mmap_len` in
    /// HEADER_COMPRESSED (before finalize writes the features). When no COMPRESSED record
    /// was written (every piece was left uncompressed, or none came), HEADER_COMPRESSED goes
    /// back to what it was before compression set it, unless the caller set it since.
    pub(crate) fn finish_compression(&mut self) -> io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        let Some(stats) = out.compression_stats()? else {
            return Ok(());
        };
        let slot = FeatureSlot::COMPRESSED;
        if stats.bytes_out > 0 {
            self.session.set_fixed(slot, &stats.info());
        } else if self.session.feature_revision(slot.index()) == self.session.compressed_revision {
            match self.session.compressed_before.clone().flatten() {
                Some(before) => self.session.set_header(slot.index(), &before)?,
                None => self.session.clear_header(slot),
            }
        }
        Ok(())
    }
}

#[cfg(all(test, not(feature = "zstd")))]
mod tests {
    use crate::{Compression, FileOutput, PerfPipeWriter, PerfWriter, WriterError};
    use std::io::Cursor;

    #[test]
    fn without_the_feature_compression_is_refused() {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        let refused = w.set_compression(Some(Compression::zstd(1)));
        assert!(
            matches!(refused, Err(WriterError::Compression(_))),
            "{refused:?}"
        );
        assert_eq!(w.compression(), None);
        w.set_compression(None).unwrap();
        // Without an output too.
        let mut p = PerfPipeWriter::<std::fs::File>::new();
        assert!(p.set_compression(Some(Compression::zstd(1))).is_err());
        assert_eq!(p.compression(), None);
    }
}
