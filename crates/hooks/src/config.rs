//! Hook configuration: the `hooks` object of every settings source, merged in order.
//!
//! Each source (user, project and local settings, a `--settings` file, managed settings,
//! a plugin's `hooks/hooks.json`, a skill's or agent's frontmatter) maps an event to
//! matcher groups, each with handlers. [`HooksConfig::builder`] reads them in the order
//! given (lowest precedence first, as the settings merge does) and keeps every group, in
//! that order: hooks from all sources add up, none replaces another.
//!
//! Loading never fails. A malformed entry (an unknown event, a handler without a command,
//! a type toolgate does not run, a bad timeout …) becomes a [`Diagnostic`] naming the
//! file and the entry, and the rest still loads.
//!
//! `disableAllHooks: true` turns off every hook that is not from managed settings; only
//! managed settings can turn off managed hooks. Among the other sources the last one
//! that sets the key decides. `allowManagedHooksOnly: true` in managed settings turns off
//! every non-managed hook.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::{HookEvent, Matcher};

/// Where hooks were configured.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SourceKind {
    /// `~/.claude/settings.json`.
    User,
    /// `.claude/settings.json`.
    Project,
    /// `.claude/settings.local.json`.
    Local,
    /// A `--settings` file.
    Flag,
    /// Managed (policy) settings.
    Managed,
    /// A plugin's `hooks/hooks.json`.
    Plugin {
        /// The plugin's name.
        name: String,
        /// Its installation directory (`CLAUDE_PLUGIN_ROOT`).
        root: PathBuf,
        /// Its data directory (`CLAUDE_PLUGIN_DATA`).
        data: Option<PathBuf>,
    },
    /// A skill's frontmatter.
    Skill {
        /// The skill's name.
        name: String,
    },
    /// A subagent's frontmatter (its `Stop` hooks become `SubagentStop`).
    Agent {
        /// The agent's name.
        name: String,
    },
    /// Registered in memory for this session.
    Session,
}

impl SourceKind {
    /// A short label: `User`, `Project`, `Local`, `Flag`, `Managed`, `Plugin`, `Skill`,
    /// `Agent`, `Session` (Claude Code shows it next to a hook's `ask`).
    pub fn label(&self) -> &'static str {
        match self {
            Self::User => "User",
            Self::Project => "Project",
            Self::Local => "Local",
            Self::Flag => "Flag",
            Self::Managed => "Managed",
            Self::Plugin { .. } => "Plugin",
            Self::Skill { .. } => "Skill",
            Self::Agent { .. } => "Agent",
            Self::Session => "Session",
        }
    }

    /// True for managed settings.
    pub fn is_managed(&self) -> bool {
        matches!(self, Self::Managed)
    }

    /// The namespace that keeps identical handlers apart when deduplicating: plugins,
    /// skills and agents each have their own; all settings files share one.
    pub fn namespace(&self) -> Option<String> {
        match self {
            Self::Plugin { name, .. } => Some(format!("plugin:{name}")),
            Self::Skill { name } => Some(format!("skill:{name}")),
            Self::Agent { name } => Some(format!("agent:{name}")),
            _ => None,
        }
    }
}

/// A source of hooks: its kind and the file it was read from.
///
/// ```
/// use toolgate_hooks::{HookSource, SourceKind};
/// let s = HookSource::project("/repo/.claude/settings.json");
/// assert_eq!(s.kind, SourceKind::Project);
/// assert_eq!(s.to_string(), "/repo/.claude/settings.json");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HookSource {
    /// What kind of source.
    pub kind: SourceKind,
    /// The file (for diagnostics and for people).
    pub path: PathBuf,
}

impl HookSource {
    /// A source.
    pub fn new(kind: SourceKind, path: impl Into<PathBuf>) -> Self {
        Self { kind, path: path.into() }
    }

    /// User settings.
    pub fn user(path: impl Into<PathBuf>) -> Self {
        Self::new(SourceKind::User, path)
    }

    /// Project settings.
    pub fn project(path: impl Into<PathBuf>) -> Self {
        Self::new(SourceKind::Project, path)
    }

    /// Local project settings.
    pub fn local(path: impl Into<PathBuf>) -> Self {
        Self::new(SourceKind::Local, path)
    }

    /// Managed settings.
    pub fn managed(path: impl Into<PathBuf>) -> Self {
        Self::new(SourceKind::Managed, path)
    }
}

impl fmt::Display for HookSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())
    }
}

/// A problem found while loading or running hooks: where, and what.
///
/// ```
/// use toolgate_hooks::{HookSource, HooksConfig};
/// let settings = serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}});
/// let config = HooksConfig::builder().add(HookSource::user("/home/me/.claude/settings.json"), &settings).build();
/// let d = &config.diagnostics()[0];
/// assert_eq!(
///     d.to_string(),
///     "/home/me/.claude/settings.json: hooks.PreToolUse[0].hooks[0]: a command hook needs a non-empty 'command' string; this handler is skipped"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, when the problem is in one.
    pub path: Option<PathBuf>,
    /// The entry (`hooks.PreToolUse[0].hooks[1]`) or hook (`` `./check.sh` ``).
    pub location: String,
    /// What is wrong and what happens because of it.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(path: Option<&Path>, location: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.map(Path::to_path_buf), location: location.into(), message: message.into() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// How a shell-form command is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Shell {
    /// `sh -c` (Claude Code's shell form on macOS and Linux).
    #[default]
    Sh,
    /// `bash -c` (`"shell": "bash"`).
    Bash,
}

/// A `type: "command"` handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHook {
    /// The shell command, or the executable in exec form.
    pub command: String,
    /// Exec form: the argument vector (no shell). `None` for shell form.
    pub args: Option<Vec<String>>,
    /// The shell for shell form.
    pub shell: Shell,
    /// `async: true` (or `asyncRewake: true`): the command runs in the background and never
    /// delays the call; its outcome is reported when it ends.
    pub background: Option<Background>,
}

/// How a background (`async`) command hook's end is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Background {
    /// `async: true`: its output is context for the model once it ends.
    Report,
    /// `asyncRewake: true`: as `Report`, and an exit code 2 wakes the model with its stderr.
    Rewake,
}

/// A `type: "http"` handler: the event JSON is POSTed to `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHook {
    /// Where to POST.
    pub url: String,
    /// Extra headers; `$VAR` and `${VAR}` in values are replaced by the environment
    /// variable only when it is listed in `allowed_env_vars` (by nothing otherwise).
    pub headers: Vec<(String, String)>,
    /// The variables header values may use.
    pub allowed_env_vars: Vec<String>,
}

/// What a handler runs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HandlerKind {
    /// A process.
    Command(CommandHook),
    /// An HTTP POST.
    Http(HttpHook),
    /// A question to a model, answered ok or not.
    Prompt(PromptHook),
    /// A call of a configured MCP server's tool.
    McpTool(McpToolHook),
    /// A question to a subagent, answered ok or not (the prompt hook's form).
    Agent(PromptHook),
}

/// The `type`s of handler, as settings name them: the diagnostic for a missing or unknown
/// type lists them.
const HANDLER_TYPES: &str = "\"command\", \"http\", \"prompt\", \"agent\" or \"mcp_tool\"";

impl HandlerKind {
    /// The timeout of a handler of this kind that sets none, on `event`: a prompt hook waits
    /// 30 s for its model, an agent hook 60 s for its subagent, the others
    /// [`HookEvent::default_timeout`].
    pub(crate) fn default_timeout(&self, event: HookEvent) -> Duration {
        match self {
            Self::Prompt(_) => crate::prompt::DEFAULT_TIMEOUT,
            Self::Agent(_) => crate::prompt::AGENT_TIMEOUT,
            Self::Command(_) | Self::Http(_) | Self::McpTool(_) => event.default_timeout(),
        }
    }
}

/// A `type: "mcp_tool"` handler: a tool of a configured MCP server is called with `input`,
/// its `${tool_input.file_path}`-style placeholders filled from the event input, and its
/// result's text is read as a command hook's stdout.
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolHook {
    /// The server's name as configured.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The tool's input, with placeholders.
    pub input: serde_json::Value,
}

/// A `type: "prompt"` handler: `prompt` (with `$ARGUMENTS`, the event input) goes to a model
/// through the Messages API, whose answer is read as ok, or not with a reason (a block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptHook {
    /// What the model is asked.
    pub prompt: String,
    /// The model, when not the configured default.
    pub model: Option<String>,
}

/// One configured handler.
#[derive(Debug, Clone, PartialEq)]
pub struct HookHandler {
    /// What it runs.
    pub kind: HandlerKind,
    /// Its `timeout`; `None` means the default for its kind on the event (30 s for a prompt
    /// hook, 60 s for an agent hook, else [`HookEvent::default_timeout`]).
    pub timeout: Option<Duration>,
    /// Its `if` condition: one permission rule, checked against the tool call.
    pub condition: Option<String>,
    /// Its `statusMessage`, for a spinner.
    pub status_message: Option<String>,
    /// Where it was configured.
    pub source: Arc<HookSource>,
    /// Its entry in the file, as `hooks.PreToolUse[0].hooks[1]`.
    pub location: String,
}

impl HookHandler {
    /// The handler for people: the command as written (exec form: with its arguments),
    /// or the URL.
    pub fn display(&self) -> String {
        match &self.kind {
            HandlerKind::Command(c) => match &c.args {
                Some(args) if !args.is_empty() => format!("{} {}", c.command, args.join(" ")),
                _ => c.command.clone(),
            },
            HandlerKind::Http(h) => h.url.clone(),
            HandlerKind::Prompt(p) => format!("prompt: {}", p.prompt.lines().next().unwrap_or_default()),
            HandlerKind::McpTool(m) => format!("mcp__{}__{}", m.server, m.tool),
            HandlerKind::Agent(p) => format!("agent: {}", p.prompt.lines().next().unwrap_or_default()),
        }
    }

    /// The identity used to run identical handlers once: for commands the source
    /// namespace, shell, command text, arguments and `if`; for http the URL and `if`.
    pub fn dedup_key(&self) -> String {
        let condition = self.condition.as_deref().unwrap_or("");
        match &self.kind {
            HandlerKind::Command(c) => {
                let namespace = self.source.kind.namespace().unwrap_or_default();
                let args = c.args.as_ref().map(|a| a.join("\u{1f}")).unwrap_or_else(|| "\u{1e}shell".to_owned());
                format!("command\0{namespace}\0{:?}\0{}\0{args}\0{condition}", c.shell, c.command)
            }
            HandlerKind::Http(h) => format!("http\0{}\0{condition}", h.url),
            HandlerKind::Prompt(p) => format!("prompt\0{}\0{:?}\0{condition}", p.prompt, p.model),
            HandlerKind::McpTool(m) => format!("mcp_tool\0{}\0{}\0{}\0{condition}", m.server, m.tool, m.input),
            HandlerKind::Agent(p) => format!("agent\0{}\0{:?}\0{condition}", p.prompt, p.model),
        }
    }
}

/// One matcher group: which values it applies to, and its handlers.
#[derive(Debug, Clone)]
pub struct MatcherGroup {
    /// The compiled matcher ([`Matcher::All`] on events without matcher support).
    pub matcher: Matcher,
    /// The matcher as written.
    pub matcher_text: Option<String>,
    /// The handlers, in order.
    pub handlers: Vec<HookHandler>,
    /// Where the group was configured.
    pub source: Arc<HookSource>,
}

/// Every configured hook, by event, in configuration order, plus what was wrong.
///
/// ```
/// use toolgate_hooks::{HookEvent, HookSource, HooksConfig};
/// let user = serde_json::json!({"hooks": {"PreToolUse": [
///     {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}
/// ]}});
/// let project = serde_json::json!({"hooks": {"PreToolUse": [
///     {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./fmt.sh"}]}
/// ]}});
/// let config = HooksConfig::builder()
///     .add(HookSource::user("/home/me/.claude/settings.json"), &user)
///     .add(HookSource::project("/repo/.claude/settings.json"), &project)
///     .build();
/// assert!(config.diagnostics().is_empty());
/// let groups = config.groups(HookEvent::PreToolUse);
/// assert_eq!(groups.len(), 2); // merged, user first
/// assert!(groups[0].matcher.matches("Bash") && groups[1].matcher.matches("Write"));
/// assert_eq!(groups[0].handlers[0].timeout.unwrap().as_secs(), 30);
/// ```
#[derive(Debug, Clone, Default)]
pub struct HooksConfig {
    events: BTreeMap<HookEvent, Vec<MatcherGroup>>,
    diagnostics: Vec<Diagnostic>,
}

impl HooksConfig {
    /// A builder reading sources in order.
    pub fn builder() -> HooksConfigBuilder {
        HooksConfigBuilder::default()
    }

    /// The matcher groups of `event`, in configuration order.
    pub fn groups(&self, event: HookEvent) -> &[MatcherGroup] {
        self.events.get(&event).map_or(&[], Vec::as_slice)
    }

    /// Every handler with its event and matcher group, event by event, each event's in
    /// configuration order.
    ///
    /// ```
    /// use toolgate_hooks::{HookEvent, HookSource, HooksConfig};
    /// let settings = serde_json::json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}});
    /// let config = HooksConfig::builder().add(HookSource::project("/p/.claude/settings.json"), &settings).build();
    /// let events: Vec<HookEvent> = config.handlers().map(|(event, _, _)| event).collect();
    /// assert_eq!(events, [HookEvent::Stop]);
    /// ```
    pub fn handlers(&self) -> impl Iterator<Item = (HookEvent, &MatcherGroup, &HookHandler)> {
        self.events.iter().flat_map(|(&event, groups)| {
            groups.iter().flat_map(move |group| group.handlers.iter().map(move |handler| (event, group, handler)))
        })
    }

    /// Whether no hook is configured for any event.
    pub fn is_empty(&self) -> bool {
        self.events.values().all(Vec::is_empty)
    }

    /// What was wrong in the sources.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

/// Reads sources into a [`HooksConfig`]; see the module docs for the merge rules.
#[derive(Debug, Default)]
pub struct HooksConfigBuilder {
    groups: Vec<(HookEvent, MatcherGroup)>,
    diagnostics: Vec<Diagnostic>,
    /// `disableAllHooks` of the last non-managed source that set it.
    disable_non_managed: Option<bool>,
    /// `disableAllHooks: true` in managed settings.
    disable_managed: bool,
    /// `allowManagedHooksOnly: true` in managed settings.
    managed_only: bool,
}

impl HooksConfigBuilder {
    /// Reads one settings object (or a plugin's `hooks.json`, or frontmatter as JSON):
    /// its `hooks`, `disableAllHooks` and, for managed settings, `allowManagedHooksOnly`.
    #[must_use]
    pub fn add(mut self, source: HookSource, settings: &Value) -> Self {
        self.read(source, settings);
        self
    }

    /// Parses `text` as JSON and reads it as [`HooksConfigBuilder::add`] does; text that
    /// is not JSON is a diagnostic.
    #[must_use]
    pub fn add_json(mut self, source: HookSource, text: &str) -> Self {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => self.read(source, &value),
            Err(e) => self.diagnostics.push(Diagnostic::new(
                Some(&source.path),
                "settings",
                format!("not valid JSON ({e}); no hooks are read from this file"),
            )),
        }
        self
    }

    /// The configuration: groups from the sources that are not turned off.
    pub fn build(self) -> HooksConfig {
        let non_managed_off = self.disable_managed || self.managed_only || self.disable_non_managed == Some(true);
        let mut events: BTreeMap<HookEvent, Vec<MatcherGroup>> = BTreeMap::new();
        for (event, group) in self.groups {
            let off = if group.source.kind.is_managed() { self.disable_managed } else { non_managed_off };
            if !off {
                events.entry(event).or_default().push(group);
            }
        }
        HooksConfig { events, diagnostics: self.diagnostics }
    }

    fn read(&mut self, source: HookSource, settings: &Value) {
        let source = Arc::new(source);
        let path = Some(source.path.as_path());
        let Some(settings) = settings.as_object() else {
            self.diag(path, "settings", "expected a JSON object; no hooks are read from this file");
            return;
        };
        match settings.get("disableAllHooks") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) if source.kind.is_managed() => self.disable_managed |= *b,
            Some(Value::Bool(b)) => self.disable_non_managed = Some(*b),
            Some(_) => self.diag(path, "disableAllHooks", "expected true or false; the setting is ignored"),
        }
        match settings.get("allowManagedHooksOnly") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) if source.kind.is_managed() => self.managed_only |= *b,
            Some(Value::Bool(_)) => self.diag(
                path,
                "allowManagedHooksOnly",
                "only managed settings can restrict hooks to managed ones; the setting is ignored",
            ),
            Some(_) => self.diag(path, "allowManagedHooksOnly", "expected true or false; the setting is ignored"),
        }
        match settings.get("hooks") {
            None | Some(Value::Null) => {}
            Some(Value::Object(hooks)) => self.read_hooks(&source, hooks),
            Some(_) => self.diag(path, "hooks", "expected an object mapping event names to matcher groups"),
        }
    }

    fn read_hooks(&mut self, source: &Arc<HookSource>, hooks: &Map<String, Value>) {
        let path = Some(source.path.as_path());
        for (name, groups) in hooks {
            let location = format!("hooks.{name}");
            let Ok(mut event) = name.parse::<HookEvent>() else {
                self.diag(path, &location, format!("unknown hook event '{name}'; its hooks never run"));
                continue;
            };
            // A subagent's Stop is its SubagentStop.
            if event == HookEvent::Stop && matches!(source.kind, SourceKind::Agent { .. }) {
                event = HookEvent::SubagentStop;
            }
            let Some(groups) = groups.as_array() else {
                self.diag(path, &location, "expected an array of matcher groups; none are read");
                continue;
            };
            for (i, group) in groups.iter().enumerate() {
                let location = format!("{location}[{i}]");
                if let Some(group) = self.read_group(source, event, group, &location) {
                    self.groups.push((event, group));
                }
            }
        }
    }

    fn read_group(
        &mut self,
        source: &Arc<HookSource>,
        event: HookEvent,
        group: &Value,
        location: &str,
    ) -> Option<MatcherGroup> {
        let path = Some(source.path.as_path());
        let Some(group) = group.as_object() else {
            self.diag(path, location, "expected a matcher group object; it is skipped");
            return None;
        };
        let matcher_text = match group.get("matcher") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.diag(path, format!("{location}.matcher"), "expected a string; this group is skipped");
                return None;
            }
        };
        let matcher = match &matcher_text {
            None => Matcher::All,
            Some(text) if !event.supports_matcher() => {
                if !matches!(text.trim(), "" | "*") {
                    self.diag(
                        path,
                        format!("{location}.matcher"),
                        format!("{event} does not support matchers; these hooks run on every {event}"),
                    );
                }
                Matcher::All
            }
            Some(text) => {
                let (matcher, diagnostic) = Matcher::parse(text);
                if let Some(message) = diagnostic {
                    self.diag(path, format!("{location}.matcher"), message);
                }
                matcher
            }
        };
        let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
            self.diag(path, location, "has no 'hooks' array of handlers; it is skipped");
            return None;
        };
        let handlers = handlers
            .iter()
            .enumerate()
            .filter_map(|(j, h)| self.read_handler(source, event, h, &format!("{location}.hooks[{j}]")))
            .collect();
        Some(MatcherGroup { matcher, matcher_text, handlers, source: Arc::clone(source) })
    }

    fn read_handler(
        &mut self,
        source: &Arc<HookSource>,
        event: HookEvent,
        handler: &Value,
        location: &str,
    ) -> Option<HookHandler> {
        let path = Some(source.path.as_path());
        let Some(h) = handler.as_object() else {
            self.diag(path, location, "expected a handler object; it is skipped");
            return None;
        };
        let kind = match h.get("type").and_then(Value::as_str) {
            Some("command") => HandlerKind::Command(self.read_command(path, h, location)?),
            Some("http") => HandlerKind::Http(self.read_http(path, h, location)?),
            Some(kind @ ("prompt" | "agent")) => {
                let Some(prompt) = h.get("prompt").and_then(Value::as_str).filter(|p| !p.trim().is_empty()) else {
                    self.diag(
                        path,
                        location,
                        format!(
                            "{} {kind} hook needs a non-empty 'prompt' string; this handler is skipped",
                            if kind == "agent" { "an" } else { "a" }
                        ),
                    );
                    return None;
                };
                let model = h.get("model").and_then(Value::as_str).map(str::to_owned);
                let hook = PromptHook { prompt: prompt.to_owned(), model };
                if kind == "agent" { HandlerKind::Agent(hook) } else { HandlerKind::Prompt(hook) }
            }
            Some("mcp_tool") => {
                let text = |key: &str| h.get(key).and_then(Value::as_str).filter(|v| !v.trim().is_empty());
                let (Some(server), Some(tool)) = (text("server"), text("tool")) else {
                    self.diag(
                        path,
                        location,
                        "an mcp_tool hook needs 'server' and 'tool' strings; this handler is skipped",
                    );
                    return None;
                };
                let input = h.get("input").cloned().unwrap_or_else(|| Value::Object(Map::new()));
                HandlerKind::McpTool(McpToolHook { server: server.to_owned(), tool: tool.to_owned(), input })
            }
            Some(other) => {
                self.diag(
                    path,
                    location,
                    format!("unknown hook type '{other}' (expected {HANDLER_TYPES}); this handler is skipped"),
                );
                return None;
            }
            None => {
                self.diag(path, location, format!("a handler needs a 'type' ({HANDLER_TYPES}); it is skipped"));
                return None;
            }
        };
        let timeout = match h.get("timeout") {
            None | Some(Value::Null) => None,
            Some(v) => match v
                .as_f64()
                .filter(|s| s.is_finite() && *s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
            {
                Some(t) => Some(t),
                None => {
                    let default = kind.default_timeout(event).as_secs_f64();
                    self.diag(
                        path,
                        format!("{location}.timeout"),
                        format!("expected a positive number of seconds, got {v}; the default of {default} s applies"),
                    );
                    None
                }
            },
        };
        let condition = match h.get("if") {
            None | Some(Value::Null) => None,
            Some(Value::String(rule)) => Some(rule.clone()),
            Some(v) => {
                self.diag(
                    path,
                    format!("{location}.if"),
                    format!("expected a permission rule string, got {v}; this handler is skipped"),
                );
                return None;
            }
        };
        if condition.is_some() && !event.is_tool_event() {
            self.diag(
                path,
                format!("{location}.if"),
                format!("'if' only applies to tool events, so this handler never runs on {event}; it is skipped"),
            );
            return None;
        }
        let status_message = match h.get("statusMessage") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.diag(path, format!("{location}.statusMessage"), "expected a string; it is ignored");
                None
            }
        };
        Some(HookHandler {
            kind,
            timeout,
            condition,
            status_message,
            source: Arc::clone(source),
            location: location.to_owned(),
        })
    }

    fn read_command(&mut self, path: Option<&Path>, h: &Map<String, Value>, location: &str) -> Option<CommandHook> {
        let Some(command) = h.get("command").and_then(Value::as_str).filter(|c| !c.trim().is_empty()) else {
            self.diag(path, location, "a command hook needs a non-empty 'command' string; this handler is skipped");
            return None;
        };
        let args = match h.get("args") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                let strings: Option<Vec<String>> = items.iter().map(|a| a.as_str().map(str::to_owned)).collect();
                let Some(strings) = strings else {
                    self.diag(
                        path,
                        format!("{location}.args"),
                        "expected an array of strings; this handler is skipped",
                    );
                    return None;
                };
                Some(strings)
            }
            Some(_) => {
                self.diag(path, format!("{location}.args"), "expected an array of strings; this handler is skipped");
                return None;
            }
        };
        let flag = |key: &str| h.get(key).and_then(Value::as_bool) == Some(true);
        let background = if flag("asyncRewake") {
            Some(Background::Rewake)
        } else if flag("async") {
            Some(Background::Report)
        } else {
            None
        };
        let shell = match h.get("shell") {
            None | Some(Value::Null) => Shell::Sh,
            Some(Value::String(s)) if s == "bash" => Shell::Bash,
            Some(Value::String(s)) if s == "powershell" => {
                self.diag(
                    path,
                    format!("{location}.shell"),
                    "powershell hooks are not supported on this platform; this handler is skipped",
                );
                return None;
            }
            Some(v) => {
                self.diag(
                    path,
                    format!("{location}.shell"),
                    format!("expected \"bash\" or \"powershell\", got {v}; this handler is skipped"),
                );
                return None;
            }
        };
        Some(CommandHook { command: command.to_owned(), args, shell, background })
    }

    fn read_http(&mut self, path: Option<&Path>, h: &Map<String, Value>, location: &str) -> Option<HttpHook> {
        let Some(url) = h.get("url").and_then(Value::as_str).filter(|u| !u.trim().is_empty()) else {
            self.diag(path, location, "an http hook needs a non-empty 'url' string; this handler is skipped");
            return None;
        };
        let mut headers = Vec::new();
        match h.get("headers") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (name, value) in map {
                    match value.as_str() {
                        Some(v) => headers.push((name.clone(), v.to_owned())),
                        None => self.diag(
                            path,
                            format!("{location}.headers.{name}"),
                            "expected a string value; this header is not sent",
                        ),
                    }
                }
            }
            Some(_) => {
                self.diag(
                    path,
                    format!("{location}.headers"),
                    "expected an object of strings; this handler is skipped",
                );
                return None;
            }
        }
        let allowed_env_vars = match h.get("allowedEnvVars") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut vars = Vec::new();
                for item in items {
                    match item.as_str() {
                        Some(v) => vars.push(v.to_owned()),
                        None => self.diag(
                            path,
                            format!("{location}.allowedEnvVars"),
                            format!("expected variable names, got {item}; it is ignored"),
                        ),
                    }
                }
                vars
            }
            Some(_) => {
                self.diag(
                    path,
                    format!("{location}.allowedEnvVars"),
                    "expected an array of variable names; no variable is interpolated",
                );
                Vec::new()
            }
        };
        Some(HttpHook { url: url.to_owned(), headers, allowed_env_vars })
    }

    fn diag(&mut self, path: Option<&Path>, location: impl Into<String>, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::new(path, location, message));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn load(settings: Value) -> HooksConfig {
        HooksConfig::builder().add(HookSource::project("/p/.claude/settings.json"), &settings).build()
    }

    fn messages(config: &HooksConfig) -> Vec<String> {
        config.diagnostics().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn every_handler_type_the_diagnostics_list_is_read() {
        for kind in HANDLER_TYPES.split('"').skip(1).step_by(2) {
            let config = load(json!({"hooks": {"Stop": [{"hooks": [{"type": kind}]}]}}));
            let got = messages(&config);
            assert!(got.iter().all(|m| !m.contains("unknown hook type")), "{kind}: {got:?}");
        }
        assert_eq!(HANDLER_TYPES.split('"').skip(1).step_by(2).count(), 5);
    }

    #[test]
    fn bad_entries_are_diagnostics_not_crashes() {
        let config = load(json!({"hooks": {
            "PreToolUsee": [],
            "PostToolUse": {"matcher": "x"},
            "Stop": [
                5,
                {"matcher": 3, "hooks": []},
                {"hooks": "nope"},
                {"hooks": [
                    {"type": "agent"},
                    {"type": "telepathy"},
                    {"command": "no type"},
                    {"type": "command", "command": ""},
                    {"type": "command", "command": "x", "args": [1]},
                    {"type": "command", "command": "x", "timeout": -1},
                    {"type": "command", "command": "x", "async": true},
                    {"type": "command", "command": "x", "if": "Bash(ls)"},
                    {"type": "http"},
                    {"type": "command", "command": "kept"},
                    {"type": "prompt", "prompt": "ok?", "timeout": 0}
                ]}
            ]
        }}));
        let got = messages(&config);
        let want = [
            "hooks.PostToolUse: expected an array of matcher groups; none are read",
            "hooks.PreToolUsee: unknown hook event 'PreToolUsee'; its hooks never run",
            "hooks.Stop[0]: expected a matcher group object; it is skipped",
            "hooks.Stop[1].matcher: expected a string; this group is skipped",
            "hooks.Stop[2]: has no 'hooks' array of handlers; it is skipped",
            "hooks.Stop[3].hooks[0]: an agent hook needs a non-empty 'prompt' string; this handler is skipped",
            "hooks.Stop[3].hooks[1]: unknown hook type 'telepathy' (expected \"command\", \"http\", \"prompt\", \"agent\" or \"mcp_tool\"); this handler is skipped",
            "hooks.Stop[3].hooks[2]: a handler needs a 'type' (\"command\", \"http\", \"prompt\", \"agent\" or \"mcp_tool\"); it is skipped",
            "hooks.Stop[3].hooks[3]: a command hook needs a non-empty 'command' string; this handler is skipped",
            "hooks.Stop[3].hooks[4].args: expected an array of strings; this handler is skipped",
            "hooks.Stop[3].hooks[5].timeout: expected a positive number of seconds, got -1; the default of 600 s applies",
            "hooks.Stop[3].hooks[7].if: 'if' only applies to tool events, so this handler never runs on Stop; it is skipped",
            "hooks.Stop[3].hooks[8]: an http hook needs a non-empty 'url' string; this handler is skipped",
            "hooks.Stop[3].hooks[10].timeout: expected a positive number of seconds, got 0; the default of 30 s applies",
        ];
        let mut want: Vec<String> = want.iter().map(|m| format!("/p/.claude/settings.json: {m}")).collect();
        // Event keys may come in any order (serde_json's map order is a feature choice).
        let mut got = got;
        got.sort();
        want.sort();
        assert_eq!(got, want);
        let stop = config.groups(HookEvent::Stop);
        assert_eq!(stop.len(), 1);
        let names: Vec<String> = stop[0].handlers.iter().map(HookHandler::display).collect();
        assert_eq!(names, ["x", "x", "kept", "prompt: ok?"]); // bad timeouts fall back to the default
        assert_eq!(stop[0].handlers[0].timeout, None);
        let HandlerKind::Command(background) = &stop[0].handlers[1].kind else { panic!("a command hook") };
        assert_eq!(background.background, Some(Background::Report), "async runs in the background");
    }

    #[test]
    fn sources_merge_in_order_and_disable_all_respects_managed() {
        let hook = |cmd: &str| json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": cmd}]}]}});
        let names = |c: &HooksConfig| -> Vec<String> {
            c.groups(HookEvent::PreToolUse).iter().map(|g| g.handlers[0].display()).collect()
        };
        let base = || {
            HooksConfig::builder()
                .add(HookSource::user("/u"), &hook("user"))
                .add(HookSource::project("/p"), &hook("project"))
                .add(HookSource::managed("/m"), &hook("managed"))
        };
        assert_eq!(names(&base().build()), ["user", "project", "managed"]);
        let off = base().add(HookSource::local("/l"), &json!({"disableAllHooks": true})).build();
        assert_eq!(names(&off), ["managed"]);
        let back_on = HooksConfig::builder()
            .add(HookSource::user("/u"), &json!({"disableAllHooks": true}))
            .add(HookSource::project("/p"), &hook("project"))
            .add(HookSource::local("/l"), &json!({"disableAllHooks": false}))
            .build();
        assert_eq!(names(&back_on), ["project"]);
        let all_off = base().add(HookSource::managed("/m2"), &json!({"disableAllHooks": true})).build();
        assert!(all_off.is_empty());
        let managed_only = base().add(HookSource::managed("/m2"), &json!({"allowManagedHooksOnly": true})).build();
        assert_eq!(names(&managed_only), ["managed"]);
    }

    #[test]
    fn handler_fields_are_read() {
        let config = load(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "node", "args": ["a.js", "--fix"], "timeout": 1.5,
             "if": "Bash(rm *)", "statusMessage": "checking"},
            {"type": "command", "command": "echo hi", "shell": "bash"},
            {"type": "http", "url": "http://127.0.0.1:1/h", "headers": {"Authorization": "Bearer $T", "X": 1},
             "allowedEnvVars": ["T"]}
        ]}]}}));
        let handlers = &config.groups(HookEvent::PreToolUse)[0].handlers;
        assert_eq!(handlers[0].timeout, Some(Duration::from_millis(1_500)));
        assert_eq!(handlers[0].condition.as_deref(), Some("Bash(rm *)"));
        assert_eq!(handlers[0].status_message.as_deref(), Some("checking"));
        assert_eq!(handlers[0].display(), "node a.js --fix");
        assert!(matches!(&handlers[1].kind, HandlerKind::Command(c) if c.shell == Shell::Bash && c.args.is_none()));
        let HandlerKind::Http(http) = &handlers[2].kind else { panic!("not http") };
        assert_eq!(http.headers, [("Authorization".to_owned(), "Bearer $T".to_owned())]);
        assert_eq!(http.allowed_env_vars, ["T"]);
        assert_eq!(
            messages(&config),
            [
                "/p/.claude/settings.json: hooks.PreToolUse[0].hooks[2].headers.X: expected a string value; this header is not sent"
            ]
        );
    }

    #[test]
    fn matchers_on_events_without_matcher_support_are_ignored_with_a_note() {
        let config =
            load(json!({"hooks": {"Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}}));
        assert!(matches!(config.groups(HookEvent::Stop)[0].matcher, Matcher::All));
        assert_eq!(
            messages(&config),
            [
                "/p/.claude/settings.json: hooks.Stop[0].matcher: Stop does not support matchers; these hooks run on every Stop"
            ]
        );
    }

    #[test]
    fn invalid_regex_matchers_are_reported() {
        let config = load(
            json!({"hooks": {"PreToolUse": [{"matcher": "Edit(", "hooks": [{"type": "command", "command": "x"}]}]}}),
        );
        assert!(!config.groups(HookEvent::PreToolUse)[0].matcher.matches("Edit"));
        assert!(
            messages(&config)[0]
                .contains("hooks.PreToolUse[0].matcher: hook matcher 'Edit(' is not a valid regular expression")
        );
    }

    #[test]
    fn agent_stop_hooks_become_subagent_stop() {
        let config = HooksConfig::builder()
            .add(
                HookSource::new(SourceKind::Agent { name: "reviewer".into() }, "/agents/reviewer.md"),
                &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
            )
            .build();
        assert!(config.groups(HookEvent::Stop).is_empty());
        assert_eq!(config.groups(HookEvent::SubagentStop).len(), 1);
    }

    #[test]
    fn not_json_and_not_objects_are_reported() {
        let config = HooksConfig::builder()
            .add_json(HookSource::user("/u.json"), "{nope")
            .add(HookSource::user("/v.json"), &json!([1]))
            .add(HookSource::user("/w.json"), &json!({"hooks": 1, "disableAllHooks": "yes"}))
            .build();
        let got = messages(&config);
        assert!(got[0].starts_with("/u.json: settings: not valid JSON ("), "{got:?}");
        assert_eq!(got[1], "/v.json: settings: expected a JSON object; no hooks are read from this file");
        assert_eq!(got[2], "/w.json: disableAllHooks: expected true or false; the setting is ignored");
        assert_eq!(got[3], "/w.json: hooks: expected an object mapping event names to matcher groups");
    }

    #[test]
    fn dedup_keys_separate_plugins_and_conditions() {
        let handler = |source: HookSource, condition: Option<&str>| HookHandler {
            kind: HandlerKind::Command(CommandHook {
                command: "./x.sh".into(),
                args: None,
                shell: Shell::Sh,
                background: None,
            }),
            timeout: None,
            condition: condition.map(str::to_owned),
            status_message: None,
            source: Arc::new(source),
            location: String::new(),
        };
        let user = handler(HookSource::user("/u"), None);
        let project = handler(HookSource::project("/p"), None);
        let plugin = handler(
            HookSource::new(
                SourceKind::Plugin { name: "fmt".into(), root: "/r".into(), data: None },
                "/r/hooks/hooks.json",
            ),
            None,
        );
        let conditional = handler(HookSource::user("/u"), Some("Bash(git *)"));
        assert_eq!(user.dedup_key(), project.dedup_key());
        assert_ne!(user.dedup_key(), plugin.dedup_key());
        assert_ne!(user.dedup_key(), conditional.dedup_key());
    }
}
