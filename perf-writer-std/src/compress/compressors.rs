//! [`Compressors`]: the compressor of one output, and what the ones before it left.

use crate::compress::{Compression, CompressionForm, CompressionStats, Compressor};
use crate::error::CompressionError;
use crate::WriterError;

/// The compressors of one output: the one compressing, and what the others left behind.
#[derive(Default)]
pub(crate) struct Compressors {
    /// Compressing now.
    pub(crate) active: Option<Box<Compressor>>,
    /// A perf-form compressor switched off with its frame open: compression in perf's form
    /// goes on in its stream.
    parked: Option<Box<Compressor>>,
    /// What the compressors dropped so far wrote.
    done: Option<CompressionStats>,
    /// A dropped compressor had started compressing kernel records.
    done_started: bool,
    /// Every FINISHED_ROUND is kept where it was (see [`Compressor::keep_rounds`]).
    keep_rounds: bool,
}

impl Compressors {
    /// Starts, changes or stops compression (between records): what the active compressor
    /// holds is written first. A perf-form stream is never ended (see
    /// [`Compressor::open_frame`]): switching off parks it, and perf's form, at any level,
    /// goes on in it; the aligned form is refused while it is open. Returns the bytes
    /// written; on error nothing changed but what was written.
    pub(crate) fn switch(
        &mut self,
        setting: Option<Compression>,
        endian: perf_encode::Endian,
        w: &mut Vec<u8>,
    ) -> std::io::Result<u64> {
        let open = self.parked.is_some() || self.active.as_ref().is_some_and(|a| a.open_frame());
        if let Some(c) = setting {
            c.check()?;
            if open && c.form != CompressionForm::PerfStream {
                return Err(WriterError::Compression(CompressionError::FormSwitch).into());
            }
        }
        let written = match self.active.as_mut() {
            Some(a) => a.flush_chunk(w)?,
            None => 0,
        };
        if let Some(a) = self.active.take() {
            if a.open_frame() {
                self.parked = Some(a);
            } else {
                self.retire(&a);
            }
        }
        let started = self.parked.as_ref().is_some_and(|p| p.started());
        self.active = match setting {
            None => None,
            Some(c) if c.form == CompressionForm::PerfStream && self.parked.is_some() => {
                if let Some(p) = self.parked.as_mut() {
                    p.set_level(c.level)?;
                }
                self.parked.take()
            }
            Some(c) => {
                let mut next = Box::new(Compressor::new(c, endian)?);
                if started || self.done_started {
                    next.start();
                }
                Some(next)
            }
        };
        if let Some(a) = self.active.as_mut() {
            a.keep_rounds(self.keep_rounds);
        }
        Ok(written)
    }

    /// Keeps every FINISHED_ROUND where it was, or lets the round rule leave some out (see
    /// [`Compressor::keep_rounds`]), in this compressor and the next ones.
    pub(crate) fn keep_rounds(&mut self, keep: bool) {
        if self.keep_rounds != keep {
            self.keep_rounds = keep;
            if let Some(a) = self.active.as_mut() {
                a.keep_rounds(keep);
            }
        }
    }

    fn retire(&mut self, c: &Compressor) {
        self.done_started |= c.started();
        self.done
            .get_or_insert_with(CompressionStats::default)
            .merge(&c.stats());
    }

    /// What every compressor of the output wrote, `None` when none was ever on.
    pub(crate) fn stats(&self) -> Option<CompressionStats> {
        let mut all = self.done;
        for c in [&self.parked, &self.active].into_iter().flatten() {
            all.get_or_insert_with(CompressionStats::default)
                .merge(&c.stats());
        }
        all
    }
}
