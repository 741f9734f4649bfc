//! Specifier patterns for commands (Bash, Skill, Agent): legacy `prefix:*`, `*` wildcards
//! (with an optional trailing ` *`), and exact strings.

/// A compiled command pattern.
///
/// ```
/// use toolgate_permissions::CommandPattern;
/// let p = CommandPattern::parse("npm run test:*").unwrap();
/// assert!(p.matches("npm run test") && p.matches("npm run test --watch"));
/// assert!(!p.matches("npm run testx"));
/// let w = CommandPattern::parse("git *").unwrap();
/// assert!(w.matches("git") && w.matches("git push origin main"));
/// assert!(!w.matches("gitk"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPattern {
    /// `prefix:*`: the prefix alone, or the prefix, whitespace, anything.
    Prefix(String),
    /// A pattern with `*` wildcards matching any characters, newlines included.
    Wildcard {
        /// The literal pieces between wildcards.
        pieces: Vec<String>,
        /// `git *` also matches `git`: the single trailing ` *` is optional.
        optional_tail: bool,
    },
    /// The whole command, exactly.
    Exact(String),
}

impl CommandPattern {
    /// Compiles a specifier.
    ///
    /// # Errors
    /// `:*` with nothing before it.
    pub fn parse(spec: &str) -> Result<Self, String> {
        if let Some(prefix) = spec.strip_suffix(":*") {
            if prefix.trim().is_empty() {
                return Err(format!("'{spec}' has an empty prefix before ':*'"));
            }
            return Ok(Self::Prefix(prefix.to_owned()));
        }
        let mut pieces = vec![String::new()];
        let mut chars = spec.chars().peekable();
        let mut stars = 0;
        while let Some(c) = chars.next() {
            match c {
                '\\' if matches!(chars.peek(), Some('*' | '\\')) => {
                    if let (Some(next), Some(last)) = (chars.next(), pieces.last_mut()) {
                        last.push(next);
                    }
                }
                '*' => {
                    stars += 1;
                    pieces.push(String::new());
                }
                other => {
                    if let Some(last) = pieces.last_mut() {
                        last.push(other);
                    }
                }
            }
        }
        if stars == 0 {
            return Ok(Self::Exact(pieces.concat()));
        }
        let optional_tail = stars == 1 && pieces.len() == 2 && pieces[1].is_empty() && pieces[0].ends_with(' ');
        Ok(Self::Wildcard { pieces, optional_tail })
    }

    /// Whether `command` matches.
    pub fn matches(&self, command: &str) -> bool {
        match self {
            Self::Exact(s) => command == s,
            Self::Prefix(p) => {
                command == p
                    || command.strip_prefix(p.as_str()).is_some_and(|rest| rest.starts_with(char::is_whitespace))
            }
            Self::Wildcard { pieces, optional_tail } => {
                if *optional_tail && command == pieces[0].trim_end() {
                    return true;
                }
                wildcard_match(pieces, command)
            }
        }
    }

    /// Whether a command that starts with `known` and goes on with text only known at run
    /// time may match: `known` is the command's words up to the first that is not static,
    /// joined, then a space and that word's literal start (`git push --fo` for
    /// `git push --fo$X`). The pieces of a wildcard pattern after its first are taken to match.
    ///
    /// ```
    /// use toolgate_permissions::CommandPattern;
    /// let p = CommandPattern::parse("git push --force:*").unwrap();
    /// assert!(p.may_match_after("git push ") && p.may_match_after("git push --fo"));
    /// assert!(!p.may_match_after("git push origin ") && !p.may_match_after("git pull "));
    /// assert!(CommandPattern::parse("rm:*").unwrap().may_match_after(""));
    /// ```
    pub fn may_match_after(&self, known: &str) -> bool {
        match self {
            Self::Exact(s) => s.starts_with(known),
            Self::Prefix(p) => {
                p.starts_with(known)
                    || known
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
            }
            Self::Wildcard { pieces, .. } => pieces[0].starts_with(known) || known.starts_with(pieces[0].as_str()),
        }
    }

    /// Whether the pattern can only match commands starting with its literal first word
    /// (used to suggest rules and to explain matches).
    pub fn literal_prefix(&self) -> &str {
        match self {
            Self::Exact(s) | Self::Prefix(s) => s,
            Self::Wildcard { pieces, .. } => &pieces[0],
        }
    }
}

/// Glob matching where pieces are literals separated by `*` (any run of characters).
fn wildcard_match(pieces: &[String], text: &str) -> bool {
    let (first, rest) = match pieces.split_first() {
        Some(split) => split,
        None => return text.is_empty(),
    };
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else { return false };
    let Some((last, middle)) = rest.split_last() else { return remaining.is_empty() };
    for piece in middle {
        match remaining.find(piece.as_str()) {
            Some(at) => remaining = &remaining[at + piece.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("npm test", "npm test", true),
            ("npm test", "npm test -- --watch", false),
            ("git:*", "git", true),
            ("git:*", "git status", true),
            ("git:*", "gitk", false),
            ("git commit:*", "git commit -m 'x'", true),
            ("git commit:*", "git commit\n-m x", true),
            ("git *", "git", true),
            ("git *", "git log", true),
            ("git *", "gitx", false),
            ("ls*", "lsof", true),
            ("ls*", "ls -la", true),
            ("* --version", "node --version", true),
            ("* --version", "node --help", false),
            ("docker * ps", "docker compose ps", true),
            ("docker * ps", "docker ps", false),
            ("echo \\*", "echo *", true),
            ("echo \\*", "echo x", false),
            ("a\\\\b", "a\\b", true),
            ("rm -rf *", "rm -rf /tmp/x", true),
            ("rm -rf *", "rm -rf", true),
            ("*", "anything at all\nwith newlines", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
        ];
        for (spec, cmd, want) in cases {
            let p = CommandPattern::parse(spec).unwrap();
            assert_eq!(p.matches(cmd), *want, "{spec:?} vs {cmd:?}");
        }
    }

    #[test]
    fn may_match_after_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("git push --force:*", "", true),
            ("git push --force:*", "git ", true),
            ("git push --force:*", "git push ", true),
            ("git push --force:*", "git push --f", true),
            ("git push --force:*", "git push --force ", true),
            ("git push --force:*", "git push --force-with-lease ", false),
            ("git push --force:*", "git push origin ", false),
            ("git push:*", "git push origin ", true),
            ("git push:*", "git pushx ", false),
            ("rm -rf /", "rm -rf ", true),
            ("rm -rf /", "rm -rf build/", false),
            ("rm -rf /", "rm -rf / ", false),
            ("rm -rf *", "rm -rf build/", true),
            ("rm -rf *", "rm ", true),
            ("rm -rf *", "ls ", false),
            ("* --version", "node ", true),
            ("ls*", "lsof ", true),
        ];
        for (spec, known, want) in cases {
            let p = CommandPattern::parse(spec).unwrap();
            assert_eq!(p.may_match_after(known), *want, "{spec:?} after {known:?}");
        }
    }

    #[test]
    fn empty_prefix_is_an_error() {
        assert!(CommandPattern::parse(":*").is_err());
        assert!(CommandPattern::parse("  :*").is_err());
    }
}
