//! Records of the data section: a generic record writer, the records tools write
//! (FINISHED_ROUND, FINISHED_INIT), and a framing checker for raw record streams.

mod finished;
mod framing;
mod record;

pub use finished::{FinishedInit, FinishedRound};
pub use framing::{FramingError, RecordFramer};
pub use record::{Record, MAX_RECORD_SIZE};
