//! Which language server serves which file: the built-in default and the servers configured
//! in the format of Claude Code's `.lsp.json` (a plugin's `lspServers`).
//!
//! ```json
//! {
//!   "typescript": {
//!     "command": "typescript-language-server",
//!     "args": ["--stdio"],
//!     "extensionToLanguage": {".ts": "typescript", ".tsx": "typescriptreact"},
//!     "env": {"TSS_LOG": ""},
//!     "initializationOptions": {"tsserver": {"useSyntaxServer": "never"}},
//!     "settings": {},
//!     "startupTimeout": 30000,
//!     "requestTimeout": 30000,
//!     "shutdownTimeout": 5000,
//!     "restartOnCrash": true,
//!     "maxRestarts": 3
//!   }
//! }
//! ```
//!
//! `command` and `extensionToLanguage` are required; the rest is optional (times in
//! milliseconds). For typescript-language-server, `useSyntaxServer: never` makes answers
//! wait for the project to load instead of coming from a single-file view. The JSON comes
//! from the environment variable [`SERVERS_ENV`], either inline (it starts with `{`) or as
//! the path of a file holding it. The built-in default serves `.rs` with `rust-analyzer`;
//! a configured server of the same name replaces it, and any configured server for an
//! extension takes precedence over the default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

/// The environment variable holding the server configuration (inline JSON or a file path).
pub const SERVERS_ENV: &str = "TOOLGATE_LSP_SERVERS";

/// Claude Code's switch for the LSP tool: `1`/`true` offers it even with no server
/// available, `0`/`false` never offers it.
pub const ENABLE_ENV: &str = "ENABLE_LSP_TOOL";

/// How long a server has to answer `initialize` by default: 30 seconds.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a server has to answer a request by default: 30 seconds.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a server has to exit after `shutdown` and `exit` by default: 5 seconds.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// How many times in a row a crashed server is restarted by default.
pub const DEFAULT_MAX_RESTARTS: u32 = 3;

/// One language server: how to start it and which files it serves.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The server's name (the key in the configuration).
    pub name: String,
    /// The program (looked up on `PATH` when it has no `/`).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// File extension (with the dot, e.g. `.rs`) → LSP language id (`rust`).
    pub extension_to_language: BTreeMap<String, String>,
    /// Environment variables added for the server.
    pub env: BTreeMap<String, String>,
    /// `initializationOptions` sent with `initialize`.
    pub initialization_options: Option<Value>,
    /// Settings sent with `workspace/didChangeConfiguration` and answered to
    /// `workspace/configuration`.
    pub settings: Option<Value>,
    /// How long the server has to answer `initialize`.
    pub startup_timeout: Duration,
    /// How long the server has to answer a request.
    pub request_timeout: Duration,
    /// How long the server has to exit after `shutdown` and `exit` before it is killed.
    pub shutdown_timeout: Duration,
    /// Whether a crashed server is started again on the next call.
    pub restart_on_crash: bool,
    /// How many times in a row it is restarted after crashing.
    pub max_restarts: u32,
    /// Whether it came from the built-in defaults (offered only when its program is found).
    pub builtin: bool,
}

impl ServerConfig {
    /// A server running `command args…` for the given extensions (`.rs` → `rust`), with
    /// default timeouts.
    ///
    /// ```
    /// use toolgate_builtin::lsp::ServerConfig;
    /// let ts = ServerConfig::new("typescript", "typescript-language-server", ["--stdio"], [(".ts", "typescript")]);
    /// assert_eq!(ts.language_of(".ts"), Some("typescript"));
    /// ```
    pub fn new<'a>(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = &'a str>,
        extensions: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: args.into_iter().map(str::to_owned).collect(),
            extension_to_language: extensions.into_iter().map(|(e, l)| (normalize_ext(e), l.to_owned())).collect(),
            env: BTreeMap::new(),
            initialization_options: None,
            settings: None,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            restart_on_crash: true,
            max_restarts: DEFAULT_MAX_RESTARTS,
            builtin: false,
        }
    }

    /// The same server with another request timeout.
    #[must_use]
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The same server with another startup timeout.
    #[must_use]
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// The same server with `initializationOptions` for `initialize`.
    #[must_use]
    pub fn with_initialization_options(mut self, options: Value) -> Self {
        self.initialization_options = Some(options);
        self
    }

    /// The same server with an environment variable added.
    #[must_use]
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The language id for an extension (with the dot), if this server serves it.
    pub fn language_of(&self, ext: &str) -> Option<&str> {
        self.extension_to_language.get(&normalize_ext(ext)).map(String::as_str)
    }

    /// Whether the program can be found: an existing file for a path, else a file of that
    /// name in a `PATH` directory.
    pub fn program_found(&self) -> bool {
        program_on_path(&self.command)
    }
}

/// The servers toolgate may start, and what was wrong with the configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LspConfig {
    /// The servers, configured ones first (in name order), then the built-in defaults.
    pub servers: Vec<ServerConfig>,
    /// Problems found while reading the configuration (each one skipped an entry).
    pub diagnostics: Vec<String>,
    /// The value of [`ENABLE_ENV`], when set: `Some(true)` offers the tool even with no
    /// server available, `Some(false)` never offers it.
    pub enable: Option<bool>,
}

impl LspConfig {
    /// The built-in defaults only: `rust-analyzer` for `.rs`.
    pub fn defaults() -> Self {
        let mut ra = ServerConfig::new("rust-analyzer", "rust-analyzer", [], [(".rs", "rust")]);
        ra.builtin = true;
        Self { servers: vec![ra], diagnostics: Vec::new(), enable: None }
    }

    /// The defaults plus the servers of [`SERVERS_ENV`], and [`ENABLE_ENV`].
    pub fn from_env() -> Self {
        let mut config = Self::defaults();
        config.enable = std::env::var(ENABLE_ENV).ok().and_then(|v| match v.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" => Some(false),
            _ => None,
        });
        if let Ok(raw) = std::env::var(SERVERS_ENV)
            && !raw.trim().is_empty()
        {
            config.add_source(&raw, SERVERS_ENV);
        }
        config
    }

    /// Adds the servers of `raw` (inline JSON, or the path of a JSON file); `origin` names
    /// the source in diagnostics.
    pub fn add_source(&mut self, raw: &str, origin: &str) {
        let trimmed = raw.trim();
        let (text, origin) = if trimmed.starts_with('{') {
            (trimmed.to_owned(), origin.to_owned())
        } else {
            let path = PathBuf::from(trimmed);
            match std::fs::read_to_string(&path) {
                Ok(text) => (text, format!("{origin} ({})", path.display())),
                Err(e) => {
                    self.diagnostics.push(format!("{origin}: cannot read {}: {e}", path.display()));
                    return;
                }
            }
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => self.add_json(&value, &origin),
            Err(e) => self.diagnostics.push(format!("{origin}: not valid JSON: {e}")),
        }
    }

    /// Adds the servers of a parsed `.lsp.json` object; a server of an existing name
    /// replaces it.
    pub fn add_json(&mut self, value: &Value, origin: &str) {
        let Some(map) = value.as_object() else {
            self.diagnostics.push(format!("{origin}: expected an object of servers by name"));
            return;
        };
        let mut added = Vec::new();
        for (name, entry) in map {
            match parse_server(name, entry) {
                Ok(server) => added.push(server),
                Err(why) => self.diagnostics.push(format!("{origin}: server `{name}` skipped: {why}")),
            }
        }
        self.servers.retain(|s| !added.iter().any(|a| a.name == s.name));
        // Configured servers first, so they win over a built-in default for an extension.
        let builtins: Vec<ServerConfig> = self.servers.iter().filter(|s| s.builtin).cloned().collect();
        self.servers.retain(|s| !s.builtin);
        self.servers.extend(added);
        self.servers.extend(builtins);
    }

    /// A configuration with exactly these servers (tests, embedding hosts).
    pub fn with_servers(servers: impl IntoIterator<Item = ServerConfig>) -> Self {
        Self { servers: servers.into_iter().collect(), diagnostics: Vec::new(), enable: None }
    }

    /// The server for a file, by its extension, and the file's language id.
    pub fn server_for(&self, path: &Path) -> Option<(&ServerConfig, &str)> {
        let ext = extension_of(path)?;
        self.servers.iter().find_map(|s| s.language_of(&ext).map(|lang| (s, lang)))
    }

    /// Whether the LSP tool is offered: [`ENABLE_ENV`] decides when set; otherwise when a
    /// server is configured, or a built-in default's program is found.
    pub fn tool_enabled(&self) -> bool {
        match self.enable {
            Some(on) => on,
            None => self.servers.iter().any(|s| !s.builtin || s.program_found()),
        }
    }

    /// `.rs → rust-analyzer, .ts → typescript`: what is configured, for messages.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for s in &self.servers {
            for ext in s.extension_to_language.keys() {
                parts.push(format!("{ext} → {}", s.name));
            }
        }
        if parts.is_empty() { "none".to_owned() } else { parts.join(", ") }
    }
}

/// `.rs` from `rs` or `.rs`, lowercased.
fn normalize_ext(ext: &str) -> String {
    let ext = ext.trim().to_ascii_lowercase();
    if ext.starts_with('.') { ext } else { format!(".{ext}") }
}

/// A file's extension as configured keys spell it (`.rs`), if it has one.
pub(crate) fn extension_of(path: &Path) -> Option<String> {
    path.extension().and_then(|e| e.to_str()).map(normalize_ext)
}

fn program_on_path(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

fn parse_server(name: &str, entry: &Value) -> Result<ServerConfig, String> {
    let obj = entry.as_object().ok_or("expected an object")?;
    let command = obj
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .ok_or("`command` (a non-empty string) is required")?;
    let strings = |key: &str| -> Result<Vec<String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned).ok_or(format!("`{key}` must be an array of strings")))
                .collect(),
            Some(_) => Err(format!("`{key}` must be an array of strings")),
        }
    };
    let map = |key: &str| -> Result<BTreeMap<String, String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    v.as_str().map(|v| (k.clone(), v.to_owned())).ok_or(format!("`{key}` values must be strings"))
                })
                .collect(),
            Some(_) => Err(format!("`{key}` must be an object of strings")),
        }
    };
    let millis = |key: &str, default: Duration| -> Result<Duration, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis)
                .ok_or(format!("`{key}` must be a positive number of milliseconds")),
        }
    };
    if let Some(transport) = obj.get("transport").and_then(Value::as_str)
        && transport != "stdio"
    {
        return Err(format!("transport `{transport}` is not supported; only `stdio` is"));
    }
    let extensions = map("extensionToLanguage")?;
    if extensions.is_empty() {
        return Err("`extensionToLanguage` (e.g. {\".py\": \"python\"}) is required".to_owned());
    }
    let mut server = ServerConfig::new(name, command, [], []);
    server.args = strings("args")?;
    server.extension_to_language = extensions.into_iter().map(|(e, l)| (normalize_ext(&e), l)).collect();
    server.env = map("env")?;
    server.initialization_options = obj.get("initializationOptions").filter(|v| !v.is_null()).cloned();
    server.settings = obj.get("settings").filter(|v| !v.is_null()).cloned();
    server.startup_timeout = millis("startupTimeout", DEFAULT_STARTUP_TIMEOUT)?;
    server.request_timeout = millis("requestTimeout", DEFAULT_REQUEST_TIMEOUT)?;
    server.shutdown_timeout = millis("shutdownTimeout", DEFAULT_SHUTDOWN_TIMEOUT)?;
    server.restart_on_crash = match obj.get("restartOnCrash") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`restartOnCrash` must be true or false".to_owned()),
    };
    server.max_restarts = match obj.get("maxRestarts") {
        None | Some(Value::Null) => DEFAULT_MAX_RESTARTS,
        Some(v) => {
            v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or("`maxRestarts` must be a non-negative integer")?
        }
    };
    Ok(server)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn configured_servers_win_over_the_default_and_replace_by_name() {
        let mut config = LspConfig::defaults();
        config.add_json(
            &json!({
                "ra2": {"command": "/opt/ra", "extensionToLanguage": {"RS": "rust"}, "requestTimeout": 500},
                "py": {"command": "pyright-langserver", "args": ["--stdio"], "extensionToLanguage": {".py": "python"}}
            }),
            "test",
        );
        assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
        let (server, lang) = config.server_for(Path::new("/x/src/lib.rs")).unwrap();
        assert_eq!((server.name.as_str(), lang), ("ra2", "rust"));
        assert_eq!(server.request_timeout, Duration::from_millis(500));
        assert_eq!(config.server_for(Path::new("a.PY")).unwrap().0.args, ["--stdio"]);
        assert!(config.server_for(Path::new("Makefile")).is_none());
        assert!(config.tool_enabled(), "a configured server offers the tool");
        config.add_json(&json!({"rust-analyzer": {"command": "ra", "extensionToLanguage": {".rs": "rust"}}}), "again");
        assert_eq!(config.servers.iter().filter(|s| s.name == "rust-analyzer").count(), 1);
        assert!(config.servers.iter().all(|s| !s.builtin));
        assert_eq!(config.describe(), ".py → py, .rs → ra2, .rs → rust-analyzer");
    }

    #[test]
    fn bad_entries_are_reported_and_skipped() {
        let mut config = LspConfig::with_servers([]);
        config.add_json(
            &json!({
                "a": {"extensionToLanguage": {".a": "a"}},
                "b": {"command": "b"},
                "c": {"command": "c", "extensionToLanguage": {".c": "c"}, "transport": "socket"},
                "d": {"command": "d", "extensionToLanguage": {".d": "d"}, "startupTimeout": -1},
                "e": {"command": "e", "extensionToLanguage": {".e": "e"}, "args": "x"},
                "ok": {"command": "ok", "extensionToLanguage": {".ok": "ok"}}
            }),
            "cfg",
        );
        assert_eq!(config.servers.len(), 1);
        let text = config.diagnostics.join("\n");
        for needle in
            ["`a` skipped: `command`", "`b` skipped: `extensionToLanguage`", "socket", "startupTimeout", "`args`"]
        {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
        config.add_source("{not json", "env");
        config.add_source("/no/such/file.json", "env");
        assert_eq!(config.diagnostics.len(), 7, "{:?}", config.diagnostics);
    }

    #[test]
    fn the_default_alone_is_offered_only_when_its_program_is_found() {
        let mut config = LspConfig::defaults();
        config.servers[0].command = "/no/such/rust-analyzer".into();
        assert!(!config.tool_enabled());
        config.enable = Some(true);
        assert!(config.tool_enabled());
        config.enable = Some(false);
        config.servers[0].builtin = false;
        assert!(!config.tool_enabled());
    }
}
