//! [`Swap`]: what `convert` needs to write a trace in the other byte order: its records and
//! feature payloads rewritten by perf-encode's swapper, laid out by the trace's events.

use crate::error::DataError;
use crate::read::u32_at;
use crate::trace::{Mode, Trace};
use perf_abi::{feature, PerfEventAttr};
use perf_writer_std::perf_encode::records::SampleLayout;
use perf_writer_std::perf_encode::swap::{
    swap_feature, FeatureContext, RecordSwapper, SwapError, SwapEvent,
};
use perf_writer_std::perf_encode::Endian;
use std::borrow::Cow;
use std::path::Path;

/// The layouts of a trace's events, for swapping its records.
pub struct Swap<'t> {
    events: Vec<SwapEvent<'t>>,
    from: Endian,
    ctx: FeatureContext,
    path: &'t Path,
}

impl<'t> Swap<'t> {
    /// The swapper of `trace`, written as `to`.
    ///
    /// # Errors
    ///
    /// [`DataError::BadInput`] for a stream in the byte order other than this machine's:
    /// perf 6.1 does not mark the events of a byte-swapped stream as swapped, so it misreads
    /// the `u32` pairs of their samples (TID, CPU) and the size of RAW, and it reads the ids
    /// of HEADER_FEATURE records unswapped.
    pub fn new(trace: &'t Trace, to: Mode, endian: Endian) -> Result<Self, DataError> {
        if to == Mode::Pipe && !endian.is_native() {
            return Err(DataError::bad(
                &trace.path,
                "a stream in the byte order other than this machine's is not written: perf 6.1 \
                 misreads the TID, CPU and RAW fields and the features of such a stream \
                 (write a file instead: --to file)",
            ));
        }
        let events = trace
            .events
            .iter()
            .map(|ev| SwapEvent {
                layout: SampleLayout::from_attr(&PerfEventAttr::from(&ev.attr)),
                ids: &ev.ids,
            })
            .collect();
        let ctx = FeatureContext {
            nr_cpus_avail: trace
                .features
                .get(&feature::NRCPUS)
                .and_then(|p| u32_at(p, 0, trace.endian)),
        };
        Ok(Swap {
            events,
            from: trace.endian,
            ctx,
            path: &trace.path,
        })
    }

    /// `record` in the other byte order.
    ///
    /// # Errors
    ///
    /// [`DataError::BadInput`] naming the record (`where_`) and what could not be swapped.
    pub fn record(&self, record: &[u8], where_: &str) -> Result<Vec<u8>, DataError> {
        let mut out = record.to_vec();
        RecordSwapper::new(&self.events, self.from)
            .swap_record(&mut out)
            .map_err(|e| self.refuse(where_, e))?;
        Ok(out)
    }

    /// Feature `bit`'s `payload` in the other byte order; `None` for an empty BPF_PROG_INFO
    /// or BPF_BTF (no program: what `perf record` writes by default), which perf 6.1 warns
    /// about in a byte-swapped file and which says nothing.
    ///
    /// # Errors
    ///
    /// [`DataError::BadInput`] naming the feature and what could not be swapped.
    pub fn feature(&self, bit: u8, payload: &[u8]) -> Result<Option<Vec<u8>>, DataError> {
        let bpf = bit == feature::BPF_PROG_INFO || bit == feature::BPF_BTF;
        if bpf && payload.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        let mut out = payload.to_vec();
        swap_feature(bit, &mut out, self.from, &self.ctx)
            .map_err(|e| self.refuse("a feature", e))?;
        Ok(Some(out))
    }

    fn refuse(&self, where_: &str, e: SwapError) -> DataError {
        DataError::bad(
            self.path,
            format!("cannot be written in the other byte order: {where_}: {e}"),
        )
    }
}

/// `record` as the output stores it: swapped by `swap` when there is one, else as it is.
///
/// # Errors
///
/// [`Swap::record`]'s.
pub fn in_output_order<'b>(
    swap: Option<&Swap<'_>>,
    record: &'b [u8],
    where_: &str,
) -> Result<Cow<'b, [u8]>, DataError> {
    match swap {
        None => Ok(Cow::Borrowed(record)),
        Some(s) => s.record(record, where_).map(Cow::Owned),
    }
}
