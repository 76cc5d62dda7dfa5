//! `perf-data`: convert, inspect and recover perf.data files without perf. The binary's
//! commands, each in its module: [`convert`], [`info`], [`recover`].
#![forbid(unsafe_code)]

pub mod attr_bytes;
pub mod byte_swap;
pub mod convert;
pub mod decompress;
pub mod error;
pub mod info;
pub mod output;
pub mod read;
pub mod recover;
pub mod trace;
