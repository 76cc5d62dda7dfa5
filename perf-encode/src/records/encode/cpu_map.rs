//! `PERF_RECORD_CPU_MAP`: the cpus perf record was asked to follow.

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::wire::pad::align8;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_fields::{CPU_MAP_CPUS, CPU_MAP_MASK, CPU_MAP_RANGE_CPUS};
use perf_abi::record_type;

/// `PERF_RECORD_CPU_MAP`: `{header, struct perf_record_cpu_map_data}` zero-padded to 8, as
/// perf's `perf_event__synthesize_cpu_map` writes it, in one of the data's encodings (the
/// struct is packed: fields are not aligned).
///
/// ```
/// use perf_encode::records::CpuMap;
/// use perf_encode::{to_vec, Endian};
/// let v = to_vec(&CpuMap::from_sorted(&[0, 1]), Endian::Little).unwrap();
/// assert_eq!(v, [74, 0, 0, 0, 0, 0, 16, 0, 2, 0, 0, 0, 0, 0, 1, 0]);
/// let v = to_vec(&CpuMap::Cpus(&[0, 2, 3]), Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuMap<'a> {
    /// `{u16 type = CPUS, u16 nr, u16 cpu[nr]}`: a list; `u16::MAX` is -1 ("any cpu").
    Cpus(&'a [u16]),
    /// `{u16 type = MASK, u16 nr, u16 long_size = 4, u32 mask[nr]}`: a bitmap in 32-bit
    /// words, as perf 6.1 writes masks.
    Mask32(&'a [u32]),
    /// `{u16 type = MASK, u16 nr, u16 long_size = 8, u8 pad[4], u64 mask[nr]}`: a bitmap in
    /// 64-bit words (older perf on 64-bit hosts).
    Mask64(&'a [u64]),
    /// `{u16 type = RANGE_CPUS, u8 any_cpu, u8 pad, u16 start_cpu, u16 end_cpu}`: the cpus
    /// `start..=end`, and -1 first when `any_cpu`.
    Range {
        /// The map also holds -1.
        any_cpu: bool,
        /// First cpu.
        start: u16,
        /// Last cpu (included).
        end: u16,
    },
}

impl<'a> CpuMap<'a> {
    /// A sorted list of cpus as a [`CpuMap::Range`] when it is consecutive (what perf 6.1
    /// writes for online cpus), else as [`CpuMap::Cpus`]. A leading `u16::MAX` is -1.
    pub fn from_sorted(cpus: &'a [u16]) -> Self {
        let (any_cpu, rest) = match cpus.split_first() {
            Some((&u16::MAX, rest)) => (true, rest),
            _ => (false, cpus),
        };
        if let (Some(&start), Some(&end)) = (rest.first(), rest.last()) {
            let consecutive = rest
                .windows(2)
                .all(|w| matches!(w, [a, b] if a.checked_add(1) == Some(*b)));
            if consecutive && end != u16::MAX {
                return CpuMap::Range {
                    any_cpu,
                    start,
                    end,
                };
            }
        }
        CpuMap::Cpus(cpus)
    }

    /// Bytes of `perf_record_cpu_map_data`, unpadded.
    fn data_len(&self) -> Result<usize, EncodeError> {
        let (fixed, n, each) = match *self {
            CpuMap::Cpus(c) => (4usize, c.len(), 2usize),
            CpuMap::Mask32(m) => (6, m.len(), 4),
            CpuMap::Mask64(m) => (10, m.len(), 8),
            CpuMap::Range { .. } => (8, 0, 0),
        };
        if n > usize::from(u16::MAX) {
            return Err(EncodeError::TooLong {
                what: "CPU_MAP entries",
                len: n as u64,
                max: u64::from(u16::MAX),
            });
        }
        n.checked_mul(each)
            .and_then(|b| b.checked_add(fixed))
            .ok_or(EncodeError::Overflow {
                what: "CPU_MAP size",
            })
    }
}

// The body: `perf_record_cpu_map_data`, zero-padded to 8, as perf's
// `perf_event__synthesize_cpu_map` writes it.
impl RecordBody for CpuMap<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::CPU_MAP
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        align8(self.data_len()?, "CPU_MAP size")
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let data = self.data_len()?;
        // data_len() checked that every count fits a u16.
        let nr = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        match *self {
            CpuMap::Cpus(cpus) => {
                enc.u16(CPU_MAP_CPUS)?;
                enc.u16(nr(cpus.len()))?;
                cpus.iter().try_for_each(|&c| enc.u16(c))?;
            }
            CpuMap::Mask32(mask) => {
                enc.u16(CPU_MAP_MASK)?;
                enc.u16(nr(mask.len()))?;
                enc.u16(4)?;
                mask.iter().try_for_each(|&w| enc.u32(w))?;
            }
            CpuMap::Mask64(mask) => {
                enc.u16(CPU_MAP_MASK)?;
                enc.u16(nr(mask.len()))?;
                enc.u16(8)?;
                enc.zeros(4)?;
                enc.u64s(mask)?;
            }
            CpuMap::Range {
                any_cpu,
                start,
                end,
            } => {
                enc.u16(CPU_MAP_RANGE_CPUS)?;
                enc.u8(u8::from(any_cpu))?;
                enc.u8(0)?;
                enc.u16(start)?;
                enc.u16(end)?;
            }
        }
        enc.zeros(align8(data, "CPU_MAP size")?.saturating_sub(data))
    }
}

encode_as_record!(CpuMap<'_>);
