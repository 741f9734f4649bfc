//! Deferred tools: which definitions are held back behind ToolSearch, and the
//! announcement that tells the model their names.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// When tool definitions are deferred (`ENABLE_TOOL_SEARCH`).
///
/// ```
/// use toolgate_core::DeferMode;
/// assert_eq!("auto:25".parse::<DeferMode>().unwrap(), DeferMode::Auto { percent: 25 });
/// assert_eq!("auto".parse::<DeferMode>().unwrap(), DeferMode::Auto { percent: 10 });
/// assert_eq!("false".parse::<DeferMode>().unwrap(), DeferMode::Never);
/// assert_eq!(DeferMode::from_env_value(None), DeferMode::Always);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DeferMode {
    /// Deferrable tools are always deferred (Claude Code's default).
    #[default]
    Always,
    /// Nothing is deferred.
    Never,
    /// Deferred only when the deferrable definitions exceed `percent`% of the context
    /// window.
    Auto {
        /// 0–100; 0 behaves as always, 100 as never.
        percent: u8,
    },
}

impl DeferMode {
    /// The default percentage of `auto`.
    pub const DEFAULT_AUTO_PERCENT: u8 = 10;

    /// The mode for an `ENABLE_TOOL_SEARCH` value; unset or unreadable values give the
    /// default, [`DeferMode::Always`].
    pub fn from_env_value(value: Option<&str>) -> Self {
        value.and_then(|v| v.parse().ok()).unwrap_or_default()
    }

    /// The mode from the process environment.
    pub fn from_env() -> Self {
        Self::from_env_value(std::env::var("ENABLE_TOOL_SEARCH").ok().as_deref())
    }

    /// Whether definitions totalling `deferrable_tokens` are deferred in a context window
    /// of `window_tokens`.
    ///
    /// ```
    /// use toolgate_core::DeferMode;
    /// let auto = DeferMode::Auto { percent: 10 };
    /// assert!(!auto.defers(19_999, 200_000));
    /// assert!(auto.defers(20_001, 200_000));
    /// ```
    pub fn defers(self, deferrable_tokens: usize, window_tokens: usize) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto { percent: 0 } => true,
            Self::Auto { percent: 100.. } => false,
            Self::Auto { percent } => deferrable_tokens * 100 > window_tokens * usize::from(percent),
        }
    }
}

/// An `ENABLE_TOOL_SEARCH` value that is not `true`, `false`, `auto` or `auto:N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid ENABLE_TOOL_SEARCH value '{0}' (expected true, false, auto or auto:N with N from 0 to 100)")]
pub struct InvalidDeferMode(String);

impl FromStr for DeferMode {
    type Err = InvalidDeferMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "true" | "1" => Ok(Self::Always),
            "false" | "0" => Ok(Self::Never),
            "auto" => Ok(Self::Auto { percent: Self::DEFAULT_AUTO_PERCENT }),
            _ => t
                .strip_prefix("auto:")
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| *n <= 100)
                .map(|percent| Self::Auto { percent })
                .ok_or_else(|| InvalidDeferMode(s.to_owned())),
        }
    }
}

impl fmt::Display for DeferMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Always => f.write_str("true"),
            Self::Never => f.write_str("false"),
            Self::Auto { percent } => write!(f, "auto:{percent}"),
        }
    }
}

/// Tells the model which deferred tools exist: the full list the first time, then only
/// what was added or removed since the last announcement.
///
/// ```
/// use toolgate_core::DeferredAnnouncer;
/// let mut a = DeferredAnnouncer::default();
/// let first = a.announce(["mcp__gh__issue", "WebFetch"]).unwrap();
/// assert!(first.starts_with("<available-deferred-tools>"));
/// assert!(a.announce(["WebFetch", "mcp__gh__issue"]).is_none()); // nothing changed
/// let delta = a.announce(["WebFetch", "mcp__gh__pr"]).unwrap();
/// assert!(delta.contains("Added: mcp__gh__pr") && delta.contains("Removed: mcp__gh__issue"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct DeferredAnnouncer {
    last: Option<BTreeSet<String>>,
}

impl DeferredAnnouncer {
    /// The announcement for the current deferred names, or `None` when nothing changed.
    pub fn announce<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) -> Option<String> {
        let now: BTreeSet<String> = names.into_iter().map(str::to_owned).collect();
        let text = match &self.last {
            None if now.is_empty() => None,
            None => {
                let mut text = String::from(
                    "<available-deferred-tools>\nThese tools exist but their definitions are not loaded. \
                     Call ToolSearch with \"select:<name>\" or keywords to load one before using it.\n",
                );
                for name in &now {
                    text.push_str(name);
                    text.push('\n');
                }
                text.push_str("</available-deferred-tools>");
                Some(text)
            }
            Some(last) if *last == now => None,
            Some(last) => {
                let added: Vec<&str> = now.difference(last).map(String::as_str).collect();
                let removed: Vec<&str> = last.difference(&now).map(String::as_str).collect();
                let mut text = String::from("<available-deferred-tools-delta>\n");
                if !added.is_empty() {
                    text.push_str(&format!("Added: {}\n", added.join(", ")));
                }
                if !removed.is_empty() {
                    text.push_str(&format!("Removed: {}\n", removed.join(", ")));
                }
                text.push_str("</available-deferred-tools-delta>");
                Some(text)
            }
        };
        self.last = Some(now);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_documented_form() {
        for (s, want) in [
            ("true", Some(DeferMode::Always)),
            ("TRUE", Some(DeferMode::Always)),
            ("false", Some(DeferMode::Never)),
            ("auto", Some(DeferMode::Auto { percent: 10 })),
            ("auto:0", Some(DeferMode::Auto { percent: 0 })),
            ("auto:100", Some(DeferMode::Auto { percent: 100 })),
            ("auto:101", None),
            ("auto:x", None),
            ("sometimes", None),
        ] {
            assert_eq!(s.parse::<DeferMode>().ok(), want, "{s}");
        }
        assert_eq!(DeferMode::from_env_value(Some("bogus")), DeferMode::Always);
    }

    #[test]
    fn auto_extremes() {
        assert!(DeferMode::Auto { percent: 0 }.defers(0, 100));
        assert!(!DeferMode::Auto { percent: 100 }.defers(usize::MAX / 200, 1));
    }

    #[test]
    fn first_announcement_of_nothing_is_silent() {
        let mut a = DeferredAnnouncer::default();
        assert!(a.announce(std::iter::empty()).is_none());
        assert!(a.announce(["X"]).unwrap().contains("Added: X"));
    }
}
