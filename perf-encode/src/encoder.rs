//! The [`Encode`] trait, the [`Encoder`] that applies the byte order, and the entry points
//! that size first and write second ([`to_slice`], [`to_vec`]).

use crate::{CountingOutput, EncodeError, Endian, Output, SliceOutput};

/// Writes primitive fields in one byte order to an [`Output`].
///
/// # Errors
///
/// Every writer ([`u8`](Self::u8) … [`zeros`](Self::zeros)) fails only as the output's
/// [`Output::put`] or [`Output::put_zeros`] does, and passes that error on: a
/// [`SliceOutput`] refuses a field that would pass its end
/// ([`EncodeError::BufferTooSmall`], nothing of the field written), a [`CountingOutput`] a
/// count past `usize::MAX` ([`EncodeError::Overflow`]); a `Vec<u8>` takes any field.
///
/// ```
/// use perf_encode::{Encoder, Endian};
/// let mut out = Vec::new();
/// let mut enc = Encoder::new(&mut out, Endian::Big);
/// enc.u32(0x0102_0304).unwrap();
/// assert_eq!(out, [1, 2, 3, 4]);
/// ```
#[derive(Debug)]
pub struct Encoder<'o, O: Output + ?Sized> {
    out: &'o mut O,
    endian: Endian,
}

impl<'o, O: Output + ?Sized> Encoder<'o, O> {
    /// An encoder writing in `endian` to `out`.
    #[inline]
    pub fn new(out: &'o mut O, endian: Endian) -> Self {
        Encoder { out, endian }
    }

    /// The byte order applied to every field.
    #[inline]
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The underlying output.
    #[inline]
    pub fn output(&mut self) -> &mut O {
        self.out
    }

    /// A `u8`.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn u8(&mut self, v: u8) -> Result<(), EncodeError> {
        self.out.put(&[v])
    }

    /// A `u16` in the byte order.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn u16(&mut self, v: u16) -> Result<(), EncodeError> {
        self.out.put(&self.endian.u16_bytes(v))
    }

    /// A `u32` in the byte order.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn u32(&mut self, v: u32) -> Result<(), EncodeError> {
        self.out.put(&self.endian.u32_bytes(v))
    }

    /// An `i32` in the byte order.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn i32(&mut self, v: i32) -> Result<(), EncodeError> {
        self.u32(u32::from_ne_bytes(v.to_ne_bytes()))
    }

    /// A `u64` in the byte order.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn u64(&mut self, v: u64) -> Result<(), EncodeError> {
        self.out.put(&self.endian.u64_bytes(v))
    }

    /// Each `u64` of `values` in the byte order.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn u64s(&mut self, values: &[u64]) -> Result<(), EncodeError> {
        if self.endian.is_native() {
            return self.out.put(zerocopy::IntoBytes::as_bytes(values));
        }
        values.iter().try_for_each(|&v| self.u64(v))
    }

    /// Bytes as they are.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) -> Result<(), EncodeError> {
        self.out.put(b)
    }

    /// `n` zero bytes.
    ///
    /// # Errors
    ///
    /// The output's error, as for every writer (see [`Encoder`](Encoder#errors)).
    #[inline]
    pub fn zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.out.put_zeros(n)
    }

    /// Encodes `value` here.
    ///
    /// # Errors
    ///
    /// What `value`'s [`Encode::encode`] returns: its own checks' errors, and the output's.
    /// The bytes written before the error stay in the output.
    #[inline]
    pub fn encode<E: Encode + ?Sized>(&mut self, value: &E) -> Result<(), EncodeError> {
        value.encode(self)
    }
}

/// Something with one exact byte encoding in each byte order.
///
/// [`Encode::encoded_len`] gives the length before anything is written. By default it runs
/// [`Encode::encode`] into a [`CountingOutput`]; the encoders of this crate compute it
/// directly instead, and [`to_slice`] and [`append_to_vec`] check that the bytes written
/// match it ([`EncodeError::LengthMismatch`] otherwise).
///
/// ```
/// use perf_encode::{Encode, Encoder, EncodeError, Output};
/// struct Pair(u32, u32);
/// impl Encode for Pair {
///     fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
///         enc.u32(self.0)?;
///         enc.u32(self.1)
///     }
/// }
/// assert_eq!(Pair(1, 2).encoded_len(), Ok(8));
/// ```
pub trait Encode {
    /// Writes the encoding through `enc`.
    ///
    /// # Errors
    ///
    /// An [`EncodeError`] when the value breaks a limit of the format (each type's docs say
    /// which), or the output's error (see [`Encoder`](Encoder#errors)). The bytes written
    /// before the error stay in the output; [`to_slice`] and [`append_to_vec`] take care of
    /// them.
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError>;

    /// Exact number of bytes [`Encode::encode`] writes.
    ///
    /// # Errors
    ///
    /// The errors of the value's checks, as [`Encode::encode`] would return them. The
    /// default counts what [`Encode::encode`] writes, so it returns that method's errors,
    /// and [`EncodeError::Overflow`] when the count passes `usize::MAX`.
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        let mut counter = CountingOutput::new();
        self.encode(&mut Encoder::new(&mut counter, Endian::NATIVE))?;
        Ok(counter.len())
    }

    /// Writes the encoding through `enc`, given the `len` that [`Encode::encoded_len`] returned.
    ///
    /// [`to_slice`], [`append_to_vec`] and [`PipeStream`](crate::stream::PipeStream) call it
    /// after sizing, so that an encoder whose bytes hold their own length (a record's header)
    /// does not compute it a second time. With another `len` the bytes may be wrong (never a
    /// panic); those callers check that exactly `len` bytes were written. By default
    /// [`Encode::encode`].
    ///
    /// # Errors
    ///
    /// As [`Encode::encode`], less the checks [`Encode::encoded_len`] already made.
    #[inline]
    fn encode_with_len<O: Output + ?Sized>(
        &self,
        enc: &mut Encoder<'_, O>,
        len: usize,
    ) -> Result<(), EncodeError> {
        let _ = len;
        self.encode(enc)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    #[inline]
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        (**self).encode(enc)
    }

    #[inline]
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        (**self).encoded_len()
    }

    #[inline]
    fn encode_with_len<O: Output + ?Sized>(
        &self,
        enc: &mut Encoder<'_, O>,
        len: usize,
    ) -> Result<(), EncodeError> {
        (**self).encode_with_len(enc, len)
    }
}

/// Exact encoded length of `value`.
///
/// # Errors
///
/// The errors of `value`'s [`Encode::encoded_len`]: its checks of the value, before
/// anything is written anywhere.
///
/// ```
/// assert_eq!(perf_encode::encoded_len(&perf_encode::HeaderString::new(b"x86_64")), Ok(68));
/// ```
#[inline]
pub fn encoded_len<E: Encode + ?Sized>(value: &E) -> Result<usize, EncodeError> {
    value.encoded_len()
}

/// Encodes `value` at the start of `buf` and returns the written part.
///
/// The length is computed first, so a buffer too short is refused before anything is written.
///
/// # Errors
///
/// - The errors of `value`'s [`Encode::encoded_len`] (its checks of the value); `buf` is
///   untouched.
/// - [`EncodeError::BufferTooSmall`] `{ needed, available }` when `buf` (`available` bytes)
///   is shorter than the encoding (`needed` bytes); `buf` is untouched.
/// - Then, writing: the errors of `value`'s [`Encode::encode_with_len`];
///   [`EncodeError::LengthMismatch`] `{ announced, written }` when the encoder wrote fewer
///   bytes than its `encoded_len` announced; and [`EncodeError::BufferTooSmall`] with
///   `available` equal to that length when it wrote more. Both are bugs of the encoder, not
///   of the value. On these errors the first `needed` bytes of `buf` may hold part of the
///   encoding.
///
/// ```
/// use perf_encode::{to_slice, Endian, EncodeError, records::FinishedRound};
/// let mut buf = [0xffu8; 16];
/// let used = to_slice(&FinishedRound, Endian::Little, &mut buf).unwrap();
/// assert_eq!(used, &[68, 0, 0, 0, 0, 0, 8, 0]);
/// let mut short = [0xffu8; 4];
/// let err = to_slice(&FinishedRound, Endian::Little, &mut short).unwrap_err();
/// assert_eq!(err, EncodeError::BufferTooSmall { needed: 8, available: 4 });
/// assert_eq!(short, [0xff; 4]);
/// ```
#[inline]
pub fn to_slice<'b, E: Encode + ?Sized>(
    value: &E,
    endian: Endian,
    buf: &'b mut [u8],
) -> Result<&'b mut [u8], EncodeError> {
    let needed = value.encoded_len()?;
    let available = buf.len();
    let head = buf
        .get_mut(..needed)
        .ok_or(EncodeError::BufferTooSmall { needed, available })?;
    let mut out = SliceOutput::new(head);
    value.encode_with_len(&mut Encoder::new(&mut out, endian), needed)?;
    let written = out.written();
    if written != needed {
        return Err(EncodeError::LengthMismatch {
            announced: needed,
            written,
        });
    }
    Ok(out.into_written())
}

/// Appends the encoding of `value` to `vec`; on error `vec` is left as it was.
///
/// # Errors
///
/// - The errors of `value`'s [`Encode::encoded_len`] (its checks of the value).
/// - [`EncodeError::OutOfMemory`] `{ needed }` when `vec` cannot grow by the encoding's
///   `needed` bytes (the allocator refused, or more than a `Vec` holds).
/// - Then, writing: the errors of `value`'s [`Encode::encode_with_len`], and
///   [`EncodeError::LengthMismatch`] `{ announced, written }` when the encoder wrote other
///   than the length it announced (a bug of the encoder, not of the value).
///
/// In every case `vec` is cut back to its length before the call.
///
/// ```
/// use perf_encode::{append_to_vec, Endian, HeaderString};
/// let mut v = vec![1u8];
/// append_to_vec(&HeaderString::new(b"vm"), Endian::Little, &mut v).unwrap();
/// assert_eq!(v.len(), 1 + 68);
/// ```
#[cfg(feature = "alloc")]
pub fn append_to_vec<E: Encode + ?Sized>(
    value: &E,
    endian: Endian,
    vec: &mut alloc::vec::Vec<u8>,
) -> Result<(), EncodeError> {
    let needed = value.encoded_len()?;
    let start = vec.len();
    // An encoder that announces more than memory holds gets an error, not an abort.
    vec.try_reserve(needed)
        .map_err(|_| EncodeError::OutOfMemory { needed })?;
    let result = value.encode_with_len(&mut Encoder::new(vec, endian), needed);
    let written = vec.len().saturating_sub(start);
    let result = result.and(if written == needed {
        Ok(())
    } else {
        Err(EncodeError::LengthMismatch {
            announced: needed,
            written,
        })
    });
    if result.is_err() {
        vec.truncate(start);
    }
    result
}

/// The encoding of `value` in a new `Vec<u8>`.
///
/// # Errors
///
/// Those of [`append_to_vec`]: the value's checks, [`EncodeError::OutOfMemory`] and
/// [`EncodeError::LengthMismatch`].
///
/// ```
/// let v = perf_encode::to_vec(&perf_encode::records::FinishedInit, perf_encode::Endian::Big).unwrap();
/// assert_eq!(v, [0, 0, 0, 82, 0, 0, 0, 8]);
/// ```
#[cfg(feature = "alloc")]
pub fn to_vec<E: Encode + ?Sized>(
    value: &E,
    endian: Endian,
) -> Result<alloc::vec::Vec<u8>, EncodeError> {
    let mut v = alloc::vec::Vec::new();
    append_to_vec(value, endian, &mut v)?;
    Ok(v)
}

#[allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    /// Announces `.0` bytes and writes 8.
    struct Announces(usize);

    impl Encode for Announces {
        fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
            enc.zeros(8)
        }

        fn encoded_len(&self) -> Result<usize, EncodeError> {
            Ok(self.0)
        }
    }

    #[test]
    fn a_length_no_memory_holds_is_an_error_and_the_vec_stays() {
        let mut v = alloc::vec![1u8, 2];
        for needed in [usize::MAX, isize::MAX as usize, 1 << 62] {
            assert_eq!(
                append_to_vec(&Announces(needed), Endian::Little, &mut v),
                Err(EncodeError::OutOfMemory { needed })
            );
            assert_eq!(v, [1, 2]);
            assert_eq!(
                to_vec(&Announces(needed), Endian::Big),
                Err(EncodeError::OutOfMemory { needed })
            );
        }
        // A wrong length that memory holds is caught after writing, the vec restored.
        assert_eq!(
            append_to_vec(&Announces(16), Endian::Little, &mut v),
            Err(EncodeError::LengthMismatch {
                announced: 16,
                written: 8
            })
        );
        assert_eq!(v, [1, 2]);
        append_to_vec(&Announces(8), Endian::Little, &mut v).unwrap();
        assert_eq!(v.len(), 10);
    }
}
