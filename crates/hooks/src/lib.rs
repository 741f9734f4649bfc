//! toolgate-hooks: Claude Code's hooks for toolgate.
//!
//! A user's `hooks` settings map an event to matcher groups, each with handlers to run.
//! This crate reads that configuration and runs the handlers. Its first piece is the
//! [`Matcher`]: which tool names a matcher group applies to.
//!
//! ```
//! use toolgate_hooks::Matcher;
//! let (m, diagnostic) = Matcher::parse("Edit|Write");
//! assert!(diagnostic.is_none());
//! assert!(m.matches("Write") && !m.matches("NotebookEdit"));
//! let (re, _) = Matcher::parse("Edit.*");
//! assert!(re.matches("NotebookEdit")); // unanchored, as in Claude Code
//! ```

mod matcher;

pub use matcher::Matcher;
