//! Encodings of the fixed structs that frame a file: file header, section, pipe header and
//! record header.

use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{PerfEventHeader, PerfFileHeader, PerfFileSection, PerfPipeHeader};

/// ```
/// use perf_abi::PerfFileSection;
/// let v = perf_encode::to_vec(&PerfFileSection { offset: 1, size: 2 }, perf_encode::Endian::Big).unwrap();
/// assert_eq!(v[7], 1);
/// assert_eq!(v[15], 2);
/// ```
impl Encode for PerfFileSection {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.offset)?;
        enc.u64(self.size)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(16)
    }
}

/// The magic is written as the `u64` [`perf_abi::PERF_MAGIC`] in the file's byte order, so a
/// big-endian file starts with `2ELIFREP`.
///
/// ```
/// use perf_abi::{PerfFileHeader, PERF_MAGIC};
/// let h = PerfFileHeader { magic: PERF_MAGIC, ..Default::default() };
/// let v = perf_encode::to_vec(&h, perf_encode::Endian::Big).unwrap();
/// assert_eq!(&v[..8], b"2ELIFREP");
/// ```
impl Encode for PerfFileHeader {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.magic)?;
        enc.u64(self.size)?;
        enc.u64(self.attr_size)?;
        enc.encode(&self.attrs)?;
        enc.encode(&self.data)?;
        enc.encode(&self.event_types)?;
        // perf reads the bitmap as u64 words in the file's byte order.
        self.features.iter().try_for_each(|&w| enc.u64(w))
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(104)
    }
}

/// ```
/// use perf_abi::{PerfPipeHeader, PERF_MAGIC, PIPE_HEADER_SIZE};
/// let v = perf_encode::to_vec(&PerfPipeHeader { magic: PERF_MAGIC, size: PIPE_HEADER_SIZE }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(&v[..8], b"PERFILE2");
/// ```
impl Encode for PerfPipeHeader {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.magic)?;
        enc.u64(self.size)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(16)
    }
}

/// ```
/// use perf_abi::PerfEventHeader;
/// let v = perf_encode::to_vec(&PerfEventHeader { type_: 9, misc: 2, size: 16 }, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v, [9, 0, 0, 0, 2, 0, 16, 0]);
/// ```
impl Encode for PerfEventHeader {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u32(self.type_)?;
        enc.u16(self.misc)?;
        enc.u16(self.size)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(8)
    }
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use crate::{to_vec, Endian};
    use perf_abi::*;
    use zerocopy::IntoBytes;

    #[test]
    fn native_encoding_equals_struct_bytes() {
        let h = PerfFileHeader {
            magic: PERF_MAGIC,
            size: FILE_HEADER_SIZE,
            attr_size: 144,
            attrs: PerfFileSection { offset: 1, size: 2 },
            data: PerfFileSection { offset: 3, size: 4 },
            event_types: PerfFileSection { offset: 5, size: 6 },
            features: [7, 8, 9, 10],
        };
        assert_eq!(to_vec(&h, Endian::NATIVE).unwrap(), h.as_bytes());
        let e = PerfEventHeader {
            type_: 0x0102_0304,
            misc: 0x0506,
            size: 0x0708,
        };
        assert_eq!(to_vec(&e, Endian::NATIVE).unwrap(), e.as_bytes());
        let p = PerfPipeHeader {
            magic: PERF_MAGIC,
            size: 16,
        };
        assert_eq!(to_vec(&p, Endian::NATIVE).unwrap(), p.as_bytes());
    }

    #[test]
    fn other_endian_reverses_every_field() {
        let h = PerfFileHeader {
            magic: PERF_MAGIC,
            size: FILE_HEADER_SIZE,
            features: [1 << 3, 0, 0, 0],
            ..Default::default()
        };
        let le = to_vec(&h, Endian::Little).unwrap();
        let be = to_vec(&h, Endian::Big).unwrap();
        for (l, b) in le.chunks(8).zip(be.chunks(8)) {
            let mut r = l.to_vec();
            r.reverse();
            assert_eq!(r, b);
        }
        assert_eq!(&be[..8], b"2ELIFREP");
        assert_eq!(be[72 + 7], 8); // bit 3 of word 0, in the last byte of a big-endian u64
    }
}
