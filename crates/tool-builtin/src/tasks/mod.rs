//! TaskCreate, TaskGet, TaskUpdate and TaskList: a task list with dependencies, kept by the
//! host's [`TaskStore`] (toolgate ships [`FileTaskStore`], a JSON file in the session dir).
//!
//! Ids are `"1"`, `"2"` … and never reused. `blocks`/`blockedBy` edges are kept on both
//! tasks they join; an edge that would close a cycle is refused, and deleting a task removes
//! its edges. Every change is a load-change-save cycle under one lock per board, so
//! concurrent calls of one process never lose an update.

mod prompt;
pub(crate) mod store;

use std::fmt::Write as _;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed};

pub use store::{FileTaskStore, Task, TaskList, TaskStatus, TaskStore, TaskStoreError};

/// The four task tools, sharing one board; disabled when `store` is `None`.
pub(crate) fn tools(store: Option<Arc<dyn TaskStore>>) -> Vec<DynTool> {
    let board = store.map(|store| Arc::new(TaskBoard { store, lock: tokio::sync::Mutex::new(()) }));
    vec![
        typed(TaskCreate { board: board.clone() }),
        typed(TaskGet { board: board.clone() }),
        typed(TaskUpdate { board: board.clone() }),
        typed(ListTasks { board }),
    ]
}

/// A store plus the lock that serialises load-change-save cycles.
#[derive(Debug)]
struct TaskBoard {
    store: Arc<dyn TaskStore>,
    lock: tokio::sync::Mutex<()>,
}

fn store_error(e: &TaskStoreError) -> ToolError {
    let hint = match e {
        TaskStoreError::Corrupt { .. } => "The stored task list is damaged; ask the user to repair or remove the file.",
        _ => "The session directory may be missing or read-only; ask the user to check it.",
    };
    ToolError::io(format!("the task list could not be read or saved: {e}")).with_hint(hint)
}

fn board(board: Option<&Arc<TaskBoard>>) -> Result<&TaskBoard, ToolError> {
    board.map(|b| &**b).ok_or_else(|| {
        ToolError::not_found("this session has no task store").with_hint("Track the work with TodoWrite instead.")
    })
}

impl TaskBoard {
    /// The store of the call's session: the one in its context's extensions (a host that
    /// serves several sessions gives each its own), else the one the tools were built with.
    fn store(&self, ctx: &ToolContext) -> Arc<dyn TaskStore> {
        ctx.extensions.get::<Arc<dyn TaskStore>>().map_or_else(|| self.store.clone(), |s| (*s).clone())
    }

    async fn read(&self, ctx: &ToolContext) -> Result<TaskList, ToolError> {
        let _guard = self.lock.lock().await;
        self.store(ctx).load().map_err(|e| store_error(&e))
    }

    /// Loads, applies `f`, and saves when `f` succeeds (nothing is saved on an error).
    async fn change<R>(
        &self,
        ctx: &ToolContext,
        f: impl FnOnce(&mut TaskList) -> Result<R, ToolError>,
    ) -> Result<R, ToolError> {
        let _guard = self.lock.lock().await;
        let store = self.store(ctx);
        let mut list = store.load().map_err(|e| store_error(&e))?;
        let out = f(&mut list)?;
        store.save(&list).map_err(|e| store_error(&e))?;
        Ok(out)
    }
}

fn allow() -> PermissionCheck {
    PermissionCheck::Allow { detail: "the task list is session state; changing it needs no approval".into() }
}

fn unknown(id: &str, list: &TaskList) -> ToolError {
    ToolError::not_found(format!("there is no task #{id} ({})", list.ids()))
        .with_hint("Use an id from TaskList; deleted tasks are gone for good.")
}

fn one_line(task: &Task, list: &TaskList) -> String {
    let mut line = format!("#{} [{}] {}", task.id, task.status.as_str(), task.subject);
    if let Some(owner) = &task.owner {
        let _ = write!(line, " (owner: {owner})");
    }
    let open = list.open_blockers(task);
    if !open.is_empty() {
        let ids: Vec<String> = open.iter().map(|id| format!("#{id}")).collect();
        let _ = write!(line, " [blocked by {}]", ids.join(", "));
    }
    line
}

fn task_json(task: &Task, list: &TaskList) -> Value {
    let mut value = serde_json::to_value(task).unwrap_or(Value::Null);
    value["openBlockers"] = json!(list.open_blockers(task));
    value
}

fn hash_ids(ids: &[String]) -> String {
    ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------------------

/// TaskCreate's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskCreateInput {
    /// A short imperative title, e.g. "Add login form".
    #[schemars(length(min = 1))]
    subject: String,
    /// What needs to be done.
    description: String,
    /// Present-continuous form shown while the task runs, e.g. "Adding login form".
    #[serde(default)]
    active_form: Option<String>,
    /// Any JSON object to keep with the task.
    #[serde(default)]
    metadata: Option<serde_json::Map<String, Value>>,
}

/// TaskCreate.
struct TaskCreate {
    board: Option<Arc<TaskBoard>>,
}

impl TypedTool for TaskCreate {
    type Input = TaskCreateInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TaskCreate"
    }
    fn description(&self) -> String {
        prompt::create()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("add a task to the task list")
    }
    fn is_enabled(&self) -> bool {
        self.board.is_some()
    }
    fn is_concurrency_safe(&self, _: &TaskCreateInput) -> bool {
        true
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &TaskCreateInput, _: &ToolContext) -> PermissionCheck {
        allow()
    }
    async fn validate(&self, input: &TaskCreateInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.subject.trim().is_empty() {
            return Err(ToolError::invalid_input("subject is blank")
                .with_hint("Give the task a short imperative title, e.g. \"Add login form\"."));
        }
        Ok(())
    }
    async fn call(&self, input: TaskCreateInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let task = board(self.board.as_ref())?
            .change(ctx, |list| {
                let task = Task {
                    id: list.next_id.to_string(),
                    subject: input.subject.trim().to_owned(),
                    description: input.description,
                    active_form: input.active_form.filter(|s| !s.trim().is_empty()),
                    status: TaskStatus::Pending,
                    owner: None,
                    metadata: input.metadata.unwrap_or_default(),
                    blocks: Vec::new(),
                    blocked_by: Vec::new(),
                };
                list.next_id += 1;
                list.tasks.push(task.clone());
                Ok(task)
            })
            .await?;
        let text = format!("Task #{} created: {}", task.id, task.subject);
        Ok(ToolOutput::text(text).with_structured(json!({"task": {"id": task.id, "subject": task.subject}})))
    }
    fn render_use(&self, input: &TaskCreateInput) -> String {
        format!("TaskCreate({})", input.subject)
    }
}

// ---------------------------------------------------------------------------------------

/// TaskGet's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskGetInput {
    /// The task's id, e.g. "3".
    #[schemars(length(min = 1))]
    task_id: String,
}

/// TaskGet.
struct TaskGet {
    board: Option<Arc<TaskBoard>>,
}

impl TypedTool for TaskGet {
    type Input = TaskGetInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TaskGet"
    }
    fn description(&self) -> String {
        prompt::get()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("show one task of the task list")
    }
    fn is_enabled(&self) -> bool {
        self.board.is_some()
    }
    fn is_read_only(&self, _: &TaskGetInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &TaskGetInput) -> bool {
        true
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &TaskGetInput, _: &ToolContext) -> PermissionCheck {
        allow()
    }
    async fn call(&self, input: TaskGetInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list = board(self.board.as_ref())?.read(ctx).await?;
        let id = input.task_id.trim().trim_start_matches('#');
        let task = list.get(id).ok_or_else(|| unknown(id, &list))?;
        let mut text = format!("Task #{}: {}\nStatus: {}\n", task.id, task.subject, task.status.as_str());
        if !task.description.is_empty() {
            let _ = writeln!(text, "Description: {}", task.description);
        }
        if let Some(active) = &task.active_form {
            let _ = writeln!(text, "Active form: {active}");
        }
        if let Some(owner) = &task.owner {
            let _ = writeln!(text, "Owner: {owner}");
        }
        if !task.blocked_by.is_empty() {
            let open = list.open_blockers(task);
            let shown: Vec<String> = task
                .blocked_by
                .iter()
                .map(|b| if open.contains(&b.as_str()) { format!("#{b} (open)") } else { format!("#{b} (done)") })
                .collect();
            let _ = writeln!(text, "Blocked by: {}", shown.join(", "));
        }
        if !task.blocks.is_empty() {
            let _ = writeln!(text, "Blocks: {}", hash_ids(&task.blocks));
        }
        if !task.metadata.is_empty() {
            let _ = writeln!(text, "Metadata: {}", Value::Object(task.metadata.clone()));
        }
        Ok(ToolOutput::text(text.trim_end().to_owned()).with_structured(json!({"task": task_json(task, &list)})))
    }
    fn render_use(&self, input: &TaskGetInput) -> String {
        format!("TaskGet(#{})", input.task_id)
    }
}

// ---------------------------------------------------------------------------------------

/// The statuses TaskUpdate accepts: the stored ones plus `deleted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum UpdateStatus {
    Pending,
    InProgress,
    Completed,
    Deleted,
}

/// TaskUpdate's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskUpdateInput {
    /// The task's id, e.g. "3".
    #[schemars(length(min = 1))]
    task_id: String,
    /// The new status; `deleted` removes the task.
    #[serde(default)]
    status: Option<UpdateStatus>,
    /// A new title.
    #[serde(default)]
    subject: Option<String>,
    /// A new description.
    #[serde(default)]
    description: Option<String>,
    /// A new present-continuous form.
    #[serde(default)]
    active_form: Option<String>,
    /// Ids of tasks that cannot start until this one is completed.
    #[serde(default)]
    add_blocks: Vec<String>,
    /// Ids of tasks that must be completed before this one.
    #[serde(default)]
    add_blocked_by: Vec<String>,
    /// The new owner ("" clears it).
    #[serde(default)]
    owner: Option<String>,
    /// Keys to merge into the metadata; null removes a key.
    #[serde(default)]
    metadata: Option<serde_json::Map<String, Value>>,
}

impl TaskUpdateInput {
    fn changes_nothing(&self) -> bool {
        self.status.is_none()
            && self.subject.is_none()
            && self.description.is_none()
            && self.active_form.is_none()
            && self.add_blocks.is_empty()
            && self.add_blocked_by.is_empty()
            && self.owner.is_none()
            && self.metadata.is_none()
    }
}

/// TaskUpdate.
struct TaskUpdate {
    board: Option<Arc<TaskBoard>>,
}

/// Adds the edge `from` blocks `to`, refusing unknown ids, self-edges and cycles.
fn add_edge(list: &mut TaskList, from: &str, to: &str) -> Result<bool, ToolError> {
    let from = from.trim().trim_start_matches('#').to_owned();
    let to = to.trim().trim_start_matches('#').to_owned();
    for id in [&from, &to] {
        if list.get(id).is_none() {
            return Err(unknown(id, list));
        }
    }
    if from == to {
        return Err(ToolError::invalid_input(format!("task #{from} cannot block itself"))
            .with_hint("Name other tasks' ids in addBlocks and addBlockedBy."));
    }
    if list.get(&from).is_some_and(|t| t.blocks.contains(&to)) {
        return Ok(false);
    }
    if list.reaches(&to, &from) {
        return Err(ToolError::invalid_input(format!(
            "#{from} cannot block #{to}: #{to} already blocks #{from} (directly or through other tasks), so the \
             dependencies would form a cycle"
        ))
        .with_hint("Dependencies must form no cycle; check the order with TaskList and drop this edge."));
    }
    if let Some(t) = list.get_mut(&from) {
        t.blocks.push(to.clone());
    }
    if let Some(t) = list.get_mut(&to) {
        t.blocked_by.push(from);
    }
    Ok(true)
}

impl TypedTool for TaskUpdate {
    type Input = TaskUpdateInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TaskUpdate"
    }
    fn description(&self) -> String {
        prompt::update()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("change status, owner or dependencies of a task")
    }
    fn is_enabled(&self) -> bool {
        self.board.is_some()
    }
    fn is_concurrency_safe(&self, _: &TaskUpdateInput) -> bool {
        true
    }
    fn is_destructive(&self, input: &TaskUpdateInput) -> bool {
        input.status == Some(UpdateStatus::Deleted)
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &TaskUpdateInput, _: &ToolContext) -> PermissionCheck {
        allow()
    }
    async fn validate(&self, input: &TaskUpdateInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.changes_nothing() {
            return Err(ToolError::invalid_input(format!("TaskUpdate of #{} changes nothing", input.task_id))
                .with_hint(
                    "Give at least one of status, subject, description, activeForm, owner, addBlocks, \
                            addBlockedBy or metadata.",
                ));
        }
        if input.subject.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(ToolError::invalid_input("subject is blank")
                .with_hint("Leave subject out to keep the current title, or give a new one."));
        }
        Ok(())
    }
    async fn call(&self, input: TaskUpdateInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input.task_id.trim().trim_start_matches('#').to_owned();
        let (text, task) = board(self.board.as_ref())?
            .change(ctx, |list| {
                if list.get(&id).is_none() {
                    return Err(unknown(&id, list));
                }
                if input.status == Some(UpdateStatus::Deleted) {
                    list.tasks.retain(|t| t.id != id);
                    for t in &mut list.tasks {
                        t.blocks.retain(|b| *b != id);
                        t.blocked_by.retain(|b| *b != id);
                    }
                    return Ok((format!("Task #{id} deleted."), Value::Null));
                }
                let mut changed = Vec::new();
                for to in &input.add_blocks {
                    if add_edge(list, &id, to)? {
                        changed.push(format!("now blocks #{}", to.trim_start_matches('#')));
                    }
                }
                for from in &input.add_blocked_by {
                    if add_edge(list, from, &id)? {
                        changed.push(format!("now blocked by #{}", from.trim_start_matches('#')));
                    }
                }
                let Some(task) = list.get_mut(&id) else { return Err(ToolError::internal("the task vanished")) };
                if let Some(status) = input.status {
                    task.status = match status {
                        UpdateStatus::Pending => TaskStatus::Pending,
                        UpdateStatus::InProgress => TaskStatus::InProgress,
                        _ => TaskStatus::Completed,
                    };
                    changed.push(format!("status {}", task.status.as_str()));
                }
                if let Some(subject) = &input.subject {
                    task.subject = subject.trim().to_owned();
                    changed.push("subject".to_owned());
                }
                if let Some(description) = &input.description {
                    task.description.clone_from(description);
                    changed.push("description".to_owned());
                }
                if let Some(active) = &input.active_form {
                    task.active_form = Some(active.clone()).filter(|s| !s.trim().is_empty());
                    changed.push("activeForm".to_owned());
                }
                if let Some(owner) = &input.owner {
                    task.owner = Some(owner.trim().to_owned()).filter(|s| !s.is_empty());
                    changed.push(match &task.owner {
                        Some(o) => format!("owner {o}"),
                        None => "owner cleared".to_owned(),
                    });
                }
                if let Some(metadata) = &input.metadata {
                    for (key, value) in metadata {
                        if value.is_null() {
                            task.metadata.remove(key);
                        } else {
                            task.metadata.insert(key.clone(), value.clone());
                        }
                    }
                    changed.push("metadata".to_owned());
                }
                let task = list.get(&id).cloned().ok_or_else(|| ToolError::internal("the task vanished"))?;
                let mut text = if changed.is_empty() {
                    format!("Task #{id} already had these dependencies; nothing changed.")
                } else {
                    format!("Updated task #{id}: {}.", changed.join(", "))
                };
                let open = list.open_blockers(&task);
                if task.status == TaskStatus::InProgress && !open.is_empty() {
                    let ids: Vec<String> = open.iter().map(|b| format!("#{b}")).collect();
                    let _ = write!(text, " Note: it is still blocked by {}, which is not completed.", ids.join(", "));
                }
                Ok((text, task_json(&task, list)))
            })
            .await?;
        Ok(ToolOutput::text(text).with_structured(json!({"taskId": id, "task": task})))
    }
    fn render_use(&self, input: &TaskUpdateInput) -> String {
        match input.status {
            Some(status) => {
                let status = match status {
                    UpdateStatus::Pending => "pending",
                    UpdateStatus::InProgress => "in_progress",
                    UpdateStatus::Completed => "completed",
                    UpdateStatus::Deleted => "deleted",
                };
                format!("TaskUpdate(#{}, {status})", input.task_id)
            }
            None => format!("TaskUpdate(#{})", input.task_id),
        }
    }
}

// ---------------------------------------------------------------------------------------

/// TaskList's input: nothing.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskListInput {}

/// TaskList (named apart from the stored [`TaskList`]).
struct ListTasks {
    board: Option<Arc<TaskBoard>>,
}

impl TypedTool for ListTasks {
    type Input = TaskListInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TaskList"
    }
    fn description(&self) -> String {
        prompt::list()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("list the tasks and what blocks them")
    }
    fn is_enabled(&self) -> bool {
        self.board.is_some()
    }
    fn is_read_only(&self, _: &TaskListInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &TaskListInput) -> bool {
        true
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &TaskListInput, _: &ToolContext) -> PermissionCheck {
        allow()
    }
    async fn call(&self, _: TaskListInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list = board(self.board.as_ref())?.read(ctx).await?;
        if list.tasks.is_empty() {
            return Ok(
                ToolOutput::text("No tasks yet. Add some with TaskCreate.").with_structured(json!({"tasks": []}))
            );
        }
        let text: Vec<String> = list.tasks.iter().map(|t| one_line(t, &list)).collect();
        let tasks: Vec<Value> = list.tasks.iter().map(|t| task_json(t, &list)).collect();
        Ok(ToolOutput::text(text.join("\n")).with_structured(json!({"tasks": tasks})))
    }
    fn render_use(&self, _: &TaskListInput) -> String {
        "TaskList".to_owned()
    }
}
