//! Shared pieces of the fuzz targets: arbitrary inputs for perf-encode's types and reference
//! encodings written independently of perf-encode (plain `to_le_bytes`/`to_be_bytes`), so a
//! target can say what the bytes must be, not only that they came out.

pub mod api_sequence;

use arbitrary::Arbitrary;
use perf_abi::PerfEventAttr;
use perf_encode::{
    encoded_len, to_slice, to_vec, CountingOutput, Encode, EncodeError, Encoder, Endian,
};

/// A byte order.
#[derive(Arbitrary, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbEndian {
    /// Little-endian.
    Little,
    /// Big-endian.
    Big,
}

impl ArbEndian {
    /// The encoder's value.
    pub fn endian(self) -> Endian {
        match self {
            ArbEndian::Little => Endian::Little,
            ArbEndian::Big => Endian::Big,
        }
    }
}

/// `v` in `endian`, as a reference independent of perf-encode.
pub fn ref_u16(v: u16, e: Endian) -> [u8; 2] {
    if e.is_big() {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}

/// `v` in `endian`.
pub fn ref_u32(v: u32, e: Endian) -> [u8; 4] {
    if e.is_big() {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}

/// `v` in `endian`.
pub fn ref_u64(v: u64, e: Endian) -> [u8; 8] {
    if e.is_big() {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}

/// How long the buffer given to `to_slice` is, relative to the length the value needs, so the
/// boundary (exact, one short, one long) is hit often.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum BufLen {
    /// Exactly the needed length.
    Exact,
    /// `1 + k` bytes short (or empty).
    Short(u8),
    /// `k` bytes more.
    Long(u8),
    /// Any length below 128 KiB.
    Any(u32),
}

impl BufLen {
    /// The buffer length for a value needing `needed` bytes (`None`: its length is an error).
    pub fn resolve(self, needed: Option<usize>) -> usize {
        let n = needed.unwrap_or(0);
        match self {
            BufLen::Exact => n,
            BufLen::Short(k) => n.saturating_sub(usize::from(k) + 1),
            BufLen::Long(k) => n.saturating_add(usize::from(k)),
            BufLen::Any(k) => (k % (128 * 1024)) as usize,
        }
    }
}

/// Checks the promises every encoder makes, for `value` in byte order `endian` with a buffer of
/// `buf_len` bytes pre-filled with `fill`, and returns the encoding when there is one:
///
/// - `to_slice` either writes exactly `encoded_len` bytes (and nothing past them) or errs;
/// - a short buffer is `BufferTooSmall { needed: encoded_len, available }`, buffer untouched;
/// - an error of `encoded_len` is the error of `to_slice` and `to_vec`, buffer untouched;
/// - `to_vec` is what `to_slice` wrote, or the same error; `append_to_vec` appends exactly
///   that or leaves the vector as it was;
/// - encoding into a `CountingOutput` counts `encoded_len` bytes;
/// - the other byte order has the same length and the same success;
/// - `LengthMismatch` (the crate's internal-error report) never happens.
pub fn check_encoder<E: Encode + ?Sized>(
    value: &E,
    endian: Endian,
    buf_len: BufLen,
    fill: u8,
) -> Option<Vec<u8>> {
    let len = encoded_len(value);
    assert_eq!(len, value.encoded_len(), "encoded_len is deterministic");
    let buf_len = buf_len.resolve(len.as_ref().ok().copied());
    let mut buf = vec![fill; buf_len];
    let sliced = to_slice(value, endian, &mut buf).map(|w| w.to_vec());
    let vec = to_vec(value, endian);
    let other = if endian.is_big() {
        Endian::Little
    } else {
        Endian::Big
    };
    let vec_other = to_vec(value, other);
    for r in [&sliced, &vec, &vec_other] {
        if let Err(EncodeError::LengthMismatch { .. }) = r {
            panic!("internal length mismatch: {r:?}");
        }
    }

    // append_to_vec keeps what was there and, on error, changes nothing.
    let mut appended = vec![fill, 1, 2];
    let appended_r = perf_encode::append_to_vec(value, endian, &mut appended);
    match (&appended_r, &vec) {
        (Ok(()), Ok(v)) => {
            assert_eq!(&appended[..3], &[fill, 1, 2]);
            assert_eq!(&appended[3..], v.as_slice(), "append_to_vec == to_vec");
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "append_to_vec and to_vec fail alike");
            assert_eq!(
                appended,
                [fill, 1, 2],
                "failed append_to_vec changed the vector"
            );
        }
        (a, b) => panic!("append_to_vec {a:?} but to_vec {b:?}"),
    }

    let n = match len {
        Err(e) => {
            assert_eq!(sliced, Err(e), "to_slice fails as encoded_len does");
            assert_eq!(vec, Err(e), "to_vec fails as encoded_len does");
            assert!(buf.iter().all(|&b| b == fill), "buffer touched on error");
            return None;
        }
        Ok(n) => n,
    };

    // Counting through `encode` agrees with `encoded_len` (types that override it).
    let mut counter = CountingOutput::new();
    let counted = value.encode(&mut Encoder::new(&mut counter, endian));
    if counted.is_ok() {
        assert_eq!(
            counter.len(),
            n,
            "CountingOutput disagrees with encoded_len"
        );
    }

    if buf_len < n {
        assert_eq!(
            sliced,
            Err(EncodeError::BufferTooSmall {
                needed: n,
                available: buf_len
            })
        );
        assert!(
            buf.iter().all(|&b| b == fill),
            "BufferTooSmall touched the buffer"
        );
        // The value itself may still be unencodable; a big enough buffer tells.
        return match vec {
            Ok(v) => {
                assert_eq!(v.len(), n);
                let mut big = vec![fill; n];
                let w = to_slice(value, endian, &mut big).expect("to_vec worked");
                assert_eq!(w, v.as_slice());
                check_other_endian(&Ok(v.clone()), &vec_other);
                Some(v)
            }
            Err(_) => None,
        };
    }

    match (&sliced, &vec) {
        (Ok(w), Ok(v)) => {
            assert_eq!(w.len(), n, "to_slice wrote a length other than encoded_len");
            assert_eq!(w, v, "to_vec differs from to_slice");
            assert!(
                buf[n..].iter().all(|&b| b == fill),
                "to_slice wrote past encoded_len"
            );
            assert!(counted.is_ok());
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "to_slice and to_vec fail alike");
            assert!(
                !matches!(a, EncodeError::BufferTooSmall { .. }),
                "BufferTooSmall with a big enough buffer"
            );
        }
        (a, b) => panic!("to_slice {a:?} but to_vec {b:?}"),
    }
    check_other_endian(&vec, &vec_other);
    vec.ok()
}

fn check_other_endian(a: &Result<Vec<u8>, EncodeError>, b: &Result<Vec<u8>, EncodeError>) {
    match (a, b) {
        (Ok(x), Ok(y)) => assert_eq!(x.len(), y.len(), "length depends on byte order"),
        (Err(_), Err(_)) => {}
        (x, y) => panic!("success depends on byte order: {x:?} vs {y:?}"),
    }
}

/// Every field of a `perf_event_attr`, arbitrary, with a choice of `size` and a point after
/// which the bytes are zero (so that the smaller published sizes can succeed).
#[derive(Arbitrary, Clone, Debug)]
pub struct ArbAttr {
    /// `size`: a published size or anything.
    pub size: AttrSize,
    /// Byte offset (mod 137) from which every field is zeroed.
    pub zero_from: u8,
    /// The fields.
    pub fields: AttrFields,
}

/// The `size` field.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum AttrSize {
    /// `ATTR_SIZES[i % 9]`.
    Published(u8),
    /// Any value.
    Any(u32),
}

/// The fields of [`PerfEventAttr`] but `size`.
#[derive(Arbitrary, Clone, Copy, Debug)]
#[allow(missing_docs)]
pub struct AttrFields {
    pub type_: u32,
    pub config: u64,
    pub sample_period: u64,
    pub sample_type: u64,
    pub read_format: u64,
    pub flags: u64,
    pub wakeup_events: u32,
    pub bp_type: u32,
    pub config1: u64,
    pub config2: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub sample_stack_user: u32,
    pub clockid: i32,
    pub sample_regs_intr: u64,
    pub aux_watermark: u32,
    pub sample_max_stack: u16,
    pub reserved_2: u16,
    pub aux_sample_size: u32,
    pub reserved_3: u32,
    pub sig_data: u64,
    pub config3: u64,
}

/// Offsets of the attr fields after `size`, in order: (offset, width).
const ATTR_FIELDS: [(usize, usize); 22] = [
    (8, 8),
    (16, 8),
    (24, 8),
    (32, 8),
    (40, 8),
    (48, 4),
    (52, 4),
    (56, 8),
    (64, 8),
    (72, 8),
    (80, 8),
    (88, 4),
    (92, 4),
    (96, 8),
    (104, 4),
    (108, 2),
    (110, 2),
    (112, 4),
    (116, 4),
    (120, 8),
    (128, 8),
    (0, 4),
];

impl ArbAttr {
    /// The attr: fields starting at or after `zero_from % 137` are zero.
    pub fn attr(&self) -> PerfEventAttr {
        let f = self.fields;
        let size = match self.size {
            AttrSize::Published(i) => {
                perf_abi::attr::ATTR_SIZES[usize::from(i) % perf_abi::attr::ATTR_SIZES.len()]
            }
            AttrSize::Any(s) => s,
        };
        let cut = usize::from(self.zero_from) % 137;
        let mut a = PerfEventAttr {
            type_: f.type_,
            size,
            config: f.config,
            sample_period: f.sample_period,
            sample_type: f.sample_type,
            read_format: f.read_format,
            flags: f.flags,
            wakeup_events: f.wakeup_events,
            bp_type: f.bp_type,
            config1: f.config1,
            config2: f.config2,
            branch_sample_type: f.branch_sample_type,
            sample_regs_user: f.sample_regs_user,
            sample_stack_user: f.sample_stack_user,
            clockid: f.clockid,
            sample_regs_intr: f.sample_regs_intr,
            aux_watermark: f.aux_watermark,
            sample_max_stack: f.sample_max_stack,
            reserved_2: f.reserved_2,
            aux_sample_size: f.aux_sample_size,
            reserved_3: f.reserved_3,
            sig_data: f.sig_data,
            config3: f.config3,
        };
        // Zero every field at or past the cut (type and size stay).
        let zero = |off: usize| off >= cut;
        macro_rules! z {
            ($($field:ident @ $off:expr),*) => { $( if zero($off) { a.$field = 0; } )* };
        }
        z!(config @ 8, sample_period @ 16, sample_type @ 24, read_format @ 32, flags @ 40,
           wakeup_events @ 48, bp_type @ 52, config1 @ 56, config2 @ 64,
           branch_sample_type @ 72, sample_regs_user @ 80, sample_stack_user @ 88,
           clockid @ 92, sample_regs_intr @ 96, aux_watermark @ 104, sample_max_stack @ 108,
           reserved_2 @ 110, aux_sample_size @ 112, reserved_3 @ 116, sig_data @ 120,
           config3 @ 128);
        a
    }
}

/// The full 136-byte encoding of `a` in `e`, written field by field without perf-encode:
/// every field in the byte order, except the bit-field word, which is its little-endian bytes
/// with each byte's bits reversed in a big-endian file.
pub fn ref_attr_full(a: &PerfEventAttr, e: Endian) -> [u8; 136] {
    let mut out = [0u8; 136];
    let values: [u64; 22] = [
        a.config,
        a.sample_period,
        a.sample_type,
        a.read_format,
        a.flags,
        u64::from(a.wakeup_events),
        u64::from(a.bp_type),
        a.config1,
        a.config2,
        a.branch_sample_type,
        a.sample_regs_user,
        u64::from(a.sample_stack_user),
        u64::from(a.clockid as u32),
        a.sample_regs_intr,
        u64::from(a.aux_watermark),
        u64::from(a.sample_max_stack),
        u64::from(a.reserved_2),
        u64::from(a.aux_sample_size),
        u64::from(a.reserved_3),
        a.sig_data,
        a.config3,
        u64::from(a.type_),
    ];
    for (&(off, width), &v) in ATTR_FIELDS.iter().zip(values.iter()) {
        let dst = &mut out[off..off + width];
        match width {
            2 => dst.copy_from_slice(&ref_u16(v as u16, e)),
            4 => dst.copy_from_slice(&ref_u32(v as u32, e)),
            _ => dst.copy_from_slice(&ref_u64(v, e)),
        }
    }
    out[4..8].copy_from_slice(&ref_u32(a.size, e));
    let mut flags = a.flags.to_le_bytes();
    if e.is_big() {
        for b in &mut flags {
            *b = b.reverse_bits();
        }
    }
    out[40..48].copy_from_slice(&flags);
    out
}

/// The expected result of encoding `a` in `e`: its first `size` bytes when `size` is
/// published and no non-zero byte lies past it, else `InvalidAttrSize`.
pub fn ref_attr(a: &PerfEventAttr, e: Endian) -> Result<Vec<u8>, EncodeError> {
    let full = ref_attr_full(a, e);
    let size = a.size as usize;
    if !perf_abi::attr::ATTR_SIZES.contains(&a.size) || full[size..].iter().any(|&b| b != 0) {
        return Err(EncodeError::InvalidAttrSize { size: a.size });
    }
    Ok(full[..size].to_vec())
}

/// An event name: arbitrary text, or a long run of one letter around the 0xffff limit.
#[derive(Arbitrary, Clone, Debug)]
pub enum Name {
    /// Any UTF-8 text (NULs included).
    Text(String),
    /// `0xfff0 + k % 32` copies of a letter.
    Long(u8),
}

impl Name {
    /// The name's text.
    pub fn text(&self) -> String {
        match self {
            Name::Text(s) => s.clone(),
            Name::Long(k) => {
                let letter = char::from(b'a' + k % 26);
                std::iter::repeat_n(letter, 0xfff0 + usize::from(k % 32)).collect()
            }
        }
    }
}

/// The expected encoding of a `perf_header_string` holding `content` (no NUL): `u32 len` with
/// `len` = content + NUL rounded up to 64, then the content, then zeros.
pub fn ref_header_string(content: &[u8], e: Endian) -> Vec<u8> {
    let padded = (content.len() / 64 + 1) * 64;
    let mut v = ref_u32(padded as u32, e).to_vec();
    v.extend_from_slice(content);
    v.resize(4 + padded, 0);
    v
}
