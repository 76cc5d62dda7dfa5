//! Which of the caller's records the compressor compresses: kernel records from the first
//! SAMPLE or FINISHED_INIT on, as `perf record -z` does; the rest stays as it is.

use crate::WriterError;
use perf_encode::Endian;
use std::io;

/// Where a record's bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Into the compressor.
    Compress,
    /// Straight to the output, after what the compressor holds.
    Raw,
}

/// Finds the records in the caller's bytes (already checked by the framer) and says where
/// each goes.
#[derive(Debug)]
pub(crate) struct Router {
    endian: Endian,
    /// The first `have` bytes of a record header gathered across calls.
    head: [u8; 16],
    have: usize,
    /// Bytes of the current record still to come.
    remaining: u64,
    current: Route,
    /// A SAMPLE or FINISHED_INIT was seen: kernel records are compressed from here on.
    pub(crate) started: bool,
}

impl Router {
    pub(crate) fn new(endian: Endian) -> Self {
        Router {
            endian,
            head: [0; 16],
            have: 0,
            remaining: 0,
            current: Route::Raw,
            started: false,
        }
    }

    /// Where a record of `type_` goes.
    fn route(&mut self, type_: u32) -> Route {
        use perf_abi::record_type::{FINISHED_INIT, HEADER_ATTR, SAMPLE};
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
            _ => Route::Raw,
        }
    }

    /// Between records, a whole record of `type_` that goes to the compressor (the
    /// commonest call): true, and the router stays between records; false changes nothing
    /// [`split`](Self::split) would not.
    #[inline]
    pub(crate) fn compresses_whole(&mut self, type_: u32) -> bool {
        self.have == 0 && self.remaining == 0 && self.route(type_) == Route::Compress
    }

    /// Splits `data` into runs of one route, calling `sink` for each; header bytes wait
    /// here until the record's type is known.
    pub(crate) fn split(
        &mut self,
        mut data: &[u8],
        mut sink: impl FnMut(Route, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        use perf_encode::records::{payload_len, record_extent, RecordExtent};
        while !data.is_empty() {
            // The common call: records starting here with their header whole.
            if self.have == 0 && self.remaining == 0 {
                if let Some(h) = data.first_chunk::<8>() {
                    let type_ = self.endian.read_u32([h[0], h[1], h[2], h[3]]);
                    let size = self.endian.read_u16([h[6], h[7]]);
                    // Kernel records (the commonest by far) are all framed by their size.
                    let sized = type_ < perf_abi::record_type::HEADER_ATTR
                        || matches!(record_extent(type_, size), Ok(RecordExtent::Sized));
                    if sized && size >= 8 {
                        self.current = self.route(type_);
                        let n = usize::from(size).min(data.len());
                        let (run, rest) = data.split_at(n);
                        self.remaining = u64::from(size).saturating_sub(n as u64);
                        sink(self.current, run)?;
                        data = rest;
                        continue;
                    }
                }
            }
            if self.remaining > 0 {
                let n = usize::try_from(self.remaining)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                let (run, rest) = data.split_at(n);
                sink(self.current, run)?;
                self.remaining = self.remaining.saturating_sub(n as u64);
                data = rest;
                continue;
            }
            let want: usize = if self.have < 8 { 8 } else { 16 };
            let n = want.saturating_sub(self.have).min(data.len());
            let (part, rest) = data.split_at(n);
            let end = self.have.saturating_add(n);
            if let Some(dst) = self.head.get_mut(self.have..end) {
                dst.copy_from_slice(part);
            }
            self.have = end;
            data = rest;
            if self.have < want {
                continue; // `data` is empty: the header goes on in the next call
            }
            let h = self.head;
            let type_ = self.endian.read_u32([h[0], h[1], h[2], h[3]]);
            let size = u64::from(self.endian.read_u16([h[6], h[7]]));
            let total = match record_extent(type_, size as u16) {
                Ok(RecordExtent::Sized) => size,
                Ok(RecordExtent::WithPayload(how)) if self.have == 16 => {
                    let word = [h[8], h[9], h[10], h[11], h[12], h[13], h[14], h[15]];
                    size.saturating_add(payload_len(how, self.endian, word))
                }
                Ok(RecordExtent::WithPayload(_)) => continue, // gather its second word
                Err(_) => return Err(WriterError::Compression("unframed record bytes").into()),
            };
            self.current = self.route(type_);
            let have = self.have;
            self.have = 0;
            self.remaining = total.saturating_sub(have as u64);
            sink(self.current, self.head.get(..have).unwrap_or_default())?;
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
        let mut aux = rec(rt::AUXTRACE, 48, 5);
        aux[8..16].copy_from_slice(&13u64.to_le_bytes());
        aux.extend_from_slice(&[6; 13]);
        let compressed = rec(rt::COMPRESSED, 13, 7);
        let order = [
            &comm,
            &init,
            &comm,
            &sample,
            &round,
            &aux,
            &compressed,
            &comm,
        ];
        let stream: Vec<u8> = order.iter().flat_map(|r| r.iter().copied()).collect();
        let want_raw = [&comm[..], &init, &round, &aux, &compressed].concat();
        let want_compressed = [&comm[..], &sample, &comm].concat();
        for split in 0..=stream.len() {
            for step in [1usize, 7, usize::MAX] {
                let mut router = Router::new(Endian::Little);
                let (mut raw, mut comp) = (Vec::new(), Vec::new());
                let (first, rest) = stream.split_at(split);
                for part in std::iter::once(first).chain(rest.chunks(step.min(rest.len().max(1)))) {
                    router
                        .split(part, |route, run| {
                            match route {
                                Route::Raw => raw.extend_from_slice(run),
                                Route::Compress => comp.extend_from_slice(run),
                            }
                            Ok(())
                        })
                        .unwrap();
                }
                assert_eq!(raw, want_raw, "split {split} step {step}");
                assert_eq!(comp, want_compressed, "split {split} step {step}");
            }
        }
    }
}
