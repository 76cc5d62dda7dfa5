//! Records: a generic record writer; the records tools write (FINISHED_ROUND, FINISHED_INIT,
//! ID_INDEX, TIME_CONV, EVENT_UPDATE); pipe mode's header records (HEADER_ATTR,
//! HEADER_FEATURE, HEADER_TRACING_DATA); and a framing checker for raw record streams.

mod event_update;
mod finished;
mod framing;
mod header_attr;
mod header_feature;
mod header_tracing_data;
mod id_index;
mod record;
mod time_conv;

pub use event_update::{EventUpdateName, EVENT_UPDATE_NAME};
pub use finished::{FinishedInit, FinishedRound};
pub use framing::{FramingError, RecordFramer};
pub use header_attr::HeaderAttr;
pub use header_feature::{HeaderFeature, MAX_FEATURE_PAYLOAD};
pub use header_tracing_data::HeaderTracingData;
pub use id_index::IdIndex;
pub use record::{Record, MAX_RECORD_SIZE};
