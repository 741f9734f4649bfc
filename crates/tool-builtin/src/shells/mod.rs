//! What the shell tools share: configuration, the shell script around a command, the loop
//! that drives a child and collects its output, head-and-tail excerpts, and the session's
//! registry of background shells.
//!
//! Every child is started by the one process helper ([`toolgate_core::process`]) in a
//! process group of its own; this module adds what a *shell tool* needs on top:
//!
//! - [`config`]: timeouts, the output cap and the env file, read from the environment the
//!   way Claude Code reads them (`BASH_DEFAULT_TIMEOUT_MS`, `BASH_MAX_TIMEOUT_MS`,
//!   `BASH_MAX_OUTPUT_LENGTH`, `CLAUDE_ENV_FILE`,
//!   `CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR`);
//! - [`script`]: the shell to use (bash, else sh; pwsh for PowerShell) and the one-line
//!   wrapper script that merges stderr into stdout, sources the env file, `eval`s the
//!   command and records the shell's final directory;
//! - [`drive`]: runs a spawned child to its end (exit, timeout or cancellation), feeding
//!   its merged output to a sink and stopping its whole group when needed;
//! - [`excerpt`]: keeps the first and last part of output too long for the model, with a
//!   marker saying what was cut and where the whole of it is;
//! - [`foreground`]: one foreground run of Bash or PowerShell, from input to result;
//! - [`exit`]: which exit codes of which commands are not failures;
//! - [`registry`]: background shells, kept in the session's `AppState`;
//! - [`sandbox`]: running a command under bubblewrap as the session's sandbox policy asks.

pub(crate) mod config;
pub(crate) mod drive;
pub(crate) mod excerpt;
pub(crate) mod exit;
pub(crate) mod foreground;
pub(crate) mod registry;
pub(crate) mod sandbox;
pub(crate) mod script;

use std::path::PathBuf;

use toolgate_core::ToolContext;

/// The folder background output goes to: `tasks/` beside the session's `tool-results/`
/// folder; `toolgate-tasks/` in the temporary folder when the result store has no parent
/// or lives directly in the temporary folder (as `ToolContext::new`'s does).
pub(crate) fn tasks_dir(ctx: &ToolContext) -> PathBuf {
    let temp = std::env::temp_dir();
    match ctx.results.dir().parent() {
        Some(parent) if !parent.as_os_str().is_empty() && parent != temp => parent.join("tasks"),
        _ => temp.join("toolgate-tasks"),
    }
}

/// `n` with thousands separators: `1,234,567`.
pub(crate) fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A duration in milliseconds as people read it: `250ms`, `2s`, `1.5s`.
pub(crate) fn format_ms(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1_000) {
        format!("{}s", ms / 1_000)
    } else {
        let tenths = ms.div_ceil(100);
        if tenths.is_multiple_of(10) {
            format!("{}s", tenths / 10)
        } else {
            format!("{}.{}s", tenths / 10, tenths % 10)
        }
    }
}

/// `text` cut to at most `max` chars, with `…` when cut; newlines shown as `⏎`.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.trim().chars().map(|c| if c == '\n' { '⏎' } else { c }).collect();
    if flat.chars().count() <= max {
        flat
    } else {
        let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1_000), "1,000");
        assert_eq!(group_digits(588_895), "588,895");
        assert_eq!(group_digits(12_345_678), "12,345,678");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_ms(250), "250ms");
        assert_eq!(format_ms(1_000), "1s");
        assert_eq!(format_ms(120_000), "120s");
        assert_eq!(format_ms(1_500), "1.5s");
        assert_eq!(format_ms(1_999), "2s");
    }

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("  ls\ncat x ", 20), "ls⏎cat x");
        assert_eq!(one_line("abcdef", 4), "abc…");
    }

    #[test]
    fn tasks_sit_beside_tool_results() {
        let mut ctx = ToolContext::new("/");
        ctx.results = std::sync::Arc::new(toolgate_core::ResultStore::new("/s/1/tool-results"));
        assert_eq!(tasks_dir(&ctx), PathBuf::from("/s/1/tasks"));
        ctx.results = std::sync::Arc::new(toolgate_core::ResultStore::new("tool-results"));
        assert_eq!(tasks_dir(&ctx), std::env::temp_dir().join("toolgate-tasks"));
        assert_eq!(tasks_dir(&ToolContext::new("/")), std::env::temp_dir().join("toolgate-tasks"));
    }
}
