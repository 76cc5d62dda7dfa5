//! SAMPLE records and the `sample_id` trailer of the others: what an attr lays out
//! ([`layout`]), the fields of a sample in kernel order, READ values, and the trailer.

pub(crate) mod fields;
pub(crate) mod layout;
pub(crate) mod read_values;
pub(crate) mod sample_id;
