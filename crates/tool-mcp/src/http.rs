//! The streamable-HTTP server: rmcp's `StreamableHttpService` behind our own accept loop,
//! which
//!
//! 1. sets `TCP_NODELAY` on every accepted socket, so that a response written in more
//!    than one piece is not held back by Nagle's algorithm waiting for the client's
//!    delayed ACK (about 40 ms a request on Linux);
//! 2. checks the bearer token before rmcp sees the request;
//! 3. holds back the head of an event-stream response until its first message is known:
//!    a response that is complete then (a tool call's result, `initialize`) is sent as one
//!    `Content-Length` body, in one write; one that goes on (progress, a question to the
//!    client) streams from there;
//! 4. answers a session's `DELETE` with `204 No Content` (rmcp says `202 Accepted`, which
//!    clients log as a failed termination).
//!
//! Every socket write is counted ([`HttpStats`]), which is how the tests prove (1) and (3)
//! without timing anything.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::task::JoinHandle;
use toolgate_pipeline::Session;

use crate::server::{PoolServer, ServeError, ServeOptions};
use crate::sessions::{ScopedSessions, SessionRegistry};

/// The largest request body [`serve_http`] reads: 4 MiB (rmcp's default, stated here so it
/// cannot change unnoticed); a larger one is refused with `413 Payload Too Large` before it
/// is buffered. (Over stdio, rmcp drops any line over 16 MiB unread.)
pub const MAX_REQUEST_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How long [`HttpServer::shutdown`] waits for open connections to finish the responses
/// they are writing once every session is cancelled: 5 seconds; then they are dropped.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Counters of a running [`HttpServer`], read with [`HttpServer::stats`]: what it accepted
/// and how it wrote. They only grow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpStats {
    /// Connections accepted.
    pub connections: u64,
    /// Accepted connections whose socket reports `TCP_NODELAY` set.
    pub nodelay: u64,
    /// HTTP responses produced (authorization failures included).
    pub responses: u64,
    /// Socket writes that wrote something (each one `write` or `writev` call).
    pub writes: u64,
}

#[derive(Debug, Default)]
struct Counters {
    connections: AtomicU64,
    nodelay: AtomicU64,
    responses: AtomicU64,
    writes: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> HttpStats {
        HttpStats {
            connections: self.connections.load(Ordering::Relaxed),
            nodelay: self.nodelay.load(Ordering::Relaxed),
            responses: self.responses.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
        }
    }
}

/// A running streamable-HTTP MCP server ([`serve_http`]).
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    cancel: tokio_util::sync::CancellationToken,
    task: JoinHandle<()>,
    counters: Arc<Counters>,
    sessions: Arc<SessionRegistry>,
}

impl HttpServer {
    /// The address it listens on (with the real port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.local_addr)
    }

    /// The counters so far.
    pub fn stats(&self) -> HttpStats {
        self.counters.snapshot()
    }

    /// How many MCP sessions are open (initialized, not yet deleted or timed out).
    pub fn open_sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Stops accepting connections, ends every session (cancelling its running calls),
    /// waits for the open connections to finish their responses (at most
    /// [`SHUTDOWN_GRACE`]) and returns the final counters.
    pub async fn shutdown(self) -> HttpStats {
        self.cancel.cancel();
        let _ = self.task.await;
        self.counters.snapshot()
    }

    /// Waits until the server stops (it runs until [`HttpServer::shutdown`] or an error).
    ///
    /// # Errors
    ///
    /// [`ServeError::Task`] when the accept loop panicked.
    pub async fn wait(self) -> Result<(), ServeError> {
        self.task.await.map_err(|e| ServeError::Task(e.to_string()))
    }
}

type HttpBody = BoxBody<Bytes, Infallible>;
type HttpResponse = hyper::Response<HttpBody>;

fn unauthorized() -> HttpResponse {
    let body = Full::new(Bytes::from_static(b"{\"error\":\"a valid bearer token is required\"}")).boxed();
    let mut response = hyper::Response::new(body);
    *response.status_mut() = hyper::StatusCode::UNAUTHORIZED;
    response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, hyper::header::HeaderValue::from_static("Bearer"));
    response
}

/// Compares in time independent of where the first difference is.
pub(crate) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorized(request: &hyper::Request<Incoming>, token: &str) -> bool {
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .is_some_and(|given| same_secret(given.trim().as_bytes(), token.as_bytes()))
}

/// Serves the session's pool over streamable HTTP at `http://ADDR/mcp` (any path is
/// accepted). A loopback address needs no token; any other address needs
/// `bearer_token`, and then every request must carry `Authorization: Bearer <token>`
/// (a loopback server checks a token too when one is given). Returns once listening.
///
/// # Errors
///
/// [`ServeError::TokenRequired`] for a non-loopback address without a token;
/// [`ServeError::Io`] when the address cannot be bound.
pub async fn serve_http(
    session: Session,
    addr: SocketAddr,
    bearer_token: Option<String>,
    opts: ServeOptions,
) -> Result<HttpServer, ServeError> {
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;

    let loopback = addr.ip().is_loopback();
    if !loopback && bearer_token.as_deref().is_none_or(str::is_empty) {
        return Err(ServeError::TokenRequired { addr });
    }
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    // Cancelled by `HttpServer::shutdown` or the host's `ServeOptions::shutdown`.
    let cancel = opts.stop_token();
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(MAX_REQUEST_BODY_BYTES);
    if !loopback {
        // The token guards the server; DNS rebinding is a loopback concern.
        config = config.disable_allowed_hosts();
    }
    let sessions = Arc::new(SessionRegistry::new(session.clone(), opts.session_services.clone()));
    let manager = Arc::new(ScopedSessions::new(sessions.clone(), opts.disconnect_grace, opts.idle_timeout));
    let handler = PoolServer::per_session(session, sessions.clone(), opts);
    let service = StreamableHttpService::new(move || Ok(handler.for_new_session()), manager, config);
    let token: Option<Arc<str>> = bearer_token.filter(|t| !t.is_empty()).map(Arc::from);
    let counters = Arc::new(Counters::default());
    let accept_cancel = cancel.clone();
    let loop_counters = counters.clone();
    let loop_sessions = sessions.clone();
    let task = tokio::spawn(async move {
        let counters = loop_counters;
        let mut connections = tokio::task::JoinSet::new();
        loop {
            while connections.try_join_next().is_some() {}
            let stream = tokio::select! {
                () = accept_cancel.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => continue,
                },
            };
            counters.connections.fetch_add(1, Ordering::Relaxed);
            // Without it, the second piece of a response waits for the client's delayed ACK.
            if stream.set_nodelay(true).is_ok() && stream.nodelay().unwrap_or(false) {
                counters.nodelay.fetch_add(1, Ordering::Relaxed);
            }
            let inner = TowerToHyperService::new(service.clone());
            let token = token.clone();
            let svc_counters = counters.clone();
            let svc = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let inner = inner.clone();
                let token = token.clone();
                let counters = svc_counters.clone();
                async move {
                    counters.responses.fetch_add(1, Ordering::Relaxed);
                    if let Some(token) = &token
                        && !authorized(&request, token)
                    {
                        return Ok::<_, Infallible>(unauthorized());
                    }
                    let method = request.method().clone();
                    let response = match hyper::service::Service::call(&inner, request).await {
                        Ok(response) => response,
                        Err(never) => match never {},
                    };
                    Ok(finish(&method, response).await)
                }
            });
            let conn_cancel = accept_cancel.clone();
            let io = TokioIo::new(Counted { inner: stream, writes: counters.clone() });
            connections.spawn(async move {
                let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, svc);
                tokio::pin!(conn);
                tokio::select! {
                    _ = conn.as_mut() => return,
                    () = conn_cancel.cancelled() => conn.as_mut().graceful_shutdown(),
                }
                let _ = conn.await;
            });
        }
        // Every session's calls stop (rmcp ends its sessions on the same token).
        loop_sessions.close_all();
        // Let the open connections finish what they are writing, then drop them.
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, async { while connections.join_next().await.is_some() {} }).await;
    });
    Ok(HttpServer { local_addr, cancel, task, counters, sessions })
}

/// The response rmcp produced, made ready for the wire (steps 3 and 4 of the module doc).
async fn finish(method: &hyper::Method, response: HttpResponse) -> HttpResponse {
    if *method == hyper::Method::DELETE && response.status() == hyper::StatusCode::ACCEPTED {
        let (mut parts, _) = response.into_parts();
        parts.status = hyper::StatusCode::NO_CONTENT;
        return hyper::Response::from_parts(parts, Full::new(Bytes::new()).boxed());
    }
    let event_stream = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if *method != hyper::Method::POST || !event_stream {
        return response;
    }
    let (mut parts, mut body) = response.into_parts();
    let mut held = Vec::new();
    loop {
        let Some(frame) = body.frame().await else {
            // The stream ended: the whole body is known.
            return whole(parts, held);
        };
        let frame = match frame {
            Ok(frame) => frame,
            Err(never) => match never {},
        };
        let Ok(data) = frame.into_data() else {
            // Trailers: nothing rmcp sends; stream what is held and stop there.
            break;
        };
        held.extend_from_slice(&data);
        match classify(&data) {
            Event::Priming => {}
            Event::Final => {
                // Nothing follows a request's answer on its stream.
                parts.headers.remove(hyper::header::TRANSFER_ENCODING);
                return whole(parts, held);
            }
            Event::Other => break,
        }
    }
    let body = Prefixed { first: Some(Bytes::from(held)), rest: body };
    hyper::Response::from_parts(parts, body.boxed())
}

/// A response whose body is `held`, with its length: one write with the head.
fn whole(mut parts: hyper::http::response::Parts, held: Vec<u8>) -> HttpResponse {
    parts.headers.remove(hyper::header::CONTENT_LENGTH);
    hyper::Response::from_parts(parts, Full::new(Bytes::from(held)).boxed())
}

/// What a piece of an event stream holds.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    /// Only events without data (rmcp's priming event: an id and a retry interval).
    Priming,
    /// A JSON-RPC response or error: the answer to the request, the last event.
    Final,
    /// Anything else: a notification, a request to the client, a keep-alive comment.
    Other,
}

/// The top-level members that tell a JSON-RPC answer from a request or notification.
#[derive(serde::Deserialize)]
struct Shape {
    id: Option<serde::de::IgnoredAny>,
    method: Option<serde::de::IgnoredAny>,
    result: Option<serde::de::IgnoredAny>,
    error: Option<serde::de::IgnoredAny>,
}

fn classify(chunk: &[u8]) -> Event {
    let Ok(text) = std::str::from_utf8(chunk) else { return Event::Other };
    let mut saw_field = false;
    let mut verdict = Event::Priming;
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if line.starts_with(':') {
            // A comment: a keep-alive.
            return Event::Other;
        }
        saw_field = true;
        let Some(data) = line.strip_prefix("data:") else { continue };
        let data = data.strip_prefix(' ').unwrap_or(data);
        if data.is_empty() {
            continue;
        }
        match serde_json::from_str::<Shape>(data) {
            Ok(shape)
                if shape.id.is_some()
                    && shape.method.is_none()
                    && (shape.result.is_some() || shape.error.is_some()) =>
            {
                verdict = Event::Final;
            }
            _ => return Event::Other,
        }
    }
    if saw_field { verdict } else { Event::Other }
}

/// A body that yields `first`, then the rest of a stream.
struct Prefixed {
    first: Option<Bytes>,
    rest: HttpBody,
}

impl Body for Prefixed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.rest.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let mut hint = self.rest.size_hint();
        if let Some(first) = &self.first {
            let len = first.len() as u64;
            hint.set_lower(hint.lower().saturating_add(len));
            if let Some(upper) = hint.upper() {
                hint.set_upper(upper.saturating_add(len));
            }
        }
        hint
    }
}

/// A socket whose writes are counted.
struct Counted<S> {
    inner: S,
    writes: Arc<Counters>,
}

impl<S> Counted<S> {
    fn count(&self, written: &Poll<io::Result<usize>>) {
        if matches!(written, Poll::Ready(Ok(n)) if *n > 0) {
            self.writes.writes.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.count(&written);
        written
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.count(&written);
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }

    #[tokio::test]
    async fn non_loopback_addresses_need_a_token() {
        let session = Session::builder().cwd("/tmp").build();
        let addr: SocketAddr = "0.0.0.0:0".parse().unwrap();
        let err = serve_http(session, addr, None, ServeOptions::new()).await.unwrap_err();
        assert!(matches!(err, ServeError::TokenRequired { .. }), "{err}");
    }

    #[test]
    fn event_stream_pieces_are_told_apart() {
        assert_eq!(classify(b"id: 0\nretry: 3000\ndata: \n\n"), Event::Priming);
        assert_eq!(classify(b"data:\nid: 0/1\nretry: 3000\n\n"), Event::Priming);
        assert_eq!(classify(b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), Event::Final);
        assert_eq!(
            classify(b"data: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":1}}\nid: 3\n\n"),
            Event::Final
        );
        let progress = b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";
        assert_eq!(classify(progress), Event::Other);
        let question = b"data: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{}}\n\n";
        assert_eq!(classify(question), Event::Other);
        assert_eq!(classify(b":\n\n"), Event::Other);
        assert_eq!(classify(b""), Event::Other);
        assert_eq!(classify(b"data: not json\n\n"), Event::Other);
    }
}
