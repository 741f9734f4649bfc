//! The options every session-building command shares, and building the session from them:
//! settings discovered as Claude Code discovers them, then the command line on top.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;
use toolgate_builtin::{FileTaskStore, PlanFile, TaskStore, UserDialog};
use toolgate_core::{DynTool, Extensions, PermissionBehavior, PermissionMode, RuleSource};
use toolgate_permissions::{LoadedSettings, Prompter, SettingsDiscovery};
use toolgate_pipeline::Session;

use crate::dialog::TerminalDialog;
use crate::prompter::TerminalPrompter;

/// Options of every command that builds a session.
#[derive(Debug, Clone, Args, Default)]
pub struct SessionOpts {
    /// The working directory (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Another directory calls may work in (repeatable).
    #[arg(long = "add-dir", global = true, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// The permission mode: default, acceptEdits, plan, dontAsk or bypassPermissions.
    #[arg(long, global = true, value_name = "MODE")]
    pub mode: Option<PermissionMode>,
    /// A settings file read after the discovered ones (repeatable).
    #[arg(long, global = true, value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// An allow rule for this session (repeatable).
    #[arg(long, global = true, value_name = "RULE")]
    pub allow: Vec<String>,
    /// An ask rule for this session (repeatable).
    #[arg(long, global = true, value_name = "RULE")]
    pub ask: Vec<String>,
    /// A deny rule for this session (repeatable); a bare tool name removes the tool.
    #[arg(long, global = true, value_name = "RULE")]
    pub deny: Vec<String>,
    /// Skip ~/.claude/settings.json.
    #[arg(long = "no-user-settings", global = true)]
    pub no_user_settings: bool,
    /// Restrict the built-in tools to this comma-separated list ("" for none, "default" for all).
    #[arg(long, global = true, value_name = "LIST")]
    pub tools: Option<String>,
    /// An MCP server configuration file or JSON (repeatable).
    #[arg(long = "mcp-config", global = true, value_name = "FILE|JSON")]
    pub mcp_config: Vec<String>,
    /// Use only the servers of --mcp-config, none from .mcp.json or ~/.claude.json.
    #[arg(long = "strict-mcp-config", global = true)]
    pub strict_mcp_config: bool,
    /// Keep the session's state (what was read, the task list, the plan) in this directory,
    /// across invocations.
    #[arg(long = "session-dir", global = true, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,
    /// A JSON Schema file: offer the StructuredOutput tool, whose input is an answer matching it.
    #[arg(long = "json-schema", global = true, value_name = "FILE")]
    pub json_schema: Option<PathBuf>,
}

/// The file-state snapshot inside a session dir.
const FILE_STATE: &str = "file-state.json";

/// A session and what must be shut down with it.
pub struct Built {
    /// The session.
    pub session: Session,
    /// Where the session's persistable state is kept.
    pub session_dir: Option<PathBuf>,
    /// The MCP servers the session's tools come from.
    #[cfg(feature = "mcp")]
    pub mcp: Option<toolgate_mcp::McpManager>,
    /// The task that applies the servers' tool-list changes to the session's pool.
    #[cfg(feature = "mcp")]
    pub mcp_updates: Option<tokio::task::JoinHandle<()>>,
    /// The language servers the LSP tool starts (none run until it is called).
    #[cfg(feature = "lsp")]
    pub lsp: Arc<toolgate_builtin::lsp::LspServers>,
}

impl Built {
    /// Saves the persistable state, closes every MCP server and language server and reaps
    /// their children.
    pub async fn shutdown(self) {
        if let Some(dir) = &self.session_dir {
            let saved = std::fs::create_dir_all(dir).and_then(|()| {
                let snapshot =
                    serde_json::to_string(&self.session.file_state().snapshot()).map_err(std::io::Error::other)?;
                std::fs::write(dir.join(FILE_STATE), snapshot)
            });
            if let Err(e) = saved {
                eprintln!("toolgate: could not save the session state in {}: {e}", dir.display());
            }
        }
        #[cfg(feature = "mcp")]
        if let Some(updates) = self.mcp_updates {
            updates.abort();
        }
        #[cfg(feature = "mcp")]
        if let Some(manager) = self.mcp {
            manager.shutdown().await;
        }
        #[cfg(feature = "lsp")]
        self.lsp.shutdown().await;
    }
}

impl SessionOpts {
    /// The working directory, made absolute.
    pub fn cwd(&self) -> anyhow::Result<PathBuf> {
        let here = std::env::current_dir().context("the current directory is not readable")?;
        Ok(match &self.cwd {
            Some(dir) => toolgate_core::normalize_path(&here.join(dir)),
            None => here,
        })
    }

    /// Where settings are read from: the discovery for the cwd, with `--settings` files.
    pub fn discovery(&self) -> anyhow::Result<SettingsDiscovery> {
        let cwd = self.cwd()?;
        let mut discovery = SettingsDiscovery::new(&cwd);
        if self.no_user_settings {
            discovery.sources.retain(|s| *s != RuleSource::UserSettings);
        }
        for file in &self.settings {
            discovery = discovery.with_settings_file(toolgate_core::normalize_path(&cwd.join(file)));
        }
        Ok(discovery)
    }

    /// Every settings source, with the command line on top.
    pub fn load_settings(&self) -> anyhow::Result<(PathBuf, LoadedSettings)> {
        let cwd = self.cwd()?;
        let mut loaded = self.discovery()?.load();
        loaded.install_programs();
        for (behavior, rules) in [
            (PermissionBehavior::Allow, &self.allow),
            (PermissionBehavior::Ask, &self.ask),
            (PermissionBehavior::Deny, &self.deny),
        ] {
            if !rules.is_empty() {
                loaded.add_cli_rules(behavior, rules, &cwd);
            }
        }
        Ok((cwd, loaded))
    }

    /// Where the session's task list and plan are kept: `--session-dir`, else a folder for
    /// this process in the temp dir.
    pub fn state_dir(&self) -> PathBuf {
        self.session_dir
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("toolgate").join(format!("session-{}", std::process::id())))
    }

    /// What each MCP session served over HTTP keeps apart from the others: a task list and
    /// a plan in `<state dir>/mcp/<MCP session id>`.
    #[cfg(feature = "mcp")]
    pub fn mcp_session_services(&self) -> impl Fn(&str, &mut Extensions) + Send + Sync + 'static {
        let root = self.state_dir().join("mcp");
        move |id: &str, services: &mut Extensions| {
            // The id is the server's own (a UUID), but keep it one path component anyway.
            let name: String =
                id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
            let dir = root.join(name);
            services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(&dir)));
            services.insert(PlanFile::in_session_dir(&dir));
        }
    }

    /// The host services of the tools: the task store and plan file in the session dir
    /// (without `--session-dir`, a folder for this process in the temp dir), and the
    /// dialog when a person can answer.
    pub fn services(&self, dialog: Option<Arc<dyn UserDialog>>) -> Extensions {
        let dir = self.state_dir();
        let mut services = Extensions::default();
        services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(&dir)));
        services.insert(PlanFile::in_session_dir(&dir));
        if let Some(dialog) = dialog {
            services.insert(dialog);
        }
        services
    }

    /// The built-in tools this session offers in `cwd` (its skills, `--json-schema`,
    /// `--tools`, `TOOLGATE_SIMPLE=1`), those that need a host service built from
    /// `services`.
    pub fn builtin_tools(&self, cwd: &std::path::Path, services: &Extensions) -> anyhow::Result<Vec<DynTool>> {
        let skills = toolgate_builtin::SkillCatalog::discover(cwd, toolgate_builtin::user_claude_dir().as_deref());
        for d in skills.diagnostics() {
            tracing::warn!("skills: {d}");
        }
        let all = toolgate_builtin::with_planning_services(toolgate_builtin::builtin_tools_with(skills), services);
        let mut all = toolgate_builtin::with_agent_services(all, services);
        if let Some(file) = &self.json_schema {
            let path = toolgate_core::normalize_path(&cwd.join(file));
            let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let schema = serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
            all.push(toolgate_builtin::StructuredOutput::tool(schema).with_context(|| path.display().to_string())?);
        }
        let simple = std::env::var("TOOLGATE_SIMPLE").is_ok_and(|v| v == "1" || v == "true");
        let keep: Option<Vec<String>> = match self.tools.as_deref().map(str::trim) {
            Some("default") => None,
            Some(list) => Some(list.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()),
            None if simple => Some(vec!["Bash".into(), "Read".into(), "Edit".into()]),
            None => None,
        };
        Ok(match keep {
            None => all,
            Some(names) => all.into_iter().filter(|t| names.iter().any(|n| n == t.name())).collect(),
        })
    }

    /// The configured MCP servers (none configured: nothing is started, start-up stays fast).
    /// A project's `.mcp.json` servers start only in a trusted folder and once approved in
    /// `settings` (the others are listed as not started, with what to change).
    /// With `wait`, returns once every server is connected or failed; without, at once, the
    /// servers' tools joining the session as each connects.
    #[cfg(feature = "mcp")]
    pub async fn mcp(
        &self,
        cwd: &std::path::Path,
        settings: &LoadedSettings,
        wait: bool,
    ) -> Option<toolgate_mcp::McpManager> {
        self.mcp_servers(cwd, settings, wait, None, None).await
    }

    /// Where the MCP servers are configured: `~/.claude.json`, the project's `.mcp.json` (its
    /// servers approved by `settings` in a trusted folder) and `--mcp-config`.
    #[cfg(feature = "mcp")]
    fn mcp_loader(&self, cwd: &std::path::Path, settings: &LoadedSettings) -> toolgate_mcp::McpConfigLoader {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut loader = toolgate_mcp::McpConfigLoader::new(cwd)
            .home(home.as_deref())
            .strict(self.strict_mcp_config)
            .trusted(settings.trusted)
            .settings(settings.files.iter().map(|file| &file.value));
        for config in &self.mcp_config {
            loader = loader.mcp_config(config);
        }
        loader
    }

    /// In a trusted folder, asks the person at the terminal about each `.mcp.json` server not
    /// yet approved or refused, and saves the answer to `.claude/settings.local.json`
    /// (`enabledMcpjsonServers` or `disabledMcpjsonServers`); Esc leaves it unstarted for now.
    #[cfg(feature = "mcp")]
    fn offer_mcp_approval(&self, terminal: &TerminalPrompter) -> anyhow::Result<()> {
        let (cwd, loaded) = self.load_settings()?;
        if !loaded.trusted {
            return Ok(());
        }
        let configs = self.mcp_loader(&cwd, &loaded).load();
        let local = cwd.join(".claude/settings.local.json");
        for server in configs.servers.iter().filter(|s| s.scope == toolgate_mcp::McpScope::Project) {
            if server.not_approved.is_none() {
                continue;
            }
            let Some(approve) = terminal.ask_mcp_server(&server.name, &server.transport.target()) else { continue };
            let key = if approve { "enabledMcpjsonServers" } else { "disabledMcpjsonServers" };
            toolgate_permissions::update_settings_file(&local, |root| {
                let list = root.entry(key).or_insert_with(|| serde_json::Value::Array(Vec::new()));
                if let Some(list) = list.as_array_mut() {
                    list.push(serde_json::Value::String(server.name.clone()));
                }
                Ok(())
            })
            .with_context(|| format!("cannot save the answer to {}", local.display()))?;
        }
        Ok(())
    }

    /// [`Self::mcp`], only the server whose tools are named `mcp__{only}__…` when `only` is
    /// given, the servers' questions going to `elicitor` when given (else to the terminal).
    #[cfg(feature = "mcp")]
    async fn mcp_servers(
        &self,
        cwd: &std::path::Path,
        settings: &LoadedSettings,
        wait: bool,
        only: Option<&str>,
        elicitor: Option<Arc<dyn toolgate_mcp::Elicitor>>,
    ) -> Option<toolgate_mcp::McpManager> {
        let mut configs = self.mcp_loader(cwd, settings).load();
        if let Some(only) = only {
            configs.servers.retain(|server| toolgate_mcp::normalize_name_part(&server.name) == only);
        }
        for d in &configs.diagnostics {
            eprintln!("toolgate: {d}");
        }
        // A project server left unstarted says why once, naming the setting that starts it
        // (with no person at a terminal nothing else would).
        for server in configs.servers.iter().filter(|s| !s.disabled) {
            if let Some(why) = &server.not_approved {
                eprintln!("toolgate: the .mcp.json server `{}` was not started: {why}", server.name);
            }
        }
        if configs.servers.is_empty() {
            return None;
        }
        // Servers get the session's working roots, and their questions go to the given
        // elicitor (`mcp serve`: its own clients), else to the person at the terminal
        // (declined without one).
        let mut roots = vec![cwd.to_path_buf()];
        roots.extend(settings.permissions().0.additional_directories);
        roots.extend(self.add_dir.iter().map(|dir| toolgate_core::normalize_path(&cwd.join(dir))));
        let mut options = toolgate_mcp::ConnectOptions::from_env(cwd).roots(roots);
        if let Some(elicitor) = elicitor {
            options = options.elicitor(elicitor);
        } else if let Some(terminal) = TerminalPrompter::open() {
            options = options.elicitor(Arc::new(terminal));
        }
        let manager = toolgate_mcp::McpManager::start(configs, options);
        if wait {
            manager.ready().await;
        }
        Some(manager)
    }

    /// The session: discovered settings, hooks, rules and mode, the built-in tools, the
    /// configured MCP servers' tools, and a prompter and a dialog when a person can answer.
    pub async fn build(
        &self,
        prompter: Option<Arc<dyn Prompter>>,
        dialog: Option<Arc<dyn UserDialog>>,
    ) -> anyhow::Result<Built> {
        self.build_with(prompter, dialog, McpStart::Approved).await
    }

    /// [`Self::build`], starting the MCP servers `mcp` says.
    pub async fn build_with(
        &self,
        prompter: Option<Arc<dyn Prompter>>,
        dialog: Option<Arc<dyn UserDialog>>,
        mcp: McpStart<'_>,
    ) -> anyhow::Result<Built> {
        let (cwd, loaded) = self.load_settings()?;
        for d in loaded.diagnostics.iter().filter(|d| d.message.contains("toolgate trust")) {
            eprintln!("toolgate: {d}");
        }
        let mut services = self.services(dialog);
        // Config reads and writes the same files the session was built from.
        services.insert(self.discovery()?);
        crate::agents::install(&cwd, self.session_dir.as_deref(), &mut services);
        // The `sandbox` settings, which Bash reads from the extensions.
        let (sandbox, diagnostics) = loaded.sandbox();
        for d in &diagnostics {
            eprintln!("toolgate: {d}");
        }
        services.insert(sandbox);
        // The LSP tool uses the servers in the extensions, so that they are shut down here.
        #[cfg(feature = "lsp")]
        let lsp = {
            let config = toolgate_builtin::lsp::LspConfig::from_env();
            for d in &config.diagnostics {
                eprintln!("toolgate: {d}");
            }
            let mut servers = toolgate_builtin::lsp::LspServers::new(config);
            if let Some(approvals) = toolgate_builtin::lsp::LspApprovals::for_user() {
                servers = servers.with_approvals(approvals);
            }
            let servers = Arc::new(servers);
            services.insert_arc(servers.clone());
            servers
        };
        let mut builtin = self.builtin_tools(&cwd, &services)?;
        #[cfg(feature = "mcp")]
        let manager = match mcp {
            McpStart::Approved => self.mcp(&cwd, &loaded, true).await,
            McpStart::InBackground(elicitor) => {
                self.mcp_servers(&cwd, &loaded, false, None, Some(elicitor.clone())).await
            }
            McpStart::Server(name) => self.mcp_servers(&cwd, &loaded, true, Some(name), None).await,
            McpStart::Nothing(_) => None,
        };
        let mut builder = Session::builder().cwd(&cwd).settings(loaded).extensions(services);
        // `agent` hooks run a subagent the way the Agent tool does (`TOOLGATE_AGENT_COMMAND`).
        let user_dir = toolgate_builtin::user_claude_dir();
        if let Some((runner, _)) = toolgate_builtin::ProcessSubagentRunner::from_env(&cwd, user_dir.as_deref()) {
            builder = builder.hook_agent(Arc::new(HookSubagent { runner, cwd: cwd.clone() }));
        }
        // A tool of a server not started, for a decision on its name alone.
        if let McpStart::Nothing(Some(name)) = mcp
            && name.starts_with("mcp__")
        {
            let description = "an MCP tool whose server was not started: only its name is known";
            builder = builder.mcp_tools([toolgate_core::ToolBuilder::new(name).description(description).build()]);
        }
        #[cfg(feature = "mcp")]
        let mcp = manager;
        #[cfg(feature = "mcp")]
        if let Some(manager) = &mcp {
            // `mcp_tool` hooks call the session's MCP servers.
            builder = builder.hook_mcp(Arc::new(HookMcp { manager: manager.clone(), cwd: cwd.clone() }));
            builtin.extend(manager.resource_tools());
            builder = builder.mcp_tools(manager.tools());
        }
        builder = builder.builtin_tools(std::mem::take(&mut builtin));
        for dir in &self.add_dir {
            builder = builder.add_root(toolgate_core::normalize_path(&cwd.join(dir)));
        }
        if let Some(mode) = self.mode {
            builder = builder.mode(mode);
        }
        if let Some(prompter) = prompter {
            builder = builder.prompter(prompter);
        }
        if let Some(dir) = &self.session_dir {
            let cache = toolgate_core::FileStateCache::default();
            if let Ok(text) = std::fs::read_to_string(dir.join(FILE_STATE)) {
                let entries: Vec<(PathBuf, toolgate_core::FileState)> = serde_json::from_str(&text)
                    .with_context(|| format!("{} is not a file-state snapshot", dir.join(FILE_STATE).display()))?;
                cache.restore(entries);
            }
            builder = builder.file_state(Arc::new(cache));
        }
        let session = builder.build();
        // A server's `tools/list_changed` reaches the pool (and so the model) at once.
        #[cfg(feature = "mcp")]
        let mcp_updates = mcp.as_ref().map(|manager| manager.apply_changes_to(session.clone()));
        Ok(Built {
            session,
            session_dir: self.session_dir.clone(),
            #[cfg(feature = "mcp")]
            mcp,
            #[cfg(feature = "mcp")]
            mcp_updates,
            #[cfg(feature = "lsp")]
            lsp,
        })
    }

    /// [`Self::build`] with the terminal prompter and dialog when `prompt` and a terminal
    /// is there.
    pub async fn session(&self, prompt: bool) -> anyhow::Result<Built> {
        self.session_with(prompt, McpStart::Approved).await
    }

    /// [`Self::session`] for a call of `tool` alone: a built-in tool that does not reach
    /// MCP servers (anything but ToolSearch and the MCP resource tools) starts none of
    /// them, so a slow or broken server cannot hold it up, and a server's tool starts that
    /// server only.
    pub async fn session_for_call(&self, prompt: bool, tool: &str) -> anyhow::Result<Built> {
        // A server's own tool needs that server only.
        let server = tool.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")).map(|(server, _)| server);
        // `mcp_tool` hooks call the servers: then they start for any call.
        let hooks_call_servers = self.load_settings().is_ok_and(|(_, loaded)| has_mcp_tool_hooks(&loaded));
        let mcp = match server {
            _ if is_plain_builtin(tool) && !hooks_call_servers => McpStart::Nothing(None),
            #[cfg(feature = "mcp")]
            Some(server) if !hooks_call_servers => McpStart::Server(server),
            _ => McpStart::Approved,
        };
        self.session_with(prompt, mcp).await
    }

    /// The session `toolgate check` decides in: it starts nothing, and a call of an MCP tool
    /// is decided on its name.
    pub async fn session_for_check(&self, tool: &str) -> anyhow::Result<Built> {
        self.build_with(None, None, McpStart::Nothing(Some(tool))).await
    }

    async fn session_with(&self, prompt: bool, mcp: McpStart<'_>) -> anyhow::Result<Built> {
        if prompt && let Some(terminal) = TerminalPrompter::open() {
            self.offer_trust(&terminal)?;
            #[cfg(feature = "mcp")]
            if !matches!(mcp, McpStart::Nothing(_)) {
                self.offer_mcp_approval(&terminal)?;
            }
        }
        let prompter = if prompt { TerminalPrompter::open().map(|p| Arc::new(p) as Arc<dyn Prompter>) } else { None };
        let dialog = if prompt { TerminalDialog::open().map(|d| Arc::new(d) as Arc<dyn UserDialog>) } else { None };
        self.build_with(prompter, dialog, mcp).await
    }
}

impl SessionOpts {
    /// In a folder not yet trusted whose settings were cut down, asks the person at the
    /// terminal whether to trust it, and records the answer yes as `toolgate trust` does.
    fn offer_trust(&self, terminal: &TerminalPrompter) -> anyhow::Result<()> {
        let (cwd, loaded) = self.load_settings()?;
        let Some(ignored) = loaded.diagnostics.iter().find(|d| d.message.contains("toolgate trust")) else {
            return Ok(());
        };
        if loaded.trusted || !terminal.ask_trust(&cwd, &ignored.message) {
            return Ok(());
        }
        self.record_trust(None).map(|_| ())
    }

    /// Records trust for `dir` (default: the repository holding the working directory, else
    /// the working directory) in `~/.claude.json`; returns the folder and the file.
    pub fn record_trust(&self, dir: Option<PathBuf>) -> anyhow::Result<(PathBuf, PathBuf)> {
        let cwd = self.cwd()?;
        let dir = match dir {
            Some(dir) => toolgate_core::normalize_path(&cwd.join(dir)),
            None => cwd.ancestors().find(|d| d.join(".git").exists()).unwrap_or(&cwd).to_path_buf(),
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let record = toolgate_permissions::claude_json_path(home.as_deref())
            .context("neither HOME nor CLAUDE_CONFIG_DIR is set: there is nowhere to record trust")?;
        let trusted = toolgate_permissions::record_trust(&record, &dir, home.as_deref())
            .with_context(|| format!("cannot record trust for {} in {}", dir.display(), record.display()))?;
        Ok((trusted, record))
    }
}

/// Which MCP servers a session starts.
#[derive(Debug, Clone, Copy)]
pub enum McpStart<'a> {
    /// The approved ones (a project's `.mcp.json` servers need trust and approval), waiting
    /// until each is connected or failed.
    Approved,
    /// The approved ones, without waiting: each server's tools join the session when it
    /// connects (`toolgate mcp serve`, whose clients hear `tools/list_changed`); their
    /// questions (`elicitation/create`) go to this elicitor (`mcp serve`'s own clients).
    #[cfg(feature = "mcp")]
    InBackground(&'a Arc<dyn toolgate_mcp::Elicitor>),
    /// The approved server whose tools are named `mcp__{name}__…` only, waiting for it
    /// (`toolgate call` of one of its tools).
    #[cfg(feature = "mcp")]
    Server(&'a str),
    /// None; with a tool name, an MCP tool of that name whose call fails, so that rules can
    /// decide on it (`toolgate check`).
    Nothing(Option<&'a str>),
}

/// Whether the hooks of `loaded` include a `type: "mcp_tool"` handler.
fn has_mcp_tool_hooks(loaded: &LoadedSettings) -> bool {
    let config = toolgate_pipeline::hooks_config(loaded);
    config.handlers().any(|(_, _, handler)| matches!(handler.kind, toolgate_hooks::HandlerKind::McpTool(_)))
}

/// Built-in tools that reach the MCP servers: they need them started.
const MCP_REACHING_TOOLS: &[&str] = &["ListMcpResourcesTool", "ReadMcpResourceTool", "ToolSearch"];

/// Whether `name` (or its alias or legacy name) is a built-in tool that needs no MCP server.
fn is_plain_builtin(name: &str) -> bool {
    let name = toolgate_core::canonical_tool_name(name);
    !MCP_REACHING_TOOLS.contains(&name)
        && toolgate_builtin::all_builtin_tools().iter().any(|t| t.name() == name || t.aliases().contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_calls_need_no_mcp_server() {
        assert!(is_plain_builtin("Read") && is_plain_builtin("Bash") && is_plain_builtin("KillShell"));
        for name in ["ToolSearch", "MCPSearch", "ListMcpResourcesTool", "ReadMcpResourceTool", "mcp__fs__read", "Nope"]
        {
            assert!(!is_plain_builtin(name), "{name}");
        }
    }
}

/// How `mcp_tool` hooks call a tool of one of the session's MCP servers.
#[cfg(feature = "mcp")]
#[derive(Debug)]
struct HookMcp {
    manager: toolgate_mcp::McpManager,
    cwd: PathBuf,
}

#[cfg(feature = "mcp")]
impl toolgate_hooks::McpToolCaller for HookMcp {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        input: serde_json::Value,
    ) -> toolgate_core::BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let name = toolgate_mcp::mcp_tool_name(server, tool);
            let Some(found) = self.manager.tools().into_iter().find(|t| t.name() == name) else {
                return Err(format!(
                    "{name}: the MCP server {server} has no such tool, or it is not started in this session"
                ));
            };
            let ctx = toolgate_core::ToolContext::new(&self.cwd);
            match found.call(input, &ctx).await {
                Ok(output) => Ok(output.to_text()),
                Err(error) => Err(format!("{name} failed: {}", error.to_model_text())),
            }
        })
    }
}

/// How `agent` hooks run a subagent: through the Agent tool's process runner.
#[derive(Debug)]
struct HookSubagent {
    runner: toolgate_builtin::ProcessSubagentRunner,
    cwd: PathBuf,
}

impl toolgate_hooks::HookAgent for HookSubagent {
    fn ask<'a>(
        &'a self,
        prompt: String,
        model: Option<String>,
    ) -> toolgate_core::BoxFuture<'a, Result<String, String>> {
        use toolgate_builtin::SubagentRunner as _;
        Box::pin(async move {
            let mut request = toolgate_builtin::SubagentRequest::new(
                "hook check",
                prompt,
                toolgate_builtin::SubagentType::general_purpose(),
                &self.cwd,
            );
            request.model = model;
            match self.runner.run(request, toolgate_core::CancellationToken::new()).await {
                Ok(report) => Ok(report.text),
                Err(error) => Err(format!("the hook's subagent failed: {error}")),
            }
        })
    }
}
