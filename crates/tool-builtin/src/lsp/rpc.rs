//! JSON-RPC 2.0 over stdio with the base protocol's framing: a header part
//! (`Content-Length: N`, optionally `Content-Type`), an empty line, then `N` bytes of JSON.
//!
//! Reading is bounded: a header section over [`MAX_HEADER`] bytes or a body over
//! [`MAX_MESSAGE`] bytes is an error, never an allocation the server chose.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

/// The largest message body accepted from a server: 64 MiB.
pub(crate) const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// The largest header section accepted: 8 KiB.
pub(crate) const MAX_HEADER: usize = 8 * 1024;

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    /// Reading the pipe failed.
    #[error("reading from the server failed: {0}")]
    Io(#[from] std::io::Error),
    /// The stream ended inside a message.
    #[error("the server's output ended in the middle of a message")]
    Truncated,
    /// A header line is not `Name: value`, or the headers are too long.
    #[error("malformed message header: {0}")]
    BadHeader(String),
    /// No `Content-Length` header.
    #[error("a message has no Content-Length header")]
    MissingLength,
    /// The body is larger than [`MAX_MESSAGE`].
    #[error("a message of {0} bytes is larger than the {MAX_MESSAGE}-byte limit")]
    TooLarge(usize),
    /// The body is not JSON.
    #[error("a message is not valid JSON: {0}")]
    BadJson(String),
}

/// Reads one message; `Ok(None)` when the stream ends cleanly between messages.
///
/// # Errors
///
/// [`FrameError`] for I/O failures and malformed frames.
pub(crate) async fn read_message<R: AsyncBufRead + Unpin>(reader: &mut R) -> Result<Option<Value>, FrameError> {
    let mut length: Option<usize> = None;
    let mut header_bytes = 0usize;
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let n = (&mut *reader).take((MAX_HEADER + 1) as u64).read_until(b'\n', &mut line).await?;
        if n == 0 {
            return if first { Ok(None) } else { Err(FrameError::Truncated) };
        }
        first = false;
        header_bytes += n;
        if header_bytes > MAX_HEADER {
            return Err(FrameError::BadHeader(format!("the header section is over {MAX_HEADER} bytes")));
        }
        if !line.ends_with(b"\n") {
            return Err(FrameError::Truncated);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(FrameError::BadHeader(format!("`{}` is not `Name: value`", shorten(text))));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| FrameError::BadHeader(format!("Content-Length `{}` is not a number", shorten(value))))?;
            length = Some(n);
        }
    }
    let length = length.ok_or(FrameError::MissingLength)?;
    if length > MAX_MESSAGE {
        return Err(FrameError::TooLarge(length));
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => FrameError::Truncated,
        _ => FrameError::Io(e),
    })?;
    serde_json::from_slice(&body).map(Some).map_err(|e| FrameError::BadJson(e.to_string()))
}

/// One message as framed bytes: its `Content-Length` header, an empty line, the JSON.
pub(crate) fn frame(message: &Value) -> Vec<u8> {
    // Serializing a `Value` cannot fail (its keys are strings).
    let body = serde_json::to_vec(message).unwrap_or_default();
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(&body);
    frame
}

/// Writes frames in order until the channel closes or a write fails. The only writer of
/// a server's stdin: a caller that gives up (timeout, cancellation) never leaves half a
/// frame behind.
pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut frames: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(frame) = frames.recv().await {
        if writer.write_all(&frame).await.is_err() || writer.flush().await.is_err() {
            return;
        }
    }
}

/// A request's JSON: `{"jsonrpc": "2.0", "id": id, "method": method, "params": params}`.
pub(crate) fn request(id: i64, method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification's JSON (no id).
pub(crate) fn notification(method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A successful response to a request from the server.
pub(crate) fn response(id: Value, result: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response to a request from the server.
pub(crate) fn error_response(id: Value, code: i64, message: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// What a message from the server is.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// The answer to one of our requests: its id and the result or error.
    Response { id: i64, outcome: Result<Value, RpcError> },
    /// A request the server sends us: id (as sent), method, params.
    Request { id: Value, method: String, params: Value },
    /// A notification (diagnostics, log messages, progress): ignored.
    Notification,
    /// Something that is none of these (a response to an id we never used …).
    Unexpected(String),
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcError {
    /// The error code (`-32601` method not found …).
    pub code: i64,
    /// The server's message.
    pub message: String,
}

/// Classifies a message from the server.
pub(crate) fn classify(mut message: Value) -> Incoming {
    let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
    let id = message.get_mut("id").map(Value::take).filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = message.get_mut("params").map(Value::take).unwrap_or(Value::Null);
            Incoming::Request { id, method, params }
        }
        (Some(_), None) => Incoming::Notification,
        (None, Some(Value::Number(n))) if n.as_i64().is_some() => {
            let id = n.as_i64().unwrap_or_default();
            let outcome = match message.get_mut("error").map(Value::take) {
                Some(error) if !error.is_null() => Err(RpcError {
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error.get("message").and_then(Value::as_str).unwrap_or("(no message)").to_owned(),
                }),
                _ => Ok(message.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
            };
            Incoming::Response { id, outcome }
        }
        (None, id) => Incoming::Unexpected(format!("a message with neither a method nor a known id ({id:?})")),
    }
}

fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(80).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::io::BufReader;

    use super::*;

    async fn read_all(bytes: &[u8]) -> Vec<Result<Option<Value>, String>> {
        let mut reader = BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            let item = read_message(&mut reader).await.map_err(|e| e.to_string());
            let stop = !matches!(item, Ok(Some(_)));
            out.push(item);
            if stop {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn frames_round_trip_with_and_without_content_type() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tx.send(frame(&json!({"a": "é"}))).unwrap();
        drop(tx);
        let mut buf = Vec::new();
        write_loop(&mut buf, rx).await;
        buf.extend_from_slice(
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}",
        );
        let got = read_all(&buf).await;
        assert_eq!(got, vec![Ok(Some(json!({"a": "é"}))), Ok(Some(json!({}))), Ok(None)]);
    }

    #[tokio::test]
    async fn malformed_frames_are_errors_not_panics() {
        let cases: [(&[u8], &str); 5] = [
            (b"Content-Length: 10\r\n\r\n{}", "ended in the middle"),
            (b"Content-Type: x\r\n\r\n{}", "no Content-Length"),
            (b"Content-Length: ten\r\n\r\n", "is not a number"),
            (b"Content-Length: 999999999999\r\n\r\n", "larger than"),
            (b"Content-Length: 3\r\n\r\nnop", "not valid JSON"),
        ];
        for (bytes, expected) in cases {
            let got = read_all(bytes).await;
            let last = got.last().unwrap().as_ref().unwrap_err();
            assert!(last.contains(expected), "{last} for {:?}", String::from_utf8_lossy(bytes));
        }
        let huge = vec![b'x'; MAX_HEADER * 2];
        let got = read_all(&huge).await;
        assert!(got[0].as_ref().unwrap_err().contains("header"), "{got:?}");
    }

    #[test]
    fn messages_are_classified() {
        assert_eq!(
            classify(json!({"jsonrpc": "2.0", "id": 3, "result": [1]})),
            Incoming::Response { id: 3, outcome: Ok(json!([1])) }
        );
        assert_eq!(
            classify(json!({"id": 4, "error": {"code": -32601, "message": "nope"}})),
            Incoming::Response { id: 4, outcome: Err(RpcError { code: -32601, message: "nope".into() }) }
        );
        assert_eq!(
            classify(json!({"id": "a", "method": "workspace/configuration", "params": {"items": []}})),
            Incoming::Request {
                id: json!("a"),
                method: "workspace/configuration".into(),
                params: json!({"items": []})
            }
        );
        assert_eq!(classify(json!({"method": "window/logMessage", "params": {}})), Incoming::Notification);
        assert!(matches!(classify(json!({"id": "x", "result": 1})), Incoming::Unexpected(_)));
    }
}
