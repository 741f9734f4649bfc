//! The permission rule grammar: `Tool` or `Tool(specifier)`.

use std::fmt;
use std::str::FromStr;

/// The tool a rule names, with legacy names mapped to today's: `Task` → `Agent`,
/// `KillShell` → `TaskStop`, `BashOutput` → `TaskOutput`, and the file-writing tools
/// whose path rules are `Edit` rules (`MultiEdit` → `Edit`).
///
/// ```
/// use toolgate_permissions::canonical_rule_tool;
/// assert_eq!(canonical_rule_tool("MultiEdit"), "Edit");
/// assert_eq!(canonical_rule_tool("Task"), "Agent");
/// assert_eq!(canonical_rule_tool("Bash"), "Bash");
/// ```
pub fn canonical_rule_tool(name: &str) -> &str {
    match name {
        "MultiEdit" => "Edit",
        other => toolgate_core::canonical_tool_name(other),
    }
}

/// A parsed rule: a tool name and an optional specifier.
///
/// Parsing finds the first unescaped `(`; the rule must then end with an unescaped `)`.
/// Inside the specifier `\(`, `\)` and `\\` are escapes. `Tool()` and `Tool(*)` mean the
/// bare tool. Serialising gives back a rule that parses to the same value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PermissionRule {
    tool: String,
    specifier: Option<String>,
}

/// Why a rule string is not a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleParseError {
    /// The rule is empty or only whitespace.
    #[error("empty rule")]
    Empty,
    /// Nothing before the `(`.
    #[error("rule '{0}' has no tool name before '('")]
    MissingToolName(String),
    /// A `(` without a closing `)` at the very end.
    #[error("rule '{0}' opens '(' but does not end with ')'; escape a literal parenthesis as \\( or \\)")]
    Unclosed(String),
    /// A `)` without an opening `(`, or text after the closing `)`.
    #[error("rule '{0}' has an unbalanced ')'; escape a literal parenthesis as \\)")]
    Unbalanced(String),
    /// A tool name with characters no tool name has.
    #[error("rule '{rule}' has an invalid tool name '{tool}' (tool names use letters, digits, '_', '-' and '*')")]
    BadToolName {
        /// The whole rule.
        rule: String,
        /// The tool part.
        tool: String,
    },
}

impl PermissionRule {
    /// A rule for the whole tool.
    pub fn bare(tool: &str) -> Self {
        Self { tool: canonical_rule_tool(tool).to_owned(), specifier: None }
    }

    /// A rule with a specifier (`*` or empty make it bare).
    pub fn with_specifier(tool: &str, specifier: &str) -> Self {
        let specifier = (!specifier.is_empty() && specifier != "*").then(|| specifier.to_owned());
        Self { tool: canonical_rule_tool(tool).to_owned(), specifier }
    }

    /// The (canonical) tool name, possibly a glob such as `mcp__github__*`.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The unescaped specifier; `None` for a bare rule.
    pub fn specifier(&self) -> Option<&str> {
        self.specifier.as_deref()
    }

    /// Whether the rule covers the whole tool.
    pub fn is_bare(&self) -> bool {
        self.specifier.is_none()
    }
}

fn valid_tool_name(name: &str) -> bool {
    name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.'))
}

impl FromStr for PermissionRule {
    type Err = RuleParseError;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let rule = raw.trim();
        if rule.is_empty() {
            return Err(RuleParseError::Empty);
        }
        let bytes = rule.as_bytes();
        let mut open = None;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 1,
                b'(' => {
                    open = Some(i);
                    break;
                }
                b')' => return Err(RuleParseError::Unbalanced(rule.to_owned())),
                _ => {}
            }
            i += 1;
        }
        let Some(open) = open else {
            if !valid_tool_name(rule) {
                return Err(RuleParseError::BadToolName { rule: rule.to_owned(), tool: rule.to_owned() });
            }
            return Ok(Self::bare(rule));
        };
        let tool = &rule[..open];
        if tool.is_empty() {
            return Err(RuleParseError::MissingToolName(rule.to_owned()));
        }
        if !valid_tool_name(tool) {
            return Err(RuleParseError::BadToolName { rule: rule.to_owned(), tool: tool.to_owned() });
        }
        // Unescape the specifier; the only unescaped ')' allowed is the last character.
        let inner = &rule[open + 1..];
        let mut specifier = String::with_capacity(inner.len());
        let mut chars = inner.char_indices().peekable();
        let mut closed = false;
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => match chars.peek() {
                    Some((_, next @ ('(' | ')' | '\\'))) => {
                        specifier.push(*next);
                        chars.next();
                    }
                    _ => specifier.push('\\'),
                },
                ')' if at + 1 == inner.len() => closed = true,
                ')' => return Err(RuleParseError::Unbalanced(rule.to_owned())),
                '(' => specifier.push('('),
                other => specifier.push(other),
            }
        }
        if !closed {
            return Err(RuleParseError::Unclosed(rule.to_owned()));
        }
        Ok(Self::with_specifier(tool, &specifier))
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tool)?;
        if let Some(spec) = &self.specifier {
            f.write_str("(")?;
            for c in spec.chars() {
                if matches!(c, '(' | ')' | '\\') {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<(String, Option<String>), RuleParseError> {
        s.parse::<PermissionRule>().map(|r| (r.tool().to_owned(), r.specifier().map(str::to_owned)))
    }

    #[test]
    fn grammar_table() {
        let ok: &[(&str, &str, Option<&str>)] = &[
            ("Bash", "Bash", None),
            ("Bash()", "Bash", None),
            ("Bash(*)", "Bash", None),
            ("  Read  ", "Read", None),
            ("Bash(npm run test:*)", "Bash", Some("npm run test:*")),
            ("Bash(echo \\(hi\\))", "Bash", Some("echo (hi)")),
            ("Bash(printf a\\\\b)", "Bash", Some("printf a\\b")),
            ("Bash(echo (x)", "Bash", Some("echo (x")),
            ("Read(~/secrets/**)", "Read", Some("~/secrets/**")),
            ("WebFetch(domain:*.example.com)", "WebFetch", Some("domain:*.example.com")),
            ("mcp__github__*", "mcp__github__*", None),
            ("mcp__github", "mcp__github", None),
            ("Task(Explore)", "Agent", Some("Explore")),
            ("KillShell", "TaskStop", None),
            ("MultiEdit(src/**)", "Edit", Some("src/**")),
            ("Agent(model:opus)", "Agent", Some("model:opus")),
            ("Skill(deploy *)", "Skill", Some("deploy *")),
            ("*", "*", None),
            ("Bash(a\\b)", "Bash", Some("a\\b")),
        ];
        for (rule, tool, spec) in ok {
            assert_eq!(parse(rule), Ok(((*tool).to_owned(), spec.map(str::to_owned))), "{rule}");
        }
    }

    #[test]
    fn malformed_rules_are_errors_naming_the_rule() {
        assert_eq!(parse(""), Err(RuleParseError::Empty));
        assert!(matches!(parse("(x)"), Err(RuleParseError::MissingToolName(_))));
        assert!(matches!(parse("Bash(ls"), Err(RuleParseError::Unclosed(_))));
        assert!(matches!(parse("Bash(ls) extra"), Err(RuleParseError::Unbalanced(_))));
        assert!(matches!(parse("Bash(a)b)"), Err(RuleParseError::Unbalanced(_))));
        assert!(matches!(parse("Bash)"), Err(RuleParseError::Unbalanced(_))));
        assert!(matches!(parse("Ba sh"), Err(RuleParseError::BadToolName { .. })));
        let msg = parse("Bash(ls").unwrap_err().to_string();
        assert!(msg.contains("'Bash(ls'"), "{msg}");
    }

    #[test]
    fn display_round_trips() {
        for rule in ["Bash(echo \\(hi\\))", "Read(./x)", "Bash(a\\\\b)", "WebFetch", "Bash(echo (x)"] {
            let parsed: PermissionRule = rule.parse().unwrap();
            let again: PermissionRule = parsed.to_string().parse().unwrap();
            assert_eq!(parsed, again, "{rule} -> {parsed}");
        }
    }
}
