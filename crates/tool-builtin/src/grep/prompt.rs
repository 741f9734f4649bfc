//! The Grep tool's model-facing description.

/// What the model reads about Grep.
pub(crate) const DESCRIPTION: &str = "\
Searches file contents with a regular expression, built on ripgrep's own libraries.

- Use Grep for every content search rather than running `grep` or `rg` through Bash: it \
is as fast, and its output is paged and shaped for you.
- `pattern` uses ripgrep's (Rust) regex syntax: `log.*Error`, `fn\\s+\\w+`. Escape literal \
braces and other metacharacters: write `interface\\{\\}` to find `interface{}`.
- Narrow the files with `glob` (`*.js`, `*.{ts,tsx}`, or several separated by commas or \
spaces; a leading `!` excludes) or with `type` (ripgrep's file types such as `rust`, `py`, \
`js`, `go`; faster than a glob for common languages).
- `output_mode`: `files_with_matches` (default) lists matching files, most recently \
modified first; `content` shows matching lines as `path:line:text` (context lines as \
`path-line-text`, with `--` between separate groups) and takes `-A`, `-B`, `-C`/`context`, \
`-n` (line numbers, on by default) and `-o` (only the matched text); `count` gives matches \
per file as `path:N` and a total.
- `-i` ignores case. Patterns match within one line unless `multiline` is true; then `.` \
also matches newlines and a match may span lines (slower).
- `head_limit` caps the entries returned (lines, files or counts; 250 by default, 0 for \
all) and `offset` skips entries first, so `offset: 250` shows the next page.
- Hidden files are searched; .gitignore'd files, version-control directories and binary \
files are skipped. Lines longer than 500 bytes are replaced by a short marker.
- Searches the working directory unless `path` names another directory or a file.
- For open-ended searches that may take several rounds, consider delegating to an agent.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "search file contents with a regex (ripgrep)";
