//! The shell tools' limits and settings, read from the environment as Claude Code reads
//! them, with the defaults in one place.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `BASH_DEFAULT_TIMEOUT_MS` | timeout when a call gives none | 120,000 |
//! | `BASH_MAX_TIMEOUT_MS` | the longest timeout a call may ask for (never below the default) | 600,000 |
//! | `BASH_MAX_OUTPUT_LENGTH` | characters of output shown before the middle is cut (at most 150,000) | 30,000 |
//! | `CLAUDE_ENV_FILE` | a shell script sourced before every command | none |
//! | `CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR` | `1`/`true`: a `cd` never carries over | off |
//!
//! A value that does not parse (or is zero) is ignored: the default applies.

use std::path::PathBuf;
use std::time::Duration;

use toolgate_core::ToolError;

/// Timeout of a call that gives none, in milliseconds.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest timeout a call may ask for, in milliseconds.
pub(crate) const MAX_TIMEOUT_MS: u64 = 600_000;
/// Characters of output shown before the middle is cut.
pub(crate) const DEFAULT_MAX_OUTPUT_CHARS: usize = 30_000;
/// `BASH_MAX_OUTPUT_LENGTH` is never honoured above this.
pub(crate) const MAX_OUTPUT_CEILING: usize = 150_000;
/// `BASH_MAX_OUTPUT_LENGTH` is never honoured below this (a marker alone needs room).
pub(crate) const MIN_OUTPUT_CHARS: usize = 1_000;

/// The shell tools' settings. [`ShellConfig::default`] is the documented defaults;
/// [`ShellConfig::from_env`] applies the environment on top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellConfig {
    /// Timeout of a call that gives none.
    pub(crate) default_timeout_ms: u64,
    /// The longest timeout a call may ask for (at least `default_timeout_ms`).
    pub(crate) max_timeout_ms: u64,
    /// Characters of output shown before the middle is cut.
    pub(crate) max_output_chars: usize,
    /// A script sourced before every command (absolute).
    pub(crate) env_file: Option<PathBuf>,
    /// When set, a `cd` never carries over to the next call.
    pub(crate) keep_project_dir: bool,
}

impl Default for ShellConfig {
    fn default() -> Self {
        Self {
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_timeout_ms: MAX_TIMEOUT_MS,
            max_output_chars: DEFAULT_MAX_OUTPUT_CHARS,
            env_file: None,
            keep_project_dir: false,
        }
    }
}

/// A timeout settled from a call's input: what to use, and a note when it was clamped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Timeout {
    /// The timeout in milliseconds.
    pub(crate) ms: u64,
    /// Set when the request was above the maximum and was lowered.
    pub(crate) note: Option<String>,
}

impl Timeout {
    /// As a duration.
    pub(crate) fn duration(&self) -> Duration {
        Duration::from_millis(self.ms)
    }
}

impl ShellConfig {
    /// The defaults with the process environment applied.
    pub(crate) fn from_env() -> Self {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    /// The defaults with the variables `get` returns applied.
    pub(crate) fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        let number = |key: &str| get(key).and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0);
        let mut config = Self::default();
        if let Some(ms) = number("BASH_DEFAULT_TIMEOUT_MS") {
            config.default_timeout_ms = ms;
        }
        if let Some(ms) = number("BASH_MAX_TIMEOUT_MS") {
            config.max_timeout_ms = ms;
        }
        config.max_timeout_ms = config.max_timeout_ms.max(config.default_timeout_ms);
        if let Some(chars) = number("BASH_MAX_OUTPUT_LENGTH") {
            let chars = usize::try_from(chars).unwrap_or(MAX_OUTPUT_CEILING);
            config.max_output_chars = chars.clamp(MIN_OUTPUT_CHARS, MAX_OUTPUT_CEILING);
        }
        config.env_file = get("CLAUDE_ENV_FILE").filter(|v| !v.trim().is_empty()).map(|v| {
            let path = PathBuf::from(v);
            if path.is_absolute() { path } else { std::env::current_dir().map(|dir| dir.join(&path)).unwrap_or(path) }
        });
        config.keep_project_dir = get("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR")
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"));
        config
    }

    /// Settles a call's `timeout` (milliseconds): `None` is the default; a value above the
    /// maximum is lowered to it, with a note; a fraction is rounded up.
    ///
    /// # Errors
    ///
    /// [`ToolError`] (invalid input) for a value that is not a positive, finite number.
    pub(crate) fn timeout(&self, field: &str, requested: Option<f64>) -> Result<Timeout, ToolError> {
        settle_ms(field, requested, self.default_timeout_ms, self.max_timeout_ms)
    }
}

/// Settles a millisecond count from an input: `None` is `default`; above `max` is lowered
/// to `max` with a note; fractions are rounded up; zero, negative and non-finite values
/// are invalid.
pub(crate) fn settle_ms(field: &str, requested: Option<f64>, default: u64, max: u64) -> Result<Timeout, ToolError> {
    let Some(requested) = requested else {
        return Ok(Timeout { ms: default, note: None });
    };
    if !requested.is_finite() || requested <= 0.0 {
        return Err(ToolError::invalid_input(format!(
            "{field} must be a positive number of milliseconds, got {requested}"
        ))
        .with_hint(format!("omit {field} for the default of {default} ms, or give at most {max} ms")));
    }
    let ms = requested.ceil();
    if ms > max as f64 {
        return Ok(Timeout {
            ms: max,
            note: Some(format!("{field} {requested} ms is above the maximum of {max} ms; {max} ms was used")),
        });
    }
    // In range: 0 < ms <= max, so the conversion is exact.
    Ok(Timeout { ms: ms as u64, note: None })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(vars: &[(&str, &str)]) -> ShellConfig {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ShellConfig::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_hold_without_variables() {
        assert_eq!(config(&[]), ShellConfig::default());
        let c = ShellConfig::default();
        assert_eq!((c.default_timeout_ms, c.max_timeout_ms, c.max_output_chars), (120_000, 600_000, 30_000));
    }

    #[test]
    fn variables_apply_and_bad_values_are_ignored() {
        let c = config(&[
            ("BASH_DEFAULT_TIMEOUT_MS", "5000"),
            ("BASH_MAX_TIMEOUT_MS", "zero"),
            ("BASH_MAX_OUTPUT_LENGTH", "999999"),
            ("CLAUDE_ENV_FILE", "/etc/toolgate-env.sh"),
            ("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR", "1"),
        ]);
        assert_eq!(c.default_timeout_ms, 5_000);
        assert_eq!(c.max_timeout_ms, 600_000);
        assert_eq!(c.max_output_chars, MAX_OUTPUT_CEILING);
        assert_eq!(c.env_file, Some(PathBuf::from("/etc/toolgate-env.sh")));
        assert!(c.keep_project_dir);
    }

    #[test]
    fn the_maximum_is_never_below_the_default() {
        let c = config(&[("BASH_DEFAULT_TIMEOUT_MS", "900000"), ("BASH_MAX_TIMEOUT_MS", "1000")]);
        assert_eq!((c.default_timeout_ms, c.max_timeout_ms), (900_000, 900_000));
    }

    #[test]
    fn timeouts_are_settled() {
        let c = ShellConfig::default();
        assert_eq!(c.timeout("timeout", None).unwrap(), Timeout { ms: 120_000, note: None });
        assert_eq!(c.timeout("timeout", Some(1500.2)).unwrap().ms, 1501);
        let clamped = c.timeout("timeout", Some(900_000.0)).unwrap();
        assert_eq!(clamped.ms, 600_000);
        assert_eq!(
            clamped.note.as_deref(),
            Some("timeout 900000 ms is above the maximum of 600000 ms; 600000 ms was used")
        );
        for bad in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            let err = c.timeout("timeout", Some(bad)).unwrap_err();
            assert_eq!(err.kind(), toolgate_core::ToolErrorKind::InvalidInput, "{bad}");
        }
    }
}
