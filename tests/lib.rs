//! Workspace integration tests for toolgate, and the tidy checks.
//!
//! This library is empty on purpose: the tests live in the one integration test binary,
//! `integration/main.rs`, with one module per area (`tidy` checks the repository's own
//! source). Flows that cross crates (tools, rules, hooks and a batch of calls in; a trace
//! and results out) belong there too.
