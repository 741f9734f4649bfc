//! The agent of `agent.rs` for OpenAI-compatible chat completions, which local servers
//! (llama.cpp, vLLM, Ollama) and many hosted ones speak.
//!
//! ```sh
//! OPENAI_BASE_URL=http://localhost:8080/v1 OPENAI_MODEL=qwen3 \
//!   cargo run -p toolgate-pipeline --example agent_openai -- "what does this repo do?"
//! ```
//!
//! It sends the pool's function definitions, streams the answer (text and tool calls arrive as
//! deltas, a call's arguments in pieces), runs the message's calls through the session, sends
//! one `role: tool` message per call back, and repeats until the model stops. `OPENAI_API_KEY`
//! is sent when set.

use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::DefinitionFormat;
use toolgate_pipeline::{Session, ToolResultBlock, calls_from_openai, openai_tool_messages};

/// A chat-completions endpoint and the session its tool calls run in.
pub struct Agent {
    /// The HTTP client requests go through.
    pub http: reqwest::Client,
    /// The API base (`/chat/completions` is appended), e.g. `http://localhost:8080/v1`.
    pub base_url: String,
    /// Sent as a bearer token when set.
    pub api_key: Option<String>,
    /// The model asked.
    pub model: String,
    /// Where the tool calls run.
    pub session: Session,
}

impl Agent {
    /// Runs `prompt` to the model's last word; returns its final text.
    pub async fn run(&self, prompt: &str) -> Result<String, String> {
        let mut messages = vec![json!({"role": "user", "content": prompt})];
        loop {
            let (message, finish) = self.stream_turn(&messages).await?;
            let text = message["content"].as_str().unwrap_or_default().to_owned();
            let has_calls = message["tool_calls"].as_array().is_some_and(|c| !c.is_empty());
            messages.push(message.clone());
            if finish != "tool_calls" || !has_calls {
                return Ok(text);
            }
            let (calls, malformed) = calls_from_openai(&message)?;
            let mut results = self.session.run_message(calls).await;
            // A call whose arguments are not a JSON object is answered with the error.
            results.extend(
                malformed
                    .into_iter()
                    .map(|bad| ToolResultBlock::error(bad.id, &toolgate_core::ToolError::invalid_input(bad.message))),
            );
            messages.extend(openai_tool_messages(&results));
        }
    }

    /// Sends the conversation and assembles the streamed assistant message.
    async fn stream_turn(&self, messages: &[Value]) -> Result<(Value, String), String> {
        let tools: Value = serde_json::from_str(self.session.pool().definitions_json(DefinitionFormat::OpenAi))
            .map_err(|e| e.to_string())?;
        let body = json!({"model": self.model, "stream": true, "messages": messages, "tools": tools});
        let mut request = self.http.post(format!("{}/chat/completions", self.base_url.trim_end_matches('/')));
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let mut response = request.json(&body).send().await.map_err(|e| format!("the request failed: {e}"))?;
        if !response.status().is_success() {
            let status = response.status();
            return Err(format!("the server answered {status}: {}", response.text().await.unwrap_or_default()));
        }
        let (mut text, mut calls, mut finish) = (String::new(), Vec::<Value>::new(), String::new());
        let mut buffer = Vec::<u8>::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| format!("the stream broke: {e}"))? {
            buffer.extend_from_slice(&chunk);
            while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                let line = String::from_utf8_lossy(&line);
                let Some(data) = line.trim().strip_prefix("data:").map(str::trim) else { continue };
                if data == "[DONE]" {
                    continue;
                }
                let event: Value = serde_json::from_str(data).map_err(|e| e.to_string())?;
                let choice = &event["choices"][0];
                text.push_str(choice["delta"]["content"].as_str().unwrap_or_default());
                for delta in choice["delta"]["tool_calls"].as_array().into_iter().flatten() {
                    merge_call(&mut calls, delta);
                }
                if let Some(reason) = choice["finish_reason"].as_str() {
                    finish = reason.to_owned();
                }
            }
        }
        let mut message = json!({"role": "assistant", "content": text});
        if !calls.is_empty() {
            message["tool_calls"] = Value::Array(calls);
        }
        Ok((message, finish))
    }
}

/// Adds one streamed piece of a tool call (by its `index`) to the calls so far.
fn merge_call(calls: &mut Vec<Value>, delta: &Value) {
    let index = usize::try_from(delta["index"].as_u64().unwrap_or(0)).unwrap_or(0);
    while calls.len() <= index {
        calls.push(json!({"id": "", "type": "function", "function": {"name": "", "arguments": ""}}));
    }
    let call = &mut calls[index];
    if let Some(id) = delta["id"].as_str() {
        call["id"] = json!(id);
    }
    for field in ["name", "arguments"] {
        if let Some(piece) = delta["function"][field].as_str() {
            let so_far = call["function"][field].as_str().unwrap_or_default();
            call["function"][field] = json!(format!("{so_far}{piece}"));
        }
    }
}

#[allow(dead_code, reason = "the test drives the agent without this entry point")]
#[tokio::main]
async fn main() -> std::process::ExitCode {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let env_or = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let agent = std::env::current_dir().map_err(|e| e.to_string()).and_then(|cwd| {
        let http = toolgate_core::http::client_builder()
            .timeout(Duration::from_secs(600))
            .build()
            .map_err(|e| e.to_string())?;
        let session = Session::builder().builtin_tools(toolgate_builtin::all_builtin_tools()).discover(&cwd).build();
        Ok(Agent {
            http,
            base_url: env_or("OPENAI_BASE_URL", "http://localhost:8080/v1"),
            api_key: std::env::var("OPENAI_API_KEY").ok(),
            model: env_or("OPENAI_MODEL", "default"),
            session,
        })
    });
    let answer = match agent {
        Ok(agent) if !prompt.is_empty() => agent.run(&prompt).await,
        Ok(_) => Err("usage: agent_openai PROMPT".to_owned()),
        Err(e) => Err(e),
    };
    match answer {
        Ok(text) => {
            println!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("agent_openai: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
