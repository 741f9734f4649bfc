//! The Glob tool's model-facing description.

/// What the model reads about Glob.
pub(crate) const DESCRIPTION: &str = "\
Finds files by name pattern, fast, in a directory tree of any size.

- Patterns are globs: `*` and `?` stay inside one path segment, `**` crosses directories, \
`{ts,tsx}` lists alternatives and `[a-z]` is a character class.
- A pattern without a `/` matches file names at any depth: `*.rs` finds every Rust file. \
A pattern with a `/` is matched against the path relative to the search directory: \
`src/*.rs` finds only the files directly in src, `src/**/*.rs` everything below it.
- Returns absolute paths, one per line, the most recently modified first; at most 100, \
with a note when there are more (narrow the pattern or path then).
- Hidden files are included; version-control directories such as .git are skipped. \
Files listed in .gitignore are included too, so build output can show up.
- Searches the working directory unless `path` names another directory.
- To search file contents, use Grep instead. When an open-ended search may take several \
rounds of globbing and grepping, consider delegating it to an agent.
- Several independent searches can be sent together in one message; they run in parallel.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "find files by name or glob pattern";
