//! Feature setters that cannot fail, by type: [`FeatureSlot`] (an index known to be
//! settable) and [`FixedPayload`] (a value whose encoding cannot be refused).

use crate::error::FeatureError;
use crate::WriterError;
use perf_abi::{feature, ClockData, CompressedInfo, NrCpus, SampleTime};
use perf_encode::features::{ClockResolution, DirFormat, EmptyBpfList, EmptyFeature, TotalMem};
use perf_encode::{Encode, Endian};

/// Number of feature slots the writer keeps (perf 6.1 knows 1..=31).
pub(crate) const FEATURE_SLOTS: usize = feature::LAST_FEATURE as usize;

/// Whether perf 6.1 sends feature `index` in a pipe stream (features it does not know are
/// sent: their reader decides).
pub(crate) fn sent_in_pipe(index: u8) -> bool {
    feature::info(index).is_none_or(|f| f.in_pipe)
}

/// The index of a feature the caller may set (1..=31). The constants below are checked
/// when the crate compiles; an index from the caller goes through [`FeatureSlot::checked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FeatureSlot(u8);

impl FeatureSlot {
    /// `index` as a slot. Used in constants only: a wrong index fails the build.
    const fn known(index: u8) -> Self {
        assert!(index != feature::RESERVED && (index as usize) < FEATURE_SLOTS);
        FeatureSlot(index)
    }

    /// `index` as a slot, or the refusal of an index outside 1..=31.
    pub(crate) fn checked(index: u8) -> Result<Self, WriterError> {
        if index == feature::RESERVED || usize::from(index) >= FEATURE_SLOTS {
            return Err(WriterError::Feature(FeatureError::BadIndex(index)));
        }
        Ok(FeatureSlot(index))
    }

    pub(crate) fn index(self) -> u8 {
        self.0
    }

    /// The position in an array of [`FEATURE_SLOTS`] elements.
    pub(crate) fn position(self) -> usize {
        usize::from(self.0)
    }

    pub(crate) const NRCPUS: Self = Self::known(feature::NRCPUS);
    pub(crate) const TOTAL_MEM: Self = Self::known(feature::TOTAL_MEM);
    pub(crate) const BRANCH_STACK: Self = Self::known(feature::BRANCH_STACK);
    pub(crate) const STAT: Self = Self::known(feature::STAT);
    pub(crate) const SAMPLE_TIME: Self = Self::known(feature::SAMPLE_TIME);
    pub(crate) const CLOCKID: Self = Self::known(feature::CLOCKID);
    pub(crate) const DIR_FORMAT: Self = Self::known(feature::DIR_FORMAT);
    pub(crate) const BPF_PROG_INFO: Self = Self::known(feature::BPF_PROG_INFO);
    pub(crate) const BPF_BTF: Self = Self::known(feature::BPF_BTF);
    pub(crate) const COMPRESSED: Self = Self::known(feature::COMPRESSED);
    pub(crate) const CLOCK_DATA: Self = Self::known(feature::CLOCK_DATA);
}

mod sealed {
    pub trait Sealed {}
}

/// A feature payload whose encoding cannot be refused: a fixed sequence of integers, with
/// no length or value for perf-encode to check (implemented for those types only). The
/// setters of these features therefore return nothing.
pub(crate) trait FixedPayload: Encode + sealed::Sealed {
    /// The payload in `endian`.
    fn fixed_bytes(&self, endian: Endian) -> Vec<u8> {
        match perf_encode::to_vec(self, endian) {
            Ok(bytes) => bytes,
            // The types below encode their fields and nothing else, into a vector sized
            // by their `encoded_len`; every one is encoded in both byte orders by the test
            // below. A refusal would be a perf-encode bug, not a value to report.
            Err(e) => unreachable!("perf-encode refused a fixed-size payload: {e}"),
        }
    }
}

macro_rules! fixed_payload {
    ($($t:ty),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl FixedPayload for $t {}
    )*};
}

fixed_payload!(
    NrCpus,
    SampleTime,
    TotalMem,
    ClockResolution,
    ClockData,
    DirFormat,
    EmptyFeature,
    EmptyBpfList,
    CompressedInfo,
);

#[cfg(test)]
mod tests {
    use super::*;

    fn lengths<P: FixedPayload>(value: &P) -> [usize; 2] {
        [Endian::Little, Endian::Big].map(|e| {
            assert_eq!(
                perf_encode::to_vec(value, e).map_err(|e| e.to_string()),
                Ok(value.fixed_bytes(e))
            );
            value.fixed_bytes(e).len()
        })
    }

    #[test]
    fn every_fixed_payload_encodes_in_both_byte_orders() {
        let m = u64::MAX;
        let n = u32::MAX;
        let all = [
            lengths(&NrCpus {
                available: n,
                online: n,
            }),
            lengths(&SampleTime { first: m, last: 0 }),
            lengths(&TotalMem { kib: m }),
            lengths(&ClockResolution { ns: m }),
            lengths(&ClockData {
                version: n,
                clockid: n,
                wall_clock_ns: m,
                clockid_time_ns: m,
            }),
            lengths(&DirFormat { version: m }),
            lengths(&EmptyFeature),
            lengths(&EmptyBpfList),
            lengths(&CompressedInfo {
                version: n,
                type_: n,
                level: n,
                ratio: n,
                mmap_len: n,
            }),
        ];
        assert_eq!(
            all.map(|[le, be]| {
                assert_eq!(le, be);
                le
            }),
            [8, 16, 8, 8, 24, 8, 0, 4, 20]
        );
    }

    #[test]
    fn checked_slots_are_the_settable_indices() {
        assert_eq!(
            FeatureSlot::checked(0),
            Err(WriterError::Feature(FeatureError::BadIndex(0)))
        );
        assert_eq!(
            FeatureSlot::checked(FEATURE_SLOTS as u8),
            Err(WriterError::Feature(FeatureError::BadIndex(
                FEATURE_SLOTS as u8
            )))
        );
        for i in 1..FEATURE_SLOTS as u8 {
            assert_eq!(FeatureSlot::checked(i).map(FeatureSlot::index), Ok(i));
        }
        assert_eq!(FeatureSlot::NRCPUS.index(), feature::NRCPUS);
    }
}
