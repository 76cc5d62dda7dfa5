//! `PERF_RECORD_KSYMBOL`: a kernel symbol (BPF program, trampoline, …) registered or removed.

use crate::records::encode::body::{encode_as_record, name_len, RecordBody};
use crate::records::sample::layout::SampleLayout;
use crate::records::sample::sample_id::SampleId;
use crate::records::wire::pad::write_padded;
use crate::{EncodeError, Encoder, Output};
use perf_abi::record_type;

/// `{header, u64 addr, u32 len, u16 ksym_type, u16 flags, char name[] (padded to 8),
/// sample_id}`.
///
/// ```
/// use perf_abi::record_fields::KSYMBOL_TYPE_BPF;
/// use perf_encode::records::{Ksymbol, SampleId, SampleLayout};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout::default();
/// let k = Ksymbol { layout: &layout, misc: 0, addr: 0xffff_ffff_c000_0000, len: 256, ksym_type: KSYMBOL_TYPE_BPF,
///     flags: 0, name: b"bpf_prog_6deef7357e7b4530_sd_fw_egress", sample_id: SampleId::default() };
/// assert_eq!(to_vec(&k, Endian::Little).unwrap().len(), 8 + 16 + 40);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Ksymbol<'a> {
    /// The attr's layout (for the trailer).
    pub layout: &'a SampleLayout,
    /// `header.misc`.
    pub misc: u16,
    /// Start address.
    pub addr: u64,
    /// Length.
    pub len: u32,
    /// `KSYMBOL_TYPE_*`.
    pub ksym_type: u16,
    /// `KSYMBOL_FLAGS_*`.
    pub flags: u16,
    /// The symbol (no NUL inside).
    pub name: &'a [u8],
    /// The trailer's fields.
    pub sample_id: SampleId,
}

impl Ksymbol<'_> {
    fn name_len(&self) -> Result<usize, EncodeError> {
        name_len("KSYMBOL record: name contains a NUL byte", self.name)
    }
}

impl RecordBody for Ksymbol<'_> {
    #[inline]
    fn record_type(&self) -> u32 {
        record_type::KSYMBOL
    }

    #[inline]
    fn misc(&self) -> u16 {
        self.misc
    }

    fn body_len(&self) -> Result<usize, EncodeError> {
        Ok(self.name_len()?.saturating_add(16))
    }

    #[inline]
    fn write_body<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        enc.u64(self.addr)?;
        enc.u32(self.len)?;
        enc.u16(self.ksym_type)?;
        enc.u16(self.flags)?;
        write_padded(enc, self.name, self.name_len()?)
    }

    #[inline]
    fn sample_id(&self) -> Option<(&SampleLayout, &SampleId)> {
        Some((self.layout, &self.sample_id))
    }
}

encode_as_record!(Ksymbol<'_>);
