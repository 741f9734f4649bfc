//! toolgate-permissions: Claude Code's permission rules for toolgate.
//!
//! This crate decides allow, ask or deny for every call and says why. It reads the rules a
//! Claude Code user already has (`permissions.allow`, `ask`, `deny` in settings files).
//! Its first layer is the rule grammar: `Tool`, `Tool(specifier)` with `\(`, `\)` and
//! `\\` escapes, `Tool()` and `Tool(*)` as the bare tool, and legacy tool names mapped to
//! today's.
//!
//! ```
//! use toolgate_permissions::PermissionRule;
//! let rule: PermissionRule = "Bash(npm run test:*)".parse().unwrap();
//! assert_eq!(rule.tool(), "Bash");
//! assert_eq!(rule.specifier(), Some("npm run test:*"));
//! assert_eq!("Task(Explore)".parse::<PermissionRule>().unwrap().tool(), "Agent");
//! assert_eq!("Edit(*)".parse::<PermissionRule>().unwrap().specifier(), None);
//! ```

mod rule;

pub use rule::{PermissionRule, RuleParseError, canonical_rule_tool};
