//! MCP logging for `mcp serve`: a client that sets a level (`logging/setLevel`) receives the
//! host's log records at or above it as `notifications/message`.
//!
//! The host feeds records in through [`McpLogs::record`] (the CLI does it from a tracing
//! layer); each client is known by its MCP session id (one id for a stdio client), so setting
//! the level again replaces it, and a client that can no longer be reached is forgotten.
//!
//! A record made while a session's call runs (in the call's own task: the pipeline runs a
//! served call there) belongs to that session and goes to its client only, at that client's
//! level; a record made outside every call (a server connecting, shutting down) goes to every
//! client whose level it reaches.

// Logging is deprecated by the newest MCP revision (SEP-2577), but the clients of the
// revisions that have `initialize` use it.
#![allow(deprecated, reason = "logging serves clients of the revisions toolgate speaks")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};

/// A log record's severity, from the least to the most severe (MCP's syslog levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// What happens normally.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// Something failed.
    Error,
    /// A part of the system failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    fn of(level: LoggingLevel) -> Self {
        match level {
            LoggingLevel::Debug => Self::Debug,
            LoggingLevel::Info => Self::Info,
            LoggingLevel::Notice => Self::Notice,
            LoggingLevel::Warning => Self::Warning,
            LoggingLevel::Error => Self::Error,
            LoggingLevel::Critical => Self::Critical,
            LoggingLevel::Alert => Self::Alert,
            LoggingLevel::Emergency => Self::Emergency,
        }
    }

    fn mcp(self) -> LoggingLevel {
        match self {
            Self::Debug => LoggingLevel::Debug,
            Self::Info => LoggingLevel::Info,
            Self::Notice => LoggingLevel::Notice,
            Self::Warning => LoggingLevel::Warning,
            Self::Error => LoggingLevel::Error,
            Self::Critical => LoggingLevel::Critical,
            Self::Alert => LoggingLevel::Alert,
            Self::Emergency => LoggingLevel::Emergency,
        }
    }
}

/// The clients that set a level, by MCP session id: how to reach each, and its level.
type Clients = HashMap<String, (Peer<RoleServer>, LogLevel)>;

tokio::task_local! {
    /// The MCP session whose call the current task runs.
    static SESSION: String;
}

/// Runs `call` as a call of the MCP session `key`: the records made in its task are that
/// session's.
pub(crate) async fn in_session<F: Future>(key: String, call: F) -> F::Output {
    SESSION.scope(key, call).await
}

/// Whether a record made now may go to the client `key`: the current task runs no session's
/// call, or runs that client's.
fn for_client(key: &str) -> bool {
    SESSION.try_with(|session| session == key).unwrap_or(true)
}

/// The clients of `mcp serve` that asked for log records, and the level each asked for.
///
/// ```
/// use toolgate_mcp::{LogLevel, McpLogs};
/// let logs = McpLogs::default();
/// // No client has set a level: the record goes nowhere, and costs a lock.
/// logs.record(LogLevel::Info, "toolgate::pipeline", "call started".to_owned());
/// assert!(!logs.wanted(LogLevel::Debug));
/// ```
#[derive(Debug, Clone, Default)]
pub struct McpLogs {
    clients: Arc<Mutex<Clients>>,
}

impl McpLogs {
    /// Whether any client wants records of `level` made now (a host skips formatting
    /// otherwise): within a session's call, that session's client.
    pub fn wanted(&self, level: LogLevel) -> bool {
        self.lock().iter().any(|(key, (_, wanted))| level >= *wanted && for_client(key))
    }

    /// Sends a record to every client whose level it reaches; made within a session's call,
    /// to that session's client only.
    pub fn record(&self, level: LogLevel, logger: &str, message: String) {
        let peers: Vec<(String, Peer<RoleServer>)> = self
            .lock()
            .iter()
            .filter(|(key, (_, wanted))| level >= *wanted && for_client(key))
            .map(|(key, (peer, _))| (key.clone(), peer.clone()))
            .collect();
        if peers.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        for (key, peer) in peers {
            let mut param =
                LoggingMessageNotificationParam::new(level.mcp(), serde_json::Value::String(message.clone()));
            param.logger = Some(logger.to_owned());
            let clients = self.clients.clone();
            runtime.spawn(async move {
                if peer.notify_logging_message(param).await.is_err() {
                    clients.lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
                }
            });
        }
    }

    /// The client `key` (its MCP session id) wants records at `level` and above.
    pub(crate) fn set(&self, key: String, peer: Peer<RoleServer>, level: LoggingLevel) {
        self.lock().insert(key, (peer, LogLevel::of(level)));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Clients> {
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
