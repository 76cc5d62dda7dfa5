//! A `no_std`, panic-free encoder of Linux `perf.data` files.
//!
//! Everything is encoded into the caller's buffer ([`to_slice`]) or, with the `alloc` feature,
//! a `Vec<u8>` ([`to_vec`], [`append_to_vec`]). Each encoder knows its exact length before it
//! writes ([`Encode::encoded_len`]), so a short buffer is an [`EncodeError::BufferTooSmall`]
//! that says how many bytes are needed and leaves the buffer untouched. Byte order is a
//! run-time [`Endian`] applied to every field. Nothing here panics, allocates (without
//! `alloc`), or uses `unsafe`.
//!
//! Typed records ([`records::SampleRecord`], [`records::Comm`], [`records::Mmap2`], …) are
//! laid out by their attr ([`records::SampleLayout`]), with the `sample_id` trailer it asks
//! for, and [`records::parse_sample`] / [`records::id_of_non_sample`] read raw records back
//! by the same layout. [`stream::PipeStream`] builds a pipe-mode stream in a fixed buffer;
//! on a small target, [`records::BasicSampleRecord`] pushes a SAMPLE of the fixed fields and
//! RAW without the full [`records::Sample`] description.
//!
//! A file is built in two phases, as `object`'s ELF writer does: plan every range with
//! [`layout::FileLayout`], then write the regions in that order.
//!
//! ```
//! use perf_abi::{attr, feature, PerfEventAttr};
//! use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, Region, SectionOrder};
//! use perf_encode::{encoded_len, records::FinishedRound, to_slice, Endian, EventEntry, HeaderString};
//!
//! let attr = PerfEventAttr { type_: attr::TYPE_SOFTWARE, config: attr::SW_DUMMY, ..Default::default() };
//! let events = [EventEntry { attr, name: "dummy", ids: &[1] }];
//! let hostname = HeaderString::new(b"vm");
//! let features = [FeatureLen { index: feature::HOSTNAME, len: encoded_len(&hostname)? as u64 }];
//! let data_size = encoded_len(&FinishedRound)? as u64;
//! let layout = FileLayout::plan(LayoutInput { order: SectionOrder::AttrsFirst, events: &events, data_size, features: &features })?;
//!
//! let mut file = [0u8; 512];
//! let e = Endian::Little;
//! for (region, section) in layout.regions() {
//!     let at = &mut file[section.offset as usize..];
//!     match region {
//!         Region::Header => { to_slice(&layout.header(), e, at)?; }
//!         Region::Ids => { to_slice(&layout.ids_encoder(), e, at)?; }
//!         Region::Attrs => { to_slice(&layout.attrs_encoder(), e, at)?; }
//!         Region::Data => { to_slice(&FinishedRound, e, at)?; }
//!         Region::FeatureTable => { to_slice(&layout.feature_table_encoder(), e, at)?; }
//!         Region::FeaturePayloads => { to_slice(&hostname, e, at)?; }
//!     }
//! }
//! assert_eq!(&file[..8], b"PERFILE2");
//! assert_eq!(layout.file_size(), 104 + 8 + 144 + 8 + 16 + 68);
//! # Ok::<(), perf_encode::EncodeError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod attr;
mod encoder;
mod endian;
mod error;
mod event;
pub mod features;
mod file_header;
pub mod layout;
mod output;
pub mod records;
pub mod stream;
mod string;
pub mod swap;

#[cfg(feature = "alloc")]
pub use encoder::{append_to_vec, to_vec};
pub use encoder::{encoded_len, to_slice, Encode, Encoder};
pub use endian::Endian;
pub use error::EncodeError;
pub use event::{events_attr_size, EventEntry, MAX_EVENT_NAME_LEN};
pub use output::{CountingOutput, Output, SliceOutput};
pub use string::{c_str_prefix, HeaderString, StringList, MAX_STRING_LEN, STRING_ALIGN};

/// The perf-abi crate, re-exported so users need one dependency.
pub use perf_abi as abi;
