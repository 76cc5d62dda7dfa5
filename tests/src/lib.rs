//! Helpers shared by the workspace's integration tests.
