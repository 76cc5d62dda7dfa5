//! What the file will describe besides its records: the event descriptions and their ids,
//! the feature headers, the tracing-data settings. Shared by both output modes; no I/O.

pub(crate) mod feature_slot;
pub(crate) mod header_index;
pub(crate) mod id_index;
pub(crate) mod raw_rule;
pub(crate) mod stable_storage;
pub(crate) mod trace_model;
