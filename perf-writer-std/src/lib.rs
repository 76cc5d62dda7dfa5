//! Placeholder; filled by the std-writer issue.
