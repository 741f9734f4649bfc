//! One running language server: the child process, the JSON-RPC connection to it, and the
//! documents it has been shown.
//!
//! A reader task takes every message off the server's stdout: responses go to the request
//! waiting for them (by id), requests from the server are answered (configuration,
//! workspace folders, progress tokens, capability registration; anything else "method not
//! found"), notifications (diagnostics, log messages) are dropped. A stderr task keeps the
//! last few KiB the server printed, for error messages. When stdout ends or carries a
//! broken frame the connection is dead: waiting requests fail at once with the server's
//! exit status and stderr tail, and the manager starts a new server on the next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, BufReader};
use tokio::process::ChildStdout;
use tokio::sync::oneshot;
use toolgate_core::process::{ProcessError, ProcessHandle, ProcessSpec};
use toolgate_core::{CancellationToken, file_uri};

use super::config::ServerConfig;
use super::rpc::{self, Incoming, RpcError};

/// How much of the server's stderr is kept: the last 4 KiB.
const STDERR_TAIL: usize = 4 * 1024;

/// How long to wait for an exit status when describing a server that went away.
const EXIT_STATUS_WAIT: Duration = Duration::from_secs(1);

/// Why talking to a language server failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LspError {
    /// The program does not exist.
    #[error("the language server `{program}` (server `{server}`) is not installed: {detail}")]
    NotInstalled { server: String, program: String, detail: String },
    /// The program exists but could not be started.
    #[error("could not start the language server `{server}`: {detail}")]
    Spawn { server: String, detail: String },
    /// The server exited or broke the connection.
    #[error("the language server `{server}` {detail}")]
    Exited { server: String, detail: String },
    /// The server crashed more often than it may be restarted.
    #[error("the language server `{server}` crashed {crashes} times and is not restarted again: {detail}")]
    GaveUp { server: String, crashes: u32, detail: String },
    /// No answer in time.
    #[error("the language server `{server}` did not answer {method} within {}", human(*after))]
    Timeout { server: String, method: String, after: Duration },
    /// The call was cancelled.
    #[error("cancelled while waiting for the language server `{server}`")]
    Cancelled { server: String },
    /// The server answered with an error.
    #[error("the language server `{server}` answered {method} with error {code}: {message}")]
    Rpc { server: String, method: String, code: i64, message: String },
    /// The server's answer has the wrong shape.
    #[error("the language server `{server}` sent a malformed answer to {method}: {detail}")]
    BadResponse { server: String, method: String, detail: String },
    /// The server does not offer this operation.
    #[error("the language server `{server}` does not support {operation}")]
    Unsupported { server: String, operation: String },
    /// The session's servers were shut down.
    #[error("the language servers have been shut down with the session")]
    ShutDown,
}

pub(crate) fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>>;
type Writer = tokio::sync::mpsc::UnboundedSender<Vec<u8>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A task aborted when this is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A document the server has been shown.
struct Doc {
    version: i32,
    text: String,
}

/// A running, initialized language server for one workspace root.
pub(crate) struct Client {
    server: ServerConfig,
    root: PathBuf,
    pid: Option<u32>,
    writer: Writer,
    pending: Pending,
    next_id: AtomicI64,
    ended: CancellationToken,
    end_reason: Arc<Mutex<Option<String>>>,
    process: tokio::sync::Mutex<ProcessHandle>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Cancelled when the server's stderr has ended.
    stderr_done: CancellationToken,
    docs: tokio::sync::Mutex<HashMap<PathBuf, Doc>>,
    capabilities: Value,
    _tasks: Vec<AbortOnDrop>,
}

impl Client {
    /// Starts `server` for the workspace `root` and initializes it.
    pub(crate) async fn start(
        server: &ServerConfig,
        root: &Path,
        cancel: &CancellationToken,
    ) -> Result<Self, LspError> {
        let spec = ProcessSpec::exec(&server.command, &server.args)
            .cwd(root)
            .envs(server.env.iter().map(|(k, v)| (k.clone(), v.clone())))
            .kill_grace(Duration::from_millis(500));
        let mut process = spec.spawn().map_err(|e| match e {
            ProcessError::Spawn { program, source } if source.kind() == std::io::ErrorKind::NotFound => {
                LspError::NotInstalled { server: server.name.clone(), program, detail: "not found on PATH".into() }
            }
            other => LspError::Spawn { server: server.name.clone(), detail: other.to_string() },
        })?;
        let spawn_error =
            |what: &str| LspError::Spawn { server: server.name.clone(), detail: format!("no {what} pipe") };
        let stdin = process.take_stdin().ok_or_else(|| spawn_error("stdin"))?;
        let stdout = process.take_stdout().ok_or_else(|| spawn_error("stdout"))?;
        let stderr_pipe = process.take_stderr();
        let pid = process.id();

        let (writer, frames) = tokio::sync::mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        let ended = CancellationToken::new();
        let end_reason: Arc<Mutex<Option<String>>> = Arc::default();
        let stderr: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stderr_done = CancellationToken::new();
        let root_uri = file_uri(root);
        let mut tasks = vec![AbortOnDrop(tokio::spawn(rpc::write_loop(stdin, frames)))];
        tasks.push(AbortOnDrop(tokio::spawn(read_loop(
            stdout,
            ReaderShared {
                writer: writer.clone(),
                pending: pending.clone(),
                ended: ended.clone(),
                end_reason: end_reason.clone(),
                settings: server.settings.clone(),
                root_uri: root_uri.clone(),
                root_name: folder_name(root),
            },
        ))));
        match stderr_pipe {
            Some(pipe) => tasks.push(AbortOnDrop(tokio::spawn(keep_tail(pipe, stderr.clone(), stderr_done.clone())))),
            None => stderr_done.cancel(),
        }
        let mut client = Self {
            server: server.clone(),
            root: root.to_path_buf(),
            pid,
            writer,
            pending,
            next_id: AtomicI64::new(1),
            ended,
            end_reason,
            process: tokio::sync::Mutex::new(process),
            stderr,
            stderr_done,
            docs: tokio::sync::Mutex::default(),
            capabilities: Value::Null,
            _tasks: tasks,
        };
        let params = initialize_params(root, &root_uri, server);
        let result = match client.request("initialize", params, server.startup_timeout, cancel).await {
            Ok(result) => result,
            Err(e) => {
                client.kill().await;
                return Err(e);
            }
        };
        client.capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        client.notify("initialized", json!({})).await?;
        if let Some(settings) = &server.settings {
            client.notify("workspace/didChangeConfiguration", json!({"settings": settings})).await?;
        }
        Ok(client)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The workspace root it serves.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The server's configuration.
    pub(crate) fn server(&self) -> &ServerConfig {
        &self.server
    }

    /// Whether the connection still stands and the process still runs.
    pub(crate) async fn is_alive(&self) -> bool {
        if self.ended.is_cancelled() {
            return false;
        }
        matches!(self.process.lock().await.try_wait(), Ok(None))
    }

    /// Whether the server advertises `capability` (e.g. `hoverProvider`) as anything but
    /// absent, `null` or `false`.
    pub(crate) fn supports(&self, capability: &str) -> bool {
        !matches!(self.capabilities.get(capability), None | Some(Value::Null | Value::Bool(false)))
    }

    /// Sends a request and waits for its result, at most `timeout`, or until `cancel`.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, LspError> {
        if self.ended.is_cancelled() {
            return Err(self.exited(method).await);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        // The reader may have ended (and cleared the map) just before the insert.
        if self.ended.is_cancelled() {
            lock(&self.pending).remove(&id);
            return Err(self.exited(method).await);
        }
        let exchange = async {
            if self.send(&rpc::request(id, method, params)).is_err() {
                return None;
            }
            rx.await.ok()
        };
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(timeout, exchange) => outcome,
            () = cancel.cancelled() => {
                self.forget(id);
                return Err(LspError::Cancelled { server: self.server.name.clone() });
            }
        };
        match outcome {
            Ok(Some(Ok(result))) => Ok(result),
            Ok(Some(Err(RpcError { code, message }))) => {
                Err(LspError::Rpc { server: self.server.name.clone(), method: method.to_owned(), code, message })
            }
            Ok(None) => {
                lock(&self.pending).remove(&id);
                Err(self.exited(method).await)
            }
            Err(_) => {
                self.forget(id);
                Err(LspError::Timeout { server: self.server.name.clone(), method: method.to_owned(), after: timeout })
            }
        }
    }

    /// Sends a notification.
    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        match self.send(&rpc::notification(method, params)) {
            Ok(()) => Ok(()),
            Err(()) => Err(self.exited(method).await),
        }
    }

    /// Makes sure the server sees `text` as the content of `path`: `didOpen` the first
    /// time; when the text changed since, `didChange` with the whole text (or, for a server
    /// that takes no changes, `didClose` and `didOpen` again).
    pub(crate) async fn sync_document(&self, path: &Path, language: &str, text: &str) -> Result<(), LspError> {
        let mut docs = self.docs.lock().await;
        let uri = file_uri(path);
        let open = |version: i32| json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}});
        match docs.get_mut(path) {
            None => {
                self.notify("textDocument/didOpen", open(1)).await?;
                docs.insert(path.to_path_buf(), Doc { version: 1, text: text.to_owned() });
            }
            Some(doc) if doc.text == text => {}
            Some(doc) => {
                let version = doc.version + 1;
                if self.sync_kind() == 0 {
                    self.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await?;
                    self.notify("textDocument/didOpen", open(version)).await?;
                } else {
                    let params = json!({
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}]
                    });
                    self.notify("textDocument/didChange", params).await?;
                }
                doc.version = version;
                doc.text = text.to_owned();
            }
        }
        Ok(())
    }

    /// The text document sync kind the server asked for (0 none, 1 full, 2 incremental).
    fn sync_kind(&self) -> i64 {
        match self.capabilities.get("textDocumentSync") {
            Some(Value::Number(n)) => n.as_i64().unwrap_or(1),
            Some(Value::Object(o)) => o.get("change").and_then(Value::as_i64).unwrap_or(0),
            _ => 0,
        }
    }

    /// Shuts the server down politely (`shutdown`, then `exit`), each step bounded by the
    /// shutdown timeout, then stops its process group if it is still there.
    pub(crate) async fn shutdown(&self) {
        let grace = self.server.shutdown_timeout;
        if !self.ended.is_cancelled() {
            let never = CancellationToken::new();
            if self.request("shutdown", Value::Null, grace, &never).await.is_ok() {
                let _ = self.notify("exit", Value::Null).await;
            }
        }
        let mut process = self.process.lock().await;
        if tokio::time::timeout(grace, process.wait()).await.is_err() {
            let _ = process.terminate().await;
        }
    }

    /// Stops the process group now and reaps the server.
    pub(crate) async fn kill(&self) {
        let mut process = self.process.lock().await;
        process.kill();
        let _ = tokio::time::timeout(EXIT_STATUS_WAIT, process.wait()).await;
    }

    /// Queues a message for the writer task; `Err` once the server's stdin is gone.
    fn send(&self, message: &Value) -> Result<(), ()> {
        self.writer.send(rpc::frame(message)).map_err(drop)
    }

    /// Forgets a request that will not be waited for, and tells the server.
    fn forget(&self, id: i64) {
        lock(&self.pending).remove(&id);
        let cancel = rpc::notification("$/cancelRequest", json!({"id": id}));
        let _ = self.send(&cancel);
    }

    /// The error for a server that went away: how it ended and what it last printed.
    async fn exited(&self, method: &str) -> LspError {
        let status = {
            let mut process = self.process.lock().await;
            match tokio::time::timeout(EXIT_STATUS_WAIT, process.wait()).await {
                Ok(Ok(status)) => format!("exited ({status})"),
                Ok(Err(e)) => format!("went away ({e})"),
                Err(_) => {
                    // Alive but no longer talking: useless, so stopped now.
                    process.kill();
                    let why = lock(&self.end_reason).clone().unwrap_or_else(|| "stopped answering".into());
                    format!("broke the connection ({why}) and was stopped")
                }
            }
        };
        // What it printed last is the best clue: let the stderr reader catch up.
        let _ = tokio::time::timeout(Duration::from_millis(500), self.stderr_done.cancelled()).await;
        let mut detail = format!("{status} while handling {method}");
        let tail = self.stderr_tail();
        if !tail.is_empty() {
            detail.push_str(&format!("; the end of its stderr:\n{tail}"));
        }
        LspError::Exited { server: self.server.name.clone(), detail }
    }

    /// The last lines the server wrote to stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        let bytes = lock(&self.stderr).clone();
        String::from_utf8_lossy(&bytes).trim().to_owned()
    }
}

/// What the reader task shares with the client.
struct ReaderShared {
    writer: Writer,
    pending: Pending,
    ended: CancellationToken,
    end_reason: Arc<Mutex<Option<String>>>,
    settings: Option<Value>,
    root_uri: String,
    root_name: String,
}

async fn read_loop(stdout: ChildStdout, shared: ReaderShared) {
    let mut reader = BufReader::new(stdout);
    let reason = loop {
        match rpc::read_message(&mut reader).await {
            Ok(None) => break "its output closed".to_owned(),
            Err(e) => break e.to_string(),
            Ok(Some(message)) => match rpc::classify(message) {
                Incoming::Response { id, outcome } => {
                    if let Some(tx) = lock(&shared.pending).remove(&id) {
                        let _ = tx.send(outcome);
                    }
                }
                Incoming::Request { id, method, params } => {
                    let reply = answer(&shared, id, &method, &params);
                    // Queued: the reader never blocks on the server's stdin.
                    let _ = shared.writer.send(rpc::frame(&reply));
                }
                Incoming::Notification | Incoming::Unexpected(_) => {}
            },
        }
    };
    *lock(&shared.end_reason) = Some(reason);
    shared.ended.cancel();
    lock(&shared.pending).clear();
}

/// The answer to a request from the server. The client is read-only: edits are refused.
fn answer(shared: &ReaderShared, id: Value, method: &str, params: &Value) -> Value {
    match method {
        "workspace/configuration" => {
            let items = params.get("items").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
            let values: Vec<Value> = items
                .iter()
                .map(|item| {
                    let section = item.get("section").and_then(Value::as_str).unwrap_or_default();
                    configuration_section(shared.settings.as_ref(), section)
                })
                .collect();
            rpc::response(id, Value::Array(values))
        }
        "workspace/workspaceFolders" => rpc::response(id, json!([{"uri": shared.root_uri, "name": shared.root_name}])),
        "window/workDoneProgress/create"
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "window/showMessageRequest"
        | "workspace/diagnostic/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh" => rpc::response(id, Value::Null),
        "workspace/applyEdit" => {
            rpc::response(id, json!({"applied": false, "failureReason": "this client is read-only"}))
        }
        "window/showDocument" => rpc::response(id, json!({"success": false})),
        _ => rpc::error_response(id, -32601, &format!("{method} is not supported by this client")),
    }
}

/// The part of the settings under a dotted `section` (`a.b`), or all of them for none.
fn configuration_section(settings: Option<&Value>, section: &str) -> Value {
    let Some(mut value) = settings else { return Value::Null };
    if section.is_empty() {
        return value.clone();
    }
    for part in section.split('.') {
        match value.get(part) {
            Some(v) => value = v,
            None => return Value::Null,
        }
    }
    value.clone()
}

async fn keep_tail(mut pipe: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>, done: CancellationToken) {
    let _done = done.drop_guard();
    let mut chunk = vec![0u8; 4096];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut kept = lock(&tail);
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > STDERR_TAIL {
                    let cut = kept.len() - STDERR_TAIL;
                    kept.drain(..cut);
                }
            }
        }
    }
}

fn folder_name(root: &Path) -> String {
    root.file_name().map_or_else(|| root.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// `initialize` parameters: the workspace folder and what this client understands.
fn initialize_params(root: &Path, root_uri: &str, server: &ServerConfig) -> Value {
    let mut params = json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "toolgate", "version": env!("CARGO_PKG_VERSION")},
        "rootPath": root.display().to_string(),
        "rootUri": root_uri,
        "workspaceFolders": [{"uri": root_uri, "name": folder_name(root)}],
        "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "workspace": {
                "configuration": true,
                "workspaceFolders": true,
                "symbol": {"dynamicRegistration": false},
                "applyEdit": false
            },
            "textDocument": {
                "synchronization": {"dynamicRegistration": false, "didSave": false},
                "definition": {"dynamicRegistration": false, "linkSupport": true},
                "implementation": {"dynamicRegistration": false, "linkSupport": true},
                "references": {"dynamicRegistration": false},
                "hover": {"dynamicRegistration": false, "contentFormat": ["markdown", "plaintext"]},
                "documentSymbol": {"dynamicRegistration": false, "hierarchicalDocumentSymbolSupport": true},
                "callHierarchy": {"dynamicRegistration": false}
            },
            "window": {"workDoneProgress": false}
        }
    });
    if let (Some(options), Some(obj)) = (&server.initialization_options, params.as_object_mut()) {
        obj.insert("initializationOptions".into(), options.clone());
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_sections_are_looked_up_by_dotted_path() {
        let settings = json!({"python": {"analysis": {"typeCheckingMode": "strict"}}});
        assert_eq!(configuration_section(Some(&settings), "python.analysis.typeCheckingMode"), json!("strict"));
        assert_eq!(configuration_section(Some(&settings), "python.missing"), Value::Null);
        assert_eq!(configuration_section(Some(&settings), ""), settings);
        assert_eq!(configuration_section(None, "x"), Value::Null);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(Duration::from_secs(30)), "30 s");
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
    }
}
