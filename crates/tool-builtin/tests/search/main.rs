//! Integration tests for the search tools (Glob, Grep, LS) on real trees in temp dirs,
//! called the way the pipeline calls them, and compared with `rg` and `fdfind` when they
//! are installed (CI installs both; without them the comparisons are skipped, not the
//! tests).
//!
//! - `support`: tree builders, the project fixture, calling tools, running rg/fd;
//! - `grep`, `glob`, `ls`: one module per tool;
//! - `permissions`: the tools under the real permission engine;
//! - `texts`: snapshots of the descriptions and schemas the model reads.

// Test helpers outside `#[test]` functions may unwrap too: a panic there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod glob;
mod grep;
mod ls;
mod permissions;
mod support;
mod texts;
