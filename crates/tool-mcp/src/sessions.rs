//! One toolgate session per MCP session over HTTP.
//!
//! rmcp's [`LocalSessionManager`] owns the MCP sessions (ids, streams, idle timeout);
//! [`ScopedSessions`] wraps it so that the moment a session is created it gets its own
//! [`Session::fork`] of the served session, and the moment it is closed (a `DELETE`, the
//! idle timeout, the server shutting down) that fork's running calls are cancelled and the
//! fork is dropped, which kills its background shells.
//!
//! A client that goes away in the middle of a call (its connection drops before the answer)
//! gets [`DISCONNECT_GRACE`] to come back for it (`Last-Event-ID`); then the call is cancelled
//! as if the client had sent `notifications/cancelled`, which kills its processes.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use rmcp::RoleServer;
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientJsonRpcMessage, ClientNotification, JsonRpcMessage,
    RequestId, ServerJsonRpcMessage,
};
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

/// How long a call whose client went away before its answer keeps running, for the client
/// to come back for it, before it is cancelled: 5 seconds.
pub const DISCONNECT_GRACE: Duration = Duration::from_secs(5);

/// How long an MCP session may go without a request, and without a call running, before it is
/// closed (its fork dropped, its shells killed): 10 minutes.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// The header that names an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// One MCP session's toolgate session and the token that cancels its calls.
#[derive(Clone)]
pub(crate) struct Scoped {
    pub(crate) session: Session,
    pub(crate) cancel: CancellationToken,
}

/// The MCP session id of an HTTP request (its `Mcp-Session-Id` header); none over stdio.
pub(crate) fn session_id(extensions: &rmcp::model::Extensions) -> Option<&str> {
    extensions
        .get::<hyper::http::request::Parts>()
        .and_then(|parts| parts.headers.get(SESSION_HEADER))
        .and_then(|v| v.to_str().ok())
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
        let id = session_id(extensions);
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
    inner: Arc<LocalSessionManager>,
    registry: Arc<SessionRegistry>,
    /// How long a call outlives its client's disconnection.
    grace: Duration,
    /// Per session, how many times a client came back for a stream (`resume`): a call whose
    /// stream dropped is not cancelled when its session resumed since.
    resumed: Arc<Mutex<HashMap<SessionId, u64>>>,
    /// Per session, its last request and how many calls' streams are open.
    activity: Arc<Mutex<HashMap<SessionId, Activity>>>,
}

/// When a session was last asked something, and how many of its calls are running.
#[derive(Debug, Clone, Copy)]
struct Activity {
    last: std::time::Instant,
    open: usize,
}

impl ScopedSessions {
    pub(crate) fn new(registry: Arc<SessionRegistry>, grace: Duration, idle: Duration) -> Self {
        let sessions =
            Self { inner: Arc::default(), registry, grace, resumed: Arc::default(), activity: Arc::default() };
        sessions.sweep_idle(idle);
        sessions
    }

    /// Closes, every so often, the sessions idle for `idle` with no call running; ends when the
    /// sessions are dropped.
    fn sweep_idle(&self, idle: Duration) {
        let (inner, registry, activity) =
            (Arc::downgrade(&self.inner), Arc::downgrade(&self.registry), Arc::downgrade(&self.activity));
        let every = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let (Some(inner), Some(registry), Some(activity)) =
                    (inner.upgrade(), registry.upgrade(), activity.upgrade())
                else {
                    return;
                };
                let idle_ids: Vec<SessionId> = {
                    let mut map = activity.lock().unwrap_or_else(PoisonError::into_inner);
                    let ids: Vec<SessionId> = map
                        .iter()
                        .filter(|(_, a)| a.open == 0 && a.last.elapsed() >= idle)
                        .map(|(id, _)| id.clone())
                        .collect();
                    for id in &ids {
                        map.remove(id);
                    }
                    ids
                };
                for id in idle_ids {
                    registry.close(&id);
                    let _ = inner.close_session(&id).await;
                }
            }
        });
    }

    /// Notes a request of session `id`; `open` is the change in its running calls' streams.
    fn touch(&self, id: &SessionId, open: isize) {
        touch(&self.activity, id, open);
    }

    fn resumes(&self, id: &SessionId) -> u64 {
        self.resumed.lock().unwrap_or_else(PoisonError::into_inner).get(id).copied().unwrap_or(0)
    }
}

fn touch(activity: &Mutex<HashMap<SessionId, Activity>>, id: &SessionId, open: isize) {
    let mut map = activity.lock().unwrap_or_else(PoisonError::into_inner);
    let entry = map.entry(id.clone()).or_insert(Activity { last: std::time::Instant::now(), open: 0 });
    entry.last = std::time::Instant::now();
    entry.open = entry.open.saturating_add_signed(open);
}

/// A request's answer stream; dropped before the answer went out (the client disconnected),
/// it cancels the request after the grace period unless the client came back meanwhile.
struct Watched<S> {
    inner: Pin<Box<S>>,
    request: Option<RequestId>,
    session: SessionId,
    resumes: u64,
    manager: Arc<LocalSessionManager>,
    resumed: Arc<Mutex<HashMap<SessionId, u64>>>,
    grace: Duration,
    _open: OpenStream,
}

/// One open answer stream of a session, counted while it lives (an idle session with a call
/// running is not closed).
struct OpenStream {
    activity: Arc<Mutex<HashMap<SessionId, Activity>>>,
    session: SessionId,
}

impl OpenStream {
    fn new(activity: Arc<Mutex<HashMap<SessionId, Activity>>>, session: SessionId) -> Self {
        touch(&activity, &session, 1);
        Self { activity, session }
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        touch(&self.activity, &self.session, -1);
    }
}

impl<S: Stream<Item = ServerSseMessage>> Stream for Watched<S> {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = self.inner.as_mut().poll_next(cx);
        if let Poll::Ready(Some(event)) = &next
            && let Some(message) = &event.message
            && matches!(message.as_ref(), JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_))
        {
            // The answer went out: nothing to cancel.
            self.request = None;
        }
        if let Poll::Ready(None) = next {
            self.request = None;
        }
        next
    }
}

impl<S> Drop for Watched<S> {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let (manager, resumed, session, resumes, grace) =
            (self.manager.clone(), self.resumed.clone(), self.session.clone(), self.resumes, self.grace);
        runtime.spawn(async move {
            tokio::time::sleep(grace).await;
            let came_back = resumed.lock().unwrap_or_else(PoisonError::into_inner).get(&session).copied().unwrap_or(0);
            if came_back > resumes {
                return;
            }
            let reason = "the client disconnected before the answer".to_owned();
            let note = CancelledNotification::new(CancelledNotificationParam::new(Some(request), Some(reason)));
            let message = ClientJsonRpcMessage::notification(ClientNotification::CancelledNotification(note));
            let _ = manager.accept_message(&session, message).await;
        });
    }
}

type Inner = LocalSessionManager;

impl SessionManager for ScopedSessions {
    type Error = <Inner as SessionManager>::Error;
    type Transport = <Inner as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        self.registry.open(&id);
        self.touch(&id, 0);
        Ok((id, transport))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.touch(id, 0);
        self.inner.initialize_session(id, message)
    }

    fn has_session(&self, id: &SessionId) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.inner.has_session(id)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Forget the fork first: its calls stop whatever rmcp makes of the close.
        self.registry.close(id);
        self.activity.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        self.inner.close_session(id).await
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>> + Send
    {
        let request = match &message {
            JsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let (session, resumes) = (id.clone(), self.resumes(id));
        let (manager, resumed, grace, activity) =
            (self.inner.clone(), self.resumed.clone(), self.grace, self.activity.clone());
        // Counted open until the stream is dropped, or the request's future is.
        let open = OpenStream::new(activity, session.clone());
        let stream = self.inner.create_stream(id, message);
        async move {
            let stream = stream.await?;
            Ok(Watched { inner: Box::pin(stream), request, session, resumes, manager, resumed, grace, _open: open })
        }
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.touch(id, 0);
        self.inner.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>> + Send
    {
        self.touch(id, 0);
        self.inner.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>> + Send
    {
        *self.resumed.lock().unwrap_or_else(PoisonError::into_inner).entry(id.clone()).or_default() += 1;
        self.touch(id, 0);
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
