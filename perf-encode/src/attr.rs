//! `perf_event_attr` as a file holds it: `attr.size` bytes in the file's byte order, the
//! bit-field word following perf's cross-endian rule.

use crate::{Encode, EncodeError, Encoder, Endian, Output};
use perf_abi::attr::ATTR_SIZES;
use perf_abi::PerfEventAttr;
use zerocopy::IntoBytes;

/// The bit-field word as a file of byte order `endian` holds it.
///
/// A little-endian file holds the word's little-endian bytes. A big-endian kernel allocates
/// bit-fields from the most significant bit, so a big-endian file holds the same bytes in the
/// same order with the bits of each byte reversed (perf undoes exactly that when it reads one).
///
/// ```
/// use perf_abi::attr_flags::DISABLED;
/// use perf_encode::{attr::flags_bytes, Endian};
/// assert_eq!(flags_bytes(DISABLED, Endian::Little), [1, 0, 0, 0, 0, 0, 0, 0]);
/// assert_eq!(flags_bytes(DISABLED, Endian::Big), [0x80, 0, 0, 0, 0, 0, 0, 0]);
/// ```
pub fn flags_bytes(flags: u64, endian: Endian) -> [u8; 8] {
    let mut b = flags.to_le_bytes();
    if endian.is_big() {
        b.iter_mut().for_each(|x| *x = x.reverse_bits());
    }
    b
}

/// True when `size` is one of the published `PERF_ATTR_SIZE_VER*`.
pub fn is_published_size(size: u32) -> bool {
    ATTR_SIZES.contains(&size)
}

/// The attr size to use for a whole file: every attr of a file must have the same size
/// (`header.attr_size` is `attr.size + 16` for all of them), so it is the largest
/// [`PerfEventAttr::minimal_file_size`] of `attrs`.
///
/// ```
/// use perf_abi::PerfEventAttr;
/// let a = PerfEventAttr::default();
/// let b = PerfEventAttr { config3: 1, ..Default::default() };
/// assert_eq!(perf_encode::attr::file_attr_size([&a]), 128);
/// assert_eq!(perf_encode::attr::file_attr_size([&a, &b]), 136);
/// ```
pub fn file_attr_size<'a>(attrs: impl IntoIterator<Item = &'a PerfEventAttr>) -> u32 {
    attrs
        .into_iter()
        .map(PerfEventAttr::minimal_file_size)
        .max()
        .unwrap_or(perf_abi::attr::ATTR_SIZE_VER7)
}

fn encode_full<O: Output + ?Sized>(
    a: &PerfEventAttr,
    enc: &mut Encoder<'_, O>,
) -> Result<(), EncodeError> {
    enc.u32(a.type_)?;
    enc.u32(a.size)?;
    enc.u64(a.config)?;
    enc.u64(a.sample_period)?;
    enc.u64(a.sample_type)?;
    enc.u64(a.read_format)?;
    enc.bytes(&flags_bytes(a.flags, enc.endian()))?;
    enc.u32(a.wakeup_events)?;
    enc.u32(a.bp_type)?;
    enc.u64(a.config1)?;
    enc.u64(a.config2)?;
    enc.u64(a.branch_sample_type)?;
    enc.u64(a.sample_regs_user)?;
    enc.u32(a.sample_stack_user)?;
    enc.i32(a.clockid)?;
    enc.u64(a.sample_regs_intr)?;
    enc.u32(a.aux_watermark)?;
    enc.u16(a.sample_max_stack)?;
    enc.u16(a.reserved_2)?;
    enc.u32(a.aux_sample_size)?;
    enc.u32(a.reserved_3)?;
    enc.u64(a.sig_data)?;
    enc.u64(a.config3)
}

/// Writes the first `attr.size` bytes of the attr. A size that is not a published
/// `PERF_ATTR_SIZE_VER*` is [`EncodeError::InvalidAttrSize`]; so is a size too small to hold
/// a non-zero field (the field would be lost).
///
/// ```
/// use perf_abi::PerfEventAttr;
/// use perf_encode::{to_vec, Endian, EncodeError};
/// let a = PerfEventAttr { size: 128, config: 0x174, ..Default::default() };
/// assert_eq!(to_vec(&a, Endian::Little).unwrap().len(), 128);
/// let zero = PerfEventAttr { size: 0, ..a };
/// assert_eq!(to_vec(&zero, Endian::Little), Err(EncodeError::InvalidAttrSize { size: 0 }));
/// ```
impl Encode for PerfEventAttr {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let size = self.checked_size()?;
        let endian = enc.endian();
        // A little-endian file on a little-endian machine holds the struct's own bytes (the
        // bit-field word included): one copy from where the attr lies.
        if endian == Endian::Little && Endian::NATIVE == Endian::Little {
            return enc.bytes(self.as_bytes().get(..size).unwrap_or_default());
        }
        encode_prefix(self, size, enc)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.checked_size()
    }
}

/// `attr.size` in bytes, after checking that the size is published and that no non-zero
/// field lies past it.
///
/// It reads the struct's bytes where they lie, and writing goes through an output that
/// keeps nothing ([`Prefix`]) or copies them as they lie: no 136-byte copy of the attr is on
/// the stack.
trait CheckedSize {
    fn checked_size(&self) -> Result<usize, EncodeError>;
}

impl CheckedSize for PerfEventAttr {
    fn checked_size(&self) -> Result<usize, EncodeError> {
        let invalid = EncodeError::InvalidAttrSize { size: self.size };
        if !is_published_size(self.size) {
            return Err(invalid);
        }
        let size = usize::try_from(self.size).map_err(|_| invalid)?;
        // Whether a field is lost does not depend on the byte order (nor on the bit order
        // of the bit-field word): the struct's own bytes past `size` must be zero.
        let past = self.as_bytes().get(size..).unwrap_or_default();
        if past.iter().any(|&b| b != 0) {
            return Err(invalid);
        }
        Ok(size)
    }
}

/// The first `size` bytes of the attr, field by field in `enc`'s byte order.
fn encode_prefix<O: Output + ?Sized>(
    a: &PerfEventAttr,
    size: usize,
    enc: &mut Encoder<'_, O>,
) -> Result<(), EncodeError> {
    let endian = enc.endian();
    let mut prefix = Prefix { enc, left: size };
    encode_full(a, &mut Encoder::new(&mut prefix, endian))
}

/// Passes the first `left` bytes it takes to `enc` and drops the rest (which
/// [`CheckedSize`] found zero).
struct Prefix<'e, 'o, O: Output + ?Sized> {
    enc: &'e mut Encoder<'o, O>,
    left: usize,
}

impl<O: Output + ?Sized> Output for Prefix<'_, '_, O> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let n = self.left.min(bytes.len());
        self.enc.bytes(bytes.get(..n).unwrap_or(&[]))?;
        self.left = self.left.saturating_sub(n);
        Ok(())
    }
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::to_vec;
    use perf_abi::attr_flags;

    fn sample_attr() -> PerfEventAttr {
        PerfEventAttr {
            type_: 2,
            size: 136,
            config: 0x174,
            sample_period: 1,
            sample_type: 0x10587,
            read_format: 0x14,
            flags: attr_flags::DISABLED
                | attr_flags::INHERIT
                | attr_flags::SAMPLE_ID_ALL
                | attr_flags::EXCLUDE_GUEST,
            wakeup_events: 1,
            bp_type: 2,
            config1: 3,
            config2: 4,
            branch_sample_type: 5,
            sample_regs_user: 6,
            sample_stack_user: 7,
            clockid: -1,
            sample_regs_intr: 8,
            aux_watermark: 9,
            sample_max_stack: 10,
            reserved_2: 0,
            aux_sample_size: 11,
            reserved_3: 0,
            sig_data: 12,
            config3: 13,
        }
    }

    #[test]
    fn native_little_endian_matches_struct_bytes() {
        let a = sample_attr();
        if Endian::NATIVE == Endian::Little {
            assert_eq!(to_vec(&a, Endian::Little).unwrap(), a.as_bytes());
        }
    }

    /// The struct's bytes (the little-endian copy) and the field-by-field encoding agree,
    /// at every published size, whatever the values.
    #[test]
    fn the_struct_bytes_are_the_fields_encoded() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200 {
            let mut a = sample_attr();
            let bytes = a.as_mut_bytes();
            for b in bytes.iter_mut() {
                *b = next() as u8;
            }
            for size in ATTR_SIZES {
                a.size = size;
                let n = size as usize;
                let mut clean = a;
                clean.as_mut_bytes()[n..].fill(0);
                clean.size = size;
                let mut by_fields = alloc::vec::Vec::new();
                encode_prefix(&clean, n, &mut Encoder::new(&mut by_fields, Endian::Little))
                    .unwrap();
                assert_eq!(to_vec(&clean, Endian::Little).unwrap(), by_fields);
                assert_eq!(by_fields.len(), n);
                if a.as_bytes()[n..].iter().any(|&b| b != 0) {
                    assert!(to_vec(&a, Endian::Little).is_err(), "size {size}");
                }
            }
        }
    }

    #[test]
    fn big_endian_swaps_fields_and_bit_reverses_flags() {
        let a = sample_attr();
        let be = to_vec(&a, Endian::Big).unwrap();
        assert_eq!(&be[0..4], &[0, 0, 0, 2]);
        assert_eq!(&be[8..16], &0x174u64.to_be_bytes());
        // DISABLED|INHERIT = bits 0,1 of byte 0 -> bits 7,6 after reversal.
        assert_eq!(be[40], 0b1100_0000);
        // SAMPLE_ID_ALL (bit 18) and EXCLUDE_GUEST (bit 20): byte 2, bits 2 and 4 -> 5 and 3.
        assert_eq!(be[42], 0b0010_1000);
        assert_eq!(&be[92..96], &(-1i32).to_be_bytes());
        assert_eq!(&be[128..136], &13u64.to_be_bytes());
    }

    #[test]
    fn prefix_sizes_and_lost_fields() {
        let mut a = sample_attr();
        a.config3 = 0;
        a.size = 128;
        assert_eq!(to_vec(&a, Endian::Little).unwrap().len(), 128);
        a.size = 64; // would drop config2 and later fields, which are set
        assert_eq!(
            to_vec(&a, Endian::Little),
            Err(EncodeError::InvalidAttrSize { size: 64 })
        );
        let small = PerfEventAttr {
            size: 64,
            config: 1,
            ..Default::default()
        };
        assert_eq!(to_vec(&small, Endian::Little).unwrap().len(), 64);
        for bad in [0u32, 63, 65, 129, 144, u32::MAX] {
            let b = PerfEventAttr {
                size: bad,
                ..Default::default()
            };
            assert_eq!(
                to_vec(&b, Endian::Little),
                Err(EncodeError::InvalidAttrSize { size: bad })
            );
        }
    }
}
