//! [`swap_feature`]: a feature payload in the other byte order.

use crate::swap::cursor::Cursor;
use crate::swap::error::SwapError;
use crate::swap::parts::swap_parts;
use crate::Endian;
use perf_abi::feature;
use perf_abi::field_widths::{self, FeatureParts, Part};

/// What the payload of one feature needs from the others: CPU_TOPOLOGY has one entry per
/// CPU that NRCPUS says the machine has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeatureContext {
    /// NRCPUS' `available` (its first `u32`), when the file has NRCPUS.
    pub nr_cpus_avail: Option<u32>,
}

/// Rewrites the payload of feature `bit`, in byte order `from`, in the other byte order, in
/// place. TRACING_DATA is left as it is: it says its own byte order, and perf reads it (and
/// the tracepoint fields of RAW, which follow it) by that.
///
/// ```
/// use perf_abi::feature;
/// use perf_encode::swap::{swap_feature, FeatureContext};
/// use perf_encode::Endian;
/// let mut p = [4, 0, 0, 0, b'v', b'm', 0, 0];
/// swap_feature(feature::HOSTNAME, &mut p, Endian::Little, &FeatureContext::default())?;
/// assert_eq!(p, [0, 0, 0, 4, b'v', b'm', 0, 0]);
/// # Ok::<(), perf_encode::swap::SwapError>(())
/// ```
///
/// # Errors
///
/// [`SwapError`] naming the feature and field: a payload that ends inside a field or has
/// bytes after the last, a feature perf 6.1 does not know or cannot read in the other byte
/// order (BPF_PROG_INFO, BPF_BTF), EVENT_DESC (written from the events, not swapped), a
/// CPU_TOPOLOGY with per-CPU entries and no NRCPUS. `payload` is then partly swapped.
pub fn swap_feature(
    bit: u8,
    payload: &mut [u8],
    from: Endian,
    ctx: &FeatureContext,
) -> Result<(), SwapError> {
    let parts = field_widths::feature(bit).ok_or(SwapError::UnknownFeature { bit })?;
    let what = feature::name(bit).unwrap_or("feature");
    let mut c = Cursor::new(payload, from, what, 0);
    match parts {
        FeatureParts::Fields(p) => swap_parts(&mut c, p, false)?,
        FeatureParts::SelfDescribed => return Ok(()),
        FeatureParts::NotSwappable(why) => return Err(SwapError::NotSwappable { what, why }),
        FeatureParts::CpuTopology => cpu_topology(&mut c, ctx)?,
        FeatureParts::BuildIds => {
            while c.rest() != 0 {
                build_id(&mut c)?;
            }
        }
    }
    c.end()
}

/// CPU_TOPOLOGY: the two string lists always; the per-CPU parts when there are bytes for
/// them.
fn cpu_topology(c: &mut Cursor<'_>, ctx: &FeatureContext) -> Result<(), SwapError> {
    swap_parts(
        c,
        &[
            Part::StrList("core_siblings"),
            Part::StrList("thread_siblings"),
        ],
        false,
    )?;
    if c.rest() == 0 {
        return Ok(());
    }
    let nr = ctx.nr_cpus_avail.ok_or(SwapError::NotSwappable {
        what: c.what,
        why: "its per-CPU entries are counted by NRCPUS, which the file lacks",
    })?;
    c.numbers(u64::from(nr).saturating_mul(2), 4, "core_id, socket_id")?;
    if c.rest() == 0 {
        return Ok(());
    }
    swap_parts(c, &[Part::StrList("die_siblings")], false)?;
    c.numbers(u64::from(nr), 4, "die_id")
}

/// One BUILD_ID record: `{u32 type, u16 misc, u16 size}`, `i32 pid`, then `size - 12`
/// bytes kept (build id, file name).
fn build_id(c: &mut Cursor<'_>) -> Result<(), SwapError> {
    c.number(4, "header.type")?;
    c.number(2, "header.misc")?;
    let size = c.number(2, "header.size")?;
    let rest = size.checked_sub(12).ok_or(SwapError::BadValue {
        what: c.what,
        field: "header.size",
        value: size,
    })?;
    c.number(4, "pid")?;
    c.keep(rest, "build_id, filename")
}
