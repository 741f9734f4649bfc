//! Parsing the two patch formats ApplyPatch accepts into one list of file operations.
//!
//! **The envelope format** (Codex's `apply_patch`):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: docs/new.md
//! +first line
//! *** Delete File: old.txt
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ def greet():
//! -    print("hi")
//! +    print("hello")
//! *** End of File
//! *** End Patch
//! ```
//!
//! An update's hunks start with `@@`, optionally followed by a line to find first (a
//! function or class header) that narrows where the hunk applies; hunk lines start with
//! a space (context), `-` (removed) or `+` (added); `*** End of File` pins the hunk to
//! the end of the file.
//!
//! **Unified diffs** (`diff -u`, `git diff`): `--- a/path` and `+++ b/path` headers
//! (`/dev/null` for added and deleted files; git's `a/` and `b/` prefixes are dropped),
//! `@@ -l,n +l,n @@` hunks whose counts say how many lines they hold, `\ No newline at
//! end of file` markers, and git's `rename from` / `rename to` for pure renames.

use std::fmt;

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileOp {
    /// Create a file that must not exist yet.
    Add {
        /// The path, as written in the patch.
        path: String,
        /// The whole content.
        content: String,
    },
    /// Remove a file.
    Delete {
        /// The path, as written in the patch.
        path: String,
    },
    /// Change a file, and perhaps move it.
    Update {
        /// The path, as written in the patch.
        path: String,
        /// The new path, for a move.
        move_to: Option<String>,
        /// The changes, in file order.
        hunks: Vec<Hunk>,
    },
}

impl FileOp {
    /// The path the operation starts from.
    pub(crate) fn path(&self) -> &str {
        match self {
            Self::Add { path, .. } | Self::Delete { path } | Self::Update { path, .. } => path,
        }
    }
}

/// One change inside a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// Lines to find, in order, before the hunk's own lines (envelope `@@ text`).
    pub anchors: Vec<String>,
    /// The lines the hunk replaces (context and removed lines), without line endings.
    pub old: Vec<String>,
    /// The lines that replace them (context and added lines).
    pub new: Vec<String>,
    /// The 1-based line where the old lines start (unified diffs), a hint.
    pub old_start: Option<usize>,
    /// The hunk must apply at the end of the file.
    pub at_eof: bool,
    /// The old side ends without a final newline (unified marker).
    pub old_no_newline: bool,
    /// The new side ends without a final newline (unified marker).
    pub new_no_newline: bool,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
}

/// A header line naming a path, for rewriting paths to absolute ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathLine {
    /// The 0-based line number in the patch text.
    pub line: usize,
    /// The text before the path (`*** Update File: `, `--- ` …).
    pub prefix: String,
    /// The path as it should be read (prefixes such as `a/` dropped).
    pub path: String,
}

/// A parsed patch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Patch {
    /// The operations, in patch order.
    pub ops: Vec<FileOp>,
    /// The header lines that name paths.
    pub path_lines: Vec<PathLine>,
}

/// Why a patch does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// The 1-based line, when the problem is on one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError { line: Some(line + 1), message: message.into() }
}

/// The lines of `text`, without `\r\n` or `\n`.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// Parses either format (see the module docs).
///
/// # Errors
///
/// Text in neither format, or a malformed header or hunk, with its line.
pub(crate) fn parse(text: &str) -> Result<Patch, ParseError> {
    let lines = split_lines(text);
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return Err(ParseError { line: None, message: "the patch is empty".into() });
    };
    // A heredoc wrapper (`apply_patch <<'EOF'`) around the envelope is tolerated.
    let begin = lines.iter().position(|l| l.trim() == "*** Begin Patch");
    if let Some(begin) = begin
        && lines[first..begin].iter().all(|l| l.trim().is_empty() || l.contains("<<"))
    {
        return parse_envelope(&lines, begin);
    }
    if lines.iter().zip(lines.iter().skip(1)).any(|(a, b)| a.starts_with("--- ") && b.starts_with("+++ "))
        || lines.iter().any(|l| l.starts_with("diff --git "))
    {
        return parse_unified(&lines);
    }
    Err(ParseError {
        line: None,
        message: "this is neither an envelope patch (starting with `*** Begin Patch`) nor a unified diff (with `--- ` and `+++ ` headers)".into(),
    })
}

const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_PATCH: &str = "*** End Patch";
const END_OF_FILE: &str = "*** End of File";

fn header_path(line: usize, rest: &str) -> Result<String, ParseError> {
    let path = rest.trim();
    if path.is_empty() { Err(err(line, "the header names no file")) } else { Ok(path.to_owned()) }
}

fn parse_envelope(lines: &[&str], begin: usize) -> Result<Patch, ParseError> {
    let mut patch = Patch::default();
    let mut i = begin + 1;
    let mut ended = false;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == END_PATCH {
            ended = true;
            break;
        }
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix(ADD) {
            let path = header_path(i, rest)?;
            patch.path_lines.push(PathLine { line: i, prefix: ADD.into(), path: path.clone() });
            i += 1;
            let mut content = String::new();
            while i < lines.len() && !lines[i].starts_with("*** ") {
                let body = match lines[i].strip_prefix('+') {
                    Some(body) => body,
                    None if lines[i].is_empty() => "",
                    None => return Err(err(i, "every line of an added file must start with `+`")),
                };
                content.push_str(body);
                content.push('\n');
                i += 1;
            }
            patch.ops.push(FileOp::Add { path, content });
        } else if let Some(rest) = line.strip_prefix(DELETE) {
            let path = header_path(i, rest)?;
            patch.path_lines.push(PathLine { line: i, prefix: DELETE.into(), path: path.clone() });
            patch.ops.push(FileOp::Delete { path });
            i += 1;
        } else if let Some(rest) = line.strip_prefix(UPDATE) {
            let path = header_path(i, rest)?;
            patch.path_lines.push(PathLine { line: i, prefix: UPDATE.into(), path: path.clone() });
            let header = i;
            i += 1;
            let mut move_to = None;
            if let Some(rest) = lines.get(i).and_then(|l| l.strip_prefix(MOVE)) {
                let to = header_path(i, rest)?;
                patch.path_lines.push(PathLine { line: i, prefix: MOVE.into(), path: to.clone() });
                move_to = Some(to);
                i += 1;
            }
            let (hunks, next) = parse_envelope_hunks(lines, i)?;
            i = next;
            if hunks.is_empty() && move_to.is_none() {
                return Err(err(header, format!("the update of {path} has no hunks")));
            }
            patch.ops.push(FileOp::Update { path, move_to, hunks });
        } else {
            return Err(err(
                i,
                format!(
                    "expected a file header (`{}`, `{}` or `{}`) or `{END_PATCH}`, found `{}`",
                    ADD.trim_end(),
                    DELETE.trim_end(),
                    UPDATE.trim_end(),
                    crate::file_io::text::clip(line, 80)
                ),
            ));
        }
    }
    let _ = ended; // A missing `*** End Patch` at the very end is tolerated.
    if patch.ops.is_empty() {
        return Err(ParseError { line: None, message: "the patch changes no file".into() });
    }
    Ok(patch)
}

/// The hunks of an envelope update starting at line `i`; returns them and the next line.
fn parse_envelope_hunks(lines: &[&str], mut i: usize) -> Result<(Vec<Hunk>, usize), ParseError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Hunk> = None;
    let mut anchors_pending: Vec<String> = Vec::new();
    // Empty lines at the end of a hunk are taken as separators, not as context.
    let mut trailing_blank = 0usize;
    let finish = |hunk: &mut Hunk, blank: usize| {
        for _ in 0..blank {
            hunk.old.pop();
            hunk.new.pop();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("*** ") && line.trim() != END_OF_FILE {
            break;
        }
        if !line.is_empty() && line.trim() != END_OF_FILE && !line.starts_with("@@") {
            trailing_blank = 0;
        }
        if line.trim() == END_OF_FILE {
            match current.as_mut() {
                Some(hunk) => hunk.at_eof = true,
                None => return Err(err(i, "`*** End of File` must follow a hunk")),
            }
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@") {
            if let Some(mut hunk) = current.take() {
                finish(&mut hunk, trailing_blank);
                hunks.push(hunk);
            }
            trailing_blank = 0;
            let anchor = rest.trim();
            if !anchor.is_empty() {
                anchors_pending.push(anchor.to_owned());
            }
            i += 1;
            continue;
        }
        let hunk =
            current.get_or_insert_with(|| Hunk { anchors: std::mem::take(&mut anchors_pending), ..Hunk::default() });
        match line.chars().next() {
            Some(' ') => {
                hunk.old.push(line[1..].to_owned());
                hunk.new.push(line[1..].to_owned());
            }
            None => {
                hunk.old.push(String::new());
                hunk.new.push(String::new());
                trailing_blank += 1;
            }
            Some('-') => {
                hunk.old.push(line[1..].to_owned());
                hunk.removed += 1;
            }
            Some('+') => {
                hunk.new.push(line[1..].to_owned());
                hunk.added += 1;
            }
            Some(_) => {
                return Err(err(
                    i,
                    format!(
                        "a hunk line must start with a space, `-` or `+`, found `{}`",
                        crate::file_io::text::clip(line, 80)
                    ),
                ));
            }
        }
        i += 1;
    }
    if let Some(mut hunk) = current {
        finish(&mut hunk, trailing_blank);
        hunks.push(hunk);
    }
    if !anchors_pending.is_empty() {
        return Err(err(i.saturating_sub(1), "an `@@` line is not followed by hunk lines"));
    }
    for hunk in &hunks {
        if hunk.added == 0 && hunk.removed == 0 {
            return Err(err(i.saturating_sub(1), "a hunk changes nothing (no `-` or `+` lines)"));
        }
    }
    Ok((hunks, i))
}

/// A unified-diff header path: timestamps after a tab and surrounding quotes dropped.
fn unified_path(raw: &str) -> String {
    let raw = raw.split('\t').next().unwrap_or(raw).trim_end();
    let raw = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
    raw.to_owned()
}

const DEV_NULL: &str = "/dev/null";

/// Drops git's `a/` and `b/` prefixes when both sides carry them (or are `/dev/null`).
fn strip_git_prefixes(old: &str, new: &str) -> (String, String) {
    let old_ok = old == DEV_NULL || old.starts_with("a/");
    let new_ok = new == DEV_NULL || new.starts_with("b/");
    if old_ok && new_ok && !(old == DEV_NULL && new == DEV_NULL) {
        let strip = |p: &str, prefix: &str| if p == DEV_NULL { p.to_owned() } else { p[prefix.len()..].to_owned() };
        (strip(old, "a/"), strip(new, "b/"))
    } else {
        (old.to_owned(), new.to_owned())
    }
}

/// `@@ -a,b +c,d @@` → (a, b, c, d), counts defaulting to 1.
fn hunk_header(line: &str) -> Option<(usize, usize, usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let end = rest.find(" @@")?;
    let mut parts = rest[..end].split(" +");
    let range = |s: &str| -> Option<(usize, usize)> {
        let mut it = s.split(',');
        let start = it.next()?.trim().parse().ok()?;
        let count = match it.next() {
            Some(c) => c.trim().parse().ok()?,
            None => 1,
        };
        Some((start, count))
    };
    let (a, b) = range(parts.next()?)?;
    let (c, d) = range(parts.next()?)?;
    Some((a, b, c, d))
}

/// A path named on a git extended header line, with that line.
type HeaderPath = Option<(usize, String)>;

fn parse_unified(lines: &[&str]) -> Result<Patch, ParseError> {
    let mut patch = Patch::default();
    let mut i = 0;
    // Git extended headers of the current `diff --git` section.
    let mut rename: (HeaderPath, HeaderPath) = (None, None);
    let mut mode_only: Option<(&str, String)> = None;
    let flush_git =
        |patch: &mut Patch, rename: &mut (HeaderPath, HeaderPath), mode_only: &mut Option<(&str, String)>| {
            if let (Some((from_line, from)), Some((to_line, to))) = (rename.0.take(), rename.1.take()) {
                patch.path_lines.push(PathLine { line: from_line, prefix: "rename from ".into(), path: from.clone() });
                patch.path_lines.push(PathLine { line: to_line, prefix: "rename to ".into(), path: to.clone() });
                patch.ops.push(FileOp::Update { path: from, move_to: Some(to), hunks: Vec::new() });
            }
            if let Some((kind, path)) = mode_only.take() {
                patch.ops.push(if kind == "new" {
                    FileOp::Add { path, content: String::new() }
                } else {
                    FileOp::Delete { path }
                });
            }
            *rename = (None, None);
        };
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("diff --git ") {
            flush_git(&mut patch, &mut rename, &mut mode_only);
            // For a mode-only add or delete: the path from `diff --git a/x b/x`.
            let b_path = rest.rsplit_once(" b/").map(|(_, p)| p.to_owned()).unwrap_or_default();
            let mut j = i + 1;
            while j < lines.len() && !lines[j].starts_with("diff --git ") && !lines[j].starts_with("--- ") {
                if let Some(from) = lines[j].strip_prefix("rename from ") {
                    rename.0 = Some((j, from.trim().to_owned()));
                } else if let Some(to) = lines[j].strip_prefix("rename to ") {
                    rename.1 = Some((j, to.trim().to_owned()));
                } else if lines[j].starts_with("new file mode") && !b_path.is_empty() {
                    mode_only = Some(("new", b_path.clone()));
                } else if lines[j].starts_with("deleted file mode") && !b_path.is_empty() {
                    mode_only = Some(("deleted", b_path.clone()));
                }
                j += 1;
            }
            if lines.get(j).is_some_and(|l| l.starts_with("--- ")) {
                // Real content follows: the ---/+++ section describes this file.
                mode_only = None;
                if rename.0.is_some() && rename.1.is_some() {
                    // A rename with changes: the headers below carry both paths.
                    rename = (None, None);
                }
            }
            i = j;
            continue;
        }
        if line.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ ")) {
            let old_raw = unified_path(&line[4..]);
            let new_raw = unified_path(&lines[i + 1][4..]);
            let (old, new) = strip_git_prefixes(&old_raw, &new_raw);
            if old != DEV_NULL {
                patch.path_lines.push(PathLine { line: i, prefix: "--- ".into(), path: old.clone() });
            }
            if new != DEV_NULL {
                patch.path_lines.push(PathLine { line: i + 1, prefix: "+++ ".into(), path: new.clone() });
            }
            let header = i;
            i += 2;
            let mut hunks = Vec::new();
            while let Some(line) = lines.get(i) {
                if !line.starts_with("@@ ") {
                    break;
                }
                let (hunk, next) = parse_unified_hunk(lines, i)?;
                hunks.push(hunk);
                i = next;
            }
            if old == DEV_NULL && new == DEV_NULL {
                return Err(err(header, "both sides of the diff are /dev/null"));
            }
            if old == DEV_NULL {
                let mut content = String::new();
                let mut no_newline = false;
                for hunk in &hunks {
                    for l in &hunk.new {
                        content.push_str(l);
                        content.push('\n');
                    }
                    no_newline = hunk.new_no_newline;
                }
                if no_newline {
                    content.pop();
                }
                patch.ops.push(FileOp::Add { path: new, content });
            } else if new == DEV_NULL {
                patch.ops.push(FileOp::Delete { path: old });
            } else {
                if hunks.is_empty() && old == new {
                    return Err(err(header, format!("the diff of {new} has no hunks")));
                }
                let move_to = (old != new).then(|| new.clone());
                patch.ops.push(FileOp::Update { path: old, move_to, hunks });
            }
            continue;
        }
        if line.starts_with("@@ ") {
            return Err(err(i, "a hunk without `--- ` and `+++ ` file headers before it"));
        }
        if line.starts_with("GIT binary patch") || (line.starts_with("Binary files ") && line.ends_with(" differ")) {
            return Err(err(i, "binary diffs cannot be applied; change binary files with Bash"));
        }
        // Anything else (index lines, commit messages, `Only in` …) is not part of a change.
        i += 1;
    }
    flush_git(&mut patch, &mut rename, &mut mode_only);
    if patch.ops.is_empty() {
        return Err(ParseError { line: None, message: "the diff changes no file".into() });
    }
    Ok(patch)
}

fn parse_unified_hunk(lines: &[&str], start: usize) -> Result<(Hunk, usize), ParseError> {
    let Some((old_start, old_count, _new_start, new_count)) = hunk_header(lines[start]) else {
        return Err(err(start, "a malformed hunk header; expected `@@ -start,count +start,count @@`"));
    };
    let mut hunk = Hunk { old_start: Some(old_start), ..Hunk::default() };
    let (mut old_seen, mut new_seen) = (0, 0);
    let mut i = start + 1;
    let mut last_side = ' ';
    while i < lines.len() && (old_seen < old_count || new_seen < new_count) {
        let line = lines[i];
        match line.chars().next() {
            Some(' ') | None => {
                let text = line.get(1..).unwrap_or("").to_owned();
                hunk.old.push(text.clone());
                hunk.new.push(text);
                old_seen += 1;
                new_seen += 1;
                last_side = ' ';
            }
            Some('-') => {
                hunk.old.push(line[1..].to_owned());
                hunk.removed += 1;
                old_seen += 1;
                last_side = '-';
            }
            Some('+') => {
                hunk.new.push(line[1..].to_owned());
                hunk.added += 1;
                new_seen += 1;
                last_side = '+';
            }
            Some('\\') => {
                mark_no_newline(&mut hunk, last_side);
            }
            Some(_) => {
                return Err(err(
                    i,
                    format!(
                        "the hunk starting on line {} promised {old_count} old and {new_count} new lines but has {old_seen} and {new_seen}",
                        start + 1
                    ),
                ));
            }
        }
        i += 1;
    }
    if old_seen < old_count || new_seen < new_count {
        return Err(err(start, "the hunk ends before the line counts in its header are reached"));
    }
    // A trailing `\ No newline at end of file` belongs to the last line.
    if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
        mark_no_newline(&mut hunk, last_side);
        i += 1;
    }
    Ok((hunk, i))
}

fn mark_no_newline(hunk: &mut Hunk, side: char) {
    match side {
        '-' => hunk.old_no_newline = true,
        '+' => hunk.new_no_newline = true,
        _ => {
            hunk.old_no_newline = true;
            hunk.new_no_newline = true;
        }
    }
}

/// `text` with the paths of the header lines in `patch` replaced by `map(path)`.
pub(crate) fn rewrite_paths(text: &str, patch: &Patch, map: impl Fn(&str) -> String) -> String {
    let ends_with_newline = text.ends_with('\n');
    let mut lines: Vec<String> = split_lines(text).into_iter().map(str::to_owned).collect();
    for pl in &patch.path_lines {
        if let Some(line) = lines.get_mut(pl.line) {
            *line = format!("{}{}", pl.prefix, map(&pl.path));
        }
    }
    let mut out = lines.join("\n");
    if ends_with_newline {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_with_every_operation() {
        let text = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+\n*** Delete File: old.txt\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@ def f():\n-    return 1\n+    return 2\n@@\n x\n-y\n+z\n*** End of File\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(
            patch.ops,
            vec![
                FileOp::Add { path: "new.txt".into(), content: "hello\n\n".into() },
                FileOp::Delete { path: "old.txt".into() },
                FileOp::Update {
                    path: "src/a.py".into(),
                    move_to: Some("src/b.py".into()),
                    hunks: vec![
                        Hunk {
                            anchors: vec!["def f():".into()],
                            old: vec!["    return 1".into()],
                            new: vec!["    return 2".into()],
                            added: 1,
                            removed: 1,
                            ..Hunk::default()
                        },
                        Hunk {
                            old: vec!["x".into(), "y".into()],
                            new: vec!["x".into(), "z".into()],
                            at_eof: true,
                            added: 1,
                            removed: 1,
                            ..Hunk::default()
                        },
                    ],
                },
            ]
        );
        assert_eq!(patch.path_lines.iter().map(|p| p.line).collect::<Vec<_>>(), [1, 4, 5, 6]);
    }

    #[test]
    fn envelope_errors_name_the_line() {
        let e = parse("*** Begin Patch\n*** Frobnicate: x\n*** End Patch\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse("*** Begin Patch\n*** Update File: a\n@@\n?oops\n*** End Patch").unwrap_err();
        assert_eq!(e.line, Some(4));
        let e = parse("*** Begin Patch\n*** Update File: a\n*** End Patch").unwrap_err();
        assert!(e.message.contains("no hunks"));
        assert!(parse("").is_err());
        assert!(parse("just some text").is_err());
    }

    #[test]
    fn heredoc_wrapper_is_tolerated() {
        let text = "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n";
        assert_eq!(parse(text).unwrap().ops, vec![FileOp::Delete { path: "x".into() }]);
    }

    #[test]
    fn unified_diff_with_git_prefixes_and_markers() {
        let text = "diff --git a/f.txt b/f.txt\nindex 1..2 100644\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\\ No newline at end of file\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.ops.len(), 3);
        let FileOp::Update { path, move_to, hunks } = &patch.ops[0] else { panic!() };
        assert_eq!((path.as_str(), move_to), ("f.txt", &None));
        assert_eq!(hunks[0].old, ["one", "two", "three"]);
        assert_eq!(hunks[0].new, ["one", "TWO", "three"]);
        assert_eq!(hunks[0].old_start, Some(1));
        assert!(hunks[0].old_no_newline && hunks[0].new_no_newline);
        assert_eq!(patch.ops[1], FileOp::Add { path: "new.txt".into(), content: "a\nb\n".into() });
        assert_eq!(patch.ops[2], FileOp::Delete { path: "gone.txt".into() });
    }

    #[test]
    fn unified_counts_keep_dashed_content_lines_inside_hunks() {
        let text = "--- x\n+++ x\n@@ -1,2 +1,2 @@\n--- not a header\n+++ also content\n keep\n";
        let patch = parse(text).unwrap();
        let FileOp::Update { hunks, .. } = &patch.ops[0] else { panic!() };
        assert_eq!(hunks[0].old, ["-- not a header", "keep"]);
        assert_eq!(hunks[0].new, ["++ also content", "keep"]);
    }

    #[test]
    fn git_pure_rename() {
        let text = "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n";
        let patch = parse(text).unwrap();
        assert_eq!(
            patch.ops,
            vec![FileOp::Update { path: "a.txt".into(), move_to: Some("b.txt".into()), hunks: vec![] }]
        );
    }

    #[test]
    fn short_hunks_are_errors() {
        let e = parse("--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n").unwrap_err();
        assert!(e.message.contains("ends before"), "{e}");
    }

    #[test]
    fn paths_are_rewritten_in_headers_only() {
        let text = "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a/x.txt\n+b\n";
        let patch = parse(text).unwrap();
        let out = rewrite_paths(text, &patch, |p| format!("/abs/{p}"));
        assert_eq!(out, "--- /abs/x.txt\n+++ /abs/x.txt\n@@ -1 +1 @@\n-a/x.txt\n+b\n");
        // The rewritten patch parses to the same operation with absolute paths.
        let again = parse(&out).unwrap();
        assert_eq!(again.ops[0].path(), "/abs/x.txt");
    }
}
