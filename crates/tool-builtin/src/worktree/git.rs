//! Running git for the worktree tools, through the one process helper.

use std::path::{Path, PathBuf};
use std::time::Duration;

use toolgate_core::process::ProcessSpec;
use toolgate_core::{CancellationToken, ToolError};

/// How long one git command may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `git args…` in `cwd`; stdout (trimmed) on success, git's own message otherwise.
pub(super) async fn git(cwd: &Path, args: &[&str], cancel: &CancellationToken) -> Result<String, GitFailure> {
    let outcome = ProcessSpec::exec("git", args.iter().copied())
        .cwd(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .timeout(GIT_TIMEOUT)
        .run(cancel)
        .await
        .map_err(|e| GitFailure::Spawn(e.to_string()))?;
    if outcome.status.success() {
        Ok(outcome.stdout.text().trim_end().to_owned())
    } else {
        let stderr = outcome.stderr.text().trim().to_owned();
        let stdout = outcome.stdout.text().trim().to_owned();
        Err(GitFailure::Failed {
            command: format!("git {}", args.join(" ")),
            status: outcome.status.to_string(),
            message: if stderr.is_empty() { stdout } else { stderr },
        })
    }
}

/// Why a git command did not succeed.
#[derive(Debug, Clone)]
pub(super) enum GitFailure {
    /// git could not be started.
    Spawn(String),
    /// It ran and failed.
    Failed {
        /// The command line.
        command: String,
        /// How it ended.
        status: String,
        /// What it said.
        message: String,
    },
}

impl GitFailure {
    /// The failure as a tool error with `hint`.
    pub(super) fn into_error(self, hint: &str) -> ToolError {
        match self {
            Self::Spawn(e) => ToolError::io(format!("git could not be run: {e}"))
                .with_hint("the worktree tools need git on PATH; ask the user to install it"),
            Self::Failed { command, status, message } => {
                ToolError::io(format!("`{command}` failed ({status}): {message}")).with_hint(hint.to_owned())
            }
        }
    }
}

/// The top of the working tree holding `cwd`, or an error saying it is not a repository.
pub(super) async fn toplevel(cwd: &Path, cancel: &CancellationToken) -> Result<PathBuf, ToolError> {
    match git(cwd, &["rev-parse", "--show-toplevel"], cancel).await {
        Ok(top) if !top.is_empty() => Ok(PathBuf::from(top)),
        Ok(_) | Err(GitFailure::Failed { .. }) => Err(ToolError::invalid_input(format!(
            "{} is not inside a git repository, so there is nothing to make a worktree of",
            cwd.display()
        ))
        .with_hint("worktrees need a git repository: work in the current directory, or ask the user to run `git init` and commit")),
        Err(e) => Err(e.into_error("")),
    }
}

/// The worktrees of the repository at `repo` (`git worktree list --porcelain`): path and
/// branch (`None` when detached), the main worktree first.
pub(super) async fn worktrees(
    repo: &Path,
    cancel: &CancellationToken,
) -> Result<Vec<(PathBuf, Option<String>)>, ToolError> {
    let text = git(repo, &["worktree", "list", "--porcelain"], cancel)
        .await
        .map_err(|e| e.into_error("check the repository with `git worktree list`"))?;
    let mut out: Vec<(PathBuf, Option<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            out.push((PathBuf::from(path), None));
        } else if let Some(branch) = line.strip_prefix("branch ")
            && let Some(last) = out.last_mut()
        {
            last.1 = Some(branch.strip_prefix("refs/heads/").unwrap_or(branch).to_owned());
        }
    }
    Ok(out)
}
