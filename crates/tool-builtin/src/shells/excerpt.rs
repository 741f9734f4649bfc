//! Output too long for the model: keep the beginning and the end, say what was cut and
//! where the whole of it is.
//!
//! A [`Capture`] collects a run's output with bounded memory: the first [`SAVE_CAP`] bytes
//! whole, then only the last [`TAIL_CAP`] bytes. [`render`] turns it into the text the
//! model reads: the whole output when it fits in the character limit, else about half the
//! limit from the start and half from the end (cut at line breaks when one is near) around
//! a marker such as
//!
//! ```text
//! ... [95,000 lines (541,023 chars) omitted: lines 2,501-97,500 of 100,000. Full output saved to
//! /s/tool-results/bash-toolu_1.txt; Read it with offset 2501 to see them, or Grep it] ...
//! ```
//!
//! The full text is saved (by the caller's `save`) only when something is cut. Invalid UTF-8
//! becomes U+FFFD; trailing newlines are dropped.

use std::collections::VecDeque;
use std::path::PathBuf;

use super::drive::OutputSink;
use super::group_digits;

/// Bytes of output kept whole (and saved whole when the shown text is cut).
pub(crate) const SAVE_CAP: usize = 8 * 1024 * 1024;

/// Bytes of the end of the output kept once more than [`SAVE_CAP`] has arrived.
pub(crate) const TAIL_CAP: usize = 1024 * 1024;

/// Collects output: the first bytes up to a cap, then a ring of the last bytes.
#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    head_cap: usize,
    tail: VecDeque<u8>,
    tail_cap: usize,
    total: u64,
}

impl Capture {
    /// A capture keeping [`SAVE_CAP`] bytes whole and [`TAIL_CAP`] of the end.
    pub(crate) fn new() -> Self {
        Self::with_caps(SAVE_CAP, TAIL_CAP)
    }

    /// A capture with other caps.
    pub(crate) fn with_caps(head_cap: usize, tail_cap: usize) -> Self {
        Self { head: Vec::new(), head_cap, tail: VecDeque::new(), tail_cap, total: 0 }
    }

    /// What was collected.
    pub(crate) fn finish(self) -> Captured {
        Captured { head: self.head, tail: self.tail.into(), total: self.total }
    }
}

impl OutputSink for Capture {
    fn write(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap.saturating_sub(self.head.len());
        let (kept, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(kept);
        if rest.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + rest.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(rest);
        }
    }
}

/// Output as collected: `head` is the first bytes; when more arrived than `head` holds,
/// `tail` is the last bytes and the middle is lost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Captured {
    /// The first bytes.
    pub(crate) head: Vec<u8>,
    /// The last bytes, when `head` is not everything.
    pub(crate) tail: Vec<u8>,
    /// How many bytes there were in all.
    pub(crate) total: u64,
}

impl Captured {
    /// Whether `head` holds all of the output.
    pub(crate) fn is_complete(&self) -> bool {
        self.head.len() as u64 == self.total
    }
}

/// Output as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    /// The text: whole, or head and tail around a marker.
    pub(crate) text: String,
    /// Where the saved output is, when something was cut and saving worked.
    pub(crate) saved: Option<PathBuf>,
    /// Whether something was cut.
    pub(crate) truncated: bool,
}

/// What was cut, for the marker.
struct Cut {
    /// Characters (or bytes, when the middle is lost) left out.
    omitted: u64,
    /// Whether `omitted` counts bytes.
    bytes: bool,
    /// Lines left out, as (first, last, total) 1-based numbers of the saved file, when
    /// both cuts fell on line breaks.
    lines: Option<(u64, u64, u64)>,
}

/// Renders `captured` within `max_chars` (see the module documentation).
///
/// `line_base` is the number of lines in the saved file before this output (0 when the file
/// holds exactly this output; `None` when unknown, which leaves line numbers out). `save`
/// is called with the full text only when something is cut; it returns where the text is,
/// or why it could not be saved.
pub(crate) fn render(
    captured: &Captured,
    max_chars: usize,
    line_base: Option<u64>,
    save: impl FnOnce(&str) -> Result<PathBuf, String>,
) -> Shown {
    let complete = captured.is_complete();
    let head_text = decode(&captured.head, !complete);
    let head_text = if complete { trim_newlines(&head_text) } else { head_text.as_str() };
    if complete && head_text.chars().count() <= max_chars {
        return Shown { text: head_text.to_owned(), saved: None, truncated: false };
    }

    let head_budget = max_chars / 2;
    let tail_budget = max_chars - head_budget;
    let head_part = cut_head(head_text, head_budget);
    let tail_text;
    let tail_part = if complete {
        cut_tail(head_text, tail_budget)
    } else {
        tail_text = decode(skip_continuation(&captured.tail), false);
        cut_tail(trim_newlines(&tail_text), tail_budget)
    };

    let cut = if complete {
        let total_chars = head_text.chars().count() as u64;
        let shown = head_part.chars().count() as u64 + tail_part.chars().count() as u64;
        let tail_start = head_text.len() - tail_part.len();
        let aligned = head_part.ends_with('\n') && tail_start > 0 && head_text.as_bytes()[tail_start - 1] == b'\n';
        let lines = match (aligned, line_base) {
            (true, Some(base)) => {
                let total_lines = count_lines(head_text);
                let first = head_part.matches('\n').count() as u64 + 1;
                let last = total_lines - count_lines(tail_part);
                (first <= last).then_some((base + first, base + last, base + total_lines))
            }
            _ => None,
        };
        Cut { omitted: total_chars.saturating_sub(shown), bytes: false, lines }
    } else {
        let shown = head_part.len() as u64 + tail_part.len() as u64;
        Cut { omitted: captured.total.saturating_sub(shown), bytes: true, lines: None }
    };

    let saved = save(head_text);
    let marker = marker(&cut, &saved, complete, captured.head.len() as u64);
    let text = format!("{}\n\n{marker}\n\n{}", head_part.trim_end_matches('\n'), tail_part);
    Shown { text, saved: saved.ok(), truncated: true }
}

/// The marker between head and tail.
fn marker(cut: &Cut, saved: &Result<PathBuf, String>, complete: bool, saved_bytes: u64) -> String {
    let what = match (cut.lines, cut.bytes) {
        (Some((first, last, total)), _) => format!(
            "{} lines ({} chars) omitted: lines {}-{} of {}",
            group_digits(last - first + 1),
            group_digits(cut.omitted),
            group_digits(first),
            group_digits(last),
            group_digits(total)
        ),
        (None, true) => format!("{} bytes omitted", group_digits(cut.omitted)),
        (None, false) => format!("{} chars omitted", group_digits(cut.omitted)),
    };
    let where_ = match saved {
        Ok(path) if complete => match cut.lines {
            Some((first, _, _)) => {
                format!("Full output saved to {}; Read it with offset {first} to see them, or Grep it", path.display())
            }
            None => format!("Full output saved to {}; Read or Grep it to see the rest", path.display()),
        },
        Ok(path) => format!(
            "Only the first {} bytes were saved, to {}; the omitted middle was not kept",
            group_digits(saved_bytes),
            path.display()
        ),
        Err(why) => format!("The full output could not be saved: {why}"),
    };
    format!("... [{what}. {where_}] ...")
}

/// Bytes as text: invalid UTF-8 becomes U+FFFD; with `cut_end`, a char cut in half at the
/// end is dropped.
pub(crate) fn decode(bytes: &[u8], cut_end: bool) -> String {
    let bytes = if cut_end { trim_partial_char(bytes) } else { bytes };
    String::from_utf8_lossy(bytes).into_owned()
}

/// `bytes` without an incomplete UTF-8 sequence at its very end.
pub(crate) fn trim_partial_char(bytes: &[u8]) -> &[u8] {
    for back in 1..=3.min(bytes.len()) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back { &bytes[..i] } else { bytes };
    }
    bytes
}

/// `bytes` without UTF-8 continuation bytes at its start (a char cut in half).
fn skip_continuation(bytes: &[u8]) -> &[u8] {
    let skip = bytes.iter().take(3).take_while(|b| *b & 0xC0 == 0x80).count();
    &bytes[skip..]
}

/// `text` without trailing line breaks.
pub(crate) fn trim_newlines(text: &str) -> &str {
    text.trim_end_matches(['\n', '\r'])
}

/// Lines in `text` (a last line without a newline counts).
fn count_lines(text: &str) -> u64 {
    let breaks = text.matches('\n').count() as u64;
    if text.is_empty() || text.ends_with('\n') { breaks } else { breaks + 1 }
}

/// The first `max` chars of `text`, cut back to just after a line break in their second
/// half when there is one.
fn cut_head(text: &str, max: usize) -> &str {
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let part = &text[..end];
    match part.rfind('\n') {
        Some(nl) if nl + 1 >= part.len() / 2 => &part[..=nl],
        _ => part,
    }
}

/// The last `max` chars of `text`, cut forward to just after a line break in their first
/// half when there is one.
fn cut_tail(text: &str, max: usize) -> &str {
    let count = text.chars().count();
    let start = if count <= max { 0 } else { text.char_indices().nth(count - max).map_or(0, |(i, _)| i) };
    let part = &text[start..];
    if start == 0 {
        return part;
    }
    match part.find('\n') {
        Some(nl) if nl < part.len() / 2 => &part[nl + 1..],
        _ => part,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(text: &str) -> Captured {
        let mut capture = Capture::new();
        capture.write(text.as_bytes());
        capture.finish()
    }

    fn no_save(_: &str) -> Result<PathBuf, String> {
        panic!("nothing should be saved")
    }

    #[test]
    fn short_output_is_whole_without_trailing_newlines() {
        let shown = render(&captured("a\nb\n\n"), 100, Some(0), no_save);
        assert_eq!(shown, Shown { text: "a\nb".into(), saved: None, truncated: false });
        assert_eq!(render(&captured(""), 100, Some(0), no_save).text, "");
    }

    #[test]
    fn long_output_keeps_head_and_tail_on_line_breaks() {
        let text: String = (1..=1_000).map(|n| format!("line {n}\n")).collect();
        let mut saved = String::new();
        let shown = render(&captured(&text), 200, Some(0), |full| {
            saved = full.to_owned();
            Ok(PathBuf::from("/s/out.txt"))
        });
        assert!(shown.truncated);
        assert_eq!(saved, text.trim_end());
        assert!(shown.text.starts_with("line 1\nline 2\n"), "{}", shown.text);
        assert!(shown.text.ends_with("line 999\nline 1000"), "{}", shown.text);
        let marker = shown.text.lines().find(|l| l.starts_with("... [")).unwrap();
        // 100 chars of head hold lines 1-12 (8 * 9 + 3 * 9 cut back to a newline).
        assert!(marker.contains("omitted: lines "), "{marker}");
        assert!(marker.contains(" of 1,000. Full output saved to /s/out.txt; Read it with offset "), "{marker}");
        let first: u64 = marker.split("lines ").nth(2).unwrap().split('-').next().unwrap().parse().unwrap();
        let head_lines = shown.text.split("\n\n... [").next().unwrap().lines().count() as u64;
        assert_eq!(first, head_lines + 1);
    }

    #[test]
    fn a_failed_save_is_said() {
        let shown = render(&captured(&"x".repeat(500)), 100, Some(0), |_| Err("disk full".into()));
        assert!(shown.text.contains("500") || shown.text.contains("400 chars omitted"), "{}", shown.text);
        assert!(shown.text.contains("The full output could not be saved: disk full"), "{}", shown.text);
        assert_eq!(shown.saved, None);
    }

    #[test]
    fn the_capture_keeps_head_and_a_ring_of_the_tail() {
        let mut capture = Capture::with_caps(4, 3);
        for chunk in [&b"ab"[..], b"cdef", b"g", b"hijk", b"l"] {
            capture.write(chunk);
        }
        let c = capture.finish();
        assert_eq!((c.head.as_slice(), c.tail.as_slice(), c.total), (&b"abcd"[..], &b"jkl"[..], 12));
        assert!(!c.is_complete());
        let shown = render(&c, 4, Some(0), |_| Ok(PathBuf::from("/s/x")));
        assert!(
            shown.text.starts_with("ab\n\n... [8 bytes omitted. Only the first 4 bytes were saved, to /s/x"),
            "{}",
            shown.text
        );
        assert!(shown.text.ends_with("kl"), "{}", shown.text);
    }

    #[test]
    fn invalid_utf8_is_replaced_and_cut_chars_dropped() {
        assert_eq!(decode(b"a\xffb", false), "a\u{FFFD}b");
        assert_eq!(decode("é".as_bytes().split_at(1).0, true), "");
        assert_eq!(skip_continuation(&"é!".as_bytes()[1..]), b"!");
    }

    #[test]
    fn cuts_prefer_line_breaks() {
        assert_eq!(cut_head("aaaa\nbbbb\ncccc", 12), "aaaa\nbbbb\n");
        assert_eq!(cut_head("aaaaaaaaaaaa\nb", 12), "aaaaaaaaaaaa");
        assert_eq!(cut_tail("aaaa\nbbbb\ncccc", 12), "bbbb\ncccc");
        assert_eq!(cut_tail("abc", 12), "abc");
    }
}
