//! Applying an update's hunks to a file's text, in memory.
//!
//! Each hunk's old lines are looked for at or after the end of the previous hunk: first
//! exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace and
//! typographic quote and dash differences. An envelope hunk's `@@` anchor lines are found
//! first and narrow the search to what follows them; a unified hunk's line number is a
//! hint, tried first. Lines the patch does not touch keep their own line endings; new
//! lines take the file's usual ending, and the final newline stays as it was unless a
//! unified `\ No newline at end of file` marker says otherwise.

use super::parse::Hunk;
use crate::file_io::text::{Ending, dominant_ending};

/// A file as lines, each with its own ending (`None`: the file's usual one, or none for
/// a last line without a final newline).
#[derive(Debug, Clone)]
struct Lines {
    text: Vec<String>,
    endings: Vec<Option<&'static str>>,
    final_newline: bool,
    ending: Ending,
}

impl Lines {
    fn parse(text: &str) -> Self {
        let ending = dominant_ending(text.as_bytes());
        let mut lines = Vec::new();
        let mut endings = Vec::new();
        for piece in text.split_inclusive('\n') {
            if let Some(body) = piece.strip_suffix("\r\n") {
                lines.push(body.to_owned());
                endings.push(Some("\r\n"));
            } else if let Some(body) = piece.strip_suffix('\n') {
                lines.push(body.to_owned());
                endings.push(Some("\n"));
            } else {
                lines.push(piece.to_owned());
                endings.push(None);
            }
        }
        let final_newline = text.is_empty() || text.ends_with('\n');
        Self { text: lines, endings, final_newline, ending }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        let last = self.text.len().saturating_sub(1);
        for (i, line) in self.text.iter().enumerate() {
            out.push_str(line);
            if i < last || self.final_newline {
                out.push_str(self.endings[i].unwrap_or(self.ending.as_str()));
            }
        }
        out
    }
}

/// Why a hunk does not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HunkError {
    /// The 0-based hunk.
    pub index: usize,
    /// What was not found.
    pub message: String,
    /// The lines that were looked for, to help find the nearest text.
    pub wanted: String,
}

/// How strictly two lines must agree.
#[derive(Debug, Clone, Copy)]
enum Level {
    Exact,
    TrimEnd,
    Loose,
}

fn normalize_loose(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' => ' ',
            other => other,
        })
        .collect()
}

fn same(a: &str, b: &str, level: Level) -> bool {
    match level {
        Level::Exact => a == b,
        Level::TrimEnd => a.trim_end() == b.trim_end(),
        Level::Loose => normalize_loose(a) == normalize_loose(b),
    }
}

fn matches_at(lines: &[String], at: usize, wanted: &[String], level: Level) -> bool {
    at + wanted.len() <= lines.len() && wanted.iter().enumerate().all(|(k, w)| same(&lines[at + k], w, level))
}

/// The first position at or after `from` where `wanted` matches, trying `preferred`
/// positions first, at the strictest level that finds one.
fn find(lines: &[String], wanted: &[String], from: usize, preferred: &[usize]) -> Option<usize> {
    for level in [Level::Exact, Level::TrimEnd, Level::Loose] {
        if let Some(&at) = preferred.iter().find(|&&at| at >= from && matches_at(lines, at, wanted, level)) {
            return Some(at);
        }
        let last = lines.len().checked_sub(wanted.len())?;
        if let Some(at) = (from..=last).find(|&at| matches_at(lines, at, wanted, level)) {
            return Some(at);
        }
    }
    None
}

/// `text` with `hunks` applied.
///
/// # Errors
///
/// The first hunk (or anchor) whose lines are not found.
pub(crate) fn apply_hunks(text: &str, hunks: &[Hunk]) -> Result<String, HunkError> {
    let mut file = Lines::parse(text);
    let mut cursor = 0usize;
    let mut delta: isize = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        for anchor in &hunk.anchors {
            let wanted = [anchor.clone()];
            match find(&file.text, &wanted, cursor, &[]) {
                Some(at) => cursor = at + 1,
                None => {
                    return Err(HunkError {
                        index,
                        message: format!("its `@@ {anchor}` line was not found after line {cursor}"),
                        wanted: anchor.clone(),
                    });
                }
            }
        }
        let hint = hunk.old_start.map(|start| {
            // `-0,0` inserts before the first line; `-l,0` inserts after line l.
            let base = if hunk.old.is_empty() { start } else { start.saturating_sub(1) };
            usize::try_from(base as isize + delta).unwrap_or(0)
        });
        let at = if hunk.old.is_empty() {
            if !hunk.anchors.is_empty() {
                cursor
            } else if let Some(hint) = hint.filter(|_| !hunk.at_eof) {
                hint.clamp(cursor, file.text.len())
            } else {
                file.text.len()
            }
        } else {
            let mut preferred = Vec::new();
            if hunk.at_eof && file.text.len() >= hunk.old.len() {
                preferred.push(file.text.len() - hunk.old.len());
            }
            if let Some(hint) = hint {
                preferred.push(hint);
            }
            match find(&file.text, &hunk.old, cursor, &preferred) {
                Some(at) => at,
                None => {
                    let where_ = if cursor == 0 { String::new() } else { format!(" after line {cursor}") };
                    return Err(HunkError {
                        index,
                        message: format!(
                            "its {} to replace {} not found{where_}",
                            crate::file_io::text::plural(hunk.old.len() as u64, "line"),
                            if hunk.old.len() == 1 { "was" } else { "were" }
                        ),
                        wanted: hunk.old.join("\n"),
                    });
                }
            }
        };
        let end = at + hunk.old.len();
        let touches_end = end == file.text.len();
        // Context lines keep their own endings; replaced and new lines take the usual one.
        let kept: Vec<Option<&'static str>> = (0..hunk.new.len())
            .map(|k| {
                let old_k = hunk.old.get(k).filter(|o| Some(*o) == hunk.new.get(k));
                old_k.and_then(|_| file.endings.get(at + k).copied().flatten())
            })
            .collect();
        file.text.splice(at..end, hunk.new.iter().cloned());
        file.endings.splice(at..end, kept);
        if touches_end {
            if hunk.new_no_newline {
                file.final_newline = false;
            } else if hunk.old_no_newline {
                file.final_newline = true;
            }
        }
        cursor = at + hunk.new.len();
        delta += hunk.new.len() as isize - hunk.old.len() as isize;
    }
    if file.text.is_empty() {
        return Ok(String::new());
    }
    Ok(file.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(old: &[&str], new: &[&str]) -> Hunk {
        Hunk {
            old: old.iter().map(|s| (*s).to_owned()).collect(),
            new: new.iter().map(|s| (*s).to_owned()).collect(),
            ..Hunk::default()
        }
    }

    #[test]
    fn hunks_apply_in_order() {
        let text = "a\nb\nc\nb\n";
        let out = apply_hunks(text, &[hunk(&["b"], &["B"]), hunk(&["b"], &["BB"])]).unwrap();
        assert_eq!(out, "a\nB\nc\nBB\n");
    }

    #[test]
    fn anchors_narrow_the_search() {
        let text = "def a():\n    return 1\ndef b():\n    return 1\n";
        let mut h = hunk(&["    return 1"], &["    return 2"]);
        h.anchors = vec!["def b():".into()];
        assert_eq!(apply_hunks(text, &[h]).unwrap(), "def a():\n    return 1\ndef b():\n    return 2\n");
    }

    #[test]
    fn whitespace_and_typography_are_tolerated_in_that_order() {
        let text = "x = 1   \ny = “q”\n";
        let out = apply_hunks(text, &[hunk(&["x = 1"], &["x = 2"]), hunk(&["y = \"q\""], &["y = 'q'"])]).unwrap();
        assert_eq!(out, "x = 2\ny = 'q'\n");
    }

    #[test]
    fn crlf_and_missing_final_newline_survive() {
        let text = "one\r\ntwo\r\nthree";
        let out = apply_hunks(text, &[hunk(&["two"], &["2", "2b"])]).unwrap();
        assert_eq!(out, "one\r\n2\r\n2b\r\nthree");
    }

    #[test]
    fn unified_markers_change_the_final_newline() {
        let mut h = hunk(&["last"], &["last"]);
        h.old_no_newline = true;
        h.added = 0;
        assert_eq!(apply_hunks("first\nlast", &[h]).unwrap(), "first\nlast\n");
    }

    #[test]
    fn unified_hints_pick_the_right_occurrence() {
        let text = "x\ny\nx\ny\n";
        let mut h = hunk(&["x"], &["X"]);
        h.old_start = Some(3);
        assert_eq!(apply_hunks(text, &[h]).unwrap(), "x\ny\nX\ny\n");
        let mut insert = hunk(&[], &["new"]);
        insert.old_start = Some(0);
        assert_eq!(apply_hunks("a\n", &[insert]).unwrap(), "new\na\n");
    }

    #[test]
    fn end_of_file_hunks_prefer_the_end() {
        let mut h = hunk(&["x"], &["X"]);
        h.at_eof = true;
        assert_eq!(apply_hunks("x\nx\n", &[h]).unwrap(), "x\nX\n");
        // A pure addition with no position goes at the end.
        assert_eq!(apply_hunks("a\n", &[hunk(&[], &["b"])]).unwrap(), "a\nb\n");
    }

    #[test]
    fn a_missing_hunk_is_reported() {
        let err = apply_hunks("a\nb\n", &[hunk(&["b"], &["B"]), hunk(&["zzz"], &["Z"])]).unwrap_err();
        assert_eq!(err.index, 1);
        assert!(err.message.contains("after line 2"), "{}", err.message);
    }
}
