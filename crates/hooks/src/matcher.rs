//! Hook matchers: `""`/`*`/omitted match everything; names joined by `|` or `,` match
//! exactly (legacy names normalised); anything else is an unanchored regex.

use regex::Regex;
use toolgate_core::canonical_tool_name;

/// Which tool names a matcher group applies to.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Every name.
    All,
    /// Exactly these (canonical) names.
    Names(Vec<String>),
    /// An unanchored regular expression, also tried against the canonical form of the name.
    Regex(Regex),
    /// A matcher that could not be compiled: it matches nothing.
    Invalid(String),
}

impl Matcher {
    /// Parses a matcher, returning a diagnostic for one that matches nothing because it is
    /// not a valid regular expression.
    pub fn parse(raw: &str) -> (Self, Option<String>) {
        let text = raw.trim();
        if text.is_empty() || text == "*" {
            return (Self::All, None);
        }
        let is_name_list = text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '|' | ',' | ' ' | '-'));
        if is_name_list {
            let names = text
                .split(['|', ','])
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(|n| canonical_tool_name(n).to_owned())
                .collect();
            return (Self::Names(names), None);
        }
        match Regex::new(text) {
            Ok(re) => (Self::Regex(re), None),
            Err(e) => {
                let diagnostic =
                    format!("hook matcher '{text}' is not a valid regular expression and matches nothing: {e}");
                (Self::Invalid(text.to_owned()), Some(diagnostic))
            }
        }
    }

    /// Whether the matcher applies to `tool_name`.
    pub fn matches(&self, tool_name: &str) -> bool {
        let canonical = canonical_tool_name(tool_name);
        match self {
            Self::All => true,
            Self::Names(names) => names.iter().any(|n| n == canonical),
            Self::Regex(re) => re.is_match(tool_name) || re.is_match(canonical),
            Self::Invalid(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Matcher {
        Matcher::parse(s).0
    }

    #[test]
    fn matcher_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("", "Bash", true),
            ("*", "mcp__x__y", true),
            ("Bash", "Bash", true),
            ("Bash", "bash", false),
            ("Bash", "BashOutput", false),
            ("Edit|Write", "Write", true),
            ("Edit, Write", "Write", true),
            ("Edit|Write", "MultiEdit", false),
            ("Task", "Agent", true),
            ("Agent", "Task", true),
            ("KillShell", "TaskStop", true),
            ("Edit.*", "NotebookEdit", true),
            ("^Edit$", "NotebookEdit", false),
            ("mcp__memory__.*", "mcp__memory__create", true),
            ("mcp__memory", "mcp__memory__create", false),
            ("Bash(git *)", "Bash", false),
        ];
        for (matcher, name, want) in cases {
            assert_eq!(m(matcher).matches(name), *want, "{matcher:?} vs {name}");
        }
    }

    #[test]
    fn invalid_regex_matches_nothing_and_says_so() {
        let (matcher, diagnostic) = Matcher::parse("Edit(");
        assert!(!matcher.matches("Edit"));
        assert!(diagnostic.unwrap().contains("'Edit('"));
    }
}
