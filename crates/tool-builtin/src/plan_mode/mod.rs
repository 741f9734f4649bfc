//! EnterPlanMode and ExitPlanMode: the session's permission mode to `plan` and back.
//!
//! EnterPlanMode remembers the mode in force (in the session's
//! [`AppState`](toolgate_core::AppState)) and asks for `plan` through
//! [`ContextChange::PermissionMode`]; in plan mode the permission engine refuses edits and
//! commands that change files. ExitPlanMode saves the plan to the host's [`PlanFile`],
//! asks the person to approve it through the [`UserDialog`], and only on approval returns
//! the session to the remembered mode (or the one the person picked). Both tools are
//! offered only when the host supplies both services: entering a mode nobody can approve
//! one's way out of would strand the session.

mod prompt;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{
    ContextChange, DynTool, InterruptBehavior, PermissionCheck, PermissionMode, ToolContext, ToolError, ToolOutput,
    TypedTool, typed,
};

use crate::ask_user_question::{PlanDecision, PlanReview, UserDialog};

/// Where ExitPlanMode saves the plan: a host service, usually `plan.md` in the session
/// directory. The host inserts it into the [`Extensions`](toolgate_core::Extensions) it
/// builds the tools from.
///
/// ```
/// use toolgate_builtin::PlanFile;
/// let file = PlanFile::in_session_dir("/tmp/session");
/// assert_eq!(file.path(), std::path::Path::new("/tmp/session/plan.md"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile(PathBuf);

impl PlanFile {
    /// The plan file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self(path.into())
    }

    /// `plan.md` in a session directory.
    pub fn in_session_dir(dir: impl AsRef<Path>) -> Self {
        Self(dir.as_ref().join("plan.md"))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The saved plan, when there is one with content.
    fn read(&self) -> Option<String> {
        std::fs::read_to_string(&self.0).ok().filter(|s| !s.trim().is_empty())
    }
}

/// The mode plan mode was entered from.
#[derive(Debug, Clone, Copy, Default)]
struct PlanMemory {
    previous: Option<PermissionMode>,
}

/// The services both tools need.
#[derive(Clone)]
struct PlanServices {
    dialog: Arc<dyn UserDialog>,
    file: PlanFile,
}

impl PlanServices {
    /// The plan file of the call's session: the one in its context's extensions (a host
    /// that serves several sessions gives each its own), else the one the tools were built
    /// with.
    fn file(&self, ctx: &ToolContext) -> PlanFile {
        ctx.extensions.get::<PlanFile>().map_or_else(|| self.file.clone(), |f| (*f).clone())
    }
}

/// EnterPlanMode and ExitPlanMode; disabled unless both services are there.
pub(crate) fn tools(dialog: Option<Arc<dyn UserDialog>>, file: Option<PlanFile>) -> Vec<DynTool> {
    let services = dialog.zip(file).map(|(dialog, file)| PlanServices { dialog, file });
    vec![typed(EnterPlanMode { services: services.clone() }), typed(ExitPlanMode { services })]
}

fn missing() -> ToolError {
    ToolError::not_found("plan mode is not available in this session")
        .with_hint("Describe your plan in your reply instead.")
}

/// EnterPlanMode's input: nothing.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnterPlanModeInput {}

struct EnterPlanMode {
    services: Option<PlanServices>,
}

impl TypedTool for EnterPlanMode {
    type Input = EnterPlanModeInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "EnterPlanMode"
    }
    fn description(&self) -> String {
        prompt::enter()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("switch to plan mode before making changes")
    }
    fn is_enabled(&self) -> bool {
        self.services.is_some()
    }
    fn is_read_only(&self, _: &EnterPlanModeInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &EnterPlanModeInput) -> bool {
        true
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &EnterPlanModeInput, _: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "plan mode only takes permissions away".into() }
    }
    async fn call(&self, _: EnterPlanModeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let services = self.services.as_ref().ok_or_else(missing)?;
        if ctx.permission_mode == PermissionMode::Plan {
            return Ok(ToolOutput::text(
                "Already in plan mode. Keep to read-only work and present the plan with ExitPlanMode when it is ready.",
            ));
        }
        ctx.app_state.set(PlanMemory { previous: Some(ctx.permission_mode) });
        let structured = json!({"mode": "plan", "previousMode": ctx.permission_mode.as_str()});
        Ok(ToolOutput::text(prompt::entered(services.file(ctx).path()))
            .with_structured(structured)
            .with_context_change(ContextChange::PermissionMode(PermissionMode::Plan)))
    }
    fn render_use(&self, _: &EnterPlanModeInput) -> String {
        "EnterPlanMode".to_owned()
    }
}

/// ExitPlanMode's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExitPlanModeInput {
    /// The plan, as markdown. Left out: the plan file's current content is presented.
    #[serde(default)]
    plan: Option<String>,
}

struct ExitPlanMode {
    services: Option<PlanServices>,
}

impl ExitPlanMode {
    /// The plan to present: the input's, else the session's plan file's.
    fn plan(&self, input: &ExitPlanModeInput, ctx: &ToolContext) -> Option<String> {
        input
            .plan
            .clone()
            .filter(|p| !p.trim().is_empty())
            .or_else(|| self.services.as_ref().and_then(|s| s.file(ctx).read()))
    }
}

impl TypedTool for ExitPlanMode {
    type Input = ExitPlanModeInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "ExitPlanMode"
    }
    fn description(&self) -> String {
        prompt::exit()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("present the plan for approval and leave plan mode")
    }
    fn is_enabled(&self) -> bool {
        self.services.is_some()
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn check_permissions(&self, _: &ExitPlanModeInput, _: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "ExitPlanMode asks the person to approve the plan itself".into() }
    }
    async fn validate(&self, input: &ExitPlanModeInput, ctx: &ToolContext) -> Result<(), ToolError> {
        if ctx.permission_mode != PermissionMode::Plan {
            return Err(ToolError::invalid_input(format!(
                "ExitPlanMode leaves plan mode, but the session is in {} mode",
                ctx.permission_mode
            ))
            .with_hint("Go ahead with the work; call EnterPlanMode first when you want a plan approved."));
        }
        if self.plan(input, ctx).is_none() {
            return Err(ToolError::invalid_input("there is no plan to present")
                .with_hint("Pass the plan as markdown in `plan`."));
        }
        Ok(())
    }
    /// Hooks and the person see the plan even when it came from the plan file.
    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        let given = input.get("plan").and_then(Value::as_str).is_some_and(|p| !p.trim().is_empty());
        let mut out = input.clone();
        if !given
            && let (Some(obj), Some(plan)) =
                (out.as_object_mut(), self.services.as_ref().and_then(|s| s.file(ctx).read()))
        {
            obj.insert("plan".to_owned(), Value::String(plan));
        }
        out
    }
    async fn call(&self, input: ExitPlanModeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let services = self.services.as_ref().ok_or_else(missing)?;
        let plan = self.plan(&input, ctx).ok_or_else(|| {
            ToolError::invalid_input("there is no plan to present").with_hint("Pass the plan as markdown in `plan`.")
        })?;
        let path = services.file(ctx).path().to_path_buf();
        let mut text = plan.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        crate::file_io::atomic::stage(&path, text.as_bytes()).and_then(|s| s.commit()).map_err(|e| {
            ToolError::from_io(&e, &path)
                .with_hint("The plan could not be saved; ask the user to check the session directory.")
        })?;
        let memory = ctx.app_state.get::<PlanMemory>().unwrap_or_default();
        let previous = memory.previous.filter(|m| *m != PermissionMode::Plan).unwrap_or(PermissionMode::Default);
        let review = PlanReview { plan: plan.clone(), plan_file: path.clone(), restores: previous };
        match services.dialog.review_plan(&review).await {
            PlanDecision::Approved { mode } => {
                let mode = mode.filter(|m| *m != PermissionMode::Plan).unwrap_or(previous);
                ctx.app_state.set(PlanMemory::default());
                let text = format!(
                    "The user approved your plan. Plan mode is over: the session is in {mode} mode, and you can \
                     start on the work. The plan is saved at {}; keep to it.",
                    path.display()
                );
                let structured = json!({"plan": plan, "filePath": path, "approved": true, "mode": mode.as_str()});
                Ok(ToolOutput::text(text)
                    .with_structured(structured)
                    .with_context_change(ContextChange::PermissionMode(mode)))
            }
            PlanDecision::Rejected { feedback } => {
                let hint = match feedback {
                    Some(f) if !f.trim().is_empty() => {
                        format!("The user said: {f}\nRevise the plan accordingly and call ExitPlanMode again.")
                    }
                    _ => "Ask the user what to change, or revise the plan and call ExitPlanMode again.".to_owned(),
                };
                Err(ToolError::permission("the user did not approve the plan; the session stays in plan mode")
                    .with_hint(hint))
            }
            PlanDecision::Unavailable { reason } => Err(ToolError::permission(format!(
                "no one could review the plan ({reason}); the session stays in plan mode"
            ))
            .with_hint("Keep to read-only work and ask for approval again when the user is back.")),
        }
    }
    fn render_use(&self, _: &ExitPlanModeInput) -> String {
        "ExitPlanMode".to_owned()
    }
}
