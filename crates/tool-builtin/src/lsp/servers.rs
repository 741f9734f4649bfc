//! [`LspServers`]: the session's language servers, one per configured server and
//! workspace root, started on first use, restarted after a crash, shut down at the end.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use toolgate_core::CancellationToken;

use super::approvals::LspApprovals;
use super::client::{Client, LspError};
use super::config::{LspConfig, ServerConfig};

/// One server slot: the running client, if any, and how often it was restarted.
#[derive(Default)]
struct Slot {
    client: Option<Arc<Client>>,
    restarts: u32,
    /// Set once the server crashed more often than it may be restarted.
    gave_up: Option<LspError>,
}

type SlotRef = Arc<tokio::sync::Mutex<Slot>>;

/// The language servers of a session.
///
/// A server is started the first time a file of its language is asked about, once per
/// workspace root, and initialized once; later calls reuse it. A server whose process
/// died or whose connection broke is started again on the next call (up to its
/// `maxRestarts`). [`LspServers::shutdown`] sends every server `shutdown` and `exit` and
/// stops what is left; dropping the manager kills every server's process group.
///
/// A host that wants the graceful shutdown puts an `Arc<LspServers>` in the session's
/// extensions (the LSP tool uses it instead of its own) and calls `shutdown` at the end:
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::lsp::{LspConfig, LspServers};
/// use toolgate_core::Extensions;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let servers = Arc::new(LspServers::new(LspConfig::from_env()));
/// let mut extensions = Extensions::default();
/// extensions.insert_arc(servers.clone());
/// // … build the session with these extensions, run calls …
/// servers.shutdown().await;
/// assert!(servers.running().await.is_empty());
/// # });
/// ```
pub struct LspServers {
    config: LspConfig,
    slots: Mutex<HashMap<(String, PathBuf), SlotRef>>,
    closed: AtomicBool,
    /// Where approvals to start a server for a workspace are remembered, if anywhere.
    approvals: Option<LspApprovals>,
}

/// A server that is running, as [`LspServers::running`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunningServer {
    /// The configured server's name.
    pub name: String,
    /// The workspace root it serves.
    pub root: PathBuf,
    /// Its process id (also its process group id).
    pub pid: Option<u32>,
}

impl std::fmt::Debug for LspServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspServers").field("config", &self.config).finish_non_exhaustive()
    }
}

impl LspServers {
    /// A manager for the servers of `config`; nothing is started yet.
    pub fn new(config: LspConfig) -> Self {
        Self { config, slots: Mutex::default(), closed: AtomicBool::new(false), approvals: None }
    }

    /// The same servers, remembering in `approvals` each server started for a workspace, so
    /// that its next start for that workspace, in a later session too, is not asked about.
    #[must_use]
    pub fn with_approvals(mut self, approvals: LspApprovals) -> Self {
        self.approvals = Some(approvals);
        self
    }

    /// Whether starting `server` for `root` was approved before (always `false` without
    /// [`LspServers::with_approvals`]).
    pub fn approved(&self, server: &ServerConfig, root: &Path) -> bool {
        self.approvals.as_ref().is_some_and(|approvals| approvals.approved(server, root))
    }

    /// Records that `server` was started for `root` (nothing without approvals kept). A record
    /// that cannot be written means only that the next session asks again.
    pub(crate) fn remember_approval(&self, server: &ServerConfig, root: &Path) {
        if let Some(approvals) = &self.approvals {
            // Nothing to report to the model: its call succeeded either way.
            let _unrecorded = approvals.record(server, root);
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LspConfig {
        &self.config
    }

    /// The servers running now.
    pub async fn running(&self) -> Vec<RunningServer> {
        let slots: Vec<((String, PathBuf), SlotRef)> =
            self.lock().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let mut out = Vec::new();
        for ((name, root), slot) in slots {
            let slot = slot.lock().await;
            if let Some(client) = &slot.client
                && client.is_alive().await
            {
                out.push(RunningServer { name, root, pid: client.pid() });
            }
        }
        out.sort_by(|a, b| (&a.name, &a.root).cmp(&(&b.name, &b.root)));
        out
    }

    /// Shuts every server down (`shutdown`, `exit`, then its process group is stopped if
    /// it lingers) and refuses to start new ones.
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let slots: Vec<SlotRef> = self.lock().drain().map(|(_, v)| v).collect();
        for slot in slots {
            let client = slot.lock().await.client.take();
            if let Some(client) = client {
                client.shutdown().await;
            }
        }
    }

    /// The running client of `server` for `root`, started (or restarted) when needed.
    pub(crate) async fn client(
        &self,
        server: &ServerConfig,
        root: &Path,
        cancel: &CancellationToken,
    ) -> Result<Arc<Client>, LspError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(LspError::ShutDown);
        }
        let slot = self.lock().entry((server.name.clone(), root.to_path_buf())).or_default().clone();
        let mut slot = slot.lock().await;
        if let Some(error) = &slot.gave_up {
            return Err(error.clone());
        }
        if let Some(client) = &slot.client {
            if client.is_alive().await {
                return Ok(client.clone());
            }
            let dead = slot.client.take();
            let tail = dead.as_ref().map(|c| c.stderr_tail()).unwrap_or_default();
            if let Some(dead) = dead {
                dead.kill().await;
            }
            if !server.restart_on_crash || slot.restarts >= server.max_restarts {
                let detail = if tail.is_empty() { "it printed nothing to stderr".to_owned() } else { tail };
                let error = LspError::GaveUp { server: server.name.clone(), crashes: slot.restarts + 1, detail };
                slot.gave_up = Some(error.clone());
                return Err(error);
            }
            slot.restarts += 1;
        }
        let client = Arc::new(Client::start(server, root, cancel).await?);
        if self.closed.load(Ordering::SeqCst) {
            client.shutdown().await;
            return Err(LspError::ShutDown);
        }
        slot.client = Some(client.clone());
        Ok(client)
    }

    /// Whether `server` runs for `root` now (or is being started or used).
    pub(crate) fn is_running(&self, server: &str, root: &Path) -> bool {
        let Some(slot) = self.lock().get(&(server.to_owned(), root.to_path_buf())).cloned() else { return false };
        slot.try_lock().map_or(true, |slot| slot.client.is_some())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, PathBuf), SlotRef>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
