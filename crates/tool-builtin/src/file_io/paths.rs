//! Paths as the model gives them: made absolute against the working directory (with a
//! note when a relative path was resolved), and, when a file is missing, the closest
//! existing paths (the same name elsewhere under the roots, similar names nearby).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_core::{ToolContext, ToolError};

/// How many relative-path notes are remembered between `normalize_input` and `call`
/// before the oldest are forgotten (a call that never runs leaves its note behind).
const MAX_REMEMBERED: usize = 256;

/// How many directory entries the same-name search under the roots looks at, at most.
const MAX_WALK_ENTRIES: usize = 50_000;

/// How many suggestions a missing-file error lists.
const MAX_SUGGESTIONS: usize = 5;

/// Relative paths that `normalize_input` made absolute, keyed by the call's tool-use id
/// and the absolute path, so the call can tell the model its path was resolved. Lives in
/// the session's [`toolgate_core::AppState`].
#[derive(Debug, Default)]
struct ResolvedRelative(HashMap<(String, PathBuf), String>);

/// A path from the input, made absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The absolute, lexically normalized path.
    pub path: PathBuf,
    /// Set when the model gave a relative path: the sentence saying how it was resolved.
    pub note: Option<String>,
}

/// `raw` with a leading `~` expanded to `$HOME`.
fn expand_home(raw: &str) -> PathBuf {
    if (raw == "~" || raw.starts_with("~/"))
        && let Some(home) = std::env::var_os("HOME")
    {
        let rest = raw.trim_start_matches('~').trim_start_matches('/');
        return PathBuf::from(home).join(rest);
    }
    PathBuf::from(raw)
}

/// The absolute form of `raw` against `ctx.cwd`.
pub(crate) fn absolute(raw: &str, ctx: &ToolContext) -> PathBuf {
    ctx.resolve_path(expand_home(raw))
}

/// Whether `raw` is relative (after `~` expansion).
fn is_relative(raw: &str) -> bool {
    !expand_home(raw).is_absolute()
}

fn relative_note(raw: &str, path: &Path) -> String {
    format!("Note: the relative path `{raw}` was resolved against the working directory to {}.", path.display())
}

/// A normalized copy of `input` with `field` made absolute (hooks and the permission
/// engine must see absolute paths). A relative path is remembered for this call so that
/// [`resolve`] can say it was resolved.
pub(crate) fn normalize_field(input: &Value, field: &str, ctx: &ToolContext) -> Value {
    let mut out = input.clone();
    let Some(raw) = input.get(field).and_then(Value::as_str) else {
        return out;
    };
    if raw.is_empty() {
        return out;
    }
    let path = absolute(raw, ctx);
    if is_relative(raw) {
        remember(ctx, raw, &path);
    }
    if let Some(obj) = out.as_object_mut() {
        obj.insert(field.to_owned(), Value::String(path.to_string_lossy().into_owned()));
    }
    out
}

/// Remembers that `raw` was resolved to `path` for the current call.
pub(crate) fn remember(ctx: &ToolContext, raw: &str, path: &Path) {
    ctx.app_state.update(|seen: &mut ResolvedRelative| {
        if seen.0.len() >= MAX_REMEMBERED {
            seen.0.clear();
        }
        seen.0.insert((ctx.tool_use_id.clone(), path.to_path_buf()), raw.to_owned());
    });
}

/// The path a call works on: `raw` made absolute, with a note when it was (or, before
/// normalization, had been) relative.
///
/// # Errors
///
/// An empty path is invalid input.
pub(crate) fn resolve(raw: &str, field: &str, ctx: &ToolContext) -> Result<Target, ToolError> {
    if raw.trim().is_empty() {
        return Err(ToolError::invalid_input(format!("{field} is empty"))
            .with_hint("Give the absolute path of the file, e.g. /home/user/project/src/main.rs."));
    }
    let path = absolute(raw, ctx);
    if is_relative(raw) {
        return Ok(Target { note: Some(relative_note(raw, &path)), path });
    }
    // Looked up, not taken: a call is validated before it runs, and both should say so.
    let original = ctx
        .app_state
        .update(|seen: &mut ResolvedRelative| seen.0.get(&(ctx.tool_use_id.clone(), path.clone())).cloned());
    Ok(Target { note: original.map(|raw| relative_note(&raw, &path)), path })
}

/// Appends the relative-path note (if any) to a result text.
pub(crate) fn with_note(mut text: String, note: Option<&str>) -> String {
    if let Some(note) = note {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
        text.push_str(note);
    }
    text
}

/// The error for a path that does not exist, listing the closest existing paths.
pub(crate) fn missing_file_error(path: &Path, ctx: &ToolContext) -> ToolError {
    let suggestions = suggest(path, ctx);
    let mut hint = format!("The current working directory is {}.", ctx.cwd.display());
    if suggestions.is_empty() {
        if let Some(ancestor) = nearest_existing_ancestor(path)
            && path.parent().is_some_and(|p| p != ancestor)
        {
            hint.push_str(&format!(
                " {} does not exist either; the nearest existing directory is {}.",
                path.parent().map(|p| p.display().to_string()).unwrap_or_default(),
                ancestor.display()
            ));
        }
        hint.push_str(" Check the path, or search for the file with Glob.");
    } else {
        let list: Vec<String> = suggestions.iter().map(|p| p.display().to_string()).collect();
        hint.push_str(&format!(" Did you mean {}?", join_or(&list)));
    }
    ToolError::not_found(format!("File does not exist: {}", path.display())).with_hint(hint)
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn nearest_existing_ancestor(path: &Path) -> Option<PathBuf> {
    path.ancestors().skip(1).find(|p| p.is_dir()).map(Path::to_path_buf)
}

/// Existing paths the model may have meant instead of `path`: similar names in its
/// directory (or the nearest existing one), then files of the same name elsewhere under
/// the session's roots.
pub(crate) fn suggest(path: &Path, ctx: &ToolContext) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return out;
    };
    if let Some(parent) = path.parent() {
        for candidate in similar_in_dir(parent, name) {
            push_unique(&mut out, candidate);
        }
    }
    for candidate in same_name_under_roots(path, name, ctx) {
        push_unique(&mut out, candidate);
    }
    out.truncate(MAX_SUGGESTIONS);
    out
}

fn push_unique(out: &mut Vec<PathBuf>, candidate: PathBuf) {
    if !out.contains(&candidate) {
        out.push(candidate);
    }
}

/// Entries of `dir` whose names are close to `name`, closest first.
fn similar_in_dir(dir: &Path, name: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let lower = name.to_lowercase();
    let stem = Path::new(&lower).file_stem().and_then(|s| s.to_str()).unwrap_or(&lower).to_owned();
    let limit = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, PathBuf)> = entries
        .take(10_000)
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let candidate = entry.file_name().to_str()?.to_owned();
            let candidate_lower = candidate.to_lowercase();
            let candidate_stem =
                Path::new(&candidate_lower).file_stem().and_then(|s| s.to_str()).unwrap_or(&candidate_lower).to_owned();
            let score = if candidate_lower == lower {
                0
            } else if candidate_stem == stem {
                1
            } else {
                let d = levenshtein(&candidate_lower, &lower);
                if d > limit {
                    return None;
                }
                d + 1
            };
            Some((score, entry.path()))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, p)| p).collect()
}

/// Files named `name` (case-insensitively) under the roots, nearest to `path` first,
/// found by a bounded walk that honours ignore files.
fn same_name_under_roots(path: &Path, name: &str, ctx: &ToolContext) -> Vec<PathBuf> {
    let lower = name.to_lowercase();
    let mut found = Vec::new();
    let mut visited = 0usize;
    for root in &ctx.roots {
        if !root.is_dir() {
            continue;
        }
        let walk = ignore::WalkBuilder::new(root).hidden(false).follow_links(false).build();
        for entry in walk.filter_map(Result::ok) {
            visited += 1;
            if visited > MAX_WALK_ENTRIES || found.len() >= 20 {
                break;
            }
            if entry.file_type().is_some_and(|t| t.is_file())
                && entry.file_name().to_str().is_some_and(|n| n.to_lowercase() == lower)
                && entry.path() != path
            {
                found.push(entry.into_path());
            }
        }
    }
    // Nearest first: the most leading components shared with the missing path.
    found.sort_by_key(|p| {
        let shared = p.components().zip(path.components()).take_while(|(a, b)| a == b).count();
        (usize::MAX - shared, p.as_os_str().len())
    });
    found
}

/// The edit distance between two short strings (names).
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn relative_paths_are_resolved_and_noted() {
        let mut ctx = ToolContext::new("/repo");
        ctx.tool_use_id = "t1".into();
        let normalized = normalize_field(&json!({"file_path": "src/lib.rs"}), "file_path", &ctx);
        assert_eq!(normalized["file_path"], "/repo/src/lib.rs");
        let target = resolve("/repo/src/lib.rs", "file_path", &ctx).unwrap();
        assert_eq!(target.path, PathBuf::from("/repo/src/lib.rs"));
        assert!(target.note.unwrap().contains("`src/lib.rs`"));
        // Another call's absolute path gets no note.
        ctx.tool_use_id = "t2".into();
        assert_eq!(resolve("/repo/src/lib.rs", "file_path", &ctx).unwrap().note, None);
        // Absolute paths pass through untouched.
        let same = normalize_field(&json!({"file_path": "/etc/hosts"}), "file_path", &ctx);
        assert_eq!(same["file_path"], "/etc/hosts");
    }

    #[test]
    fn empty_path_is_invalid() {
        let ctx = ToolContext::new("/repo");
        assert!(resolve(" ", "file_path", &ctx).is_err());
    }

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "ab"), 2);
        assert_eq!(levenshtein("same", "same"), 0);
    }

    #[test]
    fn join_or_reads_naturally() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(join_or(&s(&["a"])), "a");
        assert_eq!(join_or(&s(&["a", "b"])), "a or b");
        assert_eq!(join_or(&s(&["a", "b", "c"])), "a, b or c");
    }

    #[test]
    fn suggestions_find_similar_names_and_the_same_name_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::write(root.join("src/main.rs"), "").unwrap();
        fs::write(root.join("src/deep/config.toml"), "").unwrap();
        let ctx = ToolContext::new(root);
        let found = suggest(&root.join("src/mian.rs"), &ctx);
        assert_eq!(found, [root.join("src/main.rs")]);
        let found = suggest(&root.join("config.toml"), &ctx);
        assert_eq!(found, [root.join("src/deep/config.toml")]);
        let err = missing_file_error(&root.join("nope/x.txt"), &ctx);
        assert!(err.hint().unwrap().contains("nearest existing directory"), "{err:?}");
    }
}
