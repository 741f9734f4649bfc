//! Write: create a file, or replace one the model has read in full.
//!
//! Checks (in `validate_input` and again in `call`, since the disk may change while a
//! person approves the call): the path is not a directory and its parent can be a
//! directory; an existing file was read whole and is unchanged since. The write itself is
//! atomic and keeps the file's permission bits ([`crate::file_io::atomic`]); afterwards the
//! file counts as read, so a follow-up edit needs no new Read.

mod prompt;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{Access, DynTool, Target, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::file_io::fresh::{self, Need};
use crate::file_io::text::{count_lines, diff_stat, plural, structured_patch};
use crate::file_io::{MAX_EDIT_BYTES, atomic, blocking, human_bytes, paths};

/// Existing files up to this size are loaded to describe what the write changed.
const MAX_OLD_CONTENT_BYTES: u64 = 4 * 1024 * 1024;

/// The file to write, and its new content.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteInput {
    /// The absolute path of the file to write (it is replaced if it exists).
    pub file_path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// The Write tool (see the module docs).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("new/notes.txt");
/// let write = toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == "Write").unwrap();
/// let ctx = toolgate_core::ToolContext::new(dir.path());
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let input = serde_json::json!({"file_path": path, "content": "one\ntwo\n"});
/// let out = rt.block_on(write.call(input, &ctx)).unwrap();
/// assert!(out.to_text().starts_with("Created "));
/// assert_eq!(std::fs::read_to_string(&path)?, "one\ntwo\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WriteTool;

/// The tool, ready for the registry.
pub(crate) fn tool() -> DynTool {
    typed(WriteTool)
}

/// What a validated write will do.
struct Plan {
    path: PathBuf,
    note: Option<String>,
    /// The current content, when the file exists (and is small enough to diff).
    old: Option<Vec<u8>>,
    exists: bool,
}

impl TypedTool for WriteTool {
    type Input = WriteInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Write"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("create or overwrite a file with new content")
    }

    async fn validate(&self, input: &WriteInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let (input, ctx) = (input.clone(), ctx.clone());
        blocking(move || plan(&input, &ctx).map(drop)).await
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        paths::normalize_field(input, "file_path", ctx)
    }

    fn permission_target(&self, input: &WriteInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    /// The file, written: new or replaced (the tool cannot tell which without the file system, and
    /// the rules treat both alike).
    fn targets(&self, input: &WriteInput) -> Vec<Target> {
        vec![Target::new(&input.file_path, Access::Write)]
    }

    async fn call(&self, input: WriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        blocking(move || {
            let plan = plan(&input, &ctx)?;
            commit(plan, input.content, &ctx)
        })
        .await
    }

    fn render_use(&self, input: &WriteInput) -> String {
        format!("Write({})", input.file_path)
    }
}

/// Checks that `path`'s parent is, or can become, a directory.
pub(crate) fn check_parent(path: &Path) -> Result<(), ToolError> {
    for ancestor in path.ancestors().skip(1) {
        match fs::metadata(ancestor) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => {
                return Err(ToolError::invalid_input(format!(
                    "Cannot create {}: {} is a file, not a directory",
                    path.display(),
                    ancestor.display()
                ))
                .with_hint("Choose a path whose parent directories are directories."));
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(ToolError::from_io(&err, ancestor)),
        }
    }
    Ok(())
}

fn plan(input: &WriteInput, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let target = paths::resolve(&input.file_path, "file_path", ctx)?;
    let path = target.path;
    let exists = match fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::invalid_input(format!("{} is a directory, not a file", path.display()))
                .with_hint("Give the path of a file inside it."));
        }
        Ok(meta) if !meta.is_file() => {
            return Err(ToolError::invalid_input(format!(
                "{} is not a regular file (a device, pipe or socket); Write writes only regular files",
                path.display()
            )));
        }
        Ok(_) => true,
        Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            check_parent(&path)?;
            false
        }
        Err(err) => return Err(ToolError::from_io(&err, &path)),
    };
    fresh::check(&ctx.file_state, &path, Need::Whole)?;
    // The old content is needed for the diff statistics (small files) and to notice an
    // unchanged rewrite (same size); a large file is not loaded only to be replaced.
    let old = if exists {
        let len = fs::metadata(&path).map(|m| m.len()).unwrap_or(u64::MAX);
        if len <= MAX_OLD_CONTENT_BYTES || (len == input.content.len() as u64 && len <= MAX_EDIT_BYTES) {
            Some(fs::read(&path).map_err(|e| ToolError::from_io(&e, &path))?)
        } else {
            None
        }
    } else {
        None
    };
    Ok(Plan { path, note: target.note, old, exists })
}

/// What a successful write adds, so the model does not read the file back.
const WRITTEN: &str = "The file now holds exactly the content you sent; no need to Read it back.";

fn commit(plan: Plan, content: String, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let path = &plan.path;
    let shown = path.display();
    let bytes = content.as_bytes();
    let lines = count_lines(bytes);
    if plan.old.as_deref() == Some(bytes) {
        let mtime = fs::metadata(path).ok().and_then(|m| m.modified().ok());
        ctx.file_state.record_write(path, bytes, mtime);
        let text = format!("{shown} already has exactly this content; nothing was changed.");
        return Ok(ToolOutput::text(paths::with_note(text, plan.note.as_deref())).with_structured(json!({
            "type": "update", "filePath": path.to_string_lossy(), "content": content, "structuredPatch": [],
        })));
    }
    atomic::write_atomic(path, bytes).map_err(|e| write_error(&e, path))?;
    let mtime = fs::metadata(path).ok().and_then(|m| m.modified().ok());
    ctx.file_state.record_write(path, bytes, mtime);
    let (text, structured) = if plan.exists {
        let old = plan.old.as_deref().map(String::from_utf8_lossy);
        let stat = old.as_deref().and_then(|old| diff_stat(old, &content));
        let patch = old.as_deref().and_then(|old| structured_patch(old, &content));
        let text = match stat {
            Some((added, removed)) => {
                format!(
                    "Updated {shown}: now {} ({added} added, {removed} removed). {WRITTEN}",
                    plural(lines as u64, "line")
                )
            }
            None => {
                format!(
                    "Updated {shown}: now {} ({}). {WRITTEN}",
                    plural(lines as u64, "line"),
                    human_bytes(bytes.len() as u64)
                )
            }
        };
        let structured = json!({
            "type": "update",
            "filePath": path.to_string_lossy(),
            "content": content,
            "structuredPatch": patch,
            "linesAdded": stat.map(|s| s.0),
            "linesRemoved": stat.map(|s| s.1),
        });
        (text, structured)
    } else {
        let text = format!(
            "Created {shown} ({}, {}). {WRITTEN}",
            plural(lines as u64, "line"),
            human_bytes(bytes.len() as u64)
        );
        let structured = json!({
            "type": "create", "filePath": path.to_string_lossy(), "content": content, "structuredPatch": [],
        });
        (text, structured)
    };
    Ok(ToolOutput::text(paths::with_note(text, plan.note.as_deref())).with_structured(structured))
}

/// The model-facing error for a write that failed on disk.
pub(crate) fn write_error(err: &io::Error, path: &Path) -> ToolError {
    match err.kind() {
        io::ErrorKind::PermissionDenied => ToolError::permission(format!(
            "Permission denied: the operating system refused to write {} (or to create a file in its directory)",
            path.display()
        ))
        .with_hint("Check the permissions of the file and its directory, or ask the user."),
        _ => {
            let base = ToolError::from_io(err, path);
            ToolError::new(base.kind(), format!("Could not write {}: {err}", path.display()))
                .with_hint("Nothing was changed: the write is all or nothing. Check the path and free disk space.")
        }
    }
}
