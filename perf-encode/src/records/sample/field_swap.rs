//! [`FieldSwap`]: how a SAMPLE field's bytes change between the two byte orders, one kind per
//! codec of the table.

/// How a SAMPLE field is written in the other byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldSwap {
    /// Every 8 bytes are one `u64` (IP, TIME, READ values, CALLCHAIN, register dumps, …).
    Words,
    /// Two `u32` (TID, CPU).
    U32Pair,
    /// RAW: a `u32 size`, then bytes kept as stored (their byte order is the one the
    /// tracing data says, not the file's).
    Raw,
    /// BRANCH_STACK: `u64 nr`, `u64 hw_idx` when the layout has it, then `{u64 from, u64 to,
    /// u64 flags}` per entry, the flags' bit-fields packed as each byte order's kernel packs
    /// them.
    Branches,
    /// STACK_USER: `u64 size`, that many bytes of user memory kept as stored, then `u64
    /// dyn_size` when `size` is not 0.
    Stack,
    /// AUX: `u64 size`, then that many bytes kept as stored.
    SizedBytes,
}
