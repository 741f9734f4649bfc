//! toolgate-builtin: the tools toolgate ships.
//!
//! One folder per tool; [`all_builtin_tools`] is the one list, and a test walks it the way
//! ripgrep tests its flag registry: names unique and well formed, descriptions present,
//! schemas that compile, and capability defaults that fail closed. Tools that need a
//! host service (a subagent runner, a message bus, a scheduler) are built from the
//! host's services with [`agent_tools`], and are not offered when their service is missing.
//!
//! ```
//! let tools = toolgate_builtin::all_builtin_tools();
//! assert!(tools.iter().any(|t| t.name() == "ToolSearch"));
//! ```

use std::sync::Arc;

use toolgate_core::{DynTool, Extensions, ToolSearchTool};

// -- file tools: modules --
mod apply_patch;
mod edit;
mod file_io;
mod multi_edit;
mod notebook_edit;
mod read;
mod write;
// -- search tools: modules --
mod glob;
mod grep;
mod ls;
mod walk;
pub use glob::GlobOptions;
// -- shell tools: modules --
mod bash;
mod monitor;
#[cfg(feature = "powershell")]
mod powershell;
mod shells;
mod task_output;
mod task_stop;
// -- workspace tools: modules --
mod config;
mod skill;
mod structured_output;
mod worktree;
pub use skill::{SkillCatalog, SkillEntry, SkillSource};
pub use structured_output::{StructuredOutput, StructuredOutputError};
// -- planning tools: modules --
mod ask_user_question;
mod plan_mode;
mod sleep;
mod tasks;
mod todo_write;
pub use ask_user_question::{
    Answer, OTHER_LABEL, PlanDecision, PlanReview, Question, QuestionOption, QuestionsOutcome, UserDialog,
};
pub use plan_mode::PlanFile;
pub use tasks::{FileTaskStore, Task, TaskList, TaskStatus, TaskStore, TaskStoreError};
pub use todo_write::{Todo, TodoStatus, Todos};
// -- web tools: modules --
#[cfg(feature = "web")]
mod web_fetch;
#[cfg(feature = "web")]
pub use web_fetch::{
    ALLOW_PRIVATE_ENV, AddressPolicy, Clock, MODEL_ENV, SystemClock, WebFetch, WebFetchInput, WebFetchSettings,
};
#[cfg(feature = "web")]
mod web_search;
#[cfg(feature = "web")]
pub use web_search::{
    BRAVE_KEY_ENV, BraveSearch, PROVIDER_ENV, SEARXNG_URL_ENV, SearchError, SearchHit, SearchProvider, SearchRequest,
    SearxngSearch, TAVILY_KEY_ENV, TavilySearch, WebSearch, WebSearchInput, search_provider_from_env,
};
// -- agent tools: modules --
mod agent;
mod cron;
mod send_message;
mod team;
pub use agent::{
    AGENT_COMMAND_ENV, AGENT_TIMEOUT_ENV, AgentIdentity, AgentServices, ProcessSubagentRunner, SubagentError,
    SubagentReport, SubagentRequest, SubagentRunner, SubagentType, discover_subagent_types,
};
pub use cron::{
    CronClock, CronError, CronEvent, CronJob, CronScheduler, CronSchedulerBuilder, MAX_JOBS, ManualClock,
    RECURRING_LIFETIME, SystemCronClock, parse_cron,
};
pub use send_message::bus::{
    BusError, FolderBus, InProcessBus, MAIN_AGENT, Member, Message, MessageBus, Team, valid_bus_name,
};
// -- code intelligence tools: modules --
#[cfg(feature = "lsp")]
pub mod lsp;

/// Every built-in tool, in no particular order (the pool sorts them). The planning tools
/// are built without host services, so those that need one are disabled: swap in
/// [`planning_tools`] built from the host's services.
///
/// Tools behind cargo features (`web`, `lsp`, `powershell`) are present only when their
/// feature is on.
pub fn all_builtin_tools() -> Vec<DynTool> {
    #[allow(unused_mut)]
    let mut tools = vec![ToolSearchTool::shared()];
    // -- file tools: list --
    tools.extend([
        read::tool(),
        write::tool(),
        edit::tool(),
        multi_edit::tool(),
        notebook_edit::tool(),
        apply_patch::tool(),
    ]);
    // -- search tools: list --
    tools.extend([
        toolgate_core::typed(glob::GlobTool),
        toolgate_core::typed(grep::GrepTool),
        toolgate_core::typed(ls::LsTool),
    ]);
    // -- shell tools: list --
    tools.extend([
        bash::Bash::tool(),
        task_output::TaskOutput::tool(),
        task_stop::TaskStop::tool(),
        monitor::Monitor::tool(),
    ]);
    #[cfg(feature = "powershell")]
    tools.push(powershell::PowerShell::tool());
    // -- workspace tools: list --
    tools.extend([
        skill::Skill::tool(SkillCatalog::default()),
        config::Config::tool(),
        worktree::EnterWorktree::tool(),
        worktree::ExitWorktree::tool(),
    ]);
    // -- web tools: list --
    #[cfg(feature = "web")]
    tools.extend([WebFetch::tool(WebFetchSettings::from_env()), WebSearch::tool(search_provider_from_env())]);
    // -- planning tools: list --
    tools.extend(planning_tools(&Extensions::default()));
    // -- agent tools: list --
    tools.extend(agent_tools(&toolgate_core::Extensions::default()));
    // -- code intelligence tools: list --
    #[cfg(feature = "lsp")]
    tools.push(lsp::tool());
    tools
}

/// The planning tools, built from the host's services:
///
/// - TodoWrite and Sleep need none;
/// - TaskCreate, TaskGet, TaskUpdate and TaskList need an `Arc<dyn` [`TaskStore`]`>`;
/// - AskUserQuestion needs an `Arc<dyn` [`UserDialog`]`>`;
/// - EnterPlanMode and ExitPlanMode need the dialog and a [`PlanFile`].
///
/// A tool whose service is missing is returned disabled, so a pool drops it.
/// [`with_planning_services`] swaps these into a list of built-in tools.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::{FileTaskStore, PlanFile, TaskStore};
/// use toolgate_core::Extensions;
/// let dir = tempfile::tempdir().unwrap();
/// let mut services = Extensions::default();
/// services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(dir.path())));
/// services.insert(PlanFile::in_session_dir(dir.path()));
/// let enabled: Vec<String> = toolgate_builtin::planning_tools(&services)
///     .iter().filter(|t| t.is_enabled()).map(|t| t.name().to_owned()).collect();
/// // No dialog: no AskUserQuestion, and no plan mode nobody could approve a way out of.
/// assert_eq!(enabled, ["TodoWrite", "Sleep", "TaskCreate", "TaskGet", "TaskUpdate", "TaskList"]);
/// ```
pub fn planning_tools(services: &Extensions) -> Vec<DynTool> {
    let dialog = services.get::<Arc<dyn UserDialog>>().map(|d| (*d).clone());
    let store = services.get::<Arc<dyn TaskStore>>().map(|s| (*s).clone());
    let plan_file = services.get::<PlanFile>().map(|f| (*f).clone());
    let mut tools = vec![todo_write::tool(), sleep::tool(), ask_user_question::tool(dialog.clone())];
    tools.extend(tasks::tools(store));
    tools.extend(plan_mode::tools(dialog, plan_file));
    tools
}

/// `tools` with its planning tools replaced by ones built from `services` (see
/// [`planning_tools`]); a planning tool `tools` left out stays out.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::{FileTaskStore, TaskStore};
/// let dir = tempfile::tempdir().unwrap();
/// let mut services = toolgate_core::Extensions::default();
/// services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(dir.path())));
/// let tools = toolgate_builtin::with_planning_services(toolgate_builtin::all_builtin_tools(), &services);
/// assert!(tools.iter().filter(|t| t.name() == "TaskCreate").all(|t| t.is_enabled()));
/// assert_eq!(tools.iter().filter(|t| t.name() == "TaskCreate").count(), 1);
/// ```
pub fn with_planning_services(mut tools: Vec<DynTool>, services: &Extensions) -> Vec<DynTool> {
    for planned in planning_tools(services) {
        if let Some(slot) = tools.iter_mut().find(|t| t.name() == planned.name()) {
            *slot = planned;
        }
    }
    tools
}

/// Every built-in tool, with the skills of `skills`: what a host builds for a project.
///
/// [`all_builtin_tools`] holds a Skill tool with no skills, which is not offered; this
/// swaps in one over the skills found for the project
/// ([`SkillCatalog::discover`]`(project_dir, user_claude_dir())`). StructuredOutput is
/// not in either list: a host that wants a structured answer adds
/// [`StructuredOutput::tool`] with its schema.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join(".claude/commands")).unwrap();
/// std::fs::write(dir.path().join(".claude/commands/review.md"), "Review $ARGUMENTS").unwrap();
/// let skills = toolgate_builtin::SkillCatalog::discover(dir.path(), None);
/// let tools = toolgate_builtin::builtin_tools_with(skills);
/// let skill = tools.iter().find(|t| t.name() == "Skill").unwrap();
/// assert!(skill.is_enabled());
/// assert!(skill.description().contains("- review: Review $ARGUMENTS (project command)"));
/// ```
pub fn builtin_tools_with(skills: SkillCatalog) -> Vec<DynTool> {
    let mut tools = all_builtin_tools();
    tools.retain(|t| t.name() != "Skill");
    tools.push(skill::Skill::tool(skills));
    tools
}

/// The user's Claude folder: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`; `None`
/// without a home directory.
pub fn user_claude_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".claude")))
}

/// The agent tools (Agent, SendMessage, TeamCreate, TeamDelete, CronCreate, CronDelete,
/// CronList) over the host services in `services` (see [`AgentServices`]); a tool whose
/// service is missing reports `is_enabled() == false`, so a pool leaves it out.
/// [`all_builtin_tools`] lists them without services (all disabled); a host with services
/// adds these, and the pool keeps the enabled ones.
///
/// ```
/// let tools = toolgate_builtin::agent_tools(&toolgate_core::Extensions::default());
/// assert_eq!(tools.len(), 7);
/// assert!(tools.iter().all(|t| !t.is_enabled()));
/// ```
pub fn agent_tools(services: &toolgate_core::Extensions) -> Vec<DynTool> {
    let services = AgentServices::from_extensions(services);
    vec![
        agent::Agent::tool(&services),
        send_message::SendMessage::tool(&services),
        team::TeamCreate::tool(&services),
        team::TeamDelete::tool(&services),
        cron::CronCreate::tool(&services),
        cron::CronDelete::tool(&services),
        cron::CronList::tool(&services),
    ]
}

/// `tools` with its agent tools replaced by ones built from `services` (see
/// [`agent_tools`]); an agent tool `tools` left out stays out.
///
/// ```
/// use std::sync::Arc;
/// let mut services = toolgate_core::Extensions::default();
/// toolgate_builtin::AgentServices::new()
///     .bus(Arc::new(toolgate_builtin::InProcessBus::new("main")))
///     .install(&mut services);
/// let tools = toolgate_builtin::with_agent_services(toolgate_builtin::all_builtin_tools(), &services);
/// assert!(tools.iter().filter(|t| t.name() == "SendMessage").all(|t| t.is_enabled()));
/// assert_eq!(tools.iter().filter(|t| t.name() == "SendMessage").count(), 1);
/// ```
pub fn with_agent_services(mut tools: Vec<DynTool>, services: &Extensions) -> Vec<DynTool> {
    for built in agent_tools(services) {
        if let Some(slot) = tools.iter_mut().find(|t| t.name() == built.name()) {
            *slot = built;
        }
    }
    tools
}

#[cfg(test)]
mod registry_tests;
