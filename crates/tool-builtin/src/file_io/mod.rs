//! What the file tools (Read, Write, Edit, MultiEdit, NotebookEdit, ApplyPatch) share.
//!
//! - [`paths`]: the model's path made absolute against the cwd (and remembered as
//!   relative, so the result can say it was resolved), and the closest existing paths
//!   when one is missing;
//! - [`fresh`]: the read-before-write and stale-file checks, as errors the model can act
//!   on;
//! - [`atomic`]: writes that land whole or not at all (a temp file in the same
//!   directory, fsync, rename), keeping the file's permission bits, and the
//!   all-or-nothing commit of several files that ApplyPatch needs;
//! - [`text`]: `cat -n` numbering, line endings, pasted line-number prefixes, quote
//!   folding, snippets of edited regions and diff statistics;
//! - [`replace`]: the exact-match replacement Edit and MultiEdit share, and [`edits`]: the
//!   all-or-nothing edit of one file built on it;
//! - [`notebook`]: Jupyter cell names and sources, for Read and NotebookEdit.

pub(crate) mod atomic;
pub(crate) mod edits;
pub(crate) mod fresh;
pub(crate) mod notebook;
pub(crate) mod paths;
pub(crate) mod replace;
pub(crate) mod text;

use toolgate_core::ToolError;

/// The largest file the editing tools load: 1 GiB, as Claude Code's Edit.
pub(crate) const MAX_EDIT_BYTES: u64 = 1024 * 1024 * 1024;

/// Runs blocking file work off the async runtime's worker threads.
///
/// A panic inside `f` becomes an [`toolgate_core::ToolErrorKind::Internal`] error, like a
/// panic anywhere else in a tool.
pub(crate) async fn blocking<T, F>(f: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result,
        Err(err) if err.is_panic() => Err(ToolError::internal("the file operation panicked")
            .with_hint("This is a bug in toolgate, not a problem with your input; try a different approach.")),
        Err(_) => Err(ToolError::cancelled("the file operation was cancelled before it finished")),
    }
}

/// Human-readable byte count: `512 B`, `12.3 KB`, `4.0 MB`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    // Precision loss is irrelevant for a one-decimal display.
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if b < KB {
        format!("{bytes} B")
    } else if b < KB * KB {
        format!("{:.1} KB", b / KB)
    } else if b < KB * KB * KB {
        format!("{:.1} MB", b / (KB * KB))
    } else {
        format!("{:.1} GB", b / (KB * KB * KB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_scales() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(2048), "2.0 KB");
        assert_eq!(human_bytes(5 * 1024 * 1024), "5.0 MB");
        assert_eq!(human_bytes(3 * 1024 * 1024 * 1024), "3.0 GB");
    }
}
