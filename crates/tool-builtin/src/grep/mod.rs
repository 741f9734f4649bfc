//! Grep: ripgrep's search on ripgrep's libraries, in-process.
//!
//! The settings are those Claude Code passes to `rg`: hidden files searched,
//! version-control directories skipped, `.gitignore` respected, binary files (a NUL byte)
//! skipped, lines over 500 bytes replaced by a marker, symlinks not followed. The walk
//! runs on all cores with one searcher per thread. Files are listed newest first; content
//! and counts come in path order, so `head_limit`/`offset` pages are stable.

mod prompt;
mod search;

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{Access, ResultLimit, Target, ToolContext, ToolError, ToolOutput, TypedTool};

use self::search::{FileHit, Found, Line, Search};
use crate::walk::{self, SearchRoot, plural};

/// Entries returned when `head_limit` is not given.
const DEFAULT_HEAD_LIMIT: usize = 250;

/// The most memory one compiled pattern may take: 10 MiB, the regex crate's own default
/// (grep-regex raises it tenfold for ripgrep's users; a model's pattern gets the default).
pub(crate) const REGEX_SIZE_LIMIT: usize = 10 * 1024 * 1024;

/// The most memory the lazy DFA of one search may cache: 32 MiB.
pub(crate) const REGEX_DFA_SIZE_LIMIT: usize = 32 * 1024 * 1024;

/// How deeply groups and repetitions may nest in a pattern: the regex crate's default.
pub(crate) const REGEX_NEST_LIMIT: u32 = 250;

/// What Grep reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub(crate) enum OutputMode {
    // The paths of matching files, newest first.
    #[default]
    FilesWithMatches,
    // Matching lines (and context), in path order.
    Content,
    // Matches per file, in path order, and a total.
    Count,
}

impl OutputMode {
    fn as_str(self) -> &'static str {
        match self {
            Self::FilesWithMatches => "files_with_matches",
            Self::Content => "content",
            Self::Count => "count",
        }
    }
}

/// A content search: a regular expression, where to look, and what to report.
// (The field names are Claude Code's; this doc is the schema's description.)
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GrepInput {
    /// The regular expression to search for.
    pub pattern: String,
    /// The file or directory to search (default: the working directory).
    #[serde(default)]
    pub path: Option<String>,
    /// Only files matching this glob (`*.js`, `*.{ts,tsx}`); several separated by commas
    /// or spaces, a leading `!` excludes.
    #[serde(default)]
    pub glob: Option<String>,
    /// Only files of this ripgrep type (`rust`, `py`, `js`, `go` …); faster than glob.
    #[serde(default, rename = "type")]
    pub file_type: Option<String>,
    /// What to report (default files_with_matches).
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Context lines before each match (content mode).
    #[serde(default, rename = "-B")]
    pub before: Option<usize>,
    /// Context lines after each match (content mode).
    #[serde(default, rename = "-A")]
    pub after: Option<usize>,
    /// Context lines around each match (content mode).
    #[serde(default, rename = "-C")]
    pub context_c: Option<usize>,
    /// The same as `-C`.
    #[serde(default)]
    pub context: Option<usize>,
    /// Line numbers (content mode; default true).
    #[serde(default, rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Ignore case.
    #[serde(default, rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Only the matched text, one match per line (content mode).
    #[serde(default, rename = "-o")]
    pub only_matching: Option<bool>,
    /// Let matches span lines, `.` matching newlines too (slower).
    #[serde(default)]
    pub multiline: Option<bool>,
    /// At most this many entries.
    #[serde(default)]
    pub head_limit: Option<usize>,
    /// Entries to skip first, to page on.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// The Grep tool.
pub(crate) struct GrepTool;

impl TypedTool for GrepTool {
    type Input = GrepInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Grep"
    }

    fn description(&self) -> String {
        prompt::DESCRIPTION.to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(prompt::SEARCH_HINT)
    }

    fn is_read_only(&self, _input: &GrepInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &GrepInput) -> bool {
        true
    }

    /// Grep results over 20,000 characters are persisted, as in Claude Code.
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(20_000)
    }

    /// A missing path, a bad regex, glob or type is reported before permission is asked.
    async fn validate(&self, input: &GrepInput, ctx: &ToolContext) -> Result<(), ToolError> {
        compile(input, ctx).map(drop)
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        walk::with_absolute_path(input, ctx)
    }

    fn permission_target(&self, input: &GrepInput) -> Option<String> {
        input.path.clone().filter(|p| !p.trim().is_empty())
    }

    /// The path searched, read with everything below it when it is a folder (a walked read of
    /// a file is a read of the file). A call without a path names none, and the engine checks
    /// the working directory.
    fn targets(&self, input: &GrepInput) -> Vec<Target> {
        self.permission_target(input).map(|p| Target::new(p, Access::Read { walked: true })).into_iter().collect()
    }

    async fn call(&self, input: GrepInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let search = compile(&input, ctx)?;
        let mode = search.mode;
        let shape = Shape {
            context: search.before > 0 || search.after > 0,
            counts_matches: search.only_matching || search.multiline,
            line_numbers: search.line_numbers,
        };
        // Paths are relative to the working directory; the note is due when the searched
        // directory (a searched file's own) is another one.
        let root = &search.root;
        let dir = if root.is_dir { root.path.as_path() } else { root.path.parent().unwrap_or(&root.path) };
        let paths = walk::ShownPaths::new(ctx, dir);
        let Some(found) = walk::run_blocking(&ctx.cancel, move |stop| search.run(stop)).await? else {
            return Err(walk::cancelled());
        };
        let page = Page { limit: input.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT), offset: input.offset.unwrap_or(0) };
        Ok(render(mode, shape, found, page, &paths))
    }

    fn render_use(&self, input: &GrepInput) -> String {
        let mut text = format!("Grep({:?}", input.pattern);
        if let Some(path) = &input.path {
            text.push_str(&format!(", path: {path}"));
        }
        if let Some(glob) = &input.glob {
            text.push_str(&format!(", glob: {glob}"));
        }
        if let Some(file_type) = &input.file_type {
            text.push_str(&format!(", type: {file_type}"));
        }
        if let Some(mode) = input.output_mode.filter(|m| *m != OutputMode::FilesWithMatches) {
            text.push_str(&format!(", {}", mode.as_str()));
        }
        text.push(')');
        text
    }
}

/// Parses the input into a compiled [`Search`]: the root, the regex, the filters.
fn compile(input: &GrepInput, ctx: &ToolContext) -> Result<Search, ToolError> {
    let root = SearchRoot::resolve(ctx, input.path.as_deref())?;
    let multiline = input.multiline.unwrap_or(false);
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .multi_line(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .nest_limit(REGEX_NEST_LIMIT);
    if multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder.line_terminator(Some(b'\n'));
    }
    let matcher = builder.build(&input.pattern).map_err(|err| regex_error(&input.pattern, &err))?;
    let context = input.context_c.or(input.context).unwrap_or(0);
    let dir = if root.is_dir { root.path.clone() } else { root.path.parent().unwrap_or(Path::new("/")).to_path_buf() };
    Ok(Search {
        matcher,
        mode: input.output_mode.unwrap_or_default(),
        before: input.before.unwrap_or(context),
        after: input.after.unwrap_or(context),
        line_numbers: input.line_numbers.unwrap_or(true),
        only_matching: input.only_matching.unwrap_or(false),
        multiline,
        overrides: input.glob.as_deref().map(|g| overrides(&dir, g)).transpose()?,
        types: input.file_type.as_deref().filter(|t| !t.trim().is_empty()).map(file_types).transpose()?,
        hidden: walk::hidden_paths(ctx),
        root,
    })
}

/// The error for a pattern that does not compile, with the regex engine's explanation.
fn regex_error(pattern: &str, err: &grep_regex::Error) -> ToolError {
    // grep-regex reports syntax errors against the pattern as it wrapped it (`(?:…)`);
    // the regex crate's parser points at the pattern the model wrote.
    let explanation = match regex::bytes::Regex::new(pattern) {
        Err(plain) => plain.to_string(),
        Ok(_) => err.to_string(),
    };
    let message = format!("pattern {pattern:?} is not a valid regular expression: {explanation}");
    let too_big = explanation.contains("size limit") || explanation.contains("nested");
    let hint = if too_big {
        "the pattern is over the limits on a compiled pattern (it compiles to too large a program, or nests too deeply; counted repetitions such as a{1000} multiply its size, \
         deep nesting too): use a smaller repetition count or a simpler pattern, and filter the matches further \
         with a second search"
    } else if matches!(err.kind(), grep_regex::ErrorKind::NotAllowed(_)) || pattern.contains("\\n") {
        "to match across lines set multiline: true; otherwise remove the newline from the pattern"
    } else {
        "the syntax is ripgrep's (Rust regex): escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match \
         them literally, e.g. interface\\{\\} for interface{}; look-around and backreferences are not supported"
    };
    ToolError::invalid_input(message).with_hint(hint)
}

/// Splits Grep's `glob` field the way Claude Code does: on whitespace and on commas outside
/// braces, so `*.ts,*.tsx`, `*.ts *.tsx` and `*.{ts,tsx}` all work.
pub(crate) fn split_globs(globs: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in globs.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if (c == ',' && depth == 0) || c.is_whitespace() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The `glob` field as ripgrep-style overrides rooted at `dir`.
fn overrides(dir: &Path, globs: &str) -> Result<Override, ToolError> {
    let mut builder = OverrideBuilder::new(dir);
    for glob in split_globs(globs) {
        builder.add(&glob).map_err(|err| {
            ToolError::invalid_input(format!("glob {glob:?} is not valid: {err}"))
                .with_hint("use globs such as *.rs, *.{ts,tsx} or src/**/*.py; close every [ and {")
        })?;
    }
    builder.build().map_err(|err| ToolError::invalid_input(format!("glob {globs:?} is not valid: {err}")))
}

/// Common names for file types that ripgrep spells differently.
const TYPE_ALIASES: &[(&str, &str)] = &[
    ("rs", "rust"),
    ("javascript", "js"),
    ("jsx", "js"),
    ("tsx", "ts"),
    ("golang", "go"),
    ("c++", "cpp"),
    ("yml", "yaml"),
    ("bash", "sh"),
    ("shell", "sh"),
    ("rb", "ruby"),
    ("kt", "kotlin"),
    ("dockerfile", "docker"),
];

/// The `type` field as ripgrep's file-type filter (default definitions, a few aliases).
fn file_types(name: &str) -> Result<Types, ToolError> {
    let name = name.trim();
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    let known: Vec<String> = builder.definitions().iter().map(|d| d.name().to_owned()).collect();
    let lower = name.to_ascii_lowercase();
    let chosen = if known.iter().any(|k| k == name) {
        name.to_owned()
    } else if let Some((_, to)) = TYPE_ALIASES.iter().find(|(from, _)| *from == lower) {
        (*to).to_owned()
    } else if known.contains(&lower) {
        lower
    } else {
        let mut close: Vec<(usize, &String)> =
            known.iter().map(|k| (walk::edit_distance(&lower, k), k)).filter(|(d, _)| *d <= 2).collect();
        close.sort();
        let names: Vec<&str> = close.iter().take(4).map(|(_, k)| k.as_str()).collect();
        let hint = if names.is_empty() {
            "use one of ripgrep's type names such as rust, py, js, ts, go, java, c, cpp, md, json, yaml, or use glob"
                .to_owned()
        } else {
            format!("did you mean {}? Or use glob, e.g. glob: \"*.{name}\"", names.join(", "))
        };
        return Err(ToolError::invalid_input(format!("unknown file type {name:?}")).with_hint(hint));
    };
    builder.select(&chosen);
    builder.build().map_err(|err| ToolError::invalid_input(format!("file type {name:?}: {err}")))
}

/// How the output is shaped, beyond the mode.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Context lines are shown (so files are separated by `--`).
    context: bool,
    /// Counts are of matches (`-o`, multiline), not of matching lines.
    counts_matches: bool,
    /// Content lines carry their numbers.
    line_numbers: bool,
}

/// Which slice of the entries to return.
#[derive(Debug, Clone, Copy)]
struct Page {
    /// 0 means no limit.
    limit: usize,
    offset: usize,
}

impl Page {
    /// The range of `total` entries this page covers.
    fn range(self, total: usize) -> std::ops::Range<usize> {
        let start = self.offset.min(total);
        let end = if self.limit == 0 { total } else { start.saturating_add(self.limit).min(total) };
        start..end
    }
}

/// The model-facing text and the structured output.
/// Paths are printed as `paths` shows them; the structured output keeps them absolute.
fn render(mode: OutputMode, shape: Shape, mut found: Found, page: Page, paths: &walk::ShownPaths) -> ToolOutput {
    let Shape { context, counts_matches, line_numbers } = shape;
    let mut structured = json!({ "mode": mode.as_str() });
    let (mut text, total, range) = match mode {
        OutputMode::FilesWithMatches => {
            found.hits.sort_unstable_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
            let total = found.hits.len();
            let range = page.range(total);
            let hits = &found.hits[range.clone()];
            structured["filenames"] = json!(hits.iter().map(|h| h.path.display().to_string()).collect::<Vec<_>>());
            let names: Vec<String> = hits.iter().map(|h| paths.show(&h.path)).collect();
            structured["numFiles"] = json!(total);
            let text = if total == 0 {
                "No files found".to_owned()
            } else if range.is_empty() {
                format!("No files at offset {}: the search found {}.", page.offset, plural(total, "file", "files"))
            } else {
                let mut text = format!("Found {}\n{}", plural(total, "file", "files"), names.join("\n"));
                push_page_note(&mut text, "files", &range, total, ", most recently modified first");
                text
            };
            (text, total, range)
        }
        OutputMode::Content => {
            found.hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
            let num_files = found.hits.len();
            let lines = content_lines(&found.hits, context);
            let total = lines.len();
            let range = page.range(total);
            // Only the lines shown are formatted.
            let shown: Vec<String> = lines[range.clone()]
                .iter()
                .map(|entry| entry.map_or_else(|| "--".to_owned(), |(hit, line)| hit.format(line, line_numbers, paths)))
                .collect();
            let shown = shown.join("\n");
            structured["numFiles"] = json!(num_files);
            structured["numLines"] = json!(range.len());
            structured["totalLines"] = json!(total);
            let text = if total == 0 {
                "No matches found".to_owned()
            } else if range.is_empty() {
                format!("No lines at offset {}: the search found {}.", page.offset, plural(total, "line", "lines"))
            } else {
                let mut text = shown.clone();
                push_page_note(&mut text, "lines", &range, total, "");
                text
            };
            structured["content"] = json!(shown);
            (text, total, range)
        }
        OutputMode::Count => {
            found.hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
            let total = found.hits.len();
            let sum: u64 = found.hits.iter().map(|h| h.count).sum();
            let range = page.range(total);
            let shown: Vec<String> =
                found.hits[range.clone()].iter().map(|h| format!("{}:{}", paths.show(&h.path), h.count)).collect();
            structured["numFiles"] = json!(total);
            structured["numMatches"] = json!(sum);
            structured["content"] = json!(shown.join("\n"));
            let (one, many) = if counts_matches { ("match", "matches") } else { ("matching line", "matching lines") };
            let sum_text = plural(usize::try_from(sum).unwrap_or(usize::MAX), one, many);
            let files = plural(total, "file", "files");
            let text = if total == 0 {
                "No matches found".to_owned()
            } else if range.is_empty() {
                format!("No counts at offset {}: the search found {sum_text} in {files}.", page.offset)
            } else {
                let mut text = shown.join("\n");
                text.push_str(&format!("\n\nFound {sum_text} in {files}."));
                push_page_note(&mut text, "files", &range, total, "");
                text
            };
            (text, total, range)
        }
    };
    if page.limit != 0 && range.end < total {
        structured["appliedLimit"] = json!(page.limit);
    }
    if page.offset > 0 {
        structured["appliedOffset"] = json!(page.offset);
    }
    if let Some(note) = paths.note() {
        text.push('\n');
        text.push_str(&note);
    }
    if found.binary_root {
        text.push_str("\n(The file is binary: it contains a NUL byte, and binary files are not searched.)");
    }
    if found.unreadable > 0 {
        text.push_str(&format!(
            "\n({} could not be read and were skipped.)",
            plural(found.unreadable, "file", "files")
        ));
    }
    ToolOutput::text(text).with_structured(structured)
}

/// Appends the paging note when `range` is not all of `total`.
fn push_page_note(text: &mut String, what: &str, range: &std::ops::Range<usize>, total: usize, order: &str) {
    if range.start == 0 && range.end == total {
        return;
    }
    text.push_str(&format!("\n\n(Showing {what} {}-{} of {total}{order}.", range.start + 1, range.end));
    if range.end < total {
        text.push_str(&format!(" Pass offset: {} for the next page, or narrow the search.)", range.end));
    } else {
        text.push(')');
    }
}

/// The content lines of every file in order (`None` is a `--` between files, shown when
/// there is context, as rg does).
fn content_lines(hits: &[FileHit], context: bool) -> Vec<Option<(&FileHit, &Line)>> {
    let mut lines = Vec::with_capacity(hits.iter().map(|h| h.lines.len() + 1).sum());
    for hit in hits {
        if context && !lines.is_empty() {
            lines.push(None);
        }
        lines.extend(hit.lines.iter().map(|line| Some((hit, line))));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_split_on_commas_and_spaces_outside_braces() {
        assert_eq!(split_globs("*.ts,*.tsx"), ["*.ts", "*.tsx"]);
        assert_eq!(split_globs("*.ts *.tsx"), ["*.ts", "*.tsx"]);
        assert_eq!(split_globs("*.{ts,tsx}"), ["*.{ts,tsx}"]);
        assert_eq!(split_globs("*.{ts,tsx}, !*.test.ts"), ["*.{ts,tsx}", "!*.test.ts"]);
        assert!(split_globs("  ").is_empty());
    }

    #[test]
    fn pages_clamp_to_the_entries() {
        let page = |limit, offset| Page { limit, offset };
        assert_eq!(page(250, 0).range(10), 0..10);
        assert_eq!(page(3, 2).range(10), 2..5);
        assert_eq!(page(0, 4).range(10), 4..10);
        assert_eq!(page(5, 20).range(10), 10..10);
    }

    #[test]
    fn file_type_aliases_and_suggestions() {
        assert!(file_types("rust").is_ok());
        assert!(file_types("rs").is_ok());
        assert!(file_types("Python").is_ok());
        let err = file_types("rustt").unwrap_err();
        assert!(err.hint().unwrap().contains("rust"), "{err:?}");
    }
}
