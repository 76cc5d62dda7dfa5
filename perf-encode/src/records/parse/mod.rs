//! Reading records back: a bounds-checked reader, its errors, and the SAMPLE parser.

pub(crate) mod error;
pub(crate) mod reader;
pub(crate) mod sample;
