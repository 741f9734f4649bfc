//! TeamCreate and TeamDelete: teams of agents on the host's [`MessageBus`].
//!
//! Claude Code's agent-team tools. TeamCreate (`team_name`, `description`, `agent_type`)
//! makes the calling agent the lead of a new team; teammates started afterwards with the
//! Agent tool and a `name` join it. TeamDelete (no input needed; `team_name` to pick one
//! when the caller leads several) removes the team and its teammates' inboxes.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::agent::{AgentIdentity, AgentServices};
use crate::send_message::bus::{MessageBus, Team, valid_bus_name};
use crate::send_message::bus_error;

/// TeamCreate's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TeamCreateInput {
    /// The new team's name.
    pub(crate) team_name: String,
    /// What the team is for.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// The default subagent type of its teammates.
    #[serde(default)]
    pub(crate) agent_type: Option<String>,
}

/// TeamDelete's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TeamDeleteInput {
    /// The team to delete; omit it to delete the team you lead.
    #[serde(default)]
    pub(crate) team_name: Option<String>,
}

/// The TeamCreate tool.
#[derive(Clone)]
pub(crate) struct TeamCreate {
    bus: Option<Arc<dyn MessageBus>>,
    identity: AgentIdentity,
}

/// The TeamDelete tool.
#[derive(Clone)]
pub(crate) struct TeamDelete {
    bus: Option<Arc<dyn MessageBus>>,
    identity: AgentIdentity,
}

impl TeamCreate {
    /// The tool over `services` (disabled without a bus).
    pub(crate) fn tool(services: &AgentServices) -> DynTool {
        typed(Self { bus: services.bus.clone(), identity: services.identity.clone() })
    }
}

impl TeamDelete {
    /// The tool over `services` (disabled without a bus).
    pub(crate) fn tool(services: &AgentServices) -> DynTool {
        typed(Self { bus: services.bus.clone(), identity: services.identity.clone() })
    }
}

fn bus(bus: Option<&Arc<dyn MessageBus>>) -> Result<&Arc<dyn MessageBus>, ToolError> {
    bus.ok_or_else(|| ToolError::internal("this session has no message bus"))
}

impl TypedTool for TeamCreate {
    type Input = TeamCreateInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TeamCreate"
    }

    fn description(&self) -> String {
        "\
Creates a team of agents that you lead. Teammates you then start with the Agent tool and \
a name join the team and can exchange messages with you and each other through \
SendMessage. Delete the team with TeamDelete when the work is done.

- team_name: the team's name (1-64 letters, digits, `-`, `_` or `.`).
- description: what the team is for.
- agent_type: the subagent type its teammates usually have."
            .to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("create a team of agents")
    }

    fn is_enabled(&self) -> bool {
        self.bus.is_some()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn check_permissions(&self, _input: &TeamCreateInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "managing the session's agent teams needs no approval".to_owned() }
    }

    async fn validate(&self, input: &TeamCreateInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if valid_bus_name(&input.team_name) {
            Ok(())
        } else {
            Err(ToolError::invalid_input(format!("`{}` cannot be a team name", input.team_name))
                .with_hint("use 1-64 letters, digits, `-`, `_` or `.`, starting with a letter or digit"))
        }
    }

    async fn call(&self, input: TeamCreateInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let bus = bus(self.bus.as_ref())?;
        let lead = &self.identity.0;
        if let Some(led) = bus.teams().map_err(bus_error)?.into_iter().find(|t| &t.lead == lead) {
            return Err(ToolError::invalid_input(format!("you already lead the team `{}`", led.name))
                .with_hint("keep working with that team, or delete it with TeamDelete before creating another"));
        }
        let mut team = Team::new(input.team_name.clone(), lead.clone());
        team.description = input.description.clone().unwrap_or_default();
        team.agent_type.clone_from(&input.agent_type);
        bus.create_team(team).map_err(bus_error)?;
        let text = format!(
            "Team `{}` created; you ({lead}) lead it. Start teammates with the Agent tool and a name to add them.",
            input.team_name
        );
        let structured = json!({"team_name": input.team_name, "lead": lead, "description": input.description});
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &TeamCreateInput) -> String {
        format!("TeamCreate({})", input.team_name)
    }
}

impl TypedTool for TeamDelete {
    type Input = TeamDeleteInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TeamDelete"
    }

    fn description(&self) -> String {
        "\
Deletes the team you lead, once its work is done: its teammates leave the message bus and \
their unread messages are discarded. Give team_name only when you lead more than one team."
            .to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("delete a team of agents")
    }

    fn is_enabled(&self) -> bool {
        self.bus.is_some()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn check_permissions(&self, _input: &TeamDeleteInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "managing the session's agent teams needs no approval".to_owned() }
    }

    fn is_destructive(&self, _input: &TeamDeleteInput) -> bool {
        true
    }

    async fn call(&self, input: TeamDeleteInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let bus = bus(self.bus.as_ref())?;
        let name = match input.team_name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => name.to_owned(),
            None => {
                let teams = bus.teams().map_err(bus_error)?;
                let led: Vec<&Team> = teams.iter().filter(|t| t.lead == self.identity.0).collect();
                match led.as_slice() {
                    [one] => one.name.clone(),
                    [] => {
                        return Err(ToolError::not_found("you do not lead a team, so there is none to delete")
                            .with_hint("create one with TeamCreate, or give team_name"));
                    }
                    many => {
                        let names: Vec<&str> = many.iter().map(|t| t.name.as_str()).collect();
                        return Err(ToolError::invalid_input(format!("you lead several teams: {}", names.join(", ")))
                            .with_hint("give team_name to say which one to delete"));
                    }
                }
            }
        };
        let (team, removed) = bus.delete_team(&name).map_err(bus_error)?;
        let text = if removed.is_empty() {
            format!("Team `{}` deleted.", team.name)
        } else {
            format!("Team `{}` deleted; removed teammates: {}.", team.name, removed.join(", "))
        };
        let structured = json!({"team_name": team.name, "removed": removed});
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &TeamDeleteInput) -> String {
        format!("TeamDelete({})", input.team_name.as_deref().unwrap_or("current"))
    }
}
