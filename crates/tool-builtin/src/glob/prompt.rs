//! The Glob tool's model-facing description.

/// What the model reads about Glob.
pub(crate) const DESCRIPTION: &str = "\
Finds files by name pattern, fast, in a tree of any size.

- `*` and `?` stay within one path segment, `**` crosses directories, `{ts,tsx}` gives \
alternatives, `[a-z]` a class. A pattern without `/` matches names at any depth (`*.rs`); \
one with `/` matches the path below the search directory (`src/*.rs` only directly in src, \
`src/**/*.rs` all below it).
- Returns at most 100 paths, newest first, relative to the working directory when under \
it and absolute otherwise; a note says when there are more (then narrow the pattern or path).
- Hidden and .gitignored files are included (build output can show up); .git and other \
version-control directories are not.
- Searches the working directory unless path names another directory.
- For file contents use Grep. Independent searches sent in one message run in parallel; \
for an open-ended search of several rounds, consider delegating to an agent.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "find files by name or glob pattern";
