//! Reading SAMPLE records back: every field, by the attr's layout, without copying (the
//! walk over the fields follows from the table in `sample/table.rs`).

use crate::records::sample::layout::SampleLayout;
use crate::records::sample::table::{walk_sample, ParsedSample};
use crate::records::wire::error::ParseError;
use crate::records::wire::reader::Reader;
use crate::Endian;
use perf_abi::record_type;

const RECORD: &str = "SAMPLE";

/// Reads the SAMPLE record at the start of `record` by `layout`, every field of it.
///
/// `record` may continue past the record. Never panics, whatever the bytes.
///
/// # Errors
///
/// - [`ParseError::Truncated`] `{ field: "header", .. }` when `record` is shorter than the
///   8-byte header, and `{ field: "header.size", .. }` when it is shorter than the header's
///   `size`;
/// - [`ParseError::WrongType`] `{ expected: SAMPLE, found }` when the header's type is not
///   SAMPLE;
/// - [`ParseError::SizeMismatch`] `{ header_size, implied, .. }` when the layout's fields
///   end at `implied`, before the header's `size` or past it but within `record`;
/// - [`ParseError::Truncated`] naming the field when a field the layout has passes both the
///   header's `size` (its `available`) and the end of `record`.
///
/// ```
/// use perf_abi::sample_type::*;
/// use perf_encode::records::{parse_sample, Sample, SampleCpu, SampleLayout, SampleRecord};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: IDENTIFIER | TIME | CPU, ..Default::default() };
/// let s = Sample { identifier: Some(3), time: Some(77), cpu: Some(SampleCpu::new(1)), ..Default::default() };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Big).unwrap();
/// let p = parse_sample(&layout, Endian::Big, &bytes).unwrap();
/// assert_eq!((p.event_id(), p.time, p.cpu.map(|c| c.cpu), p.len), (Some(3), Some(77), Some(1), 32));
/// ```
pub fn parse_sample<'a>(
    layout: &SampleLayout,
    endian: Endian,
    record: &'a [u8],
) -> Result<ParsedSample<'a>, ParseError> {
    let mut r = Reader::new(record, 0, endian, RECORD);
    let type_ = r.u32("header")?;
    let _misc = r.u16("header")?;
    let size = usize::from(r.u16("header")?);
    if type_ != record_type::SAMPLE {
        return Err(ParseError::WrongType {
            expected: record_type::SAMPLE,
            found: type_,
        });
    }
    let body = record.get(..size).ok_or(ParseError::Truncated {
        record: RECORD,
        field: "header.size",
        offset: 6,
        available: record.len(),
    })?;
    let parsed = walk_sample(layout, endian, body).map_err(|e| match e {
        // A field past header.size: the record is shorter than its layout.
        ParseError::Truncated { .. } if record.len() > size => {
            match walk_sample(layout, endian, record) {
                Ok(p) => ParseError::SizeMismatch {
                    record: RECORD,
                    header_size: size,
                    implied: p.len,
                },
                Err(_) => e,
            }
        }
        _ => e,
    })?;
    if parsed.len != size {
        return Err(ParseError::SizeMismatch {
            record: RECORD,
            header_size: size,
            implied: parsed.len,
        });
    }
    Ok(parsed)
}

impl SampleLayout {
    /// The length (header included) this layout implies for the SAMPLE record in `record`.
    ///
    /// The length is found by walking the record's variable-length fields (READ groups,
    /// CALLCHAIN, RAW, BRANCH_STACK, register dumps, STACK_USER, AUX): compare it with the
    /// record's `header.size`, which is not read. `record` may be longer than the record;
    /// the walk never reads past its end, and never panics.
    ///
    /// # Errors
    ///
    /// [`ParseError::Truncated`] naming the field (`"header"` for the first 8 bytes) when
    /// `record` ends inside a field the layout has, or a count in it announces more bytes
    /// than `record` holds.
    ///
    /// ```
    /// use perf_abi::sample_type;
    /// use perf_encode::records::{SampleLayout, Sample, SampleRecord};
    /// use perf_encode::{to_vec, Endian};
    /// let layout = SampleLayout { sample_type: sample_type::IP | sample_type::CALLCHAIN, ..Default::default() };
    /// let ips = [1, 2, 3];
    /// let sample = Sample { ip: Some(7), callchain: Some(&ips), ..Default::default() };
    /// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &sample, misc: 0 }, Endian::Big).unwrap();
    /// assert_eq!(layout.sample_len(&bytes, Endian::Big), Ok(8 + 8 + 8 + 24));
    /// assert!(layout.sample_len(&bytes[..20], Endian::Big).is_err());
    /// ```
    pub fn sample_len(&self, record: &[u8], endian: Endian) -> Result<usize, ParseError> {
        walk_sample(self, endian, record).map(|s| s.len)
    }
}
