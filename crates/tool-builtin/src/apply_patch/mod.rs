//! ApplyPatch: add, delete, update and move several files with one patch, all or none.
//!
//! The input field is `patch` (Codex calls its free-form input `input`; a named field
//! says what it holds). Both the envelope format and unified diffs are accepted
//! ([`parse`]). Everything is checked before the disk changes: the patch parses, no file
//! appears twice, files to add do not exist, files to change or delete exist and were
//! read (and are unchanged since), and every hunk applies ([`apply`]). Then every new
//! content is written to a temporary file beside its target, and only then are the
//! temporary files renamed into place and the deletions done, in patch order; if any of
//! these steps fails, the ones before it are undone
//! ([`crate::file_io::atomic::commit_all`]).
//!
//! For permissions, the tool's target is the first file; because a rule matched against
//! one path cannot speak for the others, the tool itself asks for approval when any file
//! of the patch lies outside the working directories or is protected.

mod apply;
mod parse;
mod prompt;

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{Access, DynTool, PermissionCheck, Target, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::file_io::atomic::{self, Step};
use crate::file_io::fresh::{self, Need};
use crate::file_io::{MAX_EDIT_BYTES, blocking, human_bytes, paths, replace};
use parse::FileOp;

/// The patch to apply.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApplyPatchInput {
    /// The patch: the envelope format (*** Begin Patch … *** End Patch) or a unified diff.
    pub patch: String,
}

/// The ApplyPatch tool (see the module docs).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n")?;
/// let tools = toolgate_builtin::all_builtin_tools();
/// let find = |name: &str| tools.iter().find(|t| t.name() == name).unwrap().clone();
/// let ctx = toolgate_core::ToolContext::new(dir.path());
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Add File: b.txt\n+new\n*** End Patch\n";
/// rt.block_on(async {
///     find("Read").call(serde_json::json!({"file_path": dir.path().join("a.txt")}), &ctx).await.unwrap();
///     find("ApplyPatch").call(serde_json::json!({"patch": patch}), &ctx).await.unwrap();
/// });
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt"))?, "one\n2\n");
/// assert_eq!(std::fs::read_to_string(dir.path().join("b.txt"))?, "new\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ApplyPatchTool;

/// The tool, ready for the registry.
pub(crate) fn tool() -> DynTool {
    typed(ApplyPatchTool)
}

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Add,
    Delete,
    Update,
    Move,
}

impl Action {
    fn letter(self) -> &'static str {
        match self {
            Self::Add => "A",
            Self::Delete => "D",
            Self::Update => "M",
            Self::Move => "R",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Delete => "delete",
            Self::Update => "update",
            Self::Move => "move",
        }
    }
}

/// One checked file change.
#[derive(Debug)]
struct Change {
    action: Action,
    path: PathBuf,
    dest: Option<PathBuf>,
    bytes: Option<Vec<u8>>,
    added: usize,
    removed: usize,
}

/// A checked patch.
#[derive(Debug)]
struct Plan {
    changes: Vec<Change>,
    notes: Vec<String>,
}

const FORMAT_HINT: &str = "Send either the envelope format (`*** Begin Patch`, then `*** Add File: path`, `*** Update File: path` with `@@` hunks, or `*** Delete File: path`, then `*** End Patch`) or a unified diff with `--- a/path` and `+++ b/path` headers and `@@ -l,n +l,n @@` hunks.";

impl TypedTool for ApplyPatchTool {
    type Input = ApplyPatchInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "ApplyPatch"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("apply a multi-file patch or unified diff")
    }

    fn is_destructive(&self, input: &ApplyPatchInput) -> bool {
        parse::parse(&input.patch).map_or(true, |p| {
            p.ops.iter().any(|op| matches!(op, FileOp::Delete { .. } | FileOp::Update { move_to: Some(_), .. }))
        })
    }

    async fn validate(&self, input: &ApplyPatchInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let (input, ctx) = (input.clone(), ctx.clone());
        blocking(move || plan(&input, &ctx).map(drop)).await
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        let Some(text) = input.get("patch").and_then(Value::as_str) else {
            return input.clone();
        };
        let Ok(patch) = parse::parse(text) else {
            return input.clone();
        };
        let rewritten = parse::rewrite_paths(text, &patch, |raw| {
            let abs = paths::absolute(raw, ctx);
            if !std::path::Path::new(raw).is_absolute() {
                paths::remember(ctx, raw, &abs);
            }
            abs.to_string_lossy().into_owned()
        });
        let mut out = input.clone();
        if let Some(obj) = out.as_object_mut() {
            obj.insert("patch".into(), Value::String(rewritten));
        }
        out
    }

    fn check_permissions(&self, input: &ApplyPatchInput, ctx: &ToolContext) -> PermissionCheck {
        let Ok(patch) = parse::parse(&input.patch) else {
            return PermissionCheck::Passthrough;
        };
        let mut reasons: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        for line in &patch.path_lines {
            let path = paths::absolute(&line.path, ctx);
            if !seen.insert(path.clone()) {
                continue;
            }
            if !ctx.is_within_roots(&path) {
                reasons.push(format!("{} is outside the working directories", path.display()));
            }
            if let Some(reason) = toolgate_permissions::protected_path_reason(&path) {
                reasons.push(reason);
            }
        }
        if reasons.is_empty() {
            PermissionCheck::Passthrough
        } else {
            PermissionCheck::Ask {
                detail: format!("ApplyPatch would change files that need approval: {}", reasons.join("; ")),
            }
        }
    }

    fn permission_target(&self, input: &ApplyPatchInput) -> Option<String> {
        parse::parse(&input.patch).ok().and_then(|p| p.ops.first().map(|op| op.path().to_owned()))
    }

    /// Every file of the patch, in patch order: an added file is created, an updated one
    /// written, a deleted one deleted, and a move deletes its source and creates its
    /// destination. A patch that does not parse names none (step 3 refuses it first).
    fn targets(&self, input: &ApplyPatchInput) -> Vec<Target> {
        let Ok(patch) = parse::parse(&input.patch) else { return Vec::new() };
        let mut targets: Vec<Target> = Vec::new();
        let mut add = |path: &str, access: Access| {
            let target = Target::new(path, access);
            if !targets.contains(&target) {
                targets.push(target);
            }
        };
        for op in &patch.ops {
            match op {
                FileOp::Add { path, .. } => add(path, Access::Create),
                FileOp::Delete { path } => add(path, Access::Delete),
                FileOp::Update { path, move_to: None, .. } => add(path, Access::Write),
                FileOp::Update { path, move_to: Some(to), .. } => {
                    add(path, Access::Delete);
                    add(to, Access::Create);
                }
            }
        }
        targets
    }

    async fn call(&self, input: ApplyPatchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        blocking(move || {
            let plan = plan(&input, &ctx)?;
            commit(plan, &ctx)
        })
        .await
    }

    fn render_use(&self, input: &ApplyPatchInput) -> String {
        match parse::parse(&input.patch) {
            Ok(patch) => {
                let names: Vec<&str> = patch.ops.iter().map(FileOp::path).take(3).collect();
                let more = if patch.ops.len() > 3 { ", …" } else { "" };
                let n = patch.ops.len();
                format!("ApplyPatch({n} file{}: {}{more})", if n == 1 { "" } else { "s" }, names.join(", "))
            }
            Err(_) => "ApplyPatch(unparsable patch)".to_owned(),
        }
    }
}

fn not_applied(path: &std::path::Path, message: impl std::fmt::Display) -> String {
    format!("Patch not applied: {}: {message}", path.display())
}

fn exists(path: &std::path::Path) -> Result<Option<fs::Metadata>, ToolError> {
    match fs::symlink_metadata(path) {
        Ok(_) => fs::metadata(path).map(Some).map_err(|e| ToolError::from_io(&e, path)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(ToolError::from_io(&err, path)),
    }
}

/// The file must exist, be a regular file within the size cap, and have been read.
fn existing_file(path: &std::path::Path, ctx: &ToolContext) -> Result<(), ToolError> {
    let Some(meta) = exists(path)? else {
        let err = paths::missing_file_error(path, ctx);
        return Err(ToolError::not_found(not_applied(path, "the file does not exist"))
            .with_hint(format!("{} Nothing was changed.", err.hint().unwrap_or_default())));
    };
    if !meta.is_file() {
        return Err(
            ToolError::invalid_input(not_applied(path, "it is not a regular file")).with_hint("Nothing was changed.")
        );
    }
    if meta.len() > MAX_EDIT_BYTES {
        return Err(ToolError::invalid_input(not_applied(
            path,
            format!("it is too large ({})", human_bytes(meta.len())),
        )));
    }
    fresh::check(&ctx.file_state, path, Need::Seen).map_err(|e| {
        ToolError::new(e.kind(), not_applied(path, e.message()))
            .with_hint(format!("{} Nothing was changed.", e.hint().unwrap_or_default()))
    })
}

/// The file must not exist, and its parent must be able to be a directory.
fn new_file(path: &std::path::Path, what: &str) -> Result<(), ToolError> {
    if exists(path)?.is_some() {
        return Err(ToolError::invalid_input(not_applied(path, format!("{what}, but the file already exists")))
            .with_hint("Use `*** Update File:` (or a diff against its current content) to change an existing file. Nothing was changed."));
    }
    crate::write::check_parent(path)
}

fn plan(input: &ApplyPatchInput, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let patch = parse::parse(&input.patch)
        .map_err(|e| ToolError::invalid_input(format!("The patch could not be parsed: {e}")).with_hint(FORMAT_HINT))?;
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let mut claim = |path: &PathBuf| -> Result<(), ToolError> {
        if seen.insert(path.clone()) {
            Ok(())
        } else {
            Err(ToolError::invalid_input(format!("The patch changes {} more than once", path.display()))
                .with_hint("Put all changes to a file in one section of the patch."))
        }
    };
    for op in &patch.ops {
        let target = paths::resolve(op.path(), "path", ctx)?;
        if let Some(note) = target.note {
            notes.push(note);
        }
        let path = target.path;
        claim(&path)?;
        match op {
            FileOp::Add { content, .. } => {
                new_file(&path, "it is to be added")?;
                fresh::check(&ctx.file_state, &path, Need::Whole)?;
                let added = content.lines().count();
                changes.push(Change {
                    action: Action::Add,
                    path,
                    dest: None,
                    bytes: Some(content.clone().into_bytes()),
                    added,
                    removed: 0,
                });
            }
            FileOp::Delete { .. } => {
                existing_file(&path, ctx)?;
                // Lines are counted for the summary only when that is cheap.
                let small = fs::metadata(&path).is_ok_and(|m| m.len() <= 4 * 1024 * 1024);
                let removed =
                    if small { fs::read(&path).map(|b| crate::file_io::text::count_lines(&b)).unwrap_or(0) } else { 0 };
                changes.push(Change { action: Action::Delete, path, dest: None, bytes: None, added: 0, removed });
            }
            FileOp::Update { move_to, hunks, .. } => {
                existing_file(&path, ctx)?;
                let bytes = fs::read(&path).map_err(|e| ToolError::from_io(&e, &path))?;
                let Ok(text) = String::from_utf8(bytes) else {
                    return Err(ToolError::invalid_input(not_applied(&path, "it is not valid UTF-8 text"))
                        .with_hint("Change it with Edit, which keeps bytes it does not touch. Nothing was changed."));
                };
                let new_text = apply::apply_hunks(&text, hunks).map_err(|e| {
                    let nearest = replace::nearest_text(text.as_bytes(), &e.wanted);
                    let mut hint = String::new();
                    if let Some(nearest) = nearest {
                        hint.push_str(&format!("The closest text in the file is:\n{nearest}"));
                    }
                    hint.push_str(
                        "Read the file again and copy the hunk's context and `-` lines exactly. Nothing was changed.",
                    );
                    ToolError::invalid_input(not_applied(
                        &path,
                        format!("hunk {} of {} does not apply: {}", e.index + 1, hunks.len(), e.message),
                    ))
                    .with_hint(hint)
                })?;
                let dest = match move_to {
                    Some(raw) => {
                        let to = paths::resolve(raw, "path", ctx)?;
                        if let Some(note) = to.note {
                            notes.push(note);
                        }
                        if to.path != path {
                            claim(&to.path)?;
                            new_file(&to.path, "it is the target of a move")?;
                            Some(to.path)
                        } else {
                            None
                        }
                    }
                    None => None,
                };
                let added = hunks.iter().map(|h| h.added).sum();
                let removed = hunks.iter().map(|h| h.removed).sum();
                let action = if dest.is_some() { Action::Move } else { Action::Update };
                changes.push(Change { action, path, dest, bytes: Some(new_text.into_bytes()), added, removed });
            }
        }
    }
    notes.dedup();
    Ok(Plan { changes, notes })
}

fn commit(plan: Plan, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let mut steps = Vec::new();
    for change in &plan.changes {
        let written = change.dest.as_ref().unwrap_or(&change.path);
        if let Some(bytes) = &change.bytes {
            let staged = atomic::stage(written, bytes).map_err(|e| {
                let err = crate::write::write_error(&e, written);
                ToolError::new(err.kind(), format!("Patch not applied: {}", err.message()))
                    .with_hint("Nothing was changed: no file is renamed into place before all are written.")
            })?;
            steps.push(Step::Write(staged));
        }
        if change.action == Action::Delete || change.action == Action::Move {
            steps.push(Step::Remove(change.path.clone()));
        }
    }
    atomic::commit_all(steps).map_err(|e| {
        let restored = if e.not_restored.is_empty() {
            "Every file changed before it was restored, so nothing changed.".to_owned()
        } else {
            let list: Vec<String> = e.not_restored.iter().map(|p| p.display().to_string()).collect();
            format!("These files could not be restored and may be changed: {}.", list.join(", "))
        };
        ToolError::io(format!("Patch not applied: changing {} failed: {}", e.path.display(), e.error))
            .with_hint(restored)
    })?;

    let mut lines = Vec::new();
    let mut files = Vec::new();
    for change in &plan.changes {
        let written = change.dest.as_ref().unwrap_or(&change.path);
        if let Some(bytes) = &change.bytes {
            let mtime = fs::metadata(written).ok().and_then(|m| m.modified().ok());
            ctx.file_state.record_write(written, bytes, mtime);
        }
        if matches!(change.action, Action::Delete | Action::Move) {
            ctx.file_state.remove(&change.path);
        }
        let shown = match &change.dest {
            Some(dest) => format!("{} -> {}", change.path.display(), dest.display()),
            None => change.path.display().to_string(),
        };
        let stat = match change.action {
            Action::Add => format!(" (+{})", change.added),
            Action::Delete => String::new(),
            Action::Update | Action::Move => format!(" (+{} -{})", change.added, change.removed),
        };
        lines.push(format!("{}  {shown}{stat}", change.action.letter()));
        files.push(json!({
            "path": change.path.to_string_lossy(),
            "action": change.action.name(),
            "movedTo": change.dest.as_ref().map(|d| d.to_string_lossy()),
            "linesAdded": change.added,
            "linesRemoved": change.removed,
        }));
    }
    let n = plan.changes.len();
    let mut text =
        format!("Applied the patch: {n} file{} changed.\n{}", if n == 1 { "" } else { "s" }, lines.join("\n"));
    if !plan.notes.is_empty() {
        text.push_str(&format!(
            "\nNote: relative paths in the patch were resolved against the working directory {}.",
            ctx.cwd.display()
        ));
    }
    Ok(ToolOutput::text(text).with_structured(json!({ "files": files })))
}
