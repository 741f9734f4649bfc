//! What Glob, Grep and LS share: resolving the directory to search, the error for a path
//! that does not exist, the version-control directories every search skips, mtime
//! ordering, and running a blocking parallel walk under the call's cancellation.

use std::ffi::OsStr;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkParallel, WalkState};
use serde_json::Value;
use toolgate_core::{CancellationToken, HiddenPaths, ToolContext, ToolError};

/// Version-control metadata directories: never listed, never searched (as Claude Code
/// passes `--glob '!.git'` and friends to ripgrep).
pub(crate) const VCS_DIRS: [&str; 6] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/// Whether `name` is one of [`VCS_DIRS`].
pub(crate) fn is_vcs_name(name: &OsStr) -> bool {
    VCS_DIRS.iter().any(|vcs| OsStr::new(vcs) == name)
}

/// The `filter_entry` predicate every walk uses: drop VCS directories (and any entry with
/// such a name, as ripgrep's `--glob '!.git'` does), but never the root itself.
pub(crate) fn not_vcs(entry: &DirEntry) -> bool {
    entry.depth() == 0 || !is_vcs_name(entry.file_name())
}

/// The directory (or, for Grep, file) a call searches, resolved against the context and
/// checked to exist.
#[derive(Debug, Clone)]
pub(crate) struct SearchRoot {
    /// Absolute, lexically normalized.
    pub path: PathBuf,
    /// Whether it is a directory (following symlinks).
    pub is_dir: bool,
}

impl SearchRoot {
    /// Resolves `path` (default: the working directory) and checks it exists.
    pub(crate) fn resolve(ctx: &ToolContext, path: Option<&str>) -> Result<Self, ToolError> {
        let path = path.filter(|p| !p.trim().is_empty()).map_or_else(|| ctx.cwd.clone(), |p| ctx.resolve_path(p));
        Self::at(path, ctx)
    }

    /// Checks that the absolute `path` exists.
    pub(crate) fn at(path: PathBuf, ctx: &ToolContext) -> Result<Self, ToolError> {
        match std::fs::metadata(&path) {
            Ok(meta) => Ok(Self { is_dir: meta.is_dir(), path }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(missing_path_error(&path, ctx)),
            Err(err) => Err(ToolError::from_io(&err, &path)),
        }
    }

    /// Fails unless the root is a directory; `tool` names the caller in the message.
    pub(crate) fn require_dir(self, tool: &str) -> Result<Self, ToolError> {
        if self.is_dir {
            return Ok(self);
        }
        let parent = self.path.parent().map_or_else(|| "/".to_owned(), |p| p.display().to_string());
        Err(ToolError::invalid_input(format!(
            "{} is a file, not a directory; {tool} works on directories",
            self.path.display()
        ))
        .with_hint(format!("pass its directory ({parent}) as path, or use Read to see the file itself")))
    }
}

/// How Glob, Grep and LS print paths: relative to the working directory `cwd` when under
/// it (`.` for `cwd` itself), absolute otherwise. Read, Edit and Write take either form.
#[derive(Debug, Clone)]
pub(crate) struct ShownPaths {
    cwd: PathBuf,
    /// Whether the search ran somewhere other than `cwd` (then a relative path could be
    /// read as relative to the searched directory).
    elsewhere: bool,
    /// Whether a relative path was printed.
    relative_shown: std::cell::Cell<bool>,
}

impl ShownPaths {
    /// Paths of a search of the directory `dir` from the context's working directory.
    pub(crate) fn new(ctx: &ToolContext, dir: &Path) -> Self {
        Self { cwd: ctx.cwd.clone(), elsewhere: dir != ctx.cwd, relative_shown: std::cell::Cell::new(false) }
    }

    /// `path` as the result prints it.
    pub(crate) fn show(&self, path: &Path) -> String {
        match path.strip_prefix(&self.cwd) {
            Ok(rel) => {
                self.relative_shown.set(true);
                if rel.as_os_str().is_empty() { ".".to_owned() } else { rel.display().to_string() }
            }
            Err(_) => path.display().to_string(),
        }
    }

    /// The one note a result ends with when its relative paths could be misread: the search
    /// ran outside the working directory or below it, and some path was printed relative.
    pub(crate) fn note(&self) -> Option<String> {
        (self.elsewhere && self.relative_shown.get())
            .then(|| format!("(Paths are relative to the working directory, {}.)", self.cwd.display()))
    }
}

/// The error for a path that does not exist: names the closest existing ancestor and the
/// entries there whose names look like the missing one.
pub(crate) fn missing_path_error(path: &Path, ctx: &ToolContext) -> ToolError {
    let mut existing = path.parent();
    let mut missing_name = path.file_name();
    while let Some(dir) = existing {
        if dir.is_dir() {
            break;
        }
        missing_name = dir.file_name();
        existing = dir.parent();
    }
    let message = format!("path {} does not exist", path.display());
    let Some(dir) = existing else {
        return ToolError::not_found(message).with_hint(format!(
            "check the path, or leave path out to search the working directory ({})",
            ctx.cwd.display()
        ));
    };
    let similar = missing_name.map(|name| similar_entries(dir, &name.to_string_lossy())).unwrap_or_default();
    let mut hint = format!("the closest existing directory is {}", dir.display());
    if !similar.is_empty() {
        let names: Vec<String> = similar.iter().map(|p| p.display().to_string()).collect();
        hint.push_str(&format!("; did you mean {}?", names.join(" or ")));
    } else {
        hint.push_str(&format!(
            "; check the path, or leave path out to search the working directory ({})",
            ctx.cwd.display()
        ));
    }
    ToolError::not_found(message).with_hint(hint)
}

/// Up to three entries of `dir` whose names are close to `name` (same letters in another
/// case, one a prefix of the other, or a small edit distance), closest first.
fn similar_entries(dir: &Path, name: &str) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let wanted = name.to_lowercase();
    let mut scored: Vec<(usize, PathBuf)> = read
        .flatten()
        .take(10_000)
        .filter_map(|entry| {
            let candidate = entry.file_name().to_string_lossy().to_lowercase();
            let distance = edit_distance(&wanted, &candidate);
            let close = distance <= (wanted.chars().count() / 3).max(1)
                || (wanted.len() >= 3 && (candidate.starts_with(&wanted) || wanted.starts_with(&candidate)));
            close.then(|| (distance, entry.path()))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, path)| path).collect()
}

/// Levenshtein distance over chars.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The modification time of `meta`, or the epoch when the platform has none.
pub(crate) fn mtime(meta: &Metadata) -> SystemTime {
    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Sorts newest first, ties broken by path so the order is stable.
pub(crate) fn sort_newest_first(items: &mut [(SystemTime, PathBuf)]) {
    items.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
}

/// `input` with `path` made absolute (the working directory when it was absent), so hooks
/// and the permission engine see the directory actually searched.
pub(crate) fn with_absolute_path(input: &Value, ctx: &ToolContext) -> Value {
    let mut normalized = input.clone();
    if let Some(object) = normalized.as_object_mut() {
        let path = match object.get("path") {
            Some(Value::String(path)) if !path.trim().is_empty() => ctx.resolve_path(path),
            Some(Value::String(_) | Value::Null) | None => ctx.cwd.clone(),
            // Not a string: leave it for validation to refuse.
            Some(_) => return normalized,
        };
        object.insert("path".to_owned(), Value::String(path.display().to_string()));
    }
    normalized
}

/// A walk builder with the settings every search shares: hidden files included, symlinks
/// not followed, VCS directories skipped, and what the session's `Read` deny rules cover
/// (`hidden`, the context's [`HiddenPaths`]: see [`hidden_paths`]) left out; ignore files respected when `respect_ignore`
/// (`.gitignore` inside git repositories, `.ignore`, `.rgignore`, git's exclude and
/// global files, and those of parent directories, as ripgrep reads them).
pub(crate) fn walk_builder(root: &Path, respect_ignore: bool, hidden: Option<Arc<HiddenPaths>>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .follow_links(false)
        .parents(respect_ignore)
        .ignore(respect_ignore)
        .git_ignore(respect_ignore)
        .git_global(respect_ignore)
        .git_exclude(respect_ignore)
        .require_git(true);
    match hidden {
        Some(hidden) => {
            builder.filter_entry(move |entry| not_vcs(entry) && !hidden.hides(entry.path(), entry.path_is_symlink()))
        }
        None => builder.filter_entry(not_vcs),
    };
    if respect_ignore {
        builder.add_custom_ignore_filename(".rgignore");
    }
    builder
}

/// What the session's `Read` deny rules hide from a walk, if the host said.
pub(crate) fn hidden_paths(ctx: &ToolContext) -> Option<Arc<HiddenPaths>> {
    ctx.extensions.get::<HiddenPaths>()
}

/// Runs blocking work (a walk) on tokio's blocking pool, under the call's cancellation.
///
/// The work gets a stop flag: it is set when the token is cancelled or when the returned
/// future is dropped, and the work should check it often (per entry) and wind down.
pub(crate) async fn run_blocking<T, F>(cancel: &CancellationToken, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce(&AtomicBool) -> T + Send + 'static,
{
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    /// Sets the flag when dropped, so an abandoned call stops its walk.
    struct StopOnDrop(Arc<AtomicBool>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = Arc::clone(&stop.0);
    let mut handle = tokio::task::spawn_blocking(move || work(&flag));
    let joined = tokio::select! {
        joined = &mut handle => joined,
        () = cancel.cancelled() => {
            stop.0.store(true, Ordering::Relaxed);
            // The work sees the flag within one entry; wait so no thread outlives the call.
            let _ = handle.await;
            return Err(cancelled());
        }
    };
    drop(stop);
    joined.map_err(|err| ToolError::internal(format!("the search thread failed: {err}")))
}

/// The error for a cancelled search.
pub(crate) fn cancelled() -> ToolError {
    ToolError::cancelled("the search was cancelled before it finished")
}

/// Runs `walk` on all threads. Each thread gets its own state from `init` (a searcher,
/// say); `visit` sees every entry that survived the filters and pushes what it wants to
/// keep into its thread's vector. Returns everything kept, in no particular order. Stops
/// early when `stop` is set or `visit` returns `Quit`.
pub(crate) fn collect_parallel<S, T, I, V>(walk: WalkParallel, stop: &AtomicBool, init: I, visit: V) -> Vec<T>
where
    S: Send,
    T: Send,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, &DirEntry, &mut Vec<T>) -> WalkState + Sync,
{
    let out = Mutex::new(Vec::new());
    let mut builder = CollectorBuilder { out: &out, stop, init: &init, visit: &visit };
    walk.visit(&mut builder);
    out.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// Builds one [`Collector`] per walker thread.
struct CollectorBuilder<'s, T, I, V> {
    out: &'s Mutex<Vec<T>>,
    stop: &'s AtomicBool,
    init: &'s I,
    visit: &'s V,
}

impl<'s, S, T, I, V> ParallelVisitorBuilder<'s> for CollectorBuilder<'s, T, I, V>
where
    S: Send + 's,
    T: Send + 's,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, &DirEntry, &mut Vec<T>) -> WalkState + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Collector {
            state: (self.init)(),
            local: Vec::new(),
            out: self.out,
            stop: self.stop,
            visit: self.visit,
        })
    }
}

/// One walker thread's visitor: keeps its results locally, hands them over when dropped.
struct Collector<'s, S, T, V> {
    state: S,
    local: Vec<T>,
    out: &'s Mutex<Vec<T>>,
    stop: &'s AtomicBool,
    visit: &'s V,
}

impl<S, T, V> ParallelVisitor for Collector<'_, S, T, V>
where
    S: Send,
    T: Send,
    V: Fn(&mut S, &DirEntry, &mut Vec<T>) -> WalkState + Sync,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.stop.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        match entry {
            Ok(entry) => (self.visit)(&mut self.state, &entry, &mut self.local),
            // Unreadable directories are skipped, as ripgrep skips them.
            Err(_) => WalkState::Continue,
        }
    }
}

impl<S, T, V> Drop for Collector<'_, S, T, V> {
    fn drop(&mut self) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        out.append(&mut self.local);
    }
}

/// Whether a walked entry is a regular file (symlinks are not followed, so a symlink to
/// a file is skipped, as ripgrep skips it).
pub(crate) fn is_file(entry: &DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file())
}

/// `n` followed by the singular or plural noun: `1 file`, `3 files`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("src", "src"), 0);
        assert_eq!(edit_distance("srcc", "src"), 1);
        assert_eq!(edit_distance("lib", "lin"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn vcs_names_are_recognised() {
        assert!(is_vcs_name(OsStr::new(".git")));
        assert!(is_vcs_name(OsStr::new(".jj")));
        assert!(!is_vcs_name(OsStr::new(".github")));
    }

    /// Cancelling the token mid-walk sets the stop flag the walk polls, and the call ends
    /// as cancelled only after the work has wound down.
    #[tokio::test]
    async fn cancellation_reaches_the_blocking_work() {
        let cancel = CancellationToken::new();
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let finished = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&finished);
        let run = run_blocking(&cancel, move |stop| {
            let _ = started_tx.send(());
            while !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            seen.store(true, Ordering::Relaxed);
        });
        let canceller = async {
            started_rx.await.unwrap();
            cancel.cancel();
        };
        let (result, ()) = tokio::join!(run, canceller);
        assert_eq!(result.unwrap_err().kind(), toolgate_core::ToolErrorKind::Cancelled);
        assert!(finished.load(Ordering::Relaxed), "the work saw the stop flag before the call returned");
    }

    #[test]
    fn a_set_stop_flag_ends_the_walk_at_once() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            std::fs::write(dir.path().join(format!("f{i}")), "").unwrap();
        }
        let visit = |(): &mut (), entry: &DirEntry, out: &mut Vec<PathBuf>| {
            out.push(entry.path().to_path_buf());
            WalkState::Continue
        };
        let all = collect_parallel(
            walk_builder(dir.path(), false, None).build_parallel(),
            &AtomicBool::new(false),
            || (),
            visit,
        );
        assert_eq!(all.len(), 21);
        let none = collect_parallel(
            walk_builder(dir.path(), false, None).build_parallel(),
            &AtomicBool::new(true),
            || (),
            visit,
        );
        assert!(none.is_empty());
    }

    #[test]
    fn missing_path_names_the_closest_directory_and_similar_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let ctx = ToolContext::new(dir.path());
        let err = missing_path_error(&dir.path().join("srcc/deeper/x"), &ctx);
        assert_eq!(err.kind(), toolgate_core::ToolErrorKind::NotFound);
        let hint = err.hint().unwrap();
        assert!(hint.contains(&format!("closest existing directory is {}", dir.path().display())), "{hint}");
        assert!(hint.contains("did you mean") && hint.contains("src"), "{hint}");
    }
}
