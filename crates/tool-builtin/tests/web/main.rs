//! WebFetch and WebSearch against real HTTP servers the tests start on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fetch;
mod search;
mod support;
