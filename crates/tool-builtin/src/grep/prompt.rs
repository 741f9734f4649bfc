//! The Grep tool's model-facing description.

/// What the model reads about Grep.
pub(crate) const DESCRIPTION: &str = "\
Searches file contents with a regular expression, on ripgrep's libraries. Use it for every \
content search instead of grep or rg in Bash: as fast, and its output is paged for you.

- The syntax is Rust regex (`log.*Error`, `fn\\s+\\w+`): escape literal braces and other \
metacharacters (`interface\\{\\}` finds `interface{}`). A match stays within one line \
unless multiline is set.
- Output modes: files_with_matches (default) lists files, newest first; content shows \
`path:line:text` (context lines `path-line-text`, `--` between groups); count shows \
`path:N` per file and a total. Paths are relative to the working directory when under it.
- head_limit caps the entries (lines, files or counts; default 250, 0 for all); offset \
skips entries, so offset 250 shows the next page.
- Hidden files are searched; .gitignored files, version-control directories and binary \
files are not. Lines over 500 bytes are replaced by a short marker.
- Searches the working directory unless path names another directory or a file.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "search file contents with a regex (ripgrep)";
