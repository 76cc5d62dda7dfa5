//! The bytes every record shares, for the encoders, the SAMPLE table and the parsers alike:
//! 8-byte alignment and zero padding, lengths that cannot overflow, the presence check of an
//! optional field, the `{u32, u32}` pair, and the bounds-checked reader with its errors.
//! Nothing here imports from the other folders of `records`.

pub(crate) mod error;
pub(crate) mod pad;
pub(crate) mod pair;
pub(crate) mod presence;
pub(crate) mod reader;
