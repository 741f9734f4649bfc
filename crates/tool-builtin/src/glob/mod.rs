//! Glob: files whose path matches a glob pattern, newest first.
//!
//! The pattern follows ripgrep's `--glob` (what Claude Code's Glob runs): without a `/`
//! it matches file names at any depth, with one it is anchored at the search directory.
//! The literal directories at the start of a pattern (`src/` in `src/**/*.rs`) become the
//! directory the walk starts in, so a narrow pattern reads only its part of the tree.
//! The walk is parallel, includes hidden files, skips VCS directories, does not follow
//! symlinks and, by default, does not read `.gitignore` (see [`GlobOptions`]).

mod prompt;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{
    Access, HiddenPaths, ResultLimit, Target, ToolContext, ToolError, ToolOutput, TypedTool, normalize_path,
};

use crate::walk::{self, SearchRoot};

/// How many paths a call returns at most.
const MAX_RESULTS: usize = 100;

/// The environment variable Claude Code reads: `false` (or `0`) makes Glob respect
/// `.gitignore`; unset or anything else keeps ignored files in the results.
pub(crate) const NO_IGNORE_ENV: &str = "CLAUDE_CODE_GLOB_NO_IGNORE";

/// Host settings for the Glob tool, put in
/// [`ToolContext::extensions`](toolgate_core::ToolContext) by the host.
///
/// When present they win over the `CLAUDE_CODE_GLOB_NO_IGNORE` environment variable;
/// when absent that variable decides, and without it ignore files are not read.
///
/// ```
/// use toolgate_builtin::GlobOptions;
/// use toolgate_core::ToolContext;
///
/// let mut ctx = ToolContext::new("/repo");
/// ctx.extensions.insert(GlobOptions { respect_gitignore: true });
/// assert!(ctx.extensions.get::<GlobOptions>().is_some_and(|o| o.respect_gitignore));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GlobOptions {
    /// Leave out files that `.gitignore` (and `.ignore`, `.rgignore`, git's exclude
    /// files) ignore. Default: `false`, as in Claude Code.
    pub respect_gitignore: bool,
}

impl GlobOptions {
    /// The options in force for a call: the context's, else the environment's.
    fn for_call(ctx: &ToolContext) -> Self {
        ctx.extensions.get::<Self>().map_or_else(
            || Self { respect_gitignore: respects_gitignore(std::env::var(NO_IGNORE_ENV).ok().as_deref()) },
            |options| *options,
        )
    }
}

/// Whether a value of [`NO_IGNORE_ENV`] asks for `.gitignore` to be respected.
fn respects_gitignore(no_ignore: Option<&str>) -> bool {
    no_ignore.is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "false" | "0" | "no" | "off"))
}

/// A file search by glob pattern.
// (This doc is the schema's description.)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GlobInput {
    /// The glob to match, e.g. `**/*.ts`, `src/**/*.{ts,tsx}` or `*.md`.
    pub pattern: String,
    /// The directory to search (default: the working directory); leave it out rather than
    /// sending "null" or "undefined".
    #[serde(default)]
    pub path: Option<String>,
}

/// The Glob tool.
pub(crate) struct GlobTool;

impl TypedTool for GlobTool {
    type Input = GlobInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Glob"
    }

    fn description(&self) -> String {
        prompt::DESCRIPTION.to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(prompt::SEARCH_HINT)
    }

    fn is_read_only(&self, _input: &GlobInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &GlobInput) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }

    /// A missing or non-directory path and a bad pattern are reported before permission
    /// is asked.
    async fn validate(&self, input: &GlobInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let root = SearchRoot::resolve(ctx, input.path.as_deref())?.require_dir("Glob")?;
        GlobPlan::new(&input.pattern, &root.path).map(drop)
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        walk::with_absolute_path(input, ctx)
    }

    /// The directory the walk starts in: `path` (the working directory when absent) joined
    /// with the pattern's literal leading directories, or an absolute pattern's own base.
    fn permission_target(&self, input: &GlobInput) -> Option<String> {
        let base = Path::new(input.path.as_deref().unwrap_or_default());
        let split = SplitPattern::new(&input.pattern);
        let target = match split.absolute {
            true => normalize_path(&PathBuf::from("/").join(&split.prefix)),
            false => normalize_path(&base.join(&split.prefix)),
        };
        (!target.as_os_str().is_empty()).then(|| target.display().to_string())
    }

    /// The folder walked (the path joined with the pattern's literal leading folders), listed
    /// with everything below it: even `*.rs` matches file names at any depth. A call with
    /// neither names none, and the engine checks the working directory.
    fn targets(&self, input: &GlobInput) -> Vec<Target> {
        self.permission_target(input).map(|p| Target::new(p, Access::List { walked: true })).into_iter().collect()
    }

    async fn call(&self, input: GlobInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let started = Instant::now();
        let root = SearchRoot::resolve(ctx, input.path.as_deref())?.require_dir("Glob")?;
        let plan = GlobPlan::new(&input.pattern, &root.path)?;
        let options = GlobOptions::for_call(ctx);
        let hidden = walk::hidden_paths(ctx);
        let found = match plan.walk_root.is_dir() {
            true => walk::run_blocking(&ctx.cancel, move |stop| plan.run(options, hidden, stop)).await?,
            false => Some(Vec::new()),
        };
        let Some(mut found) = found else { return Err(walk::cancelled()) };
        let total = found.len();
        if total > MAX_RESULTS {
            found.select_nth_unstable_by(MAX_RESULTS - 1, |a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            found.truncate(MAX_RESULTS);
        }
        walk::sort_newest_first(&mut found);
        let filenames: Vec<String> = found.iter().map(|(_, path)| path.display().to_string()).collect();
        let truncated = total > filenames.len();
        let paths = walk::ShownPaths::new(ctx, &root.path);
        let shown: Vec<String> = found.iter().map(|(_, path)| paths.show(path)).collect();
        let mut text = render(&shown, total);
        if let Some(note) = paths.note() {
            text.push('\n');
            text.push_str(&note);
        }
        let structured = json!({
            "filenames": filenames,
            "numFiles": filenames.len(),
            "totalMatches": total,
            "truncated": truncated,
            "durationMs": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &GlobInput) -> String {
        match &input.path {
            Some(path) => format!("Glob({}, path: {path})", input.pattern),
            None => format!("Glob({})", input.pattern),
        }
    }
}

/// The model-facing text: paths, then a note when some were left out.
fn render(filenames: &[String], total: usize) -> String {
    if filenames.is_empty() {
        return "No files found".to_owned();
    }
    let mut text = filenames.join("\n");
    if total > filenames.len() {
        text.push_str(&format!(
            "\n(Showing the {} most recently modified of {total} matching files. Use a narrower pattern or path to see the others.)",
            filenames.len()
        ));
    }
    text
}

/// A pattern split at its first segment with glob syntax.
#[derive(Debug, PartialEq, Eq)]
struct SplitPattern {
    /// Whether the pattern is an absolute path.
    absolute: bool,
    /// The literal leading directories (may hold `..`).
    prefix: PathBuf,
    /// The rest, matched against paths relative to `prefix`.
    rest: String,
}

impl SplitPattern {
    fn new(pattern: &str) -> Self {
        let absolute = pattern.starts_with('/');
        let mut trimmed = pattern.trim_start_matches('/');
        while let Some(rest) = trimmed.strip_prefix("./") {
            trimmed = rest.trim_start_matches('/');
        }
        let segments: Vec<&str> = trimmed.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
        let literal = segments
            .iter()
            .take(segments.len().saturating_sub(1))
            .take_while(|s| !s.contains(['*', '?', '[', ']', '{', '}', '\\']))
            .count();
        Self { absolute, prefix: segments[..literal].iter().collect(), rest: segments[literal..].join("/") }
    }
}

/// A compiled Glob call: where to walk and what to keep.
struct GlobPlan {
    walk_root: PathBuf,
    /// A set of one glob: a set picks a fast strategy (extension, literal, suffix …)
    /// where a lone matcher always runs a regex.
    matcher: GlobSet,
    /// Match file names only (a pattern without `/`), at any depth.
    names_only: bool,
}

impl GlobPlan {
    fn new(pattern: &str, root: &Path) -> Result<Self, ToolError> {
        if pattern.trim().is_empty() {
            return Err(ToolError::invalid_input("pattern is empty")
                .with_hint("pass a glob such as **/*.rs, or *.md for files at any depth"));
        }
        let split = SplitPattern::new(pattern);
        let base = if split.absolute { PathBuf::from("/") } else { root.to_path_buf() };
        let walk_root = normalize_path(&base.join(&split.prefix));
        // `*.rs` (no slash, nothing before it) and `…/**/*.rs` both match file names at any
        // depth below the walk root: match the name alone, not the whole relative path.
        let unanchored = !split.absolute && split.prefix.as_os_str().is_empty() && !split.rest.contains('/');
        let (names_only, glob_text) = match split.rest.strip_prefix("**/") {
            _ if unanchored => (true, split.rest.as_str()),
            Some(name) if !name.is_empty() && !name.contains('/') => (true, name),
            _ => (false, split.rest.as_str()),
        };
        let glob =
            GlobBuilder::new(glob_text).literal_separator(true).backslash_escape(true).build().map_err(|err| {
                ToolError::invalid_input(format!("pattern {pattern:?} is not a valid glob: {}", err.kind())).with_hint(
                    "close every [ and {, escape a literal *, ?, [ or { with a backslash, or use [*] for a literal *",
                )
            })?;
        let matcher = GlobSetBuilder::new()
            .add(glob)
            .build()
            .map_err(|err| ToolError::invalid_input(format!("pattern {pattern:?} is not a valid glob: {err}")))?;
        Ok(Self { walk_root, matcher, names_only })
    }

    /// Walks the tree, leaving out what `hidden` hides; `None` when stopped.
    fn run(
        &self,
        options: GlobOptions,
        hidden: Option<Arc<HiddenPaths>>,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Option<Vec<(SystemTime, PathBuf)>> {
        let walk = walk::walk_builder(&self.walk_root, options.respect_gitignore, hidden).build_parallel();
        let found = walk::collect_parallel(
            walk,
            stop,
            || (),
            |(), entry, out: &mut Vec<(SystemTime, PathBuf)>| {
                if !walk::is_file(entry) {
                    return WalkState::Continue;
                }
                let path = entry.path();
                let matched = if self.names_only {
                    self.matcher.is_match(Path::new(entry.file_name()))
                } else {
                    path.strip_prefix(&self.walk_root).is_ok_and(|rel| self.matcher.is_match(rel))
                };
                if matched {
                    let modified = entry.metadata().map_or(SystemTime::UNIX_EPOCH, |m| walk::mtime(&m));
                    out.push((modified, path.to_path_buf()));
                }
                WalkState::Continue
            },
        );
        (!stop.load(std::sync::atomic::Ordering::Relaxed)).then_some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_split_at_the_first_glob_segment() {
        let split = SplitPattern::new("src/**/*.rs");
        assert_eq!((split.absolute, split.prefix, split.rest.as_str()), (false, PathBuf::from("src"), "**/*.rs"));
        let split = SplitPattern::new("./a/b/c.txt");
        assert_eq!((split.prefix, split.rest.as_str()), (PathBuf::from("a/b"), "c.txt"));
        let split = SplitPattern::new("/etc/*.conf");
        assert_eq!((split.absolute, split.prefix, split.rest.as_str()), (true, PathBuf::from("etc"), "*.conf"));
        let split = SplitPattern::new("*.{ts,tsx}");
        assert_eq!((split.prefix, split.rest.as_str()), (PathBuf::new(), "*.{ts,tsx}"));
        let split = SplitPattern::new("../other/**");
        assert_eq!((split.prefix, split.rest.as_str()), (PathBuf::from("../other"), "**"));
    }

    #[test]
    fn the_environment_variable_turns_gitignore_on_only_when_false() {
        assert!(!respects_gitignore(None));
        assert!(!respects_gitignore(Some("true")));
        assert!(!respects_gitignore(Some("")));
        assert!(respects_gitignore(Some("false")));
        assert!(respects_gitignore(Some("FALSE")));
        assert!(respects_gitignore(Some("0")));
    }

    #[test]
    fn permission_target_is_the_directory_walked() {
        let target = |pattern: &str, path: Option<&str>| {
            GlobTool.permission_target(&GlobInput { pattern: pattern.into(), path: path.map(Into::into) })
        };
        assert_eq!(target("**/*.rs", Some("/repo")).as_deref(), Some("/repo"));
        assert_eq!(target("src/**/*.rs", Some("/repo")).as_deref(), Some("/repo/src"));
        assert_eq!(target("../../etc/*", Some("/repo/a")).as_deref(), Some("/etc"));
        assert_eq!(target("/etc/**", Some("/repo")).as_deref(), Some("/etc"));
        assert_eq!(target("*.rs", None), None);
        assert_eq!(target("sub/*.rs", None).as_deref(), Some("sub"));
    }
}
