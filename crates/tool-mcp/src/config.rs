//! MCP server configuration as Claude Code reads it: where servers come from, the entry
//! format, `${VAR}` expansion, and diagnostics instead of failures.
//!
//! Sources, highest precedence first (a name defined in several wins whole, fields are
//! never merged):
//!
//! 1. `--mcp-config` files or inline JSON, later arguments over earlier ones;
//! 2. local scope: `~/.claude.json` → `projects["<abs cwd>"].mcpServers`;
//! 3. project scope: `<cwd>/.mcp.json` → `mcpServers`;
//! 4. user scope: `~/.claude.json` → `mcpServers`.
//!
//! With [`McpConfigLoader::strict`] (`--strict-mcp-config`) only the `--mcp-config`
//! sources are read. `~/.claude.json` is `$CLAUDE_CONFIG_DIR/.claude.json` when that
//! variable is set.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

/// Where a server's entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum McpScope {
    /// `~/.claude.json` top-level `mcpServers`.
    User,
    /// `.mcp.json` at the project root.
    Project,
    /// `~/.claude.json` → `projects["<abs cwd>"].mcpServers`.
    Local,
    /// A `--mcp-config` file or inline JSON.
    Flag,
}

impl McpScope {
    /// The scope's name as `claude mcp list` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Local => "local",
            Self::Flag => "flag",
        }
    }
}

impl fmt::Display for McpScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpTransport {
    /// A child process speaking JSON-RPC lines on stdin/stdout (`"type": "stdio"`, the
    /// default).
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP (`"type": "http"`).
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport of MCP 2024-11-05 (`"type": "sse"`): an event stream
    /// from `url` whose `endpoint` event names where to `POST` messages.
    Sse {
        /// The SSE endpoint.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

impl McpTransport {
    /// `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
            Self::Sse { .. } => "sse",
        }
    }

    /// The command line or URL, for listings.
    pub fn target(&self) -> String {
        match self {
            Self::Stdio { command, args, .. } => {
                let mut out = command.clone();
                for arg in args {
                    out.push(' ');
                    out.push_str(arg);
                }
                out
            }
            Self::Http { url, .. } | Self::Sse { url, .. } => url.clone(),
        }
    }
}

/// One configured server.
///
/// ```
/// use toolgate_mcp::{McpScope, McpServerConfig, McpTransport};
/// let config = McpServerConfig::stdio("fs", "npx", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]);
/// assert_eq!(config.scope, McpScope::Flag);
/// assert_eq!(config.transport.target(), "npx -y @modelcontextprotocol/server-filesystem /tmp");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The server's name (the key in `mcpServers`).
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// The per-server tool-call timeout (`timeout`, in milliseconds in the file); overrides
    /// `MCP_TOOL_TIMEOUT`.
    pub tool_timeout: Option<Duration>,
    /// `alwaysLoad`: its tools are never deferred behind ToolSearch.
    pub always_load: bool,
    /// Where the entry came from.
    pub scope: McpScope,
    /// The file it came from (or `--mcp-config` for inline JSON).
    pub origin: String,
    /// Whether the user disabled it (`disabledMcpServers`, `disabledMcpjsonServers`); a
    /// disabled server is listed but never started.
    pub disabled: bool,
    /// Why a project server (`.mcp.json`) is not started: the folder is not trusted, or the
    /// server is not approved (`enableAllProjectMcpServers`, `enabledMcpjsonServers`). `None`
    /// for a server that may start.
    pub not_approved: Option<String>,
}

impl McpServerConfig {
    /// A stdio server from code (scope [`McpScope::Flag`], origin `code`).
    pub fn stdio<I, S>(name: impl Into<String>, command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let transport = McpTransport::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        };
        Self::with_transport(name, transport)
    }

    /// A streamable-HTTP server from code.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::with_transport(name, McpTransport::Http { url: url.into(), headers: BTreeMap::new() })
    }

    /// A legacy HTTP+SSE server from code (its event-stream URL).
    ///
    /// ```
    /// use toolgate_mcp::McpServerConfig;
    /// let config = McpServerConfig::sse("old", "http://127.0.0.1:3001/sse").with_env("Authorization", "Bearer t");
    /// assert_eq!((config.transport.kind(), config.transport.target()), ("sse", "http://127.0.0.1:3001/sse".to_owned()));
    /// ```
    pub fn sse(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::with_transport(name, McpTransport::Sse { url: url.into(), headers: BTreeMap::new() })
    }

    fn with_transport(name: impl Into<String>, transport: McpTransport) -> Self {
        Self {
            name: name.into(),
            transport,
            tool_timeout: None,
            always_load: false,
            scope: McpScope::Flag,
            origin: "code".to_owned(),
            disabled: false,
            not_approved: None,
        }
    }

    /// Adds an environment variable (stdio) or a header (HTTP, SSE).
    #[must_use]
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        match &mut self.transport {
            McpTransport::Stdio { env, .. } => {
                env.insert(key.into(), value.into());
            }
            McpTransport::Http { headers, .. } | McpTransport::Sse { headers, .. } => {
                headers.insert(key.into(), value.into());
            }
        }
        self
    }

    /// Sets the per-server tool timeout.
    #[must_use]
    pub fn with_tool_timeout(mut self, timeout: Duration) -> Self {
        self.tool_timeout = Some(timeout);
        self
    }
}

/// A problem in an MCP configuration source: the file, the server (when one entry is at
/// fault) and what is wrong. Loading never fails; problems become diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpDiagnostic {
    /// The file, or `--mcp-config` for inline JSON.
    pub origin: String,
    /// The server whose entry is at fault, if one is.
    pub server: Option<String>,
    /// What is wrong.
    pub message: String,
    /// Whether the entry (or file) was skipped because of it; warnings keep it.
    pub skipped: bool,
}

impl fmt::Display for McpDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.server {
            Some(server) => write!(f, "{}: server `{server}`: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

/// The servers to connect to, by name, and what was wrong on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfigs {
    /// The winning entry of every name, sorted by name.
    pub servers: Vec<McpServerConfig>,
    /// Problems found, in the order met.
    pub diagnostics: Vec<McpDiagnostic>,
}

/// Reads MCP server configuration from every source, in Claude Code's precedence.
///
/// ```
/// use toolgate_mcp::{McpConfigLoader, McpScope, McpTransport};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join(".mcp.json"), r#"{"mcpServers": {
///     "fs": {"command": "node", "args": ["${SERVERS:-/opt}/fs.js"], "env": {"TOKEN": "${TOKEN}"}},
///     "api": {"type": "http", "url": "https://example.com/mcp", "timeout": 5000},
///     "bad": {"args": ["no command"]}
/// }}"#)?;
/// let configs = McpConfigLoader::new(dir.path())
///     .home(None)
///     .env_vars([("TOKEN", "s3cret")])
///     .load();
/// let names: Vec<&str> = configs.servers.iter().map(|s| s.name.as_str()).collect();
/// assert_eq!(names, ["api", "fs"]);
/// let McpTransport::Stdio { args, env, .. } = &configs.servers[1].transport else { panic!() };
/// assert_eq!(args, &["/opt/fs.js"]);
/// assert_eq!(env["TOKEN"], "s3cret");
/// assert_eq!(configs.servers[0].scope, McpScope::Project);
/// assert_eq!(configs.diagnostics[0].server.as_deref(), Some("bad"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct McpConfigLoader {
    cwd: PathBuf,
    claude_json: Option<PathBuf>,
    extra: Vec<String>,
    strict: bool,
    env: Option<HashMap<String, String>>,
    disabled: Vec<String>,
    trusted: bool,
    enable_all: bool,
    enabled: Vec<String>,
}

impl McpConfigLoader {
    /// A loader for the project at `cwd`, with `~/.claude.json` (or
    /// `$CLAUDE_CONFIG_DIR/.claude.json`) and the process environment.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let claude_json = match std::env::var_os("CLAUDE_CONFIG_DIR") {
            Some(dir) => Some(PathBuf::from(dir).join(".claude.json")),
            None => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".claude.json")),
        };
        Self {
            cwd: cwd.into(),
            claude_json,
            extra: Vec::new(),
            strict: false,
            env: None,
            disabled: Vec::new(),
            trusted: false,
            enable_all: false,
            enabled: Vec::new(),
        }
    }

    /// Uses `dir/.claude.json` for the user and local scopes (`None`: neither scope).
    #[must_use]
    pub fn home(mut self, dir: Option<&Path>) -> Self {
        self.claude_json = dir.map(|d| d.join(".claude.json"));
        self
    }

    /// Uses this file as `~/.claude.json`.
    #[must_use]
    pub fn claude_json(mut self, path: impl Into<PathBuf>) -> Self {
        self.claude_json = Some(path.into());
        self
    }

    /// Adds a `--mcp-config` argument: a file path, or JSON text starting with `{`.
    #[must_use]
    pub fn mcp_config(mut self, file_or_json: impl Into<String>) -> Self {
        self.extra.push(file_or_json.into());
        self
    }

    /// `--strict-mcp-config`: only the `--mcp-config` sources.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Expands `${VAR}` from these variables instead of the process environment.
    #[must_use]
    pub fn env_vars<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.env = Some(vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
        self
    }

    /// Marks servers disabled (e.g. settings' `disabledMcpjsonServers`).
    #[must_use]
    pub fn disable<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disabled.extend(names.into_iter().map(Into::into));
        self
    }

    /// Reads which project servers are approved from settings documents (the `value` of each
    /// settings file, in any order): `enableAllProjectMcpServers`, `enabledMcpjsonServers`
    /// and `disabledMcpjsonServers`.
    #[must_use]
    pub fn settings<'a>(mut self, documents: impl IntoIterator<Item = &'a Value>) -> Self {
        for doc in documents {
            self.approvals(doc);
        }
        self
    }

    /// Whether the project folder is trusted: until it is, no `.mcp.json` server starts
    /// (untrusted by default).
    #[must_use]
    pub fn trusted(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// Takes the approvals of one settings document or `~/.claude.json` project record.
    fn approvals(&mut self, doc: &Value) {
        let names = |key: &str| -> Vec<String> {
            doc.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        self.disabled.extend(names("disabledMcpjsonServers"));
        self.enabled.extend(names("enabledMcpjsonServers"));
        self.enable_all |= doc.get("enableAllProjectMcpServers") == Some(&Value::Bool(true));
    }

    /// Why the project server `name` may not start, if it may not.
    fn project_approval(&self, name: &str) -> Option<String> {
        if !self.trusted {
            return Some("this folder is not trusted: run `toolgate trust [DIR]` (or answer yes when toolgate asks in a terminal) once you trust it".to_owned());
        }
        (!self.enable_all && !self.enabled.iter().any(|n| n == name)).then(|| {
            format!(
                "not approved: add \"{name}\" to `enabledMcpjsonServers` (or set `enableAllProjectMcpServers`) \
                 in .claude/settings.local.json"
            )
        })
    }

    /// Reads every source. Never fails: unreadable files and bad entries are diagnostics.
    /// A `.mcp.json` server starts only in a trusted folder and once approved; the others are
    /// listed with [`McpServerConfig::not_approved`] saying why.
    pub fn load(&self) -> McpConfigs {
        let mut this = self.clone();
        let project = self.claude_json.as_ref().and_then(|path| std::fs::read_to_string(path).ok()).and_then(|text| {
            let doc: Value = serde_json::from_str(&text).ok()?;
            doc.get("projects")?.get(self.cwd.to_string_lossy().as_ref()).cloned()
        });
        if let Some(project) = &project {
            this.approvals(project);
        }
        let mut configs = this.load_servers();
        for server in &mut configs.servers {
            if server.scope == McpScope::Project && !server.disabled {
                server.not_approved = this.project_approval(&server.name);
            }
        }
        configs
    }

    /// [`Self::load`] before the approval of project servers.
    fn load_servers(&self) -> McpConfigs {
        let mut diagnostics = Vec::new();
        // Lowest precedence first; later inserts replace earlier ones.
        let mut by_name: BTreeMap<String, McpServerConfig> = BTreeMap::new();
        let mut disabled: Vec<String> = self.disabled.clone();

        if !self.strict {
            let claude = self.claude_json.as_ref().and_then(|path| {
                read_json_file(path, false, &mut diagnostics).map(|doc| (doc, path.display().to_string()))
            });
            let project = claude.as_ref().and_then(|(doc, _)| {
                doc.get("projects").and_then(|p| p.get(self.cwd.to_string_lossy().as_ref())).cloned()
            });
            if let Some((doc, origin)) = &claude
                && let Some(servers) = doc.get("mcpServers")
            {
                self.add_servers(servers, McpScope::User, origin, &mut by_name, &mut diagnostics);
            }
            self.add_project(&self.cwd.join(".mcp.json"), &mut by_name, &mut diagnostics);
            if let (Some((_, origin)), Some(project)) = (&claude, &project) {
                // (`disabledMcpjsonServers` there is read with the approvals.)
                if let Some(list) = project.get("disabledMcpServers").and_then(Value::as_array) {
                    disabled.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
                }
                if let Some(servers) = project.get("mcpServers") {
                    self.add_servers(servers, McpScope::Local, origin, &mut by_name, &mut diagnostics);
                }
            }
        }
        for arg in &self.extra {
            let trimmed = arg.trim_start();
            let (doc, origin) = if trimmed.starts_with('{') {
                match serde_json::from_str::<Value>(trimmed) {
                    Ok(doc) => (Some(doc), "--mcp-config".to_owned()),
                    Err(e) => {
                        diagnostics.push(file_problem("--mcp-config", format!("the inline JSON does not parse: {e}")));
                        (None, String::new())
                    }
                }
            } else {
                let path = self.cwd.join(arg);
                (read_json_file(&path, true, &mut diagnostics), path.display().to_string())
            };
            let Some(doc) = doc else { continue };
            match doc.get("mcpServers") {
                Some(servers) => self.add_servers(servers, McpScope::Flag, &origin, &mut by_name, &mut diagnostics),
                None => diagnostics.push(file_problem(&origin, "no `mcpServers` object".to_owned())),
            }
        }
        let mut servers: Vec<McpServerConfig> = by_name.into_values().collect();
        for server in &mut servers {
            if disabled.contains(&server.name) {
                server.disabled = true;
            }
        }
        McpConfigs { servers, diagnostics }
    }

    fn add_project(
        &self,
        path: &Path,
        by_name: &mut BTreeMap<String, McpServerConfig>,
        diagnostics: &mut Vec<McpDiagnostic>,
    ) {
        if let Some(doc) = read_json_file(path, false, diagnostics) {
            let origin = path.display().to_string();
            match doc.get("mcpServers") {
                Some(servers) => self.add_servers(servers, McpScope::Project, &origin, by_name, diagnostics),
                None => diagnostics.push(file_problem(&origin, "no `mcpServers` object".to_owned())),
            }
        }
    }

    fn add_servers(
        &self,
        servers: &Value,
        scope: McpScope,
        origin: &str,
        by_name: &mut BTreeMap<String, McpServerConfig>,
        diagnostics: &mut Vec<McpDiagnostic>,
    ) {
        let Some(servers) = servers.as_object() else {
            diagnostics.push(file_problem(origin, "`mcpServers` is not an object".to_owned()));
            return;
        };
        for (name, entry) in servers {
            let mut ctx = EntryContext { origin, server: name, diagnostics: &mut *diagnostics, env: self.env.as_ref() };
            if let Some(config) = ctx.parse(entry, scope) {
                by_name.insert(name.clone(), config);
            }
        }
    }
}

fn file_problem(origin: &str, message: String) -> McpDiagnostic {
    McpDiagnostic { origin: origin.to_owned(), server: None, message, skipped: true }
}

/// A JSON file's content; `None` when missing (a diagnostic only when `required`) or bad.
fn read_json_file(path: &Path, required: bool, diagnostics: &mut Vec<McpDiagnostic>) -> Option<Value> {
    let origin = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return None,
        Err(e) => {
            diagnostics.push(file_problem(&origin, format!("cannot be read: {e}")));
            return None;
        }
    };
    if text.trim().is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(doc) if doc.is_object() => Some(doc),
        Ok(_) => {
            diagnostics.push(file_problem(&origin, "is not a JSON object".to_owned()));
            None
        }
        Err(e) => {
            diagnostics.push(file_problem(&origin, format!("is not valid JSON: {e}")));
            None
        }
    }
}

/// Parsing one entry, with somewhere to put its problems.
struct EntryContext<'a> {
    origin: &'a str,
    server: &'a str,
    diagnostics: &'a mut Vec<McpDiagnostic>,
    env: Option<&'a HashMap<String, String>>,
}

impl EntryContext<'_> {
    fn problem(&mut self, message: String, skipped: bool) {
        self.diagnostics.push(McpDiagnostic {
            origin: self.origin.to_owned(),
            server: Some(self.server.to_owned()),
            message,
            skipped,
        });
    }

    fn skip<T>(&mut self, message: String) -> Option<T> {
        self.problem(message, true);
        None
    }

    fn parse(&mut self, entry: &Value, scope: McpScope) -> Option<McpServerConfig> {
        let Some(obj) = entry.as_object() else {
            return self.skip("the entry is not an object".to_owned());
        };
        // `mcp__a__b` must have one reading: a server named `srv__evil` would have its tools
        // matched by the rules of a server `srv`.
        let normalized = crate::normalize_name_part(self.server);
        if normalized.contains("__") || normalized.ends_with('_') {
            return self.skip(
                "the name has `__` (or ends with `_`) once made a tool name's part, so its tools would read as \
                 another server's: rename it"
                    .to_owned(),
            );
        }
        if !self.server.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            self.problem(
                "the name has characters outside letters, digits, `-` and `_`; its tools are named with `_` in their place"
                    .to_owned(),
                false,
            );
        }
        let kind = match obj.get("type") {
            None => "stdio".to_owned(),
            Some(Value::String(t)) => t.clone(),
            Some(other) => return self.skip(format!("`type` must be a string, got {other}")),
        };
        let transport = match kind.as_str() {
            "stdio" => {
                let command = match obj.get("command") {
                    Some(Value::String(c)) if !c.trim().is_empty() => self.expand(c, "command"),
                    Some(Value::String(_)) => return self.skip("`command` is empty".to_owned()),
                    Some(other) => return self.skip(format!("`command` must be a string, got {other}")),
                    None if obj.contains_key("url") => {
                        return self.skip(
                            "the entry has a `url` but no `type`, so it is read as stdio and has no `command`; \
                             add \"type\": \"http\" (or \"sse\")"
                                .to_owned(),
                        );
                    }
                    None => return self.skip("a stdio server needs a `command`".to_owned()),
                };
                let args = self.string_list(obj, "args")?;
                let env = self.string_map(obj, "env")?;
                McpTransport::Stdio { command, args, env }
            }
            "http" | "sse" => {
                let url = match obj.get("url") {
                    Some(Value::String(u)) if !u.trim().is_empty() => self.expand(u, "url"),
                    Some(other) if !other.is_string() => {
                        return self.skip(format!("`url` must be a string, got {other}"));
                    }
                    _ => return self.skip(format!("a {kind} server needs a `url`")),
                };
                let headers = self.string_map(obj, "headers")?;
                for key in ["headersHelper", "oauth"] {
                    if obj.contains_key(key) {
                        self.problem(format!("`{key}` is not supported by toolgate yet; it is ignored"), false);
                    }
                }
                if kind == "http" { McpTransport::Http { url, headers } } else { McpTransport::Sse { url, headers } }
            }
            other => {
                return self
                    .skip(format!("transport type `{other}` is not supported (use \"stdio\", \"http\" or \"sse\")"));
            }
        };
        let tool_timeout = match obj.get("timeout") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(0) | None => {
                    self.problem(
                        format!("`timeout` must be a positive number of milliseconds, got {v}; ignored"),
                        false,
                    );
                    None
                }
                Some(ms) => Some(Duration::from_millis(ms)),
            },
        };
        let always_load = obj.get("alwaysLoad").and_then(Value::as_bool).unwrap_or(false);
        Some(McpServerConfig {
            name: self.server.to_owned(),
            transport,
            tool_timeout,
            always_load,
            scope,
            origin: self.origin.to_owned(),
            disabled: obj.get("disabled").and_then(Value::as_bool).unwrap_or(false),
            not_approved: None,
        })
    }

    fn string_list(&mut self, obj: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
        match obj.get(key) {
            None | Some(Value::Null) => Some(Vec::new()),
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(self.expand(s, &format!("{key}[{i}]"))),
                        other => return self.skip(format!("`{key}[{i}]` must be a string, got {other}")),
                    }
                }
                Some(out)
            }
            Some(other) => self.skip(format!("`{key}` must be an array of strings, got {other}")),
        }
    }

    fn string_map(&mut self, obj: &Map<String, Value>, key: &str) -> Option<BTreeMap<String, String>> {
        match obj.get(key) {
            None | Some(Value::Null) => Some(BTreeMap::new()),
            Some(Value::Object(items)) => {
                let mut out = BTreeMap::new();
                for (k, v) in items {
                    match v {
                        Value::String(s) => {
                            out.insert(k.clone(), self.expand(s, &format!("{key}.{k}")));
                        }
                        other => return self.skip(format!("`{key}.{k}` must be a string, got {other}")),
                    }
                }
                Some(out)
            }
            Some(other) => self.skip(format!("`{key}` must be an object of strings, got {other}")),
        }
    }

    fn expand(&mut self, text: &str, field: &str) -> String {
        let env = self.env;
        let lookup = |name: &str| match env {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        };
        let (out, missing) = expand_vars(text, lookup);
        for name in missing {
            self.problem(
                format!("`{field}` uses ${{{name}}}, which is not set and has no default; kept as written"),
                false,
            );
        }
        out
    }
}

/// Expands `${VAR}` and `${VAR:-default}` in `text`; returns the text and the names of
/// variables that were unset and had no default (kept literally, as Claude Code does).
///
/// ```
/// let lookup = |name: &str| (name == "HOME").then(|| "/home/me".to_owned());
/// let (text, missing) = toolgate_mcp::expand_vars("${HOME}/x ${PORT:-8080} ${NOPE} $PLAIN", lookup);
/// assert_eq!(text, "/home/me/x 8080 ${NOPE} $PLAIN");
/// assert_eq!(missing, ["NOPE"]);
/// ```
pub fn expand_vars(text: &str, lookup: impl Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return (out, missing);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                out.push_str(&rest[start..start + 2 + end + 1]);
                missing.push(name.to_owned());
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(path: &Path, value: &Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    }

    /// A `.mcp.json` server starts only in a trusted folder and once approved, by name or all
    /// at once, in settings or in `~/.claude.json`'s record of the project; a disabled one stays
    /// disabled; a name that would read as another server's tools is refused.
    #[test]
    fn project_servers_need_trust_and_approval() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let cwd = project.path().to_string_lossy().into_owned();
        write(
            &project.path().join(".mcp.json"),
            &json!({"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}, "c": {"command": "c"},
                                   "x__y": {"command": "x"}, "x..z": {"command": "x"}, "end_": {"command": "e"}}}),
        );
        write(&home.path().join(".claude.json"), &json!({"projects": {cwd: {"enabledMcpjsonServers": ["c"]}}}));
        let load = |trusted: bool, settings: Value| {
            let configs = McpConfigLoader::new(project.path())
                .home(Some(home.path()))
                .trusted(trusted)
                .settings([&settings])
                .load();
            let refused: Vec<String> = configs.diagnostics.iter().filter_map(|d| d.server.clone()).collect();
            assert_eq!(refused, ["end_", "x..z", "x__y"]);
            configs.servers.into_iter().map(|s| (s.name, s.disabled, s.not_approved.is_none())).collect::<Vec<_>>()
        };
        let untrusted = load(false, json!({"enableAllProjectMcpServers": true}));
        assert!(untrusted.iter().all(|(_, _, may_start)| !may_start), "{untrusted:?}");
        let approved = load(true, json!({"enabledMcpjsonServers": ["a"], "disabledMcpjsonServers": ["b"]}));
        assert_eq!(approved, [("a".into(), false, true), ("b".into(), true, true), ("c".into(), false, true)]);
        let none = load(true, json!({}));
        assert_eq!(none, [("a".into(), false, false), ("b".into(), false, false), ("c".into(), false, true)]);
        let all = load(true, json!({"enableAllProjectMcpServers": true}));
        assert!(all.iter().all(|(_, _, may_start)| *may_start), "{all:?}");
    }

    #[test]
    fn local_beats_project_beats_user_and_flags_beat_all() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let cwd = project.path().to_string_lossy().into_owned();
        write(
            &home.path().join(".claude.json"),
            &json!({
                "mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}, "c": {"command": "user-c"}},
                "projects": {cwd: {"mcpServers": {"a": {"command": "local-a"}}, "disabledMcpServers": ["c"]}}
            }),
        );
        write(
            &project.path().join(".mcp.json"),
            &json!({"mcpServers": {"a": {"command": "project-a"}, "b": {"command": "project-b"}, "d": {"command": "project-d"}}}),
        );
        let flag = project.path().join("extra.json");
        write(&flag, &json!({"mcpServers": {"d": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}));
        let configs = McpConfigLoader::new(project.path())
            .home(Some(home.path()))
            .mcp_config(flag.to_string_lossy())
            .env_vars(Vec::<(String, String)>::new())
            .load();
        assert!(configs.diagnostics.is_empty(), "{:?}", configs.diagnostics);
        let got: Vec<(String, String, McpScope, bool)> =
            configs.servers.iter().map(|s| (s.name.clone(), s.transport.target(), s.scope, s.disabled)).collect();
        assert_eq!(
            got,
            [
                ("a".into(), "local-a".into(), McpScope::Local, false),
                ("b".into(), "project-b".into(), McpScope::Project, false),
                ("c".into(), "user-c".into(), McpScope::User, true),
                ("d".into(), "http://127.0.0.1:1/mcp".into(), McpScope::Flag, false),
            ]
        );
    }

    #[test]
    fn strict_reads_only_flags() {
        let project = tempfile::tempdir().unwrap();
        write(&project.path().join(".mcp.json"), &json!({"mcpServers": {"p": {"command": "x"}}}));
        let configs = McpConfigLoader::new(project.path())
            .home(None)
            .strict(true)
            .mcp_config(r#"{"mcpServers": {"inline": {"command": "y", "timeout": 1500, "alwaysLoad": true}}}"#)
            .load();
        assert_eq!(configs.servers.len(), 1);
        assert_eq!(configs.servers[0].name, "inline");
        assert_eq!(configs.servers[0].tool_timeout, Some(Duration::from_millis(1500)));
        assert!(configs.servers[0].always_load);
        assert_eq!(configs.servers[0].origin, "--mcp-config");
    }

    #[test]
    fn bad_files_and_entries_are_diagnostics_naming_file_and_server() {
        let project = tempfile::tempdir().unwrap();
        write(
            &project.path().join(".mcp.json"),
            &json!({"mcpServers": {
                "no-type": {"url": "https://x/mcp"},
                "ws": {"type": "ws", "url": "wss://x"},
                "args": {"command": "x", "args": "not a list"},
                "env": {"command": "x", "env": {"A": 1}},
                "http": {"type": "http"},
                "helper": {"type": "http", "url": "https://x", "headersHelper": "print-headers", "timeout": -5},
                "ok": {"command": "x"}
            }}),
        );
        let configs =
            McpConfigLoader::new(project.path()).home(None).mcp_config("missing.json").mcp_config("{not json").load();
        let names: Vec<&str> = configs.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["helper", "ok"]);
        let text: Vec<String> = configs.diagnostics.iter().map(ToString::to_string).collect();
        let origin = project.path().join(".mcp.json").display().to_string();
        for (server, needle) in [
            ("no-type", "add \"type\": \"http\""),
            ("ws", "transport type `ws` is not supported"),
            ("args", "`args` must be an array of strings"),
            ("env", "`env.A` must be a string"),
            ("http", "needs a `url`"),
            ("helper", "`headersHelper` is not supported"),
            ("helper", "`timeout` must be a positive number"),
        ] {
            let prefix = format!("{origin}: server `{server}`: ");
            assert!(text.iter().any(|t| t.starts_with(&prefix) && t.contains(needle)), "{server}: {text:#?}");
        }
        assert!(text.iter().any(|t| t.contains("missing.json: cannot be read")), "{text:#?}");
        assert!(text.iter().any(|t| t.starts_with("--mcp-config: the inline JSON does not parse")), "{text:#?}");
    }

    #[test]
    fn broken_json_files_do_not_stop_other_sources() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(".claude.json"), "{oops").unwrap();
        write(&project.path().join(".mcp.json"), &json!({"mcpServers": {"p": {"command": "x"}}}));
        let configs = McpConfigLoader::new(project.path()).home(Some(home.path())).load();
        assert_eq!(configs.servers.len(), 1);
        assert!(configs.diagnostics[0].message.starts_with("is not valid JSON"));
    }

    #[test]
    fn variables_expand_in_every_field_and_missing_ones_are_reported() {
        let project = tempfile::tempdir().unwrap();
        write(
            &project.path().join(".mcp.json"),
            &json!({"mcpServers": {
                "s": {"command": "${BIN}/srv", "args": ["--port", "${PORT:-9}"], "env": {"K": "${KEY}"}},
                "h": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN:-}"}}
            }}),
        );
        let configs = McpConfigLoader::new(project.path())
            .home(None)
            .env_vars([("BIN", "/usr/bin"), ("HOST", "example.com")])
            .load();
        let h = &configs.servers[0];
        assert_eq!(
            h.transport,
            McpTransport::Http {
                url: "https://example.com/mcp".into(),
                headers: BTreeMap::from([("Authorization".into(), "Bearer ".into())])
            }
        );
        let s = &configs.servers[1];
        assert_eq!(s.transport.target(), "/usr/bin/srv --port 9");
        let McpTransport::Stdio { env, .. } = &s.transport else { panic!() };
        assert_eq!(env["K"], "${KEY}");
        assert_eq!(configs.diagnostics.len(), 1);
        assert!(configs.diagnostics[0].message.contains("${KEY}"));
        assert!(!configs.diagnostics[0].skipped);
    }

    #[test]
    fn settings_can_disable_project_servers() {
        let project = tempfile::tempdir().unwrap();
        write(&project.path().join(".mcp.json"), &json!({"mcpServers": {"p": {"command": "x"}}}));
        let settings = json!({"disabledMcpjsonServers": ["p"]});
        let configs = McpConfigLoader::new(project.path()).home(None).settings([&settings]).load();
        assert!(configs.servers[0].disabled);
    }

    #[test]
    fn unterminated_references_stay_literal() {
        let (text, missing) = expand_vars("a ${B", |_| None);
        assert_eq!(text, "a ${B");
        assert!(missing.is_empty());
    }
}
