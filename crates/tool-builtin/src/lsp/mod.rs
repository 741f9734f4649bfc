//! LSP: code intelligence from real language servers, over stdio.
//!
//! - [`config`]: which server serves which file extension (the built-in `rust-analyzer`
//!   for `.rs`, and servers configured in the `.lsp.json` format through
//!   `TOOLGATE_LSP_SERVERS`);
//! - `rpc`: JSON-RPC with the base protocol's `Content-Length` framing;
//! - `client`: one running server: spawned through the process helper, initialized once,
//!   shown the files asked about (`didOpen`, then `didChange` when the file changed on
//!   disk), requests with timeouts and cancellation, `shutdown` and `exit` at the end;
//! - [`LspServers`]: the session's servers, one per server and workspace root, restarted
//!   after a crash;
//! - `format`: results as the model reads them: paths relative to the workspace, 1-based
//!   positions, the source line at each location.
//!
//! The tool is offered when a server is configured, or the built-in `rust-analyzer` is
//! found on `PATH` (Claude Code offers its LSP tool only once a code-intelligence plugin
//! configures a server); `ENABLE_LSP_TOOL=1` offers it regardless, `ENABLE_LSP_TOOL=0`
//! never. It reads only, so its path rules are `Read(...)` rules.

mod approvals;
pub mod config;

mod client;
mod format;
mod position;
mod prompt;
mod rpc;
mod servers;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbolResponse,
    GotoDefinitionResponse, Hover, Location, OneOf, WorkspaceSymbolResponse,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolgate_core::{
    Access, DynTool, PermissionCheck, Target, ToolContext, ToolError, ToolErrorKind, ToolOutput, TypedTool, file_uri,
    typed, uri_path,
};

pub use self::approvals::{APPROVALS_FILE, LspApprovals};
use self::client::{Client, LspError};
pub use self::config::{LspConfig, ServerConfig};
use self::format::{Call, Formatter, FoundSymbol, Shown};
use self::position::OutOfRange;
pub use self::servers::{LspServers, RunningServer};
use crate::file_io::paths;

/// The largest file sent to a server: 16 MiB.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// How many call hierarchy items at one position are followed for incoming or outgoing
/// calls.
const MAX_ITEMS_FOLLOWED: usize = 5;

/// The LSP tool with servers configured from the environment ([`LspConfig::from_env`]).
/// A session whose extensions hold an `Arc<LspServers>` uses those servers instead.
pub fn tool() -> DynTool {
    typed(LspTool { servers: Arc::new(LspServers::new(LspConfig::from_env())), bound: false })
}

/// The LSP tool bound to `servers`, whatever the session's extensions hold.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::lsp::{self, LspConfig, LspServers, ServerConfig};
///
/// let ts = ServerConfig::new("typescript", "typescript-language-server", ["--stdio"], [(".ts", "typescript")]);
/// let servers = Arc::new(LspServers::new(LspConfig::with_servers([ts])));
/// let tool = lsp::tool_with(servers);
/// assert_eq!(tool.name(), "LSP");
/// assert!(tool.is_enabled());
/// ```
pub fn tool_with(servers: Arc<LspServers>) -> DynTool {
    typed(LspTool { servers, bound: true })
}

/// What to ask the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(inline)]
pub(crate) enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Self::GoToDefinition => "goToDefinition",
            Self::FindReferences => "findReferences",
            Self::Hover => "hover",
            Self::DocumentSymbol => "documentSymbol",
            Self::WorkspaceSymbol => "workspaceSymbol",
            Self::GoToImplementation => "goToImplementation",
            Self::PrepareCallHierarchy => "prepareCallHierarchy",
            Self::IncomingCalls => "incomingCalls",
            Self::OutgoingCalls => "outgoingCalls",
        }
    }

    /// Whether the position matters (documentSymbol and workspaceSymbol ignore it).
    fn uses_position(self) -> bool {
        !matches!(self, Self::DocumentSymbol | Self::WorkspaceSymbol)
    }

    /// The server capability the operation needs.
    fn capability(self) -> &'static str {
        match self {
            Self::GoToDefinition => "definitionProvider",
            Self::FindReferences => "referencesProvider",
            Self::Hover => "hoverProvider",
            Self::DocumentSymbol => "documentSymbolProvider",
            Self::WorkspaceSymbol => "workspaceSymbolProvider",
            Self::GoToImplementation => "implementationProvider",
            Self::PrepareCallHierarchy | Self::IncomingCalls | Self::OutgoingCalls => "callHierarchyProvider",
        }
    }
}

/// A question for the language server about a position in a file.
// (The field names are Claude Code's; this doc is the schema's description.)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LspInput {
    /// The LSP operation to perform.
    pub operation: Operation,
    /// The file to operate on, absolute or relative to the working directory.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The line number (1-based, as shown in editors).
    #[schemars(range(min = 1))]
    pub line: u32,
    /// The character offset (1-based, as shown in editors).
    #[schemars(range(min = 1))]
    pub character: u32,
    /// For workspaceSymbol: the symbol name or part of it to search for.
    #[serde(default)]
    pub query: Option<String>,
}

/// The LSP tool.
pub(crate) struct LspTool {
    servers: Arc<LspServers>,
    /// Bound by [`tool_with`]: the session's extensions are not consulted.
    bound: bool,
}

/// The file a call is about, read and matched to its server.
struct Subject<'a> {
    path: PathBuf,
    text: String,
    server: &'a ServerConfig,
    language: String,
    root: PathBuf,
}

impl TypedTool for LspTool {
    type Input = LspInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "LSP"
    }

    fn description(&self) -> String {
        prompt::DESCRIPTION.to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(prompt::SEARCH_HINT)
    }

    /// Offered when a server is configured or the default one is installed (see the
    /// module docs).
    fn is_enabled(&self) -> bool {
        self.servers.config().tool_enabled()
    }

    fn is_read_only(&self, _input: &LspInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &LspInput) -> bool {
        true
    }

    fn should_defer(&self) -> bool {
        true
    }

    /// A missing file, a file type without a server and a position outside the file are
    /// reported before permission is asked.
    async fn validate(&self, input: &LspInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let servers = self.servers(ctx);
        let subject = subject(&servers, input, ctx)?;
        if input.operation.uses_position() {
            lsp_position(&subject, input)?;
        }
        Ok(())
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        paths::normalize_field(input, "filePath", ctx)
    }

    /// Starting a language server is execution (rust-analyzer runs build scripts and proc
    /// macros): the first call for a server and workspace is no read, so a rule, a mode or a
    /// person approves it; later calls to the running server are reads, and so are later
    /// starts of the same command for the same workspace where the servers keep approvals
    /// ([`LspServers::with_approvals`]).
    fn check_permissions(&self, input: &LspInput, ctx: &ToolContext) -> PermissionCheck {
        let servers = self.servers(ctx);
        let Ok(target) = paths::resolve(&input.file_path, "filePath", ctx) else { return PermissionCheck::Passthrough };
        let Some((server, _)) = servers.config().server_for(&target.path) else { return PermissionCheck::Passthrough };
        let root = workspace_root(&target.path, ctx);
        if servers.is_running(&server.name, &root) || servers.approved(server, &root) {
            return PermissionCheck::Passthrough;
        }
        let command = std::iter::once(server.command.as_str()).chain(server.args.iter().map(String::as_str));
        PermissionCheck::NotAutomatic {
            detail: format!(
                "it starts the language server `{}` for {}, which may run the project's code (build scripts, plugins)",
                command.collect::<Vec<_>>().join(" "),
                root.display()
            ),
        }
    }

    fn permission_target(&self, input: &LspInput) -> Option<String> {
        Some(input.file_path.clone()).filter(|p| !p.trim().is_empty())
    }

    /// The file the operation is about, read (and sent to its language server).
    fn targets(&self, input: &LspInput) -> Vec<Target> {
        self.permission_target(input).map(|p| Target::new(p, Access::Read { walked: false })).into_iter().collect()
    }

    async fn call(&self, input: LspInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let servers = self.servers(ctx);
        let subject = subject(&servers, &input, ctx)?;
        let position = if input.operation.uses_position() { Some(lsp_position(&subject, &input)?) } else { None };
        // A server that died since the last call (or while answering) is started again
        // once, transparently; a second failure is reported.
        let mut retried = false;
        let started_here = !servers.is_running(&subject.server.name, &subject.root);
        let text = loop {
            match run(&servers, &subject, &input, position, ctx).await {
                Err(LspError::Exited { .. }) if !retried && subject.server.restart_on_crash => retried = true,
                Err(e) => return Err(to_tool_error(e, &subject, input.operation)),
                Ok(text) => break text,
            }
        };
        // This call was allowed to start the server: later sessions need not ask again.
        if started_here {
            servers.remember_approval(subject.server, &subject.root);
        }
        Ok(ToolOutput::text(text))
    }

    fn render_use(&self, input: &LspInput) -> String {
        match input.operation {
            Operation::WorkspaceSymbol => {
                format!("LSP(workspaceSymbol {:?}, {})", input.query.as_deref().unwrap_or_default(), input.file_path)
            }
            Operation::DocumentSymbol => format!("LSP(documentSymbol, {})", input.file_path),
            op => format!("LSP({}, {}:{}:{})", op.as_str(), input.file_path, input.line, input.character),
        }
    }
}

impl LspTool {
    /// The servers to use: the host's (in the extensions), unless the tool is bound.
    fn servers(&self, ctx: &ToolContext) -> Arc<LspServers> {
        if !self.bound
            && let Some(host) = ctx.extensions.get::<LspServers>()
        {
            return host;
        }
        self.servers.clone()
    }
}

/// Resolves, reads and matches the file to its server.
fn subject<'a>(servers: &'a LspServers, input: &LspInput, ctx: &ToolContext) -> Result<Subject<'a>, ToolError> {
    let target = paths::resolve(&input.file_path, "filePath", ctx)?;
    let path = target.path;
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(paths::missing_file_error(&path, ctx)),
        Err(e) => return Err(ToolError::from_io(&e, &path)),
    };
    if meta.is_dir() {
        return Err(ToolError::invalid_input(format!("{} is a directory, not a file", path.display())).with_hint(
            "Give a source file. For workspaceSymbol any file of the language will do: it chooses the server.",
        ));
    }
    let config = servers.config();
    let Some((server, language)) = config.server_for(&path) else {
        let ext = config::extension_of(&path).unwrap_or_else(|| "(no extension)".to_owned());
        return Err(ToolError::invalid_input(format!(
            "no language server is configured for {ext} files (configured: {})",
            config.describe()
        ))
        .with_hint(format!(
            "Configure one in {} (JSON in the .lsp.json format, or a path to such a file), e.g. \
             {{\"pyright\": {{\"command\": \"pyright-langserver\", \"args\": [\"--stdio\"], \
             \"extensionToLanguage\": {{\".py\": \"python\"}}}}}}; meanwhile use Grep and Read.",
            config::SERVERS_ENV
        )));
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::invalid_input(format!(
            "{} is {} bytes, more than the {MAX_FILE_BYTES} bytes sent to a language server",
            path.display(),
            meta.len()
        ))
        .with_hint("Use Grep on large files."));
    }
    let bytes = std::fs::read(&path).map_err(|e| ToolError::from_io(&e, &path))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let root = workspace_root(&path, ctx);
    Ok(Subject { path, text, server, language: language.to_owned(), root })
}

/// The workspace a server is started for `path` in: the working directory holding it; a file
/// outside them is its own small workspace.
fn workspace_root(path: &Path, ctx: &ToolContext) -> PathBuf {
    ctx.roots
        .iter()
        .find(|r| path.starts_with(r))
        .cloned()
        .unwrap_or_else(|| path.parent().map_or_else(|| ctx.cwd.clone(), Path::to_path_buf))
}

/// The protocol position of the input's line and character, or an error saying where the
/// file ends.
fn lsp_position(subject: &Subject<'_>, input: &LspInput) -> Result<(u32, u32), ToolError> {
    position::to_lsp(&subject.text, input.line, input.character).map_err(|e| {
        let shown = subject.path.display();
        match e {
            OutOfRange::Line { line, lines } => {
                ToolError::invalid_input(format!("line {line} is past the end of {shown}, which has {lines} lines"))
                    .with_hint(format!("Lines are 1-based, as editors show them: give a line from 1 to {lines}."))
            }
            OutOfRange::Character { line, character, chars } => ToolError::invalid_input(format!(
                "character {character} is past the end of line {line} of {shown}, which has {chars} characters"
            ))
            .with_hint(format!(
                "Characters are 1-based, as editors show them: give one from 1 to {} on that line (read the \
                 line to find the symbol's column).",
                chars + 1
            )),
        }
    })
}

/// Runs one operation on the file's server.
async fn run(
    servers: &LspServers,
    subject: &Subject<'_>,
    input: &LspInput,
    position: Option<(u32, u32)>,
    ctx: &ToolContext,
) -> Result<String, LspError> {
    let client = servers.client(subject.server, &subject.root, &ctx.cancel).await?;
    let op = input.operation;
    if !client.supports(op.capability()) {
        return Err(LspError::Unsupported { server: subject.server.name.clone(), operation: op.as_str().to_owned() });
    }
    client.sync_document(&subject.path, &subject.language, &subject.text).await?;
    let uri = file_uri(&subject.path);
    let (line, character) = position.unwrap_or((0, 0));
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    let mut fmt = Formatter::new(client.root(), (&subject.path, &subject.text));
    let shown_path = fmt.display_path(&subject.path);
    let ask = |method: &'static str, params: Value| Ask { client: &client, method, params, ctx };
    Ok(match op {
        Operation::GoToDefinition | Operation::GoToImplementation => {
            let (method, found) = if op == Operation::GoToDefinition {
                ("textDocument/definition", format::Found::Definition)
            } else {
                ("textDocument/implementation", format::Found::Implementation)
            };
            let response: Option<GotoDefinitionResponse> = ask(method, at).send().await?;
            let shown = definition_locations(&mut fmt, response);
            format::definitions(&shown, found)
        }
        Operation::FindReferences => {
            let mut params = at;
            params["context"] = json!({"includeDeclaration": true});
            let refs: Option<Vec<Location>> = ask("textDocument/references", params).send().await?;
            format::references(&format::locations(&mut fmt, &refs.unwrap_or_default()))
        }
        Operation::Hover => {
            let hover: Option<Hover> = ask("textDocument/hover", at).send().await?;
            format::hover(hover.as_ref(), input.line, input.character)
        }
        Operation::DocumentSymbol => {
            let params = json!({"textDocument": {"uri": uri}});
            let symbols: Option<DocumentSymbolResponse> = ask("textDocument/documentSymbol", params).send().await?;
            match symbols {
                None => format::flat_symbols(&shown_path, &[], &mut fmt),
                Some(DocumentSymbolResponse::Flat(flat)) => format::flat_symbols(&shown_path, &flat, &mut fmt),
                Some(DocumentSymbolResponse::Nested(nested)) => {
                    format::document_symbols(&shown_path, &nested, &mut fmt, &uri)
                }
            }
        }
        Operation::WorkspaceSymbol => {
            let query = input.query.clone().unwrap_or_default();
            let found: Option<WorkspaceSymbolResponse> =
                ask("workspace/symbol", json!({"query": query})).send().await?;
            format::workspace_symbols(&query, &workspace_symbols(&mut fmt, found))
        }
        Operation::PrepareCallHierarchy => {
            let (items, _) = prepare(&client, ctx, at).await?;
            format::prepared(&mut fmt, &items, input.line, input.character)
        }
        Operation::IncomingCalls | Operation::OutgoingCalls => {
            let incoming = op == Operation::IncomingCalls;
            let (items, raw) = prepare(&client, ctx, at).await?;
            if items.is_empty() {
                return Ok(format::prepared(&mut fmt, &items, input.line, input.character));
            }
            let mut calls = Vec::new();
            for (item, raw) in items.iter().zip(raw).take(MAX_ITEMS_FOLLOWED) {
                if incoming {
                    let found: Option<Vec<CallHierarchyIncomingCall>> =
                        ask("callHierarchy/incomingCalls", json!({"item": raw})).send().await?;
                    calls.extend(found.unwrap_or_default().into_iter().map(|c| Call {
                        ranges_uri: c.from.uri.as_str().to_owned(),
                        item: c.from,
                        ranges: c.from_ranges,
                    }));
                } else {
                    let found: Option<Vec<CallHierarchyOutgoingCall>> =
                        ask("callHierarchy/outgoingCalls", json!({"item": raw})).send().await?;
                    calls.extend(found.unwrap_or_default().into_iter().map(|c| Call {
                        ranges_uri: item.uri.as_str().to_owned(),
                        item: c.to,
                        ranges: c.from_ranges,
                    }));
                }
            }
            let target = items.iter().map(|i| i.name.as_str()).collect::<Vec<_>>().join(", ");
            format::calls(&mut fmt, &target, &calls, incoming)
        }
    })
}

/// One request, its answer parsed.
struct Ask<'a> {
    client: &'a Client,
    method: &'static str,
    params: Value,
    ctx: &'a ToolContext,
}

impl Ask<'_> {
    async fn send<T: DeserializeOwned>(self) -> Result<T, LspError> {
        let server = self.client.server();
        let value = self.client.request(self.method, self.params, server.request_timeout, &self.ctx.cancel).await?;
        serde_json::from_value(value).map_err(|e| LspError::BadResponse {
            server: server.name.clone(),
            method: self.method.to_owned(),
            detail: e.to_string(),
        })
    }
}

/// prepareCallHierarchy: the items, parsed and as sent (their `data` goes back verbatim).
async fn prepare(
    client: &Client,
    ctx: &ToolContext,
    at: Value,
) -> Result<(Vec<CallHierarchyItem>, Vec<Value>), LspError> {
    const METHOD: &str = "textDocument/prepareCallHierarchy";
    let raw: Option<Vec<Value>> = Ask { client, method: METHOD, params: at, ctx }.send().await?;
    let raw = raw.unwrap_or_default();
    let items = raw
        .iter()
        .map(|value| serde_json::from_value::<CallHierarchyItem>(value.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| LspError::BadResponse {
            server: client.server().name.clone(),
            method: METHOD.to_owned(),
            detail: e.to_string(),
        })?;
    Ok((items, raw))
}

fn definition_locations(fmt: &mut Formatter, response: Option<GotoDefinitionResponse>) -> Vec<Shown> {
    match response {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(l)) => format::locations(fmt, &[l]),
        Some(GotoDefinitionResponse::Array(ls)) => format::locations(fmt, &ls),
        Some(GotoDefinitionResponse::Link(links)) => {
            links.iter().map(|l| fmt.show(l.target_uri.as_str(), &l.target_selection_range)).collect()
        }
    }
}

fn workspace_symbols(fmt: &mut Formatter, found: Option<WorkspaceSymbolResponse>) -> Vec<FoundSymbol> {
    match found {
        None => Vec::new(),
        Some(WorkspaceSymbolResponse::Flat(flat)) => flat
            .into_iter()
            .map(|s| FoundSymbol {
                location: fmt.show(s.location.uri.as_str(), &s.location.range),
                name: s.name,
                kind: s.kind,
                container: s.container_name,
            })
            .collect(),
        Some(WorkspaceSymbolResponse::Nested(nested)) => nested
            .into_iter()
            .map(|s| {
                let location = match &s.location {
                    OneOf::Left(l) => fmt.show(l.uri.as_str(), &l.range),
                    OneOf::Right(w) => {
                        let path = uri_path(w.uri.as_str())
                            .map_or_else(|| w.uri.as_str().to_owned(), |p| fmt.display_path(&p));
                        Shown { path, line: 1, character: 1, snippet: None }
                    }
                };
                FoundSymbol { name: s.name, kind: s.kind, container: s.container_name, location }
            })
            .collect(),
    }
}

/// Where the server for a file is configured, for hints.
fn configure_hint(server: &ServerConfig) -> String {
    if server.builtin {
        format!(
            "`{}` is toolgate's built-in default for {}; to use another program, set {} (e.g. \
             {{\"{}\": {{\"command\": \"/path/to/{}\", \"extensionToLanguage\": {{{}}}}}}})",
            server.name,
            server.extension_to_language.keys().cloned().collect::<Vec<_>>().join(", "),
            config::SERVERS_ENV,
            server.name,
            server.command,
            server
                .extension_to_language
                .iter()
                .map(|(e, l)| format!("\"{e}\": \"{l}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        format!("the `{}` entry of {} configures it", server.name, config::SERVERS_ENV)
    }
}

fn to_tool_error(error: LspError, subject: &Subject<'_>, op: Operation) -> ToolError {
    let server = subject.server;
    let text = error.to_string();
    match error {
        LspError::NotInstalled { program, .. } => {
            let install = if program == "rust-analyzer" {
                "Install it (`rustup component add rust-analyzer`) or put it on PATH"
            } else {
                "Install it or put it on PATH"
            };
            ToolError::not_found(text)
                .with_hint(format!("{install}; {}. Meanwhile use Grep and Read.", configure_hint(server)))
        }
        LspError::Spawn { .. } => ToolError::new(ToolErrorKind::Io, text).with_hint(format!(
            "Check that `{}` is an executable language server; {}.",
            server.command,
            configure_hint(server)
        )),
        LspError::Exited { .. } => ToolError::new(ToolErrorKind::Io, text).with_hint(format!(
            "It is started again on the next call. If it keeps exiting, check its output above and its command; {}.",
            configure_hint(server)
        )),
        LspError::GaveUp { .. } => ToolError::new(ToolErrorKind::Io, text).with_hint(format!(
            "Use Grep and Read instead, or fix the server ({}) and start a new session.",
            configure_hint(server)
        )),
        LspError::Timeout { .. } => ToolError::timeout(text).with_hint(format!(
            "The server may still be loading the workspace: try again in a moment. A slow server can be given more \
             time with `requestTimeout` (or `startupTimeout`) in milliseconds; {}.",
            configure_hint(server)
        )),
        LspError::Cancelled { .. } | LspError::ShutDown => ToolError::cancelled(text),
        LspError::Rpc { code: -32601, .. } | LspError::Unsupported { .. } => ToolError::invalid_input(format!(
            "{text}; {} cannot be answered for {}",
            op.as_str(),
            subject.path.display()
        ))
        .with_hint("Use another operation, or Grep and Read."),
        LspError::Rpc { code: -32802..=-32800, .. } => {
            ToolError::new(ToolErrorKind::Io, text).with_hint("The file or workspace changed meanwhile: call again.")
        }
        LspError::Rpc { .. } | LspError::BadResponse { .. } => ToolError::new(ToolErrorKind::Io, text)
            .with_hint("Check the position (it should be on a symbol's name), or use Grep and Read instead."),
    }
}
