//! TodoWrite: the session's checklist, replaced whole by each call and kept in the
//! session's [`AppState`](toolgate_core::AppState) (no host service needed).
//!
//! At most one item may be `in_progress`. The result shows the list as the model should
//! see it; the structured output holds the old and the new list, as Claude Code's does.

mod prompt;

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolgate_core::{DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed};

/// Where a todo stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one item).
    InProgress,
    /// Done.
    Completed,
}

impl TodoStatus {
    /// The name the model uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }
}

/// One item of the todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Todo {
    /// The step, imperative: "Run the tests".
    #[schemars(length(min = 1))]
    pub content: String,
    /// pending, in_progress or completed.
    pub status: TodoStatus,
    /// The present-continuous form shown while it runs: "Running the tests".
    #[schemars(length(min = 1))]
    pub active_form: String,
}

/// The session's todo list, as kept in its [`AppState`](toolgate_core::AppState); a host
/// reads it with `ctx.app_state.get::<Todos>()`.
///
/// ```
/// use toolgate_builtin::Todos;
/// let ctx = toolgate_core::ToolContext::new("/tmp");
/// assert_eq!(ctx.app_state.get::<Todos>(), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Todos(pub Vec<Todo>);

/// TodoWrite's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TodoWriteInput {
    /// The whole updated list.
    todos: Vec<Todo>,
}

/// The TodoWrite tool.
pub(crate) fn tool() -> DynTool {
    typed(TodoWrite)
}

struct TodoWrite;

impl TypedTool for TodoWrite {
    type Input = TodoWriteInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TodoWrite"
    }
    fn description(&self) -> String {
        prompt::description()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("manage the session todo checklist")
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &TodoWriteInput, _: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "the todo list is session state; changing it needs no approval".into() }
    }
    async fn validate(&self, input: &TodoWriteInput, _: &ToolContext) -> Result<(), ToolError> {
        for (i, todo) in input.todos.iter().enumerate() {
            if todo.content.trim().is_empty() || todo.active_form.trim().is_empty() {
                return Err(ToolError::invalid_input(format!("todos[{i}] has a blank content or activeForm"))
                    .with_hint(
                        "Give each item its step (\"Run the tests\") and its activeForm (\"Running the tests\").",
                    ));
            }
        }
        let running: Vec<String> = input
            .todos
            .iter()
            .enumerate()
            .filter(|(_, t)| t.status == TodoStatus::InProgress)
            .map(|(i, t)| format!("todos[{i}] \"{}\"", t.content))
            .collect();
        if running.len() > 1 {
            return Err(ToolError::invalid_input(format!(
                "{} items are in_progress ({}); at most one may be",
                running.len(),
                running.join(", ")
            ))
            .with_hint("Work on one item at a time: mark finished items completed and keep the others pending."));
        }
        Ok(())
    }
    async fn call(&self, input: TodoWriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let new = input.todos;
        let old = ctx.app_state.update(|todos: &mut Todos| std::mem::replace(&mut todos.0, new.clone()));
        let structured = json!({"oldTodos": old, "newTodos": new});
        Ok(ToolOutput::text(render(&new)).with_structured(structured))
    }
    fn render_use(&self, input: &TodoWriteInput) -> String {
        format!("TodoWrite({} items)", input.todos.len())
    }
}

/// The list as the model reads it back.
fn render(todos: &[Todo]) -> String {
    if todos.is_empty() {
        return "The todo list is now empty.".to_owned();
    }
    let count = |s: TodoStatus| todos.iter().filter(|t| t.status == s).count();
    let mut text = format!(
        "Todo list updated ({} completed, {} in progress, {} pending):\n",
        count(TodoStatus::Completed),
        count(TodoStatus::InProgress),
        count(TodoStatus::Pending)
    );
    for (i, todo) in todos.iter().enumerate() {
        let _ = writeln!(text, "{}. [{}] {}", i + 1, todo.status.as_str(), todo.content);
    }
    text.push_str("Keep it current: mark each item completed as soon as it is done, one item in_progress at a time.");
    text
}
