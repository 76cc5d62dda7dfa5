//! SAMPLE records and the `sample_id` trailer of the others: what an attr lays out
//! ([`layout`]), the one table of a sample's fields in kernel order ([`table`]) and the codec
//! of each kind of field ([`codec`]), the table's fields as every layout may have them
//! ([`field_choices`]), the values of those fields ([`fields`]), READ values,
//! and the trailer.

pub(crate) mod codec;
pub(crate) mod field_choices;
pub(crate) mod field_swap;
pub(crate) mod fields;
pub(crate) mod layout;
pub(crate) mod read_values;
pub(crate) mod sample_id;
pub(crate) mod table;
