//! One or more exact replacements in one file, all or nothing: the shared engine of Edit
//! (one replacement) and MultiEdit (several, each applied to the previous result).
//!
//! [`plan`] does every check and computes the new content in memory without touching
//! the disk (so `validate_input` can run it and `call` can run it again); [`commit`]
//! writes the result atomically and records it in the file-state cache.

use std::fs;
use std::io;
use std::path::PathBuf;

use serde_json::{Value, json};
use toolgate_core::{ToolContext, ToolError, ToolOutput};

use super::fresh::{self, Need};
use super::replace::{self, Matched, ReplaceError, Replacement};
use super::text::{count_lines, plural, snippet, structured_patch};
use super::{MAX_EDIT_BYTES, atomic, human_bytes, paths};

/// Lines of context shown around an edited region.
const CONTEXT_LINES: usize = 3;

/// The most lines of edited regions shown in a result.
const MAX_SNIPPET_LINES: usize = 60;

/// The original file is passed to hooks only up to this size.
const MAX_ORIGINAL_IN_OUTPUT: usize = 256 * 1024;

/// Which tool asks, for the wording of errors and results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// Edit: one replacement.
    Edit,
    /// MultiEdit: a list.
    MultiEdit,
}

/// A checked edit, computed in memory.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The file.
    pub path: PathBuf,
    /// The relative-path note, if any.
    pub note: Option<String>,
    /// The content before, `None` when the file is created.
    pub original: Option<Vec<u8>>,
    /// The content after.
    pub content: Vec<u8>,
    /// Regions of `content` that changed.
    pub ranges: Vec<(usize, usize)>,
    /// How many occurrences each edit replaced.
    pub counts: Vec<usize>,
    /// How each edit's `old_string` was found (`None` for a creating edit).
    pub matched: Vec<Option<Matched>>,
}

fn describe(caller: Caller, index: usize, total: usize, err: &ReplaceError, path: &str, old: &str) -> ToolError {
    let (message, hint) = err.describe(path, old);
    match caller {
        Caller::Edit => ToolError::invalid_input(message).with_hint(hint),
        Caller::MultiEdit => ToolError::invalid_input(format!("Edit {} of {total} failed: {message}", index + 1))
            .with_hint(format!("{hint}\nNo edit was applied: MultiEdit applies all of its edits or none.")),
    }
}

/// Checks the call and computes the new content (see the module docs).
///
/// # Errors
///
/// A notebook, a directory, a missing file (unless the first edit creates it), a file
/// over 1 GiB, one not read or changed since, and any edit that does not apply.
pub(crate) fn plan(
    raw_path: &str,
    edits: &[Replacement<'_>],
    caller: Caller,
    ctx: &ToolContext,
) -> Result<Plan, ToolError> {
    let target = paths::resolve(raw_path, "file_path", ctx)?;
    let path = target.path;
    let shown = path.display().to_string();
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ipynb")) {
        return Err(ToolError::invalid_input(format!("{shown} is a Jupyter notebook, which Edit cannot change"))
            .with_hint("Use NotebookEdit to replace, insert or delete a cell."));
    }
    let Some(first) = edits.first() else {
        return Err(ToolError::invalid_input("edits is empty").with_hint("Give at least one edit."));
    };
    let total = edits.len();
    for (index, edit) in edits.iter().enumerate() {
        if edit.old == edit.new {
            return Err(describe(caller, index, total, &ReplaceError::NoChange, &shown, edit.old));
        }
    }
    let (original, mut content, start) = match fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::invalid_input(format!("{shown} is a directory, not a file"))
                .with_hint("Give the path of a file inside it."));
        }
        Ok(meta) if !meta.is_file() => {
            return Err(ToolError::invalid_input(format!(
                "{shown} is not a regular file (a device, pipe or socket) and cannot be edited"
            )));
        }
        Ok(meta) if meta.len() > MAX_EDIT_BYTES => {
            return Err(ToolError::invalid_input(format!(
                "{shown} is too large to edit ({}; the limit is {})",
                human_bytes(meta.len()),
                human_bytes(MAX_EDIT_BYTES)
            ))
            .with_hint("Change it with a streaming tool through Bash, such as sed."));
        }
        Ok(meta) => {
            if first.old.is_empty() {
                if meta.len() > 0 {
                    return Err(ToolError::invalid_input(format!(
                        "Cannot create {shown}: the file already exists and is not empty"
                    ))
                    .with_hint(
                        "To change it, Read it and quote the text to replace in old_string; to replace all of it, use Write.",
                    ));
                }
                // An empty file: nothing can be lost, so no read is needed.
                (Some(Vec::new()), first.new.as_bytes().to_vec(), 1)
            } else {
                fresh::check(&ctx.file_state, &path, Need::Seen)?;
                let bytes = fs::read(&path).map_err(|e| read_error(&e, &path))?;
                (Some(bytes.clone()), bytes, 0)
            }
        }
        Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            if !first.old.is_empty() {
                let err = paths::missing_file_error(&path, ctx);
                let hint = format!(
                    "{} To create a new file, use Write, or Edit with an empty old_string.",
                    err.hint().unwrap_or_default()
                );
                return Err(ToolError::not_found(err.message()).with_hint(hint));
            }
            fresh::check(&ctx.file_state, &path, Need::Seen)?;
            crate::write::check_parent(&path)?;
            (None, first.new.as_bytes().to_vec(), 1)
        }
        Err(err) => return Err(read_error(&err, &path)),
    };
    let mut ranges: Vec<(usize, usize)> = if start == 1 { vec![(0, content.len())] } else { Vec::new() };
    let mut counts = if start == 1 { vec![1] } else { Vec::new() };
    let mut matched = if start == 1 { vec![None] } else { Vec::new() };
    for (index, edit) in edits.iter().enumerate().skip(start) {
        let applied =
            replace::apply(&content, edit).map_err(|err| describe(caller, index, total, &err, &shown, edit.old))?;
        ranges = replace::remap(&ranges, &applied);
        ranges.extend_from_slice(&applied.ranges);
        counts.push(applied.count);
        matched.push(Some(applied.matched));
        content = applied.content;
    }
    if original.as_deref() == Some(content.as_slice()) && !content.is_empty() {
        return Err(ToolError::invalid_input(format!("The edits leave {shown} unchanged"))
            .with_hint("Check the edits: later ones undo earlier ones."));
    }
    Ok(Plan { path, note: target.note, original, content, ranges, counts, matched })
}

fn read_error(err: &io::Error, path: &std::path::Path) -> ToolError {
    match err.kind() {
        io::ErrorKind::PermissionDenied => ToolError::permission(format!(
            "Permission denied: the operating system refused to open {} for reading",
            path.display()
        ))
        .with_hint("Check its permissions (`ls -l` with Bash), or ask the user for access."),
        _ => ToolError::from_io(err, path),
    }
}

/// Writes the planned content atomically, records the write, and describes it.
///
/// # Errors
///
/// The write failed (nothing changed then).
pub(crate) fn commit(
    plan: Plan,
    caller: Caller,
    structured_extra: Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let path = &plan.path;
    let shown = path.display();
    atomic::write_atomic(path, &plan.content).map_err(|e| crate::write::write_error(&e, path))?;
    let mtime = fs::metadata(path).ok().and_then(|m| m.modified().ok());
    ctx.file_state.record_write(path, &plan.content, mtime);

    let mut text = match (&plan.original, caller) {
        (None, _) => format!(
            "Created {shown} ({}, {}). Its content:\n",
            plural(count_lines(&plan.content) as u64, "line"),
            human_bytes(plan.content.len() as u64)
        ),
        (Some(_), Caller::Edit) if plan.counts.first().copied().unwrap_or(1) > 1 => format!(
            "The file {shown} has been updated: all {} occurrences were replaced; no need to Read it back. The edited regions, with line numbers:\n",
            plan.counts[0]
        ),
        (Some(_), Caller::Edit) => {
            format!(
                "The file {shown} has been updated; no need to Read it back. The edited region, with line numbers:\n"
            )
        }
        (Some(_), Caller::MultiEdit) => {
            format!(
                "Applied {} edits to {shown}; no need to Read it back. The edited regions, with line numbers:\n",
                plan.counts.len()
            )
        }
    };
    text.push_str(&snippet(&plan.content, &plan.ranges, CONTEXT_LINES, MAX_SNIPPET_LINES));
    let mut remarks = Vec::new();
    if plan.matched.iter().flatten().any(|m| *m == Matched::QuotesFolded) {
        remarks.push(
            "old_string matched only with curly and straight quotes treated alike; new_string was written as given.",
        );
    }
    if plan.matched.iter().flatten().any(|m| *m == Matched::LinePrefixStripped) {
        remarks.push("old_string carried Read's line-number prefixes; they were removed before matching. Leave them out next time.");
    }
    for remark in remarks {
        text.push_str(&format!("[{remark}]\n"));
    }
    let text = paths::with_note(text, plan.note.as_deref());

    let original_text = plan.original.as_deref().map(String::from_utf8_lossy);
    let new_text = String::from_utf8_lossy(&plan.content);
    let patch = structured_patch(original_text.as_deref().unwrap_or(""), &new_text);
    let mut structured = json!({
        "filePath": path.to_string_lossy(),
        "structuredPatch": patch,
        "userModified": false,
        "originalFile": original_text.filter(|t| t.len() <= MAX_ORIGINAL_IN_OUTPUT),
        "replacements": plan.counts,
    });
    if let (Some(obj), Value::Object(extra)) = (structured.as_object_mut(), structured_extra) {
        obj.extend(extra);
    }
    Ok(ToolOutput::text(text).with_structured(structured))
}
