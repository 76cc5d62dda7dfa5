//! Reading SAMPLE records back by the attr's layout (the reader and its errors are in
//! [`wire`](super::wire), shared with the encoders).

pub(crate) mod sample;
