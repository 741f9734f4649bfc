//! One toolgate session per MCP session over HTTP.
//!
//! rmcp's [`LocalSessionManager`] owns the MCP sessions (ids, streams, idle timeout);
//! [`ScopedSessions`] wraps it so that the moment a session is created it gets its own
//! [`Session::fork`] of the served session, and the moment it is closed (a `DELETE`, the
//! idle timeout, the server shutting down) that fork's running calls are cancelled and the
//! fork is dropped, which kills its background shells.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures_core::Stream;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, ServerSseMessage, SessionId};
use tokio_util::sync::CancellationToken;
use toolgate_core::Extensions;
use toolgate_pipeline::Session;

/// Gives an MCP session its own host services, given its id (see
/// [`crate::ServeOptions::session_services`]).
pub type SessionServices = Arc<dyn Fn(&str, &mut Extensions) + Send + Sync>;

/// The header that names an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// One MCP session's toolgate session and the token that cancels its calls.
#[derive(Clone)]
pub(crate) struct Scoped {
    pub(crate) session: Session,
    pub(crate) cancel: CancellationToken,
}

/// The forks of a served session, by MCP session id.
pub(crate) struct SessionRegistry {
    base: Session,
    services: Option<SessionServices>,
    open: Mutex<HashMap<SessionId, Scoped>>,
}

impl std::fmt::Debug for SessionRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionRegistry({} open)", self.len())
    }
}

impl SessionRegistry {
    pub(crate) fn new(base: Session, services: Option<SessionServices>) -> Self {
        Self { base, services, open: Mutex::new(HashMap::new()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Scoped>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new fork for the session `id` (not registered).
    fn fork(&self, id: &str) -> Scoped {
        let services = self.services.clone();
        let session = self.base.fork(id, |ext| {
            if let Some(services) = &services {
                services(id, ext);
            }
        });
        Scoped { session, cancel: CancellationToken::new() }
    }

    fn open(&self, id: &SessionId) {
        let scoped = self.fork(id);
        self.lock().insert(id.clone(), scoped);
    }

    fn close(&self, id: &SessionId) {
        let closed = self.lock().remove(id);
        if let Some(scoped) = closed {
            scoped.cancel.cancel();
        }
    }

    /// Cancels every session's calls and forgets them all.
    pub(crate) fn close_all(&self) {
        let all: Vec<Scoped> = self.lock().drain().map(|(_, scoped)| scoped).collect();
        for scoped in all {
            scoped.cancel.cancel();
        }
    }

    /// How many sessions are open.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// The session a request belongs to: the one its `Mcp-Session-Id` names; for a request
    /// outside any session (the stateless protocol), a fork of its own that ends with it.
    pub(crate) fn scope_of(&self, context: &RequestContext<RoleServer>) -> Scoped {
        self.scope_in(&context.extensions)
    }

    /// [`SessionRegistry::scope_of`] for a message's extensions (a notification's too).
    pub(crate) fn scope_in(&self, extensions: &rmcp::model::Extensions) -> Scoped {
        let id = extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|parts| parts.headers.get(SESSION_HEADER))
            .and_then(|v| v.to_str().ok());
        if let Some(id) = id
            && let Some(scoped) = self.lock().get(id)
        {
            return scoped.clone();
        }
        self.fork("stateless")
    }
}

/// rmcp's session manager, with a [`SessionRegistry`] kept in step.
pub(crate) struct ScopedSessions {
    inner: LocalSessionManager,
    registry: Arc<SessionRegistry>,
}

impl ScopedSessions {
    pub(crate) fn new(registry: Arc<SessionRegistry>) -> Self {
        Self { inner: LocalSessionManager::default(), registry }
    }
}

type Inner = LocalSessionManager;

impl SessionManager for ScopedSessions {
    type Error = <Inner as SessionManager>::Error;
    type Transport = <Inner as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        self.registry.open(&id);
        Ok((id, transport))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.inner.initialize_session(id, message)
    }

    fn has_session(&self, id: &SessionId) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.inner.has_session(id)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Forget the fork first: its calls stop whatever rmcp makes of the close.
        self.registry.close(id);
        self.inner.close_session(id).await
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>> + Send
    {
        self.inner.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>> + Send
    {
        self.inner.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>> + Send
    {
        self.inner.resume(id, last_event_id)
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let outcome = self.inner.restore_session(id.clone()).await?;
        if matches!(outcome, RestoreOutcome::Restored(_)) {
            self.registry.open(&id);
        }
        Ok(outcome)
    }
}
