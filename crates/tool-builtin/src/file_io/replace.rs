//! The exact-match replacement behind Edit and MultiEdit.
//!
//! The file is handled as bytes, so everything outside the replaced text stays as it
//! was: line endings, a missing final newline, even bytes that are not UTF-8. `old_string`
//! is looked up in this order, and the first form that occurs is used:
//!
//! 1. as given;
//! 2. with `\n` as `\r\n`, when the file uses CRLF and `old_string` has bare `\n`;
//! 3. without a pasted Read line-number prefix on every line (`    12\t`, `12→` …);
//! 4. with curly quotes folded to straight ones, in both the file and `old_string`.
//!
//! `new_string` is written as given, except that its bare `\n` become `\r\n` in a CRLF
//! file and a pasted line-number prefix is dropped when `old_string` had one too.

use std::borrow::Cow;

use super::text::{
    Ending, clip, dominant_ending, find_all, fold_quotes, has_bare_lf, has_curly_quotes, lines_at, push_numbered,
    strip_line_number_prefixes, to_crlf,
};

/// One requested replacement.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Replacement<'a> {
    /// The text to find.
    pub old: &'a str,
    /// What replaces it.
    pub new: &'a str,
    /// Replace every occurrence instead of exactly one.
    pub all: bool,
}

/// How `old_string` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Matched {
    /// As given.
    Exact,
    /// With CRLF line endings.
    Crlf,
    /// After removing pasted line-number prefixes.
    LinePrefixStripped,
    /// With curly and straight quotes treated alike.
    QuotesFolded,
}

/// A replacement carried out in memory.
#[derive(Debug, Clone)]
pub(crate) struct Applied {
    /// The new content.
    pub content: Vec<u8>,
    /// How many occurrences were replaced.
    pub count: usize,
    /// The byte ranges of the inserted text in `content`.
    pub ranges: Vec<(usize, usize)>,
    /// The byte ranges that were replaced, in the old content.
    pub replaced: Vec<(usize, usize)>,
    /// How `old_string` was found.
    pub matched: Matched,
}

/// Why a replacement could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReplaceError {
    /// `old_string` and `new_string` are the same.
    NoChange,
    /// `old_string` is empty (creating files is the caller's business).
    EmptyOld,
    /// `old_string` does not occur; `nearest` shows the closest text, numbered.
    NotFound { nearest: Option<String> },
    /// `old_string` occurs `count` times (on `lines`) and `replace_all` is false.
    Ambiguous { count: usize, lines: Vec<usize> },
}

impl ReplaceError {
    /// The sentence for the model and the hint, for a file shown as `path`; `old` is the
    /// requested `old_string`.
    pub(crate) fn describe(&self, path: &str, old: &str) -> (String, String) {
        match self {
            Self::NoChange => (
                "No changes to make: old_string and new_string are exactly the same.".to_owned(),
                "Put the text you want in the file into new_string.".to_owned(),
            ),
            Self::EmptyOld => (
                format!("old_string is empty, but {path} already has content."),
                "Quote the exact text to replace in old_string (Read the file first); to replace the whole file, use Write."
                    .to_owned(),
            ),
            Self::NotFound { nearest } => {
                let message = format!("String to replace not found in {path}.\nString: {}", clip(old, 300));
                let hint = match nearest {
                    Some(nearest) => format!(
                        "old_string must match the file exactly, including whitespace and indentation. The closest text in the file is:\n{nearest}Read the file again and copy old_string from it, without the line-number prefixes."
                    ),
                    None => "old_string must match the file exactly, including whitespace and indentation. Read the file again and copy old_string from it, without the line-number prefixes.".to_owned(),
                };
                (message, hint)
            }
            Self::Ambiguous { count, lines } => {
                let shown: Vec<String> = lines.iter().take(10).map(ToString::to_string).collect();
                let more = if lines.len() > 10 { ", …" } else { "" };
                (
                    format!(
                        "Found {count} matches of the string to replace in {path} (lines {}{more}), but replace_all is false.\nString: {}",
                        shown.join(", "),
                        clip(old, 300)
                    ),
                    "To replace every occurrence, set replace_all to true. To replace just one, add surrounding lines to old_string so that it matches only there.".to_owned(),
                )
            }
        }
    }
}

/// One way of looking for `old_string`.
struct Form<'a> {
    old: Cow<'a, str>,
    new: Cow<'a, str>,
    matched: Matched,
}

/// The forms of the request to try, in order (see the module docs).
fn forms<'a>(content: &[u8], r: &Replacement<'a>, ending: Ending) -> Vec<Form<'a>> {
    let crlf_file = ending == Ending::CrLf || content.windows(2).any(|w| w == b"\r\n");
    let mut out = vec![Form { old: Cow::Borrowed(r.old), new: Cow::Borrowed(r.new), matched: Matched::Exact }];
    if crlf_file && has_bare_lf(r.old) {
        out.push(Form { old: Cow::Owned(to_crlf(r.old)), new: Cow::Owned(to_crlf(r.new)), matched: Matched::Crlf });
    }
    if let Some(old) = strip_line_number_prefixes(r.old) {
        let new = strip_line_number_prefixes(r.new).unwrap_or_else(|| r.new.to_owned());
        if crlf_file && has_bare_lf(&old) {
            out.push(Form {
                old: Cow::Owned(to_crlf(&old)),
                new: Cow::Owned(to_crlf(&new)),
                matched: Matched::LinePrefixStripped,
            });
        }
        out.push(Form { old: Cow::Owned(old), new: Cow::Owned(new), matched: Matched::LinePrefixStripped });
    }
    out
}

/// Replaces `r.old` with `r.new` in `content` (see the module docs for how it is found).
///
/// # Errors
///
/// [`ReplaceError`] when the strings are equal, `old` is empty, not found, or found more
/// than once without `all`.
pub(crate) fn apply(content: &[u8], r: &Replacement<'_>) -> Result<Applied, ReplaceError> {
    if r.old == r.new {
        return Err(ReplaceError::NoChange);
    }
    if r.old.is_empty() {
        return Err(ReplaceError::EmptyOld);
    }
    let ending = dominant_ending(content);
    let forms = forms(content, r, ending);
    let mut found: Option<(Vec<(usize, usize)>, &Form<'_>)> = None;
    for form in &forms {
        let needle = form.old.as_bytes();
        let starts = find_all(content, needle);
        if !starts.is_empty() {
            found = Some((starts.into_iter().map(|s| (s, s + needle.len())).collect(), form));
            break;
        }
    }
    let mut quotes_form = None;
    if found.is_none() && (has_curly_quotes(content) || has_curly_quotes(r.old.as_bytes())) {
        let (folded, map) = fold_quotes(content);
        for form in &forms {
            let (needle, _) = fold_quotes(form.old.as_bytes());
            let starts = find_all(&folded, &needle);
            if !starts.is_empty() {
                let spans = starts.into_iter().map(|s| (map[s], map[s + needle.len()])).collect();
                quotes_form =
                    Some(Form { old: form.old.clone(), new: form.new.clone(), matched: Matched::QuotesFolded });
                found = Some((spans, form));
                break;
            }
        }
    }
    let Some((spans, form)) = found else {
        return Err(ReplaceError::NotFound { nearest: nearest_text(content, r.old) });
    };
    let matched = quotes_form.as_ref().map_or(form.matched, |f| f.matched);
    if spans.len() > 1 && !r.all {
        let lines = lines_at(content, &spans.iter().map(|s| s.0).collect::<Vec<_>>());
        return Err(ReplaceError::Ambiguous { count: spans.len(), lines });
    }
    let new_text: Cow<'_, str> = if ending == Ending::CrLf && has_bare_lf(&form.new) {
        Cow::Owned(to_crlf(&form.new))
    } else {
        form.new.clone()
    };
    let new_bytes = new_text.as_bytes();
    let mut out = Vec::with_capacity(content.len() + spans.len() * new_bytes.len());
    let mut ranges = Vec::with_capacity(spans.len());
    let mut pos = 0;
    for &(start, end) in &spans {
        out.extend_from_slice(&content[pos..start]);
        ranges.push((out.len(), out.len() + new_bytes.len()));
        out.extend_from_slice(new_bytes);
        pos = end;
    }
    out.extend_from_slice(&content[pos..]);
    Ok(Applied { content: out, count: spans.len(), ranges, replaced: spans, matched })
}

/// Moves byte ranges of an earlier state through a replacement: each offset shifts by
/// the size change of the replacements before it; an offset inside a replaced span moves
/// to that span's start. Used by MultiEdit to keep earlier edits' regions for the final
/// snippet.
pub(crate) fn remap(ranges: &[(usize, usize)], applied: &Applied) -> Vec<(usize, usize)> {
    let map = |x: usize| -> usize {
        let mut shifted = x as i128;
        for (&(old_start, old_end), &(new_start, new_end)) in applied.replaced.iter().zip(&applied.ranges) {
            if x >= old_end {
                shifted += (new_end - new_start) as i128 - (old_end - old_start) as i128;
            } else if x >= old_start {
                return new_start;
            } else {
                break;
            }
        }
        usize::try_from(shifted).unwrap_or(0)
    };
    ranges.iter().map(|&(a, b)| (map(a), map(b).max(map(a)))).collect()
}

/// The lines of `content` most like `old`, numbered, or `None` when nothing is close.
///
/// Every line is compared with `old`'s first non-blank line (whitespace ignored first,
/// then a character-level similarity of at least 0.6); the best window of as many lines
/// as `old` has is shown, plus a second one when it is as good.
pub(crate) fn nearest_text(content: &[u8], old: &str) -> Option<String> {
    const MAX_BYTES: usize = 4 * 1024 * 1024;
    const MAX_SHOWN_LINES: usize = 12;
    if content.len() > MAX_BYTES {
        return None;
    }
    let text = String::from_utf8_lossy(content);
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let old = strip_line_number_prefixes(old).unwrap_or_else(|| old.to_owned());
    let old_lines: Vec<&str> = old.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let (probe_index, probe) = old_lines.iter().enumerate().find(|(_, l)| !l.trim().is_empty())?;
    let probe_squashed: String = probe.split_whitespace().collect();
    let probe_trimmed = probe.trim();
    let mut scored: Vec<(f32, usize)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let score = if trimmed.split_whitespace().collect::<String>() == probe_squashed {
            1.0
        } else {
            let (a, b) = (trimmed.len(), probe_trimmed.len());
            if a * 2 < b || b * 2 < a {
                continue;
            }
            similar::TextDiff::from_chars(trimmed, probe_trimmed).ratio()
        };
        if score >= 0.6 {
            scored.push((score, i));
        }
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    let best = scored.first()?.0;
    let window = old_lines.len().clamp(1, MAX_SHOWN_LINES);
    let mut out = String::new();
    for &(score, i) in scored.iter().take(2) {
        if score + 0.05 < best {
            break;
        }
        let start = i.saturating_sub(probe_index);
        if !out.is_empty() {
            out.push_str("   ...\n");
        }
        for (j, line) in lines.iter().enumerate().skip(start).take(window) {
            push_numbered(&mut out, j as u64 + 1, line);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(content: &str, old: &str, new: &str, all: bool) -> Result<(String, Matched), ReplaceError> {
        apply(content.as_bytes(), &Replacement { old, new, all })
            .map(|a| (String::from_utf8(a.content).unwrap(), a.matched))
    }

    #[test]
    fn exact_unique_replacement() {
        assert_eq!(run("a b c", "b", "B", false).unwrap(), ("a B c".into(), Matched::Exact));
    }

    #[test]
    fn ambiguity_lists_lines() {
        let err = run("x\nfoo\nfoo\n", "foo", "bar", false).unwrap_err();
        assert_eq!(err, ReplaceError::Ambiguous { count: 2, lines: vec![2, 3] });
        assert_eq!(run("x\nfoo\nfoo\n", "foo", "bar", true).unwrap().0, "x\nbar\nbar\n");
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let (out, how) = run("one\r\ntwo\r\nthree\r\n", "one\ntwo\n", "1\n2\n2b\n", false).unwrap();
        assert_eq!(out, "one\r\n".replace("one", "1") + "2\r\n2b\r\nthree\r\n");
        assert_eq!(how, Matched::Crlf);
        // A single-line match still gets CRLF in multi-line new text.
        let (out, _) = run("a\r\nb\r\n", "a", "x\ny", false).unwrap();
        assert_eq!(out, "x\r\ny\r\nb\r\n");
    }

    #[test]
    fn missing_final_newline_is_kept() {
        assert_eq!(run("a\nb", "b", "c", false).unwrap().0, "a\nc");
    }

    #[test]
    fn pasted_line_numbers_are_tolerated() {
        let (out, how) = run("fn a() {\n    x();\n}\n", "     2\t    x();", "     2\t    y();", false).unwrap();
        assert_eq!(out, "fn a() {\n    y();\n}\n");
        assert_eq!(how, Matched::LinePrefixStripped);
    }

    #[test]
    fn curly_quotes_match_straight_ones_both_ways() {
        let (out, how) = run("say \"hi\"\n", "say “hi”", "say “bye”", false).unwrap();
        assert_eq!(out, "say “bye”\n");
        assert_eq!(how, Matched::QuotesFolded);
        let (out, _) = run("it’s here\n", "it's here", "it is here", false).unwrap();
        assert_eq!(out, "it is here\n");
    }

    #[test]
    fn non_utf8_bytes_around_the_match_survive() {
        let content = b"caf\xe9 = 1\nx = 2\n";
        let a = apply(content, &Replacement { old: "x = 2", new: "x = 3", all: false }).unwrap();
        assert_eq!(a.content, b"caf\xe9 = 1\nx = 3\n");
    }

    #[test]
    fn not_found_shows_the_nearest_lines() {
        let content = "fn main() {\n    let value = compute(1);\n    println!(\"{value}\");\n}\n";
        let err = run(content, "let value = compute(2);", "x", false).unwrap_err();
        let ReplaceError::NotFound { nearest: Some(nearest) } = err else { panic!("{err:?}") };
        assert_eq!(nearest, "     2\t    let value = compute(1);\n");
        assert!(matches!(run(content, "zzzz qqqq", "x", false).unwrap_err(), ReplaceError::NotFound { nearest: None }));
    }

    #[test]
    fn remap_follows_earlier_regions() {
        let first = apply(b"aaa bbb ccc", &Replacement { old: "aaa", new: "A", all: false }).unwrap();
        let second = apply(&first.content, &Replacement { old: "ccc", new: "CCCCC", all: false }).unwrap();
        let moved = remap(&first.ranges, &second);
        assert_eq!(moved, [(0, 1)]);
        let third = apply(&second.content, &Replacement { old: "A", new: "xyz", all: false }).unwrap();
        assert_eq!(remap(&second.ranges, &third), [(8, 13)]);
    }
}
