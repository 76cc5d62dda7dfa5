//! Reading records back: SAMPLEs by the attr's layout, CPU_MAP's cpus, AUXTRACE_INFO's settings (the reader and its errors are in
//! [`wire`](super::wire), shared with the encoders).

pub(crate) mod auxtrace_info;
pub(crate) mod cpu_map;
pub(crate) mod sample;
