//! `PERF_RECORD_KSYMBOL`: a kernel symbol (BPF program, trampoline, …) registered or removed.

use crate::records::kernel_record::{header, name_len, write_name};
use crate::records::sample_id::SampleId;
use crate::records::sample_layout::SampleLayout;
use crate::{Encode, EncodeError, Encoder, Output};
use perf_abi::{record_type, PerfEventHeader};

const RECORD: &str = "KSYMBOL";

/// `PERF_RECORD_KSYMBOL_TYPE_UNKNOWN`.
pub const KSYMBOL_TYPE_UNKNOWN: u16 = 0;
/// `PERF_RECORD_KSYMBOL_TYPE_BPF`.
pub const KSYMBOL_TYPE_BPF: u16 = 1;
/// `PERF_RECORD_KSYMBOL_TYPE_OOL`: out-of-line code (kprobes, ftrace trampolines).
pub const KSYMBOL_TYPE_OOL: u16 = 2;
/// `PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER`.
pub const KSYMBOL_FLAGS_UNREGISTER: u16 = 1;

/// `{header, u64 addr, u32 len, u16 ksym_type, u16 flags, char name[] (padded to 8),
/// sample_id}`.
///
/// ```
/// use perf_encode::records::{Ksymbol, SampleId, SampleLayout, KSYMBOL_TYPE_BPF};
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
    fn parts(&self) -> Result<(PerfEventHeader, usize), EncodeError> {
        let name = name_len("KSYMBOL record: name contains a NUL byte", self.name)?;
        let h = header(
            RECORD,
            record_type::KSYMBOL,
            self.misc,
            name.saturating_add(16),
            self.layout,
            &self.sample_id,
        )?;
        Ok((h, name))
    }
}

impl Encode for Ksymbol<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let (h, name) = self.parts()?;
        enc.encode(&h)?;
        enc.u64(self.addr)?;
        enc.u32(self.len)?;
        enc.u16(self.ksym_type)?;
        enc.u16(self.flags)?;
        write_name(enc, self.name, name)?;
        self.sample_id.write(enc, self.layout, RECORD)
    }

    fn encoded_len(&self) -> Result<usize, EncodeError> {
        Ok(usize::from(self.parts()?.0.size))
    }
}
