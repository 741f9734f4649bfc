//! CronCreate, CronDelete and CronList: prompts scheduled on the session's
//! [`CronScheduler`].
//!
//! Claude Code's cron tools. CronCreate: `cron` (5 fields, local time), `prompt`,
//! `recurring` (default true), `durable` (default false: kept in
//! `.claude/scheduled_tasks.json` when true). CronDelete: `id`. CronList: no input. At
//! most 50 jobs per session, 8-character ids, recurring jobs expire after 7 days. The
//! scheduler hands due prompts to the host as [`CronEvent`]s.

mod clock;
mod scheduler;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed};

pub use clock::{CronClock, ManualClock, SystemCronClock};
pub use scheduler::{
    CronError, CronEvent, CronJob, CronScheduler, CronSchedulerBuilder, MAX_JOBS, RECURRING_LIFETIME, parse_cron,
};

use crate::agent::AgentServices;
use crate::shells::one_line;

/// CronCreate's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CronCreateInput {
    /// A 5-field cron expression in local time: minute hour day-of-month month day-of-week,
    /// e.g. "*/5 * * * *" (every 5 minutes) or "30 9 * * 1-5" (9:30 on weekdays).
    pub(crate) cron: String,
    /// The prompt to run each time the job fires.
    pub(crate) prompt: String,
    /// Fire on every match until the job expires (default true), or only once (false).
    #[serde(default)]
    pub(crate) recurring: Option<bool>,
    /// Keep the job across sessions in .claude/scheduled_tasks.json (default false).
    #[serde(default)]
    pub(crate) durable: Option<bool>,
}

/// CronDelete's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CronDeleteInput {
    /// The id of the job, as CronCreate or CronList gave it.
    pub(crate) id: String,
}

/// CronList's input: none.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CronListInput {}

/// A scheduler error as a result for the model.
fn cron_error(e: CronError) -> ToolError {
    let text = e.to_string();
    match e {
        CronError::Invalid { .. } => ToolError::invalid_input(text)
            .with_hint("write 5 space-separated fields, e.g. \"*/10 * * * *\" (every 10 minutes) or \"0 9 * * 1\" (9:00 on Mondays)"),
        CronError::NeverFires(_) => {
            ToolError::invalid_input(text).with_hint("check the day-of-month and month fields name a real date")
        }
        CronError::AfterExpiry(_) => {
            ToolError::invalid_input(text).with_hint("schedule it with recurring: false to run it once at that time")
        }
        CronError::TooMany(_) => {
            ToolError::invalid_input(text).with_hint("delete jobs you no longer need with CronDelete (see CronList)")
        }
        CronError::NotFound { .. } => ToolError::not_found(text).with_hint("use an id that CronList shows"),
        CronError::NoDurableFile => ToolError::invalid_input(text).with_hint("create it with durable: false"),
        CronError::Persist { .. } => ToolError::io(text).with_hint("retry with durable: false to keep it for this session only"),
    }
}

fn scheduler(s: Option<&CronScheduler>) -> Result<&CronScheduler, ToolError> {
    s.ok_or_else(|| ToolError::internal("this session has no scheduler"))
}

macro_rules! cron_tool {
    ($name:ident) => {
        /// A cron tool over the session's scheduler.
        #[derive(Clone)]
        pub(crate) struct $name {
            scheduler: Option<CronScheduler>,
        }

        impl $name {
            /// The tool over `services` (disabled without a scheduler).
            pub(crate) fn tool(services: &AgentServices) -> DynTool {
                typed(Self { scheduler: services.scheduler.clone() })
            }
        }
    };
}

cron_tool!(CronCreate);
cron_tool!(CronDelete);
cron_tool!(CronList);

impl TypedTool for CronCreate {
    type Input = CronCreateInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "CronCreate"
    }

    fn description(&self) -> String {
        format!(
            "\
Schedules a prompt to run later, on a cron schedule, in this session.

- cron: 5 fields in local time: minute (0-59), hour (0-23), day of month (1-31), month \
(1-12), day of week (0-6, Sunday is 0). Examples: \"*/5 * * * *\" every 5 minutes, \
\"0 9 * * 1-5\" at 9:00 on weekdays, \"30 14 15 3 *\" at 14:30 on 15 March.
- prompt: what to do when it fires, written as a complete instruction.
- recurring (default true): fire on every match; false fires once and removes the job.
- durable (default false): keep the job across sessions in .claude/scheduled_tasks.json.

At most {max} jobs per session. Recurring jobs expire {days} days after they are created. \
Returns the job's 8-character id, for CronDelete.",
            max = MAX_JOBS,
            days = RECURRING_LIFETIME.num_days()
        )
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("schedule a recurring or one-time prompt with cron")
    }

    fn is_enabled(&self) -> bool {
        self.scheduler.is_some()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn check_permissions(&self, _input: &CronCreateInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "scheduling prompts in this session needs no approval".to_owned() }
    }

    async fn validate(&self, input: &CronCreateInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.prompt.trim().is_empty() {
            return Err(ToolError::invalid_input("prompt is empty")
                .with_hint("write the instruction to run when the job fires"));
        }
        parse_cron(&input.cron).map(|_| ()).map_err(cron_error)
    }

    async fn call(&self, input: CronCreateInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let scheduler = scheduler(self.scheduler.as_ref())?;
        let recurring = input.recurring.unwrap_or(true);
        let durable = input.durable.unwrap_or(false);
        let job = scheduler.create(&input.cron, &input.prompt, recurring, durable).map_err(cron_error)?;
        let next = scheduler.list().into_iter().find(|(j, _)| j.id == job.id).and_then(|(_, next)| next);
        let human = CronScheduler::describe(&job.cron).unwrap_or_else(|| job.cron.clone());
        let mut text = format!(
            "Scheduled {} job {} ({human}: `{}`){}.",
            if recurring { "recurring" } else { "one-time" },
            job.id,
            job.cron,
            if durable { ", kept across sessions" } else { ", for this session only" }
        );
        if let Some(next) = next {
            text.push_str(&format!(" Next run: {}.", scheduler.display_time(next)));
        }
        if let Some(end) = job.expires_at {
            text.push_str(&format!(" It expires at {}.", scheduler.display_time(end)));
        }
        text.push_str(&format!(" Cancel it with CronDelete (id {}).", job.id));
        let structured = json!({
            "id": job.id,
            "humanSchedule": human,
            "recurring": recurring,
            "durable": durable,
            "nextRunAt": next,
            "expiresAt": job.expires_at,
        });
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &CronCreateInput) -> String {
        format!("CronCreate({}: {})", input.cron, one_line(&input.prompt, 50))
    }
}

impl TypedTool for CronDelete {
    type Input = CronDeleteInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "CronDelete"
    }

    fn description(&self) -> String {
        "Cancels a scheduled job by the id CronCreate returned (CronList shows every job). A durable job is also \
         removed from .claude/scheduled_tasks.json."
            .to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("cancel a scheduled cron job")
    }

    fn is_enabled(&self) -> bool {
        self.scheduler.is_some()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn check_permissions(&self, _input: &CronDeleteInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "scheduling prompts in this session needs no approval".to_owned() }
    }

    async fn validate(&self, input: &CronDeleteInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.id.trim().is_empty() {
            return Err(ToolError::invalid_input("id is empty").with_hint("use an id that CronList shows"));
        }
        Ok(())
    }

    async fn call(&self, input: CronDeleteInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let job = scheduler(self.scheduler.as_ref())?.delete(&input.id).map_err(cron_error)?;
        let text = format!("Cancelled job {} (`{}`).", job.id, job.cron);
        Ok(ToolOutput::text(text).with_structured(json!({"id": job.id})))
    }

    fn render_use(&self, input: &CronDeleteInput) -> String {
        format!("CronDelete({})", input.id)
    }
}

impl TypedTool for CronList {
    type Input = CronListInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "CronList"
    }

    fn description(&self) -> String {
        "Lists the jobs scheduled in this session (CronCreate), with their ids, schedules, next run times and \
         prompts."
            .to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("list scheduled cron jobs")
    }

    fn is_enabled(&self) -> bool {
        self.scheduler.is_some()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn check_permissions(&self, _input: &CronListInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "scheduling prompts in this session needs no approval".to_owned() }
    }

    fn is_read_only(&self, _input: &CronListInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &CronListInput) -> bool {
        true
    }

    async fn call(&self, _input: CronListInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let scheduler = scheduler(self.scheduler.as_ref())?;
        let jobs = scheduler.list();
        if jobs.is_empty() {
            return Ok(ToolOutput::text("No scheduled jobs.").with_structured(json!({"jobs": []})));
        }
        let mut lines = Vec::new();
        let mut structured = Vec::new();
        for (job, next) in &jobs {
            let next_text = next.map_or_else(|| "never".to_owned(), |t| scheduler.display_time(t));
            lines.push(format!(
                "{} — `{}` ({}, {}) next: {next_text} — {}",
                job.id,
                job.cron,
                if job.recurring { "recurring" } else { "one-time" },
                if job.durable { "durable" } else { "session-only" },
                one_line(&job.prompt, 120)
            ));
            structured.push(json!({
                "id": job.id,
                "cron": job.cron,
                "humanSchedule": CronScheduler::describe(&job.cron),
                "prompt": job.prompt,
                "recurring": job.recurring,
                "durable": job.durable,
                "nextRunAt": next,
                "expiresAt": job.expires_at,
            }));
        }
        Ok(ToolOutput::text(lines.join("\n")).with_structured(json!({"jobs": structured})))
    }

    fn render_use(&self, _input: &CronListInput) -> String {
        "CronList".to_owned()
    }
}
