//! The Bash sandbox policy: what the `sandbox` settings ask of the shell tools.
//!
//! The settings loader (`toolgate-permissions`) builds a [`SandboxPolicy`] from the merged
//! `sandbox` settings; the host puts it in the session's [`crate::Extensions`]; the Bash tool
//! reads it from [`crate::ToolContext::extensions`] and, when it is enabled, runs each
//! command under bubblewrap (`bwrap`): the filesystem read-only except the working roots,
//! [`SandboxPolicy::allow_write`] and a private `/tmp`, and no network unless
//! [`SandboxPolicy::network`] is set.

use std::path::PathBuf;

/// The sandbox settings the shell tools follow. The default is disabled.
///
/// ```
/// use toolgate_core::SandboxPolicy;
/// let policy = SandboxPolicy { enabled: true, excluded_commands: vec!["docker".into()], ..SandboxPolicy::default() };
/// assert!(policy.enabled && !policy.network && policy.allow_unsandboxed);
/// assert!(policy.is_excluded(&["docker", "ps"]));
/// assert!(!policy.is_excluded(&["dockerd"]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// `sandbox.enabled`: run shell commands under bubblewrap.
    pub enabled: bool,
    /// `sandbox.filesystem.allowWrite`: writable paths besides the working roots (absolute).
    pub allow_write: Vec<PathBuf>,
    /// Whether commands may use the network: `sandbox.network.allowedDomains` is non-empty.
    /// Coarser than Claude Code, which proxies per domain: any non-empty list shares the
    /// host's network whole.
    pub network: bool,
    /// `sandbox.failIfUnavailable`: when bubblewrap is missing or refused, fail the call
    /// instead of running it unsandboxed.
    pub fail_if_unavailable: bool,
    /// `sandbox.excludedCommands`: commands that run outside the sandbox (each entry a
    /// command prefix such as `docker` or `git push`; a trailing `:*` or ` *` is ignored).
    pub excluded_commands: Vec<String>,
    /// `sandbox.allowUnsandboxedCommands`: whether Bash's `dangerouslyDisableSandbox` input
    /// is honoured.
    pub allow_unsandboxed: bool,
    /// The bubblewrap program, found on `PATH` when the policy was built
    /// ([`SandboxPolicy::find_bwrap`]); `None` when it is not installed.
    pub bwrap: Option<PathBuf>,
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        Self {
            enabled: false,
            allow_write: Vec::new(),
            network: false,
            fail_if_unavailable: false,
            excluded_commands: Vec::new(),
            allow_unsandboxed: true,
            bwrap: None,
        }
    }
}

impl SandboxPolicy {
    /// An enabled policy with the defaults otherwise and `bwrap` looked up on `PATH`.
    pub fn enabled() -> Self {
        Self { enabled: true, bwrap: Self::find_bwrap(), ..Self::default() }
    }

    /// `bwrap` on the process's `PATH`: the first executable regular file of that name.
    pub fn find_bwrap() -> Option<PathBuf> {
        Self::find_bwrap_in(&std::env::var_os("PATH")?)
    }

    /// `bwrap` on the given `PATH` value. Nothing is run.
    pub fn find_bwrap_in(path: &std::ffi::OsStr) -> Option<PathBuf> {
        use std::os::unix::fs::PermissionsExt as _;
        std::env::split_paths(path).filter(|dir| dir.is_absolute()).map(|dir| dir.join("bwrap")).find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
    }

    /// Whether a simple command (its words) is one of [`Self::excluded_commands`]: its
    /// words start with the entry's words.
    pub fn is_excluded(&self, argv: &[&str]) -> bool {
        self.excluded_commands.iter().any(|entry| {
            let entry = entry.trim();
            let entry = entry.strip_suffix(":*").or_else(|| entry.strip_suffix(" *")).unwrap_or(entry);
            let words: Vec<&str> = entry.split_whitespace().collect();
            !words.is_empty() && argv.len() >= words.len() && argv.iter().zip(&words).all(|(a, w)| a == w)
        })
    }
}
