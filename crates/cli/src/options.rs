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
    #[cfg(feature = "mcp")]
    pub async fn mcp(&self, cwd: &std::path::Path) -> Option<toolgate_mcp::McpManager> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut loader = toolgate_mcp::McpConfigLoader::new(cwd).home(home.as_deref()).strict(self.strict_mcp_config);
        for config in &self.mcp_config {
            loader = loader.mcp_config(config);
        }
        let configs = loader.load();
        for d in &configs.diagnostics {
            eprintln!("toolgate: {d}");
        }
        if configs.servers.is_empty() {
            return None;
        }
        Some(toolgate_mcp::McpManager::connect_all(configs, toolgate_mcp::ConnectOptions::from_env(cwd)).await)
    }

    /// The session: discovered settings, hooks, rules and mode, the built-in tools, the
    /// configured MCP servers' tools, and a prompter and a dialog when a person can answer.
    pub async fn build(
        &self,
        prompter: Option<Arc<dyn Prompter>>,
        dialog: Option<Arc<dyn UserDialog>>,
    ) -> anyhow::Result<Built> {
        self.build_with(prompter, dialog, true).await
    }

    /// [`Self::build`], starting the configured MCP servers only when `start_mcp`.
    pub async fn build_with(
        &self,
        prompter: Option<Arc<dyn Prompter>>,
        dialog: Option<Arc<dyn UserDialog>>,
        start_mcp: bool,
    ) -> anyhow::Result<Built> {
        let (cwd, loaded) = self.load_settings()?;
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
            let servers = Arc::new(toolgate_builtin::lsp::LspServers::new(config));
            services.insert_arc(servers.clone());
            servers
        };
        let mut builtin = self.builtin_tools(&cwd, &services)?;
        let mut builder = Session::builder().cwd(&cwd).settings(loaded).extensions(services);
        #[cfg(feature = "mcp")]
        let mcp = if start_mcp { self.mcp(&cwd).await } else { None };
        #[cfg(not(feature = "mcp"))]
        let _ = start_mcp;
        #[cfg(feature = "mcp")]
        if let Some(manager) = &mcp {
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
        self.session_with(prompt, true).await
    }

    /// [`Self::session`] for a call of `tool` alone: a built-in tool that does not reach
    /// MCP servers (anything but ToolSearch and the MCP resource tools) starts none of
    /// them, so a slow or broken server cannot hold it up.
    pub async fn session_for_call(&self, prompt: bool, tool: &str) -> anyhow::Result<Built> {
        self.session_with(prompt, !is_plain_builtin(tool)).await
    }

    async fn session_with(&self, prompt: bool, start_mcp: bool) -> anyhow::Result<Built> {
        let prompter = if prompt { TerminalPrompter::open().map(|p| Arc::new(p) as Arc<dyn Prompter>) } else { None };
        let dialog = if prompt { TerminalDialog::open().map(|d| Arc::new(d) as Arc<dyn UserDialog>) } else { None };
        self.build_with(prompter, dialog, start_mcp).await
    }
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
