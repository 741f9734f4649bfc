//! A scripted model API on loopback for the agent examples' tests: one answer per request, in
//! order, each request's body recorded; the answer is streamed in two writes with a pause, so
//! a client reads a stream, not one body.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// Serves `turns` in order, one per request, recording each request body.
pub async fn scripted_api(path: &str, turns: Vec<String>) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}{path}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        for events in turns {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut data = Vec::new();
            let mut buf = [0_u8; 8192];
            let body = loop {
                let n = socket.read(&mut buf).await.unwrap();
                assert!(n > 0, "the request ended early");
                data.extend_from_slice(&buf[..n]);
                let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                let head = String::from_utf8_lossy(&data[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if data.len() >= end + 4 + length {
                    break data[end + 4..end + 4 + length].to_vec();
                }
            };
            record.lock().unwrap().push(serde_json::from_slice::<Value>(&body).unwrap());
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
            socket.write_all(head.as_bytes()).await.unwrap();
            // Half the events, a pause, the rest: the agent reads a stream, not one body.
            let cut = events.len() / 2;
            let cut = (0..=cut).rev().find(|&i| events.is_char_boundary(i)).unwrap();
            socket.write_all(&events.as_bytes()[..cut]).await.unwrap();
            socket.flush().await.unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            socket.write_all(&events.as_bytes()[cut..]).await.unwrap();
            socket.shutdown().await.unwrap();
        }
    });
    (url, seen)
}
