//! Reading SAMPLE records back: every field, by the attr's layout, without copying.

use crate::records::parse::error::ParseError;
use crate::records::parse::reader::{Reader, U64Array};
use crate::records::sample::fields::{
    branch_flags_from_file, BranchEntry, StackUser, WeightStruct,
};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::read_values::{parse_read, ParsedReadValues};
use crate::records::sample::sample_id::{PidTid, SampleCpu};
use crate::Endian;
use perf_abi::{record_type, sample_type};

const RECORD: &str = "SAMPLE";

/// BRANCH_STACK as read from a record.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::BRANCH_STACK, branch_hw_index: true, ..Default::default() };
/// let entries = [BranchEntry { from: 1, to: 2, flags: BranchEntry::MISPRED }];
/// let s = Sample { branch_stack: Some(BranchStack { hw_idx: Some(0), entries: &entries }), ..Default::default() };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Big).unwrap();
/// let b = parse_sample(&layout, Endian::Big, &bytes).unwrap().branch_stack.unwrap();
/// assert_eq!((b.hw_idx, b.get(0)), (Some(0), Some(entries[0])));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedBranchStack<'a> {
    /// `hw_idx`, when the layout has it.
    pub hw_idx: Option<u64>,
    /// The entries' words: `from, to, flags` each, as stored (use [`Self::get`] or
    /// [`Self::iter`] for `flags` in the packing [`BranchEntry`] documents).
    pub words: U64Array<'a>,
}

impl<'a> ParsedBranchStack<'a> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.words.len() / 3
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i`.
    pub fn get(&self, i: usize) -> Option<BranchEntry> {
        let at = i.checked_mul(3)?;
        Some(BranchEntry {
            from: self.words.get(at)?,
            to: self.words.get(at.checked_add(1)?)?,
            flags: branch_flags_from_file(self.words.get(at.checked_add(2)?)?, self.words.endian()),
        })
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = BranchEntry> + 'a {
        let s = *self;
        (0..s.len()).filter_map(move |i| s.get(i))
    }
}

/// REGS_USER / REGS_INTR as read from a record.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_abi::record_fields::REGS_ABI_64;
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::REGS_INTR, regs_intr: 2, ..Default::default() };
/// let s = Sample { regs_intr: Some(Regs { abi: REGS_ABI_64, regs: &[5, 6] }), ..Default::default() };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Little).unwrap();
/// let r = parse_sample(&layout, Endian::Little, &bytes).unwrap().regs_intr.unwrap();
/// assert_eq!((r.abi, r.regs.iter().collect::<Vec<_>>()), (REGS_ABI_64, vec![5, 6]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedRegs<'a> {
    /// The ABI.
    pub abi: u64,
    /// The values (none when `abi` is `REGS_ABI_NONE`).
    pub regs: U64Array<'a>,
}

/// Every field of a SAMPLE record, read by the attr's layout. Variable-length fields point
/// into the record.
///
/// ```
/// use perf_abi::sample_type;
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::ID | sample_type::RAW, ..Default::default() };
/// let s = Sample { id: Some(8), raw: Some(&[1, 2, 3, 4]), ..Default::default() };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &s, misc: 0 }, Endian::Little).unwrap();
/// let p: ParsedSample = parse_sample(&layout, Endian::Little, &bytes).unwrap();
/// assert_eq!((p.event_id(), p.raw), (Some(8), Some(&[1, 2, 3, 4][..])));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedSample<'a> {
    /// Length the layout implies, header included (equal to `header.size` when returned by
    /// [`parse_sample`]).
    pub len: usize,
    /// `header.misc`.
    pub misc: u16,
    /// IDENTIFIER.
    pub identifier: Option<u64>,
    /// IP.
    pub ip: Option<u64>,
    /// TID.
    pub tid: Option<PidTid>,
    /// TIME.
    pub time: Option<u64>,
    /// ADDR.
    pub addr: Option<u64>,
    /// ID.
    pub id: Option<u64>,
    /// STREAM_ID.
    pub stream_id: Option<u64>,
    /// CPU.
    pub cpu: Option<SampleCpu>,
    /// PERIOD.
    pub period: Option<u64>,
    /// READ.
    pub read: Option<ParsedReadValues<'a>>,
    /// CALLCHAIN.
    pub callchain: Option<U64Array<'a>>,
    /// RAW: the `size` bytes (padding included).
    pub raw: Option<&'a [u8]>,
    /// BRANCH_STACK.
    pub branch_stack: Option<ParsedBranchStack<'a>>,
    /// REGS_USER.
    pub regs_user: Option<ParsedRegs<'a>>,
    /// STACK_USER.
    pub stack_user: Option<StackUser<'a>>,
    /// WEIGHT (layout without WEIGHT_STRUCT).
    pub weight: Option<u64>,
    /// WEIGHT_STRUCT.
    pub weight_struct: Option<WeightStruct>,
    /// DATA_SRC.
    pub data_src: Option<u64>,
    /// TRANSACTION.
    pub transaction: Option<u64>,
    /// REGS_INTR.
    pub regs_intr: Option<ParsedRegs<'a>>,
    /// PHYS_ADDR.
    pub phys_addr: Option<u64>,
    /// CGROUP.
    pub cgroup: Option<u64>,
    /// DATA_PAGE_SIZE.
    pub data_page_size: Option<u64>,
    /// CODE_PAGE_SIZE.
    pub code_page_size: Option<u64>,
    /// AUX: the `size` bytes.
    pub aux: Option<&'a [u8]>,
}

impl ParsedSample<'_> {
    /// The event id: IDENTIFIER, else ID.
    pub fn event_id(&self) -> Option<u64> {
        self.identifier.or(self.id)
    }
}

fn opt_u64(r: &mut Reader<'_>, yes: bool, field: &'static str) -> Result<Option<u64>, ParseError> {
    if yes {
        r.u64(field).map(Some)
    } else {
        Ok(None)
    }
}

fn regs<'a>(
    r: &mut Reader<'a>,
    count: u32,
    field: &'static str,
) -> Result<ParsedRegs<'a>, ParseError> {
    let abi = r.u64(field)?;
    let n = if abi == 0 { 0 } else { u64::from(count) };
    Ok(ParsedRegs {
        abi,
        regs: r.u64s(n, field)?,
    })
}

/// Walks the SAMPLE record at the start of `record` by `layout`, as far as its fields go.
pub(crate) fn walk_sample<'a>(
    layout: &SampleLayout,
    endian: Endian,
    record: &'a [u8],
) -> Result<ParsedSample<'a>, ParseError> {
    let mut r = Reader::new(record, 0, endian, RECORD);
    let _type = r.u32("header")?;
    let misc = r.u16("header")?;
    let _size = r.u16("header")?;
    let has = |bit: u64| layout.sample_type & bit != 0;
    let identifier = opt_u64(&mut r, has(sample_type::IDENTIFIER), "identifier")?;
    let ip = opt_u64(&mut r, has(sample_type::IP), "ip")?;
    let tid = if has(sample_type::TID) {
        Some(PidTid {
            pid: r.u32("pid")?,
            tid: r.u32("tid")?,
        })
    } else {
        None
    };
    let time = opt_u64(&mut r, has(sample_type::TIME), "time")?;
    let addr = opt_u64(&mut r, has(sample_type::ADDR), "addr")?;
    let id = opt_u64(&mut r, has(sample_type::ID), "id")?;
    let stream_id = opt_u64(&mut r, has(sample_type::STREAM_ID), "stream_id")?;
    let cpu = if has(sample_type::CPU) {
        Some(SampleCpu {
            cpu: r.u32("cpu")?,
            res: r.u32("res")?,
        })
    } else {
        None
    };
    let period = opt_u64(&mut r, has(sample_type::PERIOD), "period")?;
    let read = if has(sample_type::READ) {
        Some(parse_read(&mut r, layout.read_format)?)
    } else {
        None
    };
    let callchain = if has(sample_type::CALLCHAIN) {
        let nr = r.u64("callchain.nr")?;
        Some(r.u64s(nr, "callchain.ips")?)
    } else {
        None
    };
    let raw = if has(sample_type::RAW) {
        let size = r.u32("raw.size")?;
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        Some(r.take(size, "raw.data")?)
    } else {
        None
    };
    let branch_stack = if has(sample_type::BRANCH_STACK) {
        let nr = r.u64("branch_stack.nr")?;
        let hw_idx = opt_u64(&mut r, layout.branch_hw_index, "branch_stack.hw_idx")?;
        let words = r.u64s(nr.saturating_mul(3), "branch_stack.entries")?;
        Some(ParsedBranchStack { hw_idx, words })
    } else {
        None
    };
    let regs_user = if has(sample_type::REGS_USER) {
        Some(regs(&mut r, layout.regs_user, "regs_user")?)
    } else {
        None
    };
    let stack_user = if has(sample_type::STACK_USER) {
        let size = r.u64("stack_user.size")?;
        if size == 0 {
            Some(StackUser {
                data: &[],
                dyn_size: 0,
            })
        } else {
            let n = usize::try_from(size).unwrap_or(usize::MAX);
            let data = r.take(n, "stack_user.data")?;
            let dyn_size = r.u64("stack_user.dyn_size")?;
            Some(StackUser { data, dyn_size })
        }
    } else {
        None
    };
    let structured = has(sample_type::WEIGHT_STRUCT);
    let weight = opt_u64(&mut r, has(sample_type::WEIGHT) && !structured, "weight")?;
    let weight_struct = opt_u64(&mut r, structured, "weight_struct")?.map(WeightStruct::from_u64);
    let data_src = opt_u64(&mut r, has(sample_type::DATA_SRC), "data_src")?;
    let transaction = opt_u64(&mut r, has(sample_type::TRANSACTION), "transaction")?;
    let regs_intr = if has(sample_type::REGS_INTR) {
        Some(regs(&mut r, layout.regs_intr, "regs_intr")?)
    } else {
        None
    };
    let phys_addr = opt_u64(&mut r, has(sample_type::PHYS_ADDR), "phys_addr")?;
    let cgroup = opt_u64(&mut r, has(sample_type::CGROUP), "cgroup")?;
    let data_page_size = opt_u64(&mut r, has(sample_type::DATA_PAGE_SIZE), "data_page_size")?;
    let code_page_size = opt_u64(&mut r, has(sample_type::CODE_PAGE_SIZE), "code_page_size")?;
    let aux = if has(sample_type::AUX) {
        let size = r.u64("aux.size")?;
        let n = usize::try_from(size).unwrap_or(usize::MAX);
        Some(r.take(n, "aux.data")?)
    } else {
        None
    };
    Ok(ParsedSample {
        len: r.pos(),
        misc,
        identifier,
        ip,
        tid,
        time,
        addr,
        id,
        stream_id,
        cpu,
        period,
        read,
        callchain,
        raw,
        branch_stack,
        regs_user,
        stack_user,
        weight,
        weight_struct,
        data_src,
        transaction,
        regs_intr,
        phys_addr,
        cgroup,
        data_page_size,
        code_page_size,
        aux,
    })
}

/// Reads the SAMPLE record at the start of `record` by `layout`: checks its type, reads
/// every field within `header.size`, and checks that the layout's length equals
/// `header.size` ([`ParseError::SizeMismatch`] otherwise). `record` may continue past the
/// record. Never panics, whatever the bytes.
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
    /// The length in bytes (header included) this layout implies for the SAMPLE record at the
    /// start of `record`, found by walking its variable-length fields (READ groups,
    /// CALLCHAIN, RAW, BRANCH_STACK, register dumps, STACK_USER, AUX). Compare it with the
    /// record's `header.size`. `record` may be longer than the record; the walk never reads
    /// past its end, and never panics.
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
