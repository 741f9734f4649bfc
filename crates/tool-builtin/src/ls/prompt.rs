//! The LS tool's model-facing description.

/// What the model reads about LS.
pub(crate) const DESCRIPTION: &str = "\
Lists a directory as an indented tree: one entry per line, two spaces per level, \
directories ending in `/`, symlinks shown as `name -> target` and not followed. The first \
line is the listed directory, relative to the working directory when under it.

- `path` is the directory to list; prefer an absolute path (a relative one is resolved \
against the working directory).
- `ignore` takes globs of entries to leave out, e.g. [\"node_modules\", \"*.log\", \"dist/\"].
- Hidden files are listed; version-control directories and whatever .gitignore ignores \
are not.
- The listing goes breadth first and stops at 1,000 entries, so the upper levels are \
complete; list a subdirectory to see deeper.
- To find files by name pattern use Glob, and to search contents use Grep.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "list a directory tree";
