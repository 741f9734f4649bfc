//! toolgate's integration tests: one binary, one module per area.
//!
//! - `tidy`: repository-wide source checks (module docs, the one process helper, no
//!   `todo!`), run as ordinary tests so that `cargo xtask ci` enforces them.

mod tidy;
