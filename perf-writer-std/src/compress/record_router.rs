//! Which of the caller's records the compressor compresses: kernel records from the first
//! SAMPLE or FINISHED_INIT on, as `perf record -z` does; the FINISHED_ROUND records among
//! them go to the compressor's round rule; the rest stays as it is.

use crate::error::CompressionError;
use crate::WriterError;
use perf_encode::records::{RecordWalker, Step};
use perf_encode::Endian;
use std::io;

/// The size of a FINISHED_ROUND record: its header alone.
const ROUND_SIZE: u16 = 8;

/// Where a record's bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Into the compressor.
    Compress,
    /// Straight to the output, after what the compressor holds.
    Raw,
    /// A FINISHED_ROUND (header only) among compressed records: the compressor writes it
    /// where its compressed records end, or leaves it out (see the `compress` module).
    Round,
}

/// Finds the records in the caller's bytes (already checked by the framer, with the same
/// walk) and says where each goes.
#[derive(Debug)]
pub(crate) struct Router {
    /// Where the records are; a header split across calls waits here until the record's
    /// type is known.
    walk: RecordWalker,
    current: Route,
    /// A SAMPLE or FINISHED_INIT was seen: kernel records are compressed from here on.
    pub(crate) started: bool,
}

impl Router {
    pub(crate) fn new(endian: Endian) -> Self {
        Router {
            walk: RecordWalker::new(endian),
            current: Route::Raw,
            started: false,
        }
    }

    /// Where a record of `type_` and `size` goes.
    fn route(&mut self, type_: u32, size: u16) -> Route {
        use perf_abi::record_type::{FINISHED_INIT, FINISHED_ROUND, HEADER_ATTR, SAMPLE};
        match type_ {
            FINISHED_INIT => {
                self.started = true;
                Route::Raw
            }
            SAMPLE => {
                self.started = true;
                Route::Compress
            }
            t if t < HEADER_ATTR && self.started => Route::Compress,
            FINISHED_ROUND if size == ROUND_SIZE && self.started => Route::Round,
            _ => Route::Raw,
        }
    }

    /// Between records, a whole record of `type_` and `size` that goes to the compressor
    /// (the commonest call): true, and the router stays between records; false changes
    /// nothing [`split`](Self::split) would not.
    #[inline]
    pub(crate) fn compresses_whole(&mut self, type_: u32, size: u16) -> bool {
        self.walk.at_boundary() && self.route(type_, size) == Route::Compress
    }

    /// Between records: every byte given so far belongs to a whole record.
    pub(crate) fn at_boundary(&self) -> bool {
        self.walk.at_boundary()
    }

    /// Splits `data` into runs of one route, calling `sink` for each; header bytes wait
    /// here until the record's type is known.
    pub(crate) fn split(
        &mut self,
        mut data: &[u8],
        mut sink: impl FnMut(Route, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        while !data.is_empty() {
            let step = self.walk.step(data).map_err(|_| {
                WriterError::Compression(CompressionError::Zstd("unframed record bytes"))
            })?;
            let n = match step {
                Step::Header(n) => n, // the header goes on in the next call
                Step::Body(n) => {
                    sink(self.current, data.get(..n).unwrap_or_default())?;
                    n
                }
                Step::Record(r) => {
                    self.current = self.route(r.type_, r.size);
                    if r.held != 0 {
                        sink(self.current, self.walk.earlier_bytes(&r))?;
                    }
                    sink(self.current, data.get(..r.taken).unwrap_or_default())?;
                    r.taken
                }
            };
            data = data.get(n..).unwrap_or_default();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perf_abi::record_type as rt;

    fn rec(type_: u32, size: u16, fill: u8) -> Vec<u8> {
        let mut r = vec![fill; usize::from(size)];
        r[..4].copy_from_slice(&type_.to_le_bytes());
        r[4..6].copy_from_slice(&[0, 0]);
        r[6..8].copy_from_slice(&size.to_le_bytes());
        r
    }

    #[test]
    fn every_split_routes_the_same_bytes() {
        // Before the first SAMPLE: raw (initial state); kernel records after it compressed,
        // tool records (and an AUXTRACE's payload) raw.
        let comm = rec(rt::COMM, 32, 1);
        let init = rec(rt::FINISHED_INIT, 8, 2);
        let sample = rec(rt::SAMPLE, 24, 3);
        let round = rec(rt::FINISHED_ROUND, 8, 4);
        let long_round = rec(rt::FINISHED_ROUND, 16, 8);
        let mut aux = rec(rt::AUXTRACE, 48, 5);
        aux[8..16].copy_from_slice(&13u64.to_le_bytes());
        aux.extend_from_slice(&[6; 13]);
        let compressed = rec(rt::COMPRESSED, 13, 7);
        let order = [
            &round,
            &comm,
            &init,
            &comm,
            &sample,
            &round,
            &aux,
            &long_round,
            &compressed,
            &comm,
        ];
        let stream: Vec<u8> = order.iter().flat_map(|r| r.iter().copied()).collect();
        // A round before the first SAMPLE, and one with a body, go through as they are.
        let want_raw = [&round[..], &comm, &init, &aux, &long_round, &compressed].concat();
        let want_compressed = [&comm[..], &sample, &comm].concat();
        for split in 0..=stream.len() {
            for step in [1usize, 7, usize::MAX] {
                let mut router = Router::new(Endian::Little);
                let (mut raw, mut comp, mut rounds) = (Vec::new(), Vec::new(), Vec::new());
                let (first, rest) = stream.split_at(split);
                for part in std::iter::once(first).chain(rest.chunks(step.min(rest.len().max(1)))) {
                    router
                        .split(part, |route, run| {
                            match route {
                                Route::Raw => raw.extend_from_slice(run),
                                Route::Compress => comp.extend_from_slice(run),
                                Route::Round => rounds.extend_from_slice(run),
                            }
                            Ok(())
                        })
                        .unwrap();
                }
                assert_eq!(raw, want_raw, "split {split} step {step}");
                assert_eq!(comp, want_compressed, "split {split} step {step}");
                assert_eq!(rounds, round, "split {split} step {step}");
            }
        }
    }
}
