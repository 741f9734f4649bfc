//! The legacy MCP HTTP+SSE client transport (protocol revision 2024-11-05), which rmcp
//! does not ship.
//!
//! The client `GET`s the SSE URL with `Accept: text/event-stream`. The server's first
//! `endpoint` event carries the URL (relative to the SSE URL) that the client `POST`s its
//! JSON-RPC messages to; every `message` event carries one JSON-RPC message from the
//! server. The configured headers go with the `GET` and with every `POST`, so the endpoint
//! must have the SSE URL's origin.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Client, Response, StatusCode, Url};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How many server messages may wait for the client before the reader stops reading.
const CHANNEL_CAPACITY: usize = 64;

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, `message` when absent.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// An incremental `text/event-stream` parser: feed it chunks as they arrive, split
/// anywhere (even inside a line or a `\r\n`), and it returns the completed events.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// The current line so far.
    line: Vec<u8>,
    /// The previous chunk ended with `\r`, so a leading `\n` belongs to that line end.
    after_cr: bool,
    /// No line has been completed yet (a leading byte-order mark is dropped).
    at_start: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub(crate) fn new() -> Self {
        Self { at_start: true, ..Self::default() }
    }

    /// Consumes a chunk; returns the events it completed, in order.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in chunk {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                b'\n' => self.end_line(&mut events),
                _ => self.line.push(byte),
            }
        }
        events
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let raw = std::mem::take(&mut self.line);
        let mut line = String::from_utf8_lossy(&raw).into_owned();
        if std::mem::take(&mut self.at_start) && line.starts_with('\u{feff}') {
            line.remove(0);
        }
        if line.is_empty() {
            // Blank line: dispatch (an event without data is dropped, as browsers do).
            let event = self.event.take();
            if std::mem::take(&mut self.has_data) {
                let data = std::mem::take(&mut self.data);
                events.push(SseEvent { event: event.unwrap_or_else(|| "message".to_owned()), data });
            }
            return;
        }
        if line.starts_with(':') {
            return; // A comment (often a keep-alive).
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            // `id` and `retry` only matter for reconnecting, which this transport does not do.
            _ => {}
        }
    }
}

/// Why a message could not be sent to the server.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    /// The message did not serialize.
    #[error("cannot encode the message: {0}")]
    Encode(#[from] serde_json::Error),
    /// The `POST` did not complete.
    #[error("POST {url} failed: {source}")]
    Post {
        /// The message endpoint.
        url: String,
        /// What went wrong.
        #[source]
        source: reqwest::Error,
    },
    /// The server refused the message.
    #[error("POST {url} answered HTTP {status}")]
    Status {
        /// The message endpoint.
        url: String,
        /// The answer.
        status: StatusCode,
    },
}

/// A connected SSE session: the open event stream (read by a background task) and the
/// endpoint to post to. Closing or dropping it closes the stream.
pub(crate) struct SseTransport {
    client: Client,
    headers: HeaderMap,
    endpoint: Url,
    post_timeout: Duration,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: JoinHandle<()>,
}

impl std::fmt::Debug for SseTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseTransport").field("endpoint", &self.endpoint.as_str()).finish_non_exhaustive()
    }
}

/// The configured headers as a header map, or why one cannot be sent.
pub(crate) fn header_map(headers: &BTreeMap<String, String>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| format!("header `{k}` is not a valid header name: {e}"))?;
        let value =
            HeaderValue::from_str(v).map_err(|e| format!("header `{k}` has a value that cannot be sent: {e}"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// Resolves the `endpoint` event's data against the SSE URL; it must stay on the same
/// origin, since the configured headers (often credentials) go with every `POST`.
pub(crate) fn resolve_endpoint(base: &Url, data: &str) -> Result<Url, String> {
    let endpoint = base
        .join(data.trim())
        .map_err(|e| format!("the `endpoint` event `{}` is not a valid URL: {e}", data.trim()))?;
    if endpoint.origin() != base.origin() {
        return Err(format!(
            "the `endpoint` event points to another origin ({endpoint}); \
             the configured headers are only sent to {}",
            base.origin().ascii_serialization()
        ));
    }
    Ok(endpoint)
}

impl SseTransport {
    /// Opens the event stream and waits for the `endpoint` event. The caller bounds the
    /// wait (the start-up timeout); `post_timeout` bounds each later `POST`.
    pub(crate) async fn connect(
        url: &str,
        headers: &BTreeMap<String, String>,
        post_timeout: Duration,
    ) -> Result<Self, String> {
        let base = Url::parse(url).map_err(|e| format!("`{url}` is not a valid URL: {e}"))?;
        let headers = header_map(headers)?;
        let client = toolgate_core::http::client_builder()
            .connect_timeout(post_timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        let mut response = client
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .header(CACHE_CONTROL, "no-cache")
            .send()
            .await
            .map_err(|e| format!("GET {base} failed: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("GET {base} answered HTTP {status}"));
        }
        if let Some(kind) = response.headers().get(CONTENT_TYPE)
            && !kind.to_str().is_ok_and(|k| k.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
        {
            return Err(format!(
                "GET {base} answered with content type `{}`, not text/event-stream (is this an SSE endpoint?)",
                String::from_utf8_lossy(kind.as_bytes())
            ));
        }

        let mut parser = SseParser::new();
        let mut early = Vec::new();
        let endpoint = 'found: loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Err("the SSE stream ended before the `endpoint` event".to_owned()),
                Err(e) => return Err(format!("reading the SSE stream failed before the `endpoint` event: {e}")),
            };
            let mut events = parser.feed(&chunk).into_iter();
            while let Some(event) = events.next() {
                if event.event == "endpoint" {
                    // Messages sent in the same chunk after the endpoint are kept.
                    early.extend(events);
                    break 'found resolve_endpoint(&base, &event.data)?;
                }
                early.push(event);
            }
        };

        let (tx, incoming) = mpsc::channel(CHANNEL_CAPACITY);
        let reader = tokio::spawn(read_messages(response, parser, early, tx));
        Ok(Self { client, headers, endpoint, post_timeout, incoming, reader })
    }
}

/// Forwards `message` events as JSON-RPC messages until the stream ends, fails, or the
/// transport goes away. A message that does not parse is skipped.
async fn read_messages(
    mut response: Response,
    mut parser: SseParser,
    early: Vec<SseEvent>,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
) {
    let mut pending = early;
    loop {
        for event in pending.drain(..) {
            if event.event != "message" {
                continue;
            }
            let Ok(message) = serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&event.data) else {
                continue;
            };
            if tx.send(message).await.is_err() {
                return;
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => pending = parser.feed(&chunk),
            Ok(None) | Err(_) => return,
        }
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = serde_json::to_vec(&item).map(|body| {
            self.client
                .post(self.endpoint.clone())
                .headers(self.headers.clone())
                .header(CONTENT_TYPE, "application/json")
                .timeout(self.post_timeout)
                .body(body)
        });
        let url = self.endpoint.to_string();
        async move {
            let response = request?.send().await.map_err(|source| SseError::Post { url: url.clone(), source })?;
            let status = response.status();
            if !status.is_success() {
                return Err(SseError::Status { url, status });
            }
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Dropping the response inside the reader closes the event stream.
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(parts: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        parts.iter().flat_map(|part| parser.feed(part)).collect()
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent { event: event.to_owned(), data: data.to_owned() }
    }

    #[test]
    fn parses_events_split_at_every_byte() {
        let stream: &[u8] =
            b"\xEF\xBB\xBF: keep-alive\r\nevent: endpoint\r\ndata: /message?sessionId=1\r\n\r\ndata: {\"a\":\r\ndata:1}\r\n\r\n";
        let expected = vec![ev("endpoint", "/message?sessionId=1"), ev("message", "{\"a\":\n1}")];
        assert_eq!(feed_all(&[stream]), expected);
        for split in 0..=stream.len() {
            let (a, b) = stream.split_at(split);
            assert_eq!(feed_all(&[a, b]), expected, "split at {split}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(feed_all(&bytes), expected);
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_end() {
        // `\r` ends one chunk and `\n` starts the next: still a single line end, so the
        // event is dispatched by the following blank line only.
        let events = feed_all(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(events, vec![ev("message", "a\nb")]);
    }

    #[test]
    fn handles_lf_cr_comments_and_odd_fields() {
        let events = feed_all(&[
            b": comment only\n\n",
            b"event: x\n\n",
            b"data\n\n",
            b"data:no space\rdata:  two spaces\r\r",
            b"id: 7\nretry: 10\nfoo: bar\ndata: {}\n\n",
            b"event: message\ndata: \xC3",
            b"\xA9",
            b"\xC3\xA9\n\n",
            b"data: unterminated",
        ]);
        assert_eq!(
            events,
            vec![ev("message", ""), ev("message", "no space\n two spaces"), ev("message", "{}"), ev("message", "éé")]
        );
    }

    #[test]
    fn endpoints_resolve_relative_to_the_sse_url() {
        let base = Url::parse("http://127.0.0.1:3001/mcp/sse?x=1").unwrap();
        assert_eq!(
            resolve_endpoint(&base, "/message?sessionId=abc").unwrap().as_str(),
            "http://127.0.0.1:3001/message?sessionId=abc"
        );
        assert_eq!(
            resolve_endpoint(&base, " messages/?s=1\n").unwrap().as_str(),
            "http://127.0.0.1:3001/mcp/messages/?s=1"
        );
        assert_eq!(resolve_endpoint(&base, "http://127.0.0.1:3001/m").unwrap().as_str(), "http://127.0.0.1:3001/m");
        let err = resolve_endpoint(&base, "https://evil.example/m").unwrap_err();
        assert!(err.contains("another origin"), "{err}");
    }

    #[test]
    fn bad_headers_are_reported() {
        let mut headers = BTreeMap::new();
        headers.insert("bad name".to_owned(), "v".to_owned());
        assert!(header_map(&headers).unwrap_err().contains("not a valid header name"));
    }
}
