//! EnterWorktree and ExitWorktree: a real `git worktree` under `.claude/worktrees/<name>`
//! on a new branch, with the session's working directory moved in and back.
//!
//! Claude Code's `EnterWorktree` (`name` or `path`) and `ExitWorktree` (`action`
//! keep|remove, `discard_changes`). Entering runs `git worktree add -b worktree-<name>
//! .claude/worktrees/<name> HEAD` in the repository holding the cwd, remembers where the
//! session was ([`ActiveWorktree`] in the session's `AppState`), and returns
//! `ContextChange::Cwd`, which the pipeline applies after the call. Exiting returns the cwd;
//! `remove` runs `git worktree remove` and deletes the branch, and refuses a worktree with
//! uncommitted changes, untracked files or commits of its own unless `discard_changes` is
//! true. git runs through `toolgate_core::process`.
//!
//! Permissions: entering by name (always under `.claude/worktrees/`) and leaving need no
//! approval, as in Claude Code; entering a worktree by a path elsewhere, and removing with
//! `discard_changes: true`, are left to the permission engine.

mod git;
mod prompt;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{
    ContextChange, DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, normalize_path, typed,
};

use git::{git, toplevel, worktrees};

/// The longest worktree name.
const MAX_NAME: usize = 64;
/// Where worktrees go, relative to the repository's top.
const WORKTREES_DIR: &str = ".claude/worktrees";

/// The worktree the session is in, kept in the session's `AppState` so ExitWorktree knows
/// where to go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActiveWorktree {
    /// The cwd before entering.
    pub(crate) return_to: PathBuf,
    /// The worktree's folder.
    pub(crate) path: PathBuf,
    /// Its branch (`None` when detached).
    pub(crate) branch: Option<String>,
    /// The top of the repository it was made from (where `git worktree remove` runs).
    pub(crate) repo: PathBuf,
    /// The commit it started at, when this session created it; `None` when entered by path.
    pub(crate) created_at: Option<String>,
}

/// Whether `name` is a usable worktree name: `/`-separated segments of letters, digits,
/// `.`, `_` and `-`, none empty, none starting with `.` or `-`, none ending in `.lock` or
/// `.`, at most 64 characters in all.
pub(crate) fn check_name(name: &str) -> Result<(), ToolError> {
    let bad = |why: &str| {
        ToolError::invalid_input(format!("`{name}` is not a valid worktree name: {why}"))
            .with_hint("use letters, digits, `.`, `_` and `-` (segments separated by `/`), e.g. \"fix-login\"")
    };
    if name.is_empty() {
        return Err(bad("it is empty"));
    }
    if name.chars().count() > MAX_NAME {
        return Err(bad("it is longer than 64 characters"));
    }
    if name.contains("..") {
        return Err(bad("it contains `..`"));
    }
    for segment in name.split('/') {
        if segment.is_empty() {
            return Err(bad("it has an empty segment (a leading, trailing or doubled `/`)"));
        }
        if let Some(c) = segment.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
            return Err(bad(&format!("it contains {c:?}")));
        }
        if segment.starts_with(['.', '-']) {
            return Err(bad("a segment starts with `.` or `-`"));
        }
        if segment.ends_with('.') || segment.ends_with(".lock") {
            return Err(bad("a segment ends with `.` or `.lock`"));
        }
    }
    Ok(())
}

/// A name for a worktree the model did not name.
fn generated_name() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("wt-{:x}{:04x}", std::process::id() & 0xffff, nanos & 0xffff)
}

fn already_in(active: &ActiveWorktree) -> ToolError {
    ToolError::invalid_input(format!("the session is already in the worktree {}", active.path.display()))
        .with_hint("call ExitWorktree (action \"keep\" or \"remove\") before entering another worktree")
}

/// Whether `path` lies in some repository's `.claude/worktrees/`.
fn under_worktrees_dir(path: &Path) -> bool {
    let parts: Vec<_> = path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.windows(2).any(|w| w[0] == ".claude" && w[1] == "worktrees")
}

/// EnterWorktree's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnterInput {
    /// Optional name for the new worktree: segments of letters, digits, `.`, `_` and `-`
    /// separated by `/`, at most 64 characters. A name is generated when omitted.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// An existing worktree of this repository to enter instead of creating one
    /// (exclusive with name).
    #[serde(default)]
    pub(crate) path: Option<String>,
}

/// The EnterWorktree tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EnterWorktree;

impl EnterWorktree {
    /// The tool.
    pub(crate) fn tool() -> DynTool {
        typed(Self)
    }

    async fn create(&self, name: &str, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let cancel = &ctx.cancel;
        let repo = toplevel(&ctx.cwd, cancel).await?;
        let head = git(&repo, &["rev-parse", "--verify", "HEAD"], cancel).await.map_err(|_| {
            ToolError::invalid_input(format!("the repository at {} has no commits yet", repo.display()))
                .with_hint("a worktree starts from a commit: ask the user to make the first commit")
        })?;
        let path = repo.join(WORKTREES_DIR).join(name);
        if path.exists() {
            return Err(ToolError::invalid_input(format!("{} already exists", path.display()))
                .with_hint("pick another name, or enter the existing worktree with path"));
        }
        let branch = format!("worktree-{name}");
        if git(&repo, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")], cancel).await.is_ok() {
            return Err(ToolError::invalid_input(format!("the branch {branch} already exists"))
                .with_hint("pick another name (the branch is worktree-<name>)"));
        }
        let target = path.to_string_lossy().into_owned();
        git(&repo, &["worktree", "add", "-b", &branch, &target, "HEAD"], cancel)
            .await
            .map_err(|e| e.into_error("pick another name, or check the repository with `git worktree list`"))?;
        let active = ActiveWorktree {
            return_to: ctx.cwd.clone(),
            path: path.clone(),
            branch: Some(branch.clone()),
            repo,
            created_at: Some(head.clone()),
        };
        let mut text = format!(
            "Created a worktree at {} on the new branch {branch} (from {}). The session now works in it: relative \
             paths, commands and searches run there. Call ExitWorktree to go back to {} (keep or remove the worktree).",
            path.display(),
            head.get(..12).unwrap_or(&head),
            ctx.cwd.display()
        );
        // `git check-ignore` exits 1 when the path is not ignored.
        if git(&active.repo, &["check-ignore", "-q", &target], cancel).await.is_err() {
            text.push_str(&format!(
                "\nNote: {WORKTREES_DIR}/ is not git-ignored, so the main checkout lists it as untracked; \
                 suggest adding it to the user's .gitignore."
            ));
        }
        ctx.app_state.set(Some(active));
        Ok(ToolOutput::text(text)
            .with_structured(json!({"worktreePath": path, "worktreeBranch": branch, "created": true}))
            .with_context_change(ContextChange::Cwd(path)))
    }

    async fn enter_existing(&self, raw: &str, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (path, branch, main) = existing(raw, ctx).await?;
        let active = ActiveWorktree {
            return_to: ctx.cwd.clone(),
            path: path.clone(),
            branch: branch.clone(),
            repo: main,
            created_at: None,
        };
        ctx.app_state.set(Some(active));
        let text = format!(
            "Entered the existing worktree {}{}. Call ExitWorktree with action \"keep\" to go back to {}.",
            path.display(),
            branch.as_ref().map(|b| format!(" (branch {b})")).unwrap_or_default(),
            ctx.cwd.display()
        );
        Ok(ToolOutput::text(text)
            .with_structured(json!({"worktreePath": path, "worktreeBranch": branch, "created": false}))
            .with_context_change(ContextChange::Cwd(path.clone())))
    }
}

/// The linked worktree at `raw` (resolved against the cwd) of the repository holding the
/// cwd: its path, branch, and the main working tree's path.
async fn existing(raw: &str, ctx: &ToolContext) -> Result<(PathBuf, Option<String>, PathBuf), ToolError> {
    let cancel = &ctx.cancel;
    let wanted = ctx.resolve_path(raw);
    let repo = toplevel(&ctx.cwd, cancel).await?;
    let list = worktrees(&repo, cancel).await?;
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| normalize_path(p));
    let wanted_canon = canon(&wanted);
    let Some(index) = list.iter().position(|(p, _)| canon(p) == wanted_canon) else {
        let known: Vec<String> = list.iter().skip(1).map(|(p, _)| p.display().to_string()).collect();
        return Err(ToolError::not_found(format!(
            "{} is not a worktree of the repository at {}",
            wanted.display(),
            repo.display()
        ))
        .with_hint(if known.is_empty() {
            "this repository has no other worktrees; create one with name instead".to_owned()
        } else {
            format!("its worktrees: {}", known.join(", "))
        }));
    };
    if index == 0 {
        return Err(ToolError::invalid_input(format!(
            "{} is the repository's main working tree, not a worktree",
            list[0].0.display()
        ))
        .with_hint("give the path of a linked worktree, or create one with name"));
    }
    let (path, branch) = list[index].clone();
    Ok((path, branch, list[0].0.clone()))
}

impl TypedTool for EnterWorktree {
    type Input = EnterInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "EnterWorktree"
    }

    fn description(&self) -> String {
        prompt::enter()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("create an isolated git worktree and switch into it")
    }

    fn should_defer(&self) -> bool {
        true
    }

    async fn validate(&self, input: &EnterInput, ctx: &ToolContext) -> Result<(), ToolError> {
        match (&input.name, &input.path) {
            (Some(_), Some(_)) => {
                return Err(ToolError::invalid_input("give name or path, not both")
                    .with_hint("name creates a new worktree; path enters an existing one"));
            }
            (Some(name), None) => check_name(name)?,
            (None, Some(path)) if path.trim().is_empty() => {
                return Err(ToolError::invalid_input("path is empty")
                    .with_hint("give the folder of an existing worktree, or use name to create one"));
            }
            _ => {}
        }
        if let Some(Some(active)) = ctx.app_state.get::<Option<ActiveWorktree>>() {
            return Err(already_in(&active));
        }
        // Checked before permission, so a call that cannot work never raises a prompt.
        match &input.path {
            Some(path) => existing(path, ctx).await.map(|_| ()),
            None => toplevel(&ctx.cwd, &ctx.cancel).await.map(|_| ()),
        }
    }

    fn check_permissions(&self, input: &EnterInput, ctx: &ToolContext) -> PermissionCheck {
        match &input.path {
            Some(path) if !under_worktrees_dir(&ctx.resolve_path(path)) => PermissionCheck::Passthrough,
            _ => PermissionCheck::Allow { detail: "worktrees under .claude/worktrees/ need no approval".to_owned() },
        }
    }

    fn permission_target(&self, input: &EnterInput) -> Option<String> {
        input.path.clone().or_else(|| input.name.clone())
    }

    async fn call(&self, input: EnterInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if let Some(Some(active)) = ctx.app_state.get::<Option<ActiveWorktree>>() {
            return Err(already_in(&active));
        }
        match (&input.name, &input.path) {
            (_, Some(path)) => self.enter_existing(path, ctx).await,
            (Some(name), None) => {
                check_name(name)?;
                self.create(name, ctx).await
            }
            (None, None) => self.create(&generated_name(), ctx).await,
        }
    }

    fn render_use(&self, input: &EnterInput) -> String {
        match (&input.name, &input.path) {
            (_, Some(path)) => format!("EnterWorktree({path})"),
            (Some(name), None) => format!("EnterWorktree({name})"),
            (None, None) => "EnterWorktree()".to_owned(),
        }
    }
}

/// What ExitWorktree does with the worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ExitAction {
    /// Leave it on disk.
    Keep,
    /// Delete it and its branch.
    Remove,
}

/// ExitWorktree's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExitInput {
    /// "keep" leaves the worktree and its branch on disk; "remove" deletes both.
    pub(crate) action: ExitAction,
    /// Must be true to remove a worktree with uncommitted changes, untracked files or
    /// commits of its own; that work is lost.
    #[serde(default)]
    pub(crate) discard_changes: Option<bool>,
}

impl ExitInput {
    fn discard(&self) -> bool {
        self.discard_changes == Some(true)
    }
}

/// The ExitWorktree tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExitWorktree;

impl ExitWorktree {
    /// The tool.
    pub(crate) fn tool() -> DynTool {
        typed(Self)
    }
}

fn not_entered() -> ToolError {
    ToolError::invalid_input("the session is not in a worktree entered with EnterWorktree")
        .with_hint("there is nothing to exit; use EnterWorktree first, or just keep working in the current directory")
}

/// What would be lost by removing the worktree: a sentence per kind, empty when nothing.
async fn unsaved_work(active: &ActiveWorktree, ctx: &ToolContext) -> Result<Vec<String>, ToolError> {
    let cancel = &ctx.cancel;
    let status = git(&active.path, &["status", "--porcelain", "--untracked-files=all"], cancel)
        .await
        .map_err(|e| e.into_error("keep the worktree (action \"keep\") and ask the user to inspect it"))?;
    let mut lost = Vec::new();
    let files: Vec<&str> = status.lines().filter(|l| !l.trim().is_empty()).collect();
    if !files.is_empty() {
        let shown: Vec<&str> = files.iter().take(5).map(|l| l.get(3..).unwrap_or(l)).collect();
        lost.push(format!(
            "{} uncommitted or untracked file{} ({}{})",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if files.len() > 5 { ", …" } else { "" }
        ));
    }
    if let Some(base) = &active.created_at {
        let count = git(&active.path, &["rev-list", "--count", &format!("{base}..HEAD")], cancel)
            .await
            .map_err(|e| e.into_error("keep the worktree (action \"keep\") and ask the user to inspect it"))?;
        let n: usize = count.trim().parse().unwrap_or(0);
        if n > 0 {
            lost.push(format!("{n} commit{} not on any other branch", if n == 1 { "" } else { "s" }));
        }
    }
    Ok(lost)
}

impl TypedTool for ExitWorktree {
    type Input = ExitInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "ExitWorktree"
    }

    fn description(&self) -> String {
        prompt::exit()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("leave the git worktree, keep or remove it")
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn is_destructive(&self, input: &ExitInput) -> bool {
        input.action == ExitAction::Remove
    }

    async fn validate(&self, input: &ExitInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let Some(Some(active)) = ctx.app_state.get::<Option<ActiveWorktree>>() else {
            return Err(not_entered());
        };
        if input.action == ExitAction::Remove && active.created_at.is_none() {
            return Err(ToolError::invalid_input(format!(
                "{} was entered by path, not created in this session, so it is not removed here",
                active.path.display()
            ))
            .with_hint("call ExitWorktree with action \"keep\"; the user can remove it with `git worktree remove`"));
        }
        Ok(())
    }

    fn check_permissions(&self, input: &ExitInput, _ctx: &ToolContext) -> PermissionCheck {
        if input.action == ExitAction::Remove && input.discard() {
            PermissionCheck::Passthrough
        } else {
            PermissionCheck::Allow { detail: "leaving a worktree loses no work".to_owned() }
        }
    }

    async fn call(&self, input: ExitInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(Some(active)) = ctx.app_state.get::<Option<ActiveWorktree>>() else {
            return Err(not_entered());
        };
        let back = ContextChange::Cwd(active.return_to.clone());
        let branch = active.branch.clone().unwrap_or_default();
        if input.action == ExitAction::Keep {
            ctx.app_state.set(None::<ActiveWorktree>);
            let text = format!(
                "Left the worktree {} and kept it{}. The session is back in {}.",
                active.path.display(),
                if branch.is_empty() { String::new() } else { format!(" with its branch {branch}") },
                active.return_to.display()
            );
            return Ok(ToolOutput::text(text)
                .with_structured(json!({"action": "keep", "worktreePath": active.path, "worktreeBranch": active.branch, "returnedTo": active.return_to}))
                .with_context_change(back));
        }
        if active.created_at.is_none() {
            return Err(ToolError::invalid_input("a worktree entered by path is not removed here")
                .with_hint("call ExitWorktree with action \"keep\""));
        }
        let lost = unsaved_work(&active, ctx).await?;
        if !lost.is_empty() && !input.discard() {
            return Err(ToolError::invalid_input(format!(
                "the worktree {} has work that removing it would lose: {}",
                active.path.display(),
                lost.join("; ")
            ))
            .with_hint("commit or merge what should survive and call again, use action \"keep\", or set discard_changes: true if the user agreed to lose it"));
        }
        let cancel = &ctx.cancel;
        let target = active.path.to_string_lossy().into_owned();
        let mut args = vec!["worktree", "remove"];
        if !lost.is_empty() {
            args.push("--force");
        }
        args.push(&target);
        git(&active.repo, &args, cancel)
            .await
            .map_err(|e| e.into_error("use action \"keep\" and ask the user to remove the worktree"))?;
        let mut text = format!("Removed the worktree {}", active.path.display());
        if !branch.is_empty() {
            match git(&active.repo, &["branch", "-D", &branch], cancel).await {
                Ok(_) => text.push_str(&format!(" and its branch {branch}")),
                Err(e) => text
                    .push_str(&format!(" (its branch {branch} could not be deleted: {})", e.into_error("").message())),
            }
        }
        if !lost.is_empty() {
            text.push_str(&format!(", discarding {}", lost.join(" and ")));
        }
        text.push_str(&format!(". The session is back in {}.", active.return_to.display()));
        ctx.app_state.set(None::<ActiveWorktree>);
        Ok(ToolOutput::text(text)
            .with_structured(json!({"action": "remove", "worktreePath": active.path, "worktreeBranch": active.branch, "discarded": lost, "returnedTo": active.return_to}))
            .with_context_change(back))
    }

    fn render_use(&self, input: &ExitInput) -> String {
        match input.action {
            ExitAction::Keep => "ExitWorktree(keep)".to_owned(),
            ExitAction::Remove if input.discard() => "ExitWorktree(remove, discard changes)".to_owned(),
            ExitAction::Remove => "ExitWorktree(remove)".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_validated() {
        for good in ["fix-login", "a/b", "v1.2_x", &"x".repeat(64)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "..",
            "a/../b",
            "../x",
            "/abs",
            "a//b",
            "a/",
            "sp ace",
            ".hidden",
            "-x",
            "x.lock",
            "dot.",
            "a\\b",
            &"x".repeat(65),
        ] {
            let err = check_name(bad).unwrap_err();
            assert!(err.hint().is_some(), "{bad}");
        }
        assert!(check_name(&generated_name()).is_ok());
    }

    #[test]
    fn worktree_dirs_are_recognised() {
        assert!(under_worktrees_dir(Path::new("/repo/.claude/worktrees/x")));
        assert!(!under_worktrees_dir(Path::new("/elsewhere/x")));
    }
}
