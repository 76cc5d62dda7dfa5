//! `PERF_RECORD_SAMPLE` of the fixed 8-byte fields and RAW, without a [`Sample`]: what a
//! device with one or two events of a fixed layout pushes per sample, in a few bytes of
//! stack.
//!
//! [`Sample`]: crate::records::Sample

use crate::records::encode::body::{encode_as_record, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::table::{sample_body_len, write_sample_body, SampleSource};
use crate::records::wire::pair::{PidTid, SampleCpu};
use crate::records::wire::presence::field;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;
use perf_abi::sample_type::*;

/// The 8-byte `sample_type` fields a [`BasicSampleRecord`] holds (the table of
/// [`Sample`](crate::records::Sample)'s fields gives their order and bytes).
const WORDS: u64 = IDENTIFIER | IP | TID | TIME | ADDR | ID | STREAM_ID | CPU | PERIOD;

/// A SAMPLE record like [`SampleRecord`](crate::records::SampleRecord), for layouts whose
/// `sample_type` has no other bits than [`BasicSampleRecord::SAMPLE_TYPE_BITS`]
/// (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD and RAW): the values are
/// plain fields, not the 27 `Option`s of a [`Sample`](crate::records::Sample), so the
/// description is a tenth of its size (about 100 bytes on a 32-bit target, against 432)
/// and writing it links no writer of the fields it cannot hold.
///
/// The layout decides which fields are written, in the kernel's order; the others are not
/// looked at (leave them 0). The bytes are those [`SampleRecord`](crate::records::SampleRecord)
/// writes for a `Sample` with the same values in the fields the layout has. Errors: a
/// layout with another bit is [`EncodeError::MissingField`] (`field` names what this type
/// cannot hold); `raw` must be `Some` exactly when the layout has RAW
/// ([`EncodeError::MissingField`], [`EncodeError::UnexpectedField`]), as with `Sample`.
///
/// ```
/// use perf_abi::{misc, sample_type::*};
/// use perf_encode::records::{BasicSampleRecord, PidTid, Sample, SampleLayout, SampleRecord};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: IDENTIFIER | IP | TID | TIME | PERIOD, ..Default::default() };
/// let basic = BasicSampleRecord {
///     identifier: 1,
///     ip: 0x1000,
///     tid: PidTid { pid: 7, tid: 7 },
///     time: 5_000,
///     period: 1,
///     ..BasicSampleRecord::new(&layout, misc::KERNEL)
/// };
/// let v = to_vec(&basic, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 5 * 8);
/// // The same bytes as the full description.
/// let s = Sample {
///     identifier: Some(1),
///     ip: Some(0x1000),
///     tid: Some(PidTid { pid: 7, tid: 7 }),
///     time: Some(5_000),
///     period: Some(1),
///     ..Default::default()
/// };
/// let full = SampleRecord { layout: &layout, sample: &s, misc: misc::KERNEL };
/// assert_eq!(v, to_vec(&full, Endian::Little).unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BasicSampleRecord<'a> {
    /// The attr's layout.
    pub layout: &'a SampleLayout,
    /// `header.misc`: the cpu mode (`misc::USER`, `misc::KERNEL`, …), `misc::EXACT_IP`, ….
    pub misc: u16,
    /// IDENTIFIER: the event id, at a fixed offset.
    pub identifier: u64,
    /// IP.
    pub ip: u64,
    /// TID: `{u32 pid, u32 tid}`.
    pub tid: PidTid,
    /// TIME.
    pub time: u64,
    /// ADDR.
    pub addr: u64,
    /// ID: the event id.
    pub id: u64,
    /// STREAM_ID.
    pub stream_id: u64,
    /// CPU: `{u32 cpu, u32 res}`.
    pub cpu: SampleCpu,
    /// PERIOD.
    pub period: u64,
    /// RAW data (`Some` exactly when the layout has RAW), zero-padded as
    /// [`Sample::raw`](field@crate::records::Sample::raw) is.
    pub raw: Option<&'a [u8]>,
}

impl<'a> BasicSampleRecord<'a> {
    /// The `sample_type` bits this record can hold.
    pub const SAMPLE_TYPE_BITS: u64 = WORDS | RAW;

    /// A record of `layout` with `misc`, every value 0 and no RAW data.
    pub const fn new(layout: &'a SampleLayout, misc: u16) -> Self {
        BasicSampleRecord {
            layout,
            misc,
            identifier: 0,
            ip: 0,
            tid: PidTid { pid: 0, tid: 0 },
            time: 0,
            addr: 0,
            id: 0,
            stream_id: 0,
            cpu: SampleCpu { cpu: 0, res: 0 },
            period: 0,
            raw: None,
        }
    }

    /// `Err` for a layout bit this type cannot hold.
    #[inline]
    fn check_bits(&self) -> Result<(), EncodeError> {
        if self.layout.sample_type & !Self::SAMPLE_TYPE_BITS != 0 {
            return Err(EncodeError::MissingField {
                record: "SAMPLE",
                field: "a field BasicSampleRecord cannot hold (use SampleRecord)",
            });
        }
        Ok(())
    }
}

/// `SampleSource` methods of the fields this type always holds.
macro_rules! held {
    ($($field:ident: $value:ty,)*) => {$(
        #[inline(always)]
        fn $field(&self) -> Option<&$value> {
            Some(&self.$field)
        }
    )*};
}

/// The values the table's length and writer read: the fields this type holds, whatever the
/// layout (the table looks only at those the layout has).
impl<'a> SampleSource<'a> for BasicSampleRecord<'a> {
    const ONLY_LAYOUT_FIELDS: bool = true;

    held! {
        identifier: u64,
        ip: u64,
        tid: PidTid,
        time: u64,
        addr: u64,
        id: u64,
        stream_id: u64,
        cpu: SampleCpu,
        period: u64,
    }

    #[inline(always)]
    fn raw(&self) -> Option<&&'a [u8]> {
        self.raw.as_ref()
    }
}

impl RecordBody for BasicSampleRecord<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::SAMPLE
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        self.check_bits()?;
        // RAW is checked both ways, as `Sample`'s is: the table does not look at it when the
        // layout lacks it.
        field("SAMPLE", "raw", self.layout.has(RAW), self.raw)?;
        sample_body_len(self, self.layout)
    }

    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.check_bits()?;
        write_sample_body(self, enc, self.layout)
    }
}

encode_as_record!(BasicSampleRecord<'_>);

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::records::sample::layout::each_subset;
    use crate::records::{parse_sample, Sample, SampleRecord};
    use crate::stream::PipeStream;
    use crate::{to_vec, Encode, Endian};

    /// The ten bits, one at a time.
    const BITS: [u64; 10] = [
        IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, RAW,
    ];

    fn values<'a>(layout: &'a SampleLayout, raw: &'a [u8]) -> (BasicSampleRecord<'a>, Sample<'a>) {
        let basic = BasicSampleRecord {
            identifier: 0x0102_0304_0506_0708,
            ip: 0xffff_8000_1234_5678,
            tid: PidTid {
                pid: 0x1122_3344,
                tid: 0x5566_7788,
            },
            time: 0x99aa_bbcc_ddee_ff00,
            addr: 0x0a0b_0c0d,
            id: 42,
            stream_id: 43,
            cpu: SampleCpu { cpu: 3, res: 0x7f },
            period: 0x1_0000_0001,
            raw: layout.has(RAW).then_some(raw),
            ..BasicSampleRecord::new(layout, perf_abi::misc::USER)
        };
        let full = Sample {
            identifier: Some(basic.identifier),
            ip: Some(basic.ip),
            tid: Some(basic.tid),
            time: Some(basic.time),
            addr: Some(basic.addr),
            id: Some(basic.id),
            stream_id: Some(basic.stream_id),
            cpu: Some(basic.cpu),
            period: Some(basic.period),
            raw: Some(raw),
            ..Default::default()
        }
        .masked(layout);
        (basic, full)
    }

    #[test]
    fn every_layout_of_its_bits_encodes_as_sample_record_in_both_byte_orders() {
        let raws: [&[u8]; 4] = [&[], &[1, 2, 3, 4], &[9; 5], &[7; 24]];
        for sample_type in each_subset(&BITS) {
            for raw in raws {
                for sample_id_all in [false, true] {
                    let layout = SampleLayout {
                        sample_type,
                        sample_id_all,
                        ..Default::default()
                    };
                    let (basic, sample) = values(&layout, raw);
                    let full = SampleRecord {
                        layout: &layout,
                        sample: &sample,
                        misc: basic.misc,
                    };
                    for endian in [Endian::Little, Endian::Big] {
                        let got = to_vec(&basic, endian).unwrap();
                        assert_eq!(got, to_vec(&full, endian).unwrap(), "{sample_type:#x}");
                        assert_eq!(basic.encoded_len(), Ok(got.len()));
                        let parsed = parse_sample(&layout, endian, &got).unwrap();
                        assert_eq!(parsed.len, got.len());
                    }
                }
            }
        }
    }

    #[test]
    fn other_bits_and_raw_against_the_layout_are_errors() {
        for bit in [
            READ,
            CALLCHAIN,
            BRANCH_STACK,
            REGS_USER,
            WEIGHT,
            AUX,
            DATA_SRC,
        ] {
            let layout = SampleLayout {
                sample_type: IP | bit,
                ..Default::default()
            };
            let basic = BasicSampleRecord::new(&layout, 0);
            assert!(matches!(
                to_vec(&basic, Endian::Little),
                Err(EncodeError::MissingField {
                    record: "SAMPLE",
                    ..
                })
            ));
        }
        let layout = SampleLayout {
            sample_type: IP | RAW,
            ..Default::default()
        };
        let basic = BasicSampleRecord::new(&layout, 0);
        assert_eq!(
            to_vec(&basic, Endian::Big),
            Err(EncodeError::MissingField {
                record: "SAMPLE",
                field: "raw"
            })
        );
        let layout = SampleLayout {
            sample_type: IP,
            ..Default::default()
        };
        let basic = BasicSampleRecord {
            raw: Some(&[1]),
            ..BasicSampleRecord::new(&layout, 0)
        };
        assert_eq!(
            to_vec(&basic, Endian::Little),
            Err(EncodeError::UnexpectedField {
                record: "SAMPLE",
                field: "raw"
            })
        );
        // RAW longer than a record can be.
        let big = alloc::vec![0u8; 70_000];
        let layout = SampleLayout {
            sample_type: RAW,
            ..Default::default()
        };
        let basic = BasicSampleRecord {
            raw: Some(&big),
            ..BasicSampleRecord::new(&layout, 0)
        };
        assert!(matches!(
            to_vec(&basic, Endian::Little),
            Err(EncodeError::TooLong { .. })
        ));
    }

    #[test]
    fn through_a_pipe_stream_as_sample_record() {
        let layout = SampleLayout {
            sample_type: IDENTIFIER | IP | TID | TIME | CPU | PERIOD | RAW,
            ..Default::default()
        };
        let raw = [5u8; 24];
        let (basic, sample) = values(&layout, &raw);
        for endian in [Endian::Little, Endian::Big] {
            let mut a = [0u8; 256];
            let mut b = [0u8; 256];
            let mut s = PipeStream::new(&mut a, endian).unwrap();
            let mut t = PipeStream::new(&mut b, endian).unwrap();
            s.push(&basic).unwrap();
            t.push(&SampleRecord {
                layout: &layout,
                sample: &sample,
                misc: basic.misc,
            })
            .unwrap();
            assert_eq!(s.pending(), t.pending());
            assert_eq!(s.pending().len(), 16 + 8 + 6 * 8 + 4 + 28);
        }
    }
}
