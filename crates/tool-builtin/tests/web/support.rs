//! A tiny HTTP/1.1 server on loopback whose answers the test scripts, recording every
//! request it reads; and helpers to call tools.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolgate_core::{DynTool, ToolContext, ToolError, ToolOutput};

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// The decoded query parameters.
    pub fn query(&self) -> Vec<(String, String)> {
        let url = reqwest::Url::parse(&format!("http://x{}", self.target)).unwrap();
        url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
    }
}

/// What the server answers.
pub enum Reply {
    /// A response with a `content-length`.
    Full { status: u16, headers: Vec<(&'static str, String)>, body: Vec<u8> },
    /// A chunked response (no declared length), sent in these pieces.
    Chunked { content_type: &'static str, chunks: Vec<Vec<u8>> },
    /// Read the request and never answer.
    Hang,
}

impl Reply {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::Full { status: 200, headers: vec![("content-type", content_type.to_owned())], body: body.into() }
    }

    pub fn status(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::Full { status, headers: vec![("content-type", content_type.to_owned())], body: body.into() }
    }

    pub fn redirect(status: u16, location: &str) -> Self {
        Self::Full { status, headers: vec![("location", location.to_owned())], body: Vec::new() }
    }
}

type Handler = dyn Fn(&Recorded) -> Reply + Send + Sync;

pub struct Server {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    pub async fn start(handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let seen = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else { return };
                let (handler, seen) = (handler.clone(), seen.clone());
                tokio::spawn(async move { serve(socket, &*handler, &seen).await });
            }
        });
        Self { base: format!("http://127.0.0.1:{port}"), port, requests }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    pub fn hits(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

async fn serve(mut socket: TcpStream, handler: &Handler, seen: &Mutex<Vec<Recorded>>) {
    let Some(request) = read_request(&mut socket).await else { return };
    seen.lock().unwrap().push(request.clone());
    match handler(&request) {
        Reply::Hang => std::future::pending::<()>().await,
        Reply::Full { status, headers, body } => {
            let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body).await;
        }
        Reply::Chunked { content_type, chunks } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            );
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for chunk in chunks {
                let frame = [format!("{:x}\r\n", chunk.len()).into_bytes(), chunk, b"\r\n".to_vec()].concat();
                if socket.write_all(&frame).await.is_err() {
                    return;
                }
            }
            let _ = socket.write_all(b"0\r\n\r\n").await;
        }
    }
    let _ = socket.shutdown().await;
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    while data.len() < head_end + 4 + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&data[head_end + 4..]).into_owned();
    Some(Recorded { method, target, headers, body })
}

pub fn ctx() -> ToolContext {
    ToolContext::new(std::env::temp_dir())
}

/// Runs `tool` as the pipeline does after the schema step: validation, then the call.
pub async fn run(tool: &DynTool, input: Value) -> Result<ToolOutput, ToolError> {
    let ctx = ctx();
    tool.validate_input(&input, &ctx).await?;
    tool.call(input, &ctx).await
}

/// The text of a successful call.
pub async fn text(tool: &DynTool, input: Value) -> String {
    match run(tool, input).await {
        Ok(out) => out.to_text(),
        Err(e) => panic!("the call failed: {}", e.to_model_text()),
    }
}

/// The error of a failed call.
pub async fn error(tool: &DynTool, input: Value) -> ToolError {
    match run(tool, input).await {
        Ok(out) => panic!("the call succeeded: {}", out.to_text()),
        Err(e) => e,
    }
}
