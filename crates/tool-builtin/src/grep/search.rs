//! The search behind Grep: a parallel `ignore` walk, one `grep-searcher` per thread and a
//! sink that turns matches into the lines, counts or file names each output mode needs.

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use grep_matcher::Matcher as _;
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::Override;
use ignore::types::Types;
use ignore::{DirEntry, WalkState};
use toolgate_core::HiddenPaths;

use super::OutputMode;
use crate::walk::{self, SearchRoot, ShownPaths};

/// Lines longer than this many bytes are replaced by a marker (ripgrep's `--max-columns`).
pub(crate) const MAX_COLUMNS: usize = 500;

/// A search, fully parsed and compiled: what to match, where, and what to report.
pub(crate) struct Search {
    pub root: SearchRoot,
    pub matcher: RegexMatcher,
    pub mode: OutputMode,
    pub before: usize,
    pub after: usize,
    pub line_numbers: bool,
    pub only_matching: bool,
    pub multiline: bool,
    pub overrides: Option<Override>,
    pub types: Option<Types>,
    /// What the session's `Read` deny rules hide from the walk.
    pub hidden: Option<Arc<HiddenPaths>>,
}

/// What one file contributed.
#[derive(Debug)]
pub(crate) struct FileHit {
    pub path: PathBuf,
    /// Set in `files_with_matches` mode only (the others sort by path).
    pub modified: SystemTime,
    /// Output lines (`content` mode), formatted only when shown (see [`FileHit::format`]).
    pub lines: Vec<Line>,
    /// The text of `lines`, one buffer per file.
    pub text: Vec<u8>,
    /// Matching lines, or matches with `-o` or `multiline` (`count` mode).
    pub count: u64,
}

/// One output line of a file, kept raw until it is shown.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub kind: LineKind,
    pub number: Option<u64>,
    /// Where the text is in [`FileHit::text`]; empty for a break or an omitted line.
    pub range: std::ops::Range<usize>,
    /// Set when the line was longer than [`MAX_COLUMNS`]: its number of matches.
    pub omitted: Option<u64>,
}

/// Which kind of line is being printed, for the separator and the long-line marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// A line with matches (`:`).
    Match,
    /// Only the matched text (`-o`, `:`).
    OnlyMatch,
    /// A context line (`-`).
    Context,
    /// `--` between groups of lines that are not adjacent.
    Break,
}

impl FileHit {
    /// `line` as the model reads it: `path:N:text` (or `path-N-text` for context), without
    /// the number when line numbers are off; a long line becomes a marker.
    pub(crate) fn format(&self, line: &Line, line_numbers: bool, paths: &ShownPaths) -> String {
        let separator = match line.kind {
            LineKind::Break => return "--".to_owned(),
            LineKind::Match | LineKind::OnlyMatch => ':',
            LineKind::Context => '-',
        };
        let mut out = paths.show(&self.path);
        out.push(separator);
        if let Some(n) = line.number.filter(|_| line_numbers) {
            let _ = write!(out, "{n}{separator}");
        }
        match (line.omitted, line.kind) {
            (None, _) => out.push_str(&String::from_utf8_lossy(&self.text[line.range.clone()])),
            (Some(n), LineKind::Match) => {
                let _ = write!(out, "[Omitted long line with {n} {}]", if n == 1 { "match" } else { "matches" });
            }
            (Some(_), LineKind::OnlyMatch) => out.push_str("[Omitted long matching line]"),
            (Some(_), _) => out.push_str("[Omitted long context line]"),
        }
        out
    }
}

/// Everything a finished search found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub hits: Vec<FileHit>,
    /// Files that could not be opened or read.
    pub unreadable: usize,
    /// Set when the search path itself is a file, and it is binary (so not searched).
    pub binary_root: bool,
}

/// One walker thread's tools: its own searcher and its own copy of the matcher (a shared
/// regex would make the threads contend for its scratch space).
struct ThreadState {
    searcher: Searcher,
    matcher: RegexMatcher,
}

/// An item a walker thread keeps: a hit, or a note that a file could not be read.
enum Kept {
    Hit(FileHit),
    Unreadable,
    /// The search path is a binary file.
    BinaryRoot,
}

impl Search {
    /// Runs the search on all threads; `None` when stopped before the end.
    pub(crate) fn run(&self, stop: &AtomicBool) -> Option<Found> {
        let mut builder = walk::walk_builder(&self.root.path, true, self.hidden.clone());
        if let Some(overrides) = &self.overrides {
            builder.overrides(overrides.clone());
        }
        if let Some(types) = &self.types {
            builder.types(types.clone());
        }
        let init = || ThreadState { searcher: self.searcher(), matcher: self.matcher.clone() };
        let kept = walk::collect_parallel(builder.build_parallel(), stop, init, |state, entry, out| {
            if walk::is_file(entry)
                && let Some(kept) = self.search_file(state, entry, stop)
            {
                out.push(kept);
            }
            WalkState::Continue
        });
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut found = Found::default();
        for kept in kept {
            match kept {
                Kept::Hit(hit) => found.hits.push(hit),
                Kept::Unreadable => found.unreadable += 1,
                Kept::BinaryRoot => found.binary_root = true,
            }
        }
        Some(found)
    }

    fn searcher(&self) -> Searcher {
        let context = self.mode == OutputMode::Content;
        SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(context && self.line_numbers)
            .multi_line(self.multiline)
            .before_context(if context { self.before } else { 0 })
            .after_context(if context { self.after } else { 0 })
            .build()
    }

    fn search_file(&self, state: &mut ThreadState, entry: &DirEntry, stop: &AtomicBool) -> Option<Kept> {
        let mut sink = FileSink {
            search: self,
            matcher: &state.matcher,
            stop,
            lines: Vec::new(),
            text: Vec::new(),
            count: 0,
            matched: false,
            binary: false,
        };
        if state.searcher.search_path(&state.matcher, entry.path(), &mut sink).is_err() {
            return Some(Kept::Unreadable);
        }
        if sink.binary && entry.depth() == 0 {
            return Some(Kept::BinaryRoot);
        }
        if !sink.matched || sink.binary {
            return None;
        }
        let (lines, text, count) = (sink.lines, sink.text, sink.count);
        let modified = match self.mode {
            OutputMode::FilesWithMatches => entry.metadata().map_or(SystemTime::UNIX_EPOCH, |m| walk::mtime(&m)),
            OutputMode::Content | OutputMode::Count => SystemTime::UNIX_EPOCH,
        };
        Some(Kept::Hit(FileHit { path: entry.path().to_path_buf(), modified, lines, text, count }))
    }
}

/// Collects one file's results.
struct FileSink<'a> {
    search: &'a Search,
    matcher: &'a RegexMatcher,
    stop: &'a AtomicBool,
    lines: Vec<Line>,
    text: Vec<u8>,
    count: u64,
    matched: bool,
    binary: bool,
}

impl FileSink<'_> {
    /// The non-empty matches in `bytes`.
    fn count_matches(&self, bytes: &[u8]) -> u64 {
        let mut n = 0;
        let _ = self.matcher.find_iter(bytes, |m| {
            n += u64::from(!m.is_empty());
            true
        });
        n
    }

    /// Keeps one output line; text over [`MAX_COLUMNS`] is dropped and marked.
    fn push_line(&mut self, kind: LineKind, number: Option<u64>, text: &[u8]) {
        let text = text.strip_suffix(b"\n").unwrap_or(text);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let start = self.text.len();
        let omitted = if text.len() > MAX_COLUMNS {
            Some(if kind == LineKind::Match { self.count_matches(text).max(1) } else { 1 })
        } else {
            self.text.extend_from_slice(text);
            None
        };
        self.lines.push(Line { kind, number, range: start..self.text.len(), omitted });
    }

    /// `-o`: one line per match (a match spanning lines gives one line per line).
    fn push_only_matches(&mut self, mat: &SinkMatch<'_>) {
        let bytes = mat.bytes();
        let mut ranges = Vec::new();
        let _ = self.matcher.find_iter(bytes, |m| {
            if !m.is_empty() {
                ranges.push(m.start()..m.end());
            }
            true
        });
        let (mut scanned, mut line_number) = (0, mat.line_number());
        for range in ranges {
            let newlines = bytes[scanned..range.start].iter().filter(|&&b| b == b'\n').count() as u64;
            line_number = line_number.map(|n| n + newlines);
            scanned = range.start;
            for (i, piece) in bytes[range].split(|&b| b == b'\n').filter(|p| !p.is_empty()).enumerate() {
                self.push_line(LineKind::OnlyMatch, line_number.map(|n| n + i as u64), piece);
            }
        }
    }
}

impl Sink for &mut FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        self.matched = true;
        match self.search.mode {
            // One match is enough to list the file.
            OutputMode::FilesWithMatches => Ok(false),
            OutputMode::Count => {
                self.count += if self.search.multiline || self.search.only_matching {
                    self.count_matches(mat.bytes())
                } else {
                    1
                };
                Ok(true)
            }
            OutputMode::Content => {
                if self.search.only_matching {
                    self.push_only_matches(mat);
                } else {
                    let first = mat.line_number();
                    for (i, line) in mat.lines().enumerate() {
                        self.push_line(LineKind::Match, first.map(|n| n + i as u64), line);
                    }
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.push_line(LineKind::Context, context.line_number(), context.bytes());
        Ok(!self.stop.load(Ordering::Relaxed))
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        self.lines.push(Line { kind: LineKind::Break, number: None, range: 0..0, omitted: None });
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        // A file with a NUL byte is binary: skipped whole, even when a match came before the
        // NUL (except in files_with_matches mode, which stops at the first match, as rg -l).
        self.binary = true;
        Ok(false)
    }
}
