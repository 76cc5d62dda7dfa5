//! [`RecordBody`]: what one record type states about itself, and the one path that turns
//! any of them into a record (header, size and its limits, `sample_id` trailer).

use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::records::wire::pad::align8;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_fields::MAX_RECORD_SIZE;
use perf_abi::record_type::{self, Framing};
use perf_abi::PerfEventHeader;

/// A record's body: everything after its `perf_event_header`.
///
/// A record type implements this and nothing else; its [`Encode`](crate::Encode) (header
/// with the checked size, body, `sample_id` trailer) is the same for every type. Its name,
/// framing and body length are the facts `perf_abi::record_type::info` gives for
/// [`RecordBody::record_type`].
///
/// ```
/// use perf_abi::record_type;
/// use perf_encode::records::{Comm, RecordBody, SampleId, SampleLayout};
/// let layout = SampleLayout::default();
/// let c = Comm { layout: &layout, pid: 1, tid: 1, comm: b"sh", exec: false, sample_id: SampleId::default() };
/// assert_eq!((c.record_type(), c.body_len()), (record_type::COMM, Ok(16)));
/// ```
pub trait RecordBody {
    /// `record_type::*` of this record.
    fn record_type(&self) -> u32;

    /// `header.misc`.
    fn misc(&self) -> u16 {
        0
    }

    /// Bytes [`RecordBody::write_body`] writes, after checking every field.
    ///
    /// The default is the type's exact body length (`perf_abi::record_type::BodyLen::Exact`).
    ///
    /// # Errors
    ///
    /// The type's checks of its fields (each type's docs say which). The default returns
    /// [`EncodeError::InvalidValue`] when the type has no exact body length.
    fn body_len(&self) -> Result<usize, EncodeError> {
        match record_type::info(self.record_type()).map(|i| i.body) {
            Some(record_type::BodyLen::Exact(n)) => Ok(usize::from(n)),
            _ => Err(EncodeError::InvalidValue {
                what: "record body: the type has no fixed length",
            }),
        }
    }

    /// Writes the body, exactly [`RecordBody::body_len`] bytes.
    ///
    /// # Errors
    ///
    /// The output's error (see [`Encoder`](crate::Encoder#errors)), or an error of a check
    /// the type makes as it writes.
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError>;

    /// Where the values of the `sample_id` trailer are: the attr's layout and the fields.
    /// Whether a trailer follows the body is not this type's to say but
    /// `perf_abi::record_type::info(..).sample_id` (kernel records other than SAMPLE): only
    /// then is this asked. `None` (the default): the encoder writes no trailer of its own (a
    /// [`Record`](crate::records::Record) holds it in its payload).
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        None
    }
}

/// perf's name of `type_`, for errors.
pub(crate) fn record_name(type_: u32) -> &'static str {
    record_type::name(type_).unwrap_or("record")
}

/// The trailer written after `record`'s body: its values when its type has one
/// (`perf_abi::record_type::RecordInfo::sample_id`); `None` when the type has none, or when
/// the encoder gives none (a [`Record`](crate::records::Record) of a kernel type holds its
/// trailer in its payload).
#[inline]
fn trailer_of<R: RecordBody + ?Sized>(record: &R) -> Option<(&SampleLayout, &SampleId)> {
    let has = matches!(
        record_type::info(record.record_type()),
        Some(record_type::RecordInfo {
            sample_id: true,
            ..
        })
    );
    if has {
        record.sample_id()
    } else {
        None
    }
}

/// The header `record` gets: its size checked against the limits of its type's framing.
#[inline]
pub(crate) fn header_of<R: RecordBody + ?Sized>(
    record: &R,
) -> Result<PerfEventHeader, EncodeError> {
    let type_ = record.record_type();
    let trailer = match trailer_of(record) {
        Some((layout, sample_id)) => {
            sample_id.check(layout, record_name(type_))?;
            layout.sample_id_len()
        }
        None => 0,
    };
    let size = record
        .body_len()?
        .checked_add(PerfEventHeader::SIZE)
        .and_then(|n| n.checked_add(trailer))
        .ok_or_else(|| EncodeError::Overflow {
            what: record_name(type_),
        })?;
    let unpadded = matches!(
        record_type::info(type_).map(|i| i.framing),
        Some(Framing::Unpadded)
    );
    let max = if unpadded {
        usize::from(u16::MAX)
    } else {
        MAX_RECORD_SIZE
    };
    if size > max {
        return Err(EncodeError::TooLong {
            what: record_name(type_),
            len: size as u64,
            max: max as u64,
        });
    }
    let size16 = u16::try_from(size)
        .ok()
        .filter(|s| unpadded || s % 8 == 0)
        .ok_or(EncodeError::InvalidRecordSize { size: size as u64 })?;
    Ok(PerfEventHeader {
        type_,
        misc: record.misc(),
        size: size16,
    })
}

/// Writes `record`: header, body, trailer.
#[inline]
pub(crate) fn encode_record<R: RecordBody + ?Sized, O: Output + ?Sized>(
    record: &R,
    enc: &mut Encoder<'_, O>,
) -> Result<(), EncodeError> {
    let header = header_of(record)?;
    write_record(record, enc, header)
}

/// Writes `record` whose length (header, body, trailer) [`header_of`] gave as `len`: the
/// header from `len`, then body and trailer, without computing the length again.
#[inline]
pub(crate) fn encode_record_with_len<R: RecordBody + ?Sized, O: Output + ?Sized>(
    record: &R,
    enc: &mut Encoder<'_, O>,
    len: usize,
) -> Result<(), EncodeError> {
    let size =
        u16::try_from(len).map_err(|_| EncodeError::InvalidRecordSize { size: len as u64 })?;
    let header = PerfEventHeader {
        type_: record.record_type(),
        misc: record.misc(),
        size,
    };
    write_record(record, enc, header)
}

/// Writes `header`, then `record`'s body and trailer.
#[inline]
fn write_record<R: RecordBody + ?Sized, O: Output + ?Sized>(
    record: &R,
    enc: &mut Encoder<'_, O>,
    header: PerfEventHeader,
) -> Result<(), EncodeError> {
    let e = enc.endian();
    let [t0, t1, t2, t3] = e.u32_bytes(header.type_);
    let [m0, m1] = e.u16_bytes(header.misc);
    let [s0, s1] = e.u16_bytes(header.size);
    enc.bytes(&[t0, t1, t2, t3, m0, m1, s0, s1])?;
    record.write_body(enc)?;
    match trailer_of(record) {
        Some((layout, sample_id)) => sample_id.write(enc, layout, record_name(header.type_)),
        None => Ok(()),
    }
}

/// `impl Encode` for record types: the one path of [`encode_record`] and [`header_of`]
/// (and [`encode_record_with_len`] once the length is known).
macro_rules! encode_as_record {
    (impl [$($generic:tt)*] $t:ty) => {
        impl<$($generic)*> $crate::Encode for $t {
            #[inline]
            fn encode<O: $crate::Output + ?Sized>(
                &self,
                enc: &mut $crate::Encoder<'_, O>,
            ) -> Result<(), $crate::EncodeError> {
                $crate::records::encode::body::encode_record(self, enc)
            }

            #[inline]
            fn encoded_len(&self) -> Result<usize, $crate::EncodeError> {
                $crate::records::encode::body::header_of(self).map(|h| usize::from(h.size))
            }

            #[inline]
            fn encode_with_len<O: $crate::Output + ?Sized>(
                &self,
                enc: &mut $crate::Encoder<'_, O>,
                len: usize,
            ) -> Result<(), $crate::EncodeError> {
                $crate::records::encode::body::encode_record_with_len(self, enc, len)
            }
        }
    };
    ($($t:ty),* $(,)?) => {$(
        $crate::records::encode::body::encode_as_record!(impl [] $t);
    )*};
}
pub(crate) use encode_as_record;

/// Bytes a NUL-terminated `name` takes, padded to 8; a NUL inside `name` is an error.
pub(crate) fn name_len(what: &'static str, name: &[u8]) -> Result<usize, EncodeError> {
    if name.contains(&0) {
        return Err(EncodeError::InvalidValue { what });
    }
    align8(name.len().saturating_add(1), what)
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{Comm, EventUpdateName, Ksymbol, Mmap, Mmap2, Mmap2File, ThreadMap};
    use perf_abi::record_type::{info, BodyLen};
    use perf_abi::TimeConv;

    /// A record's header is written from the length it is handed: one a `u16` cannot hold is
    /// an error, and one that is not the record's is a short or long write that the callers'
    /// length check refuses; never a panic.
    #[test]
    fn a_handed_length_that_is_not_the_records_is_refused() {
        use crate::records::FinishedRound;
        use crate::{Encode, Endian, SliceOutput};
        let mut buf = [0u8; 16];
        let mut out = SliceOutput::new(&mut buf);
        let mut enc = Encoder::new(&mut out, Endian::Little);
        assert_eq!(
            FinishedRound.encode_with_len(&mut enc, 70_000),
            Err(EncodeError::InvalidRecordSize { size: 70_000 })
        );
        assert_eq!(FinishedRound.encode_with_len(&mut enc, 16), Ok(()));
        assert_eq!(out.written(), 8);
        assert_eq!(&buf[6..8], &16u16.to_le_bytes());
        let mut buf = [0u8; 16];
        assert_eq!(
            crate::to_slice(&FinishedRound, Endian::Big, &mut buf).map(|b| b.len()),
            Ok(8)
        );
    }

    /// `r`'s body length is the minimum perf-abi states for its type, `name`, once the
    /// `beyond` bytes of `r`'s shortest variable part that minimum does not count are left out.
    fn is_minimum(r: &impl RecordBody, name: &str, beyond: usize) {
        let i = info(r.record_type()).unwrap();
        assert_eq!(i.name, name);
        let len = r.body_len().unwrap() - beyond;
        assert_eq!(i.body, BodyLen::AtLeast(len as u16), "{name}");
    }

    /// The shortest body each encoder of a type of varying length writes (an empty name or
    /// list) is the minimum `perf_abi::record_type::info` states for the type: the fixed
    /// fields the encoders add to a name or list (`body_len`'s literals) are those of
    /// perf-abi's `AtLeast`.
    #[test]
    fn shortest_bodies_are_perf_abis_minimums() {
        let layout = &SampleLayout::default();
        let sample_id = SampleId::default();
        let (pid, tid, misc, addr, len, pgoff) = (1, 1, 0, 0, 0, 0);
        let comm = Comm {
            layout,
            pid,
            tid,
            comm: b"",
            exec: false,
            sample_id,
        };
        is_minimum(&comm, "COMM", 0);
        let filename = b"";
        let mmap = Mmap {
            layout,
            misc,
            pid,
            tid,
            addr,
            len,
            pgoff,
            filename,
            sample_id,
        };
        is_minimum(&mmap, "MMAP", 0);
        let file = Mmap2File::Inode {
            maj: 0,
            min: 0,
            ino: 0,
            ino_generation: 0,
        };
        let (prot, flags) = (0, 0);
        let mmap2 = Mmap2 {
            layout,
            misc,
            pid,
            tid,
            addr,
            len,
            pgoff,
            file,
            prot,
            flags,
            filename,
            sample_id,
        };
        is_minimum(&mmap2, "MMAP2", 0);
        let ksym = Ksymbol {
            layout,
            misc,
            addr,
            len: 0,
            ksym_type: 0,
            flags: 0,
            name: b"",
            sample_id,
        };
        is_minimum(&ksym, "KSYMBOL", 0);
        // `{u64 type, u64 id}` for every kind; a NAME's name, NUL included, after.
        is_minimum(&EventUpdateName { id: 1, name: "" }, "EVENT_UPDATE", 8);
        is_minimum(&ThreadMap { entries: &[] }, "THREAD_MAP", 0);
        // perf 6.1's TIME_CONV: perf-abi's struct, longer than the minimum (older perf's).
        let t = TimeConv::default();
        assert_eq!(t.body_len(), Ok(TimeConv::SIZE));
        match info(t.record_type()).unwrap().body {
            BodyLen::AtLeast(min) => assert!(usize::from(min) <= TimeConv::SIZE),
            other => panic!("TIME_CONV: {other:?}"),
        }
    }
}
