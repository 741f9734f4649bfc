//! [`AgentServices`]: the host services of the agent tools, put into and taken out of a
//! session's [`Extensions`].

use std::sync::Arc;

use toolgate_core::Extensions;

use super::runner::SubagentRunner;
use crate::cron::CronScheduler;
use crate::send_message::bus::{MAIN_AGENT, MessageBus};

/// The name the calling agent has on the message bus (default [`MAIN_AGENT`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentIdentity(pub String);

impl Default for AgentIdentity {
    fn default() -> Self {
        Self(MAIN_AGENT.to_owned())
    }
}

/// The services the agent tools use; each tool is offered only when its service is here:
/// Agent needs a [`SubagentRunner`], SendMessage and TeamCreate/TeamDelete a
/// [`MessageBus`], CronCreate/CronDelete/CronList a [`CronScheduler`].
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::{AgentServices, InProcessBus, agent_tools};
/// use toolgate_core::Extensions;
/// let mut services = Extensions::default();
/// AgentServices::new().bus(Arc::new(InProcessBus::new("main"))).install(&mut services);
/// let offered: Vec<String> =
///     agent_tools(&services).iter().filter(|t| t.is_enabled()).map(|t| t.name().to_owned()).collect();
/// assert_eq!(offered, ["SendMessage", "TeamCreate", "TeamDelete"]);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct AgentServices {
    /// Runs subagents.
    pub runner: Option<Arc<dyn SubagentRunner>>,
    /// Carries messages between agents.
    pub bus: Option<Arc<dyn MessageBus>>,
    /// Schedules prompts.
    pub scheduler: Option<CronScheduler>,
    /// Who the calling agent is on the bus.
    pub identity: AgentIdentity,
}

impl AgentServices {
    /// No services.
    pub fn new() -> Self {
        Self::default()
    }

    /// With a subagent runner.
    #[must_use]
    pub fn runner(mut self, runner: Arc<dyn SubagentRunner>) -> Self {
        self.runner = Some(runner);
        self
    }

    /// With a message bus.
    #[must_use]
    pub fn bus(mut self, bus: Arc<dyn MessageBus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// With a scheduler.
    #[must_use]
    pub fn scheduler(mut self, scheduler: CronScheduler) -> Self {
        self.scheduler = Some(scheduler);
        self
    }

    /// With the calling agent's name on the bus.
    #[must_use]
    pub fn identity(mut self, name: impl Into<String>) -> Self {
        self.identity = AgentIdentity(name.into());
        self
    }

    /// Puts the services into `extensions` (replacing any there).
    pub fn install(self, extensions: &mut Extensions) {
        if let Some(runner) = self.runner {
            extensions.insert(runner);
        }
        if let Some(bus) = self.bus {
            extensions.insert(bus);
        }
        if let Some(scheduler) = self.scheduler {
            extensions.insert(scheduler);
        }
        extensions.insert(self.identity);
    }

    /// The services found in `extensions`.
    pub fn from_extensions(extensions: &Extensions) -> Self {
        Self {
            runner: extensions.get::<Arc<dyn SubagentRunner>>().map(|r| (*r).clone()),
            bus: extensions.get::<Arc<dyn MessageBus>>().map(|b| (*b).clone()),
            scheduler: extensions.get::<CronScheduler>().map(|s| (*s).clone()),
            identity: extensions.get::<AgentIdentity>().map(|i| (*i).clone()).unwrap_or_default(),
        }
    }
}

impl std::fmt::Debug for AgentServices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentServices")
            .field("runner", &self.runner.is_some())
            .field("bus", &self.bus.is_some())
            .field("scheduler", &self.scheduler.is_some())
            .field("identity", &self.identity.0)
            .finish()
    }
}
