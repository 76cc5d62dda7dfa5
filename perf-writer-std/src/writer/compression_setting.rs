//! The writer's compression setting ([`PerfWriter::set_compression`]).

use crate::error::{CompressionError, RecordError};
use crate::model::feature_slot::FeatureSlot;
use crate::output::OutputMode;
use crate::{Compression, PerfWriter, WriterError};
use std::io;

impl<O: OutputMode> PerfWriter<O> {
    /// Compresses the records written from now on with zstd into PERF_RECORD_COMPRESSED
    /// records, as `perf record -z` does (`None`: stops).
    ///
    /// Needs the `zstd` cargo feature; off by default. Records keep flowing through
    /// [`write_event_data`](Self::write_event_data) and the typed calls, checked as before,
    /// and the writer keeps HEADER_COMPRESSED right. The crate documentation's
    /// "Compression" says which records are compressed, when compressed bytes become
    /// records, what a flush costs, the two forms
    /// ([`CompressionForm`](crate::CompressionForm)) and the limits while compressing. A
    /// dropped writer finishes, so the bytes waiting for compression are written.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`CompressionError::Level`] for a level outside
    /// 1..=22; [`CompressionError::Zstd`] in a build without the `zstd` feature;
    /// [`CompressionError::Unreadable`] for a byte-swapped pipe stream (it carries no
    /// HEADER_COMPRESSED); [`RecordError::Incomplete`] in the middle of a record;
    /// [`CompressionError::FormSwitch`] for the aligned form after perf's.
    ///
    /// ```
    /// # #[cfg(feature = "zstd")] {
    /// use perf_writer_std::{Compression, FileOutput, PerfWriter};
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
            if !O::compression_readable(self.model.endian()) {
                return Err(WriterError::Compression(CompressionError::Unreadable));
            }
        }
        if self.check.inside_record() {
            return Err(WriterError::Record(RecordError::Incomplete));
        }
        if let Some(out) = self.out.as_mut() {
            out.set_compression(setting)?;
        } else if let Some(c) = setting {
            // Without an output, only what `open_writer` will do is checked (the feature).
            crate::compress::Compressor::new(c, self.model.endian())?;
        }
        self.model.compression = setting;
        if let Some(c) = setting {
            let slot = FeatureSlot::COMPRESSED;
            if self.model.compressed_before.is_none() {
                let before = self.model.header_if_set(slot.index()).map(<[u8]>::to_vec);
                self.model.compressed_before = Some(before);
            }
            self.model.set_fixed(slot, &c.announced());
            self.model.compressed_revision = self.model.feature_revision(slot.index());
        }
        Ok(())
    }

    /// The compression setting ([`set_compression`](Self::set_compression)).
    pub fn compression(&self) -> Option<Compression> {
        self.model.compression
    }

    /// Starts the model's compression on a new output.
    pub(crate) fn start_compression(&mut self) -> io::Result<()> {
        match (self.out.as_mut(), self.model.compression) {
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
            self.model.set_fixed(slot, &stats.info());
        } else if self.model.compressed_header_is_writers() {
            match self.model.compressed_before.clone().flatten() {
                Some(before) => self.model.set_header(slot.index(), &before)?,
                None => self.model.clear_header(slot),
            }
        }
        Ok(())
    }
}

#[cfg(all(test, not(feature = "zstd")))]
mod tests {
    use crate::{
        Compression, CompressionError, FileOutput, PerfPipeWriter, PerfWriter, WriterError,
    };
    use std::io::Cursor;

    #[test]
    fn without_the_feature_compression_is_refused() {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        let refused = w.set_compression(Some(Compression::zstd(1)));
        assert!(
            matches!(
                refused,
                Err(WriterError::Compression(CompressionError::Zstd(_)))
            ),
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
