//! The task list's data and where it is kept: [`TaskStore`], the host service, and
//! [`FileTaskStore`], the implementation toolgate ships (one JSON file in the session dir,
//! replaced atomically, so the list survives a restart of the process).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a task stands. `deleted` is not a stored status: TaskUpdate removes the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

impl TaskStatus {
    /// The name the model uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }
}

/// One task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The id (`"1"`, `"2"` …), never reused.
    pub id: String,
    /// A short imperative title.
    pub subject: String,
    /// What needs to be done.
    pub description: String,
    /// The present-continuous form shown while the task runs ("Running tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// Where it stands.
    pub status: TaskStatus,
    /// Who works on it (an agent's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Free-form data the model attached.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: serde_json::Map<String, Value>,
    /// The tasks that cannot start before this one is completed.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// The tasks that must be completed before this one.
    #[serde(default)]
    pub blocked_by: Vec<String>,
}

/// The whole list as stored: the tasks by id and the next id to hand out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskList {
    /// The id the next created task gets.
    pub next_id: u64,
    /// The tasks, in id order.
    pub tasks: Vec<Task>,
}

impl Default for TaskList {
    fn default() -> Self {
        Self { next_id: 1, tasks: Vec::new() }
    }
}

impl TaskList {
    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut Task> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }

    /// Whether `from` reaches `to` by following `blocks` edges (a path of length ≥ 0).
    pub(crate) fn reaches(&self, from: &str, to: &str) -> bool {
        let edges: BTreeMap<&str, &[String]> =
            self.tasks.iter().map(|t| (t.id.as_str(), t.blocks.as_slice())).collect();
        let mut stack = vec![from];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(id) = stack.pop() {
            if id == to {
                return true;
            }
            if seen.insert(id) {
                stack.extend(edges.get(id).into_iter().flat_map(|next| next.iter().map(String::as_str)));
            }
        }
        false
    }

    /// The blockers of `task` that are not completed yet.
    pub(crate) fn open_blockers<'a>(&'a self, task: &'a Task) -> Vec<&'a str> {
        task.blocked_by
            .iter()
            .filter(|id| self.get(id).is_some_and(|t| t.status != TaskStatus::Completed))
            .map(String::as_str)
            .collect()
    }

    /// The ids, for "known ids" messages.
    pub(crate) fn ids(&self) -> String {
        if self.tasks.is_empty() {
            return "the task list is empty".to_owned();
        }
        let ids: Vec<String> = self.tasks.iter().map(|t| format!("#{}", t.id)).collect();
        format!("existing tasks: {}", ids.join(", "))
    }
}

/// A task store could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The stored file is not a task list (it is left untouched).
    #[error("{path} is not a task list: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

/// Where the task tools keep the list: a host service.
///
/// The host inserts it into the [`Extensions`](toolgate_core::Extensions) it builds the
/// tools from, as `Arc<dyn TaskStore>`; without one, the four task tools are not offered.
/// The tools serialise their load-change-save cycles within the process; a store shared
/// between processes is last-writer-wins.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::{FileTaskStore, TaskStore};
/// use toolgate_core::Extensions;
/// let dir = tempfile::tempdir().unwrap();
/// let mut services = Extensions::default();
/// services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(dir.path())));
/// let tools = toolgate_builtin::planning_tools(&services);
/// assert!(tools.iter().any(|t| t.name() == "TaskCreate" && t.is_enabled()));
/// ```
pub trait TaskStore: Send + Sync + fmt::Debug {
    /// The stored list (an empty one when nothing was stored yet).
    ///
    /// # Errors
    /// The list cannot be read or is not a task list.
    fn load(&self) -> Result<TaskList, TaskStoreError>;

    /// Replaces the stored list, all at once or not at all.
    ///
    /// # Errors
    /// The list cannot be written.
    fn save(&self, list: &TaskList) -> Result<(), TaskStoreError>;
}

/// The task list as `tasks.json` in a session directory, replaced atomically (a temporary
/// file beside it, synced, then renamed over it), so a crash leaves the old list or the new.
///
/// ```
/// use toolgate_builtin::{FileTaskStore, TaskList, TaskStore};
/// let dir = tempfile::tempdir().unwrap();
/// let store = FileTaskStore::new(dir.path());
/// assert_eq!(store.load().unwrap(), TaskList::default());
/// let mut list = TaskList::default();
/// list.next_id = 7;
/// store.save(&list).unwrap();
/// assert_eq!(FileTaskStore::new(dir.path()).load().unwrap().next_id, 7);
/// ```
#[derive(Debug, Clone)]
pub struct FileTaskStore {
    path: PathBuf,
}

impl FileTaskStore {
    /// The file name inside the session directory.
    pub const FILE_NAME: &'static str = "tasks.json";

    /// A store in `session_dir` (created on the first save).
    pub fn new(session_dir: impl AsRef<Path>) -> Self {
        Self { path: session_dir.as_ref().join(Self::FILE_NAME) }
    }

    /// The file the list is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl TaskStore for FileTaskStore {
    fn load(&self) -> Result<TaskList, TaskStoreError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TaskList::default()),
            Err(source) => return Err(TaskStoreError::Io { path: self.path.clone(), source }),
        };
        let list: TaskList = serde_json::from_str(&text)
            .map_err(|e| TaskStoreError::Corrupt { path: self.path.clone(), detail: e.to_string() })?;
        Ok(list)
    }

    fn save(&self, list: &TaskList) -> Result<(), TaskStoreError> {
        let io = |source| TaskStoreError::Io { path: self.path.clone(), source };
        let mut text = serde_json::to_string_pretty(list).map_err(|e| io(std::io::Error::other(e)))?;
        text.push('\n');
        crate::file_io::atomic::stage(&self.path, text.as_bytes()).and_then(|staged| staged.commit()).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, blocks: &[&str]) -> Task {
        Task {
            id: id.into(),
            subject: format!("task {id}"),
            description: String::new(),
            active_form: None,
            status: TaskStatus::Pending,
            owner: None,
            metadata: Default::default(),
            blocks: blocks.iter().map(|s| (*s).to_owned()).collect(),
            blocked_by: Vec::new(),
        }
    }

    #[test]
    fn reachability_follows_blocks_edges() {
        let list = TaskList { next_id: 4, tasks: vec![task("1", &["2"]), task("2", &["3"]), task("3", &[])] };
        assert!(list.reaches("1", "3"));
        assert!(list.reaches("2", "2"));
        assert!(!list.reaches("3", "1"));
    }

    #[test]
    fn a_broken_file_is_reported_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FileTaskStore::FILE_NAME);
        std::fs::write(&path, "{not json").unwrap();
        let err = FileTaskStore::new(dir.path()).load().unwrap_err();
        assert!(matches!(err, TaskStoreError::Corrupt { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
    }
}
