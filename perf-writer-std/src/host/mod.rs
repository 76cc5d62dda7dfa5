//! The machine: what `perf record` says about it ([`HostDescription`](description::HostDescription)),
//! and the facts of the machine this runs on that the writer takes as defaults.

pub(crate) mod description;
pub(crate) mod this_machine;
