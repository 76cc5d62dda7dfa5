//! [`FeatureError`]: why a feature header was refused.

use perf_encode::features::FeaturePayloadError;
use std::fmt;

/// Why a feature header was not set.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FeatureError {
    /// A feature payload is larger than a pipe-mode HEADER_FEATURE record holds (64 KiB).
    TooLargeForPipe(u8),
    /// A raw feature payload perf 6.1 would not read (a count, string or field that does not
    /// fit, or a string without its NUL): pipe-mode perf stops at such a feature, file-mode
    /// perf can crash on one.
    BadPayload(FeaturePayloadError),
    /// Feature index outside 1..=31 for this call.
    BadIndex(u8),
    /// The feature is not a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID,
    /// CMDLINE).
    NotAString(u8),
    /// This feature is written only in this machine's byte order (perf 6.1 warns when it
    /// reads it from a byte-swapped file).
    ForeignByteOrder(u8),
    /// The caller's EVENT_DESC gives an event the name `sched:sched_switch`, or takes it
    /// from one (perf 6.1 names events by their place in EVENT_DESC), in an output with an
    /// Intel PT AUXTRACE_INFO of sched_switch switches (strict mode): perf would take
    /// another switch event than the descriptions say. Refused by `set_header`, or by the
    /// description added after it that the EVENT_DESC renames.
    EventDescRenamesSwitchEvent,
}

impl fmt::Display for FeatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLargeForPipe(i) => write!(
                f,
                "feature {} is too large for a pipe-mode HEADER_FEATURE record",
                Named(*i)
            ),
            Self::BadPayload(e) => write!(f, "refused: {e}"),
            Self::BadIndex(i) => write!(f, "feature index {i} is outside 1 to 31"),
            Self::NotAString(i) => write!(
                f,
                "feature {} is not a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID, CMDLINE)",
                Named(*i)
            ),
            Self::ForeignByteOrder(i) => write!(
                f,
                "feature {} is written only in this machine's byte order",
                Named(*i)
            ),
            Self::EventDescRenamesSwitchEvent => f.write_str(
                "the EVENT_DESC gives an event the name sched:sched_switch, or takes it from one, in an output with an Intel PT AUXTRACE_INFO of sched_switch switches: perf 6.1 names events by EVENT_DESC and would take another switch event than the descriptions say",
            ),
        }
    }
}

/// A feature index with its name, when perf-abi knows one: `7 (CPUDESC)`.
struct Named(u8);

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match perf_abi::feature::name(self.0) {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}
