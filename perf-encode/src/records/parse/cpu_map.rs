//! CPU_MAP records read back: the cpus in the order perf 6.1 builds its map from them.

use crate::records::framing::header_type_and_size;
use crate::records::wire::error::ParseError;
use crate::records::wire::reader::Reader;
use crate::Endian;
use perf_abi::record_fields::{CPU_MAP_CPUS, CPU_MAP_MASK, CPU_MAP_RANGE_CPUS};
use perf_abi::record_type;

const RECORD: &str = "CPU_MAP";

/// The cpus of a `PERF_RECORD_CPU_MAP` record, read in place: entry `i` is the `i`th cpu
/// of the map perf makes of it (-1 for "any cpu"). A list keeps its order; a mask and a
/// range are ascending.
///
/// ```
/// use perf_encode::records::{CpuMap, ParsedCpuMap};
/// use perf_encode::{to_vec, Endian};
/// let bytes = to_vec(&CpuMap::Cpus(&[2, 0, 5]), Endian::Big).unwrap();
/// let map = ParsedCpuMap::parse(&bytes, Endian::Big).unwrap();
/// assert_eq!((map.len(), map.get(1)), (3, Some(0)));
/// // perf looks cpus up by bisection: in a list out of order, some are not found.
/// assert_eq!(map.perf_position(5), Some(2));
/// assert_eq!(map.perf_position(2), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedCpuMap<'a> {
    kind: Kind<'a>,
    endian: Endian,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind<'a> {
    /// `u16` cpus (`u16::MAX`: -1).
    Cpus(&'a [u8]),
    /// Mask words of `width` bytes (4 or 8).
    Mask {
        words: &'a [u8],
        width: usize,
    },
    Range {
        any_cpu: bool,
        start: u16,
        end: u16,
    },
}

impl<'a> ParsedCpuMap<'a> {
    /// Reads the CPU_MAP record `record` (its header first, `header.size` bytes of it).
    ///
    /// # Errors
    ///
    /// [`ParseError::WrongType`] for another record type, [`ParseError::Truncated`] when
    /// `header.size` or a count runs past the bytes, [`ParseError::BadValue`] for a map
    /// perf does not read (see [`parse_data`](Self::parse_data)).
    pub fn parse(record: &'a [u8], endian: Endian) -> Result<Self, ParseError> {
        let mut r = Reader::new(record, 0, endian, RECORD);
        let head = r.take(8, "header")?;
        let head = head.first_chunk::<8>().ok_or(ParseError::Truncated {
            record: RECORD,
            field: "header",
            offset: 0,
            available: record.len(),
        })?;
        let (type_, size) = header_type_and_size(endian, head);
        if type_ != record_type::CPU_MAP {
            return Err(ParseError::WrongType {
                expected: record_type::CPU_MAP,
                found: type_,
            });
        }
        let body = record
            .get(..usize::from(size))
            .ok_or(ParseError::Truncated {
                record: RECORD,
                field: "header.size",
                offset: 0,
                available: record.len(),
            })?;
        Self::parse_data(body.get(8..).unwrap_or_default(), endian)
    }

    /// Reads a `perf_record_cpu_map_data` (a CPU_MAP record's body, or the map of an
    /// EVENT_UPDATE of kind CPUS), from its `u16 type` on; bytes after the map are padding.
    ///
    /// # Errors
    ///
    /// [`ParseError::Truncated`] when a count runs past the bytes, [`ParseError::BadValue`]
    /// for a map type or a mask word size perf does not read, or a range perf sizes wrong:
    /// `any_cpu` above 1 (perf counts it as that many entries and sets one), or an end
    /// below `start - 1` (perf allocates fewer entries than it sets, and crashes).
    pub fn parse_data(data: &'a [u8], endian: Endian) -> Result<Self, ParseError> {
        let mut r = Reader::new(data, 0, endian, RECORD);
        let kind = match r.u16("type")? {
            CPU_MAP_CPUS => {
                let nr = r.u16("nr")?;
                Kind::Cpus(r.take(usize::from(nr) * 2, "cpu")?)
            }
            CPU_MAP_MASK => {
                let nr = usize::from(r.u16("nr")?);
                let width = match r.u16("long_size")? {
                    4 => 4,
                    8 => {
                        r.take(4, "pad")?;
                        8
                    }
                    other => return Err(bad("long_size", other.into())),
                };
                Kind::Mask {
                    words: r.take(nr.saturating_mul(width), "mask")?,
                    width,
                }
            }
            CPU_MAP_RANGE_CPUS => {
                let any_cpu = match r.take(2, "any_cpu")?.first() {
                    Some(0) => false,
                    Some(1) => true,
                    other => return Err(bad("any_cpu", other.map_or(0, |&b| b.into()))),
                };
                let start = r.u16("start_cpu")?;
                let end = r.u16("end_cpu")?;
                // perf sizes the map `end - start + 1 + any_cpu`, then sets -1 and the
                // range: an end below `start - 1` makes that too small.
                if u32::from(end).saturating_add(1) < u32::from(start) {
                    return Err(bad("end_cpu", end.into()));
                }
                Kind::Range {
                    any_cpu,
                    start,
                    end,
                }
            }
            other => return Err(bad("type", other.into())),
        };
        Ok(ParsedCpuMap { kind, endian })
    }

    /// The number of cpus in the map.
    pub fn len(&self) -> usize {
        match self.kind {
            Kind::Cpus(b) => b.len() / 2,
            Kind::Mask { .. } => self.mask_bits().map(|(_, w)| w.count_ones() as usize).sum(),
            Kind::Range {
                any_cpu,
                start,
                end,
            } => usize::from(any_cpu).saturating_add(
                usize::from(end)
                    .saturating_add(1)
                    .saturating_sub(usize::from(start)),
            ),
        }
    }

    /// True when the map holds no cpu.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th cpu (-1: any cpu).
    pub fn get(&self, i: usize) -> Option<i32> {
        match self.kind {
            Kind::Cpus(b) => {
                let at = i.checked_mul(2)?;
                let c = self.endian.read_u16(*b.get(at..)?.first_chunk::<2>()?);
                Some(if c == u16::MAX { -1 } else { i32::from(c) })
            }
            Kind::Mask { .. } => {
                let mut left = i;
                for (base, mut word) in self.mask_bits() {
                    let ones = word.count_ones() as usize;
                    if left >= ones {
                        left = left.saturating_sub(ones);
                        continue;
                    }
                    for _ in 0..left {
                        // Clears the lowest bit set (`left` is below the bits set).
                        word &= word.wrapping_sub(1);
                    }
                    return i32::try_from(base.saturating_add(word.trailing_zeros() as usize)).ok();
                }
                None
            }
            Kind::Range {
                any_cpu,
                start,
                end,
            } => {
                let i = match (any_cpu, i) {
                    (true, 0) => return Some(-1),
                    (true, i) => i.saturating_sub(1),
                    (false, i) => i,
                };
                let cpu = usize::from(start).checked_add(i)?;
                (cpu <= usize::from(end)).then(|| i32::try_from(cpu).ok())?
            }
        }
    }

    /// Where perf 6.1 finds `cpu` in the map (`perf_cpu_map__idx`): by bisection, which
    /// takes the map as ascending, so a cpu of a list out of order may not be found.
    pub fn perf_position(&self, cpu: i32) -> Option<usize> {
        let (mut low, mut high) = (0usize, self.len());
        while low < high {
            let mid = low.saturating_add(high.saturating_sub(low) / 2);
            let at = self.get(mid)?;
            match at.cmp(&cpu) {
                core::cmp::Ordering::Equal => return Some(mid),
                core::cmp::Ordering::Greater => high = mid,
                core::cmp::Ordering::Less => low = mid.saturating_add(1),
            }
        }
        None
    }

    /// A mask's words, each with the cpu of its bit 0.
    fn mask_bits(&self) -> impl Iterator<Item = (usize, u64)> + 'a {
        let (words, width, endian) = match self.kind {
            Kind::Mask { words, width } => (words, width, self.endian),
            _ => (&[][..], 8, self.endian),
        };
        words.chunks_exact(width).enumerate().map(move |(i, w)| {
            let word = match w {
                [a, b, c, d] => u64::from(endian.read_u32([*a, *b, *c, *d])),
                _ => w.first_chunk::<8>().map_or(0, |w| endian.read_u64(*w)),
            };
            (i.saturating_mul(width.saturating_mul(8)), word)
        })
    }
}

fn bad(field: &'static str, value: u64) -> ParseError {
    ParseError::BadValue {
        record: RECORD,
        field,
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::CpuMap;
    use crate::to_vec;
    extern crate alloc;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Every encoding of a sorted list reads back as that list, in both byte orders.
    #[test]
    fn each_encoding_reads_back_as_its_cpus() {
        let lists: [&[u16]; 5] = [&[], &[0], &[0, 1, 2, 3], &[1, 31, 32, 63, 64, 200], &[7]];
        for endian in [Endian::Little, Endian::Big] {
            for cpus in lists {
                let mut mask32 = [0u32; 8];
                let mut mask64 = [0u64; 4];
                for &c in cpus {
                    mask32[usize::from(c / 32)] |= 1 << (c % 32);
                    mask64[usize::from(c / 64)] |= 1 << (c % 64);
                }
                let words = cpus.last().map_or(0, |&c| usize::from(c) + 1);
                let maps = [
                    CpuMap::Cpus(cpus),
                    CpuMap::Mask32(&mask32[..words.div_ceil(32)]),
                    CpuMap::Mask64(&mask64[..words.div_ceil(64)]),
                    CpuMap::from_sorted(cpus),
                ];
                for map in maps {
                    let bytes = to_vec(&map, endian).unwrap();
                    let parsed = ParsedCpuMap::parse(&bytes, endian).unwrap();
                    let read: Vec<i32> =
                        (0..parsed.len()).map(|i| parsed.get(i).unwrap()).collect();
                    let want: Vec<i32> = cpus.iter().map(|&c| i32::from(c)).collect();
                    assert_eq!(read, want, "{map:?}");
                    assert_eq!(parsed.get(cpus.len()), None);
                    for (i, &c) in want.iter().enumerate() {
                        assert_eq!(parsed.perf_position(c), Some(i), "{map:?}");
                    }
                    assert_eq!(parsed.perf_position(5000), None);
                }
            }
        }
    }

    #[test]
    fn any_cpu_reads_as_minus_one_first() {
        let bytes = to_vec(&CpuMap::from_sorted(&[u16::MAX, 0, 1]), Endian::Little).unwrap();
        let parsed = ParsedCpuMap::parse(&bytes, Endian::Little).unwrap();
        assert_eq!(
            (parsed.get(0), parsed.get(2), parsed.len()),
            (Some(-1), Some(1), 3)
        );
        assert_eq!(parsed.perf_position(-1), Some(0));
    }

    #[test]
    fn bad_maps_are_errors() {
        let good = to_vec(&CpuMap::Cpus(&[0, 1]), Endian::Little).unwrap();
        // A count past the record.
        let mut long = good.clone();
        long[10] = 9;
        assert!(matches!(
            ParsedCpuMap::parse(&long, Endian::Little),
            Err(ParseError::Truncated { field: "cpu", .. })
        ));
        let mut kind = good.clone();
        kind[8] = 9;
        assert!(matches!(
            ParsedCpuMap::parse(&kind, Endian::Little),
            Err(ParseError::BadValue {
                field: "type",
                value: 9,
                ..
            })
        ));
        let mut other = good.clone();
        other[0] = 73;
        assert!(matches!(
            ParsedCpuMap::parse(&other, Endian::Little),
            Err(ParseError::WrongType { found: 73, .. })
        ));
        for n in 0..good.len() {
            assert!(ParsedCpuMap::parse(&good[..n], Endian::Little).is_err());
        }
    }

    /// perf sizes a range `end - start + 1 + any_cpu` entries: an end below `start - 1`,
    /// or an `any_cpu` above 1, makes it write past them.
    #[test]
    fn ranges_perf_sizes_wrong_are_errors() {
        let range = |any_cpu: u8, start: u16, end: u16| {
            let mut d = vec![2, 0, any_cpu, 0];
            d.extend_from_slice(&start.to_le_bytes());
            d.extend_from_slice(&end.to_le_bytes());
            ParsedCpuMap::parse_data(&d, Endian::Little).map(|m| (m.len(), m.get(2)))
        };
        assert_eq!(range(0, 1, 0), Ok((0, None)));
        assert_eq!(range(1, 1, 0), Ok((1, None)));
        assert_eq!(range(0, 3, 5), Ok((3, Some(5))));
        assert_eq!(range(0, 65533, 65535), Ok((3, Some(65535))));
        for (any_cpu, start, end, field) in [
            (0, 2, 0, "end_cpu"),
            (1, 2, 0, "end_cpu"),
            (0, 60000, 0, "end_cpu"),
            (2, 0, 1, "any_cpu"),
        ] {
            assert!(
                matches!(
                    range(any_cpu, start, end),
                    Err(ParseError::BadValue { field: f, .. }) if f == field
                ),
                "{any_cpu} {start}..{end}"
            );
        }
    }
}
