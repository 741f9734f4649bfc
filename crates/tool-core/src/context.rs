//! [`ToolContext`]: the narrow view of the session a tool receives.
//!
//! It holds the working directory and allowed roots, a cancellation token, the file-state
//! cache, a progress sink, the result store, the current pool (for ToolSearch), a shared
//! app-state handle and a typed extension map for host services. It never holds the
//! whole session.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
pub use tokio_util::sync::CancellationToken;

use crate::{FileStateCache, PermissionMode, ResultStore, ToolPool};

/// A progress report from a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The call reporting.
    pub tool_use_id: String,
    /// A short line for a person.
    pub message: String,
    /// Tool-specific data (e.g. bytes read so far).
    pub data: Option<Value>,
}

/// Where progress reports go. The default sink drops them.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolgate_core::{Progress, ProgressSink};
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = {
///     let seen = seen.clone();
///     ProgressSink::new(move |p: Progress| seen.lock().unwrap().push(p.message))
/// };
/// sink.report(Progress { tool_use_id: "t1".into(), message: "half way".into(), data: None });
/// assert_eq!(*seen.lock().unwrap(), vec!["half way".to_owned()]);
/// ```
#[derive(Clone, Default)]
pub struct ProgressSink(Option<Arc<dyn Fn(Progress) + Send + Sync>>);

impl ProgressSink {
    /// A sink calling `f` for every report.
    pub fn new(f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(f)))
    }

    /// Sends a report (dropped when the sink is empty).
    pub fn report(&self, progress: Progress) {
        if let Some(f) = &self.0 {
            f(progress);
        }
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "ProgressSink(active)" } else { "ProgressSink(none)" })
    }
}

type AnyMap = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// A typed map of host services (prompter, subagent runner, task store …), fixed when the
/// session is built. Tools whose service is missing report themselves disabled.
///
/// ```
/// use toolgate_core::Extensions;
/// struct Clock(u64);
/// let mut ext = Extensions::default();
/// ext.insert(Clock(7));
/// assert_eq!(ext.get::<Clock>().unwrap().0, 7);
/// assert!(ext.get::<String>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct Extensions(AnyMap);

impl Extensions {
    /// Adds (or replaces) a service.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Adds (or replaces) a shared service.
    pub fn insert_arc<T: Any + Send + Sync>(&mut self, value: Arc<T>) {
        self.0.insert(TypeId::of::<T>(), value);
    }

    /// The service of type `T`.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>()).cloned().and_then(|v| v.downcast::<T>().ok())
    }

    /// Whether a service of type `T` is present.
    pub fn contains<T: Any + Send + Sync>(&self) -> bool {
        self.0.contains_key(&TypeId::of::<T>())
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Extensions({} services)", self.0.len())
    }
}

/// Mutable session state shared by the calls of one agent (todos, plan-mode memory …).
/// A subagent's context gets its own, so its state never leaks into the parent's.
///
/// ```
/// use toolgate_core::AppState;
/// #[derive(Clone, Debug, Default, PartialEq)]
/// struct Todos(Vec<String>);
/// let state = AppState::default();
/// assert_eq!(state.get::<Todos>(), None);
/// state.set(Todos(vec!["write docs".into()]));
/// state.update(|t: &mut Todos| t.0.push("test".into()));
/// assert_eq!(state.get::<Todos>().unwrap().0.len(), 2);
/// ```
#[derive(Clone, Default)]
pub struct AppState(Arc<Mutex<HashMap<TypeId, Box<dyn Any + Send>>>>);

impl AppState {
    /// A copy of the value of type `T`.
    pub fn get<T: Any + Send + Clone>(&self) -> Option<T> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref::<T>()).cloned()
    }

    /// Stores a value, replacing the previous one of its type.
    pub fn set<T: Any + Send>(&self, value: T) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.insert(TypeId::of::<T>(), Box::new(value));
    }

    /// Changes the value of type `T` in place (starting from `T::default()`), returning what
    /// `f` returns.
    pub fn update<T: Any + Send + Default, R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = map.entry(TypeId::of::<T>()).or_insert_with(|| Box::new(T::default()));
        match slot.downcast_mut::<T>() {
            Some(value) => f(value),
            None => {
                // Unreachable by construction (keys are the value's TypeId); recover anyway.
                let mut fresh = T::default();
                let out = f(&mut fresh);
                *slot = Box::new(fresh);
                out
            }
        }
    }
}

impl fmt::Debug for AppState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AppState")
    }
}

/// What a tool sees of the session during one call.
///
/// ```
/// use toolgate_core::ToolContext;
/// let ctx = ToolContext::new("/repo");
/// assert_eq!(ctx.resolve_path("src/lib.rs"), std::path::PathBuf::from("/repo/src/lib.rs"));
/// assert!(ctx.is_within_roots(std::path::Path::new("/repo/src/../Cargo.toml")));
/// assert!(!ctx.is_within_roots(std::path::Path::new("/etc/passwd")));
/// ```
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The working directory relative paths resolve against.
    pub cwd: PathBuf,
    /// The directories the session may work in (the project root first).
    pub roots: Vec<PathBuf>,
    /// The session id (hook input, result paths).
    pub session_id: String,
    /// The id of the call being run (empty outside a call).
    pub tool_use_id: String,
    /// The permission mode in force.
    pub permission_mode: PermissionMode,
    /// Cancelled when the call should stop.
    pub cancel: CancellationToken,
    /// What has been read, for Edit and Write's read-before-write checks.
    pub file_state: Arc<FileStateCache>,
    /// Where progress goes.
    pub progress: ProgressSink,
    /// Where large results are persisted.
    pub results: Arc<ResultStore>,
    /// The pool the call came from (ToolSearch reads it).
    pub pool: Option<Arc<ToolPool>>,
    /// Session state shared by this agent's calls.
    pub app_state: AppState,
    /// Host services.
    pub extensions: Extensions,
}

impl ToolContext {
    /// A context rooted at `cwd` with empty caches, a result store in the system temp dir
    /// and no host services.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = normalize_path(&cwd.into());
        Self {
            roots: vec![cwd.clone()],
            results: Arc::new(ResultStore::new(std::env::temp_dir().join("toolgate-results"))),
            cwd,
            session_id: String::new(),
            tool_use_id: String::new(),
            permission_mode: PermissionMode::Default,
            cancel: CancellationToken::new(),
            file_state: Arc::new(FileStateCache::default()),
            progress: ProgressSink::default(),
            pool: None,
            app_state: AppState::default(),
            extensions: Extensions::default(),
        }
    }

    /// `path` made absolute against the cwd, with `.` and `..` resolved lexically.
    pub fn resolve_path(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref();
        if path.is_absolute() { normalize_path(path) } else { normalize_path(&self.cwd.join(path)) }
    }

    /// Whether `path` (resolved) lies inside one of the roots.
    pub fn is_within_roots(&self, path: &Path) -> bool {
        let path = self.resolve_path(path);
        self.roots.iter().any(|root| path.starts_with(root))
    }

    /// Reports progress for the current call.
    pub fn report_progress(&self, message: impl Into<String>, data: Option<Value>) {
        self.progress.report(Progress { tool_use_id: self.tool_use_id.clone(), message: message.into(), data });
    }
}

/// Resolves `.` and `..` lexically (no file-system access, symlinks untouched).
///
/// ```
/// use std::path::{Path, PathBuf};
/// assert_eq!(toolgate_core::normalize_path(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
/// assert_eq!(toolgate_core::normalize_path(Path::new("/../x")), PathBuf::from("/x"));
/// ```
pub fn normalize_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_state_is_shared_by_clones_and_not_by_fresh_states() {
        let a = AppState::default();
        let b = a.clone();
        a.set(5u32);
        assert_eq!(b.get::<u32>(), Some(5));
        let sub = AppState::default();
        assert_eq!(sub.get::<u32>(), None);
    }

    #[test]
    fn relative_paths_resolve_against_cwd() {
        let mut ctx = ToolContext::new("/work/repo");
        assert_eq!(ctx.resolve_path("../other/x"), PathBuf::from("/work/other/x"));
        assert!(!ctx.is_within_roots(Path::new("../other/x")));
        ctx.roots.push(PathBuf::from("/work/other"));
        assert!(ctx.is_within_roots(Path::new("../other/x")));
        // A sibling whose name merely starts with the root's is outside.
        assert!(!ctx.is_within_roots(Path::new("/work/repository/x")));
    }
}
