//! Text helpers of the file tools: `cat -n` numbering, line endings, pasted line-number
//! prefixes, curly-quote folding, byte search, snippets of edited regions, diff
//! statistics and Claude Code's `structuredPatch` shape for hooks.

use std::time::Duration;

use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};

/// Inputs larger than this are not diffed (the summary then says less).
const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;

/// How long a diff may take before it settles for a coarser answer.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// Appends one line in the `cat -n` shape: the number right-aligned in six columns, a
/// tab, the text, a newline.
pub(crate) fn push_numbered(out: &mut String, number: u64, text: &str) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "{number:>6}\t{text}");
}

/// The line ending a file mostly uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

impl Ending {
    /// The ending's bytes.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Lf => "\n",
            Self::CrLf => "\r\n",
        }
    }
}

/// The line ending used by most of `bytes`' lines (`\n` when there are none).
pub(crate) fn dominant_ending(bytes: &[u8]) -> Ending {
    let mut crlf = 0usize;
    let mut lf = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            if i > 0 && bytes[i - 1] == b'\r' {
                crlf += 1;
            } else {
                lf += 1;
            }
        }
    }
    if crlf > lf { Ending::CrLf } else { Ending::Lf }
}

/// `text` with every bare `\n` turned into `\r\n` (existing `\r\n` kept).
pub(crate) fn to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// Whether `text` has a `\n` not preceded by `\r`.
pub(crate) fn has_bare_lf(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| b == b'\n' && (i == 0 || bytes[i - 1] != b'\r'))
}

/// The rest of `line` after a Read line-number prefix, if it has one. Three shapes are
/// recognised, as Read tools have printed them: spaces, digits and a tab (`cat -n`);
/// spaces, digits and `→`; and either without the padding.
fn after_line_prefix(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ');
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let rest = &rest[digits..];
    rest.strip_prefix('\t').or_else(|| rest.strip_prefix('→'))
}

/// `text` with a pasted line-number prefix removed from every line, when every line
/// has one (a trailing empty line after a final newline is allowed); otherwise `None`.
pub(crate) fn strip_line_number_prefixes(text: &str) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let is_last = lines.peek().is_none();
        if is_last && line.is_empty() {
            break;
        }
        let (body, cr) = match line.strip_suffix('\r') {
            Some(body) => (body, "\r"),
            None => (line, ""),
        };
        out.push_str(after_line_prefix(body)?);
        out.push_str(cr);
        if !is_last {
            out.push('\n');
        }
    }
    Some(out)
}

/// `bytes` with curly quotes folded to straight ones (‘ ’ to `'`, “ ” to `"`), and for
/// every byte of the result (plus one past the end) the offset of the byte it came from.
pub(crate) fn fold_quotes(bytes: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::with_capacity(bytes.len());
    let mut map = Vec::with_capacity(bytes.len() + 1);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0xE2 && i + 2 < bytes.len() && bytes[i + 1] == 0x80 {
            let folded = match bytes[i + 2] {
                0x98 | 0x99 => Some(b'\''),
                0x9C | 0x9D => Some(b'"'),
                _ => None,
            };
            if let Some(folded) = folded {
                out.push(folded);
                map.push(i);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        map.push(i);
        i += 1;
    }
    map.push(bytes.len());
    (out, map)
}

/// Whether `bytes` holds a curly quote.
pub(crate) fn has_curly_quotes(bytes: &[u8]) -> bool {
    bytes.windows(3).any(|w| w[0] == 0xE2 && w[1] == 0x80 && matches!(w[2], 0x98 | 0x99 | 0x9C | 0x9D))
}

/// The start offsets of the non-overlapping occurrences of `needle` in `hay`, left to
/// right. An empty needle matches nowhere.
pub(crate) fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let Some((&first, _)) = needle.split_first() else {
        return found;
    };
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        match hay[i..=hay.len() - needle.len()].iter().position(|&b| b == first) {
            None => break,
            Some(skip) => {
                let at = i + skip;
                if &hay[at..at + needle.len()] == needle {
                    found.push(at);
                    i = at + needle.len();
                } else {
                    i = at + 1;
                }
            }
        }
    }
    found
}

/// The number of lines of `bytes` (`cat -n` would print): newlines, plus one for a final
/// line without one.
pub(crate) fn count_lines(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// The 1-based line of each of `offsets` in `bytes`, in one pass over the bytes.
pub(crate) fn lines_at(bytes: &[u8], offsets: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![1; offsets.len()];
    let (mut pos, mut line) = (0usize, 1usize);
    for i in order {
        let target = offsets[i].min(bytes.len());
        line += bytes[pos..target].iter().filter(|&&b| b == b'\n').count();
        pos = target;
        out[i] = line;
    }
    out
}

/// The lines of `bytes` around the byte `ranges`, `context` lines either side, numbered
/// in the `cat -n` shape; groups far apart are separated by a `...` line. At most
/// `max_lines` lines are shown; a note says when more changed.
pub(crate) fn snippet(bytes: &[u8], ranges: &[(usize, usize)], context: usize, max_lines: usize) -> String {
    let total = count_lines(bytes).max(1);
    let offsets: Vec<usize> = ranges.iter().flat_map(|&(start, end)| [start, end.max(start + 1) - 1]).collect();
    let lines = lines_at(bytes, &offsets);
    let mut spans: Vec<(usize, usize)> = lines
        .chunks(2)
        .map(|pair| {
            let (first, last) = (pair[0], pair[pair.len() - 1].max(pair[0]));
            (first.saturating_sub(context).max(1), (last + context).min(total))
        })
        .collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let mut out = String::new();
    let mut shown = 0usize;
    let mut spans = merged.iter().peekable();
    let mut started = false;
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = index + 1;
        if line_no > total {
            break;
        }
        while spans.peek().is_some_and(|&&(_, b)| b < line_no) {
            spans.next();
        }
        let Some(&&(a, _)) = spans.peek() else { break };
        if line_no < a {
            continue;
        }
        if shown >= max_lines {
            out.push_str("   ... (more changed lines not shown)\n");
            break;
        }
        if line_no == a && started {
            out.push_str("   ...\n");
        }
        started = true;
        let text = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line));
        push_numbered(&mut out, line_no as u64, &text);
        shown += 1;
    }
    out
}

/// Lines added and removed between `old` and `new`; `None` when they are too large to
/// diff.
pub(crate) fn diff_stat(old: &str, new: &str) -> Option<(usize, usize)> {
    if old.len() + new.len() > MAX_DIFF_BYTES {
        return None;
    }
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).diff_lines(old, new);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    Some((added, removed))
}

/// The change from `old` to `new` as Claude Code's `structuredPatch`: hunks of
/// `{oldStart, oldLines, newStart, newLines, lines}` with `' '`, `'-'` and `'+'`
/// prefixed lines and three lines of context; `None` when too large to diff.
pub(crate) fn structured_patch(old: &str, new: &str) -> Option<Value> {
    if old.len() + new.len() > MAX_DIFF_BYTES {
        return None;
    }
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).diff_lines(old, new);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let text = change.value();
                let text = text.strip_suffix('\n').unwrap_or(text);
                let text = text.strip_suffix('\r').unwrap_or(text);
                lines.push(format!("{sign}{text}"));
            }
        }
        hunks.push(json!({
            "oldStart": old_range.start + 1,
            "oldLines": old_range.len(),
            "newStart": new_range.start + 1,
            "newLines": new_range.len(),
            "lines": lines,
        }));
    }
    Some(Value::Array(hunks))
}

/// `n` and `word`, plural when `n` is not 1: `1 line`, `3 lines`.
pub(crate) fn plural(n: impl Into<u64>, word: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// `text` cut to at most `max` chars, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_is_cat_n() {
        let mut out = String::new();
        push_numbered(&mut out, 7, "x");
        push_numbered(&mut out, 1_234_567, "y");
        assert_eq!(out, "     7\tx\n1234567\ty\n");
    }

    #[test]
    fn endings_are_detected_and_converted() {
        assert_eq!(dominant_ending(b"a\r\nb\r\nc\n"), Ending::CrLf);
        assert_eq!(dominant_ending(b"a\nb\r\n"), Ending::Lf);
        assert_eq!(dominant_ending(b"none"), Ending::Lf);
        assert_eq!(to_crlf("a\nb\r\nc"), "a\r\nb\r\nc");
        assert!(has_bare_lf("a\nb") && !has_bare_lf("a\r\nb") && !has_bare_lf("ab"));
    }

    #[test]
    fn all_three_line_number_prefix_shapes_are_stripped() {
        assert_eq!(strip_line_number_prefixes("    12\tfn main() {\n    13\t    x\n").unwrap(), "fn main() {\n    x\n");
        assert_eq!(strip_line_number_prefixes("    12→fn main() {\n    13→\tx").unwrap(), "fn main() {\n\tx");
        assert_eq!(strip_line_number_prefixes("12\tfoo\n13→bar").unwrap(), "foo\nbar");
        // Every line must carry one.
        assert_eq!(strip_line_number_prefixes("12\tfoo\nbar"), None);
        assert_eq!(strip_line_number_prefixes("plain"), None);
        assert_eq!(strip_line_number_prefixes("2024 was a year"), None);
    }

    #[test]
    fn quotes_fold_with_an_offset_map() {
        let text = "say “hi” it’s".as_bytes();
        let (folded, map) = fold_quotes(text);
        assert_eq!(folded, b"say \"hi\" it's");
        assert_eq!(map.len(), folded.len() + 1);
        // The folded `"` before `hi` came from byte 4; `h` from byte 7.
        assert_eq!(map[4], 4);
        assert_eq!(map[5], 7);
        assert_eq!(*map.last().unwrap(), text.len());
        assert!(has_curly_quotes(text) && !has_curly_quotes(b"plain 'x'"));
    }

    #[test]
    fn find_all_is_non_overlapping() {
        assert_eq!(find_all(b"aaaa", b"aa"), [0, 2]);
        assert_eq!(find_all(b"abcabc", b"bc"), [1, 4]);
        assert!(find_all(b"abc", b"").is_empty());
        assert!(find_all(b"ab", b"abc").is_empty());
    }

    #[test]
    fn lines_are_counted_like_cat_n() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\n\n"), 2);
        assert_eq!(lines_at(b"a\nb\nc", &[4, 0, 2]), [3, 1, 2]);
    }

    #[test]
    fn snippets_merge_close_regions_and_separate_far_ones() {
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let bytes = text.as_bytes();
        let at = |line: usize| text.find(&format!("line {line}\n")).unwrap();
        let s = snippet(bytes, &[(at(5), at(5) + 6), (at(7), at(7) + 6), (at(25), at(25) + 6)], 1, 100);
        assert_eq!(
            s,
            "     4\tline 4\n     5\tline 5\n     6\tline 6\n     7\tline 7\n     8\tline 8\n   ...\n    24\tline 24\n    25\tline 25\n    26\tline 26\n"
        );
        let capped = snippet(bytes, &[(at(5), at(20))], 0, 3);
        assert!(capped.ends_with("(more changed lines not shown)\n"), "{capped}");
    }

    #[test]
    fn structured_patch_has_claude_code_hunks() {
        let patch = structured_patch("a\nb\nc\n", "a\nB\nc\n").unwrap();
        assert_eq!(
            patch,
            json!([{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3, "lines": [" a", "-b", "+B", " c"]}])
        );
        assert_eq!(diff_stat("a\nb\n", "a\nc\nd\n"), Some((2, 1)));
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1u64, "line"), "1 line");
        assert_eq!(plural(0u64, "line"), "0 lines");
    }

    #[test]
    fn clip_marks_the_cut() {
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("hi", 5), "hi");
    }
}
