//! The shape perf 6.1 reads in each feature payload, checked before a caller's raw bytes are
//! accepted: counts, strings and fixed fields that fit the payload, so that perf neither
//! refuses the file (pipe mode stops at a feature it cannot read) nor reads past what it was
//! given (file mode crashed on a short PMU_MAPPINGS).
//!
//! Checked: the string features, NRCPUS, TOTAL_MEM, CMDLINE, CPU_TOPOLOGY (its two string
//! lists), NUMA_TOPOLOGY, PMU_MAPPINGS, GROUP_DESC, AUXTRACE, CACHE, SAMPLE_TIME,
//! MEM_TOPOLOGY (version 1), CLOCKID, COMPRESSED, CPU_PMU_CAPS, CLOCK_DATA, HYBRID_TOPOLOGY,
//! PMU_CAPS, BUILD_ID (its entries' framing), EVENT_DESC, and the entry counts of
//! BPF_PROG_INFO and BPF_BTF (their entries pass as given), DIR_FORMAT (version 1; it belongs
//! in a directory recording's `data` file only). TRACING_DATA (checked by its own setters), BRANCH_STACK
//! and STAT (perf reads no payload) pass as given.

use crate::Endian;
use core::fmt;
use perf_abi::feature::{self, Payload};

/// Why a feature payload is not one perf reads.
///
/// ```
/// use perf_encode::features::check_feature_payload;
/// use perf_encode::Endian;
/// // NRCPUS is two u32: three bytes are refused, eight accepted.
/// assert!(check_feature_payload(perf_abi::feature::NRCPUS, Endian::Little, &[1, 2, 3]).is_err());
/// assert!(check_feature_payload(perf_abi::feature::NRCPUS, Endian::Little, &[0; 8]).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeaturePayloadError {
    /// The feature index.
    pub feature: u8,
    /// Offset in the payload where the problem is.
    pub at: usize,
    /// What perf expected there.
    pub what: &'static str,
}

impl fmt::Display for FeaturePayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "feature {} payload at byte {}: {}",
            self.feature, self.at, self.what
        )
    }
}

/// Checks `payload`, in byte order `endian`, against what perf 6.1 reads for feature `index`.
///
/// The module docs say which features are checked; the others pass as given.
///
/// # Errors
///
/// A [`FeaturePayloadError`] `{ feature: index, at, what }` for the first offset `at` where
/// the payload does not hold what perf reads there, `what` saying what that is: a field or
/// string that passes the end of the payload, a string without a NUL within its length, a
/// count of more items than bytes are left, a version other than 1 (CACHE, MEM_TOPOLOGY,
/// CLOCK_DATA, DIR_FORMAT), a MEM_TOPOLOGY bitmap length other than its node's size, a
/// BUILD_ID entry below 36 bytes, an EVENT_DESC attr size below 64, or a BPF_PROG_INFO or
/// BPF_BTF count of 0 followed by bytes or larger than their 8-byte entry headers fit.
///
/// ```
/// use perf_encode::features::{check_feature_payload, FeaturePayloadError};
/// use perf_encode::{to_vec, Endian, HeaderString};
/// let host = to_vec(&HeaderString::new(b"vm"), Endian::Little).unwrap();
/// assert_eq!(check_feature_payload(perf_abi::feature::HOSTNAME, Endian::Little, &host), Ok(()));
/// let err = check_feature_payload(perf_abi::feature::HOSTNAME, Endian::Little, &host[..10]).unwrap_err();
/// assert_eq!((err.feature, err.at), (perf_abi::feature::HOSTNAME, 4));
/// ```
pub fn check_feature_payload(
    index: u8,
    endian: Endian,
    payload: &[u8],
) -> Result<(), FeaturePayloadError> {
    let mut r = Reader {
        bytes: payload,
        at: 0,
        endian,
        feature: index,
    };
    match feature::info(index).map(|f| f.payload) {
        Some(Payload::String) => return r.string(),
        Some(Payload::StringList) => return r.string_list(),
        Some(Payload::Fixed(len)) => return r.skip(len, "the feature's fixed-size fields"),
        _ => {}
    }
    match index {
        // perf writes it in a directory recording's `data` file (`perf record --threads`);
        // in a plain file perf 6.1 warns and drops the features after it, which the
        // caller must know (see `set_dir_format_header`).
        feature::DIR_FORMAT => match r.u64("a version (u64)")? {
            perf_abi::DIR_FORMAT_VERSION => Ok(()),
            _ => Err(r.error("version 1")),
        },
        feature::CPU_TOPOLOGY => r.string_list().and_then(|()| r.string_list()),
        feature::NUMA_TOPOLOGY => r.list(|r| {
            r.skip(20, "node (u32), total and free memory (u64)")?;
            r.string()
        }),
        feature::PMU_MAPPINGS => r.list(|r| {
            r.skip(4, "a PMU type (u32)")?;
            r.string()
        }),
        feature::GROUP_DESC => r.list(|r| {
            r.string()?;
            r.skip(8, "leader index and member count (u32)")
        }),
        feature::AUXTRACE => {
            let n = r.u64("an entry count (u64)")?;
            r.repeat(n, |r| r.skip(16, "an offset and a size (u64)"))
        }
        feature::CACHE => {
            if r.u32("a version (u32)")? != perf_abi::CACHE_VERSION {
                return Err(r.error("version 1"));
            }
            r.list(|r| {
                r.skip(16, "level, line size, sets and ways (u32)")?;
                r.string()?;
                r.string()?;
                r.string()
            })
        }
        feature::MEM_TOPOLOGY => {
            if r.u64("a version (u64)")? != perf_abi::MEM_TOPOLOGY_VERSION {
                return Err(r.error("version 1"));
            }
            r.skip(8, "a block size (u64)")?;
            let n = r.u64("a node count (u64)")?;
            r.repeat(n, |r| {
                r.skip(8, "a node number (u64)")?;
                let size = r.u64("a size in bits (u64)")?;
                let nbits = r.u64("a bitmap length in bits (u64)")?;
                if size != nbits {
                    return Err(r.error("a bitmap length equal to the size"));
                }
                let words = nbits.div_ceil(64);
                r.repeat(words, |r| r.skip(8, "bitmap words (u64)"))
            })
        }
        feature::CPU_PMU_CAPS => r.list(|r| {
            r.string()?;
            r.string()
        }),
        feature::HYBRID_TOPOLOGY => r.list(|r| {
            r.string()?;
            r.string()
        }),
        feature::PMU_CAPS => r.list(|r| {
            r.list(|r| {
                r.string()?;
                r.string()
            })?;
            r.string()
        }),
        feature::CLOCK_DATA => {
            if r.u32("a version (u32)")? != perf_abi::CLOCK_DATA_VERSION {
                return Err(r.error("version 1"));
            }
            r.skip(20, "a clock id (u32), wall-clock and clock times (u64)")
        }
        feature::BUILD_ID => r.build_ids(),
        feature::EVENT_DESC => r.event_desc(),
        feature::BPF_PROG_INFO | feature::BPF_BTF => match r.u32("an entry count (u32)")? {
            0 => r.end(),
            // Each entry starts with two u32 lengths: a count beyond that is junk.
            n if u64::from(n).saturating_mul(8) > (payload.len() as u64).saturating_sub(4) => {
                Err(r.error("no more entries than 8-byte entry headers fit"))
            }
            _ => Ok(()),
        },
        // Bytes after what perf reads are ignored by it.
        _ => Ok(()),
    }
}

/// A cursor over a payload that reads perf's fields and says where it stopped.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    endian: Endian,
    feature: u8,
}

impl Reader<'_> {
    fn error(&self, what: &'static str) -> FeaturePayloadError {
        FeaturePayloadError {
            feature: self.feature,
            at: self.at,
            what,
        }
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], FeaturePayloadError> {
        let end = self.at.checked_add(n).ok_or_else(|| self.error(what))?;
        let bytes = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| self.error(what))?;
        self.at = end;
        Ok(bytes)
    }

    fn skip(&mut self, n: usize, what: &'static str) -> Result<(), FeaturePayloadError> {
        self.take(n, what).map(drop)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FeaturePayloadError> {
        let endian = self.endian;
        let b = self.take(4, what)?;
        Ok(b.first_chunk::<4>().map_or(0, |w| endian.read_u32(*w)))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, FeaturePayloadError> {
        let endian = self.endian;
        let b = self.take(8, what)?;
        Ok(b.first_chunk::<8>().map_or(0, |w| endian.read_u64(*w)))
    }

    /// A perf string: u32 length, then that many bytes holding a NUL.
    fn string(&mut self) -> Result<(), FeaturePayloadError> {
        let len = self.u32("a string length (u32)")?;
        let start = self.at;
        let body = self.take(len as usize, "the string's bytes")?;
        if !body.contains(&0) {
            self.at = start;
            return Err(self.error("a NUL within the string's length"));
        }
        Ok(())
    }

    fn string_list(&mut self) -> Result<(), FeaturePayloadError> {
        self.list(Reader::string)
    }

    /// A u32 count, then that many items.
    fn list(
        &mut self,
        item: impl FnMut(&mut Self) -> Result<(), FeaturePayloadError>,
    ) -> Result<(), FeaturePayloadError> {
        let n = self.u32("an item count (u32)")?;
        self.repeat(u64::from(n), item)
    }

    /// `n` items, each at least one byte: a count larger than the bytes left fails at once.
    fn repeat(
        &mut self,
        n: u64,
        mut item: impl FnMut(&mut Self) -> Result<(), FeaturePayloadError>,
    ) -> Result<(), FeaturePayloadError> {
        let left = self.bytes.len().saturating_sub(self.at) as u64;
        if n > left {
            return Err(self.error("no more items than bytes left"));
        }
        (0..n).try_for_each(|_| item(self))
    }

    /// BUILD_ID: entries framed like records (u16 size at offset 6), each whole.
    fn build_ids(&mut self) -> Result<(), FeaturePayloadError> {
        let endian = self.endian;
        while self.at < self.bytes.len() {
            let head = self.take(8, "a build-id entry header")?;
            let size = head
                .get(6..8)
                .and_then(|s| s.first_chunk::<2>())
                .map_or(0, |s| usize::from(endian.read_u16(*s)));
            // pid (i32), build id (20 bytes and padding), then the file name.
            if size < 8 + 4 + 24 {
                self.at = self.at.saturating_sub(8);
                return Err(self.error("a build-id entry of at least 36 bytes"));
            }
            self.skip(size.saturating_sub(8), "the build-id entry's bytes")?;
        }
        Ok(())
    }

    /// EVENT_DESC: u32 event count, u32 attr size, then per event the attr, u32 id count,
    /// the name (a string) and the ids.
    fn event_desc(&mut self) -> Result<(), FeaturePayloadError> {
        let n = self.u32("an event count (u32)")?;
        let attr_size = self.u32("an attr size (u32)")? as usize;
        if attr_size < perf_abi::attr::ATTR_SIZE_VER0 as usize {
            self.at = self.at.saturating_sub(4);
            return Err(self.error("an attr size of at least 64"));
        }
        self.repeat(u64::from(n), |r| {
            r.skip(attr_size, "an attr")?;
            let ids = r.u32("an id count (u32)")?;
            r.string()?;
            r.repeat(u64::from(ids), |r| r.skip(8, "ids (u64)"))
        })
    }

    fn end(&self) -> Result<(), FeaturePayloadError> {
        match self.at == self.bytes.len() {
            true => Ok(()),
            false => Err(self.error("the end of the payload")),
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::features::{CpuCaches, NumaNode, NumaTopology, PmuMapping, PmuMappings};
    use crate::{to_vec, HeaderString, StringList};
    use alloc::vec::Vec;

    /// Every checked feature refuses three junk bytes; the features it passes are the ones
    /// perf reads nothing of, or reads only in part.
    #[test]
    fn junk_is_refused_by_every_checked_feature() {
        let passed: Vec<u8> = (1..=31u8)
            .filter(|&i| check_feature_payload(i, Endian::Little, &[1, 2, 3]).is_ok())
            .collect();
        assert_eq!(
            passed,
            [feature::TRACING_DATA, feature::BRANCH_STACK, feature::STAT,]
        );
    }

    #[test]
    fn what_the_encoders_write_is_accepted_in_both_byte_orders() {
        for e in [Endian::Little, Endian::Big] {
            let ok = |index: u8, bytes: Vec<u8>| {
                assert_eq!(check_feature_payload(index, e, &bytes), Ok(()), "{index}");
            };
            ok(
                feature::HOSTNAME,
                to_vec(&HeaderString::new(b"host"), e).unwrap(),
            );
            ok(
                feature::CMDLINE,
                to_vec(&StringList::new(&["a", "bc"]), e).unwrap(),
            );
            let nodes = [NumaNode {
                node: 0,
                mem_total_kib: 10,
                mem_free_kib: 5,
                cpus: b"0-1",
            }];
            ok(
                feature::NUMA_TOPOLOGY,
                to_vec(&NumaTopology { nodes: &nodes }, e).unwrap(),
            );
            let pmus = [PmuMapping {
                type_: 4,
                name: b"cpu",
            }];
            ok(
                feature::PMU_MAPPINGS,
                to_vec(&PmuMappings { pmus: &pmus }, e).unwrap(),
            );
            ok(
                feature::CACHE,
                to_vec(&CpuCaches { caches: &[] }, e).unwrap(),
            );
        }
    }

    /// Payloads perf 6.1 stops at, or loses the later features over.
    #[test]
    fn versions_directory_features_and_impossible_counts_are_refused() {
        let e = Endian::Little;
        let mut mem = [0u8; 24];
        mem[0] = 2; // version 2
        let err = check_feature_payload(feature::MEM_TOPOLOGY, e, &mem).unwrap_err();
        assert_eq!((err.at, err.what), (8, "version 1"));
        mem[0] = 1;
        assert_eq!(
            check_feature_payload(feature::MEM_TOPOLOGY, e, &mem),
            Ok(())
        );
        assert!(check_feature_payload(feature::DIR_FORMAT, e, &2u64.to_le_bytes()).is_err());
        assert_eq!(
            check_feature_payload(feature::DIR_FORMAT, e, &1u64.to_le_bytes()),
            Ok(())
        );
        let mut bpf = u32::MAX.to_le_bytes().to_vec();
        bpf.extend_from_slice(&[0; 4]);
        assert!(check_feature_payload(feature::BPF_PROG_INFO, e, &bpf).is_err());
        assert!(check_feature_payload(feature::BPF_BTF, e, &1u32.to_le_bytes()).is_err());
        assert_eq!(check_feature_payload(feature::BPF_BTF, e, &[0; 4]), Ok(()));
    }

    #[test]
    fn a_string_without_nul_or_past_the_end_is_refused() {
        let e = Endian::Little;
        let mut s = 4u32.to_le_bytes().to_vec();
        s.extend_from_slice(b"abcd");
        let err = check_feature_payload(feature::HOSTNAME, e, &s).unwrap_err();
        assert_eq!((err.at, err.what), (4, "a NUL within the string's length"));
        let mut s = 64u32.to_le_bytes().to_vec();
        s.extend_from_slice(b"ab\0\0");
        let err = check_feature_payload(feature::OSRELEASE, e, &s).unwrap_err();
        assert_eq!(err.what, "the string's bytes");
        // A count far beyond the bytes fails at once, without walking.
        let err = check_feature_payload(feature::CMDLINE, e, &u32::MAX.to_le_bytes()).unwrap_err();
        assert_eq!(err.what, "no more items than bytes left");
    }
}
