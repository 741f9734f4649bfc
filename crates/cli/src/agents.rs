//! The agent tools' services for the binary: the process subagent runner, the message
//! bus and the scheduler, and where due scheduled prompts go.
//!
//! - Agent runs `TOOLGATE_AGENT_COMMAND` (see `toolgate_builtin::ProcessSubagentRunner`);
//!   without it, Agent is not offered.
//! - The message bus is a folder of JSON files: `TOOLGATE_MESSAGE_DIR` when set, else
//!   `<session dir>/messages` with `--session-dir`, else it is kept in memory. Subagents
//!   get the folder in `TOOLGATE_MESSAGE_DIR`, so a subagent that runs toolgate joins its
//!   parent's bus. This process's agent is named by `TOOLGATE_AGENT_NAME` (a subagent
//!   started by Agent with a name has it set), else `main`.
//! - Durable scheduled jobs live in `<cwd>/.claude/scheduled_tasks.json`; a due prompt is
//!   printed on stderr as one JSON line, `{"type":"scheduled_prompt", …}`.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use toolgate_builtin::{
    AgentServices, CronEvent, CronScheduler, FolderBus, InProcessBus, MAIN_AGENT, MessageBus, ProcessSubagentRunner,
};
use toolgate_core::Extensions;

/// Installs the services in `extensions` (beside the other hosts' services there). Needs
/// a tokio runtime (the scheduler's task).
pub fn install(cwd: &Path, session_dir: Option<&Path>, extensions: &mut Extensions) {
    let identity = std::env::var("TOOLGATE_AGENT_NAME")
        .ok()
        .filter(|n| toolgate_builtin::valid_bus_name(n))
        .unwrap_or_else(|| MAIN_AGENT.to_owned());
    let mut services = AgentServices::new().identity(identity.clone());

    let mut message_dir = None;
    // A subagent's own toolgate joins its parent's bus; otherwise the session dir's.
    let folder = std::env::var_os("TOOLGATE_MESSAGE_DIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| session_dir.map(|d| d.join("messages")));
    let bus: Arc<dyn MessageBus> = match folder {
        // Absolute, so a subagent in another directory finds it.
        Some(dir) => match FolderBus::open(std::path::absolute(&dir).unwrap_or(dir), &identity) {
            Ok(bus) => {
                message_dir = Some(bus.dir().to_path_buf());
                Arc::new(bus)
            }
            Err(e) => {
                tracing::warn!("{e}; messages stay in memory");
                Arc::new(InProcessBus::new(identity.clone()))
            }
        },
        None => Arc::new(InProcessBus::new(identity.clone())),
    };
    services = services.bus(bus);

    let user_dir = toolgate_builtin::user_claude_dir();
    if let Some((mut runner, diagnostics)) = ProcessSubagentRunner::from_env(cwd, user_dir.as_deref()) {
        for d in diagnostics {
            tracing::warn!("agents: {d}");
        }
        if let Some(dir) = &message_dir {
            runner = runner.env("TOOLGATE_MESSAGE_DIR", dir.display().to_string());
        }
        services = services.runner(Arc::new(runner));
    }

    let (scheduler, diagnostics) =
        CronScheduler::builder().durable_file(cwd.join(".claude").join("scheduled_tasks.json")).build();
    for d in diagnostics {
        tracing::warn!("scheduled tasks: {d}");
    }
    let mut events = scheduler.spawn();
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            let line = match event {
                CronEvent::Fired { id, prompt, cron, scheduled_for, recurring } => json!({
                    "type": "scheduled_prompt", "id": id, "prompt": prompt, "cron": cron,
                    "scheduledFor": scheduled_for, "recurring": recurring,
                }),
                CronEvent::Expired { id, prompt } => {
                    json!({"type": "scheduled_job_expired", "id": id, "prompt": prompt})
                }
                CronEvent::SaveFailed { message } => json!({"type": "scheduled_jobs_not_saved", "message": message}),
                _ => continue,
            };
            eprintln!("{line}");
        }
    });
    services = services.scheduler(scheduler);

    services.install(extensions);
}
