//! Agent's model-facing description.

use super::runner::SubagentType;

/// The description, listing the subagent types on offer.
pub(super) fn description(types: &[SubagentType]) -> String {
    let mut list = String::new();
    for t in types {
        let tools = match &t.tools {
            None => "all tools".to_owned(),
            Some(tools) if tools.is_empty() => "no tools".to_owned(),
            Some(tools) => tools.join(", "),
        };
        list.push_str(&format!("- {}: {} (Tools: {tools})\n", t.name, t.description.trim()));
    }
    if list.is_empty() {
        list.push_str("- (none: no subagent runner is configured)\n");
    }
    format!(
        "\
Launches a subagent to handle a complex, multi-step task on its own. The subagent starts \
fresh: it does not see this conversation, so the prompt must hold everything it needs. \
You see only its final answer, not its steps.

Available subagent types (subagent_type) and the tools they may use:
{list}
- description: a short (3-5 words) summary of the task.
- prompt: the task in full, with the files, facts and constraints the subagent needs, \
and what it should report back.
- subagent_type: one of the types above (default general-purpose).
- model: sonnet, opus or haiku, to override the type's model.
- run_in_background: true to start it and carry on; you get a task ID at once. Read its \
result with TaskOutput (task_id) when you need it, or stop it with TaskStop.
- name: a teammate name, so other agents can reach it with SendMessage.

Launch several agents in one message when their tasks are independent. The subagent's \
answer is not shown to the user: summarise what matters from it. Trust but verify: an \
agent's report describes what it intended to do, not necessarily what it did."
    )
}
